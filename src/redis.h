/* A token bucket kept in Redis, for processes on many hosts. */
#ifndef REDIS_H
#define REDIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "limiter.h"
#include "redisurl.h"

/* Was this tbthrottle built with Redis support (hiredis)? */
bool	redis_available(void);

struct redis;

/*
 * Connect to the bucket name (keys "tbthrottle:NAME", or with -k
 * "tbthrottle:NAME:KEY") of rate n units every d ns and capacity burst.
 * rate_text names the rate in errors.  local is used while Redis is down
 * with FALLBACK_LOCAL.  Returns NULL with the reason in err when built
 * without hiredis.  An unreachable server is not an error here: the
 * fallback decides.
 */
struct redis *redis_open(const struct redis_url *u, const char *name,
	    uint64_t n, uint64_t d, uint64_t burst, const char *rate_text,
	    enum redis_fallback fallback, struct limiter *local, char *err,
	    size_t errsz);

/* Use the bucket of key[0..len) (with -k) for the next units. */
void	redis_select(struct redis *r, const char *key, size_t len);

/* A limiter on r: take and reserve go to Redis. */
void	redis_limiter(struct limiter *l, struct redis *r);

void	redis_close(struct redis *r);

#endif
