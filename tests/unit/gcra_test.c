/* Unit tests of gcra.c: the one-word bucket that processes share. */
#include <inttypes.h>

#include "gcra.h"
#include "unit.h"

void
test_gcra(void)
{
	struct gcra g = { 1, NS, 3, 0 };
	int64_t tat = 0, at;
	int bad = 0;

	current = "gcra: the shared bucket's one-word form";
	tat = gcra_reserve(&g, tat, 0, 3, &at);
	check(at == 0 && tat == 3 * NS, "a full bucket: 3 at once");
	tat = gcra_reserve(&g, tat, 0, 1, &at);
	check(at == NS, "the fourth books 1 s: %" PRId64, at);
	check(gcra_avail(&g, tat, 0) == 0, "none left");
	check(gcra_avail(&g, tat, 2500 * MS) == 1, "one at 2.5 s");
	check(gcra_avail(&g, tat, 3600 * NS) == 3, "full after idle");
	tat = gcra_reserve(&g, tat, 3600 * NS, 1, &at);
	check(at == 3600 * NS, "idle credit is capped at the burst");

	/* 3 per 7 s, burst 1, all booked at 0: unit k goes at exactly
	 * ceil(k * 7 s / 3), the same schedule as the private bucket. */
	g = (struct gcra){ 3, 7 * NS, 1, 0 };
	tat = 0;
	for (int64_t k = 0; k < 100000; k++) {
		tat = gcra_reserve(&g, tat, 0, 1, &at);
		if (gcra_unscale(&g, 0, at) != (k * 7 * NS + 2) / 3)
			bad++;
	}
	check(bad == 0, "3/7s: %d of 100000 off the exact schedule", bad);
	check(gcra_scale(&g, 0, 10 * NS) == 30 * NS, "scale by n");

	/* Slowed from 1 s to 3 s a unit, burst 4, its span kept at 4 s:
	 * what was owed stays owed, and the slowed rate holds after. */
	g = (struct gcra){ 1, NS, 4, 0 };
	tat = gcra_reserve(&g, 0, 0, 3, &at); /* 3 of 4 taken at 0 */
	check(gcra_avail(&g, tat, 0) == 1, "one left at 1 s a unit");
	g = (struct gcra){ 1, 3 * NS, 4, 4 * NS };
	check(gcra_avail(&g, tat, 0) == 0, "slowed: none comes of it");
	check(gcra_avail(&g, tat, 3600 * NS) == 1,
	    "after idle, what 4 s hold at 3 s a unit: 1");
	tat = gcra_reserve(&g, tat, 0, 1, &at);
	check(at == 2 * NS,
	    "the next at 2 s (was 3 s owed, span 4 s, 3 s a unit): %" PRId64,
	    at);
	tat = gcra_reserve(&g, tat, 0, 1, &at);
	check(at == 5 * NS, "then 3 s apart: %" PRId64, at);
	/* Held until 10 s, slowed (3 s a unit, span 4 s): the first unit
	 * goes at 10 s, none before; a later state stays. */
	tat = gcra_empty_until(&g, 0, 10 * NS);
	check(gcra_avail(&g, tat, 10 * NS - 1) == 0, "none before 10 s");
	(void)gcra_reserve(&g, tat, 0, 1, &at);
	check(at == 10 * NS, "the first at 10 s: %" PRId64, at);
	check(gcra_empty_until(&g, 20 * NS, 10 * NS) == 20 * NS,
	    "a later state stays");
	g = (struct gcra){ 1, 5 * NS, 1, 0 };
	check(gcra_avail(&g, 0, 0) == 1 && gcra_reserve(&g, 0, 0, 1, &at) &&
		at == 0,
	    "a span shorter than a unit is one unit's");
	check(gcra_scale(&g, 0, INT64_MAX / 2) == -1, "out of range");
}
