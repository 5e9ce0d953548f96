/* Parsing of rates, amounts and durations; pure, no I/O. */
#ifndef RATE_H
#define RATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * A rate of n units every d nanoseconds, reduced, with n * d < 2^63 so the
 * schedule arithmetic never overflows.  inf means no limit.
 */
struct rate {
	bool inf;
	uint64_t n;
	uint64_t d;
	uint64_t count;	    /* NUMBER[SUFFIX] as written, 0 if not whole */
	uint64_t period_ns; /* [N]PERIOD as written, 0 if not whole ns */
};

/* An amount: a count of units, or a duration to be scaled by a rate. */
struct amount {
	bool is_duration;
	uint64_t num; /* count = num / den, or duration_ns = num / den */
	uint64_t den;
};

/* Longest time one unit may take at the slowest rate accepted. */
#define RATE_MAX_INTERVAL_NS (3650LL * 86400 * 1000000000)
/* Fastest rate accepted, in units per second. */
#define RATE_MAX_PER_SEC 1000000000000ULL

/*
 * Parse RATE as in the man page: NUMBER[SUFFIX][/[N]PERIOD] or "inf".
 * bytes selects byte suffixes (K = 1024, KB = 1000) over record ones
 * (k = 1000).  Returns 0, or -1 with a reason (no value quoted) in err.
 */
int rate_parse(
    const char *s, bool bytes, struct rate *out, char *err, size_t errsz);

/*
 * Parse an amount for --burst or --initial: NUMBER[SUFFIX] in units, or
 * NUMBER followed by a period word (2s, 500ms, 1.5min) for a duration.
 */
int rate_parse_amount(
    const char *s, bool bytes, struct amount *out, char *err, size_t errsz);

/*
 * Convert an amount to whole units at rate r, rounding down.  Returns 0,
 * or -1 when the value does not fit in 2^62 units.
 */
int rate_amount_units(
    const struct amount *a, const struct rate *r, uint64_t *units);

/*
 * r as a person reads it, into out: "90/min", "3/10s", "1048576 B/s"
 * (bytes), "2.5/s" when it was not a whole count per whole period.
 */
void rate_format(const struct rate *r, bool bytes, char *out, size_t size);

/* Units per second of r as a double, for messages and reports only. */
double rate_per_sec(const struct rate *r);

/* The greatest common divisor of a and b (a when b is 0). */
uint64_t rate_gcd(uint64_t a, uint64_t b);

#endif
