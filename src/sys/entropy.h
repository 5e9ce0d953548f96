/* Random bytes from the kernel, for secrets: the key hash, Redis's session. */
#ifndef ENTROPY_H
#define ENTROPY_H

#include <stddef.h>

/*
 * n (at most 256) bytes at b from the kernel's random source, for what;
 * when it gives none, the process ends (exit 1) naming what: no secret
 * is better than a guessable one.
 */
void entropy_bytes(unsigned char *b, size_t n, const char *what);

#endif
