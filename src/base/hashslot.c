/* The slot of a key in a Redis Cluster: the cluster's own hash. */
#include <stdint.h>
#include <string.h>

#include "hashslot.h"

/* CRC16 with polynomial 0x1021, no reflection, starting at 0 (XMODEM). */
static uint16_t
crc16(const unsigned char *p, size_t len)
{
	uint16_t crc = 0;

	for (size_t i = 0; i < len; i++) {
		crc ^= (uint16_t)(p[i] << 8);
		for (int bit = 0; bit < 8; bit++)
			crc = (crc & 0x8000) != 0 ?
			    (uint16_t)((crc << 1) ^ 0x1021) :
			    (uint16_t)(crc << 1);
	}
	return crc;
}

unsigned
hashslot_of(const char *key, size_t len)
{
	const char *open = memchr(key, '{', len), *close;

	/* A tag counts only when it holds something: "{}" does not. */
	if (open != NULL &&
	    (close = memchr(open + 1, '}', len - (size_t)(open + 1 - key))) !=
		NULL &&
	    close > open + 1) {
		key = open + 1;
		len = (size_t)(close - key);
	}
	return crc16((const unsigned char *)key, len) % HASHSLOT_COUNT;
}
