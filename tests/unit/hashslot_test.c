/* Unit tests of hashslot.c: slots a Redis Cluster gives keys. */
#include <string.h>

#include "hashslot.h"
#include "unit.h"

/* Slots as redis-server 7.0 answers CLUSTER KEYSLOT for each key. */
static const struct {
	const char *key;
	unsigned slot;
} known[] = {
	{ "foo", 12182 }, { "bar", 5061 }, { "hello", 866 },
	{ "user1000", 3443 },
	{ "{user1000}.following", 3443 },   /* the tag alone counts */
	{ "foo{}{bar}", 8363 },		    /* an empty tag: all of it */
	{ "{}x", 10595 }, { "a{b", 13340 }, /* no '}': all of it */
};

void
test_hashslot(void)
{
	current = "hashslot: the slots of a Redis Cluster";
	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
		unsigned s = hashslot_of(known[i].key, strlen(known[i].key));

		check(s == known[i].slot, "%s: slot %u, want %u", known[i].key,
		    s, known[i].slot);
	}
	/* CRC16/XMODEM's check value: "123456789" gives 0x31c3. */
	check(hashslot_of("123456789", 9) == (0x31c3 % HASHSLOT_COUNT),
	    "the check value of the CRC");
	check(hashslot_of("", 0) == 0, "no bytes: slot 0");
	check(hashslot_of("a\0b", 3) != hashslot_of("a", 1),
	    "bytes past a NUL count");
	check(hashslot_of("x{tag}y", 7) == hashslot_of("tag", 3) &&
		hashslot_of("{tag}", 5) == hashslot_of("tag", 3),
	    "keys of one tag share a slot");
}
