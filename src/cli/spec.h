/* The limit spec: a rate, its burst and initial tokens, and a replay speed. */
#ifndef SPEC_H
#define SPEC_H

#include <stddef.h>
#include <stdint.h>

#include "rate.h"

enum unit_mode { UNIT_LINES, UNIT_NULL, UNIT_DELIM, UNIT_BYTES };
enum algorithm { ALG_TOKEN, ALG_LEAKY, ALG_SLIDING, ALG_FIXED };

/*
 * The most units in a window of -a sliding: SLIDING_MAX_LIMIT (the unit
 * tests check it), named here so that the spec need not include the
 * limiters.
 */
#define MAX_WINDOW_UNITS 1000000ULL

/* The fastest --speed, and the most digits after its point: the speed's
 * numerator and denominator then multiply to less than 2^63. */
#define MAX_SPEED 1000000ULL
#define MAX_SPEED_DIGITS 6

/* One -r with its -b and --initial, validated. */
struct limit {
	struct rate rate;
	uint64_t burst;	  /* units; 1 when the rate is inf */
	uint64_t initial; /* tokens at start, <= burst */
};

/*
 * Parse one limit: the text of a -r, of its -b and of --initial (NULL when
 * not given), for units of mode under algorithm alg.  The command line,
 * -R and tiers files use it.  Returns 0 with the limit in out, or -1 with
 * a one-line reason in err.  A rate of inf gives out->rate.inf, burst and
 * initial 1.
 */
int spec_limit_parse(const char *rate, const char *burst, const char *initial,
    enum unit_mode mode, enum algorithm alg, struct limit *out, char *err,
    size_t errsz);

/*
 * Parse the byte limit of records: the text of --byte-rate, a finite rate
 * of bytes, and of --byte-burst (NULL for 10 ms of the rate).  Returns 0
 * with the limit in out, full at start, or -1 with a one-line reason.
 */
int spec_byte_limit_parse(const char *rate, const char *burst,
    struct limit *out, char *err, size_t errsz);

/*
 * Parse a --speed: a positive decimal number up to MAX_SPEED with at most
 * MAX_SPEED_DIGITS after the point, as the fraction num/den in lowest
 * terms.  The command line and -R both use it.  Returns 0, or -1 with a
 * one-line reason naming the value in err.
 */
int spec_speed_parse(
    const char *s, uint64_t *num, uint64_t *den, char *err, size_t errsz);

#endif
