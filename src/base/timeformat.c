/* The formats of timestamps: strptime-like conversions, RFC 3339, CLF, syslog,
 * epoch times, each read into its parts; --time-format checked; pure. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "timeformat.h"

/* A conversion of --time-format: what it gives, or what it stands for. */
struct conv {
	char c;
	unsigned have;
	const char *expand; /* a composite one's conversions */
};

static const struct conv convs[] = { { 'Y', HAVE_YEAR, NULL },
	{ 'y', HAVE_YEAR, NULL }, { 'm', HAVE_MONTH, NULL },
	{ 'b', HAVE_MONTH, NULL }, { 'B', HAVE_MONTH, NULL },
	{ 'h', HAVE_MONTH, NULL }, { 'd', HAVE_DAY, NULL },
	{ 'e', HAVE_DAY, NULL }, { 'j', HAVE_YDAY, NULL },
	{ 'H', HAVE_HOUR, NULL }, { 'I', HAVE_HOUR12, NULL },
	{ 'p', HAVE_AMPM, NULL }, { 'M', HAVE_MIN, NULL },
	{ 'S', HAVE_SEC, NULL }, { 's', HAVE_EPOCH, NULL },
	{ 'T', HAVE_HOUR | HAVE_MIN | HAVE_SEC, "%H:%M:%S" },
	{ 'R', HAVE_HOUR | HAVE_MIN, "%H:%M" },
	{ 'D', HAVE_MONTH | HAVE_DAY | HAVE_YEAR, "%m/%d/%y" },
	{ 'F', HAVE_YEAR | HAVE_MONTH | HAVE_DAY, "%Y-%m-%d" },
	{ 'z', 0, NULL }, { 'Z', 0, NULL }, { 'a', 0, NULL }, { 'A', 0, NULL },
	{ 'n', 0, NULL }, { 't', 0, NULL }, { '%', 0, NULL },
	{ '\0', 0, NULL } };

static const char *const month_names[] = { "january", "february", "march",
	"april", "may", "june", "july", "august", "september", "october",
	"november", "december", NULL };

static const char *const day_names[] = { "sunday", "monday", "tuesday",
	"wednesday", "thursday", "friday", "saturday", NULL };

/* Byte classes of the C locale, whatever locale the program runs in. */
static bool
is_digit(int c)
{
	return c >= '0' && c <= '9';
}

static bool
is_space(int c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

bool
timeformat_is_blank(int c)
{
	return c == ' ' || c == '\t';
}

static int
lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

static bool
is_alpha(int c)
{
	return lower(c) >= 'a' && lower(c) <= 'z';
}

/* Bytes that would make a number part of a longer word or number. */
static bool
is_word(int c)
{
	return is_digit(c) || is_alpha(c) || c == '.' || c == ':' || c == '-' ||
	    c == '/' || c == '_';
}

static const unsigned char *
skip_space(const unsigned char *p, const unsigned char *end)
{
	while (p < end && is_space(*p))
		p++;
	return p;
}

const unsigned char *
timeformat_skip_blanks(const unsigned char *p, const unsigned char *end)
{
	while (p < end && timeformat_is_blank(*p))
		p++;
	return p;
}

/*
 * A number of minw to maxw digits at p, from lo to hi, into *v: returns
 * the byte after it, or NULL.  Digits beyond the 17th saturate the value
 * above any range, so that a long run of digits is read and refused.
 */
static const unsigned char *
number(const unsigned char *p, const unsigned char *end, int minw, int maxw,
    int64_t lo, int64_t hi, int64_t *v)
{
	int64_t x = 0;
	int n = 0;

	for (; n < maxw && p < end && is_digit(*p); n++, p++)
		if (x < 100000000000000000LL)
			x = x * 10 + (*p - '0');
	if (n < minw || x < lo || x > hi)
		return NULL;
	*v = x;
	return p;
}

static const unsigned char *
number_int(const unsigned char *p, const unsigned char *end, int minw, int maxw,
    int lo, int hi, int *v)
{
	int64_t x;

	if ((p = number(p, end, minw, maxw, lo, hi, &x)) != NULL)
		*v = (int)x;
	return p;
}

static const unsigned char *
byte(const unsigned char *p, const unsigned char *end, int c)
{
	return p < end && *p == c ? p + 1 : NULL;
}

/*
 * A fraction of a second at p, '.' (or ',' when comma) and digits, to the
 * nanosecond, further digits read and dropped: returns the byte after
 * it, or p when there is none.
 */
static const unsigned char *
fraction(
    const unsigned char *p, const unsigned char *end, bool comma, int32_t *nsec)
{
	int32_t v = 0;
	int n = 0;

	if (end - p < 2 || !(*p == '.' || (comma && *p == ',')) ||
	    !is_digit(p[1]))
		return p;
	for (p++; p < end && is_digit(*p); p++, n++)
		if (n < 9)
			v = v * 10 + (*p - '0');
	for (; n < 9; n++)
		v *= 10;
	*nsec = v;
	return p;
}

/* Whether p starts with the n lowercase letters s, in any case. */
static bool
has_word(
    const unsigned char *p, const unsigned char *end, const char *s, size_t n)
{
	if ((size_t)(end - p) < n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (lower(p[i]) != s[i])
			return false;
	return true;
}

/*
 * One of names, in full or its first three letters, in any case (names
 * in English, whatever the locale): its index in *i, and the byte after.
 */
static const unsigned char *
name(const unsigned char *p, const unsigned char *end, const char *const *names,
    int *i)
{
	for (int k = 0; names[k] != NULL; k++) {
		size_t n = strlen(names[k]);

		if (!has_word(p, end, names[k], n)) {
			n = 3;
			if (!has_word(p, end, names[k], n))
				continue;
		}
		*i = k;
		return p + n;
	}
	return NULL;
}

/*
 * A UTC offset at p: Z, or a sign and hh, hhmm or hh:mm (not hh alone
 * when strict), into *off_s, east of UTC.  Returns the byte after, or
 * NULL.
 */
static const unsigned char *
offset(const unsigned char *p, const unsigned char *end, bool strict,
    int32_t *off_s)
{
	int sign, hh, mm = 0;

	if (p < end && (*p == 'Z' || *p == 'z')) {
		*off_s = 0;
		return p + 1;
	}
	if (p == end || (*p != '+' && *p != '-'))
		return NULL;
	sign = *p++ == '-' ? -1 : 1;
	if ((p = number_int(p, end, 2, 2, 0, 23, &hh)) == NULL)
		return NULL;
	if (p < end && *p == ':')
		p = number_int(p + 1, end, 2, 2, 0, 59, &mm);
	else if (end - p >= 2 && is_digit(p[0]) && is_digit(p[1]))
		p = number_int(p, end, 2, 2, 0, 59, &mm);
	else if (strict)
		return NULL;
	if (p != NULL)
		*off_s = sign * (hh * 3600 + mm * 60);
	return p;
}

/*
 * A zone's name (%Z): UTC, GMT, UT or Z are UTC, and so is a numeric one
 * (-03, as tzdata names some zones).  Any other name is taken as the
 * local zone, as glibc's strptime and mktime would take it: a pure parser
 * cannot look names up, and many (CST, IST) stand for several zones.
 */
static const unsigned char *
zone_name(const unsigned char *p, const unsigned char *end, struct parts *t)
{
	const unsigned char *q = p;
	size_t n;

	if (p < end && (*p == '+' || *p == '-')) {
		if ((q = offset(p, end, false, &t->offset_s)) != NULL)
			t->zoned = true;
		return q;
	}
	while (q < end && is_alpha(*q))
		q++;
	if ((n = (size_t)(q - p)) == 0)
		return NULL;
	if ((n == 3 &&
		(has_word(p, q, "utc", 3) || has_word(p, q, "gmt", 3))) ||
	    (n == 2 && has_word(p, q, "ut", 2)) ||
	    (n == 1 && has_word(p, q, "z", 1))) {
		t->zoned = true;
		t->offset_s = 0;
	}
	return q;
}

static const struct conv *
conv_of(int c)
{
	for (const struct conv *cv = convs; cv->c != '\0'; cv++)
		if (cv->c == c)
			return cv;
	return NULL;
}

/* The conversions that read a number: their width, range and part. */
static const unsigned char *
convert_number(int c, const unsigned char *p, const unsigned char *end,
    struct parts *t, bool strict)
{
	int w = strict ? 2 : 1, y;

	switch (c) {
	case 'Y':
		return number_int(
		    p, end, strict ? 4 : 1, 4, 0, 9999, &t->c.year);
	case 'y':
		/* POSIX's century: 69-99 are 1969-1999, 00-68 2000-2068. */
		if ((p = number_int(p, end, w, 2, 0, 99, &y)) != NULL)
			t->c.year = y < 69 ? 2000 + y : 1900 + y;
		return p;
	case 'm':
		return number_int(p, end, w, 2, 1, 12, &t->c.month);
	case 'd':
		return number_int(p, end, w, 2, 1, 31, &t->c.day);
	case 'e':
		return number_int(timeformat_skip_blanks(p, end), end, 1, 2, 1,
		    31, &t->c.day);
	case 'j':
		return number_int(p, end, strict ? 3 : 1, 3, 1, 366, &t->yday);
	case 'H':
		return number_int(p, end, w, 2, 0, 23, &t->c.hour);
	case 'I':
		return number_int(p, end, w, 2, 1, 12, &t->hour12);
	case 'M':
		return number_int(p, end, w, 2, 0, 59, &t->c.min);
	case 'S':
		return number_int(p, end, w, 2, 0, 60, &t->c.sec);
	default: /* 's' */
		return number(p, end, 1, INT32_MAX, 0,
		    TIMESTAMP_MAX_NS / NS_PER_S, &t->epoch_s);
	}
}

/* Conversion c at p, recording what it gave: the byte after, or NULL. */
static const unsigned char *
convert(int c, const unsigned char *p, const unsigned char *end,
    struct parts *t, bool strict)
{
	const struct conv *cv = conv_of(c);
	int i;

	if (cv == NULL)
		return NULL;
	if (cv->expand != NULL)
		return timeformat_match(cv->expand, p, end, t, strict, false);
	switch (c) {
	case 'b':
	case 'B':
	case 'h':
		if ((p = name(p, end, month_names, &i)) != NULL)
			t->c.month = i + 1;
		break;
	case 'a':
	case 'A':
		p = name(p, end, day_names, &i);
		break;
	case 'p':
		t->pm = has_word(p, end, "pm", 2);
		p = t->pm || has_word(p, end, "am", 2) ? p + 2 : NULL;
		break;
	case 'z':
		if ((p = offset(p, end, strict, &t->offset_s)) != NULL)
			t->zoned = true;
		break;
	case 'Z':
		p = zone_name(p, end, t);
		break;
	case 'n':
	case 't':
		p = skip_space(p, end);
		break;
	case '%':
		p = byte(p, end, '%');
		break;
	default:
		p = convert_number(c, p, end, t, strict);
	}
	if (p != NULL)
		t->have |= cv->have;
	return p;
}

/*
 * Match the format f at p, as strptime does: conversions, whitespace
 * matching any whitespace or none, and other bytes themselves.  At the
 * top level (not inside %T), a fraction of a second may follow the
 * seconds, unless the format itself goes on with the byte that would
 * start it.  strict asks the built-in formats' fixed widths.  Returns the
 * byte after the match, or NULL.
 */
const unsigned char *
timeformat_match(const char *f, const unsigned char *p,
    const unsigned char *end, struct parts *t, bool strict, bool top)
{
	while (*f != '\0') {
		unsigned char c = (unsigned char)*f++;

		if (is_space(c)) {
			p = skip_space(p, end);
			continue;
		}
		if (c != '%') {
			if ((p = byte(p, end, c)) == NULL)
				return NULL;
			continue;
		}
		if ((c = (unsigned char)*f++) == '\0' ||
		    (p = convert(c, p, end, t, strict)) == NULL)
			return NULL;
		if (top && (c == 'S' || c == 'T' || c == 's') && p < end &&
		    *p != (unsigned char)*f)
			p = fraction(p, end, true, &t->nsec);
	}
	return p;
}

/*
 * An epoch time at p: 10 digits of seconds, with a fraction or not, or
 * 13, 16 or 19 of milliseconds, microseconds or nanoseconds, not running
 * on into a word.  digits, when not 0, is the only count taken.
 */
/* Does an exponent (e9, E+18) follow the digits before p, after a
 * fraction or not? */
static bool
exponent_follows(const unsigned char *p, const unsigned char *end)
{
	if (p < end && *p == '.')
		for (p++; p < end && is_digit(*p); p++)
			;
	return p < end && (*p == 'e' || *p == 'E');
}

/*
 * A number in exponent form at p (1.7e+18, as JSON writers put large
 * floats), its digits moved to where the exponent puts the point: *n
 * digits of integer into *v, the fraction's nanoseconds into *nsec.
 * Returns the byte after it, or NULL when it is none (or starts with 0,
 * or has more than 20 digits of integer).
 */
static const unsigned char *
exponent_form(const unsigned char *p, const unsigned char *end, uint64_t *v,
    int *n, int32_t *nsec)
{
	char d[48];
	int len = 0, point, e = 0, k;

	for (; p < end && is_digit(*p) && len < 40; p++)
		d[len++] = (char)*p;
	if (len == 0 || d[0] == '0')
		return NULL;
	point = len;
	if (p < end && *p == '.')
		for (p++; p < end && is_digit(*p) && len < 40; p++)
			d[len++] = (char)*p;
	if (p == end || (*p != 'e' && *p != 'E'))
		return NULL;
	if (++p < end && *p == '+')
		p++;
	for (k = 0; p < end && is_digit(*p) && k < 3; p++, k++)
		e = e * 10 + (*p - '0');
	if (k == 0 || (point += e) > 19)
		return NULL;
	for (*v = 0, *n = 0; *n < point; (*n)++)
		*v = *v * 10 + (uint64_t)(*n < len ? d[*n] - '0' : 0);
	*nsec = 0;
	for (k = 0; k < 9; k++)
		*nsec = *nsec * 10 + (point + k < len ? d[point + k] - '0' : 0);
	return p;
}

const unsigned char *
timeformat_epoch(const unsigned char *p, const unsigned char *end, int digits,
    struct parts *t)
{
	const unsigned char *start = p;
	uint64_t v = 0, unit;
	int32_t frac = 0;
	int n = 0;

	for (; p < end && is_digit(*p) && n < 20; p++, n++)
		if (n < 19)
			v = v * 10 + (uint64_t)(*p - '0');
	/* 1.7e+09: the point where the exponent puts it. */
	bool expo = exponent_follows(p, end);

	if (expo && (p = exponent_form(start, end, &v, &n, &t->nsec)) == NULL)
		return NULL;
	if ((n != 10 && n != 13 && n != 16 && n != 19) ||
	    (digits != 0 && n != digits))
		return NULL;
	/* A fraction of the unit: of a second, or of a millisecond (as
	 * JSON writers give epoch milliseconds), to the nanosecond. */
	if (!expo)
		p = fraction(p, end, false, &frac);
	if (p < end && is_word(*p))
		return NULL;
	unit = n == 10 ? 1 : n == 13 ? 1000 : n == 16 ? 1000000 : NS_PER_S;
	t->epoch_s = (int64_t)(v / unit);
	if (!expo)
		t->nsec = (int32_t)(v % unit * (NS_PER_S / unit) +
		    (uint64_t)frac / unit);
	else if (n > 10)
		t->nsec = (int32_t)(v % unit * (NS_PER_S / unit));
	t->digits = n;
	t->have = HAVE_EPOCH;
	return p;
}

/*
 * The zone after an RFC 3339 time: none (p), Z, +hh:mm, +hhmm or +hh,
 * or, as git and Ruby write it, a space and +hhmm or +hh:mm.  A sign
 * right after the time that starts no offset is malformed: NULL.
 */
static const unsigned char *
iso_zone(const unsigned char *p, const unsigned char *end, struct parts *t)
{
	const unsigned char *q;

	if (p == end)
		return p;
	if (*p == ' ') {
		if (end - p < 2 || (p[1] != '+' && p[1] != '-') ||
		    (q = offset(p + 1, end, true, &t->offset_s)) == NULL)
			return p;
	} else if (*p == 'Z' || *p == 'z' || *p == '+' || *p == '-') {
		if ((q = offset(p, end, false, &t->offset_s)) == NULL)
			return NULL;
	} else {
		return p;
	}
	t->zoned = true;
	return q;
}

/*
 * RFC 3339 (ISO 8601's extended form) at p: 2026-11-23T14:05:06.123Z,
 * with T, t or a space, seconds optional, a fraction of any length, a
 * zone or none, and no digit right after.
 */
const unsigned char *
timeformat_iso(
    const unsigned char *p, const unsigned char *end, struct parts *t)
{
	if ((p = number_int(p, end, 4, 4, 0, 9999, &t->c.year)) == NULL ||
	    (p = byte(p, end, '-')) == NULL ||
	    (p = number_int(p, end, 2, 2, 1, 12, &t->c.month)) == NULL ||
	    (p = byte(p, end, '-')) == NULL ||
	    (p = number_int(p, end, 2, 2, 1, 31, &t->c.day)) == NULL)
		return NULL;
	if (p == end || (*p != 'T' && *p != 't' && *p != ' '))
		return NULL;
	if ((p = number_int(p + 1, end, 2, 2, 0, 23, &t->c.hour)) == NULL ||
	    (p = byte(p, end, ':')) == NULL ||
	    (p = number_int(p, end, 2, 2, 0, 59, &t->c.min)) == NULL)
		return NULL;
	if (end - p >= 2 && *p == ':' && is_digit(p[1])) {
		if ((p = number_int(p + 1, end, 2, 2, 0, 60, &t->c.sec)) ==
		    NULL)
			return NULL;
		p = fraction(p, end, true, &t->nsec);
	}
	if ((p = iso_zone(p, end, t)) == NULL || (p < end && is_digit(*p)))
		return NULL;
	t->have = HAVE_YEAR | HAVE_MONTH | HAVE_DAY | HAVE_HOUR | HAVE_MIN |
	    HAVE_SEC;
	return p;
}

/* The first RFC 3339 time in p[0..end) that starts no longer number. */
const unsigned char *
timeformat_iso_search(
    const unsigned char *p, const unsigned char *end, struct parts *t)
{
	const unsigned char *q, *r;

	if (end - p < 16) /* 2026-11-23T14:05 */
		return NULL;
	for (q = p + 4;
	     q < end && (q = memchr(q, '-', (size_t)(end - q))) != NULL; q++) {
		r = q - 4;
		if (r > p && is_digit(r[-1]))
			continue;
		memset(t, 0, sizeof *t);
		if ((r = timeformat_iso(r, end, t)) != NULL)
			return r;
	}
	return NULL;
}

/* Common Log Format's time: [23/Nov/2026:14:05:06 +0000]. */
const unsigned char *
timeformat_clf(
    const unsigned char *p, const unsigned char *end, struct parts *t)
{
	return timeformat_match("[%d/%b/%Y:%T %z]", p, end, t, true, true);
}

/* The first CLF time in p[0..end), whatever brackets come before it. */
const unsigned char *
timeformat_clf_search(
    const unsigned char *p, const unsigned char *end, struct parts *t)
{
	const unsigned char *q;

	for (; p < end && (p = memchr(p, '[', (size_t)(end - p))) != NULL;
	     p++) {
		memset(t, 0, sizeof *t);
		if ((q = timeformat_clf(p, end, t)) != NULL)
			return q;
	}
	return NULL;
}

/*
 * RFC 3164's time, after a <PRI> when the record has one (as sent on the
 * wire): Nov 23 14:05:06, the day padded with a space or not (ts writes
 * the same), not running on into a number.
 */
const unsigned char *
timeformat_syslog(
    const unsigned char *p, const unsigned char *end, struct parts *t)
{
	const unsigned char *q;
	int64_t pri;

	if (p < end && *p == '<' &&
	    (q = number(p + 1, end, 1, 3, 0, 191, &pri)) != NULL && q < end &&
	    *q == '>')
		p = q + 1;
	if ((p = timeformat_match("%b %e %T", p, end, t, true, true)) == NULL)
		return NULL;
	return p < end && is_digit(*p) ? NULL : p;
}

/* A one-line reason in err; returns -1. */
static int
fail(char *err, size_t errsz, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (errsz > 0)
		/* The analyzer misses the va_start above:
		 * NOLINTNEXTLINE(clang-analyzer-valist.Uninitialized) */
		(void)vsnprintf(err, errsz, fmt, ap);
	va_end(ap);
	return -1;
}

/* The conversion that gave part bit first, as by[] records it. */
static int
by_of(const char *by, unsigned bit)
{
	int b = 0;

	while ((1u << b) != bit)
		b++;
	return by[b];
}

/*
 * Whether the parts a format gives make a time: a date needs a month and
 * a day (or %j), a minute an hour, a second a minute, %I its %p.  by[b]
 * is the conversion that gave part 1 << b first, to name it.
 */
static int
check_parts(unsigned have, const char *by, char *err, size_t errsz)
{
	if ((have & (HAVE_DATE | HAVE_TIME | HAVE_EPOCH)) == 0)
		return fail(err, errsz,
		    "no date or time in it (try %%F %%T, "
		    "%%b %%e %%T or %%s)");
	if (have & HAVE_EPOCH)
		return 0; /* %s is the whole time; the rest matches */
	if ((have & HAVE_HOUR12) && !(have & HAVE_AMPM))
		return fail(err, errsz, "%%I without %%p");
	if ((have & HAVE_YDAY) && (have & (HAVE_MONTH | HAVE_DAY)))
		return fail(err, errsz, "%%j with a month or day (%%%c)",
		    by_of(by, (have & HAVE_MONTH) ? HAVE_MONTH : HAVE_DAY));
	if ((have & HAVE_DAY) && !(have & HAVE_MONTH))
		return fail(err, errsz, "%%%c without a month (%%m or %%b)",
		    by_of(by, HAVE_DAY));
	if ((have & HAVE_MONTH) && !(have & HAVE_DAY))
		return fail(err, errsz, "%%%c without a day (%%d or %%e)",
		    by_of(by, HAVE_MONTH));
	if ((have & HAVE_YEAR) && !(have & (HAVE_MONTH | HAVE_YDAY)))
		return fail(err, errsz, "%%%c without a month and day, or %%j",
		    by_of(by, HAVE_YEAR));
	if ((have & HAVE_MIN) && !(have & (HAVE_HOUR | HAVE_HOUR12)))
		return fail(err, errsz, "%%%c without an hour (%%H or %%I)",
		    by_of(by, HAVE_MIN));
	if ((have & HAVE_SEC) && !(have & HAVE_MIN))
		return fail(err, errsz, "%%%c without a minute (%%M)",
		    by_of(by, HAVE_SEC));
	return 0;
}

int
timeformat_check(const char *spec, char *err, size_t errsz)
{
	char by[HAVE_BITS] = { 0 };
	unsigned have = 0;

	for (const char *f = spec; *f != '\0'; f++) {
		const struct conv *cv;
		int c;

		if (*f != '%')
			continue;
		if ((c = (unsigned char)*++f) == '\0')
			return fail(err, errsz, "a lone %% at the end");
		if ((cv = conv_of(c)) == NULL)
			return c > ' ' && c < 0x7f ?
			    fail(err, errsz, "unknown conversion %%%c", c) :
			    fail(err, errsz, "unknown conversion %%\\x%02x", c);
		for (int b = 0; b < HAVE_BITS; b++)
			if ((cv->have & 1u << b) && by[b] == '\0')
				by[b] = cv->c;
		have |= cv->have;
	}
	return check_parts(have, by, err, errsz);
}
