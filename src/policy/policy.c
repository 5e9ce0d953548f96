/* What the policies share: spans of whole units and building actions. */
#include "policy.h"

/* Bytes at b[0..len) taken by at most max units; at the end of input a
 * final record without a delimiter is a unit too. */
static size_t
span(const struct framer *f, const char *b, size_t len, bool at_eof, size_t max,
    size_t *units)
{
	size_t n = framer_span(f, b, len, max, units);

	if (at_eof && n < len && *units < max) {
		(*units)++;
		n = len;
	}
	return n;
}

size_t
policy_span(const struct framer *f, const char *b, size_t len, bool at_eof,
    size_t max, uint64_t room, size_t *units)
{
	size_t lim = room < len ? (size_t)room : len;
	size_t n = span(f, b, lim, at_eof && lim == len, max, units);

	if (*units == 0 && max > 0)
		n = span(f, b, len, at_eof, 1, units);
	return n;
}

size_t
policy_span_on(const struct framer *f, const char *b, size_t len, bool at_eof,
    size_t max, uint64_t room, size_t done, size_t done_units, size_t *units)
{
	size_t lim = room < len ? (size_t)room : len, n;

	*units = done_units;
	if (done_units == 0 || done_units > max || done > lim)
		return policy_span(f, b, len, at_eof, max, room, units);
	/* The units spanned end within lim: more whole units fit after them
	 * exactly as they would have from the start. */
	n = span(f, b + done, lim - done, at_eof && lim == len,
	    max - done_units, units);
	*units += done_units;
	return done + n;
}

void
policy_fail(struct action *a, const char *why)
{
	*a = (struct action){
		.kind = ACT_FAIL, .due_ns = INT64_MIN, .why = why
	};
}

void
policy_read(struct action *a)
{
	*a = (struct action){ .kind = ACT_READ, .due_ns = INT64_MIN };
}

void
policy_wait(struct action *a, int64_t due_ns, bool read)
{
	*a =
	    (struct action){ .kind = ACT_WAIT, .due_ns = due_ns, .read = read };
}

void
policy_move(struct action *a, enum act kind, size_t off, size_t bytes,
    uint64_t units, int64_t due_ns)
{
	*a = (struct action){ .kind = kind,
		.off = off,
		.bytes = bytes,
		.units = units,
		.due_ns = due_ns,
		.pass = kind != ACT_DROP };
}
