/* Unit tests of spec.c: one limit from the text of its rate and burst. */
#include <string.h>

#include "spec.h"
#include "unit.h"

/* One limit, as the command line, -R and tiers files read it. */
void
test_limit_parse(void)
{
	struct limit l;
	char err[512];

	current = "spec_limit_parse";
	check(spec_limit_parse("10/s", NULL, NULL, UNIT_LINES, ALG_TOKEN, &l,
		  err, sizeof err) == 0 &&
		l.burst == 1 && l.initial == 1 && l.rate.n == 1 &&
		l.rate.d == NS / 10,
	    "10/s: one record");
	check(spec_limit_parse("1M/s", NULL, NULL, UNIT_BYTES, ALG_TOKEN, &l,
		  err, sizeof err) == 0 &&
		l.burst == 10485,
	    "1M/s of bytes: 10 ms");
	check(spec_limit_parse("1M/s", NULL, NULL, UNIT_BYTES, ALG_LEAKY, &l,
		  err, sizeof err) == 0 &&
		l.burst == 1,
	    "leaky bytes: one");
	check(spec_limit_parse("5/s", "2s", "3", UNIT_NULL, ALG_TOKEN, &l, err,
		  sizeof err) == 0 &&
		l.burst == 10 && l.initial == 3,
	    "burst as time, initial");
	check(spec_limit_parse("inf", "5", NULL, UNIT_LINES, ALG_TOKEN, &l, err,
		  sizeof err) == 0 &&
		l.rate.inf && l.burst == 1,
	    "inf");
	check(spec_limit_parse("1/min", "5", NULL, UNIT_LINES, ALG_LEAKY, &l,
		  err, sizeof err) != 0 &&
		strcmp(err,
		    "-b 5 does not apply to -a "
		    "leaky, which releases one unit every 1/RATE") == 0,
	    "%s", err);
	check(spec_limit_parse("1/3650day", "5000", NULL, UNIT_LINES, ALG_TOKEN,
		  &l, err, sizeof err) != 0 &&
		strcmp(err,
		    "invalid burst '5000': "
		    "takes more than 100 years to refill at 1/3650day") == 0,
	    "%s", err);
	check(spec_limit_parse("7/min", "2", NULL, UNIT_LINES, ALG_SLIDING, &l,
		  err, sizeof err) != 0 &&
		strcmp(err,
		    "-b does not apply to -a "
		    "sliding: N in N/PERIOD is the most units in a window") ==
		    0,
	    "%s", err);
	check(spec_limit_parse("5/\n", NULL, NULL, UNIT_LINES, ALG_TOKEN, &l,
		  err, sizeof err) != 0 &&
		strchr(err, '\n') == NULL && strstr(err, "'5/\\x0a'") != NULL,
	    "one line: %s", err);
}

/* The byte limit of records, --byte-rate with its --byte-burst. */
void
test_byte_limit_parse(void)
{
	struct limit l;
	char err[512];

	current = "spec_byte_limit_parse";
	check(spec_byte_limit_parse("1M/s", NULL, &l, err, sizeof err) == 0 &&
		l.burst == 10485 && l.initial == l.burst,
	    "1M/s: 10 ms of burst, full");
	check(spec_byte_limit_parse("1/min", NULL, &l, err, sizeof err) == 0 &&
		l.burst == 1,
	    "a slow rate: at least a byte");
	check(spec_byte_limit_parse("1K/s", "1s", &l, err, sizeof err) == 0 &&
		l.burst == 1024,
	    "a burst of a second");
	check(spec_byte_limit_parse("inf", NULL, &l, err, sizeof err) != 0 &&
		strcmp(err,
		    "invalid --byte-rate 'inf': give a finite rate such as "
		    "1M/s") == 0,
	    "%s", err);
	check(spec_byte_limit_parse("1K/s", "0", &l, err, sizeof err) != 0 &&
		strcmp(err,
		    "invalid --byte-burst '0': must be at least 1 byte") == 0,
	    "%s", err);
	check(spec_byte_limit_parse("1/\t", NULL, &l, err, sizeof err) != 0 &&
		strstr(err, "'1/\\x09'") != NULL,
	    "one line: %s", err);
}
