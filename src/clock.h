/* The monotonic clock: reading it, and every wait, to absolute deadlines. */
#ifndef CLOCK_H
#define CLOCK_H

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

/*
 * Make every wait below also watch fd (a control socket) and, when it can
 * be read, call ready() and return EINTR as a signal would, so that the
 * caller handles it (signals_poll_report) and waits again.  ready NULL:
 * stop watching.  For sleeps, this holds while a millisecond or more is
 * left; the rest is slept exactly.
 */
void clock_watch(int fd, void (*ready)(void));

/*
 * Make every wait below also end, with EINTR, when fd (the read end of
 * the pipe a stop signal writes to) can be read: a stop that comes just
 * before a wait begins then ends it too, not only one that interrupts it.
 */
void clock_watch_stop(int fd);

/* The descriptor watched, or -1. */
int clock_watching(void);

/*
 * Make the waits below also watch fd (-1: none) for events, and the
 * clock for deadline_ns (INT64_MAX: none), once: when fd is ready or the
 * deadline has come, forget them, call due() and return EINTR as a
 * signal would, so that the caller handles it (signals_poll_report) and
 * waits again.  For work that goes on in the background of every wait
 * (Redis probed while it is down).  due NULL: watch nothing.
 */
void clock_watch_once(
    int fd, short events, int64_t deadline_ns, void (*due)(void));

/* Do the waits watch anything besides their own descriptor? */
bool clock_watches(void);

/*
 * Wait until fd is ready for events (POLLIN, POLLOUT) or CLOCK_MONOTONIC
 * reaches deadline_ns (INT64_MAX: no deadline), never returning at the
 * deadline early.  Returns 1 when fd is ready (or poll(2) failed, so that
 * the read or write reports the error), 0 at the deadline, or EINTR when
 * a signal handler ran.
 */
int clock_wait_fd(int fd, short events, int64_t deadline_ns);

/*
 * Wait until fd is ready for events after EAGAIN, handling signals
 * meanwhile; false if a stop was requested, unless through_stop.
 */
bool clock_wait_ready(int fd, short events, bool through_stop);

/* Is fd ready for events now, without waiting (or did poll(2) fail)? */
bool clock_fd_ready(int fd, short events);

#endif
