/* Fuzz target: the rate and amount parsers, and their invariants. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rate.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char s[256], err[256];
	struct rate r;
	struct amount a;
	uint64_t u;

	if (size >= sizeof s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	for (int bytes = 0; bytes < 2; bytes++) {
		err[0] = '\0';
		if (rate_parse(s, bytes, &r, err, sizeof err) == 0) {
			/* The schedule's arithmetic needs n, d > 0 and
			 * n * d < 2^63, and a rate within the limits. */
			if (!r.inf &&
			    (r.n == 0 || r.d == 0 ||
				r.n > (uint64_t)INT64_MAX / r.d ||
				r.d / r.n > (uint64_t)RATE_MAX_INTERVAL_NS))
				abort();
		} else if (err[0] == '\0' || strchr(err, '\n') != NULL) {
			abort(); /* a reason, on one line */
		}
		if (rate_parse_amount(s, bytes, &a, err, sizeof err) == 0) {
			struct rate one = { false, 1, 1000000, 0, 0 };

			if (a.den == 0)
				abort();
			(void)rate_amount_units(&a, &one, &u);
			if (rate_parse(s, bytes, &r, err, sizeof err) == 0 &&
			    !r.inf)
				(void)rate_amount_units(&a, &r, &u);
		}
	}
	return 0;
}
