/* A bounded queue (--queue N): read ahead while units wait, at most N. */
#include <stdlib.h>
#include <string.h>

#include "queue.h"

/*
 * Admit the input after the queue at now_ns: each record is queued when
 * fewer than max_queued wait, else dropped, or, without dropping, left
 * unread until there is room.  True when a run of dropped bytes is to
 * leave (action a).
 */
static bool
admit(struct queue *q, const struct view *v, int64_t now_ns, struct action *a)
{
	size_t r = q->judged, drop_off = 0, drop_len = 0;
	uint64_t drop_units = 0;

	while (r < v->len) {
		const char *end;
		size_t len;

		if (!q->open) {
			if (q->queued >= q->max_queued && !q->dropping)
				break;
			/* A record to queue: the dropped run before it
			 * leaves first. */
			if (q->queued < q->max_queued && drop_len > 0)
				break;
			/* A record to drop is dropped whole, once its end is
			 * here: only one too long to wait for in the buffer
			 * goes in pieces (and a stop then waits for its end). */
			if (q->queued >= q->max_queued && !v->eof && !v->full &&
			    memchr(v->b + r, q->gate->framer.delim,
				v->len - r) == NULL)
				break;
			q->open_ok = q->queued < q->max_queued;
			q->open = true;
			if (q->open_ok) {
				q->arrived[(q->first + q->queued) % q->ring] =
				    now_ns;
				q->queued++;
			} else {
				drop_units++;
			}
		}
		end = memchr(v->b + r, q->gate->framer.delim, v->len - r);
		len = end != NULL ? (size_t)(end - (v->b + r)) + 1 : v->len - r;
		if (!q->open_ok) {
			if (drop_len == 0)
				drop_off = r;
			drop_len += len;
		}
		if (end != NULL)
			q->open = false;
		r += len;
	}
	if (drop_len == 0) {
		q->judged = r;
		return false;
	}
	q->judged = drop_off;
	policy_move(a, ACT_DROP, drop_off, drop_len, drop_units, INT64_MIN);
	return true;
}

/*
 * Bytes of at most max whole queued units at the head; at the end of
 * input an unfinished last record is whole.
 */
static size_t
head_units(
    const struct queue *q, const struct view *v, size_t max, size_t *units)
{
	return policy_span(&q->gate->framer, v->b, q->judged,
	    v->eof && q->judged == v->len, max, UINT64_MAX, units);
}

/* units left the head of the queue, with bytes of theirs. */
static void
pop(struct queue *q, size_t units, size_t bytes)
{
	q->first = (q->first + units) % q->ring;
	q->queued -= units;
	q->judged -= bytes;
}

/*
 * Release what is due at the head of the queue at now_ns.  True if
 * something goes (action a); otherwise *due_ns is when the head is due,
 * or INT64_MAX when it is not whole yet.
 */
static bool
release_due(struct queue *q, const struct view *v, int64_t now_ns,
    int64_t *due_ns, struct action *a)
{
	const struct gate *g = q->gate;
	size_t want = g->quantum > SIZE_MAX ? SIZE_MAX : (size_t)g->quantum;
	struct booking b = { .rec = v->b, .at_ns = q->arrived[q->first] };
	uint64_t max, room;
	size_t units, n;

	*due_ns = INT64_MAX;
	if (q->queued == 0)
		return false;
	b.bytes = head_units(q, v, want, &units);
	if (units == 0 && !(v->full && q->judged == v->len))
		return false; /* the head record is still arriving */
	/* It outgrew the buffer: pay, then stream. */
	b.outgrown = units == 0;
	b.units = units == 0 ? 1 : units;
	(void)gate_plan(g, &b, 1, now_ns);
	*due_ns = b.due_ns;
	if (now_ns < *due_ns)
		return false;
	gate_grant(g, &b, b.units, b.bytes, now_ns, &max, &room);
	n = head_units(q, v, max > SIZE_MAX ? SIZE_MAX : (size_t)max, &units);
	if (units == 0) {
		/* It leaves the queue now and streams out from here. */
		gate_take(g, &b, 1, 0, now_ns);
		pop(q, 1, 0);
		policy_move(a, ACT_LONG, 0, 0, 1, *due_ns);
		return true;
	}
	gate_take(g, &b, units, n, now_ns);
	pop(q, units, n);
	policy_move(a, ACT_SEND, 0, n, units, *due_ns);
	return true;
}

static void
queue_next(void *self, const struct view *v, int64_t now_ns, struct action *a)
{
	struct queue *q = self;
	int64_t due_ns;
	bool can_read;

	if (q->judged < v->len && admit(q, v, now_ns, a))
		return;
	if (release_due(q, v, now_ns, &due_ns, a))
		return;
	can_read = !v->eof && !v->full &&
	    (q->dropping || q->queued < q->max_queued || q->open);
	if (can_read)
		policy_wait(a, due_ns, true);
	else if (due_ns != INT64_MAX)
		policy_wait(a, due_ns, false);
	else /* nothing to read and nothing due: all is out */
		policy_read(a);
}

/*
 * Bytes of the long record at the head left: the part admitted leaves
 * the queue's bytes, and once its end has gone, the next record is new.
 */
static void
queue_streamed(void *self, const struct moved *m, int64_t now_ns)
{
	struct queue *q = self;

	(void)now_ns;
	if (q->judged >= m->bytes) {
		q->judged -= m->bytes;
	} else {
		q->judged = 0;
		if (m->ended)
			q->open = false;
	}
}

int
queue_policy(struct policy *p, struct queue *q, const struct gate *g,
    uint64_t max_units, bool drop)
{
	*q = (struct queue){
		.gate = g, .max_queued = max_units, .dropping = drop
	};
	q->ring = max_units < QUEUE_BUF_BYTES ? (size_t)max_units :
						QUEUE_BUF_BYTES;
	if ((q->arrived = calloc(q->ring, sizeof *q->arrived)) == NULL)
		return -1;
	*p = (struct policy){ .self = q,
		.next = queue_next,
		.streamed = queue_streamed,
		.read = READ_COPY };
	return 0;
}

void
queue_free(struct queue *q)
{
	free(q->arrived);
	q->arrived = NULL;
}
