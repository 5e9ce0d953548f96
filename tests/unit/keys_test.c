/* Unit tests of keys.c: key fields and the per-key bucket table. */
#include <inttypes.h>
#include <string.h>

#include "bucket.h"
#include "keys.h"
#include "unit.h"

void
test_keys(void)
{
	struct keytab t;
	struct bucket proto;
	const char *k;
	size_t n;
	int bad = 0;

	current = "key fields";
	n = keys_field("  a b\tc ", 8, 2, -1, &k);
	check(n == 1 && *k == 'b', "blanks: field 2");
	n = keys_field("  a b\tc ", 8, 3, -1, &k);
	check(n == 1 && *k == 'c', "blanks: field 3 after a tab");
	n = keys_field("  a b\tc ", 8, 4, -1, &k);
	check(n == 0, "blanks: no field 4 is the empty key");
	n = keys_field("a,,c", 4, 2, ',', &k);
	check(n == 0 && *k == ',', "sep: an empty field 2");
	n = keys_field("a,,c", 4, 3, ',', &k);
	check(n == 1 && *k == 'c', "sep: field 3");
	n = keys_field("a,,c", 4, 4, ',', &k);
	check(n == 0, "sep: no field 4");
	n = keys_field("", 0, 1, -1, &k);
	check(n == 0, "empty record");

	current = "per-key buckets";
	/* 1/s, burst 2 per key: each key gets its own two at once. */
	bucket_init(&proto, 1, NS, 2, 2, 0);
	check(keys_init(&t, &proto, 100, 42, 0) == 0, "init");
	for (int rep = 0; rep < 3; rep++)
		for (char c = 'a'; c <= 'e'; c++) {
			keys_select(&t, &c, 1, 0);
			if (bucket_take(&t.cur, 0, 0, 1) != (rep < 2 ? 1u : 0u))
				bad++;
			keys_store(&t, 1, 0);
		}
	check(bad == 0, "two per key at once, then none");
	check(t.live == 5, "5 live keys: %zu", t.live);
	keys_select(&t, "a", 1, 0);
	check(bucket_ready_at(&t.cur, 0, 1) == NS, "key a: next at 1 s");
	/* Refilled at 2 s: a full bucket is forgotten on the next sweep. */
	keys_free(&t);

	/* max_keys 3: a fourth live key shares the overflow bucket. */
	bucket_init(&proto, 1, 3600 * NS, 1, 1, 0);
	(void)keys_init(&t, &proto, 3, 42, 0);
	for (char c = 'a'; c <= 'f'; c++) {
		keys_select(&t, &c, 1, 0);
		(void)bucket_take(&t.cur, 0, 0, 1);
		keys_store(&t, 1, 0);
	}
	check(t.live == 3, "capped at 3 live: %zu", t.live);
	check(t.overflowed == 3, "3 went to the overflow bucket: %" PRIu64,
	    t.overflowed);
	keys_select(&t, "g", 1, 0);
	check(t.sel_overflow && bucket_avail(&t.cur, 0, 0) == 0,
	    "the overflow bucket is spent");
	keys_free(&t);

	/* A million keys, each charged once at 1/ms with burst 1: at any
	 * time only the last millisecond's keys are live, so forgetting
	 * refilled buckets keeps the table small. */
	bucket_init(&proto, 1, MS, 1, 1, 0);
	(void)keys_init(&t, &proto, 1000000, 42, 0);
	bad = 0;
	for (uint64_t i = 0; i < 1000000; i++) {
		char key[8];
		int64_t now = (int64_t)(i / 1000) * MS;

		memcpy(key, &i, sizeof key);
		keys_select(&t, key, sizeof key, now);
		if (bucket_take(&t.cur, now, now, 1) != 1)
			bad++;
		keys_store(&t, 1, now);
	}
	check(bad == 0, "every new key finds a full bucket");
	check(t.cap <= 16384, "table stays small: %zu slots, %zu live",
	    t.cap, t.live);
	keys_free(&t);
}
