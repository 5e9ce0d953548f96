/* A time zone as a table of its UTC offsets, for calendar windows; pure. */
#include <stdio.h>
#include <stdlib.h>

#include "calendar.h"
#include "zonemap.h"

/* a + b, held at the ends of int64_t rather than wrapped. */
static int64_t
add_sat(int64_t a, int64_t b)
{
	if (b > 0 && a > INT64_MAX - b)
		return INT64_MAX;
	if (b < 0 && a < INT64_MIN - b)
		return INT64_MIN;
	return a + b;
}

/* The transitions at or before wall_ns: the index of the last, plus 1. */
static size_t
passed(const struct zonemap *z, int64_t wall_ns)
{
	size_t lo = 0, hi = z->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (z->at_ns[mid] <= wall_ns)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The offset of the span before transition k (k 0: before them all). */
static int64_t
offset_before(const struct zonemap *z, size_t k)
{
	return k == 0 ? z->base_off_ns : z->off_ns[k - 1];
}

int64_t
zonemap_offset(const struct zonemap *z, int64_t wall_ns)
{
	return z == NULL ? 0 : offset_before(z, passed(z, wall_ns));
}

int64_t
zonemap_next_change(const struct zonemap *z, int64_t wall_ns)
{
	size_t k;

	if (z == NULL || (k = passed(z, wall_ns)) == z->n)
		return INT64_MAX;
	return z->at_ns[k];
}

int64_t
zonemap_window_of(const struct zonemap *z, int64_t wall_ns, int64_t width_ns)
{
	return calendar_floor_div(
	    add_sat(wall_ns, zonemap_offset(z, wall_ns)), width_ns);
}

/* index * width_ns, held at the ends of int64_t. */
static int64_t
mul_sat(int64_t index, int64_t width_ns)
{
	if (index > INT64_MAX / width_ns)
		return INT64_MAX;
	if (index < INT64_MIN / width_ns)
		return INT64_MIN;
	return index * width_ns;
}

int64_t
zonemap_window_start(const struct zonemap *z, int64_t index, int64_t width_ns)
{
	int64_t local = mul_sat(index, width_ns), lo = INT64_MIN, off, t;

	if (z == NULL)
		return local;
	/* Span k runs from lo (transition k - 1) to transition k; its local
	 * times are [lo + off, end + off).  The first span that reaches
	 * local holds the first instant that does. */
	for (size_t k = 0; k <= z->n; k++) {
		off = offset_before(z, k);
		if (k == z->n || add_sat(z->at_ns[k], off) > local)
			break;
		lo = z->at_ns[k];
	}
	t = add_sat(local, -off);
	return t > lo ? t : lo;
}

int64_t
zonemap_window_reached(
    const struct zonemap *z, int64_t wall_ns, int64_t width_ns)
{
	int64_t local;
	size_t k;

	if (z == NULL)
		return calendar_floor_div(wall_ns, width_ns);
	/* The latest local time so far: now's, or the last nanosecond
	 * before a transition that set the clocks back. */
	local = add_sat(wall_ns, zonemap_offset(z, wall_ns));
	k = passed(z, wall_ns);
	for (size_t i = 0; i < k; i++) {
		int64_t before = add_sat(z->at_ns[i] - 1, offset_before(z, i));

		if (before > local)
			local = before;
	}
	return calendar_floor_div(local, width_ns);
}

int
zonemap_add(struct zonemap *z, int64_t at_ns, int64_t off_ns)
{
	int64_t *at, *off;

	if (z->n > 0 && at_ns <= z->at_ns[z->n - 1])
		return -1;
	if (off_ns == offset_before(z, z->n))
		return 0;
	if ((at = realloc(z->at_ns, (z->n + 1) * sizeof *at)) == NULL)
		return -1;
	z->at_ns = at;
	if ((off = realloc(z->off_ns, (z->n + 1) * sizeof *off)) == NULL)
		return -1;
	z->off_ns = off;
	z->at_ns[z->n] = at_ns;
	z->off_ns[z->n] = off_ns;
	z->n++;
	return 0;
}

int
zonemap_print(const struct zonemap *z, int64_t wall_ns, char *buf, size_t size)
{
	int64_t off_s = calendar_floor_div(
	    zonemap_offset(z, wall_ns), 1000000000);
	int64_t s = calendar_floor_div(wall_ns, 1000000000) + off_s, year;
	int64_t day_s = s - calendar_floor_div(s, 86400) * 86400;
	int64_t a = off_s < 0 ? -off_s : off_s;
	int month, day, n;

	calendar_civil_from_days(
	    calendar_floor_div(s, 86400), &year, &month, &day);
	n = snprintf(buf, size, "%04lld-%02d-%02dT%02d:%02d:%02d",
	    (long long)year, month, day, (int)(day_s / 3600),
	    (int)(day_s / 60 % 60), (int)(day_s % 60));
	if (n < 0 || (size_t)n >= size)
		return n;
	if (z == NULL)
		return n + snprintf(buf + n, size - (size_t)n, "Z");
	/* An offset of seconds (a zone's local mean time) keeps them. */
	if (a % 60 != 0)
		return n +
		    snprintf(buf + n, size - (size_t)n, "%c%02d:%02d:%02d",
			off_s < 0 ? '-' : '+', (int)(a / 3600),
			(int)(a / 60 % 60), (int)(a % 60));
	return n +
	    snprintf(buf + n, size - (size_t)n, "%c%02d:%02d",
		off_s < 0 ? '-' : '+', (int)(a / 3600), (int)(a / 60 % 60));
}

void
zonemap_free(struct zonemap *z)
{
	free(z->at_ns);
	free(z->off_ns);
	z->at_ns = z->off_ns = NULL;
	z->n = 0;
}
