/* Records' timestamps for --replay: found, parsed to UTC; pure, no I/O. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "calendar.h"
#include "timeformat.h"
#include "timestamp.h"

#define S_PER_DAY 86400LL
/* Seconds beyond any time a parse returns, kept small so that they can
 * be compared and subtracted without overflow. */
#define S_OUT_OF_RANGE (TIMESTAMP_MAX_NS / NS_PER_S + 2)

/*
 * Where field field (1-based) of p[0..end) starts, fields split as -k
 * splits them (field_of): at runs of blanks, leading
 * ones skipped, or at every byte sep.  NULL when there are fewer fields.
 */
static const unsigned char *
field_start(
    const unsigned char *p, const unsigned char *end, unsigned field, int sep)
{
	for (unsigned f = 1;; f++) {
		if (sep < 0)
			p = timeformat_skip_blanks(p, end);
		if (sep < 0 && p == end)
			return NULL;
		if (f == field)
			return p;
		while (
		    p < end && (sep < 0 ? !timeformat_is_blank(*p) : *p != sep))
			p++;
		if (p == end)
			return NULL;
		if (sep >= 0)
			p++;
	}
}

/* Day (from the epoch) of y-month-day, or day yday of y; -1: no such. */
static int
day_of(int64_t y, const struct parts *t, int64_t *days)
{
	if (t->have & HAVE_YDAY) {
		if (t->yday < 1 || t->yday > (calendar_is_leap(y) ? 366 : 365))
			return -1;
		*days = calendar_days_from_civil(y, 1, 1) + t->yday - 1;
		return 0;
	}
	if (t->c.month < 1 || t->c.month > 12 || t->c.day < 1 ||
	    t->c.day > calendar_month_days(y, t->c.month))
		return -1;
	*days = calendar_days_from_civil(y, t->c.month, t->c.day);
	return 0;
}

/*
 * Of the days day(y) for y - 1, y and y + 1 (step 1 for a year, else a
 * day), the one whose time tod_s is nearest the previous record's, ties
 * to the later.
 */
static int
nearest(const struct timestamp_format *fmt, const struct parts *t,
    int64_t tod_s, int64_t y, bool years, int64_t *days)
{
	int64_t best = -1, d;

	for (int64_t c = y - 1; c <= y + 1; c++) {
		int64_t dist;

		if (!years)
			d = c;
		else if (day_of(c, t, &d) == -1)
			continue;
		dist = d * S_PER_DAY + tod_s - fmt->prev_civil_s;
		if (dist < 0)
			dist = -dist;
		if (best < 0 || dist <= best) {
			best = dist;
			*days = d;
		}
	}
	return best < 0 ? -1 : 0;
}

/*
 * The day of a record's date, completed when it has no year or no date.
 * Without a year it takes the year that puts it nearest the previous
 * record: December then January moves on a year, and a record more than
 * half a year after the previous one is taken as written months before
 * it, a year back: logs are written in order give or take a few late
 * lines, and one out of place is likelier than six months of silence.
 * Without a date, the same by days, for a log that crosses midnight.  The
 * first record takes the reference date; without a year, the year
 * before it when its month is later than the reference's, as a log is
 * read after it is written.
 */
static int
date_of(const struct timestamp_format *fmt, const struct parts *t,
    int64_t tod_s, int64_t *days)
{
	int64_t y, d;
	int m, dd;

	if (t->have & HAVE_YEAR)
		return day_of(t->c.year, t, days);
	if ((t->have & HAVE_DATE) == 0) {
		if (!fmt->have_prev) {
			*days = calendar_days_from_civil(
			    fmt->ref.year, fmt->ref.month, fmt->ref.day);
			return 0;
		}
		return nearest(fmt, t, tod_s,
		    calendar_floor_div(fmt->prev_civil_s, S_PER_DAY), false,
		    days);
	}
	if (fmt->have_prev) {
		calendar_civil_from_days(
		    calendar_floor_div(fmt->prev_civil_s, S_PER_DAY), &y, &m,
		    &dd);
		return nearest(fmt, t, tod_s, y, true, days);
	}
	y = fmt->ref.year;
	m = t->c.month;
	if ((t->have & HAVE_YDAY) && day_of(y, t, &d) == 0)
		calendar_civil_from_days(d, &y, &m, &dd);
	return day_of(m > fmt->ref.month ? y - 1 : y, t, days);
}

/*
 * The time in seconds, UTC, of the local time days + tod_s by the
 * caller's conversion; of two (the hour repeated when clocks go back),
 * the one nearest the previous record, so that a replay goes on through
 * the repeated hour instead of going back an hour.
 */
static int
local_time(const struct timestamp_format *fmt, struct parts *t, int64_t days,
    int64_t *s)
{
	struct timestamp_civil c = t->c;
	int64_t y, u[2], prev_s, d0, d1;

	calendar_civil_from_days(days, &y, &c.month, &c.day);
	c.year = (int)y;
	if (fmt->local(fmt->local_arg, &c, u) == -1)
		return -1;
	for (int i = 0; i < 2; i++)
		if (u[i] < -S_OUT_OF_RANGE || u[i] > S_OUT_OF_RANGE)
			u[i] = u[i] < 0 ? -S_OUT_OF_RANGE : S_OUT_OF_RANGE;
	*s = u[0];
	if (fmt->have_prev && u[0] != u[1]) {
		prev_s = calendar_floor_div(fmt->prev_ns, NS_PER_S);
		d0 = u[0] > prev_s ? u[0] - prev_s : prev_s - u[0];
		d1 = u[1] > prev_s ? u[1] - prev_s : prev_s - u[1];
		if (d1 <= d0)
			*s = u[1];
	}
	return 0;
}

/* s seconds and nsec as nanoseconds, within the range; else -1. */
static int
to_ns(int64_t s, int32_t nsec, int64_t *ns)
{
	int64_t v;

	if (s < TIMESTAMP_MIN_NS / NS_PER_S - 1 ||
	    s > TIMESTAMP_MAX_NS / NS_PER_S)
		return -1;
	v = s * NS_PER_S + nsec;
	if (v < TIMESTAMP_MIN_NS || v > TIMESTAMP_MAX_NS)
		return -1;
	*ns = v;
	return 0;
}

/*
 * The time of the parts read, into *ns, remembered in fmt as the
 * previous record's; -1 when they make no time in range.
 */
static int
resolve(struct timestamp_format *fmt, struct parts *t, int64_t *ns)
{
	int64_t days, tod_s, civil_s, s;

	if (t->have & HAVE_EPOCH) {
		s = civil_s = t->epoch_s;
	} else {
		if (t->have & HAVE_HOUR12)
			t->c.hour = t->hour12 % 12 + (t->pm ? 12 : 0);
		if (t->c.sec == 60) {
			/* A leap second, which a pure parser cannot check
			 * against the table of them: the last nanosecond
			 * before the next second keeps it in order. */
			t->c.sec = 59;
			t->nsec = NS_PER_S - 1;
		}
		tod_s = t->c.hour * 3600 + t->c.min * 60 + t->c.sec;
		if (date_of(fmt, t, tod_s, &days) == -1)
			return -1;
		civil_s = days * S_PER_DAY + tod_s;
		if (t->zoned)
			s = civil_s - t->offset_s;
		else if (fmt->local == NULL)
			s = civil_s;
		else if (local_time(fmt, t, days, &s) == -1)
			return -1;
	}
	if (to_ns(s, t->nsec, ns) == -1)
		return -1;
	fmt->have_prev = true;
	fmt->prev_ns = *ns;
	fmt->prev_civil_s = civil_s;
	return 0;
}

/* Past the JSON string that starts after the quote at p: its closing
 * quote, or NULL. */
static const unsigned char *
json_string_end(const unsigned char *p, const unsigned char *end)
{
	for (p++; p < end; p++) {
		if (*p == '\\')
			p++;
		else if (*p == '"')
			return p;
	}
	return NULL;
}

/*
 * The value of the top-level key of the JSON object in *p..*end: a string
 * (without its quotes) or a number, into *p..*end.  False when the record
 * has no such key, or is no object.
 */
static bool
json_value(const unsigned char **p, const unsigned char **end, const char *key)
{
	const unsigned char *q = timeformat_skip_blanks(*p, *end), *e = *end,
			    *s;
	size_t klen = strlen(key);
	int depth = 0;
	bool at_key = false;

	for (; q < e; q++) {
		if (*q == '"') {
			if ((s = json_string_end(q, e)) == NULL)
				return false;
			if (depth == 1 && at_key &&
			    (size_t)(s - q - 1) == klen &&
			    memcmp(q + 1, key, klen) == 0) {
				q = timeformat_skip_blanks(s + 1, e);
				if (q == e || *q != ':')
					return false;
				q = timeformat_skip_blanks(q + 1, e);
				if (q < e && *q == '"') {
					*p = q + 1;
					*end = json_string_end(q, e);
					return *end != NULL;
				}
				for (s = q;
				     s < e && strchr(",}] \t", *s) == NULL; s++)
					;
				*p = q;
				*end = s;
				return s > q;
			}
			at_key = false;
			q = s;
		} else if (*q == '{' || *q == '[') {
			depth++;
			at_key = *q == '{' && depth == 1;
		} else if (*q == '}' || *q == ']') {
			depth--;
		} else if (*q == ',' && depth == 1) {
			at_key = true;
		}
	}
	return false;
}

/* The JSON key fmt reads the timestamp from, given or found; NULL: none. */
static const char *
key_of(const struct timestamp_format *fmt)
{
	return fmt->key != NULL	      ? fmt->key :
	    fmt->found_key[0] != '\0' ? fmt->found_key :
					NULL;
}

/* The time of a record in the format fmt holds; -1: none. */
static int
parse_held(struct timestamp_format *fmt, const unsigned char *p,
    const unsigned char *end, int64_t *ns)
{
	const unsigned char *q;
	struct parts t;

	if (key_of(fmt) != NULL && !json_value(&p, &end, key_of(fmt)))
		return -1;
	if (fmt->field > 0 &&
	    (p = field_start(p, end, fmt->field, fmt->sep)) == NULL)
		return -1;
	/* A field of its own byte ends there: what follows is no part of
	 * it (a fraction of a second, say). */
	if (fmt->field > 0 && fmt->sep >= 0 &&
	    (q = memchr(p, fmt->sep, (size_t)(end - p))) != NULL)
		end = q;
	memset(&t, 0, sizeof t);
	switch (fmt->kind) {
	case TIMESTAMP_EPOCH:
		q = timeformat_epoch(
		    timeformat_skip_blanks(p, end), end, fmt->epoch_digits, &t);
		break;
	case TIMESTAMP_ISO:
		q = fmt->anywhere ?
		    timeformat_iso_search(p, end, &t) :
		    timeformat_iso(timeformat_skip_blanks(p, end), end, &t);
		break;
	case TIMESTAMP_SYSLOG:
		q = timeformat_syslog(timeformat_skip_blanks(p, end), end, &t);
		break;
	case TIMESTAMP_CLF:
		q = fmt->anywhere ?
		    timeformat_clf_search(p, end, &t) :
		    timeformat_clf(timeformat_skip_blanks(p, end), end, &t);
		break;
	case TIMESTAMP_FORMAT:
		q = timeformat_match(fmt->spec, p, end, &t, false, true);
		break;
	default:
		q = NULL;
	}
	if (q == NULL || resolve(fmt, &t, ns) == -1)
		return -1;
	if (fmt->kind == TIMESTAMP_EPOCH)
		fmt->epoch_digits = t.digits;
	return 0;
}

bool
timestamp_where(const struct timestamp_format *fmt, const char *rec, size_t len,
    const char **text, size_t *text_len)
{
	const unsigned char *p = (const unsigned char *)rec, *end = p + len;
	const unsigned char *q;

	if (key_of(fmt) != NULL && !json_value(&p, &end, key_of(fmt)))
		return false;
	if (fmt->field > 0 &&
	    (p = field_start(p, end, fmt->field, fmt->sep)) == NULL)
		return false;
	if (fmt->field > 0 && fmt->sep >= 0 &&
	    (q = memchr(p, fmt->sep, (size_t)(end - p))) != NULL)
		end = q;
	*text = (const char *)p;
	*text_len = (size_t)(end - p);
	return true;
}

void
timestamp_init(struct timestamp_format *fmt, const struct timestamp_civil *ref,
    timestamp_local_fn local, void *arg)
{
	memset(fmt, 0, sizeof *fmt);
	fmt->kind = TIMESTAMP_AUTO;
	fmt->sep = -1;
	fmt->ref = *ref;
	fmt->local = local;
	fmt->local_arg = arg;
}

/*
 * The formats detection tries, in order: those at the start of the
 * record first, so that a time quoted later in it is not taken instead.
 * An RFC 3339 time found at the start is held there: a record without
 * one (a continuation line) is not timed by a date in its text.
 */
static const struct {
	enum timestamp_kind kind;
	bool anywhere;
} detect_order[] = {
	{ TIMESTAMP_EPOCH, false },
	{ TIMESTAMP_ISO, false },
	{ TIMESTAMP_SYSLOG, false },
	{ TIMESTAMP_CLF, true },
	{ TIMESTAMP_ISO, true },
};

/* A member of a JSON object: its key and its value, a string's without
 * the quotes. */
struct member {
	const unsigned char *key, *val, *val_end;
	size_t key_len;
};

/* Past the JSON value that starts at q (not a string): at the comma or
 * brace that ends a bare one, past the bracket that closes an array or
 * object; NULL when it does not end. */
static const unsigned char *
value_end(const unsigned char *q, const unsigned char *e)
{
	int depth = 0;

	for (; q < e; q++) {
		if (*q == '"') {
			if ((q = json_string_end(q, e)) == NULL)
				return NULL;
		} else if (*q == '{' || *q == '[') {
			depth++;
		} else if (*q == '}' || *q == ']') {
			if (depth == 0)
				return q;
			if (--depth == 0)
				return q + 1;
		} else if (*q == ',' && depth == 0) {
			return q;
		}
	}
	return NULL;
}

/*
 * The next member of the JSON object at *q (its brace, or the comma after
 * a member) into *m, *q moved past it; false at the end of the object or
 * at what is no JSON.
 */
static bool
next_member(const unsigned char **q, const unsigned char *e, struct member *m)
{
	const unsigned char *p = timeformat_skip_blanks(*q, e), *s;

	if (p == e || (*p != '{' && *p != ','))
		return false;
	p = timeformat_skip_blanks(p + 1, e);
	if (p == e || *p != '"' || (s = json_string_end(p, e)) == NULL)
		return false;
	m->key = p + 1;
	m->key_len = (size_t)(s - p - 1);
	p = timeformat_skip_blanks(s + 1, e);
	if (p == e || *p != ':')
		return false;
	p = timeformat_skip_blanks(p + 1, e);
	if (p < e && *p == '"') {
		if ((s = json_string_end(p, e)) == NULL)
			return false;
		m->val = p + 1;
		m->val_end = s;
		*q = s + 1;
		return true;
	}
	if (p == e || (s = value_end(p, e)) == NULL)
		return false;
	m->val = p;
	while (s > p && timeformat_is_blank(s[-1]))
		s--;
	m->val_end = *q = s;
	return true;
}

static const char *const time_keys[] = { TIMESTAMP_KEYS };
#define NTIME_KEYS (sizeof time_keys / sizeof time_keys[0])

/* Where key k[0..len) is in time_keys, case aside; NTIME_KEYS if not. */
static size_t
time_key_rank(const unsigned char *k, size_t len)
{
	for (size_t i = 0; i < NTIME_KEYS; i++) {
		size_t j = 0;

		while (j < len && time_keys[i][j] != '\0' &&
		    (k[j] | 0x20) == (time_keys[i][j] | 0x20))
			j++;
		if (j == len && time_keys[i][j] == '\0')
			return i;
	}
	return NTIME_KEYS;
}

/*
 * Is the value of m a time, at its start, in a format detection knows (an
 * epoch time only under a key named for one)?  If so, *cand (fmt as it
 * was, but for that format) holds it and *ns the time.
 */
static bool
value_time(const struct timestamp_format *fmt, const struct member *m,
    struct timestamp_format *cand, int64_t *ns)
{
	static const enum timestamp_kind kinds[] = { TIMESTAMP_EPOCH,
		TIMESTAMP_ISO, TIMESTAMP_SYSLOG, TIMESTAMP_CLF };
	bool named = time_key_rank(m->key, m->key_len) < NTIME_KEYS;

	for (size_t i = named ? 0 : 1; i < sizeof kinds / sizeof kinds[0];
	     i++) {
		*cand = *fmt;
		cand->kind = kinds[i];
		cand->anywhere = false;
		cand->epoch_digits = 0;
		cand->key = NULL;
		cand->field = 0;
		cand->found_key[0] = '\0';
		if (parse_held(cand, m->val, m->val_end, ns) == 0)
			return true;
	}
	return false;
}

/* May key k[0..len) be held in found_key, and found again by its bytes? */
static bool
keepable(const unsigned char *k, size_t len)
{
	if (len == 0 || len >= TIMESTAMP_KEY_BYTES)
		return false;
	for (size_t i = 0; i < len; i++)
		if (k[i] < 0x20 || k[i] == '\\')
			return false;
	return true;
}

/* Detection in a JSON object, by its keys (see timestamp_detect). */
static int
detect_json(struct timestamp_format *fmt, const unsigned char *p,
    const unsigned char *end, int64_t *ns)
{
	struct timestamp_format cand, best;
	struct member m;
	size_t best_rank = NTIME_KEYS + 1, rank;
	int64_t t;

	while (next_member(&p, end, &m)) {
		rank = time_key_rank(m.key, m.key_len);
		if (rank >= best_rank || !keepable(m.key, m.key_len) ||
		    !value_time(fmt, &m, &cand, &t))
			continue;
		best = cand;
		memcpy(best.found_key, m.key, m.key_len);
		best.found_key[m.key_len] = '\0';
		best_rank = rank;
		*ns = t;
	}
	if (best_rank > NTIME_KEYS)
		return -1;
	*fmt = best;
	return 0;
}

size_t
timestamp_other_keys(const struct timestamp_format *fmt, const char *rec,
    size_t len, char *out, size_t size)
{
	const unsigned char *p = (const unsigned char *)rec, *end = p + len;
	const char *held = key_of(fmt);
	struct timestamp_format cand;
	struct member m;
	size_t n = 0, used = 0;
	int64_t t;
	int w;

	if (size > 0)
		out[0] = '\0';
	p = timeformat_skip_blanks(p, end);
	while (next_member(&p, end, &m)) {
		if ((held != NULL && m.key_len == strlen(held) &&
			memcmp(m.key, held, m.key_len) == 0) ||
		    !value_time(fmt, &m, &cand, &t))
			continue;
		w = used < size ? snprintf(out + used, size - used,
				      "%s\"%.*s\"", n > 0 ? ", " : "",
				      (int)m.key_len, (const char *)m.key) :
				  0;
		used += w > 0 ? (size_t)w : 0;
		n++;
	}
	return n;
}

int
timestamp_detect(
    struct timestamp_format *fmt, const char *rec, size_t len, int64_t *ns)
{
	const unsigned char *p = (const unsigned char *)rec;
	const unsigned char *q = timeformat_skip_blanks(p, p + len);
	struct timestamp_format cand;

	if (fmt->key == NULL && fmt->field == 0 && q < p + len && *q == '{' &&
	    detect_json(fmt, q, p + len, ns) == 0)
		return 0;
	for (size_t i = 0; i < sizeof detect_order / sizeof detect_order[0];
	     i++) {
		cand = *fmt;
		cand.kind = detect_order[i].kind;
		/* In a field, a timestamp starts the field. */
		cand.anywhere = detect_order[i].anywhere && fmt->field == 0;
		cand.epoch_digits = 0;
		if (parse_held(&cand, p, p + len, ns) == 0) {
			*fmt = cand;
			return 0;
		}
	}
	return -1;
}

int
timestamp_parse(
    struct timestamp_format *fmt, const char *rec, size_t len, int64_t *ns)
{
	const unsigned char *p = (const unsigned char *)rec;

	if (fmt->kind == TIMESTAMP_AUTO)
		return timestamp_detect(fmt, rec, len, ns);
	return parse_held(fmt, p, p + len, ns);
}

int
timestamp_set_format(
    struct timestamp_format *fmt, const char *spec, char *err, size_t errsz)
{
	if (timeformat_check(spec, err, errsz) == -1)
		return -1;
	fmt->kind = TIMESTAMP_FORMAT;
	fmt->spec = spec;
	return 0;
}
