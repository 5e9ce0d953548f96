/* Keys in turn (--order key): whichever key's record is due goes first. */
#include <stdlib.h>
#include <string.h>

#include "fair.h"

/* The slot of key[0..len) of hash h: its own, or the free one for it. */
static struct fair_key *
slot_of(struct fair *f, uint64_t h, const char *key, size_t len)
{
	size_t mask = f->nslots - 1, i = (size_t)h & mask;

	while (f->slots[i].hash != 0 &&
	    !(f->slots[i].hash == h && f->slots[i].key_len == len &&
		(len == 0 ||
		    (key != NULL && memcmp(f->slots[i].key, key, len) == 0))))
		i = (i + 1) & mask;
	return &f->slots[i];
}

/* Forget the keys found by the last look. */
static void
forget(struct fair *f)
{
	for (size_t i = 0; i < f->nkeys; i++)
		f->firsts[i]->hash = 0;
	f->nkeys = 0;
}

/*
 * The first record of each key among the whole records at the head of v,
 * at most f->max_held of them, into f->firsts in input order.
 */
static void
look(struct fair *f, const struct view *v)
{
	const struct framer *fr = &f->gate->framer;
	size_t off = 0, held = 0, units, bytes, len;
	const char *key;

	forget(f);
	while (held < f->max_held && off < v->len &&
	    (bytes = policy_span(fr, v->b + off, v->len - off, v->eof, 1,
		 UINT64_MAX, &units)) > 0 &&
	    units == 1) {
		struct booking b = { .rec = v->b + off,
			.bytes = bytes,
			.units = 1,
			.at_ns = held == 0 ? v->ready_ns : v->read_ns };
		uint64_t h;
		struct fair_key *k;

		len = gate_key(f->gate, &b, &key);
		if (len == SIZE_MAX || key == NULL)
			len = 0; /* one key for all */
		h = siphash24(&f->seed, key, len) | 1;
		k = slot_of(f, h, key, len);
		if (k->hash == 0) {
			*k = (struct fair_key){ h, key, len, off, b };
			f->firsts[f->nkeys++] = k;
		}
		off += bytes;
		held++;
	}
}

/*
 * Of the keys found, the one whose first record goes next, its booking
 * planned at now_ns: the first in input order of those due by now, so
 * that nothing is reordered while nothing waits; else the one due first.
 * NULL when none was found.
 */
static struct fair_key *
first_due(struct fair *f, int64_t now_ns)
{
	struct fair_key *best = NULL;

	for (size_t i = 0; i < f->nkeys; i++) {
		struct fair_key *k = f->firsts[i];

		/* In memory a plan only looks: each may be asked afresh. */
		(void)gate_plan(f->gate, &k->b, 1, now_ns);
		if (k->b.due_ns <= now_ns)
			return k;
		if (best == NULL || k->b.due_ns < best->b.due_ns)
			best = k;
	}
	return best;
}

static void
fair_next(void *self, const struct view *v, int64_t now_ns, struct action *a)
{
	struct fair *f = self;
	struct fair_key *k;
	bool more;

	look(f, v);
	if ((k = first_due(f, now_ns)) == NULL) {
		/* Nothing whole: read, or a record longer than the buffer,
		 * which goes in its turn as it does when shaping. */
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
		}
		return;
	}
	if (now_ns >= k->b.due_ns) {
		gate_take(f->gate, &k->b, 1, k->b.bytes, now_ns);
		policy_move(a, ACT_SEND, k->off, k->b.bytes, 1, k->b.due_ns);
		return;
	}
	/* A record read meanwhile may be of a key that is due sooner. */
	more = !v->eof && !v->full &&
	    framer_count(&f->gate->framer, v->b, v->len, false) < f->max_held;
	policy_wait(a, k->b.due_ns, more);
}

/* The bytes of a long record that has its token are charged as they go. */
static void
fair_streamed(void *self, const struct moved *m, int64_t now_ns)
{
	const struct fair *f = self;

	if (m->pass)
		gate_streamed(f->gate, m->ready_ns, now_ns, m->bytes);
}

int
fair_policy(struct policy *p, struct fair *f, const struct gate *g,
    uint64_t max_held, const struct siphash_key *seed)
{
	size_t n = max_held == 0     ? FAIR_HELD :
	    max_held > FAIR_HELD_MAX ? FAIR_HELD_MAX :
				       (size_t)max_held;
	size_t slots = 1;

	while (slots < 2 * n)
		slots *= 2;
	*f = (struct fair){
		.gate = g, .max_held = n, .seed = *seed, .nslots = slots
	};
	f->slots = calloc(slots, sizeof *f->slots);
	f->firsts = calloc(n, sizeof *f->firsts);
	if (f->slots == NULL || f->firsts == NULL) {
		fair_free(f);
		return -1;
	}
	*p = (struct policy){ f, fair_next, fair_streamed, NULL, NULL, true,
		READ_COPY, NULL };
	return 0;
}

void
fair_free(struct fair *f)
{
	free(f->slots);
	free(f->firsts);
	f->slots = NULL;
	f->firsts = NULL;
}
