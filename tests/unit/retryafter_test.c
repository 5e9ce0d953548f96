/*
 * Unit tests of retryafter.c: delay-seconds, the three forms of
 * HTTP-date, the calendar, RFC 850's century, the cap, and what is
 * refused.  The times were computed apart, with date -u -d ... +%s.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "calendar.h"
#include "retryafter.h"
#include "unit.h"

/* 2026-11-23 14:05:06 UTC, a Monday. */
#define MON_S INT64_C(1795442706)

/* text (with its length, NULs and all) at now_ns: status and delay. */
static void
want_n(const char *text, size_t len, int64_t now_ns,
    enum retryafter_status want, int64_t want_ns)
{
	int64_t ns = -1;
	enum retryafter_status got = retryafter_parse(text, len, now_ns, &ns);
	int set = got == RETRYAFTER_OK || got == RETRYAFTER_CLAMPED;

	check(got == want && (!set || ns == want_ns),
	    "'%.*s' at %" PRId64 ": status %d delay %" PRId64
	    " (want %d, %" PRId64 ")",
	    (int)len, text, now_ns, (int)got, set ? ns : -1, (int)want,
	    want_ns);
}

static void
want(const char *text, int64_t now_ns, enum retryafter_status status,
    int64_t want_ns)
{
	want_n(text, strlen(text), now_ns, status, want_ns);
}

static void
want_delay(const char *text, int64_t now_ns, int64_t want_ns)
{
	want(text, now_ns, RETRYAFTER_OK, want_ns);
}

static void
want_bad(const char *text, enum retryafter_status status)
{
	want(text, MON_S * NS, status, 0);
}

static void
test_seconds(void)
{
	int64_t now = MON_S * NS + 250 * MS;

	current = "retryafter: delay-seconds, trimmed, fractions rounded up";
	want_delay("120", now, 120 * NS);
	want_delay("0", now, 0);
	want_delay("007", now, 7 * NS);
	want_delay(" \t30\r\n", now, 30 * NS);
	want_delay("30\n\n", now, 30 * NS);
	want_delay("1.5", now, 1500 * MS);
	want_delay("0.000000001", now, 1);
	want_delay("0.0000000001", now, 1);
	want_delay("2.0000000000", now, 2 * NS);
	want_delay("0.9999999999", now, NS);
	want_delay("86400", now, RETRYAFTER_MAX_NS);
	want("86400.000000001", now, RETRYAFTER_CLAMPED, RETRYAFTER_MAX_NS);
	want("86401", now, RETRYAFTER_CLAMPED, RETRYAFTER_MAX_NS);
	want("99999999999999999999999999", now, RETRYAFTER_CLAMPED,
	    RETRYAFTER_MAX_NS);
	/* Seconds do not depend on the clock. */
	want_delay("5", INT64_MIN, 5 * NS);
	want_delay("5", INT64_MAX, 5 * NS);
}

static void
test_forms(void)
{
	int64_t now = MON_S * NS + 250 * MS;

	current = "retryafter: IMF-fixdate, RFC 850 and asctime, from now";
	want_delay("Mon, 23 Nov 2026 14:05:36 GMT", now, 29750 * MS);
	want_delay("Monday, 23-Nov-26 14:05:36 GMT", now, 29750 * MS);
	want_delay("Mon Nov 23 14:05:36 2026", now, 29750 * MS);
	want_delay("  Mon, 23 Nov 2026 14:05:36 GMT\r\n", now, 29750 * MS);
	/* Names in any case; a day's name not checked against the date. */
	want_delay("MON, 23 NOV 2026 14:05:36 gmt", now, 29750 * MS);
	want_delay("Fri, 23 Nov 2026 14:05:36 GMT", now, 29750 * MS);
	want_delay("Monday, 23 Nov 2026 14:05:36 GMT", now, 29750 * MS);
	want_delay("Mon, 23-Nov-26 14:05:36 GMT", now, 29750 * MS);
	/* asctime's day: " 3", "03" and, leniently, "3". */
	want_delay(
	    "Tue Nov  3 14:05:36 2026", (MON_S - 20 * 86400) * NS, 30 * NS);
	want_delay(
	    "Tue Nov 03 14:05:36 2026", (MON_S - 20 * 86400) * NS, 30 * NS);
	want_delay(
	    "Tue Nov 3 14:05:36 2026", (MON_S - 20 * 86400) * NS, 30 * NS);
	/* The past, and now, are no delay; the second of now is past. */
	want_delay("Sun, 06 Nov 1994 08:49:37 GMT", now, 0);
	want_delay("Mon, 23 Nov 2026 14:05:06 GMT", now, 0);
	want_delay("Sun, 06 Nov 1994 08:49:37 GMT", 784111777 * NS - 1, 1);
	want_delay("Sun, 06 Nov 1994 08:49:37 GMT", INT64_MAX, 0);
	/* A day ahead is the most; beyond, cut to it. */
	want_delay(
	    "Tue, 24 Nov 2026 14:05:06 GMT", MON_S * NS, RETRYAFTER_MAX_NS);
	want("Tue, 24 Nov 2026 14:05:07 GMT", MON_S * NS, RETRYAFTER_CLAMPED,
	    RETRYAFTER_MAX_NS);
	want("Fri, 31 Dec 9999 23:59:59 GMT", INT64_MIN, RETRYAFTER_CLAMPED,
	    RETRYAFTER_MAX_NS);
	/* Second 60, a leap second: the next minute's first. */
	want_delay("Mon, 23 Nov 2026 14:05:60 GMT", now, 53750 * MS);
}

static void
test_calendar(void)
{
	current = "retryafter: leap years, and days no month has";
	/* 2024-02-29 12:00:00 is 1709208000. */
	want_delay("Thu, 29 Feb 2024 12:00:00 GMT", 1709207990 * NS, 10 * NS);
	want_delay("Thu Feb 29 12:00:00 2024", 1709207990 * NS, 10 * NS);
	/* 2000 was a leap year (divisible by 400): in the past. */
	want_delay("Tue, 29 Feb 2000 00:00:00 GMT", MON_S * NS, 0);
	want_bad("Sat, 29 Feb 2025 00:00:00 GMT", RETRYAFTER_BAD_DATE);
	want_bad("Thu, 29 Feb 1900 00:00:00 GMT", RETRYAFTER_BAD_DATE);
	want_bad("Mon, 29 Feb 2100 00:00:00 GMT", RETRYAFTER_BAD_DATE);
	want_bad("Thu, 31 Apr 2026 00:00:00 GMT", RETRYAFTER_BAD_DATE);
	want_bad("Thu, 32 Jan 2026 00:00:00 GMT", RETRYAFTER_BAD_DATE);
	want_bad("Thu, 00 Jan 2026 00:00:00 GMT", RETRYAFTER_BAD_DATE);
	want_bad("Thu, 01 Jan 2026 24:00:00 GMT", RETRYAFTER_BAD_DATE);
	want_bad("Thu, 01 Jan 2026 23:60:00 GMT", RETRYAFTER_BAD_DATE);
	want_bad("Thu, 01 Jan 2026 23:59:61 GMT", RETRYAFTER_BAD_DATE);
	want_bad("Thu Feb 30 00:00:00 2026", RETRYAFTER_BAD_DATE);
	want_bad("Thursday, 30-Feb-26 00:00:00 GMT", RETRYAFTER_BAD_DATE);
}

static void
test_two_digit_years(void)
{
	int64_t now = MON_S * NS;

	current = "retryafter: RFC 850's years, within 50 years of now";
	want_delay("Monday, 23-Nov-26 14:05:36 GMT", now, 30 * NS);
	/* 2076-11-23 14:05:06 is 50 years ahead, not more: 2076. */
	want("Monday, 23-Nov-76 14:05:06 GMT", now, RETRYAFTER_CLAMPED,
	    RETRYAFTER_MAX_NS);
	/* A second later is more than 50 years ahead: 1976. */
	want_delay("Tuesday, 23-Nov-76 14:05:07 GMT", now, 0);
	want("Tuesday, 23-Nov-27 00:00:00 GMT", now, RETRYAFTER_CLAMPED,
	    RETRYAFTER_MAX_NS);
	want_delay("Saturday, 01-Jan-00 00:00:00 GMT", now, 0);
	want_delay("Wednesday, 31-Dec-99 23:59:59 GMT", now, 0);
	/* At the turn of a century, 00 is the next one: 2100-01-01. */
	want_delay("Friday, 01-Jan-00 00:00:00 GMT", 4102444790 * NS, 10 * NS);
	/* Feb 29 of 00: in 2000, a leap year; in 2100, no day. */
	want_delay("Tuesday, 29-Feb-00 00:00:00 GMT", now, 0);
	want("Monday, 29-Feb-00 00:00:00 GMT", 4102444790 * NS,
	    RETRYAFTER_BAD_DATE, 0);
}

static void
test_refused(void)
{
	current = "retryafter: garbage, trailing junk and nothing at all";
	want_bad("", RETRYAFTER_EMPTY);
	want_bad(" \t\r\n\n", RETRYAFTER_EMPTY);
	want_n("30\0", 3, MON_S * NS, RETRYAFTER_BAD, 0);
	want_n("\0", 1, MON_S * NS, RETRYAFTER_BAD, 0);
	want_bad("-5", RETRYAFTER_BAD);
	want_bad("+5", RETRYAFTER_BAD);
	want_bad("1.", RETRYAFTER_BAD);
	want_bad(".5", RETRYAFTER_BAD);
	want_bad("1.5.2", RETRYAFTER_BAD);
	want_bad("1,5", RETRYAFTER_BAD);
	want_bad("30s", RETRYAFTER_BAD);
	want_bad("30 40", RETRYAFTER_BAD);
	want_bad("30\n40", RETRYAFTER_BAD);
	want_bad("0x10", RETRYAFTER_BAD);
	want_bad("1e3", RETRYAFTER_BAD);
	want_bad("soon", RETRYAFTER_BAD);
	want_bad("Retry-After: 30", RETRYAFTER_BAD);
	want_bad("Mon, 23 Nov 2026 14:05:36 GMTx", RETRYAFTER_BAD);
	want_bad("Mon, 23 Nov 2026 14:05:36 GMT x", RETRYAFTER_BAD);
	want_bad("Mon, 23 Nov 2026 14:05:36 UTC", RETRYAFTER_BAD);
	want_bad("Mon, 23 Nov 2026 14:05:36", RETRYAFTER_BAD);
	want_bad("Mon,23 Nov 2026 14:05:36 GMT", RETRYAFTER_BAD);
	want_bad("Mon, 23  Nov 2026 14:05:36 GMT", RETRYAFTER_BAD);
	want_bad("Mon, 3 Nov 2026 14:05:36 GMT", RETRYAFTER_BAD);
	want_bad("Mon, 23 Nov 26 14:05:36 GMT", RETRYAFTER_BAD);
	want_bad("Mon, 23-Nov-2026 14:05:36 GMT", RETRYAFTER_BAD);
	want_bad("Mon, 23 Nov-2026 14:05:36 GMT", RETRYAFTER_BAD);
	want_bad("Mon, 23 Nov 2026 14:5:36 GMT", RETRYAFTER_BAD);
	want_bad("Mon, 23 Nob 2026 14:05:36 GMT", RETRYAFTER_BAD);
	want_bad("Mo, 23 Nov 2026 14:05:36 GMT", RETRYAFTER_BAD);
	want_bad("Funday, 23-Nov-26 14:05:36 GMT", RETRYAFTER_BAD);
	want_bad("Mon Nov   3 14:05:36 2026", RETRYAFTER_BAD);
	want_bad("Mon Nov 23 14:05:36 26", RETRYAFTER_BAD);
	want_bad("Mon Nov 23 14:05:36 2026 GMT", RETRYAFTER_BAD);
	want_bad("November 23 14:05:36 2026", RETRYAFTER_BAD);
	want_bad("2026-11-23T14:05:36Z", RETRYAFTER_BAD);
	want_bad("Mon", RETRYAFTER_BAD);
	want_bad("Mon, ", RETRYAFTER_BAD);
}

/* An IMF-fixdate, an RFC 850 date or an asctime date of s. */
static void
format_date(int64_t s, int form, char *buf, size_t size)
{
	static const char *const wd[7] = { "Thursday", "Friday", "Saturday",
		"Sunday", "Monday", "Tuesday", "Wednesday" };
	static const char *const mon[12] = { "Jan", "Feb", "Mar", "Apr", "May",
		"Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };
	int64_t days = calendar_floor_div(s, 86400), y, tod = s - days * 86400;
	int m, d, h = (int)(tod / 3600), mi = (int)(tod / 60 % 60),
		  sec = (int)(tod % 60);
	const char *w = wd[days - calendar_floor_div(days, 7) * 7];

	calendar_civil_from_days(days, &y, &m, &d);
	if (form == 0)
		snprintf(buf, size,
		    "%.3s, %02d %s %04" PRId64 " %02d:%02d:%02d GMT", w, d,
		    mon[m - 1], y, h, mi, sec);
	else if (form == 1)
		snprintf(buf, size, "%s, %02d-%s-%02d %02d:%02d:%02d GMT", w, d,
		    mon[m - 1], (int)(y % 100), h, mi, sec);
	else
		snprintf(buf, size, "%.3s %s %2d %02d:%02d:%02d %04" PRId64, w,
		    mon[m - 1], d, h, mi, sec, y);
}

static void
test_round_trip(void)
{
	char buf[64];

	current = "retryafter: any time up to a day ahead, in each form, back";
	for (int i = 0; i < 3000; i++) {
		/* 1971 to 2200, a second at most a day ahead. */
		int64_t now_s = 31536000 +
		    (int64_t)rng_below(7258118400 - 31536000 - 86400);
		int64_t ahead_s = (int64_t)rng_below(86401);
		int64_t frac_ns = (int64_t)rng_below(NS);
		int form = i % 3;

		format_date(now_s + ahead_s, form, buf, sizeof buf);
		want_delay(buf, now_s * NS + frac_ns,
		    ahead_s > 0 ? ahead_s * NS - frac_ns : 0);
	}
}

static void
test_reasons(void)
{
	current = "retryafter: each status has a one-line reason";
	for (int s = RETRYAFTER_OK; s <= RETRYAFTER_BAD_DATE; s++) {
		const char *r = retryafter_reason((enum retryafter_status)s);

		check(r != NULL && r[0] != '\0' && strchr(r, '\n') == NULL,
		    "status %d", s);
	}
	check(strstr(retryafter_reason(RETRYAFTER_BAD), "HTTP-date") != NULL,
	    "the reason of garbage names what would be valid");
}

void
test_retryafter(void)
{
	test_seconds();
	test_forms();
	test_calendar();
	test_two_digit_years();
	test_refused();
	test_round_trip();
	test_reasons();
}
