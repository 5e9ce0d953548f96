/* --adapt through Redis: the fleet's last cut, and the holds of Retry-After. */
#ifdef HAVE_HIREDIS

#include "adapt.h"
#include "clock.h"
#include "errand.h"
#include "redis.h"
#include "redisstore.h"

/*
 * Call op of the bucket script, its number arg in ARGV[8] (the place of
 * the look-ahead), for the bucket alone (hold) or the settings alone;
 * only on a session met already and idle: never connecting, nor waiting
 * for a Redis that is down or busy.  An answer that does not come makes
 * Redis down, as a booking's would, and the fallback decides (with fail,
 * the run ends).  OK with the reply in *rep, else DOWN.
 */
static enum redisconn_result
call(
    struct redis *r, const char *op, int64_t arg, bool bucket, redisReply **rep)
{
	const struct booking b = { .units = 0 };
	enum redisconn_result rc;
	char why[512];

	if (r->run.down || r->run.busy || !redisconn_connected(&r->conn) ||
	    redisconn_busy(&r->conn) ||
	    (r->shards.cl != NULL && (r->shards.cl->stale || !shard_home(r))))
		return REDISCONN_DOWN;
	r->run.busy = true;
	if (r->shards.cl != NULL)
		shard_set(r, 0); /* the settings', and the bucket's */
	r->call.asked[0] = 0;
	rc = redis_eval(
	    r, op, &b, bucket ? 1 : 0, arg * 1000, rep, why, sizeof why);
	if (rc == REDISCONN_DOWN) {
		if (r->run.fallback == FALLBACK_FAIL)
			redisconn_fatal(r->cur, "%s", why);
		book_report(r, true, why, sizeof why);
		r->run.next_try_ns = clock_now_ns() + PROBE_AFTER_NS;
	}
	r->run.busy = false;
	book_watch(r);
	return rc;
}

/*
 * The fleet's cut from rep (now, ac, ap), answered at now_ns here, as a
 * word on this host's clock: the same word for the same cut.  False when
 * rep is no such answer.
 */
static bool
heard(struct redis *r, const redisReply *rep, int64_t now_ns)
{
	long long v[3];
	int64_t cut_ns;

	if (rep->type != REDIS_REPLY_ARRAY || rep->elements != 3)
		return false;
	for (int i = 0; i < 3; i++) {
		if (rep->element[i]->type != REDIS_REPLY_INTEGER ||
		    (v[i] = rep->element[i]->integer) < 0)
			return false;
	}
	if (v[2] > (long long)ADAPT_PEAK_ONE || v[1] > v[0] ||
	    (v[1] == 0) != (v[2] == 0))
		return false;
	if (v[1] == 0 || v[1] == r->fleet.cut_us)
		return true;
	/* How long ago Redis stamped it, on this host's clock: off by
	 * at most the round trip. */
	cut_ns = v[0] - v[1] >= now_ns / 1000 ? 0 :
						now_ns - (v[0] - v[1]) * 1000;
	r->fleet.cut_us = v[1];
	r->fleet.word = ADAPT_WORD_OF(cut_ns / 1000000 + 1, (uint64_t)v[2]);
	return true;
}

uint64_t
redis_adapt_cut(struct redis *r, uint64_t w)
{
	int64_t now_ns = clock_now_ns();
	redisReply *rep;

	if (w != 0)
		r->fleet.pending = w;
	else if (now_ns < r->fleet.look_ns)
		return r->fleet.word;
	else if (r->fleet.pending != 0)
		w = r->fleet.pending;
	if (call(r, w != 0 ? "cut" : "look",
		(int64_t)(w != 0 ? ADAPT_WORD_PEAK(w) : 0), false,
		&rep) != REDISCONN_OK) {
		r->fleet.look_ns = clock_now_ns() + REDIS_LOOK_MS * MS;
		return w != 0 ? w : r->fleet.word;
	}
	r->fleet.look_ns = clock_now_ns() + REDIS_LOOK_MS * MS;
	if (heard(r, rep, clock_now_ns()) && w != 0) {
		/* This process's own cut: its word as it made it. */
		r->fleet.word = w;
		r->fleet.pending = 0;
	}
	freeReplyObject(rep);
	return r->fleet.word;
}

void
redis_adapt_hold(struct redis *r, int64_t until_ns)
{
	int64_t now_ns = clock_now_ns();
	redisReply *rep;

	if (until_ns <= now_ns ||
	    call(r, "hold", (until_ns - now_ns + 999) / 1000, true, &rep) !=
		REDISCONN_OK)
		return;
	(void)heard(r, rep, clock_now_ns());
	freeReplyObject(rep);
}

void
redis_adapt_slow(struct redis *r, uint64_t n, uint64_t d)
{
	redis_rate_init(
	    &r->share.own, n, d, r->share.own.burst_units, false, false);
}

#else

/* Without hiredis there is nothing here; ISO C wants a declaration. */
typedef int redisadapt_unused;

#endif
