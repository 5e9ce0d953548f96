/* Command-line options: one table of options, one of refused combinations. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "msg.h"
#include "options.h"
#include "timestamp.h"

/* Most units --queue may hold: with a byte each, the queue's buffer. */
#define QUEUE_MAX_UNITS 1000000000ULL

/*
 * The command line as read.  Values that depend on other options stay
 * text until the rules below have seen them all.
 */
struct parsed {
	struct config *cfg;
	const char *rates[MAX_LIMITS];	/* every -r */
	const char *bursts[MAX_LIMITS]; /* the -b after each -r, or NULL */
	int nrates;
	const char *lead_burst; /* a -b before any -r */
	const char *initial;	/* --initial */
	const char *byte_rate;	/* --byte-rate */
	const char *byte_burst; /* --byte-burst */
	const char *retune;	/* -R NAME|PID */
	const char *other_opt;	/* the first option -R does not take */
	bool list_other;	/* an option besides --list */
	bool mode_set, alg_set, sep_set, max_set, fallback_set;
	bool inf_among; /* -r inf was one of several -r */
	/* The first of --speed, --max-gap, --time-field, --time-format given,
	 * for a run without --replay; --speed's value, for -R. */
	const char *replay_opt;
	const char *speed;
	char *err; /* the reason for OPT_ERROR */
	size_t errsz;
};

/* Put the reason for refusing p in its err; -1. */
static int
refuse(const struct parsed *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	/* NOLINTNEXTLINE(clang-analyzer-valist.Uninitialized) */
	vsnprintf(p->err, p->errsz, fmt, ap);
	va_end(ap);
	return -1;
}

/* ---- values ---- */

/* Parse --catch-up: a duration up to an hour, or 0. */
static int
parse_catchup(const char *s, int64_t *ns, char *err, size_t errsz)
{
	struct amount a;
	char why[160];

	if (rate_parse_amount(s, false, &a, why, sizeof why) != 0)
		return msg_fail(
		    err, errsz, "invalid --catch-up '%s': %s", s, why);
	if (!a.is_duration && a.num != 0)
		return msg_fail(err, errsz,
		    "invalid --catch-up '%s': give a "
		    "duration such as 10ms or 0",
		    s);
	if (a.num / a.den > 3600ULL * 1000000000)
		return msg_fail(
		    err, errsz, "invalid --catch-up '%s': at most 1h", s);
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

	if (s[0] == '\0')
		return msg_fail(err, errsz,
		    "invalid delimiter '': give one byte "
		    "such as ',' or '\\t'");
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
	return msg_fail(err, errsz,
	    "invalid delimiter '%s': give one byte, or "
	    "\\n \\t \\r \\0 \\\\ \\xHH",
	    s);
}

/* Parse a whole number from 1 to max for option name. */
static int
parse_count(const char *name, const char *s, uint64_t max, uint64_t *n,
    char *err, size_t errsz)
{
	struct amount a;
	char why[160];

	if (rate_parse_amount(s, false, &a, why, sizeof why) != 0 ||
	    a.is_duration || a.den != 1 || a.num == 0 || a.num > max)
		return msg_fail(err, errsz,
		    "invalid %s '%s': give a whole number "
		    "from 1 to %llu",
		    name, s, (unsigned long long)max);
	*n = a.num;
	return 0;
}

/* Is name fit for --shared: up to 64 letters, digits, '.', '_' and '-',
 * not starting with '.'? */
static bool
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

/* ---- what each option stores ---- */

/*
 * Each returns 0 to read on, -1 with the reason in p->err, or OPT_HELP or
 * OPT_VERSION to stop there.  An option given twice keeps its last value
 * unless said otherwise.
 */

static int
set_rate(struct parsed *p, const char *arg)
{
	if (p->nrates == MAX_LIMITS)
		return refuse(p, "too many -r: at most %d limits", MAX_LIMITS);
	p->rates[p->nrates++] = arg;
	return 0;
}

/* A -b belongs to the -r before it. */
static int
set_burst(struct parsed *p, const char *arg)
{
	const char **slot = p->nrates > 0 ? &p->bursts[p->nrates - 1] :
					    &p->lead_burst;

	if (*slot != NULL)
		return refuse(p,
		    "-b given twice ('%s' and '%s') for one -r: "
		    "give one burst",
		    *slot, arg);
	*slot = arg;
	return 0;
}

static const char *
mode_flag(enum unit_mode m)
{
	static const char *const flags[] = { "-l", "-0", "-d", "-c" };

	return flags[m];
}

/* -l, -0, -d and -c choose the unit: one of them, any number of times. */
static int
set_mode(struct parsed *p, enum unit_mode mode)
{
	struct config *cfg = p->cfg;

	if (p->mode_set && mode != cfg->mode)
		return refuse(p,
		    "%s conflicts with %s: give one of -l, -0, "
		    "-d, -c",
		    mode_flag(mode), mode_flag(cfg->mode));
	p->mode_set = true;
	cfg->mode = mode;
	if (mode == UNIT_LINES)
		cfg->delim = '\n';
	else if (mode == UNIT_NULL)
		cfg->delim = '\0';
	return 0;
}

static int
set_lines(struct parsed *p, const char *arg)
{
	(void)arg;
	return set_mode(p, UNIT_LINES);
}

static int
set_null(struct parsed *p, const char *arg)
{
	(void)arg;
	return set_mode(p, UNIT_NULL);
}

static int
set_delim(struct parsed *p, const char *arg)
{
	if (parse_delim(arg, &p->cfg->delim, p->err, p->errsz) != 0)
		return -1;
	return set_mode(p, UNIT_DELIM);
}

static int
set_bytes(struct parsed *p, const char *arg)
{
	(void)arg;
	return set_mode(p, UNIT_BYTES);
}

static int
set_byte_rate(struct parsed *p, const char *arg)
{
	p->byte_rate = arg;
	return 0;
}

static int
set_byte_burst(struct parsed *p, const char *arg)
{
	p->byte_burst = arg;
	return 0;
}

static const char *const alg_names[] = { [ALG_TOKEN] = "token",
	[ALG_LEAKY] = "leaky",
	[ALG_SLIDING] = "sliding",
	[ALG_FIXED] = "fixed" };

/* -a and --leaky: one algorithm, any number of times. */
static int
set_alg(struct parsed *p, enum algorithm alg)
{
	if (p->alg_set && alg != p->cfg->algorithm)
		return refuse(p,
		    "conflicting algorithms: -a %s and -a %s; "
		    "give one",
		    alg_names[p->cfg->algorithm], alg_names[alg]);
	p->alg_set = true;
	p->cfg->algorithm = alg;
	return 0;
}

static int
set_algorithm(struct parsed *p, const char *arg)
{
	const char *const *names = alg_names;

	for (size_t i = 0; i < sizeof alg_names / sizeof alg_names[0]; i++)
		if (strcmp(arg, names[i]) == 0)
			return set_alg(p, (enum algorithm)i);
	return refuse(p,
	    "invalid algorithm '%s': use token, leaky, sliding "
	    "or fixed",
	    arg);
}

static int
set_leaky(struct parsed *p, const char *arg)
{
	(void)arg;
	return set_alg(p, ALG_LEAKY);
}

static int
set_initial(struct parsed *p, const char *arg)
{
	p->initial = arg;
	return 0;
}

static int
set_catchup(struct parsed *p, const char *arg)
{
	return parse_catchup(arg, &p->cfg->catchup_ns, p->err, p->errsz);
}

static int
set_key(struct parsed *p, const char *arg)
{
	uint64_t field = 0;

	if (parse_count("-k", arg, 1000000, &field, p->err, p->errsz) != 0)
		return -1;
	p->cfg->key_field = (unsigned)field;
	return 0;
}

static int
set_separator(struct parsed *p, const char *arg)
{
	unsigned char sep = 0;

	if (parse_delim(arg, &sep, p->err, p->errsz) != 0)
		return -1;
	p->cfg->key_sep = sep;
	p->sep_set = true;
	return 0;
}

static int
set_max_keys(struct parsed *p, const char *arg)
{
	p->max_set = true;
	return parse_count("--max-keys", arg, MAX_MAX_KEYS, &p->cfg->max_keys,
	    p->err, p->errsz);
}

/* The file is read when the limits are built. */
static int
set_tiers(struct parsed *p, const char *arg)
{
	if (arg[0] == '\0')
		return refuse(p, "invalid --tiers '': give the name of a file");
	p->cfg->tiers_file = arg;
	return 0;
}

static int
set_reload(struct parsed *p, const char *arg)
{
	(void)arg;
	p->cfg->control_reload = true;
	return 0;
}

/* The name is checked after the limits, in the rules below. */
static int
set_shared(struct parsed *p, const char *arg)
{
	p->cfg->shared = arg;
	return 0;
}

static int
set_redis(struct parsed *p, const char *arg)
{
	if (redisurl_parse(arg, &p->cfg->redis_url, p->err, p->errsz) != 0)
		return -1;
	p->cfg->redis = true;
	return 0;
}

static int
set_fallback(struct parsed *p, const char *arg)
{
	static const char *const names[] = { [FALLBACK_BLOCK] = "block",
		[FALLBACK_LOCAL] = "local",
		[FALLBACK_FAIL] = "fail" };

	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strcmp(arg, names[i]) == 0) {
			p->cfg->redis_fallback = (enum redis_fallback)i;
			p->fallback_set = true;
			return 0;
		}
	return refuse(p,
	    "invalid --redis-fallback '%s': use block, local or "
	    "fail",
	    arg);
}

static int
set_queue(struct parsed *p, const char *arg)
{
	return parse_count(
	    "--queue", arg, QUEUE_MAX_UNITS, &p->cfg->queue, p->err, p->errsz);
}

static int
set_drop(struct parsed *p, const char *arg)
{
	(void)arg;
	p->cfg->drop = true;
	return 0;
}

static int
set_drop_to(struct parsed *p, const char *arg)
{
	if (*arg == '\0')
		return refuse(p, "invalid --drop-to '': give a file name");
	p->cfg->drop = true;
	p->cfg->drop_to = arg;
	return 0;
}

/* -s, or --stats with an optional format. */
static int
set_stats(struct parsed *p, const char *arg)
{
	p->cfg->stats = true;
	if (arg == NULL || strcmp(arg, "text") == 0)
		p->cfg->stats_json = false;
	else if (strcmp(arg, "json") == 0)
		p->cfg->stats_json = true;
	else
		return refuse(p,
		    "invalid --stats format '%s': use text or "
		    "json",
		    arg);
	return 0;
}

static int
set_replay(struct parsed *p, const char *arg)
{
	(void)arg;
	p->cfg->replay = true;
	return 0;
}

/* Note the first option that needs --replay. */
static void
replay_option(struct parsed *p, const char *name)
{
	if (p->replay_opt == NULL)
		p->replay_opt = name;
}

static int
set_speed(struct parsed *p, const char *arg)
{
	struct config *cfg = p->cfg;

	replay_option(p, "--speed");
	p->speed = arg;
	return spec_speed_parse(
	    arg, &cfg->speed_num, &cfg->speed_den, p->err, p->errsz);
}

/* --max-gap: a duration, or 0. */
static int
set_max_gap(struct parsed *p, const char *arg)
{
	struct amount a;
	char why[160];

	replay_option(p, "--max-gap");
	if (rate_parse_amount(arg, false, &a, why, sizeof why) != 0 ||
	    (!a.is_duration && a.num != 0))
		return refuse(p,
		    "invalid --max-gap '%s': give a duration such as 1s, "
		    "250ms or 0",
		    arg);
	if (a.num / a.den > (uint64_t)INT64_MAX / 2)
		return refuse(p, "invalid --max-gap '%s': too long", arg);
	p->cfg->max_gap_ns = (int64_t)(a.num / a.den);
	return 0;
}

static int
set_time_field(struct parsed *p, const char *arg)
{
	uint64_t field = 0;

	replay_option(p, "--time-field");
	if (parse_count(
		"--time-field", arg, 1000000, &field, p->err, p->errsz) != 0)
		return -1;
	p->cfg->time_field = (unsigned)field;
	return 0;
}

static int
set_time_format(struct parsed *p, const char *arg)
{
	char why[160];

	replay_option(p, "--time-format");
	if (timestamp_check_format(arg, why, sizeof why) != 0)
		return refuse(p, "invalid --time-format '%s': %s", arg, why);
	p->cfg->time_format = arg;
	return 0;
}

static int
set_progress(struct parsed *p, const char *arg)
{
	(void)arg;
	p->cfg->progress = true;
	return 0;
}

/* The target is checked once every option is read, in the rules below. */
static int
set_retune(struct parsed *p, const char *arg)
{
	p->retune = arg;
	return 0;
}

static int
set_name(struct parsed *p, const char *arg)
{
	/* All digits would read as a process id, a '-' as an option. */
	if (!shared_name_ok(arg) || arg[0] == '-' ||
	    arg[strspn(arg, "0123456789")] == '\0')
		return refuse(p,
		    "invalid --name '%s': use up to 64 letters, "
		    "digits, '.', '_' and '-', not all digits, not starting "
		    "with '.' or '-'",
		    arg);
	p->cfg->name = arg;
	return 0;
}

static int
set_list(struct parsed *p, const char *arg)
{
	(void)arg;
	p->cfg->list = true;
	return 0;
}

static int
set_help(struct parsed *p, const char *arg)
{
	(void)p, (void)arg;
	return OPT_HELP;
}

static int
set_version(struct parsed *p, const char *arg)
{
	(void)p, (void)arg;
	return OPT_VERSION;
}

/* ---- the options ---- */

struct option_row {
	const char *name; /* --name */
	char letter;	  /* -letter, or 0 for none */
	/* no_argument, required_argument, or optional_argument: that one
	 * only as --name=value, and the short form takes no value. */
	int arg;
	const char *value; /* what the value is called in --help */
	int (*set)(struct parsed *, const char *); /* arg NULL if none */
	const char *help; /* lines of --help, without the last newline */
};

/* In the order of --help. */
/* clang-format off */
static const struct option_row options[] = {
	{ "rate", 'r', required_argument, "RATE", set_rate,
	    "units per period: 5, 90/min, 3/10s, 2k/s, inf;\n"
	    "repeat for several limits, each -b after its -r\n"
	    "(with -c: 500k/s, 64KiB/s, 1.5MB/s, 2g/min)" },
	{ "burst", 'b', required_argument, "N", set_burst,
	    "bucket size in units, or a duration such as 2s\n"
	    "(default: 1 record; with -c, 10ms of the rate)" },
	{ "lines", 'l', no_argument, NULL, set_lines,
	    "a unit is a line ending in newline (default)" },
	{ "null", '0', no_argument, NULL, set_null,
	    "a unit is a record ending in NUL" },
	{ "delimiter", 'd', required_argument, "C", set_delim,
	    "a unit is a record ending in byte C (',' '\\t' '\\x1e')" },
	{ "bytes", 'c', no_argument, NULL, set_bytes, "a unit is a byte" },
	{ "byte-rate", 0, required_argument, "RATE", set_byte_rate,
	    "also limit records by their bytes: 1M/s, 64KiB/s;\n"
	    "-r may then be left out" },
	{ "byte-burst", 0, required_argument, "N", set_byte_burst,
	    "bytes the byte limit may burst, or a duration\n"
	    "(default: 10ms of the byte rate)" },
	{ "algorithm", 'a', required_argument, "ALG", set_algorithm,
	    "token: bursts up to BURST (default);\n"
	    "leaky: one unit every 1/RATE, evenly spaced;\n"
	    "sliding: at most N in any PERIOD of RATE N/PERIOD;\n"
	    "fixed: at most N per PERIOD on the wall clock" },
	{ "leaky", 0, no_argument, NULL, set_leaky, "same as -a leaky" },
	{ "initial", 0, required_argument, "N", set_initial,
	    "tokens in the bucket at start (default: full)" },
	{ "catch-up", 0, required_argument, "T", set_catchup,
	    "how late a unit may be and keep its slot (10ms)" },
	{ "key", 'k', required_argument, "FIELD", set_key,
	    "a bucket of its own for each value of field FIELD\n"
	    "(1-based) of a record; best with --drop" },
	{ "field-separator", 'F', required_argument, "C", set_separator,
	    "fields end at byte C (default: runs of blanks)" },
	{ "max-keys", 0, required_argument, "N", set_max_keys,
	    "most keys with a live bucket (1000000); beyond,\n"
	    "new keys share one bucket" },
	{ "tiers", 0, required_argument, "FILE", set_tiers,
	    "rates by key from FILE, a line PATTERN RATE [BURST]\n"
	    "each: the first glob that matches a key gives its\n"
	    "rate; other keys take -r, or with --drop and no -r\n"
	    "are dropped" },
	{ "shared", 0, required_argument, "NAME", set_shared,
	    "draw from the bucket NAME, shared by every\n"
	    "tbthrottle of yours started with it" },
	{ "redis", 0, required_argument, "URL", set_redis,
	    "keep the --shared bucket in Redis, for many hosts:\n"
	    "redis://[[user]:password@]host[:port][/db] or\n"
	    "unix:///path/to/redis.sock[?db=N]" },
	{ "redis-fallback", 0, required_argument, "F", set_fallback,
	    "while Redis is down: block (default), local\n"
	    "(limit this process alone) or fail" },
	{ "queue", 0, required_argument, "N", set_queue,
	    "at most N records wait: reading pauses, or with\n"
	    "--drop a record that finds N waiting is dropped" },
	{ "drop", 0, no_argument, NULL, set_drop,
	    "drop units that find no token instead of waiting" },
	{ "drop-to", 0, required_argument, "FILE", set_drop_to,
	    "the same, appending dropped units whole to FILE" },
	{ "replay", 0, no_argument, NULL, set_replay,
	    "release each record at its own timestamp, as far\n"
	    "after the first as its time says; -r, -b and\n"
	    "--byte-rate then cap it, --drop drops the excess" },
	{ "speed", 0, required_argument, "X", set_speed,
	    "replay X times as fast: 60, 0.5 (default: 1);\n"
	    "with -R, change a running replay's speed" },
	{ "max-gap", 0, required_argument, "T", set_max_gap,
	    "replay no wait longer than T between records" },
	{ "time-field", 0, required_argument, "N", set_time_field,
	    "the timestamp starts field N (1-based, as for -k)" },
	{ "time-format", 0, required_argument, "FMT", set_time_format,
	    "read timestamps as strptime(3) FMT, '%d/%m/%Y %T'\n"
	    "(default: detect RFC 3339, syslog, CLF or epoch)" },
	{ "stats", 's', optional_argument, "json", set_stats,
	    "report units and bytes in, out, dropped on exit\n"
	    "(and on SIGUSR1) to standard error" },
	{ "progress", 'P', no_argument, NULL, set_progress,
	    "a live status line on stderr, if it is a terminal" },
	{ "name", 0, required_argument, "NAME", set_name,
	    "call this run NAME, for -R NAME and --list" },
	{ "retune", 'R', required_argument, "NAME|PID", set_retune,
	    "change the -r and -b of your running tbthrottle\n"
	    "NAME or PID; a -r without -b keeps its burst;\n"
	    "with --stats[=json], print its report instead" },
	{ "reload", 0, no_argument, NULL, set_reload,
	    "with -R: make it read its --tiers file again" },
	{ "list", 0, no_argument, NULL, set_list,
	    "list your running tbthrottles with a rate or a name:\n"
	    "pid, name, limits, units in, out, dropped, waiting,\n"
	    "and age" },
	{ "help", 'h', no_argument, NULL, set_help, "show this help and exit" },
	{ "version", 'V', no_argument, NULL, set_version,
	    "show the version and exit" },
};
/* clang-format on */

#define NOPTIONS ((int)(sizeof options / sizeof options[0]))
/* getopt_long's value for options[i] without a letter. */
#define FIRST_LONG 256

/* The tables getopt_long reads, made from options once. */
static struct option longopts[NOPTIONS + 1];
static char shortopts[2 + 2 * NOPTIONS];

static void
getopt_tables(void)
{
	size_t n = 0;

	if (shortopts[0] != '\0')
		return;
	/* A leading ':' makes a missing value ':', not '?'. */
	shortopts[n++] = ':';
	for (int i = 0; i < NOPTIONS; i++) {
		const struct option_row *o = &options[i];

		longopts[i] = (struct option){ o->name, o->arg, NULL,
			o->letter != 0 ? o->letter : FIRST_LONG + i };
		if (o->letter == 0)
			continue;
		shortopts[n++] = o->letter;
		if (o->arg == required_argument)
			shortopts[n++] = ':';
	}
	shortopts[n] = '\0';
}

/* Is o one of the options -R takes: -r, -b, --stats, and itself? */
static bool
with_retune(const struct option_row *o)
{
	return o->set == set_rate || o->set == set_burst ||
	    o->set == set_stats || o->set == set_retune ||
	    o->set == set_reload || o->set == set_speed;
}

/* The row getopt_long's c stands for, or NULL. */
static const struct option_row *
row_of(int c)
{
	if (c >= FIRST_LONG && c < FIRST_LONG + NOPTIONS)
		return &options[c - FIRST_LONG];
	for (int i = 0; i < NOPTIONS; i++)
		if (options[i].letter != 0 && options[i].letter == c)
			return &options[i];
	return NULL;
}

const char *
options_long_name(int i)
{
	return i >= 0 && i < NOPTIONS ? options[i].name : NULL;
}

/* Where the help text starts after the option's names. */
#define HELP_COLUMN 23

static void
usage_row(FILE *fp, const struct option_row *o)
{
	char names[64];
	const char *line, *end;
	int len;

	if (o->letter != 0)
		len = snprintf(
		    names, sizeof names, "  -%c, --%s", o->letter, o->name);
	else
		len = snprintf(names, sizeof names, "      --%s", o->name);
	if (o->value != NULL)
		len += snprintf(names + len, sizeof names - (size_t)len,
		    o->arg == optional_argument ? "[=%s]" : " %s", o->value);
	fprintf(
	    fp, "%s%*s", names, len < HELP_COLUMN ? HELP_COLUMN - len : 2, "");
	for (line = o->help;; line = end + 1) {
		end = strchr(line, '\n');
		if (line != o->help)
			fprintf(fp, "%*s", HELP_COLUMN, "");
		if (end == NULL) {
			fprintf(fp, "%s\n", line);
			return;
		}
		fprintf(fp, "%.*s\n", (int)(end - line), line);
	}
}

void
options_usage(FILE *fp)
{
	fputs(
	    "usage: tbthrottle -r RATE [-b BURST] [-l | -0 | -d C | -c]\n"
	    "                  [--byte-rate RATE [--byte-burst N]]\n"
	    "                  [-a ALG] [--initial N] [--catch-up T]\n"
	    "                  [-k FIELD [-F C] [--max-keys N] [--tiers FILE]]\n"
	    "                  [--shared NAME [--redis URL [--redis-fallback F]]]\n"
	    "                  [--queue N] [--drop | --drop-to FILE]\n"
	    "                  [--replay [--speed X] [--max-gap T]\n"
	    "                   [--time-field N] [--time-format FMT]]\n"
	    "                  [-s | --stats=json] [-P] [--name NAME]\n"
	    "                  [FILE ...]\n"
	    "       tbthrottle -R NAME|PID -r RATE [-b BURST] ...\n"
	    "       tbthrottle -R NAME|PID --speed X\n"
	    "       tbthrottle -R NAME|PID -s | --stats=json | --reload\n"
	    "       tbthrottle --list\n"
	    "Copy FILEs (or standard input) to standard output, releasing lines,\n"
	    "records or bytes no faster than RATE.\n"
	    "\n",
	    fp);
	for (int i = 0; i < NOPTIONS; i++)
		usage_row(fp, &options[i]);
	fputs(
	    "\n"
	    "RATE is NUMBER[SUFFIX][/[N]PERIOD] with PERIOD one of ms, s, min, h, day;\n"
	    "NUMBER may have an exponent (2.5e3).  Byte suffixes k m g t are 1024-based.\n"
	    "Records go out whole; the last one needs no delimiter.  Exit status is\n"
	    "0 on success, 1 on a read or write error, 2 on a usage error.\n"
	    "See tbthrottle(1) for the full grammar and examples.\n",
	    fp);
}

/*
 * Describe the option getopt_long refused.  optopt is no help for long
 * options (glibc sets it to the option's value), so read the word itself.
 */
/*
 * Is name[0..len) the start of more than one long option?  Then say which
 * it could be, as getopt does.
 */
static bool
ambiguous(const char *name, size_t len, char *err, size_t errsz)
{
	size_t used;
	int matches = 0;

	used = (size_t)snprintf(err, errsz,
	    "option '--%.*s' is ambiguous; "
	    "possibilities:",
	    (int)len, name);
	for (int i = 0; i < NOPTIONS; i++) {
		if (len == 0 || strncmp(options[i].name, name, len) != 0)
			continue;
		matches++;
		if (used < errsz)
			used += (size_t)snprintf(err + used, errsz - used,
			    " '--%s'", options[i].name);
	}
	return matches > 1;
}

static void
bad_option(const char *word, char *err, size_t errsz)
{
	size_t len;

	if (strncmp(word, "--", 2) != 0) {
		if (optopt > ' ' && optopt < 127)
			msg_fail(err, errsz,
			    "unknown option '-%c' (see --help)", optopt);
		else
			msg_fail(err, errsz, "unknown option '%s' (see --help)",
			    word);
		return;
	}
	len = strcspn(word + 2, "=");
	for (int i = 0; i < NOPTIONS; i++) {
		const struct option_row *o = &options[i];

		if (strlen(o->name) == len &&
		    strncmp(o->name, word + 2, len) == 0 &&
		    o->arg == no_argument && word[2 + len] == '=') {
			msg_fail(err, errsz,
			    "option '--%s' takes no value (see "
			    "--help)",
			    o->name);
			return;
		}
	}
	if (ambiguous(word + 2, len, err, errsz))
		return;
	msg_fail(err, errsz, "unknown option '%.*s' (see --help)",
	    (int)(len + 2), word);
}

/* ---- refused combinations ---- */

/* Does cfg's first limit start with less than a full bucket? */
static bool
first_not_full(const struct config *cfg)
{
	return cfg->nlimits > 0 &&
	    cfg->limits[0].initial != cfg->limits[0].burst;
}

static bool
is_bucket(enum algorithm alg)
{
	return alg == ALG_TOKEN || alg == ALG_LEAKY;
}

static bool
retune_other(const struct parsed *p)
{
	return p->retune != NULL && p->other_opt != NULL;
}

static bool
retune_files(const struct parsed *p)
{
	return p->retune != NULL && p->cfg->nfiles > 0;
}

static bool
retune_no_rate(const struct parsed *p)
{
	return p->retune != NULL && !p->cfg->stats && !p->cfg->control_reload &&
	    p->speed == NULL && (p->nrates == 0 || p->lead_burst != NULL);
}

static bool
retune_reload_and_other(const struct parsed *p)
{
	return p->retune != NULL && p->cfg->control_reload &&
	    (p->cfg->stats || p->nrates > 0 || p->lead_burst != NULL ||
		p->speed != NULL);
}

static bool
reload_alone(const struct parsed *p)
{
	return p->cfg->control_reload && p->retune == NULL;
}

static bool
tiers_alone(const struct parsed *p)
{
	return p->cfg->tiers_file != NULL && p->cfg->key_field == 0;
}

static bool
retune_speed_other(const struct parsed *p)
{
	return p->retune != NULL && p->speed != NULL &&
	    (p->nrates > 0 || p->lead_burst != NULL || p->cfg->stats);
}

static bool
replay_option_alone(const struct parsed *p)
{
	return p->replay_opt != NULL && !p->cfg->replay;
}

static bool
replay_bytes(const struct parsed *p)
{
	return p->cfg->replay && p->cfg->mode == UNIT_BYTES;
}

static bool
replay_queue(const struct parsed *p)
{
	return p->cfg->replay && p->cfg->queue > 0;
}

static bool
replay_shared(const struct parsed *p)
{
	return p->cfg->replay && p->cfg->shared != NULL;
}

static bool
retune_stats_and_rate(const struct parsed *p)
{
	return p->retune != NULL && p->cfg->stats &&
	    (p->nrates > 0 || p->lead_burst != NULL);
}

static bool
list_other(const struct parsed *p)
{
	return p->cfg->list && (p->list_other || p->cfg->nfiles > 0);
}

static bool
byte_burst_alone(const struct parsed *p)
{
	return p->byte_burst != NULL && p->byte_rate == NULL;
}

static bool
byte_rate_bytes(const struct parsed *p)
{
	return p->byte_rate != NULL && p->cfg->mode == UNIT_BYTES;
}

static bool
alg_without_rate(const struct parsed *p)
{
	return p->nrates == 0 && p->alg_set && p->cfg->byte_limited;
}

static bool
lead_burst_several(const struct parsed *p)
{
	return p->lead_burst != NULL && p->nrates > 1;
}

static bool
lead_burst_twice(const struct parsed *p)
{
	return p->lead_burst != NULL && p->bursts[0] != NULL;
}

static bool
initial_several(const struct parsed *p)
{
	return p->initial != NULL && p->nrates > 1;
}

static bool
burst_without_rate(const struct parsed *p)
{
	return p->lead_burst != NULL && p->nrates == 0 &&
	    (p->cfg->byte_limited || p->cfg->replay);
}

static bool
initial_without_rate(const struct parsed *p)
{
	return p->initial != NULL && p->nrates == 0 &&
	    (p->cfg->byte_limited || p->cfg->replay);
}

static bool
no_rate(const struct parsed *p)
{
	return p->nrates == 0 && !p->cfg->byte_limited &&
	    p->cfg->tiers_file == NULL && !p->cfg->replay;
}

static bool
inf_among_rates(const struct parsed *p)
{
	return p->inf_among;
}

static bool
queue_bytes(const struct parsed *p)
{
	return p->cfg->queue > 0 && p->cfg->mode == UNIT_BYTES;
}

static bool
queue_byte_rate(const struct parsed *p)
{
	return p->cfg->queue > 0 && p->cfg->byte_limited;
}

static bool
queue_unlimited(const struct parsed *p)
{
	return p->cfg->queue > 0 && options_unlimited(p->cfg);
}

static bool
separator_alone(const struct parsed *p)
{
	return p->sep_set && p->cfg->key_field == 0 && p->cfg->time_field == 0;
}

static bool
max_keys_alone(const struct parsed *p)
{
	return p->max_set && p->cfg->key_field == 0;
}

static bool
key_bytes(const struct parsed *p)
{
	return p->cfg->key_field > 0 && p->cfg->mode == UNIT_BYTES;
}

static bool
key_unlimited(const struct parsed *p)
{
	return p->cfg->key_field > 0 && p->cfg->nlimits == 0 &&
	    (p->nrates > 0 || p->cfg->tiers_file == NULL);
}

static bool
key_several(const struct parsed *p)
{
	return p->cfg->key_field > 0 && p->cfg->nlimits > 1;
}

static bool
key_queue(const struct parsed *p)
{
	return p->cfg->key_field > 0 && p->cfg->queue > 0;
}

static bool
key_initial(const struct parsed *p)
{
	return p->cfg->key_field > 0 && first_not_full(p->cfg);
}

static bool
redis_alone(const struct parsed *p)
{
	return p->cfg->redis && p->cfg->shared == NULL;
}

static bool
fallback_alone(const struct parsed *p)
{
	return p->fallback_set && p->cfg->shared == NULL;
}

static bool
shared_unlimited(const struct parsed *p)
{
	return p->cfg->shared != NULL && options_unlimited(p->cfg);
}

static bool
shared_several(const struct parsed *p)
{
	return p->cfg->shared != NULL && p->cfg->nlimits > 1;
}

static bool
shared_window(const struct parsed *p)
{
	return p->cfg->shared != NULL && !is_bucket(p->cfg->algorithm);
}

static bool
shared_key(const struct parsed *p)
{
	return p->cfg->shared != NULL && p->cfg->key_field > 0 &&
	    !p->cfg->redis;
}

static bool
shared_queue(const struct parsed *p)
{
	return p->cfg->shared != NULL && p->cfg->queue > 0;
}

static bool
shared_initial(const struct parsed *p)
{
	return p->cfg->shared != NULL && first_not_full(p->cfg);
}

static bool
drop_unlimited(const struct parsed *p)
{
	return p->cfg->drop && options_unlimited(p->cfg) &&
	    !p->cfg->byte_limited;
}

/* The values the messages quote; each fmt takes the one named. */

static void
say_other(const struct parsed *p, const char *fmt)
{
	/* The option only, never its value: it may be a password. */
	refuse(p, fmt, (int)strcspn(p->other_opt, "="), p->other_opt);
}

static void
say_retune(const struct parsed *p, const char *fmt)
{
	refuse(p, fmt, p->retune);
}

static void
say_replay_option(const struct parsed *p, const char *fmt)
{
	refuse(p, fmt, p->replay_opt);
}

static void
say_byte_rate(const struct parsed *p, const char *fmt)
{
	refuse(p, fmt, p->byte_rate);
}

static void
say_byte_burst(const struct parsed *p, const char *fmt)
{
	refuse(p, fmt, p->byte_burst);
}

static void
say_lead_burst(const struct parsed *p, const char *fmt)
{
	refuse(p, fmt, p->lead_burst);
}

static void
say_both_bursts(const struct parsed *p, const char *fmt)
{
	refuse(p, fmt, p->lead_burst, p->bursts[0]);
}

static void
say_initial(const struct parsed *p, const char *fmt)
{
	refuse(p, fmt, p->initial);
}

static void
say_queue(const struct parsed *p, const char *fmt)
{
	refuse(p, fmt, (unsigned long long)p->cfg->queue);
}

static void
say_key(const struct parsed *p, const char *fmt)
{
	refuse(p, fmt, p->cfg->key_field);
}

static void
say_shared(const struct parsed *p, const char *fmt)
{
	refuse(p, fmt, p->cfg->shared);
}

/*
 * The steps between the rules: each turns text into values that the rules
 * after it need, or refuses a bad value.  Each returns 0 to go on, -1 with
 * the reason in p->err, or 1 when the command line is complete.
 */

/* --list: nothing more to read. */
static int
check_list(struct parsed *p)
{
	return p->cfg->list ? 1 : 0;
}

/* -R NAME|PID: a process id, or a name as --name takes. */
static int
check_retune_target(struct parsed *p)
{
	const char *t = p->retune;
	char *end;
	long pid;

	if (t == NULL)
		return 0;
	if (t[strspn(t, "0123456789")] == '\0') {
		errno = 0;
		pid = strtol(t, &end, 10);
		if (errno != 0 || *end != '\0' || pid < 1 || pid > INT_MAX ||
		    *t == '0')
			return refuse(p,
			    "invalid -R '%s': give the name or the "
			    "process id of a running tbthrottle",
			    t);
		return 0;
	}
	if (!shared_name_ok(t) || t[0] == '-')
		return refuse(p,
		    "invalid -R '%s': give the name or the process "
		    "id of a running tbthrottle",
		    t);
	return 0;
}

/*
 * -R PID -r RATE [-b BURST] ...: each value must read as a rate or an
 * amount, of records or of bytes; the running tbthrottle checks them
 * against its own mode and answers.  That is all -R takes.
 */
static int
check_retune(struct parsed *p)
{
	struct config *cfg = p->cfg;
	struct rate r;
	struct amount a;
	char why[160];

	if (p->retune == NULL)
		return 0;
	for (int i = 0; i < p->nrates; i++) {
		const char *rate = p->rates[i], *burst = p->bursts[i];

		if (rate_parse(rate, false, &r, why, sizeof why) != 0 &&
		    rate_parse(rate, true, &r, why, sizeof why) != 0)
			return refuse(p, "invalid rate '%s': %s", rate, why);
		if (burst != NULL &&
		    rate_parse_amount(burst, false, &a, why, sizeof why) != 0 &&
		    rate_parse_amount(burst, true, &a, why, sizeof why) != 0)
			return refuse(p, "invalid burst '%s': %s", burst, why);
		cfg->control_rates[i] = rate;
		cfg->control_bursts[i] = burst;
	}
	cfg->control_target = p->retune;
	cfg->ncontrol = p->nrates;
	cfg->control_speed = p->speed;
	return 1;
}

/* --byte-rate and --byte-burst into cfg->byte_limit. */
static int
resolve_bytes(struct parsed *p)
{
	if (p->byte_rate == NULL)
		return 0;
	if (spec_byte_limit_parse(p->byte_rate, p->byte_burst,
		&p->cfg->byte_limit, p->err, p->errsz) != 0)
		return -1;
	p->cfg->byte_limited = true;
	return 0;
}

/*
 * Every -r with its -b into cfg->limits.  They are read last to first, as
 * they always were, so of two bad -r the last is named.  A -b before the
 * only -r is its own (the rules above refuse it anywhere else).  Reading
 * stops at an inf among several -r, which the next rule refuses.
 */
static int
resolve_limits(struct parsed *p)
{
	struct config *cfg = p->cfg;

	if (p->nrates == 1 && p->bursts[0] == NULL)
		p->bursts[0] = p->lead_burst;
	for (int i = p->nrates - 1; i >= 0; i--) {
		if (spec_limit_parse(p->rates[i], p->bursts[i], p->initial,
			cfg->mode, cfg->algorithm, &cfg->limits[i], p->err,
			p->errsz) != 0)
			return -1;
		if (cfg->limits[i].rate.inf && p->nrates > 1) {
			p->inf_among = true;
			return 0;
		}
	}
	/* A single -r inf is no limit at all. */
	cfg->nlimits = p->nrates == 1 && cfg->limits[0].rate.inf ? 0 :
								   p->nrates;
	cfg->rate_text = p->nrates > 0 ? p->rates[0] : NULL;
	return 0;
}

/* The name of --shared: a file name, and a Redis key. */
static int
check_shared_name(struct parsed *p)
{
	const char *name = p->cfg->shared;

	if (name == NULL || shared_name_ok(name))
		return 0;
	return refuse(p,
	    "invalid --shared name '%s': use up to 64 letters, "
	    "digits, '.', '_' and '-'",
	    name);
}

/*
 * A rule refuses the command line when refused() holds, with text (or
 * say's rendering of text, which quotes a value).  A row with a step
 * instead resolves values there, and may refuse one.
 */
struct rule {
	bool (*refused)(const struct parsed *);
	const char *text;
	void (*say)(const struct parsed *, const char *);
	int (*step)(struct parsed *);
};

/*
 * Every combination the command line refuses, in the order checked: when
 * several apply, the first is the one named.  The steps show where values
 * are parsed, so a bad value wins over every rule below its step.
 *
 * Found while the options are read, not here: a second -l, -0, -d or -c
 * of another unit, a second -a of another algorithm, two -b for one -r,
 * and a ninth -r.  spec_limit_parse refuses -b with -a leaky, and -b or
 * --initial with -a sliding or fixed, as -R needs that too.
 */
/* clang-format off */
static const struct rule rules[] = {
	/* -R PID sends its -r and -b to a running tbthrottle. */
	/* --list lists, and takes nothing else. */
	{ list_other, "--list takes no other options or operands", NULL,
	    NULL },
	{ .step = check_list },
	/* -R sends its -r and -b, or asks for --stats, of a running one. */
	{ reload_alone, "--reload needs -R NAME|PID: the run to reload",
	    NULL, NULL },
	{ retune_other, "-R takes only -r and -b, --stats, --reload or "
	    "--speed, not '%.*s'", say_other, NULL },
	{ retune_files, "-R takes only -r and -b, --stats, --reload or "
	    "--speed, not FILE operands", NULL, NULL },
	{ .step = check_retune_target },
	{ retune_stats_and_rate, "-R %s takes -r and -b, or --stats, not "
	    "both", say_retune, NULL },
	{ retune_reload_and_other, "-R %s takes --reload alone, without -r, "
	    "-b, --stats or --speed", say_retune, NULL },
	{ retune_no_rate, "-R %s needs -r RATE [-b BURST] for each limit to "
	    "change, --stats, --reload or --speed", say_retune, NULL },
	{ retune_speed_other, "-R %s takes --speed alone, not with -r, -b "
	    "or --stats", say_retune, NULL },
	{ .step = check_retune },

	/* --replay: records at their own timestamps, whole. */
	{ replay_option_alone, "%s needs --replay", say_replay_option, NULL },
	{ replay_bytes, "--replay times records by their timestamps; it does "
	    "not apply to -c", NULL, NULL },
	{ replay_queue, "--replay does not combine with --queue", NULL, NULL },
	{ replay_shared, "--replay does not combine with --shared", NULL,
	    NULL },

	/* Records limited by their bytes too. */
	{ byte_burst_alone, "--byte-burst %s needs --byte-rate",
	    say_byte_burst, NULL },
	{ byte_rate_bytes, "--byte-rate applies to records; with -c give the "
	    "byte rate as -r %s", say_byte_rate, NULL },
	{ .step = resolve_bytes },
	{ alg_without_rate, "-a applies to -r, and there is none: "
	    "--byte-rate is always a token bucket", NULL, NULL },

	/* The limits: each -r with its -b, and --initial. */
	{ lead_burst_several, "-b %s comes before any -r: with several -r, "
	    "give each -b after its -r", say_lead_burst, NULL },
	{ lead_burst_twice, "-b given twice ('%s' and '%s') for one -r: give "
	    "one burst", say_both_bursts, NULL },
	{ initial_several, "--initial applies to a single -r", NULL, NULL },
	{ burst_without_rate, "-b %s applies to -r, and there is none (for "
	    "the bytes, give --byte-burst)", say_lead_burst, NULL },
	{ initial_without_rate, "--initial %s applies to -r, and there is "
	    "none (for the bytes, give --byte-burst)", say_initial, NULL },
	{ no_rate, "missing -r RATE (for example -r 10/s or -c -r 1M/s; see "
	    "--help)", NULL, NULL },
	{ .step = resolve_limits },
	{ inf_among_rates, "-r inf cannot be combined with other rates",
	    NULL, NULL },

	/* --queue holds whole records under record limits only. */
	{ queue_bytes, "--queue %llu counts records; it does not apply to -c",
	    say_queue, NULL },
	{ queue_byte_rate, "--queue %llu does not combine with --byte-rate",
	    say_queue, NULL },
	{ queue_unlimited, "--queue %llu needs a rate: with -r inf nothing "
	    "ever waits", say_queue, NULL },

	/* -k keeps a limit per key, for one -r, or by --tiers. */
	{ separator_alone, "-F needs -k FIELD or --time-field N", NULL, NULL },
	{ tiers_alone, "--tiers needs -k FIELD: tiers give the rates of "
	    "keys", NULL, NULL },
	{ max_keys_alone, "--max-keys needs -k FIELD", NULL, NULL },
	{ key_bytes, "-k %u keys records; it does not apply to -c", say_key,
	    NULL },
	{ key_unlimited, "-k %u needs a rate for each key", say_key, NULL },
	{ key_several, "-k %u takes one -r, the rate of each key", say_key,
	    NULL },
	{ key_queue, "-k %u does not combine with --queue", say_key, NULL },
	{ key_initial, "-k %u starts every key with a full bucket: --initial "
	    "does not apply", say_key, NULL },

	/* --shared is one token bucket, in a file or in Redis. */
	{ redis_alone, "--redis needs --shared NAME", NULL, NULL },
	{ fallback_alone, "--redis-fallback needs --shared NAME", NULL, NULL },
	{ .step = check_shared_name },
	{ shared_unlimited, "--shared %s needs a rate", say_shared, NULL },
	{ shared_several, "--shared %s takes one -r", say_shared, NULL },
	{ shared_window, "--shared %s needs -a token or -a leaky", say_shared,
	    NULL },
	{ shared_key, "--shared %s does not combine with -k (except with "
	    "--redis)", say_shared, NULL },
	{ shared_queue, "--shared %s does not combine with --queue",
	    say_shared, NULL },
	{ shared_initial, "--shared %s starts the bucket full: --initial does "
	    "not apply", say_shared, NULL },

	/* Dropping needs something to drop for. */
	{ drop_unlimited, "--drop needs a rate: with -r inf nothing is ever "
	    "dropped", NULL, NULL },
};
/* clang-format on */

/* Run the rules over p, top to bottom. */
static enum parse_result
check_rules(struct parsed *p)
{
	for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++) {
		const struct rule *r = &rules[i];
		int rc;

		if (r->step != NULL) {
			if ((rc = r->step(p)) != 0)
				return rc < 0 ? OPT_ERROR : OPT_RUN;
		} else if (r->refused(p)) {
			if (r->say != NULL)
				r->say(p, r->text);
			else
				refuse(p, "%s", r->text);
			return OPT_ERROR;
		}
	}
	return OPT_RUN;
}

/* ---- the command line ---- */

/* The word of the option just read, before a separate value. */
static const char *
option_word(char **argv)
{
	return argv[optind -
	    (optarg != NULL && optarg == argv[optind - 1] && optind >= 2 ? 2 :
									   1)];
}

static enum parse_result
parse(struct parsed *p, int argc, char **argv)
{
	struct config *cfg = p->cfg;
	int c, rc;

	memset(cfg, 0, sizeof *cfg);
	cfg->mode = UNIT_LINES;
	cfg->delim = '\n';
	cfg->algorithm = ALG_TOKEN;
	cfg->catchup_ns = DEFAULT_CATCHUP_NS;
	cfg->key_sep = -1;
	cfg->max_keys = DEFAULT_MAX_KEYS;
	cfg->speed_num = cfg->speed_den = 1;
	cfg->max_gap_ns = -1;
	getopt_tables();
	opterr = 0;
#ifdef __GLIBC__
	optind = 0; /* also resets glibc's scan state */
#else
	optind = 1;
#endif
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		const struct option_row *o = row_of(c);

		if (c == ':') {
			refuse(p, "option '%s' needs a value (see --help)",
			    argv[optind - 1]);
			return OPT_ERROR;
		}
		if (o == NULL) {
			bad_option(argv[optind - 1], p->err, p->errsz);
			return OPT_ERROR;
		}
		if (!with_retune(o) && p->other_opt == NULL)
			p->other_opt = option_word(argv);
		if (o->set != set_list)
			p->list_other = true;
		if ((rc = o->set(p, optarg)) != 0)
			return rc < 0 ? OPT_ERROR : (enum parse_result)rc;
	}
	cfg->files = argv + optind;
	cfg->nfiles = argc - optind;
	return check_rules(p);
}

enum parse_result
options_parse(
    struct config *cfg, int argc, char **argv, char *err, size_t errsz)
{
	struct parsed p = { .cfg = cfg, .err = err, .errsz = errsz };
	enum parse_result r = parse(&p, argc, argv);

	/* A value quoted in the message must not break it over lines. */
	if (r == OPT_ERROR)
		msg_escape(err, errsz);
	return r;
}
