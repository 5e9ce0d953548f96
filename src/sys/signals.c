/* Signals: an orderly stop, reports on SIGUSR1, ticks, live changes. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
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

/* Room for a hook of each kind, and the ticks. */
#define HOOKS (SIGNALS_KINDS + TICKS - 1)

/* The kinds signals_dispatch runs: those before SIGNALS_RESIZE. */
#define DISPATCHED SIGNALS_RESIZE

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
/* A kind signals_dispatch runs came: its hook is to run. */
static volatile sig_atomic_t wanted[DISPATCHED];
/* The hooks: fn(arg) for kind; a slot is free while fn is NULL. */
static struct hook {
	enum signals_kind kind;
	void (*fn)(void *);
	void *arg;
	int64_t every_ns, next_ns; /* a tick's */
} hooks[HOOKS];
static int64_t timer_ns; /* the timer's interval: the shortest chore's */
static uintptr_t bus_lo, bus_hi; /* the mapping of signals_on_bus_error */
static const char *bus_msg;
static size_t bus_msg_len;

/* Run the hooks of kind now, in a handler too: signal-safe. */
static void
run_now(enum signals_kind kind)
{
	for (size_t i = 0; i < HOOKS; i++)
		if (hooks[i].fn != NULL && hooks[i].kind == kind)
			hooks[i].fn(hooks[i].arg);
}

static void
die_of(int sig)
{
	sigset_t set;

	run_now(SIGNALS_DEATH);
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
	run_now(SIGNALS_SECOND_STOP);
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
	wanted[SIGNALS_TICK] = 1;
	if (stop_signal != 0 && !ticking)
		(void)alarm(1);
}

static void
on_report(int sig)
{
	(void)sig;
	wanted[SIGNALS_REPORT] = 1;
}

static void
on_control(int sig)
{
	(void)sig;
	wanted[SIGNALS_CONTROL] = 1;
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
	wanted[SIGNALS_CHILD] = 1;
	/* A child that ends just before a wait begins still ends it. */
	wake_up();
	errno = e;
}

static void
on_resize(int sig)
{
	(void)sig;
	run_now(SIGNALS_RESIZE);
}

/*
 * Where a hook of kind goes: in place of its kind's (a tick's, if two
 * are there already, in place of the last), or in a free slot.
 */
static struct hook *
slot_for(enum signals_kind kind)
{
	struct hook *free_slot = NULL, *last = NULL;
	int n = 0;

	for (size_t i = 0; i < HOOKS; i++) {
		if (hooks[i].fn == NULL) {
			if (free_slot == NULL)
				free_slot = &hooks[i];
		} else if (hooks[i].kind == kind) {
			if (kind != SIGNALS_TICK)
				return &hooks[i];
			last = &hooks[i];
			n++;
		}
	}
	return n < TICKS ? free_slot : last;
}

/* Tick every every_ns: the timer runs at the shortest tick's interval. */
static void
start_timer(int64_t every_ns)
{
	struct itimerval it;
	int interval_ms = (int)(every_ns / 1000000);

	if (timer_ns != 0 && timer_ns <= every_ns)
		return;
	timer_ns = every_ns;
	catch_signal(SIGALRM, on_tick);
	it.it_interval.tv_sec = interval_ms / 1000;
	it.it_interval.tv_usec = (interval_ms % 1000) * 1000;
	it.it_value = it.it_interval;
	ticking = setitimer(ITIMER_REAL, &it, NULL) == 0;
}

/* Catch SIGWINCH: the next tick is soon enough, blocking calls go on. */
static void
catch_resize(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_resize;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	(void)sigaction(SIGWINCH, &sa, NULL);
}

void
signals_hook(
    enum signals_kind kind, void (*fn)(void *), void *arg, int every_ms)
{
	struct hook *h = slot_for(kind);
	int64_t every_ns = (int64_t)every_ms * 1000000;

	/* A handler may run the hook: whole before it is there. */
	h->fn = NULL;
	atomic_signal_fence(memory_order_seq_cst);
	*h = (struct hook){ .kind = kind,
		.arg = arg,
		.every_ns = every_ns,
		.next_ns = clock_now_ns() + every_ns };
	atomic_signal_fence(memory_order_seq_cst);
	h->fn = fn;
	if (kind == SIGNALS_TICK)
		start_timer(every_ns);
	else if (kind == SIGNALS_CHILD)
		catch_signal(SIGCHLD, on_child);
	else if (kind == SIGNALS_REPORT)
		catch_signal(SIGUSR1, on_report);
	else if (kind == SIGNALS_RESIZE)
		catch_resize();
}

void
signals_unhook(enum signals_kind kind, void (*fn)(void *))
{
	for (size_t i = 0; i < HOOKS; i++)
		if (hooks[i].kind == kind && hooks[i].fn == fn)
			hooks[i].fn = NULL;
}

void
signals_request(enum signals_kind kind)
{
	if (kind < DISPATCHED)
		wanted[kind] = 1;
}

/*
 * Run the hooks of kind, one of those signals_dispatch runs; a tick when
 * it is due: the timer fires at the shortest tick's interval, so the
 * others run at the first tick near their time.
 */
static void
run_hooks(enum signals_kind kind)
{
	int64_t now_ns = kind == SIGNALS_TICK ? clock_now_ns() : 0;

	for (size_t i = 0; i < HOOKS; i++) {
		struct hook *h = &hooks[i];

		if (h->fn == NULL || h->kind != kind)
			continue;
		if (kind == SIGNALS_TICK) {
			if (now_ns < h->next_ns - timer_ns / 2)
				continue;
			h->next_ns = now_ns + h->every_ns;
		}
		h->fn(h->arg);
	}
}

/* Is a hook of kind there? */
static bool
hooked(enum signals_kind kind)
{
	for (size_t i = 0; i < HOOKS; i++)
		if (hooks[i].fn != NULL && hooks[i].kind == kind)
			return true;
	return false;
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
		run_now(SIGNALS_DEATH);
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
signals_dispatch(void)
{
	for (int k = 0; k < DISPATCHED; k++) {
		/* A tick's signal is spent even with no tick: a stop's. */
		if (!wanted[k] || (k != SIGNALS_TICK && !hooked(k)))
			continue;
		wanted[k] = 0;
		run_hooks(k);
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
