/* --exec: a command started for each record released, -j at a time. */
#include <err.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clock.h"
#include "jobs.h"
#include "signals.h"
#include "command.h"

/*
 * No process to be had (EAGAIN, ENOMEM): with none of ours running, how
 * long to try again, and how often; with some, the longest wait for one
 * to end between tries (for a SIGCHLD missed).  In ns.
 */
#define JOBS_ALONE_NS 1000000000
#define JOBS_RETRY_NS 50000000
#define JOBS_REAP_NS 1000000000

static void jobs_reap(void *self);

/* A second stop signal: the commands get SIGTERM too.  Signal-safe. */
static void
term_all(void *self)
{
	struct jobs *j = self;

	for (unsigned i = 0; i < j->max; i++)
		if (j->slot[i].pid > 0)
			(void)kill(j->slot[i].pid, SIGTERM);
}

int
jobs_init(struct jobs *j, char **cmd, int ncmd, int sep, unsigned max,
    const struct stats *st)
{
	char why[512];

	*j = (struct jobs){ .cmd = cmd, .ncmd = ncmd, .max = max, .st = st };
	j->retry.failed_fd = -1;
	joblogfile_open(&j->log, NULL);
	if (template_parse(&j->tpl, cmd, ncmd, sep, why, sizeof why) != 0) {
		if (errno == EINVAL)
			errx(2, "--exec: %s", why);
		return -1;
	}
	retries_init(&j->retry, 0, &(struct exitset){ 0 }, 0, 0, NULL, max);
	j->slot = calloc(max, sizeof *j->slot);
	j->argv = calloc((size_t)ncmd + 2, sizeof *j->argv);
	if (j->slot == NULL || j->argv == NULL) {
		jobs_free(j);
		return -1;
	}
	signals_hook(SIGNALS_CHILD, jobs_reap, j, 0);
	signals_hook(SIGNALS_SECOND_STOP, term_all, j, 0);
	return 0;
}

void
jobs_output(struct jobs *j, enum output_mode mode, bool tag,
    const char *tagstring, int sep)
{
	char why[512];

	if (tagstring != NULL) {
		/* The template keeps the words it reads: a copy of ours. */
		if ((j->tag_word = strdup(tagstring)) == NULL)
			err(1, "--tagstring");
		if (template_parse(&j->tag_tpl, &j->tag_word, 1, sep, why,
			sizeof why) != 0) {
			if (errno == EINVAL)
				errx(2, "--tagstring: %s", why);
			err(1, "--tagstring");
		}
		if ((j->tag_argv = calloc((size_t)j->tag_tpl.nargs + 1,
			 sizeof *j->tag_argv)) == NULL)
			err(1, "--tagstring");
	}
	if (joboutput_init(&j->out, mode, tag || tagstring != NULL, j->max) !=
	    0)
		err(1, "--exec: memory for the output of %u commands", j->max);
}

void
jobs_retries(struct jobs *j, unsigned max, const struct exitset *on,
    int64_t delay_ns, int64_t max_ns, const char *failed_to, char delim)
{
	retries_init(&j->retry, max, on, delay_ns, max_ns, failed_to, j->max);
	j->delim = delim;
}

void
jobs_deadlines(struct jobs *j, int64_t timeout_ns, const struct halt *h)
{
	j->dl = (struct deadlines){ .timeout_ns = timeout_ns, .halt = *h };
}

/*
 * Send the commands the signals due by now_ns (once a stop came, each has
 * its grace); when the next is due, INT64_MAX when none.
 */
static int64_t
deadlines_check(struct jobs *j, int64_t now_ns)
{
	int64_t next_ns = INT64_MAX, at_ns;
	bool stopping = signals_stop_requested();

	if (!stopping && !deadline_any(&j->dl))
		return INT64_MAX; /* most runs, asked every turn */
	if (deadline_grace(&j->dl, stopping, now_ns, &at_ns))
		for (unsigned i = 0; i < j->max; i++)
			deadline_due_by(&j->slot[i].dl, at_ns, END_STOP);
	for (unsigned i = 0; i < j->max; i++) {
		if (j->slot[i].pid <= 0)
			continue;
		at_ns = deadline_signal(&j->dl, &j->slot[i].dl, j->slot[i].pid,
		    j->slot[i].seq, now_ns);
		if (at_ns < next_ns)
			next_ns = at_ns;
	}
	return next_ns;
}

/* An outcome was counted: once --halt is due, none starts (now: those
 * running get SIGTERM), the status at least 123. */
static void
halt_when_due(struct jobs *j, int64_t now_ns)
{
	if (!deadline_halt(&j->dl, &j->counts, j->running))
		return;
	j->halted = true;
	if (j->status < 123)
		j->status = 123;
	if (j->dl.halt.when != HALT_NOW)
		return;
	for (unsigned i = 0; i < j->max; i++)
		if (j->slot[i].pid > 0)
			deadline_due_by(&j->slot[i].dl, now_ns, END_HALT);
	(void)deadlines_check(j, now_ns);
}

struct resume *
jobs_joblog(struct jobs *j, const char *joblog, bool resume, bool resume_failed)
{
	struct seqset done;

	if (resume || resume_failed) {
		joblogfile_done(joblog,
		    resume_failed ? JOBLOG_RESUME_FAILED : JOBLOG_RESUME,
		    &done);
		resume_init(&j->resume, &done);
		j->retry.resume = &j->resume;
	}
	joblogfile_open(&j->log, joblog);
	return j->retry.resume;
}

void
jobs_free(struct jobs *j)
{
	signals_unhook(SIGNALS_SECOND_STOP, term_all);
	signals_unhook(SIGNALS_CHILD, jobs_reap);
	template_free(&j->tpl);
	template_free(&j->tag_tpl);
	joboutput_free(&j->out);
	free(j->tag_text);
	free(j->tag_argv);
	free(j->tag_word);
	(void)joblogfile_close(&j->log);
	resume_free(&j->resume);
	free(j->slot);
	free(j->argv);
	free(j->text);
	j->slot = NULL;
	j->argv = NULL;
	j->text = NULL;
}

/* Commands that may start now: free slots, or 0 once halted. */
static unsigned
jobs_room(const struct jobs *j)
{
	return j->halted ? 0 : j->max - j->running;
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

/* The tag of rec[0..len), number seq: --tagstring's filled in, else
 * the record; false when memory ran out. */
static bool
tag_build(struct jobs *j, const char *rec, size_t len, uint64_t seq)
{
	size_t need;

	j->tag = rec;
	j->tag_len = len;
	if (j->tag_tpl.part == NULL)
		return true;
	if ((need = template_bytes(&j->tag_tpl, rec, len)) > j->tag_cap) {
		char *t = realloc(j->tag_text, need);

		if (t == NULL)
			return false;
		j->tag_text = t;
		j->tag_cap = need;
	}
	template_fill(&j->tag_tpl, rec, len, seq, j->tag_text, j->tag_argv);
	j->tag = j->tag_argv[0];
	j->tag_len = strlen(j->tag);
	return true;
}

/* The command for rec[0..len), number seq, into j->argv, and its tag;
 * false when memory ran out. */
static bool
build(struct jobs *j, const char *rec, size_t len, uint64_t seq)
{
	if (!text_room(j, template_bytes(&j->tpl, rec, len)))
		return false;
	template_fill(&j->tpl, rec, len, seq, j->text, j->argv);
	return tag_build(j, rec, len, seq);
}

/*
 * A command exited 255 (worst 124) or was killed by a signal (125): as
 * xargs, no command starts after it; said once.
 */
static void
halt(struct jobs *j, int worst, int status)
{
	if (worst > j->status)
		j->status = worst;
	if (j->halted)
		return;
	j->halted = true;
	if (WIFSIGNALED(status))
		warnx("--exec: '%s' was killed by signal %d (%s): no more "
		      "commands start",
		    j->cmd[0], WTERMSIG(status), strsignal(WTERMSIG(status)));
	else
		warnx("--exec: '%s' exited with status 255: no more commands "
		      "start",
		    j->cmd[0]);
}

/* Has the reader of our standard output gone (a pipe with none)? */
static bool
output_gone(void)
{
	return (clock_fd_events(STDOUT_FILENO, POLLOUT) &
		   (POLLERR | POLLHUP)) != 0;
}

/* Note the outcome status of a command that ran for ran_ns. */
static void
count(struct jobs *j, int status, int64_t ran_ns)
{
	if (ran_ns > j->counts.slowest_ns)
		j->counts.slowest_ns = ran_ns;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		j->counts.succeeded++;
		return;
	}
	j->counts.failed++;
	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGPIPE &&
	    output_gone()) {
		/* It wrote to our output, whose reader went away: as for a
		 * write of ours, the run stops (and ends of SIGPIPE, as cat
		 * would).  A SIGPIPE of its own pipes is a signal as any. */
		signals_stop(SIGPIPE);
		return;
	}
	if (WIFSIGNALED(status))
		halt(j, 125, status);
	else if (WIFEXITED(status) && WEXITSTATUS(status) == 255)
		halt(j, 124, status);
	else if (j->status < 123)
		j->status = 123;
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

/* Sleep until deadline_ns, or until a command of ours ends or a stop
 * comes, doing what signals ask for meanwhile. */
static void
wait_end(struct jobs *j, int64_t deadline_ns)
{
	unsigned running = j->running;

	while (clock_sleep_until(deadline_ns) == EINTR) {
		signals_dispatch(); /* jobs_reap, on SIGCHLD */
		if (j->running < running || signals_stop_requested())
			return;
	}
	jobs_reap(j);
}

/*
 * No process to be had (error e, EAGAIN or ENOMEM): as xargs does, wait
 * for a command of ours to end and try again, as long as any runs; with
 * none running, try again for JOBS_ALONE_NS.  The last error, or EINTR
 * when a stop came or no command may start any more.
 */
static int
spawn_later(struct jobs *j, int e, pid_t *pid, int64_t *start_ns)
{
	int64_t now_ns, alone_ns = INT64_MAX; /* since none of ours ran */

	while (e == EAGAIN || e == ENOMEM) {
		now_ns = clock_now_ns();
		if (j->running > 0)
			alone_ns = INT64_MAX;
		else if (alone_ns == INT64_MAX)
			alone_ns = now_ns;
		if (now_ns - alone_ns >= JOBS_ALONE_NS)
			return e;
		wait_end(j,
		    now_ns + (j->running > 0 ? JOBS_REAP_NS : JOBS_RETRY_NS));
		if (signals_stop_requested() || j->halted)
			return EINTR;
		*start_ns = clock_now_ns();
		e = command_start(j->argv, j->env, j->out_fd, pid);
	}
	return e;
}

/* The command j->argv could not start (error e): say why, once. */
static enum stream_fate
cannot_start(struct jobs *j, int e)
{
	static bool said;

	if (e == EINTR)
		return STREAM_KEPT; /* a stop, or a halt: it waits */
	if (e == E2BIG)
		return refuse(j, &said, "makes an argument list too long");
	/* Every record would fail alike: start nothing more. */
	j->broken = e == ENOENT ? 127 : 126;
	j->halted = true;
	if (e == EAGAIN || e == ENOMEM)
		warnx("--exec: cannot run '%s': %s (for %d s no process was "
		      "to be had, and no command of ours ran to wait for)",
		    j->cmd[0], strerror(e), JOBS_ALONE_NS / 1000000000);
	else
		warnx("--exec: cannot run '%s': %s", j->cmd[0], strerror(e));
	return STREAM_KEPT;
}

/* No pipe or file for a command's output (error e): start nothing more. */
static enum stream_fate
no_output(struct jobs *j, int e)
{
	j->broken = 126;
	j->halted = true;
	warnx("--exec: no %s for the output of '%s': %s",
	    j->out.mode == OUTPUT_GROUP ? "file (in TMPDIR, else /tmp)" :
					  "pipe",
	    j->cmd[0], strerror(e));
	return STREAM_KEPT;
}

/*
 * Start the command j->argv, for the record numbered seq, its try-th try,
 * in a free slot; its fate.
 */
static enum stream_fate
start(struct jobs *j, uint64_t seq, unsigned try)
{
	unsigned i = 0;
	pid_t pid;
	int e;
	int64_t start_ns;
	char file[160];

	/* A slot is free: the engine hands no more records than slots. */
	while (j->slot[i].pid != 0)
		i++;
	snprintf(j->seq_env, sizeof j->seq_env, "TBTHROTTLE_SEQ=%llu",
	    (unsigned long long)seq);
	snprintf(j->try_env, sizeof j->try_env, "TBTHROTTLE_TRY=%u", try);
	retries_file(&j->retry, i, file, sizeof file);
	snprintf(j->after_env, sizeof j->after_env, "TBTHROTTLE_RETRY_AFTER=%s",
	    file);
	j->env[0] = j->seq_env;
	j->env[1] = j->try_env;
	j->env[2] = file[0] != '\0' ? j->after_env : NULL;
	j->env[3] = NULL;
	/* Before the spawn: the command may run a while before it returns,
	 * and its time would come out short. */
	if ((e = joboutput_open(&j->out, i, j->tag, j->tag_len, j->out_fd)) !=
	    0)
		return no_output(j, e);
	start_ns = clock_now_ns();
	e = command_start(j->argv, j->env, j->out_fd, &pid);
	if (e == EAGAIN || e == ENOMEM)
		e = spawn_later(j, e, &pid, &start_ns);
	/* A script without #!: as execvp(3) runs it, by the shell. */
	if (e == ENOEXEC && strchr(j->argv[0], '/') != NULL)
		e = command_script(j->argv, j->env, j->out_fd, &pid);
	joboutput_spawned(&j->out, i, j->out_fd, e == 0);
	if (e != 0)
		return cannot_start(j, e);
	j->slot[i] = (struct job){
		.pid = pid, .start_ns = start_ns, .seq = seq, .tries = try
	};
	deadline_start(&j->dl, &j->slot[i].dl, start_ns);
	if (joblogfile_on(&j->log))
		j->slot[i].argv = joblogfile_argv(j->argv);
	if (retries_keep(&j->retry)) {
		if ((j->slot[i].rec = malloc(j->rec_len + 1)) == NULL)
			err(1, "--retry: memory for a record");
		memcpy(j->slot[i].rec, j->rec, j->rec_len);
		j->slot[i].len = j->rec_len;
	}
	j->counts.running = ++j->running;
	j->counts.started++;
	return STREAM_TAKEN;
}

/*
 * Count the records put back whose try never started (the limit dropped
 * it, or the run ended first) as failed, as they are known: --halt
 * counts them too.  And the tries again started so far.
 */
static void
given_up(struct jobs *j)
{
	uint64_t n = j->retry.given_up - j->given_up;

	j->counts.retried = j->retry.retried;
	if (n == 0)
		return;
	j->given_up += n;
	j->counts.failed += n;
	if (j->status < 123)
		j->status = 123;
}

/*
 * The sink of stream_hand: start the command for the record rec[0..len),
 * its delimiter left out; or refuse a record no argument can hold, or
 * keep it while no command may start.
 */
static enum stream_fate
jobs_hand(void *self, const char *rec, size_t len)
{
	struct jobs *j = self;
	enum stream_fate fate;
	uint64_t seq;
	unsigned tries;

	if (jobs_room(j) == 0 || signals_stop_requested())
		return STREAM_KEPT;
	/* With --exec, records leave the input in order, from its head; a
	 * record put back to be tried again is one of them. */
	retries_which(&j->retry, j->st->units_out + j->st->units_dropped + 1,
	    &seq, &tries);
	given_up(j);
	j->rec = rec;
	j->rec_len = len;
	j->records++;
	if (memchr(rec, '\0', len) != NULL)
		return refuse(j, &j->said_nul, "holds a NUL byte");
	if (!build(j, rec, len, seq))
		err(1, "--exec: memory for the arguments of record %llu",
		    (unsigned long long)j->records);
	if ((fate = start(j, seq, tries + 1)) == STREAM_KEPT) {
		retries_unwhich(&j->retry); /* it is still to start */
		j->records--;
	}
	return fate;
}

/* A record too long to be held whole can be no argument: say so once. */
static void
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

/*
 * The command of slot i ended with status at now_ns: its record is tried
 * again, or its outcome counted.
 */
static void
ended(struct jobs *j, unsigned i, int status, int64_t now_ns)
{
	struct job *s = &j->slot[i];
	int64_t ran_ns = now_ns - s->start_ns;
	bool ours = s->dl.sent != 0; /* a signal of ours ended it */

	j->ends++;
	joboutput_ended(&j->out, i);
	/* An exit the retries are for is the server's refusal: --adapt
	 * slows down. */
	if (j->adapt != NULL &&
	    (ours && s->dl.why == END_TIMEOUT ? j->retry.on.timeout :
						!ours && WIFEXITED(status) &&
			exitset_has(&j->retry.on, WEXITSTATUS(status)))) {
		adaptrate_refused(j->adapt, s->start_ns, now_ns);
		j->counts.refusals = j->adapt->a.refused;
		j->counts.cuts = j->adapt->a.cuts;
	}
	if (retries_ended(&j->retry, s->rec, s->len, s->seq, s->tries, status,
		ours && s->dl.why == END_TIMEOUT, i, now_ns,
		signals_stop_requested() || j->halted)) {
		if (ran_ns > j->counts.slowest_ns)
			j->counts.slowest_ns = ran_ns;
		j->counts.retrying = retries_waiting(&j->retry);
	} else {
		/* Ended by our deadline, it failed, whatever its status. */
		count(j, ours ? 1 << 8 : status, ran_ns);
		/* One a stop killed is not done: --resume runs it again. */
		if (!WIFSIGNALED(status) || !signals_stop_requested())
			joblogfile_write(&j->log, s->seq, s->start_ns, now_ns,
			    status, s->argv);
	}
	/* The server's Retry-After holds the bucket, for every process. */
	if (j->adapt != NULL && j->retry.held_ns > now_ns)
		adaptrate_hold(j->adapt, j->retry.held_ns);
	free(s->rec);
	free(s->argv);
	s->rec = NULL;
	s->argv = NULL;
}

/* Collect the commands that ended, and count their outcomes. */
static void
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
			ended(j, i, status, now_ns);
			j->slot[i].pid = 0;
			j->running--;
			halt_when_due(j, now_ns);
			break;
		}
	}
	j->counts.running = j->running;
}

/* The exit status of the commands, as jobs_sink says. */
static int
jobs_status(const struct jobs *j)
{
	return j->broken > j->status ? j->broken : j->status;
}

/* The records of a send being handed to the commands, and what is left
 * of it. */
struct handing {
	struct sink *k;
	uint64_t units;
	uint64_t bytes;
};

/*
 * Start the command for rec[0..len); once it has started (posix_spawn
 * returns after the exec), the limits learn so of it and of the records
 * after it, which start later still.
 */
static enum stream_fate
start_one(void *ctx, const char *rec, size_t len)
{
	struct handing *h = ctx;
	enum stream_fate fate = jobs_hand(h->k->self, rec, len);

	if (fate == STREAM_KEPT)
		return fate;
	sink_went(h->k, h->units, h->bytes);
	h->units -= h->units > 0 ? 1 : 0;
	/* Its delimiter too; the last record may have none. */
	h->bytes -= h->bytes > len + 1 ? len + 1 : h->bytes;
	return fate;
}

/*
 * With --adapt, a Retry-After from a command the server refused holds
 * every start until then, not only its record's next try: the server
 * said when it will take requests again.
 */
static bool
held(const struct jobs *j)
{
	/* The clock is read only once a hold was ever asked for. */
	return j->adapt != NULL && j->retry.held_ns != 0 &&
	    clock_now_ns() < j->retry.held_ns;
}

/* The free slots, none while held; none ever once halted. */
static bool
sink_room(struct sink *k, size_t *units)
{
	struct jobs *j = k->self;

	*units = held(j) ? 0 : jobs_room(j);
	return !j->halted;
}

/* Start a command for each record a releases. */
static void
sink_send(struct sink *k, struct stream *s, const struct action *a)
{
	struct handing h = { k, a->units, a->bytes };

	if (a->kind == ACT_LONG) {
		/* No argument holds it: it is dropped, whole. */
		jobs_outgrown(k->self, stream_cap(s));
		stream_begin_long(s, false, a->units);
		return;
	}
	stream_hand(s, a->bytes, start_one, &h);
}

/* Did a command end since a wait last looked (its slot may take the
 * next record now)? */
static bool
slot_freed(struct jobs *j)
{
	if (j->ends == j->ended)
		return false;
	j->ended = j->ends;
	return true;
}

/* Sleep until deadline_ns, a command's end, or woken(ctx) says so; the
 * commands' deadlines met meanwhile. */
static void
sink_wait(struct sink *k, int64_t deadline_ns, bool (*woken)(void *), void *ctx)
{
	int64_t next_ns = deadlines_check(k->self, clock_now_ns());
	int rc;

	for (;;) {
		rc = clock_sleep_until(
		    next_ns < deadline_ns ? next_ns : deadline_ns);
		if (rc == EINTR && (woken(ctx) || slot_freed(k->self)))
			return;
		if (rc != EINTR && next_ns >= deadline_ns)
			return;
		next_ns = deadlines_check(k->self, clock_now_ns());
	}
}

/*
 * The commands still running end in their own time: wait for them,
 * reports and all.  A second stop signal sends them SIGTERM and ends the
 * wait, and the run, at once: nothing is half written here, so the last
 * reports are still made.
 */
static int
sink_finish(struct sink *k)
{
	struct jobs *j = k->self;

	signals_hold_second_stop(true);
	while (j->running > 0 && signals_second_stop() == 0) {
		/* A stop asked for does not end this wait: it gives them a
		 * grace, then SIGTERM, then SIGKILL. */
		int64_t now_ns = clock_now_ns();
		int64_t next_ns = deadlines_check(j, now_ns);

		if (next_ns > now_ns + JOBS_REAP_NS)
			next_ns = now_ns + JOBS_REAP_NS;
		if (clock_sleep_until(next_ns) == EINTR)
			signals_dispatch();
		jobs_reap(j);
	}
	signals_hold_second_stop(false);
	/* What still waits to be tried again failed: its last try did; as
	 * did a record put back whose try never started. */
	j->counts.failed += retries_waiting(&j->retry);
	if (retries_waiting(&j->retry) > 0 && j->status < 123)
		j->status = 123;
	j->counts.retrying = 0;
	if (retries_finish(&j->retry, j->delim) != 0 && j->status < 1)
		j->status = 1;
	given_up(j);
	if (joblogfile_close(&j->log) != 0 && j->status < 1)
		j->status = 1;
	if (joboutput_finish(&j->out) != 0 && j->status < 1)
		j->status = 1;
	return jobs_status(j);
}

/*
 * Put the records due to be tried again by now_ns back into s; when to
 * ask again (see struct sink's again).
 */
/* sink_again's answer but for --adapt's moves. */
static int64_t
again_due(struct jobs *j, struct stream *s, int64_t now_ns)
{
	int64_t next_ns, due_ns = deadlines_check(j, now_ns);

	if (j->retry.max == 0 || j->halted)
		return due_ns == INT64_MAX ? INT64_MIN : due_ns;
	next_ns = retries_put_back(
	    &j->retry, s, j->st->units_out + j->st->units_dropped, now_ns);
	j->counts.retried = j->retry.retried;
	j->counts.retrying = retries_waiting(&j->retry);
	if (next_ns == INT64_MAX && j->running == 0)
		return INT64_MIN; /* none waits, none may come */
	return next_ns < due_ns ? next_ns : due_ns;
}

static int64_t
sink_again(struct sink *k, struct stream *s, int64_t now_ns)
{
	struct jobs *j = k->self;
	int64_t next_ns = again_due(j, s, now_ns);
	int64_t tick_ns;

	if (j->adapt == NULL)
		return next_ns;
	/* --adapt moves the rate along its curve while records may come,
	 * and a hold ends when the server said. */
	tick_ns = adaptrate_tick(j->adapt, now_ns);
	if (held(j) && j->retry.held_ns < tick_ns)
		tick_ns = j->retry.held_ns;
	if (next_ns == INT64_MIN)
		return stream_at_end(s) ? INT64_MIN : tick_ns;
	return tick_ns < next_ns ? tick_ns : next_ns;
}

void
jobs_sink(struct jobs *j, struct sink *k, const struct gate *g)
{
	*k = (struct sink){ .self = j,
		.gate = g,
		.room = sink_room,
		.send = sink_send,
		.wait = sink_wait,
		.again = sink_again,
		.finish = sink_finish };
}
