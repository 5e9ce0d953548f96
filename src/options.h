/* Command-line options: the getopt_long table and struct config. */
#ifndef OPTIONS_H
#define OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "redisurl.h"
#include "units.h"

#define TBTHROTTLE_VERSION	"0.1.0"

enum unit_mode { UNIT_LINES, UNIT_NULL, UNIT_DELIM, UNIT_BYTES };
enum algorithm { ALG_TOKEN, ALG_LEAKY, ALG_SLIDING, ALG_FIXED };
enum parse_result { OPT_RUN, OPT_HELP, OPT_VERSION, OPT_ERROR };

/* Most -r options in one run. */
#define MAX_LIMITS	8

/* Live per-key buckets by default (-k), and at most (--max-keys). */
#define DEFAULT_MAX_KEYS	1000000ULL
#define MAX_MAX_KEYS		1000000000ULL

/* One -r with its -b and --initial, validated. */
struct limit {
	struct rate rate;
	uint64_t burst;
	uint64_t initial;
};

struct config {
	struct limit limits[MAX_LIMITS];	/* every -r, in order */
	int nlimits;
	/* The first limit, also in limits[0]: */
	struct rate rate;
	uint64_t burst;		/* units; 0 when the rate is inf */
	uint64_t initial;	/* tokens at start, <= burst */
	bool byte_limited;	/* --byte-rate: records also cost their bytes */
	struct limit byte_limit;
	int64_t catchup_ns;	/* how late units may still keep their slot */
	enum unit_mode mode;
	unsigned char delim;
	enum algorithm algorithm;
	uint64_t queue;		/* --queue: most units waiting, or 0 */
	unsigned key_field;	/* -k: a bucket per value of this field, or 0 */
	int key_sep;		/* -F: field separator, -1 for runs of blanks */
	uint64_t max_keys;	/* --max-keys: most live buckets */
	const char *shared;	/* --shared: the name of a bucket, or NULL */
	bool redis;		/* --redis: the shared bucket is in Redis */
	struct redis_url redis_url;
	enum redis_fallback redis_fallback;
	const char *rate_text;	/* the first -r as given */
	bool drop;		/* police: drop units that find no token */
	const char *drop_to;	/* ... writing them to this file */
	bool stats;		/* -s: report on exit */
	bool stats_json;
	bool progress;		/* -P: live status when stderr is a terminal */
	char **files;
	int nfiles;
	/* -R PID: send the -r and -b strings to PID instead of running. */
	long control_pid;	/* 0 when not given */
	const char *control_rates[MAX_LIMITS];
	const char *control_bursts[MAX_LIMITS];	/* NULL: keep the burst */
	int ncontrol;
};

/*
 * Fill cfg from argv.  Returns OPT_RUN, OPT_HELP or OPT_VERSION, or
 * OPT_ERROR with a one-line reason (naming the bad value) in err.
 */
enum parse_result options_parse(struct config *cfg, int argc, char **argv,
	    char *err, size_t errsz);

/* Is name fit for --shared: up to 64 letters, digits, '.', '_' and '-',
 * not starting with '.'? */
bool	shared_name_ok(const char *name);

/* Print the --help text. */
void	options_usage(FILE *fp);

#endif
