/* The slot of a key in a Redis Cluster; pure. */
#ifndef HASHSLOT_H
#define HASHSLOT_H

#include <stddef.h>

/* The slots of a Redis Cluster. */
#define HASHSLOT_COUNT 16384

/*
 * The slot of key[0..len): CRC16 (XMODEM) of its hash tag, the bytes
 * between its first '{' and the first '}' after it when there are some,
 * else of all of it; modulo HASHSLOT_COUNT.
 */
unsigned hashslot_of(const char *key, size_t len);

#endif
