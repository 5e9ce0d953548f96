/* Output: writing whole runs of bytes, whatever signals arrive meanwhile. */
#include <err.h>
#include <errno.h>
#include <poll.h>
#include <unistd.h>

#include "clock.h"
#include "output.h"
#include "signals.h"

void
output_write(int fd, const char *b, size_t len, const char *name)
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
			(void)clock_wait_ready(fd, POLLOUT, true);
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
