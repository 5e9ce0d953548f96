/* Unit tests of runname.c: names of runs, buckets and boot directories. */
#include <string.h>

#include "runname.h"
#include "unit.h"

#define BOOT_A "4ededd5f-b804-4c62-ab23-28cbfae1d770"
#define BOOT_B "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0"

static void
temp_pid_is(const char *f, long want)
{
	long got = runname_temp_pid(f);

	check(got == want, "temp pid of '%s': %ld, want %ld", f, got, want);
}

/* Temporary buckets, and names that look like them. */
static void
test_temp(void)
{
	char buf[128];

	current = "runname: temporary buckets, named by their creator";
	check(runname_temp(buf, sizeof buf, "api", 4242) == 0 &&
		strcmp(buf, ".api.bucket.4242.tmp") == 0,
	    "made: %s", buf);
	temp_pid_is(buf, 4242);
	check(runname_temp(buf, 13, "api", 4242) == -1, "too long for 13");
	runname_temp(buf, sizeof buf, "v1.2-x", 2147483647L);
	temp_pid_is(buf, 2147483647L);
	temp_pid_is(".a.bucket.2147483648.tmp", -1);
	temp_pid_is(".a.bucket.99999999999999999999.tmp", -1);
	temp_pid_is(".a.bucket.0.tmp", -1);
	temp_pid_is(".a.bucket..tmp", -1);
	temp_pid_is(".a.bucket.12x.tmp", -1);
	temp_pid_is(".bucket.12.tmp", -1);
	temp_pid_is("..bucket.12.tmp", -1);
	temp_pid_is(".a.bucket", -1);
	temp_pid_is(".a.12.tmp", -1);
	temp_pid_is(".a.bucket.12.tmp.x", -1);
	temp_pid_is("4242", -1);
	temp_pid_is(".tmp", -1);
	temp_pid_is("", -1);

	current = "runname: no name can be read as a temporary bucket";
	/* A run called a.bucket.99.tmp, and a bucket of that name. */
	temp_pid_is("a.bucket.99.tmp", -1);
	temp_pid_is("name.a.bucket.99.tmp", -1);
	runname_link(buf, sizeof buf, "a.bucket.99.tmp");
	temp_pid_is(buf, -1);
	runname_lock(buf, sizeof buf, "a.bucket.99.tmp");
	temp_pid_is(buf, -1);
	check(strcmp(buf, ".a.bucket.99.tmp.name") == 0, "lock: %s", buf);
}

/* A run's name: its link and its lock. */
static void
test_name(void)
{
	char buf[128];

	current = "runname: a run's name: its link and its lock";
	check(runname_link(buf, sizeof buf, "replay") == 0 &&
		strcmp(buf, "name.replay") == 0,
	    "link: %s", buf);
	check(runname_link(buf, 11, "replay") == -1, "too long for 11");
	check(runname_lock(buf, sizeof buf, "replay") == 0 &&
		strcmp(buf, ".replay.name") == 0,
	    "lock: %s", buf);
	check(runname_lock(buf, 12, "replay") == -1, "too long for 12");
	check(runname_link_name("name.replay") != NULL &&
		strcmp(runname_link_name("name.replay"), "replay") == 0,
	    "the name in a link");
	check(runname_link_name("name.") == NULL, "no name");
	check(runname_link_name("name..x") == NULL, "a name starts not with .");
	check(runname_link_name("names") == NULL, "not a link");
	check(runname_link_name("4242") == NULL, "a socket");
	check(runname_link_name(".replay.name") == NULL, "a lock");
}

/* The directories of a host's boots. */
static void
test_boot(void)
{
	char buf[128], a[128], b[128];

	current = "runname: a directory per boot of a host";
	check(runname_boot(a, sizeof a, "vm", BOOT_A) == 0 &&
		strcmp(a, "vm-" BOOT_A) == 0,
	    "made: %s", a);
	check(runname_boot(buf, sizeof buf, "a/b c\n", BOOT_A) == 0 &&
		strcmp(buf, "a_b_c_-" BOOT_A) == 0,
	    "host made safe: %s", buf);
	check(runname_boot(buf, sizeof buf, "vm", "not-a-boot") == -1,
	    "a boot key has 36 characters");
	check(runname_boot(buf, sizeof buf, "vm", BOOT_A "0") == -1,
	    "and no more");
	check(runname_boot(buf, sizeof buf, "vm",
		  "4EDEDD5F-B804-4C62-AB23-28CBFAE1D770") == -1,
	    "in lower case");
	check(runname_boot(buf, 39, "vm", BOOT_A) == -1, "too long for 39");
	runname_boot(b, sizeof b, "vm", BOOT_B);
	check(runname_other_boot(b, a), "another boot of vm is swept");
	check(!runname_other_boot(a, a), "ours is kept");
	runname_boot(b, sizeof b, "vm-x", BOOT_B);
	check(!runname_other_boot(b, a), "host vm-x is not vm");
	runname_boot(b, sizeof b, "v", BOOT_B);
	check(!runname_other_boot(b, a), "host v is not vm");
	runname_boot(b, sizeof b, "wm", BOOT_B);
	check(!runname_other_boot(b, a), "host wm is not vm");
	check(!runname_other_boot("vm-" BOOT_B "x", a), "longer");
	check(!runname_other_boot("vm-4ededd5f-b804-4c62-ab23-28cbfae1d77z", a),
	    "not a boot key");
	check(!runname_other_boot("api.bucket", a), "a bucket");
	check(!runname_other_boot("vm", "vm"), "not ours to compare");
}

void
test_runname(void)
{
	test_temp();
	test_name();
	test_boot();
}
