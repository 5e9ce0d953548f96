/* Command-line options: one table of options, one of refused combinations. */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cmdline.h"
#include "habits.h"
#include "msg.h"
#include "options.h"
#include "timestamp.h"

/* Most units --queue may hold: with a byte each, the queue's buffer. */
#define QUEUE_MAX_UNITS 1000000000ULL
/* Most commands -j may run at once. */
#define MAX_JOBS 4096
/* The last field -k and --time-field may name. */
#define MAX_FIELD 1000000
/* Longest --catch-up, and --max-gap, in ns. */
#define MAX_CATCHUP_NS (3600ULL * 1000000000)
#define MAX_GAP_NS ((uint64_t)INT64_MAX / 2)

/* The options, in the order of --help. */
/* clang-format off */
enum opt {
	O_RATE, O_BURST, O_LINES, O_NULL, O_DELIM, O_BYTES, O_BYTE_RATE,
	O_BYTE_BURST, O_ALG, O_LEAKY, O_INITIAL, O_CATCHUP, O_KEY, O_SEP,
	O_MAX_KEYS, O_TIERS, O_TOTAL_RATE, O_TOTAL_BURST, O_ORDER, O_SHARED, O_REDIS, O_CACERT, O_CERT, O_KEYFILE, O_INSECURE, O_FALLBACK,
	O_EVICTION, O_QUEUE,
	O_DROP,
	O_DROP_TO, O_EXEC, O_JOBS, O_TAKE, O_REPLAY, O_SPEED, O_MAX_GAP,
	O_TIME_FIELD, O_TIME_KEY, O_TIME_FORMAT, O_LOOP, O_LOOP_GAP, O_DRY_RUN,
	O_STATS, O_PROGRESS, O_NAME, O_RETUNE, O_RELOAD, O_LIST, O_JSON, O_HELP,
	O_VERSION, NOPTIONS
};
/* clang-format on */

/*
 * What the rules know besides the options given, a bit each after theirs.
 * Those marked (limits) hold once the -r have been read.
 */
enum fact {
	F_FILES = NOPTIONS, /* FILE operands */
	F_LEAD,		    /* a -b before any -r */
	F_B0,		    /* a -b after the first -r */
	F_NO_RATE,	    /* no -r, or a -b before the first */
	F_SEVERAL,	    /* more than one -r */
	F_INF_AMONG,	    /* -r inf among several (limits) */
	F_INF,		    /* one -r, inf (limits) */
	F_UNLIMITED,	    /* options_unlimited() (limits) */
	F_NOT_FULL,   /* the first -r starts short of its burst (limits) */
	F_WINDOW,     /* -a sliding or fixed */
	F_BAD_TARGET, /* -R names neither a process id nor a name */
	F_BAD_SHARED, /* --shared names no bucket */
	F_ORDER_KEY,  /* --order key */
	NBITS
};
_Static_assert(NBITS <= CMDLINE_MAX, "the options and facts fit in a uint64_t");

#define BIT(i) (UINT64_C(1) << (i))
#define O(x) BIT(O_##x)
#define F(x) BIT(F_##x)
#define ALL_OPTIONS (BIT(NOPTIONS) - 1)
/* What -R takes; the options that need --replay. */
#define RETUNE_OPTIONS \
	(O(RATE) | O(BURST) | O(STATS) | O(RETUNE) | O(RELOAD) | O(SPEED))
#define REPLAY_OPTIONS \
	(O(SPEED) | O(MAX_GAP) | O(TIME_FIELD) | O(TIME_KEY) | \
	    O(TIME_FORMAT) | O(LOOP) | O(LOOP_GAP) | O(DRY_RUN))
/* What --take goes with: what names and limits its bucket, and --drop. */
#define TAKE_OPTIONS \
	(O(TAKE) | O(RATE) | O(BURST) | O(ALG) | O(LEAKY) | O(CATCHUP) | \
	    O(KEY) | O(SEP) | O(MAX_KEYS) | O(TIERS) | O(TOTAL_RATE) | \
	    O(TOTAL_BURST) | O(SHARED) | O(REDIS) | O(FALLBACK) | \
	    O(EVICTION) | O(DROP) | O(LINES) | O(NULL) | O(CACERT) | O(CERT) | \
	    O(KEYFILE) | O(INSECURE) | O(DELIM) | O(BYTES))

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

/* ---- the options ---- */

/* The words and flags of the options that choose one of several. */
/* clang-format off */
#define CHOICE(names, bad, conflict) \
	{ names, (int)(sizeof names / sizeof names[0]), bad, conflict }

static const char *const unit_flags[] = { [UNIT_LINES] = "-l",
	[UNIT_NULL] = "-0", [UNIT_DELIM] = "-d", [UNIT_BYTES] = "-c" };
static const char *const alg_words[] = { [ALG_TOKEN] = "token",
	[ALG_LEAKY] = "leaky", [ALG_SLIDING] = "sliding",
	[ALG_FIXED] = "fixed" };
static const char *const fallback_words[] = { [FALLBACK_BLOCK] = "block",
	[FALLBACK_LOCAL] = "local", [FALLBACK_FAIL] = "fail" };
static const char *const stats_words[] = { "text", "json" };
static const char *const order_words[] = { [ORDER_INPUT] = "input",
	[ORDER_KEY] = "key" };

static const struct cmdline_choice units = CHOICE(unit_flags, NULL,
    "%2$s conflicts with %1$s: give one of -l, -0, -d, -c");
static const struct cmdline_choice algorithms = CHOICE(alg_words,
    "invalid algorithm '%s': use token, leaky, sliding or fixed",
    "conflicting algorithms: -a %1$s and -a %2$s; give one");
static const struct cmdline_choice fallbacks = CHOICE(fallback_words,
    "invalid --redis-fallback '%s': use block, local or fail", NULL);
static const struct cmdline_choice formats = CHOICE(stats_words,
    "invalid --stats format '%s': use text or json", NULL);
static const struct cmdline_choice orders = CHOICE(order_words,
    "invalid --order '%s': use input or key", NULL);
/* clang-format on */
_Static_assert(sizeof(enum unit_mode) == sizeof(unsigned) &&
	sizeof(enum algorithm) == sizeof(unsigned) &&
	sizeof(enum redis_fallback) == sizeof(unsigned) &&
	sizeof(enum order) == sizeof(unsigned),
    "choices are stored as unsigned");

/* Option rows: the kind and where the value goes. */
#define AT(f) \
	.off = offsetof(struct parsed, f), \
	.size = sizeof(((struct parsed *)0)->f)
#define SEEN .kind = CL_SEEN
#define TEXT(f) .kind = CL_TEXT, AT(f)
#define COUNT(f, max) .kind = CL_COUNT, AT(f), .n = (max)
#define DURATION(f, max) .kind = CL_DURATION, AT(f), .n = (max)
#define WORD(f, c) .kind = CL_WORD, AT(f), .choice = &(c)
#define CONST(f, c, v) .kind = CL_CONST, AT(f), .choice = &(c), .n = (v)
#define STOP(r) .kind = CL_STOP, .n = (r)
#define FLAG(f) .flag = offsetof(struct parsed, f)
#define NONE no_argument
#define REQ required_argument

/* Parse a delimiter: one byte, or \n \t \r \0 \\ \xHH. */
static int
parse_delim(const char *s, unsigned char *out, char *err, size_t errsz)
{
	static const char esc_from[] = "ntr0\\", esc_to[] = "\n\t\r\0\\";
	const char *e;

	if (s[0] == '\0')
		return msg_fail(err, errsz,
		    "invalid delimiter '': give one byte such as ',' or '\\t'");
	if (s[1] == '\0')
		*out = (unsigned char)s[0];
	else if (s[0] == '\\' && s[2] == '\0' &&
	    (e = strchr(esc_from, s[1])) != NULL)
		*out = (unsigned char)esc_to[e - esc_from];
	else if (s[0] == '\\' && s[1] == 'x' && isxdigit((unsigned char)s[2]) &&
	    (s[3] == '\0' || (isxdigit((unsigned char)s[3]) && s[4] == '\0')))
		*out = (unsigned char)strtoul(s + 2, NULL, 16);
	else
		return msg_fail(err, errsz,
		    "invalid delimiter '%s': give one byte, or "
		    "\\n \\t \\r \\0 \\\\ \\xHH",
		    s);
	return 0;
}

/* Is name fit for --shared: up to 64 letters, digits, '.', '_' and '-',
 * not starting with '.'? */
static bool
shared_name_ok(const char *name)
{
	size_t len = strspn(name,
	    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-");

	return len > 0 && len <= 64 && name[len] == '\0' && name[0] != '.';
}

/* -R's target: a process id, or a name as --name takes. */
static bool
target_ok(const char *t)
{
	char *end;
	long pid;

	if (t[strspn(t, "0123456789")] != '\0')
		return shared_name_ok(t) && t[0] != '-';
	errno = 0;
	pid = strtol(t, &end, 10);
	return errno == 0 && *end == '\0' && pid >= 1 && pid <= INT_MAX &&
	    *t != '0';
}

/*
 * The checks of options with a grammar of their own.  Each is called with
 * the struct parsed and the value, and returns 0, or -1 with the reason
 * in err.
 */

static int
set_rate(void *base, const char *arg, char *err, size_t errsz)
{
	struct parsed *p = base;

	if (p->nrates == MAX_LIMITS)
		return msg_fail(
		    err, errsz, "too many -r: at most %d limits", MAX_LIMITS);
	p->rates[p->nrates++] = arg;
	return 0;
}

static const char burst_twice[] =
    "-b given twice ('%s' and '%s') for one -r: give one burst";

/* A -b belongs to the -r before it. */
static int
set_burst(void *base, const char *arg, char *err, size_t errsz)
{
	struct parsed *p = base;
	const char **slot = p->nrates > 0 ? &p->bursts[p->nrates - 1] :
					    &p->lead_burst;

	if (*slot != NULL)
		return msg_fail(err, errsz, burst_twice, *slot, arg);
	*slot = arg;
	return 0;
}

static int
set_delim(void *base, const char *arg, char *err, size_t errsz)
{
	return parse_delim(
	    arg, &((struct parsed *)base)->cfg.delim, err, errsz);
}

static int
set_separator(void *base, const char *arg, char *err, size_t errsz)
{
	unsigned char sep = 0;

	if (parse_delim(arg, &sep, err, errsz) != 0)
		return -1;
	((struct parsed *)base)->cfg.key_sep = sep;
	return 0;
}

static int
set_redis(void *base, const char *arg, char *err, size_t errsz)
{
	struct redis_url *u = &((struct parsed *)base)->cfg.redis_url;
	struct redis_url tls = *u; /* the TLS options, if given before */
	int rc = redisurl_parse(arg, u, err, errsz);

	u->cafile = tls.cafile;
	u->certfile = tls.certfile;
	u->keyfile = tls.keyfile;
	u->insecure = tls.insecure;
	return rc;
}

static int
set_speed(void *base, const char *arg, char *err, size_t errsz)
{
	struct config *cfg = &((struct parsed *)base)->cfg;

	return spec_speed_parse(
	    arg, &cfg->speed_num, &cfg->speed_den, err, errsz);
}

/* --loop N|inf: N passes in all, from 1. */
static int
check_loop(void *base, const char *arg, char *err, size_t errsz)
{
	struct config *cfg = &((struct parsed *)base)->cfg;
	uint64_t n;

	if (strcmp(arg, "inf") == 0) {
		cfg->loops = UINT64_MAX;
		return 0;
	}
	if (!cmdline_whole(arg, 1, 1000000000, &n))
		return msg_fail(err, errsz,
		    "invalid --loop '%s': give the passes in all, a whole "
		    "number from 1 to 1000000000, or inf",
		    arg);
	cfg->loops = n - 1;
	return 0;
}

static int
check_time_format(void *base, const char *arg, char *err, size_t errsz)
{
	char why[160];

	(void)base;
	if (timestamp_check_format(arg, why, sizeof why) != 0)
		return msg_fail(
		    err, errsz, "invalid --time-format '%s': %s", arg, why);
	return 0;
}

static int
check_name(void *base, const char *arg, char *err, size_t errsz)
{
	(void)base;
	/* All digits would read as a process id, a '-' as an option. */
	if (!shared_name_ok(arg) || arg[0] == '-' ||
	    arg[strspn(arg, "0123456789")] == '\0')
		return msg_fail(err, errsz,
		    "invalid --name '%s': use up to 64 letters, digits, '.', "
		    "'_' and '-', not all digits, not starting with '.' or '-'",
		    arg);
	return 0;
}

/* clang-format off */
static const struct cmdline_option options[NOPTIONS] = {
	[O_RATE] = { "rate", "RATE", 'r', REQ, SEEN, .check = set_rate,
	    .help = "units per period: 5, 90/min, 3/10s, 2k/s, inf;\n"
	    "repeat for several limits, each -b after its -r\n"
	    "(with -c: 500k/s, 64KiB/s, 1.5MB/s, 2g/min)" },
	[O_BURST] = { "burst", "N", 'b', REQ, SEEN, .check = set_burst,
	    .help = "bucket size in units, or a duration such as 2s\n"
	    "(default: 1 record; with -c, 10ms of the rate)" },
	[O_LINES] = { "lines", NULL, 'l', NONE,
	    CONST(cfg.mode, units, UNIT_LINES),
	    .help = "a unit is a line ending in newline (default)" },
	[O_NULL] = { "null", NULL, '0', NONE, CONST(cfg.mode, units, UNIT_NULL),
	    .help = "a unit is a record ending in NUL" },
	[O_DELIM] = { "delimiter", "C", 'd', REQ,
	    CONST(cfg.mode, units, UNIT_DELIM), .check = set_delim,
	    .help = "a unit is a record ending in byte C (',' '\\t' '\\x1e')" },
	[O_BYTES] = { "bytes", NULL, 'c', NONE,
	    CONST(cfg.mode, units, UNIT_BYTES), .help = "a unit is a byte" },
	[O_BYTE_RATE] = { "byte-rate", "RATE", 0, REQ, TEXT(byte_rate),
	    .help = "also limit records by their bytes: 1M/s, 64KiB/s;\n"
	    "-r may then be left out" },
	[O_BYTE_BURST] = { "byte-burst", "N", 0, REQ, TEXT(byte_burst),
	    .help = "bytes the byte limit may burst, or a duration\n"
	    "(default: 10ms of the byte rate)" },
	[O_ALG] = { "algorithm", "ALG", 'a', REQ,
	    WORD(cfg.algorithm, algorithms),
	    .help = "token: bursts up to BURST (default);\n"
	    "leaky: one unit every 1/RATE, evenly spaced;\n"
	    "sliding: at most N in any PERIOD of RATE N/PERIOD;\n"
	    "fixed: at most N per PERIOD on the wall clock" },
	[O_LEAKY] = { "leaky", NULL, 0, NONE,
	    CONST(cfg.algorithm, algorithms, ALG_LEAKY),
	    .help = "same as -a leaky" },
	[O_INITIAL] = { "initial", "N", 0, REQ, TEXT(initial),
	    .help = "tokens in the bucket at start (default: full)" },
	[O_CATCHUP] = { "catch-up", "T", 0, REQ,
	    DURATION(cfg.catchup_ns, MAX_CATCHUP_NS), .why = true,
	    .bad = "give a duration such as 10ms or 0", .big = "at most 1h",
	    .help = "how late a unit may be and keep its slot (10ms)" },
	[O_KEY] = { "key", "FIELD", 'k', REQ, COUNT(cfg.key_field, MAX_FIELD),
	    .help = "a bucket of its own for each value of field FIELD\n"
	    "(1-based) of a record; best with --drop" },
	[O_SEP] = { "field-separator", "C", 'F', REQ, SEEN,
	    .check = set_separator,
	    .help = "fields end at byte C (default: runs of blanks)" },
	[O_MAX_KEYS] = { "max-keys", "N", 0, REQ,
	    COUNT(cfg.max_keys, MAX_MAX_KEYS),
	    .help = "most keys with a live bucket (1000000); beyond,\n"
	    "new keys share one bucket" },
	[O_TIERS] = { "tiers", "FILE", 0, REQ, TEXT(cfg.tiers_file),
	    .bad = "give the name of a file",
	    .help = "rates by key from FILE, a line PATTERN RATE [BURST]\n"
	    "each: the first glob that matches a key gives its\n"
	    "rate; other keys take -r, or with --drop and no -r\n"
	    "are dropped" },
	[O_TOTAL_RATE] = { "total-rate", "RATE", 0, REQ, TEXT(total_rate),
	    .help = "with -k, all keys together no faster than RATE\n"
	    "too: each record pays its key's limit and this\n"
	    "(with --redis, the whole fleet's, in Redis)" },
	[O_TOTAL_BURST] = { "total-burst", "N", 0, REQ, TEXT(total_burst),
	    .help = "the burst of --total-rate (default: 1 unit)" },
	[O_ORDER] = { "order", "input|key", 0, REQ, WORD(cfg.order, orders),
	    .help = "with -k, of the records held which goes first:\n"
	    "in input order (default), or whichever key's is\n"
	    "due first, each key's own in order" },
	[O_SHARED] = { "shared", "NAME", 0, REQ, TEXT(cfg.shared),
	    .help = "draw from the bucket NAME, shared by every\n"
	    "tbthrottle of yours started with it" },
	[O_REDIS] = { "redis", "URL", 0, REQ, SEEN, FLAG(cfg.redis),
	    .check = set_redis,
	    .help = "keep the --shared bucket in Redis, for many hosts:\n"
	    "redis://[[user]:password@]host[:port][/db],\n"
	    "rediss://... with TLS,\n"
	    "unix:///path/to/redis.sock[?db=N], or through\n"
	    "Redis Sentinel, redis-sentinel://[[user]:password@]\n"
	    "host[:port][,host[:port]...]/MASTER[/db]\n"
	    "(rediss-sentinel:// with TLS); any node of a\n"
	    "Redis Cluster spreads the keys" },
	[O_CACERT] = { "redis-cacert", "FILE", 0, REQ, TEXT(cfg.redis_url.cafile),
	    .bad = "give a file of CA certificates (PEM)",
	    .help = "with rediss://, trust the CAs of FILE (PEM), not\n"
	    "the system's" },
	[O_CERT] = { "redis-cert", "FILE", 0, REQ,
	    TEXT(cfg.redis_url.certfile), .bad = "give a certificate file",
	    .help = "with rediss://, our certificate (PEM), for a\n"
	    "server that asks for one; with --redis-key" },
	[O_KEYFILE] = { "redis-key", "FILE", 0, REQ,
	    TEXT(cfg.redis_url.keyfile), .bad = "give a key file",
	    .help = "the private key of --redis-cert (PEM)" },
	[O_INSECURE] = { "redis-insecure", NULL, 0, NONE, SEEN,
	    FLAG(cfg.redis_url.insecure),
	    .help = "with rediss://, take any certificate (said at\n"
	    "every start)" },
	[O_FALLBACK] = { "redis-fallback", "F", 0, REQ,
	    WORD(cfg.redis_fallback, fallbacks),
	    .help = "while Redis is down: block (default), local\n"
	    "(limit this process alone) or fail" },
	[O_EVICTION] = { "redis-allow-eviction", NULL, 0, NONE, SEEN,
	    FLAG(cfg.redis_allow_eviction),
	    .help = "run on a server whose maxmemory-policy evicts\n"
	    "keys (the limits reset when it does)" },
	[O_QUEUE] = { "queue", "N", 0, REQ, COUNT(cfg.queue, QUEUE_MAX_UNITS),
	    .help = "at most N records wait: reading pauses, or with\n"
	    "--drop a record that finds N waiting is dropped" },
	[O_DROP] = { "drop", NULL, 0, NONE, SEEN, FLAG(cfg.drop),
	    .help = "drop units that find no token instead of waiting" },
	[O_DROP_TO] = { "drop-to", "FILE", 0, REQ, TEXT(cfg.drop_to),
	    FLAG(cfg.drop), .bad = "give a file name",
	    .help = "the same, appending dropped units whole to FILE" },
	[O_EXEC] = { "exec", "CMD ...", 0, NONE, SEEN, FLAG(cfg.exec),
	    .help = "run CMD for each record instead of writing it: {}\n"
	    "in an ARG is the record, {N} its field N, {#} its\n"
	    "number; with none, it comes last.  Quoted only in\n"
	    "the script of sh -c (bash, dash... -c, also behind\n"
	    "env, nice, timeout; not sudo, xargs).  The command\n"
	    "ends at a lone ';' or with the arguments.  The\n"
	    "limits apply to the moment each one starts" },
	[O_JOBS] = { "jobs", "N", 'j', REQ, COUNT(cfg.jobs, MAX_JOBS),
	    .help = "with --exec, at most N commands at once (1)" },
	[O_TAKE] = { "take", NULL, 0, NONE, SEEN, FLAG(cfg.take),
	    .help = "take a token of the --shared bucket and exit 0,\n"
	    "reading no input; operands [KEY] [N]: the key's\n"
	    "bucket (-k), N tokens.  With --drop, exit 1 at\n"
	    "once when there is none" },
	[O_REPLAY] = { "replay", NULL, 0, NONE, SEEN, FLAG(cfg.replay),
	    .help = "release each record at its own timestamp, as far\n"
	    "after the first as its time says; -r, -b and\n"
	    "--byte-rate then cap it, --drop drops the excess" },
	[O_SPEED] = { "speed", "X", 0, REQ, TEXT(speed), .check = set_speed,
	    .help = "replay X times as fast: 60, 0.5 (default: 1);\n"
	    "with -R, change a running replay's speed" },
	[O_MAX_GAP] = { "max-gap", "T", 0, REQ,
	    DURATION(cfg.max_gap_ns, MAX_GAP_NS),
	    .bad = "give a duration such as 1s, 250ms or 0",
	    .big = "too long",
	    .help = "replay no wait longer than T between records" },
	[O_TIME_FIELD] = { "time-field", "N", 0, REQ,
	    COUNT(cfg.time_field, MAX_FIELD),
	    .help = "the timestamp starts field N (1-based, as for -k)" },
	[O_TIME_KEY] = { "time-key", "NAME", 0, REQ, TEXT(cfg.time_key),
	    .bad = "give the name of a JSON key",
	    .help = "the timestamp is the value of the top-level key\n"
	    "NAME of each JSON record: RFC 3339, or epoch" },
	[O_TIME_FORMAT] = { "time-format", "FMT", 0, REQ,
	    TEXT(cfg.time_format), .check = check_time_format,
	    .help = "read timestamps as strptime(3) FMT, '%d/%m/%Y %T'\n"
	    "(default: detect RFC 3339, syslog, CLF or epoch)" },
	[O_LOOP] = { "loop", "N|inf", 0, REQ, TEXT(loop), .check = check_loop,
	    .help = "replay the FILEs N times in all, or for ever" },
	[O_LOOP_GAP] = { "loop-gap", "T", 0, REQ,
	    DURATION(cfg.loop_gap_ns, MAX_GAP_NS),
	    .bad = "give a duration such as 1s, 250ms or 0",
	    .big = "too long",
	    .help = "wait T between the passes of --loop (0)" },
	[O_DRY_RUN] = { "dry-run", NULL, 0, NONE, SEEN, FLAG(cfg.dry_run),
	    .help = "with --replay, read it all and say what the replay\n"
	    "would do: format, records, log time, how long;\n"
	    "release nothing" },
	[O_STATS] = { "stats", "text|json", 's', optional_argument,
	    WORD(cfg.stats_json, formats), FLAG(cfg.stats),
	    .help = "report units and bytes in, out, dropped on exit\n"
	    "(and on SIGUSR1) to standard error" },
	[O_PROGRESS] = { "progress", NULL, 'P', NONE, SEEN,
	    FLAG(cfg.progress),
	    .help = "a live status line on stderr, if it is a terminal" },
	[O_NAME] = { "name", "NAME", 0, REQ, TEXT(cfg.name),
	    .check = check_name,
	    .help = "call this run NAME, for -R NAME and --list" },
	[O_RETUNE] = { "retune", "NAME|PID", 'R', REQ, TEXT(retune),
	    .help = "change the -r and -b of your running tbthrottle\n"
	    "NAME or PID; a -r without -b keeps its burst;\n"
	    "with --stats[=json], print its report instead" },
	[O_RELOAD] = { "reload", NULL, 0, NONE, SEEN,
	    FLAG(cfg.control_reload),
	    .help = "with -R: make it read its --tiers file again" },
	[O_LIST] = { "list", NULL, 0, NONE, SEEN, FLAG(cfg.list),
	    .help = "list your running tbthrottles with a rate or a name:\n"
	    "pid, name, limits, units in, out, dropped, waiting,\n"
	    "and age" },
	[O_JSON] = { "json", NULL, 0, NONE, SEEN, FLAG(cfg.list_json),
	    .help = "with --list, a JSON object a line" },
	[O_HELP] = { "help", NULL, 'h', NONE, STOP(OPT_HELP),
	    .help = "show this help and exit" },
	[O_VERSION] = { "version", NULL, 'V', NONE, STOP(OPT_VERSION),
	    .help = "show the version and exit" },
};
/* clang-format on */

/* ---- --help ---- */

const char *
options_long_name(int i)
{
	return i >= 0 && i < NOPTIONS ? options[i].name : NULL;
}

void
options_usage(FILE *fp)
{
	fputs(
	    "usage: tbthrottle -r RATE [-b BURST] [-l | -0 | -d C | -c]\n"
	    "                  [--byte-rate RATE [--byte-burst N]]\n"
	    "                  [-a ALG] [--initial N] [--catch-up T]\n"
	    "                  [-k FIELD [-F C] [--max-keys N] [--tiers FILE]\n"
	    "                   [--total-rate RATE [--total-burst N]]\n"
	    "                   [--order input|key]]\n"
	    "                  [--shared NAME [--redis URL [--redis-fallback F]\n"
	    "                   [--redis-allow-eviction] [--redis-cacert FILE]\n"
	    "                   [--redis-cert FILE --redis-key FILE]\n"
	    "                   [--redis-insecure]]]\n"
	    "                  [--queue N] [--drop | --drop-to FILE]\n"
	    "                  [--replay [--speed X] [--max-gap T]\n"
	    "                   [--time-field N | --time-key NAME]\n"
	    "                   [--time-format FMT] [--loop N|inf [--loop-gap T]]\n"
	    "                   [--dry-run]]\n"
	    "                  [-s | --stats=json] [-P] [--name NAME]\n"
	    "                  [FILE ...] [-j N --exec CMD [ARG...] [;]]\n"
	    "       tbthrottle --shared NAME -r RATE [-b BURST] [--redis URL]\n"
	    "                  [-k FIELD] [--drop] --take [KEY] [N]\n"
	    "       tbthrottle -R NAME|PID -r RATE [-b BURST] ...\n"
	    "       tbthrottle -R NAME|PID --speed X\n"
	    "       tbthrottle -R NAME|PID -s | --stats=json | --reload\n"
	    "       tbthrottle --list [--json]\n"
	    "Copy FILEs (or standard input) to standard output, releasing lines,\n"
	    "records or bytes no faster than RATE.\n"
	    "\n",
	    fp);
	cmdline_usage(fp, options, NOPTIONS);
	fputs(
	    "\n"
	    "RATE is NUMBER[SUFFIX][/[N]PERIOD] with PERIOD one of ms, s, min, "
	    "h, day;\n"
	    "NUMBER may have an exponent (2.5e3).  Byte suffixes k m g t are "
	    "1024-based.\n"
	    "Records go out whole; the last one needs no delimiter.  Exit status is\n"
	    "0 on success, 1 on a read or write error, 2 on a usage error; with\n"
	    "--exec, 123 when a command failed, 124 or 125 when one exited 255 or\n"
	    "was killed (none starts after it), 126 or 127 when none could run;\n"
	    "with --take --drop, 1 when no token was granted.\n"
	    "See tbthrottle(1) for the full grammar and examples.\n"
	    "\n"
	    "Examples:\n"
	    "  tbthrottle -r 5/s -b 2 -j 2 urls.txt --exec curl -fsSO\n"
	    "  tail -F app.log | tbthrottle -r 100/s -b 500 --drop-to flood.log\n"
	    "  tbthrottle --shared api -r 95/min --take && call-api\n"
	    "Replays, one per common log format:\n"
	    "  tbthrottle --replay --speed 10 access.log     nginx, Apache (CLF)\n"
	    "  tbthrottle --replay /var/log/syslog.1         syslog\n"
	    "  tbthrottle --replay app.log                   RFC 3339, epoch first\n"
	    "  tbthrottle --replay --time-key ts app.jsonl   JSON lines (zap, pino)\n"
	    "  tbthrottle --replay -F , --time-field 2 --time-format '%d/%m/%Y %T' x.csv\n",
	    fp);
}

/* ---- refused combinations ---- */

/*
 * The steps between the rules: each turns text into values that the rules
 * after it need, or refuses a bad value.  Each returns 0 to go on, -1 with
 * the reason in p->err, or 1 when the command line is complete.
 */

/* --list: nothing more to read. */
static int
list_only(struct parsed *p)
{
	return (p->cl.seen & O(LIST)) != 0;
}

/*
 * -R PID -r RATE [-b BURST] ...: each value must read as a rate or an
 * amount, of records or of bytes; the running tbthrottle checks them
 * against its own mode and answers.  That is all -R takes.
 */
static int
check_retune(struct parsed *p)
{
	struct config *cfg = &p->cfg;
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

/* --total-rate and --total-burst into cfg->total_limit. */
static int
resolve_total(struct parsed *p)
{
	struct config *cfg = &p->cfg;
	char why[512];

	if (p->total_rate == NULL)
		return 0;
	if (spec_limit_parse(p->total_rate, p->total_burst, NULL, cfg->mode,
		cfg->algorithm, &cfg->total_limit, why, sizeof why) != 0)
		return refuse(p, "--total-rate: %s", why);
	if (cfg->total_limit.rate.inf)
		return refuse(p,
		    "invalid --total-rate '%s': give a finite rate, or leave "
		    "it out",
		    p->total_rate);
	cfg->total_limited = true;
	cfg->total_text = p->total_rate;
	return 0;
}

/*
 * --take [KEY] [N]: its operands are no files.  With -k the first is the
 * key; N, the tokens, is a whole number, 1 if left out.
 */
static int
resolve_take(struct parsed *p)
{
	struct config *cfg = &p->cfg;
	char **w = cfg->files;
	int n = cfg->nfiles;
	uint64_t want = 1;

	if (!cfg->take)
		return 0;
	cfg->files = NULL;
	cfg->nfiles = 0;
	if (cfg->key_field > 0) {
		if (n == 0)
			return refuse(p,
			    "--take with -k %u needs the KEY to take from: "
			    "--take KEY [N]",
			    cfg->key_field);
		cfg->take_key = *w++;
		n--;
	}
	if (n > 1 && cfg->key_field == 0)
		return refuse(p,
		    "--take takes one operand, N, the tokens to take (a KEY "
		    "needs -k FIELD), not '%s'",
		    w[1]);
	if (n > 1 || (n == 1 && !cmdline_whole(w[0], 1, UINT32_MAX, &want)))
		return refuse(p,
		    "invalid --take operand '%s': give the tokens to take, a "
		    "whole number from 1 to %u%s",
		    w[n > 1 ? 1 : 0], UINT32_MAX,
		    cfg->key_field > 0 ? ", after the KEY" : "");
	cfg->take_units = want;
	if (cfg->drop && want > 1)
		return refuse(p,
		    "--take %llu with --drop could spend some of the tokens "
		    "and then fail: take one at a time",
		    (unsigned long long)want);
	return 0;
}

/* --exec needs a command; --take no local fallback. */
static int
check_exec_take(struct parsed *p)
{
	const struct config *cfg = &p->cfg;

	if (cfg->exec && cfg->exec_argc == 0)
		return refuse(
		    p, "--exec needs a command: --exec CMD [ARG...] [;]");
	if (cfg->take && cfg->redis_fallback == FALLBACK_LOCAL)
		return refuse(p,
		    "--take with --redis-fallback local would grant every take "
		    "while Redis is down (each is a new process, its local "
		    "bucket full): give block or fail");
	return 0;
}

/* --loop reads its FILE operands again: not standard input. */
static int
check_loop_input(struct parsed *p)
{
	const struct config *cfg = &p->cfg;

	if ((p->cl.seen & (O(LOOP) | O(LOOP_GAP))) == 0)
		return 0;
	if ((p->cl.seen & O(LOOP)) == 0)
		return refuse(p, "--loop-gap needs --loop N|inf");
	if (cfg->dry_run)
		return refuse(
		    p, "--dry-run describes one pass: leave --loop out");
	for (int i = 0; i < cfg->nfiles; i++)
		if (strcmp(cfg->files[i], "-") == 0)
			return refuse(p,
			    "--loop reads its FILEs again: standard input "
			    "('-') cannot be read twice");
	if (cfg->nfiles == 0)
		return refuse(p,
		    "--loop reads its FILEs again: give the log as a FILE "
		    "(standard input cannot be read twice)");
	return 0;
}

/* The TLS options: for a rediss:// URL, and a certificate with its key. */
static int
check_tls(struct parsed *p)
{
	const struct config *cfg = &p->cfg;
	uint64_t given = p->cl.seen &
	    (O(CACERT) | O(CERT) | O(KEYFILE) | O(INSECURE));
	char name[64];

	if (given != 0 && !(cfg->redis && cfg->redis_url.tls))
		return refuse(p,
		    "%s needs a rediss:// URL for --redis: it is of TLS",
		    cmdline_first(&p->cl, given, false, name, sizeof name));
	if (((given & O(CERT)) != 0) != ((given & O(KEYFILE)) != 0))
		return refuse(
		    p, "--redis-cert and --redis-key go together: give both");
	return 0;
}

/*
 * --take N: no more than the bucket holds.  More could never be granted
 * at once, and would book the bucket for as long as N takes to earn.
 */
static int
check_take(struct parsed *p)
{
	const struct config *cfg = &p->cfg;

	if (cfg->take && cfg->nlimits > 0 &&
	    cfg->take_units > cfg->limits[0].burst)
		return refuse(p,
		    "--take %llu is more than the bucket holds (-b %llu): "
		    "take at most the burst at once",
		    (unsigned long long)cfg->take_units,
		    (unsigned long long)cfg->limits[0].burst);
	return 0;
}

/* --byte-rate and --byte-burst into cfg->byte_limit. */
static int
resolve_bytes(struct parsed *p)
{
	if (p->byte_rate == NULL)
		return 0;
	if (spec_byte_limit_parse(p->byte_rate, p->byte_burst,
		&p->cfg.byte_limit, p->err, p->errsz) != 0)
		return -1;
	p->cfg.byte_limited = true;
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
	struct config *cfg = &p->cfg;

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

/* The suffix of rate text r after its number: "M" of "1M/s". */
static size_t
suffix_of(const char *r, const char **suffix)
{
	const char *p = r;

	while (isdigit((unsigned char)*p) || *p == '.' ||
	    ((*p == 'e' || *p == 'E') && p > r &&
		(isdigit((unsigned char)p[1]) || p[1] == '-' || p[1] == '+')))
		p += (*p == 'e' || *p == 'E') ? 2 : 1;
	*suffix = p;
	return strcspn(p, "/");
}

/*
 * A rate of records written as bytes are (1M/s, 64KiB/s): it counts
 * records, a million a second; say so once, as a warning.
 */
static int
warn_byte_suffix(struct parsed *p)
{
	const char *sfx;
	size_t n;

	/* Not when the unit is said (-l, -0, -d), bytes are limited
	 * already (--byte-rate), or -r is a replay's ceiling. */
	if (p->cfg.mode == UNIT_BYTES ||
	    (p->cl.seen &
		(O(LINES) | O(NULL) | O(DELIM) | O(BYTE_RATE) | O(REPLAY))) !=
		0)
		return 0;
	for (int i = 0; i < p->nrates; i++) {
		n = suffix_of(p->rates[i], &sfx);
		if (n == 0 || sfx == p->rates[i] ||
		    (memchr(sfx, 'B', n) == NULL &&
			memchr(sfx, 'i', n) == NULL &&
			strchr("MGT", sfx[0]) == NULL))
			continue;
		snprintf(p->cfg.warning, sizeof p->cfg.warning,
		    "-r %s counts %s, not bytes; to limit bytes, add -c, or "
		    "give --byte-rate %s",
		    p->rates[i],
		    p->cfg.mode == UNIT_LINES ? "lines" : "records",
		    p->rates[i]);
		break;
	}
	return 0;
}

/* The options given, and the facts about them that hold now. */
static uint64_t
facts(const struct parsed *p)
{
	const struct config *c = &p->cfg;
	const struct limit *l = &c->limits[0];

#define IF(f, cond) ((cond) ? BIT(f) : 0)
	return p->cl.seen | IF(F_FILES, c->nfiles > 0) |
	    IF(F_LEAD, p->lead_burst != NULL) | IF(F_B0, p->bursts[0] != NULL) |
	    IF(F_NO_RATE, p->nrates == 0 || p->lead_burst != NULL) |
	    IF(F_SEVERAL, p->nrates > 1) | IF(F_INF_AMONG, p->inf_among) |
	    IF(F_INF, c->nlimits == 0 && p->nrates > 0) |
	    IF(F_UNLIMITED, options_unlimited(c)) |
	    IF(F_NOT_FULL, c->nlimits > 0 && l->initial != l->burst) |
	    IF(F_WINDOW,
		c->algorithm == ALG_SLIDING || c->algorithm == ALG_FIXED) |
	    IF(F_BAD_TARGET, p->retune != NULL && !target_ok(p->retune)) |
	    IF(F_BAD_SHARED, c->shared != NULL && !shared_name_ok(c->shared)) |
	    IF(F_ORDER_KEY, c->order == ORDER_KEY);
#undef IF
}

/* What a rule's message quotes: a value, or the option that broke it. */
enum quote {
	Q_NONE,
	Q_LEAD,	 /* the -b before any -r */
	Q_B0,	 /* the -b after the first -r */
	Q_WORD,	 /* the first of the rule's any given, as typed */
	Q_NAME,	 /* ... by its --name */
	Q_VALUE, /* Q_VALUE + O_x: the value of option x */
};
#define V(x) (Q_VALUE + O_##x)

/*
 * A rule refuses the command line when every bit of all and none of none
 * hold, and one of any if any, with text: its %s are the quotes.  A row
 * with a step instead runs it there.
 */
struct rule {
	const char *text;
	uint64_t all, none, any;
	unsigned char quote[2];
	int (*step)(struct parsed *);
};

/*
 * Every combination the command line refuses, in the order checked: when
 * several apply, the first is the one named.  The steps show where values
 * are parsed, so a bad value wins over every rule below its step.
 *
 * Found while the options are read, not here: a bad value, a second -l,
 * -0, -d or -c of another unit, a second -a of another algorithm, two -b
 * for one -r, and a ninth -r.  spec_limit_parse refuses -b with -a leaky,
 * and -b or --initial with -a sliding or fixed, as -R needs that too.
 */
static int stray_operands(struct parsed *p);
static int check_exec_take(struct parsed *p);
static int check_loop_input(struct parsed *p);
static int check_tls(struct parsed *p);
static int check_take(struct parsed *p);
static int warn_byte_suffix(struct parsed *p);

/* clang-format off */
static const struct rule rules[] = {
	/* --list lists, and takes nothing else. */
	{ "--json needs --list: the list it prints as JSON",
	    .all = O(JSON), .none = O(LIST) },
	{ "--list takes no other options or operands (but --json)",
	    .all = O(LIST), .any = (ALL_OPTIONS & ~O(LIST) & ~O(JSON)) |
	    F(FILES) },
	{ .step = list_only },

	/* -R sends its -r and -b, or asks for --stats, of a running one. */
	{ "--reload needs -R NAME|PID: the run to reload", .all = O(RELOAD),
	    .none = O(RETUNE) },
	{ "-R takes only -r and -b, --stats, --reload or --speed, not '%s'",
	    .all = O(RETUNE), .any = ALL_OPTIONS & ~RETUNE_OPTIONS,
	    .quote = { Q_WORD } },
	{ "-R takes only -r and -b, --stats, --reload or --speed, not FILE "
	    "operands", .all = O(RETUNE) | F(FILES) },
	{ "invalid -R '%s': give the name or the process id of a running "
	    "tbthrottle", .all = O(RETUNE) | F(BAD_TARGET),
	    .quote = { V(RETUNE) } },
	{ "-R %s takes -r and -b, or --stats, not both",
	    .all = O(RETUNE) | O(STATS), .any = O(RATE) | O(BURST),
	    .quote = { V(RETUNE) } },
	{ "-R %s takes --reload alone, without -r, -b, --stats or --speed",
	    .all = O(RETUNE) | O(RELOAD),
	    .any = O(STATS) | O(RATE) | O(BURST) | O(SPEED),
	    .quote = { V(RETUNE) } },
	{ "-R %s needs -r RATE [-b BURST] for each limit to change, --stats, "
	    "--reload or --speed", .all = O(RETUNE) | F(NO_RATE),
	    .none = O(STATS) | O(RELOAD) | O(SPEED), .quote = { V(RETUNE) } },
	{ "-R %s takes --speed alone, not with -r, -b or --stats",
	    .all = O(RETUNE) | O(SPEED), .any = O(RATE) | O(BURST) | O(STATS),
	    .quote = { V(RETUNE) } },
	{ .step = check_retune },

	/* --take takes tokens and exits; --exec runs commands at the rate. */
	{ "--take takes tokens of a --shared bucket and exits: it does not "
	    "combine with %s", .all = O(TAKE),
	    .any = ALL_OPTIONS & ~TAKE_OPTIONS, .quote = { Q_WORD } },
	{ "--take needs --shared NAME: the bucket to take from, kept beyond "
	    "this process", .all = O(TAKE), .none = O(SHARED) },
	{ .step = resolve_take },
	{ .step = stray_operands },
	{ .step = check_exec_take },
	{ "-j %s needs --exec: it bounds the commands running at once",
	    .all = O(JOBS), .none = O(EXEC), .quote = { V(JOBS) } },
	{ "--exec runs a command for each record; it does not apply to -c",
	    .all = O(EXEC) | O(BYTES) },
	{ "--exec does not combine with --queue: records wait for a free "
	    "slot in the input", .all = O(EXEC) | O(QUEUE) },
	{ "--exec does not combine with --order key: records wait for a "
	    "free slot in the order they come", .all = O(EXEC) | F(ORDER_KEY) },
	{ "--dry-run says what a replay would do and starts nothing: it "
	    "does not combine with --exec", .all = O(EXEC) | O(DRY_RUN) },

	/* --replay: records at their own timestamps, whole. */
	{ "%s needs --replay", .none = O(REPLAY), .any = REPLAY_OPTIONS,
	    .quote = { Q_NAME } },
	{ "--replay times records by their timestamps; it does not apply to "
	    "-c", .all = O(REPLAY) | O(BYTES) },
	{ "--time-key finds the timestamp by its JSON key: give it or "
	    "--time-field, not both", .all = O(TIME_KEY) | O(TIME_FIELD) },
	{ .step = check_loop_input },
	{ "--replay does not combine with --queue",
	    .all = O(REPLAY) | O(QUEUE) },
	{ "--replay does not combine with --shared",
	    .all = O(REPLAY) | O(SHARED) },

	/* Records limited by their bytes too. */
	{ "--byte-burst %s needs --byte-rate", .all = O(BYTE_BURST),
	    .none = O(BYTE_RATE), .quote = { V(BYTE_BURST) } },
	{ "--byte-rate applies to records; with -c give the byte rate as "
	    "-r %s", .all = O(BYTE_RATE) | O(BYTES),
	    .quote = { V(BYTE_RATE) } },
	{ .step = resolve_bytes },
	{ "-a applies to -r, and there is none: --byte-rate is always a "
	    "token bucket", .all = O(BYTE_RATE), .none = O(RATE),
	    .any = O(ALG) | O(LEAKY) },

	/* The limits: each -r with its -b, and --initial. */
	{ "-b %s comes before any -r: with several -r, give each -b after "
	    "its -r", .all = F(LEAD) | F(SEVERAL), .quote = { Q_LEAD } },
	{ burst_twice, .all = F(LEAD) | F(B0), .quote = { Q_LEAD, Q_B0 } },
	{ "--initial applies to a single -r",
	    .all = O(INITIAL) | F(SEVERAL) },
	{ "-b %s applies to -r, and there is none (for the bytes, give "
	    "--byte-burst)", .all = F(LEAD), .none = O(RATE),
	    .any = O(BYTE_RATE) | O(REPLAY), .quote = { Q_LEAD } },
	{ "--initial %s applies to -r, and there is none (for the bytes, "
	    "give --byte-burst)", .all = O(INITIAL), .none = O(RATE),
	    .any = O(BYTE_RATE) | O(REPLAY), .quote = { V(INITIAL) } },
	{ "missing -r RATE (for example -r 10/s or -c -r 1M/s; see --help)",
	    .none = O(RATE) | O(BYTE_RATE) | O(TIERS) | O(REPLAY) },
	{ .step = resolve_limits },
	{ .step = warn_byte_suffix },
	{ .step = check_take },
	{ "-r inf cannot be combined with other rates", .all = F(INF_AMONG) },

	/* --queue holds whole records under record limits only. */
	{ "--queue %s counts records; it does not apply to -c",
	    .all = O(QUEUE) | O(BYTES), .quote = { V(QUEUE) } },
	{ "--queue %s does not combine with --byte-rate",
	    .all = O(QUEUE) | O(BYTE_RATE), .quote = { V(QUEUE) } },
	{ "--queue %s needs a rate: with -r inf nothing ever waits",
	    .all = O(QUEUE) | F(UNLIMITED), .quote = { V(QUEUE) } },

	/* -k keeps a limit per key, for one -r, or by --tiers. */
	{ "-F needs -k FIELD, --time-field N or --exec", .all = O(SEP),
	    .none = O(KEY) | O(TIME_FIELD) | O(EXEC) },
	{ "--tiers needs -k FIELD: tiers give the rates of keys",
	    .all = O(TIERS), .none = O(KEY) },
	{ "--max-keys needs -k FIELD", .all = O(MAX_KEYS), .none = O(KEY) },
	{ "--total-burst %s needs --total-rate", .all = O(TOTAL_BURST),
	    .none = O(TOTAL_RATE), .quote = { V(TOTAL_BURST) } },
	{ "--total-rate %s caps all keys together: it needs -k FIELD (without "
	    "-k, give it as a second -r)", .all = O(TOTAL_RATE),
	    .none = O(KEY), .quote = { V(TOTAL_RATE) } },
	{ .step = resolve_total },
	{ "-k %s keys records; it does not apply to -c",
	    .all = O(KEY) | O(BYTES), .quote = { V(KEY) } },
	{ "-k %s needs a rate for each key", .all = O(KEY),
	    .any = F(UNLIMITED) | F(INF), .quote = { V(KEY) } },
	{ "-k %s takes one -r, the rate of each key",
	    .all = O(KEY) | F(SEVERAL), .quote = { V(KEY) } },
	{ "--order key lets each key go at its own pace: it needs -k FIELD",
	    .all = F(ORDER_KEY), .none = O(KEY) },
	{ "--order key orders the records that wait for their token: with "
	    "--drop none waits", .all = F(ORDER_KEY),
	    .any = O(DROP) | O(DROP_TO) },
	{ "--order key does not combine with --replay, whose records go at "
	    "their timestamps", .all = F(ORDER_KEY) | O(REPLAY) },
	{ "--order key does not combine with --redis: its buckets are booked "
	    "ahead, in input order", .all = F(ORDER_KEY) | O(REDIS) },
	{ "-k %s does not combine with --queue (but with --order key, where "
	    "--queue N bounds the records held)", .all = O(KEY) | O(QUEUE),
	    .none = F(ORDER_KEY), .quote = { V(KEY) } },
	{ "-k %s starts every key with a full bucket: --initial does not "
	    "apply", .all = O(KEY) | F(NOT_FULL), .quote = { V(KEY) } },

	/* --shared is one token bucket, in a file or in Redis. */
	{ "--redis needs --shared NAME", .all = O(REDIS), .none = O(SHARED) },
	{ "--redis-fallback needs --shared NAME", .all = O(FALLBACK),
	    .none = O(SHARED) },
	{ "--redis-allow-eviction needs --redis URL", .all = O(EVICTION),
	    .none = O(REDIS) },
	{ .step = check_tls },
	{ "--redis-insecure takes any certificate: it does not combine "
	    "with --redis-cacert", .all = O(INSECURE) | O(CACERT) },
	{ "invalid --shared name '%s': use up to 64 letters, digits, '.', "
	    "'_' and '-'", .all = O(SHARED) | F(BAD_SHARED),
	    .quote = { V(SHARED) } },
	{ "--shared %s needs a rate", .all = O(SHARED) | F(UNLIMITED),
	    .quote = { V(SHARED) } },
	{ "--shared %s takes one -r", .all = O(SHARED) | F(SEVERAL),
	    .quote = { V(SHARED) } },
	{ "--shared %s needs -a token or -a leaky",
	    .all = O(SHARED) | F(WINDOW), .quote = { V(SHARED) } },
	{ "--shared %s does not combine with -k (except with --redis)",
	    .all = O(SHARED) | O(KEY), .none = O(REDIS),
	    .quote = { V(SHARED) } },
	{ "--shared %s does not combine with --queue",
	    .all = O(SHARED) | O(QUEUE), .quote = { V(SHARED) } },
	{ "--shared %s starts the bucket full: --initial does not apply",
	    .all = O(SHARED) | F(NOT_FULL), .quote = { V(SHARED) } },

	/* Dropping needs something to drop for. */
	{ "--drop needs a rate: with -r inf nothing is ever dropped",
	    .all = F(UNLIMITED), .none = O(BYTE_RATE),
	    .any = O(DROP) | O(DROP_TO) },
};
/* clang-format on */

/* The text of quote q of rule r, made in buf[0..size) if need be. */
static const char *
quote(
    const struct parsed *p, const struct rule *r, int q, char *buf, size_t size)
{
	switch (q) {
	case Q_NONE:
		return "";
	case Q_LEAD:
		return p->lead_burst;
	case Q_B0:
		return p->bursts[0];
	case Q_WORD:
	case Q_NAME:
		return cmdline_first(&p->cl, r->any, q == Q_WORD, buf, size);
	default:
		return cmdline_value(&p->cl, q - Q_VALUE, buf, size);
	}
}

/* Run the rules over p, top to bottom. */
static enum parse_result
check_rules(struct parsed *p)
{
	uint64_t have = facts(p);
	char one[64], two[64];

	for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++) {
		const struct rule *r = &rules[i];
		int rc;

		if (r->step != NULL) {
			if ((rc = r->step(p)) != 0)
				return rc < 0 ? OPT_ERROR : OPT_RUN;
			have = facts(p);
		} else if ((have & r->all) == r->all && (have & r->none) == 0 &&
		    (r->any == 0 || (have & r->any) != 0)) {
			refuse(p, r->text,
			    quote(p, r, r->quote[0], one, sizeof one),
			    quote(p, r, r->quote[1], two, sizeof two));
			return OPT_ERROR;
		}
	}
	return OPT_RUN;
}

/* -s json (for --stats=json): an operand that is a piece of an option. */
static int
stray_operands(struct parsed *p)
{
	const struct config *cfg = &p->cfg;

	for (int i = 0; i < cfg->nfiles && !cfg->take; i++) {
		const char *w = cfg->files[i];

		if (cfg->stats && !cfg->stats_json &&
		    (strcmp(w, "json") == 0 || strcmp(w, "text") == 0))
			return refuse(p,
			    "-s and --stats take no value apart: for a JSON "
			    "report give --stats=json (for a file named %s, "
			    "give ./%s)",
			    w, w);
	}
	return 0;
}

/* ---- the command line ---- */

static enum parse_result
parse(struct parsed *p, int argc, char **argv)
{
	struct config *cfg = &p->cfg;
	int rc;

	static char **words; /* the command line, --exec's words cut out */

	p->cl = (struct cmdline){ .options = options,
		.noptions = NOPTIONS,
		.base = p,
		.err = p->err,
		.errsz = p->errsz };
	free(words);
	if ((words = malloc(((size_t)argc + 1) * sizeof *words)) == NULL) {
		refuse(p, "%s", strerror(errno));
		return OPT_ERROR;
	}
	if ((argc = cmdline_cut(&p->cl, O_EXEC, ";", argc, argv, words,
		 &cfg->exec_argv, &cfg->exec_argc)) < 0)
		return OPT_ERROR;
	argv = words;
	if (habits_check(&p->cl, argc, argv, p->err, p->errsz) != 0)
		return OPT_ERROR;
	if ((rc = cmdline_read(&p->cl, argc, argv)) != 0)
		return rc < 0 ? OPT_ERROR : (enum parse_result)rc;
	/* -0 ends records with NUL; -l, the default, with a newline. */
	if (cfg->mode == UNIT_NULL)
		cfg->delim = '\0';
	cfg->files = p->cl.operands;
	cfg->nfiles = p->cl.noperands;
	return check_rules(p);
}

enum parse_result
options_parse(
    struct config *cfg, int argc, char **argv, char *err, size_t errsz)
{
	static const struct config defaults = { .mode = UNIT_LINES,
		.delim = '\n',
		.algorithm = ALG_TOKEN,
		.catchup_ns = DEFAULT_CATCHUP_NS,
		.key_sep = -1,
		.max_keys = DEFAULT_MAX_KEYS,
		.speed_num = 1,
		.speed_den = 1,
		.max_gap_ns = -1,
		.jobs = 1 };
	struct parsed p = { .cfg = defaults, .err = err, .errsz = errsz };
	enum parse_result r = parse(&p, argc, argv);

	*cfg = p.cfg;
	/* A value quoted in the message must not break it over lines. */
	if (r == OPT_ERROR)
		msg_escape(err, errsz);
	return r;
}
