/* Shaping: units wait for their tokens, and input waits behind them. */
#ifndef SHAPE_H
#define SHAPE_H

#include <stdbool.h>
#include <stdint.h>

#include "batch.h"
#include "policy.h"

/*
 * The decision about the units at the head: booked by the limits (and
 * waited for) until they go; through the gate's book, a batch of them.
 */
struct shape {
	const struct gate *gate;
	bool batched; /* booked through the gate's book */
	struct batch batch;
	bool booked;   /* due_ns is the head's, until it goes */
	bool reserved; /* booked in a bucket shared with others */
	bool outgrown; /* the head record is longer than the buffer */
	size_t bytes;  /* of the booked units */
	size_t units;
	int64_t due_ns;
};

/*
 * Shape by gate g: the units at the head wait since the input began to
 * wait (view ready_ns) for their tokens, then go with all others due by
 * then; no input is read meanwhile, so a slow rate holds back the writer.
 * With the gate's book (and no byte limit), what the buffer holds is
 * booked in batches, each unit released at its own time, in order.
 */
void shape_policy(struct policy *p, struct shape *s, const struct gate *g);

#endif
