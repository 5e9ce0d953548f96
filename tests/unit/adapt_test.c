/* Unit tests of adapt.c and backoff.c: the learning rate, the waits. */
#include <math.h>

#include "adapt.h"
#include "backoff.h"
#include "unit.h"

/* The cuts: at most once a round trip, by ADAPT_BETA, never below the
 * floor; the climb back: to the rate of the last cut after K rounds, and
 * never past the ceiling. */
static void
cuts_and_climb(void)
{
	struct adapt a;
	double r;

	adapt_init(&a, 35);
	check(adapt_rate(&a, 0) == 35, "starts at the ceiling");
	check(adapt_refused(&a, 0, 10 * MS), "a refusal cuts");
	check(fabs(adapt_rate(&a, 10 * MS) - 35 * ADAPT_BETA) < 1e-9,
	    "to beta of it: %g", adapt_rate(&a, 10 * MS));
	/* Sent before the cut, heard after: no second cut. */
	check(!adapt_refused(&a, 5 * MS, 20 * MS), "once a round trip");
	check(a.refused == 2 && a.cuts == 1, "both heard, one cut");
	r = adapt_rate(&a, 10 * MS + (int64_t)(a.k_rounds * NS));
	check(fabs(r - 35) < 1e-6, "back to the peak after K: %g", r);
	check(adapt_rate(&a, 10 * MS + 3600 * NS) == 35, "never past -r");
	/* Climbing: never falls between cuts. */
	r = 0;
	for (int64_t t = 10 * MS; t < 20 * NS; t += 100 * MS) {
		check(adapt_rate(&a, t) >= r, "climbs at %lld", (long long)t);
		r = adapt_rate(&a, t);
	}
	/* Many refusals: the floor holds. */
	for (int i = 0; i < 200; i++)
		(void)adapt_refused(&a, 30 * NS + i * MS, 30 * NS + i * MS);
	check(adapt_rate(&a, 31 * NS) >= 35 * ADAPT_FLOOR, "floor holds");
}

/* A slow ceiling climbs in rounds of one unit: a day's limit is not
 * back to full a second after a cut. */
static void
slow_rounds(void)
{
	struct adapt a;

	adapt_init(&a, 10.0 / 86400);
	(void)adapt_refused(&a, 0, 0);
	check(adapt_rate(&a, 60 * NS) < 10.0 / 86400,
	    "a minute after a cut, still below the ceiling");
	adapt_set_ceiling(&a, 20.0 / 86400, NS);
	check(adapt_rate(&a, 2 * NS) < 20.0 / 86400 * 0.8, "scaled with -r");
}

/* The exact rate: never faster than asked, and it fits. */
static void
apply(void)
{
	uint64_t n = 35, d = NS;

	adapt_apply(&n, &d, 7, 3650ULL * 86400 * NS);
	check((double)n * 1e9 / (double)d <= 7 && n * 5 >= 35 - 1,
	    "7/s: %llu per %llu", (unsigned long long)n, (unsigned long long)d);
	n = 1000000000000ULL, d = 1000;
	adapt_apply(&n, &d, 1, 3650ULL * 86400 * NS);
	check((double)n * 1e9 / (double)d <= 1.0000001 &&
		(double)n * (double)d < 0x1p63,
	    "a huge rate slowed fits: %llu per %llu", (unsigned long long)n,
	    (unsigned long long)d);
	n = 3, d = NS;
	adapt_apply(&n, &d, 5, NS);
	check(n == 3 && d == NS, "never faster than the ceiling");
}

/* Processes sharing a bucket: a cut one made, as a word, puts another
 * at the same place on the same curve; an older cut is not taken. */
static void
shared_word(void)
{
	struct adapt a, b;
	uint64_t w;

	adapt_init(&a, 35);
	adapt_init(&b, 35);
	check(adapt_word(&a) == 0, "never cut: word 0");
	check(!adapt_adopt(&b, 0), "word 0 changes nothing");
	(void)adapt_refused(&a, 0, 1234567);
	w = adapt_word(&a);
	check(ADAPT_WORD_MS(w) == 3, "cut at 1.23 ms: ms 2, stored + 1");
	check(adapt_adopt(&a, w), "the cutter takes its word: rounded up");
	check(a.cut_ns == 2 * MS, "cut at %lld", (long long)a.cut_ns);
	check(!adapt_adopt(&a, w), "the same word again: nothing new");
	check(adapt_adopt(&b, w), "another process takes it");
	for (int64_t t = 2 * MS; t < 10 * NS; t += 77 * MS)
		check(fabs(adapt_rate(&a, t) - adapt_rate(&b, t)) < 1e-9,
		    "one curve at %lld: %g and %g", (long long)t,
		    adapt_rate(&a, t), adapt_rate(&b, t));
	check(fabs(adapt_rate(&b, 2 * MS) - 35 * ADAPT_BETA) < 1e-5,
	    "cut to beta: %g", adapt_rate(&b, 2 * MS));
	/* A refusal of a try sent before the fleet's cut cuts nothing. */
	check(!adapt_refused(&b, MS, 50 * MS), "sent before the cut");
	/* b cuts later: a takes it; a's older word is not taken by b. */
	check(adapt_refused(&b, 40 * MS, 60 * MS), "sent after it: cuts");
	check(!adapt_adopt(&b, w), "an older cut is not taken");
	check(adapt_adopt(&a, adapt_word(&b)), "the newer is");
	check(fabs(adapt_rate(&a, NS) - adapt_rate(&b, NS)) < 1e-3 * 35,
	    "the same rate again: %g and %g", adapt_rate(&a, NS),
	    adapt_rate(&b, NS));
	/* The floor's peak survives the word. */
	for (int i = 0; i < 100; i++)
		(void)adapt_refused(&a, NS + i * MS, NS + i * MS);
	adapt_init(&b, 35);
	check(adapt_adopt(&b, adapt_word(&a)) &&
		adapt_rate(&b, 2 * NS) >= 35 * ADAPT_FLOOR,
	    "at the floor: %g", adapt_rate(&b, 2 * NS));
}

/* Full jitter below the cap, doubling from the base; Retry-After least. */
static void
backoff(void)
{
	int64_t w, most = 0;

	for (int i = 0; i < 1000; i++) {
		w = backoff_ns(2, NS, 60 * NS, 0, rng());
		check(w >= 0 && w < NS, "try 2 waits below 1 s: %lld",
		    (long long)w);
		most = w > most ? w : most;
	}
	check(most > 900 * MS, "and spreads over it");
	check(backoff_ns(4, NS, 60 * NS, 0, UINT64_MAX) < 4 * NS &&
		backoff_ns(4, NS, 60 * NS, 0, UINT64_MAX) > 3 * NS,
	    "try 4: below 4 s");
	check(backoff_ns(40, NS, 60 * NS, 0, UINT64_MAX) < 60 * NS &&
		backoff_ns(4000, NS, 60 * NS, 0, UINT64_MAX) > 59 * NS,
	    "capped at the most, however many tries");
	check(backoff_ns(2, NS, 60 * NS, 5 * NS, 0) == 5 * NS,
	    "the server's Retry-After is the least");
	check(backoff_ns(2, 0, 0, 0, UINT64_MAX) == 0, "no delay: none");
}

void
test_adapt(void)
{
	current = "adapt: cuts and climb";
	cuts_and_climb();
	current = "adapt: slow rounds";
	slow_rounds();
	current = "adapt: the exact rate";
	apply();
	current = "adapt: a word shared";
	shared_word();
	current = "backoff";
	backoff();
}
