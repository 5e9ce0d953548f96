/*
 * A bucket in Redis, as the files that keep it share it (redis.h is what
 * the rest of tbthrottle sees): its state, and what each file offers.
 */
#ifndef REDISSTORE_H
#define REDISSTORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cluster.h"
#include "eviction.h"
#include "limiter.h"
#include "redisconn.h"
#include "redisrate.h"
#include "redisurl.h"
#include "sentinel.h"

#define MS 1000000LL
/* A booking that waits for Redis (block): its first retry, the longest wait. */
#define RETRY_FIRST_NS (100 * MS)
#define RETRY_MAX_NS (2000 * MS)
/*
 * With Sentinel, each try asks the sentinels where the master is, and a
 * failover is over as soon as they name the one promoted: the tries stay
 * this close, so that the output resumes within it of the promotion.
 */
#define RETRY_SENTINEL_NS (200 * MS)
/* While Redis is down, the wait from a failed try to the next probe. */
#define PROBE_AFTER_NS (1000 * MS)
/*
 * The settings key lives this long after its last refresh (and at least
 * as long as any bucket of its name holds anything); each process
 * refreshes it at least every HEARTBEAT_MS * 3 / 2, under half of that.
 */
#define SETTINGS_TTL_MS 10000
#define HEARTBEAT_MS 3000
/*
 * On a Redis Cluster, the slots a name's buckets spread over: a key's
 * bucket is in shard hash(key) mod SHARDS, whose keys share the hash tag
 * "{NAME:s}", so that one call of the script, which must keep to one
 * slot, books all the keys of a shard at once.  The settings, and the
 * claim of newcomers, live in shard 0.
 */
#define SHARDS 16

/* Most arguments of a call of the script: its keys and arguments. */
#define CALL_ARGS (17 + 4 * REDIS_BATCH_MAX)

/* The names of a bucket's keys in Redis. */
struct redis_keys {
	char *key;	 /* "tbthrottle:NAME", and with -k ":KEY" */
	size_t key_base; /* length of "tbthrottle:NAME" */
	size_t key_len, key_size;
	char settings[128]; /* "tbthrottle-settings:NAME" */
	char last[160];	    /* "tbthrottle-settings:NAME:last:ID" */
	/* The total's bucket, "tbthrottle-settings:NAME:total": no key of
	 * -k can name it, as theirs are "tbthrottle:NAME:KEY". */
	char total_key[144];
	char name[80];
	char session[17]; /* this process's number, in hex */
	char *names;	  /* the buckets' names of a call, end to end */
	size_t names_size;
};

/* The settings every process of the name shares, as the script has them. */
struct redis_share {
	struct redis_rate total; /* the total's rate: none without one */
	char total_text[96];	 /* as messages say it, or empty */
	char rate_text[TIERS_ID_MAX];
	struct redis_rate own;	 /* the bucket's rate, -r's */
	char id_i[80], id_b[24]; /* the settings newcomers must give */
	const char *unit;	 /* "bytes" or "records" */
	bool claimed;		 /* the settings were checked in Redis */
	bool observe;		 /* not claimed: --show and --reset */
	/* -a fixed --tz: the zone, and when its offset changes next (the
	 * interval is made anew then); the window's width. */
	const struct zonemap *zone;
	int64_t zone_next_ns;
	uint64_t width_ns;
	int64_t kept_ns; /* when the settings were last refreshed */
};

/* What the server said of its memory: whether it evicts keys. */
struct redis_memory {
	struct eviction ev;
	bool checked;  /* its eviction was judged, or cannot be */
	bool allow;    /* --redis-allow-eviction */
	char why[160]; /* why it could not be told */
	int64_t at_ns; /* when its eviction was last judged */
	/* After the start, the server's eviction is judged again with the
	 * settings kept, asked the way that told (INFO or CONFIG GET): a
	 * warning each time the policy turns to one that evicts. */
	bool told, by_config, evicting;
};

/* The call of the script: its words, and the text of some. */
struct redis_call {
	char sha[41]; /* the script's digest */
	bool loaded;  /* the script is loaded on the session's connection */
	const char *argv[CALL_ARGS];
	size_t lens[CALL_ARGS];
	char head[4][24]; /* keys, TTL, batch, look-ahead */
	char units[REDIS_BATCH_MAX][24];
	size_t asked[REDIS_BATCH_MAX]; /* the bookings Redis is asked */
	uint64_t seq;		       /* the number of the batch under way */
	bool again;		       /* the batch under way is asked again */
};

/* A Redis Cluster: its nodes, and the shards a batch goes to. */
struct redis_shards {
	struct cluster *cl;	   /* NULL for a lone server */
	bool mode_known;	   /* whether it is a cluster was asked */
	bool rehome;		   /* shard 0 is served by another node */
	unsigned at_shard;	   /* the shard the keys are named for */
	struct redis_url home_url; /* the node of shard 0 */
	unsigned char shard[REDIS_BATCH_MAX]; /* each booking's (take) */
	bool done[REDIS_BATCH_MAX];	      /* answered */
	bool late[REDIS_BATCH_MAX];	      /* booked to wait */
	size_t calm; /* shaping, records booked since the last that waited */
};

/* Up or down, and what goes on meanwhile. */
struct redis_run {
	enum redis_fallback fallback;
	struct limiter *local;
	bool ran;	     /* units were booked, here or locally */
	bool busy;	     /* a call is under way: no chore now */
	bool down;	     /* reported as down, not yet back */
	char down_at[400];   /* the node the report named, password masked */
	int64_t retry_ns;    /* blocking: wait before the next connect */
	int64_t next_try_ns; /* down: when to probe it next */
};

/*
 * --adapt: the fleet's last cut, in the settings (ac, ap): as Redis
 * stamped it (TIME, us), and as this process's word (adapt_word), its
 * time on this host's monotonic clock.
 */
struct redis_fleet {
	int64_t cut_us;	  /* the cut last read; 0: none */
	uint64_t word;	  /* it as a word; 0: never cut */
	uint64_t pending; /* a cut of this process not yet offered; 0: none */
	int64_t look_ns;  /* when to read it again */
};

struct redis {
	struct redis_url url;
	struct redisconn conn;	       /* the session's */
	struct sentinel_finder finder; /* with redis-sentinel:// */
	struct redisconn *cur;	       /* the connection of the last call */
	struct redis_keys keys;
	struct redis_share share;
	struct redis_memory mem;
	struct redis_call call;
	struct redis_shards shards;
	struct redis_run run;
	struct redis_fleet fleet;
};

/* A Lua script of a family of calls: its text, loaded by SCRIPT LOAD. */
struct redis_script {
	const char *text;
	size_t len;
};

/* bucketscript.c: the check-and-book of the buckets, and its calls. */
const struct redis_script *bucket_script(void);

/* The rate of booking b: its key's, or the bucket's own. */
const struct redis_rate *bucket_rate_of(
    const struct redis *r, const struct booking *b);

/*
 * The words of the bucket script's call of op, for the buckets of
 * b[r->call.asked[0..m)] looking ahead ahead_ns, into r->call.argv and
 * r->call.lens; how many.
 */
int bucket_words(struct redis *r, const char *op, const struct booking *b,
    size_t m, int64_t ahead_ns);

/* Is Redis asked about booking b (a limit that lets some go, or a total)? */
bool bucket_asks(const struct redis *r, const struct booking *b);

/* Answer booking b, of no limit (inf) or none, here: due at due_ns. */
void bucket_answer_here(
    const struct redis *r, struct booking *b, int64_t due_ns);

/*
 * Is rep the script's answer for the m buckets of b[asked[0..m)], at least
 * least of them (take: each), each number in range?  Else why says not.
 */
bool bucket_answer_fits(const struct booking *b, const size_t *asked, size_t m,
    bool take, size_t least, const redisReply *rep, char *why, size_t size);

/* bucket_answer_fits for at least one of them (take: each). */
bool bucket_answer_ok(const struct booking *b, const size_t *asked, size_t m,
    bool take, const redisReply *rep, char *why, size_t size);

/* redisscript.c: the step of an errand that loads the scripts (ctx: r). */
int script_load_words(void *ctx, const char **argv, size_t *lens);
enum redisconn_result script_load_answer(
    void *ctx, const redisReply *rep, char *why, size_t size);

/*
 * Load the scripts on conn, waiting: OK (*loaded true), DOWN or STOP;
 * an answer that no waiting cures ends the process (exit 1).
 */
enum redisconn_result script_load(struct redis *r, struct redisconn *conn,
    bool *loaded, char *why, size_t size);

/*
 * Send the call in r->call.argv[0..argc) on conn and await its reply in
 * *rep: the script loaded first where *loaded says it is not, and again
 * once if the server lost it (NOSCRIPT).  OK, DOWN or STOP.
 */
enum redisconn_result script_call(struct redis *r, struct redisconn *conn,
    bool *loaded, int argc, redisReply **rep, char *why, size_t size);

/* redisshard.c: on a cluster, the keys named for shard s from now on. */
void shard_set(struct redis *r, unsigned s);

/* The shard of booking b's bucket on a cluster (0 for all with a total). */
unsigned shard_of(const struct redis *r, const struct booking *b);

/* Read the cluster's map again: OK, DOWN or STOP. */
enum redisconn_result shard_refresh(struct redis *r, char *why, size_t size);

/* Sleep until until_ns (CLOCK_MONOTONIC), handling signals; false on a stop. */
bool redis_sleep_until(int64_t until_ns);

/*
 * Run the bucket script's op for the buckets of b[r->call.asked[0..m)]
 * (none: the settings alone), on a cluster at the node of the keys'
 * slot; the reply in *rep.  OK, DOWN or STOP.
 */
enum redisconn_result redis_eval(struct redis *r, const char *op,
    const struct booking *b, size_t m, int64_t ahead_ns, redisReply **rep,
    char *why, size_t size);

/* Is the session at the node of shard 0?  Else it is to go there. */
bool shard_home(struct redis *r);

/* The step of the session that asks whether Redis is a cluster (ctx: r). */
int shard_map_words(void *ctx, const char **argv, size_t *lens);
enum redisconn_result shard_map_answer(
    void *ctx, const redisReply *rep, char *why, size_t size);

/* On a cluster, have the session's connection go to shard 0's node. */
void shard_rehome(struct redis *r);

/*
 * On a cluster, while records wait: how many of b[0..n) to book in one
 * call, up to the first asked of another shard; the keys named for it.
 */
size_t shard_one(struct redis *r, const struct booking *b, size_t n);

/* The bookings of b[0..n) not yet answered in shard s, into r->call.asked. */
size_t shard_gather(struct redis *r, size_t n, unsigned s);

/*
 * fanout.c: on a cluster, book b[0..n) (take: take for each) with a call
 * for each shard, all sent at once: OK with how many in *got, DOWN or
 * STOP.
 */
enum redisconn_result fanout_book(struct redis *r, struct booking *b, size_t n,
    bool take, int64_t ahead_ns, size_t *got, char *why, size_t size);

/* redissetup.c: start meeting Redis, in the background, unless under way. */
void setup_start(struct redis *r);

/* Meet Redis, waiting: OK, DOWN or STOP, the reason in why. */
enum redisconn_result setup_finish(struct redis *r, char *why, size_t size);

/*
 * Before a booking: a cluster's map read again if it may be out of date,
 * and the session met (on a cluster, at shard 0's node).  OK, DOWN, STOP.
 */
enum redisconn_result setup_meet(struct redis *r, char *why, size_t size);

/* redisbook.c: report Redis down (once) or back, why the reason. */
void book_report(struct redis *r, bool down, char *why, size_t size);

/* Have the waits go on with the errand under way, or probe when due. */
void book_watch(const struct redis *r);

/* The work in the background, on a tick or when a wait saw it due (arg: r). */
void book_chore(void *arg);

/* redis.c: why, made fit for a message: no password, no control bytes. */
void redis_clean(const struct redis *r, char *why, size_t size);

/* A reply that books nothing (freed here): Redis counts as down for now. */
enum redisconn_result redis_unexpected(
    struct redis *r, redisReply *rep, char *why, size_t size);

/* -a fixed --tz: the zone's offsets in the interval, made anew once they
 * change (at each booking, at the cost of a reading of the clock). */
void redis_zone_refresh(struct redis *r);

#endif
