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
 * A step of an errand: a command, and what its reply means.  words puts
 * the command in argv and lens (REDISCONN_STEP_WORDS at most) and returns
 * how many words; 0 skips the step.  answer judges the reply (not to be
 * freed): OK to go on, or DOWN with the reason in why; it may end the
 * process.  An error reply that no waiting cures ends the process before
 * answer sees it, unless may_refuse and it refuses this command alone (an
 * ACL's NOPERM, a command a managed service renamed away).
 */
struct redisconn_step {
	int (*words)(void *ctx, const char **argv, size_t *lens);
	enum redisconn_result (*answer)(
	    void *ctx, const redisReply *rep, char *why, size_t size);
	bool may_refuse;
};

struct sentinel; /* sentinel.h */

struct redisconn {
	const struct redis_url *url;
	char shown[400]; /* the URL for messages, password masked */
	/* Where it connects: the URL's host, or the master the sentinels
	 * named last ("" before they named one). */
	char host[256];
	int port;
	struct sentinel *asking; /* the sentinels, while they are asked */
	size_t sentinel;	 /* which named the master last */
	size_t misled;		 /* named a server no master, this errand */
	bool no_master;		 /* ROLE said so of the server named */
	struct transport t;	 /* t.fd -1 while not connected */
	struct tls_config tls;	 /* with rediss:// */
	bool asked_tls;		 /* whether a server that hung up speaks TLS */
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
	/* The errand under way: the log-in's steps, then steps[0..n). */
	const struct redisconn_step *steps;
	size_t nsteps, at;
	void *ctx;
	bool errand;
};

/* Set up conn for url (which must outlive it); nothing is connected. */
void redisconn_init(struct redisconn *conn, const struct redis_url *url);

/* Is conn connected, or connecting? */
bool redisconn_connected(const struct redisconn *conn);

/*
 * Start the errand steps[0..n) on ctx (which, with the steps, must last
 * until it ends): connecting and logging in (AUTH, SELECT) first when
 * conn is not connected, then each step's command once the one before
 * is answered, each reply within REDISCONN_TIMEOUT_MS of its turn.
 * With sentinels, each new connection asks them for the master first,
 * and the log-in ends with ROLE: a server that is no master counts as
 * down.  Nothing waits here: redisconn_advance and redisconn_finish go
 * on.
 */
void redisconn_errand(struct redisconn *conn,
    const struct redisconn_step *steps, size_t n, void *ctx);

/* Is an errand under way? */
bool redisconn_busy(const struct redisconn *conn);

/*
 * Go on with the errand as far as it can go without waiting: OK when it
 * is done (or there is none), AGAIN while it waits (redisconn_watch), or
 * DOWN with the reason in why (the connection dropped, the errand
 * forgotten).  A refused login, or a peer that answers other than Redis
 * does, ends the process (exit 1).
 */
enum redisconn_result redisconn_advance(
    struct redisconn *conn, char *why, size_t size);

/*
 * Have the waits of the clock watch the errand once (clock_watch_once):
 * due() runs when it can go on, or its deadline has come.
 */
void redisconn_watch(const struct redisconn *conn, void (*due)(void));

/*
 * Carry the errand to its end, waiting on CLOCK_MONOTONIC to each
 * deadline whatever signals come; reports (SIGUSR1, ticks) run meanwhile
 * and a stop ends the wait.  OK, DOWN or STOP (the connection dropped,
 * the reason in why).
 */
enum redisconn_result redisconn_finish(
    struct redisconn *conn, char *why, size_t size);

/*
 * Send a command on a connected conn, after any errand, and wait for its
 * reply (*rep, to be freed with freeReplyObject), within the timeout as
 * above.  An error reply that no waiting cures (a password, an ACL, a
 * key of another type, a command the server lacks) ends the process
 * (exit 1); others are returned.  DOWN and STOP drop the connection, the
 * reason in why.
 */
enum redisconn_result redisconn_command(struct redisconn *conn, int argc,
    const char **argv, const size_t *lens, redisReply **rep, char *why,
    size_t size);

/*
 * redisconn_command in two halves, for commands sent on several
 * connections before any reply is awaited: send queues the command on a
 * connected conn (after any errand) and writes what the socket takes;
 * receive awaits the next reply due on conn, as redisconn_command does.
 * Every command sent must be received, or conn closed.
 */
enum redisconn_result redisconn_send(struct redisconn *conn, int argc,
    const char **argv, const size_t *lens, char *why, size_t size);
enum redisconn_result redisconn_receive(
    struct redisconn *conn, redisReply **rep, char *why, size_t size);

/* Is the error reply msg one that waiting cures (loading, busy...)? */
bool redisconn_transient(const char *msg);

/*
 * End the process (exit 1) with one line: the URL, then fmt; the
 * password masked and control characters escaped.
 */
_Noreturn void redisconn_fatal(
    const struct redisconn *conn, const char *fmt, ...);

/* Drop the connection, if any, and the errand under way. */
void redisconn_close(struct redisconn *conn);

#endif
