/* --retry and --failed-to: records whose command failed, tried again or kept. */
#ifndef RETRY_H
#define RETRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "failure.h"
#include "resume.h"
#include "stream.h"

/* A record waiting to be tried again, or one that failed for good. */
struct retry_rec {
	char *rec;
	size_t len;
	uint64_t seq;	/* its number in the input */
	unsigned tries; /* tries made */
	int64_t due_ns; /* waiting: when it may be put back */
};

/* Where a record put back will leave the stream, and what it is. */
struct retry_mark {
	uint64_t leave; /* it is the leave-th record to leave */
	uint64_t seq;
	unsigned tries;
	char *rec; /* a copy, for --failed-to should its try never start */
	size_t len;
};

struct retries {
	unsigned max; /* tries again at most; 0: none */
	struct exitset on;
	int64_t delay_ns, max_ns;
	struct retry_rec *wait; /* records waiting for their time */
	size_t nwait, capwait;
	struct retry_mark *mark; /* records put back, in leaving order */
	size_t nmark, headmark, capmark;
	uint64_t put_back;	  /* records put back that left */
	struct retry_rec *failed; /* for --failed-to */
	size_t nfailed, capfailed;
	const char *failed_to;
	int failed_fd; /* failed_to, opened at the start; or -1 */
	uint64_t rng;
	char dir[128];	/* TBTHROTTLE_RETRY_AFTER's files; empty: none */
	unsigned slots; /* a file each */
	bool said_after;
	int64_t held_ns;       /* the latest time a command refused asked
				* to wait for (its Retry-After); 0: none */
	bool taken;	       /* the mark before headmark was taken by
				* retries_which, its copy still kept */
	uint64_t retried;      /* tries again started (handed on) */
	uint64_t given_up;     /* records put back whose try never started:
				* dropped by the limit, or held at the end */
	struct resume *resume; /* NULL, or the records --resume took out */
};

/*
 * Set up t: up to max tries again of commands that exit with a status
 * in on, waits from delay_ns doubling to max_ns; failed records kept for
 * failed_to (NULL: none), opened now to append, so that a name that
 * cannot be written is said before any command runs.  Exits (status 1)
 * when it cannot be opened, or the files for TBTHROTTLE_RETRY_AFTER
 * cannot be made.
 */
void retries_init(struct retries *t, unsigned max, const struct exitset *on,
    int64_t delay_ns, int64_t max_ns, const char *failed_to, unsigned slots);

/* Is a record's copy needed when its command starts? */
bool retries_keep(const struct retries *t);

/*
 * The file of slot for TBTHROTTLE_RETRY_AFTER into out ("" when none),
 * removed, so that what is there after the command is its own.
 */
void retries_file(
    const struct retries *t, unsigned slot, char *out, size_t size);

/*
 * The command of record rec[0..len), numbered seq, ended after its
 * tries-th try with wait(2) status st (timed_out: ended by --timeout,
 * a failure whatever st), at now_ns, in slot: true when it is to be
 * tried again (t keeps a copy); false when its end stands (with st a
 * failure, kept for --failed-to).  No try again once stopping.  A
 * status retries are for, with a Retry-After from the command, moves
 * t->held_ns on to the time it names.
 */
bool retries_ended(struct retries *t, const char *rec, size_t len, uint64_t seq,
    unsigned tries, int st, bool timed_out, unsigned slot, int64_t now_ns,
    bool stopping);

/*
 * The record that is the leave-th to leave the stream: its number and
 * tries made, when it was put back; else its number is in the input's
 * order (past the records --resume took out), tries 0.
 */
void retries_which(
    struct retries *t, uint64_t leave, uint64_t *seq, unsigned *tries);

/*
 * The record retries_which last named did not start after all (a stop,
 * or a command that cannot be run, kept it in the stream): when it was
 * one put back, it is again, so that the run's end counts it failed.
 */
void retries_unwhich(struct retries *t);

/*
 * Put the records due by now_ns back into s; left records have left s
 * so far.  When to ask again: the next due, INT64_MAX while none waits.
 */
int64_t retries_put_back(
    struct retries *t, struct stream *s, uint64_t left, int64_t now_ns);

/* Records waiting to be tried again. */
size_t retries_waiting(const struct retries *t);

/*
 * The run ends: those still waiting failed, and so did those put back
 * whose try never started (the limit dropped it, or it was still held);
 * t->given_up counts the latter.  Write the failed records to --failed-to
 * in input order, each with delim after it.  0, or 1 when it could not
 * be written.
 */
int retries_finish(struct retries *t, char delim);

#endif
