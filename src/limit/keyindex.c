/* The index of the live keys (open addressing, by 32 bits of their hash)
 * and their heap by when their state holds nothing; pure, no I/O. */
#include <stdlib.h>
#include <string.h>

#include "keys.h"
#include "keytab.h"

/* The index finds an entry by the hash's low 32 bits: at most 2^32 slots. */
#define KEYS_MAX_CAP (UINT64_C(1) << 32)

_Static_assert(sizeof(struct siphash_tag) <= KEYS_INLINE,
    "a key's 128-bit hash fits where the bytes of a short key go");

/* The entry an index slot points at. */
size_t
keyindex_entry(uint64_t v)
{
	return (size_t)(v & ENTRY_BITS) - 1;
}

/* Is id a key kept as its hash? */
bool
keyindex_hashed(const struct keyid *id)
{
	return id->len > KEYS_INLINE;
}

bool
keyindex_same(const struct keyid *a, const struct keyid *b)
{
	if (keyindex_hashed(a) || keyindex_hashed(b))
		return keyindex_hashed(a) && keyindex_hashed(b) &&
		    memcmp(a->b, b->b, sizeof(struct siphash_tag)) == 0;
	return a->len == b->len && memcmp(a->b, b->b, a->len) == 0;
}

/*
 * Who key[0..len) is to t, into id; the hash the index finds it by
 * returned.
 */
uint64_t
keyindex_identify(
    const struct keytab *t, const char *key, size_t len, struct keyid *id)
{
	struct siphash_tag tag;

	if (len <= KEYS_INLINE) {
		id->len = (unsigned char)len;
		if (len > 0)
			memcpy(id->b, key, len);
		return siphash24(&t->seed, key, len);
	}
	tag = siphash24_128(&t->seed, key, len);
	id->len = KEYS_HASHED;
	memcpy(id->b, &tag, sizeof tag);
	return tag.w[0];
}

/*
 * The index slot of key id (hash its identify), or the empty slot where
 * it would go.  Slots whose 32 bits of hash differ are passed over
 * without a look at their keys.
 */
size_t
keyindex_find(const struct keytab *t, uint64_t hash, const struct keyid *id)
{
	uint64_t tag = hash & ENTRY_BITS;
	size_t mask = t->cap - 1, i = (size_t)tag & mask;
	uint64_t v;

	while ((v = t->index[i]) != 0 &&
	    (v >> 32 != tag ||
		!keyindex_same(&t->ents[keyindex_entry(v)].id, id)))
		i = (i + 1) & mask;
	return i;
}

/* The first empty slot from the home of the 32 bits of hash tag. */
size_t
keyindex_empty_slot(const uint64_t *index, size_t cap, uint64_t tag)
{
	size_t i = (size_t)tag & (cap - 1);

	while (index[i] != 0)
		i = (i + 1) & (cap - 1);
	return i;
}

/*
 * Empty slot hole, moving back the slots after it that could not be found
 * past an empty one (deletion for linear probing, without tombstones).
 */
static void
unlink_slot(struct keytab *t, size_t hole)
{
	size_t mask = t->cap - 1, i = hole, home;
	uint64_t v;

	while ((v = t->index[i = (i + 1) & mask]) != 0) {
		home = (size_t)(v >> 32) & mask;
		/* It moves if the hole lies between its home and it. */
		if (((i - home) & mask) >= ((i - hole) & mask)) {
			t->index[hole] = v;
			t->ents[keyindex_entry(v)].slot = (uint32_t)hole;
			hole = i;
		}
	}
	t->index[hole] = 0;
}

/* a + b, saturated to INT64_MAX, for b >= 0. */
static int64_t
add_sat(int64_t a, int64_t b)
{
	return a > 0 && b > INT64_MAX - a ? INT64_MAX : a + b;
}

/* When bucket state st of rule r is full again: bucket_full_at from then. */
static int64_t
bucket_refill_ns(const struct bucket *r, const union keystate *st)
{
	uint64_t n = r->n, d = r->d, k = st->b.k, wait;

	/* k < n, and n * d < 2^63: k * d + n - 1 cannot wrap. */
	if (k == 0)
		wait = 0;
	else if (n == 0 || k >= n)
		wait = d;
	else
		wait = (k * d + n - 1) / n;
	if (wait > (uint64_t)INT64_MAX)
		return INT64_MAX;
	return add_sat(st->b.base_ns, (int64_t)wait);
}

/*
 * When the state st of rule r holds nothing a new key's would not: its
 * bucket is full again, or every release it counts is out of reach of a
 * window charged as late as the catch-up allows, or earlier than now.
 */
static int64_t
state_refill_ns(
    const struct keytab *t, const struct keyrule *r, const union keystate *st)
{
	const struct sliding *w = &r->sliding;
	const struct fixed *f = &r->fixed;
	uint64_t last;

	if (r->none || r->inf)
		return INT64_MIN;
	switch (t->kind) {
	case KEYS_SLIDING:
		if (st->s.count == 0)
			return INT64_MIN;
		last = (st->s.oldest + st->s.count - 1) % w->limit;
		return add_sat(
		    add_sat(st->s.times[last], w->width_ns), w->catchup_ns);
	case KEYS_FIXED:
		if (st->f.index == INT64_MIN)
			return INT64_MIN;
		return add_sat(
		    fixed_window_start(f, st->f.index + 1), f->catchup_ns);
	default:
		return bucket_refill_ns(&r->bucket, st);
	}
}

/* When the state of entry e holds nothing a new key's would not. */
int64_t
keyindex_refill_ns(const struct keytab *t, const struct keyent *e)
{
	const struct keyrule *r = e->id.len == KEYS_STALE ? t->was_rules :
							    t->rules;

	return state_refill_ns(t, &r[e->rule], &e->st);
}

/* Release what state st of t holds apart: a window's times. */
void
keyindex_free_state(const struct keytab *t, union keystate *st)
{
	if (t->kind == KEYS_SLIDING) {
		free(st->s.times);
		st->s.times = NULL;
		st->s.count = st->s.oldest = 0;
	}
}

/* The state of a key with none yet, at now_ns. */
union keystate
keyindex_new_state(const struct keytab *t, int64_t now_ns)
{
	union keystate st;

	memset(&st, 0, sizeof st);
	if (t->kind == KEYS_FIXED)
		st.f.index = INT64_MIN;
	else if (t->kind == KEYS_BUCKET)
		st.b.base_ns = now_ns;
	return st;
}

/*
 * Times a ring of a window of limit units holds for count releases: a
 * power of two, to grow by doubling, up to the limit.
 */
uint64_t
keyindex_ring_cap(uint64_t count, uint64_t limit)
{
	uint64_t c = 1;

	if (count == 0)
		return 0;
	if (count >= limit)
		return limit;
	while (c < count)
		c <<= 1;
	return c < limit ? c : limit;
}

/* Make room in the ring of st for one more release; false without memory. */
bool
keyindex_ring_room(union keystate *st, uint64_t limit)
{
	uint64_t need = keyindex_ring_cap(st->s.count + 1ULL, limit);
	int64_t *p;

	if (st->s.count >= limit ||
	    (st->s.times != NULL &&
		need == keyindex_ring_cap(st->s.count, limit)))
		return true;
	if ((p = realloc(st->s.times, need * sizeof *p)) == NULL)
		return false;
	st->s.times = p;
	return true;
}

/* Put e at entry i of the heap, and point its index slot at it. */
static void
place(struct keytab *t, size_t i, const struct keyent *e)
{
	t->ents[i] = *e;
	t->index[e->slot] = (t->index[e->slot] & ~ENTRY_BITS) | (i + 1);
}

/*
 * Restore the heap around entry i, whose refill time changed: up while
 * its parent refills later, else down while a child refills sooner.
 * Returns where it is now.
 */
size_t
keyindex_reheap(struct keytab *t, size_t i)
{
	struct keyent e = t->ents[i];
	int64_t at = keyindex_refill_ns(t, &e), cat, rat;
	size_t up, c;

	for (; i > 0 && keyindex_refill_ns(t, &t->ents[up = (i - 1) / 2]) > at;
	     i = up)
		place(t, i, &t->ents[up]);
	for (; (c = 2 * i + 1) < t->live; i = c) {
		cat = keyindex_refill_ns(t, &t->ents[c]);
		if (c + 1 < t->live &&
		    (rat = keyindex_refill_ns(t, &t->ents[c + 1])) < cat) {
			c++;
			cat = rat;
		}
		if (cat >= at)
			break;
		place(t, i, &t->ents[c]);
	}
	place(t, i, &e);
	return i;
}

/* Forget the entries whose buckets are full again at now_ns. */
static void
forget_refilled(struct keytab *t, int64_t now_ns)
{
	while (t->live > 0 && keyindex_refill_ns(t, &t->ents[0]) <= now_ns) {
		unlink_slot(t, t->ents[0].slot);
		keyindex_free_state(t, &t->ents[0].st);
		if (--t->live > 0) {
			place(t, 0, &t->ents[t->live]);
			(void)keyindex_reheap(t, 0);
		}
	}
}

/* Double the index.  -1 when it may not grow or memory runs out. */
static int
grow_index(struct keytab *t)
{
	size_t cap = t->cap * 2;
	uint64_t *index;

	if ((uint64_t)cap > KEYS_MAX_CAP || cap > SIZE_MAX / sizeof *index ||
	    (index = calloc(cap, sizeof *index)) == NULL)
		return -1;
	for (size_t i = 0; i < t->cap; i++) {
		uint64_t v = t->index[i];
		size_t s;

		if (v == 0)
			continue;
		s = keyindex_empty_slot(index, cap, v >> 32);
		index[s] = v;
		t->ents[keyindex_entry(v)].slot = (uint32_t)s;
	}
	free(t->index);
	t->index = index;
	t->cap = cap;
	return 0;
}

/*
 * Make room for one more key at now_ns, forgetting the refilled buckets
 * first; false if max_keys are still live or memory runs out.
 */
bool
keyindex_make_room(struct keytab *t, int64_t now_ns)
{
	size_t room;
	struct keyent *ents;

	forget_refilled(t, now_ns);
	if (t->live >= t->max_keys || t->live + 1 >= ENTRY_BITS)
		return false;
	if (t->live == t->room) {
		room = t->live < t->max_keys / 2 ? 2 * t->live : t->max_keys;
		if (room == 0 || room > SIZE_MAX / sizeof *ents ||
		    (ents = realloc(t->ents, room * sizeof *ents)) == NULL)
			return false;
		t->ents = ents;
		t->room = room;
	}
	return t->live + 1 <= t->cap / 2 || grow_index(t) == 0;
}

/* Order the entries of t as a heap by refill time again, from scratch. */
void
keyindex_heapify(struct keytab *t)
{
	for (size_t i = t->live / 2; i-- > 0;)
		(void)keyindex_reheap(t, i);
}
