/* --resume: the records a joblog says are done, taken out as they are read; pure. */
#ifndef RESUME_H
#define RESUME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "framer.h"
#include "seqset.h"

/* Where the numbers of the records kept jump over records taken out. */
struct resume_jump {
	uint64_t kept; /* the kept-th record kept */
	uint64_t seq;  /* is the seq-th of the input */
};

/*
 * Records are numbered from 1 in input order, as --joblog's Seq numbers
 * them; those in done are taken out of the input before anything else
 * sees them, so that no limit is booked for them and no command starts.
 * The records kept keep their numbers in the input: each jump over
 * records taken out is noted, until the records before it have gone, so
 * that what is noted is at most a note per record held.
 */
struct resume {
	struct seqset done; /* the numbers not to run again */
	uint64_t seen;	    /* records of the input looked at */
	uint64_t skipped;   /* of them, taken out */
	uint64_t kept;	    /* of them, kept */
	bool gap;	    /* records were taken out since the last kept */
	struct resume_jump *jump;
	size_t head, njump, cap;
};

/* A resume that takes the set done over (NULL: nothing is done). */
void resume_init(struct resume *r, struct seqset *done);

/* Free what r holds. */
void resume_free(struct resume *r);

/*
 * Take the records r->done holds out of buf[0..len), the next records of
 * the input: whole records, and with final (the end of the input) a last
 * one without its delimiter.  The bytes kept close up: their length goes
 * to *kept_len.  *looked: of the bytes kept, those of the records looked
 * at, from the start; a record not yet whole is left, to be looked at
 * when the rest has come, by a later call that starts at it.  0, or -1
 * when memory runs out (what was looked at so far is as said).
 */
int resume_filter(struct resume *r, const struct framer *f, char *buf,
    size_t len, bool final, size_t *kept_len, size_t *looked);

/*
 * A record that could not be looked at (longer than the buffer that holds
 * records) went by: it is counted, and kept whatever its number.  0, or
 * -1 when memory runs out.
 */
int resume_pass(struct resume *r);

/*
 * The number in the input of the n-th record kept (n from 1); n must
 * never be less than in the call before, nor more than r->kept.
 */
uint64_t resume_seq(struct resume *r, uint64_t n);

#endif
