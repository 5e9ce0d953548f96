/* SipHash-2-4: a keyed hash that input cannot aim; pure, no I/O. */
#include <stdbool.h>
#include <string.h>

#include "siphash.h"

#define ROTL(x, b) (((x) << (b)) | ((x) >> (64 - (b))))

/* The 8 bytes at p as a little-endian word, whatever the host's order. */
static uint64_t
le64(const unsigned char *p)
{
	uint64_t w = 0;

	for (int i = 7; i >= 0; i--)
		w = w << 8 | p[i];
	return w;
}

/* One SipRound on the state v[0..4). */
static void
sipround(uint64_t v[4])
{
	v[0] += v[1];
	v[1] = ROTL(v[1], 13);
	v[1] ^= v[0];
	v[0] = ROTL(v[0], 32);
	v[2] += v[3];
	v[3] = ROTL(v[3], 16);
	v[3] ^= v[2];
	v[0] += v[3];
	v[3] = ROTL(v[3], 21);
	v[3] ^= v[0];
	v[2] += v[1];
	v[1] = ROTL(v[1], 17);
	v[1] ^= v[2];
	v[2] = ROTL(v[2], 32);
}

/* Two rounds per message word (the 2 of 2-4). */
static void
compress(uint64_t v[4], uint64_t m)
{
	v[3] ^= m;
	sipround(v);
	sipround(v);
	v[0] ^= m;
}

struct siphash_key
siphash_key_of(const unsigned char b[16])
{
	struct siphash_key key = { { le64(b), le64(b + 8) } };

	return key;
}

/*
 * The state of SipHash-2-4 under key after m[0..len), its last word and
 * length taken; with wide, of the variant of 128-bit output.
 */
static void
absorb(uint64_t v[4], const struct siphash_key *key, const void *m, size_t len,
    bool wide)
{
	const unsigned char *p = m;
	unsigned char last[8] = { 0 };
	size_t i = 0;

	v[0] = key->k[0] ^ 0x736f6d6570736575ULL; /* "somepseu" */
	v[1] = key->k[1] ^ 0x646f72616e646f6dULL; /* "dorandom" */
	v[2] = key->k[0] ^ 0x6c7967656e657261ULL; /* "lygenera" */
	v[3] = key->k[1] ^ 0x7465646279746573ULL; /* "tedbytes" */
	if (wide)
		v[1] ^= 0xee;
	for (; len - i >= 8; i += 8)
		compress(v, le64(p + i));
	/* The last word: the bytes left, then the length's low byte on top. */
	if (len > i)
		memcpy(last, p + i, len - i);
	last[7] = (unsigned char)len;
	compress(v, le64(last));
}

/* Four rounds after marking v[2] with mark (the 4 of 2-4): a word out. */
static uint64_t
finish(uint64_t v[4], unsigned mark)
{
	v[2] ^= mark;
	for (int r = 0; r < 4; r++)
		sipround(v);
	return v[0] ^ v[1] ^ v[2] ^ v[3];
}

uint64_t
siphash24(const struct siphash_key *key, const void *m, size_t len)
{
	uint64_t v[4];

	absorb(v, key, m, len, false);
	return finish(v, 0xff);
}

struct siphash_tag
siphash24_128(const struct siphash_key *key, const void *m, size_t len)
{
	struct siphash_tag tag;
	uint64_t v[4];

	absorb(v, key, m, len, true);
	tag.w[0] = finish(v, 0xee);
	/* The second word: v[1] marked, and four rounds more. */
	v[1] ^= 0xdd;
	tag.w[1] = finish(v, 0);
	return tag;
}
