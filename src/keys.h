/* Per-key token buckets: a small state per live key; pure, no I/O. */
#ifndef KEYS_H
#define KEYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bucket.h"

/* A live key: the hash of its bytes and its bucket's state. */
struct keyslot {
	uint64_t hash;		/* 0: empty */
	int64_t base_ns;
	uint64_t k;
};

/*
 * Buckets by key, all with the rate, burst and catch-up of a prototype.
 * A key is known by a 64-bit hash of its bytes under a secret seed (two
 * keys of a million share one with odds below 1 in 10^7, and input
 * cannot aim at a collision it cannot see).  A bucket that has refilled
 * holds nothing a new one would not, so it is forgotten; when max_keys
 * buckets are live, new keys share one overflow bucket.
 */
/* Where a record's key is: -k FIELD, -F C, and the record delimiter. */
struct keyspec {
	unsigned field;		/* the key is this field of a record */
	int sep;		/* ... fields ending at this byte, or -1 */
	int delim;		/* records ending at this byte */
};

struct keytab {
	struct keyspec spec;
	struct bucket proto;
	uint64_t seed;		/* of the hash, chosen at random */
	struct keyslot *slots;
	size_t cap;		/* slots, a power of two */
	size_t live;		/* slots in use */
	size_t max_keys;
	size_t until_sweep;	/* inserts before the next sweep may run */
	struct bucket overflow;
	uint64_t overflowed;	/* units judged by the overflow bucket */
	/* The selected key's bucket, read and written by the limiter. */
	struct bucket cur;
	uint64_t sel_hash;
	size_t sel_slot;	/* its slot, or SIZE_MAX when not in the table */
	bool sel_overflow;
};

/* Start an empty table, hashing keys with seed; -1 when memory runs out. */
int	keys_init(struct keytab *t, const struct bucket *proto,
	    size_t max_keys, uint64_t seed, int64_t now_ns);

void	keys_free(struct keytab *t);

/*
 * Select the bucket of key[0..len) into t->cur.  now_ns is the current
 * time: a key with no state starts there with a full bucket, and earns
 * no catch-up credit for any time before.
 */
void	keys_select(struct keytab *t, const char *key, size_t len,
	    int64_t now_ns);

/*
 * Select the bucket of record rec[0..len) (with or without its delimiter)
 * by its key field, as keys_select.
 */
void	keys_select_record(struct keytab *t, const char *rec, size_t len,
	    int64_t now_ns);

/*
 * Keep t->cur, from which taken units were just taken at now_ns, as the
 * selected key's state.
 */
void	keys_store(struct keytab *t, uint64_t taken, int64_t now_ns);

/* The 64-bit hash of b[0..len) under seed, never 0. */
uint64_t keys_hash(const char *b, size_t len, uint64_t seed);

/*
 * The key of record rec[0..len), with or without its delimiter, as spec
 * says: its start in *key, its length returned.
 */
size_t	keys_of_record(const struct keyspec *spec, const char *rec, size_t len,
	    const char **key);

/*
 * Field number field (1-based) of the record rec[0..len), its delimiter
 * already taken off: with sep -1 fields are separated by runs of blanks
 * (spaces and tabs) and leading blanks are skipped, as in awk; else by
 * every byte sep.  Stores the field's start in *key and returns its
 * length; a record with fewer fields has the empty key.
 */
size_t	keys_field(const char *rec, size_t len, unsigned field, int sep,
	    const char **key);

#endif
