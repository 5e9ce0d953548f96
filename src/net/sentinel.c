/* Asking Redis Sentinel where a master is, for redis-sentinel:// URLs. */
#ifdef HAVE_HIREDIS

#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errand.h"
#include "rediserr.h"
#include "sentinel.h"

struct sentinel {
	const struct redis_url *url; /* the redis-sentinel:// URL */
	const char *shown;	     /* and how messages show it */
	struct redis_url at;	     /* the sentinel asked now */
	struct redisconn conn;	     /* to it */
	size_t first;		     /* the one asked first */
	size_t next;		     /* how many were asked before it */
	bool auth;		     /* it wants the credentials: given */
	bool again;		     /* ask it again, with them */
	bool unknown;		     /* a sentinel knew no such master */
	char host[256];		     /* the master's address, once named */
	int port;
	char why[640]; /* why the last sentinel asked gave none */
};

/* SENTINEL get-master-addr-by-name MASTER. */
static int
ask_words(void *ctx, const char **argv, size_t *lens)
{
	const struct sentinel *s = ctx;

	argv[0] = "SENTINEL";
	argv[1] = "get-master-addr-by-name";
	argv[2] = s->url->master;
	for (int i = 0; i < 3; i++)
		lens[i] = strlen(argv[i]);
	return 3;
}

/*
 * An error reply to the question: a password wanted, once, or a
 * server that is loading, asks again; the rest no waiting cures.
 */
static enum redisconn_result
refusal(struct sentinel *s, const char *msg, char *why, size_t size)
{
	if (strncmp(msg, "NOAUTH", 6) == 0 && !s->auth &&
	    s->url->password[0] != '\0') {
		s->auth = s->again = true;
		snprintf(why, size, "%s", msg);
		return REDISCONN_DOWN;
	}
	if (strncmp(msg, "NOAUTH", 6) == 0)
		redisconn_fatal(&s->conn,
		    "%s (give the password in the URL or in "
		    "REDISCLI_AUTH: the sentinels take the master's)",
		    msg);
	if (strncmp(msg, "ERR unknown command", 19) == 0)
		redisconn_fatal(&s->conn,
		    "%s (not a sentinel: give the sentinels' "
		    "host:port, 26379 by default, not the master's)",
		    msg);
	if (rediserr_transient(msg)) {
		snprintf(why, size, "%s", msg);
		return REDISCONN_DOWN;
	}
	redisconn_fatal(&s->conn, "SENTINEL get-master-addr-by-name: %s", msg);
}

/* The answer: the master's address, or none (an unknown name). */
static enum redisconn_result
ask_answer(void *ctx, const redisReply *rep, char *why, size_t size)
{
	struct sentinel *s = ctx;
	redisReply *const *e = rep->element;
	long port;
	char *end;

	if (rep->type == REDIS_REPLY_ERROR)
		return refusal(s, rep->str, why, size);
	if (rep->type == REDIS_REPLY_NIL) {
		s->unknown = true;
		snprintf(
		    why, size, "it knows no master named '%s'", s->url->master);
		return REDISCONN_DOWN;
	}
	/* No more trusted than a server's error: shown, it must be clean. */
	if (rep->type != REDIS_REPLY_ARRAY || rep->elements != 2 ||
	    e[0]->type != REDIS_REPLY_STRING ||
	    e[1]->type != REDIS_REPLY_STRING ||
	    !redisurl_word(e[0]->str, e[0]->len) ||
	    e[0]->len >= sizeof s->host ||
	    (port = strtol(e[1]->str, &end, 10)) < 1 || port > 65535 ||
	    *end != '\0') {
		snprintf(why, size, "an address out of range");
		return REDISCONN_DOWN;
	}
	memcpy(s->host, e[0]->str, e[0]->len + 1);
	s->port = (int)port;
	return REDISCONN_OK;
}

/* The question; a plain Redis server refuses it, and ask_answer says so. */
static const struct redisconn_step ask_step = {
	.words = ask_words, .answer = ask_answer, .may_refuse = true
};

/*
 * The sentinel to ask now: the list is gone round from the one that
 * answered last, so that a dead one that does not refuse costs its
 * second once, not at every connection.
 */
static const struct redis_sentinel *
place(const struct sentinel *s)
{
	return &s->url->sentinels[(s->first + s->next) % s->url->nsentinels];
}

/* Start asking the sentinel next in the list. */
static void
begin(struct sentinel *s)
{
	const struct redis_sentinel *to = place(s);
	char at[300];

	s->at = *s->url;
	s->at.nsentinels = 0;
	s->at.master[0] = '\0';
	s->at.db = 0;
	snprintf(s->at.host, sizeof s->at.host, "%s", to->host);
	s->at.port = to->port;
	if (!s->auth)
		s->at.user[0] = s->at.password[0] = '\0';
	redisconn_init(&s->conn, &s->at);
	/* A sentinel may want no password while the master does: without
	 * one, a NOAUTH goes to ask_answer, to try with it. */
	s->conn.auth_later = !s->auth;
	redisurl_hostport(to->host, to->port, at, sizeof at);
	snprintf(s->conn.shown, sizeof s->conn.shown, "%s: sentinel %s",
	    s->shown, at);
	redisconn_errand(&s->conn, &ask_step, 1, s);
}

/*
 * Start asking the sentinels of url (which must outlive the asking) for
 * the address of its master, from its first-th (the one that answered
 * last); shown names the URL in messages.  Nothing waits here.
 */
static struct sentinel *
sentinel_ask(const struct redis_url *url, const char *shown, size_t first)
{
	struct sentinel *s = calloc(1, sizeof *s);

	if (s == NULL)
		err(1, "asking the sentinels");
	s->url = url;
	s->first = first < url->nsentinels ? first : 0;
	s->shown = shown;
	redisconn_init(&s->conn, &s->at);
	snprintf(s->why, sizeof s->why, "no sentinel asked");
	return s;
}

/* The sentinel asked gave no address: on to the next, or ask it again. */
static void
next_one(struct sentinel *s, const char *why)
{
	const struct redis_sentinel *to = place(s);
	char at[300];

	redisurl_hostport(to->host, to->port, at, sizeof at);
	snprintf(s->why, sizeof s->why, "%s: %s", at, why);
	if (s->again) {
		s->again = false;
		return;
	}
	s->auth = false;
	s->next++;
}

/*
 * Go on asking as far as it can go without waiting: OK with the master's
 * address in host[0..size) and *port, AGAIN while a sentinel's answer is
 * awaited, or DOWN with the reason in why when none gave one.  When no
 * sentinel knows the master's name and none ever named the master (not
 * known), the process ends.
 */
static enum redisconn_result
sentinel_advance(struct sentinel *s, bool known, char *host, size_t size,
    int *port, char *why, size_t whysize)
{
	enum redisconn_result rc;
	char reason[256] = "no answer";

	while (s->next < s->url->nsentinels) {
		if (!redisconn_busy(&s->conn))
			begin(s);
		rc = redisconn_advance(&s->conn, reason, sizeof reason);
		if (rc == REDISCONN_AGAIN)
			return rc;
		if (rc == REDISCONN_OK && s->port > 0) {
			redisconn_close(&s->conn);
			s->first = (s->first + s->next) % s->url->nsentinels;
			snprintf(host, size, "%s", s->host);
			*port = s->port;
			return REDISCONN_OK;
		}
		next_one(s, reason);
	}
	if (s->unknown && !known)
		errx(1,
		    "%s: no sentinel knows a master named '%s' (the name "
		    "of 'sentinel monitor' in sentinel.conf)",
		    s->shown, s->url->master);
	snprintf(
	    why, whysize, "no sentinel named the master (last, %s)", s->why);
	return REDISCONN_DOWN;
}

/* Stop asking, closing the connection to a sentinel, if any. */
static void
sentinel_free(struct sentinel *s)
{
	if (s == NULL)
		return;
	redisconn_close(&s->conn);
	free(s);
}

/*
 * Ask the sentinels where the master is now, before a new connection of
 * conn: OK with its address in conn->host and conn->port, AGAIN while
 * asking, or DOWN (why).
 */
static enum redisconn_result
find_master(void *ctx, struct redisconn *conn, char *why, size_t size)
{
	struct sentinel_finder *f = ctx;
	enum redisconn_result rc;

	if (f->asking == NULL) {
		redisurl_show(conn->url, conn->shown, sizeof conn->shown);
		f->asking = sentinel_ask(conn->url, conn->shown, f->last);
	}
	rc = sentinel_advance(f->asking, conn->host[0] != '\0', conn->host,
	    sizeof conn->host, &conn->port, why, size);
	if (rc == REDISCONN_AGAIN)
		return rc;
	if (rc == REDISCONN_OK)
		f->last = f->asking->first;
	sentinel_free(f->asking);
	f->asking = NULL;
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

/* The connection to the sentinel being asked, for its waits, or NULL. */
static const struct redisconn *
asked_conn(const void *ctx)
{
	const struct sentinel_finder *f = ctx;

	return f->asking != NULL ? &f->asking->conn : NULL;
}

/*
 * The server the sentinels named is no master (a sentinel that lags a
 * failover, or watches another server under that name): ask the next
 * sentinel first, at once, unless each has named one so (times before).
 */
static bool
misled(void *ctx, size_t times)
{
	struct sentinel_finder *f = ctx;
	size_t n = f->url->nsentinels;

	if (times + 1 >= n)
		return false;
	f->last = (f->last + 1) % n;
	return true;
}

static void
stop_asking(void *ctx)
{
	struct sentinel_finder *f = ctx;

	sentinel_free(f->asking);
	f->asking = NULL;
}

static const struct redisconn_finder sentinels = { find_master, asked_conn,
	misled, stop_asking };

void
sentinel_finder(struct sentinel_finder *f, struct redisconn *conn)
{
	*f = (struct sentinel_finder){ .url = conn->url };
	redisconn_find_by(conn, &sentinels, f);
}

#else

/* Without hiredis there is nothing here; ISO C wants a declaration. */
typedef int sentinel_unused;

#endif
