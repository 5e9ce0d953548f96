/* A server's Retry-After, as a command wrote it, to a delay; pure. */
#include <stdbool.h>

#include "calendar.h"
#include "retryafter.h"

#define NS_PER_S INT64_C(1000000000)
#define MAX_S (RETRYAFTER_MAX_NS / NS_PER_S)

/* The text still to read. */
struct cursor {
	const char *p, *end;
};

/* A date as written, checked for range only once whole. */
struct http_date {
	int64_t year;
	int month, day, hour, min, sec;
	bool two_digit_year; /* RFC 850's: the century is ours to find */
};

static bool
is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static bool
is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static char
lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/* Consume the byte c. */
static bool
take_char(struct cursor *c, char ch)
{
	if (c->p == c->end || *c->p != ch)
		return false;
	c->p++;
	return true;
}

/* Consume exactly n digits (n <= 4) into *v. */
static bool
take_digits(struct cursor *c, int n, int *v)
{
	if (c->end - c->p < n)
		return false;
	*v = 0;
	for (int i = 0; i < n; i++) {
		if (!is_digit(c->p[i]))
			return false;
		*v = *v * 10 + (c->p[i] - '0');
	}
	c->p += n;
	return true;
}

/* Whether w[0..len) is name, in any case. */
static bool
word_is(const char *w, size_t len, const char *name)
{
	size_t k = 0;

	while (k < len && name[k] != '\0' && lower(w[k]) == name[k])
		k++;
	return k == len && name[k] == '\0';
}

/*
 * Consume a word of letters that is one of names[0..n) or, when
 * long_names is not NULL, one of long_names[0..n), in any case; its
 * index in *i.
 */
static bool
take_name(struct cursor *c, const char *const *names,
    const char *const *long_names, int n, int *i)
{
	size_t len = 0;

	while (c->p + len < c->end && lower(c->p[len]) >= 'a' &&
	    lower(c->p[len]) <= 'z')
		len++;
	for (*i = 0; len > 0 && *i < n; (*i)++)
		if (word_is(c->p, len, names[*i]) ||
		    (long_names != NULL &&
			word_is(c->p, len, long_names[*i]))) {
			c->p += len;
			return true;
		}
	return false;
}

static bool
take_month(struct cursor *c, int *month)
{
	static const char *const names[12] = { "jan", "feb", "mar", "apr",
		"may", "jun", "jul", "aug", "sep", "oct", "nov", "dec" };

	if (!take_name(c, names, NULL, 12, month))
		return false;
	(*month)++;
	return true;
}

static bool
take_weekday(struct cursor *c)
{
	static const char *const names[7] = { "mon", "tue", "wed", "thu", "fri",
		"sat", "sun" };
	static const char *const long_names[7] = { "monday", "tuesday",
		"wednesday", "thursday", "friday", "saturday", "sunday" };
	int i;

	return take_name(c, names, long_names, 7, &i);
}

static bool
take_gmt(struct cursor *c)
{
	static const char *const names[1] = { "gmt" };
	int i;

	return take_name(c, names, NULL, 1, &i);
}

/* "08:49:37" */
static bool
take_time(struct cursor *c, struct http_date *d)
{
	return take_digits(c, 2, &d->hour) && take_char(c, ':') &&
	    take_digits(c, 2, &d->min) && take_char(c, ':') &&
	    take_digits(c, 2, &d->sec);
}

/*
 * After "Sun, ": "06 Nov 1994 08:49:37 GMT" (IMF-fixdate) or
 * "06-Nov-94 08:49:37 GMT" (RFC 850).
 */
static bool
take_fixdate(struct cursor *c, struct http_date *d)
{
	int year;
	char sep;

	if (!take_digits(c, 2, &d->day) || c->p == c->end)
		return false;
	sep = *c->p++;
	if ((sep != ' ' && sep != '-') || !take_month(c, &d->month) ||
	    !take_char(c, sep))
		return false;
	d->two_digit_year = sep == '-';
	if (!take_digits(c, d->two_digit_year ? 2 : 4, &year))
		return false;
	d->year = year;
	return take_char(c, ' ') && take_time(c, d) && take_char(c, ' ') &&
	    take_gmt(c);
}

/* After "Sun ": "Nov  6 08:49:37 1994" (asctime; "Nov 06", "Nov 6" too). */
static bool
take_asctime(struct cursor *c, struct http_date *d)
{
	int year;

	if (!take_month(c, &d->month) || !take_char(c, ' '))
		return false;
	if ((take_char(c, ' ') || !take_digits(c, 2, &d->day)) &&
	    !take_digits(c, 1, &d->day))
		return false;
	if (!take_char(c, ' ') || !take_time(c, d) || !take_char(c, ' ') ||
	    !take_digits(c, 4, &year))
		return false;
	d->year = year;
	return true;
}

static bool
date_is_real(const struct http_date *d)
{
	return d->month >= 1 && d->month <= 12 && d->day >= 1 &&
	    d->day <= calendar_month_days(d->year, d->month) && d->hour <= 23 &&
	    d->min <= 59 && d->sec <= 60;
}

static int64_t
date_seconds(const struct http_date *d)
{
	return calendar_days_from_civil(d->year, d->month, d->day) * 86400 +
	    d->hour * 3600 + d->min * 60 + d->sec;
}

/*
 * RFC 850's year yy: the one of the 100 years that end 50 years after
 * now (to the second), so that a date more than 50 years ahead is taken
 * as in the past (RFC 9110, 5.6.7), and one more than 50 years past as
 * in the next century.  (Feb 29 of a year that has none counts here as
 * March 1; it is refused afterwards.)
 */
static void
find_century(struct http_date *d, int64_t now_s)
{
	int64_t days = calendar_floor_div(now_s, 86400), year, tod_s, s;
	int month, day;

	calendar_civil_from_days(days, &year, &month, &day);
	tod_s = now_s - days * 86400;
	d->year += calendar_floor_div(year, 100) * 100;
	s = date_seconds(d);
	if (s > calendar_days_from_civil(year + 50, month, day) * 86400 + tod_s)
		d->year -= 100;
	else if (s <=
	    calendar_days_from_civil(year - 50, month, day) * 86400 + tod_s)
		d->year += 100;
}

/* The delay from now_ns to the date c holds. */
static enum retryafter_status
parse_date(struct cursor *c, int64_t now_ns, int64_t *delay_ns)
{
	struct http_date d = { 0 };
	int64_t now_s = calendar_floor_div(now_ns, NS_PER_S), ahead_s, ns;
	bool ok;

	if (!take_weekday(c))
		return RETRYAFTER_BAD;
	if (take_char(c, ','))
		ok = take_char(c, ' ') && take_fixdate(c, &d);
	else
		ok = take_char(c, ' ') && take_asctime(c, &d);
	if (!ok || c->p != c->end)
		return RETRYAFTER_BAD;
	if (d.two_digit_year)
		find_century(&d, now_s);
	if (!date_is_real(&d))
		return RETRYAFTER_BAD_DATE;
	ahead_s = date_seconds(&d) - now_s;
	if (ahead_s < 0) {
		*delay_ns = 0;
		return RETRYAFTER_OK;
	}
	if (ahead_s > MAX_S) {
		*delay_ns = RETRYAFTER_MAX_NS;
		return RETRYAFTER_CLAMPED;
	}
	ns = ahead_s * NS_PER_S - (now_ns - now_s * NS_PER_S);
	*delay_ns = ns > 0 ? ns : 0;
	return RETRYAFTER_OK;
}

/* Digits, maybe a '.' and more digits: the seconds, rounded up to ns. */
static enum retryafter_status
parse_seconds(struct cursor *c, int64_t *delay_ns)
{
	int64_t s = 0, frac_ns = 0, scale = NS_PER_S;
	bool over = false, up = false;

	for (; c->p < c->end && is_digit(*c->p); c->p++) {
		s = s * 10 + (*c->p - '0');
		if (s > MAX_S) {
			over = true;
			s = MAX_S + 1; /* stays put: no overflow */
		}
	}
	if (take_char(c, '.')) {
		if (c->p == c->end || !is_digit(*c->p))
			return RETRYAFTER_BAD;
		for (; c->p < c->end && is_digit(*c->p); c->p++) {
			scale /= 10;
			if (scale > 0)
				frac_ns += (*c->p - '0') * scale;
			else if (*c->p != '0')
				up = true; /* past the ns: never early */
		}
	}
	frac_ns += up;
	if (c->p != c->end)
		return RETRYAFTER_BAD;
	if (over || s * NS_PER_S + frac_ns > RETRYAFTER_MAX_NS) {
		*delay_ns = RETRYAFTER_MAX_NS;
		return RETRYAFTER_CLAMPED;
	}
	*delay_ns = s * NS_PER_S + frac_ns;
	return RETRYAFTER_OK;
}

enum retryafter_status
retryafter_parse(
    const char *text, size_t len, int64_t now_ns, int64_t *delay_ns)
{
	struct cursor c = { text, text + len };

	while (c.p < c.end && is_blank(*c.p))
		c.p++;
	while (c.end > c.p && is_blank(c.end[-1]))
		c.end--;
	if (c.p == c.end)
		return RETRYAFTER_EMPTY;
	if (is_digit(*c.p))
		return parse_seconds(&c, delay_ns);
	return parse_date(&c, now_ns, delay_ns);
}

const char *
retryafter_reason(enum retryafter_status status)
{
	switch (status) {
	case RETRYAFTER_OK:
		return "a delay";
	case RETRYAFTER_CLAMPED:
		return "a delay over a day, cut to a day";
	case RETRYAFTER_EMPTY:
		return "nothing written";
	case RETRYAFTER_BAD_DATE:
		return "an HTTP-date of no real day or time";
	case RETRYAFTER_BAD:
		break;
	}
	return "neither seconds nor an HTTP-date (Sun, 06 Nov 1994 08:49:37 "
	       "GMT)";
}
