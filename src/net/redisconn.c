/* A connection to Redis: every wait to a deadline, and open to signals. */
#ifdef HAVE_HIREDIS

#include <err.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "msg.h"
#include "rediserr.h"
#include "redisconn.h"
#include "reply.h"
#include "signals.h"

#define TIMEOUT_NS (REDISCONN_TIMEOUT_MS * 1000000LL)

/*
 * Hiredis waits itself in blocking mode: it retries a read that a signal
 * interrupted, and each retry waits the socket timeout afresh, so a timer
 * signal (-P) kept a hung server waiting forever, deaf to SIGTERM.  So
 * hiredis only formats commands and reads replies; the socket is a
 * transport that never waits, and every wait is poll(2), through
 * clock_wait_fd, to one absolute deadline, or none at all: an errand
 * goes on in the background of the engine's own waits.
 */

_Noreturn void
redisconn_fatal(const struct redisconn *conn, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	int n = snprintf(msg, sizeof msg, "%s: ", conn->shown);

	va_start(ap, fmt);
	/* NOLINTNEXTLINE(clang-analyzer-valist.Uninitialized) */
	vsnprintf(msg + n, sizeof msg - (size_t)n, fmt, ap);
	va_end(ap);
	redisurl_scrub(conn->url, msg, sizeof msg);
	msg_escape(msg, sizeof msg);
	errx(1, "%s", msg);
}

void
redisconn_init(struct redisconn *conn, const struct redis_url *url)
{
	*conn = (struct redisconn){ .url = url, .port = url->port };
	transport_init(&conn->t);
	redisurl_show(url, conn->shown, sizeof conn->shown);
	snprintf(conn->host, sizeof conn->host, "%s", url->host);
}

void
redisconn_find_by(
    struct redisconn *conn, const struct redisconn_finder *finder, void *ctx)
{
	conn->finder = finder;
	conn->finder_ctx = ctx;
}

/* Close the link, and forget what was sent on it. */
static void
disconnect(struct redisconn *conn)
{
	transport_close(&conn->t);
	if (conn->reader != NULL)
		redisReaderFree(conn->reader);
	conn->reader = NULL;
	conn->out_len = conn->out_sent = 0;
	conn->gone = conn->owed = 0;
}

void
redisconn_close(struct redisconn *conn)
{
	disconnect(conn);
	if (conn->finder != NULL)
		conn->finder->stop(conn->finder_ctx);
	free(conn->out);
	conn->out = NULL;
	conn->out_size = 0;
	conn->errand.on = false;
}

bool
redisconn_connected(const struct redisconn *conn)
{
	return conn->t.fd >= 0;
}

enum redisconn_result
redisconn_drop(struct redisconn *conn, enum redisconn_result rc)
{
	redisconn_close(conn);
	return rc;
}

void
redisconn_check(const struct redisconn *conn, const char *msg)
{
	char text[512];
	const char *hint = rediserr_hint(msg);

	if (hint == NULL)
		return;
	rediserr_text(msg, text, sizeof text);
	redisconn_fatal(conn, "%s%s", text, hint);
}

enum redisconn_result
redisconn_connect(struct redisconn *conn, char *why, size_t size)
{
	const struct redis_url *u = conn->url;

	disconnect(conn);
	conn->tls = (struct tls_config){ .cafile = u->cafile,
		.certfile = u->certfile,
		.keyfile = u->keyfile,
		.insecure = u->insecure };
	switch (transport_connect(&conn->t, conn->host, conn->port, u->path,
	    u->tls ? &conn->tls : NULL, why, size)) {
	case 0:
		break;
	case -2:
		redisconn_fatal(conn, "%s", why);
		break;
	default:
		return REDISCONN_DOWN;
	}
	if ((conn->reader = reply_reader(&conn->bound)) == NULL) {
		snprintf(why, size, "out of memory");
		return redisconn_drop(conn, REDISCONN_DOWN);
	}
	conn->deadline_ns = clock_now_ns() + TIMEOUT_NS;
	return REDISCONN_OK;
}

enum redisconn_result
redisconn_queue(struct redisconn *conn, int argc, const char **argv,
    const size_t *lens, char *why, size_t size)
{
	char *cmd;
	int len = redisFormatCommandArgv(&cmd, argc, argv, lens);

	if (len < 0) {
		snprintf(why, size, "out of memory");
		return redisconn_drop(conn, REDISCONN_DOWN);
	}
	if ((size_t)len > SIZE_MAX / 4 - conn->out_len)
		errx(1, "commands of %zu bytes", conn->out_len);
	if (conn->out == NULL || conn->out_len + (size_t)len > conn->out_size) {
		size_t want = (conn->out_len + (size_t)len) * 2 + 1;
		char *p = realloc(conn->out, want);

		if (p == NULL)
			err(1, "a command of %d bytes", len);
		conn->out = p;
		conn->out_size = want;
	}
	memcpy(conn->out + conn->out_len, cmd, (size_t)len);
	conn->out_len += (size_t)len;
	redisFreeCommand(cmd);
	if (conn->owed++ == 0 && !conn->t.connecting)
		conn->deadline_ns = clock_now_ns() + TIMEOUT_NS;
	return REDISCONN_OK;
}

/* A break of the link, writing, sets gone. */
void
redisconn_flush(struct redisconn *conn)
{
	while (conn->out_sent < conn->out_len) {
		ssize_t n = transport_write(&conn->t,
		    conn->out + conn->out_sent, conn->out_len - conn->out_sent);

		if (n > 0) {
			conn->out_sent += (size_t)n;
		} else if (n == 0 ||
		    (errno != EINTR && errno != EAGAIN &&
			errno != EWOULDBLOCK)) {
			conn->gone = n == 0 ? EPIPE : errno;
			return;
		} else if (errno != EINTR) {
			return;
		}
	}
	conn->out_len = conn->out_sent = 0;
}

/*
 * Read what has come into the reader, even after a write broke (the
 * server may have said why before it closed); the end or a break of the
 * link sets gone.
 */
static void
fill(struct redisconn *conn)
{
	char buf[16384];

	/* Past the bound, redisconn_next refuses the reply: read no more. */
	while (!reply_full(conn->reader)) {
		ssize_t n = transport_read(&conn->t, buf, sizeof buf);

		if (n > 0) {
			if (redisReaderFeed(conn->reader, buf, (size_t)n) !=
			    REDIS_OK) {
				conn->gone = ENOMEM;
				return;
			}
			if ((size_t)n < sizeof buf &&
			    !transport_pending(&conn->t))
				return;
		} else if (n == 0) {
			conn->gone = conn->gone != 0 ? conn->gone : -1;
			return;
		} else if (errno != EINTR) {
			if (errno != EAGAIN && errno != EWOULDBLOCK)
				conn->gone = errno;
			return;
		}
	}
}

/*
 * The link broke, as conn->gone says: an outage, even before the server
 * ever answered (a proxy whose server is down, a server shutting down);
 * only a peer that answers other than Redis does is no Redis server.
 */
static void
broken(struct redisconn *conn, char *why, size_t size)
{
	const char *how = conn->gone == -1 ? "connection closed by the server" :
					     strerror(conn->gone);

	if (transport_fault(&conn->t) != NULL)
		redisconn_fatal(conn, "%s", transport_fault(&conn->t));
	if (!conn->spoken)
		snprintf(why, size, "%s before any answer", how);
	else
		snprintf(why, size, "%s", how);
	/* A TLS port hangs up on plain bytes: say so, at once. */
	if (!conn->spoken && !conn->url->tls && conn->url->path[0] == '\0' &&
	    conn->tls_asks < REDISCONN_TLS_ASKS) {
		conn->tls_asks++;
		if (transport_speaks_tls(
			conn->host, conn->port, clock_now_ns() + TIMEOUT_NS))
			redisconn_fatal(conn,
			    "the server speaks TLS: give %s (and "
			    "--redis-cacert FILE for a private CA)",
			    conn->url->via_sentinel ? "rediss-sentinel://" :
						      "rediss://");
	}
	(void)redisconn_drop(conn, REDISCONN_DOWN);
}

/* Finish connecting, if under way: OK (done or not yet), or DOWN. */
static enum redisconn_result
connecting(struct redisconn *conn, char *why, size_t size)
{
	int rc;

	if (!conn->t.connecting)
		return REDISCONN_OK;
	if ((rc = transport_connected(&conn->t, why, size)) == -2)
		redisconn_fatal(conn, "%s", why);
	if (rc < 0)
		return redisconn_drop(conn, REDISCONN_DOWN);
	if (rc == 1)
		conn->deadline_ns = clock_now_ns() + TIMEOUT_NS;
	return REDISCONN_OK;
}

enum redisconn_result
redisconn_next(struct redisconn *conn, redisReply **rep, char *why, size_t size)
{
	void *reply = NULL;

	if (connecting(conn, why, size) != REDISCONN_OK)
		return REDISCONN_DOWN;
	if (!conn->t.connecting) {
		redisconn_flush(conn);
		fill(conn);
	}
	if (redisReaderGetReply(conn->reader, &reply) != REDIS_OK ||
	    (reply == NULL && reply_oversized(conn->reader, &conn->bound))) {
		const char *bad = conn->bound.why[0] != '\0' ?
		    conn->bound.why :
		    conn->reader->errstr;

		if (!conn->spoken)
			redisconn_fatal(conn, "not a Redis server: %s", bad);
		snprintf(why, size, "%s", bad);
		return redisconn_drop(conn, REDISCONN_DOWN);
	}
	if (reply != NULL) {
		conn->spoken = true;
		if (--conn->owed > 0)
			conn->deadline_ns = clock_now_ns() + TIMEOUT_NS;
		*rep = reply;
		return REDISCONN_OK;
	}
	if (conn->gone != 0) {
		broken(conn, why, size);
		return REDISCONN_DOWN;
	}
	if (clock_now_ns() < conn->deadline_ns)
		return REDISCONN_AGAIN;
	/* A plain port given as rediss:// lets a handshake hang: say so. */
	if (conn->t.connecting && conn->t.tls != NULL && !conn->spoken &&
	    conn->tls_asks < REDISCONN_TLS_ASKS) {
		conn->tls_asks++;
		if (transport_speaks_redis(
			conn->host, conn->port, clock_now_ns() + TIMEOUT_NS))
			redisconn_fatal(conn,
			    "the server speaks no TLS there: give %s",
			    conn->url->via_sentinel ? "redis-sentinel://" :
						      "redis://");
	}
	if (conn->t.connecting)
		snprintf(why, size, "cannot connect within %d ms",
		    REDISCONN_TIMEOUT_MS);
	else
		snprintf(
		    why, size, "no answer within %d ms", REDISCONN_TIMEOUT_MS);
	return redisconn_drop(conn, REDISCONN_DOWN);
}

const struct redisconn *
redisconn_awaited(const struct redisconn *conn)
{
	const struct redisconn *c = conn->finder != NULL ?
	    conn->finder->awaited(conn->finder_ctx) :
	    NULL;

	return c != NULL ? c : conn;
}

enum redisconn_result
redisconn_wait(struct redisconn *conn, char *why, size_t size)
{
	for (;;) {
		const struct redisconn *c = redisconn_awaited(conn);

		if (signals_stop_requested()) {
			snprintf(why, size, "stopped");
			return REDISCONN_STOP;
		}
		if (clock_wait_fd(c->t.fd,
			transport_events(&c->t, c->out_sent < c->out_len),
			c->deadline_ns) != EINTR)
			return REDISCONN_OK;
		signals_dispatch();
	}
}

#else

/* Without hiredis there is nothing here; ISO C wants a declaration. */
typedef int redisconn_unused;

#endif
