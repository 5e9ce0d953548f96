/*
 * Errands on a connection to Redis: the log-in, then the steps given,
 * each command once the one before is answered, where to connect asked
 * first; and commands sent after them, each reply awaited.
 */
#ifdef HAVE_HIREDIS

#include <stdio.h>
#include <string.h>

#include "clock.h"
#include "errand.h"
#include "login.h"
#include "rediserr.h"
#include "signals.h"

int
redisconn_words(const char **argv, size_t *lens, const char *const *w, int n)
{
	for (int i = 0; i < n; i++) {
		argv[i] = w[i];
		lens[i] = strlen(w[i]);
	}
	return n;
}

void
redisconn_errand(struct redisconn *conn, const struct redisconn_step *steps,
    size_t n, void *ctx)
{
	struct redisconn_errand *e = &conn->errand;

	e->steps = steps;
	e->nsteps = n;
	e->ctx = ctx;
	e->at = redisconn_connected(conn) ? LOGIN_STEPS : 0;
	e->on = true;
	e->misled = 0;
	e->no_master = false;
}

bool
redisconn_busy(const struct redisconn *conn)
{
	return conn->errand.on;
}

/* Step i of the errand, and its context in *ctx. */
static const struct redisconn_step *
step_at(struct redisconn *conn, size_t i, void **ctx)
{
	*ctx = i < LOGIN_STEPS ? (void *)conn : conn->errand.ctx;
	return i < LOGIN_STEPS ? &login_steps[i] :
				 &conn->errand.steps[i - LOGIN_STEPS];
}

/* The reply to the errand's step under way: OK to go on, or DOWN. */
static enum redisconn_result
judge(struct redisconn *conn, redisReply *rep, char *why, size_t size)
{
	void *ctx;
	const struct redisconn_step *st = step_at(conn, conn->errand.at, &ctx);
	enum redisconn_result rc;

	if (rep->type == REDIS_REPLY_ERROR &&
	    !(st->may_refuse && rediserr_refuses(rep->str)) &&
	    !(conn->auth_later && rediserr_has(rep->str, "NOAUTH")))
		redisconn_check(conn, rep->str);
	rc = st->answer(ctx, rep, why, size);
	freeReplyObject(rep);
	conn->errand.at++;
	return rc;
}

/* Send the errand's next command; false when it has no more. */
static bool
send_step(struct redisconn *conn, char *why, size_t size)
{
	const char *argv[REDISCONN_STEP_WORDS];
	size_t lens[REDISCONN_STEP_WORDS];

	while (conn->errand.at < LOGIN_STEPS + conn->errand.nsteps) {
		void *ctx;
		const struct redisconn_step *st = step_at(
		    conn, conn->errand.at, &ctx);
		int argc = st->words(ctx, argv, lens);

		if (argc > 0)
			return redisconn_queue(conn, argc, argv, lens, why,
				   size) == REDISCONN_OK;
		conn->errand.at++;
	}
	return false;
}

/*
 * Before each new connection, ask the finder where to connect, if there
 * is one (with sentinels, a failover moves the master): OK with the
 * address in conn->host and conn->port, AGAIN while asking, or DOWN
 * (why).
 */
static enum redisconn_result
find_server(struct redisconn *conn, char *why, size_t size)
{
	if (conn->finder == NULL)
		return REDISCONN_OK;
	return conn->finder->find(conn->finder_ctx, conn, why, size);
}

/*
 * The server found is no master (a sentinel that lags a failover, or
 * watches another server under that name): find again, at once, as the
 * finder says.  True when the errand starts again so.
 */
static bool
ask_next(struct redisconn *conn)
{
	struct redisconn_errand *e = &conn->errand;

	if (!e->no_master || conn->finder == NULL ||
	    !conn->finder->misled(conn->finder_ctx, e->misled))
		return false;
	e->no_master = false;
	e->misled++;
	e->at = 0;
	e->on = true;
	return true;
}

/* redisconn_advance, the finder asked once where to connect. */
static enum redisconn_result
advance_once(struct redisconn *conn, char *why, size_t size)
{
	enum redisconn_result rc;
	redisReply *rep = NULL;

	if (conn->errand.on && !redisconn_connected(conn)) {
		if ((rc = find_server(conn, why, size)) != REDISCONN_OK)
			return rc == REDISCONN_AGAIN ? rc :
						       redisconn_drop(conn, rc);
		if (redisconn_connect(conn, why, size) != REDISCONN_OK)
			return redisconn_drop(conn, REDISCONN_DOWN);
	}
	while (conn->errand.on) {
		if (conn->owed == 0 && !send_step(conn, why, size)) {
			if (!redisconn_connected(conn))
				return REDISCONN_DOWN; /* out of memory */
			conn->errand.on = false;
			break;
		}
		if ((rc = redisconn_next(conn, &rep, why, size)) !=
		    REDISCONN_OK)
			return rc;
		if ((rc = judge(conn, rep, why, size)) != REDISCONN_OK)
			return redisconn_drop(conn, rc);
	}
	return REDISCONN_OK;
}

enum redisconn_result
redisconn_advance(struct redisconn *conn, char *why, size_t size)
{
	enum redisconn_result rc;

	while ((rc = advance_once(conn, why, size)) == REDISCONN_DOWN &&
	    ask_next(conn))
		;
	return rc;
}

void
redisconn_watch(const struct redisconn *conn, void (*due)(void))
{
	const struct redisconn *c = redisconn_awaited(conn);

	clock_watch_once(c->t.fd,
	    transport_events(&c->t, c->out_sent < c->out_len), c->deadline_ns,
	    due);
}

enum redisconn_result
redisconn_finish(struct redisconn *conn, char *why, size_t size)
{
	enum redisconn_result rc;

	while ((rc = redisconn_advance(conn, why, size)) == REDISCONN_AGAIN)
		if ((rc = redisconn_wait(conn, why, size)) != REDISCONN_OK)
			return redisconn_drop(conn, rc);
	return rc;
}

enum redisconn_result
redisconn_send(struct redisconn *conn, int argc, const char **argv,
    const size_t *lens, char *why, size_t size)
{
	enum redisconn_result rc;

	/* Asked to stop: send nothing that could book. */
	if (signals_stop_requested()) {
		snprintf(why, size, "stopped");
		return redisconn_drop(conn, REDISCONN_STOP);
	}
	if ((rc = redisconn_finish(conn, why, size)) != REDISCONN_OK)
		return rc;
	if (!redisconn_connected(conn)) {
		snprintf(why, size, "not connected");
		return REDISCONN_DOWN;
	}
	if ((rc = redisconn_queue(conn, argc, argv, lens, why, size)) !=
	    REDISCONN_OK)
		return rc;
	redisconn_flush(conn); /* the server may start on it while we go on */
	return REDISCONN_OK;
}

enum redisconn_result
redisconn_receive(
    struct redisconn *conn, redisReply **rep, char *why, size_t size)
{
	enum redisconn_result rc;

	if (!redisconn_connected(conn) || conn->owed == 0) {
		snprintf(why, size, "not connected");
		return REDISCONN_DOWN;
	}
	while ((rc = redisconn_next(conn, rep, why, size)) == REDISCONN_AGAIN)
		if ((rc = redisconn_wait(conn, why, size)) != REDISCONN_OK)
			return redisconn_drop(conn, rc);
	if (rc == REDISCONN_OK && (*rep)->type == REDIS_REPLY_ERROR)
		redisconn_check(conn, (*rep)->str);
	return rc;
}

enum redisconn_result
redisconn_command(struct redisconn *conn, int argc, const char **argv,
    const size_t *lens, redisReply **rep, char *why, size_t size)
{
	enum redisconn_result rc = redisconn_send(
	    conn, argc, argv, lens, why, size);

	return rc != REDISCONN_OK ? rc :
				    redisconn_receive(conn, rep, why, size);
}

#else

/* Without hiredis there is nothing here; ISO C wants a declaration. */
typedef int errand_unused;

#endif
