#!/bin/sh
# Run a command on a busy machine: N processes (default 2, BURNERS=N) that
# spin on the CPU at the ordinary priority, as other work on a shared
# machine does, for as long as the command runs; they are stopped by their
# pids however it ends.  The command's exit status is this script's.
# Usage: sh tests/tools/busy.sh COMMAND [ARG...]   (make check-busy runs make check)
set -u
n=${BURNERS:-2}
pids=
stop() {
	# shellcheck disable=SC2086 # a list of pids
	[ -n "$pids" ] && kill $pids 2>/dev/null
	pids=
}
trap stop EXIT
trap 'stop; exit 130' INT
trap 'stop; exit 143' TERM
i=0
while [ "$i" -lt "$n" ]; do
	sh -c 'while :; do :; done' &
	pids="$pids $!"
	i=$((i + 1))
done
echo "busy.sh: $n CPU-bound processes running (pids$pids)" >&2
start=$(date +%s)
"$@"
rc=$?
stop
echo "busy.sh: '$*' ended with status $rc after $(($(date +%s) - start)) s" \
	"beside $n CPU-bound processes" >&2
exit "$rc"
