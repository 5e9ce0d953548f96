/* Policing (--drop): units that find no token are dropped, not delayed. */
#ifndef DROP_H
#define DROP_H

#include <stdbool.h>
#include <stdint.h>

#include "batch.h"
#include "policy.h"

struct drop {
	const struct gate *gate;
	struct batch batch; /* verdicts given, not yet carried out */
	/* Records judged at the head, not yet sent or dropped: a run of
	 * one verdict goes out in one write. */
	size_t run_bytes;
	uint64_t run_units;
	bool run_ok;
	bool flush_pending; /* the run is one record, judged: send it */
	size_t rest;	    /* bytes mode: bytes of the last read refused */
	int64_t first_ns;   /* when the partial record at the end began */
	bool first_set;
	int64_t changed_ns; /* when the limits last changed */
};

/*
 * Police by gate g, never waiting for tokens: each unit is judged when
 * its first byte arrived (view read_ns), once its length is known: when
 * it is whole, at the end of input, or when it fills the buffer.  One
 * that finds no token, or no room in the byte limit, is dropped whole.
 */
void drop_policy(struct policy *p, struct drop *d, const struct gate *g);

#endif
