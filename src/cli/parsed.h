/* The command line as the option files read it: options, facts, rows. */
#ifndef PARSED_H
#define PARSED_H

#include <stdbool.h>
#include <stdint.h>

#include "cmdline.h"
#include "options.h"

/* The options, in the order of --help. */
/* clang-format off */
enum opt {
	O_RATE, O_BURST, O_LINES, O_NULL, O_DELIM, O_BYTES, O_BYTE_RATE,
	O_BYTE_BURST, O_ALG, O_LEAKY, O_TZ, O_INITIAL, O_CATCHUP, O_KEY, O_SEP,
	O_MAX_KEYS, O_TIERS, O_TOTAL_RATE, O_TOTAL_BURST, O_ORDER, O_SHARED, O_STATE_DIR, O_REDIS, O_CACERT, O_CERT, O_KEYFILE, O_INSECURE, O_FALLBACK,
	O_EVICTION, O_QUEUE,
	O_DROP,
	O_DROP_TO, O_EXEC, O_JOBS, O_RETRY, O_RETRY_ON, O_RETRY_DELAY,
	O_RETRY_MAX, O_FAILED_TO, O_TIMEOUT, O_HALT, O_JOBLOG, O_RESUME,
	O_RESUME_FAILED, O_ADAPT, O_TAKE, O_SHOW, O_RESET, O_REPLAY, O_SPEED, O_MAX_GAP,
	O_TIME_FIELD, O_TIME_KEY, O_TIME_FORMAT, O_LOOP, O_LOOP_GAP, O_DRY_RUN,
	O_STATS, O_PROGRESS, O_NAME, O_RETUNE, O_RELOAD, O_LIST, O_JSON,
	O_LINE_BUFFER, O_GROUP, O_UNGROUP, O_TAG, O_TAGSTRING, O_HELP,
	O_VERSION, NOPTIONS
};
/* clang-format on */

/*
 * What the rules know besides the options given, a bit each in a word of
 * their own.  Those marked (limits) hold once the -r have been read.
 */
enum fact {
	F_FILES,      /* FILE operands */
	F_LEAD,	      /* a -b before any -r */
	F_B0,	      /* a -b after the first -r */
	F_NO_RATE,    /* no -r, or a -b before the first */
	F_SEVERAL,    /* more than one -r */
	F_INF_AMONG,  /* -r inf among several (limits) */
	F_INF,	      /* one -r, inf (limits) */
	F_UNLIMITED,  /* options_unlimited() (limits) */
	F_NOT_FULL,   /* the first -r starts short of its burst (limits) */
	F_WINDOW,     /* -a sliding or fixed */
	F_SLIDING,    /* -a sliding */
	F_FIXED,      /* -a fixed */
	F_BAD_TARGET, /* -R names neither a process id nor a name */
	F_BAD_SHARED, /* --shared names no bucket */
	F_ORDER_KEY,  /* --order key */
	NFACTS
};
_Static_assert(NOPTIONS <= CMDLINE_MAX, "the options fit in a cmdline");
_Static_assert(CMDLINE_WORDS == 2, "the rules' sets are of two words");
_Static_assert(NFACTS <= 64, "the facts fit in a uint64_t");

#define BIT(i) (UINT64_C(1) << (i))
/*
 * An option's bit in its word of a set: O() for the first 64 options, O1()
 * for the others; each refuses to compile for an option of the other
 * word.
 */
#define O(x) BIT(O_##x + 0 * sizeof(char[O_##x < 64 ? 1 : -1]))
#define O1(x) BIT(O_##x - 64 + 0 * sizeof(char[O_##x >= 64 ? 1 : -1]))
#define F(x) BIT(F_##x)
#define ALL_OPTIONS UINT64_MAX
#define ALL_OPTIONS1 ((UINT64_C(1) << (NOPTIONS - 64)) - 1)
/* What -R takes; the options that need --replay. */
#define RETUNE_OPTIONS \
	(O(RATE) | O(BURST) | O(STATS) | O(RETUNE) | O(RELOAD) | O(SPEED))
#define REPLAY_OPTIONS \
	(O(SPEED) | O(MAX_GAP) | O(TIME_FIELD) | O(TIME_KEY) | \
	    O(TIME_FORMAT) | O(LOOP) | O(LOOP_GAP) | O(DRY_RUN))
/* What --take goes with: what names and limits its bucket, and --drop. */
#define TAKE_OPTIONS \
	(O(TAKE) | O(RATE) | O(BURST) | O(ALG) | O(LEAKY) | O(TZ) | \
	    O(CATCHUP) | O(KEY) | O(SEP) | O(MAX_KEYS) | O(TIERS) | \
	    O(TOTAL_RATE) | O(TOTAL_BURST) | O(SHARED) | O(STATE_DIR) | \
	    O(REDIS) | O(FALLBACK) | O(EVICTION) | O(DROP) | O(LINES) | \
	    O(NULL) | O(CACERT) | O(CERT) | O(KEYFILE) | O(INSECURE) | \
	    O(DELIM) | O(BYTES))

/*
 * The command line as read.  Values that depend on other options stay
 * text until the rules below have seen them all.
 */
struct parsed {
	struct config cfg;
	const char *rates[MAX_LIMITS];	/* every -r */
	const char *bursts[MAX_LIMITS]; /* the -b after each -r, or NULL */
	int nrates;
	const char *lead_burst; /* a -b before any -r */
	const char *initial, *byte_rate, *byte_burst, *retune, *speed;
	const char *total_rate, *total_burst;
	const char *loop;
	bool inf_among;	   /* -r inf was one of several -r */
	struct cmdline cl; /* the options given, in turn */
	char *err;	   /* the reason for OPT_ERROR */
	size_t errsz;
};

/* The option table, a row per option in the order of --help. */
extern const struct cmdline_option options_table[NOPTIONS];

/* The message of two -b for one -r: the -b quoted, then the other. */
extern const char options_burst_twice[];

/*
 * Is name fit for --shared: up to 64 letters, digits, '.', '_' and '-',
 * not starting with '.'?
 */
bool options_shared_name_ok(const char *name);

/*
 * Run the refused combinations over p, the options read, top to bottom:
 * OPT_RUN, or OPT_ERROR with the reason in p->err.  Values that depend on
 * other options are parsed into p->cfg on the way.
 */
enum parse_result rules_check(struct parsed *p);

#endif
