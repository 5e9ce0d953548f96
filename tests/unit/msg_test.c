/* Unit tests of msg.c: what a message shows of the bytes quoted in it. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "msg.h"
#include "unit.h"

/* msg_escape makes in into want, in a buffer of size bytes. */
static void
escapes(const char *in, const char *want, size_t size)
{
	char buf[2048];

	snprintf(buf, sizeof buf, "%s", in);
	msg_escape(buf, size);
	check(strcmp(buf, want) == 0, "msg_escape(\"%s\", %zu): got \"%s\"",
	    want, size, buf);
}

/* Every byte shown, as one line, and no more bytes than it had room for. */
static void
random_bytes(void)
{
	char in[300], buf[300];

	for (int t = 0; t < 5000; t++) {
		size_t n = rng_below(sizeof in - 1), size = 1 + rng_below(300);
		bool clean = true;

		for (size_t i = 0; i < n; i++)
			in[i] = (char)(1 + rng_below(255));
		in[n] = '\0';
		memcpy(buf, in, n + 1);
		msg_escape(buf, size);
		for (size_t i = 0; buf[i] != '\0'; i++)
			clean = clean && (unsigned char)buf[i] >= 0x20 &&
			    buf[i] != 0x7f;
		check(strlen(buf) < size && clean,
		    "%zu random bytes in %zu: one line that fits", n, size);
	}
}

void
test_msg(void)
{
	char out[64];

	current = "msg_escape";
	escapes("plain text", "plain text", 64);
	escapes("a\nb\tc\x1b[2J\x7f", "a\\x0ab\\x09c\\x1b[2J\\x7f", 64);
	/* UTF-8 stays, but what steers a terminal is shown as bytes. */
	escapes("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
	    "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", 64);
	escapes("\xc2\x9b"
		"2J",
	    "\\xc2\\x9b2J", 64);
	escapes("\x9b"
		"2J",
	    "\\x9b2J", 64);
	escapes("\xe2\x80\xae"
		"x \xe2\x81\xa6 \xd8\x9c \xe2\x80\xa8",
	    "\\xe2\\x80\\xaex \\xe2\\x81\\xa6 \\xd8\\x9c \\xe2\\x80\\xa8", 64);
	/* Bytes that are no UTF-8: stray, overlong, surrogate, cut short. */
	escapes("\xff\xfe \xc0\xaf \xed\xa0\x80 \xc3(",
	    "\\xff\\xfe \\xc0\\xaf \\xed\\xa0\\x80 \\xc3(", 64);
	escapes("\xe2\x82", "\\xe2\\x82", 64);
	escapes("\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80", 64);
	/* Cut to fit, never inside a character or an escape. */
	escapes("abc\xc3\xa9", "abc", 5);
	escapes("ab\n", "ab", 5);
	random_bytes();

	current = "msg_bytes";
	check(strcmp(msg_bytes("a\0b", 3, out, sizeof out), "a\\x00b") == 0,
	    "a NUL shown: %s", out);
	check(strcmp(msg_bytes("abcdef", 6, out, 4), "abc") == 0,
	    "cut to fit: %s", out);
	check(strcmp(msg_bytes("\0\0", 2, out, 8), "\\x00") == 0,
	    "a NUL whole or not at all: %s", out);
}
