/*
 * Unit tests of timestamp.c: each format, the calendar, zones, years
 * rolled over, explicit fields and formats, and malformed records.  The
 * expected times were computed apart, with date -u -d ... +%s.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "calendar.h"
#include "timeformat.h"
#include "timestamp.h"
#include "unit.h"

/* The reference date of most tests: the day the logs were read. */
static const struct timestamp_civil ref_nov = { 2026, 11, 23, 0, 0, 0 };

static int64_t
civil_s(const struct timestamp_civil *tm)
{
	return calendar_days_from_civil(tm->year, tm->month, tm->day) * 86400 +
	    tm->hour * 3600 + tm->min * 60 + tm->sec;
}

/* A zone *arg seconds east of UTC. */
static int
fixed_zone(void *arg, const struct timestamp_civil *tm, int64_t utc_s[2])
{
	utc_s[0] = utc_s[1] = civil_s(tm) - *(const int64_t *)arg;
	return 0;
}

/*
 * New York in 2026: EST (UTC-5), EDT (UTC-4) from 2026-03-08 02:00, an
 * hour that is skipped, to 2026-11-01 02:00 EDT, when 01:00-02:00 passes
 * twice.  The bounds are the local times written as if in UTC.
 */
static int
new_york(void *arg, const struct timestamp_civil *tm, int64_t utc_s[2])
{
	int64_t s = civil_s(tm);

	(void)arg;
	if (s >= 1772935200 && s < 1772935200 + 3600)
		return -1;
	utc_s[0] = utc_s[1] = s + 5 * 3600;
	if (s >= 1772935200 + 3600 && s < 1793494800)
		utc_s[0] = utc_s[1] = s + 4 * 3600;
	else if (s >= 1793494800 && s < 1793494800 + 3600)
		utc_s[0] = s + 4 * 3600;
	return 0;
}

/* Parse rec[0..len) with fmt and check the time, or that there is none. */
static void
step_n(struct timestamp_format *fmt, const char *rec, size_t len,
    int64_t want_ns, bool want_some)
{
	int64_t ns = INT64_MIN;
	int rc = timestamp_parse(fmt, rec, len, &ns);

	if (want_some)
		check(rc == 0 && ns == want_ns,
		    "'%.*s' -> rc %d %" PRId64 " (want %" PRId64 ")", (int)len,
		    rec, rc, ns, want_ns);
	else
		check(rc == -1, "'%.*s' should have no timestamp, got %" PRId64,
		    (int)len, rec, ns);
}

static void
step(struct timestamp_format *fmt, const char *rec, int64_t want_ns)
{
	step_n(fmt, rec, strlen(rec), want_ns, true);
}

static void
step_none(struct timestamp_format *fmt, const char *rec)
{
	step_n(fmt, rec, strlen(rec), 0, false);
}

/* A record alone, detected afresh, local times taken as UTC. */
static void
is(const char *rec, int64_t want_ns)
{
	struct timestamp_format fmt;

	timestamp_init(&fmt, &ref_nov, NULL, NULL);
	step(&fmt, rec, want_ns);
}

static void
none(const char *rec)
{
	struct timestamp_format fmt;

	timestamp_init(&fmt, &ref_nov, NULL, NULL);
	step_none(&fmt, rec);
}

static void
none_n(const char *rec, size_t len)
{
	struct timestamp_format fmt;

	timestamp_init(&fmt, &ref_nov, NULL, NULL);
	step_n(&fmt, rec, len, 0, false);
}

/* A record alone through an explicit --time-format (and field). */
static void
fmt_is(
    const char *spec, unsigned field, int sep, const char *rec, int64_t want_ns)
{
	struct timestamp_format fmt;
	char err[160] = "";

	timestamp_init(&fmt, &ref_nov, NULL, NULL);
	fmt.field = field;
	fmt.sep = sep;
	check(timestamp_set_format(&fmt, spec, err, sizeof err) == 0,
	    "format '%s' refused: %s", spec, err);
	step(&fmt, rec, want_ns);
}

static void
fmt_none(const char *spec, const char *rec)
{
	struct timestamp_format fmt;
	char err[160] = "";

	timestamp_init(&fmt, &ref_nov, NULL, NULL);
	check(timestamp_set_format(&fmt, spec, err, sizeof err) == 0,
	    "format '%s' refused: %s", spec, err);
	step_none(&fmt, rec);
}

/*
 * The calendar against one counted a day at a time from 0000-01-01 (day
 * -719528) to 9999-12-31, both ways; and fixed points from date(1).
 */
void
test_timestamp_calendar(void)
{
	static const int mdays[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31,
		30, 31 };
	int64_t day = -719528, y2;
	int bad = 0, m2, d2;

	current = "timestamp calendar";
	for (int y = 0; y <= 9999; y++) {
		bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;

		for (int m = 1; m <= 12; m++)
			for (int d = 1; d <= mdays[m - 1] + (m == 2 && leap);
			     d++, day++) {
				calendar_civil_from_days(day, &y2, &m2, &d2);
				if (calendar_days_from_civil(y, m, d) != day ||
				    y2 != y || m2 != m || d2 != d)
					bad++;
			}
	}
	check(bad == 0, "%d days of 0000-9999 miscounted", bad);
	check(day == 2932897, "9999-12-31 is day 2932896: %" PRId64, day - 1);
	check(calendar_days_from_civil(1970, 1, 1) == 0, "1970-01-01");
	check(calendar_days_from_civil(2000, 3, 1) == 11017, "2000-03-01");
	check(calendar_days_from_civil(1600, 2, 29) == -135081, "1600-02-29");
	check(calendar_days_from_civil(1, 1, 1) == -719162, "0001-01-01");
	check(calendar_days_from_civil(0, 3, 1) == -719468, "0000-03-01");
	/* Far beyond the years parsed, still exact and without overflow. */
	calendar_civil_from_days(
	    calendar_days_from_civil(-1000000000, 2, 29), &y2, &m2, &d2);
	check(y2 == -1000000000 && m2 == 2 && d2 == 29, "year -10^9");
	calendar_civil_from_days(
	    calendar_days_from_civil(1000000000, 12, 31), &y2, &m2, &d2);
	check(y2 == 1000000000 && m2 == 12 && d2 == 31, "year 10^9");
}

/* A time printed as RFC 3339, and that print parsed back. */
static void
print_is(int64_t ns, const char *want)
{
	char buf[64];
	int n = calendar_print(ns, buf, sizeof buf);

	check(n == (int)strlen(want) && strcmp(buf, want) == 0,
	    "print %" PRId64 ": '%s' (want '%s')", ns, buf, want);
	is(buf, ns);
}

void
test_timestamp_print(void)
{
	char buf[64];
	int bad = 0;

	current = "timestamp print";
	print_is(1795442706123456789, "2026-11-23T14:05:06.123456789Z");
	print_is(0, "1970-01-01T00:00:00.000000000Z");
	print_is(-1, "1969-12-31T23:59:59.999999999Z");
	print_is(TIMESTAMP_MAX_NS, "2116-02-20T23:53:38.427387903Z");
	print_is(TIMESTAMP_MIN_NS, "1823-11-12T00:06:21.572612096Z");
	for (int i = 0; i < 100000; i++) {
		struct timestamp_format fmt;
		int64_t want = (int64_t)(rng() >> 1) - (INT64_C(1) << 62), ns;

		calendar_print(want, buf, sizeof buf);
		timestamp_init(&fmt, &ref_nov, NULL, NULL);
		if (timestamp_parse(&fmt, buf, strlen(buf), &ns) != 0 ||
		    ns != want)
			bad++;
	}
	check(bad == 0, "%d of 100000 random times did not round-trip", bad);
}

static void
iso(void)
{
	int64_t t = 1795442706 * NS; /* 2026-11-23T14:05:06Z */

	current = "timestamp RFC 3339";
	is("2026-11-23T14:05:06Z", t);
	is("2026-11-23T14:05:06Z GET /", t);
	is("  2026-11-23T14:05:06Z", t);
	is("2026-11-23T14:05:06.123456Z", t + 123456000);
	is("2026-11-23T14:05:06.123456789Z", t + 123456789);
	is("2026-11-23T14:05:06.1234567891234Z", t + 123456789);
	is("2026-11-23T14:05:06,5Z", t + 500 * MS);
	is("2026-11-23t14:05:06z", t);
	is("2026-11-23 14:05:06Z", t);
	is("2026-11-23T14:05Z", t - 6 * NS);
	is("2026-11-23T14:05:06+01:00", t - 3600 * NS);
	is("2026-11-23T14:05:06+0100", t - 3600 * NS);
	is("2026-11-23T14:05:06.25+01:00", t - 3600 * NS + 250 * MS);
	is("2026-11-23T14:05:06-05", t + 5 * 3600 * NS);
	is("2026-11-23T14:05:06-05:00", t + 5 * 3600 * NS);
	is("2026-11-23T14:05:06+05:30", t - 19800 * NS);
	is("2026-11-23 14:05:06 +0100 commit", t - 3600 * NS);
	is("2026-11-23T14:05:06-00:00", t);
	/* No zone: local time, here the default UTC. */
	is("2026-11-23T14:05:06", t);
	is("2026-11-23 14:05:06,123 INFO main", t + 123 * MS);
	/* A space then no offset is text, not a zone. */
	is("2026-11-23 14:05:06 - started", t);
	none("2026-11-23T14:05:06+25:00");
	none("2026-11-23T14:05:06+01:60");
	none("2026-11-23T14:05:06+");
	none("2026-11-23T14:05:06+1");
	none("2026-11-23T14:05:061");
	none("2026-11-23X14:05:06Z");
	none("2026-11-23T14:5:06Z");
	none("26-11-23T14:05:06Z");
}

static void
leap_years(void)
{
	current = "timestamp leap years and ranges";
	is("2024-02-29T00:00:00Z", 1709164800 * NS);
	none("2023-02-29T00:00:00Z");
	is("2000-02-29T12:00:00Z", 951825600 * NS);
	none("1900-02-29T00:00:00Z");
	is("1900-03-01T00:00:00Z", -2203891200 * NS);
	is("2026-12-31T23:59:59Z", 1798761599 * NS);
	none("2026-04-31T00:00:00Z");
	none("2026-06-31T00:00:00Z");
	none("2026-02-30T00:00:00Z");
	none("2026-13-01T00:00:00Z");
	none("2026-00-01T00:00:00Z");
	none("2026-01-00T00:00:00Z");
	none("2026-01-32T00:00:00Z");
	none("2026-01-01T24:00:00Z");
	none("2026-01-01T25:00:00Z");
	none("2026-01-01T23:60:00Z");
	none("2026-01-01T23:59:61Z");
	/* A leap second: the last nanosecond of the second before. */
	is("2026-12-31T23:59:60Z", 1798761599 * NS + NS - 1);
	is("2026-12-31T23:59:60.5Z", 1798761599 * NS + NS - 1);
	/* The range: +-2^62 ns from the epoch. */
	is("1823-11-12T00:06:22Z", -4611686018 * NS);
	none("1823-11-12T00:06:21Z");
	none("1800-01-01T00:00:00Z");
	is("2116-02-20T23:53:38Z", 4611686018 * NS);
	none("2116-02-20T23:53:38.5Z");
	none("9999-12-31T23:59:59Z");
	none("0000-01-01T00:00:00Z");
}

static void
clf(void)
{
	current = "timestamp CLF";
	is("127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] \"GET "
	   "/apache_pb.gif HTTP/1.0\" 200 2326",
	    971211336 * NS);
	is("[error] [client 1.2.3.4] x [23/Nov/2026:14:05:06 +0000] y",
	    1795442706 * NS);
	is("[23/Nov/2026:14:05:06 +0000]", 1795442706 * NS);
	is("h - - [23/nov/2026:15:05:06.5 +01:00] x",
	    1795442706 * NS + 500 * MS);
	is("h - - [23/Nov/2026:14:05:06 +0000] [24/Nov/2026:14:05:06 +0000]",
	    1795442706 * NS);
	none("h - - [23/Nov/2026:14:05:06]");
	none("h - - [23/Nov/2026:14:05:06 +0000");
	none("h - - [23/Nov/26:14:05:06 +0000]");
	none("h - - [31/Nov/2026:14:05:06 +0000]");
}

static void
epoch(void)
{
	int64_t t = 1732370706 * NS; /* 2024-11-23T14:05:06Z */

	current = "timestamp epoch";
	is("1732370706 GET /", t);
	is("1732370706", t);
	is("  1732370706\tx", t);
	is("1732370706.123 x", t + 123 * MS);
	is("1732370706.123456789123 x", t + 123456789);
	is("1732370706,x", t);
	is("1732370706123 x", t + 123 * MS);
	is("1732370706123456 x", t + 123456 * US);
	is("1732370706123456789 x", t + 123456789);
	is("0000000001 x", NS);
	none("173237070 x");
	none("17323707061 x");
	none("17323707061234 x");
	/* A fraction of the unit, as JSON writers give milliseconds. */
	is("1732370706123.5 x", t + 123 * MS + 500 * US);
	is("1732370706123.456789 x", t + 123456789);
	is("1732370706123456.789 x", t + 123456789);
	is("1732370706123456789.9 x", t + 123456789);
	none("1732370706123. x");
	none("1732370706abc");
	none("1732370706. x");
	none("1732370706:00");
	none("9999999999999999999 x");
	none("99999999999999999999 x");
	none("5000000000 x"); /* 2128: out of range */
	/* Exponent forms, as JSON writers give large floats. */
	is("1.732370706e9 x", t);
	is("1.732370706123e+09 x", t + 123 * MS);
	is("1.732370706123E12 x", t + 123 * MS);
	is("1.732370706123456789e+18 x", t + 123456789);
	is("1732370706e0 x", t);
	is("17.32370706e8", t);
	none("1.7e5 x");
	none("0.1732370706e10 x");
	none("1.732370706e x");
	none("1.732370706e+ x");
	none("1.7e99 x");
	none("1.732370706e9x");
}

static void
syslog(void)
{
	int64_t t = 1795442706 * NS; /* 2026-11-23T14:05:06Z */
	struct timestamp_format fmt;
	struct timestamp_civil ref_jan = { 2027, 1, 5, 0, 0, 0 };
	struct timestamp_civil ref_mar24 = { 2024, 3, 1, 0, 0, 0 };

	current = "timestamp syslog";
	is("Nov 23 14:05:06 host sshd[12]: accepted", t);
	is("nov 23 14:05:06 host", t);
	is("NOV 23 14:05:06 host", t);
	is("November 23 14:05:06 host", t);
	is("Nov 23 14:05:06.250 host", t + 250 * MS);
	is("Nov  3 04:05:06 host", 1793678706 * NS);
	is("Nov 3 04:05:06 host", 1793678706 * NS);
	is("<34>Nov 23 14:05:06 host su: x", t);
	none("Nov 23 14:05 host");
	none("Nov 23 14:05:061");
	none("Nov 31 14:05:06 host");
	none("Now 23 14:05:06 host");
	/* The first record's year is the reference's, or the year before
	 * for a month later than the reference's. */
	is("Dec 31 23:59:59 a", 1767225599 * NS);
	timestamp_init(&fmt, &ref_jan, NULL, NULL);
	step(&fmt, "Dec 31 23:59:59 a", 1798761599 * NS);
	step(&fmt, "Jan  1 00:00:01 b", 1798761601 * NS);
	/* Back across New Year: a late line, not a year on. */
	step(&fmt, "Dec 31 23:59:58 c", 1798761598 * NS);
	step(&fmt, "Jan  1 00:00:02 d", 1798761602 * NS);
	/* Feb 29 exists only in leap years. */
	timestamp_init(&fmt, &ref_mar24, NULL, NULL);
	step(&fmt, "Feb 29 12:00:00 x", 1709208000 * NS);
	none("Feb 29 12:00:00 x");
}

void
test_timestamp_formats(void)
{
	iso();
	leap_years();
	clf();
	epoch();
	syslog();
}

/* A --time-format refused, with a one-line reason naming want. */
static void
refused(const char *spec, const char *want)
{
	struct timestamp_format fmt;
	char err[160] = "";
	int rc;

	timestamp_init(&fmt, &ref_nov, NULL, NULL);
	rc = timestamp_set_format(&fmt, spec, err, sizeof err);
	check(rc == -1 && strstr(err, want) != NULL &&
		strchr(err, '\n') == NULL && fmt.kind == TIMESTAMP_AUTO,
	    "format '%s' should be "
	    "refused naming '%s', got rc %d '%s'",
	    spec, want, rc, err);
}

void
test_timestamp_check(void)
{
	static const char *const good[] = { "%F %T", "%s", "%T", "%b %e %T",
		"%D %R", "%Y %j", "%d/%b/%Y:%H:%M:%S %z", "%a %b %e %T %Z %Y",
		"%m/%d/%Y %I:%M %p", "%H", "%Y-%m-%d", "%%%F%n%t%T", "%h %d",
		"%B %d %y", "%A %H:%M", "%j %T", NULL };
	char err[160];

	current = "timestamp format checks";
	for (int i = 0; good[i] != NULL; i++)
		check(timeformat_check(good[i], err, sizeof err) == 0,
		    "format '%s' refused: %s", good[i], err);
	refused("%Q", "unknown conversion %Q");
	refused("%F %T%f", "unknown conversion %f");
	refused("%Ey", "unknown conversion %E");
	refused("%F \x01%\x01", "unknown conversion %\\x01");
	refused("%F %\xc3\xa9", "unknown conversion %\\xc3");
	refused("%F %", "a lone % at the end");
	refused("", "no date or time");
	refused("hello", "no date or time");
	refused("%a %Z %z %p %%", "no date or time");
	refused("%I:%M", "%I without %p");
	refused("%d %H:%M", "%d without a month");
	refused("%e %H:%M", "%e without a month");
	refused("%b %H", "%b without a day");
	refused("%Y %H:%M", "%Y without a month and day");
	refused("%y", "%y without a month and day");
	refused("%M:%S", "%M without an hour");
	refused("%H %S", "%S without a minute");
	refused("%j %m/%d", "%j with a month or day (%m)");
	refused("%F %j", "%j with a month or day (%F)");
	/* A short buffer still ends the reason. */
	check(timeformat_check("%Q", err, 8) == -1 && strlen(err) == 7,
	    "reason cut to the buffer: '%s'", err);
	check(timeformat_check("%Q", NULL, 0) == -1, "no buffer");
}

static void
explicit_formats(void)
{
	int64_t t = 1772731800 * NS; /* 2026-03-05T17:30:00Z */

	current = "timestamp --time-format";
	fmt_is("%F %T", 0, -1, "2026-03-05 17:30:00 x", t);
	fmt_is("%F %T", 0, -1, "2026-03-05\t  17:30:00", t);
	fmt_is("%F %T", 0, -1, "2026-03-0517:30:00", t);
	fmt_is("%F %T", 0, -1, "2026-03-05 17:30:00.5", t + 500 * MS);
	fmt_is("%F %T", 0, -1, "2026-03-05 17:30:00,25", t + 250 * MS);
	fmt_is("%F %T.x", 0, -1, "2026-03-05 17:30:00.x", t);
	fmt_none("%F %T.x", "2026-03-05 17:30:00.5.x");
	fmt_is("%F%%%T", 0, -1, "2026-03-05%17:30:00", t);
	fmt_is("%d/%m/%Y %H:%M", 0, -1, "5/3/2026 17:30", t);
	fmt_is("%Y%m%d%H%M%S", 0, -1, "20260305173000", t);
	fmt_is("%D %R", 0, -1, "03/05/26 17:30", t);
	fmt_is("%a %b %e %T %Z %Y", 0, -1, "Thu Mar  5 17:30:00 UTC 2026", t);
	fmt_is("%A %B %e %T %Z %Y", 0, -1, "thursday MARCH 5 17:30:00 gmt 2026",
	    t);
	fmt_is("%a %b %e %T %Z %Y", 0, -1, "Thu Mar  5 17:30:00 -03 2026",
	    1772742600 * NS);
	fmt_is("%F %T %z", 0, -1, "2026-03-05 17:30:00 +0100", 1772728200 * NS);
	fmt_is("%F %T %z", 0, -1, "2026-03-05 17:30:00 Z", t);
	fmt_is("%s", 0, -1, "1772731800.25 rest", t + 250 * MS);
	fmt_is("%s", 0, -1, "1772731800", t);
	fmt_none("%s", "99999999999999999999999");
	fmt_is("%Y %j %T", 0, -1, "2026 064 17:30:00", t);
	fmt_is("%Y %j", 0, -1, "2024 366", 1735603200 * NS);
	fmt_none("%Y %j", "2026 366");
	fmt_is("%y-%m-%d %T", 0, -1, "69-07-20 20:17:40", -14182940 * NS);
	fmt_is("%y-%m-%d %T", 0, -1, "68-01-01 00:00:00", 3092601600 * NS);
	fmt_is("%m/%d/%Y %I:%M:%S %p", 0, -1, "03/05/2026 05:30:00 PM", t);
	fmt_is("%m/%d/%Y %I:%M:%S %p", 0, -1, "03/05/2026 12:00:00 am",
	    1772668800 * NS);
	fmt_is("%m/%d/%Y %I:%M:%S %p", 0, -1, "03/05/2026 12:00:00 pm",
	    1772712000 * NS);
	fmt_is("%F", 0, -1, "2026-03-05", 1772668800 * NS);
	fmt_none("%F %T", "2026-03-05 17:30");
	fmt_none("%F %T", "2026-02-29 17:30:00");
	fmt_none("%F %T", "2026-03-05 24:00:00");
	fmt_none("[%F %T]", "2026-03-05 17:30:00");
	fmt_none("%a %F", "Thx 2026-03-05");
	fmt_none("%F %T %Z", "2026-03-05 17:30:00 +99");
	fmt_none("%F %I:%M %p", "2026-03-05 05:30 XM");
}

static void
explicit_fields(void)
{
	current = "timestamp --time-field";
	fmt_is(
	    "%d/%m/%Y %H:%M", 2, ';', "id;05/03/2026 17:30;x", 1772731800 * NS);
	/* A format may run on past its field: CLF's time is two fields. */
	fmt_is("[%d/%b/%Y:%T %z]", 4, -1,
	    "1.2.3.4 - - [10/Oct/2000:13:55:36 "
	    "-0700] \"GET /\" 200",
	    971211336 * NS);
	/* Without a format, detection at the field's start. */
	{
		struct timestamp_format fmt;
		char err[160];

		timestamp_init(&fmt, &ref_nov, NULL, NULL);
		fmt.field = 3;
		check(timestamp_set_format(&fmt, "%F", err, sizeof err) == 0,
		    "%%F: %s", err);
		step_none(&fmt, "a 2026-03-05");
		timestamp_init(&fmt, &ref_nov, NULL, NULL);
		fmt.field = 3;
		step(&fmt, "a b 2026-11-23T14:05:06Z c", 1795442706 * NS);
		check(fmt.kind == TIMESTAMP_ISO && !fmt.anywhere,
		    "field 3: RFC 3339 at its start");
		step_none(&fmt, "a 2026-11-23T14:05:06Z c d");
		step_none(&fmt, "a b");
		timestamp_init(&fmt, &ref_nov, NULL, NULL);
		fmt.field = 2;
		fmt.sep = ',';
		step(&fmt, "x, 1732370706.5,y", 1732370706 * NS + 500 * MS);
		check(fmt.kind == TIMESTAMP_EPOCH, "field 2: epoch");
		step_none(&fmt, "1732370706,,y");
		timestamp_init(&fmt, &ref_nov, NULL, NULL);
		fmt.field = 2;
		step_none(&fmt, "x y [23/Nov/2026:14:05:06 +0000]");
		step(&fmt, "x [23/Nov/2026:14:05:06 +0000]", 1795442706 * NS);
		check(fmt.kind == TIMESTAMP_CLF && !fmt.anywhere,
		    "field 2: CLF at its start");
		timestamp_init(&fmt, &ref_nov, NULL, NULL);
		fmt.field = 4000000000u;
		step_none(&fmt, "a b c 2026-11-23T14:05:06Z");
	}
}

void
test_timestamp_explicit(void)
{
	explicit_formats();
	explicit_fields();
}

/* Detection: the first record with a timestamp sets the format held. */
static void
detection(void)
{
	struct timestamp_format fmt;

	current = "timestamp detection holds";
	timestamp_init(&fmt, &ref_nov, NULL, NULL);
	step_none(&fmt, "no time here");
	step_none(&fmt, "");
	check(fmt.kind == TIMESTAMP_AUTO, "still detecting");
	step(&fmt, "2026-11-23T14:05:06Z start", 1795442706 * NS);
	check(fmt.kind == TIMESTAMP_ISO && !fmt.anywhere,
	    "RFC 3339 at the "
	    "start held");
	step_none(&fmt, "1.2.3.4 - - [23/Nov/2026:14:05:06 +0000] x");
	step_none(&fmt, "1795442706 x");
	step_none(&fmt, "  at Foo.bar(2026-11-23T14:05:07Z)");
	step(&fmt, "2026-11-23 14:05:08+00:00", 1795442708 * NS);
	check(fmt.kind == TIMESTAMP_ISO, "still RFC 3339");

	timestamp_init(&fmt, &ref_nov, NULL, NULL);
	step(&fmt, "level=info ts=2026-11-23T14:05:06Z msg=x", 1795442706 * NS);
	check(fmt.kind == TIMESTAMP_ISO && fmt.anywhere, "RFC 3339 anywhere");
	step(&fmt, "{\"t\":\"2026-11-23T14:05:07Z\"}", 1795442707 * NS);
	step(&fmt, "2026-11-23T14:05:08Z", 1795442708 * NS);
	step_none(&fmt, "x 12026-11-23T14:05:09Z");
	step(&fmt, "x 12026-11-23T14:05:09Z 2026-11-23T14:05:10Z",
	    1795442710 * NS);

	timestamp_init(&fmt, &ref_nov, NULL, NULL);
	step(&fmt, "1732370706 a", 1732370706 * NS);
	check(fmt.kind == TIMESTAMP_EPOCH && fmt.epoch_digits == 10,
	    "epoch seconds held");
	step_none(&fmt, "1732370707123 b");
	step(&fmt, "1732370707.5 c", 1732370707 * NS + 500 * MS);
	step_none(&fmt, "2026-11-23T14:05:06Z");

	timestamp_init(&fmt, &ref_nov, NULL, NULL);
	step(&fmt, "Nov 23 14:05:06 h a", 1795442706 * NS);
	check(fmt.kind == TIMESTAMP_SYSLOG, "syslog held");
	step_none(&fmt, "2026-11-23T14:05:07Z");
	step_none(&fmt, "x Nov 23 14:05:07 h");

	timestamp_init(&fmt, &ref_nov, NULL, NULL);
	step(&fmt, "h [23/Nov/2026:14:05:06 +0000] a", 1795442706 * NS);
	check(fmt.kind == TIMESTAMP_CLF && fmt.anywhere, "CLF held");
	step_none(&fmt, "2026-11-23T14:05:07Z");
	/* An epoch time at the start wins over a CLF one later. */
	timestamp_init(&fmt, &ref_nov, NULL, NULL);
	step(&fmt, "1732370706 [23/Nov/2026:14:05:06 +0000]", 1732370706 * NS);
}

/* Years and days completed from the records before. */
static void
rollover(void)
{
	struct timestamp_format fmt;
	struct timestamp_civil ref_jan = { 2026, 1, 12, 0, 0, 0 };
	struct timestamp_civil ref_2027 = { 2027, 1, 5, 0, 0, 0 };
	char err[160];

	current = "timestamp rollover";
	/* Over six months after the previous record is some months before
	 * it: the year goes back.  Six months or less goes on. */
	timestamp_init(&fmt, &ref_jan, NULL, NULL);
	step(&fmt, "Jan 10 00:00:00 a", 1768003200 * NS);
	step(&fmt, "Aug 10 00:00:00 b", 1754784000 * NS);
	timestamp_init(&fmt, &ref_jan, NULL, NULL);
	step(&fmt, "Jan 10 00:00:00 a", 1768003200 * NS);
	step(&fmt, "Jul 10 00:00:00 b", 1783641600 * NS);
	/* A whole year of syslog, month by month, across New Year twice. */
	timestamp_init(&fmt, &ref_jan, NULL, NULL);
	{
		static const char *const mon[] = { "Jan", "Feb", "Mar", "Apr",
			"May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov",
			"Dec" };
		int64_t prev = INT64_MIN, ns;
		int bad = 0;

		for (int i = 0; i < 30; i++) {
			char rec[40];

			snprintf(rec, sizeof rec, "%s 15 12:00:00 x",
			    mon[(i + 10) % 12]);
			if (timestamp_parse(&fmt, rec, strlen(rec), &ns) != 0 ||
			    ns <= prev)
				bad++;
			prev = ns;
		}
		check(bad == 0, "30 months in order: %d out", bad);
		/* Nov 2025 + 29 months: Apr 2028. */
		check(
		    prev == 1839412800 * NS, "ends April 2028: %" PRId64, prev);
	}
	/* A format without a year rolls the same way. */
	timestamp_init(&fmt, &ref_2027, NULL, NULL);
	check(timestamp_set_format(&fmt, "%d/%m %T", err, sizeof err) == 0,
	    "%%d/%%m %%T: %s", err);
	step(&fmt, "31/12 23:59:59", 1798761599 * NS);
	step(&fmt, "01/01 00:00:01", 1798761601 * NS);
	/* Without a date: the reference date, then across midnight. */
	timestamp_init(&fmt, &ref_nov, NULL, NULL);
	check(timestamp_set_format(&fmt, "%T", err, sizeof err) == 0, "%%T: %s",
	    err);
	step(&fmt, "23:59:59 a", 1795478399 * NS);
	step(&fmt, "00:00:01 b", 1795478401 * NS);
	step(&fmt, "23:59:58 c", 1795478398 * NS);
	step(&fmt, "12:00:00 d", 1795478398 * NS - 43198 * NS);
	step(&fmt, "23:59:59.5 e", 1795478399 * NS + 500 * MS);
}

void
test_timestamp_state(void)
{
	detection();
	rollover();
}

/* Local times through the caller's conversion. */
void
test_timestamp_local(void)
{
	struct timestamp_format fmt;
	int64_t plus1 = 3600;
	struct timestamp_civil ref_mar = { 2026, 3, 8, 0, 0, 0 };

	current = "timestamp local time";
	timestamp_init(&fmt, &ref_nov, fixed_zone, &plus1);
	step(&fmt, "2026-11-23T14:05:06", 1795439106 * NS);
	step(&fmt, "2026-11-23T14:05:06Z", 1795442706 * NS);
	timestamp_init(&fmt, &ref_nov, fixed_zone, &plus1);
	step(&fmt, "Nov 23 14:05:06 h", 1795439106 * NS);

	/* Clocks go back: 01:00-02:00 passes twice, and the records go on
	 * through both passes in real time. */
	timestamp_init(&fmt, &ref_nov, new_york, NULL);
	step(&fmt, "2026-11-01 00:59:00 a", 1793509140 * NS);
	step(&fmt, "2026-11-01 01:45:00 b", 1793511900 * NS);
	step(&fmt, "2026-11-01 01:44:00 late", 1793511840 * NS);
	step(&fmt, "2026-11-01 01:59:00 c", 1793512740 * NS);
	step(&fmt, "2026-11-01 01:00:00 again", 1793512800 * NS);
	step(&fmt, "2026-11-01 01:30:00 d", 1793514600 * NS);
	step(&fmt, "2026-11-01 02:00:00 e", 1793516400 * NS);
	/* Clocks go forward: one second from 01:59:59 to 03:00:00, and no
	 * time at 02:30. */
	timestamp_init(&fmt, &ref_mar, new_york, NULL);
	step(&fmt, "Mar  8 01:59:59 a", 1772953199 * NS);
	step_none(&fmt, "Mar  8 02:30:00 b");
	step(&fmt, "Mar  8 03:00:00 c", 1772953200 * NS);
}

/*
 * Good records with a few bytes changed, dropped or cut off: whatever is
 * found is in range and prints as a time that parses back to it.
 */
static void
changed_records(void)
{
	static const char alpha[] = "0123456789-:T .,+Z/[]<>JanNovDecbyp%";
	static const char *const seeds[] = { "2026-11-23T14:05:06.123+01:00 x",
		"2024-02-29 00:00:00Z", "x [23/Nov/2026:14:05:06 +0000] y",
		"Dec 31 23:59:60.5 h", "1732370706.123 x", "1732370706123456 x",
		"t=1999-12-31T23:59:59-05 x", "<13>Feb 29 12:00:00 h" };
	int bad = 0, found = 0;

	for (int i = 0; i < 20000; i++) {
		struct timestamp_format fmt, again;
		char rec[64], buf[64];
		const char *seed =
		    seeds[rng_below(sizeof seeds / sizeof seeds[0])];
		size_t len = strlen(seed);
		int64_t ns, ns2;

		memcpy(rec, seed, len);
		for (int k = rng_below(4); k > 0 && len > 0; k--) {
			size_t at = rng_below(len);

			if (rng_below(3) == 0)
				memmove(rec + at, rec + at + 1, --len - at);
			else
				rec[at] = alpha[rng_below(sizeof alpha - 1)];
		}
		if (rng_below(4) == 0)
			len = rng_below(len + 1);
		timestamp_init(&fmt, &ref_nov, NULL, NULL);
		if (timestamp_parse(&fmt, rec, len, &ns) != 0)
			continue;
		found++;
		calendar_print(ns, buf, sizeof buf);
		timestamp_init(&again, &ref_nov, NULL, NULL);
		if (ns < TIMESTAMP_MIN_NS || ns > TIMESTAMP_MAX_NS ||
		    timestamp_parse(&again, buf, strlen(buf), &ns2) != 0 ||
		    ns2 != ns)
			bad++;
	}
	check(found > 2000 && found < 18000,
	    "%d of 20000 changed records "
	    "had a time",
	    found);
	check(bad == 0, "%d random records out of range or not printable", bad);
}

/* Records that are not timestamps, of many kinds. */
void
test_timestamp_bad(void)
{
	static const char nul1[] = "2026-11\0-23T14:05:06Z";
	static const char nul2[] = "\0\0 x [23/Nov/2026:14:05:06 +0000]";
	static const char nul3[] = "2026-11-23T14:05:06Z\0junk";
	char big[4096];

	current = "timestamp bad input";
	none_n("", 0);
	none_n("2026-11-23T14:05:06Z", 0);
	none_n("2026-11-23T14:05:06Z", 15);
	none("2026-11-2");
	none("2026-11-23T14");
	none("2026-11-23T14:0");
	none("2026-11-23T");
	none("Nov 23 14:05");
	none("Nov");
	none("[23/Nov/2026:14:05:06 +00");
	none("1732370");
	none("\xff\xfe\x80garbage\x01\x7f");
	none("----------::::::::TTTT[[[[]]]]");
	none("99999999999999999999999999999999999999 x");
	none("99999-11-23T14:05:06Z");
	none("2026-11-23T14:05:06.99999999999999999999999999999+");
	none_n(nul1, sizeof nul1 - 1);
	is("x [23/Nov/2026:14:05:06.99999999999999999999 +0000]",
	    1795442706 * NS + NS - 1);
	{
		struct timestamp_format fmt;

		timestamp_init(&fmt, &ref_nov, NULL, NULL);
		step_n(&fmt, nul2, sizeof nul2 - 1, 1795442706 * NS, true);
		timestamp_init(&fmt, &ref_nov, NULL, NULL);
		step_n(&fmt, nul3, sizeof nul3 - 1, 1795442706 * NS, true);
	}
	/* A long fraction is read to its end and cut to the nanosecond. */
	memset(big, '7', sizeof big);
	memcpy(big, "2026-11-23T14:05:06.", 20);
	big[sizeof big - 1] = 'Z';
	{
		struct timestamp_format fmt;

		timestamp_init(&fmt, &ref_nov, NULL, NULL);
		step_n(
		    &fmt, big, sizeof big, 1795442706 * NS + 777777777, true);
	}
	changed_records();
}

/* A JSON record's key, as detection finds it (NULL: none), and its time. */
static void
json_is(const char *rec, const char *want_key, int64_t want_ns)
{
	struct timestamp_format fmt;
	int64_t ns = 0;
	int rc;

	timestamp_init(&fmt, &ref_nov, NULL, NULL);
	rc = timestamp_parse(&fmt, rec, strlen(rec), &ns);
	check(rc == 0 && ns == want_ns, "'%s' -> rc %d %" PRId64, rec, rc, ns);
	check(strcmp(fmt.found_key, want_key != NULL ? want_key : "") == 0,
	    "'%s': key '%s', want '%s'", rec, fmt.found_key,
	    want_key != NULL ? want_key : "");
}

/*
 * JSON records: a key named for a time before the first time in the
 * text; the likeliest name first, whatever the case; an epoch number
 * only under such a name; then held for the records after.
 */
void
test_timestamp_json_keys(void)
{
	struct timestamp_format fmt;
	char others[64];
	const char *two = "{\"created\":\"2020-01-01T00:00:00Z\","
			  "\"timestamp\":\"2026-11-23T14:05:06Z\"}";

	json_is(two, "timestamp", 1795442706 * NS);
	json_is("{\"Time\": \"2026-11-23T14:05:06Z\", \"@Timestamp\": "
		"\"2026-11-23T14:05:07Z\"}",
	    "@Timestamp", 1795442707 * NS);
	json_is("{\"id\":1795442700,\"TS\":1795442706.5}", "TS",
	    1795442706 * NS + NS / 2);
	json_is("{\"msg\":\"x\",\"when\":\"Nov 23 14:05:06\"}", "when",
	    1795442706 * NS);
	json_is("{\"a\":{\"time\":\"2020-01-01T00:00:00Z\"},\"b\":[1,\"x\"],"
		"\"ts\":\"2026-11-23T14:05:06Z\"}",
	    "ts", 1795442706 * NS);
	/* Nested only: the first time in the text, as before. */
	json_is("{\"a\":{\"time\":\"2026-11-23T14:05:06Z\"}}", NULL,
	    1795442706 * NS);
	none("{\"id\":1795442700,\"n\":\"x\"}");
	timestamp_init(&fmt, &ref_nov, NULL, NULL);
	step(&fmt, two, 1795442706 * NS);
	step(&fmt,
	    "{\"timestamp\":\"2026-11-23T14:05:08Z\",\"created\":\"2020-01-"
	    "01T00:00:00Z\"}",
	    1795442708 * NS);
	step_none(&fmt, "{\"created\":\"2026-11-23T14:05:09Z\"}");
	check(timestamp_other_keys(
		  &fmt, two, strlen(two), others, sizeof others) == 1 &&
		strcmp(others, "\"created\"") == 0,
	    "other keys: '%s'", others);
}
