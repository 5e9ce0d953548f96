/* --adapt: the run's rate, learnt from the commands that ask to be tried again. */
#ifndef ADAPTRATE_H
#define ADAPTRATE_H

#include <stdbool.h>
#include <stdint.h>

#include "adapt.h"
#include "build.h"

/*
 * The first -r bucket of L, slowed by the curve of a (limit/adapt.c): the
 * rate set (-r, or -R NAME -r since) is the ceiling, never passed.
 */
struct adaptrate {
	struct adapt a;
	struct limits *L;
	struct rate ceiling; /* the rate set */
	struct rate applied; /* the rate L's bucket has now */
	int64_t next_ns;     /* when the rate moves along the curve next */
	bool fleet;	     /* --shared: the cuts are every process's */
};

/*
 * Start at L's first rate, at now_ns.  Exits (status 2) when L's limits
 * are not one --adapt can slow (build_adaptable).  With --shared, every
 * process of the bucket is at the same place on the same curve: a cut
 * one makes is every one's (adapt_word), seen within TICK_NS through a
 * file, within REDIS_LOOK_MS through Redis.
 */
void adaptrate_init(struct adaptrate *r, struct limits *L);

/*
 * A command started at sent_ns asked at now_ns to be tried again (the
 * server refused it): the rate falls, at most once a round trip.
 */
void adaptrate_refused(struct adaptrate *r, int64_t sent_ns, int64_t now_ns);

/*
 * The server asked that nothing be sent before until_ns (a Retry-After):
 * with --shared, every process of the bucket holds its starts until then
 * (this one's are held by its sink).
 */
void adaptrate_hold(struct adaptrate *r, int64_t until_ns);

/*
 * Give L's bucket the rate of the curve at now_ns, every TICK_NS and when
 * it moved by 1 % or more, or reached the ceiling (and take a rate set by
 * -R since as the new ceiling, and a cut another process of a --shared
 * bucket made); when to call again: INT64_MAX while the rate is the
 * ceiling, unless other processes may cut it.  Calls before that time
 * cost nothing but a look at the shared cut.
 */
int64_t adaptrate_tick(struct adaptrate *r, int64_t now_ns);

#endif
