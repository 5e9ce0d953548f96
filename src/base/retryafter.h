/* A server's Retry-After, as a command wrote it, to a delay; pure. */
#ifndef RETRYAFTER_H
#define RETRYAFTER_H

#include <stddef.h>
#include <stdint.h>

/* The longest delay a Retry-After gives: one day; longer ones are cut. */
#define RETRYAFTER_MAX_NS (INT64_C(86400) * 1000000000)

/* What retryafter_parse found. */
enum retryafter_status {
	RETRYAFTER_OK,	    /* a delay */
	RETRYAFTER_CLAMPED, /* a delay over RETRYAFTER_MAX_NS, cut to it */
	RETRYAFTER_EMPTY,   /* nothing but blanks and line ends */
	RETRYAFTER_BAD,	    /* neither delay-seconds nor an HTTP-date */
	RETRYAFTER_BAD_DATE /* an HTTP-date of no real day or time */
};

/*
 * The delay, in *delay_ns, that the Retry-After value text[0..len) asks
 * for at now_ns (wall-clock time, ns since the epoch, UTC); any bytes.
 * Blanks, CR and LF around it are ignored.  The value is either
 *  - delay-seconds (RFC 9110, 10.2.3): digits, and, beyond the RFC, a
 *    fraction ("1.5"), rounded up to the nanosecond; no sign; or
 *  - an HTTP-date (RFC 9110, 5.6.7) in any of its three forms:
 *    "Sun, 06 Nov 1994 08:49:37 GMT" (IMF-fixdate), "Sunday, 06-Nov-94
 *    08:49:37 GMT" (RFC 850, whose two-digit year is the one that puts
 *    it at most 50 years after now_ns and less than 50 before) or "Sun Nov  6 08:49:37 1994"
 *    (asctime, its day "06" or "6" too); names of days and months and
 *    GMT in any case, a day's short or long name in any form, not checked
 *    against the date; second 60 (a leap second) is the first of the
 *    next minute.  A date not after now_ns is a delay of 0.
 * A delay over RETRYAFTER_MAX_NS is cut to it, and says so.  Returns a
 * status above; *delay_ns is set for OK and CLAMPED only.
 */
enum retryafter_status retryafter_parse(
    const char *text, size_t len, int64_t now_ns, int64_t *delay_ns);

/* What a status means, for a message: "an HTTP-date of no real ...". */
const char *retryafter_reason(enum retryafter_status status);

#endif
