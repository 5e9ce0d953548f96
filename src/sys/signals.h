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
 * for waits for the hook of SIGNALS_REPORT or SIGNALS_CONTROL.
 */
void signals_init(void);

/*
 * What a hook is run for (signals_hook).  The first kinds are run by
 * signals_dispatch(), in this order, when their signal has come (one
 * that came before its hook was there waits for it); the others in the
 * signal's handler, so their hooks may make only async-signal-safe calls.
 */
enum signals_kind {
	/* SIGIO (or SIGUSR2, which older tbthrottles sent), or asked for
	 * (signals_request): a request may be waiting on the control
	 * socket. */
	SIGNALS_CONTROL,
	/* Asked for (signals_request): background work (Redis probed while
	 * it is down) whose descriptor or deadline a wait saw come
	 * (clock_watch_once). */
	SIGNALS_CHORE,
	/* Every every_ms, driven by SIGALRM from one interval timer that
	 * serves up to two ticks (the -P line and the Redis heartbeat); each
	 * runs at the first tick within half the shortest interval of its
	 * time. */
	SIGNALS_TICK,
	/* SIGCHLD: a child ended.  Every wait ends then, as for a stop, even
	 * one that began just after it came. */
	SIGNALS_CHILD,
	/* SIGUSR1: a report, as dd(1) gives one; blocking calls return EINTR
	 * so that it comes promptly. */
	SIGNALS_REPORT,
	/* In the handler: SIGWINCH, the terminal's size changed.  Blocking
	 * calls go on (SA_RESTART). */
	SIGNALS_RESIZE,
	/* In the handler: a second stop signal, before the process ends (or,
	 * held, before the wait ends: signals_hold_second_stop). */
	SIGNALS_SECOND_STOP,
	/* In the handler: the process dies of a signal (or of SIGBUS in a
	 * mapped file cut short), the normal exit path not taken. */
	SIGNALS_DEATH,
	SIGNALS_KINDS
};

/*
 * Run fn(arg) when what kind names comes, from now on: one hook of each
 * kind, which takes the place of the one before; but ticks, up to two,
 * each every_ms (0 for the other kinds).
 */
void signals_hook(
    enum signals_kind kind, void (*fn)(void *), void *arg, int every_ms);

/* Run fn for kind no more (its argument is going away). */
void signals_unhook(enum signals_kind kind, void (*fn)(void *));

/*
 * Run the hook of kind at the next signals_dispatch(), as if its signal
 * had come (SIGNALS_CONTROL, SIGNALS_CHORE).
 */
void signals_request(enum signals_kind kind);

/*
 * When an access to [base, base + len), a mapped file, raises SIGBUS
 * because the file was cut short, write msg (a whole line) to standard
 * error, run the hook of SIGNALS_DEATH and exit 1.  msg must last.
 */
void signals_on_bus_error(const void *base, size_t len, const char *msg);

/*
 * Do what the signals that came ask for, each by its hook: the control
 * hook if a request came, the chore if it was asked for, the ticks that
 * are due, the child's if one ended, and the report if SIGUSR1 arrived.
 */
void signals_dispatch(void);

/* The signal that asked us to stop, or 0. */
int signals_stop_requested(void);

/*
 * While hold is true, a second stop signal does not end the process in
 * its handler: after the hook of SIGNALS_SECOND_STOP, it ends every
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
