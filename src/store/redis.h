/* A token bucket kept in Redis, for processes on many hosts. */
#ifndef REDIS_H
#define REDIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "limiter.h"
#include "redisrate.h"
#include "redisurl.h"

/* Was this tbthrottle built with Redis support (hiredis)? */
bool redis_available(void);

struct redis;

/* A bucket in Redis, and the settings every process using it shares. */
struct redis_bucket {
	const char *name; /* keys "tbthrottle:NAME[:KEY]" */
	uint64_t n, d;	  /* the rate: n units every d ns */
	/* NULL, or "fixed" or "sliding": a window of n units every d ns,
	 * not a bucket. */
	const char *window;
	/* -a fixed --tz: the calendar of the windows; NULL: UTC. */
	const struct zonemap *zone;
	uint64_t burst;
	bool bytes;	       /* units are bytes (-c), not records */
	const char *rate_text; /* the rate as given, for messages */
	/* NULL, or what other processes must give to share the name when
	 * keys have rates of their own (--tiers): a digest of them all. */
	const char *tiers_id;
	uint64_t session;    /* this process's own number, drawn at random */
	bool allow_eviction; /* a server that evicts keys will do */
	bool observe;	     /* --show, --reset: claim no settings */
	/* --total-rate: every key of the name together, n units every d
	 * ns (n 0: none), burst total_burst; total_text for messages. */
	uint64_t total_n, total_d, total_burst;
	const char *total_text;
};

/*
 * Open the bucket b in Redis (with -k, a bucket per key); local is used
 * while Redis is down with FALLBACK_LOCAL.  Meets Redis at once: ends
 * the process (exit 1, one line) when Redis keeps other settings for
 * b's name, or refuses us for good (password, ACL, a key of another
 * type, not a Redis server), or evicts keys when memory runs short
 * (unless b->allow_eviction), or with FALLBACK_FAIL cannot be reached.
 * Otherwise an unreachable server is not an error here: the fallback
 * decides.  Returns NULL with the reason in err when built without
 * hiredis.
 */
struct redis *redis_open(const struct redis_url *u,
    const struct redis_bucket *b, enum redis_fallback fallback,
    struct limiter *local, char *err, size_t errsz);

/*
 * The keys' rates changed (a reload of --tiers): keep tiers_id as the
 * settings of r's name from now on, whatever they were.  Returns 0, or
 * -1 with the reason in err when Redis cannot be told now.
 */
int redis_retier(
    struct redis *r, const char *tiers_id, char *err, size_t errsz);

/*
 * Book b[0..n) (up to REDIS_BATCH_MAX) at now_ns in Redis in one round
 * trip, as limiter_book_all says with ahead_ns: each in its key's bucket
 * (b->key; NULL: the bucket selected) at its rate (b->rate; NULL: the
 * bucket's own).  While Redis is down the fallback decides: with
 * FALLBACK_LOCAL they are booked in the local limit, select choosing
 * each one's limit there.  A booking of a key whose rate lets nothing go
 * is due at INT64_MAX, and ends the batch.  Returns how many were booked,
 * a prefix; 0 when a stop came first (nothing was booked).  An answer
 * lost on the way is asked for again, never booked twice.
 */
size_t redis_book(struct redis *r, struct booking *b, size_t n, bool take,
    int64_t now_ns, int64_t ahead_ns, limiter_select_fn *select, void *ctx);

/*
 * Is a booking of r, or a change of its settings, under way?  It may be
 * waiting for Redis, and let signals and requests in meanwhile.
 */
bool redis_busy(const struct redis *r);

/*
 * --adapt: offer the cut w (adapt_word, on this host's clock) to every
 * process of r's name, on every host: Redis stamps it with its own time.
 * Returns the fleet's latest cut as a word on this host's clock, w when
 * it is w's.  redis_adapt_cut(r, 0) reads it: from Redis at most every
 * REDIS_LOOK_MS, else as last read.  Never waits for a Redis that is
 * down or busy: a cut not offered then is offered at the next read.
 */
uint64_t redis_adapt_cut(struct redis *r, uint64_t w);
#define REDIS_LOOK_MS 200

/*
 * --adapt: the server asked that nothing be sent before until_ns: r's
 * bucket is empty until then for every process of its name (unless
 * Redis cannot be reached now).
 */
void redis_adapt_hold(struct redis *r, int64_t until_ns);

/* --adapt: book at n units every d ns from now on, slowed from -r. */
void redis_adapt_slow(struct redis *r, uint64_t n, uint64_t d);

void redis_close(struct redis *r);

/*
 * --show with --redis: what the bucket or window of name holds now, as
 * shared_show says it, from the settings and state in Redis (its time is
 * Redis's own); it claims no settings.  0, or -1 with why in err: no
 * process has used the name for SETTINGS_TTL_MS, or Redis cannot say.
 * Redis out of reach ends the process (status 1, one line).
 */
int redis_show(const struct redis_url *u, const char *name, bool json,
    FILE *out, char *err, size_t errsz);

/*
 * --reset with --redis: the name's own bucket full, or its window empty,
 * at once, for the processes using it too (a key of -k keeps its own
 * until it expires).  0, or -1 with why in err, as redis_show.
 */
int redis_reset(
    const struct redis_url *u, const char *name, char *err, size_t errsz);

#endif
