/* A token bucket kept in Redis, for processes on many hosts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "redis.h"

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

uint64_t
redis_adapt_cut(struct redis *r, uint64_t w)
{
	(void)r;
	return w;
}

void
redis_adapt_hold(struct redis *r, int64_t until_ns)
{
	(void)r, (void)until_ns;
}

void
redis_adapt_slow(struct redis *r, uint64_t n, uint64_t d)
{
	(void)r, (void)n, (void)d;
}

void
redis_close(struct redis *r)
{
	(void)r;
}

#else

#include <stdlib.h>

#include "clock.h"
#include "errand.h"
#include "msg.h"
#include "redisstore.h"
#include "signals.h"
#include "zonemap.h"

bool
redis_available(void)
{
	return true;
}

/* why, made fit for a message: no password, no control characters. */
void
redis_clean(const struct redis *r, char *why, size_t size)
{
	redisurl_scrub(&r->url, why, size);
	msg_escape(why, size);
}

/* A reply that books nothing: Redis counts as down for now. */
enum redisconn_result
redis_unexpected(struct redis *r, redisReply *rep, char *why, size_t size)
{
	snprintf(why, size, "%s",
	    rep->type == REDIS_REPLY_ERROR ? rep->str : "a reply out of range");
	freeReplyObject(rep);
	redisconn_close(r->cur);
	return REDISCONN_DOWN;
}

/* The settings newcomers must give: text is -r's, or with tiers their id. */
static void
set_settings(struct redis *r, const char *text, bool tiers)
{
	snprintf(r->share.rate_text, sizeof r->share.rate_text, "%s", text);
	snprintf(r->share.id_i, sizeof r->share.id_i, "%.*s",
	    (int)sizeof r->share.id_i - 1,
	    tiers ? text : r->share.own.interval);
	snprintf(r->share.id_b, sizeof r->share.id_b, "%s",
	    tiers ? "tiers" : r->share.own.burst);
}

/* The total of b (--total-rate), booked with every record, if any. */
static void
set_total(struct redis *r, const struct redis_bucket *b)
{
	redis_rate_init(&r->share.total, b->total_n, b->total_d, b->total_burst,
	    b->total_n == 0, false);
	snprintf(r->keys.total_key, sizeof r->keys.total_key, "%s:total",
	    r->keys.settings);
	if (b->total_n > 0)
		snprintf(r->share.total_text, sizeof r->share.total_text,
		    "%s, burst %s", b->total_text, r->share.total.burst);
}

/*
 * The keys of b's name on a lone server (a cluster names them for each
 * shard: shard_set), and this process's number for its last answer.
 */
static void
name_keys(struct redis *r, const struct redis_bucket *b)
{
	snprintf(r->keys.name, sizeof r->keys.name, "%s", b->name);
	r->keys.key_base = r->keys.key_len = (size_t)snprintf(
	    r->keys.key, r->keys.key_size, "tbthrottle:%s", b->name);
	snprintf(r->keys.settings, sizeof r->keys.settings,
	    "tbthrottle-settings:%s", b->name);
	snprintf(r->keys.session, sizeof r->keys.session, "%016llx",
	    (unsigned long long)b->session);
	snprintf(r->keys.last, sizeof r->keys.last, "%s:last:%s",
	    r->keys.settings, r->keys.session);
}

/* What b shares with every process of its name, as the script has it. */
static void
set_share(struct redis *r, const struct redis_bucket *b)
{
	if (b->window != NULL)
		redis_rate_window(&r->share.own, b->n, b->d);
	else
		redis_rate_init(
		    &r->share.own, b->n, b->d, b->burst, b->n == 0, false);
	r->share.unit = b->window != NULL ? b->window :
	    b->bytes			  ? "bytes" :
					    "records";
	set_total(r, b);
	set_settings(r, b->tiers_id != NULL ? b->tiers_id : b->rate_text,
	    b->tiers_id != NULL);
	r->share.observe = b->observe;
	if (b->zone != NULL && strcmp(b->zone->name, "UTC") != 0) {
		/* Processes of the name count in one calendar: the zone is
		 * in the settings that newcomers must give. */
		r->share.zone = b->zone;
		r->share.width_ns = b->d;
		r->share.zone_next_ns = 0; /* made at the first booking */
		redis_zone_refresh(r);
		snprintf(r->share.id_i, sizeof r->share.id_i, "%llu/%.60s",
		    (unsigned long long)((b->d + 999) / 1000), b->zone->name);
		/* Messages name it with the rate. */
		snprintf(r->share.rate_text, sizeof r->share.rate_text,
		    "%.48s --tz %.60s", b->rate_text, b->zone->name);
	}
}

void
redis_zone_refresh(struct redis *r)
{
	int64_t wall;

	if (r->share.zone == NULL)
		return;
	wall = clock_now_ns() + clock_wall_offset_ns();
	if (wall >= r->share.zone_next_ns)
		r->share.zone_next_ns = redis_rate_zone(
		    &r->share.own, r->share.width_ns, r->share.zone, wall);
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
	    (r->keys.key = malloc(r->keys.key_size = strlen(b->name) + 64)) ==
		NULL) {
		free(r);
		snprintf(err, errsz, "out of memory");
		return NULL;
	}
	r->url = r->shards.home_url = *u;
	redisconn_init(&r->conn, &r->shards.home_url);
	if (u->nsentinels > 0)
		sentinel_finder(&r->finder, &r->conn);
	r->cur = &r->conn;
	name_keys(r, b);
	set_share(r, b);
	r->run.fallback = fallback;
	r->run.local = local;
	r->run.retry_ns = RETRY_FIRST_NS;
	eviction_init(&r->mem.ev);
	r->mem.allow = b->allow_eviction;
	/* Allowed, there is nothing to ask the server, nor to warn of. */
	r->mem.checked = b->allow_eviction;
	/*
	 * Meet Redis now, so that a newcomer with other settings, or a
	 * mistake such as a missing password, ends the run before it reads
	 * anything.  Down, it is probed in the background, and tried at the
	 * first booking.
	 */
	r->run.busy = true;
	rc = setup_finish(r, why, sizeof why);
	if (rc == REDISCONN_OK && r->shards.cl != NULL && r->shards.rehome) {
		shard_rehome(r);
		rc = setup_finish(r, why, sizeof why);
	}
	r->run.busy = false;
	if (rc == REDISCONN_DOWN) {
		if (fallback == FALLBACK_FAIL)
			redisconn_fatal(&r->conn, "%s", why);
		book_report(r, true, why, sizeof why);
		r->run.next_try_ns = clock_now_ns() + PROBE_AFTER_NS;
	}
	signals_hook(SIGNALS_TICK, book_chore, r, HEARTBEAT_MS);
	signals_hook(SIGNALS_CHORE, book_chore, r, 0);
	book_watch(r);
	return r;
}

int
redis_retier(struct redis *r, const char *tiers_id, char *err, size_t errsz)
{
	enum redisconn_result rc = REDISCONN_OK;
	char was[TIERS_ID_MAX];
	redisReply *rep;

	/* Down, it cannot be told without waiting for it. */
	if (r->run.down) {
		snprintf(err, errsz, "Redis is out of reach");
		return -1;
	}
	snprintf(was, sizeof was, "%s", r->share.rate_text);
	set_settings(r, tiers_id, true);
	r->run.busy = true;
	r->share.claimed = true; /* reset: what was there is to be replaced */
	shard_set(r, 0);	 /* on a cluster, newcomers are checked there */
	if (!redisconn_connected(&r->conn) || redisconn_busy(&r->conn))
		rc = setup_finish(r, err, errsz);
	if (rc == REDISCONN_OK &&
	    (rc = redis_eval(r, "reset", NULL, 0, 0, &rep, err, errsz)) ==
		REDISCONN_OK) {
		if (rep->type == REDIS_REPLY_ERROR) {
			snprintf(err, errsz, "%s", rep->str);
			rc = REDISCONN_DOWN;
		}
		freeReplyObject(rep);
	}
	r->run.busy = false;
	book_watch(r);
	if (rc == REDISCONN_OK)
		return 0;
	set_settings(r, was, true);
	redis_clean(r, err, errsz);
	return -1;
}

bool
redis_busy(const struct redis *r)
{
	return r->run.busy;
}

void
redis_close(struct redis *r)
{
	if (r == NULL)
		return;
	signals_unhook(SIGNALS_TICK, book_chore);
	signals_unhook(SIGNALS_CHORE, book_chore);
	clock_watch_once(-1, 0, INT64_MAX, NULL);
	redisconn_close(&r->conn);
	if (r->shards.cl != NULL)
		cluster_close(r->shards.cl);
	free(r->shards.cl);
	free(r->keys.key);
	free(r->keys.names);
	free(r);
}

#endif
