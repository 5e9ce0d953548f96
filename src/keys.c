/* Per-key token buckets: a small state per live key; pure, no I/O. */
#include <stdlib.h>
#include <string.h>

#include "keys.h"

/* Slots to start with; the table doubles while under half full. */
#define KEYS_MIN_CAP	1024
/* Inserts or refused keys between sweeps at the least: a sweep of the
 * smallest table then costs 64 slot visits per insert. */
#define KEYS_MIN_SWEEP	16

uint64_t
keys_hash(const char *b, size_t len, uint64_t seed)
{
	uint64_t h = (0x9e3779b97f4a7c15ULL ^ len) + seed * 0xff51afd7ed558ccdULL;
	uint64_t w;
	size_t i = 0;

	for (; i + 8 <= len; i += 8) {
		memcpy(&w, b + i, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdULL;
		h ^= h >> 32;
	}
	w = 0;
	memcpy(&w, b + i, len - i);
	h = (h ^ w ^ seed) * 0xc4ceb9fe1a85ec53ULL;
	/* The murmur3 finalizer: every input bit reaches every output bit. */
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 33;
	return h != 0 ? h : 1;
}

size_t
keys_field(const char *rec, size_t len, unsigned field, int sep,
    const char **key)
{
	size_t i = 0, start;

	for (unsigned f = 1;; f++) {
		if (sep < 0)
			while (i < len && (rec[i] == ' ' || rec[i] == '\t'))
				i++;
		if (sep < 0 && i == len)
			break;
		start = i;
		while (i < len && (sep < 0 ? rec[i] != ' ' && rec[i] != '\t' :
		    (unsigned char)rec[i] != (unsigned)sep))
			i++;
		if (f == field) {
			*key = rec + start;
			return i - start;
		}
		if (i == len)
			break;
		if (sep >= 0)
			i++;	/* past this separator: the next may be empty */
	}
	*key = rec + len;
	return 0;
}

size_t
keys_of_record(const struct keyspec *spec, const char *rec, size_t len,
    const char **key)
{
	if (len > 0 && (unsigned char)rec[len - 1] == (unsigned)spec->delim)
		len--;
	return keys_field(rec, len, spec->field, spec->sep, key);
}

/* Slot of hash in slots[0..cap), or of the empty slot where it goes. */
static size_t
probe(const struct keyslot *slots, size_t cap, uint64_t hash)
{
	size_t i = (size_t)hash & (cap - 1);

	while (slots[i].hash != 0 && slots[i].hash != hash)
		i = (i + 1) & (cap - 1);
	return i;
}

/* The bucket of slot s, with the prototype's rate and burst. */
static void
load(const struct keytab *t, const struct keyslot *s, struct bucket *b)
{
	*b = t->proto;
	b->base_ns = s->base_ns;
	b->k = s->k;
}

/*
 * Move the live, not yet refilled buckets into a table of cap slots,
 * forgetting those full at now_ns.  -1 when memory runs out.
 */
static int
rebuild(struct keytab *t, size_t cap, int64_t now_ns)
{
	struct keyslot *slots = calloc(cap, sizeof *slots);
	struct bucket b;

	if (slots == NULL)
		return -1;
	t->live = 0;
	for (size_t i = 0; i < t->cap; i++) {
		if (t->slots[i].hash == 0)
			continue;
		load(t, &t->slots[i], &b);
		if (bucket_full_at(&b, now_ns))
			continue;
		slots[probe(slots, cap, t->slots[i].hash)] = t->slots[i];
		t->live++;
	}
	free(t->slots);
	t->slots = slots;
	t->cap = cap;
	t->until_sweep = t->live > KEYS_MIN_SWEEP ? t->live : KEYS_MIN_SWEEP;
	return 0;
}

int
keys_init(struct keytab *t, const struct bucket *proto, size_t max_keys,
    uint64_t seed, int64_t now_ns)
{
	memset(t, 0, sizeof *t);
	t->seed = seed;
	t->proto = *proto;
	t->max_keys = max_keys > 0 ? max_keys : 1;
	t->cap = KEYS_MIN_CAP;
	t->until_sweep = KEYS_MIN_SWEEP;
	if ((t->slots = calloc(t->cap, sizeof *t->slots)) == NULL)
		return -1;
	t->overflow = *proto;
	t->overflow.base_ns = now_ns;
	t->overflow.k = 0;
	t->sel_slot = SIZE_MAX;
	return 0;
}

void
keys_free(struct keytab *t)
{
	free(t->slots);
	t->slots = NULL;
}

/*
 * Make room for one more key at now_ns; false if max_keys are live (or
 * memory ran out).  A sweep costs the table's size, so it may run only
 * after as many inserts (or refused keys) as it last found live: inserts
 * stay O(1) on average, even when the table stays full.
 */
static bool
make_room(struct keytab *t, int64_t now_ns)
{
	if (t->live < t->max_keys && t->live + 1 <= t->cap / 2)
		return true;
	/* A small table is cheap to sweep every time. */
	if ((t->until_sweep == 0 || t->cap <= KEYS_MIN_CAP * 4) &&
	    rebuild(t, t->cap, now_ns) == 0 &&
	    t->live < t->max_keys && t->live + 1 <= t->cap / 2)
		return true;
	if (t->live >= t->max_keys || t->cap > SIZE_MAX / 4 /
	    sizeof *t->slots)
		return false;
	return rebuild(t, t->cap * 2, now_ns) == 0;
}

void
keys_select(struct keytab *t, const char *key, size_t len, int64_t now_ns)
{
	size_t i;

	t->sel_hash = keys_hash(key, len, t->seed);
	t->sel_overflow = false;
	i = probe(t->slots, t->cap, t->sel_hash);
	if (t->slots[i].hash != 0) {
		t->sel_slot = i;
		load(t, &t->slots[i], &t->cur);
		return;
	}
	/* A key with no state has a full bucket. */
	t->sel_slot = SIZE_MAX;
	t->cur = t->proto;
	t->cur.base_ns = now_ns;
	t->cur.k = 0;
	if (t->live >= t->max_keys && !make_room(t, now_ns)) {
		if (t->until_sweep > 0)
			t->until_sweep--;
		t->sel_overflow = true;
		t->cur = t->overflow;
	}
}

void
keys_select_record(struct keytab *t, const char *rec, size_t len,
    int64_t now_ns)
{
	const char *key;
	size_t n = keys_of_record(&t->spec, rec, len, &key);

	keys_select(t, key, n, now_ns);
}

void
keys_store(struct keytab *t, uint64_t taken, int64_t now_ns)
{
	size_t i;

	if (t->sel_overflow) {
		t->overflow = t->cur;
		t->overflowed += taken;
		return;
	}
	if (t->sel_slot == SIZE_MAX) {
		/*
		 * Nothing taken from a new bucket: nothing to keep.  A bucket
		 * that gave units is kept even if it still reads full: what
		 * it gave out of its catch-up credit must not be given twice.
		 */
		if (taken == 0)
			return;
		if (t->until_sweep > 0)
			t->until_sweep--;
		if (!make_room(t, now_ns))
			return;		/* memory ran out: it stays full */
		i = probe(t->slots, t->cap, t->sel_hash);
		t->slots[i].hash = t->sel_hash;
		t->live++;
		t->sel_slot = i;
	}
	t->slots[t->sel_slot].base_ns = t->cur.base_ns;
	t->slots[t->sel_slot].k = t->cur.k;
}
