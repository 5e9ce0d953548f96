/* Unit tests of tiers.c: the tiers file's parser and its first match. */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tiers.h"
#include "unit.h"

/* Parse text[0..len) as file "t" of records under a token bucket. */
static int
parse_n(struct tiers *t, const char *text, size_t len, char *err, size_t errsz)
{
	return tiers_parse(
	    t, "t", text, len, UNIT_LINES, ALG_TOKEN, err, errsz);
}

static int
parse(struct tiers *t, const char *text, char *err, size_t errsz)
{
	return parse_n(t, text, strlen(text), err, errsz);
}

/* Is text[0..len) refused with exactly want, naming file "t"? */
static void
bad_n(const char *text, size_t len, const char *want)
{
	struct tiers t;
	char err[512] = "";

	memset(&t, 0, sizeof t);

	check(parse_n(&t, text, len, err, sizeof err) == -1 &&
		strcmp(err, want) == 0 && t.tier == NULL && t.ntiers == 0,
	    "want '%s', got '%s'", want, err);
}

static void
bad(const char *text, const char *want)
{
	bad_n(text, strlen(text), want);
}

/* The line number of the tier key matches, or 0 when none does. */
static size_t
line_of(const struct tiers *t, const char *key, size_t len)
{
	const struct tier *m = tiers_match(t, key, len);

	return m != NULL ? m->line : 0;
}

static size_t
line_for(const struct tiers *t, const char *key)
{
	return line_of(t, key, strlen(key));
}

/* Comments, blanks, "\r\n", '#' and '\' in fields, a last line unended. */
static void
test_tiers_format(void)
{
	static const char file[] =
	    "# tiers\n"
	    "\n"
	    "  \t \n"
	    "premium-*\t1000/min 50\r\n"
	    "  free-*  10/min   # the default for free users\r\n"
	    "user#1 inf\n"
	    "\\#x 2/s 3s\n"
	    "a\\ b 1/s #\n"
	    "*\t5/s";
	struct tiers t;
	char err[512];

	current = "tiers format";
	if (parse(&t, file, err, sizeof err) != 0) {
		check(0, "parse: %s", err);
		return;
	}
	check(t.ntiers == 6, "6 tiers, not %zu", t.ntiers);
	if (t.ntiers != 6)
		goto out;
	for (size_t i = 0; i < t.ntiers; i++)
		check(t.tier[i].index == i, "tier %zu's index", i);
	check(t.tier[0].line == 4 &&
		strcmp(t.tier[0].pattern, "premium-*") == 0 &&
		t.tier[0].literal == NULL && t.tier[0].limit.rate.n == 1 &&
		t.tier[0].limit.rate.d == 60 * MS &&
		t.tier[0].limit.burst == 50 && t.tier[0].limit.initial == 50,
	    "a glob, a rate and a burst");
	check(t.tier[1].line == 5 && strcmp(t.tier[1].pattern, "free-*") == 0 &&
		t.tier[1].limit.burst == 1 && t.tier[1].limit.rate.d == 6 * NS,
	    "blanks, a comment and \\r\\n: %s", t.tier[1].pattern);
	check(t.tier[2].line == 6 && strcmp(t.tier[2].literal, "user#1") == 0 &&
		t.tier[2].limit.rate.inf && t.tier[2].limit.burst == 1,
	    "'#' inside a field is kept; inf is a tier without a limit");
	check(t.tier[3].line == 7 && strcmp(t.tier[3].pattern, "\\#x") == 0 &&
		strcmp(t.tier[3].literal, "#x") == 0 &&
		t.tier[3].limit.burst == 6,
	    "\\# starts a pattern with '#'");
	check(t.tier[4].line == 8 && strcmp(t.tier[4].pattern, "a\\ b") == 0 &&
		strcmp(t.tier[4].literal, "a b") == 0,
	    "'\\ ' keeps a blank in a pattern");
	check(t.tier[5].line == 9 && strcmp(t.tier[5].pattern, "*") == 0 &&
		t.tier[5].limit.rate.d == NS / 5,
	    "a last line without newline");
out:
	tiers_free(&t);
	check(t.tier == NULL && t.ntiers == 0 && t.bylit == NULL &&
		t.globs == NULL,
	    "tiers_free empties it");
	tiers_free(&t);
}

/* RATE and BURST mean what -r and -b mean for the unit and algorithm. */
static void
test_tiers_limits(void)
{
	struct tiers t;
	struct limit l;
	char err[512];

	current = "tiers limits";
	check(tiers_parse(&t, "t", "* 1M/s\n", 7, UNIT_BYTES, ALG_TOKEN, err,
		  sizeof err) == 0 &&
		spec_limit_parse("1M/s", NULL, NULL, UNIT_BYTES, ALG_TOKEN, &l,
		    err, sizeof err) == 0 &&
		t.tier[0].limit.burst == l.burst && l.burst == 10485,
	    "bytes: 10 ms of burst, as -c -r");
	tiers_free(&t);
	check(tiers_parse(&t, "t", "* 100/min\n", 10, UNIT_LINES, ALG_SLIDING,
		  err, sizeof err) == 0 &&
		t.tier[0].limit.burst == 100,
	    "sliding: the window's count");
	check(t.catchall == 1, "a '*' line is the catch-all: line %zu",
	    t.catchall);
	tiers_free(&t);
	check(tiers_parse(&t, "t", "# x\na* 1\n", 9, UNIT_LINES, ALG_TOKEN, err,
		  sizeof err) == 0 &&
		t.catchall == 0,
	    "no catch-all without a '*' line");
	tiers_free(&t);
	check(tiers_parse(&t, "t", "* 2m\n", 5, UNIT_NULL, ALG_TOKEN, err,
		  sizeof err) == -1 &&
		strcmp(err,
		    "t:1: invalid rate '2m': a "
		    "period needs a slash: 2/m for 2 a minute, or 1/2m for "
		    "one every 2 m") == 0,
	    "%s", err);
	check(tiers_parse(&t, "t", "* 1/s 5\n", 8, UNIT_LINES, ALG_LEAKY, err,
		  sizeof err) == -1 &&
		strcmp(err,
		    "t:1: -b 5 does not apply to -a "
		    "leaky, which releases one unit every 1/RATE") == 0,
	    "%s", err);
	check(tiers_parse(&t, "t", "* 1.5/s\n", 8, UNIT_LINES, ALG_FIXED, err,
		  sizeof err) == -1 &&
		strcmp(err,
		    "t:1: invalid rate '1.5/s' for "
		    "a window: give a whole count per period, such as 100/min or "
		    "1/2s") == 0,
	    "%s", err);
	check(parse(&t, "", err, sizeof err) == 0 && t.ntiers == 0 &&
		tiers_match(&t, "a", 1) == NULL,
	    "an empty file has no tiers");
	tiers_free(&t);
	check(parse_n(&t, NULL, 0, err, sizeof err) == 0 && t.ntiers == 0,
	    "nor has no text");
	tiers_free(&t);
	check(parse(&t, "# only\n\n  # comments\n", err, sizeof err) == 0 &&
		t.ntiers == 0,
	    "nor comments alone");
	tiers_free(&t);
}

/* Every kind of bad line, with its exact message. */
static void
test_tiers_bad(void)
{
	struct tiers t;
	char err[512];

	current = "tiers bad lines";
	bad("a 1/s\n\n# c\nb 10/fortnight\n",
	    "t:4: invalid rate "
	    "'10/fortnight': unknown period 'fortnight' (use ms, s, sec, min, "
	    "h, hour, d, day)");
	bad("a 1/s#x\n",
	    "t:1: invalid rate '1/s#x': unexpected '#x' (try "
	    "10/s, 5/min, 1M/s)");
	bad("a 1/s 0\n", "t:1: invalid burst '0': must be at least 1 unit");
	bad("a 1/s 2.5\n",
	    "t:1: invalid burst '2.5': give a whole number of "
	    "units, or a duration such as 2s");
	bad("gold\n", "t:1: no rate after 'gold': give PATTERN RATE [BURST]");
	bad("gold # 10/s\n",
	    "t:1: no rate after 'gold': give PATTERN RATE "
	    "[BURST]");
	bad("a\\ 10/s\n",
	    "t:1: no rate after 'a\\ 10/s': give PATTERN RATE "
	    "[BURST]");
	bad("x 1/s\ngold\\\n",
	    "t:2: no rate after 'gold\\': give PATTERN "
	    "RATE [BURST]");
	bad("a 1/s 2 x\n",
	    "t:1: unexpected 'x' after the burst: give "
	    "PATTERN RATE [BURST]");
	bad("a 1/s 2 \x1b[31m\n",
	    "t:1: unexpected '\\x1b[31m' after the "
	    "burst: give PATTERN RATE [BURST]");
	bad("a 1/s\r 2\n",
	    "t:1: invalid rate '1/s\\x0d': unexpected '\\x0d' "
	    "(try 10/s, 5/min, 1M/s)");
	bad_n("a 1/s\nb\0 1/s\n", 13, "t:2: NUL byte in the line");
	bad_n("a 1/s\n# \0\n", 10, "t:2: NUL byte in the line");
	check(tiers_parse(&t, "x\ny", "a\n", 2, UNIT_LINES, ALG_TOKEN, err,
		  sizeof err) == -1 &&
		strcmp(err,
		    "x\\x0ay:1: no rate after 'a': "
		    "give PATTERN RATE [BURST]") == 0,
	    "a name on one line: %s", err);
}

/* Lines that would never apply: the first match wins, always. */
static void
test_tiers_dead(void)
{
	current = "tiers dead lines";
	bad("alice 1/s\nbob 2/s\nalice 3/s\n",
	    "t:3: pattern 'alice' never "
	    "applies: line 1 matches the same keys first");
	bad("alice 1/s\nbob 2/s\nal\\ice 3/s\n",
	    "t:3: pattern 'al\\ice' "
	    "never applies: line 1 matches the same keys first");
	bad("a* 1/s\nb 2/s\na* 3/s\n",
	    "t:3: pattern 'a*' never applies: "
	    "line 1 matches the same keys first");
	bad("a* 1/s\nb 2/s\nb 1/s\na* 3/s\n",
	    "t:3: pattern 'b' never "
	    "applies: line 2 matches the same keys first");
	bad("x 1/s\nx 2/s\nx 3/s\n",
	    "t:2: pattern 'x' never applies: line 1 "
	    "matches the same keys first");
	bad("a 1/s\n* 2/s\n# end\nb 1/s\n",
	    "t:4: pattern 'b' never applies: "
	    "the '*' of line 2 matches every key first");
	bad("** 2/s\n* 1/s\n",
	    "t:2: pattern '*' never applies: the '*' of "
	    "line 1 matches every key first");
	bad("* 2/s\nb 10/fortnight\n",
	    "t:2: pattern 'b' never applies: the "
	    "'*' of line 1 matches every key first");
}

/* A failed parse leaves t as it was, and frees all it built. */
static void
test_tiers_all_or_nothing(void)
{
	struct tiers t, was;
	char err[512], *text;
	size_t len = 0;

	current = "tiers all or nothing";
	if (parse(&t, "a 1/s\nb* 2/s\n", err, sizeof err) != 0) {
		check(0, "parse: %s", err);
		return;
	}
	was = t;
	/* Many tiers, then a bad line: all of them must be let go. */
	text = malloc(1000 * 16 + 32);
	if (text == NULL)
		return;
	for (int i = 0; i < 1000; i++)
		len += (size_t)sprintf(text + len, "k%d-* %d/s\n", i, i + 1);
	len += (size_t)sprintf(text + len, "z 1/s 2 3\n");
	check(parse_n(&t, text, len, err, sizeof err) == -1 &&
		memcmp(&t, &was, sizeof t) == 0 && line_for(&t, "bz") == 2,
	    "a bad line 1001 leaves t as it was: %s", err);
	len -= 4;
	text[len - 1] = '\n';
	check(parse_n(&t, text, len, err, sizeof err) == 0 &&
		t.ntiers == 1001 && line_for(&t, "k999-x") == 1000 &&
		line_for(&t, "z") == 1001,
	    "without it, 1001 tiers: %s", err);
	free(text);
	tiers_free(&t);
	tiers_free(&was);
}

/* One tier of pattern: which keys it takes. */
struct globcase {
	const char *pattern;
	const char *key;
	size_t len;
	size_t line;
};

/* fnmatch(3) without flags, on bytes: '/', '.', blanks, high bytes, NUL. */
static void
test_tiers_globs(void)
{
	static const struct globcase cases[] = {
		{ "*", "", 0, 1 },
		{ "*", "any/thing", 9, 1 },
		{ "*", ".hidden", 7, 1 },
		{ "a*/b", "a/x/b", 5, 1 },
		{ "?", "/", 1, 1 },
		{ "?", "", 0, 0 },
		{ "?", "ab", 2, 0 },
		{ "a?c", "a c", 3, 1 },
		{ "[abc]x", "bx", 2, 1 },
		{ "[abc]x", "dx", 2, 0 },
		{ "[!abc]x", "dx", 2, 1 },
		{ "[!abc]x", "ax", 2, 0 },
		{ "[a-c]", "b", 1, 1 },
		{ "[a-c]", "B", 1, 0 },
		{ "Gold", "gold", 4, 0 },
		{ "[[:digit:]]*", "7up", 3, 1 },
		{ "\\*", "*", 1, 1 },
		{ "\\*", "x", 1, 0 },
		{ "\\?", "?", 1, 1 },
		{ "\\?", "a", 1, 0 },
		{ "[*]", "*", 1, 1 },
		{ "a\\ b", "a b", 3, 1 },
		{ "a\\ b", "a\\ b", 4, 0 },
		{ "a\\\tb", "a\tb", 3, 1 },
		{ "a?b", "a\tb", 3, 1 },
		{ "\\\\", "\\", 1, 1 },
		{ "user#1", "user#1", 6, 1 },
		{ "[#]x", "#x", 2, 1 },
		{ "\x01\x7f", "\x01\x7f", 2, 1 },
		{ "[\x80-\xff]*", "\xffx", 2, 1 },
		{ "[\x80-\xff]*", "x\xff", 2, 0 },
		{ "?", "\xe9", 1, 1 },
		{ "\xe9t\xe9", "\xe9t\xe9", 3, 1 },
		{ "*", "a\0b", 3, 1 },
		{ "a", "a\0", 2, 0 },
		{ "a*", "a\0", 2, 1 },
		{ "a?b", "a\0b", 3, 1 },
		{ "[!a]", "\0", 1, 1 },
		{ "??", "\0", 1, 0 },
		{ "[a]", "\0", 1, 0 },
		{ "[[:cntrl:]]", "\0", 1, 1 },
		{ "[[:print:]]", "\0", 1, 0 },
		{ "*b", "\0\0b", 3, 1 },
		{ "\\*", "\0", 1, 0 },
		{ "blocked-*", "blocked-\0x", 10, 1 },
		{ "blocked-*", "blockeD-\0x", 10, 0 },
	};
	char line[64], err[512];
	struct tiers t;

	current = "tiers globs";
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const struct globcase *c = &cases[i];
		size_t got;

		snprintf(line, sizeof line, "%s 1/s\n", c->pattern);
		if (parse(&t, line, err, sizeof err) != 0) {
			check(0, "parse '%s': %s", c->pattern, err);
			continue;
		}
		got = line_of(&t, c->key, c->len);
		check(got == c->line, "'%s' %s key %zu of %zu bytes",
		    c->pattern, c->line != 0 ? "takes" : "leaves", i, c->len);
		tiers_free(&t);
	}
}

/* The first line that matches wins; no line, no tier. */
static void
test_tiers_first_match(void)
{
	static const char file[] = "premium-bob 5/min\n"
				   "premium-* 1000/min\n"
				   "premium-alice 1/s\n"
				   "bob 1/s\n"
				   "?* 10/min\n";
	struct tiers t;
	char err[512];

	current = "tiers first match";
	if (parse(&t, file, err, sizeof err) != 0) {
		check(0, "parse: %s", err);
		return;
	}
	check(line_for(&t, "premium-bob") == 1, "a literal before a glob");
	check(line_for(&t, "premium-x") == 2, "the glob");
	check(line_for(&t, "premium-alice") == 2,
	    "a glob before a literal "
	    "takes its key");
	check(line_for(&t, "bob") == 4, "a literal after non-matching globs");
	check(line_for(&t, "carol") == 5, "the last line");
	check(line_for(&t, "") == 0, "no line for the empty key");
	check(tiers_match(&t, "bob", 3) == &t.tier[3], "the tier itself");
	tiers_free(&t);
}

/* Keys of any length; TIERS_MAX tiers of lines up to TIERS_LINE_MAX
 * bytes. */
static void
test_tiers_bounds(void)
{
	static const size_t lens[] = { 4096, 4097, 256 * 1024 };
	char *key, *text, err[512];
	size_t len = 0;
	struct tiers t;

	current = "tiers bounds";
	key = malloc(256 * 1024);
	text = malloc(TIERS_MAX * 16 + TIERS_LINE_MAX + 64);
	if (key == NULL || text == NULL)
		goto out;
	memset(key, 'k', 256 * 1024);
	if (parse(&t, "k*x 1/day\nk* 1/s\n", err, sizeof err) == 0) {
		for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
			key[lens[i] - 1] = 'x';
			check(line_of(&t, key, lens[i]) == 1,
			    "a key of %zu bytes is matched whole", lens[i]);
			key[lens[i] - 1] = 'k';
			check(line_of(&t, key, lens[i]) == 2,
			    "a key of %zu bytes", lens[i]);
		}
		tiers_free(&t);
	}

	/* A longest line, with "\r\n"; one byte more is refused. */
	memset(text, 'p', TIERS_LINE_MAX - 4);
	memcpy(text + TIERS_LINE_MAX - 4, " 1/s\r\n", 6);
	check(parse_n(&t, text, TIERS_LINE_MAX + 2, err, sizeof err) == 0 &&
		t.ntiers == 1 &&
		strlen(t.tier[0].pattern) == TIERS_LINE_MAX - 4,
	    "a line of %d bytes: %s", TIERS_LINE_MAX, err);
	tiers_free(&t);
	memcpy(text, "a 1/s\n", 6);
	memset(text + 6, ' ', TIERS_LINE_MAX + 1);
	text[6 + TIERS_LINE_MAX + 1] = '\n';
	bad_n(text, 6 + TIERS_LINE_MAX + 2,
	    "t:2: line longer than 4096 "
	    "bytes");

	/* Comments do not count towards TIERS_MAX. */
	len = (size_t)sprintf(text, "# many\n\n");
	for (int i = 0; i < TIERS_MAX; i++)
		len += (size_t)sprintf(
		    text + len, "u%d %d/min\n", i, i % 60 + 1);
	check(parse_n(&t, text, len, err, sizeof err) == 0 &&
		t.ntiers == TIERS_MAX && t.nlit == TIERS_MAX &&
		line_for(&t, "u0") == 3 && line_for(&t, "u9999") == 10002 &&
		line_for(&t, "u10000") == 0,
	    "%d tiers: %s", TIERS_MAX, err);
	tiers_free(&t);
	len += (size_t)sprintf(text + len, "z 1/s\n");
	bad_n(text, len, "t:10003: more than 10000 tiers");
out:
	free(key);
	free(text);
}

/*
 * With a line '*', every key has a tier: of any bytes, NUL too, and any
 * length.  Those of the lines before it take theirs first.
 */
static void
test_tiers_catchall(void)
{
	static const char file[] = "blocked-* 1/day\nvip 1/s\n* 10/s\n";
	char *key = malloc(70000), err[512];
	struct tiers t;
	int bad = 0;

	current = "tiers: a '*' line takes every key the others leave";
	if (key == NULL || parse(&t, file, err, sizeof err) != 0) {
		check(0, "parse: %s", err);
		free(key);
		return;
	}
	for (int round = 0; round < 3000; round++) {
		size_t len = rng_below(4) == 0 ? rng_below(70000) :
						 rng_below(12);
		size_t want = 3;

		for (size_t i = 0; i < len; i++)
			key[i] = (char)rng_below(4 == rng_below(5) ? 256 : 3);
		if (round % 3 == 0 && len >= 8) {
			memcpy(key, "blocked-", 8);
			want = 1;
		} else if (round % 7 == 0) {
			memcpy(key, "vip", len = 3);
			want = 2;
		} else if (len >= 8 && memcmp(key, "blocked-", 8) == 0) {
			want = 1;
		}
		bad += line_of(&t, key, len) != want;
	}
	check(bad == 0, "%d of 3000 keys took another line, or none", bad);
	tiers_free(&t);
	free(key);
}

/*
 * The index finds what trying every line in order finds: random files of
 * literals and globs over a small alphabet, against random keys.
 */
static void
test_tiers_index(void)
{
	static const char alpha[] = "ab*?[]!\\";
	char text[2048], key[8], err[512];
	struct tiers t;
	int files = 0;

	current = "tiers index";
	for (int round = 0; round < 300; round++) {
		size_t len = 0, ntiers = 1 + rng_below(12);

		for (size_t i = 0; i < ntiers; i++) {
			size_t plen = 1 + rng_below(6);

			for (size_t j = 0; j < plen; j++)
				text[len++] =
				    alpha[rng_below(rng_below(4) == 0 ? 8 : 2)];
			len += (size_t)sprintf(text + len, " %zu/s\n", i + 1);
		}
		/* Repeated patterns are refused; those files are skipped. */
		if (parse_n(&t, text, len, err, sizeof err) != 0)
			continue;
		files++;
		for (int k = 0; k < 50; k++) {
			size_t klen = rng_below(7);
			const struct tier *want = NULL;

			for (size_t j = 0; j < klen; j++)
				key[j] =
				    alpha[rng_below(rng_below(4) == 0 ? 8 : 2)];
			key[klen] = '\0';
			for (size_t i = 0; i < t.ntiers && want == NULL; i++)
				if (fnmatch(t.tier[i].pattern, key, 0) == 0)
					want = &t.tier[i];
			check(tiers_match(&t, key, klen) == want,
			    "round %d key '%s'", round, key);
		}
		tiers_free(&t);
	}
	check(files > 100, "only %d of 300 files parsed", files);
}

void
test_tiers(void)
{
	test_tiers_format();
	test_tiers_limits();
	test_tiers_bad();
	test_tiers_dead();
	test_tiers_all_or_nothing();
	test_tiers_globs();
	test_tiers_first_match();
	test_tiers_bounds();
	test_tiers_index();
}

/* Drawn from the generator after the others, not to move their cases. */
void
test_tiers_any_key(void)
{
	test_tiers_catchall();
}
