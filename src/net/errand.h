/* Errands on a connection to Redis, and commands sent after them. */
#ifndef ERRAND_H
#define ERRAND_H

#include <stdbool.h>
#include <stddef.h>

#include "redisconn.h"

/*
 * Start the errand steps[0..n) on ctx (which, with the steps, must last
 * until it ends): connecting and logging in (login.h) first when conn is
 * not connected, then each step's command once the one before is
 * answered, each reply within REDISCONN_TIMEOUT_MS of its turn.  With a
 * finder, each new connection asks it where to go first, and a server it
 * found that is no master (ROLE) counts as down.  Nothing waits here:
 * redisconn_advance and redisconn_finish go on.
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

/* The command w[0..n) in argv and lens, for a step's words; n. */
int redisconn_words(
    const char **argv, size_t *lens, const char *const *w, int n);

#endif
