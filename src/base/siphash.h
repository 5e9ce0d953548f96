/* SipHash-2-4: a keyed hash that input cannot aim; pure, no I/O. */
#ifndef SIPHASH_H
#define SIPHASH_H

#include <stddef.h>
#include <stdint.h>

/* The 128-bit key: k[0] is its first 8 bytes read little-endian. */
struct siphash_key {
	uint64_t k[2];
};

/* The key of the 16 bytes b[0..16), read as the reference reads them. */
struct siphash_key siphash_key_of(const unsigned char b[16]);

/*
 * SipHash-2-4 of m[0..len) under key, as the algorithm's authors define
 * it (Aumasson and Bernstein, 2012): equal to their test vectors read as
 * little-endian 64-bit words.
 */
uint64_t siphash24(const struct siphash_key *key, const void *m, size_t len);

/* A 128-bit output: the first 8 bytes read little-endian, then the rest. */
struct siphash_tag {
	uint64_t w[2];
};

/*
 * SipHash-2-4 of 128-bit output (the variant its authors define beside
 * the 64-bit one, in their reference code) of m[0..len) under key: equal
 * to their test vectors read as two little-endian words.
 */
struct siphash_tag siphash24_128(
    const struct siphash_key *key, const void *m, size_t len);

#endif
