/* Orderly stop on SIGINT, SIGTERM and SIGHUP. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "signals.h"

static volatile sig_atomic_t stop_signal;

static void
die_of(int sig)
{
	sigset_t set;

	(void)signal(sig, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	(void)sigprocmask(SIG_UNBLOCK, &set, NULL);
	(void)raise(sig);
	_Exit(128 + sig);
}

static void
on_stop(int sig)
{
	if (stop_signal != 0)
		die_of(sig);
	stop_signal = sig;
}

void
signals_init(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa, old;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = 0;	/* no SA_RESTART: sleeps and reads must end */
	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
		if (sigaction(sigs[i], NULL, &old) == 0 &&
		    old.sa_handler == SIG_IGN)
			continue;
		(void)sigaction(sigs[i], &sa, NULL);
	}
}

int
signals_stop_requested(void)
{
	return stop_signal;
}

void
signals_finish(void)
{
	if (stop_signal != 0)
		die_of(stop_signal);
}

void
signals_die_of_sigpipe(void)
{
	die_of(SIGPIPE);
}
