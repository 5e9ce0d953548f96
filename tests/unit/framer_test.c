/* Unit tests of framer.c: where records end in a buffer. */
#include <stdbool.h>

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
