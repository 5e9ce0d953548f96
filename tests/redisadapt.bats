#!/usr/bin/env bats
# --adapt --shared NAME --redis URL: the processes of a bucket kept in a
# real redis-server (on any host) slow together, from the cuts Redis
# stamps with its own clock, and hold together for a Retry-After; against
# tests/tools/quotad.py through examples/curl-retry.

load helpers
load redis

setup_file() {
	file_redis
}

teardown_file() {
	stop_redis
}

setup() {
	need_redis
	command -v python3 >/dev/null || skip "python3 is not installed"
	command -v curl >/dev/null || skip "curl is not installed"
	[[ $(redis-cli -p "$RPORT" ping 2>/dev/null) == PONG ]] || start_redis
	RURL=redis://127.0.0.1:$RPORT
	P=adapt$BATS_TEST_NUMBER
	PATH=$BATS_TEST_DIRNAME/../examples:$PATH
}

teardown() {
	quotad_stop
	stop_own_redis
}

# has_cut: the server of the test's own (OPORT) holds a cut of bucket P.
has_cut() {
	[[ -n $(redis-cli -p "$OPORT" hget "tbthrottle-settings:$P" ac) ]]
}

@test "--adapt --redis: a cut one process heard slows every process of the bucket, and no other bucket" {
	local d=$BATS_TEST_TMPDIR limit
	printf '#!/bin/sh\n[ "$TBTHROTTLE_TRY" = 1 ] && exit 75\nexit 0\n' >"$d/once"
	chmod +x "$d/once"
	# One refusal: a cut to 3500/s, back at 5000/s some 15 s later.
	run -0 tb --shared "$P" --redis "$RURL" -r 5000/s --adapt --retry 1 \
	    --retry-delay 1ms --exec "$d/once" < <(echo x)
	# Redis keeps it, stamped with its own clock.
	[[ $(redis-cli -p "$RPORT" hget "tbthrottle-settings:$P" ac) =~ ^[0-9]{13,}$ ]]
	# Another process, refused by nobody, books at the cut rate too.
	run -0 --separate-stderr tb --shared "$P" --redis "$RURL" -r 5000/s \
	    --adapt --stats=json --exec true < <(seq 3)
	limit=$(sed -n 's/.*"limit":"\([0-9.]*\)\/s.*/\1/p' <<<"$stderr")
	awk -v l="$limit" 'BEGIN { exit !(l >= 3500 && l < 5000) }' ||
	    { echo "$stderr" >&2; false; }
	[[ $stderr == *'"adapt":{"refusals":0,"cuts":0}'* ]] ||
	    { echo "$stderr" >&2; false; }
	# A bucket of another name heard nothing.
	run -0 --separate-stderr tb --shared "${P}x" --redis "$RURL" -r 5000/s \
	    --adapt --stats=json --exec true < <(seq 3)
	[[ $stderr == *"\"limit\":\"5000/s, burst 1, shared as ${P}x\""* ]] ||
	    { echo "$stderr" >&2; false; }
}

@test "--adapt --redis: two processes ten times over the server's rate share its refusals and its slowing; every URL ends with 200" {
	local d=$BATS_TEST_TMPDIR pid st=0 i
	quotad --bucket 5/s,1
	for ((i = 1; i <= 20; i++)); do echo "${URL}u$i"; done >"$d/urls"
	head -n 10 "$d/urls" >"$d/a"
	tail -n 10 "$d/urls" >"$d/b"
	TB_LIMIT=90 tb --shared "$P" --redis "$RURL" -r 50/s --adapt \
	    --retry 100 --retry-delay 100ms --retry-max-delay 1s "$d/a" \
	    --exec curl-retry 2>"$d/a.err" &
	pid=$!
	TB_LIMIT=90 run -0 tb --shared "$P" --redis "$RURL" -r 50/s --adapt \
	    --retry 100 --retry-delay 100ms --retry-max-delay 1s "$d/b" \
	    --exec curl-retry
	wait "$pid" || st=$?
	assert_eq "$st" 0 "the other process's exit"
	assert_eq "$(awk '$4 == 200' "$d/requests" | wc -l)" 20 "URLs answered 200"
}

@test "--adapt --redis: a Retry-After one process heard holds the starts of every process of the bucket" {
	local d=$BATS_TEST_TMPDIR pid first second
	refused_once "$d/cmd" 3
	tb --shared "$P" --redis "$RURL" -r 100/s --adapt --retry 1 \
	    --name "$P-a" --exec "$d/cmd" {} < <(echo a) &
	pid=$!
	# b starts once a has counted its refusal: a counts it as it reaps
	# the refused command, and holds the bucket in the same step, before
	# it answers -R.  A tool that kept the hold to itself would start b
	# at once, well under the 3 s.
	wait_for "a's refusal" stat_ge "$P-a" refusals 1
	run -0 tb --shared "$P" --redis "$RURL" -r 100/s --adapt \
	    --exec "$d/cmd" {} < <(echo b)
	wait "$pid"
	first=$(awk '$2 == "a" && $3 == 1 { print $1 }' "$d/cmd.starts")
	second=$(awk '$2 == "b" { print $1 }' "$d/cmd.starts")
	# a's stamp came before its end, and so before the hold.
	assert_ge $(((second - first) / 1000000)) 3000 "ms to b's start"
}

@test "--adapt --redis: while Redis is down the run goes on with its own cuts, and offers them when it is back" {
	local d=$BATS_TEST_TMPDIR pid
	OPORT=$(free_port)
	printf '#!/bin/sh\necho "$1" >>"$0.starts"\n[ "$TBTHROTTLE_TRY" = 1 ] && exit 75\nexit 0\n' >"$d/once"
	chmod +x "$d/once"
	# No server yet: the local limit stands in, and the cut is this
	# process's alone, until Redis is there to be told.
	tb --shared "$P" --redis "redis://127.0.0.1:$OPORT" --redis-fallback local \
	    -r 5000/s --adapt --retry 1 --retry-delay 1ms --stats=json \
	    --exec "$d/once" {} < <(echo x; sleep 6; echo y) 2>"$d/err" &
	pid=$!
	wait_for "the refusal" has_lines "$d/once.starts" 2
	start_redis "$OPORT"
	wait_for "the cut in Redis" has_cut
	wait "$pid"
	grep -q '"adapt":{"refusals":2,"cuts":' "$d/err" || { cat "$d/err" >&2; false; }
	grep -q "limiting locally until it is back" "$d/err" || { cat "$d/err" >&2; false; }
}

@test "--adapt --redis: a server that hangs mid-run is an outage as without --adapt: limited locally at once, every record out" {
	local d=$BATS_TEST_TMPDIR pid
	own_redis
	mkfifo "$d/in"
	tb --shared "$P" --redis "redis://127.0.0.1:$OPORT" --redis-fallback local \
	    -r 100/s --adapt --exec true <"$d/in" 2>"$d/err" &
	pid=$!
	exec 9>"$d/in"
	echo a >&9
	sleep 0.5
	kill -STOP "$(cat "$BATS_FILE_TMPDIR/redis-$OPORT.pid")"
	seq 20 >&9
	exec 9>&-
	# Each look at the fleet's cut once waited for the hung server,
	# again and again: the run held every record until it answered.
	wait_for "the local limit" has_text "$d/err" "limiting locally until it is back"
	wait "$pid"
	kill -CONT "$(cat "$BATS_FILE_TMPDIR/redis-$OPORT.pid")"
}
