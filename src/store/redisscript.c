/* Scripts in Redis: loaded on each connection, called by their digest. */
#ifdef HAVE_HIREDIS

#include <stdio.h>
#include <string.h>

#include "clock.h"
#include "errand.h"
#include "rediserr.h"
#include "redisstore.h"

/* SCRIPT LOAD, unless the script is loaded on this connection. */
int
script_load_words(void *ctx, const char **argv, size_t *lens)
{
	const char *const w[] = { "SCRIPT", "LOAD", bucket_script()->text };

	return ((const struct redis *)ctx)->call.loaded ?
	    0 :
	    redisconn_words(argv, lens, w, 3);
}

/* The script's digest from rep, or why Redis cannot load it now. */
static enum redisconn_result
digest(struct redis *r, const struct redisconn *conn, const redisReply *rep,
    char *why, size_t size)
{
	if (rep->type == REDIS_REPLY_ERROR && rediserr_transient(rep->str)) {
		snprintf(why, size, "%s", rep->str);
		return REDISCONN_DOWN;
	}
	if (rep->type != REDIS_REPLY_STRING || rep->len != 40)
		redisconn_fatal(conn, "cannot load the script: %s",
		    rep->type == REDIS_REPLY_ERROR ? rep->str :
						     "no digest in the reply");
	memcpy(r->call.sha, rep->str, 40);
	r->call.sha[40] = '\0';
	return REDISCONN_OK;
}

enum redisconn_result
script_load_answer(void *ctx, const redisReply *rep, char *why, size_t size)
{
	struct redis *r = ctx;
	enum redisconn_result rc = digest(r, &r->conn, rep, why, size);

	r->call.loaded = rc == REDISCONN_OK;
	return rc;
}

/*
 * Load the script on conn (the session's, or a cluster node's), after a
 * restart flushed it or before a node's first call; *loaded says so.
 */
enum redisconn_result
script_load(struct redis *r, struct redisconn *conn, bool *loaded, char *why,
    size_t size)
{
	const char *argv[] = { "SCRIPT", "LOAD", bucket_script()->text };
	size_t lens[] = { 6, 4, bucket_script()->len };
	enum redisconn_result rc;
	redisReply *rep;

	*loaded = false;
	if ((rc = redisconn_command(conn, 3, argv, lens, &rep, why, size)) !=
	    REDISCONN_OK)
		return rc;
	rc = digest(r, conn, rep, why, size);
	freeReplyObject(rep);
	if (rc != REDISCONN_OK)
		redisconn_close(conn);
	*loaded = rc == REDISCONN_OK;
	return rc;
}

/*
 * Send the call in r->call.argv[0..argc) on conn, the script loaded first
 * where *loaded says it is not, and again if the server lost it.
 */
enum redisconn_result
script_call(struct redis *r, struct redisconn *conn, bool *loaded, int argc,
    redisReply **rep, char *why, size_t size)
{
	enum redisconn_result rc;

	r->cur = conn;
	for (int tries = 0;; tries++) {
		if (!*loaded &&
		    (rc = script_load(r, conn, loaded, why, size)) !=
			REDISCONN_OK)
			return rc;
		r->call.argv[1] = r->call.sha;
		if ((rc = redisconn_command(conn, argc, r->call.argv,
			 r->call.lens, rep, why, size)) != REDISCONN_OK)
			return rc;
		if ((*rep)->type != REDIS_REPLY_ERROR) {
			/* The settings of this call's shard were kept. */
			if (r->shards.cl == NULL || r->shards.at_shard == 0)
				r->share.kept_ns = clock_now_ns();
			return REDISCONN_OK;
		}
		if (strncmp((*rep)->str, "NOSCRIPT", 8) != 0 || tries > 0)
			return REDISCONN_OK;
		/* The server restarted, or its scripts were flushed. */
		freeReplyObject(*rep);
		*loaded = false;
	}
}

#else

/* Without hiredis there is nothing here; ISO C wants a declaration. */
typedef int redisscript_unused;

#endif
