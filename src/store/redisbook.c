/* Bookings in Redis, the fallback while it is down, probes meanwhile. */
#ifdef HAVE_HIREDIS

#include <err.h>
#include <stdio.h>
#include <string.h>

#include "clock.h"
#include "errand.h"
#include "msg.h"
#include "redis.h"
#include "redisstore.h"
#include "signals.h"

/*
 * On a cluster, shaping: records booked in a row without a wait before
 * a batch is sent to all its shards at once again.  While records wait,
 * the calls of the other shards would book what is given back.
 */
#define CALM (4 * SHARDS)

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

	if ((rc = setup_meet(r, why, size)) != REDISCONN_OK)
		return rc;
	/*
	 * On a cluster, a call for each shard, sent at once; but while
	 * records wait (CALM), each call but the first would book what is
	 * given back: a run of one shard a call.  With a total, every
	 * booking is of shard 0.
	 */
	if (r->shards.cl != NULL && r->share.total.none &&
	    (take || r->shards.calm >= CALM)) {
		return fanout_book(r, b, n, take, ahead_ns, got, why, size);
	}
	if (r->shards.cl != NULL && r->share.total.none)
		n = shard_one(r, b, n);
	else if (r->shards.cl != NULL)
		shard_set(r, 0);
	for (i = 0; i < n; i++)
		if (bucket_asks(r, &b[i]))
			r->call.asked[m++] = i;
	if ((rc = redis_eval(r, take ? "take" : "book", b, m, ahead_ns, &rep,
		 why, size)) != REDISCONN_OK)
		return rc;
	if (!bucket_answer_ok(b, r->call.asked, m, take, rep, why, size))
		return redis_unexpected(r, rep, why, size);
	now_ns = last_ns = clock_now_ns();
	for (i = 0; i < n; i++) {
		if (!bucket_asks(r, &b[i])) {
			bucket_answer_here(r, &b[i], last_ns);
			continue;
		}
		if (j + 1 >= rep->elements)
			break;
		b[i].taken = (uint64_t)rep->element[j + 1]->integer;
		b[i].due_ns = last_ns = now_ns +
		    rep->element[j + 1]->integer * 1000;
		r->shards.calm = !take && b[i].due_ns > now_ns ?
		    0 :
		    r->shards.calm + 1;
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
void
book_report(struct redis *r, bool down, char *why, size_t size)
{
	char at[300];

	if (down && !r->run.down) {
		redis_clean(r, why, size);
		snprintf(
		    r->run.down_at, sizeof r->run.down_at, "%s", r->cur->shown);
		msg_escape(r->run.down_at, sizeof r->run.down_at);
		warnx("%s: %s; %s", r->run.down_at, why,
		    r->run.fallback == FALLBACK_LOCAL ?
			"limiting locally until it is back" :
			"waiting for it");
	} else if (!down && r->run.down &&
	    strcmp(r->run.down_at, r->cur->shown) != 0) {
		redisurl_hostport(r->cur->host, r->cur->port, at, sizeof at);
		msg_escape(at, sizeof at);
		warnx("%s: reached again, now at %s", r->run.down_at, at);
	} else if (!down && r->run.down) {
		warnx("%s: reached again", r->run.down_at);
	}
	r->run.down = down;
}

/* Wait before trying Redis again, handling signals; false on a stop. */
static bool
wait_retry(struct redis *r)
{
	int64_t until_ns = clock_now_ns() + r->run.retry_ns;
	int64_t most_ns = r->url.nsentinels > 0 ? RETRY_SENTINEL_NS :
						  RETRY_MAX_NS;

	r->run.retry_ns = r->run.retry_ns * 2 < most_ns ? r->run.retry_ns * 2 :
							  most_ns;
	return redis_sleep_until(until_ns);
}

/* Book b[0..n) at now_ns in the local limit (FALLBACK_LOCAL). */
static size_t
ask_local(struct redis *r, struct booking *b, size_t n, bool take,
    int64_t now_ns, int64_t ahead_ns, limiter_select_fn *select, void *ctx)
{
	r->run.ran = true;
	return limiter_book_all(
	    r->run.local, b, n, take, now_ns, ahead_ns, select, ctx);
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

	r->call.seq++;
	for (r->call.again = false;; r->call.again = true) {
		/* Down, it is probed in the background (book_chore): until a
		 * probe succeeds, the local limit decides, at once. */
		if (r->run.fallback == FALLBACK_LOCAL && r->run.down)
			return ask_local(
			    r, b, n, take, now_ns, ahead_ns, select, ctx);
		rc = book(r, b, n, take, ahead_ns, &got, why, sizeof why);
		if (rc == REDISCONN_OK) {
			book_report(r, false, why, sizeof why);
			r->run.retry_ns = RETRY_FIRST_NS;
			r->run.ran = true;
			return got;
		}
		if (rc == REDISCONN_STOP)
			break;
		if (r->run.fallback == FALLBACK_FAIL)
			redisconn_fatal(r->cur, "%s", why);
		book_report(r, true, why, sizeof why);
		r->run.next_try_ns = clock_now_ns() + PROBE_AFTER_NS;
		/* The try took its time (a hung server, 1 s): the local limit
		 * books from now, not from the past the try spent, which the
		 * bucket has refilled over already. */
		if (clock_now_ns() > now_ns)
			now_ns = clock_now_ns();
		if (r->run.fallback != FALLBACK_LOCAL && !wait_retry(r))
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
void
book_watch(const struct redis *r)
{
	if (redisconn_busy(&r->conn))
		redisconn_watch(&r->conn, request_chore);
	else if (r->run.down)
		clock_watch_once(-1, 0, r->run.next_try_ns, request_chore);
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
	if (r->run.down ? now_ns < r->run.next_try_ns :
			  now_ns - r->share.kept_ns < HEARTBEAT_MS / 2 * MS &&
		    (!r->mem.told ||
			now_ns - r->mem.at_ns < HEARTBEAT_MS / 2 * MS))
		return false;
	setup_start(r);
	return true;
}

/* The errand of the background ended: OK, or DOWN with why. */
static void
errand_done(struct redis *r, enum redisconn_result rc, char *why, size_t size)
{
	int64_t now_ns = clock_now_ns();

	if (rc == REDISCONN_OK) {
		r->cur = &r->conn; /* where it was reached */
		book_report(r, false, why, size);
		r->run.retry_ns = RETRY_FIRST_NS;
		return;
	}
	r->run.next_try_ns = now_ns + PROBE_AFTER_NS;
	/* The settings could not be kept: with a local limit to go on by,
	 * Redis is down from now, and probed at once (it may have only
	 * restarted); else the next booking tries it. */
	if (!r->run.down && r->run.fallback == FALLBACK_LOCAL) {
		book_report(r, true, why, size);
		r->run.next_try_ns = now_ns;
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
void
book_chore(void *arg)
{
	struct redis *r = arg;
	char why[512];
	enum redisconn_result rc;

	if (r->run.busy || signals_stop_requested())
		return;
	r->run.busy = true;
	/* Twice: a probe may start as soon as the settings were not kept. */
	for (int i = 0; i < 2; i++) {
		if (!redisconn_busy(&r->conn) && !start_due(r))
			break;
		rc = redisconn_advance(&r->conn, why, sizeof why);
		if (rc == REDISCONN_AGAIN)
			break;
		errand_done(r, rc, why, sizeof why);
	}
	book_watch(r);
	r->run.busy = false;
}

size_t
redis_book(struct redis *r, struct booking *b, size_t n, bool take,
    int64_t now_ns, int64_t ahead_ns, limiter_select_fn *select, void *ctx)
{
	size_t got, i = 0, m = 0;

	if (n > REDIS_BATCH_MAX)
		n = REDIS_BATCH_MAX;
	redis_zone_refresh(r);
	/* A key whose tier lets nothing go waits for a stop, and all
	 * behind it: only --drop runs have such a tier, and they take. */
	while (!take && i < n && !bucket_rate_of(r, &b[i])->none)
		i++;
	if (!take && i == 0 && n > 0) {
		b[0].due_ns = INT64_MAX;
		return 1;
	}
	n = take ? n : i;
	for (i = 0; i < n; i++)
		m += bucket_asks(r, &b[i]);
	if (m == 0) {
		/* Nothing for Redis to say: no call, and no news of it. */
		for (i = 0; i < n; i++)
			bucket_answer_here(r, &b[i], now_ns);
		return n;
	}
	if (r->run.down && r->run.fallback == FALLBACK_LOCAL)
		book_chore(r);
	r->run.busy = true;
	got = ask(r, b, n, take, now_ns, ahead_ns, select, ctx);
	r->run.busy = false;
	book_watch(r);
	return got;
}

#else

/* Without hiredis there is nothing here; ISO C wants a declaration. */
typedef int redisbook_unused;

#endif
