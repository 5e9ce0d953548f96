/* A batch: the units at the head, booked together in one round trip. */
#ifndef BATCH_H
#define BATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "framer.h"
#include "gate.h"
#include "policy.h"

/*
 * Most bookings in one round trip.  Redis runs a batch as one script, and
 * no other client is served meanwhile: 256 records take it about 0.3 ms.
 */
#define BATCH_MAX 256

/* Bookings made in one round trip, then carried out in order. */
struct batch {
	struct booking b[BATCH_MAX];
	size_t n;    /* booked */
	size_t done; /* of them, sent or dropped */
};

/*
 * Plan the next batch: the whole units of v from byte off on (a last
 * record without its delimiter at the end of input too), at most per
 * units in at most room bytes a booking (per is 1 with -k: a record
 * each), at most max (and BATCH_MAX) bookings.  The first booking arrived
 * at first_ns, the others at v->read_ns.  Returns how many; none when the
 * unit at off is not whole yet.
 */
size_t batch_plan(struct batch *bt, const struct framer *f,
    const struct view *v, size_t off, uint64_t per, uint64_t room, size_t max,
    int64_t first_ns);

/* Keep only the first n bookings planned: those that were booked. */
void batch_booked(struct batch *bt, size_t n);

/*
 * The run of booked units at the head due by now_ns: marks them done and
 * returns their bytes, their units in *units and when the first was due
 * in *due_ns.  Returns 0 with *units 0 when the head is not due yet
 * (*due_ns: when it is, INT64_MAX when nothing is booked).
 */
size_t batch_due(
    struct batch *bt, int64_t now_ns, uint64_t *units, int64_t *due_ns);

/* Are bookings made and not yet carried out? */
static inline bool
batch_pending(const struct batch *bt)
{
	return bt->done < bt->n;
}

/* The bookings not yet carried out, and how many. */
static inline struct booking *
batch_head(struct batch *bt, size_t *n)
{
	*n = bt->n - bt->done;
	return &bt->b[bt->done];
}

#endif
