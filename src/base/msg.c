/* Messages: one line each, naming the value, its control bytes shown. */
#include <stdarg.h>
#include <stdio.h>

#include "msg.h"

void
msg_escape(char *msg, size_t size)
{
	char tmp[1024];
	size_t j = 0;

	if (size == 0)
		return;
	for (size_t i = 0; msg[i] != '\0' && j + 5 < sizeof tmp; i++) {
		unsigned char c = (unsigned char)msg[i];

		if (c < 0x20 || c == 0x7f)
			j += (size_t)snprintf(
			    tmp + j, sizeof tmp - j, "\\x%02x", c);
		else
			tmp[j++] = (char)c;
	}
	tmp[j] = '\0';
	snprintf(msg, size, "%s", tmp);
}

int
msg_fail(char *err, size_t errsz, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	/* NOLINTNEXTLINE(clang-analyzer-valist.Uninitialized) */
	vsnprintf(err, errsz, fmt, ap);
	va_end(ap);
	return -1;
}
