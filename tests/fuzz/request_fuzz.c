/* Fuzz target: control requests' first lines, made and read back. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "request.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Whatever msg holds, what is read from it points into it. */
static void
check_read(const char *msg, long pid, const char *name)
{
	const char *req = NULL, *reply = NULL;
	char who[64];
	long from = -1;
	size_t len = strlen(msg);

	if (request_is_for(msg, pid, name, &req) &&
	    (req < msg || req > msg + len))
		abort();
	if (request_sender(msg, &from, who, sizeof who, &reply) == 0 &&
	    (reply < msg || reply > msg + len || from < 1 ||
		from > 0x7fffffffL || strlen(who) >= sizeof who ||
		strchr(who, '\n') != NULL))
		abort();
}

/* A request made for target is for the run it names, and no other. */
static void
check_to(const char *target, const char *req, long pid)
{
	char msg[1200];
	const char *got;

	if (request_to(msg, sizeof msg, target, req) != 0)
		return;
	if (strchr(target, '\n') != NULL)
		return;
	if (!request_is_for(msg, pid, target, &got) || strcmp(got, req) != 0)
		abort();
	/* Sent to a name, it is for no other name than that. */
	if (target[0] != '\0' && request_is_for(msg, pid, "", &got) &&
	    strspn(target, "0123456789") != strlen(target))
		abort();
}

/* The line request_from makes reads back as its pid and name. */
static void
check_from(long pid, const char *name, const char *reply)
{
	char msg[1200], who[256];
	const char *got;
	long from;
	int n;

	/* A run has a name (as --name takes it) or none, NULL. */
	if (strchr(name, '\n') != NULL || strcmp(name, "-") == 0 ||
	    (n = request_from(
		 msg, sizeof msg, pid, name[0] != '\0' ? name : NULL)) < 0)
		return;
	if ((size_t)n + strlen(reply) >= sizeof msg)
		return;
	strcpy(msg + n, reply);
	if (request_sender(msg, &from, who, sizeof who, &got) != 0) {
		/* Only a name with a space, or too long, cannot be read. */
		if (strchr(name, ' ') == NULL && strlen(name) < sizeof who)
			abort();
		return;
	}
	if (strchr(name, ' ') == NULL &&
	    (from != pid || strcmp(who, name[0] != '\0' ? name : "") != 0 ||
		strcmp(got, reply) != 0))
		abort();
}

/*
 * The first four bytes are a pid (1 to 2^31 - 1); the rest, split at
 * 0xff, a message, a name and a request.
 */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char buf[1024], *part[3] = { "", "", "" }, *p;
	long pid;
	int n = 0;

	if (size < 4 || size - 4 >= sizeof buf)
		return 0;
	pid = (long)(((uint32_t)data[0] << 24 | (uint32_t)data[1] << 16 |
			 (uint32_t)data[2] << 8 | data[3]) &
	    0x7fffffffU);
	if (pid == 0)
		pid = 1;
	memcpy(buf, data + 4, size - 4);
	buf[size - 4] = '\0';
	for (p = buf; n < 3; n++) {
		char *e = strchr(p, 0xff);

		part[n] = p;
		if (e == NULL)
			break;
		*e = '\0';
		p = e + 1;
	}
	check_read(part[0], pid, part[1][0] != '\0' ? part[1] : NULL);
	check_to(part[1], part[2], pid);
	check_from(pid, part[1], part[2]);
	return 0;
}
