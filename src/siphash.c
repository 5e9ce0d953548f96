/* SipHash-2-4: a keyed hash that input cannot aim; pure, no I/O. */
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

uint64_t
siphash24(const struct siphash_key *key, const void *m, size_t len)
{
	const unsigned char *p = m;
	unsigned char last[8] = { 0 };
	uint64_t v[4] = {
		key->k[0] ^ 0x736f6d6570736575ULL, /* "somepseu" */
		key->k[1] ^ 0x646f72616e646f6dULL, /* "dorandom" */
		key->k[0] ^ 0x6c7967656e657261ULL, /* "lygenera" */
		key->k[1] ^ 0x7465646279746573ULL, /* "tedbytes" */
	};
	size_t i = 0;

	for (; len - i >= 8; i += 8)
		compress(v, le64(p + i));
	/* The last word: the bytes left, then the length's low byte on top. */
	if (len > i)
		memcpy(last, p + i, len - i);
	last[7] = (unsigned char)len;
	compress(v, le64(last));
	/* Four rounds to finish (the 4 of 2-4). */
	v[2] ^= 0xff;
	for (int r = 0; r < 4; r++)
		sipround(v);
	return v[0] ^ v[1] ^ v[2] ^ v[3];
}
