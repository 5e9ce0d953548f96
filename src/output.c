/* Output: writing whole runs of bytes, whatever signals arrive meanwhile. */
#include <err.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include "clock.h"
#include "output.h"
#include "signals.h"

int
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
			/* The reader went away: stop as for a signal. */
			signals_stop(SIGPIPE);
			return -1;
		} else if (errno == EINTR) {
			signals_poll_report();
		} else {
			err(1, "write error%s%s", name ? " on " : "",
			    name ? name : "");
		}
	}
	return 0;
}

void
output_say(const char *b, size_t len)
{
	while (len > 0) {
		ssize_t n = write(STDERR_FILENO, b, len);

		if (n > 0) {
			b += n;
			len -= (size_t)n;
		} else if (n < 0 && errno == EAGAIN) {
			(void)clock_wait_ready(STDERR_FILENO, POLLOUT, true);
		} else if (n == 0 || errno != EINTR) {
			return; /* a report never stops the run */
		}
	}
}
