/* A connection to Redis: every wait to a deadline, and open to signals. */
#ifndef REDISCONN_H
#define REDISCONN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hiredis.h>

#include "redisurl.h"
#include "reply.h"
#include "transport.h"

/* Connecting, and each command, waits this long for Redis at most. */
#define REDISCONN_TIMEOUT_MS 1000
/* Asks at most whether a server that hung up speaks TLS (struct redisconn). */
#define REDISCONN_TLS_ASKS 3

/* Most words of the command of a step. */
#define REDISCONN_STEP_WORDS 20

/* How connecting, a command or an errand ended, or where it is. */
enum redisconn_result {
	REDISCONN_OK,
	REDISCONN_DOWN, /* no answer in time, or a broken link */
	REDISCONN_STOP, /* a stop was asked for meanwhile */
	REDISCONN_AGAIN /* under way: it cannot go on without waiting */
};

/*
 * A step of an errand (errand.h): a command, and what its reply means.
 * words puts the command in argv and lens (REDISCONN_STEP_WORDS at most)
 * and returns how many words; 0 skips the step.  answer judges the reply
 * (not to be freed): OK to go on, or DOWN with the reason in why; it may
 * end the process.  An error reply that no waiting cures ends the process
 * before answer sees it, unless may_refuse and it refuses this command
 * alone (an ACL's NOPERM, a command a managed service renamed away).
 */
struct redisconn_step {
	int (*words)(void *ctx, const char **argv, size_t *lens);
	enum redisconn_result (*answer)(
	    void *ctx, const redisReply *rep, char *why, size_t size);
	bool may_refuse;
};

struct redisconn;

/*
 * Where a connection goes, asked before each new one, never waiting:
 * set up by whoever opens the connection (Sentinel's, sentinel.h), on
 * ctx.  find goes on finding: OK with the address in conn->host and
 * conn->port, AGAIN while an answer is awaited (on the connection that
 * awaited gives), or DOWN with the reason in why.  misled is told that
 * the server found is no master, times times before in this errand:
 * true to find again at once, elsewhere.  stop ends a finding under way.
 */
struct redisconn_finder {
	enum redisconn_result (*find)(
	    void *ctx, struct redisconn *conn, char *why, size_t size);
	const struct redisconn *(*awaited)(const void *ctx);
	bool (*misled)(void *ctx, size_t times);
	void (*stop)(void *ctx);
};

/* The errand under way: the log-in's steps, then steps[0..nsteps). */
struct redisconn_errand {
	const struct redisconn_step *steps;
	size_t nsteps, at;
	void *ctx;
	bool on;	/* it is under way */
	size_t misled;	/* servers found that were no master, this errand */
	bool no_master; /* ROLE said so of the server found */
};

struct redisconn {
	const struct redis_url *url;
	char shown[400]; /* the URL for messages, password masked */
	/* Where it connects: the URL's host, or the one the finder found
	 * last ("" before it found one). */
	char host[256];
	int port;
	const struct redisconn_finder *finder; /* NULL: the URL's address */
	void *finder_ctx;
	struct transport t;    /* t.fd -1 while not connected */
	struct tls_config tls; /* with rediss:// */
	/* Times a server that hung up was asked whether it speaks TLS (or
	 * a hung handshake whether it speaks Redis): a busy machine may
	 * miss the first answer's second, so up to REDISCONN_TLS_ASKS. */
	unsigned tls_asks;
	redisReader *reader;
	struct reply_bound bound; /* what a reply read may hold */
	char *out; /* commands formatted, out[sent..len) not yet written */
	size_t out_len, out_sent, out_size;
	int gone;	     /* the link broke: errno, or -1 at its end */
	int owed;	     /* replies awaited */
	int64_t deadline_ns; /* for connecting, or for the next reply */
	bool spoken;	     /* the server has answered as Redis once */
	bool auth_later;     /* asked with no password yet: a NOAUTH goes
				 * to the step's answer, to ask with it */
	char db[16];	     /* SELECT's argument */
	struct redisconn_errand errand;
};

/* Set up conn for url (which must outlive it); nothing is connected. */
void redisconn_init(struct redisconn *conn, const struct redis_url *url);

/*
 * Have conn ask finder, on ctx (which must outlive conn's use), where to
 * connect before each new connection; after redisconn_init.
 */
void redisconn_find_by(
    struct redisconn *conn, const struct redisconn_finder *finder, void *ctx);

/* Is conn connected, or connecting? */
bool redisconn_connected(const struct redisconn *conn);

/*
 * Start connecting to conn->host and conn->port, for replies within the
 * timeout: OK, or DOWN with the reason in why.  A server whose TLS can
 * never be met ends the process (exit 1).
 */
enum redisconn_result redisconn_connect(
    struct redisconn *conn, char *why, size_t size);

/*
 * Queue a command on conn, its reply awaited within the timeout of its
 * turn: OK, or DOWN (out of memory: the connection dropped).
 */
enum redisconn_result redisconn_queue(struct redisconn *conn, int argc,
    const char **argv, const size_t *lens, char *why, size_t size);

/* Write what is queued, as far as the socket takes it without waiting. */
void redisconn_flush(struct redisconn *conn);

/*
 * The next reply awaited, without waiting: OK with it in *rep (to be
 * freed with freeReplyObject), AGAIN before its deadline, or DOWN (the
 * connection dropped, why).  A peer whose first answer is not Redis's
 * protocol ends the process (exit 1).
 */
enum redisconn_result redisconn_next(
    struct redisconn *conn, redisReply **rep, char *why, size_t size);

/* The connection awaited: the finder's while it asks, or conn itself. */
const struct redisconn *redisconn_awaited(const struct redisconn *conn);

/*
 * Wait on CLOCK_MONOTONIC until the connection awaited can go on, or its
 * deadline: OK, or STOP when a stop was asked for.  Reports and ticks
 * run as they come.
 */
enum redisconn_result redisconn_wait(
    struct redisconn *conn, char *why, size_t size);

/*
 * End the process (exit 1) on the error reply msg when no waiting cures
 * it (rediserr_hint), saying what to check; else return.
 */
void redisconn_check(const struct redisconn *conn, const char *msg);

/*
 * End the process (exit 1) with one line: the URL, then fmt; the
 * password masked and control characters escaped.
 */
_Noreturn void redisconn_fatal(
    const struct redisconn *conn, const char *fmt, ...);

/* Drop the connection, if any, and the errand under way. */
void redisconn_close(struct redisconn *conn);

/* redisconn_close, then rc: for the paths that end so. */
enum redisconn_result redisconn_drop(
    struct redisconn *conn, enum redisconn_result rc);

#endif
