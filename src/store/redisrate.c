/* What the bucket script is told of each key: its rate, as text. */
#include <stdio.h>
#include <string.h>

#include "redisrate.h"
#include "zonemap.h"

void
redis_rate_init(struct redis_rate *rt, uint64_t n, uint64_t d, uint64_t burst,
    bool none, bool inf)
{
	memset(rt, 0, sizeof *rt);
	rt->none = none;
	rt->inf = inf;
	if (none || inf)
		return;
	snprintf(rt->interval, sizeof rt->interval, "%.17Lg",
	    (long double)d / n / 1000);
	snprintf(
	    rt->burst, sizeof rt->burst, "%llu", (unsigned long long)burst);
	rt->burst_units = burst;
}

void
redis_rate_window(struct redis_rate *rt, uint64_t n, uint64_t width_ns)
{
	memset(rt, 0, sizeof *rt);
	snprintf(rt->interval, sizeof rt->interval, "%llu",
	    (unsigned long long)((width_ns + 999) / 1000));
	snprintf(rt->burst, sizeof rt->burst, "%llu", (unsigned long long)n);
	rt->burst_units = n;
}

int64_t
redis_rate_zone(struct redis_rate *rt, uint64_t width_ns,
    const struct zonemap *z, int64_t wall_ns)
{
	int64_t next = zonemap_next_change(z, wall_ns);
	long long w = (long long)((width_ns + 999) / 1000);
	long long off = (long long)(zonemap_offset(z, wall_ns) / 1000);

	if (next == INT64_MAX)
		snprintf(
		    rt->interval, sizeof rt->interval, "%lld,%lld", w, off);
	else
		snprintf(rt->interval, sizeof rt->interval,
		    "%lld,%lld,%lld,%lld", w, off, (long long)(next / 1000),
		    (long long)(zonemap_offset(z, next) / 1000));
	return next;
}
