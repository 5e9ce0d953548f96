/* Command-line options: the getopt_long table and struct config. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "bucket.h"
#include "window.h"
#include "options.h"

enum { OPT_LEAKY = 256, OPT_INITIAL, OPT_CATCHUP, OPT_STATS, OPT_DROP,
	OPT_DROP_TO, OPT_BYTE_RATE, OPT_BYTE_BURST, OPT_QUEUE, OPT_MAX_KEYS,
	OPT_SHARED, OPT_REDIS, OPT_REDIS_FALLBACK };

static const char shortopts[] = ":r:b:l0d:ca:sPR:k:F:hV";

static const struct option longopts[] = {
	{ "rate", required_argument, NULL, 'r' },
	{ "burst", required_argument, NULL, 'b' },
	{ "lines", no_argument, NULL, 'l' },
	{ "null", no_argument, NULL, '0' },
	{ "delimiter", required_argument, NULL, 'd' },
	{ "bytes", no_argument, NULL, 'c' },
	{ "algorithm", required_argument, NULL, 'a' },
	{ "leaky", no_argument, NULL, OPT_LEAKY },
	{ "initial", required_argument, NULL, OPT_INITIAL },
	{ "catch-up", required_argument, NULL, OPT_CATCHUP },
	{ "stats", optional_argument, NULL, OPT_STATS },
	{ "drop", no_argument, NULL, OPT_DROP },
	{ "progress", no_argument, NULL, 'P' },
	{ "retune", required_argument, NULL, 'R' },
	{ "drop-to", required_argument, NULL, OPT_DROP_TO },
	{ "byte-rate", required_argument, NULL, OPT_BYTE_RATE },
	{ "byte-burst", required_argument, NULL, OPT_BYTE_BURST },
	{ "queue", required_argument, NULL, OPT_QUEUE },
	{ "key", required_argument, NULL, 'k' },
	{ "field-separator", required_argument, NULL, 'F' },
	{ "max-keys", required_argument, NULL, OPT_MAX_KEYS },
	{ "shared", required_argument, NULL, OPT_SHARED },
	{ "redis", required_argument, NULL, OPT_REDIS },
	{ "redis-fallback", required_argument, NULL, OPT_REDIS_FALLBACK },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 }
};

/* Longest time a full bucket may take to refill: 100 years. */
#define MAX_REFILL_NS	(100.0L * 365.25L * 86400.0L * 1e9L)
/* The default byte-mode burst is this much time at the rate. */
#define BYTE_BURST_NS	10000000ULL

void
options_usage(FILE *fp)
{
	fputs(
"usage: tbthrottle -r RATE [-b BURST] [-l | -0 | -d C | -c]\n"
"                  [--byte-rate RATE [--byte-burst N]]\n"
"                  [-a ALG] [--initial N] [--catch-up T]\n"
"                  [-k FIELD [-F C] [--max-keys N]]\n"
"                  [--shared NAME [--redis URL [--redis-fallback F]]]\n"
"                  [--queue N] [--drop | --drop-to FILE]\n"
"                  [-s | --stats=json] [-P]\n"
"                  [FILE ...]\n"
"       tbthrottle -R PID -r RATE [-b BURST] ...\n"
"Copy FILEs (or standard input) to standard output, releasing lines,\n"
"records or bytes no faster than RATE.\n"
"\n"
"  -r, --rate RATE      units per period: 5, 90/min, 3/10s, 2k/s, inf;\n"
"                       repeat for several limits, each -b after its -r\n"
"                       (with -c: 64K/s, 1.5MB/s, 1G/min)\n"
"  -b, --burst N        bucket size in units, or a duration such as 2s\n"
"                       (default: 1 record; with -c, 10ms of the rate)\n"
"  -l, --lines          a unit is a line ending in newline (default)\n"
"  -0, --null           a unit is a record ending in NUL\n"
"  -d, --delimiter C    a unit is a record ending in byte C (',' '\\t' '\\x1e')\n"
"  -c, --bytes          a unit is a byte\n"
"      --byte-rate RATE also limit records by their bytes: 1M/s, 64KiB/s;\n"
"                       -r may then be left out\n"
"      --byte-burst N   bytes the byte limit may burst, or a duration\n"
"                       (default: 10ms of the byte rate)\n"
"  -a, --algorithm ALG  token: bursts up to BURST (default);\n"
"                       leaky: one unit every 1/RATE, evenly spaced;\n"
"                       sliding: at most N in any PERIOD of RATE N/PERIOD;\n"
"                       fixed: at most N per PERIOD on the wall clock\n"
"      --leaky          same as -a leaky\n"
"      --initial N      tokens in the bucket at start (default: full)\n"
"      --catch-up T     how late a unit may be and keep its slot (10ms)\n"
"  -k, --key FIELD      a bucket of its own for each value of field FIELD\n"
"                       (1-based) of a record; best with --drop\n"
"  -F, --field-separator C  fields end at byte C (default: runs of blanks)\n"
"      --max-keys N     most keys with a live bucket (1000000); beyond,\n"
"                       new keys share one bucket\n"
"      --shared NAME    draw from the bucket NAME, shared by every\n"
"                       tbthrottle of yours started with it\n"
"      --redis URL      keep the --shared bucket in Redis, for many hosts:\n"
"                       redis://[[user]:password@]host[:port][/db]\n"
"      --redis-fallback F  while Redis is down: block (default), local\n"
"                       (limit this process alone) or fail\n"
"      --queue N        at most N records wait: reading pauses, or with\n"
"                       --drop a record that finds N waiting is dropped\n"
"      --drop           drop units that find no token instead of waiting\n"
"      --drop-to FILE   the same, appending dropped units whole to FILE\n"
"  -s, --stats[=json]   report units and bytes in, out, dropped on exit\n"
"                       (and on SIGUSR1) to standard error\n"
"  -P, --progress       a live status line on stderr, if it is a terminal\n"
"  -R, --retune PID     change the -r and -b of the running tbthrottle PID\n"
"                       (ours only); a -r without -b keeps its burst\n"
"  -h, --help           show this help and exit\n"
"  -V, --version        show the version and exit\n"
"\n"
"RATE is NUMBER[SUFFIX][/[N]PERIOD] with PERIOD one of ms, s, min, h, day.\n"
"Records go out whole; the last one needs no delimiter.  Exit status is\n"
"0 on success, 1 on a read or write error, 2 on a usage error.\n"
"See tbthrottle(1) for the full grammar and examples.\n", fp);
}

static int
fail(char *err, size_t errsz, const char *msg)
{
	snprintf(err, errsz, "%s", msg);
	return -1;
}

/* Parse --catch-up: a duration up to an hour, or 0. */
static int
parse_catchup(const char *s, int64_t *ns, char *err, size_t errsz)
{
	struct amount a;
	char why[160];

	if (parse_amount(s, false, &a, why, sizeof why) != 0) {
		snprintf(err, errsz, "invalid --catch-up '%s': %s", s, why);
		return -1;
	}
	if (!a.is_duration && a.num != 0) {
		snprintf(err, errsz, "invalid --catch-up '%s': give a duration "
		    "such as 10ms or 0", s);
		return -1;
	}
	if (a.num / a.den > 3600ULL * 1000000000) {
		snprintf(err, errsz, "invalid --catch-up '%s': at most 1h", s);
		return -1;
	}
	*ns = (int64_t)(a.num / a.den);
	return 0;
}

/* Parse a delimiter: one byte, or \n \t \r \0 \\ \xHH. */
static int
parse_delim(const char *s, unsigned char *out, char *err, size_t errsz)
{
	static const char esc_from[] = "ntr0\\", esc_to[] = "\n\t\r\0\\";
	const char *e;
	unsigned v = 0;

	if (s[0] == '\0') {
		snprintf(err, errsz, "invalid delimiter '': give one byte "
		    "such as ',' or '\\t'");
		return -1;
	}
	if (s[1] == '\0') {
		*out = (unsigned char)s[0];
		return 0;
	}
	if (s[0] == '\\' && s[1] != '\0' && s[2] == '\0' &&
	    (e = strchr(esc_from, s[1])) != NULL) {
		*out = (unsigned char)esc_to[e - esc_from];
		return 0;
	}
	if (s[0] == '\\' && s[1] == 'x' && s[2] != '\0') {
		int i;

		for (i = 2; i < 4 && s[i] != '\0'; i++) {
			char c = s[i];

			if (c >= '0' && c <= '9')
				v = v * 16 + (unsigned)(c - '0');
			else if (c >= 'a' && c <= 'f')
				v = v * 16 + (unsigned)(c - 'a' + 10);
			else if (c >= 'A' && c <= 'F')
				v = v * 16 + (unsigned)(c - 'A' + 10);
			else
				break;
		}
		if (s[i] == '\0') {
			*out = (unsigned char)v;
			return 0;
		}
	}
	snprintf(err, errsz, "invalid delimiter '%s': give one byte, or "
	    "\\n \\t \\r \\0 \\\\ \\xHH", s);
	return -1;
}

/*
 * Describe the option getopt_long refused.  optopt is no help for long
 * options (glibc sets it to the option's value), so read the word itself.
 */
static void
bad_option(const char *word, char *err, size_t errsz)
{
	const struct option *o;
	size_t len;

	if (strncmp(word, "--", 2) != 0) {
		if (optopt > ' ' && optopt < 127)
			snprintf(err, errsz, "unknown option '-%c' (see "
			    "--help)", optopt);
		else
			snprintf(err, errsz, "unknown option '%s' (see "
			    "--help)", word);
		return;
	}
	len = strcspn(word + 2, "=");
	for (o = longopts; o->name != NULL; o++)
		if (strlen(o->name) == len &&
		    strncmp(o->name, word + 2, len) == 0 &&
		    o->has_arg == no_argument && word[2 + len] == '=') {
			snprintf(err, errsz, "option '--%s' takes no value "
			    "(see --help)", o->name);
			return;
		}
	snprintf(err, errsz, "unknown option '%.*s' (see --help)",
	    (int)(len + 2), word);
}

static const char *
mode_flag(enum unit_mode m)
{
	static const char *const flags[] = { "-l", "-0", "-d", "-c" };

	return flags[m];
}

/* -a sliding or fixed: N/PERIOD is the window; N is the only burst. */
static int
resolve_sliding(struct config *cfg, const char *rate_arg,
    const char *burst_arg, const char *initial_arg, char *err, size_t errsz)
{
	if (burst_arg != NULL || initial_arg != NULL) {
		snprintf(err, errsz, "%s does not apply to -a %s: N in "
		    "N/PERIOD is the most units in a window",
		    burst_arg != NULL ? "-b" : "--initial",
		    cfg->algorithm == ALG_FIXED ? "fixed" : "sliding");
		return -1;
	}
	if (cfg->rate.count == 0 || cfg->rate.period_ns == 0) {
		snprintf(err, errsz, "invalid rate '%s' for a window: give a "
		    "whole count per period, such as 100/min or 1/2s",
		    rate_arg);
		return -1;
	}
	if (cfg->rate.count > WINDOW_MAX_LIMIT &&
	    cfg->algorithm == ALG_SLIDING) {
		snprintf(err, errsz, "invalid rate '%s' for -a sliding: at "
		    "most %llu units per window", rate_arg,
		    (unsigned long long)WINDOW_MAX_LIMIT);
		return -1;
	}
	cfg->burst = cfg->initial = cfg->rate.count;
	return 0;
}

/* Turn the raw arguments into validated limits once the mode is known. */
static int
resolve(struct config *cfg, const char *rate_arg, const char *burst_arg,
    const char *initial_arg, char *err, size_t errsz)
{
	bool bytes = cfg->mode == UNIT_BYTES;
	struct amount a;
	char why[160];
	long double refill;

	if (rate_arg == NULL)
		return fail(err, errsz, "missing -r RATE (for example -r 10/s "
		    "or -c -r 1M/s; see --help)");
	if (parse_rate(rate_arg, bytes, &cfg->rate, why, sizeof why) != 0) {
		snprintf(err, errsz, "invalid rate '%s': %s", rate_arg, why);
		return -1;
	}
	if (burst_arg != NULL && cfg->algorithm == ALG_LEAKY) {
		snprintf(err, errsz, "-b %s does not apply to -a leaky, which "
		    "releases one unit every 1/RATE", burst_arg);
		return -1;
	}
	if ((cfg->algorithm == ALG_SLIDING || cfg->algorithm == ALG_FIXED) &&
	    !cfg->rate.inf)
		return resolve_sliding(cfg, rate_arg, burst_arg, initial_arg,
		    err, errsz);

	/* Defaults: one record, or 10 ms of the rate in bytes; leaky is a
	 * bucket that holds one unit. */
	cfg->burst = 1;
	if (bytes && !cfg->rate.inf && cfg->algorithm == ALG_TOKEN) {
		a = (struct amount){ true, BYTE_BURST_NS, 1 };
		if (amount_units(&a, &cfg->rate, &cfg->burst) != 0 ||
		    cfg->burst == 0)
			cfg->burst = 1;
	}
	if (burst_arg != NULL) {
		if (parse_amount(burst_arg, bytes, &a, why, sizeof why) != 0) {
			snprintf(err, errsz, "invalid burst '%s': %s",
			    burst_arg, why);
			return -1;
		}
		if (!a.is_duration && a.num == 0) {
			snprintf(err, errsz, "invalid burst '%s': must be at "
			    "least 1 unit", burst_arg);
			return -1;
		}
		if (!cfg->rate.inf) {
			if (amount_units(&a, &cfg->rate, &cfg->burst) != 0) {
				snprintf(err, errsz, "invalid burst '%s': too "
				    "large", burst_arg);
				return -1;
			}
			if (cfg->burst == 0) {
				snprintf(err, errsz, "invalid burst '%s': %s",
				    burst_arg, a.is_duration ?
				    "less than one unit at this rate" :
				    "must be at least 1 unit");
				return -1;
			}
		}
	}
	cfg->initial = cfg->burst;
	if (initial_arg != NULL) {
		if (parse_amount(initial_arg, bytes, &a, why, sizeof why) != 0) {
			snprintf(err, errsz, "invalid --initial '%s': %s",
			    initial_arg, why);
			return -1;
		}
		if (!cfg->rate.inf) {
			if (amount_units(&a, &cfg->rate, &cfg->initial) != 0 ||
			    cfg->initial > cfg->burst) {
				snprintf(err, errsz, "invalid --initial '%s': "
				    "more than the burst of %llu", initial_arg,
				    (unsigned long long)cfg->burst);
				return -1;
			}
		}
	}
	if (cfg->rate.inf)
		return 0;
	refill = (long double)cfg->burst * cfg->rate.d / cfg->rate.n;
	if (refill > MAX_REFILL_NS) {
		snprintf(err, errsz, "invalid burst '%s': takes more than 100 "
		    "years to refill at %s", burst_arg ? burst_arg : "",
		    rate_arg);
		return -1;
	}
	return 0;
}

/*
 * -R PID -r RATE [-b BURST] ...: check the PID and that each value reads
 * as a rate or an amount of records or bytes; the running tbthrottle
 * checks them against its own mode and answers.
 */
static int
resolve_control(struct config *cfg, const char *pid_arg, int nrates,
    const char **rate_args, const char **burst_args, const char *lead_burst,
    char *err, size_t errsz)
{
	struct rate r;
	struct amount a;
	char why[160], *end;
	long pid;

	errno = 0;
	pid = strtol(pid_arg, &end, 10);
	if (errno != 0 || end == pid_arg || *end != '\0' || pid < 1 ||
	    pid > INT_MAX) {
		snprintf(err, errsz, "invalid -R '%s': give the process id of "
		    "a running tbthrottle", pid_arg);
		return -1;
	}
	if (nrates == 0 || lead_burst != NULL) {
		snprintf(err, errsz, "-R %s needs -r RATE [-b BURST] for each "
		    "limit to change", pid_arg);
		return -1;
	}
	for (int i = 0; i < nrates; i++) {
		if (parse_rate(rate_args[i], false, &r, why, sizeof why) != 0 &&
		    parse_rate(rate_args[i], true, &r, why, sizeof why) != 0) {
			snprintf(err, errsz, "invalid rate '%s': %s",
			    rate_args[i], why);
			return -1;
		}
		if (burst_args[i] != NULL &&
		    parse_amount(burst_args[i], false, &a, why, sizeof why) !=
		    0 && parse_amount(burst_args[i], true, &a, why,
		    sizeof why) != 0) {
			snprintf(err, errsz, "invalid burst '%s': %s",
			    burst_args[i], why);
			return -1;
		}
		cfg->control_rates[i] = rate_args[i];
		cfg->control_bursts[i] = burst_args[i];
	}
	cfg->control_pid = pid;
	cfg->ncontrol = nrates;
	return 0;
}

/* Most units --queue may hold: with a byte each, the queue's buffer. */
#define QUEUE_MAX_UNITS	1000000000ULL

/* Parse a whole number from 1 to max for option name. */
static int
parse_count(const char *name, const char *s, uint64_t max, uint64_t *n,
    char *err, size_t errsz)
{
	struct amount a;
	char why[160];

	if (parse_amount(s, false, &a, why, sizeof why) != 0 ||
	    a.is_duration || a.den != 1 || a.num == 0 || a.num > max) {
		snprintf(err, errsz, "invalid %s '%s': give a whole number "
		    "from 1 to %llu", name, s, (unsigned long long)max);
		return -1;
	}
	*n = a.num;
	return 0;
}

/* -k keeps a token or leaky bucket per key, for one -r over records. */
static int
check_keys(const struct config *cfg, bool sep_set, bool max_set, char *err,
    size_t errsz)
{
	const char *why = NULL;

	if (cfg->key_field == 0) {
		if (!sep_set && !max_set)
			return 0;
		snprintf(err, errsz, "%s needs -k FIELD", sep_set ? "-F" :
		    "--max-keys");
		return -1;
	}
	if (cfg->mode == UNIT_BYTES)
		why = "keys records; it does not apply to -c";
	else if (cfg->rate.inf)
		why = "needs a rate for each key";
	else if (cfg->nlimits > 1)
		why = "takes one -r, the rate of each key";
	else if (cfg->algorithm != ALG_TOKEN && cfg->algorithm != ALG_LEAKY)
		why = "needs -a token or -a leaky";
	else if (cfg->queue > 0)
		why = "does not combine with --queue";
	else if (cfg->initial != cfg->burst)
		why = "starts every key with a full bucket: --initial does "
		    "not apply";
	if (why == NULL)
		return 0;
	snprintf(err, errsz, "-k %u %s", cfg->key_field, why);
	return -1;
}

bool
shared_name_ok(const char *name)
{
	size_t len = strlen(name);

	if (len == 0 || len > 64 || name[0] == '.')
		return false;
	for (size_t i = 0; i < len; i++)
		if (!(name[i] >= 'a' && name[i] <= 'z') &&
		    !(name[i] >= 'A' && name[i] <= 'Z') &&
		    !(name[i] >= '0' && name[i] <= '9') &&
		    strchr("._-", name[i]) == NULL)
			return false;
	return true;
}

/* --shared is one token bucket, in the file every user of it maps. */
static int
check_shared(const struct config *cfg, bool fallback_set, char *err,
    size_t errsz)
{
	const char *why = NULL;

	if (cfg->shared == NULL) {
		if (!cfg->redis && !fallback_set)
			return 0;
		snprintf(err, errsz, "%s needs --shared NAME", cfg->redis ?
		    "--redis" : "--redis-fallback");
		return -1;
	}
	if (!shared_name_ok(cfg->shared)) {
		snprintf(err, errsz, "invalid --shared name '%s': use up to 64 "
		    "letters, digits, '.', '_' and '-'", cfg->shared);
		return -1;
	}
	if (cfg->rate.inf)
		why = "needs a rate";
	else if (cfg->nlimits > 1)
		why = "takes one -r";
	else if (cfg->algorithm != ALG_TOKEN && cfg->algorithm != ALG_LEAKY)
		why = "needs -a token or -a leaky";
	else if (cfg->key_field > 0 && !cfg->redis)
		why = "does not combine with -k (except with --redis)";
	else if (cfg->queue > 0)
		why = "does not combine with --queue";
	else if (cfg->initial != cfg->burst)
		why = "starts the bucket full: --initial does not apply";
	if (why == NULL)
		return 0;
	snprintf(err, errsz, "--shared %s %s", cfg->shared, why);
	return -1;
}

/* --queue holds whole records under record limits only. */
static int
check_queue(const struct config *cfg, char *err, size_t errsz)
{
	const char *why = NULL;

	if (cfg->queue == 0)
		return 0;
	if (cfg->mode == UNIT_BYTES)
		why = "counts records; it does not apply to -c";
	else if (cfg->byte_limited)
		why = "does not combine with --byte-rate";
	else if (cfg->rate.inf)
		why = "needs a rate: with -r inf nothing ever waits";
	if (why == NULL)
		return 0;
	snprintf(err, errsz, "--queue %llu %s", (unsigned long long)cfg->queue,
	    why);
	return -1;
}

/* Resolve --byte-rate and --byte-burst into cfg->byte_limit. */
static int
resolve_bytes(struct config *cfg, const char *rate_arg, const char *burst_arg,
    char *err, size_t errsz)
{
	struct limit *l = &cfg->byte_limit;
	struct amount a = { true, BYTE_BURST_NS, 1 };
	char why[160];

	if (rate_arg == NULL) {
		if (burst_arg == NULL)
			return 0;
		snprintf(err, errsz, "--byte-burst %s needs --byte-rate",
		    burst_arg);
		return -1;
	}
	if (cfg->mode == UNIT_BYTES) {
		snprintf(err, errsz, "--byte-rate applies to records; with -c "
		    "give the byte rate as -r %s", rate_arg);
		return -1;
	}
	if (parse_rate(rate_arg, true, &l->rate, why, sizeof why) != 0) {
		snprintf(err, errsz, "invalid --byte-rate '%s': %s", rate_arg,
		    why);
		return -1;
	}
	if (l->rate.inf) {
		snprintf(err, errsz, "invalid --byte-rate '%s': give a finite "
		    "rate such as 1M/s", rate_arg);
		return -1;
	}
	if (burst_arg != NULL && parse_amount(burst_arg, true, &a, why,
	    sizeof why) != 0) {
		snprintf(err, errsz, "invalid --byte-burst '%s': %s",
		    burst_arg, why);
		return -1;
	}
	if (amount_units(&a, &l->rate, &l->burst) != 0 ||
	    (long double)l->burst * l->rate.d / l->rate.n > MAX_REFILL_NS) {
		snprintf(err, errsz, "invalid --byte-burst '%s': takes more "
		    "than 100 years to refill", burst_arg);
		return -1;
	}
	if (l->burst == 0) {
		if (burst_arg != NULL) {
			snprintf(err, errsz, "invalid --byte-burst '%s': must "
			    "be at least 1 byte", burst_arg);
			return -1;
		}
		l->burst = 1;
	}
	l->initial = l->burst;
	cfg->byte_limited = true;
	return 0;
}

/*
 * Resolve every -r with its -b.  A -b before the first -r is that -r's
 * when there is only one, as in 'tbthrottle -b 5 -r 10/s'.
 */
static int
resolve_all(struct config *cfg, int nrates, const char **rate_args,
    const char **burst_args, const char *lead_burst, const char *initial_arg,
    char *err, size_t errsz)
{
	if (lead_burst != NULL) {
		if (nrates > 1) {
			snprintf(err, errsz, "-b %s comes before any -r: with "
			    "several -r, give each -b after its -r", lead_burst);
			return -1;
		}
		if (burst_args[0] != NULL) {
			snprintf(err, errsz, "-b given twice ('%s' and '%s') "
			    "for one -r: give one burst", lead_burst,
			    burst_args[0]);
			return -1;
		}
		burst_args[0] = lead_burst;
	}
	if (nrates > 1 && initial_arg != NULL) {
		snprintf(err, errsz, "--initial applies to a single -r");
		return -1;
	}
	if (nrates == 0 && cfg->byte_limited) {
		/* --byte-rate alone: records are limited only by bytes. */
		if (lead_burst != NULL || initial_arg != NULL) {
			snprintf(err, errsz, "%s %s applies to -r, and there is "
			    "none (for the bytes, give --byte-burst)",
			    lead_burst != NULL ? "-b" : "--initial",
			    lead_burst != NULL ? lead_burst : initial_arg);
			return -1;
		}
		cfg->rate.inf = true;
		return 0;
	}
	if (nrates == 0)
		return resolve(cfg, NULL, NULL, NULL, err, errsz);
	for (int i = nrates - 1; i >= 0; i--) {
		if (resolve(cfg, rate_args[i], burst_args[i], initial_arg, err,
		    errsz) != 0)
			return -1;
		if (cfg->rate.inf && nrates > 1) {
			snprintf(err, errsz, "-r inf cannot be combined with "
			    "other rates");
			return -1;
		}
		cfg->limits[i] = (struct limit){ cfg->rate, cfg->burst,
		    cfg->initial };
	}
	cfg->nlimits = nrates;
	return 0;
}

static enum parse_result
parse(struct config *cfg, int argc, char **argv, char *err, size_t errsz);

enum parse_result
options_parse(struct config *cfg, int argc, char **argv, char *err,
    size_t errsz)
{
	enum parse_result r = parse(cfg, argc, argv, err, errsz);

	/* A value quoted in the message must not break it over lines. */
	if (r == OPT_ERROR)
		units_escape(err, errsz);
	return r;
}

static enum parse_result
parse(struct config *cfg, int argc, char **argv, char *err, size_t errsz)
{
	const char *rate_args[MAX_LIMITS] = { NULL };
	const char *burst_args[MAX_LIMITS] = { NULL };
	const char *lead_burst = NULL, *initial_arg = NULL;
	const char *byte_rate_arg = NULL, *byte_burst_arg = NULL;
	const char *control_arg = NULL, *other_opt = NULL;
	bool mode_set = false, alg_set = false, sep_set = false, max_set = false;
	bool fallback_set = false;
	int nrates = 0;
	enum unit_mode mode;
	enum algorithm alg;
	int c;

	memset(cfg, 0, sizeof *cfg);
	cfg->mode = UNIT_LINES;
	cfg->delim = '\n';
	cfg->algorithm = ALG_TOKEN;
	cfg->catchup_ns = BUCKET_CATCHUP_NS;
	cfg->key_sep = -1;
	cfg->max_keys = DEFAULT_MAX_KEYS;
	opterr = 0;
#ifdef __GLIBC__
	optind = 0;	/* also resets glibc's scan state */
#else
	optind = 1;
#endif
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		const char *arg = optarg != NULL ? optarg : "";

		if (c != 'r' && c != 'b' && c != 'R' && other_opt == NULL)
			/* The option's own word, before a separate value. */
			other_opt = argv[optind - (optarg != NULL &&
			    optarg == argv[optind - 1] && optind >= 2 ? 2 : 1)];
		switch (c) {
		case 'R':
			control_arg = arg;
			continue;
		case 'r':
			if (nrates == MAX_LIMITS) {
				snprintf(err, errsz, "too many -r: at most %d "
				    "limits", MAX_LIMITS);
				return OPT_ERROR;
			}
			rate_args[nrates++] = arg;
			continue;
		case 'b': {
			/* A -b belongs to the -r before it. */
			const char **slot = nrates > 0 ?
			    &burst_args[nrates - 1] : &lead_burst;

			if (*slot != NULL) {
				snprintf(err, errsz, "-b given twice ('%s' and "
				    "'%s') for one -r: give one burst", *slot,
				    arg);
				return OPT_ERROR;
			}
			*slot = arg;
			continue;
		}
		case OPT_INITIAL:
			initial_arg = arg;
			continue;
		case OPT_CATCHUP:
			if (parse_catchup(arg, &cfg->catchup_ns, err, errsz) != 0)
				return OPT_ERROR;
			continue;
		case OPT_DROP:
			cfg->drop = true;
			continue;
		case OPT_DROP_TO:
			if (*arg == '\0') {
				snprintf(err, errsz, "invalid --drop-to '': give "
				    "a file name");
				return OPT_ERROR;
			}
			cfg->drop = true;
			cfg->drop_to = arg;
			continue;
		case OPT_QUEUE:
			if (parse_count("--queue", arg, QUEUE_MAX_UNITS,
			    &cfg->queue, err, errsz) != 0)
				return OPT_ERROR;
			continue;
		case 'k': {
			uint64_t field;

			if (parse_count("-k", arg, 1000000, &field, err,
			    errsz) != 0)
				return OPT_ERROR;
			cfg->key_field = (unsigned)field;
			continue;
		}
		case 'F': {
			unsigned char sep;

			if (parse_delim(arg, &sep, err, errsz) != 0)
				return OPT_ERROR;
			cfg->key_sep = sep;
			sep_set = true;
			continue;
		}
		case OPT_SHARED:
			cfg->shared = arg;
			continue;
		case OPT_REDIS:
			if (redis_url_parse(arg, &cfg->redis_url, err,
			    errsz) != 0)
				return OPT_ERROR;
			cfg->redis = true;
			continue;
		case OPT_REDIS_FALLBACK:
			if (strcmp(arg, "block") == 0) {
				cfg->redis_fallback = FALLBACK_BLOCK;
			} else if (strcmp(arg, "local") == 0) {
				cfg->redis_fallback = FALLBACK_LOCAL;
			} else if (strcmp(arg, "fail") == 0) {
				cfg->redis_fallback = FALLBACK_FAIL;
			} else {
				snprintf(err, errsz, "invalid --redis-fallback "
				    "'%s': use block, local or fail", arg);
				return OPT_ERROR;
			}
			fallback_set = true;
			continue;
		case OPT_MAX_KEYS:
			if (parse_count("--max-keys", arg, MAX_MAX_KEYS,
			    &cfg->max_keys, err, errsz) != 0)
				return OPT_ERROR;
			max_set = true;
			continue;
		case OPT_BYTE_RATE:
			byte_rate_arg = arg;
			continue;
		case OPT_BYTE_BURST:
			byte_burst_arg = arg;
			continue;
		case 'P':
			cfg->progress = true;
			continue;
		case 's':
		case OPT_STATS:
			cfg->stats = true;
			if (optarg == NULL || strcmp(optarg, "text") == 0) {
				cfg->stats_json = false;
			} else if (strcmp(optarg, "json") == 0) {
				cfg->stats_json = true;
			} else {
				snprintf(err, errsz, "invalid --stats format '%s': "
				    "use text or json", arg);
				return OPT_ERROR;
			}
			continue;
		case 'h':
			return OPT_HELP;
		case 'V':
			return OPT_VERSION;
		case 'l':
			mode = UNIT_LINES;
			break;
		case '0':
			mode = UNIT_NULL;
			break;
		case 'd':
			mode = UNIT_DELIM;
			if (parse_delim(arg, &cfg->delim, err, errsz) != 0)
				return OPT_ERROR;
			break;
		case 'c':
			mode = UNIT_BYTES;
			break;
		case 'a':
		case OPT_LEAKY:
			if (c == OPT_LEAKY || strcmp(arg, "leaky") == 0) {
				alg = ALG_LEAKY;
			} else if (strcmp(arg, "token") == 0) {
				alg = ALG_TOKEN;
			} else if (strcmp(arg, "sliding") == 0) {
				alg = ALG_SLIDING;
			} else if (strcmp(arg, "fixed") == 0) {
				alg = ALG_FIXED;
			} else {
				snprintf(err, errsz, "invalid algorithm '%s': "
				    "use token, leaky, sliding or fixed", arg);
				return OPT_ERROR;
			}
			if (alg_set && alg != cfg->algorithm) {
				snprintf(err, errsz, "conflicting algorithms: "
				    "give one of -a token, -a leaky");
				return OPT_ERROR;
			}
			alg_set = true;
			cfg->algorithm = alg;
			continue;
		case ':':
			snprintf(err, errsz, "option '%s' needs a value (see "
			    "--help)", argv[optind - 1]);
			return OPT_ERROR;
		default:
			bad_option(argv[optind - 1], err, errsz);
			return OPT_ERROR;
		}
		/* Only the unit options reach here. */
		if (mode_set && mode != cfg->mode) {
			snprintf(err, errsz, "%s conflicts with %s: give one "
			    "of -l, -0, -d, -c", mode_flag(mode),
			    mode_flag(cfg->mode));
			return OPT_ERROR;
		}
		mode_set = true;
		cfg->mode = mode;
		if (mode == UNIT_LINES)
			cfg->delim = '\n';
		else if (mode == UNIT_NULL)
			cfg->delim = '\0';
	}
	cfg->files = argv + optind;
	cfg->nfiles = argc - optind;
	if (control_arg != NULL) {
		if (other_opt != NULL || cfg->nfiles > 0) {
			/* The option only, never its value: it may be a
			 * password. */
			if (other_opt == NULL)
				snprintf(err, errsz, "-R takes only -r and -b, "
				    "not FILE operands");
			else
				snprintf(err, errsz, "-R takes only -r and -b, "
				    "not '%.*s'", (int)strcspn(other_opt, "="),
				    other_opt);
			return OPT_ERROR;
		}
		return resolve_control(cfg, control_arg, nrates, rate_args,
		    burst_args, lead_burst, err, errsz) == 0 ? OPT_RUN :
		    OPT_ERROR;
	}
	if (resolve_bytes(cfg, byte_rate_arg, byte_burst_arg, err, errsz) != 0)
		return OPT_ERROR;
	if (nrates == 0 && alg_set && cfg->byte_limited) {
		snprintf(err, errsz, "-a applies to -r, and there is none: "
		    "--byte-rate is always a token bucket");
		return OPT_ERROR;
	}
	if (resolve_all(cfg, nrates, rate_args, burst_args, lead_burst,
	    initial_arg, err, errsz) != 0)
		return OPT_ERROR;
	cfg->rate_text = nrates > 0 ? rate_args[0] : NULL;
	if (check_queue(cfg, err, errsz) != 0 ||
	    check_keys(cfg, sep_set, max_set, err, errsz) != 0 ||
	    check_shared(cfg, fallback_set, err, errsz) != 0)
		return OPT_ERROR;
	if (cfg->drop && cfg->rate.inf && !cfg->byte_limited) {
		snprintf(err, errsz, "--drop needs a rate: with -r inf nothing "
		    "is ever dropped");
		return OPT_ERROR;
	}
	return OPT_RUN;
}
