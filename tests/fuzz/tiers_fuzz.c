/* Fuzz target: a tiers file parsed, keys matched, and their invariants. */
#include <fnmatch.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tiers.h"
#include "wildcard.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Is err one line of printable text? */
static void
check_message(const char *err)
{
	if (err[0] == '\0')
		abort();
	for (const char *p = err; *p != '\0'; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			abort();
}

/* Limits as -r and -b give them: the schedule's arithmetic holds. */
static void
check_tiers(const struct tiers *t)
{
	if (t->ntiers > TIERS_MAX || t->nlit + t->nglobs != t->ntiers)
		abort();
	for (size_t i = 0; i < t->ntiers; i++) {
		const struct tier *r = &t->tier[i];
		const struct limit *l = &r->limit;

		if (r->index != i || r->pattern[0] == '\0' ||
		    (i > 0 && r->line <= t->tier[i - 1].line))
			abort();
		if (l->rate.inf ? l->burst != 1 :
				  l->rate.n == 0 || l->rate.d == 0 ||
			    l->rate.n > (uint64_t)INT64_MAX / l->rate.d ||
			    l->burst == 0 || l->initial > l->burst)
			abort();
		/* The one key of a literal is matched by its own tier, or
		 * by a glob on an earlier line. */
		if (r->literal != NULL) {
			const struct tier *m = tiers_match(
			    t, r->literal, strlen(r->literal));

			if (m == NULL || m->index > i)
				abort();
		}
	}
}

/*
 * The match is what trying every line in order finds, by fnmatch(3) for
 * a key it can read (no NUL), which the glob of each line must agree
 * with; a key of any bytes has a tier when a line is '*'.
 */
static void
check_match(const struct tiers *t, const char *key, size_t len)
{
	const struct tier *got = tiers_match(t, key, len), *want = NULL;
	char *buf = NULL;

	/* With POSIXLY_CORRECT the C library reads "[^" otherwise. */
	if (memchr(key, '\0', len) == NULL &&
	    getenv("POSIXLY_CORRECT") == NULL) {
		if ((buf = malloc(len + 1)) == NULL)
			abort();
		memcpy(buf, key, len);
		buf[len] = '\0';
	}
	for (size_t i = 0; i < t->ntiers; i++) {
		const char *p = t->tier[i].pattern;
		bool glob = wildcard_match(p, key, len);

		if (buf != NULL && glob != (fnmatch(p, buf, 0) == 0))
			abort();
		if (glob && want == NULL)
			want = &t->tier[i];
	}
	free(buf);
	if (got != want || (t->catchall != 0 && got == NULL))
		abort();
}

/*
 * The first byte chooses the unit and algorithm; the rest up to the first
 * 0xff byte is the file, and the bytes after it, split at 0xfe, keys.
 */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const fixed[] = { "", "a", "premium-1", "*", "a b",
		"x/y" };
	const char *text = (const char *)data + 1, *keys, *end;
	struct tiers t = { NULL, 0, NULL, 0, NULL, 0 }, was = t;
	char err[512];
	size_t len;
	int rc;

	if (size == 0)
		return 0;
	end = (const char *)data + size;
	keys = memchr(text, 0xff, (size_t)(end - text));
	len = (size_t)((keys != NULL ? keys : end) - text);
	keys = keys != NULL ? keys + 1 : end;
	err[0] = '\0';
	rc = tiers_parse(&t, "fuzz", text, len, (enum unit_mode)(data[0] % 4),
	    (enum algorithm)(data[0] / 4 % 4), err, sizeof err);
	if (rc != 0) {
		/* All or nothing. */
		if (rc != -1 || memcmp(&t, &was, sizeof t) != 0 ||
		    strncmp(err, "fuzz:", 5) != 0)
			abort();
		check_message(err);
		return 0;
	}
	check_tiers(&t);
	for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
		check_match(&t, fixed[i], strlen(fixed[i]));
	while (keys < end) {
		const char *k = keys, *e = memchr(k, 0xfe, (size_t)(end - k));

		e = e != NULL ? e : end;
		check_match(&t, k, (size_t)(e - k));
		keys = e + 1;
	}
	tiers_free(&t);
	return 0;
}
