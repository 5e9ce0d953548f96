/* Output: writing released units whole to standard output. */
#include <err.h>
#include <errno.h>
#include <poll.h>
#include <unistd.h>

#include "output.h"
#include "signals.h"

bool
wait_ready(int fd, short events)
{
	struct pollfd pfd = { .fd = fd, .events = events };

	while (poll(&pfd, 1, -1) < 0) {
		if (errno != EINTR)
			return true;	/* the read or write will say why */
		if (signals_stop_requested())
			return false;
		signals_poll_report();
	}
	return true;
}
void
write_all(int fd, const char *b, size_t len, const char *name)
{
	while (len > 0) {
		ssize_t n = write(fd, b, len);

		if (n >= 0) {
			b += n;
			len -= (size_t)n;
			/* A full pipe takes a long write piecemeal: let asked
			 * reports and changes in meanwhile. */
			if (len > 0)
				signals_poll_report();
		} else if (errno == EAGAIN || errno == EWOULDBLOCK) {
			(void)wait_ready(fd, POLLOUT);
		} else if (errno == EPIPE && fd == STDOUT_FILENO) {
			signals_die_of_sigpipe();
		} else if (errno == EINTR) {
			signals_poll_report();
		} else {
			err(1, "write error%s%s", name ? " on " : "",
			    name ? name : "");
		}
	}
}

void
output_release(struct stats *st, const char *b, size_t n, uint64_t units)
{
	write_all(STDOUT_FILENO, b, n, NULL);
	st->bytes_out += n;
	st->units_out += units;
}
