/* Per-key token buckets: a small state per live key; pure, no I/O. */
#include <stdlib.h>
#include <string.h>

#include "keys.h"

/* Slots of the index to start with; it doubles to stay at most half full. */
#define KEYS_MIN_CAP 1024
/* The index finds an entry by the hash's low 32 bits: at most 2^32 slots. */
#define KEYS_MAX_CAP (UINT64_C(1) << 32)
/* The len of an entry whose bytes are apart: a pointer and a length. */
#define KEYS_APART (KEYS_INLINE + 1)
#define ENTRY_BITS 0xffffffffULL

_Static_assert(sizeof(char *) + sizeof(size_t) <= KEYS_INLINE,
    "a pointer and a length fit where the bytes of a short key go");

size_t
keys_field(
    const char *rec, size_t len, unsigned field, int sep, const char **key)
{
	size_t i = 0, start;

	for (unsigned f = 1;; f++) {
		if (sep < 0)
			while (i < len && (rec[i] == ' ' || rec[i] == '\t'))
				i++;
		if (sep < 0 && i == len)
			break;
		start = i;
		while (i < len &&
		    (sep < 0 ? rec[i] != ' ' && rec[i] != '\t' :
			       (unsigned char)rec[i] != (unsigned)sep))
			i++;
		if (f == field) {
			*key = rec + start;
			return i - start;
		}
		if (i == len)
			break;
		if (sep >= 0)
			i++; /* past this separator: the next may be empty */
	}
	*key = rec + len;
	return 0;
}

size_t
keys_of_record(
    const struct keyspec *spec, const char *rec, size_t len, const char **key)
{
	if (len > 0 && (unsigned char)rec[len - 1] == (unsigned)spec->delim)
		len--;
	return keys_field(rec, len, spec->field, spec->sep, key);
}

/* The entry an index slot points at. */
static size_t
entry_of(uint64_t v)
{
	return (size_t)(v & ENTRY_BITS) - 1;
}

/* The bytes of a longer key, kept apart from its entry e. */
static char *
apart(const struct keyent *e)
{
	char *p;

	memcpy(&p, e->b, sizeof p);
	return p;
}

/* The bytes of entry e, and their length in *len. */
static const char *
bytes_of(const struct keyent *e, size_t *len)
{
	if (e->len <= KEYS_INLINE) {
		*len = e->len;
		return e->b;
	}
	memcpy(len, e->b + sizeof(char *), sizeof *len);
	return apart(e);
}

static bool
same_key(const struct keyent *e, const char *key, size_t len)
{
	size_t n;
	const char *b = bytes_of(e, &n);

	return n == len && memcmp(b, key, len) == 0;
}

/*
 * The index slot of key (hash its SipHash), or the empty slot where it
 * would go.  Slots whose 32 bits of hash differ are passed over without a
 * look at their bytes.
 */
static size_t
find(const struct keytab *t, uint64_t hash, const char *key, size_t len)
{
	uint64_t tag = hash & ENTRY_BITS;
	size_t mask = t->cap - 1, i = (size_t)tag & mask;
	uint64_t v;

	while ((v = t->index[i]) != 0 &&
	    (v >> 32 != tag || !same_key(&t->ents[entry_of(v)], key, len)))
		i = (i + 1) & mask;
	return i;
}

/* The first empty slot from the home of the 32 bits of hash tag. */
static size_t
empty_slot(const uint64_t *index, size_t cap, uint64_t tag)
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
			t->ents[entry_of(v)].slot = (uint32_t)hole;
			hole = i;
		}
	}
	t->index[hole] = 0;
}

/* When the bucket of e is full again: bucket_full_at is true from then. */
static int64_t
refill_ns(const struct keytab *t, const struct keyent *e)
{
	uint64_t n = t->proto.n, d = t->proto.d, wait;

	/* k < n, and n * d < 2^63: k * d + n - 1 cannot wrap. */
	if (e->k == 0)
		wait = 0;
	else if (n == 0 || e->k >= n)
		wait = d;
	else
		wait = (e->k * d + n - 1) / n;
	if (e->base_ns > 0 && wait > (uint64_t)(INT64_MAX - e->base_ns))
		return INT64_MAX;
	return e->base_ns + (int64_t)wait;
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
static size_t
reheap(struct keytab *t, size_t i)
{
	struct keyent e = t->ents[i];
	int64_t at = refill_ns(t, &e), cat, rat;
	size_t up, c;

	for (; i > 0 && refill_ns(t, &t->ents[up = (i - 1) / 2]) > at; i = up)
		place(t, i, &t->ents[up]);
	for (; (c = 2 * i + 1) < t->live; i = c) {
		cat = refill_ns(t, &t->ents[c]);
		if (c + 1 < t->live &&
		    (rat = refill_ns(t, &t->ents[c + 1])) < cat) {
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
	while (t->live > 0 && refill_ns(t, &t->ents[0]) <= now_ns) {
		unlink_slot(t, t->ents[0].slot);
		if (t->ents[0].len == KEYS_APART)
			free(apart(&t->ents[0]));
		if (--t->live > 0) {
			place(t, 0, &t->ents[t->live]);
			(void)reheap(t, 0);
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
		s = empty_slot(index, cap, v >> 32);
		index[s] = v;
		t->ents[entry_of(v)].slot = (uint32_t)s;
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
static bool
make_room(struct keytab *t, int64_t now_ns)
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

/* Copy key[0..len) into t->pend; false when memory runs out. */
static bool
hold_key(struct keytab *t, const char *key, size_t len)
{
	free(t->pend_apart);
	t->pend_apart = NULL;
	if (len <= KEYS_INLINE) {
		t->pend.len = (unsigned char)len;
		memcpy(t->pend.b, key, len);
		return true;
	}
	if ((t->pend_apart = malloc(len)) == NULL)
		return false;
	memcpy(t->pend_apart, key, len);
	t->pend.len = KEYS_APART;
	memcpy(t->pend.b, &t->pend_apart, sizeof t->pend_apart);
	memcpy(t->pend.b + sizeof t->pend_apart, &len, sizeof len);
	return true;
}

int
keys_init(struct keytab *t, const struct bucket *proto, size_t max_keys,
    const struct siphash_key *seed, int64_t now_ns)
{
	memset(t, 0, sizeof *t);
	t->seed = *seed;
	t->proto = *proto;
	t->max_keys = max_keys > 0 ? max_keys : 1;
	t->cap = KEYS_MIN_CAP;
	t->room = t->max_keys < KEYS_MIN_CAP / 2 ? t->max_keys :
						   KEYS_MIN_CAP / 2;
	t->index = calloc(t->cap, sizeof *t->index);
	t->ents = malloc(t->room * sizeof *t->ents);
	t->overflow = *proto;
	t->overflow.base_ns = now_ns;
	t->overflow.k = 0;
	/* Before any key is selected, takes go to the overflow bucket. */
	t->cur = t->overflow;
	t->sel = SIZE_MAX;
	t->sel_overflow = true;
	if (t->index == NULL || t->ents == NULL) {
		free(t->index);
		free(t->ents);
		t->index = NULL;
		t->ents = NULL;
		return -1;
	}
	return 0;
}

void
keys_free(struct keytab *t)
{
	for (size_t i = 0; i < t->live; i++)
		if (t->ents[i].len == KEYS_APART)
			free(apart(&t->ents[i]));
	free(t->index);
	free(t->ents);
	free(t->pend_apart);
	t->index = NULL;
	t->ents = NULL;
	t->pend_apart = NULL;
	t->live = 0;
}

void
keys_select(struct keytab *t, const char *key, size_t len, int64_t now_ns)
{
	uint64_t v;

	t->sel_hash = siphash24(&t->seed, key, len);
	t->sel_overflow = false;
	v = t->index[find(t, t->sel_hash, key, len)];
	if (v != 0) {
		const struct keyent *e = &t->ents[t->sel = entry_of(v)];

		t->cur = t->proto;
		t->cur.base_ns = e->base_ns;
		t->cur.k = e->k;
		return;
	}
	/* A key with no state has a full bucket. */
	t->sel = SIZE_MAX;
	t->cur = t->proto;
	t->cur.base_ns = now_ns;
	t->cur.k = 0;
	if (!make_room(t, now_ns) || !hold_key(t, key, len)) {
		t->sel_overflow = true;
		t->cur = t->overflow;
	}
}

void
keys_select_record(
    struct keytab *t, const char *rec, size_t len, int64_t now_ns)
{
	const char *key;
	size_t n = keys_of_record(&t->spec, rec, len, &key);

	keys_select(t, key, n, now_ns);
}

void
keys_store(struct keytab *t, uint64_t taken, int64_t now_ns)
{
	struct keyent *e;
	int64_t was;
	uint64_t tag;

	(void)now_ns;
	if (t->sel_overflow) {
		t->overflow = t->cur;
		t->overflowed += taken;
		return;
	}
	if (t->sel != SIZE_MAX) {
		e = &t->ents[t->sel];
		was = refill_ns(t, e);
		e->base_ns = t->cur.base_ns;
		e->k = t->cur.k;
		if (refill_ns(t, e) != was)
			t->sel = reheap(t, t->sel);
		return;
	}
	/*
	 * Nothing taken from a new bucket: nothing to keep.  A bucket that
	 * gave units is kept even if it still reads full: what it gave out
	 * of its catch-up credit must not be given twice.  keys_select made
	 * room for it.
	 */
	if (taken == 0)
		return;
	tag = t->sel_hash & ENTRY_BITS;
	e = &t->ents[t->sel = t->live++];
	*e = t->pend;
	t->pend_apart = NULL; /* the entry owns it now */
	e->base_ns = t->cur.base_ns;
	e->k = t->cur.k;
	e->slot = (uint32_t)empty_slot(t->index, t->cap, tag);
	t->index[e->slot] = tag << 32 | (t->sel + 1);
	t->sel = reheap(t, t->sel);
}
