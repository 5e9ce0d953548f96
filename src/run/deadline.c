/* --timeout, --halt and a stop's grace: when commands get SIGTERM, then SIGKILL. */
#include <err.h>
#include <signal.h>

#include "deadline.h"

void
deadline_start(const struct deadlines *d, struct deadline *c, int64_t start_ns)
{
	*c = (struct deadline){ .term_ns = d->timeout_ns > 0 ?
		    start_ns + d->timeout_ns :
		    INT64_MAX,
		.kill_ns = INT64_MAX,
		.why = END_TIMEOUT };
}

bool
deadline_any(const struct deadlines *d)
{
	return d->timeout_ns > 0 || d->graced ||
	    (d->halting && d->halt.when == HALT_NOW);
}

bool
deadline_grace(
    struct deadlines *d, bool stopping, int64_t now_ns, int64_t *at_ns)
{
	if (!stopping || d->graced)
		return false;
	d->graced = true;
	*at_ns = now_ns +
	    (d->timeout_ns > 0 ? d->timeout_ns : DEADLINE_GRACE_NS);
	return true;
}

void
deadline_due_by(struct deadline *c, int64_t at_ns, enum ender why)
{
	if (c->sent != 0 || at_ns >= c->term_ns)
		return;
	c->term_ns = at_ns;
	c->why = why;
}

/* A command ran out its --timeout: said once. */
static void
say_timeout(struct deadlines *d, uint64_t seq)
{
	if (d->said_timeout)
		return;
	d->said_timeout = true;
	warnx("--timeout: the command of record %llu still ran after %.3g s: "
	      "it gets SIGTERM, and SIGKILL %d s later, and counts as failed "
	      "(any more such, counted by -s)",
	    (unsigned long long)seq, (double)d->timeout_ns / 1e9,
	    (int)(DEADLINE_KILL_NS / 1000000000));
}

int64_t
deadline_signal(struct deadlines *d, struct deadline *c, pid_t pid,
    uint64_t seq, int64_t now_ns)
{
	if (c->sent == 0 && now_ns >= c->term_ns) {
		(void)kill(pid, SIGTERM);
		c->sent = 1;
		c->kill_ns = now_ns + DEADLINE_KILL_NS;
		if (c->why == END_TIMEOUT)
			say_timeout(d, seq);
	} else if (c->sent == 1 && now_ns >= c->kill_ns) {
		(void)kill(pid, SIGKILL);
		c->sent = 2;
	}
	if (c->sent == 0)
		return c->term_ns;
	return c->sent == 1 ? c->kill_ns : INT64_MAX;
}

bool
deadline_halt(struct deadlines *d, const struct stats_jobs *n, unsigned running)
{
	if (d->halting ||
	    !halt_due(&d->halt, n->failed, n->succeeded + n->failed))
		return false;
	d->halting = true;
	warnx("--halt: %llu record%s failed: no more commands start%s",
	    (unsigned long long)n->failed, n->failed == 1 ? "" : "s",
	    d->halt.when == HALT_NOW && running > 0 ?
		", and those running get SIGTERM" :
		"");
	return true;
}
