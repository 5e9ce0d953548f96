/* What counts as a failure worth another try, and when a run halts; pure. */
#include <stdio.h>
#include <string.h>

#include "failure.h"

/* Digits at *p as a number up to max; false when none or too large. */
static bool
number(const char **p, uint64_t max, uint64_t *out)
{
	uint64_t n = 0;

	if (**p < '0' || **p > '9')
		return false;
	for (; **p >= '0' && **p <= '9'; (*p)++) {
		n = n * 10 + (uint64_t)(**p - '0');
		if (n > max)
			return false;
	}
	*out = n;
	return true;
}

/* One item of a list: N, N-M or timeout, ending at a comma or the end. */
static bool
item(const char **p, struct exitset *set)
{
	uint64_t lo, hi;

	if (strncmp(*p, "timeout", 7) == 0) {
		*p += 7;
		set->timeout = true;
		return **p == ',' || **p == '\0';
	}
	if (!number(p, 255, &lo) || lo == 0)
		return false;
	hi = lo;
	if (**p == '-') {
		(*p)++;
		if (!number(p, 255, &hi) || hi < lo)
			return false;
	}
	for (uint64_t st = lo; st <= hi; st++)
		set->bits[st / 64] |= (uint64_t)1 << (st % 64);
	return **p == ',' || **p == '\0';
}

int
exitset_parse(const char *s, struct exitset *out, char *err, size_t errsz)
{
	const char *p = s;

	*out = (struct exitset){ 0 };
	for (;;) {
		if (!item(&p, out)) {
			snprintf(err, errsz,
			    "give exit statuses 1-255 or ranges of them, and "
			    "timeout, separated by commas (e.g. 75 or 75,111 "
			    "or 1-254,timeout)");
			return -1;
		}
		if (*p == '\0')
			return 0;
		p++;
	}
}

bool
exitset_has(const struct exitset *set, int st)
{
	if (st <= 0 || st > 255)
		return false;
	return (set->bits[st / 64] >> (st % 64) & 1) != 0;
}

/* fail=N or fail=P% at p, into h; false when it is neither. */
static bool
fail_spec(const char *p, struct halt *h)
{
	uint64_t n;

	if (strncmp(p, "fail=", 5) != 0)
		return false;
	p += 5;
	if (!number(&p, UINT64_MAX / 10, &n) || n == 0)
		return false;
	if (*p == '%') {
		if (n > 100 || p[1] != '\0')
			return false;
		h->percent = (unsigned)n;
		return true;
	}
	h->fails = n;
	return *p == '\0';
}

int
halt_parse(const char *s, struct halt *out, char *err, size_t errsz)
{
	*out = (struct halt){ HALT_NEVER, 0, 0 };
	if (strcmp(s, "never") == 0 || strcmp(s, "0") == 0)
		return 0;
	if (strcmp(s, "1") == 0 || strcmp(s, "2") == 0) {
		*out = (struct halt){ s[0] == '1' ? HALT_SOON : HALT_NOW, 1,
			0 };
		return 0;
	}
	if (strncmp(s, "now,", 4) == 0 && fail_spec(s + 4, out)) {
		out->when = HALT_NOW;
		return 0;
	}
	if (strncmp(s, "soon,", 5) == 0 && fail_spec(s + 5, out)) {
		out->when = HALT_SOON;
		return 0;
	}
	*out = (struct halt){ HALT_NEVER, 0, 0 };
	snprintf(err, errsz,
	    "give now or soon, then fail=N or fail=P%% (e.g. soon,fail=1 or "
	    "now,fail=10%%), or never");
	return -1;
}

bool
halt_due(const struct halt *h, uint64_t failed, uint64_t ended)
{
	if (h->when == HALT_NEVER || failed == 0)
		return false;
	if (h->percent == 0)
		return failed >= h->fails;
	return ended >= HALT_PERCENT_FROM &&
	    failed * 100 >= (uint64_t)h->percent * ended;
}
