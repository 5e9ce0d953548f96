/* Record framing: where units end in a buffer; pure, no I/O. */
#include <stdint.h>
#include <string.h>

#include "framer.h"

/*
 * Passing lines when no limit binds costs little more than finding their
 * delimiters, so the search goes a block of 64 bytes at a time.  Four
 * primitives know a block: how many delimiters it holds, the count over
 * many blocks, and where its k-th and its last delimiter end.  SSE2,
 * which every x86-64 has, does them 16 bytes to an instruction; elsewhere
 * they work on 8-byte words, which needs nothing of the compiler
 * (-DFRAMER_PORTABLE builds those on x86-64 too, to test them).
 */
#define BLOCK 64
#define RUN 16

#if defined(__SSE2__) && !defined(FRAMER_PORTABLE)
#include <emmintrin.h>

/* Lanes of the 16 bytes at p: 0xff where the byte is d, else 0. */
static __m128i
eq16(const unsigned char *p, __m128i dv)
{
	return _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)p), dv);
}

/* Bit j of the mask is set iff p[j] == d, for the block at p. */
static uint64_t
block_mask(const unsigned char *p, unsigned char d)
{
	const __m128i dv = _mm_set1_epi8((char)d);

	return (uint64_t)(uint16_t)_mm_movemask_epi8(eq16(p, dv)) |
	    (uint64_t)(uint16_t)_mm_movemask_epi8(eq16(p + 16, dv)) << 16 |
	    (uint64_t)(uint16_t)_mm_movemask_epi8(eq16(p + 32, dv)) << 32 |
	    (uint64_t)(uint16_t)_mm_movemask_epi8(eq16(p + 48, dv)) << 48;
}

/* Minus the delimiters in each lane of the block, from -4 to 0. */
static __m128i
block_sum(const unsigned char *p, __m128i dv)
{
	return _mm_add_epi8(_mm_add_epi8(eq16(p, dv), eq16(p + 16, dv)),
	    _mm_add_epi8(eq16(p + 32, dv), eq16(p + 48, dv)));
}

/* The sum of the 16 lanes of counts. */
static unsigned
lanes_sum(__m128i counts)
{
	__m128i s = _mm_sad_epu8(counts, _mm_setzero_si128());

	return (unsigned)_mm_cvtsi128_si32(s) +
	    (unsigned)_mm_cvtsi128_si32(_mm_srli_si128(s, 8));
}

/*
 * Delimiters in blocks blocks at p, counted per lane: 63 blocks add at
 * most 252 to a lane before the lanes are summed.  A sum of differences
 * (_mm_sad_epu8) adds the lanes, where a popcount would be a libgcc call
 * unless the CPU's own is assumed.
 */
static size_t
count_blocks(const unsigned char *p, size_t blocks, unsigned char d)
{
	const __m128i dv = _mm_set1_epi8((char)d);
	size_t n = 0;

	while (blocks > 0) {
		size_t run = blocks < 63 ? blocks : 63;
		__m128i acc = _mm_setzero_si128();

		blocks -= run;
		for (; run > 0; run--, p += BLOCK)
			acc = _mm_sub_epi8(acc, block_sum(p, dv));
		n += lanes_sum(acc);
	}
	return n;
}

static unsigned
block_count(const unsigned char *p, unsigned char d)
{
	return lanes_sum(_mm_sub_epi8(
	    _mm_setzero_si128(), block_sum(p, _mm_set1_epi8((char)d))));
}

/* Bytes of the block up to its k-th delimiter, 0 < k <= its count. */
static unsigned
block_nth(const unsigned char *p, unsigned char d, size_t k)
{
	uint64_t m = block_mask(p, d);

	while (--k > 0)
		m &= m - 1; /* drop the lowest match */
	return (unsigned)__builtin_ctzll(m) + 1;
}

/* Bytes of the block up to its last delimiter; 0 if it has none. */
static unsigned
block_last(const unsigned char *p, unsigned char d)
{
	uint64_t m = block_mask(p, d);

	return m == 0 ? 0 : BLOCK - (unsigned)__builtin_clzll(m);
}

#else

/* High bit of each byte of the word at p set iff that byte equals d's,
 * exactly: no carry crosses lanes, unlike the "has a zero byte" test. */
static uint64_t
word_eq(const unsigned char *p, uint64_t dd)
{
	const uint64_t low7 = 0x7f7f7f7f7f7f7f7fULL;
	uint64_t x;

	memcpy(&x, p, 8);
	x ^= dd;
	return ~(((x & low7) + low7) | x | low7);
}

static unsigned
block_count(const unsigned char *p, unsigned char d)
{
	uint64_t dd = 0x0101010101010101ULL * d, acc = 0;

	for (int j = 0; j < BLOCK; j += 8)
		acc += word_eq(p + j, dd) >> 7;
	/* Eight lanes of at most 8 each: one multiply sums them. */
	return (unsigned)((acc * 0x0101010101010101ULL) >> 56);
}

static size_t
count_blocks(const unsigned char *p, size_t blocks, unsigned char d)
{
	size_t n = 0;

	for (; blocks > 0; blocks--, p += BLOCK)
		n += block_count(p, d);
	return n;
}

/* Found by bytes, which leaves the words' byte order out of it. */
static unsigned
block_nth(const unsigned char *p, unsigned char d, size_t k)
{
	unsigned j = 0;

	while (p[j] != d || --k > 0)
		j++;
	return j + 1;
}

static unsigned
block_last(const unsigned char *p, unsigned char d)
{
	unsigned j = BLOCK;

	if (block_count(p, d) == 0)
		return 0;
	while (p[j - 1] != d)
		j--;
	return j;
}

#endif

size_t
framer_span(const struct framer *f, const char *buf, size_t len, size_t max,
    size_t *units)
{
	const unsigned char *p = (const unsigned char *)buf, d = f->delim;
	size_t n = 0, i = 0, c;

	if (f->bytes) {
		*units = len < max ? len : max;
		return *units;
	}
	*units = 0;
	if (max == 0 || len == 0)
		return 0;
	if (max == 1) {
		/* One record, as the per-key and long-record paths ask:
		 * libc's memchr, tuned for the machine, finds it soonest. */
		const unsigned char *q = memchr(p, d, len);

		if (q == NULL)
			return 0;
		*units = 1;
		return (size_t)(q - p) + 1;
	}
	/* While more than RUN blocks could hold is still wanted, count runs
	 * of blocks with no check between them. */
	for (; max - n > RUN * BLOCK && len - i >= RUN * BLOCK;
	     i += RUN * BLOCK)
		n += count_blocks(p + i, RUN, d);
	for (; i + BLOCK <= len; i += BLOCK) {
		if ((c = block_count(p + i, d)) >= max - n) {
			*units = max;
			return i + block_nth(p + i, d, max - n);
		}
		n += c;
	}
	for (; i < len; i++)
		if (p[i] == d && ++n == max) {
			*units = max;
			return i + 1;
		}
	/* Fewer than max: all of them, up to the last. */
	*units = n;
	return n == 0 ? 0 : framer_whole(f, buf, len);
}

size_t
framer_whole(const struct framer *f, const char *buf, size_t len)
{
	const unsigned char *p = (const unsigned char *)buf, d = f->delim;
	size_t i = len;
	unsigned k;

	if (f->bytes)
		return len;
	/* Search backwards, a block ending at i at a time: the last
	 * delimiter is usually near the end. */
	for (; i >= BLOCK; i -= BLOCK)
		if ((k = block_last(p + i - BLOCK, d)) != 0)
			return i - BLOCK + k;
	for (; i > 0; i--)
		if (p[i - 1] == d)
			return i;
	return 0;
}

size_t
framer_count(const struct framer *f, const char *buf, size_t len, bool final)
{
	const unsigned char *p = (const unsigned char *)buf, d = f->delim;
	size_t n, i = len - len % BLOCK;

	if (f->bytes)
		return len;
	n = count_blocks(p, len / BLOCK, d);
	for (; i < len; i++)
		n += p[i] == d;
	if (final && len > 0 && p[len - 1] != d)
		n++;
	return n;
}
