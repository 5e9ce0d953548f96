/* Per-key token buckets: a small state per live key; pure, no I/O. */
#ifndef KEYS_H
#define KEYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bucket.h"
#include "siphash.h"

/* Key bytes kept in an entry itself; a longer key is allocated apart. */
#define KEYS_INLINE 19

/*
 * A live key: its bucket's state, where the index points at it, and its
 * bytes, or for a longer key a pointer to them and their length: 40 bytes
 * in all.
 */
struct keyent {
	int64_t base_ns;
	uint64_t k;
	uint32_t slot;	   /* its slot in the index */
	unsigned char len; /* bytes in b, or KEYS_INLINE + 1: apart */
	char b[KEYS_INLINE];
};

/* Where a record's key is: -k FIELD, -F C, and the record delimiter. */
struct keyspec {
	unsigned field; /* the key is this field of a record */
	int sep;	/* ... fields ending at this byte, or -1 */
	int delim;	/* records ending at this byte */
};

/*
 * Buckets by key, all with the rate, burst and catch-up of a prototype.
 * A key is found by SipHash-2-4 of its bytes under a secret seed, so input
 * cannot aim keys at one slot of the index, and known by its bytes, so two
 * keys never share a bucket.  The entries form a heap by the time each
 * bucket is full again.  A bucket that has refilled holds nothing a new
 * one would not, so a new key first forgets those at the top; when
 * max_keys buckets are still refilling, new keys share one overflow
 * bucket.
 */
struct keytab {
	struct keyspec spec;
	struct bucket proto;
	struct siphash_key seed; /* of the hash, chosen at random */
	uint64_t *index;     /* hash's low 32 bits << 32 | entry + 1, or 0 */
	size_t cap;	     /* slots of the index, a power of two */
	struct keyent *ents; /* the live keys, a heap by refill time */
	size_t room;	     /* entries ents holds */
	size_t live;	     /* entries in use */
	size_t max_keys;
	struct bucket overflow;
	uint64_t overflowed; /* units judged by the overflow bucket */
	/* The selected key's bucket, read and written by the limiter. */
	struct bucket cur;
	uint64_t sel_hash;
	size_t sel; /* its entry, or SIZE_MAX for a new key */
	bool sel_overflow;
	struct keyent pend; /* a new key's bytes, kept if it takes units */
	char *pend_apart;   /* ... a longer one's copy, owned until kept */
};

/* Start an empty table, hashing keys with seed; -1 when memory runs out. */
int keys_init(struct keytab *t, const struct bucket *proto, size_t max_keys,
    const struct siphash_key *seed, int64_t now_ns);

void keys_free(struct keytab *t);

/*
 * Select the bucket of key[0..len) into t->cur.  now_ns is the current
 * time: a key with no state starts there with a full bucket, and earns
 * no catch-up credit for any time before.  A new key first forgets the
 * buckets full again by now_ns; if max_keys are still live (or memory
 * runs out) it gets the overflow bucket.  O(1) on average, plus
 * O(log live) for each bucket forgotten.
 */
void keys_select(struct keytab *t, const char *key, size_t len, int64_t now_ns);

/*
 * Select the bucket of record rec[0..len) (with or without its delimiter)
 * by its key field, as keys_select.
 */
void keys_select_record(
    struct keytab *t, const char *rec, size_t len, int64_t now_ns);

/*
 * Keep t->cur, from which taken units were just taken at now_ns, as the
 * selected key's state; a new key that took nothing is not kept, its
 * bucket being still full.  O(log live) at worst.
 */
void keys_store(struct keytab *t, uint64_t taken, int64_t now_ns);

/*
 * The key of record rec[0..len), with or without its delimiter, as spec
 * says: its start in *key, its length returned.
 */
size_t keys_of_record(
    const struct keyspec *spec, const char *rec, size_t len, const char **key);

/*
 * Field number field (1-based) of the record rec[0..len), its delimiter
 * already taken off: with sep -1 fields are separated by runs of blanks
 * (spaces and tabs) and leading blanks are skipped, as in awk; else by
 * every byte sep.  Stores the field's start in *key and returns its
 * length; a record with fewer fields has the empty key.
 */
size_t keys_field(
    const char *rec, size_t len, unsigned field, int sep, const char **key);

#endif
