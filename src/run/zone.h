/* The local time zone (TZ) for --replay: times written without a zone. */
#ifndef ZONE_H
#define ZONE_H

#include <stdint.h>

#include "timestamp.h"

/*
 * The timestamp_local_fn of the local zone, by mktime(3) and TZ: the
 * local time tm as seconds since the epoch, in utc_s[0] <= utc_s[1]
 * (two in the hour repeated when clocks go back); -1 for a time the
 * zone skips.  arg is unused.
 */
int zone_local(void *arg, const struct timestamp_civil *tm, int64_t utc_s[2]);

/* The local date and time of wall_s (seconds since the epoch) in *out. */
void zone_civil(int64_t wall_s, struct timestamp_civil *out);

#endif
