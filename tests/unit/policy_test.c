/* The spans of whole units that policies release, resumed or not. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "policy.h"
#include "unit.h"

/*
 * Shape books a span, then releases a span of at least as many units from
 * the same view: resuming from the booked span must give what spanning
 * from the start gives, whatever the limits on units and bytes.
 */
void
test_policy_span(void)
{
	char b[256];

	current = "policy_span_on";
	for (int i = 0; i < 20000; i++) {
		struct framer f = { rng_below(8) == 0, '\n' };
		size_t len = (size_t)rng_below(sizeof b + 1);
		size_t dense = 1 + (size_t)rng_below(40);
		bool eof = rng_below(2) == 0;
		size_t max1 = 1 + (size_t)rng_below(50);
		size_t max2 = (size_t)rng_below(60);
		uint64_t room1 = rng_below(300), room2 = rng_below(300);
		size_t u1, u2, uw, n1, n2, want;

		for (size_t k = 0; k < len; k++)
			b[k] = rng_below(dense) == 0 ? '\n' : 'x';
		if (rng_below(4) == 0)
			room2 = UINT64_MAX;
		n1 = policy_span(&f, b, len, eof, max1, room1, &u1);
		want = policy_span(&f, b, len, eof, max2, room2, &uw);
		n2 = policy_span_on(&f, b, len, eof, max2, room2, n1, u1, &u2);
		check(n2 == want && u2 == uw,
		    "case %d: len %zu eof %d booked %zu/%zu (max %zu room "
		    "%llu), then max %zu room %llu: %zu/%zu, want %zu/%zu",
		    i, len, eof, n1, u1, max1, (unsigned long long)room1, max2,
		    (unsigned long long)room2, n2, u2, want, uw);
	}
}
