/* Keys in turn (--order key): whichever key's record is due goes first. */
#ifndef FAIR_H
#define FAIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "held.h"
#include "policy.h"
#include "siphash.h"

/* Records held by default, and at most (--queue N). */
#define FAIR_HELD 1000
#define FAIR_HELD_MAX 100000

/*
 * The records held (see held.h), and where each key waits: the keys whose
 * first record their own limit holds back, in a heap by its due time;
 * those it lets go, in a tree over the slots of their first records that
 * keeps, below each node, the fewest bytes such a record has, so that
 * the first in input order that the limits all keys share let go too
 * (the total, the byte limit, which ask more of more bytes) is found in
 * O(log slots); those to book again (after their first record went, a
 * reload) on a list.
 */
struct fair {
	const struct gate *gate;
	struct held held;
	size_t partial; /* bytes after those held, without an end */
	uint32_t *heap; /* keys, by due_ns: nheap of held.max */
	uint32_t nheap;
	size_t *tree;	/* 2 * held.nslots; SIZE_MAX: none below */
	uint32_t *todo; /* keys to book: ntodo of held.max */
	uint32_t ntodo;
	uint32_t moves; /* held.moves when the tree was built */
	bool retuned;	/* the limits changed: book every key again */
};

/*
 * Shape under gate g (a limit per key, in memory), each key's records in
 * their input order but the keys not: of the records held (at most
 * max_held, or FAIR_HELD when 0), the first of each key is booked, and
 * whichever is due first goes first, those due by now in input order,
 * so nothing is reordered while nothing waits; reading goes on while
 * fewer are held, so a key that waits holds up only its own records.
 * seed keys the hash that groups records by key (from the kernel's random
 * source, so that input cannot aim keys at one slot).  A release costs
 * O(log max_held), amortized, and a record held is booked again only
 * when its key's limit could have changed: when it became its key's
 * first, or at a reload.  Returns 0, or -1 when memory is short.
 */
int fair_policy(struct policy *p, struct fair *f, const struct gate *g,
    uint64_t max_held, const struct siphash_key *seed);

void fair_free(struct fair *f);

#endif
