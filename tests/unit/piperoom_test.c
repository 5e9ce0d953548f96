/* Unit tests of piperoom.c: the pages a pipe's unread writes may hold. */
#include "piperoom.h"
#include "unit.h"

#define PAGE 4096
#define PAGES 16

/* The room piperoom_free finds in r for queued bytes, against want. */
static void
room_is(struct piperoom *r, size_t queued, size_t want, const char *what)
{
	size_t got = piperoom_free(r, queued, PAGE, PAGES);

	check(got == want, "%s: %zu bytes queued: room %zu, want %zu", what,
	    queued, got, want);
}

void
test_piperoom(void)
{
	struct piperoom r = { 0 };

	current = "piperoom";
	room_is(&r, 0, PAGES * PAGE, "empty");
	/* 14 writes of 2049 bytes: a page each, though 7 would hold them. */
	for (int i = 0; i < 14; i++)
		piperoom_wrote(&r, 2049);
	room_is(&r, 14 * 2049, 2 * PAGE, "14 writes of 2049 bytes");
	/* The first 3 read: their pages are free again. */
	room_is(&r, 11 * 2049, 5 * PAGE, "11 of them unread");
	/* The fourth begun: its page is still held. */
	room_is(&r, 11 * 2049 - 100, 5 * PAGE, "the oldest partly read");
	/* A write of 10245 bytes (5 records) may take 3 pages. */
	piperoom_wrote(&r, 10245);
	room_is(&r, 14 * 2049 + 10245, 0, "and a write of 10245 bytes");
	/* Bytes the writes remembered do not account for: no room known. */
	room_is(&r, 14 * 2049 + 10245 + 1, 0, "a byte of another writer");
	/* Once empty, the writes before are forgotten. */
	room_is(&r, 0, PAGES * PAGE, "read to the end");
	piperoom_wrote(&r, 100);
	room_is(&r, 200, 0, "more than written since it was empty");
	room_is(&r, 100, (PAGES - 1) * PAGE, "one small write");
	/* Writes of whole pages hold exactly their pages. */
	room_is(&r, 0, PAGES * PAGE, "read again");
	for (int i = 0; i < PIPEROOM_WRITES + 3; i++)
		piperoom_wrote(&r, PAGE);
	room_is(&r, 10 * PAGE, 6 * PAGE, "10 pages of many page writes");
	room_is(&r, (size_t)PIPEROOM_WRITES * PAGE, 0,
	    "more than the pipe's pages");
	room_is(&r, (size_t)(PIPEROOM_WRITES + 1) * PAGE, 0,
	    "beyond the writes remembered");
}
