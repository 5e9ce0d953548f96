#!/usr/bin/env bash
# Run tbthrottle under valgrind in every mode on small inputs: no invalid
# access, no use of uninitialised memory, no leak.  Exits 1 on the first
# error.  Timing is not checked here (valgrind is slow); the bats suite
# does that.  Usage: bash tests/tools/valgrind.sh [TBTHROTTLE]
set -euo pipefail
cd "$(dirname "$0")/../.."
tb=${1:-./tbthrottle}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export XDG_RUNTIME_DIR=$tmp/run
mkdir -m 700 "$XDG_RUNTIME_DIR"
seq 300 >"$tmp/lines"
{ head -c 200000 /dev/zero | tr '\0' x; echo; seq 20; } >"$tmp/long"
awk 'BEGIN { for (i = 0; i < 3000; i++) printf "k%d %d\n", i % 50, i }' >"$tmp/keys"
# Keys too long to keep inside an entry, more than --max-keys of them,
# over several reads: buckets refill, are forgotten and make room.
awk 'BEGIN { for (i = 0; i < 30000; i++)
	printf "a-key-longer-than-19-bytes-%d %d\n", i % 300, i }' \
	>"$tmp/longkeys"

vg() {
	valgrind -q --error-exitcode=99 --leak-check=full \
	    --errors-for-leak-kinds=definite,indirect --track-fds=no "$@"
}

n=0
check() { # check INPUT ARGS...: run, compare nothing, fail on errors
	local in=$1 rc=0
	shift
	n=$((n + 1))
	vg "$tb" "$@" <"$in" >"$tmp/out" 2>"$tmp/err" || rc=$?
	if [[ $rc == 99 ]] || grep -q '^==[0-9]*==' "$tmp/err"; then
		echo "valgrind: errors in: tbthrottle $*" >&2
		cat "$tmp/err" >&2
		exit 1
	fi
}

check "$tmp/lines" -r inf
check "$tmp/lines" -c -r inf
check "$tmp/lines" -r 2k/s -b 100 -s
check "$tmp/lines" -r 3k/s --leaky --stats=json
check "$tmp/lines" -c -r 200K/s
check "$tmp/lines" -0 -r 5k/s -b 10
check "$tmp/long" -r 1k/s --byte-rate 10M/s --byte-burst 1000
check "$tmp/long" -r 1/min -b 5 --drop-to "$tmp/dropped"
check "$tmp/lines" -a sliding -r 1000/s
check "$tmp/lines" -a fixed -r 2000/s
check "$tmp/lines" -r 1000/s -b 50 -r 5000/s -b 5
check "$tmp/lines" --leaky -r 3k/s --queue 5 --drop
check "$tmp/long" --leaky -r 1k/s --queue 3
check "$tmp/keys" -k 1 -r 1/min --drop
check "$tmp/keys" -k 1 -r 100k/s
check "$tmp/longkeys" -k 1 -r 20k/s -b 2 --max-keys 20 --drop
check "$tmp/lines" --shared vg -r 5k/s -b 100
check "$tmp/lines" --shared vg -r 5k/s -b 100 --drop
check /dev/null -r 1/s -R 1
# Commands: tries again, their records kept, failed and logged; a rate
# learnt, alone and through a shared bucket; a command that is not there.
seq 10 >"$tmp/ten"
# shellcheck disable=SC2016 # the script's own variables
printf '#!/bin/sh\n[ "$TBTHROTTLE_TRY" = 1 ] && { echo 0 >"$TBTHROTTLE_RETRY_AFTER"; exit 75; }\nexit 0\n' \
	>"$tmp/once"
chmod +x "$tmp/once"
check "$tmp/ten" -r 1k/s -j 3 --retry 2 --retry-delay 1ms \
	--failed-to "$tmp/failed" --joblog "$tmp/joblog" --exec sh -c 'exit 75'
check "$tmp/ten" -r 1k/s -j 3 --joblog "$tmp/joblog" --resume-failed \
	--timeout 5s --exec true '{}' '{1}' '{#}'
check "$tmp/ten" -r 1k/s -j 2 --adapt --retry 1 --retry-delay 1ms \
	-s --exec "$tmp/once"
check "$tmp/ten" --shared vga -r 1k/s --adapt --retry 1 \
	--retry-delay 1ms --exec "$tmp/once"
check "$tmp/ten" -r 1k/s --exec "$tmp/not-there"
# The commands' output through pipes, tagged, and through files.
# shellcheck disable=SC2016 # the command's own $0
check "$tmp/ten" -r 1k/s -j 4 --tag --exec sh -c 'echo "$0"; printf x >&2'
check "$tmp/ten" -r 1k/s -j 2 --group --tagstring '{#}' --exec echo a
# A dry run reads through a record longer than its buffer.
check "$tmp/long" --replay --dry-run --time-format %s
if "$tb" -V | grep -q 'Redis support: yes'; then
	# Down: the local fallback; up (when redis-server is here): the
	# script's replies, per key and not.
	check "$tmp/lines" --shared vg -r 5k/s --redis redis://127.0.0.1:1 \
	    --redis-fallback local
	if command -v redis-server >/dev/null; then
		port=$((20000 + RANDOM % 20000))
		redis-server --port "$port" --bind 127.0.0.1 --save '' \
		    --appendonly no >/dev/null 2>&1 &
		rpid=$!
		trap 'kill "$rpid" 2>/dev/null; rm -rf "$tmp"' EXIT
		for ((i = 0; i < 500; i++)); do
			[[ $(redis-cli -p "$port" ping 2>/dev/null) == PONG ]] &&
			    break
			sleep 0.01
		done
		check "$tmp/lines" --shared vg -r 5k/s -b 100 \
		    --redis "redis://127.0.0.1:$port"
		check "$tmp/keys" --shared vgk -k 1 -r 1/min --drop \
		    --redis "redis://127.0.0.1:$port"
		# Hung: limited locally, probed in the background meanwhile.
		kill -STOP "$rpid"
		check "$tmp/lines" --shared vgh -r 150/s -b 10 \
		    --redis "redis://127.0.0.1:$port" --redis-fallback local
		kill -CONT "$rpid"
	fi
fi
check /dev/null --bogus
check /dev/null -r 1/s --help
echo "valgrind: $n runs clean"
