/* The records --order key holds: in input order, by key, and where each is. */
#ifndef HELD_H
#define HELD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "siphash.h"

#define HELD_NONE UINT32_MAX

/* Key bytes kept as they are; a longer key is kept as its SipHash-128. */
#define HELD_INLINE 16
#define HELD_HASHED (HELD_INLINE + 1)

/* A record held, in its slot: its length, its key, its key's next. */
struct held_rec {
	size_t bytes; /* 0: none is held in the slot */
	uint32_t key;
	uint32_t next; /* the slot of its key's next record, or HELD_NONE */
};

/*
 * A key with records held: who it is, its first and last record; and
 * what the policy keeps of it (place, pos, due_ns: 0 when it comes).
 */
struct held_key {
	unsigned char id[HELD_INLINE]; /* its bytes, or their SipHash-128 */
	unsigned char len;	       /* bytes in id, or HELD_HASHED */
	unsigned char place;
	uint32_t hash;	      /* of its bytes: where the index has it */
	uint32_t first, last; /* slots; a free key's first is HELD_NONE */
	uint32_t pos;
	int64_t due_ns;
};

/*
 * Records held in slots in input order, the first at head; a record that
 * goes frees its slot, and when the slots run out those held move down
 * (moves counts it).  The bytes of the slots before one are where its
 * record is, from the first byte held: a Fenwick tree keeps their sums.
 * Keys are found by an open-addressed index over SipHash-2-4 under a
 * secret seed, so input cannot aim them at one slot.  Every operation
 * is O(log slots), but for the moves, O(slots) after slots / 2 records.
 */
struct held {
	struct held_rec *recs; /* nslots */
	size_t *sums;	       /* the Fenwick tree: nslots + 1 */
	uint32_t nslots;       /* a power of two, at least 2 * max */
	uint32_t head, end;    /* the first record held; past the last */
	uint32_t count, max;   /* records held, and at most */
	size_t bytes;	       /* theirs: where those not held begin */
	struct held_key *keys; /* max */
	uint32_t free;	       /* the first free key, linked by last */
	uint32_t *index;       /* nindex: a key + 1, or 0 */
	uint32_t nindex;       /* a power of two, at least 2 * max */
	uint32_t moves;
	struct siphash_key seed;
};

/*
 * Room for max records (at least 1, below 2^30), keys hashed under seed.
 * Returns 0, or -1 when memory is short.
 */
int held_init(struct held *h, size_t max, const struct siphash_key *seed);

void held_free(struct held *h);

/* Forget every record and key. */
void held_clear(struct held *h);

/*
 * Hold the next record, of bytes bytes (at least 1) and of key
 * key[0..len), when fewer than max are held: its key returned, and
 * whether the key is new in *fresh.
 */
uint32_t held_add(
    struct held *h, size_t bytes, const char *key, size_t len, bool *fresh);

/* Where the record in slot s is: the bytes held before it. */
size_t held_offset(const struct held *h, uint32_t s);

/*
 * The record in slot s, the first of its key, goes: its key's next record
 * returned, or HELD_NONE when it was the key's last, and the key is freed.
 */
uint32_t held_release(struct held *h, uint32_t s);

#endif
