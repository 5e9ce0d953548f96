/* Messages: one line each, naming the value, its control bytes shown. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "msg.h"

/*
 * The length of the UTF-8 character at p (a NUL-ended string), to be
 * shown as it is; 0 when the bytes there are no character (a stray or
 * overlong byte, a surrogate), or one that steers a terminal: a C1
 * control (U+0080 to U+009F, which some terminals obey as ESC [ and the
 * like), a line or paragraph separator, or a mark that reorders text
 * (U+061C, U+200E, U+200F, U+202A to U+202E, U+2066 to U+2069).
 */
static size_t
shown_utf8(const unsigned char *p)
{
	size_t n;
	uint32_t cp;

	if (p[0] < 0xc2 || p[0] > 0xf4)
		return 0;
	n = p[0] < 0xe0 ? 2 : p[0] < 0xf0 ? 3 : 4;
	cp = p[0] & (0x7fU >> n);
	for (size_t i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80) /* a NUL ends it here too */
			return 0;
		cp = cp << 6 | (p[i] & 0x3fU);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	if (cp < 0xa0 || cp == 0x61c || cp == 0x200e || cp == 0x200f ||
	    (cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069))
		return 0;
	return n;
}

void
msg_escape(char *msg, size_t size)
{
	char tmp[1024];
	size_t j = 0, n, room = size < sizeof tmp ? size : sizeof tmp;

	if (size == 0)
		return;
	/* Each byte, character or escape whole, or the message ends. */
	for (size_t i = 0; msg[i] != '\0'; i++) {
		unsigned char c = (unsigned char)msg[i];

		if (c >= 0x20 && c < 0x7f) {
			if (j + 1 >= room)
				break;
			tmp[j++] = (char)c;
		} else if (c >= 0x80 &&
		    (n = shown_utf8((const unsigned char *)msg + i)) > 0) {
			if (j + n >= room)
				break;
			memcpy(tmp + j, msg + i, n);
			j += n;
			i += n - 1;
		} else {
			if (j + 4 >= room)
				break;
			j += (size_t)snprintf(
			    tmp + j, sizeof tmp - j, "\\x%02x", c);
		}
	}
	tmp[j] = '\0';
	memcpy(msg, tmp, j + 1);
}

const char *
msg_bytes(const char *s, size_t len, char *out, size_t size)
{
	size_t j = 0;

	if (size == 0)
		return out;
	for (size_t i = 0; i < len; i++) {
		if (s[i] != '\0' && j + 1 < size) {
			out[j++] = s[i];
		} else if (s[i] == '\0' && j + 4 < size) {
			memcpy(out + j, "\\x00", 4);
			j += 4;
		} else {
			break;
		}
	}
	out[j] = '\0';
	return out;
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
