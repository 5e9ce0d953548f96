#!/usr/bin/env bash
# The package build's run of the bats suite: the tests that fail are run
# once more, one at a time, saying so, because a build machine may be busy
# enough to make a real-time test miss; a test that fails twice fails the run.
# Usage: bash tests/tools/recheck.sh JOBS FILE_OR_DIR...
set -u
jobs=$1
shift
log=$(mktemp)
trap 'rm -f "$log"' EXIT

bats --timing --jobs "$jobs" "$@" | tee "$log"
rc=${PIPESTATUS[0]}
[[ $rc == 0 ]] && exit 0

# The names of the failed tests, as bats -f matches them (an extended
# regular expression, each name whole).
mapfile -t failed < <(sed -n \
    's/^not ok [0-9]* \(.*\) in [0-9]*ms\( # .*\)\{0,1\}$/\1/p' "$log")
if ((${#failed[@]} == 0)); then
	echo "recheck: bats failed (status $rc) before any test did" >&2
	exit "$rc"
fi
filter=$(printf '%s\n' "${failed[@]}" | sed 's/[][\.*^$+?(){}|/]/\\&/g' |
    paste -s -d '|')
printf 'recheck: %d tests failed; running them once more, one at a time' \
    "${#failed[@]}" >&2
printf ' (a real-time test can miss on a busy machine):\n' >&2
printf 'recheck:   %s\n' "${failed[@]}" >&2
if bats --timing --jobs 1 -f "^($filter)\$" "$@"; then
	printf 'recheck: the %d tests passed when run again\n' "${#failed[@]}" >&2
	exit 0
fi
printf 'recheck: tests failed twice (above)\n' >&2
exit 1
