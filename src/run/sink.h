/* A sink: where the engine hands the records it releases. */
#ifndef SINK_H
#define SINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gate.h"
#include "policy.h"
#include "stream.h"

/* No bound on the records a sink may take now. */
#define SINK_ANY SIZE_MAX

/*
 * A way to deliver records: standard output (sink_stdout), a command
 * per record (jobs_sink).  The engine knows no other.
 */
struct sink {
	void *self;		 /* the sink's own state */
	const struct gate *gate; /* told of each unit once it went */
	/*
	 * May records be sent now?  False when none ever will (the sink
	 * stopped taking them: the run ends as at a stop); else *units,
	 * how many now: 0 to wait for room, SINK_ANY for no bound.
	 */
	bool (*room)(struct sink *k, size_t *units);
	/*
	 * Send what a releases of s: whole records (ACT_SEND), or a record
	 * longer than the buffer, passed (ACT_LONG).  Each unit, once it
	 * went (written, its command started), is told to the gate
	 * (sink_went).  What cannot go now stays in s, unsent, as a stop
	 * leaves it.
	 */
	void (*send)(struct sink *k, struct stream *s, const struct action *a);
	/*
	 * Sleep until deadline_ns, or until room comes, or until woken(ctx)
	 * says the wait is over: it is asked after each signal.
	 */
	void (*wait)(struct sink *k, int64_t deadline_ns,
	    bool (*woken)(void *ctx), void *ctx);
	/*
	 * NULL, or: put the records due to go again by now_ns back into s
	 * (stream_inject), to be released as any other.  Returns when to
	 * ask next: the time the next is due; INT64_MAX while none waits but
	 * what is under way may bring one back; INT64_MIN when none will.
	 */
	int64_t (*again)(struct sink *k, struct stream *s, int64_t now_ns);
	/*
	 * The run ends: let what is under way finish, and return the sink's
	 * own exit status; 0 when the run's stands.
	 */
	int (*finish)(struct sink *k);
};

/* Make k the sink that writes to standard output, telling g of units. */
void sink_stdout(struct sink *k, const struct gate *g);

/*
 * units units, of bytes bytes, of what k was sent went by now: the limits
 * count them as of then (the time taken after the write, or the spawn,
 * is no earlier than when they really went).
 */
void sink_went(const struct sink *k, uint64_t units, uint64_t bytes);

/*
 * The wait of a sink that makes no room of its own: sleep until
 * deadline_ns, or until woken(ctx), asked after each signal, says so.
 */
void sink_sleep(int64_t deadline_ns, bool (*woken)(void *ctx), void *ctx);

#endif
