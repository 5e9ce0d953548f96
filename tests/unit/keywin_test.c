/* Unit tests of per-key windows and tiers: keys.c against a reference. */
#include <fnmatch.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bucket.h"
#include "keys.h"
#include "limiter.h"
#include "tiers.h"
#include "unit.h"

#define SEED(x) (&(struct siphash_key){ { (x), ~(uint64_t)(x) } })

/* The keys a simulation draws from: each tiers file below sorts them. */
static const char *const kw_keys[] = { "a1", "a2", "ab", "xb", "zz", "zzz", "q",
	"" };
#define KW_NKEYS (sizeof kw_keys / sizeof kw_keys[0])

/*
 * Two tiers files of the same three lines in another order, so that keys
 * change tier between them: "a1" is a*'s, "xb" *b's, "ab" whichever comes
 * first, "zz" z?'s, and "zzz", "q" and the empty key no tier's.
 */
static const char kw_file1[] = "a* 1/s\n*b 1/s\nz? 1/s\n";
static const char kw_file2[] = "*b 1/s\nz? 1/s\na* 1/s\n";
static const char *const kw_pats1[] = { "a*", "*b", "z?" };
static const char *const kw_pats2[] = { "*b", "z?", "a*" };
#define KW_NRULES 4 /* three tiers and the rest */

/* Most events of a simulation, and most releases a list holds. */
#define KW_EVENTS 300
#define KW_REL 2000

/* The reference's view of a rule: none, inf, or limit per width_ns. */
struct kw_rule {
	bool none, inf;
	uint64_t limit;
	int64_t width_ns;
};

/* Release times, in order: of a key, or of a rule's overflow state. */
struct kw_list {
	int64_t t[KW_REL];
	int n;
};

/* A simulation: the table under test and its brute-force reference. */
struct kw_sim {
	enum keys_kind kind;
	int64_t offset_ns; /* of every fixed window */
	struct kw_rule rule[KW_NRULES];
	const char *const *pats; /* of the tiers in force */
	struct keytab tab;
	struct limiter l;
	size_t max_keys;
	struct kw_list key[KW_NKEYS];
	struct kw_list over[KW_NRULES];
	bool live[KW_NKEYS];
	bool shaping;
	int bad;
};

/* a / b rounded down, for b > 0: fixed windows before time 0 too. */
static int64_t
floordiv(int64_t a, int64_t b)
{
	return a / b - (a % b < 0);
}

/* The reference's rule of key k: the first pattern that matches, by
 * fnmatch(3) itself, or the rest's. */
static size_t
kw_rule_of(const struct kw_sim *s, size_t k)
{
	for (size_t i = 0; i + 1 < KW_NRULES; i++)
		if (fnmatch(s->pats[i], kw_keys[k], 0) == 0)
			return i;
	return KW_NRULES - 1;
}

/* Releases of list in the window of time t under rule r, counted. */
static uint64_t
kw_count(const struct kw_sim *s, const struct kw_rule *r,
    const struct kw_list *list, int64_t t)
{
	uint64_t n = 0;

	for (int i = 0; i < list->n; i++) {
		int64_t x = list->t[i];

		if (s->kind == KEYS_SLIDING ?
			x > t - r->width_ns && x <= t :
			floordiv(x + s->offset_ns, r->width_ns) ==
			    floordiv(t + s->offset_ns, r->width_ns))
			n++;
	}
	return n;
}

/*
 * The earliest time s >= t at which units more fit, found by trying
 * every time the count can fall at: t, the end of each release's
 * sliding window, or the start of each fixed window after t.
 */
static int64_t
kw_ready(const struct kw_sim *s, const struct kw_rule *r,
    const struct kw_list *list, int64_t t, uint64_t units)
{
	int64_t best = INT64_MAX, c;

	if (r->none)
		return INT64_MAX;
	if (r->inf || kw_count(s, r, list, t) + units <= r->limit)
		return t;
	if (s->kind == KEYS_FIXED) {
		for (int64_t w = floordiv(t + s->offset_ns, r->width_ns) + 1;;
		     w++) {
			c = w * r->width_ns - s->offset_ns;
			if (kw_count(s, r, list, c) + units <= r->limit)
				return c;
		}
	}
	for (int i = 0; i < list->n; i++) {
		c = list->t[i] + r->width_ns;
		if (c > t && c < best &&
		    kw_count(s, r, list, c) + units <= r->limit)
			best = c;
	}
	return best;
}

/* When list holds nothing a new key's would not: after its last window. */
static int64_t
kw_refill(
    const struct kw_sim *s, const struct kw_rule *r, const struct kw_list *list)
{
	int64_t last;

	if (list->n == 0 || r->none || r->inf)
		return INT64_MIN;
	last = list->t[list->n - 1];
	if (s->kind == KEYS_SLIDING)
		return last + r->width_ns;
	return (floordiv(last + s->offset_ns, r->width_ns) + 1) * r->width_ns -
	    s->offset_ns;
}

/*
 * The list that judges key k at now_ns, as the table should choose it:
 * its own while it is live; else, after forgetting every live key that
 * holds nothing by now_ns, a new one's, or its rule's overflow state's
 * when max_keys are still live.
 */
static struct kw_list *
kw_list_of(struct kw_sim *s, size_t k, int64_t now_ns)
{
	size_t live = 0;

	if (s->live[k])
		return &s->key[k];
	for (size_t j = 0; j < KW_NKEYS; j++) {
		if (s->live[j] &&
		    kw_refill(s, &s->rule[kw_rule_of(s, j)], &s->key[j]) <=
			now_ns)
			s->live[j] = false;
		live += s->live[j];
	}
	if (live >= s->max_keys)
		return &s->over[kw_rule_of(s, k)];
	return &s->key[k];
}

/* The table's rule for the reference's rule r. */
static struct keyrule
kw_keyrule(const struct kw_sim *s, const struct kw_rule *r)
{
	struct keyrule kr;

	memset(&kr, 0, sizeof kr);
	kr.none = r->none;
	kr.inf = r->inf;
	if (r->none || r->inf)
		return kr;
	if (s->kind == KEYS_SLIDING)
		kr.sliding = (struct sliding){ .limit = r->limit,
			.width_ns = r->width_ns };
	else
		fixed_init(&kr.fixed, r->limit, r->width_ns, s->offset_ns, 0);
	return kr;
}

/* A random rule: none or inf now and then, else 1..5 per width_ns. */
static struct kw_rule
kw_random_rule(int64_t width_ns)
{
	struct kw_rule r = { false, false, 1 + rng_below(5), width_ns };
	uint64_t x = rng_below(10);

	r.none = x == 0;
	r.inf = x == 1;
	return r;
}

/* Say how the table's verdicts on key k at now_ns differ from list's. */
static void
kw_report(struct kw_sim *s, size_t k, const struct kw_list *list,
    int64_t now_ns, uint64_t units)
{
	size_t r = kw_rule_of(s, k);
	const struct kw_rule *rule = &s->rule[r];

	check(0,
	    "%s, max_keys %zu, %s: key '%s' (rule %zu: %s%llu per %lld%s) "
	    "at %lld: avail %llu, ready_at(%llu) %lld, ready_at(1) %lld; "
	    "the reference's ready_at: %lld, %lld",
	    s->kind == KEYS_SLIDING ? "sliding" : "fixed", s->max_keys,
	    s->shaping ? "shaping" : "police", kw_keys[k], r,
	    rule->none	  ? "none " :
		rule->inf ? "inf " :
			    "",
	    (unsigned long long)rule->limit, (long long)rule->width_ns,
	    list == &s->key[k] ? "" : ", overflow", (long long)now_ns,
	    (unsigned long long)limiter_avail(&s->l, now_ns, now_ns),
	    (unsigned long long)units,
	    (long long)limiter_ready_at(&s->l, now_ns, units),
	    (long long)limiter_ready_at(&s->l, now_ns, 1),
	    (long long)kw_ready(s, rule, list, now_ns, units),
	    (long long)kw_ready(s, rule, list, now_ns, 1));
}

/*
 * Judge one arrival of key k at now_ns by table and reference alike:
 * avail, ready_at of one unit and of a random number, then a take of
 * one; returns when the unit went, or when it may go next.
 */
static int64_t
kw_event(struct kw_sim *s, size_t k, int64_t now_ns)
{
	const char *key = kw_keys[k];
	size_t r = kw_rule_of(s, k);
	const struct kw_rule *rule = &s->rule[r];
	struct kw_list *list = kw_list_of(s, k, now_ns);
	uint64_t units = rule->none || rule->inf ? 1 :
						   1 + rng_below(rule->limit);
	uint64_t have = rule->none ? 0 :
	    rule->inf		   ? UINT64_MAX :
			rule->limit - kw_count(s, rule, list, now_ns);
	int64_t due = kw_ready(s, rule, list, now_ns, 1);
	uint64_t want, got;

	if (have > rule->limit && !rule->inf)
		have = 0; /* a count over the limit: nothing fits */
	keys_select(&s->tab, key, strlen(key), now_ns);
	if (limiter_avail(&s->l, now_ns, now_ns) != have ||
	    limiter_ready_at(&s->l, now_ns, units) !=
		kw_ready(s, rule, list, now_ns, units) ||
	    limiter_ready_at(&s->l, now_ns, 1) != due) {
		if (s->bad++ == 0)
			kw_report(s, k, list, now_ns, units);
		return INT64_MAX;
	}
	want = due == now_ns;
	got = limiter_take(&s->l, now_ns, now_ns, 1);
	if (got != want && s->bad++ == 0)
		check(0, "key '%s' at %lld: took %llu, want %llu", key,
		    (long long)now_ns, (unsigned long long)got,
		    (unsigned long long)want);
	if (got == 1 && !rule->inf && list->n < KW_REL) {
		list->t[list->n++] = now_ns;
		if (list == &s->key[k])
			s->live[k] = true;
	}
	return got == 1 ? now_ns : due;
}

/* Start sim s of kind with fresh random rules, none live, at now_ns. */
static void
kw_start(struct kw_sim *s, enum keys_kind kind, const struct tiers *tiers,
    bool same_width, int64_t now_ns, int c)
{
	struct keyrule kr[KW_NRULES];
	int64_t width = 1 + (int64_t)rng_below(40);

	memset(s, 0, sizeof *s);
	s->kind = kind;
	s->pats = kw_pats1;
	s->offset_ns = (int64_t)rng_below(101) - 50;
	s->max_keys = rng_below(3) == 0 ? 1 + rng_below(3) : 1000;
	s->shaping = c % 2 == 1;
	for (size_t i = 0; i < KW_NRULES; i++) {
		s->rule[i] = kw_random_rule(
		    same_width ? width : 1 + (int64_t)rng_below(40));
		kr[i] = kw_keyrule(s, &s->rule[i]);
	}
	(void)keys_init(&s->tab, kind, kr, KW_NRULES, tiers, s->max_keys,
	    SEED((uint64_t)c), now_ns);
	limiter_of_keys(&s->l, &s->tab);
}

/* A pending arrival, or a unit waiting again from its ready time. */
struct kw_ev {
	int64_t t;
	size_t k;
};

/*
 * Run the events of s in time order: each arrival judged once (police),
 * or again at each ready time the table gives until it goes (shaping).
 */
static void
kw_run(struct kw_sim *s, struct kw_ev *ev, int n)
{
	for (int steps = 0; n > 0 && steps < 4 * KW_EVENTS && s->bad == 0;
	     steps++) {
		int m = 0;
		int64_t at;

		for (int i = 1; i < n; i++)
			if (ev[i].t < ev[m].t)
				m = i;
		at = kw_event(s, ev[m].k, ev[m].t);
		if (!s->shaping || at == ev[m].t || at == INT64_MAX)
			ev[m] = ev[--n]; /* gone, or dropped */
		else
			ev[m].t = at;
	}
}

/* Random arrivals of random keys from now_ns: bursts, gaps, exact ends. */
static int
kw_arrivals(struct kw_ev *ev, int64_t now_ns)
{
	int n = 20 + (int)rng_below(KW_EVENTS - 20);
	size_t nkeys = 1 + rng_below(KW_NKEYS);

	for (int i = 0; i < n; i++) {
		now_ns += rng_below(4) == 0 ? 0 : (int64_t)rng_below(12);
		ev[i] = (struct kw_ev){ now_ns, rng_below(nkeys) };
	}
	return n;
}

static int
kw_parse(struct tiers *t, const char *text)
{
	char err[256];

	return tiers_parse(t, "kw", text, strlen(text), UNIT_LINES, ALG_SLIDING,
	    err, sizeof err);
}

/*
 * Per-key sliding and fixed windows, by tier, judge every arrival as a
 * naive list of each key's release times does: fewer than limit in
 * (t - width, t], or in t's fixed window; the same ready_at for shaping.
 * Keys forgotten when idle, and keys past max_keys sharing their rule's
 * overflow state, change no verdict.
 */
static void
test_keywin_reference(void)
{
	static struct kw_sim s;
	struct kw_ev ev[KW_EVENTS];
	struct tiers tiers;
	int failed_cases = 0, cases = 0;

	current = "per-key windows: verdicts of a naive reference";
	if (kw_parse(&tiers, kw_file1) != 0) {
		check(0, "kw_file1 does not parse");
		return;
	}
	for (int c = 0; c < 600; c++) {
		enum keys_kind kind = c % 4 < 2 ? KEYS_SLIDING : KEYS_FIXED;
		int64_t t0 = (int64_t)rng_below(100);
		int n;

		kw_start(&s, kind, &tiers, false, t0, c);
		n = kw_arrivals(ev, t0);
		kw_run(&s, ev, n);
		failed_cases += s.bad > 0;
		cases++;
		keys_free(&s.tab);
	}
	check(failed_cases == 0, "%d of %d cases differ", failed_cases, cases);
	tiers_free(&tiers);
}

/*
 * The reference's list re-rated from rule a to b: emptied when either is
 * none or inf; else a sliding window keeps its latest b->limit releases
 * (the rest would count again under a larger limit later), and a fixed
 * window its count.
 */
static void
kw_restate(const struct kw_sim *s, const struct kw_rule *a,
    const struct kw_rule *b, struct kw_list *list)
{
	int keep = list->n;

	if (a->none || a->inf || b->none || b->inf)
		keep = 0;
	else if (s->kind == KEYS_SLIDING && (uint64_t)keep > b->limit)
		keep = (int)b->limit;
	memmove(
	    list->t, list->t + list->n - keep, (size_t)keep * sizeof *list->t);
	list->n = keep;
}

/* Take new random rules and tiers in table and reference alike. */
static void
kw_retune(struct kw_sim *s, const struct tiers *tiers, const char *const *pats,
    int64_t now_ns)
{
	struct kw_rule was[KW_NRULES];
	struct keyrule kr[KW_NRULES];
	size_t from[KW_NKEYS];

	for (size_t k = 0; k < KW_NKEYS; k++)
		from[k] = kw_rule_of(s, k);
	memcpy(was, s->rule, sizeof was);
	s->pats = pats;
	for (size_t i = 0; i < KW_NRULES; i++) {
		s->rule[i] = kw_random_rule(s->rule[i].width_ns);
		kr[i] = kw_keyrule(s, &s->rule[i]);
	}
	/* A state that was or becomes none or inf starts afresh; else it
	 * keeps what it counts, a window its latest limit releases.
	 * Overflow states stay by place. */
	for (size_t k = 0; k < KW_NKEYS; k++)
		kw_restate(
		    s, &was[from[k]], &s->rule[kw_rule_of(s, k)], &s->key[k]);
	for (size_t i = 0; i < KW_NRULES; i++)
		kw_restate(s, &was[i], &s->rule[i], &s->over[i]);
	if (keys_retune(&s->tab, kr, KW_NRULES, tiers, now_ns) != 0 &&
	    s->bad++ == 0)
		check(0, "keys_retune failed");
}

/*
 * Reloads between arrivals: new limits for every rule (one width for
 * all, as a reference of release times cannot know releases a smaller
 * window dropped), and tiers in another order, so keys change rule.
 * Every verdict after each reload is still the reference's.
 */
static void
test_keywin_reload_reference(void)
{
	static struct kw_sim s;
	struct kw_ev ev[KW_EVENTS];
	struct tiers t1, t2;
	int failed_cases = 0;

	current = "per-key windows: reloads keep the reference's verdicts";
	if (kw_parse(&t1, kw_file1) != 0 || kw_parse(&t2, kw_file2) != 0) {
		check(0, "the tiers files do not parse");
		return;
	}
	for (int c = 0; c < 400; c++) {
		enum keys_kind kind = c % 4 < 2 ? KEYS_SLIDING : KEYS_FIXED;
		int n, done = 0;

		kw_start(&s, kind, &t1, true, 0, c);
		n = kw_arrivals(ev, 0);
		s.shaping = false;
		for (int r = 0; done < n && s.bad == 0; r++) {
			int part = 1 + (int)rng_below((uint64_t)(n - done));

			kw_run(&s, ev + done, part);
			done += part;
			if (done < n)
				kw_retune(&s, r % 2 == 0 ? &t2 : &t1,
				    r % 2 == 0 ? kw_pats2 : kw_pats1,
				    ev[done].t);
		}
		failed_cases += s.bad > 0;
		keys_free(&s.tab);
	}
	check(failed_cases == 0, "%d of 400 cases differ", failed_cases);
	tiers_free(&t1);
	tiers_free(&t2);
}

/* A table of kind whose keys follow tiers (or NULL) by rules[0..n). */
static void
kw_table(struct keytab *t, struct limiter *l, enum keys_kind kind,
    const struct keyrule *rules, size_t n, const struct tiers *tiers)
{
	(void)keys_init(t, kind, rules, n, tiers, 100, SEED(n), 0);
	limiter_of_keys(l, t);
}

/* Select key at now_ns and take up to max: what the limiter gave. */
static uint64_t
kw_take(struct keytab *t, const struct limiter *l, const char *key,
    int64_t now_ns, uint64_t max)
{
	keys_select(t, key, strlen(key), now_ns);
	return limiter_take(l, now_ns, now_ns, max);
}

/* Select key at now_ns: when one unit more may go. */
static int64_t
kw_due(
    struct keytab *t, const struct limiter *l, const char *key, int64_t now_ns)
{
	keys_select(t, key, strlen(key), now_ns);
	return limiter_ready_at(l, now_ns, 1);
}

/* Units key may take one at a time at now_ns, taken. */
static uint64_t
kw_drain(
    struct keytab *t, const struct limiter *l, const char *key, int64_t now_ns)
{
	uint64_t n = 0;

	while (n < 1000 && kw_take(t, l, key, now_ns, 1) == 1)
		n++;
	return n;
}

static struct keyrule
kw_sliding(uint64_t limit, int64_t width_ns)
{
	struct keyrule r;

	memset(&r, 0, sizeof r);
	r.sliding = (struct sliding){ .limit = limit, .width_ns = width_ns };
	return r;
}

static struct keyrule
kw_fixed(uint64_t limit, int64_t width_ns)
{
	struct keyrule r;

	memset(&r, 0, sizeof r);
	fixed_init(&r.fixed, limit, width_ns, 0, 0);
	return r;
}

/*
 * The first line whose pattern matches a key gives its rule, a later
 * literal included; keys no line matches get the last rule.  Then random
 * files of globs against fnmatch(3) tried line by line.
 */
static void
test_keywin_tier_order(void)
{
	static const char file[] = "premium-* 1000/min\n"
				   "free-* 10/min\n"
				   "free-vip 5/min # dead: free-* took it\n"
				   "user? 1/s\n"
				   "bob 1/s\n"
				   "b* 2/s\n"
				   "[ab]*x 3/s\n";
	static const struct {
		const char *key;
		size_t rule;
	} want[] = { { "premium-1", 0 }, { "premium-", 0 }, { "free-x", 1 },
		{ "free-vip", 1 }, { "user1", 3 }, { "user12", 7 },
		{ "bob", 4 }, { "bobx", 5 }, { "ax", 6 }, { "Premium-1", 7 },
		{ "", 7 }, { "free", 7 } };
	struct keyrule rules[8];
	struct keytab t;
	struct limiter l;
	struct tiers tiers;

	current = "tiers: the first matching line gives a key its rule";
	for (size_t i = 0; i < 8; i++)
		rules[i] = kw_sliding(i + 1, NS);
	if (kw_parse(&tiers, file) != 0 || tiers.ntiers != 7) {
		check(0, "the file does not parse into 7 tiers");
		return;
	}
	kw_table(&t, &l, KEYS_SLIDING, rules, 8, &tiers);
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		size_t r = keys_rule_of(&t, want[i].key, strlen(want[i].key));

		check(r == want[i].rule, "'%s': rule %zu, want %zu",
		    want[i].key, r, want[i].rule);
		/* Its limit is its rule's: rule r lets r + 1 through. */
		check(kw_drain(&t, &l, want[i].key, 0) == want[i].rule + 1,
		    "'%s' takes its rule's limit", want[i].key);
	}
	keys_free(&t);
	tiers_free(&tiers);
}

/* A random pattern over a and b with '*', '?' and brackets. */
static void
kw_random_pattern(char *p)
{
	static const char *const part[] = { "a", "b", "*", "?", "[ab]", "[!a]",
		"a", "b" };
	size_t n = 1 + rng_below(4);

	*p = '\0';
	for (size_t i = 0; i < n; i++)
		strcat(p, part[rng_below(8)]);
}

/* Tiers of up to 8 random globs: the same first match as fnmatch(3). */
static void
test_keywin_tier_random(void)
{
	char pats[8][32], text[512], key[8];
	struct keyrule rules[9];
	struct tiers tiers;
	struct keytab t;
	struct limiter l;
	int bad = 0;

	current = "tiers: random globs match as fnmatch(3) line by line";
	for (size_t i = 0; i < 9; i++)
		rules[i] = kw_fixed(1, NS);
	for (int c = 0; c < 300; c++) {
		size_t n = 0, want, len;

		text[0] = '\0';
		for (size_t tries = 0; n < 1 + (size_t)c % 8 && tries < 50;
		     tries++) {
			bool only_stars;
			bool dup = false;

			kw_random_pattern(pats[n]);
			for (size_t j = 0; j < n; j++)
				dup = dup || strcmp(pats[j], pats[n]) == 0;
			if (dup)
				continue;
			strcat(text, pats[n]);
			strcat(text, " 1/s\n");
			only_stars = strspn(pats[n], "*") == strlen(pats[n]);
			n++;
			if (only_stars)
				break; /* nothing may follow '*' */
		}
		if (kw_parse(&tiers, text) != 0 || tiers.ntiers != n) {
			check(0, "random file does not parse:\n%s", text);
			return;
		}
		kw_table(&t, &l, KEYS_FIXED, rules, n + 1, &tiers);
		for (int k = 0; k < 40; k++) {
			len = rng_below(5);
			for (size_t j = 0; j < len; j++)
				key[j] = "abc"[rng_below(3)];
			key[len] = '\0';
			for (want = 0; want < n; want++)
				if (fnmatch(pats[want], key, 0) == 0)
					break;
			if (keys_rule_of(&t, key, len) != want && bad++ == 0)
				check(0, "'%s' in\n%sgot rule %zu, want %zu",
				    key, text, keys_rule_of(&t, key, len),
				    want);
		}
		keys_free(&t);
		tiers_free(&tiers);
	}
	check(bad == 0, "%d keys found another rule", bad);
}

/*
 * A sliding window reloaded: to the same or a larger limit its releases
 * still count; to a smaller one it keeps the most recent.
 */
static void
test_keywin_retune_sliding(void)
{
	struct keyrule five = kw_sliding(5, 100), to;
	struct keytab t;
	struct limiter l;

	current = "reload: a sliding window per key keeps its releases";
	for (int c = 0; c < 3; c++) {
		kw_table(&t, &l, KEYS_SLIDING, &five, 1, NULL);
		for (int64_t i = 0; i < 5; i++)
			check(kw_take(&t, &l, "k", i, 1) == 1, "take at %lld",
			    (long long)i);
		to = kw_sliding(c == 0 ? 5 : c == 1 ? 8 : 3, 100);
		check(keys_retune(&t, &to, 1, NULL, 10) == 0, "retune");
		if (c == 0) {
			check(kw_drain(&t, &l, "k", 10) == 0 &&
				kw_due(&t, &l, "k", 10) == 100,
			    "the same limit: full until 100");
		} else if (c == 1) {
			check(kw_drain(&t, &l, "k", 10) == 3 &&
				kw_due(&t, &l, "k", 10) == 100,
			    "limit 8: 3 more, then full until 100");
		} else {
			check(kw_drain(&t, &l, "k", 10) == 0 &&
				kw_due(&t, &l, "k", 10) == 102,
			    "limit 3 keeps 2, 3, 4: due at 102, not 100");
			check(kw_drain(&t, &l, "k", 101) == 0 &&
				kw_drain(&t, &l, "k", 102) == 1 &&
				kw_due(&t, &l, "k", 102) == 103,
			    "limit 3: one at 102, the next at 103");
		}
		/* Another key had nothing: it starts empty under the new. */
		check(kw_drain(&t, &l, "other", 10) == to.sliding.limit,
		    "a new key gets the new limit");
		keys_free(&t);
	}
}

/* A fixed window reloaded keeps its count while its window lasts. */
static void
test_keywin_retune_fixed(void)
{
	struct keyrule five = kw_fixed(5, 100), eight = kw_fixed(8, 100),
		       three = kw_fixed(3, 100), wide = kw_fixed(6, 1000);
	struct keytab t;
	struct limiter l;

	current = "reload: a fixed window per key keeps its count";
	kw_table(&t, &l, KEYS_FIXED, &five, 1, NULL);
	check(kw_drain(&t, &l, "k", 0) == 5, "5 in window 0");
	(void)keys_retune(&t, &eight, 1, NULL, 10);
	check(kw_drain(&t, &l, "k", 10) == 3 && kw_due(&t, &l, "k", 10) == 100,
	    "limit 8: 3 more, then the next window");
	(void)keys_retune(&t, &three, 1, NULL, 20);
	check(kw_drain(&t, &l, "k", 20) == 0 &&
		kw_due(&t, &l, "k", 20) == 100 &&
		kw_drain(&t, &l, "k", 100) == 3,
	    "limit 3 after 8 used: none until the next window's 3");
	(void)keys_retune(&t, &wide, 1, NULL, 150);
	check(
	    kw_drain(&t, &l, "k", 150) == 3 && kw_due(&t, &l, "k", 150) == 1000,
	    "a window of 1000 holding now keeps the 3 used: 3 more");
	(void)keys_retune(&t, &five, 1, NULL, 1010);
	check(kw_drain(&t, &l, "k", 1010) == 5,
	    "a count of a window gone is not kept");
	keys_free(&t);
}

/*
 * A bucket per key is re-rated as bucket_retune re-rates a bucket, but
 * a full one starts full at the new burst, as a forgotten key would.
 */
static void
test_keywin_retune_bucket(void)
{
	struct keyrule from, to;
	struct bucket b;
	struct keytab t;
	struct limiter l;
	int bad = 0;

	current = "reload: a bucket per key is re-rated like bucket_retune";
	/* Full at the reload: as a new key's, of the new burst. */
	{
		struct keyrule a = { 0 }, z = { 0 };

		bucket_init(&a.bucket, 1, 10, 4, 4, 0);
		bucket_init(&z.bucket, 1, 10, 6, 6, 0);
		bucket_set_catchup(&a.bucket, 0);
		bucket_set_catchup(&z.bucket, 0);
		kw_table(&t, &l, KEYS_BUCKET, &a, 1, NULL);
		(void)kw_take(&t, &l, "A", 0, 1);
		(void)keys_retune(&t, &z, 1, NULL, 100);
		keys_select(&t, "A", 1, 100);
		check(limiter_avail(&l, 100, 100) == 6,
		    "an idle key full again takes the new burst: %llu",
		    (unsigned long long)limiter_avail(&l, 100, 100));
		keys_free(&t);
	}
	for (int c = 0; c < 200; c++) {
		uint64_t n = 1 + rng_below(3), d = 5 + rng_below(20),
			 burst = 1 + rng_below(6), used = 1 + rng_below(burst);
		int64_t at = (int64_t)rng_below(40), now;

		memset(&from, 0, sizeof from);
		memset(&to, 0, sizeof to);
		bucket_init(&from.bucket, n, d, burst, burst, 0);
		bucket_init(&to.bucket, 1 + rng_below(3), 5 + rng_below(20),
		    1 + rng_below(6), 1, 0);
		bucket_set_catchup(&from.bucket, 0);
		bucket_set_catchup(&to.bucket, 0);
		b = from.bucket;
		kw_table(&t, &l, KEYS_BUCKET, &from, 1, NULL);
		(void)bucket_take(&b, 0, 0, used);
		(void)kw_take(&t, &l, "k", 0, used);
		if (bucket_full_at(&b, at)) {
			bucket_init(&b, to.bucket.n, to.bucket.d,
			    to.bucket.burst, to.bucket.burst, at);
			bucket_set_catchup(&b, 0);
		} else
			bucket_retune(
			    &b, to.bucket.n, to.bucket.d, to.bucket.burst, at);
		(void)keys_retune(&t, &to, 1, NULL, at);
		for (now = at; now < at + 200;
		     now += 1 + (int64_t)rng_below(9)) {
			uint64_t u = 1 + rng_below(to.bucket.burst);

			keys_select(&t, "k", 1, now);
			if ((limiter_avail(&l, now, now) !=
				    bucket_avail(&b, now, now) ||
				limiter_ready_at(&l, now, u) !=
				    bucket_ready_at(&b, now, u) ||
				limiter_take(&l, now, now, 1) !=
				    bucket_take(&b, now, now, 1)) &&
			    bad++ == 0)
				check(0,
				    "case %d (%llu/%llu burst %llu, %llu used, retuned at %lld to %llu/%llu burst %llu) at %lld: avail %llu, want %llu",
				    c, (unsigned long long)n,
				    (unsigned long long)d,
				    (unsigned long long)burst,
				    (unsigned long long)used, (long long)at,
				    (unsigned long long)to.bucket.n,
				    (unsigned long long)to.bucket.d,
				    (unsigned long long)to.bucket.burst,
				    (long long)now,
				    (unsigned long long)limiter_avail(
					&l, now, now),
				    (unsigned long long)bucket_avail(
					&b, now, now));
		}
		keys_free(&t);
	}
	check(bad == 0, "%d verdicts differ from bucket_retune's", bad);
}

/*
 * A reload whose tiers send keys elsewhere: each live key follows the
 * rule its pattern now finds, its releases still counted under it.
 */
static void
test_keywin_retune_tiers(void)
{
	struct keyrule r1[2] = { kw_sliding(5, 100), kw_sliding(2, 100) },
		       r2[2] = { kw_sliding(10, 100), kw_sliding(3, 100) },
		       r3[3] = { kw_sliding(4, 100), kw_sliding(10, 100),
			       kw_sliding(3, 100) };
	struct tiers t1, t2, t3;
	struct keytab t;
	struct limiter l;

	current = "reload: keys that change tier follow the new rule";
	if (kw_parse(&t1, "vip-* 1/s\n") != 0 ||
	    kw_parse(&t2, "vip-2 1/s\n") != 0 ||
	    kw_parse(&t3, "x 1/s\nvip-* 1/s\n") != 0) {
		check(0, "the tiers do not parse");
		return;
	}
	kw_table(&t, &l, KEYS_SLIDING, r1, 2, &t1);
	for (int64_t i = 0; i < 5; i++)
		(void)kw_take(&t, &l, "vip-1", i, 1);
	check(kw_drain(&t, &l, "vip-1", 5) == 0, "vip-1: 5 of 5");
	check(kw_drain(&t, &l, "x", 0) == 2, "x: the rest's 2");
	check(keys_retune(&t, r2, 2, &t2, 10) == 0, "reload to t2");
	check(keys_rule_of(&t, "vip-1", 5) == 1 &&
		keys_rule_of(&t, "vip-2", 5) == 0,
	    "vip-1 is the rest's now, vip-2 its own tier's");
	check(kw_drain(&t, &l, "vip-1", 10) == 0 &&
		kw_due(&t, &l, "vip-1", 10) == 102,
	    "vip-1 under the rest's 3 keeps its 3 latest: due at 102");
	check(kw_drain(&t, &l, "x", 10) == 1, "x: 1 more of the rest's 3");
	check(kw_drain(&t, &l, "vip-2", 10) == 10, "vip-2: a new key's 10");
	check(keys_retune(&t, r3, 3, &t3, 20) == 0, "reload to t3");
	check(kw_drain(&t, &l, "x", 20) == 1,
	    "x under its own tier's 4: 1 more after 0, 1 and 10");
	check(kw_drain(&t, &l, "vip-1", 20) == 7,
	    "vip-1 under vip-*'s 10 again: 7 more after its 3 kept");
	check(kw_drain(&t, &l, "y", 20) == 3, "y: the rest's 3");
	keys_free(&t);
	tiers_free(&t1);
	tiers_free(&t2);
	tiers_free(&t3);
}

/*
 * Rule none lets nothing through, ever; inf lets everything through;
 * a key reloaded out of either starts afresh under its new limit.
 */
static void
test_keywin_none_inf(void)
{
	static const enum keys_kind kinds[] = { KEYS_SLIDING, KEYS_FIXED,
		KEYS_BUCKET };
	struct keyrule r[3], lim[3];
	struct tiers tiers;
	struct keytab t;
	struct limiter l;

	current = "rules none and inf";
	if (kw_parse(&tiers, "open 1/s\nshut 1/s\n") != 0) {
		check(0, "the tiers do not parse");
		return;
	}
	for (size_t c = 0; c < 3; c++) {
		memset(r, 0, sizeof r);
		r[0].inf = true;
		r[1].none = true;
		lim[0] = lim[1] = lim[2] = kw_sliding(2, 100);
		if (kinds[c] == KEYS_FIXED)
			lim[0] = lim[1] = lim[2] = kw_fixed(2, 100);
		else if (kinds[c] == KEYS_BUCKET)
			bucket_init(&lim[0].bucket, 1, 100, 2, 2, 0);
		lim[1] = lim[2] = lim[0];
		r[2] = lim[2];
		kw_table(&t, &l, kinds[c], r, 3, &tiers);
		check(kw_take(&t, &l, "open", 0, 1000) == 1000 &&
			kw_drain(&t, &l, "open", 0) == 1000 &&
			kw_due(&t, &l, "open", 7) == 7,
		    "kind %zu: inf lets every unit through", c);
		keys_select(&t, "shut", 4, 0);
		check(limiter_avail(&l, 0, 0) == 0 &&
			limiter_take(&l, 0, 0, 1) == 0 &&
			limiter_ready_at(&l, 0, 1) == INT64_MAX &&
			kw_drain(&t, &l, "shut", NS) == 0,
		    "kind %zu: none lets nothing through, never", c);
		check(kw_drain(&t, &l, "other", 0) == 2,
		    "kind %zu: the rest's 2", c);
		/* Reload: open and shut get a limit of 2, other is shut. */
		r[0] = lim[0];
		r[1] = lim[1];
		memset(&r[2], 0, sizeof r[2]);
		r[2].none = true;
		check(keys_retune(&t, r, 3, &tiers, 10) == 0, "reload");
		check(kw_drain(&t, &l, "open", 10) == 2 &&
			kw_drain(&t, &l, "shut", 10) == 2 &&
			kw_drain(&t, &l, "other", 10) == 0,
		    "kind %zu: out of inf and none, a fresh limit; into none, "
		    "nothing",
		    c);
		keys_free(&t);
	}
	tiers_free(&tiers);
}

/*
 * A window of limit 1 that takes again moves down the heap, so the idle
 * key below it is forgotten and a new key gets its own window, not the
 * shared overflow state (keys_store once read the refill time before the
 * take from the very slot the take overwrote).
 */
static void
test_keywin_limit_one_forgets(void)
{
	struct keyrule one = kw_sliding(1, 100);
	struct keytab t;
	struct limiter l;

	current = "per-key windows of limit 1: idle keys make room";
	(void)keys_init(&t, KEYS_SLIDING, &one, 1, NULL, 2, SEED(1), 0);
	limiter_of_keys(&l, &t);
	check(
	    kw_take(&t, &l, "A", 0, 1) == 1 && kw_take(&t, &l, "B", 0, 1) == 1,
	    "A and B at 0");
	check(kw_take(&t, &l, "A", 110, 1) == 1, "A again at 110");
	check(kw_take(&t, &l, "C", 120, 1) == 1 && !t.sel_overflow,
	    "C at 120 takes idle B's place, not the overflow state");
	check(kw_take(&t, &l, "D", 130, 1) == 1 && t.sel_overflow,
	    "D at 130 finds the overflow state unused");
	keys_free(&t);
}

/* Per-key windows, tiers and reloads, against references; see above. */
void
test_keywin(void)
{
	test_keywin_limit_one_forgets();
	test_keywin_reference();
	test_keywin_reload_reference();
	test_keywin_tier_order();
	test_keywin_tier_random();
	test_keywin_retune_sliding();
	test_keywin_retune_fixed();
	test_keywin_retune_bucket();
	test_keywin_retune_tiers();
	test_keywin_none_inf();
}
