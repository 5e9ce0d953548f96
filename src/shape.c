/* Shaping: units wait for their tokens, and input waits behind them. */
#include "shape.h"

/*
 * Book the units at the head of v at now_ns: how many go together, and
 * when they are due.  False when there is no whole unit to book.
 */
static bool
book(struct shape *s, const struct view *v, int64_t now_ns)
{
	const struct gate *g = s->gate;
	struct bucket *bb = g->byte_limit;
	uint64_t room = UINT64_MAX;
	size_t want = g->quantum > SIZE_MAX ? SIZE_MAX : (size_t)g->quantum;
	size_t units;

	if (bb != NULL)
		room = g->byte_quantum < bb->burst ? g->byte_quantum :
						     bb->burst;
	s->bytes = policy_span(
	    &g->framer, v->b, v->len, v->eof, want, room, &units);
	/* A record longer than the buffer: pay for it, then let it through
	 * without waiting; its bytes are charged as they pass. */
	s->outgrown = units == 0 && v->full;
	if (s->outgrown)
		units = 1;
	if (units == 0)
		return false;
	s->units = units;
	s->due_ns = v->ready_ns;
	s->reserved = false;
	/* Per key, one record at a time: the next may have another key. */
	if (g->select != NULL)
		g->select(g->select_ctx, v->b, s->outgrown ? v->len : s->bytes,
		    !s->outgrown, now_ns);
	if (g->limit != NULL && g->limit->reserve != NULL) {
		/* A bucket shared with other processes: book a place in
		 * line now, so that all are served in order. */
		s->due_ns = limiter_reserve(g->limit, now_ns, units);
		s->reserved = true;
	} else if (g->limit != NULL) {
		s->due_ns = limiter_ready_at(g->limit, v->ready_ns, units);
	}
	if (bb != NULL) {
		/* A record that outgrew the buffer is longer than the burst
		 * would ever be useful for: it waits for a full bucket. */
		uint64_t cost = s->outgrown || s->bytes > bb->burst ?
		    bb->burst :
		    s->bytes;
		int64_t bdue = bucket_ready_at(bb, v->ready_ns, cost);

		if (bdue > s->due_ns)
			s->due_ns = bdue;
	}
	s->booked = true;
	return true;
}

/* The booked units are due at now_ns: release them and all due by now. */
static void
release(struct shape *s, const struct view *v, int64_t now_ns, struct action *a)
{
	const struct gate *g = s->gate;
	struct bucket *bb = g->byte_limit;
	int64_t ready_ns = v->ready_ns;
	uint64_t room = UINT64_MAX;
	size_t want, units, n;

	s->booked = false;
	if (s->outgrown) {
		if (g->limit != NULL && !s->reserved)
			(void)limiter_take(g->limit, ready_ns, now_ns, 1);
		policy_move(a, ACT_LONG, 0, 0, 1, s->due_ns);
		return;
	}
	if (s->reserved) {
		/* Exactly what was booked. */
		if (bb != NULL)
			bucket_charge(bb, ready_ns, now_ns, s->bytes);
		policy_move(a, ACT_SEND, 0, s->bytes, s->units, s->due_ns);
		return;
	}
	want = g->limit == NULL ?
	    SIZE_MAX :
	    (size_t)limiter_avail(g->limit, ready_ns, now_ns);
	if (g->select != NULL && want > 1)
		want = 1;
	if (bb != NULL)
		room = bucket_avail(bb, ready_ns, now_ns);
	/* The booking spanned the first units of the view: go on from them
	 * (scanning each byte once counts when the rate does not bind). */
	n = policy_span_on(&g->framer, v->b, v->len, v->eof, want, room,
	    s->bytes <= v->len ? s->bytes : 0, s->units, &units);
	if (g->limit != NULL)
		(void)limiter_take(g->limit, ready_ns, now_ns, units);
	if (bb != NULL)
		bucket_charge(bb, ready_ns, now_ns, n);
	policy_move(a, ACT_SEND, 0, n, units, s->due_ns);
}

/*
 * Book the units at the head of v at now_ns a batch at a time, through
 * the gate's book (a limit in Redis).  False when nothing there is whole.
 */
static bool
book_batch(struct shape *s, const struct view *v, int64_t now_ns)
{
	const struct gate *g = s->gate;
	struct batch *bt = &s->batch;
	size_t n = batch_plan(bt, &g->framer, v, 0, g->quantum, v->ready_ns);

	if (n == 0 && !v->full)
		return false;
	if (n == 0) {
		/* A record longer than the buffer, alone: pay for it, then
		 * let it through without waiting. */
		bt->b[0] = (struct booking){ .rec = v->b,
			.bytes = v->len,
			.units = 1,
			.at_ns = v->ready_ns,
			.outgrown = true };
		n = bt->n = 1;
	}
	/* None booked: a stop came, which the wait below ends on. */
	batch_booked(bt, g->book(g->book_ctx, bt->b, n, false, now_ns));
	return true;
}

/*
 * Shaping in batches: book what the buffer holds in one round trip, then
 * release each run of it as it falls due, in order; no more is booked
 * until all of it went, so a record waits behind the one before it, as
 * when each is booked as it reaches the head.
 */
static void
next_batched(
    struct shape *s, const struct view *v, int64_t now_ns, struct action *a)
{
	struct batch *bt = &s->batch;
	const struct booking *head;
	uint64_t units;
	int64_t due_ns;
	size_t bytes;

	if (!batch_pending(bt) && !book_batch(s, v, now_ns)) {
		policy_read(a, false, false);
		return;
	}
	if (!batch_pending(bt)) {
		policy_wait(a, INT64_MAX, false);
		return;
	}
	head = &bt->b[bt->done];
	if (head->outgrown && now_ns >= head->due_ns) {
		bt->done++;
		policy_move(a, ACT_LONG, 0, 0, 1, head->due_ns);
		return;
	}
	bytes = head->outgrown ? 0 : batch_due(bt, now_ns, &units, &due_ns);
	if (bytes == 0)
		policy_wait(a, head->due_ns, false);
	else
		policy_move(a, ACT_SEND, 0, bytes, units, due_ns);
}

static void
shape_next(void *self, const struct view *v, int64_t now_ns, struct action *a)
{
	struct shape *s = self;
	const struct gate *g = s->gate;

	if (s->batched) {
		next_batched(s, v, now_ns, a);
		return;
	}
	if (!s->booked && !book(s, v, now_ns)) {
		/* Bytes that only need counting may wait in the input. */
		policy_read(a, false,
		    g->framer.bytes && g->select == NULL &&
			g->byte_limit == NULL);
		return;
	}
	if (now_ns < s->due_ns)
		policy_wait(a, s->due_ns, false);
	else
		release(s, v, now_ns, a);
}

/* The bytes of a long record that has its token are charged as they go. */
static void
shape_streamed(
    void *self, const struct view *v, size_t bytes, bool pass, int64_t now_ns)
{
	const struct shape *s = self;

	if (pass && s->gate->byte_limit != NULL)
		bucket_charge(s->gate->byte_limit, v->ready_ns, now_ns, bytes);
}

static void
shape_retuned(void *self, int64_t now_ns)
{
	struct shape *s = self;

	s->booked = false;
	batch_retuned(&s->batch, now_ns);
}

/* Booked units not yet released: at a stop, those due go out. */
static bool
shape_owes(const void *self)
{
	const struct shape *s = self;

	return batch_pending(&s->batch);
}

void
shape_policy(struct policy *p, struct shape *s, const struct gate *g)
{
	*s = (struct shape){ .gate = g };
	s->batched = g->book != NULL && g->byte_limit == NULL;
	*p = (struct policy){ s, shape_next, shape_streamed, shape_retuned,
		shape_owes, true };
}
