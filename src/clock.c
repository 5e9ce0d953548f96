/* The monotonic clock: reading it, and every wait, to absolute deadlines. */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "clock.h"
#include "signals.h"

#define NS_SEC 1000000000LL

void
clock_init(void)
{
#if defined(__linux__) && defined(PR_SET_TIMERSLACK)
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

/* A descriptor every wait also watches (the control socket), or -1. */
static int watched = -1;
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
clock_watch(int fd, void (*ready)(void))
{
	watched = ready != NULL ? fd : -1;
	on_watched = ready;
}

int
clock_watching(void)
{
	return watched;
}

void
clock_watch_once(int fd, short events, int64_t deadline_ns, void (*due)(void))
{
	once_fd = due != NULL ? fd : -1;
	once_events = events;
	once_deadline_ns = due != NULL ? deadline_ns : INT64_MAX;
	once_due = due;
}

bool
clock_watches(void)
{
	return watched >= 0 || once_due != NULL;
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
	ts.tv_sec = (time_t)(deadline_ns / NS_SEC);
	ts.tv_nsec = (long)(deadline_ns % NS_SEC);
	do {
		rc = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	} while (rc != 0 && rc != EINTR);
	return rc;
}

int
clock_sleep_until(int64_t deadline_ns)
{
	/* Watching too: wait on it while a millisecond or more is left. */
	if ((clock_watches() || stop_fd >= 0) &&
	    deadline_ns - clock_now_ns() >= 1000000)
		return clock_wait_fd(-1, 0, deadline_ns) == EINTR ? EINTR : 0;
	return sleep_exact(deadline_ns);
}

int
clock_wait_fd(int fd, short events, int64_t deadline_ns)
{
	struct pollfd pfd[4] = { { .fd = fd, .events = events },
		{ .fd = watched, .events = POLLIN },
		{ .fd = stop_fd, .events = POLLIN }, { .fd = -1 } };

	for (;;) {
		bool once = once_due != NULL && once_deadline_ns < deadline_ns;
		int64_t until_ns = once ? once_deadline_ns : deadline_ns;
		int64_t left_ns = until_ns - clock_now_ns();
		int ms, rc;

		if (left_ns <= 0)
			return once ? once_fired() : 0;
		/*
		 * poll(2) counts whole milliseconds: wait for the descriptor
		 * while a millisecond or more is left, then sleep out the
		 * rest to the exact deadline.
		 */
		if (until_ns == INT64_MAX)
			ms = -1;
		else if (left_ns / 1000000 > INT_MAX)
			ms = INT_MAX; /* the loop waits out the rest */
		else
			ms = (int)(left_ns / 1000000);
		if (ms == 0) {
			if (sleep_exact(until_ns) == EINTR)
				return EINTR;
			continue;
		}
		pfd[3].fd = once_due != NULL ? once_fd : -1;
		pfd[3].events = once_events;
		rc = poll(pfd, 4, ms);
		if (rc > 0 && pfd[2].revents != 0) {
			char b[16];

			/* A stop came, maybe just before this wait began. */
			while (read(stop_fd, b, sizeof b) > 0)
				;
			return EINTR;
		}
		if (rc > 0 && pfd[1].revents != 0) {
			on_watched(); /* a request: answer it, then go on */
			return EINTR;
		}
		if (rc > 0 && pfd[3].fd >= 0 && pfd[3].revents != 0)
			return once_fired();
		if (rc > 0 && pfd[0].revents != 0)
			return 1;
		if (rc < 0)
			return errno == EINTR ? EINTR : 1;
	}
}

bool
clock_wait_ready(int fd, short events, bool through_stop)
{
	while (clock_wait_fd(fd, events, INT64_MAX) == EINTR) {
		if (signals_stop_requested() && !through_stop)
			return false;
		signals_poll_report();
	}
	return true;
}

bool
clock_fd_ready(int fd, short events)
{
	struct pollfd pfd = { .fd = fd, .events = events };

	return poll(&pfd, 1, 0) != 0;
}
