/* The records --order key holds: in input order, by key, and where each is. */
#include <stdlib.h>
#include <string.h>

#include "held.h"

/* Add delta (mod 2^64: it may take away) to slot s's sum. */
static void
sums_add(struct held *h, uint32_t s, size_t delta)
{
	for (size_t i = (size_t)s + 1; i <= h->nslots; i += i & (~i + 1))
		h->sums[i] += delta;
}

/* The Fenwick tree of the slots' bytes, from scratch: O(slots). */
static void
sums_build(struct held *h)
{
	h->sums[0] = 0;
	for (uint32_t s = 0; s < h->nslots; s++)
		h->sums[s + 1] = h->recs[s].bytes;
	for (size_t i = 1; i <= h->nslots; i++) {
		size_t up = i + (i & (~i + 1));

		if (up <= h->nslots)
			h->sums[up] += h->sums[i];
	}
}

size_t
held_offset(const struct held *h, uint32_t s)
{
	size_t sum = 0;

	for (size_t i = s; i > 0; i -= i & (~i + 1))
		sum += h->sums[i];
	return sum;
}

/* Who key[0..len) is, into k; the hash the index finds it by. */
static uint32_t
identify(const struct held *h, const char *key, size_t len, struct held_key *k)
{
	struct siphash_tag tag;

	memset(k->id, 0, sizeof k->id);
	if (len <= HELD_INLINE) {
		k->len = (unsigned char)len;
		if (len > 0)
			memcpy(k->id, key, len);
		return (uint32_t)siphash24(&h->seed, key, len);
	}
	tag = siphash24_128(&h->seed, key, len);
	k->len = HELD_HASHED;
	memcpy(k->id, &tag, sizeof tag);
	return (uint32_t)tag.w[0];
}

/* The index slot of the key like k, or the empty one where it would go. */
static uint32_t
find(const struct held *h, uint32_t hash, const struct held_key *k)
{
	uint32_t mask = h->nindex - 1, i = hash & mask, v;

	while ((v = h->index[i]) != 0) {
		const struct held_key *o = &h->keys[v - 1];

		if (o->hash == hash && o->len == k->len &&
		    memcmp(o->id, k->id, sizeof k->id) == 0)
			break;
		i = (i + 1) & mask;
	}
	return i;
}

/*
 * Take key k out of the index, moving back those after it that would
 * else be cut off from their home (linear probing without tombstones).
 */
static void
unindex(struct held *h, uint32_t k)
{
	uint32_t mask = h->nindex - 1, i = h->keys[k].hash & mask, j, home;

	while (h->index[i] != k + 1)
		i = (i + 1) & mask;
	for (j = i;;) {
		h->index[i] = 0;
		for (;;) {
			j = (j + 1) & mask;
			if (h->index[j] == 0)
				return;
			home = h->keys[h->index[j] - 1].hash & mask;
			/* Does home lie cyclically in (i, j]?  Then it stays. */
			if (i <= j ? (home <= i || home > j) :
				     (home <= i && home > j))
				break;
		}
		h->index[i] = h->index[j];
		i = j;
	}
}

void
held_clear(struct held *h)
{
	memset(h->recs, 0, (size_t)h->nslots * sizeof *h->recs);
	memset(h->index, 0, (size_t)h->nindex * sizeof *h->index);
	sums_build(h);
	for (uint32_t k = 0; k < h->max; k++)
		h->keys[k] = (struct held_key){ .first = HELD_NONE,
			.last = k + 1 < h->max ? k + 1 : HELD_NONE };
	h->free = 0;
	h->head = h->end = h->count = 0;
	h->bytes = 0;
	h->moves++;
}

int
held_init(struct held *h, size_t max, const struct siphash_key *seed)
{
	uint32_t n = 2;

	if (max == 0 || max >= (UINT32_C(1) << 30))
		return -1;
	while (n < 2 * max)
		n *= 2;
	*h = (struct held){
		.nslots = n, .max = (uint32_t)max, .nindex = n, .seed = *seed
	};
	h->recs = malloc((size_t)n * sizeof *h->recs);
	h->sums = malloc(((size_t)n + 1) * sizeof *h->sums);
	h->keys = malloc(max * sizeof *h->keys);
	h->index = malloc((size_t)n * sizeof *h->index);
	if (h->recs == NULL || h->sums == NULL || h->keys == NULL ||
	    h->index == NULL) {
		held_free(h);
		return -1;
	}
	held_clear(h);
	return 0;
}

void
held_free(struct held *h)
{
	free(h->recs);
	free(h->sums);
	free(h->keys);
	free(h->index);
	h->recs = NULL;
	h->sums = NULL;
	h->keys = NULL;
	h->index = NULL;
}

/*
 * The slots ran out: move the records held down to the first slots, in
 * their order, each key's links following.  A key's records come in
 * order, its first before the rest, so each link is mended when the
 * record it points to has moved, which is never up.
 */
static void
move_down(struct held *h)
{
	uint32_t to = 0;

	for (uint32_t s = h->head; s < h->end; s++) {
		struct held_rec r = h->recs[s];
		struct held_key *k;

		if (r.bytes == 0)
			continue;
		k = &h->keys[r.key];
		if (k->first == s)
			k->first = to;
		else
			h->recs[k->last].next = to;
		k->last = to;
		r.next = HELD_NONE;
		h->recs[to++] = r;
	}
	memset(h->recs + to, 0, (size_t)(h->nslots - to) * sizeof *h->recs);
	h->head = 0;
	h->end = to;
	sums_build(h);
	h->moves++;
}

/* The key of key[0..len): found, or new (*fresh). */
static uint32_t
key_of(struct held *h, const char *key, size_t len, bool *fresh)
{
	struct held_key probe;
	uint32_t hash = identify(h, key, len, &probe), i, k;

	i = find(h, hash, &probe);
	*fresh = h->index[i] == 0;
	if (!*fresh)
		return h->index[i] - 1;
	k = h->free;
	h->free = h->keys[k].last;
	probe.hash = hash;
	probe.first = probe.last = HELD_NONE;
	probe.place = 0;
	probe.pos = 0;
	probe.due_ns = 0;
	h->keys[k] = probe;
	h->index[i] = k + 1;
	return k;
}

uint32_t
held_add(struct held *h, size_t bytes, const char *key, size_t len, bool *fresh)
{
	uint32_t s, k;
	struct held_key *hk;

	if (h->end == h->nslots)
		move_down(h);
	s = h->end++;
	k = key_of(h, key, len, fresh);
	hk = &h->keys[k];
	if (hk->first == HELD_NONE)
		hk->first = s;
	else
		h->recs[hk->last].next = s;
	hk->last = s;
	h->recs[s] =
	    (struct held_rec){ .bytes = bytes, .key = k, .next = HELD_NONE };
	sums_add(h, s, bytes);
	if (h->count++ == 0)
		h->head = s;
	h->bytes += bytes;
	return k;
}

uint32_t
held_release(struct held *h, uint32_t s)
{
	struct held_rec *r = &h->recs[s];
	uint32_t k = r->key, next = r->next;

	sums_add(h, s, ~r->bytes + 1);
	h->bytes -= r->bytes;
	h->count--;
	r->bytes = 0;
	while (h->head < h->end && h->recs[h->head].bytes == 0)
		h->head++;
	h->keys[k].first = next;
	if (next == HELD_NONE) {
		unindex(h, k);
		h->keys[k].last = h->free;
		h->free = k;
	}
	return next;
}
