#!/bin/sh
# The files a tbthrottle package must hold, read from the package itself
# (dpkg -c), each one it lacks named; make deb runs it on what it built.
# A page or a README over a few KiB is there compressed (.gz), as dh_compress
# leaves it.
# Usage: sh tests/tools/debfiles.sh PACKAGE.deb
set -u
deb=$1
list=$(dpkg -c "$deb" | awk '{ print $6 }' | sed 's,^\./,/,') || exit 1
fail=0
for f in /usr/bin/tbthrottle /usr/share/man/man1/tbthrottle.1 \
    /usr/share/bash-completion/completions/tbthrottle \
    /usr/share/zsh/vendor-completions/_tbthrottle \
    /usr/share/fish/vendor_completions.d/tbthrottle.fish \
    /usr/share/doc/tbthrottle/README.md \
    /usr/share/doc/tbthrottle/examples/curl-retry \
    /usr/share/doc/tbthrottle/copyright; do
	if ! printf '%s\n' "$list" | grep -qx -e "$f" -e "$f.gz"; then
		echo "debfiles: $deb lacks $f" >&2
		fail=1
	fi
done
exit "$fail"
