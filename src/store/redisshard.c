/* A bucket's keys over a Redis Cluster: shards, and calls routed to nodes. */
#ifdef HAVE_HIREDIS

#include <err.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "errand.h"
#include "redisstore.h"
#include "signals.h"
#include "siphash.h"

/* A command sent on, MOVED or ASK, this many times at most. */
#define REDIRECTS_MAX 5
/*
 * A call refused with TRYAGAIN (its keys split by a slot's migration) is
 * sent again after this, the wait doubling, within the time a node has
 * to answer; only then is it an outage.
 */
#define TRYAGAIN_FIRST_NS (10 * MS)

/*
 * On a cluster, the keys of shard s from now on (lone servers keep the
 * names they were opened with).
 */
void
shard_set(struct redis *r, unsigned s)
{
	if (r->shards.cl == NULL)
		return;
	r->shards.at_shard = s;
	r->keys.key_base = r->keys.key_len = (size_t)snprintf(r->keys.key,
	    r->keys.key_size, "tbthrottle:{%s:%u}", r->keys.name, s);
	snprintf(r->keys.settings, sizeof r->keys.settings,
	    "tbthrottle-settings:{%s:%u}", r->keys.name, s);
	snprintf(r->keys.last, sizeof r->keys.last, "%s:last:%s",
	    r->keys.settings, r->keys.session);
	snprintf(r->keys.total_key, sizeof r->keys.total_key, "%s:total",
	    r->keys.settings);
}

/*
 * The shard of booking b's bucket on a cluster: its key's, by hash; with
 * a total, booked in every call, 0 for all (a call keeps to one slot).
 */
unsigned
shard_of(const struct redis *r, const struct booking *b)
{
	static const unsigned char zero[16];
	struct siphash_key k = siphash_key_of(zero);

	return b->key == NULL || !r->share.total.none ?
	    0 :
	    (unsigned)(siphash24(&k, b->key, b->key_len) % SHARDS);
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
enum redisconn_result
shard_refresh(struct redis *r, char *why, size_t size)
{
	r->cur = &r->conn;
	return cluster_refresh(r->shards.cl, why, size);
}

/* Sleep until until_ns, handling signals; false on a stop. */
bool
redis_sleep_until(int64_t until_ns)
{
	while (!signals_stop_requested()) {
		if (clock_sleep_until(until_ns) != EINTR)
			return true;
		signals_dispatch();
	}
	return false;
}

/*
 * Send the call in r->call.argv[0..argc) to the node of its slot (its keys'
 * hash tag), reading the map first when it may be out of date, and on
 * where MOVED or ASK send it.  A node lost on the way may have failed
 * over: the map is read again before the next call.
 */
static enum redisconn_result
route(struct redis *r, int argc, redisReply **rep, char *why, size_t size)
{
	unsigned slot = hashslot_of(r->keys.settings, strlen(r->keys.settings));
	struct cluster_node *n = NULL;
	enum redisconn_result rc;
	bool ask = false;

	for (int hops = 0; hops <= REDIRECTS_MAX; hops++) {
		if (n == NULL && r->shards.cl->stale &&
		    (rc = shard_refresh(r, why, size)) != REDISCONN_OK)
			return rc;
		if (n == NULL &&
		    (n = cluster_owner(r->shards.cl, slot)) == NULL) {
			snprintf(why, size,
			    "no node of the cluster serves slot %u", slot);
			r->shards.cl->stale = true;
			return REDISCONN_DOWN;
		}
		r->cur = &n->conn;
		if ((rc = cluster_connect(n, why, size)) != REDISCONN_OK ||
		    (!n->loaded &&
			(rc = script_load(r, &n->conn, &n->loaded, why,
			     size)) != REDISCONN_OK) ||
		    (ask && (rc = asking(n, why, size)) != REDISCONN_OK) ||
		    (rc = script_call(r, &n->conn, &n->loaded, argc, rep, why,
			 size)) != REDISCONN_OK) {
			r->shards.cl->stale = true;
			return rc;
		}
		if ((*rep)->type != REDIS_REPLY_ERROR ||
		    (n = cluster_redirect(r->shards.cl, (*rep)->str, &ask)) ==
			NULL)
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
		if (!redis_sleep_until(clock_now_ns() + wait_ns)) {
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
enum redisconn_result
redis_eval(struct redis *r, const char *op, const struct booking *b, size_t m,
    int64_t ahead_ns, redisReply **rep, char *why, size_t size)
{
	int argc = bucket_words(r, op, b, m, ahead_ns);

	if (r->shards.cl != NULL)
		return call_routed(r, argc, rep, why, size);
	return script_call(r, &r->conn, &r->call.loaded, argc, rep, why, size);
}

/*
 * Is the session's connection at the node of shard 0, which keeps the
 * settings?  Else the next session is to go there (rehome).
 */
bool
shard_home(struct redis *r)
{
	unsigned slot = hashslot_of(r->keys.settings, strlen(r->keys.settings));
	const struct cluster_node *n = cluster_owner(r->shards.cl, slot);

	r->shards.rehome = n == NULL ||
	    n->url.port != r->shards.home_url.port ||
	    strcmp(n->url.host, r->shards.home_url.host) != 0;
	return !r->shards.rehome;
}

/* CLUSTER SLOTS, until the server says whether it is a cluster. */
int
shard_map_words(void *ctx, const char **argv, size_t *lens)
{
	static const char *const w[] = { "CLUSTER", "SLOTS" };
	const struct redis *r = ctx;

	return r->shards.mode_known ? 0 : redisconn_words(argv, lens, w, 2);
}

/*
 * A cluster (the map of its slots) or a lone server (an error reply):
 * a cluster's buckets are spread over its masters by hash tags.
 */
enum redisconn_result
shard_map_answer(void *ctx, const redisReply *rep, char *why, size_t size)
{
	struct redis *r = ctx;
	struct cluster_node here = { .url = r->shards.home_url };

	if (rep->type != REDIS_REPLY_ARRAY) {
		r->shards.mode_known = true;
		return REDISCONN_OK;
	}
	if ((r->shards.cl = calloc(1, sizeof *r->shards.cl)) == NULL ||
	    cluster_init(r->shards.cl, &r->url) != 0)
		errx(1, "out of memory");
	if (cluster_learn(r->shards.cl, &here, rep, why, size) != 0)
		redisconn_fatal(&r->conn, "%s", why);
	r->shards.mode_known = true;
	shard_set(r, 0);
	return REDISCONN_OK;
}

/* On a cluster, have the session's connection go to shard 0's node. */
void
shard_rehome(struct redis *r)
{
	const struct cluster_node *n;

	shard_set(r, 0);
	n = cluster_owner(r->shards.cl,
	    hashslot_of(r->keys.settings, strlen(r->keys.settings)));
	if (n == NULL)
		return; /* none serves it now: the map is read again */
	redisconn_close(&r->conn);
	r->shards.home_url = n->url;
	redisconn_init(&r->conn, &r->shards.home_url);
	if (r->shards.home_url.nsentinels > 0)
		sentinel_finder(&r->finder, &r->conn);
	r->call.loaded = false;
	r->shards.rehome = false;
}

/*
 * On a cluster, shaping while records wait: the bookings of b[0..n) up
 * to the first one asked of another shard than the first's, which the
 * keys are named for (a call keeps to one slot, and books in order); how
 * many.
 */
size_t
shard_one(struct redis *r, const struct booking *b, size_t n)
{
	size_t i;
	int s = -1;

	for (i = 0; i < n; i++) {
		int k;

		if (!bucket_asks(r, &b[i]))
			continue;
		k = (int)shard_of(r, &b[i]);
		if (s >= 0 && k != s)
			break;
		s = k;
	}
	shard_set(r, s < 0 ? 0 : (unsigned)s);
	return i;
}

/* The bookings of b[0..n) not yet answered in shard s, into r->call.asked. */
size_t
shard_gather(struct redis *r, size_t n, unsigned s)
{
	size_t m = 0;

	for (size_t j = 0; j < n; j++)
		if (!r->shards.done[j] && r->shards.shard[j] == s)
			r->call.asked[m++] = j;
	shard_set(r, s);
	return m;
}

#else

/* Without hiredis there is nothing here; ISO C wants a declaration. */
typedef int redisshard_unused;

#endif
