/* Shaping: units wait for their tokens, and input waits behind them. */
#include "shape.h"

/*
 * Book the units at the head of v at now_ns through the gate, as many
 * bookings as one call is worth.  False when nothing there is whole.
 */
static bool
book(struct shape *s, const struct view *v, int64_t now_ns)
{
	const struct gate *g = s->gate;
	struct batch *bt = &s->batch;
	size_t n = batch_plan(bt, &g->framer, v, 0, g->quantum, g->room,
	    gate_batch(g), v->ready_ns);

	if (n == 0 && !v->full)
		return false;
	if (n == 0) {
		/* A record longer than the buffer, alone: pay for it, then
		 * let it through without waiting; its bytes are charged as
		 * they pass. */
		bt->b[0] = (struct booking){ .rec = v->b,
			.bytes = v->len,
			.units = 1,
			.at_ns = v->ready_ns,
			.outgrown = true };
		n = bt->n = 1;
	}
	/* None booked: a stop came, which the wait for it ends on. */
	batch_booked(bt, gate_plan(g, bt->b, n, now_ns));
	return true;
}

/*
 * The bookings at the head are due at now_ns: release the run of them
 * that is due, and with it what more the limits allow by now.
 */
static void
release(struct shape *s, const struct view *v, int64_t now_ns, struct action *a)
{
	const struct gate *g = s->gate;
	struct batch *bt = &s->batch;
	const struct booking *first = &bt->b[bt->done];
	uint64_t units, want, room;
	size_t bytes, n, got;
	int64_t due_ns;

	if (first->outgrown) {
		bt->done++;
		gate_take(g, first, 1, 0, now_ns);
		policy_move(a, ACT_LONG, 0, 0, 1, first->due_ns);
		return;
	}
	bytes = batch_due(bt, now_ns, &units, &due_ns);
	gate_grant(g, first, units, bytes, now_ns, &want, &room);
	/* The bookings spanned the first units of the view: go on from them
	 * (scanning each byte once counts when the rate does not bind). */
	n = policy_span_on(&g->framer, v->b, v->len, v->eof,
	    want > SIZE_MAX ? SIZE_MAX : (size_t)want, room,
	    bytes <= v->len ? bytes : 0, (size_t)units, &got);
	gate_take(g, first, got, n, now_ns);
	policy_move(a, ACT_SEND, 0, n, got, due_ns);
}

/*
 * Book what the head holds, then release each run of it as it falls due,
 * in order; no more is booked until all of it went, so a record waits
 * behind the one before it.
 */
static void
shape_next(void *self, const struct view *v, int64_t now_ns, struct action *a)
{
	struct shape *s = self;
	const struct booking *head;

	if (!batch_pending(&s->batch) && !book(s, v, now_ns)) {
		policy_read(a);
		return;
	}
	if (!batch_pending(&s->batch)) {
		policy_wait(a, INT64_MAX, false);
		return;
	}
	head = &s->batch.b[s->batch.done];
	if (now_ns < head->due_ns)
		policy_wait(a, head->due_ns, false);
	else
		release(s, v, now_ns, a);
}

/* The bytes of a long record that has its token are charged as they go. */
static void
shape_streamed(void *self, const struct moved *m, int64_t now_ns)
{
	const struct shape *s = self;

	if (m->pass)
		gate_streamed(s->gate, m->ready_ns, now_ns, m->bytes);
}

/*
 * The limits changed at now_ns: forget the bookings, to be made again at
 * the new rates, but those booked ahead that are due by then.
 */
static void
shape_retuned(void *self, int64_t now_ns)
{
	struct shape *s = self;
	size_t n;
	const struct booking *b = batch_head(&s->batch, &n);

	s->batch.n = s->batch.done + gate_held(s->gate, b, n, now_ns);
}

/* Units booked ahead, and not yet released: at a stop, they go out. */
static bool
shape_owes(const void *self)
{
	const struct shape *s = self;
	size_t n = s->batch.n - s->batch.done;

	return gate_held(s->gate, &s->batch.b[s->batch.done], n, INT64_MAX) > 0;
}

void
shape_policy(struct policy *p, struct shape *s, const struct gate *g)
{
	*s = (struct shape){ .gate = g };
	*p = (struct policy){ .self = s,
		.next = shape_next,
		.streamed = shape_streamed,
		.retuned = shape_retuned,
		.owes = shape_owes,
		.uses_ready = true,
		.read = g->claim ? READ_CLAIM : READ_COPY };
}
