/* The interface every limit algorithm offers, and the gate's in memory. */
#ifndef LIMITER_H
#define LIMITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gate.h"

struct bucket;
struct fixed;
struct keytab;
struct sliding;

/*
 * ready_at, avail, take and went have the contracts of bucket_ready_at,
 * bucket_avail, bucket_take and bucket_went: time is an argument, and the
 * limiters that live in memory make no system call.  went may be NULL:
 * the limit counts units when they are taken.
 */
struct limiter {
	void *self;
	int64_t (*ready_at)(const void *self, int64_t ready_ns, uint64_t units);
	uint64_t (*avail)(const void *self, int64_t ready_ns, int64_t now_ns);
	uint64_t (*take)(
	    void *self, int64_t ready_ns, int64_t now_ns, uint64_t max);
	void (*went)(void *self, uint64_t units, int64_t at_ns);
};

static inline int64_t
limiter_ready_at(const struct limiter *l, int64_t ready_ns, uint64_t units)
{
	return l->ready_at(l->self, ready_ns, units);
}

static inline uint64_t
limiter_avail(const struct limiter *l, int64_t ready_ns, int64_t now_ns)
{
	return l->avail(l->self, ready_ns, now_ns);
}

static inline uint64_t
limiter_take(
    const struct limiter *l, int64_t ready_ns, int64_t now_ns, uint64_t max)
{
	return l->take(l->self, ready_ns, now_ns, max);
}

static inline void
limiter_went(const struct limiter *l, uint64_t units, int64_t at_ns)
{
	if (l->went != NULL)
		l->went(l->self, units, at_ns);
}

/* Choose the limit of b's key in a limiter of keys, before b is booked. */
typedef void limiter_select_fn(void *ctx, const struct booking *b);

/*
 * Book b[0..n) in l in order, as one booking each would when made just as
 * the one before went: each from when the one before may go (the first at
 * now_ns), stopping after the first due later than now_ns + ahead_ns
 * unless the next has the same key (and then within ahead_ns of that
 * first due), so that another key is never booked ahead of now_ns +
 * ahead_ns; or, with take, take each one's units (or what there is room
 * for) at its at_ns.  select (NULL: none) chooses each one's limit
 * first.  Returns how many were booked: a prefix, the rest left as they
 * were.  This is how a limit kept elsewhere books a batch (Redis, and its
 * local stand-in while it is down).
 */
size_t limiter_book_all(const struct limiter *l, struct booking *b, size_t n,
    bool take, int64_t now_ns, int64_t ahead_ns, limiter_select_fn *select,
    void *ctx);

/* Several limiters as one: a unit goes when every one allows it. */
struct limiter_set {
	struct limiter *members;
	int n;
};

/* A limiter backed by a token bucket, a sliding or a fixed window. */
void limiter_of_bucket(struct limiter *l, struct bucket *b);
void limiter_of_sliding(struct limiter *l, struct sliding *w);
void limiter_of_fixed(struct limiter *l, struct fixed *f);

/*
 * A limiter backed by the limit of the key last selected in t
 * (keys_select); take keeps its new state, and takes at most one unit
 * from a sliding window at a time; went is of the units that key's last
 * take took, no other key having been selected since.
 */
void limiter_of_keys(struct limiter *l, struct keytab *t);

/*
 * A limiter that is due when all of s's members are, grants what the
 * most restrictive one allows, and charges every member the same units,
 * so none is charged for a unit the others refuse.
 */
void limiter_of_set(struct limiter *l, struct limiter_set *s);

/*
 * The gate's backend over l, a limit in memory: a plan only looks (the
 * units are taken when they go), one booking at a time.
 */
void limiter_backend(struct gate_backend *be, struct limiter *l);

/* A limit per key, by the key of each booking's record, in t. */
struct keys_backend {
	struct keytab *t;
	struct limiter l;	       /* the key selected in t */
	const struct booking *planned; /* whose key is selected, or NULL */
	bool took; /* the key selected took units at its last take */
};

/*
 * The gate's backend over k's table t, as limiter_backend is: each
 * booking's key is found in its record and selected, at the time of the
 * plan (or, when judged, of its arrival).
 */
void keys_backend(
    struct gate_backend *be, struct keys_backend *k, struct keytab *t);

#endif
