/* The nodes of a Redis Cluster, and which of them serves each slot. */
#ifndef CLUSTER_H
#define CLUSTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hashslot.h"
#include "redisconn.h"

/* Most nodes known at once; a cluster of more masters is refused. */
#define CLUSTER_NODES_MAX 256

/* A node: where it is (the entry's URL at its address), a connection. */
struct cluster_node {
	struct redis_url url;
	struct redisconn conn;
	bool loaded; /* the script is loaded on conn */
};

struct cluster {
	struct cluster_node **node; /* node[0] is where the URL led */
	size_t nodes;
	uint16_t owner[HASHSLOT_COUNT]; /* 1 + index of its node; 0: none */
	bool stale; /* a slot moved or a node was lost: read the map again */
};

/* A cluster entered at url (which must outlive c): no map yet. */
int cluster_init(struct cluster *c, const struct redis_url *url);

/*
 * Read the slot map from rep, a reply to CLUSTER SLOTS that node from
 * answered: 0, or -1 with why (the map is then left as it was).  The
 * nodes that serve no slot of it, but node[0], are forgotten (freed,
 * their connections closed), from too.
 */
int cluster_learn(struct cluster *c, const struct cluster_node *from,
    const redisReply *rep, char *why, size_t size);

/*
 * Ask the known nodes for the slot map, each in turn, until one gives
 * it: OK, DOWN (none did, why says why), or STOP.  A node of no slot in
 * it is forgotten (cluster_learn): no pointer to a node lasts across.
 */
enum redisconn_result cluster_refresh(
    struct cluster *c, char *why, size_t size);

/* The node serving slot, or NULL when none does. */
struct cluster_node *cluster_owner(const struct cluster *c, unsigned slot);

/*
 * The node at text "host:port" (as MOVED and ASK give it), added when
 * new; NULL when text is not an address or there are too many.
 */
struct cluster_node *cluster_node_at(struct cluster *c, const char *text);

/*
 * Where a MOVED or ASK error reply msg sends the command: the node (NULL
 * when msg is neither, or its address is not one), and whether it is an
 * ASK (the command goes there once, after ASKING).  A MOVED also marks
 * its slot as the node's.
 */
struct cluster_node *cluster_redirect(
    struct cluster *c, const char *msg, bool *ask);

/* Make sure node n is connected and logged in: OK, DOWN or STOP. */
enum redisconn_result cluster_connect(
    struct cluster_node *n, char *why, size_t size);

/* Close every connection, and free what c holds. */
void cluster_close(struct cluster *c);

#endif
