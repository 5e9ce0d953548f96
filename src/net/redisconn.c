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
#include "redisconn.h"
#include "reply.h"
#include "sentinel.h"
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

/* Error replies that no waiting cures, and what to check for each. */
static const struct {
	const char *code, *hint;
} mistakes[] = {
	{ "NOAUTH", " (give the password in the URL or in REDISCLI_AUTH)" },
	{ "WRONGPASS", " (check the user and password)" },
	{ "NOPERM",
	    " (the user needs EVALSHA, SCRIPT LOAD and the keys "
	    "tbthrottle:* and tbthrottle-settings:*)" },
	{ "WRONGTYPE", " (another program uses the keys of tbthrottle)" },
	{ "DENIED", "" },
	/* Only a cluster says it, and a cluster is asked by CLUSTER SLOTS:
	 * here, a user the ACL kept from it. */
	{ "CROSSSLOT",
	    " (a Redis Cluster, and the user may not run CLUSTER SLOTS: "
	    "allow it)" },
};

/* Error replies of a server that is loading, busy or failing over. */
static const char *const passing[] = { "LOADING", "BUSY", "MASTERDOWN",
	"TRYAGAIN", "CLUSTERDOWN", "NOREPLICAS", "MISCONF", "OOM", "READONLY" };

/*
 * Does the error reply msg carry code: first, or after ": ", where
 * servers before Redis 7 put the error of a command in a script?
 */
static bool
has_code(const char *msg, const char *code)
{
	size_t n = strlen(code);
	const char *p = msg;

	for (;;) {
		if (strncmp(p, code, n) == 0 && (p[n] == ' ' || p[n] == '\0'))
			return true;
		if ((p = strstr(p, ": ")) == NULL)
			return false;
		p += 2;
	}
}

bool
redisconn_transient(const char *msg)
{
	for (size_t i = 0; i < sizeof passing / sizeof passing[0]; i++)
		if (has_code(msg, passing[i]))
			return true;
	/* Sent just before the server closes a connection too many. */
	return strstr(msg, "max number of clients") != NULL;
}

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
	sentinel_free(conn->asking);
	conn->asking = NULL;
	free(conn->out);
	conn->out = NULL;
	conn->out_size = 0;
	conn->errand = false;
}

bool
redisconn_connected(const struct redisconn *conn)
{
	return conn->t.fd >= 0;
}

bool
redisconn_busy(const struct redisconn *conn)
{
	return conn->errand;
}

/* Drop the connection; rc. */
static enum redisconn_result
drop(struct redisconn *conn, enum redisconn_result rc)
{
	redisconn_close(conn);
	return rc;
}

/* Is the error reply msg of a command the server does not know? */
static bool
unknown(const char *msg)
{
	return strncmp(msg, "ERR unknown command", 19) == 0 ||
	    strncmp(msg, "ERR unknown subcommand", 22) == 0;
}

/* Does the error reply msg refuse the command alone, not the client? */
static bool
refused(const char *msg)
{
	return has_code(msg, "NOPERM") || unknown(msg);
}

/* End the run on an error reply that no waiting cures. */
static void
check_error(const struct redisconn *conn, const char *msg)
{
	char text[512], *p;

	/* Redis 7 tells where in the script: of no use to the reader. */
	snprintf(text, sizeof text, "%s", msg);
	if ((p = strstr(text, " script: ")) != NULL)
		*p = '\0';
	for (size_t i = 0; i < sizeof mistakes / sizeof mistakes[0]; i++)
		if (has_code(msg, mistakes[i].code))
			redisconn_fatal(conn, "%s%s", text, mistakes[i].hint);
	if (unknown(msg))
		redisconn_fatal(conn,
		    "%s (a Redis with Lua scripting, 2.6 or "
		    "later, is needed)",
		    text);
}

/* Start connecting, for replies within the timeout: OK, or DOWN (why). */
static enum redisconn_result
connect_now(struct redisconn *conn, char *why, size_t size)
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
		return drop(conn, REDISCONN_DOWN);
	}
	conn->deadline_ns = clock_now_ns() + TIMEOUT_NS;
	return REDISCONN_OK;
}

/* Queue a command, its reply awaited within the timeout of its turn. */
static enum redisconn_result
queue(struct redisconn *conn, int argc, const char **argv, const size_t *lens,
    char *why, size_t size)
{
	char *cmd;
	int len = redisFormatCommandArgv(&cmd, argc, argv, lens);

	if (len < 0) {
		snprintf(why, size, "out of memory");
		return drop(conn, REDISCONN_DOWN);
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

/* Write what is queued, as far as the socket takes it; a break sets gone. */
static void
flush(struct redisconn *conn)
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

	/* Past the bound, next_reply refuses the reply: read no more. */
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
	/* A TLS port hangs up on plain bytes: say so, once, at once. */
	if (!conn->spoken && !conn->url->tls && conn->url->path[0] == '\0' &&
	    !conn->asked_tls) {
		conn->asked_tls = true;
		if (transport_speaks_tls(
			conn->host, conn->port, clock_now_ns() + TIMEOUT_NS))
			redisconn_fatal(conn,
			    "the server speaks TLS: give %s (and "
			    "--redis-cacert FILE for a private CA)",
			    conn->url->via_sentinel ? "rediss-sentinel://" :
						      "rediss://");
	}
	(void)drop(conn, REDISCONN_DOWN);
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
		return drop(conn, REDISCONN_DOWN);
	if (rc == 1)
		conn->deadline_ns = clock_now_ns() + TIMEOUT_NS;
	return REDISCONN_OK;
}

/*
 * The next reply awaited, without waiting: OK with it in *rep, AGAIN
 * before the deadline, or DOWN (the connection dropped, why).  A peer
 * whose first answer is not Redis's protocol ends the process.
 */
static enum redisconn_result
next_reply(struct redisconn *conn, redisReply **rep, char *why, size_t size)
{
	void *reply = NULL;

	if (connecting(conn, why, size) != REDISCONN_OK)
		return REDISCONN_DOWN;
	if (!conn->t.connecting) {
		flush(conn);
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
		return drop(conn, REDISCONN_DOWN);
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
	    !conn->asked_tls) {
		conn->asked_tls = true;
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
	return drop(conn, REDISCONN_DOWN);
}

/* The connection awaited: to the sentinel asked, or conn itself. */
static const struct redisconn *
awaited(const struct redisconn *conn)
{
	return conn->asking != NULL ? sentinel_conn(conn->asking) : conn;
}

/*
 * Wait until the connection can go on, or its deadline: OK, or STOP.
 * Reports and ticks run as they come.
 */
static enum redisconn_result
wait_io(struct redisconn *conn, char *why, size_t size)
{
	for (;;) {
		const struct redisconn *c = awaited(conn);

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

/*
 * A reply to the log-in: an error ends the run (what failed), unless
 * waiting cures it.
 */
static enum redisconn_result
login_reply(const struct redisconn *conn, const char *what,
    const redisReply *rep, char *why, size_t size)
{
	if (rep->type != REDIS_REPLY_ERROR)
		return REDISCONN_OK;
	if (!redisconn_transient(rep->str))
		redisconn_fatal(conn, "%s: %s", what, rep->str);
	snprintf(why, size, "%s", rep->str);
	return REDISCONN_DOWN;
}

/* AUTH [user] password, when the URL or REDISCLI_AUTH gives one. */
static int
auth_words(void *ctx, const char **argv, size_t *lens)
{
	const struct redis_url *u = ((const struct redisconn *)ctx)->url;
	int n = 0;

	if (u->password[0] == '\0')
		return 0;
	argv[n] = "AUTH";
	lens[n++] = 4;
	/* Without a user name, AUTH has the password alone. */
	if (u->user[0] != '\0') {
		argv[n] = u->user;
		lens[n++] = strlen(u->user);
	}
	argv[n] = u->password;
	lens[n++] = strlen(u->password);
	return n;
}

static enum redisconn_result
auth_answer(void *ctx, const redisReply *rep, char *why, size_t size)
{
	return login_reply(ctx, "login refused", rep, why, size);
}

/* SELECT db, unless it is 0. */
static int
select_words(void *ctx, const char **argv, size_t *lens)
{
	struct redisconn *conn = ctx;

	if (conn->url->db == 0)
		return 0;
	argv[0] = "SELECT";
	lens[0] = 6;
	argv[1] = conn->db;
	lens[1] = (size_t)snprintf(
	    conn->db, sizeof conn->db, "%d", conn->url->db);
	return 2;
}

static enum redisconn_result
select_answer(void *ctx, const redisReply *rep, char *why, size_t size)
{
	const struct redisconn *conn = ctx;
	char what[48];

	snprintf(what, sizeof what, "cannot select database %d", conn->url->db);
	return login_reply(conn, what, rep, why, size);
}

/* ROLE, with sentinels: the server they named may be no master (yet). */
static int
role_words(void *ctx, const char **argv, size_t *lens)
{
	if (((const struct redisconn *)ctx)->url->nsentinels == 0)
		return 0;
	argv[0] = "ROLE";
	lens[0] = 4;
	return 1;
}

/* A master goes on; a ROLE refused (an ACL) cannot tell, and goes on. */
static enum redisconn_result
role_answer(void *ctx, const redisReply *rep, char *why, size_t size)
{
	struct redisconn *conn = ctx;
	const redisReply *e = rep->elements > 0 ? rep->element[0] : NULL;

	if (rep->type == REDIS_REPLY_ERROR)
		return refused(rep->str) ?
		    REDISCONN_OK :
		    login_reply(conn, "ROLE", rep, why, size);
	if (rep->type == REDIS_REPLY_ARRAY && e != NULL &&
	    e->type == REDIS_REPLY_STRING && strcmp(e->str, "master") == 0)
		return REDISCONN_OK;
	conn->no_master = true;
	snprintf(why, size,
	    "ROLE says %s, not master: the sentinels named no master "
	    "(a failover under way?)",
	    rep->type == REDIS_REPLY_ARRAY && e != NULL &&
		    e->type == REDIS_REPLY_STRING ?
		e->str :
		"nothing");
	return REDISCONN_DOWN;
}

/* The log-in: the first steps of an errand on a new connection. */
static const struct redisconn_step login[] = {
	{ .words = auth_words, .answer = auth_answer, .may_refuse = false },
	{ .words = select_words, .answer = select_answer, .may_refuse = false },
	{ .words = role_words, .answer = role_answer, .may_refuse = true },
};
#define LOGIN_STEPS (sizeof login / sizeof login[0])

void
redisconn_errand(struct redisconn *conn, const struct redisconn_step *steps,
    size_t n, void *ctx)
{
	conn->steps = steps;
	conn->nsteps = n;
	conn->ctx = ctx;
	conn->at = redisconn_connected(conn) ? LOGIN_STEPS : 0;
	conn->errand = true;
	conn->misled = 0;
	conn->no_master = false;
}

/* Step i of the errand, and its context in *ctx. */
static const struct redisconn_step *
step_at(struct redisconn *conn, size_t i, void **ctx)
{
	*ctx = i < LOGIN_STEPS ? (void *)conn : conn->ctx;
	return i < LOGIN_STEPS ? &login[i] : &conn->steps[i - LOGIN_STEPS];
}

/* The reply to the errand's step under way: OK to go on, or DOWN. */
static enum redisconn_result
judge(struct redisconn *conn, redisReply *rep, char *why, size_t size)
{
	void *ctx;
	const struct redisconn_step *st = step_at(conn, conn->at, &ctx);
	enum redisconn_result rc;

	if (rep->type == REDIS_REPLY_ERROR &&
	    !(st->may_refuse && refused(rep->str)) &&
	    !(conn->auth_later && has_code(rep->str, "NOAUTH")))
		check_error(conn, rep->str);
	rc = st->answer(ctx, rep, why, size);
	freeReplyObject(rep);
	conn->at++;
	return rc;
}

/* Send the errand's next command; false when it has no more. */
static bool
send_step(struct redisconn *conn, char *why, size_t size)
{
	const char *argv[REDISCONN_STEP_WORDS];
	size_t lens[REDISCONN_STEP_WORDS];

	while (conn->at < LOGIN_STEPS + conn->nsteps) {
		void *ctx;
		const struct redisconn_step *st = step_at(conn, conn->at, &ctx);
		int argc = st->words(ctx, argv, lens);

		if (argc > 0)
			return queue(conn, argc, argv, lens, why, size) ==
			    REDISCONN_OK;
		conn->at++;
	}
	return false;
}

/*
 * With sentinels, before each new connection, ask them where the master
 * is now (a failover moves it): OK with its address in conn->host and
 * conn->port, AGAIN while asking, or DOWN (why).
 */
static enum redisconn_result
find_master(struct redisconn *conn, char *why, size_t size)
{
	enum redisconn_result rc;

	if (conn->url->nsentinels == 0)
		return REDISCONN_OK;
	if (conn->asking == NULL) {
		redisurl_show(conn->url, conn->shown, sizeof conn->shown);
		conn->asking = sentinel_ask(
		    conn->url, conn->shown, conn->sentinel);
	}
	rc = sentinel_advance(conn->asking, conn->host[0] != '\0', conn->host,
	    sizeof conn->host, &conn->port, why, size);
	if (rc == REDISCONN_AGAIN)
		return rc;
	if (rc == REDISCONN_OK)
		conn->sentinel = sentinel_answered(conn->asking);
	sentinel_free(conn->asking);
	conn->asking = NULL;
	/* Messages name the master too, as it moves. */
	if (rc == REDISCONN_OK) {
		char at[300];

		redisurl_hostport(conn->host, conn->port, at, sizeof at);
		snprintf(conn->shown + strlen(conn->shown),
		    sizeof conn->shown - strlen(conn->shown), " (master %s)",
		    at);
	}
	return rc;
}

/*
 * The server the sentinels named is no master (a sentinel that lags a
 * failover, or watches another server under that name): ask the next
 * sentinel first, at once, unless each has named one so in this errand.
 * True when the errand starts again so.
 */
static bool
ask_next(struct redisconn *conn)
{
	size_t n = conn->url->nsentinels;

	if (!conn->no_master || conn->misled + 1 >= n)
		return false;
	conn->no_master = false;
	conn->misled++;
	conn->sentinel = (conn->sentinel + 1) % n;
	conn->at = 0;
	conn->errand = true;
	return true;
}

/* redisconn_advance, the sentinels asked once for the master. */
static enum redisconn_result
advance_once(struct redisconn *conn, char *why, size_t size)
{
	enum redisconn_result rc;
	redisReply *rep = NULL;

	if (conn->errand && !redisconn_connected(conn)) {
		if ((rc = find_master(conn, why, size)) != REDISCONN_OK)
			return rc == REDISCONN_AGAIN ? rc : drop(conn, rc);
		if (connect_now(conn, why, size) != REDISCONN_OK)
			return drop(conn, REDISCONN_DOWN);
	}
	while (conn->errand) {
		if (conn->owed == 0 && !send_step(conn, why, size)) {
			if (!redisconn_connected(conn))
				return REDISCONN_DOWN; /* out of memory */
			conn->errand = false;
			break;
		}
		if ((rc = next_reply(conn, &rep, why, size)) != REDISCONN_OK)
			return rc;
		if ((rc = judge(conn, rep, why, size)) != REDISCONN_OK)
			return drop(conn, rc);
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
	const struct redisconn *c = awaited(conn);

	clock_watch_once(c->t.fd,
	    transport_events(&c->t, c->out_sent < c->out_len), c->deadline_ns,
	    due);
}

enum redisconn_result
redisconn_finish(struct redisconn *conn, char *why, size_t size)
{
	enum redisconn_result rc;

	while ((rc = redisconn_advance(conn, why, size)) == REDISCONN_AGAIN)
		if ((rc = wait_io(conn, why, size)) != REDISCONN_OK)
			return drop(conn, rc);
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
		return drop(conn, REDISCONN_STOP);
	}
	if ((rc = redisconn_finish(conn, why, size)) != REDISCONN_OK)
		return rc;
	if (!redisconn_connected(conn)) {
		snprintf(why, size, "not connected");
		return REDISCONN_DOWN;
	}
	if ((rc = queue(conn, argc, argv, lens, why, size)) != REDISCONN_OK)
		return rc;
	flush(conn); /* the server may start on it while we go on */
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
	while ((rc = next_reply(conn, rep, why, size)) == REDISCONN_AGAIN)
		if ((rc = wait_io(conn, why, size)) != REDISCONN_OK)
			return drop(conn, rc);
	if (rc == REDISCONN_OK && (*rep)->type == REDIS_REPLY_ERROR)
		check_error(conn, (*rep)->str);
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
typedef int redisconn_unused;

#endif
