/* Asking Redis Sentinel where a master is, for redis-sentinel:// URLs. */
#ifndef SENTINEL_H
#define SENTINEL_H

#include <stddef.h>

#include "redisconn.h"

struct sentinel; /* the asking under way */

/* What a connection keeps of its sentinels between connections. */
struct sentinel_finder {
	const struct redis_url *url; /* the redis-sentinel:// URL */
	size_t last;		     /* which named the master last */
	struct sentinel *asking;     /* while they are asked */
};

/*
 * Have conn, just set up (redisconn_init) for a redis-sentinel:// URL,
 * ask its sentinels where the master is before each new connection: one
 * after another in the URL's order from the one that answered last,
 * round the list; each first without a password, and with the URL's
 * credentials if it asks for one.  Messages then name the master too.
 * When no sentinel knows the master's name and none ever named the
 * master, the name is wrong: that ends the process (exit 1).  f must
 * last as long as conn is used.
 */
void sentinel_finder(struct sentinel_finder *f, struct redisconn *conn);

#endif
