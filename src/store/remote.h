/* A limit kept in Redis behind the gate: keys, tiers and bookings for it. */
#ifndef REMOTE_H
#define REMOTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gate.h"
#include "keys.h"
#include "redis.h"

/*
 * The bucket of --shared NAME --redis, or with -k a bucket per key, each
 * key at its tier's rate.  The key table holds the keys' rules, and their
 * stand-ins for --redis-fallback local; without -k there is none.
 */
struct remote {
	struct redis *redis;
	struct keytab *kt;	  /* NULL: one bucket */
	struct redis_rate *rates; /* with --tiers: a rate per rule, or NULL */
	int64_t ahead_ns;	  /* how far a batch books ahead */
	char delim;		  /* the key in Redis of keys cut short */
};

/*
 * The gate's backend over rm: a plan books in Redis (in line with other
 * processes: it holds its units), up to REDIS_BATCH_MAX records a round
 * trip, looking ahead rm->ahead_ns; with -k, each record's key is found
 * in it, and its rate is its tier's.
 */
void remote_backend(struct gate_backend *be, struct remote *rm);

/*
 * The keys' rules changed (or were set): the rate in Redis of each rule
 * (with --tiers), and the id the settings of the name keep, a digest of
 * them all, the same for the same tiers in any file, into id.
 */
void remote_tiers(
    struct remote *rm, const struct tiers *t, char *id, size_t size);

void remote_free(struct remote *rm);

#endif
