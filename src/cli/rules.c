/* The refused combinations of options, a row each, and the steps between. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmdline.h"
#include "options.h"
#include "parsed.h"

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

/* -R's target: a process id, or a name as --name takes. */
static bool
target_ok(const char *t)
{
	char *end;
	long pid;

	if (t[strspn(t, "0123456789")] != '\0')
		return options_shared_name_ok(t) && t[0] != '-';
	errno = 0;
	pid = strtol(t, &end, 10);
	return errno == 0 && *end == '\0' && pid >= 1 && pid <= INT_MAX &&
	    *t != '0';
}

/*
 * The steps between the rules: each turns text into values that the rules
 * after it need, or refuses a bad value.  Each returns 0 to go on, -1 with
 * the reason in p->err, or 1 when the command line is complete.
 */

/* --show, --reset: nothing more to read. */
static int
show_only(struct parsed *p)
{
	return (p->cl.seen[0] & (O(SHOW) | O(RESET))) != 0;
}

/* --list: nothing more to read. */
static int
list_only(struct parsed *p)
{
	return (p->cl.seen[0] & O(LIST)) != 0;
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

	if ((p->cl.seen[0] & (O(LOOP) | O(LOOP_GAP))) == 0)
		return 0;
	if ((p->cl.seen[0] & O(LOOP)) == 0)
		return refuse(p, "--loop-gap needs --loop N|inf");
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
	const uint64_t given[2] = { p->cl.seen[0] &
		(O(CACERT) | O(CERT) | O(KEYFILE) | O(INSECURE)) };
	char name[64];

	if (given[0] != 0 && !(cfg->redis && cfg->redis_url.tls))
		return refuse(p,
		    "%s needs a rediss:// URL for --redis: it is of TLS",
		    cmdline_first(&p->cl, given, false, name, sizeof name));
	if (((given[0] & O(CERT)) != 0) != ((given[0] & O(KEYFILE)) != 0))
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
	bool win = cfg->algorithm == ALG_FIXED || cfg->algorithm == ALG_SLIDING;

	if (cfg->take && cfg->nlimits > 0 && win &&
	    cfg->take_units > cfg->limits[0].rate.count)
		return refuse(p,
		    "--take %llu is more than the window holds (%llu, of -r "
		    "%s): take at most that many at once",
		    (unsigned long long)cfg->take_units,
		    (unsigned long long)cfg->limits[0].rate.count,
		    cfg->rate_text != NULL ? cfg->rate_text : "");
	if (cfg->take && cfg->nlimits > 0 && !win &&
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
 * A record rate refused as "1m" (a period without its slash) may be pv's
 * or mbuffer's bytes: MiB a second.  Say that reading too.
 */
static void
pv_reading(struct parsed *p, const char *rate)
{
	size_t n = strspn(rate, "0123456789."), len = strlen(p->err);

	if (p->cfg.mode != UNIT_BYTES && n > 0 && strcmp(rate + n, "m") == 0 &&
	    strstr(p->err, "a period needs a slash") != NULL &&
	    len + 1 < p->errsz)
		snprintf(p->err + len, p->errsz - len,
		    "; for %.*s MiB a second (pv's -L %s) give -c -r %s/s",
		    (int)n, rate, rate, rate);
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
			p->errsz) != 0) {
			pv_reading(p, p->rates[i]);
			return -1;
		}
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
	    (p->cl.seen[0] &
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

/* The facts about the options given that hold now. */
static uint64_t
facts(const struct parsed *p)
{
	const struct config *c = &p->cfg;
	const struct limit *l = &c->limits[0];

#define IF(f, cond) ((cond) ? BIT(f) : 0)
	return IF(F_FILES, c->nfiles > 0) | IF(F_LEAD, p->lead_burst != NULL) |
	    IF(F_B0, p->bursts[0] != NULL) |
	    IF(F_NO_RATE, p->nrates == 0 || p->lead_burst != NULL) |
	    IF(F_SEVERAL, p->nrates > 1) | IF(F_INF_AMONG, p->inf_among) |
	    IF(F_INF, c->nlimits == 0 && p->nrates > 0) |
	    IF(F_UNLIMITED, options_unlimited(c)) |
	    IF(F_NOT_FULL, c->nlimits > 0 && l->initial != l->burst) |
	    IF(F_WINDOW,
		c->algorithm == ALG_SLIDING || c->algorithm == ALG_FIXED) |
	    IF(F_SLIDING, c->algorithm == ALG_SLIDING) |
	    IF(F_FIXED, c->algorithm == ALG_FIXED) |
	    IF(F_BAD_TARGET, p->retune != NULL && !target_ok(p->retune)) |
	    IF(F_BAD_SHARED,
		c->shared != NULL && !options_shared_name_ok(c->shared)) |
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
	uint64_t all, none, any;    /* options given, of the first 64 (O) */
	uint64_t all1, none1, any1; /* ... of the others (O1) */
	uint64_t fall, fnone, fany; /* facts that hold */
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

/* How the commands' output reaches ours. */
#define OUTPUT_OPTIONS \
	(O1(LINE_BUFFER) | O1(GROUP) | O1(UNGROUP) | O1(TAG) | O1(TAGSTRING))

/* What --show and --reset take to reach Redis. */
#define SHOW_REDIS (O(REDIS) | O(CACERT) | O(CERT) | O(KEYFILE) | O(INSECURE))

/* clang-format off */
static const struct rule rules[] = {
	/* --list lists, and takes nothing else. */
	{ "--json needs --list or --show: what it prints as JSON",
	    .all = O(JSON), .none = O(LIST) | O(SHOW) },
	{ "--list takes no other options or operands (but --json)",
	    .all = O(LIST), .any = (ALL_OPTIONS & ~O(LIST) & ~O(JSON)),
	    .any1 = ALL_OPTIONS1, .fany = F(FILES) },
	{ .step = list_only },

	/* --show and --reset read or renew a bucket, and exit. */
	{ "--show and --reset: give one", .all = O(SHOW) | O(RESET) },
	{ "%s needs --shared NAME: the bucket to show or reset",
	    .any = O(SHOW) | O(RESET), .none = O(SHARED),
	    .quote = { Q_WORD } },
	{ "%s takes only --shared NAME, --state-dir or --redis URL, and "
	    "--json, not operands", .any = O(SHOW) | O(RESET),
	    .fall = F(FILES), .quote = { Q_WORD } },
	{ "--reset takes only --shared NAME, and --state-dir or --redis URL",
	    .all = O(RESET), .any = ALL_OPTIONS & ~O(RESET) & ~O(SHARED) &
	    ~O(STATE_DIR) & ~SHOW_REDIS, .any1 = ALL_OPTIONS1 },
	{ "--show takes only --shared NAME, --state-dir or --redis URL, and "
	    "--json", .all = O(SHOW), .any = ALL_OPTIONS & ~O(SHOW) &
	    ~O(SHARED) & ~O(STATE_DIR) & ~O(JSON) & ~SHOW_REDIS,
	    .any1 = ALL_OPTIONS1 },
	{ "--state-dir does not combine with --redis: the bucket is kept in "
	  "Redis", .all = O(STATE_DIR) | O(REDIS), .any = O(SHOW) | O(RESET) },
	{ .step = check_tls },
	{ "invalid --shared name '%s': use up to 64 letters, digits, '.', "
	    "'_' and '-'", .any = O(SHOW) | O(RESET), .fall = F(BAD_SHARED),
	    .quote = { V(SHARED) } },
	{ .step = show_only },

	/* -R sends its -r and -b, or asks for --stats, of a running one. */
	{ "--reload needs -R NAME|PID: the run to reload", .all = O(RELOAD),
	    .none = O(RETUNE) },
	{ "-R takes only -r and -b, --stats, --reload or --speed, not '%s'",
	    .all = O(RETUNE), .any = ALL_OPTIONS & ~RETUNE_OPTIONS,
	    .any1 = ALL_OPTIONS1, .quote = { Q_WORD } },
	{ "-R takes only -r and -b, --stats, --reload or --speed, not FILE "
	    "operands", .all = O(RETUNE), .fall = F(FILES) },
	{ "invalid -R '%s': give the name or the process id of a running "
	    "tbthrottle", .all = O(RETUNE), .fall = F(BAD_TARGET),
	    .quote = { V(RETUNE) } },
	{ "-R %s takes -r and -b, or --stats, not both",
	    .all = O(RETUNE) | O(STATS), .any = O(RATE) | O(BURST),
	    .quote = { V(RETUNE) } },
	{ "-R %s takes --reload alone, without -r, -b, --stats or --speed",
	    .all = O(RETUNE) | O(RELOAD),
	    .any = O(STATS) | O(RATE) | O(BURST) | O(SPEED),
	    .quote = { V(RETUNE) } },
	{ "-R %s needs -r RATE [-b BURST] for each limit to change, --stats, "
	    "--reload or --speed", .all = O(RETUNE), .fall = F(NO_RATE),
	    .none = O(STATS) | O(RELOAD) | O(SPEED), .quote = { V(RETUNE) } },
	{ "-R %s takes --speed alone, not with -r, -b or --stats",
	    .all = O(RETUNE) | O(SPEED), .any = O(RATE) | O(BURST) | O(STATS),
	    .quote = { V(RETUNE) } },
	{ .step = check_retune },

	/* --take takes tokens and exits; --exec runs commands at the rate. */
	{ "--take takes tokens of a --shared bucket and exits: it does not "
	    "combine with %s", .all = O(TAKE),
	    .any = ALL_OPTIONS & ~TAKE_OPTIONS, .any1 = ALL_OPTIONS1,
	    .quote = { Q_WORD } },
	{ "--take needs --shared NAME: the bucket to take from, kept beyond "
	    "this process", .all = O(TAKE), .none = O(SHARED) },
	{ .step = resolve_take },
	{ .step = stray_operands },
	{ .step = check_exec_take },
	{ "-j %s needs --exec: it bounds the commands running at once",
	    .all = O(JOBS), .none = O(EXEC), .quote = { V(JOBS) } },
	{ "%s needs --exec: it is of the output of the commands run",
	    .none = O(EXEC), .any1 = OUTPUT_OPTIONS, .quote = { Q_WORD } },
	{ "%s does not combine with --ungroup: the commands write to our "
	  "output themselves, with no tag before their lines",
	    .all1 = O1(UNGROUP), .any1 = O1(TAG) | O1(TAGSTRING),
	    .quote = { Q_WORD } },
	{ "%s needs --exec: what is tried again or failed is a command",
	    .none = O(EXEC), .any = O(RETRY) | O(RETRY_ON) | O(RETRY_DELAY) |
	    O(RETRY_MAX) | O(FAILED_TO), .quote = { Q_WORD } },
	{ "%s needs --exec: what it ends is a command", .none = O(EXEC),
	    .any = O(TIMEOUT) | O(HALT), .quote = { Q_WORD } },
	{ "--joblog needs --exec: its lines are of commands run",
	    .all = O(JOBLOG), .none = O(EXEC) },
	{ "--state-dir needs --shared NAME: it is where the bucket is kept",
	    .all = O(STATE_DIR), .none = O(SHARED) },
	{ "--state-dir does not combine with --redis: the bucket is kept in "
	  "Redis", .all = O(STATE_DIR) | O(REDIS) },
	{ "--adapt needs --exec: it learns from the commands' exits",
	    .all = O(ADAPT), .none = O(EXEC) },
	{ "%s does not combine with --adapt: it changes the rate of one "
	  "bucket", .all = O(ADAPT),
	    .any = O(KEY) | O(TIERS) | O(TOTAL_RATE) | O(REPLAY) |
	    O(BYTE_RATE), .quote = { Q_WORD } },
	{ "%s needs --joblog FILE: the records done are read from it",
	    .none = O(JOBLOG), .any = O(RESUME) | O(RESUME_FAILED),
	    .quote = { Q_WORD } },
	{ "--resume and --resume-failed: give one (--resume-failed starts "
	  "the failed ones again)", .all = O(RESUME) | O(RESUME_FAILED) },
	{ "%s does not combine with --loop: a record's number would stand "
	  "for one in each pass", .all = O(LOOP),
	    .any = O(RESUME) | O(RESUME_FAILED), .quote = { Q_WORD } },
	{ "%s needs --retry N", .none = O(RETRY),
	    .any = O(RETRY_ON) | O(RETRY_DELAY) | O(RETRY_MAX),
	    .quote = { Q_WORD } },
	{ "--retry does not combine with --replay: a try again would come "
	  "out of its time", .all = O(RETRY) | O(REPLAY) },
	{ "--exec runs a command for each record; it does not apply to -c",
	    .all = O(EXEC) | O(BYTES) },
	{ "--exec does not combine with --queue: records wait for a free "
	    "slot in the input", .all = O(EXEC) | O(QUEUE) },
	{ "--exec does not combine with --order key: records wait for a "
	    "free slot in the order they come", .all = O(EXEC), .fall = F(ORDER_KEY) },
	{ "--dry-run says what a replay would do and starts nothing: it "
	    "does not combine with --exec", .all = O(EXEC) | O(DRY_RUN) },
	{ "--dry-run releases nothing and says what it read itself: %s "
	  "would do nothing with it; leave it out",
	    .all = O(DRY_RUN), .any = O(STATS) | O(PROGRESS) | O(NAME) |
	    O(DROP) | O(DROP_TO) | O(SHARED), .quote = { Q_WORD } },

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
	    "its -r", .fall = F(LEAD) | F(SEVERAL), .quote = { Q_LEAD } },
	{ options_burst_twice, .fall = F(LEAD) | F(B0), .quote = { Q_LEAD, Q_B0 } },
	{ "--initial applies to a single -r",
	    .all = O(INITIAL), .fall = F(SEVERAL) },
	{ "-b %s applies to -r, and there is none (for the bytes, give "
	    "--byte-burst)", .fall = F(LEAD), .none = O(RATE),
	    .any = O(BYTE_RATE) | O(REPLAY), .quote = { Q_LEAD } },
	{ "--initial %s applies to -r, and there is none (for the bytes, "
	    "give --byte-burst)", .all = O(INITIAL), .none = O(RATE),
	    .any = O(BYTE_RATE) | O(REPLAY), .quote = { V(INITIAL) } },
	{ "missing -r RATE (for example -r 10/s or -c -r 1M/s; see --help)",
	    .none = O(RATE) | O(BYTE_RATE) | O(TIERS) | O(REPLAY) },
	{ .step = resolve_limits },
	{ .step = warn_byte_suffix },
	{ .step = check_take },
	{ "-r inf cannot be combined with other rates", .fall = F(INF_AMONG) },

	/* --queue holds whole records under record limits only. */
	{ "--queue %s counts records; it does not apply to -c",
	    .all = O(QUEUE) | O(BYTES), .quote = { V(QUEUE) } },
	{ "--queue %s does not combine with --byte-rate",
	    .all = O(QUEUE) | O(BYTE_RATE), .quote = { V(QUEUE) } },
	{ "--queue %s needs a rate: with -r inf nothing ever waits",
	    .all = O(QUEUE), .fall = F(UNLIMITED), .quote = { V(QUEUE) } },

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
	    .fany = F(UNLIMITED) | F(INF), .quote = { V(KEY) } },
	{ "-k %s takes one -r, the rate of each key",
	    .all = O(KEY), .fall = F(SEVERAL), .quote = { V(KEY) } },
	{ "--order key lets each key go at its own pace: it needs -k FIELD",
	    .fall = F(ORDER_KEY), .none = O(KEY) },
	{ "--order key orders the records that wait for their token: with "
	    "--drop none waits", .fall = F(ORDER_KEY),
	    .any = O(DROP) | O(DROP_TO) },
	{ "--order key does not combine with --replay, whose records go at "
	    "their timestamps", .all = O(REPLAY), .fall = F(ORDER_KEY) },
	{ "--order key does not combine with --redis: its buckets are booked "
	    "ahead, in input order", .all = O(REDIS), .fall = F(ORDER_KEY) },
	{ "-k %s does not combine with --queue (but with --order key, where "
	    "--queue N bounds the records held)", .all = O(KEY) | O(QUEUE),
	    .fnone = F(ORDER_KEY), .quote = { V(KEY) } },
	{ "-k %s starts every key with a full bucket: --initial does not "
	    "apply", .all = O(KEY), .fall = F(NOT_FULL), .quote = { V(KEY) } },

	/* --tz: the calendar of fixed windows. */
	{ "--tz %s needs -a fixed: it aligns fixed windows to the zone's "
	    "calendar", .all = O(TZ), .fnone = F(FIXED), .quote = { V(TZ) } },

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
	    "'_' and '-'", .all = O(SHARED), .fall = F(BAD_SHARED),
	    .quote = { V(SHARED) } },
	{ "--shared %s needs a rate", .all = O(SHARED), .fall = F(UNLIMITED),
	    .quote = { V(SHARED) } },
	{ "--shared %s takes one -r", .all = O(SHARED), .fall = F(SEVERAL),
	    .quote = { V(SHARED) } },
	{ "%s does not combine with a window in Redis (-a fixed or "
	  "sliding): use -a token or -a leaky with it",
	    .all = O(SHARED) | O(REDIS), .fall = F(WINDOW),
	    .any = O(TOTAL_RATE) | O(ADAPT), .quote = { Q_WORD } },
	{ "--tz with --tiers through Redis: give the zone's windows without "
	  "tiers, or keep the tiers in one process",
	    .all = O(SHARED) | O(REDIS) | O(TIERS) | O(TZ) },
	{ "--shared %s with a window (-a fixed or sliding) counts records: "
	  "not with -c",
	    .all = O(SHARED) | O(BYTES), .fall = F(WINDOW),
	    .quote = { V(SHARED) } },
	{ "--shared %s does not combine with -k (except with --redis)",
	    .all = O(SHARED) | O(KEY), .none = O(REDIS),
	    .quote = { V(SHARED) } },
	{ "--shared %s does not combine with --queue",
	    .all = O(SHARED) | O(QUEUE), .quote = { V(SHARED) } },
	{ "--shared %s starts the bucket full: --initial does not apply",
	    .all = O(SHARED), .fall = F(NOT_FULL), .quote = { V(SHARED) } },

	/* Dropping needs something to drop for. */
	{ "--drop needs a rate: with -r inf nothing is ever dropped",
	    .fall = F(UNLIMITED), .none = O(BYTE_RATE), .all = O(DROP) },
	{ "--drop-to needs a rate: with -r inf nothing is ever dropped, so "
	  "nothing would go to the file (with --replay, -r is a ceiling)",
	    .fall = F(UNLIMITED), .none = O(BYTE_RATE), .all = O(DROP_TO) },
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
		return cmdline_first(&p->cl,
		    (const uint64_t[2]){ r->any, r->any1 }, q == Q_WORD, buf,
		    size);
	default:
		return cmdline_value(&p->cl, q - Q_VALUE, buf, size);
	}
}

/* Do the options given (two words) hold rule r's? */
static bool
options_hold(const uint64_t *given, const struct rule *r)
{
	return (given[0] & r->all) == r->all &&
	    (given[1] & r->all1) == r->all1 && (given[0] & r->none) == 0 &&
	    (given[1] & r->none1) == 0;
}

/* Does r apply: its options and facts hold, and one of its any if any? */
static bool
applies(const uint64_t *given, uint64_t have, const struct rule *r)
{
	bool anys = r->any != 0 || r->any1 != 0 || r->fany != 0;

	return options_hold(given, r) && (have & r->fall) == r->fall &&
	    (have & r->fnone) == 0 &&
	    (!anys || (given[0] & r->any) != 0 || (given[1] & r->any1) != 0 ||
		(have & r->fany) != 0);
}

enum parse_result
rules_check(struct parsed *p)
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
		} else if (applies(p->cl.seen, have, r)) {
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
