/* Policing (--drop): units that find no token are dropped, not delayed. */
#include <string.h>

#include "drop.h"

enum verdict { V_PASS, V_DROP, V_NONE };

/* Send or drop the run of judged records at the head. */
static void
flush_run(struct drop *d, struct action *a)
{
	policy_move(a, d->run_ok ? ACT_SEND : ACT_DROP, 0, d->run_bytes,
	    d->run_units, INT64_MIN);
	d->run_bytes = 0;
	d->run_units = 0;
}

/* Bytes mode: every byte of a read arrived together, and is judged so. */
static void
judge_bytes(struct drop *d, const struct view *v, struct action *a)
{
	struct booking b = { .rec = v->b,
		.bytes = v->len,
		.units = v->len,
		.at_ns = v->read_ns };

	if (d->rest > 0) {
		policy_move(a, ACT_DROP, 0, d->rest, d->rest, INT64_MIN);
		d->rest = 0;
		return;
	}
	if (v->len == 0) {
		policy_read(a);
		return;
	}
	if (gate_judge(d->gate, &b, 1) == 0) {
		policy_wait(a, INT64_MAX, false); /* for the stop */
		return;
	}
	d->rest = v->len - (size_t)b.taken;
	if (b.taken == 0)
		judge_bytes(d, v, a);
	else
		policy_move(
		    a, ACT_SEND, 0, (size_t)b.taken, b.taken, INT64_MIN);
}

/*
 * Judge the whole records of v from the end of the run on, the first
 * arrived at first_ns, as many as one call of the gate is worth; their
 * verdicts wait in d->batch.  False when a stop came first: none was
 * judged.
 */
static bool
judge_batch(struct drop *d, const struct view *v, int64_t first_ns)
{
	const struct gate *g = d->gate;
	struct batch *bt = &d->batch;
	size_t n = batch_plan(bt, &g->framer, v, d->run_bytes, 1, UINT64_MAX,
	    gate_batch(g), first_ns);

	/* Not before a live change: the limits know nothing of the time
	 * before it. */
	for (size_t i = 0; i < n; i++)
		if (bt->b[i].at_ns < d->changed_ns)
			bt->b[i].at_ns = d->changed_ns;
	batch_booked(bt, gate_judge(g, bt->b, n));
	return batch_pending(bt);
}

/*
 * The verdict on the record p[0..size) that follows the run (whole: its
 * delimiter is there, or the input ended; else the first bytes of one
 * longer than the buffer), as of when it arrived: from the verdicts in
 * hand, or judged now, alone where a call costs nothing, else with the
 * records after it.  V_NONE when a stop came first, or when a batch that
 * is a round trip would be judged while a run is held: the run goes
 * first, and nothing more is judged after a stop.
 */
static enum verdict
judge_record(struct drop *d, const struct view *v, const char *p, size_t size,
    bool whole)
{
	const struct gate *g = d->gate;
	struct batch *bt = &d->batch;
	int64_t at = d->first_set ? d->first_ns : v->read_ns;
	struct booking b = {
		.rec = p, .bytes = size, .units = 1, .outgrown = !whole
	};

	if (at < d->changed_ns)
		at = d->changed_ns;
	if (batch_pending(bt))
		return bt->b[bt->done++].taken > 0 ? V_PASS : V_DROP;
	if (!whole || gate_batch(g) == 1) {
		b.at_ns = at;
		if (gate_judge(g, &b, 1) == 0)
			return V_NONE;
		return b.taken > 0 ? V_PASS : V_DROP;
	}
	if (d->run_bytes > 0 || !judge_batch(d, v, at))
		return V_NONE;
	return bt->b[bt->done++].taken > 0 ? V_PASS : V_DROP;
}

/* What judging the record after the run led to. */
enum step { STEP_MORE, STEP_WAIT, STEP_ACT };

/*
 * Judge the record after the run, adding it to the run when it has the
 * run's verdict: STEP_MORE, then judge the next; STEP_WAIT when it is not
 * whole yet; STEP_ACT when a is what to do first.
 */
static enum step
judge_next(struct drop *d, const struct view *v, struct action *a)
{
	const char *p = v->b + d->run_bytes;
	const char *q = memchr(p, d->gate->framer.delim, v->len - d->run_bytes);
	bool whole = q != NULL || v->eof, ok;
	size_t size = q != NULL ? (size_t)(q - p) + 1 : v->len - d->run_bytes;
	enum verdict verdict;

	if (!whole && !(d->run_bytes == 0 && v->full)) {
		/* Wait for the rest of it, remembering when it started. */
		if (!d->first_set) {
			d->first_ns = v->read_ns;
			d->first_set = true;
		}
		return STEP_WAIT;
	}
	if ((verdict = judge_record(d, v, p, size, whole)) == V_NONE) {
		/* Unjudged, it waits for the stop that came. */
		if (d->run_bytes > 0)
			flush_run(d, a);
		else
			policy_wait(a, INT64_MAX, false);
		return STEP_ACT;
	}
	ok = verdict == V_PASS;
	d->first_set = false;
	if (!whole) {
		/* Judged on its first buffer of bytes; the rest keep the
		 * verdict as they arrive. */
		policy_move(a, ACT_LONG, 0, 0, 1, INT64_MIN);
		a->pass = ok;
		return STEP_ACT;
	}
	if (d->run_bytes > 0 && ok != d->run_ok) {
		flush_run(d, a);
		d->run_bytes = size;
		d->run_units = 1;
		d->run_ok = ok;
		/* Verdicts in hand go on into its run; else it goes alone. */
		d->flush_pending = !batch_pending(&d->batch);
		return STEP_ACT;
	}
	d->run_ok = ok;
	d->run_bytes += size;
	d->run_units++;
	/* Where only the latest key's limit learns when its record went,
	 * one let through goes before the next is judged. */
	if (ok && gate_alone(d->gate)) {
		flush_run(d, a);
		return STEP_ACT;
	}
	return STEP_MORE;
}

static void
drop_next(void *self, const struct view *v, int64_t now_ns, struct action *a)
{
	struct drop *d = self;
	enum step step = STEP_MORE;

	(void)now_ns;
	if (d->gate->framer.bytes) {
		judge_bytes(d, v, a);
		return;
	}
	/* A record judged after a run of the other verdict goes first,
	 * alone: after a stop nothing more may be judged. */
	if (d->flush_pending) {
		d->flush_pending = false;
		flush_run(d, a);
		return;
	}
	while (
	    d->run_bytes < v->len && (step = judge_next(d, v, a)) == STEP_MORE)
		;
	if (step == STEP_ACT)
		return;
	if (d->run_bytes > 0)
		flush_run(d, a);
	else
		policy_read(a);
}

/* The bytes of a long record that went out are charged as they arrived. */
static void
drop_streamed(void *self, const struct moved *m, int64_t now_ns)
{
	const struct drop *d = self;

	(void)now_ns;
	if (m->pass)
		gate_streamed(d->gate, m->read_ns, m->read_ns, m->bytes);
}

static void
drop_retuned(void *self, int64_t now_ns)
{
	struct drop *d = self;

	d->changed_ns = now_ns;
}

/* Records judged but not yet sent or dropped, or refused bytes. */
static bool
drop_owes(const void *self)
{
	const struct drop *d = self;

	return d->run_bytes > 0 || d->rest > 0 || batch_pending(&d->batch);
}

void
drop_policy(struct policy *p, struct drop *d, const struct gate *g)
{
	*d = (struct drop){ .gate = g, .changed_ns = INT64_MIN };
	*p = (struct policy){ .self = d,
		.next = drop_next,
		.streamed = drop_streamed,
		.retuned = drop_retuned,
		.owes = drop_owes,
		.read = READ_COPY };
}
