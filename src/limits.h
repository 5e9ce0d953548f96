/* The limits of a run, built from its options: every limiter and the gate. */
#ifndef LIMITS_H
#define LIMITS_H

#include <stdbool.h>
#include <stdint.h>

#include "bucket.h"
#include "fixed.h"
#include "keys.h"
#include "limiter.h"
#include "options.h"
#include "policy.h"
#include "redis.h"
#include "shared.h"
#include "stats.h"
#include "sliding.h"
#include "tiers.h"

/*
 * When units wait for tokens, wake for this much of the rate at a time.
 * Measured at 200k lines/s: 250 us gives p99 jitter 0.50 ms for 0.41 s of
 * CPU per million lines, 500 us 0.90 ms for 0.23 s, 1 ms 1.85 ms for 0.11 s.
 */
#define LIMITS_RECORD_QUANTUM_NS 500000ULL
#define LIMITS_BYTE_QUANTUM_NS 1000000ULL

/* The state behind every limit of a run, and the gate over them. */
struct limits {
	struct gate gate;
	const struct config *cfg;
	struct stats *stats;	      /* whose limit a report shows, or NULL */
	struct limit now[MAX_LIMITS]; /* the -r limits in force */
	struct bucket buckets[MAX_LIMITS];
	struct sliding windows[MAX_LIMITS];
	struct fixed fixeds[MAX_LIMITS];
	struct limiter members[MAX_LIMITS];
	struct limiter_set set;
	struct limiter all;
	struct bucket byte_bucket;
	struct keytab keytab;
	bool keyed;		       /* keytab is in use (-k, not in Redis) */
	char delim;		       /* the record delimiter, as a key */
	struct tiers tiers;	       /* --tiers, as last read */
	struct stats_tier *tier_stats; /* a row per tier, then the rest */
	size_t ntier_stats;
	struct shared shared;
	struct redis *redis;
	struct redis_rate *redis_rates; /* with --tiers: a rate per rule */
	/* The limit while Redis is down, with --redis-fallback=local. */
	struct bucket redis_local;
	struct limiter redis_local_limit;
};

/*
 * Build the limits of cfg, started at start_ns, into L (L->gate is the
 * gate for the policies), and describe them in stats (when not NULL) for
 * the reports.  An error that stops the run (a shared bucket of other
 * settings, no memory) ends the process with status 1.
 */
void limits_build(struct limits *L, const struct config *cfg, int64_t start_ns,
    struct stats *stats);

/* The limits in force, as the reports show them. */
void limits_describe(const struct limits *L, struct stats_limit *out);

void limits_free(struct limits *L);

/*
 * Read the --tiers file again and take its tiers on at now_ns, all or
 * nothing (see keys_retune); the reply, "ok ..." or "error: reason", a
 * line, goes to reply[0..size).
 */
void limits_reload(struct limits *L, int64_t now_ns, char *reply, size_t size);

/*
 * With --tiers, count a record under its tier (a stats_tally_fn on L);
 * NULL without tiers.
 */
stats_tally_fn *limits_tally_fn(const struct limits *L);

/*
 * Are L's limits in the middle of a booking, which a live change must not
 * cut into?  A booking with --redis waits for the server, and requests
 * and reports are let in meanwhile.
 */
bool limits_busy(const struct limits *L);

/* Are L's limits plain -r buckets, which a live change (-R) can retune? */
bool limits_retunable(const struct limits *L, const char **why);

/*
 * Retune limit i of L to l at now_ns (see bucket_retune), and the
 * wake-up quantum with it.
 */
void limits_retune(
    struct limits *L, int i, const struct limit *l, int64_t now_ns);

#endif
