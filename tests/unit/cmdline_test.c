/* Unit tests of cmdline.c: a table of its own, read by each kind. */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmdline.h"
#include "unit.h"

struct toy {
	const char *text; /* first: a flag at offset 0 would be none */
	bool flag;
	unsigned count;
	uint64_t big;
	int64_t wait_ns;
	unsigned word, mode;
};

#define AT(f) \
	.off = offsetof(struct toy, f), .size = sizeof(((struct toy *)0)->f)

static const char *const toy_words[] = { "one", "two" };
static const char *const toy_modes[] = { "-x", "-y" };
static const struct cmdline_choice words = { toy_words, 2, "bad word '%s'",
	NULL };
static const struct cmdline_choice modes = { toy_modes, 2, NULL,
	"%2$s after %1$s" };

/* clang-format off */
static const struct cmdline_option toy_options[] = {
	{ "flag", NULL, 'f', no_argument, .kind = CL_SEEN,
	    .flag = offsetof(struct toy, flag), .help = "a flag" },
	{ "text", "T", 't', required_argument, .kind = CL_TEXT, AT(text),
	    .bad = "give some", .help = "some text\non two lines" },
	{ "count", "N", 'n', required_argument, .kind = CL_COUNT, AT(count),
	    .n = 9, .help = "a count" },
	{ "big", "N", 0, required_argument, .kind = CL_COUNT, AT(big),
	    .n = UINT64_C(1) << 40, .help = "a big count" },
	{ "wait", "T", 0, required_argument, .kind = CL_DURATION, AT(wait_ns),
	    .n = 1000000000, .bad = "give a time", .big = "at most 1s",
	    .help = "a time" },
	{ "word", "W", 0, optional_argument, .kind = CL_WORD, AT(word),
	    .choice = &words, .help = "one or two" },
	{ "ex", NULL, 'x', no_argument, .kind = CL_CONST, AT(mode),
	    .choice = &modes, .n = 0, .help = "x" },
	{ "why", NULL, 'y', no_argument, .kind = CL_CONST, AT(mode),
	    .choice = &modes, .n = 1, .help = "y" },
	{ "stop", NULL, 's', no_argument, .kind = CL_STOP, .n = 7,
	    .help = "stop" },
};
/* clang-format on */
#define NTOY ((int)(sizeof toy_options / sizeof toy_options[0]))

/* Read the arguments after cl (to a NULL) into t; cmdline_read's result. */
static int
toy_read(struct cmdline *cl, struct toy *t, char *err, size_t errsz, ...)
{
	static char *argv[32];
	int argc = 0;
	va_list ap;

	memset(t, 0, sizeof *t);
	err[0] = '\0';
	*cl = (struct cmdline){ .options = toy_options,
		.noptions = NTOY,
		.base = t,
		.err = err,
		.errsz = errsz };
	argv[argc++] = (char *)"toy";
	va_start(ap, errsz);
	while ((argv[argc] = va_arg(ap, char *)) != NULL)
		argc++;
	va_end(ap);
	return cmdline_read(cl, argc, argv);
}

/* The reading of the arguments fails with the message want. */
#define REFUSED(want, ...) \
	check(toy_read(&cl, &t, err, sizeof err, __VA_ARGS__, (char *)NULL) == \
		    -1 && \
		strcmp(err, want) == 0, \
	    "%s: got '%s'", want, err)

static void
test_cmdline_kinds(void)
{
	struct cmdline cl;
	struct toy t;
	char err[256];

	int rc = toy_read(&cl, &t, err, sizeof err, "-f", "in", "-t", "hi",
	    "-n3", "--big", "1000", "--wait=250ms", "--word=two", "-x", "-x",
	    "out", (char *)NULL);

	check(rc == 0 && t.flag && strcmp(t.text, "hi") == 0 && t.count == 3 &&
		t.big == 1000 && t.wait_ns == 250000000 && t.word == 1 &&
		t.mode == 0 && cl.noperands == 2 &&
		strcmp(cl.operands[0], "in") == 0 &&
		strcmp(cl.operands[1], "out") == 0,
	    "every kind, operands in order: %d %s %d %u %llu %lld %u %u %d", rc,
	    err, t.flag, t.count, (unsigned long long)t.big,
	    (long long)t.wait_ns, t.word, t.mode, cl.noperands);
	check(toy_read(&cl, &t, err, sizeof err, "--word", (char *)NULL) == 0 &&
		t.word == 0,
	    "no word is the first: %s", err);
	check(toy_read(&cl, &t, err, sizeof err, "-s", "-n", "99",
		  (char *)NULL) == 7,
	    "a stop stops: %s", err);
	REFUSED("invalid -n '10': give a whole number from 1 to 9", "-n", "10");
	REFUSED("invalid -n '2s': give a whole number from 1 to 9", "-n2s");
	/* Counts are digits only, as every one of them is written. */
	REFUSED("invalid -n ' 3': give a whole number from 1 to 9", "-n", " 3");
	REFUSED("invalid -n '3 ': give a whole number from 1 to 9", "-n", "3 ");
	REFUSED("invalid -n '+3': give a whole number from 1 to 9", "-n", "+3");
	REFUSED("invalid -n '3.0': give a whole number from 1 to 9", "-n3.0");
	REFUSED("invalid -n '0': give a whole number from 1 to 9", "-n0");
	REFUSED("invalid -n '': give a whole number from 1 to 9", "-n", "");
	REFUSED("invalid --big '1e3': give a whole number from 1 to "
		"1099511627776",
	    "--big", "1e3");
	REFUSED("invalid --big '2k': give a whole number from 1 to "
		"1099511627776",
	    "--big", "2k");
	REFUSED("invalid --big '99999999999999999999999': give a whole number "
		"from 1 to 1099511627776",
	    "--big", "99999999999999999999999");
	REFUSED("invalid --wait '2s': at most 1s", "--wait", "2s");
	REFUSED("invalid --wait '5': a duration needs its unit: 5s, or 5ms",
	    "--wait", "5");
	REFUSED("invalid -t '': give some", "--text=");
	REFUSED("bad word 'three'", "--word=three");
	REFUSED("-y after -x", "-x", "-fy");
}

/* cmdline_whole: digits only, within the bounds, to the last one. */
static void
test_cmdline_whole(void)
{
	uint64_t n = 7;

	check(cmdline_whole("18446744073709551615", 0, UINT64_MAX, &n) &&
		n == UINT64_MAX,
	    "the largest: %llu", (unsigned long long)n);
	check(!cmdline_whole("18446744073709551616", 0, UINT64_MAX, &n),
	    "one more overflows");
	check(cmdline_whole("007", 1, 7, &n) && n == 7, "leading zeros");
	check(!cmdline_whole("8", 1, 7, &n) && !cmdline_whole("0", 1, 7, &n),
	    "out of range");
	check(!cmdline_whole("-1", 0, 7, &n) &&
		!cmdline_whole("1 ", 0, 7, &n) &&
		!cmdline_whole("\t1", 0, 7, &n) &&
		!cmdline_whole("0x1", 0, 7, &n) && !cmdline_whole("", 0, 7, &n),
	    "no sign, blank, base or nothing");
}

static void
test_cmdline_refusals(void)
{
	struct cmdline cl;
	struct toy t;
	char err[256];

	REFUSED("unknown option '-q' (see --help)", "-q");
	REFUSED("unknown option '-q' (see --help)", "--flag", "-qf");
	REFUSED("unknown option '--nope' (see --help)", "--nope=1");
	REFUSED("option '--w' is ambiguous; possibilities: '--wait' '--word' "
		"'--why'",
	    "--w", "1");
	REFUSED("option '--flag' takes no value (see --help)", "--fl=1");
	REFUSED("option '-n' needs a value (see --help)", "out", "-n");
	REFUSED("option '-fn' needs a value (see --help)", "-fn");
	REFUSED("option '--cou' needs a value (see --help)", "--cou");
}

/*
 * cmdline_unknown names what cmdline_read refuses as unknown, and nothing
 * it takes (a value, a prefix, several options in one word).
 */
static void
test_cmdline_unknown(void)
{
	static const char *const typed[] = { "-q", "-fq", "-fxq", "-tq", "-nq",
		"--nope", "--nope=1", "--w", "--fl", "--fl=1", "--wo=one", "-f",
		"-", "--", "-fs" };
	struct cmdline cl;
	struct toy t;
	char err[256], buf[64], want[128];
	const char *u;

	for (size_t i = 0; i < sizeof typed / sizeof typed[0]; i++) {
		(void)toy_read(
		    &cl, &t, err, sizeof err, typed[i], "1", (char *)NULL);
		u = cmdline_unknown(&cl, typed[i], buf, sizeof buf);
		if (u != NULL)
			snprintf(want, sizeof want,
			    "unknown option '%s' (see --help)", u);
		check(u == NULL ? strncmp(err, "unknown option", 14) != 0 :
				  strcmp(err, want) == 0,
		    "%s: unknown '%s', read as '%s'", typed[i],
		    u != NULL ? u : "(none)", err);
	}
}

static void
test_cmdline_quotes(void)
{
	struct cmdline cl;
	struct toy t;
	char err[256], buf[64];
	FILE *fp;
	char *text = NULL;
	size_t len = 0;

	check(toy_read(&cl, &t, err, sizeof err, "-f", "--cou", "2", "-tx",
		  (char *)NULL) == 0,
	    "read: %s", err);
	check(strcmp(cmdline_first(
			 &cl, (const uint64_t[2]){ 6 }, true, buf, sizeof buf),
		  "--cou") == 0,
	    "the first of -t and --count as typed: %s", buf);
	check(strcmp(cmdline_first(
			 &cl, (const uint64_t[2]){ 6 }, false, buf, sizeof buf),
		  "--count") == 0,
	    "... by name: %s", buf);
	check(strcmp(cmdline_first(
			 &cl, (const uint64_t[2]){ 2 }, true, buf, sizeof buf),
		  "-t") == 0,
	    "a short option as -letter: %s", buf);
	check(strcmp(cmdline_value(&cl, 2, buf, sizeof buf), "2") == 0 &&
		strcmp(cmdline_value(&cl, 1, buf, sizeof buf), "x") == 0,
	    "values quoted");
	if ((fp = open_memstream(&text, &len)) == NULL) {
		check(0, "open_memstream");
		return;
	}
	cmdline_usage(fp, toy_options, 2);
	fclose(fp);
	check(strcmp(text,
		  "  -f, --flag           a flag\n"
		  "  -t, --text T         some text\n"
		  "                       on two lines\n") == 0,
	    "--help rows: [%s]", text);
	free(text);
}

void
test_cmdline(void)
{
	current = "cmdline";
	test_cmdline_kinds();
	test_cmdline_whole();
	test_cmdline_refusals();
	test_cmdline_unknown();
	test_cmdline_quotes();
}
