/* A connection to Redis: every wait to a deadline, and open to signals. */
#ifdef HAVE_HIREDIS

#include <err.h>
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "clock.h"
#include "msg.h"
#include "redisconn.h"
#include "signals.h"

#define TIMEOUT_NS (REDISCONN_TIMEOUT_MS * 1000000LL)

/*
 * Hiredis waits itself in blocking mode: it retries a read that a signal
 * interrupted, and each retry waits the socket timeout afresh, so a timer
 * signal (-P) kept a hung server waiting forever, deaf to SIGTERM.  So the
 * socket is non-blocking, hiredis only encodes and decodes, and every wait
 * here is poll(2), through clock_wait_fd, to one absolute deadline.
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

void
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
	*conn = (struct redisconn){ .url = url };
	redisurl_show(url, conn->shown, sizeof conn->shown);
}

void
redisconn_close(struct redisconn *conn)
{
	if (conn->c != NULL)
		redisFree(conn->c);
	conn->c = NULL;
}

/* Drop the connection; rc. */
static enum redisconn_result
drop(struct redisconn *conn, enum redisconn_result rc)
{
	redisconn_close(conn);
	return rc;
}

/*
 * Wait until the socket is ready for events, up to deadline_ns: OK, DOWN
 * at the deadline, or STOP.  Reports and ticks run as they come.
 */
static enum redisconn_result
wait_io(struct redisconn *conn, short events, int64_t deadline_ns, char *why,
    size_t size)
{
	for (;;) {
		int rc;

		if (signals_stop_requested()) {
			snprintf(why, size, "stopped");
			return REDISCONN_STOP;
		}
		rc = clock_wait_fd(conn->c->fd, events, deadline_ns);
		if (rc == 1)
			return REDISCONN_OK;
		if (rc == 0) {
			snprintf(why, size, "no answer within %d ms",
			    REDISCONN_TIMEOUT_MS);
			return REDISCONN_DOWN;
		}
		signals_poll_report();
	}
}

/*
 * The link failed, hiredis's reason in conn->c: an outage, unless the
 * server has never answered as Redis does, when it is no Redis server.
 */
static enum redisconn_result
lost(struct redisconn *conn, char *why, size_t size)
{
	redisContext *c = conn->c;

	if (!conn->spoken && c->err == REDIS_ERR_PROTOCOL)
		redisconn_fatal(conn, "not a Redis server: %s", c->errstr);
	if (!conn->spoken &&
	    (c->err == REDIS_ERR_EOF || c->err == REDIS_ERR_IO))
		redisconn_fatal(conn,
		    "not a Redis server: it closed the "
		    "connection without answering (%s)",
		    c->errstr);
	snprintf(why, size, "%s",
	    c->errstr[0] != '\0' ? c->errstr : "connection lost");
	return drop(conn, REDISCONN_DOWN);
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
	if (strncmp(msg, "ERR unknown command", 19) == 0 ||
	    strncmp(msg, "ERR unknown subcommand", 22) == 0)
		redisconn_fatal(conn,
		    "%s (a Redis with Lua scripting, 2.6 or "
		    "later, is needed)",
		    text);
}

enum redisconn_result
redisconn_command(struct redisconn *conn, int argc, const char **argv,
    const size_t *lens, redisReply **rep, char *why, size_t size)
{
	int64_t deadline_ns = clock_now_ns() + TIMEOUT_NS;
	redisContext *c = conn->c;
	enum redisconn_result rc;
	void *reply = NULL;
	int done = 0;

	/* Asked to stop: send nothing that could book. */
	if (signals_stop_requested()) {
		snprintf(why, size, "stopped");
		return drop(conn, REDISCONN_STOP);
	}
	if (redisAppendCommandArgv(c, argc, argv, lens) != REDIS_OK)
		return lost(conn, why, size);
	while (!done) {
		if (redisBufferWrite(c, &done) != REDIS_OK)
			return lost(conn, why, size);
		if (!done &&
		    (rc = wait_io(conn, POLLOUT, deadline_ns, why, size)) !=
			REDISCONN_OK)
			return drop(conn, rc);
	}
	for (;;) {
		if (redisGetReplyFromReader(c, &reply) != REDIS_OK)
			return lost(conn, why, size);
		if (reply != NULL)
			break;
		if ((rc = wait_io(conn, POLLIN, deadline_ns, why, size)) !=
		    REDISCONN_OK)
			return drop(conn, rc);
		if (redisBufferRead(c) != REDIS_OK)
			return lost(conn, why, size);
	}
	conn->spoken = true;
	*rep = reply;
	if ((*rep)->type == REDIS_REPLY_ERROR)
		check_error(conn, (*rep)->str);
	return REDISCONN_OK;
}

/* Connect, within the timeout: hiredis starts it, poll(2) waits. */
static enum redisconn_result
connect_tcp(struct redisconn *conn, char *why, size_t size)
{
	int64_t deadline_ns = clock_now_ns() + TIMEOUT_NS;
	enum redisconn_result rc;
	socklen_t len = sizeof(int);
	int e = 0;

	if ((conn->c = conn->url->path[0] != '\0' ?
		    redisConnectUnixNonBlock(conn->url->path) :
		    redisConnectNonBlock(conn->url->host, conn->url->port)) ==
	    NULL) {
		snprintf(why, size, "out of memory");
		return REDISCONN_DOWN;
	}
	if (conn->c->err) {
		snprintf(why, size, "%s", conn->c->errstr);
		return drop(conn, REDISCONN_DOWN);
	}
	if ((rc = wait_io(conn, POLLOUT, deadline_ns, why, size)) !=
	    REDISCONN_OK) {
		if (rc == REDISCONN_DOWN)
			snprintf(why, size, "cannot connect within %d ms",
			    REDISCONN_TIMEOUT_MS);
		return drop(conn, rc);
	}
	if (getsockopt(conn->c->fd, SOL_SOCKET, SO_ERROR, &e, &len) != 0)
		e = errno;
	if (e != 0) {
		snprintf(why, size, "%s", strerror(e));
		return drop(conn, REDISCONN_DOWN);
	}
	return REDISCONN_OK;
}

/*
 * A command of the log-in: an error reply ends the run (what says what
 * failed), unless waiting cures it.
 */
static enum redisconn_result
setup_command(struct redisconn *conn, const char *what, int argc,
    const char **argv, const size_t *lens, char *why, size_t size)
{
	enum redisconn_result rc;
	redisReply *rep;

	if ((rc = redisconn_command(conn, argc, argv, lens, &rep, why, size)) !=
	    REDISCONN_OK)
		return rc;
	if (rep->type == REDIS_REPLY_ERROR) {
		if (!redisconn_transient(rep->str))
			redisconn_fatal(conn, "%s: %s", what, rep->str);
		snprintf(why, size, "%s", rep->str);
		freeReplyObject(rep);
		return drop(conn, REDISCONN_DOWN);
	}
	freeReplyObject(rep);
	return REDISCONN_OK;
}

enum redisconn_result
redisconn_open(struct redisconn *conn, char *why, size_t size)
{
	const struct redis_url *u = conn->url;
	enum redisconn_result rc;

	if ((rc = connect_tcp(conn, why, size)) != REDISCONN_OK)
		return rc;
	if (u->password[0] != '\0') {
		const char *argv[3] = { "AUTH", u->user, u->password };
		size_t lens[3] = { 4, strlen(u->user), strlen(u->password) };
		int skip = u->user[0] == '\0';

		/* Without a user name, AUTH has the password alone. */
		if (skip) {
			argv[1] = argv[0];
			lens[1] = lens[0];
		}
		if ((rc = setup_command(conn, "login refused", 3 - skip,
			 argv + skip, lens + skip, why, size)) != REDISCONN_OK)
			return rc;
	}
	if (u->db != 0) {
		char db[16], what[48];
		const char *argv[2] = { "SELECT", db };
		size_t lens[2] = { 6, 0 };

		lens[1] = (size_t)snprintf(db, sizeof db, "%d", u->db);
		snprintf(what, sizeof what, "cannot select database %d", u->db);
		if ((rc = setup_command(
			 conn, what, 2, argv, lens, why, size)) != REDISCONN_OK)
			return rc;
	}
	return REDISCONN_OK;
}

#else

/* Without hiredis there is nothing here; ISO C wants a declaration. */
typedef int redisconn_unused;

#endif
