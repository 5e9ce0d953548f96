/* The gate: the one way the policies ask the limits; pure, time an argument. */
#ifndef GATE_H
#define GATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bucket.h"
#include "framer.h"

struct redis_rate;

/*
 * One booking: units for the bytes at rec, which arrived at at_ns.  The
 * policy sets rec, bytes, units, at_ns and outgrown; the gate sets due_ns
 * (gate_plan) or taken (gate_judge), and key, key_len and rate for its
 * own use.
 */
struct booking {
	const char *rec; /* valid only while it is booked */
	size_t bytes;	 /* of the record, or of what is held of it */
	uint64_t units;
	int64_t at_ns;
	bool outgrown;	 /* a record longer than the buffer: its first bytes */
	int64_t due_ns;	 /* when they may go; INT64_MAX: never */
	uint64_t taken;	 /* units taken, the others refused */
	const char *key; /* with -k: the key, as the gate found it */
	size_t key_len;
	const struct redis_rate *rate; /* with --redis: the key's rate */
};

/*
 * A limit on units behind the gate: a limiter in memory (buckets,
 * windows, several of them), a limit per key, one shared with other
 * processes in a file, or one kept in Redis.  Time is an argument; the
 * limits in memory make no system call.
 */
struct gate_backend {
	void *self;
	/*
	 * When b[0..n) may go, booked at now_ns in order, each from its at_ns:
	 * due_ns of each.  A backend that holds its units (below) takes them
	 * now; the others only look.  Returns how many were planned, a
	 * prefix: 0 when a stop came first (nothing was booked).
	 */
	size_t (*plan)(void *self, struct booking *b, size_t n, int64_t now_ns);
	/* Units that may go at now_ns from b on (unused when it holds). */
	uint64_t (*grant)(void *self, const struct booking *b, int64_t now_ns);
	/* Take units from b on at now_ns (unused when it holds). */
	void (*take)(void *self, const struct booking *b, uint64_t units,
	    int64_t now_ns);
	/*
	 * Take what there is room for of the units of b[0..n), each at its
	 * at_ns, into taken.  Returns how many were judged, a prefix: 0 when
	 * a stop came first.
	 */
	size_t (*judge)(void *self, struct booking *b, size_t n);
	/*
	 * NULL, or: the latest units taken went at at_ns, no earlier than
	 * taken (see bucket_went); of one key's, when it has keys.
	 */
	void (*went)(void *self, uint64_t units, int64_t at_ns);
	/* Planned units are taken already (the limit is kept elsewhere, and
	 * booked in line with other processes'). */
	bool holds;
	/*
	 * NULL, or the key of b's record (-k): its bytes at *key, their
	 * length returned; NULL *key for a key not known whole.
	 */
	size_t (*key)(void *self, const struct booking *b, const char **key);
	/* Bookings worth one call of plan or judge: 1 in memory, more
	 * where a call is a round trip. */
	size_t batch;
};

/*
 * What every unit must pass: the limit on units (NULL: none), a limit on
 * the bytes of records (NULL: none), and how records are framed.  Built
 * by the run; a live change (-R) may change quantum.
 */
struct gate {
	struct framer framer;
	const struct gate_backend *units;
	const struct gate_backend *total; /* all keys together, in memory */
	struct bucket *bytes;		  /* records cost their length */
	uint64_t quantum;		  /* units a booking may gather, >= 1 */
	uint64_t room; /* bytes a booking may gather, or UINT64_MAX */
	size_t batch;  /* bookings worth one call (gate_batch) */
	bool claim;    /* bytes may wait in the input until sent */
};

/*
 * A gate over framer f with no limit: every unit passes at once, gathered
 * quantum at a time.
 */
void gate_init(struct gate *g, const struct framer *f, uint64_t quantum);

/* Limit units by be (which must outlive g). */
void gate_set_units(struct gate *g, const struct gate_backend *be);

/*
 * Limit the units of every key together too (--total-rate), by be, a
 * limit in memory that does not hold what it plans (a limiter backend).
 */
void gate_set_total(struct gate *g, const struct gate_backend *be);

/*
 * Limit records by their bytes too, in b: each booking gathers at most
 * quantum bytes of them (and not past b's burst).
 */
void gate_set_bytes(struct gate *g, struct bucket *b, uint64_t quantum);

/* Does the gate limit anything? */
bool gate_limits(const struct gate *g);

/*
 * The key of b's record, when the units are limited by key: its bytes in
 * *key, their length returned; SIZE_MAX when they are not (every record
 * is of one key).
 */
size_t gate_key(
    const struct gate *g, const struct booking *b, const char **key);

/* Bookings worth one call of gate_plan or gate_judge, at least 1. */
static inline size_t
gate_batch(const struct gate *g)
{
	return g->batch;
}

/*
 * Book b[0..n) at now_ns (see struct gate_backend's plan), the byte limit
 * too: due_ns of each.  A record longer than the byte burst, or outgrown,
 * is due when the byte bucket is full.  Returns how many were planned.
 */
size_t gate_plan(
    const struct gate *g, struct booking *b, size_t n, int64_t now_ns);

/*
 * gate_plan in two parts, for a policy that books many records and sends
 * few of them: the limit on units alone (gate_plan_units, which sets
 * due_ns as gate_plan does), and the limits that every key shares, the
 * total and the byte limit (gate_shared_due: when they let b go, by its
 * at_ns, units and bytes; INT64_MIN when there are none).  gate_plan's
 * due time is the later of the two.  The shared due time never comes
 * sooner for a later at_ns or more bytes.
 */
size_t gate_plan_units(
    const struct gate *g, struct booking *b, size_t n, int64_t now_ns);
int64_t gate_shared_due(
    const struct gate *g, const struct booking *b, int64_t now_ns);

/*
 * The planned bookings from b on, units and bytes of them, are due at
 * now_ns: how many units, and in how many bytes, may go now from b on,
 * them included.  Where the limits were booked ahead (they hold), exactly
 * those; else what the limits allow by now, which may be more.
 */
static inline void
gate_grant(const struct gate *g, const struct booking *b, uint64_t units,
    size_t bytes, int64_t now_ns, uint64_t *max_units, uint64_t *room)
{
	bool holds = g->units != NULL && g->units->holds;

	*max_units = g->units == NULL ? UINT64_MAX :
	    holds		      ? units :
		    g->units->grant(g->units->self, b, now_ns);
	*room = g->bytes == NULL ? UINT64_MAX :
	    holds		 ? bytes :
				   bucket_avail(g->bytes, b->at_ns, now_ns);
}

/* units in bytes from b on go at now_ns: take them from the limits. */
static inline void
gate_take(const struct gate *g, const struct booking *b, uint64_t units,
    size_t bytes, int64_t now_ns)
{
	if (g->units != NULL && !g->units->holds && units > 0)
		g->units->take(g->units->self, b, units, now_ns);
	if (g->total != NULL && units > 0)
		g->total->take(g->total->self, b, units, now_ns);
	if (g->bytes != NULL && bytes > 0)
		bucket_charge(g->bytes, b->at_ns, now_ns, bytes);
}

/*
 * Judge b[0..n) each at its at_ns (--drop): the units each may have,
 * into taken, and nothing charged for what is refused.  A record that
 * the byte limit refuses is refused whole.  Returns how many were judged,
 * a prefix: 0 when a stop came first.
 */
size_t gate_judge_each(const struct gate *g, struct booking *b, size_t n);

static inline size_t
gate_judge(const struct gate *g, struct booking *b, size_t n)
{
	/* With only a limit on units, it judges them all. */
	if (g->bytes == NULL && g->total == NULL && g->units != NULL)
		return g->units->judge(g->units->self, b, n);
	return gate_judge_each(g, b, n);
}

/*
 * The latest units taken, in bytes, went at at_ns, no earlier than they
 * were taken: a write of them returned, or a command started for the
 * first of them, the rest to start after.  Each limit in memory counts
 * them as of then, so that its bound holds at the times units really go
 * (see bucket_went, sliding_went, fixed_went).
 */
void gate_went(
    const struct gate *g, uint64_t units, uint64_t bytes, int64_t at_ns);

/*
 * Must each record let through go alone, before another is judged, for
 * gate_went to reach the limit it was taken from?  With a limit per key
 * it must: only the latest key's can be told.
 */
bool gate_alone(const struct gate *g);

/* bytes of a long record went out at now_ns, counted from at_ns. */
void gate_streamed(
    const struct gate *g, int64_t at_ns, int64_t now_ns, uint64_t bytes);

/*
 * Of the bookings b[0..n), how many at the head already hold their units
 * and are due by until_ns: after a live change, those still go as booked,
 * and at a stop, they are owed.
 */
size_t gate_held(
    const struct gate *g, const struct booking *b, size_t n, int64_t until_ns);

#endif
