/* A batch on a Redis Cluster: a call for each shard, all sent at once. */
#ifdef HAVE_HIREDIS

#include <stdio.h>
#include <string.h>

#include "clock.h"
#include "errand.h"
#include "redisstore.h"

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

		r->shards.shard[i] = (unsigned char)shard_of(r, &b[i]);
		r->shards.done[i] = !bucket_asks(r, &b[i]);
		r->shards.late[i] = false;
		if (r->shards.done[i])
			bucket_answer_here(r, &b[i], now_ns);
		for (size_t g = 0; g < f->k; g++)
			seen = seen || f->shard[g] == r->shards.shard[i];
		if (!r->shards.done[i] && !seen)
			f->shard[f->k++] = r->shards.shard[i];
	}
}

/*
 * Take rep, the answer of f's shard g for the m bookings of b in
 * r->call.asked, at now_ns: OK, or DOWN when it makes no sense.
 */
static enum redisconn_result
answered(struct redis *r, struct fanout *f, size_t g, struct booking *b,
    size_t m, const redisReply *rep, char *why, size_t size)
{
	int64_t now_ns = clock_now_ns();
	size_t least = f->take || g == 0 ? 1 : 0;

	if (!bucket_answer_fits(
		b, r->call.asked, m, f->take, least, rep, why, size))
		return REDISCONN_DOWN;
	f->kept[g] = (size_t)rep->element[0]->integer;
	for (size_t j = 0; j < f->kept[g]; j++) {
		struct booking *bj = &b[r->call.asked[j]];
		long long x = rep->element[j + 1]->integer;

		bj->taken = f->take ? (uint64_t)x : bj->units;
		bj->due_ns = f->take ? now_ns : now_ns + x * 1000;
		r->shards.late[r->call.asked[j]] = !f->take && x > 0;
		r->shards.done[r->call.asked[j]] = true;
	}
	return REDISCONN_OK;
}

/*
 * Send the call of op for the m bookings of b in r->call.asked (the keys named
 * for their shard) to the node of their slot, without awaiting the reply:
 * the node in *node.  OK, DOWN or STOP.
 */
static enum redisconn_result
send_call(struct redis *r, const char *op, const struct booking *b, size_t m,
    int64_t ahead_ns, struct cluster_node **node, char *why, size_t size)
{
	unsigned slot = hashslot_of(r->keys.settings, strlen(r->keys.settings));
	enum redisconn_result rc;
	int argc;

	if ((*node = cluster_owner(r->shards.cl, slot)) == NULL) {
		snprintf(
		    why, size, "no node of the cluster serves slot %u", slot);
		return REDISCONN_DOWN;
	}
	r->cur = &(*node)->conn;
	if ((rc = cluster_connect(*node, why, size)) != REDISCONN_OK ||
	    (!(*node)->loaded &&
		(rc = script_load(r, &(*node)->conn, &(*node)->loaded, why,
		     size)) != REDISCONN_OK))
		return rc;
	argc = bucket_words(r, op, b, m, ahead_ns);
	return redisconn_send(
	    &(*node)->conn, argc, r->call.argv, r->call.lens, why, size);
}

/* Send the calls of f; a node that cannot be reached ends the batch. */
static enum redisconn_result
send_shards(struct redis *r, struct fanout *f, const struct booking *b,
    size_t n, int64_t ahead_ns, char *why, size_t size)
{
	for (size_t g = 0; g < f->k; g++) {
		size_t m = shard_gather(r, n, f->shard[g]);
		enum redisconn_result rc = send_call(
		    r, op_of(f, g), b, m, ahead_ns, &f->node[g], why, size);

		if (rc != REDISCONN_OK) {
			/* It holds up no more of the batch: asked again,
			 * whole, as after any lost answer. */
			for (size_t h = 0; h < g; h++)
				redisconn_close(&f->node[h]->conn);
			r->shards.cl->stale = true;
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
			r->shards.cl->stale =
			    true; /* it may have failed over */
			if (bad == REDISCONN_OK) {
				r->cur = &f->node[g]->conn;
				snprintf(why, size, "%s", here);
			}
			if (bad != REDISCONN_STOP)
				bad = rc == REDISCONN_STOP ? REDISCONN_STOP :
							     REDISCONN_DOWN;
			continue;
		}
		m = shard_gather(r, n, f->shard[g]);
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
		m = shard_gather(r, n, f->shard[g]);
		if ((rc = redis_eval(r, op_of(f, g), b, m, ahead_ns, &rep, why,
			 size)) != REDISCONN_OK)
			return rc;
		if (answered(r, f, g, b, m, rep, why, size) != REDISCONN_OK)
			return redis_unexpected(r, rep, why, size);
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
	bool waited = r->call.again;
	int64_t last_ns = clock_now_ns();
	size_t i;

	for (i = 0; i < n; i++) {
		if (!bucket_asks(r, &b[i])) {
			bucket_answer_here(r, &b[i], last_ns);
			continue;
		}
		if (!r->shards.done[i] ||
		    (waited && r->shards.shard[i] != f->shard[0]))
			break;
		last_ns = b[i].due_ns;
		waited = waited || r->shards.late[i];
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
			if (bucket_asks(r, &b[j]) &&
			    r->shards.shard[j] == f->shard[g])
				r->call.asked[m++] = j;
		shard_set(r, f->shard[g]);

		while (q < m && r->call.asked[q] < p)
			q++;
		if (f->kept[g] <= q)
			continue;
		extra = f->kept[g] - q;
		memmove(r->call.asked, r->call.asked + q,
		    extra * sizeof *r->call.asked);
		/* The look-ahead's place carries q. */
		if ((rc = redis_eval(r, "undo", b, extra, (int64_t)q * 1000,
			 &rep, why, size)) != REDISCONN_OK)
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
enum redisconn_result
fanout_book(struct redis *r, struct booking *b, size_t n, bool take,
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
		if (r->shards.late[i])
			r->shards.calm = 0;
	return take ? REDISCONN_OK : undo_beyond(r, &f, b, n, *got, why, size);
}

#else

/* Without hiredis there is nothing here; ISO C wants a declaration. */
typedef int fanout_unused;

#endif
