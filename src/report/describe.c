/* The limits of a run as a person reads them, for the reports and --list. */
#include <stdio.h>
#include <string.h>

#include "describe.h"
#include "rate.h"

/* Limit l as a person reads it, into out; what it lets through at once. */
static uint64_t
describe_limit(const struct config *cfg, const struct limit *l, const char *per,
    char *out, size_t size)
{
	char rate[64];

	rate_format(&l->rate, cfg->mode == UNIT_BYTES, rate, sizeof rate);
	switch (cfg->algorithm) {
	case ALG_SLIDING:
		snprintf(out, size, "%s%s in any window", rate, per);
		return l->burst;
	case ALG_FIXED:
		snprintf(out, size, "%s%s per clock window%s%s", rate, per,
		    cfg->tz != NULL ? " of " : "",
		    cfg->tz != NULL ? cfg->tz : "");
		return 2 * l->burst; /* two windows meet at an edge */
	case ALG_LEAKY:
		snprintf(out, size, "%s%s, leaky", rate, per);
		return l->initial < l->burst ? l->initial : l->burst;
	default:
		/* What the bucket held at start (--initial) is all it let
		 * through at once. */
		snprintf(out, size, "%s%s, burst %llu", rate, per,
		    (unsigned long long)l->burst);
		return l->initial < l->burst ? l->initial : l->burst;
	}
}

/*
 * Every -r limit as a person reads it; the tightest in the long run is
 * the one the achieved rate is compared with.
 */
static void
describe_rates(
    const struct config *cfg, const struct limit *now, struct stats_limit *out)
{
	size_t n = 0;

	for (int i = 0; i < cfg->nlimits && n < sizeof out->text; i++) {
		char one[96];
		uint64_t allowance = describe_limit(cfg, &now[i],
		    cfg->key_field > 0 ? " per key" : "", one, sizeof one);
		double per_sec = rate_per_sec(&now[i].rate);

		n += (size_t)snprintf(out->text + n, sizeof out->text - n,
		    "%s%s", i > 0 ? " and " : "", one);
		if (i == 0 || per_sec < out->per_sec) {
			out->per_sec = per_sec;
			out->allowance = allowance;
		}
	}
	if (cfg->key_field > 0) {
		/* All keys together may go faster than one. */
		out->per_sec = 0;
		out->allowance = 0;
	}
	if (cfg->shared != NULL && n < sizeof out->text)
		(void)snprintf(out->text + n, sizeof out->text - n,
		    ", shared as %s", cfg->shared);
}

void
describe_limits(const struct config *cfg, const struct limit *now,
    size_t ntiers, struct stats_limit *out)
{
	size_t n = 0;

	*out = (struct stats_limit){ .text = "none" };
	if (cfg->tiers_file != NULL) {
		/* The file's name may be long: the count says enough. */
		n = (size_t)snprintf(out->text, sizeof out->text,
		    "%zu tier%s by key, else ", ntiers, ntiers == 1 ? "" : "s");
		if (cfg->nlimits == 0)
			n += (size_t)snprintf(
			    out->text + n, sizeof out->text - n, "dropped");
	}
	if (cfg->nlimits > 0) {
		struct stats_limit r;

		describe_rates(cfg, now, &r);
		(void)snprintf(
		    out->text + n, sizeof out->text - n, "%s", r.text);
		out->per_sec = r.per_sec;
		out->allowance = r.allowance;
		n = strlen(out->text);
	}
	if (cfg->total_limited) {
		/* Every key together: the rate the achieved one is held to. */
		char one[96];

		out->allowance = describe_limit(
		    cfg, &cfg->total_limit, " in all", one, sizeof one);
		out->per_sec = rate_per_sec(&cfg->total_limit.rate);
		n += (size_t)snprintf(out->text + n, sizeof out->text - n,
		    "%s%s", n > 0 ? "; " : "", one);
		if (n > sizeof out->text)
			n = sizeof out->text;
	}
	if (cfg->byte_limited) {
		char rate[64];

		rate_format(&cfg->byte_limit.rate, true, rate, sizeof rate);
		(void)snprintf(out->text + n, sizeof out->text - n,
		    "%sbytes %s, "
		    "burst %llu",
		    n > 0 ? "; " : "", rate,
		    (unsigned long long)cfg->byte_limit.burst);
	}
}
