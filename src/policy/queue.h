/* A bounded queue (--queue N): read ahead while units wait, at most N. */
#ifndef QUEUE_H
#define QUEUE_H

#include <stdbool.h>
#include <stdint.h>

#include "policy.h"

/* Bytes the queue holds at most, whatever its length in units. */
#define QUEUE_BUF_BYTES (1024 * 1024)

struct queue {
	const struct gate *gate;
	uint64_t max_queued;
	bool dropping;	  /* a unit that finds the queue full is dropped */
	size_t judged;	  /* bytes at the head admitted to the queue */
	int64_t *arrived; /* when each queued unit arrived, a ring */
	size_t ring, first, queued;
	bool open;    /* the last admitted record is unfinished */
	bool open_ok; /* ... and is queued, not dropped */
};

/*
 * Queue records under gate g (records, not bytes), stamping each with its
 * arrival so that input is read on while units wait.  At most max_units
 * wait; then a new unit is dropped if drop is set, otherwise reading
 * stops until one leaves.  Returns 0, or -1 when memory is short.
 */
int queue_policy(struct policy *p, struct queue *q, const struct gate *g,
    uint64_t max_units, bool drop);

void queue_free(struct queue *q);

#endif
