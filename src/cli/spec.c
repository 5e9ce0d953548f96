/* The limit spec: rates with their bursts, and speeds, read and checked. */
#include <stdbool.h>
#include <stdio.h>

#include "msg.h"
#include "spec.h"

/* Longest time a full bucket may take to refill: 100 years. */
#define MAX_REFILL_NS (100.0L * 365.25L * 86400.0L * 1e9L)
/* The default byte-mode burst is this much time at the rate. */
#define BYTE_BURST_NS 10000000ULL

/* -a sliding or fixed: N/PERIOD is the window; N is the only burst. */
static int
window_limit(const char *rate, const char *burst, const char *initial,
    enum algorithm alg, struct limit *out, char *err, size_t errsz)
{
	if (burst != NULL || initial != NULL)
		return msg_fail(err, errsz,
		    "%s does not apply to -a %s: N in "
		    "N/PERIOD is the most units in a window",
		    burst != NULL ? "-b" : "--initial",
		    alg == ALG_FIXED ? "fixed" : "sliding");
	if (out->rate.count == 0 || out->rate.period_ns == 0)
		return msg_fail(err, errsz,
		    "invalid rate '%s' for a window: give "
		    "a whole count per period, such as 100/min or 1/2s",
		    rate);
	if (out->rate.count > MAX_WINDOW_UNITS && alg == ALG_SLIDING)
		return msg_fail(err, errsz,
		    "invalid rate '%s' for -a sliding: at "
		    "most %llu units per window",
		    rate, (unsigned long long)MAX_WINDOW_UNITS);
	out->burst = out->initial = out->rate.count;
	return 0;
}

/* The amount s of option what (-b, --initial): whole units, or a time. */
static int
amount_of(const char *what, const char *s, bool bytes, struct amount *a,
    char *err, size_t errsz)
{
	char why[160];

	if (rate_parse_amount(s, bytes, a, why, sizeof why) != 0)
		return msg_fail(
		    err, errsz, "invalid %s '%s': %s", what, s, why);
	if (!a->is_duration && a->den != 1)
		return msg_fail(err, errsz,
		    "invalid %s '%s': give a whole number of units, or a "
		    "duration such as 2s",
		    what, s);
	return 0;
}

/*
 * The burst of out: -b, in units or as time at the rate.  Without it, one
 * unit, or 10 ms of the rate for a token bucket of bytes; a leaky bucket
 * holds one unit.  -b is checked, but not used, with a rate of inf.
 */
static int
burst_of(const char *burst, bool bytes, enum algorithm alg, struct limit *out,
    char *err, size_t errsz)
{
	struct amount a = { true, BYTE_BURST_NS, 1 };

	out->burst = 1;
	if (bytes && !out->rate.inf && alg == ALG_TOKEN &&
	    (rate_amount_units(&a, &out->rate, &out->burst) != 0 ||
		out->burst == 0))
		out->burst = 1;
	if (burst == NULL)
		return 0;
	if (amount_of("burst", burst, bytes, &a, err, errsz) != 0)
		return -1;
	if (!a.is_duration && a.num == 0)
		return msg_fail(err, errsz,
		    "invalid burst '%s': must be at least "
		    "1 unit",
		    burst);
	if (out->rate.inf)
		return 0;
	if (rate_amount_units(&a, &out->rate, &out->burst) != 0)
		return msg_fail(
		    err, errsz, "invalid burst '%s': too large", burst);
	if (out->burst == 0)
		return msg_fail(err, errsz, "invalid burst '%s': %s", burst,
		    a.is_duration ? "less than one unit at this rate" :
				    "must be at least 1 unit");
	return 0;
}

/* The tokens out starts with: --initial, or a full bucket. */
static int
initial_of(
    const char *initial, bool bytes, struct limit *out, char *err, size_t errsz)
{
	struct amount a;

	out->initial = out->burst;
	if (initial == NULL)
		return 0;
	if (amount_of("--initial", initial, bytes, &a, err, errsz) != 0)
		return -1;
	if (!out->rate.inf &&
	    (rate_amount_units(&a, &out->rate, &out->initial) != 0 ||
		out->initial > out->burst))
		return msg_fail(err, errsz,
		    "invalid --initial '%s': more than the "
		    "burst of %llu",
		    initial, (unsigned long long)out->burst);
	return 0;
}

/* A token or leaky bucket, or a rate of inf under any algorithm. */
static int
bucket_limit(const char *rate, const char *burst, const char *initial,
    bool bytes, enum algorithm alg, struct limit *out, char *err, size_t errsz)
{
	if (burst_of(burst, bytes, alg, out, err, errsz) != 0 ||
	    initial_of(initial, bytes, out, err, errsz) != 0)
		return -1;
	if (!out->rate.inf &&
	    (long double)out->burst * out->rate.d / out->rate.n > MAX_REFILL_NS)
		return msg_fail(err, errsz,
		    "invalid burst '%s': takes more than "
		    "100 years to refill at %s",
		    burst != NULL ? burst : "", rate);
	return 0;
}

int
spec_limit_parse(const char *rate, const char *burst, const char *initial,
    enum unit_mode mode, enum algorithm alg, struct limit *out, char *err,
    size_t errsz)
{
	bool bytes = mode == UNIT_BYTES;
	char why[160];
	int rc;

	if (rate_parse(rate, bytes, &out->rate, why, sizeof why) != 0)
		rc = msg_fail(err, errsz, "invalid rate '%s': %s", rate, why);
	else if (burst != NULL && alg == ALG_LEAKY)
		rc = msg_fail(err, errsz,
		    "-b %s does not apply to -a leaky, which "
		    "releases one unit every 1/RATE",
		    burst);
	else if ((alg == ALG_SLIDING || alg == ALG_FIXED) && !out->rate.inf)
		rc = window_limit(rate, burst, initial, alg, out, err, errsz);
	else
		rc = bucket_limit(
		    rate, burst, initial, bytes, alg, out, err, errsz);
	/* A value quoted in the message must not break it over lines. */
	if (rc != 0)
		msg_escape(err, errsz);
	return rc;
}

int
spec_byte_limit_parse(const char *rate, const char *burst, struct limit *l,
    char *err, size_t errsz)
{
	struct amount a = { true, BYTE_BURST_NS, 1 };
	char why[160];
	int rc = -1;

	if (rate_parse(rate, true, &l->rate, why, sizeof why) != 0)
		msg_fail(err, errsz, "invalid --byte-rate '%s': %s", rate, why);
	else if (l->rate.inf)
		msg_fail(err, errsz,
		    "invalid --byte-rate '%s': give a finite rate such as 1M/s",
		    rate);
	else if (burst != NULL &&
	    rate_parse_amount(burst, true, &a, why, sizeof why) != 0)
		msg_fail(
		    err, errsz, "invalid --byte-burst '%s': %s", burst, why);
	else if (rate_amount_units(&a, &l->rate, &l->burst) != 0 ||
	    (long double)l->burst * l->rate.d / l->rate.n > MAX_REFILL_NS)
		msg_fail(err, errsz,
		    "invalid --byte-burst '%s': takes more than 100 years to "
		    "refill",
		    burst);
	else if (l->burst == 0 && burst != NULL)
		msg_fail(err, errsz,
		    "invalid --byte-burst '%s': must be at least 1 byte",
		    burst);
	else
		rc = 0;
	if (rc != 0) {
		msg_escape(err, errsz);
		return rc;
	}
	if (l->burst == 0)
		l->burst = 1;
	l->initial = l->burst;
	return 0;
}

int
spec_speed_parse(
    const char *s, uint64_t *num, uint64_t *den, char *err, size_t errsz)
{
	const char *p = s;
	uint64_t n = 0, d = 1, g;
	int digits = 0, frac = 0;

	for (; *p >= '0' && *p <= '9'; p++, digits++)
		if (n <= MAX_SPEED * 10)
			n = n * 10 + (uint64_t)(*p - '0');
	/* After a point, if any: the integer part stops at a non-digit. */
	if (*p == '.')
		p++;
	for (; *p >= '0' && *p <= '9'; p++, digits++) {
		if (frac++ < MAX_SPEED_DIGITS) {
			n = n * 10 + (uint64_t)(*p - '0');
			d *= 10;
		} else if (*p != '0') {
			msg_fail(err, errsz,
			    "invalid --speed '%s': at most %d digits after "
			    "the point",
			    s, MAX_SPEED_DIGITS);
			msg_escape(err, errsz);
			return -1;
		}
	}
	/* 200% is 2, as pv and players write a speed. */
	if (*p == '%' && p[1] == '\0' && digits > 0) {
		p++;
		d *= 100;
	}
	if (digits == 0 || *p != '\0' || n == 0 || n > MAX_SPEED * d) {
		msg_fail(err, errsz,
		    "invalid --speed '%s': give a number above 0 and up to "
		    "%llu, such as 2, 0.5, 60 or 200%%",
		    s, (unsigned long long)MAX_SPEED);
		msg_escape(err, errsz);
		return -1;
	}
	g = rate_gcd(n, d);
	*num = n / g;
	*den = d / g;
	return 0;
}
