/* The monotonic clock: reading it, and every wait, to absolute deadlines. */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#if defined(__linux__) && !defined(TB_PORTABLE)
#include <sys/prctl.h>
#endif

/*
 * An absolute sleep on the monotonic clock where the system has one
 * (clock_nanosleep: POSIX clock selection); elsewhere, and with make
 * PORTABLE=1, relative sleeps to the deadline, the clock read again after
 * each, so that none ends early.
 */
#if defined(_POSIX_CLOCK_SELECTION) && _POSIX_CLOCK_SELECTION > 0 && \
    !defined(TB_PORTABLE)
#define ABSOLUTE_SLEEP 1
#endif

#include "clock.h"

#define NS_SEC 1000000000LL

void
clock_init(void)
{
#if defined(__linux__) && !defined(TB_PORTABLE) && defined(PR_SET_TIMERSLACK)
	/*
	 * The default slack lets the kernel fire our timers up to 50 us late
	 * to batch wake-ups; 1 ns asks for the deadline itself.
	 */
	(void)prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
#endif
}

int64_t
clock_now_ns(void)
{
	struct timespec ts;

	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * NS_SEC + ts.tv_nsec;
}

int64_t
clock_wall_offset_ns(void)
{
	struct timespec ts;
	int64_t mono = clock_now_ns();

	(void)clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * NS_SEC + ts.tv_nsec - mono;
}

/* What every wait also watches (the control socket), or NULL. */
static int (*watch_list)(int *, int, int64_t *);
static void (*on_watched)(void);
/* The read end of the pipe a stop signal writes to, or -1. */
static int stop_fd = -1;
/* What clock_watch_once watches: due NULL when nothing. */
static int once_fd = -1;
static short once_events;
static int64_t once_deadline_ns = INT64_MAX;
static void (*once_due)(void);

void
clock_watch_stop(int fd)
{
	stop_fd = fd;
}

void
clock_watch(int (*list)(int *, int, int64_t *), void (*ready)(void))
{
	watch_list = ready != NULL ? list : NULL;
	on_watched = ready;
}

/* Commands' output read at every wait (clock_watch_pipes), or NULL. */
static struct pollfd *(*pipes_list)(int *);
static void (*pipes_ready)(const struct pollfd *, int);

void
clock_watch_pipes(
    struct pollfd *(*list)(int *), void (*ready)(const struct pollfd *, int))
{
	pipes_list = ready != NULL ? list : NULL;
	pipes_ready = ready;
}

bool
clock_watching(void)
{
	return watch_list != NULL || once_due != NULL || pipes_list != NULL;
}

void
clock_watch_once(int fd, short events, int64_t deadline_ns, void (*due)(void))
{
	once_fd = due != NULL ? fd : -1;
	once_events = events;
	once_deadline_ns = due != NULL ? deadline_ns : INT64_MAX;
	once_due = due;
}

/* What clock_watch_once watched has come: forget it, then say so. */
static int
once_fired(void)
{
	void (*due)(void) = once_due;

	clock_watch_once(-1, 0, INT64_MAX, NULL);
	if (due != NULL)
		due();
	return EINTR;
}

/* Sleep to deadline_ns exactly, on the monotonic clock. */
static int
sleep_exact(int64_t deadline_ns)
{
	struct timespec ts;
	int rc;

	if (deadline_ns <= 0)
		return 0;
#ifdef ABSOLUTE_SLEEP
	ts.tv_sec = (time_t)(deadline_ns / NS_SEC);
	ts.tv_nsec = (long)(deadline_ns % NS_SEC);
	do {
		rc = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	} while (rc != 0 && rc != EINTR);
	return rc;
#else
	for (int64_t left; (left = deadline_ns - clock_now_ns()) > 0;) {
		ts.tv_sec = (time_t)(left / NS_SEC);
		ts.tv_nsec = (long)(left % NS_SEC);
		if ((rc = nanosleep(&ts, NULL)) != 0 && errno == EINTR)
			return EINTR;
	}
	return 0;
#endif
}

int
clock_sleep_until(int64_t deadline_ns)
{
	/* Watching too: wait on it while a millisecond or more is left. */
	if ((clock_watching() || stop_fd >= 0) &&
	    deadline_ns - clock_now_ns() >= 1000000)
		return clock_wait_fds(NULL, 0, deadline_ns) == EINTR ? EINTR :
								       0;
	return sleep_exact(deadline_ns);
}

int
clock_wait_fd(int fd, short events, int64_t deadline_ns)
{
	struct pollfd pfd = { .fd = fd, .events = events };

	return clock_wait_fds(&pfd, fd >= 0 ? 1 : 0, deadline_ns);
}

/*
 * The caller's fds[0..n), then the stop pipe, then what is watched, then
 * what is watched once, into all; how many in all.  The watch's time goes
 * to *wake_ns.
 */
static int
gather(struct pollfd *all, const struct pollfd *fds, int n, int64_t *wake_ns)
{
	int w[CLOCK_WATCH_MAX], nw;

	for (int i = 0; i < n; i++)
		all[i] = (struct pollfd){ fds[i].fd, fds[i].events, 0 };
	all[n++] = (struct pollfd){ .fd = stop_fd, .events = POLLIN };
	*wake_ns = INT64_MAX;
	nw = watch_list != NULL ? watch_list(w, CLOCK_WATCH_MAX, wake_ns) : 0;
	for (int i = 0; i < nw; i++)
		all[n++] = (struct pollfd){ .fd = w[i], .events = POLLIN };
	/* Last, what is watched once, if anything (-1 is left alone). */
	all[n++] = (struct pollfd){ .fd = once_due != NULL ? once_fd : -1,
		.events = once_events };
	return n;
}

/*
 * The milliseconds poll(2) may wait for until_ns, at now_ns: -1 for ever,
 * whole milliseconds (the rest is slept exactly by the caller), at most
 * INT_MAX (the caller's loop waits out the rest).
 */
static int
poll_ms(int64_t until_ns, int64_t now_ns)
{
	if (until_ns == INT64_MAX)
		return -1;
	if ((until_ns - now_ns) / 1000000 > INT_MAX)
		return INT_MAX;
	return (int)((until_ns - now_ns) / 1000000);
}

/*
 * What poll(2) found on all[0..total), the caller's first n: EINTR for a
 * stop or a watched descriptor (ready() or the once-watch's due() called),
 * else 1 with the caller's revents copied to fds.
 */
static int
found(struct pollfd *all, int total, struct pollfd *fds, int n)
{
	bool watched = false;

	if (all[n].revents != 0) {
		char b[16];

		/* A stop came, maybe just before this wait began. */
		while (read(stop_fd, b, sizeof b) > 0)
			;
		return EINTR;
	}
	if (all[total - 1].fd >= 0 && all[total - 1].revents != 0)
		return once_fired();
	for (int i = n + 1; i < total - 1; i++)
		watched = watched || all[i].revents != 0;
	if (watched) {
		on_watched(); /* a request: answer it, then go on */
		return EINTR;
	}
	for (int i = 0; i < n; i++)
		fds[i].revents = all[i].revents;
	return 1;
}

/*
 * The pipes of clock_watch_pipes after all[0..total), into all again (a
 * copy made larger: all[0..*room) when it does not hold them, freed by
 * the caller when not the given one); how many of them.
 */
static int
gather_pipes(struct pollfd **all, int total, size_t *room)
{
	struct pollfd *p, *grown;
	int np = 0;

	if (pipes_list == NULL || (p = pipes_list(&np)) == NULL || np <= 0)
		return 0;
	if ((size_t)(total + np) > *room) {
		if ((grown = malloc((size_t)(total + np) * sizeof *grown)) ==
		    NULL)
			return 0; /* this wait without them */
		memcpy(grown, *all, (size_t)total * sizeof *grown);
		*all = grown;
		*room = (size_t)(total + np);
	}
	memcpy(*all + total, p, (size_t)np * sizeof *p);
	return np;
}

/*
 * poll(2) of all[0..total + np), the pipes last: those found passed on
 * to pipes_ready.  What poll(2) returned, less the pipes found.
 */
static int
poll_all(struct pollfd *all, int total, int np, int ms)
{
	int rc = poll(all, (nfds_t)(total + np), ms), found = 0;

	if (rc <= 0 || np == 0)
		return rc;
	for (int i = total; i < total + np; i++)
		found += all[i].revents != 0;
	if (found > 0)
		pipes_ready(all + total, np);
	return rc - found;
}

/*
 * One turn of clock_wait_fds, in *all (room *room, made larger for the
 * pipes): its answer, or -1 to wait on.
 */
static int
wait_turn(struct pollfd **all, size_t *room, struct pollfd *fds, int n,
    int64_t deadline_ns)
{
	int64_t wake_ns, now_ns;
	int total = gather(*all, fds, n, &wake_ns), np, ms, rc;

	now_ns = clock_now_ns();
	if (deadline_ns <= now_ns)
		return 0;
	if (once_due != NULL && once_deadline_ns <= now_ns)
		return once_fired();
	if (once_due != NULL && once_deadline_ns < wake_ns)
		wake_ns = once_deadline_ns;
	if (wake_ns <= now_ns) {
		on_watched(); /* a request's time is up */
		return EINTR;
	}
	/*
	 * poll(2) counts whole milliseconds: wait for the descriptors while
	 * a millisecond or more is left, then sleep out the rest to the
	 * exact deadline (a watch's time may be a millisecond late).
	 */
	ms = poll_ms(wake_ns < deadline_ns ? wake_ns : deadline_ns, now_ns);
	if (ms == 0 && wake_ns >= deadline_ns)
		return sleep_exact(deadline_ns);
	np = gather_pipes(all, total, room);
	rc = poll_all(*all, total, np, ms == 0 ? 1 : ms);
	if (rc > 0)
		return found(*all, total, fds, n);
	if (rc < 0)
		return errno == EINTR ? EINTR : 1;
	return -1;
}

int
clock_wait_fds(struct pollfd *fds, int n, int64_t deadline_ns)
{
	struct pollfd own[CLOCK_WAIT_MAX + 1 + CLOCK_WATCH_MAX + 1], *all = own;
	size_t room = sizeof own / sizeof own[0];
	int rc;

	do
		rc = wait_turn(&all, &room, fds, n, deadline_ns);
	while (rc == -1);
	if (all != own)
		free(all);
	return rc;
}

bool
clock_fd_ready(int fd, short events)
{
	struct pollfd pfd = { .fd = fd, .events = events };

	return poll(&pfd, 1, 0) != 0;
}

short
clock_fd_events(int fd, short events)
{
	struct pollfd pfd = { .fd = fd, .events = events };

	return poll(&pfd, 1, 0) > 0 ? pfd.revents : 0;
}
