/* Meeting Redis: the settings claimed and kept, its eviction, the script. */
#ifdef HAVE_HIREDIS

#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "errand.h"
#include "msg.h"
#include "rediserr.h"
#include "redisstore.h"

/*
 * Settings rate, burst, unit and total (empty: none) as messages say
 * them, into out; the total only when one side has one (say_total).
 */
static void
settings_text(const char *rate, const char *burst, const char *unit,
    const char *total, bool say_total, char *out, size_t size)
{
	char all[112] = "";

	if (say_total)
		snprintf(all, sizeof all, " and %s%s",
		    total[0] != '\0' ? "--total-rate " : "no --total-rate",
		    total);
	if (strcmp(burst, "tiers") == 0)
		snprintf(out, size, "%s%s", rate, all);
	else if (strcmp(unit, "fixed") == 0 || strcmp(unit, "sliding") == 0)
		snprintf(out, size, "-a %s -r %s%s", unit, rate, all);
	else
		snprintf(out, size, "-r %s, burst %s%s%s", rate, burst,
		    strcmp(unit, "bytes") == 0 ? " (bytes)" : "", all);
}

/*
 * The settings: claimed (checked against those kept in Redis, and set if
 * there are none) the first time, kept (their expiry pushed back) after.
 */
static int
settings_words(void *ctx, const char **argv, size_t *lens)
{
	struct redis *r = ctx;
	int n;

	shard_set(r, 0);
	if (r->shards.cl != NULL && !shard_home(r))
		return 0; /* redis_open and the chore go to its node */
	if (r->share.observe)
		return 0; /* --show, --reset: only look */
	n = bucket_words(r, r->share.claimed ? "keep" : "claim", NULL, 0, 0);

	memcpy(argv, r->call.argv, (size_t)n * sizeof *argv);
	memcpy(lens, r->call.lens, (size_t)n * sizeof *lens);
	return n;
}

/*
 * A claim answered with the settings kept in Redis, which are not this
 * run's: a newcomer that asks for others is refused; a process that has
 * run already (limiting locally while Redis was out of reach) goes on
 * with its own.
 */
static void
differ(const struct redis *r, redisReply *const *e)
{
	char was[TIERS_ID_MAX + 160], asks[TIERS_ID_MAX + 160];
	bool say = e[3]->str[0] != '\0' || r->share.total_text[0] != '\0';

	settings_text(
	    e[0]->str, e[1]->str, e[2]->str, e[3]->str, say, was, sizeof was);
	settings_text(r->share.rate_text, r->share.id_b, r->share.unit,
	    r->share.total_text, say, asks, sizeof asks);
	if (!r->run.ran)
		redisconn_fatal(&r->conn,
		    "shared bucket '%s' is %s; "
		    "this run asks for %s (give the "
		    "same, or wait until no process uses it and it "
		    "is full)",
		    r->keys.name, was, asks);
	msg_escape(was, sizeof was);
	warnx("%s: shared bucket '%s' was set to %s while out of "
	      "reach; this run goes on with %s",
	    r->conn.shown, r->keys.name, was, asks);
}

static enum redisconn_result
settings_answer(void *ctx, const redisReply *rep, char *why, size_t size)
{
	struct redis *r = ctx;
	redisReply *const *e = rep->element;

	if (rep->type == REDIS_REPLY_ERROR && r->shards.cl != NULL &&
	    (strncmp(rep->str, "TRYAGAIN", 8) == 0 ||
		strncmp(rep->str, "ASK ", 4) == 0 ||
		strncmp(rep->str, "MOVED ", 6) == 0)) {
		/* Shard 0's slot on the move: the next call that reaches
		 * it keeps the settings; a move ended sends the session to
		 * its new node (home). */
		r->shards.cl->stale = true;
		return REDISCONN_OK;
	}
	if (rep->type == REDIS_REPLY_ERROR) {
		/* Flushed: load it at the next chance. */
		if (strncmp(rep->str, "NOSCRIPT", 8) == 0)
			r->call.loaded = false;
		snprintf(why, size, "%s", rep->str);
		return REDISCONN_DOWN;
	}
	if (!r->share.claimed && rep->type == REDIS_REPLY_ARRAY &&
	    rep->elements == 4 && e[0]->type == REDIS_REPLY_STRING &&
	    e[1]->type == REDIS_REPLY_STRING &&
	    e[2]->type == REDIS_REPLY_STRING &&
	    e[3]->type == REDIS_REPLY_STRING) {
		differ(r, e);
	} else if (rep->type != REDIS_REPLY_INTEGER || rep->integer != 0) {
		snprintf(why, size, "a reply out of range");
		return REDISCONN_DOWN;
	}
	r->share.claimed = true;
	r->share.kept_ns = clock_now_ns();
	return REDISCONN_OK;
}

/* INFO memory, until the server's eviction is judged; after, if it told. */
static int
info_words(void *ctx, const char **argv, size_t *lens)
{
	static const char *const w[] = { "INFO", "memory" };
	const struct redis *r = ctx;

	return !r->mem.checked || (r->mem.told && !r->mem.by_config) ?
	    redisconn_words(argv, lens, w, 2) :
	    0;
}

/* Why an evicting server is refused, or warned of mid-run, into out. */
static void
evicts_text(const struct redis *r, char *out, size_t size)
{
	snprintf(out, size,
	    "maxmemory-policy %s (maxmemory %llu) evicts the keys of "
	    "tbthrottle%s, resetting its limits: set maxmemory-policy "
	    "noeviction, or give --redis-allow-eviction",
	    r->mem.ev.policy, (unsigned long long)r->mem.ev.maxmemory,
	    strncmp(r->mem.ev.policy, "volatile", 8) == 0 ?
		" (they all expire)" :
		"");
}

/*
 * The server's eviction, known, judged again mid-run: a warning, in the
 * words of the start's refusal, as its policy turns to one that evicts.
 */
static void
judge_again(struct redis *r)
{
	char text[256];
	bool evicts = eviction_evicts(&r->mem.ev);

	if (evicts && !r->mem.evicting) {
		evicts_text(r, text, sizeof text);
		warnx("%s: %s", r->conn.shown, text);
	}
	r->mem.evicting = evicts;
}

/*
 * After a reply to what (INFO memory, CONFIG GET): judge the server's
 * eviction once it is known.  An evicting server ends the run, unless
 * allowed: its buckets, settings and answers kept for a lost batch
 * would vanish, and the limits reset without a word.  A reply that
 * does not tell is noted for the warning.
 */
static enum redisconn_result
judge_memory(struct redis *r, const char *what, const redisReply *rep,
    char *why, size_t size)
{
	char text[256];

	if (eviction_known(&r->mem.ev)) {
		r->mem.at_ns = clock_now_ns();
		if (r->mem.told) {
			judge_again(r);
			return REDISCONN_OK;
		}
		r->mem.checked = r->mem.told = true;
		r->mem.by_config = strcmp(what, "CONFIG GET") == 0;
		if (eviction_evicts(&r->mem.ev) && !r->mem.allow) {
			evicts_text(r, text, sizeof text);
			redisconn_fatal(&r->conn, "%s", text);
		}
		return REDISCONN_OK;
	}
	if (r->mem.told)
		return REDISCONN_OK; /* mid-run, a reading that did not tell */
	if (rep->type == REDIS_REPLY_ERROR && rediserr_transient(rep->str)) {
		snprintf(why, size, "%s", rep->str);
		return REDISCONN_DOWN;
	}
	if (r->mem.why[0] == '\0')
		snprintf(r->mem.why, sizeof r->mem.why, "%s: %s", what,
		    rep->type == REDIS_REPLY_ERROR ? rep->str :
						     "no maxmemory-policy");
	return REDISCONN_OK;
}

static enum redisconn_result
info_answer(void *ctx, const redisReply *rep, char *why, size_t size)
{
	struct redis *r = ctx;

	if (rep->type == REDIS_REPLY_STRING)
		eviction_from_info(&r->mem.ev, rep->str, rep->len);
	return judge_memory(r, "INFO memory", rep, why, size);
}

/* CONFIG GET, when INFO memory did not tell (managed servers may not). */
static int
config_words(void *ctx, const char **argv, size_t *lens)
{
	static const char *const w[] = { "CONFIG", "GET", "maxmemory*" };
	const struct redis *r = ctx;

	return !r->mem.checked || (r->mem.told && r->mem.by_config) ?
	    redisconn_words(argv, lens, w, 3) :
	    0;
}

static enum redisconn_result
config_answer(void *ctx, const redisReply *rep, char *why, size_t size)
{
	struct redis *r = ctx;
	enum redisconn_result rc;

	for (size_t i = 0;
	     rep->type == REDIS_REPLY_ARRAY && i + 1 < rep->elements; i += 2)
		if (rep->element[i]->type == REDIS_REPLY_STRING &&
		    rep->element[i + 1]->type == REDIS_REPLY_STRING)
			eviction_from_config(&r->mem.ev, rep->element[i]->str,
			    rep->element[i + 1]->str);
	if ((rc = judge_memory(r, "CONFIG GET", rep, why, size)) !=
		REDISCONN_OK ||
	    r->mem.checked)
		return rc;
	redis_clean(r, r->mem.why, sizeof r->mem.why);
	warnx("%s: cannot tell whether the server evicts keys (%s); one "
	      "that does resets the limits (maxmemory-policy noeviction "
	      "keeps them)",
	    r->conn.shown, r->mem.why);
	r->mem.checked = true;
	return REDISCONN_OK;
}

/*
 * Meeting Redis on a connection: connect and log in if need be, judge
 * whether it evicts keys (once), load the script, and claim the
 * settings, or keep them.  In the foreground as a run starts and before
 * a booking, in the background otherwise.
 */
static const struct redisconn_step session[] = {
	{ .words = info_words, .answer = info_answer, .may_refuse = true },
	{ .words = config_words, .answer = config_answer, .may_refuse = true },
	{ .words = shard_map_words,
	    .answer = shard_map_answer,
	    .may_refuse = true },
	{ .words = script_load_words,
	    .answer = script_load_answer,
	    .may_refuse = false },
	{ .words = settings_words,
	    .answer = settings_answer,
	    .may_refuse = false },
};

/* Start meeting Redis (session), unless it is under way. */
void
setup_start(struct redis *r)
{
	if (redisconn_busy(&r->conn))
		return;
	if (!redisconn_connected(&r->conn))
		r->call.loaded = false;
	if (r->mem.told) /* judged again from a reading of its own */
		eviction_init(&r->mem.ev);
	redisconn_errand(
	    &r->conn, session, sizeof session / sizeof session[0], r);
}

/* Meet Redis, waiting: OK, DOWN or STOP, the reason in why. */
enum redisconn_result
setup_finish(struct redis *r, char *why, size_t size)
{
	setup_start(r);
	return redisconn_finish(&r->conn, why, size);
}

/*
 * Before a booking: the map of a cluster read again if it may be out of
 * date, and the session met (on a cluster, at shard 0's node).
 */
enum redisconn_result
setup_meet(struct redis *r, char *why, size_t size)
{
	enum redisconn_result rc;

	if (r->shards.cl != NULL) {
		if (r->shards.cl->stale &&
		    (rc = shard_refresh(r, why, size)) != REDISCONN_OK)
			return rc;
		shard_set(r, 0);
		if (!shard_home(r))
			shard_rehome(r);
	}
	if ((!redisconn_connected(&r->conn) || redisconn_busy(&r->conn)) &&
	    (rc = setup_finish(r, why, size)) != REDISCONN_OK)
		return rc;
	if (r->shards.cl != NULL && r->shards.rehome) {
		shard_rehome(r);
		return setup_finish(r, why, size);
	}
	return REDISCONN_OK;
}

#else

/* Without hiredis there is nothing here; ISO C wants a declaration. */
typedef int redissetup_unused;

#endif
