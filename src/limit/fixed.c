/* Fixed windows: at most limit units per wall-clock-aligned window; pure. */
#include "fixed.h"
#include "zonemap.h"

void
fixed_init(struct fixed *f, uint64_t limit, int64_t width_ns,
    int64_t wall_offset_ns, int64_t catchup_ns)
{
	*f = (struct fixed){ .limit = limit,
		.width_ns = width_ns,
		.wall_offset_ns = wall_offset_ns,
		.catchup_ns = catchup_ns,
		.index = INT64_MIN,
		.used = 0 };
}

void
fixed_zone(struct fixed *f, const struct zonemap *z)
{
	f->zone = z;
}

int64_t
fixed_window_of(const struct fixed *f, int64_t t_ns)
{
	/* The latest window begun: through a fall back of the zone's clocks
	 * the window they had reached, never one of the hour repeated. */
	return zonemap_window_reached(
	    f->zone, t_ns + f->wall_offset_ns, f->width_ns);
}

int64_t
fixed_window_start(const struct fixed *f, int64_t i)
{
	return zonemap_window_start(f->zone, i, f->width_ns) -
	    f->wall_offset_ns;
}

static uint64_t
used_in(const struct fixed *f, int64_t i)
{
	return i == f->index ? f->used : 0;
}

int64_t
fixed_ready_at(const struct fixed *f, int64_t ready_ns, uint64_t units)
{
	int64_t i = fixed_window_of(f, ready_ns), start;

	if (i < f->index) /* never back into a window already used */
		i = f->index;
	if (used_in(f, i) + units > f->limit)
		return fixed_window_start(f, i + 1);
	start = fixed_window_start(f, i);
	return start > ready_ns ? start : ready_ns;
}

/* When units granted at now_ns are counted: their due time, if recent. */
static int64_t
charge_time(const struct fixed *f, int64_t ready_ns, int64_t now_ns)
{
	int64_t t = now_ns - f->catchup_ns,
		due = fixed_ready_at(f, ready_ns, 1);

	if (t < due)
		t = due;
	return t;
}

uint64_t
fixed_avail(const struct fixed *f, int64_t ready_ns, int64_t now_ns)
{
	int64_t t = charge_time(f, ready_ns, now_ns);

	/* Due later than now, and than the window a release went in began
	 * (fixed_went): that time is known to have come. */
	if (t > now_ns &&
	    (f->index == INT64_MIN || t > fixed_window_start(f, f->index)))
		return 0;
	return f->limit - used_in(f, fixed_window_of(f, t));
}

uint64_t
fixed_take(struct fixed *f, int64_t ready_ns, int64_t now_ns, uint64_t max)
{
	uint64_t got = fixed_avail(f, ready_ns, now_ns);
	int64_t i;

	if (got > max)
		got = max;
	if (got == 0)
		return 0;
	i = fixed_window_of(f, charge_time(f, ready_ns, now_ns));
	f->used = used_in(f, i) + got;
	f->index = i;
	return got;
}

void
fixed_went(struct fixed *f, uint64_t units, int64_t at_ns)
{
	int64_t i = fixed_window_of(f, at_ns);

	/* Nothing is charged to a window before the last one again: the
	 * units leave its count for the later one's. */
	if (units == 0 || f->index == INT64_MIN || i <= f->index)
		return;
	f->index = i;
	f->used = units < f->limit ? units : f->limit;
}
