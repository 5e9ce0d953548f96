/* Unit tests of framer.c: where records end in a buffer. */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "framer.h"
#include "unit.h"

void
test_framer(void)
{
	struct framer lines = { false, '\n' }, bytes = { true, 0 };
	const char *s = "ab\ncd\nef";
	size_t units;

	current = "framer";
	check(framer_span(&lines, s, 8, 10, &units) == 6 && units == 2,
	    "two whole lines");
	check(framer_span(&lines, s, 8, 1, &units) == 3 && units == 1, "max 1");
	check(framer_span(&lines, s, 2, 10, &units) == 0 && units == 0,
	    "no delimiter");
	check(framer_whole(&lines, s, 8) == 6, "whole stops at last delim");
	check(framer_whole(&lines, "abc", 3) == 0, "whole: none");
	check(framer_span(&bytes, s, 8, 5, &units) == 5 && units == 5, "bytes");
	check(framer_whole(&bytes, s, 8) == 8, "bytes whole");
	check(framer_count(&lines, s, 8, false) == 2, "count: two lines");
	check(framer_count(&lines, s, 8, true) == 3, "count: and a final");
	check(framer_count(&lines, s, 6, true) == 2, "count: final ended");
	check(framer_count(&lines, s, 0, true) == 0, "count: empty");
	check(framer_count(&bytes, s, 8, true) == 8, "count: bytes");
	{
		struct framer nul = { false, '\0' };

		check(framer_span(&nul, "a\0b\0c", 5, 9, &units) == 4 &&
			units == 2,
		    "NUL records");
	}
	{
		/* The word-at-a-time count against a byte loop, for every
		 * delimiter and buffers of bytes near it, 0x00, 0x7f, 0x80
		 * and 0xff, at every length and alignment. */
		static const unsigned char near[] = { 0, 1, 0x7f, 0x80, 0xff };
		char b[80] = { 0 };
		int bad = 0;

		for (int delim = 0; delim < 256; delim++) {
			struct framer f = { false, (unsigned char)delim };

			for (int round = 0; round < 40; round++) {
				size_t off = rng_below(8), len = rng_below(70);
				size_t want = 0;

				for (size_t i = 0; i < off + len; i++) {
					uint64_t r = rng_below(4);

					b[i] = (char)(r == 0 ? delim :
						r == 1	     ? delim ^
						    (int)(1u << rng_below(8)) :
							 near[rng_below(5)]);
				}
				for (size_t i = off; i < off + len; i++)
					want += (unsigned char)b[i] == delim;
				if (framer_count(&f, b + off, len, false) !=
				    want)
					bad++;
			}
		}
		check(bad == 0, "count: %d of 10240 random buffers wrong", bad);
	}
}

/*
 * framer_count, framer_span and framer_whole against byte loops, on
 * buffers of every length to 300 and a few long ones, at every alignment
 * in a 64-byte block, from no delimiter to nothing else.  A generator of
 * their own, so that a failure reproduces whatever the other tests draw.
 */
#define LONGEST (65536 + 13)
#define BORDER 64

static unsigned char scratch[LONGEST];
static _Alignas(64) unsigned char area[BORDER + 64 + LONGEST + BORDER];
static size_t ends[LONGEST + 1];
static uint64_t kernel_seed;

static uint64_t
kernel_rng(void)
{
	uint64_t z = (kernel_seed += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/*
 * scratch[0..len) gets d with probability density / 64, else a byte one
 * bit away from d, or 0x00, 0x7f, 0x80 or 0xff, or any other.  Each byte
 * takes 16 bits of a draw.
 */
static void
fill_scratch(size_t len, unsigned char d, unsigned density)
{
	static const unsigned char near[] = { 0x00, 0x7f, 0x80, 0xff };
	uint64_t r = 0;

	for (size_t i = 0; i < len; i++) {
		unsigned kind, v;
		unsigned char c;

		r = i % 4 == 0 ? kernel_rng() : r >> 16;
		kind = (r >> 6) & 3;
		v = (r >> 8) & 0xff;
		if ((r & 63) < density) {
			scratch[i] = d;
			continue;
		}
		c = kind == 0 ? (unsigned char)(d ^ 1u << (v & 7)) :
		    kind == 1 ? near[v & 3] :
				(unsigned char)v;
		scratch[i] = c != d ? c : (unsigned char)~d;
	}
}

/* The max of try t of tries over n delimiters: with every, each from 0
 * up; else 0, 1, n, n + 1 and random ones; last, no limit. */
static size_t
kernel_max(size_t t, size_t tries, size_t n, bool every)
{
	if (t == tries - 1)
		return SIZE_MAX;
	if (every || t < 2)
		return t;
	if (t < 4)
		return n + t - 2;
	return kernel_rng() % (n + 2);
}

/* What framer gets wrong about b[0..len), or NULL; with every, each max
 * up to one past the count, else some. */
static const char *
kernel_differs(const struct framer *f, const char *b, size_t len, bool every)
{
	size_t n = 0, units, tries;

	for (size_t i = 0; i < len; i++)
		if ((unsigned char)b[i] == f->delim)
			ends[n++] = i + 1;
	if (framer_count(f, b, len, false) != n)
		return "count";
	if (framer_count(f, b, len, true) !=
	    n + (len > 0 && (unsigned char)b[len - 1] != f->delim))
		return "count, final";
	if (framer_whole(f, b, len) != (n > 0 ? ends[n - 1] : 0))
		return "whole";
	tries = every ? n + 3 : 48;
	for (size_t t = 0; t < tries; t++) {
		size_t max = kernel_max(t, tries, n, every), want, got;

		got = framer_span(f, b, len, max, &units);
		want = max < n ? max : n;
		if (units != want || got != (want > 0 ? ends[want - 1] : 0))
			return "span";
	}
	return NULL;
}

/* Buffers wrong out of those tried, and the first wrong one. */
struct kernel_tally {
	size_t wrong, cases, len, align;
	const char *what;
};

/* A random buffer of length len at each alignment in a block, with d
 * for a block either side, so that a read past either end counts. */
static void
kernel_try(const struct framer *f, unsigned density, size_t len,
    struct kernel_tally *t)
{
	fill_scratch(len, f->delim, density);
	for (size_t align = 0; align < 64; align++) {
		unsigned char *b = area + BORDER + align;
		const char *why;

		memset(b - BORDER, f->delim, BORDER);
		memcpy(b, scratch, len);
		memset(b + len, f->delim, BORDER);
		why = kernel_differs(f, (const char *)b, len, len <= 300);
		t->cases++;
		if (why != NULL && t->wrong++ == 0)
			*t = (struct kernel_tally){ t->wrong, t->cases, len,
				align, why };
	}
}

void
test_framer_kernels(void)
{
	static const unsigned char delims[] = { 0x00, '\n', 0x80, 0xff };
	static const unsigned densities[] = { 0, 1, 8, 32, 64 };
	struct framer bytes = { true, 0 };
	size_t units;
	int bad = 0;

	current = "framer kernels";
	kernel_seed = 20261123;
	for (size_t di = 0; di < sizeof delims; di++)
		for (size_t ki = 0; ki < 5; ki++) {
			struct framer f = { false, delims[di] };
			struct kernel_tally t = { 0, 0, 0, 0, "" };

			for (size_t len = 0; len <= 300; len++)
				kernel_try(&f, densities[ki], len, &t);
			kernel_try(&f, densities[ki], 4097, &t);
			kernel_try(&f, densities[ki], LONGEST, &t);
			check(t.wrong == 0,
			    "delim %#x, %u/64 delimiters: %zu of %zu buffers "
			    "wrong, first %s at length %zu, alignment %zu",
			    f.delim, densities[ki], t.wrong, t.cases, t.what,
			    t.len, t.align);
		}
	for (size_t len = 0; len < 300; len += 7)
		for (size_t max = 0; max < 310; max += 13)
			bad += framer_span(&bytes, (const char *)area, len, max,
				   &units) != (len < max ? len : max) ||
			    units != (len < max ? len : max) ||
			    framer_whole(&bytes, (const char *)area, len) !=
				len ||
			    framer_count(
				&bytes, (const char *)area, len, true) != len;
	check(bad == 0, "bytes: %d of 1032 wrong", bad);
}
