/* Unit tests of failure.c: --retry-on's list. */
#include "failure.h"
#include "unit.h"

static void
retry_on(void)
{
	struct exitset s;
	char e[160];

	check(exitset_parse("75", &s, e, sizeof e) == 0 &&
		exitset_has(&s, 75) && !exitset_has(&s, 74) && !s.timeout,
	    "75 alone");
	check(exitset_parse("1-3,255,timeout", &s, e, sizeof e) == 0 &&
		exitset_has(&s, 1) && exitset_has(&s, 3) &&
		!exitset_has(&s, 4) && exitset_has(&s, 255) && s.timeout,
	    "ranges, 255 and timeout");
	check(!exitset_has(&s, 0) && !exitset_has(&s, 256) &&
		!exitset_has(&s, -1),
	    "0 and out of range never");
	static const char *bad[] = { "", "0", "256", "1-", "3-1", "75,", ",75",
		"75 ", "x", "timeouts", "1-256", "-1", "7 5" };
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		check(exitset_parse(bad[i], &s, e, sizeof e) == -1,
		    "refused: '%s'", bad[i]);
}

void
test_failure(void)
{
	current = "--retry-on";
	retry_on();
}
