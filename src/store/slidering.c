/* The release times of a --shared sliding window, in its file's ring; pure. */
#include <stddef.h>

#include "slidering.h"

/* Where entry i is stamped. */
static int64_t *
entry(const struct slidering *r, uint64_t i)
{
	/* A window holds a unit at least: n is never 0.
	 * NOLINTNEXTLINE(clang-analyzer-core.DivideZero) */
	return &r->t[i % r->n];
}

/* a + b, for a and b in [0, max_ns]: stuck at max_ns past it. */
static int64_t
plus(const struct slidering *r, int64_t a, int64_t b)
{
	return b > r->max_ns - a ? r->max_ns : a + b;
}

/* Is t no stamp of a sound ring (no time of the file's)? */
static int
wild(const struct slidering *r, int64_t t)
{
	return t < 0 || t > r->max_ns;
}

int64_t
slidering_book(
    const struct slidering *r, uint64_t *head, int64_t now_ns, uint64_t units)
{
	uint64_t h = *head, end = h + units - 1;
	int64_t last = h > 0 ? *entry(r, h - 1) : 0, when = now_ns, e;

	if (wild(r, last))
		return -1;
	when = when > last ? when : last;
	/* The unit n before the last of them, read before its place is
	 * stamped: the latest of those n before any of them. */
	if (end >= r->n) {
		e = *entry(r, end - r->n);
		if (wild(r, e))
			return -1;
		e = plus(r, e, r->span_ns);
		when = when > e ? when : e;
	}
	for (uint64_t j = 0; j < units; j++)
		*entry(r, h + j) = when;
	*head = h + units;
	return when;
}

int
slidering_take(const struct slidering *r, uint64_t *head, int64_t now_ns,
    uint64_t max, uint64_t *got)
{
	uint64_t h = *head, k;
	int64_t last = h > 0 ? *entry(r, h - 1) : 0, e;

	*got = 0;
	if (wild(r, last))
		return -1;
	if (last > now_ns)
		return 0;
	/* Each unit reads the one n before it, of those held (k < n). */
	for (k = 0; k < max && k < r->n; k++) {
		if (h + k < r->n)
			continue;
		e = *entry(r, h + k - r->n);
		if (wild(r, e))
			return -1;
		if (plus(r, e, r->span_ns) > now_ns)
			break;
	}
	for (uint64_t j = 0; j < k; j++)
		*entry(r, h + j) = now_ns;
	*head = h + k;
	*got = k;
	return 0;
}

int
slidering_went(const struct slidering *r, uint64_t head, uint64_t lo,
    uint64_t hi, int64_t at_ns)
{
	uint64_t end;
	int64_t v = at_ns, t;

	/* Booked before a --reset: the ring holds others' units now. */
	if (hi > head || lo >= hi)
		return 0;
	/* Entry i is read, and its place stamped, by the booking of unit
	 * i + n: those booked already are past helping. */
	if (head - lo > r->n)
		lo = head - r->n;
	if (lo >= hi)
		return 0;
	/* Entries from end on stay: none may rise above the first. */
	end = head - hi > SLIDERING_RAISE_MAX ? hi + SLIDERING_RAISE_MAX : head;
	if (end < head) {
		t = *entry(r, end);
		if (wild(r, t))
			return -1;
		v = v < t ? v : t;
	}
	for (uint64_t i = lo; i < end; i++) {
		t = *entry(r, i);
		if (wild(r, t))
			return -1;
		/* In order: this one and all after it are late enough. */
		if (t >= v)
			break;
		*entry(r, i) = v;
	}
	return 0;
}

int64_t
slidering_reach(const struct slidering *r, int64_t now_ns, uint64_t spans)
{
	return (uint64_t)r->span_ns > (uint64_t)r->max_ns / spans ?
	    r->max_ns :
	    plus(r, now_ns, r->span_ns * (int64_t)spans);
}

int
slidering_check(const struct slidering *r, uint64_t head, int64_t most_ns)
{
	int64_t t;

	for (uint64_t i = head > r->n ? head - r->n : 0; i < head; i++)
		if ((t = *entry(r, i)) < 0 || t > most_ns)
			return -1;
	return 0;
}

int64_t
slidering_look(const struct slidering *r, uint64_t head, int64_t now_ns,
    uint64_t *recent, uint64_t *ahead, uint64_t *left)
{
	int64_t last = head > 0 ? *entry(r, head - 1) : 0, next = last, t;
	uint64_t k = 0;

	*recent = *ahead = 0;
	for (uint64_t i = head > r->n ? head - r->n : 0; i < head; i++) {
		t = *entry(r, i);
		*ahead += t > now_ns;
		*recent += t <= now_ns && t > now_ns - r->width_ns;
	}
	while (last <= now_ns && k < r->n &&
	    (head + k < r->n ||
		plus(r, *entry(r, head + k - r->n), r->span_ns) <= now_ns))
		k++;
	*left = k;
	if (head >= r->n) {
		t = plus(r, *entry(r, head - r->n), r->span_ns);
		next = next > t ? next : t;
	}
	return next > now_ns ? next : now_ns;
}
