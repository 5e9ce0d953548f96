/* Unit tests of wildcard.c: globs over bytes, against fnmatch(3) itself. */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"
#include "wildcard.h"

/* Pieces of random globs: every kind of element, well and ill formed. */
static const char *const pieces[] = { "a", "b", "*", "?", "[", "]", "!", "^",
	"-", "\\", ":", ".", "=", "A", "z", " ", "\xe9", "a-c", "[a-", "\\-",
	"\\]", "\\[", "\\*", "[!a]", "[^]]", "[]]", "[[", "]]", "-]",
	"[:alpha:]", "[:digit:]", "[:upper:]", "[:space:]", "[:punct:]",
	"[:xdigit:]", "[:cntrl:]", "[:alnum:]", "[:foo:]", "[:", ":]",
	"[b[:", ":b", "[=a=]", "[=", "=]", "[=]=]", "[=\\=]", "[.a.]", "[.",
	".]", "[.-.]", "[.].]", "[.\xe9.]", "\xe9-\xff" };

/* Bytes of random keys: those the pieces name, and others. */
static const char key_bytes[] = "ab[]-:.=!^\\*?A9z \x01\x7f\xe9\xff";

/* Does wildcard_match agree with fnmatch(3) on pattern and key? */
static int
agrees(const char *pattern, const char *key)
{
	return wildcard_match(pattern, key, strlen(key)) ==
	    (fnmatch(pattern, key, 0) == 0);
}

/* Random globs of up to 10 pieces against random keys of up to 8 bytes. */
static void
test_wildcard_random(void)
{
	char pattern[256], key[16];
	int bad = 0, matched = 0;

	current = "wildcard: random globs and keys, as fnmatch(3)";
	for (int round = 0; round < 40000; round++) {
		size_t plen = 0, n = 1 + rng_below(10);

		for (size_t i = 0; i < n; i++) {
			const char *p =
			    pieces[rng_below(sizeof pieces / sizeof *pieces)];

			memcpy(pattern + plen, p, strlen(p));
			plen += strlen(p);
		}
		pattern[plen] = '\0';
		for (int k = 0; k < 8; k++) {
			size_t klen = rng_below(9);

			for (size_t j = 0; j < klen; j++)
				key[j] =
				    key_bytes[rng_below(sizeof key_bytes - 1)];
			key[klen] = '\0';
			matched += fnmatch(pattern, key, 0) == 0;
			if (!agrees(pattern, key) && bad++ < 5)
				check(0, "'%s' against '%s'", pattern, key);
		}
	}
	check(bad == 0, "%d of 320000 differ", bad);
	check(matched > 1000, "only %d of 320000 match", matched);
}

/* Each class, and names that are none, against every byte. */
static void
test_wildcard_classes(void)
{
	static const char *const names[] = { "alnum", "alpha", "blank", "cntrl",
		"digit", "graph", "lower", "print", "punct", "space", "upper",
		"xdigit", "foo", "", "Alpha", "alphaz", "z" };
	char pattern[32], key[2] = { 0, 0 };
	int bad = 0;

	current = "wildcard: classes, ranges and negation on every byte";
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		for (int b = 1; b < 256; b++) {
			key[0] = (char)b;
			snprintf(pattern, sizeof pattern, "[[:%s:]]", names[i]);
			bad += !agrees(pattern, key);
			snprintf(
			    pattern, sizeof pattern, "[!x[:%s:]]", names[i]);
			bad += !agrees(pattern, key);
		}
	for (int b = 1; b < 256; b++) {
		key[0] = (char)b;
		bad += !agrees("[\x80-\xff]", key) + !agrees("[^ -~]", key) +
		    !agrees("[]-a]", key) + !agrees("[z-a]", key) +
		    !agrees("[[.-.]-0]", key) + !agrees("[\\]-\\a]", key);
	}
	check(bad == 0, "%d byte and bracket pairs differ", bad);
}

/* The longest class name the C library reads, with its '[' and ']'. */
static void
test_wildcard_long_names(void)
{
	static const int lens[] = { 2045, 2046, 2047, 2048, 2049 };
	char *pattern = malloc(2100);
	int bad = 0;

	current = "wildcard: class names at the C library's bound";
	if (pattern == NULL)
		return;
	for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
		int n = lens[i];

		/* Read as a name, then as bytes after an 'A'. */
		memcpy(pattern, "[[:", 3);
		memset(pattern + 3, 'a', (size_t)n);
		strcpy(pattern + 3 + n, "A:]b]");
		bad += !agrees(pattern, "ab]") + !agrees(pattern, "A");
		/* Skipped, after a byte that matched. */
		memcpy(pattern, "[b[:", 4);
		memset(pattern + 4, 'a', (size_t)n);
		strcpy(pattern + 4 + n, ":]]");
		bad += !agrees(pattern, "b") + !agrees(pattern, "a");
	}
	free(pattern);
	check(bad == 0, "%d differ", bad);
}

/* Where fnmatch(3) cannot look: a key of 1 MiB, a NUL in its middle. */
static void
test_wildcard_bytes(void)
{
	size_t big = 1 << 20;
	char *key = malloc(big);

	current = "wildcard: NUL bytes and long keys";
	if (key == NULL)
		return;
	memset(key, 'k', big);
	key[big / 2] = '\0';
	key[big - 1] = 'x';
	check(wildcard_match("*", key, big) &&
		wildcard_match("k*x", key, big) &&
		wildcard_match("k*\\x", key, big) &&
		!wildcard_match("k*y", key, big) &&
		!wildcard_match("k*x?", key, big),
	    "a key of 1 MiB with a NUL inside is matched whole");
	free(key);
}

void
test_wildcard(void)
{
	/* Then the C library reads "[^" as a '^' in a bracket, not as '!'. */
	if (getenv("POSIXLY_CORRECT") != NULL) {
		printf("wildcard: POSIXLY_CORRECT is set: not compared with "
		       "fnmatch(3)\n");
		test_wildcard_bytes();
		return;
	}
#ifndef __GLIBC__
	/* The matcher reads globs as glibc's fnmatch does, the same on
	 * every system; another C library's differs at the edges. */
	printf("wildcard: not glibc: its fnmatch(3) is not the model, "
	       "not compared\n");
	test_wildcard_bytes();
	return;
#endif
	test_wildcard_random();
	test_wildcard_classes();
	test_wildcard_long_names();
	test_wildcard_bytes();
}
