/* Room in a pipe: the pages the latest writes to it may hold; pure. */
#include "piperoom.h"

void
piperoom_wrote(struct piperoom *r, size_t len)
{
	r->len[r->next] = len;
	r->next = (r->next + 1) % PIPEROOM_WRITES;
	if (r->n < PIPEROOM_WRITES)
		r->n++;
}

size_t
piperoom_free(struct piperoom *r, size_t queued, size_t page, size_t pages)
{
	size_t held = 0, used = 0, len;

	if (queued == 0) {
		r->n = 0; /* all read: no write holds a page */
		return pages * page;
	}
	/* The newest writes, back to the oldest with a byte unread. */
	for (size_t k = 1; held < queued; k++) {
		if (k > r->n || page == 0)
			return 0;
		len = r->len[(r->next + PIPEROOM_WRITES - k) % PIPEROOM_WRITES];
		held += len;
		used += len / page + (len % page != 0);
	}
	return used < pages ? (pages - used) * page : 0;
}
