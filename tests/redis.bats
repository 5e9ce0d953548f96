#!/usr/bin/env bats
# --shared NAME --redis URL: one bucket for processes on many hosts, kept
# in a real redis-server on a loopback port.  Skipped, saying so, when
# redis-server is not installed or tbthrottle was built without hiredis.

load helpers

json_field() {
	sed -n "s/.*\"$1\":\\([0-9.e+-]*\\).*/\\1/p" <<<"$stderr"
}

# Start redis-server on port $RPORT, no persistence; wait until it answers.
start_redis() {
	redis-server --port "$RPORT" --bind 127.0.0.1 --save '' \
	    --appendonly no --daemonize no >"$BATS_FILE_TMPDIR/redis.log" 2>&1 &
	echo $! >"$BATS_FILE_TMPDIR/redis.pid"
	local i
	for ((i = 0; i < 500; i++)); do
		[[ $(redis-cli -p "$RPORT" ping 2>/dev/null) == PONG ]] && return 0
		sleep 0.01
	done
	echo "redis-server did not start on port $RPORT" >&2
	return 1
}

stop_redis() {
	local pid
	pid=$(cat "$BATS_FILE_TMPDIR/redis.pid" 2>/dev/null) || return 0
	kill "$pid" 2>/dev/null || true
	while kill -0 "$pid" 2>/dev/null; do sleep 0.01; done
}

setup_file() {
	command -v redis-server >/dev/null || return 0
	# A port that is free now: one the kernel hands out, then released.
	RPORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])' 2>/dev/null ||
	    echo $((20000 + RANDOM % 20000)))
	export RPORT
	start_redis
}

teardown_file() {
	stop_redis
}

setup() {
	command -v redis-server >/dev/null ||
	    skip "redis-server is not installed (apt-get install redis-server)"
	"$TB" -V | grep -q 'Redis support: yes' ||
	    skip "built without hiredis (apt-get install libhiredis-dev pkg-config)"
	URL=redis://127.0.0.1:$RPORT
	# Each test its own bucket names.
	P=t$BATS_TEST_NUMBER
}

@test "--redis: a second run finds the tokens the first one spent" {
	run -0 --separate-stderr bash -c 'seq 20 | tb --shared "$0" -r 1/min -b 5 --drop --redis "$1"' "$P" "$URL"
	assert_eq "$output" "$(seq 5)" "first run"
	run -0 --separate-stderr bash -c 'seq 20 | tb --shared "$0" -r 1/min -b 5 --drop --redis "$1"' "$P" "$URL"
	assert_eq "$output" "" "second run"
	# The key expires when the bucket is full again: in about 5 min.
	local ttl
	ttl=$(redis-cli -p "$RPORT" pttl "tbthrottle:$P")
	assert_le "$ttl" 300001 "expiry (ms)"
	assert_ge "$ttl" 200000 "expiry (ms)"
}

@test "--redis: four processes at once stay within burst + rate x time" {
	assert_four_share --shared "$P" --redis "$URL"
}

@test "--redis -k: a bucket per key, in Redis" {
	run -0 --separate-stderr bash -c '
	    printf "a 1\nb 1\na 2\nb 2\nc 1\n" |
	    tb --shared "$0" --redis "$1" -k 1 -r 1/min --drop' "$P" "$URL"
	assert_eq "$output" $'a 1\nb 1\nc 1' "kept"
	[[ $(redis-cli -p "$RPORT" exists "tbthrottle:$P:a") == 1 ]]
}

@test "--redis -k: keys that share their first 2000 bytes have buckets of their own" {
	local d=$BATS_TEST_TMPDIR stem
	stem=$(head -c 2000 /dev/zero | tr '\0' k)
	printf '%sA 1\n%sB 1\n%sA 2\n%sB 2\n' "$stem" "$stem" "$stem" "$stem" >"$d/in"
	run -0 --separate-stderr tb --shared "$P" --redis "$URL" -k 1 -r 1/min \
	    --drop "$d/in"
	assert_eq "$(cut -c 2001- <<<"$output")" $'A 1\nB 1' "lines kept, past the stem"
	assert_eq "$output" "$(sed -n 1,2p "$d/in")" "one line of each key"
	[[ $(redis-cli -p "$RPORT" exists "tbthrottle:$P:${stem}A" \
	    "tbthrottle:$P:${stem}B") == 2 ]]
}

@test "--redis: the server killed and restarted mid-stream loses and repeats nothing" {
	local d=$BATS_TEST_TMPDIR pid
	seq 150 >"$d/in"
	"$TB" --shared "$P" -r 100/s --redis "$URL" "$d/in" >"$d/out" 2>"$d/err" &
	pid=$!
	sleep 0.4
	stop_redis
	sleep 0.5
	start_redis
	wait "$pid"
	cmp "$d/in" "$d/out"
	stderr=$(cat "$d/err")
	[[ $(grep -c 'waiting for it' "$d/err") == 1 ]]
	[[ $(grep -c 'reached again' "$d/err") == 1 ]]
}

@test "--redis-fallback=block: waits for a server that is not up yet" {
	local d=$BATS_TEST_TMPDIR pid
	stop_redis
	seq 3 >"$d/in"
	"$TB" --shared "$P" -r 100/s --redis "$URL" "$d/in" >"$d/out" 2>"$d/err" &
	pid=$!
	sleep 0.5
	assert_eq "$(wc -l <"$d/out")" 0 "lines before the server is up"
	start_redis
	wait "$pid"
	cmp "$d/in" "$d/out"
}

@test "--redis-fallback=local limits locally while Redis is down; no password shown" {
	local url=redis://me:hunter2@127.0.0.1:1
	run -0 --separate-stderr bash -c 'seq 5 | tb --shared "$0" -r 1/min -b 2 --drop --redis "$1" --redis-fallback local' "$P" "$url"
	assert_eq "$output" $'1\n2' "kept by the local bucket"
	assert_one_stderr_line
	[[ $stderr == *"limiting locally"* && $stderr != *hunter2* ]]
}

@test "--redis-fallback=fail: exit 1, one line, no password" {
	run -1 --separate-stderr bash -c 'seq 5 | tb --shared "$0" -r 10/s --redis "$1" --redis-fallback fail' "$P" redis://:hunter2@127.0.0.1:1
	assert_one_stderr_line
	[[ $stderr == *"127.0.0.1:1"* && $stderr != *hunter2* ]]
	assert_eq "$output" "" "nothing copied"
}

@test "--redis: another rate for the same name is refused" {
	# At 1/min the key lives a minute: long enough for the second run
	# to find it however slow the machine (a full bucket has expired).
	run -0 --separate-stderr bash -c 'echo x | tb --shared "$0" -r 1/min --redis "$1"' "$P" "$URL"
	run -1 --separate-stderr bash -c 'echo x | tb --shared "$0" -r 2/min --redis "$1"' "$P" "$URL"
	assert_one_stderr_line
	[[ $stderr == *"-r 1/min"* && $stderr == *"-r 2/min"* ]]
}

@test "--redis usage errors, and no password in them" {
	local args
	for args in "--redis redis://h -r 1/s" "--redis-fallback local -r 1/s" \
	    "--shared x --redis http://h -r 1/s" "--shared x --redis redis:// -r 1/s" \
	    "--shared x --redis redis://h:0 -r 1/s" "--shared x --redis redis://h:99999 -r 1/s" \
	    "--shared x --redis redis://h/x -r 1/s" "--shared x --redis redis://h --redis-fallback maybe -r 1/s" \
	    "--shared x --redis redis://pw@h -r 1/s"; do
		eval "run -2 --separate-stderr tb $args" </dev/null
		assert_one_stderr_line
	done
	run -2 --separate-stderr tb --shared x --redis redis://:hunter2@h:0 -r 1/s </dev/null
	[[ $stderr != *hunter2* ]]
}

@test "--redis: a password without its @ is never shown" {
	local url
	for url in redis://admin:hunter2 redis://:hunter2 \
	    redis://admin:hunter2/0 rediss://admin:hunter2 \
	    rediss://admin:hunter2@h admin:hunter2; do
		run -2 --separate-stderr tb --shared x --redis "$url" -r 1/s </dev/null
		assert_one_stderr_line
		[[ $stderr != *hunter2* && $stderr == *'***'* ]] ||
		    { echo "$url: $stderr" >&2; return 1; }
	done
}

@test "--redis: a stop while waiting for a down Redis releases nothing" {
	local d=$BATS_TEST_TMPDIR
	stop_after 1 "$d/out" "$d/err" "$TB" --shared "$P" -r 1/min -b 1 \
	    --redis redis://127.0.0.1:1 "$BATS_TEST_DIRNAME/../README.md"
	assert_eq "$stopped_status" 143 "exit status"
	assert_eq "$(wc -c <"$d/out")" 0 "bytes out"
}

@test "--redis: the password may come from REDISCLI_AUTH, and is never shown" {
	run -1 --separate-stderr bash -c 'echo x | REDISCLI_AUTH=hunter2 "$0" \
	    --shared "$1" -r 1/s --redis redis://127.0.0.1:1 --redis-fallback fail' \
	    "$TB" "$P"
	assert_one_stderr_line
	[[ $stderr == *':***@127.0.0.1:1'* && $stderr != *hunter2* ]]
	run -2 --separate-stderr tb --shared x --redis 'redis://:p@ss@h:99999' -r 1/s </dev/null
	[[ $stderr != *p@ss* && $stderr != *ss@h* ]]
}

@test "--redis --drop -c: a read bigger than the tokens passes what fits" {
	run -0 --separate-stderr bash -c 'head -c 2000 /dev/zero |
	    tb -c --shared "$0" --redis "$1" -r 1/min -b 1000 --drop --stats=json' "$P" "$URL"
	assert_eq "$(json_field bytes_out)" 1000 "bytes out"
	assert_eq "$(json_field bytes_dropped)" 1000 "bytes dropped"
}
