/* The wait between tries of one record: exponential, full jitter; pure. */
#include "backoff.h"

int64_t
backoff_ns(unsigned next, int64_t base_ns, int64_t max_ns, int64_t after_ns,
    uint64_t r)
{
	int64_t cap = base_ns, w;

	for (unsigned i = 2; i < next && cap < max_ns; i++)
		cap = cap > INT64_MAX / 2 ? INT64_MAX : cap * 2;
	if (cap > max_ns)
		cap = max_ns;
	/* 53 bits of r make a fraction in [0, 1): the wait is below cap. */
	w = cap <= 0 ? 0 : (int64_t)((double)(r >> 11) * 0x1p-53 * (double)cap);
	return after_ns > w ? after_ns : w;
}
