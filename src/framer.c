/* Record framing: where units end in a buffer; pure, no I/O. */
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

size_t
framer_count(const struct framer *f, const char *buf, size_t len, bool final)
{
	size_t n = 0;

	if (f->bytes)
		return len;
	/* A plain loop the compiler vectorizes: no branch per byte. */
	for (size_t i = 0; i < len; i++)
		n += (unsigned char)buf[i] == f->delim;
	if (final && len > 0 && (unsigned char)buf[len - 1] != f->delim)
		n++;
	return n;
}
