/* Asking Redis Sentinel where a master is, for redis-sentinel:// URLs. */
#ifndef SENTINEL_H
#define SENTINEL_H

#include <stdbool.h>
#include <stddef.h>

#include "redisconn.h"
#include "redisurl.h"

struct sentinel;

/*
 * Start asking the sentinels of url (which must outlive the asking) for
 * the address of its master, one after another in the URL's order from
 * its first-th (the one that answered last: sentinel_answered), round
 * the list; shown names the URL in messages.  Nothing waits here.
 */
struct sentinel *sentinel_ask(
    const struct redis_url *url, const char *shown, size_t first);

/* Which of the URL's sentinels named the master, once one has. */
size_t sentinel_answered(const struct sentinel *s);

/*
 * Go on asking as far as it can go without waiting: OK with the master's
 * address in host[0..size) and *port, AGAIN while a sentinel's answer is
 * awaited (sentinel_conn), or DOWN with the reason in why when none gave
 * one.  Each sentinel is first asked without a password, and with the
 * URL's credentials if it asks for one.  When no sentinel knows the
 * master's name and none ever named the master (not known), the name is
 * wrong: that ends the process (exit 1).
 */
enum redisconn_result sentinel_advance(struct sentinel *s, bool known,
    char *host, size_t size, int *port, char *why, size_t whysize);

/* The connection to the sentinel being asked, for its waits. */
const struct redisconn *sentinel_conn(const struct sentinel *s);

/* Stop asking, closing the connection to a sentinel, if any. */
void sentinel_free(struct sentinel *s);

#endif
