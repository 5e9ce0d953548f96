/* Names in the run directory: a run's name, a bucket, a boot's directory. */
#ifndef RUNNAME_H
#define RUNNAME_H

#include <stdbool.h>
#include <stddef.h>

/* Characters in a boot key: a Linux boot id, or a stand-in as long. */
#define RUNNAME_BOOT_LEN 36

/*
 * The run directory holds, for names NAME and SHARED of letters, digits,
 * '.', '_' and '-' that do not start with '.':
 *   PID                      the control socket of process PID
 *   name.NAME                a link to the socket of the run called NAME
 *   .NAME.name               the lock that run holds while it lives
 *   SHARED.bucket            the bucket of --shared SHARED
 *   .SHARED.bucket.PID.tmp   that bucket while process PID creates it
 * No form can be read as another, except that a link and a bucket may
 * have one name (name.x.bucket): the kind of the file tells them apart.
 */

/* The name of the link to the run called name, into out; -1 if too long. */
int runname_link(char *out, size_t size, const char *name);

/* The NAME in a link's name f, name.NAME, or NULL when f is not one. */
const char *runname_link_name(const char *f);

/* The name of the lock of the run called name, into out; -1 if too long. */
int runname_lock(char *out, size_t size, const char *name);

/*
 * The name under which process pid creates the bucket name before it
 * links it into place, into out.  -1 when it does not fit.
 */
int runname_temp(char *out, size_t size, const char *name, long pid);

/* The pid in a name made by runname_temp, or -1 when f is not one. */
long runname_temp_pid(const char *f);

/*
 * The directory of one boot of a host, HOST-BOOT, into out: host with
 * every byte but letters, digits, '.', '_' and '-' made '_', and the boot
 * key boot (RUNNAME_BOOT_LEN bytes of [0-9a-f-]).  -1 when it does not
 * fit or boot is not a boot key.
 */
int runname_boot(char *out, size_t size, const char *host, const char *boot);

/*
 * Is f the directory of a boot of the same host as ours (a name made by
 * runname_boot), other than ours?
 */
bool runname_other_boot(const char *f, const char *ours);

#endif
