/* The monotonic clock: reading it, and every wait, to absolute deadlines. */
#ifndef CLOCK_H
#define CLOCK_H

#include <poll.h>
#include <stdbool.h>
#include <stdint.h>

/* Ask the OS for the finest timer slack it allows; harmless when it can't. */
void clock_init(void);

/* Nanoseconds on CLOCK_MONOTONIC. */
int64_t clock_now_ns(void);

/* Wall-clock time (CLOCK_REALTIME) minus monotonic time, in ns. */
int64_t clock_wall_offset_ns(void);

/*
 * Sleep until CLOCK_MONOTONIC reaches deadline_ns, never waking early.
 * Returns 0 when the deadline is reached, or EINTR when a signal handler
 * ran; the caller decides whether to sleep again to the same deadline.
 */
int clock_sleep_until(int64_t deadline_ns);

/* Most descriptors a watch may list, and a caller may wait on at once. */
#define CLOCK_WATCH_MAX 24
#define CLOCK_WAIT_MAX 128

/*
 * Make every wait below also watch what list(fds, max, &wake_ns) names,
 * asked afresh at each wait: up to max descriptors (the control socket and
 * the requests being read on it), for input, and a time wake_ns on
 * CLOCK_MONOTONIC (left INT64_MAX: none).  When one can be read or the
 * time has come, call ready() and return EINTR as a signal would, so that
 * the caller handles it (signals_dispatch) and waits again.  list NULL:
 * stop watching.  For sleeps, this holds while a millisecond or more is
 * left; the rest is slept exactly.
 */
void clock_watch(int (*list)(int *, int, int64_t *), void (*ready)(void));

/*
 * Make every wait below also end, with EINTR, when fd (the read end of
 * the pipe a stop signal writes to) can be read: a stop that comes just
 * before a wait begins then ends it too, not only one that interrupts it.
 */
void clock_watch_stop(int fd);

/* Is anything watched, always or once? */
bool clock_watching(void);

/*
 * Make the waits below also watch fd (-1: none) for events, and the
 * clock for deadline_ns (INT64_MAX: none), once: when fd is ready or the
 * deadline has come, forget them, call due() and return EINTR as a
 * signal would, so that the caller handles it (signals_dispatch) and
 * waits again.  For work that goes on in the background of every wait
 * (Redis probed while it is down).  due NULL: watch nothing.
 */
void clock_watch_once(
    int fd, short events, int64_t deadline_ns, void (*due)(void));

/*
 * Make every wait below also read what list(&n) names, n descriptors
 * (pipes of commands' output), asked afresh at each wait, calling
 * ready(fds, n) with what poll(2) found of them and waiting on: the
 * caller sees nothing of it.  ready may not wait itself.  list NULL:
 * none.
 */
void clock_watch_pipes(
    struct pollfd *(*list)(int *), void (*ready)(const struct pollfd *, int));

/*
 * Wait until fd is ready for events (POLLIN, POLLOUT) or CLOCK_MONOTONIC
 * reaches deadline_ns (INT64_MAX: no deadline), never returning at the
 * deadline early.  Returns 1 when fd is ready (or poll(2) failed, so that
 * the read or write reports the error), 0 at the deadline, or EINTR when
 * a signal handler ran.
 */
int clock_wait_fd(int fd, short events, int64_t deadline_ns);

/*
 * clock_wait_fd for the n (at most CLOCK_WAIT_MAX) descriptors of fds at
 * once: 1 when one or more are ready, with their revents set.
 */
int clock_wait_fds(struct pollfd *fds, int n, int64_t deadline_ns);

/* Is fd ready for events now, without waiting (or did poll(2) fail)? */
bool clock_fd_ready(int fd, short events);

/* The events of fd now, without waiting: revents of poll(2), or 0. */
short clock_fd_events(int fd, short events);

#endif
