/*
 * The nodes of a Redis Cluster: the map of which master serves each
 * slot, read with CLUSTER SLOTS and kept up to date by MOVED, and a
 * connection to each master that a booking needs.
 */
#ifdef HAVE_HIREDIS

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster.h"
#include "errand.h"

/* A node at host:port, the entry's URL (password, TLS) otherwise. */
static struct cluster_node *
add_node(struct cluster *c, const char *host, int port)
{
	struct cluster_node *n;

	for (size_t i = 0; i < c->nodes; i++)
		if (c->node[i]->url.port == port &&
		    strcmp(c->node[i]->url.host, host) == 0)
			return c->node[i];
	if (c->nodes == CLUSTER_NODES_MAX ||
	    strlen(host) >= sizeof n->url.host ||
	    (n = calloc(1, sizeof *n)) == NULL)
		return NULL;
	n->url = c->node[0]->url;
	snprintf(n->url.host, sizeof n->url.host, "%s", host);
	n->url.port = port;
	redisconn_init(&n->conn, &n->url);
	c->node[c->nodes++] = n;
	return n;
}

int
cluster_init(struct cluster *c, const struct redis_url *url)
{
	*c = (struct cluster){ .node = calloc(
				   CLUSTER_NODES_MAX, sizeof *c->node) };
	if (c->node == NULL ||
	    (c->node[0] = calloc(1, sizeof **c->node)) == NULL) {
		free(c->node);
		c->node = NULL;
		return -1;
	}
	c->node[0]->url = *url;
	redisconn_init(&c->node[0]->conn, &c->node[0]->url);
	c->nodes = 1;
	c->stale = true;
	return 0;
}

/* A port in reply e, or -1. */
static int
port_of(const redisReply *e)
{
	return e->type == REDIS_REPLY_INTEGER && e->integer > 0 &&
		e->integer <= 65535 ?
	    (int)e->integer :
	    -1;
}

/*
 * The master of slot range e ([start, end, [host, port, ...], ...]) as a
 * node, its first and last slot in *lo and *hi; NULL with why when e is
 * not one.  A host not known ("", "?" or null) is that of from.
 */
static struct cluster_node *
range_of(struct cluster *c, const struct cluster_node *from,
    const redisReply *e, unsigned *lo, unsigned *hi, char *why, size_t size)
{
	const redisReply *m;
	const char *host;
	struct cluster_node *n;

	if (e->type != REDIS_REPLY_ARRAY || e->elements < 3 ||
	    e->element[0]->type != REDIS_REPLY_INTEGER ||
	    e->element[1]->type != REDIS_REPLY_INTEGER ||
	    e->element[0]->integer < 0 ||
	    e->element[0]->integer > e->element[1]->integer ||
	    e->element[1]->integer >= HASHSLOT_COUNT ||
	    (m = e->element[2])->type != REDIS_REPLY_ARRAY || m->elements < 2 ||
	    (m->element[0]->type != REDIS_REPLY_STRING &&
		m->element[0]->type != REDIS_REPLY_NIL) ||
	    port_of(m->element[1]) < 0) {
		snprintf(why, size, "CLUSTER SLOTS: a reply out of range");
		return NULL;
	}
	*lo = (unsigned)e->element[0]->integer;
	*hi = (unsigned)e->element[1]->integer;
	/* cluster-preferred-endpoint-type unknown-endpoint: a null. */
	host = m->element[0]->type == REDIS_REPLY_NIL ? "" : m->element[0]->str;
	if (host[0] == '\0' || strcmp(host, "?") == 0)
		host = from->url.host;
	if ((n = add_node(c, host, port_of(m->element[1]))) == NULL)
		snprintf(why, size,
		    "CLUSTER SLOTS: more than %d nodes, or a host name "
		    "too long",
		    CLUSTER_NODES_MAX);
	return n;
}

/*
 * Forget the nodes that serve no slot of owner (the map just read), but
 * node[0], where the URL led: a node gone, or back at another address,
 * or a master turned replica.  Their connections are closed, and owner
 * renumbered for the nodes left.
 */
static void
forget_absent(struct cluster *c, uint16_t *owner)
{
	static uint16_t renum[CLUSTER_NODES_MAX + 1];
	size_t kept = 0;

	memset(renum, 0, sizeof renum);
	for (unsigned s = 0; s < HASHSLOT_COUNT; s++)
		if (owner[s] != 0)
			renum[owner[s]] = 1; /* it serves a slot */
	for (size_t k = 0; k < c->nodes; k++) {
		if (k > 0 && renum[k + 1] == 0) {
			redisconn_close(&c->node[k]->conn);
			free(c->node[k]);
			continue;
		}
		c->node[kept++] = c->node[k];
		renum[k + 1] = (uint16_t)kept;
	}
	c->nodes = kept;
	for (unsigned s = 0; s < HASHSLOT_COUNT; s++)
		owner[s] = renum[owner[s]];
}

int
cluster_learn(struct cluster *c, const struct cluster_node *from,
    const redisReply *rep, char *why, size_t size)
{
	static uint16_t owner[HASHSLOT_COUNT];

	if (rep->type != REDIS_REPLY_ARRAY) {
		snprintf(why, size, "CLUSTER SLOTS: %s",
		    rep->type == REDIS_REPLY_ERROR ? rep->str :
						     "a reply out of range");
		return -1;
	}
	memset(owner, 0, sizeof owner);
	for (size_t i = 0; i < rep->elements; i++) {
		unsigned lo, hi;
		struct cluster_node *n = range_of(
		    c, from, rep->element[i], &lo, &hi, why, size);

		if (n == NULL)
			return -1;
		for (size_t k = 0; k < c->nodes; k++)
			if (c->node[k] == n)
				for (unsigned s = lo; s <= hi; s++)
					owner[s] = (uint16_t)(k + 1);
	}
	forget_absent(c, owner);
	memcpy(c->owner, owner, sizeof owner);
	c->stale = false;
	return 0;
}

enum redisconn_result
cluster_connect(struct cluster_node *n, char *why, size_t size)
{
	if (redisconn_connected(&n->conn) && !redisconn_busy(&n->conn))
		return REDISCONN_OK;
	if (!redisconn_connected(&n->conn))
		n->loaded = false;
	redisconn_errand(&n->conn, NULL, 0, NULL);
	return redisconn_finish(&n->conn, why, size);
}

/* Ask node n for the map: OK, DOWN or STOP. */
static enum redisconn_result
ask_map(struct cluster *c, struct cluster_node *n, char *why, size_t size)
{
	const char *argv[] = { "CLUSTER", "SLOTS" };
	const size_t lens[] = { 7, 5 };
	enum redisconn_result rc;
	redisReply *rep;
	int bad;

	if ((rc = cluster_connect(n, why, size)) != REDISCONN_OK ||
	    (rc = redisconn_command(
		 &n->conn, 2, argv, lens, &rep, why, size)) != REDISCONN_OK)
		return rc;
	bad = cluster_learn(c, n, rep, why, size);
	freeReplyObject(rep);
	return bad != 0 ? REDISCONN_DOWN : REDISCONN_OK;
}

enum redisconn_result
cluster_refresh(struct cluster *c, char *why, size_t size)
{
	enum redisconn_result rc = REDISCONN_DOWN;

	/* The nodes that serve slots first: they are the likeliest up. */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < c->nodes; i++) {
			bool serves = false;

			for (unsigned s = 0; s < HASHSLOT_COUNT && !serves; s++)
				serves = c->owner[s] == i + 1;
			if (serves != (pass == 0))
				continue;
			rc = ask_map(c, c->node[i], why, size);
			if (rc != REDISCONN_DOWN)
				return rc;
		}
	return rc;
}

struct cluster_node *
cluster_owner(const struct cluster *c, unsigned slot)
{
	unsigned k = c->owner[slot % HASHSLOT_COUNT];

	return k == 0 ? NULL : c->node[k - 1];
}

struct cluster_node *
cluster_node_at(struct cluster *c, const char *text)
{
	char host[256];
	const char *colon = strrchr(text, ':');
	char *end;
	long port;

	if (colon == NULL || (size_t)(colon - text) >= sizeof host)
		return NULL;
	port = strtol(colon + 1, &end, 10);
	if (end == colon + 1 || *end != '\0' || port < 1 || port > 65535)
		return NULL;
	memcpy(host, text, (size_t)(colon - text));
	host[colon - text] = '\0';
	/* An endpoint the node does not know: the one we asked. */
	if (host[0] == '\0' || strcmp(host, "?") == 0)
		snprintf(host, sizeof host, "%s", c->node[0]->url.host);
	return add_node(c, host, (int)port);
}

struct cluster_node *
cluster_redirect(struct cluster *c, const char *msg, bool *ask)
{
	char addr[300];
	unsigned long slot;
	struct cluster_node *n;

	*ask = strncmp(msg, "ASK ", 4) == 0;
	if (!*ask && strncmp(msg, "MOVED ", 6) != 0)
		return NULL;
	if (sscanf(msg + (*ask ? 4 : 6), "%lu %299s", &slot, addr) != 2 ||
	    slot >= HASHSLOT_COUNT || (n = cluster_node_at(c, addr)) == NULL)
		return NULL;
	if (!*ask) {
		for (size_t k = 0; k < c->nodes; k++)
			if (c->node[k] == n)
				c->owner[slot] = (uint16_t)(k + 1);
		/* One slot moved: others may have, with it. */
		c->stale = true;
	}
	return n;
}

void
cluster_close(struct cluster *c)
{
	for (size_t i = 0; i < c->nodes; i++) {
		redisconn_close(&c->node[i]->conn);
		free(c->node[i]);
	}
	free(c->node);
	c->node = NULL;
	c->nodes = 0;
}

#else

/* Without hiredis there is nothing here; ISO C wants a declaration. */
typedef int cluster_unused;

#endif
