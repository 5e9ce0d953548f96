/* Command-line options: the table of options, read by getopt into a config. */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cmdline.h"
#include "habits.h"
#include "msg.h"
#include "options.h"
#include "parsed.h"
#include "timeformat.h"
#include "timestamp.h"

/* Most units --queue may hold: with a byte each, the queue's buffer. */
#define QUEUE_MAX_UNITS 1000000000ULL
/* Most commands -j may run at once. */
#define MAX_JOBS 4096
/* --retry: at most so many tries again; their waits at most a day. */
#define MAX_RETRIES 1000
#define MAX_RETRY_NS (86400 * 1000000000ULL)
/* The last field -k and --time-field may name. */
#define MAX_FIELD 1000000
/* Longest --catch-up, and --max-gap, in ns. */
#define MAX_CATCHUP_NS (3600ULL * 1000000000)
#define MAX_GAP_NS ((uint64_t)INT64_MAX / 2)

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
static const char *const output_flags[] = { [OUTPUT_AUTO] = "",
	[OUTPUT_LINE] = "--line-buffer", [OUTPUT_WHOLE] = "--group",
	[OUTPUT_OWN] = "--ungroup" };
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
static const struct cmdline_choice outputs = CHOICE(output_flags, NULL,
    "%2$s conflicts with %1$s: give one of --line-buffer, --group, "
    "--ungroup");
static const struct cmdline_choice orders = CHOICE(order_words,
    "invalid --order '%s': use input or key", NULL);
/* clang-format on */
_Static_assert(sizeof(enum unit_mode) == sizeof(unsigned) &&
	sizeof(enum algorithm) == sizeof(unsigned) &&
	sizeof(enum redis_fallback) == sizeof(unsigned) &&
	sizeof(enum order) == sizeof(unsigned) &&
	sizeof(enum output_choice) == sizeof(unsigned),
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

bool
options_shared_name_ok(const char *name)
{
	size_t len = strspn(name,
	    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-");

	return len > 0 && len <= 64 && name[len] == '\0' && name[0] != '.';
}

/*
 * The checks of options with a grammar of their own.  Each is called with
 * the struct parsed and the value, and returns 0, or -1 with the reason
 * in err.
 */

/* --retry-on LIST. */
static int
set_retry_on(void *base, const char *arg, char *err, size_t errsz)
{
	struct parsed *p = base;
	char why[160];

	if (exitset_parse(arg, &p->cfg.retry_on, why, sizeof why) == 0)
		return 0;
	snprintf(err, errsz, "invalid --retry-on '%s': %s", arg, why);
	return -1;
}

/* --halt WHEN. */
static int
set_halt(void *base, const char *arg, char *err, size_t errsz)
{
	struct parsed *p = base;
	char why[160];

	if (halt_parse(arg, &p->cfg.halt, why, sizeof why) == 0)
		return 0;
	snprintf(err, errsz, "invalid --halt '%s': %s", arg, why);
	return -1;
}

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

const char options_burst_twice[] =
    "-b given twice ('%s' and '%s') for one -r: give one burst";

/* A -b belongs to the -r before it. */
static int
set_burst(void *base, const char *arg, char *err, size_t errsz)
{
	struct parsed *p = base;
	const char **slot = p->nrates > 0 ? &p->bursts[p->nrates - 1] :
					    &p->lead_burst;

	if (*slot != NULL)
		return msg_fail(err, errsz, options_burst_twice, *slot, arg);
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
	if (timeformat_check(arg, why, sizeof why) != 0)
		return msg_fail(
		    err, errsz, "invalid --time-format '%s': %s", arg, why);
	return 0;
}

static int
check_name(void *base, const char *arg, char *err, size_t errsz)
{
	(void)base;
	/* All digits would read as a process id, a '-' as an option. */
	if (!options_shared_name_ok(arg) || arg[0] == '-' ||
	    arg[strspn(arg, "0123456789")] == '\0')
		return msg_fail(err, errsz,
		    "invalid --name '%s': use up to 64 letters, digits, '.', "
		    "'_' and '-', not all digits, not starting with '.' or '-'",
		    arg);
	return 0;
}

/* clang-format off */
const struct cmdline_option options_table[NOPTIONS] = {
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
	[O_TZ] = { "tz", "ZONE", 0, REQ, TEXT(cfg.tz),
	    .bad = "give a zone such as Europe/Paris, or UTC or local",
	    .help = "with -a fixed, windows of ZONE's calendar (a day\n"
	    "from its midnight), not UTC's: a name such as\n"
	    "Europe/Paris, or local (TZ's zone, else the\n"
	    "system's); the TZ variable alone changes nothing" },
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
	[O_STATE_DIR] = { "state-dir", "DIR", 0, REQ, TEXT(cfg.state_dir),
	    .bad = "give a directory",
	    .help = "keep --shared buckets in DIR (made 0700 if\n"
	    "need be), not in $XDG_STATE_HOME/tbthrottle/HOST\n"
	    "or ~/.local/state/tbthrottle/HOST" },
	[O_REDIS] = { "redis", "URL", 0, REQ, SEEN, FLAG(cfg.redis),
	    .check = set_redis,
	    .help = "keep the --shared bucket (or window) in Redis,\n"
	    "for many hosts:\n"
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
	[O_LINE_BUFFER] = { "line-buffer", NULL, 0, NONE,
	    CONST(cfg.output, outputs, OUTPUT_LINE),
	    .help = "with --exec, pass the commands' output on a whole\n"
	    "line at a time: lines of two never mix (the\n"
	    "default with -j over 1, -P, --tag)" },
	[O_GROUP] = { "group", NULL, 0, NONE,
	    CONST(cfg.output, outputs, OUTPUT_WHOLE),
	    .help = "with --exec, pass each command's output on\n"
	    "whole once it ends" },
	[O_UNGROUP] = { "ungroup", NULL, 0, NONE,
	    CONST(cfg.output, outputs, OUTPUT_OWN),
	    .help = "with --exec, the commands write to our output\n"
	    "themselves (the default with -j 1): lines may mix" },
	[O_TAG] = { "tag", NULL, 0, NONE, SEEN, FLAG(cfg.tag),
	    .help = "put each line of a command's output after its\n"
	    "record and a tab" },
	[O_TAGSTRING] = { "tagstring", "STR", 0, REQ, TEXT(cfg.tagstring),
	    .bad = "give a tag such as {1} or {#}:",
	    .help = "the same with STR, {}, {N} and {#} filled in as\n"
	    "in the command, for the record" },
	[O_RETRY] = { "retry", "N", 0, REQ, COUNT(cfg.retries, MAX_RETRIES),
	    .help = "with --exec, start a command that exits 75\n"
	    "(EX_TEMPFAIL) again, up to N more times, each try\n"
	    "booked in the limits, after a wait of full jitter\n"
	    "doubling from --retry-delay (or the Retry-After\n"
	    "it wrote in $TBTHROTTLE_RETRY_AFTER)" },
	[O_RETRY_ON] = { "retry-on", "LIST", 0, REQ, SEEN,
	    .check = set_retry_on,
	    .help = "the exit statuses tried again (75): N, N-M, and\n"
	    "commas between; timeout: those --timeout ended" },
	[O_RETRY_DELAY] = { "retry-delay", "T", 0, REQ,
	    DURATION(cfg.retry_delay_ns, MAX_RETRY_NS),
	    .bad = "give a duration such as 1s, 250ms or 0",
	    .big = "at most 1day",
	    .help = "the first wait between tries is at most T (1s)" },
	[O_RETRY_MAX] = { "retry-max-delay", "T", 0, REQ,
	    DURATION(cfg.retry_max_ns, MAX_RETRY_NS),
	    .bad = "give a duration such as 1min, 30s or 0",
	    .big = "at most 1day",
	    .help = "no wait between tries over T (60s)" },
	[O_FAILED_TO] = { "failed-to", "FILE", 0, REQ, TEXT(cfg.failed_to),
	    .bad = "give a file name",
	    .help = "with --exec, append the records whose last try\n"
	    "failed to FILE, whole, in input order" },
	[O_TIMEOUT] = { "timeout", "T", 0, REQ,
	    DURATION(cfg.timeout_ns, MAX_RETRY_NS),
	    .bad = "give a duration such as 30s, 500ms or 0",
	    .big = "at most 1day",
	    .help = "with --exec, a command still running T after its\n"
	    "start gets SIGTERM, SIGKILL 2 s later, and failed\n"
	    "(--retry-on timeout tries it again); a stop gives\n"
	    "those running T (or 10 s) before the same" },
	[O_HALT] = { "halt", "WHEN", 0, REQ, SEEN, .check = set_halt,
	    .help = "with --exec, after N failed records (soon,fail=N)\n"
	    "start nothing more; now,fail=N also ends those\n"
	    "running; fail=P% for a share of those ended; 0 1 2\n"
	    "as GNU parallel's (never)" },
	[O_JOBLOG] = { "joblog", "FILE", 0, REQ, TEXT(cfg.joblog),
	    .bad = "give a file name",
	    .help = "with --exec, append a line to FILE for each\n"
	    "record whose command is done (its last try), in\n"
	    "GNU parallel's --joblog layout" },
	[O_RESUME] = { "resume", NULL, 0, NONE, SEEN, FLAG(cfg.resume),
	    .help = "with --joblog FILE, start no command for the\n"
	    "records FILE has a line of (by their number in\n"
	    "the input); limits apply to the rest" },
	[O_RESUME_FAILED] = { "resume-failed", NULL, 0, NONE, SEEN,
	    FLAG(cfg.resume_failed),
	    .help = "as --resume, but the records whose last line\n"
	    "says they failed are started again" },
	[O_ADAPT] = { "adapt", NULL, 0, NONE, SEEN, FLAG(cfg.adapt),
	    .help = "with --exec, each command that exits with a\n"
	    "--retry-on status (the server refused it) cuts the\n"
	    "rate to 0.7 of what it was, at most once a round\n"
	    "trip; it climbs back to -r along a cubic curve.\n"
	    "A Retry-After from the command holds every start.\n"
	    "With --shared (and --redis), every process of the\n"
	    "bucket slows and holds together" },
	[O_TAKE] = { "take", NULL, 0, NONE, SEEN, FLAG(cfg.take),
	    .help = "take a token of the --shared bucket and exit 0,\n"
	    "reading no input; operands [KEY] [N]: the key's\n"
	    "bucket (-k), N tokens.  With --drop, exit 1 at\n"
	    "once when there is none" },
	[O_SHOW] = { "show", NULL, 0, NONE, SEEN, FLAG(cfg.show),
	    .help = "with --shared NAME, show what its bucket holds\n"
	    "now (tokens, or the records of the window, and\n"
	    "when the next comes) and exit, in its file or with\n"
	    "--redis URL in Redis; --json: as JSON" },
	[O_RESET] = { "reset", NULL, 0, NONE, SEEN, FLAG(cfg.reset),
	    .help = "with --shared NAME, give its bucket a clean\n"
	    "budget (full, or an empty window) and exit, in its\n"
	    "file or in Redis; the processes using it see it at\n"
	    "once" },
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
	    "NAME of each JSON record, a string or a number\n"
	    "(any format detected, or --time-format)" },
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
	    "would do: format, records, log time, how long\n"
	    "(with --loop, its passes); release nothing" },
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
	    .help = "with --list or --show, JSON: an object a line" },
	[O_HELP] = { "help", NULL, 'h', NONE, STOP(OPT_HELP),
	    .help = "show this help and exit" },
	[O_VERSION] = { "version", NULL, 'V', NONE, STOP(OPT_VERSION),
	    .help = "show the version and exit" },
};
/* clang-format on */

const char *
options_long_name(int i)
{
	return i >= 0 && i < NOPTIONS ? options_table[i].name : NULL;
}

/* ---- the command line ---- */

/* Whether a file exists, as the caller can tell: NULL, none does. */
static bool (*file_test)(const char *path);

void
options_file_test(bool (*exists)(const char *path))
{
	file_test = exists;
}

static enum parse_result
parse(struct parsed *p, int argc, char **argv)
{
	struct config *cfg = &p->cfg;
	struct habits_ctx habits = { .exists = file_test };
	int rc, all = argc;

	static char **words; /* the command line, --exec's words cut out */

	p->cl = (struct cmdline){ .options = options_table,
		.noptions = NOPTIONS,
		.base = p,
		.err = p->err,
		.errsz = p->errsz };
	free(words);
	if ((words = malloc(((size_t)argc + 1) * sizeof *words)) == NULL) {
		snprintf(p->err, p->errsz, "%s", strerror(errno));
		return OPT_ERROR;
	}
	if ((argc = cmdline_cut(&p->cl, O_EXEC, ";", argc, argv, words,
		 &cfg->exec_argv, &cfg->exec_argc)) < 0)
		return OPT_ERROR;
	argv = words;
	habits.exec = cfg->exec_argv;
	habits.nexec = cfg->exec_argc;
	if (habits_check(&p->cl, argc, argv, &habits, p->err, p->errsz) != 0)
		return OPT_ERROR;
	/* A ';' was cut out with the command's words if fewer are left. */
	habits_after_exec(&p->cl, cfg->exec_argv, cfg->exec_argc,
	    argc + cfg->exec_argc < all, cfg->exec_warning,
	    sizeof cfg->exec_warning);
	if ((rc = cmdline_read(&p->cl, argc, argv)) != 0)
		return rc < 0 ? OPT_ERROR : (enum parse_result)rc;
	/* -0 ends records with NUL; -l, the default, with a newline. */
	if (cfg->mode == UNIT_NULL)
		cfg->delim = '\0';
	cfg->files = p->cl.operands;
	cfg->nfiles = p->cl.noperands;
	return rules_check(p);
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
		.jobs = 1,
		.retry_on = { .bits = { 0, UINT64_C(1) << (75 - 64) } },
		.retry_delay_ns = DEFAULT_RETRY_DELAY_NS,
		.retry_max_ns = DEFAULT_RETRY_MAX_NS };
	struct parsed p = { .cfg = defaults, .err = err, .errsz = errsz };
	enum parse_result r = parse(&p, argc, argv);

	*cfg = p.cfg;
	/* A value quoted in the message must not break it over lines. */
	if (r == OPT_ERROR)
		msg_escape(err, errsz);
	return r;
}
