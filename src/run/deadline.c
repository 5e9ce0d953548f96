/* --timeout, --halt and a stop's grace: when commands get SIGTERM, then SIGKILL. */
#include <err.h>
#include <signal.h>

#include "deadline.h"
#include "jobs.h"
#include "signals.h"

void
deadline_set(struct jobs *j, int64_t timeout_ns, const struct halt *h)
{
	j->dl = (struct deadlines){ .timeout_ns = timeout_ns, .halt = *h };
}

void
deadline_start(const struct jobs *j, struct job *s)
{
	s->term_ns = j->dl.timeout_ns > 0 ? s->start_ns + j->dl.timeout_ns :
					    INT64_MAX;
	s->kill_ns = INT64_MAX;
	s->why = END_TIMEOUT;
	s->sent = 0;
}

/* The command of s is to get SIGTERM by at_ns, for why. */
static void
due_by(struct job *s, int64_t at_ns, enum ender why)
{
	if (s->pid <= 0 || s->sent != 0 || at_ns >= s->term_ns)
		return;
	s->term_ns = at_ns;
	s->why = why;
}

/* A command ran out its --timeout: said once. */
static void
say_timeout(struct jobs *j, const struct job *s)
{
	if (j->dl.said_timeout)
		return;
	j->dl.said_timeout = true;
	warnx("--timeout: the command of record %llu still ran after %.3g s: "
	      "it gets SIGTERM, and SIGKILL %d s later, and counts as failed "
	      "(any more such, counted by -s)",
	    (unsigned long long)s->seq, (double)j->dl.timeout_ns / 1e9,
	    (int)(DEADLINE_KILL_NS / 1000000000));
}

/* Send s's command the signal due by now_ns; when the next is due. */
static int64_t
signal_due(struct jobs *j, struct job *s, int64_t now_ns)
{
	if (s->sent == 0 && now_ns >= s->term_ns) {
		(void)kill(s->pid, SIGTERM);
		s->sent = 1;
		s->kill_ns = now_ns + DEADLINE_KILL_NS;
		if (s->why == END_TIMEOUT)
			say_timeout(j, s);
	} else if (s->sent == 1 && now_ns >= s->kill_ns) {
		(void)kill(s->pid, SIGKILL);
		s->sent = 2;
	}
	if (s->sent == 0)
		return s->term_ns;
	return s->sent == 1 ? s->kill_ns : INT64_MAX;
}

int64_t
deadline_check(struct jobs *j, int64_t now_ns)
{
	int64_t next_ns = INT64_MAX, at_ns;
	int64_t grace_ns = j->dl.timeout_ns > 0 ? j->dl.timeout_ns :
						  DEADLINE_GRACE_NS;

	/* None is due ever: the common case, asked every turn. */
	if (j->dl.timeout_ns == 0 && !j->dl.graced &&
	    !(j->dl.halting && j->dl.halt.when == HALT_NOW) &&
	    !signals_stop_requested())
		return INT64_MAX;
	if (signals_stop_requested() && !j->dl.graced) {
		j->dl.graced = true;
		for (unsigned i = 0; i < j->max; i++)
			due_by(&j->slot[i], now_ns + grace_ns, END_STOP);
	}
	for (unsigned i = 0; i < j->max; i++) {
		if (j->slot[i].pid <= 0)
			continue;
		at_ns = signal_due(j, &j->slot[i], now_ns);
		if (at_ns < next_ns)
			next_ns = at_ns;
	}
	return next_ns;
}

bool
deadline_killed(const struct job *s, enum ender *why)
{
	*why = (enum ender)s->why;
	return s->sent != 0;
}

void
deadline_counted(struct jobs *j, int64_t now_ns)
{
	const struct stats_jobs *c = &j->counts;

	if (j->dl.halting ||
	    !halt_due(&j->dl.halt, c->failed, c->succeeded + c->failed))
		return;
	j->dl.halting = true;
	j->halted = true;
	if (j->status < 123)
		j->status = 123;
	warnx("--halt: %llu records failed: no more commands start%s",
	    (unsigned long long)c->failed,
	    j->dl.halt.when == HALT_NOW && j->running > 0 ?
		", and those running get SIGTERM" :
		"");
	if (j->dl.halt.when != HALT_NOW)
		return;
	for (unsigned i = 0; i < j->max; i++)
		due_by(&j->slot[i], now_ns, END_HALT);
	(void)deadline_check(j, now_ns);
}
