/* Globs as fnmatch(3) reads them, over keys of any bytes; pure, no I/O. */
#include <string.h>

#include "wildcard.h"

/*
 * The longest name of a [:class:] that the C library reads: at this many
 * bytes it gives up on the bracket, which then matches nothing.
 */
#define CLASS_NAME_MAX 2048

/* What one item of a bracket expression made of the byte tested. */
enum item {
	ITEM_NEXT,    /* not it: go on to the next item */
	ITEM_MATCH,   /* it is the byte */
	ITEM_FAIL,    /* the bracket is ill-formed here: the glob fails */
	ITEM_LITERAL, /* no ']' ends the bracket: '[' stands for itself */
};

/* A bracket expression being read: where, its item, the byte tested. */
struct bracket {
	const char *p;	 /* just past the item's first byte */
	unsigned char c; /* the item's first byte */
	unsigned char b; /* the key's byte */
};

/* May c be in the name of a class, as the C library reads one ('z' not)? */
static bool
name_byte(char c)
{
	return (unsigned char)c >= 'a' && (unsigned char)c < 'z';
}

/* Is b in the C locale's class name[0..n)?  *known: is it a class? */
static bool
in_class(const char *name, size_t n, unsigned char b, bool *known)
{
	static const char *const names[] = { "alnum", "alpha", "blank", "cntrl",
		"digit", "graph", "lower", "print", "punct", "space", "upper",
		"xdigit" };
	bool lower = b >= 'a' && b <= 'z', upper = b >= 'A' && b <= 'Z';
	bool digit = b >= '0' && b <= '9', graph = b > ' ' && b < 0x7f;
	bool is[] = { lower || upper || digit, lower || upper,
		b == ' ' || b == '\t', b < ' ' || b == 0x7f, digit, graph,
		lower, graph || b == ' ', graph && !(lower || upper || digit),
		b == ' ' || (b >= '\t' && b <= '\r'), upper,
		digit || ((b | 0x20) >= 'a' && (b | 0x20) <= 'f') };

	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strlen(names[i]) == n && memcmp(names[i], name, n) == 0) {
			*known = true;
			return is[i];
		}
	*known = false;
	return false;
}

/* A one-byte collating symbol "[.c.]" at p (at its '.'): c, p past it. */
static enum item
symbol(const char **p, unsigned char *c)
{
	const char *s = *p;
	size_t n = 0;

	while (!(s[n + 1] == '.' && s[n + 2] == ']')) {
		if (s[n + 1] == '\0')
			return ITEM_FAIL;
		n++;
	}
	/* The C locale names no longer symbols. */
	if (n != 1)
		return ITEM_FAIL;
	*c = (unsigned char)s[1];
	*p = s + 4;
	return ITEM_NEXT;
}

/*
 * The item of br that starts with byte lo (just read, br->c its next)
 * may be a range lo-hi: is br->b in it?
 */
static enum item
range(struct bracket *br, unsigned char lo)
{
	unsigned char hi;

	if (br->c != '-' || *br->p == ']')
		return ITEM_NEXT;
	hi = (unsigned char)*br->p++;
	if (hi == '[' && *br->p == '.') {
		if (symbol(&br->p, &hi) == ITEM_FAIL)
			return ITEM_FAIL;
	} else {
		if (hi == '\\')
			hi = (unsigned char)*br->p++;
		if (hi == '\0')
			return ITEM_FAIL;
	}
	if (lo <= br->b && br->b <= hi)
		return ITEM_MATCH;
	br->c = (unsigned char)*br->p++;
	return ITEM_NEXT;
}

/*
 * The item of byte lo, just read: lo alone, or the range from it when a
 * '-' follows before the end and, but with wide, not before a ']'.
 */
static enum item
from_byte(struct bracket *br, unsigned char lo, bool wide)
{
	const char *p = br->p;

	if (!(p[0] == '-' && p[1] != '\0' && (wide || p[1] != ']')) &&
	    lo == br->b)
		return ITEM_MATCH;
	br->c = (unsigned char)*br->p++;
	return range(br, lo);
}

/* The item of br that is the byte br->c itself, or a range from it. */
static enum item
plain(struct bracket *br)
{
	return from_byte(br, br->c, false);
}

/* The item "[.c.]" of br: c, or a range from it, even before a ']'. */
static enum item
collating(struct bracket *br)
{
	unsigned char lo;

	if (symbol(&br->p, &lo) == ITEM_FAIL)
		return ITEM_FAIL;
	return from_byte(br, lo, true);
}

/* The item "[:name:]" of br; '[' a byte of its own if no name follows. */
static enum item
named_class(struct bracket *br)
{
	const char *name = br->p + 1;
	size_t n = 0;
	bool known, in;

	for (;; n++) {
		if (n == CLASS_NAME_MAX)
			return ITEM_FAIL;
		if (name[n] == ':' && name[n + 1] == ']')
			break;
		if (!name_byte(name[n]))
			return plain(br);
	}
	in = in_class(name, n, br->b, &known);
	if (!known)
		return ITEM_FAIL;
	br->p = name + n + 2;
	if (in)
		return ITEM_MATCH;
	br->c = (unsigned char)*br->p++;
	return ITEM_NEXT;
}

/* The item "[=c=]" of br; '[' a byte of its own if it is not whole. */
static enum item
equivalent(struct bracket *br)
{
	const char *p = br->p;

	if (p[1] == '\0' || p[2] != '=' || p[3] != ']')
		return plain(br);
	br->p = p + 4;
	if ((unsigned char)p[1] == br->b)
		return ITEM_MATCH;
	br->c = (unsigned char)*br->p++;
	return ITEM_NEXT;
}

/* The item of br that starts with br->c. */
static enum item
item(struct bracket *br)
{
	if (br->c == '\\') {
		if (*br->p == '\0')
			return ITEM_FAIL;
		br->c = (unsigned char)*br->p++;
		return plain(br);
	}
	if (br->c == '\0')
		return ITEM_LITERAL;
	if (br->c == '[' && *br->p == ':')
		return named_class(br);
	if (br->c == '[' && *br->p == '=')
		return equivalent(br);
	if (br->c == '[' && *br->p == '.')
		return collating(br);
	return plain(br);
}

/*
 * Move *p, just past the item that matched, past the ']' of its bracket:
 * ITEM_MATCH; or read on this way the bracket does not end well
 * (ITEM_FAIL), or has no end at all, so that its '[' is a byte
 * (ITEM_LITERAL).
 */
static enum item
skip_rest(const char **at)
{
	const char *p = *at;
	size_t n;
	char c;

	while ((c = *p++) != ']') {
		if (c == '\0')
			return ITEM_LITERAL;
		if (c == '\\') {
			if (*p++ == '\0')
				return ITEM_FAIL;
		} else if (c == '[' && *p == ':') {
			for (n = 1; n < CLASS_NAME_MAX; n++)
				if ((p[n] == ':' && p[n + 1] == ']') ||
				    !name_byte(p[n]))
					break;
			if (n == CLASS_NAME_MAX)
				return ITEM_FAIL;
			if (p[n] == ':' && p[n + 1] == ']')
				p += n + 2;
		} else if (c == '[' && *p == '=') {
			if (p[1] == '\0' || p[2] != '=' || p[3] != ']')
				return ITEM_FAIL;
			p += 4;
		} else if (c == '[' && *p == '.') {
			if ((p = strstr(p + 1, ".]")) == NULL)
				return ITEM_FAIL;
			p += 2;
		}
	}
	*at = p;
	return ITEM_MATCH;
}

/*
 * Does the bracket expression at p (past its '[') take byte b?  Where the
 * glob goes on after it, or NULL; *literal when the bracket has no end,
 * so that its '[' is a byte to compare.
 */
static const char *
bracket(const char *p, unsigned char b, bool *literal)
{
	bool not = *p == '!' || *p == '^';
	struct bracket br = { p + not +1, (unsigned char)p[not ], b };
	enum item it;

	*literal = false;
	for (;;) {
		it = item(&br);
		if (it != ITEM_NEXT)
			break;
		if (br.c == ']')
			return not ? br.p : NULL;
	}
	if (it == ITEM_MATCH)
		it = skip_rest(&br.p);
	/* Whether or not it matched, a bracket without an end is a '['. */
	*literal = it == ITEM_LITERAL;
	return it == ITEM_MATCH && !not ? br.p : NULL;
}

/* Where the glob goes on after element p took byte b, or NULL. */
static const char *
element(const char *p, unsigned char b)
{
	const char *next;
	bool literal;

	switch (*p) {
	case '\0':
		return NULL;
	case '?':
		return p + 1;
	case '\\':
		/* A lone backslash at the end matches nothing. */
		return p[1] != '\0' && (unsigned char)p[1] == b ? p + 2 : NULL;
	case '[':
		next = bracket(p + 1, b, &literal);
		if (literal)
			return b == '[' ? p + 1 : NULL;
		return next;
	default:
		return (unsigned char)*p == b ? p + 1 : NULL;
	}
}

bool
wildcard_match(const char *pattern, const char *key, size_t len)
{
	const char *p = pattern, *star = NULL, *next;
	size_t i = 0, star_i = 0;

	for (;;) {
		if (*p == '*') {
			/* A '?' among stars takes a byte where it stands. */
			for (; *p == '*' || *p == '?'; p++)
				if (*p == '?' && i++ == len)
					return false;
			if (*p == '\0')
				return true;
			star = p;
			star_i = i;
			continue;
		}
		if (i < len &&
		    (next = element(p, (unsigned char)key[i])) != NULL) {
			p = next;
			i++;
			continue;
		}
		if (i == len && *p == '\0')
			return true;
		/* The last star takes one more byte, and the glob after it
		 * starts again; earlier stars keep what they took. */
		if (star == NULL || star_i >= len)
			return false;
		p = star;
		i = ++star_i;
	}
}
