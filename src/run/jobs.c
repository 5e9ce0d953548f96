/* --exec: a command started for each record released, -j at a time. */
#include <err.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "clock.h"
#include "jobs.h"
#include "signals.h"
#include "command.h"

/* How long to wait before another try at a process the system had none
 * of, in ns. */
#define JOBS_RETRY_NS 50000000

/* The commands in flight, for a second stop signal's handler. */
static struct jobs *live;

/* A second stop signal: the commands get SIGTERM too.  Signal-safe. */
static void
term_all(void)
{
	for (unsigned i = 0; live != NULL && i < live->max; i++)
		if (live->slot[i].pid > 0)
			(void)kill(live->slot[i].pid, SIGTERM);
}

int
jobs_init(struct jobs *j, char **cmd, int ncmd, unsigned max)
{
	*j = (struct jobs){ .cmd = cmd, .ncmd = ncmd, .max = max };
	for (int i = 0; i < ncmd; i++)
		j->braces = j->braces || strstr(cmd[i], "{}") != NULL;
	j->slot = calloc(max, sizeof *j->slot);
	j->argv = calloc((size_t)ncmd + 2, sizeof *j->argv);
	if (j->slot == NULL || j->argv == NULL) {
		jobs_free(j);
		return -1;
	}
	live = j;
	signals_on_child(jobs_reap, j, term_all);
	return 0;
}

void
jobs_free(struct jobs *j)
{
	if (live == j)
		live = NULL;
	free(j->slot);
	free(j->argv);
	free(j->text);
	j->slot = NULL;
	j->argv = NULL;
	j->text = NULL;
}

unsigned
jobs_room(const struct jobs *j)
{
	return j->broken != 0 ? 0 : j->max - j->running;
}

/* Room for need bytes of arguments' text; false when memory ran out. */
static bool
text_room(struct jobs *j, size_t need)
{
	char *t;

	if (need <= j->cap)
		return true;
	if ((t = realloc(j->text, need)) == NULL)
		return false;
	j->text = t;
	j->cap = need;
	return true;
}

/* Bytes of arg with every {} made rec[0..len), its NUL too. */
static size_t
expanded(const char *arg, size_t len)
{
	size_t n = strlen(arg) + 1;

	for (const char *p = arg; (p = strstr(p, "{}")) != NULL; p += 2)
		n += len - 2;
	return n;
}

/* Write arg with every {} made rec[0..len) at out; past its NUL. */
static char *
expand(char *out, const char *arg, const char *rec, size_t len)
{
	const char *p;

	while ((p = strstr(arg, "{}")) != NULL) {
		memcpy(out, arg, (size_t)(p - arg));
		out += p - arg;
		memcpy(out, rec, len);
		out += len;
		arg = p + 2;
	}
	strcpy(out, arg);
	return out + strlen(arg) + 1;
}

/* The command for rec[0..len) into j->argv; false when memory ran out. */
static bool
build(struct jobs *j, const char *rec, size_t len)
{
	size_t need = j->braces ? 0 : len + 1;
	char *out;
	int i;

	for (i = 0; i < j->ncmd; i++)
		need += expanded(j->cmd[i], len);
	if (!text_room(j, need))
		return false;
	out = j->text;
	for (i = 0; i < j->ncmd; i++) {
		j->argv[i] = out;
		out = expand(out, j->cmd[i], rec, len);
	}
	if (!j->braces) {
		j->argv[i++] = out;
		memcpy(out, rec, len);
		out[len] = '\0';
	}
	j->argv[i] = NULL;
	return true;
}

/* Note the outcome status of a command that ran for ran_ns. */
static void
count(struct jobs *j, int status, int64_t ran_ns)
{
	int worst = 0;

	if (ran_ns > j->counts.slowest_ns)
		j->counts.slowest_ns = ran_ns;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		j->counts.succeeded++;
		return;
	}
	j->counts.failed++;
	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGPIPE) {
		/* Our output's reader went away: as for a write of ours,
		 * the run stops (and ends of SIGPIPE, as cat would). */
		signals_stop(SIGPIPE);
		return;
	}
	if (WIFSIGNALED(status))
		worst = 125;
	else if (WIFEXITED(status))
		worst = WEXITSTATUS(status) == 255 ? 124 : 123;
	if (worst > j->status)
		j->status = worst;
}

/* A record that can be no argument: dropped, and said once. */
static enum stream_fate
refuse(struct jobs *j, bool *said, const char *why)
{
	j->counts.refused++;
	if (j->status < 123)
		j->status = 123;
	if (!*said)
		warnx("--exec: record %llu %s: it is dropped (and any more "
		      "such, counted by -s)",
		    (unsigned long long)j->records, why);
	*said = true;
	return STREAM_REFUSED;
}

/* Start the command j->argv in a free slot; its fate. */
static enum stream_fate
start(struct jobs *j)
{
	unsigned i = 0;
	pid_t pid;
	int e;
	int64_t start_ns;

	while (j->slot[i].pid != 0)
		i++;
	/* Before the spawn: the command may run a while before it returns,
	 * and its time would come out short. */
	start_ns = clock_now_ns();
	e = command_start(j->argv, &pid);
	/* No process to be had now (EAGAIN, ENOMEM): when one ends, or
	 * a little later, try again, for a second at most. */
	for (int tries = 0; (e == EAGAIN || e == ENOMEM) && tries < 20 &&
	     !signals_stop_requested();
	     tries++) {
		(void)clock_sleep_until(clock_now_ns() + JOBS_RETRY_NS);
		jobs_reap(j);
		start_ns = clock_now_ns();
		e = command_start(j->argv, &pid);
	}
	/* A script without #!: as execvp(3) runs it, by the shell. */
	if (e == ENOEXEC && strchr(j->argv[0], '/') != NULL)
		e = command_script(j->argv, &pid);
	if (e == 0) {
		j->slot[i] = (struct job){ pid, start_ns };
		j->counts.running = ++j->running;
		j->counts.started++;
		return STREAM_TAKEN;
	}
	if (e == E2BIG) {
		static bool said;

		return refuse(j, &said, "makes an argument list too long");
	}
	/* Every record would fail alike: start nothing more. */
	j->broken = e == ENOENT ? 127 : 126;
	warnx("--exec: cannot run '%s': %s", j->cmd[0], strerror(e));
	return STREAM_KEPT;
}

enum stream_fate
jobs_hand(void *self, const char *rec, size_t len)
{
	struct jobs *j = self;

	if (jobs_room(j) == 0 || signals_stop_requested())
		return STREAM_KEPT;
	j->records++;
	if (memchr(rec, '\0', len) != NULL)
		return refuse(j, &j->said_nul, "holds a NUL byte");
	if (!build(j, rec, len))
		err(1, "--exec: memory for the arguments of record %llu",
		    (unsigned long long)j->records);
	return start(j);
}

void
jobs_outgrown(struct jobs *j, size_t buf_bytes)
{
	char why[96];

	j->records++;
	snprintf(why, sizeof why,
	    "is longer than %zu bytes, too long for "
	    "an argument",
	    buf_bytes);
	(void)refuse(j, &j->said_long, why);
}

void
jobs_reap(void *self)
{
	struct jobs *j = self;
	int64_t now_ns = clock_now_ns();
	int status;
	pid_t pid;

	while (j->running > 0 && command_reap(&pid, &status)) {
		for (unsigned i = 0; i < j->max; i++) {
			if (j->slot[i].pid != pid)
				continue;
			count(j, status, now_ns - j->slot[i].start_ns);
			j->slot[i].pid = 0;
			j->running--;
			break;
		}
	}
	j->counts.running = j->running;
}

int
jobs_status(const struct jobs *j)
{
	return j->broken != 0 ? j->broken : j->status;
}
