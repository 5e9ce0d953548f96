/* A connection to Redis: every wait to a deadline, and open to signals. */
#ifndef REDISCONN_H
#define REDISCONN_H

#include <stdbool.h>
#include <stddef.h>

#include <hiredis.h>

#include "redisurl.h"

/* Connecting, and each command, waits this long for Redis at most. */
#define REDISCONN_TIMEOUT_MS 1000

/* How connecting, or a command, ended. */
enum redisconn_result {
	REDISCONN_OK,
	REDISCONN_DOWN, /* no answer in time, or a broken link */
	REDISCONN_STOP	/* a stop was asked for meanwhile */
};

struct redisconn {
	const struct redis_url *url;
	char shown[400]; /* the URL for messages, password masked */
	redisContext *c; /* NULL while not connected */
	bool spoken;	 /* the server has answered as Redis once */
};

/* Set up conn for url (which must outlive it); nothing is connected. */
void redisconn_init(struct redisconn *conn, const struct redis_url *url);

/*
 * Connect, log in and select the database.  Connecting and each command
 * wait at most REDISCONN_TIMEOUT_MS on CLOCK_MONOTONIC, whatever signals
 * come; reports (SIGUSR1, ticks) run meanwhile and a stop ends the wait.
 * DOWN and STOP leave conn unconnected, the reason in why.  A refused
 * login, or a server that is not Redis, ends the process (exit 1).
 */
enum redisconn_result redisconn_open(
    struct redisconn *conn, char *why, size_t size);

/*
 * Send a command on a connected conn and wait for its reply (*rep, to
 * be freed with freeReplyObject), within the timeout as above.  An error
 * reply that no waiting cures (a password, an ACL, a key of another
 * type, a command the server lacks) ends the process (exit 1); others
 * are returned.  DOWN and STOP drop the connection, the reason in why.
 */
enum redisconn_result redisconn_command(struct redisconn *conn, int argc,
    const char **argv, const size_t *lens, redisReply **rep, char *why,
    size_t size);

/* Is the error reply msg one that waiting cures (loading, busy...)? */
bool redisconn_transient(const char *msg);

/*
 * End the process (exit 1) with one line: the URL, then fmt; the
 * password masked and control characters escaped.
 */
void redisconn_fatal(const struct redisconn *conn, const char *fmt, ...);

/* Drop the connection, if any. */
void redisconn_close(struct redisconn *conn);

#endif
