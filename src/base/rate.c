/* Parsing of rates, amounts and durations; pure, no I/O. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "msg.h"
#include "rate.h"

/* An exact non-negative rational; den > 0. */
struct ratio {
	uint64_t num;
	uint64_t den;
};

struct suffix {
	const char *name;
	uint64_t mult;
};

/* Bare letters, either case, are 1024-based, as pv and curl take them. */
/* clang-format off */
static const struct suffix byte_suffixes[] = {
	{ "", 1 }, { "B", 1 },
	{ "K", 1ULL << 10 }, { "k", 1ULL << 10 }, { "KiB", 1ULL << 10 },
	{ "KB", 1000ULL }, { "kB", 1000ULL },
	{ "M", 1ULL << 20 }, { "m", 1ULL << 20 }, { "MiB", 1ULL << 20 },
	{ "MB", 1000000ULL },
	{ "G", 1ULL << 30 }, { "g", 1ULL << 30 }, { "GiB", 1ULL << 30 },
	{ "GB", 1000000000ULL },
	{ "T", 1ULL << 40 }, { "t", 1ULL << 40 }, { "TiB", 1ULL << 40 },
	{ "TB", 1000000000000ULL },
	{ NULL, 0 }
};
/* clang-format on */

/* clang-format off */
static const struct suffix record_suffixes[] = {
	{ "", 1 }, { "k", 1000ULL }, { "K", 1000ULL }, { "M", 1000000ULL },
	{ "G", 1000000000ULL },
	{ NULL, 0 }
};
/* clang-format on */

#define NS_SEC 1000000000ULL

/* clang-format off */
static const struct suffix periods[] = {
	{ "ms", NS_SEC / 1000 }, { "msec", NS_SEC / 1000 },
	{ "msecs", NS_SEC / 1000 },
	{ "s", NS_SEC }, { "sec", NS_SEC }, { "secs", NS_SEC },
	{ "second", NS_SEC }, { "seconds", NS_SEC },
	{ "m", 60 * NS_SEC }, { "min", 60 * NS_SEC }, { "mins", 60 * NS_SEC },
	{ "minute", 60 * NS_SEC }, { "minutes", 60 * NS_SEC },
	{ "h", 3600 * NS_SEC }, { "hr", 3600 * NS_SEC },
	{ "hrs", 3600 * NS_SEC }, { "hour", 3600 * NS_SEC },
	{ "hours", 3600 * NS_SEC },
	{ "d", 86400 * NS_SEC }, { "day", 86400 * NS_SEC },
	{ "days", 86400 * NS_SEC },
	{ NULL, 0 }
};
/* clang-format on */

uint64_t
rate_gcd(uint64_t a, uint64_t b)
{
	while (b != 0) {
		uint64_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

static struct ratio
ratio_reduce(struct ratio r)
{
	uint64_t g = rate_gcd(r.num, r.den);

	if (g > 1) {
		r.num /= g;
		r.den /= g;
	}
	return r;
}

/* a * b for rationals; -1 on overflow.  Cross-reduces first. */
static int
ratio_mul(struct ratio a, struct ratio b, struct ratio *out)
{
	uint64_t g1 = rate_gcd(a.num, b.den), g2 = rate_gcd(b.num, a.den);

	if (a.den == 0 || b.den == 0)
		return -1;
	if (g1 > 1) {
		a.num /= g1;
		b.den /= g1;
	}
	if (g2 > 1) {
		b.num /= g2;
		a.den /= g2;
	}
	if (a.num != 0 && b.num > UINT64_MAX / a.num)
		return -1;
	if (b.den > UINT64_MAX / a.den)
		return -1;
	out->num = a.num * b.num;
	out->den = a.den * b.den;
	*out = ratio_reduce(*out);
	return 0;
}

/* Does num * den stay below 2^63? */
static bool
ratio_small(struct ratio r)
{
	return r.num == 0 || r.den <= (UINT64_MAX >> 1) / r.num;
}

/*
 * Best rational approximation of x with num * den below 2^63, by continued
 * fractions.  Used only when the exact rate does not fit; the relative
 * error is then below 1e-15.
 */
static struct ratio
ratio_approx(long double x)
{
	uint64_t p0 = 0, q0 = 1, p1 = 1, q1 = 0;
	long double f = x;

	for (int i = 0; i < 64 && f < 1e19L; i++) {
		uint64_t ai = (uint64_t)f;
		long double a = (long double)ai;
		uint64_t p2, q2;

		if (ai != 0 &&
		    (p1 > (UINT64_MAX - p0) / ai ||
			q1 > (UINT64_MAX - q0) / ai))
			break;
		p2 = ai * p1 + p0;
		q2 = ai * q1 + q0;
		if (q2 == 0 || !ratio_small((struct ratio){ p2, q2 }))
			break;
		p0 = p1;
		q0 = q1;
		p1 = p2;
		q1 = q2;
		if (f - a < 1e-30L)
			break;
		f = 1.0L / (f - a);
	}
	if (q1 == 0)
		return (struct ratio){ 0, 1 };
	return ratio_reduce((struct ratio){ p1, q1 });
}

/* Most digits an exponent may have: 10^99 overflows anyway. */
#define MAX_EXPONENT 99

/*
 * Scale *value by an exponent at *sp ([eE][+-]DIGITS), if there is one,
 * exactly, and advance *sp past it.  An e not followed by digits is left
 * for the suffix to refuse.
 */
static int
parse_exponent(const char **sp, struct ratio *value, char *err, size_t errsz)
{
	const char *s = *sp;
	bool minus = false;
	int exp = 0;

	if (*s != 'e' && *s != 'E')
		return 0;
	s++;
	if (*s == '+' || *s == '-')
		minus = *s++ == '-';
	if (*s < '0' || *s > '9')
		return 0;
	for (; *s >= '0' && *s <= '9'; s++)
		if ((exp = exp * 10 + (*s - '0')) > MAX_EXPONENT) {
			snprintf(err, errsz, "exponent too large");
			return -1;
		}
	for (int i = 0; i < exp && value->num != 0; i++)
		if (ratio_mul(*value,
			minus ? (struct ratio){ 1, 10 } :
				(struct ratio){ 10, 1 },
			value) != 0) {
			snprintf(err, errsz, "%s",
			    minus ? "too many digits" : "value too large");
			return -1;
		}
	*sp = s;
	return 0;
}

/*
 * Parse DIGITS[.DIGITS][e[+-]DIGITS] at *sp into an exact ratio and
 * advance *sp.
 * Returns 0, or -1 with a reason.
 */
static int
parse_number(const char **sp, struct ratio *out, char *err, size_t errsz)
{
	const char *s = *sp;
	uint64_t num = 0, den = 1;
	int digits = 0, frac = 0;
	bool point = false;

	for (;; s++) {
		if (*s == '.' && !point) {
			point = true;
			continue;
		}
		if (*s < '0' || *s > '9')
			break;
		if (num == 0 && *s == '0' && !point) {
			digits++;
			continue;
		}
		if (num > (UINT64_MAX - 9) / 10 || den > UINT64_MAX / 10) {
			snprintf(err, errsz, "too many digits");
			return -1;
		}
		num = num * 10 + (uint64_t)(*s - '0');
		if (point) {
			den *= 10;
			frac++;
		}
		digits++;
	}
	if (digits == 0 && frac == 0) {
		if (*s == '-' || *s == '+')
			snprintf(err, errsz, "a signed number is not valid");
		else
			snprintf(err, errsz, "expected a number");
		return -1;
	}
	*out = ratio_reduce((struct ratio){ num, den });
	if (parse_exponent(&s, out, err, errsz) != 0)
		return -1;
	*sp = s;
	return 0;
}

static const struct suffix *
find_suffix(const struct suffix *table, const char *s, size_t len)
{
	for (; table->name != NULL; table++)
		if (strlen(table->name) == len &&
		    strncmp(table->name, s, len) == 0)
			return table;
	return NULL;
}

/* Length of the run of letters at s. */
static size_t
word_len(const char *s)
{
	size_t n = 0;

	while ((s[n] >= 'a' && s[n] <= 'z') || (s[n] >= 'A' && s[n] <= 'Z'))
		n++;
	return n;
}

static const char *
suffix_hint(bool bytes)
{
	return bytes ? "k, K, KiB, KB, m, M, MiB, MB, g, G, GB, t, T" :
		       "k, M, G";
}

/* How a sentence names one of a period: 60 s is "a minute". */
static const char *
period_one(uint64_t ns)
{
	switch (ns) {
	case NS_SEC / 1000:
		return "a millisecond";
	case NS_SEC:
		return "a second";
	case 60 * NS_SEC:
		return "a minute";
	case 3600 * NS_SEC:
		return "an hour";
	default:
		return "a day";
	}
}

/* 1/value in a few digits: "5", or "about 3.333" when it is not so exact. */
static void
reciprocal(struct ratio value, char *buf, size_t size)
{
	long double r = (long double)value.den / value.num;

	if (value.den % value.num == 0)
		snprintf(buf, size, "%llu",
		    (unsigned long long)(value.den / value.num));
	else
		snprintf(buf, size, "%s%.4Lg",
		    value.den <= UINT64_MAX / 10000 &&
			    value.den * 10000 % value.num == 0 ?
			"" :
			"about ",
		    r);
}

/*
 * The number at start, worth value, runs into the period word s (len
 * letters): say what was likely meant.  Below one (0.2s) it can only be
 * an interval; above, a count per period (2/s) or an interval (1/2s),
 * one and the same for 1.  A record rate's "1m/s" meant the suffix M.
 */
static void
period_hint(const char *start, const char *s, size_t len, struct ratio value,
    char *err, size_t errsz)
{
	int n = (int)(s - start), u = (int)len;
	char per[32];

	if (len == 1 && s[0] == 'm' && s[1] == '/')
		snprintf(err, errsz,
		    "m is 2^20 bytes with -c; for a million records give M: "
		    "%.*sM%s",
		    n, start, s + 1);
	else if (s[len] != '\0' || value.num == 0 || value.num == value.den)
		snprintf(err, errsz, "a period needs a slash: %.*s/%.*s", n,
		    start, u, s);
	else if (value.num < value.den) {
		reciprocal(value, per, sizeof per);
		snprintf(err, errsz,
		    "one every %.*s %.*s is 1/%.*s%.*s (%s/%.*s)", n, start, u,
		    s, n, start, u, s, per, u, s);
	} else
		snprintf(err, errsz,
		    "a period needs a slash: %.*s/%.*s for %.*s %s, or "
		    "1/%.*s%.*s for one every %.*s %.*s",
		    n, start, u, s, n, start,
		    period_one(find_suffix(periods, s, len)->mult), n, start, u,
		    s, n, start, u, s);
}

/*
 * Parse an optional size suffix at *sp, after the number that starts at
 * start; multiplies *value.
 */
static int
parse_suffix(const char *start, const char **sp, bool bytes,
    struct ratio *value, char *err, size_t errsz)
{
	const char *s = *sp;
	size_t len = word_len(s);
	const struct suffix *sx;

	sx = find_suffix(bytes ? byte_suffixes : record_suffixes, s, len);
	if (sx == NULL) {
		if (find_suffix(periods, s, len) != NULL)
			period_hint(start, s, len, *value, err, errsz);
		else if (!bytes && find_suffix(byte_suffixes, s, len) != NULL)
			snprintf(err, errsz,
			    "suffix '%.*s' is for byte rates "
			    "(-c); records take k, M, G",
			    (int)len, s);
		else
			snprintf(err, errsz,
			    "unknown unit '%.*s' (use %s, "
			    "then /s, /min, /h, /day)",
			    (int)len, s, suffix_hint(bytes));
		return -1;
	}
	if (ratio_mul(*value, (struct ratio){ sx->mult, 1 }, value) != 0) {
		snprintf(err, errsz, "value too large");
		return -1;
	}
	*sp = s + len;
	return 0;
}

/* Parse [N]PERIOD into a duration in nanoseconds. */
static int
parse_period(const char **sp, struct ratio *ns, char *err, size_t errsz)
{
	const char *s = *sp;
	struct ratio count = { 1, 1 };
	const struct suffix *p;
	size_t len;

	if ((*s >= '0' && *s <= '9') || *s == '.') {
		if (parse_number(&s, &count, err, errsz) != 0)
			return -1;
		if (count.num == 0) {
			snprintf(err, errsz,
			    "the period must be longer "
			    "than zero");
			return -1;
		}
	}
	len = word_len(s);
	if (len == 0) {
		if (*s == '\0')
			snprintf(err, errsz,
			    "missing period unit after "
			    "'/' (use ms, s, min, h, day)");
		else
			snprintf(err, errsz,
			    "unexpected '%c' in period "
			    "(use ms, s, min, h, day)",
			    *s);
		return -1;
	}
	if ((p = find_suffix(periods, s, len)) == NULL) {
		snprintf(err, errsz,
		    "unknown period '%.*s' (use ms, s, sec, "
		    "min, h, hour, d, day)",
		    (int)len, s);
		return -1;
	}
	if (ratio_mul(count, (struct ratio){ p->mult, 1 }, ns) != 0) {
		snprintf(err, errsz, "period too long");
		return -1;
	}
	*sp = s + len;
	return 0;
}

/*
 * The rate value units every period, of the text as given, into out;
 * -1 with the reason in err when it is out of range.
 */
static int
rate_in_range(struct ratio value, struct ratio period, bool bytes,
    struct rate *out, char *err, size_t errsz)
{
	struct ratio per_ns, lim;
	long double exact;

	if (value.num == 0) {
		snprintf(err, errsz,
		    "the rate must be above zero "
		    "(use inf for no limit)");
		return -1;
	}
	/* Range checks on the exact values, in long double to avoid overflow. */
	exact = (long double)value.num * period.den /
	    ((long double)value.den * period.num); /* units per ns */
	if (exact * 1e9L > (long double)RATE_MAX_PER_SEC) {
		snprintf(err, errsz,
		    "above the fastest rate, %s (use inf for "
		    "no limit)",
		    bytes ? "1TB/s: 10^12 bytes a second" :
			    "1000G/s: 10^12 records a second");
		return -1;
	}
	if (1.0L / exact > (long double)RATE_MAX_INTERVAL_NS) {
		snprintf(err, errsz, "below the slowest rate of 1/3650day");
		return -1;
	}
	lim = (struct ratio){ period.den, period.num };
	if (ratio_mul(value, lim, &per_ns) != 0 || !ratio_small(per_ns))
		per_ns = ratio_approx(exact);
	*out = (struct rate){ .inf = false,
		.n = per_ns.num,
		.d = per_ns.den,
		.count = value.den == 1 ? value.num : 0,
		.period_ns = period.den == 1 ? period.num : 0 };
	return 0;
}

static int
rate_of(const char *s, bool bytes, struct rate *out, char *err, size_t errsz)
{
	struct ratio value, period = { NS_SEC, 1 };
	const char *text = s;

	if (strcasecmp(s, "inf") == 0 || strcasecmp(s, "infinity") == 0) {
		*out = (struct rate){ .inf = true, .n = 1, .d = 1 };
		return 0;
	}
	if (*s == '\0') {
		snprintf(err, errsz, "empty rate (try 10/s, 5/min, 1M/s)");
		return -1;
	}
	if (parse_number(&s, &value, err, errsz) != 0)
		return -1;
	if (bytes && strcmp(s, "m") == 0) {
		/* MiB a second, or bytes a minute? */
		snprintf(err, errsz,
		    "'m' alone is ambiguous: write %.*sm/s for "
		    "MiB a second, or %.*s/min for bytes a minute",
		    (int)(s - text), text, (int)(s - text), text);
		return -1;
	}
	if (parse_suffix(text, &s, bytes, &value, err, errsz) != 0)
		return -1;
	if (*s == '/') {
		s++;
		if (parse_period(&s, &period, err, errsz) != 0)
			return -1;
	}
	if (*s != '\0') {
		snprintf(err, errsz,
		    "unexpected '%s' (try 10/s, 5/min, "
		    "1M/s)",
		    s);
		return -1;
	}
	return rate_in_range(value, period, bytes, out, err, errsz);
}

static int
amount_of(
    const char *s, bool bytes, struct amount *out, char *err, size_t errsz)
{
	struct ratio value, ns;
	const char *rest, *text = s;
	size_t len;

	if (*s == '\0') {
		snprintf(err, errsz, "empty value");
		return -1;
	}
	if (parse_number(&s, &value, err, errsz) != 0)
		return -1;
	len = word_len(s);
	if (len > 0 && find_suffix(periods, s, len) != NULL && s[len] == '\0') {
		rest = s;
		if (parse_period(&rest, &ns, err, errsz) != 0)
			return -1;
		if (ratio_mul(value, ns, &ns) != 0) {
			snprintf(err, errsz, "duration too long");
			return -1;
		}
		*out = (struct amount){ true, ns.num, ns.den };
		return 0;
	}
	if (parse_suffix(text, &s, bytes, &value, err, errsz) != 0)
		return -1;
	if (*s != '\0') {
		snprintf(err, errsz,
		    "unexpected '%s' (use a count such as "
		    "10 or 64K, or a duration such as 2s)",
		    s);
		return -1;
	}
	*out = (struct amount){ false, value.num, value.den };
	return 0;
}

int
rate_amount_units(const struct amount *a, const struct rate *r, uint64_t *units)
{
	long double v = (long double)a->num / a->den;
	struct ratio x;

	if (a->is_duration) {
		if (r->inf)
			return -1;
		/* units = duration_ns * n / d; exact when it fits. */
		if (ratio_mul((struct ratio){ a->num, a->den },
			(struct ratio){ r->n, r->d }, &x) == 0) {
			if (x.num / x.den >= (1ULL << 62))
				return -1;
			*units = x.num / x.den;
			return 0;
		}
		v = v * r->n / r->d;
	} else if (a->num / a->den < (1ULL << 62)) {
		*units = a->num / a->den;
		return 0;
	}
	if (v >= (long double)(1ULL << 62))
		return -1;
	*units = (uint64_t)v;
	return 0;
}

double
rate_per_sec(const struct rate *r)
{
	return (double)((long double)r->n * 1e9L / r->d);
}

int
rate_parse(const char *s, bool bytes, struct rate *out, char *err, size_t errsz)
{
	int rc = rate_of(s, bytes, out, err, errsz);

	if (rc != 0)
		msg_escape(err, errsz);
	return rc;
}

int
rate_parse_amount(
    const char *s, bool bytes, struct amount *out, char *err, size_t errsz)
{
	int rc = amount_of(s, bytes, out, err, errsz);

	if (rc != 0)
		msg_escape(err, errsz);
	return rc;
}

/* Periods by which rates are shown, longest first. */
/* clang-format off */
static const struct suffix shown_periods[] = {
	{ "day", 86400 * NS_SEC }, { "h", 3600 * NS_SEC },
	{ "min", 60 * NS_SEC }, { "s", NS_SEC }, { "ms", NS_SEC / 1000 },
	{ NULL, 0 }
};
/* clang-format on */

void
rate_format(const struct rate *r, bool bytes, char *out, size_t size)
{
	const char *unit = bytes ? " B" : "";

	if (r->inf) {
		snprintf(out, size, "inf");
		return;
	}
	/* As written, when it was a whole count per whole period. */
	for (const struct suffix *p = shown_periods;
	     r->count != 0 && p->name != NULL; p++) {
		if (r->period_ns == 0 || r->period_ns % p->mult != 0)
			continue;
		if (r->period_ns == p->mult)
			snprintf(out, size, "%llu%s/%s",
			    (unsigned long long)r->count, unit, p->name);
		else
			snprintf(out, size, "%llu%s/%llu%s",
			    (unsigned long long)r->count, unit,
			    (unsigned long long)(r->period_ns / p->mult),
			    p->name);
		return;
	}
	snprintf(out, size, "%.6g%s/s", rate_per_sec(r), unit);
}
