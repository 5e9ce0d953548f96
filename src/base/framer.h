/* Record framing: where units end in a buffer; pure, no I/O. */
#ifndef FRAMER_H
#define FRAMER_H

#include <stdbool.h>
#include <stddef.h>

/* A unit is one byte, or one record ending with delim. */
struct framer {
	bool bytes;
	unsigned char delim;
};

/*
 * Bytes at the start of buf[0..len) taken by at most max whole units; the
 * number of units is stored in *units.  In byte mode every byte is a unit.
 * A record without its delimiter is not counted.
 */
size_t framer_span(const struct framer *f, const char *buf, size_t len,
    size_t max, size_t *units);

/*
 * Bytes at the start of buf[0..len) that end on a unit boundary, however
 * many units that is (the whole buffer in byte mode).
 */
size_t framer_whole(const struct framer *f, const char *buf, size_t len);

/*
 * Units in buf[0..len): delimiters, or bytes in byte mode; with final,
 * a last record without its delimiter counts too.
 */
size_t framer_count(
    const struct framer *f, const char *buf, size_t len, bool final);

#endif
