/*
 * The records --order key holds (held.c) beside a plain list of them:
 * keys found again, each key's records in order, where each record is,
 * through slots that run out and move.
 */
#include <stdio.h>
#include <string.h>

#include "held.h"
#include "unit.h"

#define HT_MAX 40
#define HT_KEYS 12

/* The keys: short, empty, and long ones alike in their first bytes. */
static const char *const ht_keys[HT_KEYS] = { "a", "b", "", "0123456789abcdef",
	"0123456789abcdefX", "0123456789abcdefY",
	"a-key-of-more-than-sixteen-bytes-1",
	"a-key-of-more-than-sixteen-bytes-2", "c", "dd", "eee",
	"0123456789abcde" };

/* The list: each record held, in input order. */
struct ht_list {
	int key[HT_MAX];
	size_t bytes[HT_MAX];
	uint32_t id[HT_MAX]; /* the key held.c gave it */
	int n;
};

/* Does h hold what the list does, key by key, each record where it is? */
static bool
ht_same(const struct held *h, const struct ht_list *l)
{
	size_t off = 0, total = 0;

	if (h->count != (uint32_t)l->n)
		return false;
	for (int i = 0; i < l->n; i++)
		total += l->bytes[i];
	if (h->bytes != total || (l->n > 0 && h->recs[h->head].bytes == 0))
		return false;
	for (int i = 0; i < l->n; i++) {
		uint32_t s = h->keys[l->id[i]].first;
		bool first = true;

		/* Its key's records before it are at the front of its list. */
		for (int j = 0; j < i; j++)
			if (l->key[j] == l->key[i]) {
				s = h->recs[s].next;
				first = false;
			}
		if (s == HELD_NONE || h->recs[s].bytes != l->bytes[i] ||
		    h->recs[s].key != l->id[i] || held_offset(h, s) != off ||
		    (first && s != h->keys[l->id[i]].first))
			return false;
		off += l->bytes[i];
	}
	return true;
}

/* Hold a record of key k in both; false when held.c errs. */
static bool
ht_add(struct held *h, struct ht_list *l, int k, size_t bytes)
{
	bool fresh, known = false;
	uint32_t id = held_add(
	    h, bytes, ht_keys[k], strlen(ht_keys[k]), &fresh);

	for (int j = 0; j < l->n; j++)
		if (l->key[j] == k) {
			known = true;
			if (l->id[j] != id)
				return false;
		}
	l->key[l->n] = k;
	l->bytes[l->n] = bytes;
	l->id[l->n++] = id;
	return fresh == !known;
}

/* Let the first record of the i-th record's key go from both. */
static bool
ht_release(struct held *h, struct ht_list *l, int i)
{
	int k = l->key[i], j = 0;
	uint32_t id = l->id[i], next;

	while (l->key[j] != k)
		j++;
	next = held_release(h, h->keys[id].first);
	memmove(&l->key[j], &l->key[j + 1],
	    (size_t)(l->n - j - 1) * sizeof l->key[0]);
	memmove(&l->bytes[j], &l->bytes[j + 1],
	    (size_t)(l->n - j - 1) * sizeof l->bytes[0]);
	memmove(
	    &l->id[j], &l->id[j + 1], (size_t)(l->n - j - 1) * sizeof l->id[0]);
	l->n--;
	for (j = 0; j < l->n; j++)
		if (l->key[j] == k)
			return next == h->keys[id].first && next != HELD_NONE;
	return next == HELD_NONE;
}

void
test_held(void)
{
	static const struct siphash_key seed = { { 11, 13 } };
	int bad = 0, moved = 0;

	current = "held: the records --order key holds, beside a list";
	for (int c = 0; c < 300; c++) {
		struct held h;
		struct ht_list l = { .n = 0 };
		size_t max = 1 + (size_t)rng_below(HT_MAX);
		int keys = 1 + (int)rng_below(HT_KEYS);

		if (held_init(&h, max, &seed) != 0) {
			check(0, "no memory for %zu", max);
			return;
		}
		for (int op = 0; op < 400 && bad == 0; op++) {
			bool ok;

			if ((size_t)l.n < max && (l.n == 0 || rng_below(2)))
				ok = ht_add(&h, &l, (int)rng_below(keys),
				    1 + (size_t)rng_below(30));
			else
				ok = ht_release(&h, &l, (int)rng_below(l.n));
			if (!ok || !ht_same(&h, &l))
				bad++;
			if (op == 200) {
				held_clear(&h);
				l.n = 0;
			}
		}
		moved += h.moves > 2;
		held_free(&h);
	}
	check(bad == 0, "%d runs went otherwise than the list", bad);
	check(moved > 100, "the slots moved in only %d runs", moved);
}
