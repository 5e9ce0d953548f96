/* A token bucket kept in Redis, for processes on many hosts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "redis.h"

void
redis_rate_init(struct redis_rate *rt, uint64_t n, uint64_t d, uint64_t burst,
    bool none, bool inf)
{
	memset(rt, 0, sizeof *rt);
	rt->none = none;
	rt->inf = inf;
	if (none || inf)
		return;
	snprintf(rt->interval, sizeof rt->interval, "%.17Lg",
	    (long double)d / n / 1000);
	snprintf(
	    rt->burst, sizeof rt->burst, "%llu", (unsigned long long)burst);
	rt->burst_units = burst;
}

#ifndef HAVE_HIREDIS

bool
redis_available(void)
{
	return false;
}

struct redis *
redis_open(const struct redis_url *u, const struct redis_bucket *b,
    enum redis_fallback fallback, struct limiter *local, char *err,
    size_t errsz)
{
	(void)u, (void)b, (void)fallback, (void)local;
	snprintf(err, errsz,
	    "--redis: this tbthrottle was built without "
	    "Redis support (install libhiredis-dev and pkg-config, then "
	    "rebuild)");
	return NULL;
}

int
redis_retier(struct redis *r, const char *tiers_id, char *err, size_t errsz)
{
	(void)r, (void)tiers_id;
	snprintf(err, errsz, "built without Redis support");
	return -1;
}

size_t
redis_book(struct redis *r, struct booking *b, size_t n, bool take,
    int64_t now_ns, int64_t ahead_ns, limiter_select_fn *select, void *ctx)
{
	(void)r, (void)b, (void)n, (void)take, (void)now_ns, (void)ahead_ns;
	(void)select, (void)ctx;
	return 0;
}

bool
redis_busy(const struct redis *r)
{
	(void)r;
	return false;
}

void
redis_close(struct redis *r)
{
	(void)r;
}

#else

#include <err.h>
#include <errno.h>

#include "clock.h"
#include "cluster.h"
#include "eviction.h"
#include "msg.h"
#include "redisconn.h"
#include "signals.h"
#include "siphash.h"

#define MS 1000000LL
/* A booking that waits for Redis (block): its first retry, the longest wait. */
#define RETRY_FIRST_NS (100 * MS)
#define RETRY_MAX_NS (2000 * MS)
/*
 * With Sentinel, each try asks the sentinels where the master is, and a
 * failover is over as soon as they name the one promoted: the tries stay
 * this close, so that the output resumes within it of the promotion.
 */
#define RETRY_SENTINEL_NS (200 * MS)
/* While Redis is down, the wait from a failed try to the next probe. */
#define PROBE_AFTER_NS (1000 * MS)
/*
 * The settings key lives this long after its last refresh (and at least
 * as long as any bucket of its name holds anything); each process
 * refreshes it at least every HEARTBEAT_MS * 3 / 2, under half of that.
 */
#define SETTINGS_TTL_MS 10000
#define HEARTBEAT_MS 3000
/*
 * On a Redis Cluster, the slots a name's buckets spread over: a key's
 * bucket is in shard hash(key) mod SHARDS, whose keys share the hash tag
 * "{NAME:s}", so that one call of the script, which must keep to one
 * slot, books all the keys of a shard at once.  The settings, and the
 * claim of newcomers, live in shard 0.
 */
#define SHARDS 16
/*
 * On a cluster, shaping: records booked in a row without a wait before
 * a batch is sent to all its shards at once again.  While records wait,
 * the calls of the other shards would book what is given back.
 */
#define CALM (4 * SHARDS)
/* A command sent on, MOVED or ASK, this many times at most. */
#define REDIRECTS_MAX 5
/*
 * A call refused with TRYAGAIN (its keys split by a slot's migration) is
 * sent again after this, the wait doubling, within the time a node has
 * to answer; only then is it an outage.
 */
#define TRYAGAIN_FIRST_NS (10 * MS)

/*
 * The check-and-book, atomic in Redis.  Time is the server's (TIME), in
 * microseconds, so the clocks of the hosts do not matter.  KEYS[1], the
 * settings, holds i and b, the interval in microseconds and the burst,
 * u, the unit, r, the rate as given, and ti, tb and tr, the same of the
 * total (empty without one): set by the first process, checked by each
 * newcomer (claim), and kept while any process uses the bucket (every
 * call refreshes its expiry).  KEYS[2] holds this process's last batch:
 * s, its number, and r, its answer.  With a total, KEYS[3] is its bucket.
 * The keys after are the buckets of a batch, in order: each holds t, the
 * time it is full again (GCRA), and i, the interval it was booked at, and
 * expires then, carrying nothing.  Booked at another interval (its tier's
 * rate was changed), what it owes is re-rated from that moment.
 * ARGV: op, rate text, unit, settings TTL (ms), the settings i and b that
 * newcomers must give (the interval and burst, or with --tiers a digest
 * of every tier's and "tiers"), the batch's number, how far ahead to book
 * (us), then interval, burst and units of each bucket (an empty interval:
 * its key has no limit of its own, only the total), and last the total's
 * interval, burst and text, empty without one.
 * op: claim returns 0, or the settings when they differ; reset sets
 * them, whatever they were, and returns 0; keep returns 0.  book books
 * each bucket's units from when the one before may go (the first now),
 * as if each were booked as the one before went, and stops after one
 * due beyond the look-ahead, unless the next is of the same bucket and
 * within the look-ahead of the first due beyond it: it returns how many
 * it booked, then the wait of each in microseconds.  take takes what
 * there is room for, up to units, in each, and returns how many buckets,
 * then how many units each gave.  Every record pays the total too: it is
 * due when both its bucket and the total's allow it, both charged as if
 * it went then; take takes what both have room for, from both.  A batch
 * asked again (its answer was lost) is answered as before, booking
 * nothing twice.  now books as book does while each is due at once, and
 * stops, booking nothing more, at the first that would wait (a cluster's
 * shards, asked at once).  undo, for this process's last batch if it is
 * the batch given (its number) and booked more than q (the look-ahead's
 * place), gives back the units of the buckets given (those booked after
 * the first q) and keeps only the first q of its answer, so that it is
 * answered so if asked again; it returns 0.  Booking uses this process's
 * settings even if another's
 * were set while it could not refresh them: a running process never
 * fails for a newcomer.
 */
static const char script[] =
    "if redis.replicate_commands then pcall(redis.replicate_commands) end\n"
    "local op = ARGV[1]\n"
    "local ti, tb, tr = ARGV[#ARGV - 2], ARGV[#ARGV - 1], ARGV[#ARGV]\n"
    "local s = redis.call('HMGET', KEYS[1], 'i', 'b', 'u', 'r', 'ti', 'tb',\n"
    "  'tr')\n"
    "if not s[1] or op == 'reset' then\n"
    "  redis.call('HSET', KEYS[1], 'i', ARGV[5], 'b', ARGV[6], 'u', ARGV[3],\n"
    "    'r', ARGV[2], 'ti', ti, 'tb', tb, 'tr', tr)\n"
    "elseif op == 'claim' and (s[1] ~= ARGV[5] or s[2] ~= ARGV[6] or\n"
    "    s[3] ~= ARGV[3] or (s[5] or '') ~= ti or (s[6] or '') ~= tb) then\n"
    "  return {tostring(s[4] or '?'), tostring(s[2] or '?'),\n"
    "    tostring(s[3] or '?'), tostring(s[7] or '')}\n"
    "end\n"
    "local function hold(ms)\n"
    "  if redis.call('PTTL', KEYS[1]) < ms then\n"
    "    redis.call('PEXPIRE', KEYS[1], ms)\n"
    "  end\n"
    "end\n"
    "hold(tonumber(ARGV[4]))\n"
    "if op ~= 'book' and op ~= 'take' and op ~= 'now' and op ~= 'undo' then\n"
    "  return 0\n"
    "end\n"
    "local t = redis.call('TIME')\n"
    "local now = tonumber(t[1]) * 1000000 + tonumber(t[2])\n"
    "local out, keep = {0}, {0}\n"
    "local m = redis.call('HMGET', KEYS[2], 's', 'r')\n"
    "if op == 'undo' then\n"
    "  if m[1] ~= ARGV[7] or not m[2] then return 0 end\n"
    "  local q, was = tonumber(ARGV[8]), {}\n"
    "  for w in string.gmatch(m[2], '%S+') do was[#was + 1] = w end\n"
    "  if tonumber(was[1]) <= q then return 0 end\n"
    "  for k = 3 + (ti ~= '' and 1 or 0), #KEYS do\n"
    "    local a = 3 * (k - (ti ~= '' and 1 or 0))\n"
    "    local b = redis.call('HMGET', KEYS[k], 't')\n"
    "    local tat = tonumber(b[1] or '')\n"
    "    if tat then\n"
    "      redis.call('HSET', KEYS[k], 't', string.format('%.17g',\n"
    "        tat - tonumber(ARGV[a + 2]) * tonumber(ARGV[a])))\n"
    "    end\n"
    "  end\n"
    "  was[1] = tostring(q)\n"
    "  redis.call('HSET', KEYS[2], 'r', table.concat(was, ' ', 1, q + 1))\n"
    "  return 0\n"
    "end\n"
    "if m[1] == ARGV[7] and m[2] then\n"
    "  out = {}\n"
    "  for w in string.gmatch(m[2], '%S+') do\n"
    "    local x = tonumber(w)\n"
    "    if op ~= 'take' and #out > 0 then\n"
    "      x = math.ceil(math.max(x - now, 0))\n"
    "    end\n"
    "    out[#out + 1] = x\n"
    "  end\n"
    "  return out\n"
    "end\n"
    "local ahead, from, most, lead = tonumber(ARGV[8]), now, 0, nil\n"
    "local tot = ti ~= '' and 1 or 0\n"
    "local function fetch(p)\n"
    "  local b = redis.call('HMGET', KEYS[p.k], 't', 'i')\n"
    "  local tat = tonumber(b[1] or '0') or 0\n"
    "  if tat ~= tat or tat == math.huge then tat = 0 end\n"
    "  local was = tonumber(b[2] or '')\n"
    "  if tat > now and was and was > 0 and was ~= p.iv then\n"
    "    tat = now + (tat - now) * p.iv / was\n"
    "    redis.call('HSET', KEYS[p.k], 't', string.format('%.17g', tat),\n"
    "      'i', p.ivt)\n"
    "  end\n"
    "  p.tat = math.max(tat, from)\n"
    "end\n"
    "local function charge(p, units)\n"
    "  local ttl = math.ceil((p.tat + units * p.iv - now) / 1000) + 1\n"
    "  redis.call('HSET', KEYS[p.k], 't',\n"
    "    string.format('%.17g', p.tat + units * p.iv), 'i', p.ivt)\n"
    "  redis.call('PEXPIRE', KEYS[p.k], ttl)\n"
    "  most = math.max(most, ttl)\n"
    "end\n"
    "local own = {}\n"
    "local pair = {own, {k = 3, ivt = ti, iv = tonumber(ti),\n"
    "  burst = tonumber(tb)}}\n"
    "for k = 3 + tot, #KEYS do\n"
    "  local a, at = 3 * (k - tot), from\n"
    "  local units = tonumber(ARGV[a + 2])\n"
    "  own.k, own.ivt, own.iv = k, ARGV[a], tonumber(ARGV[a])\n"
    "  own.burst = tonumber(ARGV[a + 1])\n"
    "  local first = own.iv and 1 or 2\n"
    "  for i = first, 1 + tot do\n"
    "    local p = pair[i]\n"
    "    fetch(p)\n"
    "    local room = math.floor((now + p.burst * p.iv - p.tat) / p.iv)\n"
    "    if op == 'take' and room < units then units = math.max(room, 0) end\n"
    "    at = math.max(at, p.tat + (units - p.burst) * p.iv)\n"
    "  end\n"
    "  if op == 'now' and at > now then break end\n"
    "  for i = first, 1 + tot do\n"
    "    local p = pair[i]\n"
    "    if tot == 1 and op ~= 'take' then p.tat = math.max(p.tat, at) end\n"
    "    if units > 0 then charge(p, units) end\n"
    "  end\n"
    "  out[1] = out[1] + 1\n"
    "  if op == 'take' then\n"
    "    out[out[1] + 1] = units\n"
    "    keep[out[1] + 1] = units\n"
    "  else\n"
    "    out[out[1] + 1] = math.ceil(at - now)\n"
    "    keep[out[1] + 1] = string.format('%.17g', at)\n"
    "    if at - now > ahead then\n"
    "      lead = lead or at\n"
    "      if KEYS[k + 1] ~= KEYS[k] or at - lead > ahead then break end\n"
    "    end\n"
    "    from = at\n"
    "  end\n"
    "end\n"
    "keep[1] = out[1]\n"
    "hold(most)\n"
    "redis.call('HSET', KEYS[2], 's', ARGV[7], 'r', table.concat(keep, ' '))\n"
    "redis.call('PEXPIRE', KEYS[2], 60000)\n"
    "return out\n";

/* Most arguments of a call of the script: its keys and arguments. */
#define CALL_ARGS (17 + 4 * REDIS_BATCH_MAX)

struct redis {
	struct redis_url url;
	struct redisconn conn;
	char sha[41];
	char *key;	 /* "tbthrottle:NAME", and with -k ":KEY" */
	size_t key_base; /* length of "tbthrottle:NAME" */
	size_t key_len, key_size;
	char settings[128]; /* "tbthrottle-settings:NAME" */
	char last[160];	    /* "tbthrottle-settings:NAME:last:ID" */
	/* The total's bucket, "tbthrottle-settings:NAME:total": no key of
	 * -k can name it, as theirs are "tbthrottle:NAME:KEY". */
	char total_key[144];
	struct redis_rate total; /* its rate: none without --total-rate */
	char total_text[96];	 /* as messages say it, or empty */
	char rate_text[TIERS_ID_MAX], name[80];
	struct redis_rate own;	     /* the bucket's rate, -r's */
	const struct redis_rate *at; /* the selected key's */
	char id_i[80], id_b[24];     /* the settings newcomers must give */
	char session[17];	     /* this process's number, in hex */
	const char *unit;	     /* "bytes" or "records" */
	uint64_t burst_units;	     /* burst, as a number */
	enum redis_fallback fallback;
	struct limiter *local;
	struct eviction mem; /* what the server said of its memory */
	bool mem_checked;    /* its eviction was judged, or cannot be */
	bool allow_eviction; /* --redis-allow-eviction */
	char mem_why[160];   /* why it could not be told */
	bool claimed;	     /* the settings were checked in Redis */
	bool loaded;	     /* the script is loaded on this connection */
	bool ran;	     /* units were booked, here or locally */
	bool busy;	     /* a call is under way: no chore now */
	bool down;	     /* reported as down, not yet back */
	char down_at[400];   /* the node the report named, password masked */
	int64_t mem_ns;	     /* when its eviction was last judged */
	int64_t retry_ns;    /* blocking: wait before the next connect */
	int64_t next_try_ns; /* down: when to probe it next */
	int64_t kept_ns;     /* when the settings were last refreshed */
	uint64_t seq;	     /* the number of the batch under way */
	/* The call of the script: its words, and the text of some. */
	const char *argv[CALL_ARGS];
	size_t lens[CALL_ARGS];
	char head[4][24]; /* keys, TTL, batch, look-ahead */
	char units[REDIS_BATCH_MAX][24];
	size_t asked[REDIS_BATCH_MAX]; /* the bookings Redis is asked */
	char *names;		       /* the buckets' names, end to end */
	size_t names_size;
	/* A Redis Cluster: its nodes, or NULL for a lone server. */
	struct cluster *cl;
	bool mode_known;	   /* whether it is a cluster was asked */
	bool rehome;		   /* shard 0 is served by another node */
	unsigned at_shard;	   /* the shard the keys are named for */
	struct redis_url home_url; /* cluster: the node of shard 0 */
	struct redisconn *cur;	   /* the connection of the last call */
	unsigned char shard[REDIS_BATCH_MAX]; /* each booking's (take) */
	bool done[REDIS_BATCH_MAX];	      /* answered */
	bool late[REDIS_BATCH_MAX];	      /* booked to wait */
	bool again; /* the batch under way is asked again */
	/* After the start, the server's eviction is judged again with the
	 * settings kept, asked the way that told (INFO or CONFIG GET): a
	 * warning each time the policy turns to one that evicts. */
	bool mem_told, mem_by_config, mem_evicting;
	size_t calm; /* shaping, records booked since the last that waited */
};

bool
redis_available(void)
{
	return true;
}

/* why, made fit for a message: no password, no control characters. */
static void
clean(const struct redis *r, char *why, size_t size)
{
	redisurl_scrub(&r->url, why, size);
	msg_escape(why, size);
}

/* A reply that books nothing: Redis counts as down for now. */
static enum redisconn_result
unexpected(struct redis *r, redisReply *rep, char *why, size_t size)
{
	snprintf(why, size, "%s",
	    rep->type == REDIS_REPLY_ERROR ? rep->str : "a reply out of range");
	freeReplyObject(rep);
	redisconn_close(r->cur);
	return REDISCONN_DOWN;
}

/* The command w[0..n) in argv and lens, for a step; n. */
static int
words(const char **argv, size_t *lens, const char *const *w, int n)
{
	for (int i = 0; i < n; i++) {
		argv[i] = w[i];
		lens[i] = strlen(w[i]);
	}
	return n;
}

/* SCRIPT LOAD, unless the script is loaded on this connection. */
static int
load_words(void *ctx, const char **argv, size_t *lens)
{
	static const char *const w[] = { "SCRIPT", "LOAD", script };

	return ((const struct redis *)ctx)->loaded ? 0 :
						     words(argv, lens, w, 3);
}

/* The script's digest from rep, or why Redis cannot load it now. */
static enum redisconn_result
digest(struct redis *r, const struct redisconn *conn, const redisReply *rep,
    char *why, size_t size)
{
	if (rep->type == REDIS_REPLY_ERROR && redisconn_transient(rep->str)) {
		snprintf(why, size, "%s", rep->str);
		return REDISCONN_DOWN;
	}
	if (rep->type != REDIS_REPLY_STRING || rep->len != 40)
		redisconn_fatal(conn, "cannot load the script: %s",
		    rep->type == REDIS_REPLY_ERROR ? rep->str :
						     "no digest in the reply");
	memcpy(r->sha, rep->str, 40);
	r->sha[40] = '\0';
	return REDISCONN_OK;
}

static enum redisconn_result
load_answer(void *ctx, const redisReply *rep, char *why, size_t size)
{
	struct redis *r = ctx;
	enum redisconn_result rc = digest(r, &r->conn, rep, why, size);

	r->loaded = rc == REDISCONN_OK;
	return rc;
}

/*
 * Load the script on conn (the session's, or a cluster node's), after a
 * restart flushed it or before a node's first call; *loaded says so.
 */
static enum redisconn_result
load_script(struct redis *r, struct redisconn *conn, bool *loaded, char *why,
    size_t size)
{
	const char *argv[] = { "SCRIPT", "LOAD", script };
	size_t lens[] = { 6, 4, sizeof script - 1 };
	enum redisconn_result rc;
	redisReply *rep;

	*loaded = false;
	if ((rc = redisconn_command(conn, 3, argv, lens, &rep, why, size)) !=
	    REDISCONN_OK)
		return rc;
	rc = digest(r, conn, rep, why, size);
	freeReplyObject(rep);
	if (rc != REDISCONN_OK)
		redisconn_close(conn);
	*loaded = rc == REDISCONN_OK;
	return rc;
}

/* The rate of booking b: its key's, or the bucket's own. */
static const struct redis_rate *
rate_of(const struct redis *r, const struct booking *b)
{
	return b->rate != NULL ? b->rate : &r->own;
}

/*
 * The names of the buckets of b[asked[0..m)], end to end in r->names, the
 * length of each in lens: a key's own, or without one the bucket
 * selected.
 */
static void
name_buckets(struct redis *r, const struct booking *b, size_t m, size_t *lens)
{
	size_t total = 0, at = 0;

	for (size_t j = 0; j < m; j++) {
		const struct booking *bj = &b[r->asked[j]];

		lens[j] = bj->key != NULL ? r->key_base + 1 + bj->key_len :
					    r->key_len;
		if (lens[j] > SIZE_MAX / 4 - total)
			errx(1, "keys of %zu bytes", total);
		total += lens[j];
	}
	if (total > r->names_size) {
		char *p = realloc(r->names, total * 2);

		if (p == NULL)
			err(1, "keys of %zu bytes", total);
		r->names = p;
		r->names_size = total * 2;
	}
	for (size_t j = 0; j < m; j++) {
		const struct booking *bj = &b[r->asked[j]];

		if (bj->key == NULL) {
			memcpy(r->names + at, r->key, r->key_len);
		} else {
			memcpy(r->names + at, r->key, r->key_base);
			r->names[at + r->key_base] = ':';
			memcpy(r->names + at + r->key_base + 1, bj->key,
			    bj->key_len);
		}
		at += lens[j];
	}
}

/*
 * The words of the script's call for op, with the buckets of
 * b[asked[0..m)] looking ahead ahead_ns, into r->argv; how many.
 */
static int
call_words(struct redis *r, const char *op, const struct booking *b, size_t m,
    int64_t ahead_ns)
{
	const char **w = r->argv;
	size_t *lens = r->lens, off = 0;
	int n = 0, first = r->total.none ? 5 : 6; /* the first bucket's */

	snprintf(r->head[0], sizeof r->head[0], "%zu", m + (size_t)first - 3);
	snprintf(r->head[1], sizeof r->head[1], "%d", SETTINGS_TTL_MS);
	snprintf(
	    r->head[2], sizeof r->head[2], "%llu", (unsigned long long)r->seq);
	snprintf(r->head[3], sizeof r->head[3], "%lld",
	    (long long)(ahead_ns / 1000));
	name_buckets(r, b, m, lens + first);
	w[n++] = "EVALSHA";
	w[n++] = r->sha;
	w[n++] = r->head[0];
	w[n++] = r->settings;
	w[n++] = r->last;
	if (!r->total.none)
		w[n++] = r->total_key;
	for (size_t j = 0; j < m; j++) {
		w[n++] = r->names + off;
		off += lens[n - 1];
	}
	w[n++] = op;
	w[n++] = r->rate_text;
	w[n++] = r->unit;
	w[n++] = r->head[1];
	w[n++] = r->id_i;
	w[n++] = r->id_b;
	w[n++] = r->head[2];
	w[n++] = r->head[3];
	for (size_t j = 0; j < m; j++) {
		const struct booking *bj = &b[r->asked[j]];

		snprintf(r->units[j], sizeof r->units[j], "%llu",
		    (unsigned long long)bj->units);
		w[n++] = rate_of(r, bj)->interval;
		w[n++] = rate_of(r, bj)->burst;
		w[n++] = r->units[j];
	}
	w[n++] = r->total.interval;
	w[n++] = r->total.burst;
	w[n++] = r->total_text;
	for (int i = 0; i < n; i++)
		if (i < first || i >= first + (int)m)
			lens[i] = strlen(w[i]);
	return n;
}

/*
 * On a cluster, the keys of shard s from now on (lone servers keep the
 * names they were opened with).
 */
static void
set_shard(struct redis *r, unsigned s)
{
	if (r->cl == NULL)
		return;
	r->at_shard = s;
	r->key_base = r->key_len = (size_t)snprintf(
	    r->key, r->key_size, "tbthrottle:{%s:%u}", r->name, s);
	snprintf(r->settings, sizeof r->settings, "tbthrottle-settings:{%s:%u}",
	    r->name, s);
	snprintf(
	    r->last, sizeof r->last, "%s:last:%s", r->settings, r->session);
	snprintf(r->total_key, sizeof r->total_key, "%s:total", r->settings);
}

/*
 * The shard of booking b's bucket on a cluster: its key's, by hash; with
 * a total, booked in every call, 0 for all (a call keeps to one slot).
 */
static unsigned
shard_of(const struct redis *r, const struct booking *b)
{
	static const unsigned char zero[16];
	struct siphash_key k = siphash_key_of(zero);

	return b->key == NULL || !r->total.none ?
	    0 :
	    (unsigned)(siphash24(&k, b->key, b->key_len) % SHARDS);
}

/*
 * Send the call in r->argv[0..argc) on conn, the script loaded first
 * where *loaded says it is not, and again if the server lost it.
 */
static enum redisconn_result
call_on(struct redis *r, struct redisconn *conn, bool *loaded, int argc,
    redisReply **rep, char *why, size_t size)
{
	enum redisconn_result rc;

	r->cur = conn;
	for (int tries = 0;; tries++) {
		if (!*loaded &&
		    (rc = load_script(r, conn, loaded, why, size)) !=
			REDISCONN_OK)
			return rc;
		r->argv[1] = r->sha;
		if ((rc = redisconn_command(conn, argc, r->argv, r->lens, rep,
			 why, size)) != REDISCONN_OK)
			return rc;
		if ((*rep)->type != REDIS_REPLY_ERROR) {
			/* The settings of this call's shard were kept. */
			if (r->cl == NULL || r->at_shard == 0)
				r->kept_ns = clock_now_ns();
			return REDISCONN_OK;
		}
		if (strncmp((*rep)->str, "NOSCRIPT", 8) != 0 || tries > 0)
			return REDISCONN_OK;
		/* The server restarted, or its scripts were flushed. */
		freeReplyObject(*rep);
		*loaded = false;
	}
}

/* ASKING on node n: its next command may use a slot coming to it. */
static enum redisconn_result
asking(struct cluster_node *n, char *why, size_t size)
{
	const char *argv[] = { "ASKING" };
	size_t lens[] = { 6 };
	redisReply *rep;
	enum redisconn_result rc = redisconn_command(
	    &n->conn, 1, argv, lens, &rep, why, size);

	if (rc == REDISCONN_OK) {
		if (rep->type == REDIS_REPLY_ERROR) {
			snprintf(why, size, "ASKING: %s", rep->str);
			rc = REDISCONN_DOWN;
		}
		freeReplyObject(rep);
	}
	return rc;
}

/*
 * Read the cluster's map again: OK, DOWN or STOP.  The nodes it no longer
 * names are forgotten, the last call's maybe: messages name the session's.
 */
static enum redisconn_result
refresh(struct redis *r, char *why, size_t size)
{
	r->cur = &r->conn;
	return cluster_refresh(r->cl, why, size);
}

/* Sleep until until_ns, handling signals; false on a stop. */
static bool
sleep_until(int64_t until_ns)
{
	while (!signals_stop_requested()) {
		if (clock_sleep_until(until_ns) != EINTR)
			return true;
		signals_dispatch();
	}
	return false;
}

/*
 * Send the call in r->argv[0..argc) to the node of its slot (its keys'
 * hash tag), reading the map first when it may be out of date, and on
 * where MOVED or ASK send it.  A node lost on the way may have failed
 * over: the map is read again before the next call.
 */
static enum redisconn_result
route(struct redis *r, int argc, redisReply **rep, char *why, size_t size)
{
	unsigned slot = hashslot_of(r->settings, strlen(r->settings));
	struct cluster_node *n = NULL;
	enum redisconn_result rc;
	bool ask = false;

	for (int hops = 0; hops <= REDIRECTS_MAX; hops++) {
		if (n == NULL && r->cl->stale &&
		    (rc = refresh(r, why, size)) != REDISCONN_OK)
			return rc;
		if (n == NULL && (n = cluster_owner(r->cl, slot)) == NULL) {
			snprintf(why, size,
			    "no node of the cluster serves slot %u", slot);
			r->cl->stale = true;
			return REDISCONN_DOWN;
		}
		r->cur = &n->conn;
		if ((rc = cluster_connect(n, why, size)) != REDISCONN_OK ||
		    (!n->loaded &&
			(rc = load_script(r, &n->conn, &n->loaded, why,
			     size)) != REDISCONN_OK) ||
		    (ask && (rc = asking(n, why, size)) != REDISCONN_OK) ||
		    (rc = call_on(r, &n->conn, &n->loaded, argc, rep, why,
			 size)) != REDISCONN_OK) {
			r->cl->stale = true;
			return rc;
		}
		if ((*rep)->type != REDIS_REPLY_ERROR ||
		    (n = cluster_redirect(r->cl, (*rep)->str, &ask)) == NULL)
			return REDISCONN_OK;
		freeReplyObject(*rep);
	}
	snprintf(why, size, "slot %u: sent on more than %d times", slot,
	    REDIRECTS_MAX);
	return REDISCONN_DOWN;
}

/*
 * route, and again while the slot's keys are split by a migration under
 * way (TRYAGAIN), for REDISCONN_TIMEOUT_MS at most: then the reply is
 * the caller's, an outage.
 */
static enum redisconn_result
call_routed(struct redis *r, int argc, redisReply **rep, char *why, size_t size)
{
	int64_t wait_ns = TRYAGAIN_FIRST_NS;
	int64_t until_ns = clock_now_ns() + REDISCONN_TIMEOUT_MS * MS;
	enum redisconn_result rc;

	while ((rc = route(r, argc, rep, why, size)) == REDISCONN_OK &&
	    (*rep)->type == REDIS_REPLY_ERROR &&
	    strncmp((*rep)->str, "TRYAGAIN", 8) == 0 &&
	    clock_now_ns() + wait_ns <= until_ns) {
		freeReplyObject(*rep);
		if (!sleep_until(clock_now_ns() + wait_ns)) {
			snprintf(why, size, "stopped");
			return REDISCONN_STOP;
		}
		wait_ns *= 2;
	}
	return rc;
}

/*
 * Run the script's op for the buckets of b[asked[0..m)] (none: the
 * settings alone); the reply in *rep.
 */
static enum redisconn_result
eval(struct redis *r, const char *op, const struct booking *b, size_t m,
    int64_t ahead_ns, redisReply **rep, char *why, size_t size)
{
	int argc = call_words(r, op, b, m, ahead_ns);

	if (r->cl != NULL)
		return call_routed(r, argc, rep, why, size);
	return call_on(r, &r->conn, &r->loaded, argc, rep, why, size);
}

/*
 * Settings rate, burst, unit and total (empty: none) as messages say
 * them, into out; the total only when one side has one (say_total).
 */
static void
settings_text(const char *rate, const char *burst, const char *unit,
    const char *total, bool say_total, char *out, size_t size)
{
	char all[112] = "";

	if (say_total)
		snprintf(all, sizeof all, " and %s%s",
		    total[0] != '\0' ? "--total-rate " : "no --total-rate",
		    total);
	if (strcmp(burst, "tiers") == 0)
		snprintf(out, size, "%s%s", rate, all);
	else
		snprintf(out, size, "-r %s, burst %s%s%s", rate, burst,
		    strcmp(unit, "bytes") == 0 ? " (bytes)" : "", all);
}

/*
 * Is the session's connection at the node of shard 0, which keeps the
 * settings?  Else the next session is to go there (rehome).
 */
static bool
home(struct redis *r)
{
	unsigned slot = hashslot_of(r->settings, strlen(r->settings));
	const struct cluster_node *n = cluster_owner(r->cl, slot);

	r->rehome = n == NULL || n->url.port != r->home_url.port ||
	    strcmp(n->url.host, r->home_url.host) != 0;
	return !r->rehome;
}

/* CLUSTER SLOTS, until the server says whether it is a cluster. */
static int
cluster_words(void *ctx, const char **argv, size_t *lens)
{
	static const char *const w[] = { "CLUSTER", "SLOTS" };
	const struct redis *r = ctx;

	return r->mode_known ? 0 : words(argv, lens, w, 2);
}

/*
 * A cluster (the map of its slots) or a lone server (an error reply):
 * a cluster's buckets are spread over its masters by hash tags.
 */
static enum redisconn_result
cluster_answer(void *ctx, const redisReply *rep, char *why, size_t size)
{
	struct redis *r = ctx;
	struct cluster_node here = { .url = r->home_url };

	if (rep->type != REDIS_REPLY_ARRAY) {
		r->mode_known = true;
		return REDISCONN_OK;
	}
	if ((r->cl = calloc(1, sizeof *r->cl)) == NULL ||
	    cluster_init(r->cl, &r->url) != 0)
		errx(1, "out of memory");
	if (cluster_learn(r->cl, &here, rep, why, size) != 0)
		redisconn_fatal(&r->conn, "%s", why);
	r->mode_known = true;
	set_shard(r, 0);
	return REDISCONN_OK;
}

/*
 * The settings: claimed (checked against those kept in Redis, and set if
 * there are none) the first time, kept (their expiry pushed back) after.
 */
static int
settings_words(void *ctx, const char **argv, size_t *lens)
{
	struct redis *r = ctx;
	int n;

	set_shard(r, 0);
	if (r->cl != NULL && !home(r))
		return 0; /* redis_open and the chore go to its node */
	n = call_words(r, r->claimed ? "keep" : "claim", NULL, 0, 0);

	memcpy(argv, r->argv, (size_t)n * sizeof *argv);
	memcpy(lens, r->lens, (size_t)n * sizeof *lens);
	return n;
}

/*
 * A claim answered with the settings kept in Redis, which are not this
 * run's: a newcomer that asks for others is refused; a process that has
 * run already (limiting locally while Redis was out of reach) goes on
 * with its own.
 */
static void
differ(const struct redis *r, redisReply *const *e)
{
	char was[TIERS_ID_MAX + 160], asks[TIERS_ID_MAX + 160];
	bool say = e[3]->str[0] != '\0' || r->total_text[0] != '\0';

	settings_text(
	    e[0]->str, e[1]->str, e[2]->str, e[3]->str, say, was, sizeof was);
	settings_text(r->rate_text, r->id_b, r->unit, r->total_text, say, asks,
	    sizeof asks);
	if (!r->ran)
		redisconn_fatal(&r->conn,
		    "shared bucket '%s' is %s; "
		    "this run asks for %s (give the "
		    "same, or wait until no process uses it and it "
		    "is full)",
		    r->name, was, asks);
	msg_escape(was, sizeof was);
	warnx("%s: shared bucket '%s' was set to %s while out of "
	      "reach; this run goes on with %s",
	    r->conn.shown, r->name, was, asks);
}

static enum redisconn_result
settings_answer(void *ctx, const redisReply *rep, char *why, size_t size)
{
	struct redis *r = ctx;
	redisReply *const *e = rep->element;

	if (rep->type == REDIS_REPLY_ERROR && r->cl != NULL &&
	    (strncmp(rep->str, "TRYAGAIN", 8) == 0 ||
		strncmp(rep->str, "ASK ", 4) == 0 ||
		strncmp(rep->str, "MOVED ", 6) == 0)) {
		/* Shard 0's slot on the move: the next call that reaches
		 * it keeps the settings; a move ended sends the session to
		 * its new node (home). */
		r->cl->stale = true;
		return REDISCONN_OK;
	}
	if (rep->type == REDIS_REPLY_ERROR) {
		/* Flushed: load it at the next chance. */
		if (strncmp(rep->str, "NOSCRIPT", 8) == 0)
			r->loaded = false;
		snprintf(why, size, "%s", rep->str);
		return REDISCONN_DOWN;
	}
	if (!r->claimed && rep->type == REDIS_REPLY_ARRAY &&
	    rep->elements == 4 && e[0]->type == REDIS_REPLY_STRING &&
	    e[1]->type == REDIS_REPLY_STRING &&
	    e[2]->type == REDIS_REPLY_STRING &&
	    e[3]->type == REDIS_REPLY_STRING) {
		differ(r, e);
	} else if (rep->type != REDIS_REPLY_INTEGER || rep->integer != 0) {
		snprintf(why, size, "a reply out of range");
		return REDISCONN_DOWN;
	}
	r->claimed = true;
	r->kept_ns = clock_now_ns();
	return REDISCONN_OK;
}

/* INFO memory, until the server's eviction is judged; after, if it told. */
static int
info_words(void *ctx, const char **argv, size_t *lens)
{
	static const char *const w[] = { "INFO", "memory" };
	const struct redis *r = ctx;

	return !r->mem_checked || (r->mem_told && !r->mem_by_config) ?
	    words(argv, lens, w, 2) :
	    0;
}

/* Why an evicting server is refused, or warned of mid-run, into out. */
static void
evicts_text(const struct redis *r, char *out, size_t size)
{
	snprintf(out, size,
	    "maxmemory-policy %s (maxmemory %llu) evicts the keys of "
	    "tbthrottle%s, resetting its limits: set maxmemory-policy "
	    "noeviction, or give --redis-allow-eviction",
	    r->mem.policy, (unsigned long long)r->mem.maxmemory,
	    strncmp(r->mem.policy, "volatile", 8) == 0 ? " (they all expire)" :
							 "");
}

/*
 * The server's eviction, known, judged again mid-run: a warning, in the
 * words of the start's refusal, as its policy turns to one that evicts.
 */
static void
judge_again(struct redis *r)
{
	char text[256];
	bool evicts = eviction_evicts(&r->mem);

	if (evicts && !r->mem_evicting) {
		evicts_text(r, text, sizeof text);
		warnx("%s: %s", r->conn.shown, text);
	}
	r->mem_evicting = evicts;
}

/*
 * After a reply to what (INFO memory, CONFIG GET): judge the server's
 * eviction once it is known.  An evicting server ends the run, unless
 * allowed: its buckets, settings and answers kept for a lost batch
 * would vanish, and the limits reset without a word.  A reply that
 * does not tell is noted for the warning.
 */
static enum redisconn_result
judge_memory(struct redis *r, const char *what, const redisReply *rep,
    char *why, size_t size)
{
	char text[256];

	if (eviction_known(&r->mem)) {
		r->mem_ns = clock_now_ns();
		if (r->mem_told) {
			judge_again(r);
			return REDISCONN_OK;
		}
		r->mem_checked = r->mem_told = true;
		r->mem_by_config = strcmp(what, "CONFIG GET") == 0;
		if (eviction_evicts(&r->mem) && !r->allow_eviction) {
			evicts_text(r, text, sizeof text);
			redisconn_fatal(&r->conn, "%s", text);
		}
		return REDISCONN_OK;
	}
	if (r->mem_told)
		return REDISCONN_OK; /* mid-run, a reading that did not tell */
	if (rep->type == REDIS_REPLY_ERROR && redisconn_transient(rep->str)) {
		snprintf(why, size, "%s", rep->str);
		return REDISCONN_DOWN;
	}
	if (r->mem_why[0] == '\0')
		snprintf(r->mem_why, sizeof r->mem_why, "%s: %s", what,
		    rep->type == REDIS_REPLY_ERROR ? rep->str :
						     "no maxmemory-policy");
	return REDISCONN_OK;
}

static enum redisconn_result
info_answer(void *ctx, const redisReply *rep, char *why, size_t size)
{
	struct redis *r = ctx;

	if (rep->type == REDIS_REPLY_STRING)
		eviction_from_info(&r->mem, rep->str, rep->len);
	return judge_memory(r, "INFO memory", rep, why, size);
}

/* CONFIG GET, when INFO memory did not tell (managed servers may not). */
static int
config_words(void *ctx, const char **argv, size_t *lens)
{
	static const char *const w[] = { "CONFIG", "GET", "maxmemory*" };
	const struct redis *r = ctx;

	return !r->mem_checked || (r->mem_told && r->mem_by_config) ?
	    words(argv, lens, w, 3) :
	    0;
}

static enum redisconn_result
config_answer(void *ctx, const redisReply *rep, char *why, size_t size)
{
	struct redis *r = ctx;
	enum redisconn_result rc;

	for (size_t i = 0;
	     rep->type == REDIS_REPLY_ARRAY && i + 1 < rep->elements; i += 2)
		if (rep->element[i]->type == REDIS_REPLY_STRING &&
		    rep->element[i + 1]->type == REDIS_REPLY_STRING)
			eviction_from_config(&r->mem, rep->element[i]->str,
			    rep->element[i + 1]->str);
	if ((rc = judge_memory(r, "CONFIG GET", rep, why, size)) !=
		REDISCONN_OK ||
	    r->mem_checked)
		return rc;
	clean(r, r->mem_why, sizeof r->mem_why);
	warnx("%s: cannot tell whether the server evicts keys (%s); one "
	      "that does resets the limits (maxmemory-policy noeviction "
	      "keeps them)",
	    r->conn.shown, r->mem_why);
	r->mem_checked = true;
	return REDISCONN_OK;
}

/*
 * Meeting Redis on a connection: connect and log in if need be, judge
 * whether it evicts keys (once), load the script, and claim the
 * settings, or keep them.  In the foreground as a run starts and before
 * a booking, in the background otherwise.
 */
static const struct redisconn_step session[] = {
	{ .words = info_words, .answer = info_answer, .may_refuse = true },
	{ .words = config_words, .answer = config_answer, .may_refuse = true },
	{ .words = cluster_words,
	    .answer = cluster_answer,
	    .may_refuse = true },
	{ .words = load_words, .answer = load_answer, .may_refuse = false },
	{ .words = settings_words,
	    .answer = settings_answer,
	    .may_refuse = false },
};

/* Start meeting Redis (session), unless it is under way. */
static void
start(struct redis *r)
{
	if (redisconn_busy(&r->conn))
		return;
	if (!redisconn_connected(&r->conn))
		r->loaded = false;
	if (r->mem_told) /* judged again from a reading of its own */
		eviction_init(&r->mem);
	redisconn_errand(
	    &r->conn, session, sizeof session / sizeof session[0], r);
}

/* Meet Redis, waiting: OK, DOWN or STOP, the reason in why. */
static enum redisconn_result
setup(struct redis *r, char *why, size_t size)
{
	start(r);
	return redisconn_finish(&r->conn, why, size);
}

/*
 * Is Redis asked about booking b: has its key a limit that lets some go,
 * or a key of no limit the total?
 */
static bool
asks(const struct redis *r, const struct booking *b)
{
	return !rate_of(r, b)->none && (!rate_of(r, b)->inf || !r->total.none);
}

/* Answer booking b, of no limit (inf) or none, here: due at due_ns. */
static void
answer_here(const struct redis *r, struct booking *b, int64_t due_ns)
{
	b->taken = rate_of(r, b)->inf ? b->units : 0;
	b->due_ns = due_ns;
}

/* Longest wait believed from Redis: a reply beyond is a broken one. */
#define WAIT_MAX_US (100LL * 365 * 86400 * 1000000)

/*
 * Is rep the script's answer for m buckets, at least least of them (take:
 * for each), each number in range?  Else why says what is not.
 */
static bool
answer_fits(const struct booking *b, const size_t *asked, size_t m, bool take,
    size_t least, const redisReply *rep, char *why, size_t size)
{
	long long k;

	snprintf(why, size, "a reply out of range");
	if (rep->type != REDIS_REPLY_ARRAY || rep->elements < 1 ||
	    rep->element[0]->type != REDIS_REPLY_INTEGER)
		return false;
	k = rep->element[0]->integer;
	if (k < (long long)least || (size_t)k > m || (take && (size_t)k != m) ||
	    rep->elements != (size_t)k + 1)
		return false;
	for (size_t j = 0; j < (size_t)k; j++) {
		const redisReply *e = rep->element[j + 1];

		if (e->type != REDIS_REPLY_INTEGER || e->integer < 0 ||
		    (take && (uint64_t)e->integer > b[asked[j]].units))
			return false;
		if (!take && e->integer > WAIT_MAX_US) {
			snprintf(why, size, "a wait of %lld us", e->integer);
			return false;
		}
	}
	return true;
}

/*
 * Is rep the script's answer for m buckets (take: for each; book: for
 * at least the first)?  As answer_fits says.
 */
static bool
answer_ok(const struct booking *b, const size_t *asked, size_t m, bool take,
    const redisReply *rep, char *why, size_t size)
{
	return answer_fits(b, asked, m, take, 1, rep, why, size);
}

/* On a cluster, have the session's connection go to shard 0's node. */
static void
rehome(struct redis *r)
{
	const struct cluster_node *n;

	set_shard(r, 0);
	n = cluster_owner(r->cl, hashslot_of(r->settings, strlen(r->settings)));
	if (n == NULL)
		return; /* none serves it now: the map is read again */
	redisconn_close(&r->conn);
	r->home_url = n->url;
	redisconn_init(&r->conn, &r->home_url);
	r->loaded = false;
	r->rehome = false;
}

/*
 * Before a booking: the map of a cluster read again if it may be out of
 * date, and the session met (on a cluster, at shard 0's node).
 */
static enum redisconn_result
meet(struct redis *r, char *why, size_t size)
{
	enum redisconn_result rc;

	if (r->cl != NULL) {
		if (r->cl->stale &&
		    (rc = refresh(r, why, size)) != REDISCONN_OK)
			return rc;
		set_shard(r, 0);
		if (!home(r))
			rehome(r);
	}
	if ((!redisconn_connected(&r->conn) || redisconn_busy(&r->conn)) &&
	    (rc = setup(r, why, size)) != REDISCONN_OK)
		return rc;
	if (r->cl != NULL && r->rehome) {
		rehome(r);
		return setup(r, why, size);
	}
	return REDISCONN_OK;
}

/*
 * On a cluster, shaping while records wait: the bookings of b[0..n) up
 * to the first one asked of another shard than the first's, which the
 * keys are named for (a call keeps to one slot, and books in order); how
 * many.
 */
static size_t
one_shard(struct redis *r, const struct booking *b, size_t n)
{
	size_t i;
	int s = -1;

	for (i = 0; i < n; i++) {
		int k;

		if (!asks(r, &b[i]))
			continue;
		k = (int)shard_of(r, &b[i]);
		if (s >= 0 && k != s)
			break;
		s = k;
	}
	set_shard(r, s < 0 ? 0 : (unsigned)s);
	return i;
}

/* The bookings of b[0..n) not yet answered in shard s, into r->asked. */
static size_t
gather(struct redis *r, size_t n, unsigned s)
{
	size_t m = 0;

	for (size_t j = 0; j < n; j++)
		if (!r->done[j] && r->shard[j] == s)
			r->asked[m++] = j;
	set_shard(r, s);
	return m;
}

/*
 * A batch on a cluster: a call for each shard it touches (shard[0..k),
 * in the order of their first bookings), all sent before any reply is
 * awaited, so that the masters work at once; the same batch number in
 * each (asked again after a lost answer, each shard answers as before).
 */
struct fanout {
	unsigned char shard[SHARDS];
	struct cluster_node *node[SHARDS];
	bool sent[SHARDS];
	size_t kept[SHARDS]; /* how many of its bookings each booked */
	size_t k;
	bool take;
};

/* The op of the call of f's shard g: the first books, others now. */
static const char *
op_of(const struct fanout *f, size_t g)
{
	return f->take ? "take" : g == 0 ? "book" : "now";
}

/* The shards of b[0..n) into f, those not asked answered here. */
static void
plan_shards(struct redis *r, struct booking *b, size_t n, struct fanout *f)
{
	int64_t now_ns = clock_now_ns();

	f->k = 0;
	for (size_t i = 0; i < n; i++) {
		bool seen = false;

		r->shard[i] = (unsigned char)shard_of(r, &b[i]);
		r->done[i] = !asks(r, &b[i]);
		r->late[i] = false;
		if (r->done[i])
			answer_here(r, &b[i], now_ns);
		for (size_t g = 0; g < f->k; g++)
			seen = seen || f->shard[g] == r->shard[i];
		if (!r->done[i] && !seen)
			f->shard[f->k++] = r->shard[i];
	}
}

/*
 * Take rep, the answer of f's shard g for the m bookings of b in
 * r->asked, at now_ns: OK, or DOWN when it makes no sense.
 */
static enum redisconn_result
answered(struct redis *r, struct fanout *f, size_t g, struct booking *b,
    size_t m, const redisReply *rep, char *why, size_t size)
{
	int64_t now_ns = clock_now_ns();
	size_t least = f->take || g == 0 ? 1 : 0;

	if (!answer_fits(b, r->asked, m, f->take, least, rep, why, size))
		return REDISCONN_DOWN;
	f->kept[g] = (size_t)rep->element[0]->integer;
	for (size_t j = 0; j < f->kept[g]; j++) {
		struct booking *bj = &b[r->asked[j]];
		long long x = rep->element[j + 1]->integer;

		bj->taken = f->take ? (uint64_t)x : bj->units;
		bj->due_ns = f->take ? now_ns : now_ns + x * 1000;
		r->late[r->asked[j]] = !f->take && x > 0;
		r->done[r->asked[j]] = true;
	}
	return REDISCONN_OK;
}

/*
 * Send the call of op for the m bookings of b in r->asked (the keys named
 * for their shard) to the node of their slot, without awaiting the reply:
 * the node in *node.  OK, DOWN or STOP.
 */
static enum redisconn_result
send_call(struct redis *r, const char *op, const struct booking *b, size_t m,
    int64_t ahead_ns, struct cluster_node **node, char *why, size_t size)
{
	unsigned slot = hashslot_of(r->settings, strlen(r->settings));
	enum redisconn_result rc;
	int argc;

	if ((*node = cluster_owner(r->cl, slot)) == NULL) {
		snprintf(
		    why, size, "no node of the cluster serves slot %u", slot);
		return REDISCONN_DOWN;
	}
	r->cur = &(*node)->conn;
	if ((rc = cluster_connect(*node, why, size)) != REDISCONN_OK ||
	    (!(*node)->loaded &&
		(rc = load_script(r, &(*node)->conn, &(*node)->loaded, why,
		     size)) != REDISCONN_OK))
		return rc;
	argc = call_words(r, op, b, m, ahead_ns);
	return redisconn_send(
	    &(*node)->conn, argc, r->argv, r->lens, why, size);
}

/* Send the calls of f; a node that cannot be reached ends the batch. */
static enum redisconn_result
send_shards(struct redis *r, struct fanout *f, const struct booking *b,
    size_t n, int64_t ahead_ns, char *why, size_t size)
{
	for (size_t g = 0; g < f->k; g++) {
		size_t m = gather(r, n, f->shard[g]);
		enum redisconn_result rc = send_call(
		    r, op_of(f, g), b, m, ahead_ns, &f->node[g], why, size);

		if (rc != REDISCONN_OK) {
			/* It holds up no more of the batch: asked again,
			 * whole, as after any lost answer. */
			for (size_t h = 0; h < g; h++)
				redisconn_close(&f->node[h]->conn);
			r->cl->stale = true;
			return rc;
		}
		f->sent[g] = true;
	}
	return REDISCONN_OK;
}

/*
 * The replies of f's calls, in turn: each answer taken, or the shard left
 * for a call of its own (moved, or the script not there: sent[] false).
 * Every reply is read, so that no connection is left owing one.  OK, or
 * DOWN when a node did not answer in time (the batch is asked again,
 * whole) or a reply made no sense (its connection closed).
 */
static enum redisconn_result
receive_shards(struct redis *r, struct fanout *f, struct booking *b, size_t n,
    char *why, size_t size)
{
	enum redisconn_result bad = REDISCONN_OK, rc;
	char here[512];

	for (size_t g = 0; g < f->k; g++) {
		redisReply *rep;
		size_t m;

		if (!f->sent[g])
			continue;
		/* The first failure says why; a stop is a stop. */
		if ((rc = redisconn_receive(&f->node[g]->conn, &rep, here,
			 sizeof here)) != REDISCONN_OK) {
			r->cl->stale = true; /* it may have failed over */
			if (bad == REDISCONN_OK) {
				r->cur = &f->node[g]->conn;
				snprintf(why, size, "%s", here);
			}
			if (bad != REDISCONN_STOP)
				bad = rc == REDISCONN_STOP ? REDISCONN_STOP :
							     REDISCONN_DOWN;
			continue;
		}
		m = gather(r, n, f->shard[g]);
		if (rep->type == REDIS_REPLY_ERROR) {
			f->sent[g] = false;
		} else if (answered(r, f, g, b, m, rep, here, sizeof here) !=
		    REDISCONN_OK) {
			if (bad == REDISCONN_OK) {
				r->cur = &f->node[g]->conn;
				snprintf(why, size, "%s", here);
				bad = REDISCONN_DOWN;
			}
			redisconn_close(&f->node[g]->conn);
		}
		freeReplyObject(rep);
	}
	return bad;
}

/* The calls of f that came back moved, or found no script, again alone. */
static enum redisconn_result
resend_shards(struct redis *r, struct fanout *f, struct booking *b, size_t n,
    int64_t ahead_ns, char *why, size_t size)
{
	for (size_t g = 0; g < f->k; g++) {
		enum redisconn_result rc;
		redisReply *rep;
		size_t m;

		if (f->sent[g])
			continue;
		m = gather(r, n, f->shard[g]);
		if ((rc = eval(r, op_of(f, g), b, m, ahead_ns, &rep, why,
			 size)) != REDISCONN_OK)
			return rc;
		if (answered(r, f, g, b, m, rep, why, size) != REDISCONN_OK)
			return unexpected(r, rep, why, size);
		freeReplyObject(rep);
	}
	return REDISCONN_OK;
}

/*
 * Shaping, the records go in input order: of b[0..n) answered, how many
 * may go, a prefix that ends at the first not booked, or at the first of
 * another shard than the first's after one that waits (the first shard's
 * were booked each from when the one before it may go; the others' only
 * as if they went now).  Those not asked go when the one before them.
 * A batch asked again keeps the first shard's alone.
 */
static size_t
kept_prefix(
    const struct redis *r, const struct fanout *f, struct booking *b, size_t n)
{
	/* Asked again, the waits are as of now, no longer as booked: a
	 * record that waited would not show; keep the first shard's. */
	bool waited = r->again;
	int64_t last_ns = clock_now_ns();
	size_t i;

	for (i = 0; i < n; i++) {
		if (!asks(r, &b[i])) {
			answer_here(r, &b[i], last_ns);
			continue;
		}
		if (!r->done[i] || (waited && r->shard[i] != f->shard[0]))
			break;
		last_ns = b[i].due_ns;
		waited = waited || r->late[i];
	}
	return i;
}

/*
 * Give back what f's shards booked beyond b[0..p): each shard forgets,
 * in its answer, what it booked after its first q (undo), so that the
 * batch asked again is answered so.  OK, DOWN or STOP.
 */
static enum redisconn_result
undo_beyond(struct redis *r, struct fanout *f, struct booking *b, size_t n,
    size_t p, char *why, size_t size)
{
	for (size_t g = 0; g < f->k; g++) {
		size_t m = 0, q = 0, extra;
		enum redisconn_result rc;
		redisReply *rep;

		/* Its bookings as it was asked for them, in order. */
		for (size_t j = 0; j < n; j++)
			if (asks(r, &b[j]) && r->shard[j] == f->shard[g])
				r->asked[m++] = j;
		set_shard(r, f->shard[g]);

		while (q < m && r->asked[q] < p)
			q++;
		if (f->kept[g] <= q)
			continue;
		extra = f->kept[g] - q;
		memmove(r->asked, r->asked + q, extra * sizeof *r->asked);
		/* The look-ahead's place carries q. */
		if ((rc = eval(r, "undo", b, extra, (int64_t)q * 1000, &rep,
			 why, size)) != REDISCONN_OK)
			return rc;
		freeReplyObject(rep);
	}
	return REDISCONN_OK;
}

/*
 * On a cluster: book b[0..n) (with take, take for each) with a call for
 * each shard of them, sent at once (struct fanout).  Taking, each record
 * stands alone, and all are answered.  Shaping, the first record's shard
 * books as book does, from when the one before may go, and the others
 * only what may go at once (now), and what may go is a prefix
 * (kept_prefix); what the others booked beyond it is given back.  OK with
 * how many in *got, DOWN or STOP.
 */
static enum redisconn_result
book_shards(struct redis *r, struct booking *b, size_t n, bool take,
    int64_t ahead_ns, size_t *got, char *why, size_t size)
{
	struct fanout f = { .take = take };
	enum redisconn_result rc;

	plan_shards(r, b, n, &f);
	if ((rc = send_shards(r, &f, b, n, ahead_ns, why, size)) !=
		REDISCONN_OK ||
	    (rc = receive_shards(r, &f, b, n, why, size)) != REDISCONN_OK ||
	    (rc = resend_shards(r, &f, b, n, ahead_ns, why, size)) !=
		REDISCONN_OK)
		return rc;
	*got = take ? n : kept_prefix(r, &f, b, n);
	for (size_t i = 0; i < *got && !take; i++)
		if (r->late[i])
			r->calm = 0;
	return take ? REDISCONN_OK : undo_beyond(r, &f, b, n, *got, why, size);
}

/*
 * Book (or, with take, take what there is room for of) the units of
 * b[0..n) now in one round trip, looking ahead ahead_ns, as
 * limiter_book_all says; keys of no limit (inf) are not asked, and at
 * least one must be.  Returns
 * OK with how many were booked in *got; DOWN when Redis cannot be reached
 * or answers nonsense, or STOP (the reason in why).
 */
static enum redisconn_result
book(struct redis *r, struct booking *b, size_t n, bool take, int64_t ahead_ns,
    size_t *got, char *why, size_t size)
{
	enum redisconn_result rc;
	redisReply *rep;
	int64_t now_ns, last_ns;
	size_t m = 0, j = 0, i;

	if ((rc = meet(r, why, size)) != REDISCONN_OK)
		return rc;
	/*
	 * On a cluster, a call for each shard, sent at once; but while
	 * records wait (CALM), each call but the first would book what is
	 * given back: a run of one shard a call.  With a total, every
	 * booking is of shard 0.
	 */
	if (r->cl != NULL && r->total.none && (take || r->calm >= CALM)) {
		return book_shards(r, b, n, take, ahead_ns, got, why, size);
	}
	if (r->cl != NULL && r->total.none)
		n = one_shard(r, b, n);
	else if (r->cl != NULL)
		set_shard(r, 0);
	for (i = 0; i < n; i++)
		if (asks(r, &b[i]))
			r->asked[m++] = i;
	if ((rc = eval(r, take ? "take" : "book", b, m, ahead_ns, &rep, why,
		 size)) != REDISCONN_OK)
		return rc;
	if (!answer_ok(b, r->asked, m, take, rep, why, size))
		return unexpected(r, rep, why, size);
	now_ns = last_ns = clock_now_ns();
	for (i = 0; i < n; i++) {
		if (!asks(r, &b[i])) {
			answer_here(r, &b[i], last_ns);
			continue;
		}
		if (j + 1 >= rep->elements)
			break;
		b[i].taken = (uint64_t)rep->element[j + 1]->integer;
		b[i].due_ns = last_ns = now_ns +
		    rep->element[j + 1]->integer * 1000;
		r->calm = !take && b[i].due_ns > now_ns ? 0 : r->calm + 1;
		j++;
	}
	freeReplyObject(rep);
	*got = i;
	return REDISCONN_OK;
}

/*
 * Report Redis down (once) or back.  On a cluster, the node that failed;
 * back, the same name, and where it was reached when that is elsewhere
 * (another node, with Sentinel the master promoted).
 */
static void
report(struct redis *r, bool down, char *why, size_t size)
{
	char at[300];

	if (down && !r->down) {
		clean(r, why, size);
		snprintf(r->down_at, sizeof r->down_at, "%s", r->cur->shown);
		msg_escape(r->down_at, sizeof r->down_at);
		warnx("%s: %s; %s", r->down_at, why,
		    r->fallback == FALLBACK_LOCAL ?
			"limiting locally until it is back" :
			"waiting for it");
	} else if (!down && r->down && strcmp(r->down_at, r->cur->shown) != 0) {
		redisurl_hostport(r->cur->host, r->cur->port, at, sizeof at);
		msg_escape(at, sizeof at);
		warnx("%s: reached again, now at %s", r->down_at, at);
	} else if (!down && r->down) {
		warnx("%s: reached again", r->down_at);
	}
	r->down = down;
}

/* Wait before trying Redis again, handling signals; false on a stop. */
static bool
wait_retry(struct redis *r)
{
	int64_t until_ns = clock_now_ns() + r->retry_ns;
	int64_t most_ns = r->url.nsentinels > 0 ? RETRY_SENTINEL_NS :
						  RETRY_MAX_NS;

	r->retry_ns = r->retry_ns * 2 < most_ns ? r->retry_ns * 2 : most_ns;
	return sleep_until(until_ns);
}

/* Book b[0..n) at now_ns in the local limit (FALLBACK_LOCAL). */
static size_t
ask_local(struct redis *r, struct booking *b, size_t n, bool take,
    int64_t now_ns, int64_t ahead_ns, limiter_select_fn *select, void *ctx)
{
	r->ran = true;
	return limiter_book_all(
	    r->local, b, n, take, now_ns, ahead_ns, select, ctx);
}

/*
 * Book b[0..n) at now_ns through Redis, as the fallback says while it is
 * down; returns how many were booked, or 0 when a stop came first
 * (nothing booked: the caller releases nothing).  Asked again after a
 * lost answer, Redis answers as before: a batch is booked once.
 */
static size_t
ask(struct redis *r, struct booking *b, size_t n, bool take, int64_t now_ns,
    int64_t ahead_ns, limiter_select_fn *select, void *ctx)
{
	char why[512] = "";
	size_t got = 0;
	enum redisconn_result rc;

	r->seq++;
	for (r->again = false;; r->again = true) {
		/* Down, it is probed in the background (chore): until a
		 * probe succeeds, the local limit decides, at once. */
		if (r->fallback == FALLBACK_LOCAL && r->down)
			return ask_local(
			    r, b, n, take, now_ns, ahead_ns, select, ctx);
		rc = book(r, b, n, take, ahead_ns, &got, why, sizeof why);
		if (rc == REDISCONN_OK) {
			report(r, false, why, sizeof why);
			r->retry_ns = RETRY_FIRST_NS;
			r->ran = true;
			return got;
		}
		if (rc == REDISCONN_STOP)
			break;
		if (r->fallback == FALLBACK_FAIL)
			redisconn_fatal(r->cur, "%s", why);
		report(r, true, why, sizeof why);
		r->next_try_ns = clock_now_ns() + PROBE_AFTER_NS;
		/* The try took its time (a hung server, 1 s): the local limit
		 * books from now, not from the past the try spent, which the
		 * bucket has refilled over already. */
		if (clock_now_ns() > now_ns)
			now_ns = clock_now_ns();
		if (r->fallback != FALLBACK_LOCAL && !wait_retry(r))
			break;
	}
	return 0;
}

/* A wait saw the errand's descriptor or the probe's time come. */
static void
request_chore(void)
{
	signals_request(SIGNALS_CHORE);
}

/*
 * Have the waits go on with the errand under way, or probe Redis when
 * the time comes while it is down.
 */
static void
watch(const struct redis *r)
{
	if (redisconn_busy(&r->conn))
		redisconn_watch(&r->conn, request_chore);
	else if (r->down)
		clock_watch_once(-1, 0, r->next_try_ns, request_chore);
	else
		clock_watch_once(-1, 0, INT64_MAX, NULL);
}

/*
 * Start what is due in the background: while Redis is down, a probe each
 * PROBE_AFTER_NS; while it is up, the settings kept.  False when nothing
 * is due.
 */
static bool
start_due(struct redis *r)
{
	int64_t now_ns = clock_now_ns();

	/* A busy run keeps the settings with its calls: its eviction is
	 * judged again at the heartbeat's pace all the same. */
	if (r->down ? now_ns < r->next_try_ns :
		      now_ns - r->kept_ns < HEARTBEAT_MS / 2 * MS &&
		    (!r->mem_told ||
			now_ns - r->mem_ns < HEARTBEAT_MS / 2 * MS))
		return false;
	start(r);
	return true;
}

/* The errand of the background ended: OK, or DOWN with why. */
static void
errand_done(struct redis *r, enum redisconn_result rc, char *why, size_t size)
{
	int64_t now_ns = clock_now_ns();

	if (rc == REDISCONN_OK) {
		r->cur = &r->conn; /* where it was reached */
		report(r, false, why, size);
		r->retry_ns = RETRY_FIRST_NS;
		return;
	}
	r->next_try_ns = now_ns + PROBE_AFTER_NS;
	/* The settings could not be kept: with a local limit to go on by,
	 * Redis is down from now, and probed at once (it may have only
	 * restarted); else the next booking tries it. */
	if (!r->down && r->fallback == FALLBACK_LOCAL) {
		report(r, true, why, size);
		r->next_try_ns = now_ns;
	}
}

/*
 * The work done in the background, never waiting: a tick (the settings
 * kept while this process runs, idle or blocked on its output too), a
 * wait that saw the errand under way able to go on, or a booking while
 * Redis is down.  Down, Redis is probed (connected, logged in, the script
 * loaded and the settings claimed or kept, each step within its own
 * deadline) and is up again only once a probe has gone through.
 */
static void
chore(void *arg)
{
	struct redis *r = arg;
	char why[512];
	enum redisconn_result rc;

	if (r->busy || signals_stop_requested())
		return;
	r->busy = true;
	/* Twice: a probe may start as soon as the settings were not kept. */
	for (int i = 0; i < 2; i++) {
		if (!redisconn_busy(&r->conn) && !start_due(r))
			break;
		rc = redisconn_advance(&r->conn, why, sizeof why);
		if (rc == REDISCONN_AGAIN)
			break;
		errand_done(r, rc, why, sizeof why);
	}
	watch(r);
	r->busy = false;
}

size_t
redis_book(struct redis *r, struct booking *b, size_t n, bool take,
    int64_t now_ns, int64_t ahead_ns, limiter_select_fn *select, void *ctx)
{
	size_t got, i = 0, m = 0;

	if (n > REDIS_BATCH_MAX)
		n = REDIS_BATCH_MAX;
	/* A key whose tier lets nothing go waits for a stop, and all
	 * behind it: only --drop runs have such a tier, and they take. */
	while (!take && i < n && !rate_of(r, &b[i])->none)
		i++;
	if (!take && i == 0 && n > 0) {
		b[0].due_ns = INT64_MAX;
		return 1;
	}
	n = take ? n : i;
	for (i = 0; i < n; i++)
		m += asks(r, &b[i]);
	if (m == 0) {
		/* Nothing for Redis to say: no call, and no news of it. */
		for (i = 0; i < n; i++)
			answer_here(r, &b[i], now_ns);
		return n;
	}
	if (r->down && r->fallback == FALLBACK_LOCAL)
		chore(r);
	r->busy = true;
	got = ask(r, b, n, take, now_ns, ahead_ns, select, ctx);
	r->busy = false;
	watch(r);
	return got;
}

/* The settings newcomers must give: text is -r's, or with tiers their id. */
static void
set_settings(struct redis *r, const char *text, bool tiers)
{
	snprintf(r->rate_text, sizeof r->rate_text, "%s", text);
	snprintf(r->id_i, sizeof r->id_i, "%.*s", (int)sizeof r->id_i - 1,
	    tiers ? text : r->own.interval);
	snprintf(r->id_b, sizeof r->id_b, "%s", tiers ? "tiers" : r->own.burst);
}

/* The total of b (--total-rate), booked with every record, if any. */
static void
set_total(struct redis *r, const struct redis_bucket *b)
{
	redis_rate_init(&r->total, b->total_n, b->total_d, b->total_burst,
	    b->total_n == 0, false);
	snprintf(r->total_key, sizeof r->total_key, "%s:total", r->settings);
	if (b->total_n > 0)
		snprintf(r->total_text, sizeof r->total_text, "%s, burst %s",
		    b->total_text, r->total.burst);
}

/*
 * The keys of b's name on a lone server (a cluster names them for each
 * shard: set_shard), and this process's number for its last answer.
 */
static void
name_keys(struct redis *r, const struct redis_bucket *b)
{
	snprintf(r->name, sizeof r->name, "%s", b->name);
	r->key_base = r->key_len = (size_t)snprintf(
	    r->key, r->key_size, "tbthrottle:%s", b->name);
	snprintf(
	    r->settings, sizeof r->settings, "tbthrottle-settings:%s", b->name);
	snprintf(r->session, sizeof r->session, "%016llx",
	    (unsigned long long)b->session);
	snprintf(
	    r->last, sizeof r->last, "%s:last:%s", r->settings, r->session);
}

struct redis *
redis_open(const struct redis_url *u, const struct redis_bucket *b,
    enum redis_fallback fallback, struct limiter *local, char *err,
    size_t errsz)
{
	struct redis *r = calloc(1, sizeof *r);
	char why[512];
	enum redisconn_result rc;

	if (r == NULL ||
	    (r->key = malloc(r->key_size = strlen(b->name) + 64)) == NULL) {
		free(r);
		snprintf(err, errsz, "out of memory");
		return NULL;
	}
	r->url = r->home_url = *u;
	redisconn_init(&r->conn, &r->home_url);
	r->cur = &r->conn;
	name_keys(r, b);
	redis_rate_init(&r->own, b->n, b->d, b->burst, b->n == 0, false);
	r->at = &r->own;
	r->unit = b->bytes ? "bytes" : "records";
	set_total(r, b);
	set_settings(r, b->tiers_id != NULL ? b->tiers_id : b->rate_text,
	    b->tiers_id != NULL);
	r->fallback = fallback;
	r->local = local;
	r->retry_ns = RETRY_FIRST_NS;
	eviction_init(&r->mem);
	r->allow_eviction = b->allow_eviction;
	/* Allowed, there is nothing to ask the server, nor to warn of. */
	r->mem_checked = b->allow_eviction;
	/*
	 * Meet Redis now, so that a newcomer with other settings, or a
	 * mistake such as a missing password, ends the run before it reads
	 * anything.  Down, it is probed in the background, and tried at the
	 * first booking.
	 */
	r->busy = true;
	rc = setup(r, why, sizeof why);
	if (rc == REDISCONN_OK && r->cl != NULL && r->rehome) {
		rehome(r);
		rc = setup(r, why, sizeof why);
	}
	r->busy = false;
	if (rc == REDISCONN_DOWN) {
		if (fallback == FALLBACK_FAIL)
			redisconn_fatal(&r->conn, "%s", why);
		report(r, true, why, sizeof why);
		r->next_try_ns = clock_now_ns() + PROBE_AFTER_NS;
	}
	signals_hook(SIGNALS_TICK, chore, r, HEARTBEAT_MS);
	signals_hook(SIGNALS_CHORE, chore, r, 0);
	watch(r);
	return r;
}

int
redis_retier(struct redis *r, const char *tiers_id, char *err, size_t errsz)
{
	enum redisconn_result rc = REDISCONN_OK;
	char was[TIERS_ID_MAX];
	redisReply *rep;

	/* Down, it cannot be told without waiting for it. */
	if (r->down) {
		snprintf(err, errsz, "Redis is out of reach");
		return -1;
	}
	snprintf(was, sizeof was, "%s", r->rate_text);
	set_settings(r, tiers_id, true);
	r->at = &r->own;
	r->busy = true;
	r->claimed = true; /* reset: what was there is to be replaced */
	set_shard(r, 0);   /* on a cluster, newcomers are checked there */
	if (!redisconn_connected(&r->conn) || redisconn_busy(&r->conn))
		rc = setup(r, err, errsz);
	if (rc == REDISCONN_OK &&
	    (rc = eval(r, "reset", NULL, 0, 0, &rep, err, errsz)) ==
		REDISCONN_OK) {
		if (rep->type == REDIS_REPLY_ERROR) {
			snprintf(err, errsz, "%s", rep->str);
			rc = REDISCONN_DOWN;
		}
		freeReplyObject(rep);
	}
	r->busy = false;
	watch(r);
	if (rc == REDISCONN_OK)
		return 0;
	set_settings(r, was, true);
	clean(r, err, errsz);
	return -1;
}

bool
redis_busy(const struct redis *r)
{
	return r->busy;
}

void
redis_close(struct redis *r)
{
	if (r == NULL)
		return;
	signals_unhook(SIGNALS_TICK, chore);
	signals_unhook(SIGNALS_CHORE, chore);
	clock_watch_once(-1, 0, INT64_MAX, NULL);
	redisconn_close(&r->conn);
	if (r->cl != NULL)
		cluster_close(r->cl);
	free(r->cl);
	free(r->key);
	free(r->names);
	free(r);
}

#endif
