/* A token bucket kept in Redis, for processes on many hosts. */
#ifndef REDIS_H
#define REDIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "limiter.h"
#include "redisurl.h"

/* Was this tbthrottle built with Redis support (hiredis)? */
bool redis_available(void);

struct redis;

/* A bucket in Redis, and the settings every process using it shares. */
struct redis_bucket {
	const char *name; /* keys "tbthrottle:NAME[:KEY]" */
	uint64_t n, d;	  /* the rate: n units every d ns */
	uint64_t burst;
	bool bytes;	       /* units are bytes (-c), not records */
	const char *rate_text; /* the rate as given, for messages */
};

/*
 * Open the bucket b in Redis (with -k, a bucket per key); local is used
 * while Redis is down with FALLBACK_LOCAL.  Meets Redis at once: ends
 * the process (exit 1, one line) when Redis keeps other settings for
 * b's name, or refuses us for good (password, ACL, a key of another
 * type, not a Redis server), or with FALLBACK_FAIL cannot be reached.
 * Otherwise an unreachable server is not an error here: the fallback
 * decides.  Returns NULL with the reason in err when built without
 * hiredis.
 */
struct redis *redis_open(const struct redis_url *u,
    const struct redis_bucket *b, enum redis_fallback fallback,
    struct limiter *local, char *err, size_t errsz);

/* Use the bucket of key[0..len) (with -k) for the next units. */
void redis_select(struct redis *r, const char *key, size_t len);

/* A limiter on r: take and reserve go to Redis. */
void redis_limiter(struct limiter *l, struct redis *r);

void redis_close(struct redis *r);

#endif
