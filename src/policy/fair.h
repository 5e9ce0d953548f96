/* Keys in turn (--order key): whichever key's record is due goes first. */
#ifndef FAIR_H
#define FAIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "policy.h"
#include "siphash.h"

/* Records held by default, and at most (--queue N). */
#define FAIR_HELD 1000
#define FAIR_HELD_MAX 100000

/* A key with a record held: its first record, and the booking of it. */
struct fair_key {
	uint64_t hash; /* of its bytes; 0: the slot is free */
	const char *key;
	size_t key_len;
	size_t off; /* its first record held, from the head */
	struct booking b;
};

struct fair {
	const struct gate *gate;
	size_t max_held;	  /* records held, at most */
	struct siphash_key seed;  /* of the hash that groups records by key */
	struct fair_key *slots;	  /* nslots, open addressed */
	size_t nslots;		  /* a power of two, >= 2 * max_held */
	struct fair_key **firsts; /* the keys found, in input order */
	size_t nkeys;
};

/*
 * Shape under gate g (a limit per key, in memory), each key's records in
 * their input order but the keys not: of the records held (at most
 * max_held, or FAIR_HELD when 0), the first of each key is booked, and
 * whichever is due first goes first; reading goes on while fewer are
 * held, so a key that waits holds up only its own records.  seed keys the
 * hash that groups records by key (from the kernel's random source, so
 * that input cannot aim keys at one slot).  Returns 0, or -1 when memory
 * is short.
 */
int fair_policy(struct policy *p, struct fair *f, const struct gate *g,
    uint64_t max_held, const struct siphash_key *seed);

void fair_free(struct fair *f);

#endif
