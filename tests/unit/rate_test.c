/* Unit tests of units.c: parsing of rates and amounts. */
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "rate.h"
#include "unit.h"

static void
rate_is(const char *s, bool bytes, uint64_t n, uint64_t d)
{
	struct rate r;
	char err[200] = "";
	int rc = rate_parse(s, bytes, &r, err, sizeof err);

	check(rc == 0 && !r.inf && r.n == n && r.d == d,
	    "rate '%s' -> rc %d %" PRIu64 "/%" PRIu64 " (want %" PRIu64
	    "/%" PRIu64 ") %s",
	    s, rc, r.n, r.d, n, d, err);
}

static void
rate_bad(const char *s, bool bytes, const char *want)
{
	struct rate r;
	char err[200] = "";
	int rc = rate_parse(s, bytes, &r, err, sizeof err);

	check(rc == -1 && strstr(err, want) != NULL,
	    "rate '%s' should fail with '%s', got rc %d '%s'", s, want, rc,
	    err);
}

void
test_parse_rate(void)
{
	struct rate r;
	char err[200];

	current = "parse_rate";
	rate_is("5", false, 1, 200000000);
	rate_is("5/s", false, 1, 200000000);
	rate_is("0.5", false, 1, 2000000000);
	rate_is("90/min", false, 3, 2000000000);
	rate_is("2/h", false, 1, 1800000000000ULL);
	rate_is("1/day", false, 1, 86400000000000ULL);
	rate_is("1/d", false, 1, 86400000000000ULL);
	rate_is("3/10s", false, 3, 10000000000ULL);
	rate_is("1/250ms", false, 1, 250000000);
	rate_is("3/s", false, 3, 1000000000);
	rate_is("7/min", false, 7, 60000000000ULL);
	rate_is("2k/s", false, 1, 500000);
	rate_is("1M/s", false, 1, 1000);
	rate_is("1G/s", false, 1, 1);
	rate_is("10/seconds", false, 1, 100000000);
	rate_is("10/minutes", false, 1, 6000000000ULL);
	rate_is("1/1.5s", false, 1, 1500000000);
	rate_is(".5/s", false, 1, 2000000000);
	rate_is("1.5M/s", true, 3072, 1953125);
	rate_is("64KiB/s", true, 128, 1953125);
	rate_is("64K/s", true, 128, 1953125);
	rate_is("10MB/min", true, 1, 6000);
	rate_is("1kB/s", true, 1, 1000000);
	rate_is("100B/s", true, 1, 10000000);
	rate_is("1T/min", true, 536870912, 29296875);
	check(
	    rate_parse("inf", false, &r, err, sizeof err) == 0 && r.inf, "inf");
	check(
	    rate_parse("INF", true, &r, err, sizeof err) == 0 && r.inf, "INF");
	check(rate_parse("Infinity", false, &r, err, sizeof err) == 0 && r.inf,
	    "Infinity");

	rate_bad("0", false, "above zero");
	rate_bad("0/s", false, "above zero");
	rate_bad("-1", false, "signed");
	rate_bad("abc", false, "expected a number");
	rate_bad("1e400", false, "exponent too large");
	/* Exponents are exact, whatever their sign or case. */
	rate_is("1e6", false, 1, 1000);
	rate_is("2.5e3/s", false, 1, 400000);
	rate_is("1E-3/s", false, 1, 1000000000000ULL);
	rate_is("1e+2/min", false, 1, 600000000);
	rate_is("0.5e1", false, 1, 200000000);
	rate_is("12e-1/s", false, 3, 2500000000ULL);
	rate_bad("1e", false, "unknown unit 'e'");
	rate_bad("1e-", false, "unknown unit 'e'");
	rate_bad("1e30", false, "value too large");
	rate_bad("5e-10/s", false, "below the slowest rate");
	/* Byte suffixes as pv and curl take them: lowercase is 1024-based. */
	rate_is("500k/s", true, 8, 15625);	       /* 512000 B/s */
	rate_is("2g/min", true, 1048576, 29296875);    /* 2^31 / 60 s */
	rate_is("1t/day", true, 16777216, 1318359375); /* 2^40 / day */
	rate_is("2m/s", true, 4096, 1953125);	       /* 2^21 / s */
	rate_bad("2m", true, "write 2m/s for MiB a second, or 2/min for bytes");
	rate_bad("2m", false, "a period needs a slash: 2/m");
	rate_bad("1T/s", true, "above the fastest rate, 1TB/s");
	rate_bad("2000G/s", false, "above the fastest rate, 1000G/s");
	rate_bad("10/fortnight", false, "unknown period 'fortnight'");
	rate_bad("5/0s", false, "longer than zero");
	rate_bad("", false, "empty");
	rate_bad("1KiB/s", false, "for byte rates");
	rate_bad("10q", false, "unknown unit 'q'");
	rate_bad("10s", false,
	    "a period needs a slash: 10/s for 10 a second, or 1/10s for one "
	    "every 10 s");
	/* Below one a rate is an interval: 0.2/s would be 25 times slower. */
	rate_bad("0.2s", false, "one every 0.2 s is 1/0.2s (5/s)");
	rate_bad(
	    "0.3min", true, "one every 0.3 min is 1/0.3min (about 3.333/min)");
	rate_bad("0.4s", false, "(2.5/s)");
	rate_bad("1s", false, "a period needs a slash: 1/s");
	/* m/s of records meant a million, M. */
	rate_bad("1m/s", false,
	    "m is 2^20 bytes with -c; for a million records give M: 1M/s");
	rate_bad("5/", false, "missing period");
	rate_bad("5/10", false, "missing period");
	rate_bad("1.2.3", false, "unexpected");
	rate_bad("5 /s", false, "unexpected ' /s'");
	rate_bad("2T/s", true, "fastest");
	rate_bad("1/10000day", false, "slowest");
	rate_bad("99999999999999999999999", false, "too many digits");

	/* Awkward decimals still give an exact or near-exact ratio. */
	check(
	    rate_parse("1.23456789012345/s", false, &r, err, sizeof err) == 0 &&
		fabs(rate_per_sec(&r) / 1.23456789012345 - 1) < 1e-12,
	    "approximation of 1.23456789012345/s: %g", rate_per_sec(&r));
	check(r.n <= (UINT64_MAX >> 1) / r.d, "n*d < 2^63 after approximation");
}

static void
amount_is(const char *s, bool bytes, const char *rate, uint64_t want)
{
	struct amount a;
	struct rate r;
	uint64_t u = 0;
	char err[200] = "";
	int rc;

	(void)rate_parse(rate, bytes, &r, err, sizeof err);
	rc = rate_parse_amount(s, bytes, &a, err, sizeof err);
	if (rc == 0)
		rc = rate_amount_units(&a, &r, &u);
	check(rc == 0 && u == want,
	    "amount '%s' at %s -> %" PRIu64 " (want %" PRIu64 ") %s", s, rate,
	    u, want, err);
}

void
test_parse_amount(void)
{
	struct amount a;
	char err[200];

	current = "parse_amount";
	amount_is("10", false, "1/s", 10);
	amount_is("2k", false, "1/s", 2000);
	amount_is("2s", false, "5/s", 10);
	amount_is("500ms", false, "10/s", 5);
	amount_is("1.5min", false, "2/s", 180);
	amount_is("64K", true, "1M/s", 65536);
	amount_is("1MB", true, "1M/s", 1000000);
	amount_is("10ms", true, "1M/s", 10485);
	amount_is("1.5", false, "1/s", 1);
	amount_is("2m", false, "1/s", 120);
	check(rate_parse_amount("2x", false, &a, err, sizeof err) == -1 &&
		strstr(err, "unknown unit 'x'") != NULL,
	    "2x: %s", err);
	check(rate_parse_amount("-1", false, &a, err, sizeof err) == -1,
	    "negative amount");
	check(rate_parse_amount("", false, &a, err, sizeof err) == -1, "empty");
	/* A value with control bytes cannot break a message over lines. */
	check(rate_parse_amount("5\n64q", false, &a, err, sizeof err) == -1 &&
		strchr(err, '\n') == NULL && strstr(err, "\\x0a") != NULL,
	    "control bytes escaped: %s", err);
	check(rate_parse_amount("2s5", false, &a, err, sizeof err) == -1,
	    "trailing junk after a duration");
}
