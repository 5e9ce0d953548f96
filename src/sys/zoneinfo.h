/* A zone's table of UTC offsets (zonemap), from the system's zone data. */
#ifndef ZONEINFO_H
#define ZONEINFO_H

#include <stddef.h>
#include <stdint.h>

#include "zonemap.h"

/*
 * Fill z with the zone name names, for the years around wall_ns (ns
 * since 1970) that a run can last: from 400 days before to 3 years
 * after, each change of its offset found to the second.  name is "UTC",
 * a file of the zone data ($TZDIR, else /usr/share/zoneinfo) such as
 * Europe/Paris, the absolute path of a zone file (TZif), or "local": the
 * zone TZ names, else /etc/localtime's.  z->name is then the name
 * resolved, the same for every spelling of "local" that means one zone,
 * and "UTC" for a zone that is UTC.  The zone is checked before it is
 * used, since the C library takes an unknown TZ for UTC without a word.
 * TZ is set to it for the while, then put back.  0, or -1 with the
 * reason, a line naming name and what would do, in err.
 */
int zoneinfo_load(struct zonemap *z, const char *name, int64_t wall_ns,
    char *err, size_t errsz);

#endif
