/* What the files of the key table share: keys.c, keyindex.c, keyrules.c. */
#ifndef KEYTAB_H
#define KEYTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "keys.h"

/* The len of a key kept as its hash; and of one whose rule is of the
 * rules before the last reload. */
#define KEYS_HASHED (KEYS_INLINE + 1)
#define KEYS_STALE (KEYS_INLINE + 2)
/* An index slot holds the hash's low 32 bits above the entry's place + 1,
 * the bits this masks. */
#define ENTRY_BITS 0xffffffffULL

/* ---- keyindex.c: the index of the live keys, and their heap ---- */

/* The entry an index slot points at. */
size_t keyindex_entry(uint64_t v);
/* Is id a key kept as its hash? */
bool keyindex_hashed(const struct keyid *id);
/* Are a and b the same key? */
bool keyindex_same(const struct keyid *a, const struct keyid *b);
/* Who key[0..len) is to t, into id; the hash the index finds it by. */
uint64_t keyindex_identify(
    const struct keytab *t, const char *key, size_t len, struct keyid *id);
/* The index slot of id (hash its identify), or the empty one it would take. */
size_t keyindex_find(
    const struct keytab *t, uint64_t hash, const struct keyid *id);
/* The first empty slot from the home of the 32 bits of hash tag. */
size_t keyindex_empty_slot(const uint64_t *index, size_t cap, uint64_t tag);
/* When the state of entry e holds nothing a new key's would not. */
int64_t keyindex_refill_ns(const struct keytab *t, const struct keyent *e);
/* Release what state st of t holds apart: a window's times. */
void keyindex_free_state(const struct keytab *t, union keystate *st);
/* The state of a key with none yet, at now_ns. */
union keystate keyindex_new_state(const struct keytab *t, int64_t now_ns);
/* Times a ring of a window of limit units holds for count releases. */
uint64_t keyindex_ring_cap(uint64_t count, uint64_t limit);
/* Make room in the ring of st for one more release; false without memory. */
bool keyindex_ring_room(union keystate *st, uint64_t limit);
/* Restore the heap around entry i, whose refill time changed: where it is. */
size_t keyindex_reheap(struct keytab *t, size_t i);
/* Room for one more key at now_ns, the refilled forgotten first; false if
 * max_keys are still live or memory runs out. */
bool keyindex_make_room(struct keytab *t, int64_t now_ns);
/* Order the entries of t as a heap by refill time again, from scratch. */
void keyindex_heapify(struct keytab *t);

/* ---- keyrules.c: the rule each key follows ---- */

/* The rule of key[0..len), of hash h and id, with no entry of the current
 * rules: remembered, or matched and remembered. */
size_t keyrules_memo(struct keytab *t, uint64_t h, const struct keyid *id,
    const char *key, size_t len);
/* Copy rules[0..n) with a fresh overflow state each, at now_ns, into t;
 * -1 when they are too many or memory runs out. */
int keyrules_take(struct keytab *t, const struct keyrule *rules, size_t n,
    const struct tiers *tiers, int64_t now_ns);
/* State st of rule from, re-rated at now_ns to rule to; false, st
 * unchanged, when memory runs out. */
bool keyrules_restate(const struct keytab *t, const struct keyrule *from,
    const struct keyrule *to, union keystate *st, int64_t now_ns);

/* ---- keys.c ---- */

/* Select rule r's overflow state. */
void keys_select_overflow(struct keytab *t, size_t r);

#endif
