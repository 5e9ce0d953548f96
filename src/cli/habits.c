/* Habits of other tools on the command line, caught before they mislead. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "habits.h"
#include "msg.h"
#include "rate.h"

/*
 * An option word w that getopt_long would misread, said plainly: a long
 * option with one dash (-rate: -r 'ate'), or a short one with '='
 * (-s=json).  0, or -1 with the reason in err.
 */
static int
habit(const struct cmdline *cl, const char *w, char *err, size_t errsz)
{
	size_t len = strcspn(w + 1, "=");

	for (int i = 0; i < cl->noptions && len >= 3; i++)
		if (strlen(cl->options[i].name) == len &&
		    strncmp(cl->options[i].name, w + 1, len) == 0)
			return msg_fail(err, errsz,
			    "unknown option '%s': did you mean "
			    "'-%s'?",
			    w, w);
	if (w[1] != '\0' && w[2] == '=') {
		if (w[1] == 's')
			return msg_fail(err, errsz,
			    "invalid option '%s': for a JSON report "
			    "give --stats=json",
			    w);
		return msg_fail(err, errsz,
		    "invalid option '%s': a short option takes "
		    "its value after it, as -%c %s",
		    w, w[1], w + 3);
	}
	return 0;
}

/* Is w a piece of a rate written in words (10 per second, 5 /s)? */
static bool
rate_word(const char *w)
{
	static const char *const words[] = { "per", "a", "second", "seconds",
		"sec", "s", "minute", "minutes", "min", "hour", "hours", "h",
		"day", "days", "ms" };

	if (w == NULL)
		return false;
	for (size_t k = 0; k < sizeof words / sizeof words[0]; k++)
		if (strcmp(w, words[k]) == 0 ||
		    (w[0] == '/' && strcmp(w + 1, words[k]) == 0))
			return true;
	return false;
}

/*
 * If argv[k] is the option -letter (none if 0) or --name (none if NULL)
 * with its value, that value, and the word after it in *next (or NULL):
 * -x V, -xV, --name V, --name=V.
 */
static const char *
value_at(int argc, char **argv, int k, char letter, const char *name,
    const char **next)
{
	const char *w = argv[k];
	bool dashes = name != NULL && strncmp(w, "--", 2) == 0;
	size_t len = name != NULL ? strlen(name) : 0;
	int after = k + 1;
	const char *v = NULL;

	if ((letter != 0 && w[0] == '-' && w[1] == letter && w[2] == '\0') ||
	    (dashes && strcmp(w + 2, name) == 0)) {
		v = k + 1 < argc ? argv[k + 1] : NULL;
		after = k + 2;
	} else if (dashes && strncmp(w + 2, name, len) == 0 &&
	    w[2 + len] == '=') {
		v = w + 3 + len;
	} else if (letter != 0 && w[0] == '-' && w[1] == letter) {
		v = w + 2;
	}
	if (next != NULL)
		*next = v != NULL && after < argc ? argv[after] : NULL;
	return v;
}

/* A word of decimal digits only, as xargs and parallel write a count. */
static bool
digits(const char *w)
{
	return w != NULL && w[0] != '\0' && w[strspn(w, "0123456789")] == '\0';
}

/* The row of cl for option --name, or NULL. */
static const struct cmdline_option *
row(const struct cmdline *cl, const char *name)
{
	for (int i = 0; i < cl->noptions; i++)
		if (strcmp(cl->options[i].name, name) == 0)
			return &cl->options[i];
	return NULL;
}

/* The most -j takes, as its row says. */
static unsigned long long
most_jobs(const struct cmdline *cl)
{
	const struct cmdline_option *o = row(cl, "jobs");

	return o != NULL ? (unsigned long long)o->n : 0;
}

/*
 * Jobs at once as xargs and parallel give them: -P N, which is -P and a
 * FILE N here unless no file N exists, and -j 0, "as many as possible"
 * (xargs's -P 0 too).
 */
static int
jobs_habit(const struct cmdline *cl, int argc, char **argv, int k,
    const struct habits_ctx *x, char *err, size_t errsz)
{
	const char *w = argv[k], *n = NULL, *j;

	if (strcmp(w, "-P") == 0 && k + 1 < argc && digits(argv[k + 1]) &&
	    (x->exists == NULL || !x->exists(argv[k + 1])))
		n = argv[k + 1];
	/* -P0 is -P -0, records ending in NUL; -P4 has no -4. */
	else if (strncmp(w, "-P", 2) == 0 && digits(w + 2) &&
	    w[2 + strspn(w + 2, "0")] != '\0')
		n = w + 2;
	if (n != NULL && n[strspn(n, "0")] == '\0')
		return msg_fail(err, errsz,
		    "-P %s: as many jobs at once as can be is -j %llu here; "
		    "-P is the progress line",
		    n, most_jobs(cl));
	if (n != NULL)
		return msg_fail(err, errsz,
		    "-P %s: jobs at once is -j %s here; -P is the progress "
		    "line",
		    n, n);
	j = value_at(argc, argv, k, 'j', "jobs", NULL);
	if (j != NULL && j[0] != '\0' &&
	    (j[0] == '+' || j[0] == '-' || j[strlen(j) - 1] == '%'))
		return msg_fail(err, errsz,
		    "invalid -j '%s': GNU parallel counts jobs by the CPUs so "
		    "(%s); give how many at once, a number from 1 to %llu",
		    j,
		    j[strlen(j) - 1] == '%' ? "a share of them" :
			j[0] == '+'	    ? "more than them" :
					      "fewer than them",
		    most_jobs(cl));
	if (digits(j) && j[strspn(j, "0")] == '\0')
		return msg_fail(err, errsz,
		    "invalid -j '%s': that is GNU parallel's \"as many as "
		    "possible\"; give how many at once, up to -j %llu (the "
		    "limits still pace the starts)",
		    j, most_jobs(cl));
	return 0;
}

/*
 * pv's -L RATE, v: bytes a second, with pv's suffixes (k and m of 1024),
 * which are -c's.
 */
static int
pv_rate(const char *v, char *err, size_t errsz)
{
	char rate[80], why[160];
	struct rate r;

	if (v != NULL && strchr(v, '/') == NULL && strlen(v) < 64) {
		snprintf(rate, sizeof rate, "%s/s", v);
		if (rate_parse(rate, true, &r, why, sizeof why) == 0)
			return msg_fail(err, errsz,
			    "unknown option '-L': pv's -L %s is bytes a "
			    "second: give -c -r %s",
			    v, rate);
	}
	return msg_fail(err, errsz,
	    "unknown option '-L': pv's -L RATE is bytes a second: give -c "
	    "-r RATE/s, such as -c -r 1m/s (see --help)");
}

/*
 * A command per record, as xargs is told: -n 1, -I {}, -L 1 (with
 * --exec; without, -L is pv's rate).
 */
static int
per_record_habit(int argc, char **argv, int k, const struct habits_ctx *x,
    char *err, size_t errsz)
{
	const char *w = argv[k];

	if (strncmp(w, "-I", 2) == 0 ||
	    digits(value_at(argc, argv, k, 'n', NULL, NULL)) ||
	    (x->exec != NULL &&
		digits(value_at(argc, argv, k, 'L', NULL, NULL))))
		return msg_fail(err, errsz,
		    "unknown option '%.2s': --exec runs one command per "
		    "record: {} in its arguments is the record (without {}, "
		    "it comes last)",
		    w);
	if (strncmp(w, "-L", 2) == 0)
		return pv_rate(
		    value_at(argc, argv, k, 'L', NULL, NULL), err, errsz);
	return 0;
}

/* GNU parallel's --delay T: a start every T at most, a leaky bucket. */
static int
delay_habit(int argc, char **argv, int k, char *err, size_t errsz)
{
	const char *t = value_at(argc, argv, k, 0, "delay", NULL);
	char rate[64], why[160];
	struct rate r;
	bool secs;

	if (strncmp(argv[k], "--delay", 7) != 0 ||
	    (argv[k][7] != '\0' && argv[k][7] != '='))
		return 0;
	secs = t != NULL && t[strspn(t, "0123456789.")] == '\0';
	snprintf(
	    rate, sizeof rate, "1/%s%s", t != NULL ? t : "", secs ? "s" : "");
	if (t == NULL || rate_parse(rate, false, &r, why, sizeof why) != 0)
		return msg_fail(err, errsz,
		    "unknown option '--delay': for one start every T, give "
		    "--leaky -r 1/T (T such as 0.2s or 2min)");
	return msg_fail(err, errsz,
	    "unknown option '--delay': for one start every %s%s, give "
	    "--leaky -r %s",
	    t, secs ? " s" : "", rate);
}

/*
 * Long options of other tools that have a spelling here: unknown to us,
 * they say which.  A rate of bytes is given back after the hint, as -c's.
 */
static const struct {
	const char *name, *hint;
	bool bytes_rate; /* the value is bytes a second, given back as -c's */
} others[] = {
	{ "retries",
	    "GNU parallel's --retries N is --retry N here (on exit "
	    "75, or the statuses --retry-on names)",
	    false },
	{ "max-procs", "xargs's --max-procs N is -j N here", false },
	{ "max-args",
	    "--exec runs one command per record: {} in its "
	    "arguments is the record",
	    false },
	{ "max-lines",
	    "--exec runs one command per record: {} in its "
	    "arguments is the record",
	    false },
	{ "replace",
	    "--exec runs one command per record: {} in its "
	    "arguments is the record",
	    false },
	{ "arg-file",
	    "xargs's --arg-file FILE: give FILE as an operand, "
	    "before --exec or after ';'",
	    false },
	{ "null-data", "records that end in NUL are -0 here", false },
	{ "colsep",
	    "fields are split at byte C with -F C here, and {N} is "
	    "field N",
	    false },
	{ "limit-rate", "curl's --limit-rate is bytes a second: give -c -r ",
	    true },
	{ "rate-limit", "records a second are -r RATE here, and bytes -c -r ",
	    true },
	{ "bwlimit", "rsync's --bwlimit is KiB a second: give -c -r ", true },
};

/*
 * A long option of another tool at argv[k], unknown here (no option of
 * ours has its name or starts with it): one line with its spelling here.
 */
static int
other_habit(const struct cmdline *cl, int argc, char **argv, int k, char *err,
    size_t errsz)
{
	const char *w = argv[k], *v;
	size_t len = strcspn(w + 2, "=");
	char rate[80], why[160];
	struct rate r;

	for (size_t i = 0; i < sizeof others / sizeof others[0]; i++) {
		if (strlen(others[i].name) != len ||
		    strncmp(w + 2, others[i].name, len) != 0 ||
		    cmdline_takes_value(cl, w) || row(cl, others[i].name))
			continue;
		v = value_at(argc, argv, k, 0, others[i].name, NULL);
		/* rsync's K is the default unit; pv's and curl's k, m, g. */
		snprintf(rate, sizeof rate, "RATE/s");
		if (others[i].bytes_rate && v != NULL && strlen(v) < 60 &&
		    strchr(v, '/') == NULL) {
			snprintf(rate, sizeof rate, "%s%s/s", v,
			    strcmp(others[i].name, "bwlimit") == 0 &&
				    v[strspn(v, "0123456789.")] == '\0' ?
				"K" :
				"");
			if (rate_parse(rate, true, &r, why, sizeof why) != 0)
				snprintf(rate, sizeof rate, "RATE/s");
		}
		return msg_fail(err, errsz, "unknown option '--%.*s': %s%s",
		    (int)len, w + 2, others[i].hint,
		    others[i].bytes_rate ? rate : "");
	}
	return 0;
}

/*
 * xargs's -a FILE and -z (records ending in NUL): -a is the algorithm
 * here, taken for xargs's only when its value is no algorithm and a file
 * of that name is there.
 */
static int
xargs_letters(int argc, char **argv, int k, const struct habits_ctx *x,
    char *err, size_t errsz)
{
	const char *a = value_at(argc, argv, k, 'a', NULL, NULL);
	static const char *const algorithms[] = { "token", "leaky", "sliding",
		"fixed" };

	if (strcmp(argv[k], "-z") == 0)
		return msg_fail(err, errsz,
		    "unknown option '-z': records that end in NUL are -0 "
		    "here");
	if (a == NULL || x->exists == NULL || !x->exists(a))
		return 0;
	for (size_t i = 0; i < sizeof algorithms / sizeof algorithms[0]; i++)
		if (strcmp(a, algorithms[i]) == 0)
			return 0;
	return msg_fail(err, errsz,
	    "-a %s: -a is the algorithm here (token, leaky, sliding or "
	    "fixed); for xargs's -a FILE, give the file as an operand, before "
	    "--exec or after ';'",
	    a);
}

/* GNU parallel's inputs on its command line: ::: VALUE..., :::: FILE... */
static int
inputs_habit(const char *w, char *err, size_t errsz)
{
	if (strcmp(w, ":::") == 0)
		return msg_fail(err, errsz,
		    "':::' is GNU parallel's: give the inputs as lines of "
		    "standard input or of FILE operands");
	if (strcmp(w, "::::") == 0)
		return msg_fail(err, errsz,
		    "'::::' is GNU parallel's: give the input FILEs as "
		    "operands, before --exec or after ';'");
	return 0;
}

/*
 * A rate in words at argv[k] (10 per second, 5 /s): 0, or -1 with the
 * one word it should be in err.
 */
static int
rate_in_words(int argc, char **argv, int k, char *err, size_t errsz)
{
	const char *next, *rate = value_at(argc, argv, k, 'r', "rate", &next);

	if (rate == NULL || strchr(rate, '/') != NULL ||
	    strcmp(rate, "inf") == 0 || next == NULL || !rate_word(next))
		return 0;
	return msg_fail(err, errsz,
	    "'%s' after the rate '%s' looks like part of it: "
	    "give the rate as one word, such as -r %s%s%s%s%s",
	    next, rate, rate, next[0] == '/' ? next : "/s",
	    next[0] == '/' ? "" : " (for a file named ",
	    next[0] == '/' ? "" : next,
	    next[0] == '/' ? "" : ", give it as ./NAME)");
}

/*
 * Is operand w, with no --exec given, likely a command typed without it
 * (curl -fsSO)?  A name that no file has, with no '/' or '.' (a file
 * name that was mistyped is said as such).
 */
static bool
command_like(const char *w, const struct habits_ctx *x)
{
	return x->exec == NULL && x->exists != NULL && w[0] != '-' &&
	    strpbrk(w, "/.") == NULL && !x->exists(w);
}

/*
 * Option word w, after the operand cmd that is no file (or NULL): when
 * getopt_long would refuse it, it is most likely cmd's own option.
 */
static int
command_option(const struct cmdline *cl, const char *cmd, const char *w,
    char *err, size_t errsz)
{
	char opt[64];

	if (cmd == NULL || cmdline_unknown(cl, w, opt, sizeof opt) == NULL)
		return 0;
	return msg_fail(err, errsz,
	    "unknown option '%s' after '%s', which is no file: to run %s for "
	    "each record, give --exec %s %s [ARG...], input FILEs before "
	    "--exec",
	    opt, cmd, cmd, cmd, w);
}

int
habits_check(const struct cmdline *cl, int argc, char **argv,
    const struct habits_ctx *x, char *err, size_t errsz)
{
	const char *cmd = NULL; /* the first operand that is no file */

	for (int k = 0; k < x->nexec; k++)
		if (inputs_habit(x->exec[k], err, errsz) != 0)
			return -1;
	for (int k = 1;
	     k < argc && argv[k] != NULL && strcmp(argv[k], "--") != 0; k++) {
		const char *w = argv[k];

		if (rate_in_words(argc, argv, k, err, errsz) != 0 ||
		    inputs_habit(w, err, errsz) != 0)
			return -1;
		if (cmd == NULL && command_like(w, x))
			cmd = w;
		if (w[0] != '-' || w[1] == '\0')
			continue;
		if (jobs_habit(cl, argc, argv, k, x, err, errsz) != 0 ||
		    delay_habit(argc, argv, k, err, errsz) != 0 ||
		    (w[1] == '-' &&
			other_habit(cl, argc, argv, k, err, errsz) != 0))
			return -1;
		if (w[1] != '-' &&
		    (per_record_habit(argc, argv, k, x, err, errsz) != 0 ||
			xargs_letters(argc, argv, k, x, err, errsz) != 0 ||
			habit(cl, w, err, errsz) != 0))
			return -1;
		if (command_option(cl, cmd, w, err, errsz) != 0)
			return -1;
		if (cmdline_takes_value(cl, w))
			k++;
	}
	return 0;
}

/* How a value after --exec must read for its option to be taken as ours. */
enum ours { OURS_NONE, OURS_RATE, OURS_COUNT, OURS_WORD };

/*
 * Our options that a command after --exec rarely takes with such a
 * value: a rate with its period, a count of jobs, an algorithm.  Words a
 * command is likely to have (--stats, --progress, --retry, --timeout,
 * -k, -s) are left out: they are the command's more often than ours.
 */
static const struct {
	const char *name;
	enum ours value;
} after_exec[] = {
	{ "rate", OURS_RATE },
	{ "jobs", OURS_COUNT },
	{ "algorithm", OURS_WORD },
	{ "leaky", OURS_NONE },
	{ "byte-rate", OURS_RATE },
	{ "total-rate", OURS_RATE },
};

/* Does v, the value of o, read as ours? */
static bool
reads_ours(const struct cmdline_option *o, enum ours kind, const char *v)
{
	char why[160];
	struct rate r;
	uint64_t n;

	if (v == NULL)
		return false;
	switch (kind) {
	case OURS_RATE:
		return strchr(v, '/') != NULL &&
		    (rate_parse(v, false, &r, why, sizeof why) == 0 ||
			rate_parse(v, true, &r, why, sizeof why) == 0);
	case OURS_COUNT:
		return cmdline_whole(v, 1, o->n, &n);
	case OURS_WORD:
		for (int i = 0; i < o->choice->nnames; i++)
			if (strcmp(v, o->choice->names[i]) == 0)
				return true;
		return false;
	default:
		return false;
	}
}

/*
 * If exec[k] is one of after_exec's options, with a value that reads as
 * ours, the words it takes (1 or 2); else 0.
 */
static int
ours_at(const struct cmdline *cl, char **exec, int nexec, int k)
{
	const char *w = exec[k], *v;
	const struct cmdline_option *o;

	for (size_t i = 0; i < sizeof after_exec / sizeof after_exec[0]; i++) {
		if ((o = row(cl, after_exec[i].name)) == NULL)
			continue;
		if (after_exec[i].value == OURS_NONE) {
			if (strncmp(w, "--", 2) == 0 &&
			    strcmp(w + 2, o->name) == 0)
				return 1;
			continue;
		}
		v = value_at(nexec, exec, k, o->letter, o->name, NULL);
		if (reads_ours(o, after_exec[i].value, v))
			return k + 1 < nexec && v == exec[k + 1] ? 2 : 1;
	}
	return 0;
}

/*
 * GNU parallel's replacement strings in the command's words ({.} and the
 * like), which are text here: a warning naming the first into buf.
 */
static void
parallel_braces(char **exec, int nexec, char *buf, size_t size)
{
	static const char *const theirs[] = { "{.}", "{/}", "{//}", "{/.}",
		"{%}", "{0}" };

	for (int k = 1; k < nexec; k++)
		for (size_t i = 0; i < sizeof theirs / sizeof theirs[0]; i++) {
			if (strstr(exec[k], theirs[i]) == NULL)
				continue;
			snprintf(buf, size,
			    "%s after --exec is text here: {} is the record, "
			    "{N} its field N and {#} its number (GNU "
			    "parallel's {.}, {/}, {//}, {/.} and {%%} are not "
			    "filled in)",
			    theirs[i]);
			return;
		}
}

void
habits_after_exec(const struct cmdline *cl, char **exec, int nexec, bool ended,
    char *buf, size_t size)
{
	int n;

	buf[0] = '\0';
	for (int k = 1; !ended && k < nexec && strcmp(exec[k], "--") != 0;
	     k++) {
		if ((n = ours_at(cl, exec, nexec, k)) == 0)
			continue;
		snprintf(buf, size,
		    "%s%s%s after --exec goes to %s: give tbthrottle's options "
		    "before --exec, or end the command with ';'",
		    exec[k], n == 2 ? " " : "", n == 2 ? exec[k + 1] : "",
		    exec[0]);
		msg_escape(buf, size);
		return;
	}
	parallel_braces(exec, nexec, buf, size);
}
