/* Logging in on a new connection to Redis: AUTH, SELECT, ROLE. */
#ifdef HAVE_HIREDIS

#include <stdio.h>
#include <string.h>

#include "login.h"
#include "rediserr.h"

/*
 * A reply to the log-in: an error ends the run (what failed), unless
 * waiting cures it.
 */
static enum redisconn_result
login_reply(const struct redisconn *conn, const char *what,
    const redisReply *rep, char *why, size_t size)
{
	if (rep->type != REDIS_REPLY_ERROR)
		return REDISCONN_OK;
	if (!rediserr_transient(rep->str))
		redisconn_fatal(conn, "%s: %s", what, rep->str);
	snprintf(why, size, "%s", rep->str);
	return REDISCONN_DOWN;
}

/* AUTH [user] password, when the URL or REDISCLI_AUTH gives one. */
static int
auth_words(void *ctx, const char **argv, size_t *lens)
{
	const struct redis_url *u = ((const struct redisconn *)ctx)->url;
	int n = 0;

	if (u->password[0] == '\0')
		return 0;
	argv[n] = "AUTH";
	lens[n++] = 4;
	/* Without a user name, AUTH has the password alone. */
	if (u->user[0] != '\0') {
		argv[n] = u->user;
		lens[n++] = strlen(u->user);
	}
	argv[n] = u->password;
	lens[n++] = strlen(u->password);
	return n;
}

static enum redisconn_result
auth_answer(void *ctx, const redisReply *rep, char *why, size_t size)
{
	return login_reply(ctx, "login refused", rep, why, size);
}

/* SELECT db, unless it is 0. */
static int
select_words(void *ctx, const char **argv, size_t *lens)
{
	struct redisconn *conn = ctx;

	if (conn->url->db == 0)
		return 0;
	argv[0] = "SELECT";
	lens[0] = 6;
	argv[1] = conn->db;
	lens[1] = (size_t)snprintf(
	    conn->db, sizeof conn->db, "%d", conn->url->db);
	return 2;
}

static enum redisconn_result
select_answer(void *ctx, const redisReply *rep, char *why, size_t size)
{
	const struct redisconn *conn = ctx;
	char what[48];

	snprintf(what, sizeof what, "cannot select database %d", conn->url->db);
	return login_reply(conn, what, rep, why, size);
}

/* ROLE, with sentinels: the server they named may be no master (yet). */
static int
role_words(void *ctx, const char **argv, size_t *lens)
{
	if (((const struct redisconn *)ctx)->url->nsentinels == 0)
		return 0;
	argv[0] = "ROLE";
	lens[0] = 4;
	return 1;
}

/* A master goes on; a ROLE refused (an ACL) cannot tell, and goes on. */
static enum redisconn_result
role_answer(void *ctx, const redisReply *rep, char *why, size_t size)
{
	struct redisconn *conn = ctx;
	const redisReply *e = rep->elements > 0 ? rep->element[0] : NULL;

	if (rep->type == REDIS_REPLY_ERROR)
		return rediserr_refuses(rep->str) ?
		    REDISCONN_OK :
		    login_reply(conn, "ROLE", rep, why, size);
	if (rep->type == REDIS_REPLY_ARRAY && e != NULL &&
	    e->type == REDIS_REPLY_STRING && strcmp(e->str, "master") == 0)
		return REDISCONN_OK;
	conn->errand.no_master = true;
	snprintf(why, size,
	    "ROLE says %s, not master: the sentinels named no master "
	    "(a failover under way?)",
	    rep->type == REDIS_REPLY_ARRAY && e != NULL &&
		    e->type == REDIS_REPLY_STRING ?
		e->str :
		"nothing");
	return REDISCONN_DOWN;
}

const struct redisconn_step login_steps[LOGIN_STEPS] = {
	{ .words = auth_words, .answer = auth_answer, .may_refuse = false },
	{ .words = select_words, .answer = select_answer, .may_refuse = false },
	{ .words = role_words, .answer = role_answer, .may_refuse = true },
};

#else

/* Without hiredis there is nothing here; ISO C wants a declaration. */
typedef int login_unused;

#endif
