/* Signals: an orderly stop, reports on SIGUSR1, ticks, live changes. */
#ifndef SIGNALS_H
#define SIGNALS_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Catch SIGINT, SIGTERM, SIGHUP and SIGQUIT (unless they were ignored
 * when we started) so that blocking calls return EINTR and the engine can
 * stop between records.  A second signal ends the process at once; one
 * within 100 ms of the first is the same stop (timeout(1) sends SIGTERM
 * twice).
 * SIGUSR1, SIGIO and SIGUSR2 are caught from here on too: what they ask
 * for waits for signals_on_report and signals_on_control.
 */
void signals_init(void);

/*
 * Catch SIGCHLD and run child(arg) from signals_dispatch() after one
 * arrives (every wait ends then, as for a stop, even one that arrived
 * just before it began).  A second stop signal calls second_stop (if not
 * NULL), which may make only async-signal-safe calls, before the process
 * ends.
 */
void signals_on_child(
    void (*child)(void *), void *arg, void (*second_stop)(void));

/*
 * Catch SIGUSR1 and run report(arg) from signals_dispatch() after it
 * arrives, as dd(1) does; blocking calls return EINTR so it runs promptly.
 */
void signals_on_report(void (*report)(void *), void *arg);

/*
 * Also run tick(arg) from signals_dispatch() every interval_ms, driven
 * by SIGALRM from one interval timer that serves up to two such chores
 * (the -P line and the Redis heartbeat); each runs at the first tick
 * within half the shortest interval of its time.
 */
void signals_on_tick(void (*tick)(void *), void *arg, int interval_ms);

/*
 * Catch SIGWINCH from here on: signals_resized then says that the
 * terminal's size changed.  Blocking calls go on (SA_RESTART).
 */
void signals_on_resize(void);

/* Did the terminal's size change since the last call?  Once per change. */
bool signals_resized(void);

/* Run tick no more (its argument is going away). */
void signals_cancel_tick(void (*tick)(void *));

/*
 * Run control(arg) from signals_dispatch() after SIGIO (or SIGUSR2,
 * which older tbthrottles sent) arrives: a request may be waiting on the
 * control socket.
 */
void signals_on_control(void (*control)(void *), void *arg);

/* Run the control function at the next signals_dispatch(), as if
 * SIGIO had come. */
void signals_request_control(void);

/*
 * Run chore(arg) from signals_dispatch() after signals_request_chore:
 * background work (Redis probed while it is down) whose descriptor or
 * deadline a wait saw come (clock_watch_once).  NULL: none.
 */
void signals_on_chore(void (*chore)(void *), void *arg);

/* Run the chore at the next signals_dispatch(). */
void signals_request_chore(void);

/*
 * When an access to [base, base + len), a mapped file, raises SIGBUS
 * because the file was cut short, write msg (a whole line) to standard
 * error, run the cleanup of signals_on_death and exit 1.  msg must last.
 */
void signals_on_bus_error(const void *base, size_t len, const char *msg);

/*
 * Run cleanup (which must be async-signal-safe) before dying of a signal,
 * when the normal exit path is not taken.
 */
void signals_on_death(void (*cleanup)(void));

/*
 * Do what the signals that came ask for, each by the function it was given
 * to: the report if SIGUSR1 arrived, the control function if a request
 * came, the chore if it was asked for, and the tick if it is due.
 */
void signals_dispatch(void);

/* The signal that asked us to stop, or 0. */
int signals_stop_requested(void);

/*
 * While hold is true, a second stop signal does not end the process in
 * its handler: after the second_stop of signals_on_child, it ends every
 * wait, and signals_second_stop() says it came, for the caller to end
 * the run itself at once (reports printed).  A third ends it at once.
 * For waits the caller can leave at any moment; false by default.
 */
void signals_hold_second_stop(bool hold);

/* The second stop signal that came while held, or 0. */
int signals_second_stop(void);

/* If a signal asked us to stop, die of it (of the second, if one came
 * while held) so the caller sees 128 + N. */
void signals_finish(void);

/*
 * Stop as if signal sig had come (unless a stop was asked for already):
 * signals_finish then dies of it.  SIGPIPE, when the output's reader has
 * gone, ends the run as a program that leaves SIGPIPE alone would.
 */
void signals_stop(int sig);

/*
 * Wait until fd is ready for events after EAGAIN, doing what signals ask
 * for meanwhile (signals_dispatch); false if a stop was requested, unless
 * through_stop.
 */
bool signals_wait_ready(int fd, short events, bool through_stop);

#endif
