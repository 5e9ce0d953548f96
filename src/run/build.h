/* The gate of a run, built from its options, and every limit behind it. */
#ifndef BUILD_H
#define BUILD_H

#include <stdbool.h>
#include <stdint.h>

#include "bucket.h"
#include "fixed.h"
#include "keys.h"
#include "limiter.h"
#include "options.h"
#include "policy.h"
#include "redis.h"
#include "remote.h"
#include "shared.h"
#include "stats.h"
#include "sliding.h"
#include "tiercounts.h"
#include "tiers.h"
#include "zonemap.h"

/*
 * When units wait for tokens, wake for this much of the rate at a time.
 * Measured at 200k lines/s: 250 us gives p99 jitter 0.50 ms for 0.41 s of
 * CPU per million lines, 500 us 0.90 ms for 0.23 s, 1 ms 1.85 ms for 0.11 s.
 */
#define BUILD_RECORD_QUANTUM_NS 500000ULL
#define BUILD_BYTE_QUANTUM_NS 1000000ULL

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
	struct gate_backend units; /* the gate's limit on units */
	struct keys_backend keys;
	struct bucket byte_bucket;
	/* --total-rate: every key together. */
	struct bucket total_bucket;
	struct sliding total_window;
	struct fixed total_fixed;
	struct limiter total_limit;
	struct gate_backend total;
	struct keytab keytab;
	bool keyed;		  /* keytab is in use (-k, not in Redis) */
	char delim;		  /* the record delimiter, as a key */
	struct tiers tiers;	  /* --tiers, as last read */
	struct tiercounts counts; /* a row per tier, then the rest */
	struct shared shared;
	struct remote remote; /* --redis */
	/* --tz: its zone, and the fixed windows' calendar: &zone, or NULL
	 * for UTC's. */
	struct zonemap zone;
	const struct zonemap *tz;
	/* The limit while Redis is down, with --redis-fallback=local. */
	struct bucket redis_local;
	struct limiter redis_local_limit;
	/* ... with --total-rate, the keys' limit and the total together. */
	struct limiter redis_local_parts[2];
	struct limiter_set redis_local_set;
};

/*
 * Build the limits of cfg, started at start_ns, into L (L->gate is the
 * gate for the policies; with --tiers, L->counts a row of counts per
 * tier, told of records by tiercounts_tally), and describe them in stats
 * (when not NULL) for the reports.  An error that stops the run (a shared
 * bucket of other settings, no memory) ends the process with status 1;
 * a bad --tiers file, with status 2.
 */
void build_limits(struct limits *L, const struct config *cfg, int64_t start_ns,
    struct stats *stats);

void build_free(struct limits *L);

/*
 * Read the --tiers file again and take its tiers on at now_ns, all or
 * nothing (see keys_retune); the reply, "ok ..." or "error: reason", a
 * line, goes to reply[0..size).
 */
void build_reload(struct limits *L, int64_t now_ns, char *reply, size_t size);

/*
 * Are L's limits in the middle of a booking, which a live change must not
 * cut into?  A booking with --redis waits for the server, and requests
 * and reports are let in meanwhile.
 */
bool build_busy(const struct limits *L);

/* Are L's limits plain -r buckets, which a live change (-R) can retune? */
bool build_retunable(const struct limits *L, const char **why);

/*
 * Retune limit i of L to l at now_ns (see bucket_retune), and the
 * wake-up quantum with it.
 */
void build_retune(
    struct limits *L, int i, const struct limit *l, int64_t now_ns);

/*
 * Can --adapt slow L's one -r: a bucket of this process's own that -R
 * can retune, or a --shared bucket (in a file, or with --redis in Redis)
 * whose processes slow together?  Else why not.
 */
bool build_adaptable(struct limits *L, const char **why);

/*
 * Is L's one bucket shared by a fleet of processes (--shared, in a file
 * or in Redis, without -k)?  Their --adapt cuts are then every one's.
 */
bool build_fleet(const struct limits *L);

/*
 * --adapt: offer the cut w (adapt_word) to L's fleet; the latest cut it
 * holds, w when that is w.  w 0 reads it.
 */
uint64_t build_fleet_cut(struct limits *L, uint64_t w);

/* --adapt: the server asked that the fleet send nothing before until_ns. */
void build_fleet_hold(struct limits *L, int64_t until_ns);

/*
 * --adapt: L's one -r slowed to l's rate at now_ns (see build_retune);
 * a fleet's bucket is booked at it by this process from now on.
 */
void build_slow(struct limits *L, const struct limit *l, int64_t now_ns);

#endif
