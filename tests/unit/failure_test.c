/* Unit tests of failure.c: --retry-on's list and --halt's spec. */
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

static void
halt(void)
{
	struct halt h;
	char e[160];

	check(halt_parse("soon,fail=1", &h, e, sizeof e) == 0 &&
		h.when == HALT_SOON && h.fails == 1,
	    "soon,fail=1");
	check(halt_parse("now,fail=10%", &h, e, sizeof e) == 0 &&
		h.when == HALT_NOW && h.percent == 10,
	    "now,fail=10%%");
	check(halt_parse("2", &h, e, sizeof e) == 0 && h.when == HALT_NOW &&
		h.fails == 1,
	    "parallel's 2");
	check(halt_parse("never", &h, e, sizeof e) == 0 &&
		!halt_due(&h, 100, 100),
	    "never halts");
	static const char *bad[] = { "", "now", "soon,", "now,fail=0",
		"now,fail=101%", "now,fail=5%x", "later,fail=1", "3",
		"now,success=1", "soon,fail=-1" };
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		check(halt_parse(bad[i], &h, e, sizeof e) == -1,
		    "refused: '%s'", bad[i]);
	(void)halt_parse("soon,fail=3", &h, e, sizeof e);
	check(!halt_due(&h, 2, 50) && halt_due(&h, 3, 3), "after 3");
	(void)halt_parse("soon,fail=50%", &h, e, sizeof e);
	check(!halt_due(&h, 1, 1) && !halt_due(&h, 1, 2), "not before 3");
	check(halt_due(&h, 2, 4) && !halt_due(&h, 2, 5), "50 %% of ended");
}

void
test_failure(void)
{
	current = "--retry-on";
	retry_on();
	current = "--halt";
	halt();
}
