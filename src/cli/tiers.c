/* Rate tiers by key: the tiers file read into limits, and the first match. */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "msg.h"
#include "tiers.h"
#include "wildcard.h"

/* PATTERN RATE BURST, and one more to tell a line of too many. */
#define MAX_FIELDS 4

/* A file being read: where it is, and the tiers so far. */
struct build {
	const char *name;
	size_t line;
	enum unit_mode mode;
	enum algorithm alg;
	char *err;
	size_t errsz;
	struct tier *tier;
	size_t ntiers;
	size_t cap;
	size_t catchall; /* the line of a pattern of only '*', or 0 */
};

/* Put "NAME:LINE: reason" in b's err, on one line; -1. */
static int
fail(const struct build *b, const char *fmt, ...)
{
	char why[512];
	va_list ap;

	va_start(ap, fmt);
	/* The analyzer misses the va_start above:
	 * NOLINTNEXTLINE(clang-analyzer-valist.Uninitialized) */
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	snprintf(b->err, b->errsz, "%s:%zu: %s", b->name, b->line, why);
	/* The file's bytes, and its name, must not break it over lines. */
	msg_escape(b->err, b->errsz);
	return -1;
}

/* Put "NAME: out of memory" in b's err; -2. */
static int
out_of_memory(const struct build *b)
{
	snprintf(b->err, b->errsz, "%s: out of memory", b->name);
	msg_escape(b->err, b->errsz);
	return -2;
}

static bool
blank(char c)
{
	return c == ' ' || c == '\t';
}

/*
 * Split the line buf[0..n) in place into at most max fields, each ended
 * by a NUL (buf has room for one after n).  Blanks separate fields, a '#'
 * that starts a field starts a comment, and a backslash keeps the byte
 * after it in the field.  Returns the number of fields.
 */
static int
split(char *buf, size_t n, char **field, int max)
{
	size_t i = 0;
	int nf = 0;

	buf[n] = '\0';
	while (nf < max) {
		while (i < n && blank(buf[i]))
			i++;
		if (i == n || buf[i] == '#')
			break;
		field[nf++] = buf + i;
		while (i < n && !blank(buf[i]))
			i += buf[i] == '\\' && i + 1 < n ? 2 : 1;
		if (i < n)
			buf[i++] = '\0';
	}
	return nf;
}

/* Is p made of '*' alone, so that it matches every key? */
static bool
catchall(const char *p)
{
	return strspn(p, "*") == strlen(p);
}

/*
 * The one key pattern p matches, its escapes undone, into out (as long
 * as p); false when p has a wildcard, which the glob must judge.
 */
static bool
literal_of(const char *p, char *out)
{
	for (; *p != '\0'; p++) {
		if (*p == '*' || *p == '?' || *p == '[')
			return false;
		/* A lone backslash ends a line, so it has no rate after it
		 * and never gets here; it would stand for itself. */
		if (*p == '\\' && p[1] != '\0')
			p++;
		*out++ = *p;
	}
	*out = '\0';
	return true;
}

/* Keep the tier pattern, limit l as b's next. */
static int
add_tier(struct build *b, const char *pattern, const struct limit *l)
{
	size_t plen = strlen(pattern);
	struct tier *t;

	if (b->ntiers == b->cap) {
		size_t cap = b->cap == 0 ? 16 : b->cap * 2;

		if (cap > TIERS_MAX)
			cap = TIERS_MAX;
		t = realloc(b->tier, cap * sizeof *t);
		if (t == NULL)
			return out_of_memory(b);
		b->tier = t;
		b->cap = cap;
	}
	t = &b->tier[b->ntiers];
	/* The pattern, then its key when it has no wildcard. */
	if ((t->pattern = malloc(2 * plen + 2)) == NULL)
		return out_of_memory(b);
	memcpy(t->pattern, pattern, plen + 1);
	t->literal = t->pattern + plen + 1;
	if (!literal_of(pattern, t->literal))
		t->literal = NULL;
	t->literal_len = t->literal != NULL ? strlen(t->literal) : 0;
	t->index = b->ntiers++;
	t->line = b->line;
	t->limit = *l;
	return 0;
}

/* Read the fields of the line buf[0..n) into a tier, if it has any. */
static int
parse_fields(struct build *b, char *buf, size_t n)
{
	char *f[MAX_FIELDS], why[512];
	struct limit l;
	int nf = split(buf, n, f, MAX_FIELDS);

	if (nf == 0)
		return 0;
	if (nf == 1)
		return fail(
		    b, "no rate after '%s': give PATTERN RATE [BURST]", f[0]);
	if (nf > 3)
		return fail(b,
		    "unexpected '%s' after the burst: give PATTERN "
		    "RATE [BURST]",
		    f[3]);
	if (b->catchall != 0)
		return fail(b,
		    "pattern '%s' never applies: the '*' of line "
		    "%zu matches every key first",
		    f[0], b->catchall);
	if (b->ntiers == TIERS_MAX)
		return fail(b, "more than %d tiers", TIERS_MAX);
	if (spec_limit_parse(f[1], nf == 3 ? f[2] : NULL, NULL, b->mode, b->alg,
		&l, why, sizeof why) != 0)
		return fail(b, "%s", why);
	if (catchall(f[0]))
		b->catchall = b->line;
	return add_tier(b, f[0], &l);
}

/* Read the line s[0..n), without its '\n', into b. */
static int
parse_line(struct build *b, const char *s, size_t n)
{
	char buf[TIERS_LINE_MAX + 1];

	if (n > 0 && s[n - 1] == '\r')
		n--;
	if (n > TIERS_LINE_MAX)
		return fail(b, "line longer than %d bytes", TIERS_LINE_MAX);
	if (memchr(s, '\0', n) != NULL)
		return fail(b, "NUL byte in the line");
	memcpy(buf, s, n);
	return parse_fields(b, buf, n);
}

/* The text a tier is known by: its one key, or its glob. */
static const char *
key_of(const struct tier *t)
{
	return t->literal != NULL ? t->literal : t->pattern;
}

/* Order tiers by key_of, then by line. */
static int
by_key(const void *a, const void *b)
{
	const struct tier *x = *(struct tier *const *)a;
	const struct tier *y = *(struct tier *const *)b;
	int c = strcmp(key_of(x), key_of(y));

	return c != 0 ? c : (x->index > y->index) - (x->index < y->index);
}

/* Order tiers by line. */
static int
by_index(const void *a, const void *b)
{
	const struct tier *x = *(struct tier *const *)a;
	const struct tier *y = *(struct tier *const *)b;

	return (x->index > y->index) - (x->index < y->index);
}

/*
 * Of v[0..n), sorted by_key, the tier earliest in the file that repeats
 * another's key_of into *dead (unless one before it is there already),
 * and the tier it repeats, which matches first, into *first.
 */
static void
repeated(struct tier *const *v, size_t n, const struct tier **dead,
    const struct tier **first)
{
	size_t run = 0;

	for (size_t i = 1; i < n; i++) {
		if (strcmp(key_of(v[i]), key_of(v[run])) != 0) {
			run = i;
			continue;
		}
		if (*dead == NULL || v[i]->index < (*dead)->index) {
			*dead = v[i];
			*first = v[run];
		}
	}
}

/*
 * Build t from b's tiers: the literal ones sorted by key for a binary
 * search, the globs in file order.  A tier whose pattern repeats an
 * earlier one's is refused: it would never apply.
 */
static int
index_tiers(struct build *b, struct tiers *t)
{
	struct tier **lit, **glob;
	const struct tier *dead = NULL, *first = NULL;
	size_t nlit = 0, nglob = 0;

	lit = malloc((b->ntiers + 1) * sizeof *lit);
	glob = malloc((b->ntiers + 1) * sizeof *glob);
	if (lit == NULL || glob == NULL) {
		free(lit);
		free(glob);
		return out_of_memory(b);
	}
	for (size_t i = 0; i < b->ntiers; i++) {
		if (b->tier[i].literal != NULL)
			lit[nlit++] = &b->tier[i];
		else
			glob[nglob++] = &b->tier[i];
	}
	qsort(lit, nlit, sizeof *lit, by_key);
	qsort(glob, nglob, sizeof *glob, by_key);
	repeated(lit, nlit, &dead, &first);
	repeated(glob, nglob, &dead, &first);
	if (dead != NULL) {
		free(lit);
		free(glob);
		b->line = dead->line;
		return fail(b,
		    "pattern '%s' never applies: line %zu matches "
		    "the same keys first",
		    dead->pattern, first->line);
	}
	qsort(glob, nglob, sizeof *glob, by_index);
	*t = (struct tiers){ b->tier, b->ntiers, lit, nlit, glob, nglob,
		b->catchall };
	return 0;
}

static void
free_tiers(struct tier *tier, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(tier[i].pattern);
	free(tier);
}

int
tiers_parse(struct tiers *t, const char *name, const char *text, size_t len,
    enum unit_mode mode, enum algorithm alg, char *err, size_t errsz)
{
	struct build b = { .name = name,
		.mode = mode,
		.alg = alg,
		.err = err,
		.errsz = errsz };
	size_t pos = 0;
	int rc = 0;

	while (rc == 0 && pos < len) {
		const char *s = text + pos;
		const char *nl = memchr(s, '\n', len - pos);
		size_t n = nl != NULL ? (size_t)(nl - s) : len - pos;

		b.line++;
		rc = parse_line(&b, s, n);
		pos += n + 1;
	}
	if (rc == 0)
		rc = index_tiers(&b, t);
	if (rc != 0)
		free_tiers(b.tier, b.ntiers);
	return rc;
}

/* A key, for bsearch among the literal tiers. */
struct key {
	const char *b;
	size_t len;
};

/*
 * Compare a key with a literal tier's, byte by byte, a prefix first: the
 * order of strcmp, which sorted them, over keys that may hold a NUL.
 */
static int
key_cmp(const void *key, const void *elem)
{
	const struct key *k = key;
	const struct tier *t = *(struct tier *const *)elem;
	size_t n = k->len < t->literal_len ? k->len : t->literal_len;
	int c = n > 0 ? memcmp(k->b, t->literal, n) : 0;

	if (c != 0)
		return c;
	return (k->len > t->literal_len) - (k->len < t->literal_len);
}

const struct tier *
tiers_match(const struct tiers *t, const char *key, size_t len)
{
	const struct key k = { key, len };
	struct tier *const *lit = NULL;
	size_t before;

	if (t->nlit > 0)
		lit = bsearch(&k, t->bylit, t->nlit, sizeof *t->bylit, key_cmp);
	/* Only a glob on an earlier line can take the key from it. */
	before = lit != NULL ? (*lit)->index : t->ntiers;
	for (size_t i = 0; i < t->nglobs && t->globs[i]->index < before; i++)
		if (wildcard_match(t->globs[i]->pattern, key, len))
			return t->globs[i];
	return lit != NULL ? *lit : NULL;
}

void
tiers_free(struct tiers *t)
{
	free_tiers(t->tier, t->ntiers);
	free(t->bylit);
	free(t->globs);
	*t = (struct tiers){ NULL, 0, NULL, 0, NULL, 0, 0 };
}
