/* A fake engine for the unit tests: the real policies on a fake clock. */
#ifndef SIM_H
#define SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "policy.h"

/* Most records of a run, and the buffer they arrive into. */
#define SIM_RECORDS 120
#define SIM_BUF 448

/*
 * Records arrive at arrive[i] into a small buffer, as "K NNNN\n" (key K,
 * a letter of three, or with wide "kDD" of a hundred; number NNNN), with
 * " SECS.NANOS" (ts[i] >= 0) or " -" (ts[i] < 0) after it when ts is
 * given, and pad[i] bytes of 'x' when pad is given.  The policy is asked
 * what to do, and the engine does it at once, except that a wake-up is
 * sometimes late (jitter).  At the first turn at or after change_at,
 * change(change_ctx, now) changes the limits and the policy is told, as
 * a live change (-R) does.  Release and drop times are kept per record.
 */
struct sim {
	char buf[SIM_BUF];
	size_t len;
	bool eof;
	int64_t now, ready_ns, read_ns;
	const int64_t *arrive;
	const int *key;
	const int64_t *ts;	  /* NULL, or each record's timestamp */
	const unsigned char *pad; /* NULL, or each record's padding */
	int count, next;
	bool wide; /* keys "k" and two digits (key[i] % 100), not a letter */
	int64_t rel[SIM_RECORDS]; /* release time, or -1 */
	bool dropped[SIM_RECORDS];
	int order[SIM_RECORDS], nrel, ndrop;
	bool jitter;
	uint64_t (*below)(uint64_t n); /* the jitter's random numbers */
	int64_t change_at;	       /* INT64_MAX: no change */
	void (*change)(void *ctx, int64_t now_ns);
	void *change_ctx;
	/* NULL, or: each record sent goes, as a command starts, up to
	 * spawn_ns after the one before, somewhere within that time, and
	 * then the gate is told it went (gate_went), as the engine tells. */
	const struct gate *went;
	int64_t spawn_ns;
	size_t most_held; /* records held while waiting, at most */
	bool failed;	  /* the policy stopped the run (ACT_FAIL) */
	int bad;	  /* actions the engine cannot take */
};

/* A run of count records arriving at arrive[] with keys key[]. */
void sim_start(struct sim *s, const int64_t *arrive, const int *key, int count,
    bool jitter, uint64_t (*below)(uint64_t n));

/*
 * Run policy p over the arrivals until the input is all out.  Release
 * times are when a record went: with s->went, somewhere between the
 * start of its spawn and when the gate was told.
 */
void sim_run(struct sim *s, const struct policy *p);

/* A digest of what the run did with each record: when, and its fate. */
uint64_t sim_digest(const struct sim *s);

#endif
