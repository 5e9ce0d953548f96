/* Asking running tbthrottles over their control sockets: -R and --list. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

/* SIGPIPE is ignored anyway; where send(2) has no MSG_NOSIGNAL, none. */
#ifndef MSG_NOSIGNAL
#define MSG_NOSIGNAL 0
#endif

#include "ask.h"
#include "clock.h"
#include "control.h"
#include "name.h"
#include "request.h"
#include "rundir.h"
#include "runname.h"

/* While a run's backlog is full, try to connect again this often. */
#define RETRY_NS (10 * 1000000LL)
/* Run directories looked in: see rundir_candidate. */
#define DIRS 3

/* One request on its way. */
struct ask {
	char path[PATH_MAX + NAME_MAX + 2]; /* the socket, or a link to it */
	long pid; /* the process asked, once known (else 0) */
	int fd;
	enum {
		ASK_CONNECT, /* to connect, at retry_ns */
		ASK_SEND,
		ASK_READ,
		ASK_DONE,     /* the whole reply read */
		ASK_GONE,     /* no process at the socket */
		ASK_STRANGER, /* not ours, or not the process asked */
		ASK_LATE,     /* no reply in time */
		ASK_FAILED    /* errno err */
	} state;
	int err;
	int64_t retry_ns;
	size_t len, done; /* the request's bytes, and those sent or read */
	char msg[CONTROL_MAX], reply[CONTROL_MAX];
};

/* Is s a process id: digits only, not starting with 0? */
static bool
is_pid(const char *s)
{
	if (*s < '1' || *s > '9')
		return false;
	while (isdigit((unsigned char)*s))
		s++;
	return *s == '\0';
}

/* Start a: request to target, at the socket or link path; -1 if too long. */
static int
ask_init(struct ask *a, const char *path, long pid, const char *target,
    const char *request)
{
	*a = (struct ask){ .pid = pid, .fd = -1, .state = ASK_CONNECT };
	snprintf(a->path, sizeof a->path, "%s", path);
	if (request_to(a->msg, sizeof a->msg, target, request) != 0)
		return -1;
	a->len = strlen(a->msg);
	return 0;
}

/* a is over, in state s (errno err for ASK_FAILED). */
static void
finish(struct ask *a, int s, int err)
{
	if (a->fd >= 0)
		(void)close(a->fd);
	a->fd = -1;
	a->state = s;
	a->err = err;
}

/* Try to connect a, at now_ns; a full backlog is tried again later. */
static void
try_connect(struct ask *a, int64_t now_ns)
{
	uid_t uid;
	pid_t pid;

	if ((a->fd = control_connect(a->path)) < 0) {
		if (errno == EAGAIN)
			a->retry_ns = now_ns + RETRY_NS;
		else if (errno == ECONNREFUSED || errno == ENOENT ||
		    errno == ENOTSOCK)
			finish(a, ASK_GONE, 0);
		else
			finish(a, ASK_FAILED, errno);
		return;
	}
	/* The process, where the system tells it, must be the one asked. */
	if (control_peer(a->fd, &uid, &pid) != 0 || uid != geteuid() ||
	    (a->pid != 0 && pid != 0 && pid != (pid_t)a->pid)) {
		finish(a, ASK_STRANGER, 0);
		return;
	}
	if (pid != 0)
		a->pid = (long)pid;
	a->state = ASK_SEND;
}

/*
 * Send what a can of its request; once it is all sent, say so.  A run
 * that ends meanwhile is an error (EPIPE), not a SIGPIPE that would end
 * -R without a word.
 */
static void
send_more(struct ask *a)
{
	ssize_t n = send(
	    a->fd, a->msg + a->done, a->len - a->done, MSG_NOSIGNAL);

	if (n < 0 && errno != EAGAIN && errno != EINTR) {
		finish(a, ASK_FAILED, errno);
	} else if (n > 0 && (a->done += (size_t)n) == a->len) {
		if (shutdown(a->fd, SHUT_WR) != 0) {
			finish(a, ASK_FAILED, errno);
			return;
		}
		a->state = ASK_READ;
		a->done = 0;
	}
}

/* Read what a can of its reply; at its end, a is done. */
static void
read_more(struct ask *a)
{
	ssize_t n = read(
	    a->fd, a->reply + a->done, sizeof a->reply - 1 - a->done);

	if (n < 0 && errno != EAGAIN && errno != EINTR) {
		finish(a, ASK_FAILED, errno);
	} else if (n == 0 ||
	    (n > 0 && (a->done += (size_t)n) == sizeof a->reply - 1)) {
		a->reply[a->done] = '\0';
		finish(a, ASK_DONE, 0);
	}
}

/* Take a as far as it goes at now_ns, without waiting. */
static void
step(struct ask *a, int64_t now_ns)
{
	if (a->state == ASK_CONNECT && now_ns >= a->retry_ns)
		try_connect(a, now_ns);
	if (a->state == ASK_SEND)
		send_more(a);
	if (a->state == ASK_READ)
		read_more(a);
}

/*
 * Take the requests a[0..n) on until each is over or deadline_ns comes;
 * those still on their way then are late.
 */
static void
ask_until(struct ask *a, int n, int64_t deadline_ns)
{
	struct pollfd pfd[CLOCK_WAIT_MAX];

	for (;;) {
		int64_t now_ns = clock_now_ns(), until_ns = deadline_ns;
		int k = 0, left = 0;

		for (int i = 0; i < n; i++) {
			step(&a[i], now_ns);
			if (a[i].state >= ASK_DONE)
				continue;
			left++;
			if (a[i].state == ASK_CONNECT &&
			    a[i].retry_ns < until_ns)
				until_ns = a[i].retry_ns;
			else if (a[i].state != ASK_CONNECT &&
			    k < CLOCK_WAIT_MAX)
				pfd[k++] = (struct pollfd){ .fd = a[i].fd,
					.events = a[i].state == ASK_SEND ?
					    POLLOUT :
					    POLLIN };
		}
		if (left == 0)
			return;
		if (now_ns >= deadline_ns)
			break;
		(void)clock_wait_fds(pfd, k, until_ns);
	}
	for (int i = 0; i < n; i++)
		if (a[i].state < ASK_DONE)
			finish(&a[i], ASK_LATE, 0);
}

/* Does process pid belong to another user, as far as we can tell? */
static bool
other_users(long pid)
{
	char path[32];
	struct stat st;

	if (kill((pid_t)pid, 0) != 0)
		return errno == EPERM;
	/* We may signal it: we are its user, or root. */
	snprintf(path, sizeof path, "/proc/%ld", pid);
	return stat(path, &st) == 0 && st.st_uid != geteuid();
}

/* Why target, of which no socket of ours was found, cannot be asked. */
static void
not_found(const char *target, char *why, size_t size)
{
	long pid;

	if (!is_pid(target)) {
		char dir[PATH_MAX];
		size_t used = (size_t)snprintf(why, size,
		    "no running tbthrottle of yours is named '%s' (looked in",
		    target);

		for (int which = 0; used < size &&
		     rundir_candidate(which, dir, sizeof dir) == 0;
		     which++)
			used += (size_t)snprintf(why + used, size - used,
			    "%s %s", which > 0 ? "," : "", dir);
		if (used < size)
			snprintf(why + used, size - used, "; see --list)");
		return;
	}
	pid = strtol(target, NULL, 10);
	if (kill((pid_t)pid, 0) != 0 && errno == ESRCH)
		snprintf(why, size, "no process %ld", pid);
	else if (other_users(pid))
		snprintf(why, size, "process %ld belongs to another user", pid);
	else
		snprintf(why, size,
		    "process %ld is not a tbthrottle with a rate "
		    "to change (no control socket)",
		    pid);
}

/* Remove what led to a run that is gone: its socket, or its name. */
static void
clear_away(const struct ask *a, const char *dir, const char *target)
{
	if (is_pid(target))
		(void)unlink(a->path);
	else
		name_drop(dir, target);
}

/*
 * The reply a got from target, into reply: 0; -1 with why in reply; 1
 * when the run there is not called target (a link that outlived its run).
 */
static int
answered(const struct ask *a, const char *target, char *reply, size_t size)
{
	char name[NAME_MAX + 1];
	const char *body;
	long pid;

	if (a->reply[0] == '\0') {
		snprintf(reply, size,
		    "%s closed the connection unanswered; nothing was changed",
		    target);
		return -1;
	}
	if (request_sender(a->reply, &pid, name, sizeof name, &body) != 0) {
		snprintf(reply, size,
		    "%s answers in a way this tbthrottle does not know "
		    "(another version?)",
		    target);
		return -1;
	}
	if (!is_pid(target) && strcmp(name, target) != 0)
		return 1;
	snprintf(reply, size, "%s", body);
	return 0;
}

/* The outcome of ask_one's a, sent to target in dir: 0, or -1 with why. */
static int
outcome(const struct ask *a, const char *dir, const char *target, char *reply,
    size_t size)
{
	int rc;

	switch (a->state) {
	case ASK_DONE:
		if ((rc = answered(a, target, reply, size)) <= 0)
			return rc;
		break;
	case ASK_GONE:
		break;
	case ASK_STRANGER:
		snprintf(
		    reply, size, "%s is not a tbthrottle of yours", target);
		return -1;
	case ASK_LATE:
		snprintf(reply, size,
		    "no answer from %s within %lld s; nothing was changed",
		    target, ASK_WAIT_NS / 1000000000LL);
		return -1;
	default:
		snprintf(
		    reply, size, "cannot ask %s: %s", target, strerror(a->err));
		return -1;
	}
	clear_away(a, dir, target);
	not_found(target, reply, size);
	return -1;
}

int
ask_one(const char *target, const char *request, char *reply, size_t size)
{
	static struct ask a;
	int64_t deadline_ns = clock_now_ns() + ASK_WAIT_NS;
	char dir[PATH_MAX], path[PATH_MAX + NAME_MAX + 2], f[NAME_MAX + 1];
	struct stat st;

	if (is_pid(target))
		snprintf(f, sizeof f, "%s", target);
	else if (runname_link(f, sizeof f, target) != 0)
		f[0] = '\0';
	for (int which = 0;
	     f[0] != '\0' && rundir_candidate(which, dir, sizeof dir) == 0;
	     which++) {
		snprintf(path, sizeof path, "%s/%s", dir, f);
		if (!rundir_private(dir) || lstat(path, &st) != 0)
			continue;
		if (ask_init(&a, path,
			is_pid(target) ? strtol(target, NULL, 10) : 0, target,
			request) != 0) {
			snprintf(reply, size, "-R: the request is too long");
			return -1;
		}
		ask_until(&a, 1, deadline_ns);
		return outcome(&a, dir, target, reply, size);
	}
	not_found(target, reply, size);
	return -1;
}

/* A run found by its socket: its pid, and which directory it is in. */
struct run {
	long pid;
	int dir;
};

static int
by_pid(const void *x, const void *y)
{
	const struct run *a = x, *b = y;

	return (a->pid > b->pid) - (a->pid < b->pid);
}

/* Add r to runs[0..*n), of room for *cap; -1 when there is no memory. */
static int
add_run(struct run **runs, size_t *cap, int *n, struct run r)
{
	if ((size_t)*n == *cap) {
		size_t more = *cap != 0 ? 2 * *cap : 16;
		struct run *p = realloc(*runs, more * sizeof *p);

		if (p == NULL)
			return -1;
		*runs = p;
		*cap = more;
	}
	(*runs)[(*n)++] = r;
	return 0;
}

/*
 * The runs with a socket in the directories dirs[0..*ndirs), found and
 * filled in; sorted by pid, their number in *n.  NULL when there are none.
 */
static struct run *
find_runs(char dirs[DIRS][PATH_MAX], int *ndirs, int *n)
{
	struct run *runs = NULL;
	size_t cap = 0;

	*n = *ndirs = 0;
	for (int which = 0; *ndirs < DIRS &&
	     rundir_candidate(which, dirs[*ndirs], PATH_MAX) == 0;
	     which++) {
		struct dirent *e;
		DIR *d;

		if (!rundir_private(dirs[*ndirs]) ||
		    (d = opendir(dirs[*ndirs])) == NULL)
			continue;
		while ((e = readdir(d)) != NULL)
			if (is_pid(e->d_name) &&
			    add_run(&runs, &cap, n,
				(struct run){
				    strtol(e->d_name, NULL, 10), *ndirs }) != 0)
				break;
		(void)closedir(d);
		(*ndirs)++;
	}
	if (*n > 0)
		qsort(runs, (size_t)*n, sizeof *runs, by_pid);
	return runs;
}

/* Tell each about the run a of dir, asked by ask_all; 1 if it was one. */
static int
tell(struct ask *a, const char *dir,
    void (*each)(void *, long, const char *, const char *), void *arg)
{
	char name[NAME_MAX + 1];
	const char *body;
	long pid;

	if (a->state == ASK_GONE) {
		(void)unlink(a->path);
		return 0;
	}
	if (a->state == ASK_STRANGER)
		return 0;
	if (a->state == ASK_DONE &&
	    request_sender(a->reply, &pid, name, sizeof name, &body) == 0) {
		each(arg, a->pid, name, body);
		return 1;
	}
	name_of(dir, a->pid, name, sizeof name);
	each(arg, a->pid, name, NULL);
	return 1;
}

int
ask_all(const char *request,
    void (*each)(void *, long, const char *, const char *), void *arg)
{
	static char dirs[DIRS][PATH_MAX];
	char path[PATH_MAX + 32], target[24];
	int ndirs, n, count = 0;
	struct run *runs = find_runs(dirs, &ndirs, &n);
	struct ask *a = n > 0 ?
	    calloc(n < CLOCK_WAIT_MAX ? (size_t)n : CLOCK_WAIT_MAX, sizeof *a) :
	    NULL;

	for (int from = 0; a != NULL && from < n; from += CLOCK_WAIT_MAX) {
		int k = n - from < CLOCK_WAIT_MAX ? n - from : CLOCK_WAIT_MAX;

		for (int i = 0; i < k; i++) {
			const struct run *r = &runs[from + i];

			snprintf(
			    path, sizeof path, "%s/%ld", dirs[r->dir], r->pid);
			snprintf(target, sizeof target, "%ld", r->pid);
			(void)ask_init(&a[i], path, r->pid, target, request);
		}
		ask_until(a, k, clock_now_ns() + ASK_WAIT_NS);
		for (int i = 0; i < k; i++)
			count += tell(
			    &a[i], dirs[runs[from + i].dir], each, arg);
	}
	free(a);
	free(runs);
	return count;
}
