/* Unit tests of joblog.c: GNU parallel's joblog lines, written and read. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "joblog.h"
#include "unit.h"

/* The arguments in, as an argv of writable strings (NULL for NULL). */
static char *const *
argv_of(const char *const *in)
{
	static char pool[8][512], *argv[9];
	int i = 0;

	for (; in != NULL && in[i] != NULL && i < 8; i++)
		argv[i] = strcpy(pool[i], in[i]);
	argv[i] = NULL;
	return in != NULL ? argv : NULL;
}

/* The line of a job, in a buffer that fits it (the tests' are short). */
static const char *
line(uint64_t seq, int64_t start_ns, int64_t run_ns, int exitval, int sig,
    const char *const *args)
{
	static char buf[4096];
	struct joblog_job j = { seq, start_ns, run_ns, exitval, sig,
		argv_of(args) };
	size_t n = joblog_format(buf, sizeof buf, &j);

	check(n == strlen(buf), "length %zu, written %zu", n, strlen(buf));
	return buf;
}

static void
line_is(const char *got, const char *want)
{
	check(strcmp(got, want) == 0, "line\n  '%s'\nwant\n  '%s'", got, want);
}

/* The command column of line l, after its eighth tab. */
static const char *
command_of(const char *l)
{
	for (int i = 0; i < 8 && l != NULL; i++)
		if ((l = strchr(l, '\t')) != NULL)
			l++;
	return l != NULL ? l : "";
}

/* Lines GNU parallel 20221122 wrote, byte for byte. */
static void
test_as_parallel(void)
{
	const char *exit1[] = { "exit", "1", NULL };
	const char *exit2[] = { "exit", "2", NULL };
	const char *printf_[] = { "printf", "%s\\n", "a b", NULL };
	const char *n[] = { "printf", "%s\\n", "n", NULL };

	current = "joblog: lines as GNU parallel writes them";
	/* parallel --joblog x 'exit {}' ::: 1 0 2 */
	check(strcmp(JOBLOG_HEADER,
		  "Seq\tHost\tStarttime\tJobRuntime\tSend\tReceive\tExitval"
		  "\tSignal\tCommand\n") == 0,
	    "header");
	line_is(line(1, 1795911130791000000, 2 * MS, 1, 0, exit1),
	    "1\t:\t1795911130.791\t     0.002\t0\t0\t1\t0\texit 1\n");
	line_is(line(3, 1795911131063000000, 67 * MS, 2, 0, exit2),
	    "3\t:\t1795911131.063\t     0.067\t0\t0\t2\t0\texit 2\n");
	/* parallel -q printf '%s\n' ::: 'a b' n (Receive aside) */
	check(strcmp(command_of(line(1, 0, 0, 0, 0, printf_)),
		  "printf '%s\\n' 'a b'\n") == 0,
	    "quoted as parallel: %s", command_of(line(1, 0, 0, 0, 0, printf_)));
	check(strcmp(command_of(line(4, 0, 0, 0, 0, n)),
		  "printf '%s\\n' n\n") == 0,
	    "plain as parallel");
	/* A job killed by SIGKILL: Exitval 0, Signal 9. */
	line_is(line(1, 1795911132528000000, 0, 0, 9, exit1),
	    "1\t:\t1795911132.528\t     0.000\t0\t0\t0\t9\texit 1\n");
}

/* Times: the start rounded, the runtime cut, both to the millisecond. */
static void
test_times(void)
{
	const char *t[] = { "true", NULL };

	current = "joblog: the start rounded to the ms, the runtime cut";
	line_is(line(7, 999500000, 1999999999, 0, 0, t),
	    "7\t:\t1.000\t     1.999\t0\t0\t0\t0\ttrue\n");
	line_is(line(7, 999499999, 999999, 0, 0, t),
	    "7\t:\t0.999\t     0.000\t0\t0\t0\t0\ttrue\n");
	line_is(line(7, -5, -5, 0, 0, t),
	    "7\t:\t0.000\t     0.000\t0\t0\t0\t0\ttrue\n");
	line_is(line(UINT64_MAX, INT64_MAX, INT64_MAX, 255, 64, t),
	    "18446744073709551615\t:\t9223372036.855\t9223372036.854\t0\t0"
	    "\t255\t64\ttrue\n");
	line_is(line(2, 0, 123456 * NS, 0, 0, NULL),
	    "2\t:\t0.000\t123456.000\t0\t0\t0\t0\t\n");
}

/* Arguments quoted as they need, control bytes escaped. */
static void
test_quoting(void)
{
	const char *curl[] = { "curl", "-fsS", "http://x/a b", NULL };
	const char *q[] = { "a=b", "c=d", "", "x'y", "~", "$HOME", "é", NULL };
	const char *c[] = { "echo", "n\nl", "t\tab", "c\r", "\x01\x7f", "\\'",
		NULL };
	char all[256];

	current = "joblog: arguments quoted only when they need it";
	check(strcmp(command_of(line(1, 0, 0, 0, 0, curl)),
		  "curl -fsS 'http://x/a b'\n") == 0,
	    "curl: %s", command_of(line(1, 0, 0, 0, 0, curl)));
	check(strcmp(command_of(line(1, 0, 0, 0, 0, q)),
		  "'a=b' c=d '' 'x'\\''y' '~' '$HOME' '\xc3\xa9'\n") == 0,
	    "quoted: %s", command_of(line(1, 0, 0, 0, 0, q)));

	current = "joblog: control bytes in $'...', the line kept whole";
	check(
	    strcmp(command_of(line(1, 0, 0, 0, 0, c)),
		"echo $'n\\nl' $'t\\tab' $'c\\r' $'\\x01\\x7f' '\\'\\'''\n") ==
		0,
	    "escaped: %s", command_of(line(1, 0, 0, 0, 0, c)));
	for (int i = 1; i < 256; i++)
		all[i - 1] = (char)i;
	all[255] = '\0';
	c[1] = all;
	c[2] = NULL;
	{
		const char *l = line(1, 0, 0, 0, 0, c);
		int tabs = 0, nl = 0, cr = 0;

		for (const char *p = l; *p != '\0'; p++) {
			tabs += *p == '\t';
			nl += *p == '\n';
			cr += *p == '\r';
		}
		check(
		    tabs == 8 && nl == 1 && cr == 0 && l[strlen(l) - 1] == '\n',
		    "every byte: %d tabs, %d newlines, %d CRs", tabs, nl, cr);
	}
}

/* A buffer too small: cut, terminated, the length it needs told. */
static void
test_small_buffer(void)
{
	const char *a[] = { "sleep", "1", NULL };
	struct joblog_job j = { 12, NS, NS, 0, 0, argv_of(a) };
	char want[128], buf[16];
	size_t n = joblog_format(want, sizeof want, &j);

	current = "joblog: a small buffer is told the length the line needs";
	check(joblog_format(NULL, 0, &j) == n, "size 0");
	check(joblog_format(buf, sizeof buf, &j) == n &&
		strlen(buf) == sizeof buf - 1 &&
		memcmp(buf, want, sizeof buf - 1) == 0,
	    "cut: '%s'", buf);
	check(joblog_format(buf, 1, &j) == n && buf[0] == '\0', "size 1");
}

void
test_joblog_format(void)
{
	test_as_parallel();
	test_times();
	test_quoting();
	test_small_buffer();
}

/* Read text under mode into a fresh set; the scan into *scan. */
static struct seqset
read_text(const char *text, enum joblog_mode mode, struct joblog_scan *scan)
{
	struct seqset s;

	seqset_init(&s);
	check(joblog_read(text, strlen(text), mode, &s, scan) == 0, "read");
	return s;
}

/* Whether s holds exactly the Seqs in want, of 1..20. */
static void
holds(const struct seqset *s, const char *want)
{
	char got[64] = "";

	for (uint64_t i = 1; i <= 20; i++)
		if (seqset_has(s, i))
			snprintf(got + strlen(got), sizeof got - strlen(got),
			    "%s%llu", got[0] ? " " : "", (unsigned long long)i);
	check(strcmp(got, want) == 0, "done: '%s', want '%s'", got, want);
}

#define L(seq, exit, sig, cmd) \
	seq "\t:\t1795911130.791\t     0.002\t0\t0\t" exit "\t" sig "\t" cmd \
	    "\n"

/* Both modes over a log of runs, failures and reruns. */
static void
test_modes(void)
{
	const char *text = JOBLOG_HEADER L("1", "0", "0", "exit 0")
	    L("2", "1", "0", "exit 1") L("3", "0", "9", "kill")
		L("4", "0", "0", "ok") L("2", "0", "0", "exit 1 again")
		    L("4", "2", "0", "ok no more") L("5", "-1", "0", "x")
			L("6", "0", "-0", "tab\tin\tit");
	struct joblog_scan sc;
	struct seqset s;

	current = "joblog: --resume, every Seq with a line is done";
	s = read_text(text, JOBLOG_RESUME, &sc);
	holds(&s, "1 2 3 4 5 6");
	check(sc.records == 8 && sc.garbage == 0 && !sc.cut,
	    "%zu records, %zu garbage", sc.records, sc.garbage);
	seqset_free(&s);

	current = "joblog: --resume-failed, a Seq's last line decides";
	s = read_text(text, JOBLOG_RESUME_FAILED, &sc);
	holds(&s, "1 2 6");
	seqset_free(&s);
}

/* Lines that are not a job's, CRLF, a cut last line, huge Seqs. */
static void
test_garbage(void)
{
	struct joblog_scan sc;
	struct seqset s;

	current = "joblog: garbage counted with its first line, passed over";
	s = read_text(
	    L("1", "0", "0",
		"a") "\n"
		     "hello\n" L("x2", "0", "0", "b") L("3", "0", "0",
			 "c") "4\t:\t1.0\t0.0\t0\t0\t0\t0\n"
			      "5\t\t1.0\t0.0\t0\t0\t0\t0\tc\n"
			      "6\t:\t1.\t0.0\t0\t0\t0\t0\tc\n"
			      "7\t:\t1.0\t0.0\t0\t0\t0.0\t0\tc\n"
			      "8\t:\t1.0\t0.0\t0\t0\t-\t0\tc\n"
			      "9\t:\t1795913\t:\t1795911130.791\t0.1\t0\t0\t0\t0\tc\n"
			      "\t:\t1.0\t0.0\t0\t0\t0\t0\tc\n",
	    JOBLOG_RESUME, &sc);
	holds(&s, "1 3");
	check(sc.garbage == 9 && sc.first_garbage == 3 && sc.records == 2,
	    "%zu garbage from line %zu, %zu records", sc.garbage,
	    sc.first_garbage, sc.records);
	seqset_free(&s);

	current = "joblog: Seqs above 2^63 - 1 are garbage";
	s = read_text("9223372036854775807\t:\t1.0\t0.0\t0\t0\t0\t0\tc\n"
		      "9223372036854775808\t:\t1.0\t0.0\t0\t0\t0\t0\tc\n"
		      "99999999999999999999999\t:\t1.0\t0.0\t0\t0\t0\t0\tc\n"
		      "0007\t:\t1.0\t0.0\t0\t0\t0\t0\tc\n",
	    JOBLOG_RESUME, &sc);
	check(seqset_has(&s, SEQSET_MAX) && seqset_has(&s, 7) &&
		seqset_count(&s) == 2 && sc.garbage == 2 &&
		sc.first_garbage == 2,
	    "%zu garbage from %zu", sc.garbage, sc.first_garbage);
	seqset_free(&s);

	current = "joblog: CRLF lines read, a header anywhere passed over";
	s = read_text("Seq\tHost\tStarttime\tJobRuntime\tSend\tReceive\tExitval"
		      "\tSignal\tCommand\r\n"
		      "1\t:\t1.0\t0.0\t0\t0\t0\t0\tc\r\n" JOBLOG_HEADER
		      "2\t:\t1.0\t0.0\t0\t0\t0\t0\tc\r\n",
	    JOBLOG_RESUME_FAILED, &sc);
	holds(&s, "1 2");
	check(sc.garbage == 0 && sc.records == 2, "%zu garbage", sc.garbage);
	seqset_free(&s);

	current = "joblog: a last line with no newline is cut, ignored";
	s = read_text(L("1", "0", "0", "a") "2\t:\t1.0\t0.0\t0\t0\t0\t0\tc",
	    JOBLOG_RESUME, &sc);
	holds(&s, "1");
	check(sc.cut && sc.garbage == 0 && sc.records == 1, "cut");
	seqset_free(&s);
	s = read_text("", JOBLOG_RESUME, &sc);
	check(s.nruns == 0 && !sc.cut && sc.records == 0, "empty file");
	seqset_free(&s);
}

/* Random argument bytes (no NUL) into argv, n arguments. */
static void
random_argv(char **argv, char (*args)[16], int n)
{
	static const char bytes[] = "a Z0=-'\"\\$\t\n\r\x01\x7f\xe9\xff%{}";

	for (int i = 0; i < n; i++) {
		int len = (int)rng_below(15);

		for (int k = 0; k < len; k++)
			args[i][k] = rng_below(4) == 0 ?
			    (char)(rng_below(255) + 1) :
			    bytes[rng_below(sizeof bytes - 1)];
		args[i][len] = '\0';
		argv[i] = args[i];
	}
	argv[n] = NULL;
}

/* Lines formatted then read: each Seq as its last line says. */
static void
test_round_trip(void)
{
	enum { JOBS = 2000, POOL = 300 };
	static char text[JOBS * 400];
	unsigned char last_ok[POOL] = { 0 }, seen[POOL] = { 0 };
	uint64_t seqs[POOL];
	size_t len = 0;
	int bad = 0;

	current = "joblog: lines written then read give each job back";
	for (int i = 0; i < POOL; i++)
		seqs[i] = i < POOL / 2 ? rng() >> 1 : (uint64_t)i;
	for (int i = 0; i < JOBS; i++) {
		char *argv[6], args[5][16];
		int k = (int)rng_below(POOL), ok = rng_below(2) == 0;
		struct joblog_job j = { seqs[k], (int64_t)(rng() >> 2),
			(int64_t)(rng() >> 20), ok ? 0 : (int)rng_below(256),
			ok || rng_below(2) ? 0 : (int)rng_below(65), argv };

		random_argv(argv, args, (int)rng_below(6));
		len += joblog_format(text + len, sizeof text - len, &j);
		last_ok[k] = j.exitval == 0 && j.signal == 0;
		seen[k] = 1;
	}
	for (int mode = 0; mode < 2; mode++) {
		struct joblog_scan sc;
		struct seqset s;
		int rc;

		seqset_init(&s);
		rc = joblog_read(text, len, (enum joblog_mode)mode, &s, &sc);
		check(
		    rc == 0 && sc.records == JOBS && sc.garbage == 0 && !sc.cut,
		    "mode %d: %zu records, %zu garbage from line %zu", mode,
		    sc.records, sc.garbage, sc.first_garbage);
		for (int i = 0; i < POOL; i++)
			bad += seqset_has(&s, seqs[i]) !=
			    (seen[i] && (mode == JOBLOG_RESUME || last_ok[i]));
		seqset_free(&s);
	}
	check(bad == 0, "%d Seqs read wrong", bad);
}

void
test_joblog_read(void)
{
	test_modes();
	test_garbage();
	test_round_trip();
}
