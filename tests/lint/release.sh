#!/usr/bin/env bash
# The version and the dates a release carries move together: tbthrottle
# --version is debian/changelog's newest version; the man page's .Dd is
# no older than the page's last change; and that changelog entry is no
# older than .Dd.  The package's files carry the entry's date (dpkg's
# SOURCE_DATE_EPOCH), and man trusts a page it has cached while the page's
# date stays the same: a page changed without a new entry is shown stale.
# Usage: bash tests/lint/release.sh [TOP]  (make lint and make deb run it)
set -u
top=${1:-.}
page=man/tbthrottle.1
fail=0

version=$(sed -n 's/^#define TBTHROTTLE_VERSION[^"]*"\(.*\)"/\1/p' \
    "$top/src/cli/options.h")
changelog=$(sed -n '1s/^tbthrottle (\([^)]*\)).*/\1/p' "$top/debian/changelog")
if [[ $version != "$changelog" ]]; then
	echo "release: src/cli/options.h has version $version but" \
	    "debian/changelog has $changelog: give them the same version" >&2
	fail=1
fi

dd=$(sed -n 's/^\.Dd //p' "$top/$page")
dd_day=$(date -u -d "$dd" +%F 2>/dev/null) || {
	echo "release: $page: .Dd '$dd' is not a date" >&2
	exit 1
}

# The day the page last changed: today while it has changes not committed
# yet, else its last commit's author date (which a rebase keeps).  Outside
# a git checkout (a tarball) there is nothing to compare.
changed=
if git -C "$top" rev-parse --verify -q HEAD >/dev/null 2>&1; then
	if ! git -C "$top" diff --quiet HEAD -- "$page"; then
		changed=$(date -u +%F)
	else
		changed=$(git -C "$top" log -1 --format=%as -- "$page")
	fi
fi
if [[ -n $changed && $dd_day < $changed ]]; then
	echo "release: $page changed on $changed but its .Dd is $dd:" \
	    "date the page to its change" >&2
	fail=1
fi

entry=$(sed -n 's/^ -- .*>  //p' "$top/debian/changelog" | head -n 1)
entry_day=$(date -u -d "$entry" +%F)
if [[ $entry_day < $dd_day ]]; then
	echo "release: debian/changelog's newest entry ($changelog) is of" \
	    "$entry_day, older than the man page's .Dd ($dd): add an entry" \
	    "with a new version (dch -v), or man keeps showing the page it" \
	    "cached" >&2
	fail=1
fi
exit "$fail"
