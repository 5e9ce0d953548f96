/* Record framing: where units end in a buffer; pure, no I/O. */
#include <stdint.h>
#include <string.h>

#include "framer.h"

size_t
framer_span(const struct framer *f, const char *buf, size_t len, size_t max,
    size_t *units)
{
	const char *p = buf, *end = buf + len, *q;
	size_t n = 0;

	if (f->bytes) {
		*units = len < max ? len : max;
		return *units;
	}
	while (n < max && p < end &&
	    (q = memchr(p, f->delim, (size_t)(end - p))) != NULL) {
		p = q + 1;
		n++;
	}
	*units = n;
	return (size_t)(p - buf);
}

size_t
framer_whole(const struct framer *f, const char *buf, size_t len)
{
	size_t i;

	if (f->bytes)
		return len;
	/* Search backwards: the last delimiter is usually near the end. */
	for (i = len; i > 0; i--)
		if ((unsigned char)buf[i - 1] == f->delim)
			return i;
	return 0;
}

/* Bytes of w equal to the byte in every lane of d, counted exactly. */
static size_t
count_in_word(uint64_t w, uint64_t d)
{
	const uint64_t low7 = 0x7f7f7f7f7f7f7f7fULL;
	uint64_t x = w ^ d, t;

	/* A lane's high bit ends up set iff the lane of x is zero; no carry
	 * crosses lanes, unlike the shorter "has a zero byte" test. */
	t = ~(((x & low7) + low7) | x | low7);
	/* Sum the lanes' high bits with one multiply. */
	return (size_t)(((t >> 7) * 0x0101010101010101ULL) >> 56);
}

size_t
framer_count(const struct framer *f, const char *buf, size_t len, bool final)
{
	uint64_t d = 0x0101010101010101ULL * (unsigned char)f->delim, w;
	size_t n = 0, i = 0;

	if (f->bytes)
		return len;
	/* Eight bytes at a time: counting lines is most of what pass-through
	 * costs. */
	for (; i + 8 <= len; i += 8) {
		memcpy(&w, buf + i, 8);
		n += count_in_word(w, d);
	}
	for (; i < len; i++)
		n += (unsigned char)buf[i] == f->delim;
	if (final && len > 0 && (unsigned char)buf[len - 1] != f->delim)
		n++;
	return n;
}
