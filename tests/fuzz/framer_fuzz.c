/*
 * Fuzz target: record framing under random chunking.  The input is cut
 * into chunks whose sizes come from the input itself, fed through a small
 * buffer the way the pump feeds its own, and the records that come out
 * must be exactly the records of the whole input, in order.  Over the
 * whole input at once, the framer must agree with byte-at-a-time loops.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "framer.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define BUF 64

/* Records of b[0..len) with framer_count over the whole at once. */
static size_t
whole_count(const struct framer *f, const char *b, size_t len)
{
	size_t n = 0;

	for (size_t i = 0; i < len; i++)
		n += (unsigned char)b[i] == f->delim;
	return n;
}

/* Bytes of b up to its k-th delimiter, which must be there. */
static size_t
end_of(const struct framer *f, const char *b, size_t k)
{
	size_t i = 0;

	for (; k > 0; i++)
		k -= (unsigned char)b[i] == f->delim;
	return i;
}

/* framer_span and framer_whole over the whole input, against end_of. */
static void
check_whole(const struct framer *f, const char *in, size_t len, size_t seed)
{
	size_t n = whole_count(f, in, len);
	const size_t maxes[] = { 0, 1, 2, seed % (n + 2), n, n + 1, SIZE_MAX };

	if (framer_whole(f, in, len) != end_of(f, in, n))
		abort();
	for (size_t i = 0; i < sizeof maxes / sizeof maxes[0]; i++) {
		size_t u, want = maxes[i] < n ? maxes[i] : n;

		if (framer_span(f, in, len, maxes[i], &u) !=
			end_of(f, in, want) ||
		    u != want)
			abort();
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct framer f;
	char buf[BUF], *out;
	const char *in;
	size_t len, pos = 0, head = 0, tail = 0, outlen = 0, units = 0, seed;

	if (size < 2)
		return 0;
	f.bytes = false;
	f.delim = data[0];
	seed = data[1];
	in = (const char *)data + 2;
	len = size - 2;
	if ((out = malloc(len + 1)) == NULL)
		return 0;
	if (framer_count(&f, in, len, false) != whole_count(&f, in, len))
		abort();
	check_whole(&f, in, len, seed);
	while (pos < len || head < tail) {
		size_t n, u, chunk;

		/* Release whole records, up to seed-chosen counts. */
		n = framer_span(&f, buf + head, tail - head, seed % 4 + 1, &u);
		if (n > 0 && (unsigned char)buf[head + n - 1] != f.delim)
			abort(); /* a span ends on a delimiter */
		if (framer_count(&f, buf + head, n, false) != u)
			abort();
		memcpy(out + outlen, buf + head, n);
		outlen += n;
		units += u;
		head += n;
		seed = seed * 1103515245 + 12345;
		if (n > 0)
			continue;
		if (tail - head == BUF) {
			/* A record longer than the buffer: pass it on. */
			memcpy(out + outlen, buf + head, BUF);
			outlen += BUF;
			head = tail = 0;
			continue;
		}
		if (pos == len) {
			/* The last record, without its delimiter. */
			if (framer_count(&f, buf + head, tail - head, true) !=
			    1)
				abort();
			memcpy(out + outlen, buf + head, tail - head);
			outlen += tail - head;
			head = tail;
			break;
		}
		memmove(buf, buf + head, tail - head);
		tail -= head;
		head = 0;
		chunk = (seed >> 16) % (BUF - tail) + 1;
		if (chunk > len - pos)
			chunk = len - pos;
		memcpy(buf + tail, in + pos, chunk);
		tail += chunk;
		pos += chunk;
	}
	if (outlen != len || memcmp(out, in, len) != 0)
		abort();
	free(out);
	return 0;
}
