/* What the bucket script is told of each key: its rate, as text. */
#ifndef REDISRATE_H
#define REDISRATE_H

#include <stdbool.h>
#include <stdint.h>

/* Longest settings text: -r as given, or the id of tiers. */
#define TIERS_ID_MAX 128

/* Most bookings in one call of the script. */
#define REDIS_BATCH_MAX 256

/* The rate of a key's bucket in Redis (its tier's), as the script reads it. */
struct redis_rate {
	char interval[96]; /* microseconds a unit; a window: its width, zone */
	char burst[24];
	uint64_t burst_units;
	bool none; /* nothing goes, and Redis is not asked */
	bool inf;  /* everything goes, and Redis is not asked */
};

/*
 * The rate n units every d ns, burst burst, of a booking's key; none for
 * nothing, inf for everything.
 */
void redis_rate_init(struct redis_rate *rt, uint64_t n, uint64_t d,
    uint64_t burst, bool none, bool inf);

/*
 * A window of n units every width_ns (-a fixed or sliding), width at
 * least 1 ms: its width in whole microseconds, rounded up (never more
 * than n in the width asked), as the interval, and n as the burst.
 */
void redis_rate_window(struct redis_rate *rt, uint64_t n, uint64_t width_ns);

struct zonemap;

/*
 * A fixed window's interval in zone z (--tz) as of wall_ns: the width,
 * then the zone's UTC offset at wall_ns, its next change and the offset
 * after it, in microseconds, as the script reads them.  Returns the time
 * of that change (ns on the wall clock), INT64_MAX for none, when the
 * interval must be made anew.
 */
int64_t redis_rate_zone(struct redis_rate *rt, uint64_t width_ns,
    const struct zonemap *z, int64_t wall_ns);

#endif
