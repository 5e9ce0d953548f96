/* Unit tests of options.c: the command line into struct config. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bucket.h"
#include "sliding.h"
#include "options.h"
#include "unit.h"

static enum parse_result
parse(struct config *cfg, char *err, size_t errsz, ...)
{
	char *argv[32];
	int argc = 0;
	va_list ap;

	argv[argc++] = (char *)"tbthrottle";
	va_start(ap, errsz);
	while ((argv[argc] = va_arg(ap, char *)) != NULL)
		argc++;
	va_end(ap);
	return options_parse(cfg, argc, argv, err, errsz);
}

static void
opt_bad(const char *want, ...)
{
	char *argv[32], err[512] = "";
	struct config cfg;
	int argc = 0;
	va_list ap;

	argv[argc++] = (char *)"tbthrottle";
	va_start(ap, want);
	while ((argv[argc] = va_arg(ap, char *)) != NULL)
		argc++;
	va_end(ap);
	check(options_parse(&cfg, argc, argv, err, sizeof err) == OPT_ERROR &&
		strstr(err, want) != NULL && strchr(err, '\n') == NULL,
	    "args starting '%s' should fail with '%s', got '%s'", argv[1], want,
	    err);
}

void
test_options(void)
{
	struct config cfg;
	char err[512];

	current = "options";
	check(parse(&cfg, err, sizeof err, "-r", "10/s", (char *)NULL) ==
		    OPT_RUN &&
		cfg.nlimits == 1 && cfg.limits[0].burst == 1 &&
		cfg.limits[0].initial == 1 && cfg.mode == UNIT_LINES &&
		cfg.delim == '\n',
	    "defaults");
	check(parse(&cfg, err, sizeof err, "-c", "-r", "1M/s", (char *)NULL) ==
		    OPT_RUN &&
		cfg.limits[0].burst == 10485,
	    "byte burst is 10 ms: %" PRIu64, cfg.limits[0].burst);
	check(parse(&cfg, err, sizeof err, "--rate=5", "-b", "2s", "--initial",
		  "0", "f1", "f2", (char *)NULL) == OPT_RUN &&
		cfg.limits[0].burst == 10 && cfg.limits[0].initial == 0 &&
		cfg.nfiles == 2,
	    "burst as duration, files");
	check(parse(&cfg, err, sizeof err, "-0", "-r", "1", (char *)NULL) ==
		    OPT_RUN &&
		cfg.delim == '\0',
	    "-0");
	check(parse(&cfg, err, sizeof err, "-d", "\\t", "-r", "1",
		  (char *)NULL) == OPT_RUN &&
		cfg.delim == '\t',
	    "-d \\t");
	check(parse(&cfg, err, sizeof err, "-d", "\\x1e", "-r", "1",
		  (char *)NULL) == OPT_RUN &&
		cfg.delim == 0x1e,
	    "-d \\x1e");
	check(parse(&cfg, err, sizeof err, "--leaky", "-a", "leaky", "-r", "1",
		  (char *)NULL) == OPT_RUN &&
		cfg.algorithm == ALG_LEAKY,
	    "leaky");
	check(parse(&cfg, err, sizeof err, "-h", (char *)NULL) == OPT_HELP,
	    "help");
	check(parse(&cfg, err, sizeof err, "-V", (char *)NULL) == OPT_VERSION,
	    "version");
	check(parse(&cfg, err, sizeof err, "-r", "inf", "-b", "5",
		  (char *)NULL) == OPT_RUN &&
		options_unlimited(&cfg) && cfg.nlimits == 0,
	    "inf ignores -b, and is no limit");
	check(parse(&cfg, err, sizeof err, "--byte-rate", "1M/s",
		  (char *)NULL) == OPT_RUN &&
		options_unlimited(&cfg) && cfg.byte_limited,
	    "--byte-rate alone: no limit on records");

	check(
	    parse(&cfg, err, sizeof err, "-r", "1", (char *)NULL) == OPT_RUN &&
		cfg.catchup_ns == BUCKET_CATCHUP_NS,
	    "catch-up default");
	check(parse(&cfg, err, sizeof err, "-r", "1", "--catch-up", "0",
		  (char *)NULL) == OPT_RUN &&
		cfg.catchup_ns == 0,
	    "catch-up 0");
	check(parse(&cfg, err, sizeof err, "-r", "1", "--catch-up=2.5ms",
		  (char *)NULL) == OPT_RUN &&
		cfg.catchup_ns == 2500000,
	    "catch-up 2.5ms");
	opt_bad("invalid --catch-up '5': a duration needs its unit: 5s, or 5ms",
	    "-r", "1", "--catch-up", "5", (char *)NULL);
	opt_bad("invalid --catch-up '2h': at most 1h", "-r", "1", "--catch-up",
	    "2h", (char *)NULL);
	opt_bad("invalid --catch-up '-1ms'", "-r", "1", "--catch-up", "-1ms",
	    (char *)NULL);
	check(parse(&cfg, err, sizeof err, "-a", "sliding", "-r", "100/min",
		  (char *)NULL) == OPT_RUN &&
		cfg.algorithm == ALG_SLIDING &&
		cfg.limits[0].rate.count == 100 &&
		cfg.limits[0].rate.period_ns == 60 * NS &&
		cfg.limits[0].burst == 100,
	    "sliding 100/min");
	opt_bad("whole count per period", "-a", "sliding", "-r", "0.5/s",
	    (char *)NULL);
	opt_bad("-b does not apply to -a sliding", "-a", "sliding", "-r", "5/s",
	    "-b", "2", (char *)NULL);
	check(parse(&cfg, err, sizeof err, "-a", "fixed", "-r", "2/h",
		  (char *)NULL) == OPT_RUN &&
		cfg.algorithm == ALG_FIXED && cfg.limits[0].rate.count == 2 &&
		cfg.limits[0].rate.period_ns == 3600 * NS,
	    "fixed");
	opt_bad("-b does not apply to -a fixed", "-a", "fixed", "-r", "5/s",
	    "-b", "2", (char *)NULL);
	opt_bad("missing -r", (char *)NULL);
	opt_bad("invalid rate '0'", "-r", "0", (char *)NULL);
	opt_bad("invalid rate '-1'", "-r", "-1", (char *)NULL);
	opt_bad("invalid rate 'abc'", "-r", "abc", (char *)NULL);
	opt_bad("invalid burst '0'", "-r", "1", "-b", "0", (char *)NULL);
	opt_bad("invalid burst '10ms'", "-r", "1", "-b", "10ms", (char *)NULL);
	opt_bad("invalid --initial '-1'", "-r", "1", "--initial", "-1",
	    (char *)NULL);
	opt_bad("invalid --initial '5'", "-r", "1", "-b", "2", "--initial", "5",
	    (char *)NULL);
	opt_bad("invalid delimiter ''", "-r", "1", "-d", "", (char *)NULL);
	opt_bad("invalid delimiter 'ab'", "-r", "1", "-d", "ab", (char *)NULL);
	opt_bad("-c conflicts with -l", "-l", "-c", "-r", "1", (char *)NULL);
	opt_bad(
	    "-0 conflicts with -d", "-d", ",", "-0", "-r", "1", (char *)NULL);
	opt_bad("does not apply to -a leaky", "--leaky", "-b", "3", "-r", "1",
	    (char *)NULL);
	opt_bad("conflicting algorithms", "-a", "token", "--leaky", "-r", "1",
	    (char *)NULL);
	opt_bad(
	    "invalid algorithm 'foo'", "-a", "foo", "-r", "1", (char *)NULL);
	opt_bad("unknown option '--frobnicate'", "--frobnicate", (char *)NULL);
	opt_bad("unknown option '-x'", "-x", (char *)NULL);
	opt_bad("option '-r' needs a value", "-r", (char *)NULL);
	opt_bad("option '--rate' needs a value", "-l", "--rate", (char *)NULL);
	/* The option itself is named, not the word getopt last passed. */
	opt_bad(
	    "unknown option '-x' (", "-r", "1", "--drop", "-xl", (char *)NULL);
	opt_bad("unknown option '-x' (", "--lines", "-xl", (char *)NULL);
	opt_bad("unknown option '-\\x01' (", "-r", "1", "-\001l", (char *)NULL);
	opt_bad("option '--leaky' takes no value", "--lea=1", (char *)NULL);
	opt_bad("not '-P'", "-R", "x", "-Ps", (char *)NULL);
	/* The habits of xargs and GNU parallel: no file 4 here. */
	opt_bad("-P 4: jobs at once is -j 4 here", "-r", "1", "-P", "4",
	    (char *)NULL);
	opt_bad("-P 12: jobs at once is -j 12 here", "-P12", (char *)NULL);
	opt_bad("invalid -j '0': that is GNU parallel's", "-r", "1", "-j0",
	    "--exec", "true", (char *)NULL);
	opt_bad("unknown option '-L': --exec runs one command per record", "-r",
	    "1", "-L1", "--exec", "true", (char *)NULL);
	opt_bad(
	    "unknown option '-L': pv's -L 1 is bytes a second: give -c -r 1/s",
	    "-L1", (char *)NULL);
	opt_bad("'::::' is GNU parallel's", "-r", "1", "--exec", "true",
	    "::::", "f", (char *)NULL);
	check(parse(&cfg, err, sizeof err, "-P0", "-r", "1", (char *)NULL) ==
		    OPT_RUN &&
		cfg.progress && cfg.mode == UNIT_NULL,
	    "-P0 is -P -0");
	check(parse(&cfg, err, sizeof err, "-r", "1", "--exec", "echo", "-j",
		  "4", (char *)NULL) == OPT_RUN &&
		strcmp(cfg.exec_warning,
		    "-j 4 after --exec goes to echo: give tbthrottle's options "
		    "before --exec, or end the command with ';'") == 0,
	    "-j 4 after --exec: '%s'", cfg.exec_warning);
	check(parse(&cfg, err, sizeof err, "-r", "1", "--exec", "echo", "-j",
		  "4", ";", (char *)NULL) == OPT_RUN &&
		cfg.exec_warning[0] == '\0',
	    "-j 4 ';' after --exec: '%s'", cfg.exec_warning);
	opt_bad("not '-k'", "-R", "x", "-sk1", (char *)NULL);
	opt_bad("not '--ke'", "-R", "x", "--ke=1", (char *)NULL);
	/* A scan stopped in the middle of a word leaves nothing behind. */
	opt_bad("unknown option '-x' (", "-xl", (char *)NULL);
	check(
	    parse(&cfg, err, sizeof err, "-r", "1", (char *)NULL) == OPT_RUN &&
		cfg.nlimits == 1,
	    "a fresh scan after an error mid-word: %s", err);
	check(parse(&cfg, err, sizeof err, "-r", "1000/s", "-b", "5000", "-r",
		  "5000/s", "-b", "10", (char *)NULL) == OPT_RUN &&
		cfg.nlimits == 2 && cfg.limits[0].burst == 5000 &&
		cfg.limits[1].burst == 10 && cfg.limits[1].rate.d == 200000,
	    "two limits, each -b after its -r");
	check(parse(&cfg, err, sizeof err, "-b", "7", "-r", "1",
		  (char *)NULL) == OPT_RUN &&
		cfg.nlimits == 1 && cfg.limits[0].burst == 7,
	    "-b before a single -r");
	opt_bad("comes before any -r", "-b", "2", "-r", "1", "-r", "2",
	    (char *)NULL);
	opt_bad("-b given twice ('2' and '3') for one -r", "-r", "1", "-b", "2",
	    "-b", "3", (char *)NULL);
	opt_bad(
	    "-r inf cannot be combined", "-r", "1", "-r", "inf", (char *)NULL);
	opt_bad("--initial applies to a single -r", "-r", "1", "-r", "2",
	    "--initial", "0", (char *)NULL);
	opt_bad("too many -r", "-r", "1", "-r", "1", "-r", "1", "-r", "1", "-r",
	    "1", "-r", "1", "-r", "1", "-r", "1", "-r", "1", (char *)NULL);
	opt_bad("100 years", "-c", "-r", "1/day", "-b", "1G", (char *)NULL);
	/* When several things are wrong, the first in the rules' order is
	 * named; the -r are read last to first. */
	opt_bad("invalid rate 'y'", "-r", "x", "-r", "y", (char *)NULL);
	opt_bad(
	    "-r inf cannot be combined", "-r", "0", "-r", "inf", (char *)NULL);
	opt_bad("invalid rate '0'", "-r", "inf", "-r", "0", (char *)NULL);
	opt_bad("invalid --byte-rate '0'", "--byte-rate", "0", "-b", "5", "-r",
	    "1", "-r", "2", (char *)NULL);
	opt_bad("invalid -R '.x'", "-R", ".x", (char *)NULL);
	opt_bad("invalid -R '0123'", "-R", "0123", (char *)NULL);
	opt_bad("-R x needs -r RATE", "-R", "x", (char *)NULL);
	opt_bad("-R x takes -r and -b, or --stats, not both", "-R", "x", "-s",
	    "-r", "1/s", (char *)NULL);
	opt_bad(
	    "invalid --name '123'", "--name", "123", "-r", "1/s", (char *)NULL);
	opt_bad(
	    "invalid --name 'a b'", "--name", "a b", "-r", "1/s", (char *)NULL);
	opt_bad("--list takes no other options", "--list", "-r", "1/s",
	    (char *)NULL);
	opt_bad(
	    "-R takes only -r and -b, --stats, --reload or --speed, not '--name'",
	    "-R", "x", "--name", "y", (char *)NULL);
	opt_bad(
	    "-R takes only -r and -b, --stats, --reload or --speed, not '--progress'",
	    "-R", "x", "--progress", "--stats=json", (char *)NULL);
	opt_bad("invalid rate '0'", "--shared", ".x", "-r", "0", (char *)NULL);
	opt_bad("-k 5 needs a rate", "-k", "05", "--shared", "x", "-r", "inf",
	    (char *)NULL);
	opt_bad("for byte rates", "-r", "1KiB/s", (char *)NULL);
	opt_bad("--tiers needs -k FIELD", "--tiers", "t", "-r", "1/s",
	    (char *)NULL);
	opt_bad("invalid --tiers ''", "-k", "1", "--tiers", "", (char *)NULL);
	opt_bad("--reload needs -R", "--reload", (char *)NULL);
	opt_bad("-R x takes --reload alone", "-R", "x", "--reload", "-r", "1",
	    (char *)NULL);
	opt_bad("-R x takes --reload alone", "-R", "x", "--reload", "-s",
	    (char *)NULL);
	opt_bad(
	    "-R takes only -r and -b, --stats, --reload or --speed, not '--tiers'",
	    "-R", "x", "--reload", "--tiers", "t", (char *)NULL);
	opt_bad("-k 1 needs a rate", "-k", "1", "--tiers", "t", "-r", "inf",
	    (char *)NULL);
	/* --tz aligns fixed windows, and nothing else. */
	check(parse(&cfg, err, sizeof err, "-a", "fixed", "-r", "1/1d", "--tz",
		  "Europe/Paris", (char *)NULL) == OPT_RUN &&
		cfg.tz != NULL && strcmp(cfg.tz, "Europe/Paris") == 0,
	    "--tz with -a fixed");
	check(parse(&cfg, err, sizeof err, "-a", "fixed", "-r", "1/1d",
		  (char *)NULL) == OPT_RUN &&
		cfg.tz == NULL,
	    "no --tz: UTC");
	opt_bad("--tz Europe/Paris needs -a fixed: it aligns fixed windows "
		"to the zone's calendar",
	    "--tz", "Europe/Paris", "-a", "sliding", "-r", "1/1d",
	    (char *)NULL);
	opt_bad("--tz local needs -a fixed", "--tz", "local", "-r", "1/s",
	    (char *)NULL);
	opt_bad("invalid --tz '': give a zone", "-a", "fixed", "-r", "1/s",
	    "--tz", "", (char *)NULL);
	opt_bad(
	    "--show takes only --shared NAME, --state-dir or --redis URL, and --json",
	    "--show", "--shared", "x", "--tz", "UTC", (char *)NULL);
}

/* The option table: --help shows every option it reads. */
void
test_option_table(void)
{
	char *text = NULL, want[64];
	size_t len = 0;
	FILE *fp = open_memstream(&text, &len);
	int i;

	current = "option table";
	if (fp == NULL) {
		check(0, "open_memstream");
		return;
	}
	options_usage(fp);
	fclose(fp);
	for (i = 0; options_long_name(i) != NULL; i++) {
		snprintf(want, sizeof want, "--%s", options_long_name(i));
		check(strstr(text, want) != NULL, "--help names %s", want);
		for (int j = 0; j < i; j++)
			check(strcmp(options_long_name(i),
				  options_long_name(j)) != 0,
			    "%s twice", want);
	}
	check(i == 71, "71 long options: %d", i);
	free(text);
	/* options.h and spec.h name these so as not to include the limiters. */
	check(DEFAULT_CATCHUP_NS == BUCKET_CATCHUP_NS, "catch-up default");
	check(MAX_WINDOW_UNITS == SLIDING_MAX_LIMIT, "window limit");
}
