/* Signals: an orderly stop, reports on SIGUSR1, ticks, live changes. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "clock.h"
#include "signals.h"

/* Periodic chores (the -P line, the Redis heartbeat), on one timer. */
#define TICKS 2

/*
 * A stop signal that comes within this many ns of the first is the same
 * stop: timeout(1) sends SIGTERM to its command and then to the command's
 * process group, one call right after the other, a kill of a process and
 * of its group reaches us twice too, and systemd may send SIGHUP right
 * after SIGTERM.  A person's second ^C or kill, meant to end the run at
 * once, comes later than that.
 */
#define REPEAT_NS 100000000

static volatile sig_atomic_t stop_signal;
static int64_t stop_ns;			    /* when it came; on_stop's own */
static volatile sig_atomic_t second_signal; /* a second stop, held */
static volatile sig_atomic_t hold_second;   /* signals_hold_second_stop */
static volatile sig_atomic_t ticking;	    /* the interval timer is set */
static volatile sig_atomic_t report_wanted, tick_wanted, control_wanted;
static volatile sig_atomic_t resized;
static volatile sig_atomic_t child_wanted;
static void (*child_fn)(void *);
static void *child_arg;
static void (*second_stop_fn)(void);
static void (*control_fn)(void *);
static void *control_arg;
static bool chore_wanted;
static void (*chore_fn)(void *);
static void *chore_arg;
static void (*death_fn)(void);
static struct tick {
	void (*fn)(void *);
	void *arg;
	int64_t every_ns, next_ns;
} ticks[TICKS];
static int64_t timer_ns; /* the timer's interval: the shortest chore's */
static void (*report_fn)(void *);
static void *report_arg;
static uintptr_t bus_lo, bus_hi; /* the mapping of signals_on_bus_error */
static const char *bus_msg;
static size_t bus_msg_len;

static void
die_of(int sig)
{
	sigset_t set;

	if (death_fn != NULL)
		death_fn();
	(void)signal(sig, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	(void)sigprocmask(SIG_UNBLOCK, &set, NULL);
	(void)raise(sig);
	_Exit(128 + sig);
}

/* A pipe that every wait watches, so a stop that comes just before a
 * wait begins still ends it; [1] is written in the handler. */
static int wake[2] = { -1, -1 };

/* End the wait under way, and any that begins next.  Signal-safe. */
static void
wake_up(void)
{
	if (wake[1] >= 0)
		(void)!write(wake[1], "", 1);
}

/*
 * A second stop signal: the commands get SIGTERM, and the run ends at
 * once, here, unless the engine holds it (it then ends the run itself,
 * its reports printed).  A third is never held.
 */
static void
stop_again(int sig)
{
	if (second_stop_fn != NULL)
		second_stop_fn();
	if (!hold_second || second_signal != 0)
		die_of(sig);
	second_signal = sig;
	wake_up();
}

static void
on_stop(int sig)
{
	int e = errno;
	int64_t now_ns = clock_now_ns(); /* clock_gettime: signal-safe */

	if (stop_signal != 0) {
		if (now_ns - stop_ns >= REPEAT_NS)
			stop_again(sig);
		errno = e;
		return;
	}
	stop_signal = sig;
	stop_ns = now_ns;
	wake_up();
	/*
	 * A write that blocks on a reader that stopped reading ends when a
	 * signal comes, and the stop is handled there; one begun just after
	 * this signal would wait on: SIGALRM ends it in a second (each
	 * second after, while the run ends), unless the timer does already.
	 */
	if (!ticking)
		(void)alarm(1);
	errno = e;
}

/* Make the wake-up pipe, and have every wait in clock.c watch it. */
static void
make_wake_pipe(void)
{
	if (pipe(wake) != 0) {
		wake[0] = wake[1] = -1;
		return;
	}
	for (int i = 0; i < 2; i++) {
		(void)fcntl(wake[i], F_SETFD, FD_CLOEXEC);
		(void)fcntl(
		    wake[i], F_SETFL, fcntl(wake[i], F_GETFL) | O_NONBLOCK);
	}
	clock_watch_stop(wake[0]);
}

/* Run fn on sig, without SA_RESTART so blocking calls return EINTR. */
static void
catch_signal(int sig, void (*fn)(int))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = fn;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = 0;
	(void)sigaction(sig, &sa, NULL);
}

static void
on_tick(int sig)
{
	(void)sig;
	tick_wanted = 1;
	if (stop_signal != 0 && !ticking)
		(void)alarm(1);
}

static void
on_report(int sig)
{
	(void)sig;
	report_wanted = 1;
}

static void
on_control(int sig)
{
	(void)sig;
	control_wanted = 1;
}

void
signals_init(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
	struct sigaction sa, old;

	make_wake_pipe();
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_stop;
	/* One stop signal at a time: on_stop's handler is not re-entered. */
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
		sigaddset(&sa.sa_mask, sigs[i]);
	sa.sa_flags = 0; /* no SA_RESTART: sleeps and reads must end */
	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
		if (sigaction(sigs[i], NULL, &old) == 0 &&
		    old.sa_handler == SIG_IGN)
			continue;
		(void)sigaction(sigs[i], &sa, NULL);
	}
	/*
	 * A closed pipe is seen as EPIPE: the output's reader going away
	 * stops the run as a signal would (signals_stop), reported and
	 * cleaned up, and a broken pipe to the drop file or to Redis is an
	 * error with a message, not a silent death.
	 */
	(void)signal(SIGPIPE, SIG_IGN);
	/*
	 * A report or a request asked for while the limits are built
	 * (meeting Redis may take seconds) waits for the engine, rather
	 * than killing us: every handler is in place before the first wait.
	 */
	catch_signal(SIGUSR1, on_report);
	/* The alarm of a stop (on_stop) must not kill us. */
	catch_signal(SIGALRM, on_tick);
	catch_signal(SIGIO, on_control);
	/* Older tbthrottles' -R sent SIGUSR2: it must not kill us. */
	catch_signal(SIGUSR2, on_control);
}

static void
on_child(int sig)
{
	int e = errno;

	(void)sig;
	child_wanted = 1;
	/* A child that ends just before a wait begins still ends it. */
	wake_up();
	errno = e;
}

void
signals_on_child(void (*child)(void *), void *arg, void (*second_stop)(void))
{
	child_fn = child;
	child_arg = arg;
	second_stop_fn = second_stop;
	catch_signal(SIGCHLD, on_child);
}

void
signals_on_report(void (*report)(void *), void *arg)
{
	report_fn = report;
	report_arg = arg;
	catch_signal(SIGUSR1, on_report);
}

void
signals_on_tick(void (*tick)(void *), void *arg, int interval_ms)
{
	struct itimerval it;
	int64_t every_ns = (int64_t)interval_ms * 1000000;
	int i;

	for (i = 0; i < TICKS - 1 && ticks[i].fn != NULL; i++)
		;
	ticks[i] = (struct tick){ tick, arg, every_ns,
		clock_now_ns() + every_ns };
	if (timer_ns != 0 && timer_ns <= every_ns)
		return;
	timer_ns = every_ns;
	catch_signal(SIGALRM, on_tick);
	it.it_interval.tv_sec = interval_ms / 1000;
	it.it_interval.tv_usec = (interval_ms % 1000) * 1000;
	it.it_value = it.it_interval;
	ticking = setitimer(ITIMER_REAL, &it, NULL) == 0;
}

static void
on_resize(int sig)
{
	(void)sig;
	resized = 1;
}

void
signals_on_resize(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_resize;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART; /* the next tick is soon enough */
	(void)sigaction(SIGWINCH, &sa, NULL);
}

bool
signals_resized(void)
{
	if (!resized)
		return false;
	resized = 0;
	return true;
}

void
signals_cancel_tick(void (*tick)(void *))
{
	for (int i = 0; i < TICKS; i++)
		if (ticks[i].fn == tick)
			ticks[i].fn = NULL;
}

/* Run the chores that are due; the timer fires at the shortest one's
 * interval, so the others run at the first tick near their time. */
static void
run_ticks(void)
{
	int64_t now_ns = clock_now_ns();

	for (int i = 0; i < TICKS; i++) {
		if (ticks[i].fn == NULL ||
		    now_ns < ticks[i].next_ns - timer_ns / 2)
			continue;
		ticks[i].next_ns = now_ns + ticks[i].every_ns;
		ticks[i].fn(ticks[i].arg);
	}
}

void
signals_on_control(void (*control)(void *), void *arg)
{
	control_fn = control;
	control_arg = arg;
}

void
signals_request_control(void)
{
	control_wanted = 1;
}

void
signals_on_chore(void (*chore)(void *), void *arg)
{
	chore_fn = chore;
	chore_arg = arg;
}

void
signals_request_chore(void)
{
	chore_wanted = true;
}

/*
 * An access to a mapped file that was cut short under us raises SIGBUS.
 * Within the mapping, say so, clean up and exit 1, with async-signal-safe
 * calls only; a SIGBUS anywhere else is a crash, as without a handler.
 */
static void
on_bus(int sig, siginfo_t *si, void *ctx)
{
	uintptr_t addr = (uintptr_t)si->si_addr;

	(void)ctx;
	if (addr >= bus_lo && addr < bus_hi) {
		(void)write(STDERR_FILENO, bus_msg, bus_msg_len);
		if (death_fn != NULL)
			death_fn();
		_exit(1);
	}
	/* Pending until we return, then fatal. */
	(void)signal(sig, SIG_DFL);
	(void)raise(sig);
}

void
signals_on_bus_error(const void *base, size_t len, const char *msg)
{
	struct sigaction sa;

	bus_lo = (uintptr_t)base;
	bus_hi = bus_lo + len;
	bus_msg = msg;
	bus_msg_len = strlen(msg);
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_bus;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_SIGINFO;
	(void)sigaction(SIGBUS, &sa, NULL);
}

void
signals_on_death(void (*cleanup)(void))
{
	death_fn = cleanup;
}

void
signals_dispatch(void)
{
	if (control_wanted && control_fn != NULL) {
		control_wanted = 0;
		control_fn(control_arg);
	}
	if (chore_wanted && chore_fn != NULL) {
		chore_wanted = false;
		chore_fn(chore_arg);
	}
	if (tick_wanted) {
		tick_wanted = 0;
		run_ticks();
	}
	if (child_wanted && child_fn != NULL) {
		child_wanted = 0;
		child_fn(child_arg);
	}
	if (report_wanted && report_fn != NULL) {
		report_wanted = 0;
		report_fn(report_arg);
	}
}

int
signals_stop_requested(void)
{
	return stop_signal;
}

void
signals_hold_second_stop(bool hold)
{
	hold_second = hold;
}

int
signals_second_stop(void)
{
	return second_signal;
}

void
signals_finish(void)
{
	if (second_signal != 0)
		die_of(second_signal);
	if (stop_signal != 0)
		die_of(stop_signal);
}

void
signals_stop(int sig)
{
	if (stop_signal == 0)
		stop_signal = sig;
}

bool
signals_wait_ready(int fd, short events, bool through_stop)
{
	while (clock_wait_fd(fd, events, INT64_MAX) == EINTR) {
		if (signals_stop_requested() && !through_stop)
			return false;
		signals_dispatch();
	}
	return true;
}
