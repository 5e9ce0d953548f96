/* --show and --reset: a --shared bucket or window kept in Redis. */
#ifdef HAVE_HIREDIS

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calendar.h"
#include "jsontext.h"
#include "msg.h"
#include "redis.h"
#include "redisstore.h"
#include "zoneinfo.h"
#include "zonemap.h"
#include "zoneinfo.h"
#include "zonemap.h"

/* What the script's show gave: now, the settings, and the bucket. */
struct seen {
	double now;	      /* Redis's TIME, us */
	double i, b;	      /* the interval (a window's width), us; burst */
	const char *zone;     /* -a fixed --tz: the zone's name, or NULL */
	bool tiers;	      /* --tiers: a limit a key, none of the name's */
	const char *unit;     /* records, bytes, fixed or sliding */
	char rate[160];	      /* the rate as given, escaped */
	char jrate[400];      /* the same, as JSON text */
	const redisReply *st; /* the bucket: t, h, x, c; or a window's list */
};

/* Open r for name at u, to look only: no settings are claimed. */
static struct redis *
look(const struct redis_url *u, const char *name, char *err, size_t errsz)
{
	struct redis_bucket b = { .name = name,
		.rate_text = "",
		.observe = true,
		.allow_eviction = true };

	return redis_open(u, &b, FALLBACK_FAIL, NULL, err, errsz);
}

/* Run op (show, clear) for the name's own bucket: its answer, or NULL. */
static redisReply *
ask(struct redis *r, const char *op, char *err, size_t errsz)
{
	struct booking b;
	redisReply *rep = NULL;

	memset(&b, 0, sizeof b);
	shard_set(r, 0); /* the bucket of no key is shard 0's */
	r->call.asked[0] = 0;
	if (redis_eval(r, op, &b, 1, 0, &rep, err, errsz) != REDISCONN_OK)
		return NULL;
	if (rep->type != REDIS_REPLY_ARRAY || rep->elements < 1 ||
	    rep->element[0]->type != REDIS_REPLY_INTEGER) {
		snprintf(err, errsz, "%s: %s", r->conn.shown,
		    rep->type == REDIS_REPLY_ERROR ? rep->str :
						     "a reply out of range");
		freeReplyObject(rep);
		return NULL;
	}
	if (rep->element[0]->integer == 0) {
		snprintf(err, errsz,
		    "no shared bucket '%s' at %s: no process has used it "
		    "in the last %d s, or ever",
		    r->keys.name, r->conn.shown, SETTINGS_TTL_MS / 1000);
		freeReplyObject(rep);
		return NULL;
	}
	return rep;
}

/* The number of string reply e, or NAN. */
static double
num(const redisReply *e)
{
	char *end;
	double v;

	if (e == NULL || e->type != REDIS_REPLY_STRING || e->len == 0)
		return NAN;
	v = strtod(e->str, &end);
	return *end == '\0' && isfinite(v) ? v : NAN;
}

/*
 * Can s's settings be a run's?  An interval over 0 and under a century
 * (a window's whole, of 1 ms or more), a burst or N a whole number from
 * 1 to 10^15: anything else is not tbthrottle's, and would overflow.
 */
static bool
settings_fit(const struct seen *s)
{
	bool win = strcmp(s->unit, "fixed") == 0 ||
	    strcmp(s->unit, "sliding") == 0;

	if (s->tiers)
		return isfinite(s->now) && s->now > 0;
	return isfinite(s->now) && s->now > 0 && s->i > 0 &&
	    s->i < 100 * 365.25 * 86400e6 && s->b >= 1 && s->b <= 1e15 &&
	    s->b == floor(s->b) &&
	    (!win || (s->i >= 1000 && s->i == floor(s->i)));
}

/* The show's answer rep read into s: 0, or -1 when it makes no sense. */
static int
read_seen(const redisReply *rep, struct seen *s)
{
	redisReply *const *e = rep->element;

	if (rep->elements != 8 || e[3]->type != REDIS_REPLY_STRING ||
	    e[4]->type != REDIS_REPLY_STRING ||
	    e[5]->type != REDIS_REPLY_STRING ||
	    e[6]->type != REDIS_REPLY_STRING || e[7]->type != REDIS_REPLY_ARRAY)
		return -1;
	s->now = num(e[1]) * 1e6 + num(e[2]);
	s->i = num(e[3]);
	s->zone = NULL;
	if (e[3]->type == REDIS_REPLY_STRING &&
	    strchr(e[3]->str, '/') != NULL && strcmp(e[5]->str, "fixed") == 0) {
		/* A width of whole us, then the zone: "W/ZONE". */
		*strchr(e[3]->str, '/') = '\0';
		s->i = num(e[3]);
		s->zone = e[3]->str + strlen(e[3]->str) + 1;
	}
	s->b = num(e[4]);
	s->unit = e[5]->str;
	snprintf(s->rate, sizeof s->rate, "%s", e[6]->str);
	if (strstr(s->rate, " --tz ") != NULL)
		*strstr(s->rate, " --tz ") = '\0'; /* said apart */
	json_text(s->rate, s->jrate, sizeof s->jrate);
	msg_escape(s->rate, sizeof s->rate);
	s->st = e[7];
	s->tiers = strcmp(e[4]->str, "tiers") == 0;
	if (s->tiers)
		s->b = s->i = 1; /* keys of tiers: only the settings */
	return settings_fit(s) ? 0 : -1;
}

/* Field k (0: t, 1: h, 2: x, 3: c) of a bucket's hash, or NAN. */
static double
field(const struct seen *s, size_t k)
{
	return s->st->elements == 4 ? num(s->st->element[k]) : NAN;
}

static double
secs(double us)
{
	return us > 0 ? us / 1e6 : 0;
}

/* A bucket: its tokens now, when the next comes and when it is full. */
static void
show_bucket(const struct redis *r, const struct seen *s, bool json, FILE *out)
{
	double tat = field(s, 0), h = field(s, 1), have, next;
	char url[1200];

	tat = isnan(tat) || tat < s->now ? s->now : tat;
	if (!isnan(h) && h > s->now && h < s->now + 86400e6)
		tat = fmax(tat, h + (s->b - 1) * s->i);
	have = fmax(fmin(floor((s->now + s->b * s->i - tat) / s->i), s->b), 0);
	next = have >= s->b ? 0 : tat - (s->b - have - 1) * s->i - s->now;
	if (json)
		fprintf(out,
		    "{\"name\":\"%s\",\"url\":\"%s\",\"kind\":\"bucket\","
		    "\"limit\":\"%s\",\"burst\":%.0f,\"unit\":\"%s\","
		    "\"tokens\":%.0f,\"next_s\":%.6f,\"full_s\":%.6f}\n",
		    r->keys.name, json_text(r->conn.shown, url, sizeof url),
		    s->jrate, s->b,
		    strcmp(s->unit, "bytes") == 0 ? "bytes" : "records", have,
		    secs(next), secs(tat - s->now));
	else
		fprintf(out,
		    "shared bucket '%s' (%s): -r %s, burst %.0f%s\n"
		    "%.0f of %.0f tokens now; %s%.3f s; full in %.3f s\n",
		    r->keys.name, r->conn.shown, s->rate, s->b,
		    strcmp(s->unit, "bytes") == 0 ? " (bytes)" : "", have, s->b,
		    have >= s->b ? "full; the next token in " :
				   "the next token in ",
		    secs(next), secs(tat - s->now));
}

/*
 * A fixed window: the records of the window now, and when the next
 * starts, in the calendar of zone z (NULL: UTC).
 */
static void
show_fixed(const struct redis *r, const struct seen *s, const struct zonemap *z,
    bool json, FILE *out)
{
	int64_t w = (int64_t)s->i * 1000, now = (int64_t)s->now * 1000;
	int64_t i = zonemap_window_reached(z, now, w);
	double x = field(s, 2), c = field(s, 3), used, next;
	char at[64], until[64], url[1200], zone[200];

	next = (double)zonemap_window_start(z, i + 1, w) / 1000;
	used = isnan(x) || isnan(c) || x < (double)i ? 0 :
	    x > (double)i			     ? s->b :
						       c;
	used = fmin(fmax(used, 0), s->b);
	(void)zonemap_print(z, zonemap_window_start(z, i, w), at, sizeof at);
	(void)zonemap_print(
	    z, zonemap_window_start(z, i + 1, w), until, sizeof until);
	if (json)
		fprintf(out,
		    "{\"name\":\"%s\",\"url\":\"%s\",\"kind\":\"fixed\","
		    "\"limit\":\"%s\",\"window_start\":\"%s\",\"used\":%.0f,"
		    "\"left\":%.0f,\"booked_ahead\":%.0f,"
		    "\"next_window_s\":%.6f,\"window_end\":\"%s\","
		    "\"zone\":\"%s\"}\n",
		    r->keys.name, json_text(r->conn.shown, url, sizeof url),
		    s->jrate, at, used, s->b - used,
		    !isnan(x) && x > (double)i ? x - (double)i : 0,
		    secs(next - s->now), until,
		    json_text(z != NULL ? z->name : "UTC", zone, sizeof zone));
	else
		fprintf(out,
		    "shared bucket '%s' (%s): -a fixed -r %s%s%s\n"
		    "window from %s: %.0f of %.0f used, %.0f left; the next "
		    "window in %.3f s\n",
		    r->keys.name, r->conn.shown, s->rate,
		    z != NULL ? " --tz " : "", z != NULL ? s->zone : "", at,
		    used, s->b, s->b - used, secs(next - s->now));
}

/* A sliding window: the records of the last width, and when one may go. */
static void
show_sliding(const struct redis *r, const struct seen *s, bool json, FILE *out)
{
	size_t len = s->st->elements, n = (size_t)s->b;
	double used = 0, next = 0, last = 0, g = fmin(100000, floor(s->i / 10));
	char url[1200];

	for (size_t k = 0; k < len; k++) {
		double t = num(s->st->element[k]);

		if (!isnan(t) && t > s->now - s->i)
			used++;
		if (!isnan(t))
			last = fmax(last, t);
	}
	used = fmin(used, s->b);
	if (len >= n && n > 0) {
		double e = num(s->st->element[len - n]);

		next = fmax(isnan(e) ? 0 : e + s->i + g, last) - s->now;
	} else if (len > 0) {
		next = last - s->now;
	}
	if (json)
		fprintf(out,
		    "{\"name\":\"%s\",\"url\":\"%s\",\"kind\":\"sliding\","
		    "\"limit\":\"%s\",\"used\":%.0f,\"left\":%.0f,"
		    "\"next_s\":%.6f}\n",
		    r->keys.name, json_text(r->conn.shown, url, sizeof url),
		    s->jrate, used, s->b - used, secs(next));
	else
		fprintf(out,
		    "shared bucket '%s' (%s): -a sliding -r %s\n"
		    "%.0f of %.0f in the last %.3f s, %.0f left; the next may "
		    "go in %.3f s\n",
		    r->keys.name, r->conn.shown, s->rate, used, s->b,
		    s->i / 1e6, s->b - used, secs(next));
}

/* A fixed window of --tz s->zone, from the system's zone data. */
static int
show_zoned(const struct redis *r, const struct seen *s, bool json, FILE *out,
    char *err, size_t errsz)
{
	struct zonemap z;

	if (zoneinfo_load(&z, s->zone, (int64_t)s->now * 1000, err, errsz) != 0)
		return -1;
	show_fixed(r, s, &z, json, out);
	zonemap_free(&z);
	return 0;
}

int
redis_show(const struct redis_url *u, const char *name, bool json, FILE *out,
    char *err, size_t errsz)
{
	struct redis *r = look(u, name, err, errsz);
	struct seen s;
	redisReply *rep;
	int rc = 0;

	if (r == NULL || (rep = ask(r, "show", err, errsz)) == NULL) {
		redis_close(r);
		return -1;
	}
	if (read_seen(rep, &s) != 0) {
		snprintf(err, errsz,
		    "%s: shared bucket '%s': settings out of range",
		    r->conn.shown, name);
		freeReplyObject(rep);
		redis_close(r);
		return -1;
	}
	if (s.tiers)
		fprintf(out,
		    json ? "{\"name\":\"%s\",\"kind\":\"tiers\","
			   "\"limit\":\"%s\"}\n" :
			   "shared bucket '%s': %s (--tiers: each key "
			   "has the limit of its tier; -k's keys are not "
			   "shown)\n",
		    name, json ? s.jrate : s.rate);
	else if (strcmp(s.unit, "fixed") == 0 && s.zone != NULL)
		rc = show_zoned(r, &s, json, out, err, errsz);
	else if (strcmp(s.unit, "fixed") == 0)
		show_fixed(r, &s, NULL, json, out);
	else if (strcmp(s.unit, "sliding") == 0)
		show_sliding(r, &s, json, out);
	else
		show_bucket(r, &s, json, out);
	freeReplyObject(rep);
	redis_close(r);
	return rc;
}

int
redis_reset(
    const struct redis_url *u, const char *name, char *err, size_t errsz)
{
	struct redis *r = look(u, name, err, errsz);
	redisReply *rep;

	if (r == NULL || (rep = ask(r, "clear", err, errsz)) == NULL) {
		redis_close(r);
		return -1;
	}
	freeReplyObject(rep);
	redis_close(r);
	return 0;
}

#else

#include <stdio.h>

#include "redis.h"

int
redis_show(const struct redis_url *u, const char *name, bool json, FILE *out,
    char *err, size_t errsz)
{
	const struct redis_bucket b = { .name = name, .observe = true };

	(void)json;
	(void)out;
	(void)redis_open(u, &b, FALLBACK_FAIL, NULL, err, errsz);
	return -1;
}

int
redis_reset(
    const struct redis_url *u, const char *name, char *err, size_t errsz)
{
	const struct redis_bucket b = { .name = name, .observe = true };

	(void)redis_open(u, &b, FALLBACK_FAIL, NULL, err, errsz);
	return -1;
}

#endif
