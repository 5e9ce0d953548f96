/* Command-line options: struct config, read from the table of options. */
#ifndef OPTIONS_H
#define OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "failure.h"
#include "redisurl.h"
#include "spec.h"

#define TBTHROTTLE_VERSION "0.2.2"

enum parse_result { OPT_RUN, OPT_HELP, OPT_VERSION, OPT_ERROR };
/* --order: of the records that wait, which goes first. */
enum order { ORDER_INPUT, ORDER_KEY };
/* --line-buffer, --group, --ungroup, or none given (-j and -P choose). */
enum output_choice { OUTPUT_AUTO, OUTPUT_LINE, OUTPUT_WHOLE, OUTPUT_OWN };

/* Most -r options in one run. */
#define MAX_LIMITS 8

/* Live per-key buckets by default (-k), and at most (--max-keys). */
#define DEFAULT_MAX_KEYS 1000000ULL
#define MAX_MAX_KEYS 1000000000ULL

/*
 * --catch-up by default: BUCKET_CATCHUP_NS (the unit tests check it), named
 * here so that options need not include the limiters.
 */
#define DEFAULT_CATCHUP_NS 10000000LL
/* --retry-delay and --retry-max-delay unless given. */
#define DEFAULT_RETRY_DELAY_NS 1000000000LL
#define DEFAULT_RETRY_MAX_NS 60000000000LL

struct config {
	/*
	 * Every finite -r, in order; limits[0] is the first.  nlimits is 0
	 * when units have no limit of their own: with -r inf, or with
	 * --byte-rate and no -r.  See options_unlimited().
	 */
	struct limit limits[MAX_LIMITS];
	int nlimits;
	bool byte_limited; /* --byte-rate: records also cost their bytes */
	struct limit byte_limit;
	enum order order;   /* --order key: each key at its own pace */
	bool total_limited; /* --total-rate: all keys together, too */
	struct limit total_limit;
	const char *total_text; /* --total-rate as given */
	int64_t catchup_ns;	/* how late units may still keep their slot */
	enum unit_mode mode;
	unsigned char delim;
	enum algorithm algorithm;
	/* --tz: the zone of -a fixed's calendar, or NULL (UTC). */
	const char *tz;
	uint64_t queue;		/* --queue: most units waiting, or 0 */
	unsigned key_field;	/* -k: a bucket per value of this field, or 0 */
	int key_sep;		/* -F: field separator, -1 for runs of blanks */
	uint64_t max_keys;	/* --max-keys: most live buckets */
	const char *tiers_file; /* --tiers: the rates of keys by pattern */
	const char *shared;	/* --shared: the name of a bucket, or NULL */
	bool redis;		/* --redis: the shared bucket is in Redis */
	const char *state_dir;	/* --state-dir: where --shared keeps it */
	struct redis_url redis_url;
	enum redis_fallback redis_fallback;
	bool redis_allow_eviction; /* a server that evicts keys will do */
	const char *rate_text;	   /* the first -r as given */
	bool drop;		   /* police: drop units that find no token */
	const char *drop_to;	   /* ... writing them to this file */
	bool stats;		   /* -s: report on exit */
	bool stats_json;
	bool progress; /* -P: live status when stderr is a terminal */
	char **files;
	int nfiles;
	bool replay; /* --replay: records leave at their own timestamps */
	uint64_t speed_num, speed_den; /* --speed, as a fraction; 1/1 */
	int64_t max_gap_ns;	       /* --max-gap, or -1 for none */
	unsigned time_field;	       /* --time-field, or 0 */
	const char *time_key;	       /* --time-key, or NULL */
	bool dry_run;	/* --dry-run: describe the replay, release nothing */
	uint64_t loops; /* --loop: passes after the first, or UINT64_MAX */
	int64_t loop_gap_ns;	 /* --loop-gap, 0 by default */
	const char *time_format; /* --time-format, or NULL */
	const char *name;	 /* --name: what -R and --list call this run */
	bool list;		 /* --list: list the running tbthrottles */
	bool list_json;		 /* ... a JSON object a line (--json) */
	/* -R NAME|PID: send the -r and -b strings (or ask for the --stats
	 * report) instead of running. */
	const char *control_target; /* NULL when not given */
	const char *control_rates[MAX_LIMITS];
	const char *control_bursts[MAX_LIMITS]; /* NULL: keep the burst */
	int ncontrol;
	bool control_reload;	   /* ... or ask it to read its --tiers again */
	const char *control_speed; /* -R ... --speed X: X, or NULL */
	/* --exec CMD [ARG...] [;]: a command started for each record. */
	bool exec;
	char **exec_argv; /* CMD and its ARGs, exec_argc of them */
	int exec_argc;
	unsigned jobs; /* -j: most commands in flight, 1 by default */
	enum output_choice output; /* how their output reaches ours */
	bool tag;		   /* --tag: each line after its record */
	const char *tagstring;	   /* --tagstring: or after this, filled */
	/* --retry N: a command that exits with a status of retry_on is
	 * started again, up to N more times, after a wait from
	 * retry_delay_ns doubling up to retry_max_ns. */
	unsigned retries;
	struct exitset retry_on;
	int64_t retry_delay_ns, retry_max_ns;
	const char *failed_to; /* --failed-to: records that failed, whole */
	int64_t timeout_ns;    /* --timeout: a command's longest run; 0: none */
	struct halt halt;      /* --halt: failures that end the run */
	const char *joblog;    /* --joblog: a line per record done */
	/* --resume, --resume-failed: the records --joblog says were done
	 * (--resume-failed: done and succeeded) are not started again. */
	bool resume, resume_failed;
	/* --adapt: each command that asks to be tried again slows the rate,
	 * which climbs back to -r after. */
	bool adapt;
	/* --take [KEY] [N]: take N tokens (of KEY's bucket) and exit. */
	bool take;
	/* --show, --reset: the --shared bucket shown, or made new. */
	bool show, reset;
	const char *take_key; /* with -k, else NULL */
	uint64_t take_units;
	/* A line to warn of before the run starts, or empty. */
	char warning[192];
	/* An option of ours after --exec, which the command takes, or empty. */
	char exec_warning[256];
};

/*
 * Do units go out without a limit of their own (-r inf, --byte-rate)?
 * With --tiers and no -r, the keys no tier takes have none to go by.
 */
static inline bool
options_unlimited(const struct config *cfg)
{
	return cfg->nlimits == 0 && cfg->tiers_file == NULL;
}

/*
 * Fill cfg from argv.  Returns OPT_RUN, OPT_HELP or OPT_VERSION, or
 * OPT_ERROR with a one-line reason (naming the bad value) in err.
 */
enum parse_result options_parse(
    struct config *cfg, int argc, char **argv, char *err, size_t errsz);

/*
 * How options_parse tells whether a file of a name exists (-P 4 is a
 * FILE 4 only if there is one), as the caller can: without, none does.
 */
void options_file_test(bool (*exists)(const char *path));

/* Print the --help text. */
void options_usage(FILE *fp);

/* The long name of option i (without "--"), or NULL past the last. */
const char *options_long_name(int i);

#endif
