/* Per-key limits: a small state per live key, by rule; pure, no I/O. */
#ifndef KEYS_H
#define KEYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bucket.h"
#include "fixed.h"
#include "siphash.h"
#include "sliding.h"
#include "tiers.h"

/*
 * Key bytes kept in an entry itself; a longer key is kept as its 128-bit
 * SipHash under the table's seed, so that an entry's size is fixed.
 */
#define KEYS_INLINE 17

/*
 * The most the key table of -a sliding may need at worst, in bytes: live
 * keys times the release times each keeps (8 bytes apiece, up to the
 * limit of its window), beside their entries and index.  A run whose
 * worst case is larger is refused at start (keys_worst_bytes).
 */
#define KEYS_MEMORY_MAX (UINT64_C(1) << 30)

/* What a key's state is: a token (or leaky) bucket, or a window. */
enum keys_kind { KEYS_BUCKET, KEYS_SLIDING, KEYS_FIXED };

/*
 * The limit of a group of keys (a tier, or every key no tier takes): the
 * prototype of its kind, whose state is unused; or none, which lets no
 * unit through (keys no tier takes when -r is not given), or inf, which
 * lets every unit through.
 */
struct keyrule {
	bool none;
	bool inf; /* no limit: every unit goes (a tier of rate inf) */
	struct bucket bucket;	/* KEYS_BUCKET: rate, burst, catch-up */
	struct sliding sliding; /* KEYS_SLIDING: limit, width, catch-up */
	struct fixed fixed;	/* KEYS_FIXED: limit, width, offset, catch-up */
};

/* A key's state: a bucket, a fixed window, or a sliding window's times. */
union keystate {
	struct {
		int64_t base_ns;
		uint64_t k;
	} b;
	struct {
		int64_t index;
		uint64_t used;
	} f;
	struct {
		int64_t *times; /* ring of the latest releases, or NULL */
		uint32_t oldest, count;
	} s;
};

/*
 * A key as the table knows it: its bytes, or those of a longer one's
 * SipHash-2-4-128 (siphash24_128), which no two keys share but by a
 * chance of about one in 2^128 a pair, which input cannot aim at.
 */
struct keyid {
	unsigned char len; /* bytes in b, or above KEYS_INLINE: hashed */
	char b[KEYS_INLINE];
};

/*
 * A live key: its state, where the index points at it, the rule it
 * follows, and who it is: 40 bytes in all, beside a window's times.
 */
struct keyent {
	union keystate st;
	uint32_t slot; /* its slot in the index */
	uint16_t rule; /* its rule in the table's rules (a hashed key's, of
			* was_rules after a reload, until its next record) */
	struct keyid id;
};

/*
 * Keys not live in the table whose rule is remembered, so that their
 * tier is found once, not at each record (a direct-mapped cache).
 */
#define KEYS_MEMO 4096

/* A key's rule, remembered; rule UINT16_MAX: none yet. */
struct keymemo {
	struct keyid id;
	uint16_t rule;
};

/* Where a record's key is: -k FIELD, -F C, and the record delimiter. */
struct keyspec {
	unsigned field; /* the key is this field of a record */
	int sep;	/* ... fields ending at this byte, or -1 */
	int delim;	/* records ending at this byte */
};

/* Most rules in a table: the tiers of a file and the rule of the rest. */
#define KEYS_MAX_RULES 65535

/*
 * A limit by key, all of one kind, each key following the rule of the
 * first tier whose pattern matches it (tiers_match), or the last rule
 * when none does or there are no tiers.  A key is found by SipHash-2-4 of
 * its bytes under a secret seed, so input cannot aim keys at one slot of
 * the index, and known by its bytes, so two keys never share a state.
 * The entries form a heap by the time each state holds nothing a new one
 * would not (a bucket full again, a window emptied), and a new key first
 * forgets those at the top; when max_keys are still live, new keys share
 * their rule's overflow state.
 */
struct keytab {
	struct keyspec spec;
	enum keys_kind kind;
	struct keyrule *rules; /* nrules, owned; the last takes the rest */
	size_t nrules;
	struct keyrule *was_rules; /* the rules before the last reload */
	int64_t was_ns;		   /* ... and when it came */
	const struct tiers *tiers; /* by which keys find their rule, or NULL */
	struct keymemo *memo;	   /* KEYS_MEMO rules of keys, with tiers */
	union keystate *overflow;  /* a state per rule, for keys past max */
	struct siphash_key seed;   /* of the hash, chosen at random */
	uint64_t *index;     /* hash's low 32 bits << 32 | entry + 1, or 0 */
	size_t cap;	     /* slots of the index, a power of two */
	struct keyent *ents; /* the live keys, a heap by refill time */
	size_t room;	     /* entries ents holds */
	size_t live;	     /* entries in use */
	size_t max_keys;
	uint64_t overflowed; /* units judged by an overflow state */
	uint64_t cut;	     /* ... of them, units of keys cut at the buffer */
	size_t open_rule;    /* the strictest rule a key may follow */
	/* The selected key's limit, read and written by the limiter: cur,
	 * cur_w or cur_f by kind; none when its rule lets nothing go, inf
	 * when it lets everything go. */
	struct bucket cur;
	struct sliding cur_w;
	struct fixed cur_f;
	bool cur_none;
	bool cur_inf;
	uint64_t sel_hash;
	size_t sel; /* its entry, or SIZE_MAX for a new key */
	size_t sel_rule;
	bool sel_overflow;
	bool sel_cut;	    /* the key selected was cut at the buffer */
	struct keyent pend; /* a new key's, kept if it takes units */
	int64_t went_ns;    /* its limiter's: when the latest units went */
};

/*
 * Bytes the keys of a table of kind may need at worst with max_keys live
 * and rules whose windows hold at most limit units, beside the rules.
 */
uint64_t keys_worst_bytes(
    enum keys_kind kind, uint64_t max_keys, uint64_t limit, size_t nrules);

/*
 * Start an empty table of kind, hashing keys with seed, whose keys follow
 * rules[0..nrules) (copied; at most KEYS_MAX_RULES) as tiers (NULL, or of
 * nrules - 1 tiers, kept, not copied) says.  Returns -1 when memory runs
 * out.
 */
int keys_init(struct keytab *t, enum keys_kind kind,
    const struct keyrule *rules, size_t nrules, const struct tiers *tiers,
    size_t max_keys, const struct siphash_key *seed, int64_t now_ns);

/*
 * Take on new rules and tiers (as keys_init) at now_ns, all or nothing:
 * every live key follows the rule its pattern now finds, its state kept
 * and re-rated from now_ns on as bucket_retune does for a bucket; a
 * window keeps the latest releases its new limit counts.  A key kept
 * hashed cannot be matched again without its bytes: it keeps its state
 * and old rule until its next record, which finds its new rule and
 * re-rates its state as of now_ns; one that sees no record before the
 * reload after starts afresh.  Returns -1, changing nothing, when memory
 * runs out.
 */
int keys_retune(struct keytab *t, const struct keyrule *rules, size_t nrules,
    const struct tiers *tiers, int64_t now_ns);

/*
 * The rule of key[0..len), or with key NULL of a key cut at the buffer
 * (see keys_of_record): its index in t->rules.  A live key's is in
 * its entry; another's is found by the tiers once and remembered while
 * KEYS_MEMO keys do not push it out: O(len) but for the first record of
 * a key, which costs a match of the tiers (tiers_match).
 */
size_t keys_rule_of(struct keytab *t, const char *key, size_t len);

void keys_free(struct keytab *t);

/*
 * Select the limit of key[0..len) into t->cur (cur_w, cur_f).  now_ns is
 * the current time: a key with no state starts there with a full bucket
 * (an empty window), and earns no catch-up credit for any time before.
 * A new key first forgets the states that hold nothing by now_ns; if
 * max_keys are still live (or memory runs out) it gets its rule's
 * overflow state.  A key NULL, cut at the buffer, gets the overflow
 * state of the strictest rule a key may follow (t->open_rule): every
 * such key is held to it together, whatever its tier.  O(1) on average,
 * plus O(log live) for each bucket forgotten.
 */
void keys_select(struct keytab *t, const char *key, size_t len, int64_t now_ns);

/*
 * Select the bucket of record rec[0..len) (with or without its delimiter;
 * with whole false, the first bytes of a longer record) by its key
 * field, as keys_select.
 */
void keys_select_record(
    struct keytab *t, const char *rec, size_t len, bool whole, int64_t now_ns);

/*
 * Keep t->cur (cur_w, cur_f), from which taken units were just taken at
 * now_ns, as the selected key's state; a new key that took nothing is
 * not kept, its state being still that of a new one.  O(log live) at worst.
 */
void keys_store(struct keytab *t, uint64_t taken, int64_t now_ns);

/*
 * The key of record rec[0..len), with or without its delimiter, as spec
 * says: its start in *key, its length returned.  With whole false,
 * rec[0..len) is only the first bytes of a record longer than the buffer:
 * a key field that does not end within them, by a separator, could go on
 * beyond (or not have started), so the key is not known whole: *key is
 * NULL, a key cut at the buffer, and 0 is returned.
 */
size_t keys_of_record(const struct keyspec *spec, const char *rec, size_t len,
    bool whole, const char **key);

#endif
