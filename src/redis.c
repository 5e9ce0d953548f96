/* A token bucket kept in Redis, for processes on many hosts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "redis.h"

#ifndef HAVE_HIREDIS

bool
redis_available(void)
{
	return false;
}

struct redis *
redis_open(const struct redis_url *u, const char *name, uint64_t n,
    uint64_t d, uint64_t burst, const char *rate_text,
    enum redis_fallback fallback, struct limiter *local, char *err,
    size_t errsz)
{
	(void)u, (void)name, (void)n, (void)d, (void)burst, (void)rate_text;
	(void)fallback, (void)local;
	snprintf(err, errsz, "--redis: this tbthrottle was built without "
	    "Redis support (install libhiredis-dev and pkg-config, then "
	    "rebuild)");
	return NULL;
}

void
redis_select(struct redis *r, const char *key, size_t len)
{
	(void)r, (void)key, (void)len;
}

void
redis_limiter(struct limiter *l, struct redis *r)
{
	(void)l, (void)r;
}

void
redis_close(struct redis *r)
{
	(void)r;
}

#else

#include <err.h>
#include <hiredis.h>

#include "clock.h"
#include "signals.h"
#include "rate.h"

#define MS	1000000LL
/* Each command waits this long for Redis at most. */
#define REDIS_TIMEOUT_MS	1000
/* While Redis is down: first retry, and the longest wait between them. */
#define RETRY_FIRST_NS	(100 * MS)
#define RETRY_MAX_NS	(2000 * MS)

/*
 * The check-and-book, atomic in Redis.  Time is the server's (TIME), in
 * microseconds, so the clocks of the hosts do not matter.  The key holds
 * t, the time the bucket is full again (GCRA), i and b, the interval in
 * microseconds and the burst it was made with, and r, the rate as given;
 * it expires when the bucket is full again, carrying nothing then.
 * ARGV: interval, burst, units, "take" or "book", rate text.  Book
 * returns the wait in microseconds; take takes what there is room for, up
 * to units, and returns how many, or -1 for none.
 */
static const char script[] =
"if redis.replicate_commands then pcall(redis.replicate_commands) end\n"
"local t = redis.call('TIME')\n"
"local now = tonumber(t[1]) * 1000000 + tonumber(t[2])\n"
"local iv, burst = tonumber(ARGV[1]), tonumber(ARGV[2])\n"
"local units = tonumber(ARGV[3])\n"
"local s = redis.call('HMGET', KEYS[1], 't', 'i', 'b', 'r')\n"
"if s[2] and (s[2] ~= ARGV[1] or s[3] ~= ARGV[2]) then\n"
"  return redis.error_reply('MISMATCH -r ' .. tostring(s[4]) ..\n"
"    ', burst ' .. tostring(s[3]))\n"
"end\n"
"local tat = tonumber(s[1] or '0') or 0\n"
"if tat ~= tat or tat == math.huge then tat = 0 end\n"
"if tat < now then tat = now end\n"
"if ARGV[4] == 'take' then\n"
"  local room = math.floor((now + burst * iv - tat) / iv)\n"
"  if room < units then units = room end\n"
"  if units <= 0 then return -1 end\n"
"end\n"
"local nxt = tat + units * iv\n"
"local at = nxt - burst * iv\n"
"redis.call('HSET', KEYS[1], 't', string.format('%.17g', nxt),\n"
"  'i', ARGV[1], 'b', ARGV[2], 'r', ARGV[5])\n"
"redis.call('PEXPIRE', KEYS[1], math.ceil((nxt - now) / 1000) + 1)\n"
"if ARGV[4] == 'take' then return units end\n"
"if at <= now then return 0 end\n"
"return math.ceil(at - now)\n";

struct redis {
	struct redis_url url;
	char shown[400];
	redisContext *c;
	char sha[41];
	char *key;		/* "tbthrottle:NAME", and with -k ":KEY" */
	size_t key_base;	/* length of "tbthrottle:NAME" */
	size_t key_len, key_size;
	char interval[48], burst[24], rate_text[64], name[80];
	uint64_t burst_units;	/* burst, as a number */
	enum redis_fallback fallback;
	struct limiter *local;
	bool down;		/* reported as down, not yet back */
	int64_t retry_ns;	/* wait before the next connect */
	int64_t next_try_ns;	/* with FALLBACK_LOCAL: when to try again */
};

bool
redis_available(void)
{
	return true;
}

static void
drop_conn(struct redis *r)
{
	if (r->c != NULL)
		redisFree(r->c);
	r->c = NULL;
}

/* Run a command; NULL (and the reason in why) on an I/O error. */
static redisReply *
command(struct redis *r, int argc, const char **argv, const size_t *lens,
    char *why, size_t size)
{
	redisReply *rep = redisCommandArgv(r->c, argc, argv, lens);

	if (rep == NULL) {
		snprintf(why, size, "%s", r->c->errstr[0] != '\0' ?
		    r->c->errstr : "connection lost");
		drop_conn(r);
	}
	return rep;
}

/* Connect, log in, select the database and load the script. */
static int
connect_redis(struct redis *r, char *why, size_t size)
{
	struct timeval tv = { REDIS_TIMEOUT_MS / 1000,
	    REDIS_TIMEOUT_MS % 1000 * 1000 };
	redisReply *rep;
	char db[16];

	r->c = redisConnectWithTimeout(r->url.host, r->url.port, tv);
	if (r->c == NULL || r->c->err) {
		snprintf(why, size, "%s", r->c != NULL ? r->c->errstr :
		    "out of memory");
		drop_conn(r);
		return -1;
	}
	(void)redisSetTimeout(r->c, tv);
	if (r->url.password[0] != '\0') {
		const char *argv[3] = { "AUTH", r->url.user, r->url.password };
		size_t lens[3] = { 4, strlen(r->url.user),
		    strlen(r->url.password) };
		int skip = r->url.user[0] == '\0';

		if (skip) {
			argv[1] = argv[0];
			lens[1] = lens[0];
		}
		if ((rep = command(r, 3 - skip, argv + skip, lens + skip, why,
		    size)) == NULL)
			return -1;
		if (rep->type == REDIS_REPLY_ERROR)
			errx(1, "%s: login refused: %s", r->shown, rep->str);
		freeReplyObject(rep);
	}
	if (r->url.db != 0) {
		const char *argv[2] = { "SELECT", db };
		size_t lens[2] = { 6, 0 };

		lens[1] = (size_t)snprintf(db, sizeof db, "%d", r->url.db);
		if ((rep = command(r, 2, argv, lens, why, size)) == NULL)
			return -1;
		if (rep->type == REDIS_REPLY_ERROR)
			errx(1, "%s: %s", r->shown, rep->str);
		freeReplyObject(rep);
	}
	{
		const char *argv[3] = { "SCRIPT", "LOAD", script };
		size_t lens[3] = { 6, 4, sizeof script - 1 };

		if ((rep = command(r, 3, argv, lens, why, size)) == NULL)
			return -1;
		if (rep->type != REDIS_REPLY_STRING || rep->len != 40) {
			snprintf(why, size, "cannot load the script: %s",
			    rep->type == REDIS_REPLY_ERROR ? rep->str : "?");
			freeReplyObject(rep);
			drop_conn(r);
			return -1;
		}
		memcpy(r->sha, rep->str, 41);
		freeReplyObject(rep);
	}
	return 0;
}

/*
 * Book (or, with take, take what there is room for of) units now.
 * Returns 0 with the wait in microseconds (take: the units taken) in
 * *got, or -1 when Redis cannot be reached or answers nonsense (the
 * reason in why).
 */
static int
call(struct redis *r, uint64_t units, bool take, int64_t *got, char *why,
    size_t size)
{
	char n[24];
	const char *argv[9] = { "EVALSHA", r->sha, "1", r->key, r->interval,
	    r->burst, n, take ? "take" : "book", r->rate_text };
	size_t lens[9];
	redisReply *rep;

	if (r->c == NULL && connect_redis(r, why, size) != 0)
		return -1;
	snprintf(n, sizeof n, "%llu", (unsigned long long)units);
	for (int i = 0; i < 9; i++)
		lens[i] = i == 3 ? r->key_len : strlen(argv[i]);
	for (int tries = 0; tries < 2; tries++) {
		if ((rep = command(r, 9, argv, lens, why, size)) == NULL)
			return -1;
		if (rep->type == REDIS_REPLY_INTEGER &&
		    (take ? rep->integer == -1 || (rep->integer >= 1 &&
		    (uint64_t)rep->integer <= units) : rep->integer >= 0)) {
			*got = rep->integer < 0 ? 0 : rep->integer;
			freeReplyObject(rep);
			return 0;
		}
		if (rep->type == REDIS_REPLY_ERROR &&
		    strncmp(rep->str, "MISMATCH ", 9) == 0)
			errx(1, "shared bucket '%s' on %s is %s; this run asks "
			    "for -r %s, burst %s", r->name, r->shown,
			    rep->str + 9, r->rate_text, r->burst);
		if (rep->type == REDIS_REPLY_ERROR &&
		    strncmp(rep->str, "NOSCRIPT", 8) == 0 && tries == 0) {
			/* The server restarted: load the script again. */
			freeReplyObject(rep);
			drop_conn(r);
			if (connect_redis(r, why, size) != 0)
				return -1;
			argv[1] = r->sha;
			continue;
		}
		snprintf(why, size, "%s", rep->type == REDIS_REPLY_ERROR ?
		    rep->str : "a reply out of range");
		freeReplyObject(rep);
		drop_conn(r);
		return -1;
	}
	return -1;
}

/* Report Redis down (once) or back. */
static void
report(struct redis *r, bool down, const char *why)
{
	if (down && !r->down)
		warnx("%s: %s; %s", r->shown, why, r->fallback ==
		    FALLBACK_LOCAL ? "limiting locally until it is back" :
		    "waiting for it");
	else if (!down && r->down)
		warnx("%s: reached again", r->shown);
	r->down = down;
}

/* Longest wait believed from Redis: a reply beyond is a broken one. */
#define WAIT_MAX_US	(100LL * 365 * 86400 * 1000000)

/*
 * Book units at now_ns through Redis, as the fallback says while it is
 * down; returns when they may go, or INT64_MAX when a stop came first
 * (nothing booked: the caller releases nothing).  With take, takes what
 * there is room for, up to units, and returns how many (-1 on a stop).
 */
static int64_t
ask(struct redis *r, int64_t now_ns, uint64_t units, bool take)
{
	char why[512];
	int64_t got = 0;
	int rc;

	for (;;) {
		if (r->fallback == FALLBACK_LOCAL && r->down &&
		    clock_now_ns() < r->next_try_ns)
			rc = -1;
		else
			rc = call(r, units, take, &got, why, sizeof why);
		if (rc == 0 && !take && got > WAIT_MAX_US) {
			snprintf(why, sizeof why, "a wait of %lld us",
			    (long long)got);
			rc = -1;
		}
		if (rc == 0) {
			report(r, false, NULL);
			r->retry_ns = RETRY_FIRST_NS;
			return take ? got : clock_now_ns() + got * 1000;
		}
		escape_controls(why, sizeof why);
		if (r->fallback == FALLBACK_FAIL)
			errx(1, "%s: %s", r->shown, why);
		if (!(r->fallback == FALLBACK_LOCAL && r->down))
			report(r, true, why);
		if (r->fallback == FALLBACK_LOCAL) {
			int64_t due;

			if (clock_now_ns() >= r->next_try_ns)
				r->next_try_ns = clock_now_ns() + 1000 * MS;
			if (take)
				return (int64_t)limiter_take(r->local, now_ns,
				    now_ns, units);
			due = limiter_ready_at(r->local, now_ns, units);
			(void)limiter_take(r->local, now_ns, due, units);
			return due;
		}
		/* Block: wait and try again, unless asked to stop. */
		if (signals_stop_requested())
			return take ? -1 : INT64_MAX;
		(void)clock_sleep_until(clock_now_ns() + r->retry_ns);
		if (r->retry_ns < RETRY_MAX_NS)
			r->retry_ns *= 2;
	}
}

struct redis *
redis_open(const struct redis_url *u, const char *name, uint64_t n,
    uint64_t d, uint64_t burst, const char *rate_text,
    enum redis_fallback fallback, struct limiter *local, char *err,
    size_t errsz)
{
	struct redis *r = calloc(1, sizeof *r);

	if (r == NULL) {
		snprintf(err, errsz, "out of memory");
		return NULL;
	}
	r->url = *u;
	redisurl_show(u, r->shown, sizeof r->shown);
	snprintf(r->name, sizeof r->name, "%s", name);
	r->key_size = strlen(name) + 64;
	if ((r->key = malloc(r->key_size)) == NULL) {
		free(r);
		snprintf(err, errsz, "out of memory");
		return NULL;
	}
	r->key_base = r->key_len = (size_t)snprintf(r->key, r->key_size,
	    "tbthrottle:%s", name);
	snprintf(r->interval, sizeof r->interval, "%.17Lg",
	    (long double)d / n / 1000);
	snprintf(r->burst, sizeof r->burst, "%llu", (unsigned long long)burst);
	r->burst_units = burst;
	snprintf(r->rate_text, sizeof r->rate_text, "%s", rate_text);
	r->fallback = fallback;
	r->local = local;
	r->retry_ns = RETRY_FIRST_NS;
	return r;
}

void
redis_select(struct redis *r, const char *key, size_t len)
{
	/* Keys of any length stay apart: the name grows to fit, and goes
	 * to Redis with its length, binary and all. */
	if (len > SIZE_MAX / 2 - r->key_base)
		errx(1, "key of %zu bytes", len);
	if (r->key_base + 1 + len > r->key_size) {
		size_t size = (r->key_base + 1 + len) * 2;
		char *p = realloc(r->key, size);

		if (p == NULL)
			err(1, "key of %zu bytes", len);
		r->key = p;
		r->key_size = size;
	}
	r->key[r->key_base] = ':';
	memcpy(r->key + r->key_base + 1, key, len);
	r->key_len = r->key_base + 1 + len;
}

static int64_t
r_ready_at(const void *self, int64_t ready_ns, uint64_t units)
{
	(void)self, (void)units;
	return ready_ns;	/* not used: shaping books instead */
}

static uint64_t
r_avail(const void *self, int64_t ready_ns, int64_t now_ns)
{
	(void)ready_ns, (void)now_ns;
	return ((const struct redis *)self)->burst_units;
}

static uint64_t
r_take(void *self, int64_t ready_ns, int64_t now_ns, uint64_t max)
{
	int64_t got = ask(self, now_ns, max, true);

	(void)ready_ns;
	return got < 0 ? LIMITER_UNDECIDED : (uint64_t)got;
}

static int64_t
r_reserve(void *self, int64_t now_ns, uint64_t units)
{
	return ask(self, now_ns, units, false);
}

void
redis_limiter(struct limiter *l, struct redis *r)
{
	*l = (struct limiter){ r, r_ready_at, r_avail, r_take, r_reserve };
}

void
redis_close(struct redis *r)
{
	if (r != NULL) {
		drop_conn(r);
		free(r->key);
	}
	free(r);
}

#endif
