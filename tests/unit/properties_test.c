/* Property tests: random arrivals on every algorithm, shaped and policed. */
#include <stdbool.h>
#include <stdio.h>

#include "bucket.h"
#include "fixed.h"
#include "gcra.h"
#include "keys.h"
#include "limiter.h"
#include "window.h"
#include "unit.h"

enum palg { P_TOKEN, P_LEAKY, P_SLIDING, P_FIXED, P_SET, P_KEYS, P_GCRA,
	P_NALG };
static const char *const palg_name[] = { "token", "leaky", "sliding",
	"fixed", "token+token", "per-key", "shared (gcra)" };

/* A limiter on the one-word shared bucket, without the file. */
struct pgcra {
	struct gcra g;
	int64_t tat;
};

static int64_t
pg_ready_at(const void *self, int64_t ready_ns, uint64_t units)
{
	const struct pgcra *p = self;
	int64_t at;

	(void)gcra_reserve(&p->g, p->tat, gcra_scale(&p->g, 0, ready_ns),
	    units, &at);
	return gcra_unscale(&p->g, 0, at);
}

static uint64_t
pg_avail(const void *self, int64_t ready_ns, int64_t now_ns)
{
	const struct pgcra *p = self;

	(void)ready_ns;
	return gcra_avail(&p->g, p->tat, gcra_scale(&p->g, 0, now_ns));
}

static uint64_t
pg_take(void *self, int64_t ready_ns, int64_t now_ns, uint64_t max)
{
	struct pgcra *p = self;
	int64_t now = gcra_scale(&p->g, 0, now_ns), at;
	uint64_t got = gcra_avail(&p->g, p->tat, now);

	(void)ready_ns;
	if (got > max)
		got = max;
	if (got > 0)
		p->tat = gcra_reserve(&p->g, p->tat, now, got, &at);
	return got;
}

/* Most releases in any window [t, t + width) of sorted rel[0..count). */
static int
most_in_window(const int64_t *rel, int count, int64_t width)
{
	int best = 0;

	for (int i = 0, j = 0; j < count; j++) {
		while (rel[j] - rel[i] >= width)
			i++;
		if (j - i + 1 > best)
			best = j - i + 1;
	}
	return best;
}

void
test_properties(void)
{
	int cases = 0, bad_bound = 0, bad_order = 0, bad_count = 0;
	char first[80] = "";

	current = "properties: random arrivals on every algorithm";
	for (int c = 0; c < 6000; c++) {
		enum palg alg = (enum palg)(c % P_NALG);
		bool police = (c / P_NALG) % 2;
		uint64_t n = 1 + rng_below(100);
		uint64_t d = (1 + rng_below(200)) * (rng_below(2) ? MS : US);
		uint64_t burst = alg == P_LEAKY ? 1 : 1 + rng_below(12);
		int64_t catchup = alg == P_SLIDING || alg == P_FIXED ||
		    alg == P_GCRA || police ? 0 :
		    (int64_t)rng_below(3) * MS;
		int count = 120, keys = alg == P_KEYS ? 3 : 1;
		int64_t arrive[120], rel[120], krel[3][120], now = 0, t = 0;
		int64_t ready = 0;
		int key[120], nrel = 0, kn[3] = { 0, 0, 0 }, dropped = 0;
		struct bucket b[2];
		struct window w;
		struct fixed fx;
		struct keytab kt;
		struct pgcra pg;
		struct limiter l, members[2];
		struct limiter_set set;
		int64_t width = (int64_t)(burst * d / n);

		if (width < 1)
			width = 1;
		switch (alg) {
		case P_TOKEN:
		case P_LEAKY:
			bucket_init(&b[0], n, d, burst, burst, 0);
			bucket_set_catchup(&b[0], catchup);
			limiter_of_bucket(&l, &b[0]);
			break;
		case P_SLIDING:
			(void)window_init(&w, burst, width, 0);
			limiter_of_window(&l, &w);
			break;
		case P_FIXED:
			fixed_init(&fx, burst, width,
			    (int64_t)rng_below((uint64_t)width), 0);
			limiter_of_fixed(&l, &fx);
			break;
		case P_SET:
			bucket_init(&b[0], n, d, burst, burst, 0);
			bucket_init(&b[1], 2 * n, d, 2, 2, 0);
			bucket_set_catchup(&b[0], catchup);
			bucket_set_catchup(&b[1], catchup);
			limiter_of_bucket(&members[0], &b[0]);
			limiter_of_bucket(&members[1], &b[1]);
			set = (struct limiter_set){ members, 2 };
			limiter_of_set(&l, &set);
			break;
		case P_KEYS:
			bucket_init(&b[0], n, d, burst, burst, 0);
			bucket_set_catchup(&b[0], catchup);
			(void)keytab_init(&kt, &b[0], 1000, (uint64_t)c, 0);
			limiter_of_keys(&l, &kt);
			break;
		case P_GCRA:
			pg = (struct pgcra){ { n, d, burst }, 0 };
			l = (struct limiter){ &pg, pg_ready_at, pg_avail,
			    pg_take, NULL };
			break;
		case P_NALG:
			break;
		}
		for (int i = 0; i < count; i++) {
			if (rng_below(4) == 0)
				t += (int64_t)rng_below(2 * d / n + 1);
			arrive[i] = t;
			key[i] = (int)rng_below((uint64_t)keys);
		}
		for (int i = 0; i < count; i++) {
			char kc = (char)('a' + key[i]);

			if (police) {
				if (alg == P_KEYS)
					keytab_select(&kt, &kc, 1, arrive[i]);
				/* Judged on arrival; conservation below. */
				if (limiter_take(&l, arrive[i], arrive[i], 1) ==
				    1) {
					rel[nrel++] = arrive[i];
					krel[key[i]][kn[key[i]]++] = arrive[i];
				} else {
					dropped++;
				}
				continue;
			}
			/* Shaped, as the pump does: units wait since the
			 * backlog began (ready), each for its due time; the
			 * waker is sometimes late. */
			if (arrive[i] > now)
				now = ready = arrive[i];
			if (alg == P_KEYS)
				keytab_select(&kt, &kc, 1, now);
			{
				int64_t due = limiter_ready_at(&l, ready, 1);

				if (due > now)
					now = due + (rng_below(4) == 0 ?
					    (int64_t)rng_below(3 * MS) : 0);
				if (limiter_take(&l, ready, now, 1) != 1 ||
				    now < due || now < arrive[i])
					bad_order++;
			}
			if (nrel > 0 && now < rel[nrel - 1])
				bad_order++;
			rel[nrel++] = now;
			krel[key[i]][kn[key[i]]++] = now;
		}
		if (nrel + dropped != count)
			bad_count++;
		/* Each algorithm's own promise. */
		switch (alg) {
		case P_TOKEN:
		case P_LEAKY:
		case P_GCRA:
			if (!window_ok(rel, nrel, burst, n, d, catchup))
				bad_bound++;
			break;
		case P_SET:
			if (!window_ok(rel, nrel, burst, n, d, catchup) ||
			    !window_ok(rel, nrel, 2, 2 * n, d, catchup))
				bad_bound++;
			break;
		case P_KEYS:
			for (int k = 0; k < keys; k++)
				if (!window_ok(krel[k], kn[k], burst, n, d,
				    catchup))
					bad_bound++;
			break;
		case P_SLIDING:
			if (most_in_window(rel, nrel, width) > (int)burst)
				bad_bound++;
			break;
		case P_FIXED: {
			/* At most burst in each window on the wall clock. */
			int64_t off = fx.wall_offset_ns;

			for (int i = 0, j; i < nrel; i = j) {
				int64_t win = (rel[i] + off) / width;

				for (j = i; j < nrel &&
				    (rel[j] + off) / width == win; j++)
					;
				if (j - i > (int)burst)
					bad_bound++;
			}
			break;
		}
		case P_NALG:
			break;
		}
		if (alg == P_SLIDING)
			window_free(&w);
		if (alg == P_KEYS)
			keytab_free(&kt);
		if (first[0] == '\0' && bad_order + bad_count + bad_bound > 0)
			snprintf(first, sizeof first, " (first: case %d, %s, "
			    "%s)", c, palg_name[alg], police ? "policed" :
			    "shaped");
		cases++;
	}
	check(bad_order == 0, "%d releases early, refused or out of order%s",
	    bad_order, first);
	check(bad_count == 0, "%d cases where in != out + dropped%s",
	    bad_count, first);
	check(bad_bound == 0, "%d cases broke their algorithm's bound%s",
	    bad_bound, first);
	check(cases == 6000, "%d cases over %d algorithms, shaped and policed",
	    cases, (int)P_NALG);
}
