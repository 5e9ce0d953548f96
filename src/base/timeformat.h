/* The formats of timestamps, read into their parts; pure, for timestamp.c. */
#ifndef TIMEFORMAT_H
#define TIMEFORMAT_H

#include <stdbool.h>
#include <stdint.h>

#include "calendar.h"

#define NS_PER_S 1000000000LL

/* The parts of a date and a time that a timestamp gave, as bits. */
enum {
	HAVE_YEAR = 1 << 0,
	HAVE_MONTH = 1 << 1,
	HAVE_DAY = 1 << 2,
	HAVE_YDAY = 1 << 3,
	HAVE_HOUR = 1 << 4,
	HAVE_HOUR12 = 1 << 5,
	HAVE_AMPM = 1 << 6,
	HAVE_MIN = 1 << 7,
	HAVE_SEC = 1 << 8,
	HAVE_EPOCH = 1 << 9,
	HAVE_BITS = 10
};
#define HAVE_DATE (HAVE_YEAR | HAVE_MONTH | HAVE_DAY | HAVE_YDAY)
#define HAVE_TIME (HAVE_HOUR | HAVE_HOUR12 | HAVE_MIN | HAVE_SEC)

/* A timestamp as read, before its date is completed and checked. */
struct parts {
	struct timestamp_civil c;
	int yday;   /* %j: 1-366 */
	int hour12; /* %I: 1-12 */
	int pm;	    /* %p: 1 after noon */
	int32_t nsec;
	bool zoned;	  /* an offset or UTC was given: */
	int32_t offset_s; /* seconds east of UTC */
	int64_t epoch_s;  /* %s, or an epoch time */
	int digits;	  /* of the epoch time */
	unsigned have;
};

/*
 * Each reader below reads a timestamp at p, not past end, into t: the byte
 * after it, or NULL when there is none there.
 */

/*
 * The format f (--time-format's conversions, as strptime reads them); top
 * (not inside %T) lets a fraction of a second follow the seconds; strict
 * asks the built-in formats' fixed widths.
 */
const unsigned char *timeformat_match(const char *f, const unsigned char *p,
    const unsigned char *end, struct parts *t, bool strict, bool top);

/* An epoch time: 10 digits of seconds, or 13, 16 or 19 of ms, us or ns;
 * digits, when not 0, the only count taken. */
const unsigned char *timeformat_epoch(const unsigned char *p,
    const unsigned char *end, int digits, struct parts *t);

/* RFC 3339: 2026-11-23T14:05:06.123Z; or the first in p[0..end). */
const unsigned char *timeformat_iso(
    const unsigned char *p, const unsigned char *end, struct parts *t);
const unsigned char *timeformat_iso_search(
    const unsigned char *p, const unsigned char *end, struct parts *t);

/* Common Log Format's [23/Nov/2026:14:05:06 +0000]; or the first. */
const unsigned char *timeformat_clf(
    const unsigned char *p, const unsigned char *end, struct parts *t);
const unsigned char *timeformat_clf_search(
    const unsigned char *p, const unsigned char *end, struct parts *t);

/* RFC 3164's Nov 23 14:05:06, after a <PRI> or not. */
const unsigned char *timeformat_syslog(
    const unsigned char *p, const unsigned char *end, struct parts *t);

/* Is c a blank (space or tab) of the C locale?  p past the blanks. */
bool timeformat_is_blank(int c);
const unsigned char *timeformat_skip_blanks(
    const unsigned char *p, const unsigned char *end);

/*
 * Check a --time-format: strptime's conversions %Y %y %m %b %B %h %d %e
 * %j %H %I %p %M %S %s %T %R %D %F %z %Z %a %A %n %t %%, literal bytes,
 * and whitespace, which matches any whitespace, or none.  A fraction of
 * a second may follow %S, %T or %s unless the format itself goes on with
 * the '.' or ',' that would start it.  %Z takes UTC, GMT, UT, Z and
 * numeric names as UTC and any other name as the local zone.  The format
 * matches from the start of the record (or of fmt->field) and may run on
 * past that field.  Returns 0, or -1 with a one-line reason naming the
 * conversion in err (an unknown one, a format with no date or time, a
 * day without a month, ...).
 */
int timeformat_check(const char *spec, char *err, size_t errsz);

#endif
