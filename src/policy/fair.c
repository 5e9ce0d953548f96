/* Keys in turn (--order key): whichever key's record is due goes first. */
#include <stdlib.h>

#include "fair.h"

/* Where a key waits (held_key.place). */
enum { PLACE_TODO, PLACE_HEAP, PLACE_TREE };

static size_t
least(size_t a, size_t b)
{
	return a < b ? a : b;
}

/* ---- the keys their own limit holds back: a heap by due_ns ---- */

static bool
sooner(const struct fair *f, uint32_t a, uint32_t b)
{
	return f->held.keys[a].due_ns < f->held.keys[b].due_ns;
}

static void
heap_put(struct fair *f, uint32_t i, uint32_t k)
{
	f->heap[i] = k;
	f->held.keys[k].pos = i;
}

/* Move the key at i of the heap up or down to its place. */
static void
heap_fix(struct fair *f, uint32_t i)
{
	uint32_t k = f->heap[i], c;

	while (i > 0 && sooner(f, k, f->heap[(i - 1) / 2])) {
		heap_put(f, i, f->heap[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
	while ((c = 2 * i + 1) < f->nheap) {
		if (c + 1 < f->nheap && sooner(f, f->heap[c + 1], f->heap[c]))
			c++;
		if (!sooner(f, f->heap[c], k))
			break;
		heap_put(f, i, f->heap[c]);
		i = c;
	}
	heap_put(f, i, k);
}

static void
heap_remove(struct fair *f, uint32_t k)
{
	uint32_t i = f->held.keys[k].pos, last = f->heap[--f->nheap];

	if (last == k)
		return;
	heap_put(f, i, last);
	heap_fix(f, i);
}

/* ---- the keys it lets go: a tree of bytes over their first slots ---- */

/* Slot s's leaf: the bytes of a key's first record in the tree. */
static void
tree_set(struct fair *f, uint32_t s, size_t bytes)
{
	size_t i = (size_t)f->held.nslots + s;

	f->tree[i] = bytes;
	for (i /= 2; i > 0; i /= 2)
		f->tree[i] = least(f->tree[2 * i], f->tree[2 * i + 1]);
}

/* The tree from scratch, the slots having moved: O(slots). */
static void
tree_build(struct fair *f)
{
	const struct held *h = &f->held;
	size_t n = h->nslots;

	for (size_t i = n; i < 2 * n; i++)
		f->tree[i] = SIZE_MAX;
	for (uint32_t s = h->head; s < h->end; s++) {
		const struct held_rec *r = &h->recs[s];
		const struct held_key *k = &h->keys[r->key];

		if (r->bytes > 0 && k->first == s && k->place == PLACE_TREE)
			f->tree[n + s] = r->bytes;
	}
	for (size_t i = n; i-- > 1;)
		f->tree[i] = least(f->tree[2 * i], f->tree[2 * i + 1]);
	f->moves = h->moves;
}

/* When the limits every key shares let b go: after its own, if later. */
static void
share(const struct fair *f, struct booking *b, int64_t now_ns)
{
	int64_t t = gate_shared_due(f->gate, b, now_ns);

	if (t > b->due_ns)
		b->due_ns = t;
}

/* Do the shared limits let a record of bytes, from at_ns, go by now_ns? */
static bool
lets(const struct fair *f, size_t bytes, int64_t at_ns, int64_t now_ns)
{
	struct booking b = { .bytes = bytes, .units = 1, .at_ns = at_ns };

	return bytes != SIZE_MAX &&
	    gate_shared_due(f->gate, &b, now_ns) <= now_ns;
}

/*
 * The first slot from from on whose record the shared limits let go by
 * now_ns, read at at_ns; HELD_NONE when none is.  A node that holds none
 * holds no fewer bytes than would go, so O(log slots) nodes are asked.
 */
static uint32_t
tree_find(const struct fair *f, uint32_t from, int64_t at_ns, int64_t now_ns)
{
	size_t n = f->held.nslots, i = n + from;

	if (from >= n)
		return HELD_NONE;
	while (!lets(f, f->tree[i], at_ns, now_ns)) {
		while (i & 1) /* a right child: on from its parent */
			i /= 2;
		if (i == 0)
			return HELD_NONE;
		i++;
	}
	while (i < n) {
		i *= 2;
		if (!lets(f, f->tree[i], at_ns, now_ns))
			i++;
	}
	return (uint32_t)(i - n);
}

/* The fewest bytes of the slots from from on, or SIZE_MAX. */
static size_t
tree_least(const struct fair *f, uint32_t from)
{
	size_t n = f->held.nslots, lo = n + from, hi = 2 * n, m = SIZE_MAX;

	for (; lo < hi; lo /= 2, hi /= 2) {
		if (lo & 1)
			m = least(m, f->tree[lo++]);
		if (hi & 1)
			m = least(m, f->tree[--hi]);
	}
	return m;
}

/* ---- where each key waits ---- */

/*
 * Book the record in slot s at now_ns, on its own key's limit, into b:
 * from when it waits as the view has it (the head since the input began
 * to wait, the rest since they were read).  Its due time returned.
 */
static int64_t
book(struct fair *f, const struct view *v, uint32_t s, struct booking *b,
    int64_t now_ns)
{
	const struct held *h = &f->held;

	*b = (struct booking){ .rec = v->b + held_offset(h, s),
		.bytes = h->recs[s].bytes,
		.units = 1,
		.at_ns = s == h->head ? v->ready_ns : v->read_ns };
	if (gate_plan_units(f->gate, b, 1, now_ns) == 0)
		b->due_ns = INT64_MAX;
	return b->due_ns;
}

/* Take key k from where it waits. */
static void
unplace(struct fair *f, uint32_t k)
{
	struct held_key *hk = &f->held.keys[k];

	if (hk->place == PLACE_HEAP)
		heap_remove(f, k);
	else if (hk->place == PLACE_TREE)
		tree_set(f, hk->first, SIZE_MAX);
	hk->place = PLACE_TODO;
}

/* Key k, nowhere, waits for its own limit until due_ns, as of now_ns. */
static void
place(struct fair *f, uint32_t k, int64_t due_ns, int64_t now_ns)
{
	struct held_key *hk = &f->held.keys[k];

	hk->due_ns = due_ns;
	if (due_ns <= now_ns) {
		hk->place = PLACE_TREE;
		tree_set(f, hk->first, f->held.recs[hk->first].bytes);
		return;
	}
	hk->place = PLACE_HEAP;
	heap_put(f, f->nheap++, k);
	heap_fix(f, f->nheap - 1);
}

/* Key k, placed, waits for its own limit until due_ns now. */
static void
replace(struct fair *f, uint32_t k, int64_t due_ns, int64_t now_ns)
{
	struct held_key *hk = &f->held.keys[k];

	if (hk->place == PLACE_HEAP && due_ns > now_ns) {
		hk->due_ns = due_ns;
		heap_fix(f, hk->pos);
	} else if (hk->place == PLACE_TREE && due_ns <= now_ns) {
		hk->due_ns = due_ns;
	} else {
		unplace(f, k);
		place(f, k, due_ns, now_ns);
	}
}

/* Forget all that is held: the view no longer holds it. */
static void
forget(struct fair *f)
{
	held_clear(&f->held);
	f->partial = 0;
	f->nheap = 0;
	f->ntodo = 0;
}

/*
 * Hold the whole records of v after those held, while fewer than
 * held.max are: a new key's is to be booked.  The bytes after them are
 * scanned once for the end of the next record.  A view shorter than what
 * is held was emptied otherwise than by this policy: all is held anew.
 */
static void
hold(struct fair *f, const struct view *v)
{
	struct held *h = &f->held;

	if (v->len < h->bytes)
		forget(f);
	if (f->partial > v->len - h->bytes)
		f->partial = 0;
	while (h->count < h->max && v->len > h->bytes) {
		const char *p = v->b + h->bytes, *key;
		size_t rest = v->len - h->bytes, n, units, len;
		struct booking b;
		bool fresh;
		uint32_t k;

		n = framer_span(&f->gate->framer, p + f->partial,
		    rest - f->partial, 1, &units);
		if (units == 1)
			n += f->partial;
		else if (v->eof)
			n = rest; /* the last record, without its end */
		else {
			f->partial = rest;
			break;
		}
		f->partial = 0;
		b = (struct booking){ .rec = p, .bytes = n, .units = 1 };
		len = gate_key(f->gate, &b, &key);
		if (len == SIZE_MAX || key == NULL)
			len = 0; /* one key for all */
		k = held_add(h, n, key, len, &fresh);
		if (fresh)
			f->todo[f->ntodo++] = k;
	}
	if (h->moves != f->moves)
		tree_build(f);
}

/* Book the keys to book; after a reload, every key. */
static void
book_todo(struct fair *f, const struct view *v, int64_t now_ns)
{
	struct held *h = &f->held;
	struct booking b;

	if (f->retuned) {
		f->retuned = false;
		f->nheap = f->ntodo = 0;
		for (uint32_t s = h->head; s < h->end; s++) {
			struct held_key *k = &h->keys[h->recs[s].key];

			if (h->recs[s].bytes > 0 && k->first == s) {
				k->place = PLACE_TODO;
				f->todo[f->ntodo++] = h->recs[s].key;
			}
		}
		tree_build(f);
	}
	while (f->ntodo > 0) {
		uint32_t k = f->todo[--f->ntodo];

		place(f, k, book(f, v, h->keys[k].first, &b, now_ns), now_ns);
	}
}

/*
 * The keys atop the heap that were due by now_ns when booked: booked
 * again, and to the tree if their own limit lets them go.
 */
static void
promote(struct fair *f, const struct view *v, int64_t now_ns)
{
	struct booking b;

	while (f->nheap > 0 && f->held.keys[f->heap[0]].due_ns <= now_ns) {
		uint32_t k = f->heap[0];

		replace(f, k, book(f, v, f->held.keys[k].first, &b, now_ns),
		    now_ns);
	}
}

/*
 * Of the records after the head, the first in input order that every
 * limit lets go by now_ns, booked in b; HELD_NONE when none does.
 */
static uint32_t
first_due(
    struct fair *f, const struct view *v, struct booking *b, int64_t now_ns)
{
	const struct held *h = &f->held;
	uint32_t s;

	while (
	    (s = tree_find(f, h->head + 1, v->read_ns, now_ns)) != HELD_NONE) {
		if (book(f, v, s, b, now_ns) <= now_ns) {
			share(f, b, now_ns);
			/* As the tree found: never sooner. */
			return b->due_ns <= now_ns ? s : HELD_NONE;
		}
		/* Its limit is one that others drew on meanwhile. */
		replace(f, h->recs[s].key, b->due_ns, now_ns);
	}
	return HELD_NONE;
}

/*
 * When a record may be due next, no later than any is: the head at
 * head_ns; of the heap, its top when the shared limits let at least a
 * record of no bytes go; of the tree, when they let its fewest bytes go.
 */
static int64_t
next_due(
    const struct fair *f, const struct view *v, int64_t head_ns, int64_t now_ns)
{
	const struct held *h = &f->held;
	struct booking b = { .units = 1, .at_ns = v->ready_ns };
	int64_t due = head_ns, t;

	if (f->nheap > 0) {
		t = gate_shared_due(f->gate, &b, now_ns);
		if (t < h->keys[f->heap[0]].due_ns)
			t = h->keys[f->heap[0]].due_ns;
		if (t < due)
			due = t;
	}
	if ((b.bytes = tree_least(f, h->head + 1)) != SIZE_MAX) {
		b.at_ns = v->read_ns;
		if ((t = gate_shared_due(f->gate, &b, now_ns)) < due)
			due = t;
	}
	return due;
}

/*
 * Send the record in slot s, booked in b just before (the keys' limit
 * takes from the key its booking selected), due at b->due_ns.
 */
static void
release_slot(struct fair *f, const struct view *v, uint32_t s,
    const struct booking *b, int64_t now_ns, struct action *a)
{
	uint32_t k = f->held.recs[s].key;

	gate_take(f->gate, b, 1, b->bytes, now_ns);
	policy_move(
	    a, ACT_SEND, (size_t)(b->rec - v->b), b->bytes, 1, b->due_ns);
	unplace(f, k);
	/* Its next record is booked at the next turn, on the view then. */
	if (held_release(&f->held, s) != HELD_NONE)
		f->todo[f->ntodo++] = k;
}

/*
 * Nothing whole is held: read, or a record longer than the buffer, which
 * goes in its turn as it does when shaping.
 */
static void
outgrown(struct fair *f, const struct view *v, int64_t now_ns, struct action *a)
{
	struct booking b = { .rec = v->b,
		.bytes = v->len,
		.units = 1,
		.at_ns = v->ready_ns,
		.outgrown = true };

	if (!v->full) {
		policy_read(a);
	} else if (gate_plan(f->gate, &b, 1, now_ns) == 1 &&
	    now_ns < b.due_ns) {
		policy_wait(a, b.due_ns, false);
	} else {
		gate_take(f->gate, &b, 1, 0, now_ns);
		policy_move(a, ACT_LONG, 0, 0, 1, b.due_ns);
		f->partial = 0; /* what was scanned of it goes */
	}
}

static void
fair_next(void *self, const struct view *v, int64_t now_ns, struct action *a)
{
	struct fair *f = self;
	struct held *h = &f->held;
	struct booking b;
	int64_t head_ns;
	uint32_t s;

	hold(f, v);
	if (h->count == 0) {
		outgrown(f, v, now_ns, a);
		return;
	}
	book_todo(f, v, now_ns);
	/* The head is booked afresh: from when the input began to wait. */
	s = h->head;
	replace(f, h->recs[s].key, book(f, v, s, &b, now_ns), now_ns);
	share(f, &b, now_ns);
	head_ns = b.due_ns;
	if (head_ns <= now_ns) {
		release_slot(f, v, s, &b, now_ns, a);
		return;
	}
	promote(f, v, now_ns);
	if ((s = first_due(f, v, &b, now_ns)) != HELD_NONE) {
		release_slot(f, v, s, &b, now_ns, a);
		return;
	}
	/* A record read meanwhile may be of a key that is due sooner. */
	policy_wait(a, next_due(f, v, head_ns, now_ns),
	    !v->eof && !v->full && h->count < h->max);
}

/* The bytes of a long record that has its token are charged as they go. */
static void
fair_streamed(void *self, const struct moved *m, int64_t now_ns)
{
	const struct fair *f = self;

	if (m->pass)
		gate_streamed(f->gate, m->ready_ns, now_ns, m->bytes);
}

/* The limits changed: every key's booking is stale. */
static void
fair_retuned(void *self, int64_t now_ns)
{
	struct fair *f = self;

	(void)now_ns;
	f->retuned = true;
}

int
fair_policy(struct policy *p, struct fair *f, const struct gate *g,
    uint64_t max_held, const struct siphash_key *seed)
{
	size_t n = max_held == 0     ? FAIR_HELD :
	    max_held > FAIR_HELD_MAX ? FAIR_HELD_MAX :
				       (size_t)max_held;

	*f = (struct fair){ .gate = g };
	if (held_init(&f->held, n, seed) != 0)
		return -1;
	f->heap = malloc(n * sizeof *f->heap);
	f->todo = malloc(n * sizeof *f->todo);
	f->tree = malloc(2 * (size_t)f->held.nslots * sizeof *f->tree);
	if (f->heap == NULL || f->todo == NULL || f->tree == NULL) {
		fair_free(f);
		return -1;
	}
	tree_build(f);
	*p = (struct policy){ .self = f,
		.next = fair_next,
		.streamed = fair_streamed,
		.retuned = fair_retuned,
		.uses_ready = true,
		.read = READ_COPY };
	return 0;
}

void
fair_free(struct fair *f)
{
	held_free(&f->held);
	free(f->heap);
	free(f->todo);
	free(f->tree);
	f->heap = NULL;
	f->todo = NULL;
	f->tree = NULL;
}
