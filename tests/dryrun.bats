#!/usr/bin/env bats
# --replay --dry-run on inputs without end or with huge records: a stop
# signal ends it at once with what it read, SIGUSR1 reports, memory stays
# the same whatever the records, and each record is read as the replay
# itself reads it.

load helpers

setup_file() {
	build_stamp
}

setup() {
	d=$BATS_TEST_TMPDIR
}

# A record of 2024-01-01T00:00:00Z, as yes(1) repeats it: 23 bytes.
REC='2024-01-01T00:00:00Z x'

# stop_endless SIG STATUS: a dry run of a FIFO that yes(1) fills for ever,
# stopped by SIG once reading is under way, ends within 5 s, dies of SIG
# (STATUS), and has said what it read: every whole record it read.
stop_endless() {
	local sig=$1 want=$2 spid ypid st=0 t0 t1 recs bytes
	mkfifo "$d/fifo"
	TB_LIMIT=15 "$STAMP" -o "$d/out" -p "$d/pid" -- \
	    "$TB" --replay --dry-run "$d/fifo" >"$d/log" 2>"$d/err" 3>&- &
	spid=$!
	# The FIFO opens once the dry run opens it, its handlers set by then.
	exec 4>"$d/fifo"
	yes "$REC" >&4 2>/dev/null &
	ypid=$!
	exec 4>&-
	sleep 0.5
	t0=$(now_ms)
	kill -s "$sig" "$(cat "$d/pid")"
	wait "$spid" || st=$?
	t1=$(now_ms)
	kill_ours TERM "$ypid"
	wait "$ypid" || true
	assert_eq "$st" "$want" "exit status after SIG$sig"
	assert_le "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" 5000 \
	    "time from SIG$sig to exit (ms)"
	assert_eq "$(cat "$d/err")" "" "stderr"
	output=$(cat "$d/out")
	bytes=$(sed -n "s/^stopped by SIG$sig after \([0-9]*\) bytes: the rest of the input was not read\$/\1/p" <<<"$output")
	[[ -n $bytes && $bytes -gt 0 ]] || { echo "$output" >&2; return 1; }
	recs=$((bytes / 23))
	assert_eq "$(head -n 1 <<<"$output")" \
	    "records: $recs, $recs timed (RFC 3339), 0 without a timestamp, 0 out of order" \
	    "the records read whole"
	assert_eq "$(sed -n 3p <<<"$output")" \
	    "replay at speed 1: 0.000 s (limits aside)" "the replay"
}

@test "--dry-run: SIGTERM on an endless input ends it at once, what it read said, then dies of it (143)" {
	stop_endless TERM 143
}

@test "--dry-run: SIGINT on an endless input ends it at once, what it read said, then dies of it (130)" {
	stop_endless INT 130
}

@test "--dry-run: SIGHUP on an endless input ends it at once, what it read said, then dies of it (129)" {
	stop_endless HUP 129
}

@test "--dry-run: SIGUSR1 while it waits for input reports on stderr, and the reading goes on to the end" {
	local spid st=0
	mkfifo "$d/fifo"
	"$STAMP" -o "$d/out" -p "$d/pid" -- \
	    "$TB" --replay --dry-run "$d/fifo" >"$d/log" 2>"$d/err" 3>&- &
	spid=$!
	exec 4>"$d/fifo"
	printf '%s\n' "$REC" '2024-01-01T00:00:01Z y' >&4
	sleep 0.3
	kill -s USR1 "$(cat "$d/pid")"
	wait_for_output "$d/err"
	sleep 0.1
	(printf "2024-01-01T00:00:02Z z\n" >&4) 2>/dev/null || true
	exec 4>&-
	wait "$spid" || st=$?
	assert_eq "$st" 0 "exit status"
	[[ $(cat "$d/err") =~ ^records:\ [0-2],\ .*$'\n'"read so far: "[0-9]+" bytes"$ ]] ||
	    { cat "$d/err" >&2; return 1; }
	assert_eq "$(cat "$d/out")" "records: 3, 3 timed (RFC 3339), 0 without a timestamp, 0 out of order
log time: 2024-01-01T00:00:00.000000000Z to 2024-01-01T00:00:02.000000000Z, 2.000 s
replay at speed 1: 2.000 s (limits aside)" "the summary"
}

# huge_record: a record of 400 MB whose timestamp starts it, then another.
huge_record() {
	printf '2024-01-01T00:00:00Z '
	head -c 400000000 /dev/zero | tr '\0' x
	printf '\n2024-01-01T00:00:01Z b\n'
}

@test "--dry-run: a record of 400 MB is read through in a few MB, not held whole" {
	[[ -x /usr/bin/time ]] || skip "GNU time is not installed (apt-get install time)"
	# 400 MB through tr(1) may take a busy machine a minute or more.
	huge_record | /usr/bin/time -f %M -o "$d/rss" \
	    timeout -k 2 180 "$TB" --replay --dry-run >"$d/out"
	assert_eq "$(head -n 1 "$d/out")" \
	    "records: 2, 2 timed (RFC 3339), 0 without a timestamp, 0 out of order" \
	    "the records"
	# The buffer is 128 KiB; the rest is the program, its libraries and,
	# under ASan, its shadow.
	assert_le "$(tail -n 1 "$d/rss")" 51200 "largest resident set (KiB)"
}

@test "--dry-run: a record of 100 MB in 32 MiB of address space is read through, not taken for the end of input" {
	(ulimit -v 32768 && "$TB" -V >/dev/null) ||
	    skip "this build cannot start in 32 MiB of address space (sanitizers, valgrind)"
	run -0 --separate-stderr bash -c '
	    ulimit -v 32768
	    { printf "2024-01-01T00:00:00Z "; head -c 100000000 /dev/zero | tr "\0" x
	      printf "\n2024-01-01T00:00:01Z b\n"; } | tb --replay --dry-run'
	assert_eq "${lines[0]}" \
	    "records: 2, 2 timed (RFC 3339), 0 without a timestamp, 0 out of order" \
	    "the records"
}

@test "--dry-run reads long records as the replay does: a timestamp within their first 128 KiB, operands joined" {
	# Records of 200 KB with the key first and last, of 131071 to
	# 131074 bytes with it at their end (a record longer than the
	# 131072-byte buffer is read from what fills it: 131073 lacks only
	# its "}", 131074 the closing quote too), and a record that the
	# first FILE begins and the second ends.
	awk "$(cat <<'EOF'
function rep(c, n, s) { for (s = c; length(s) < n; s = s s); return substr(s, 1, n) }
BEGIN { p = rep("p", 200000)
	printf "{\"ts\":\"2024-01-01T00:00:00Z\",\"p\":\"%s\"}\n", p
	printf "{\"p\":\"%s\",\"ts\":\"2024-01-01T00:00:09Z\"}\n", p
	for (i = 1; i <= 4; i++)
		printf "{\"p\":\"%s\",\"ts\":\"2024-01-01T00:00:0%dZ\"}\n",
		    rep("q", 131070 + i - 36), i
	printf "{\"ts\":\"2024-01-01T00:00:05Z\",\"m\":" }
EOF
	)" >"$d/a"
	printf '"x"}\n{"ts":"2024-01-01T00:00:06Z"}\n' >"$d/b"
	run -0 --separate-stderr tb --replay --time-key ts --dry-run "$d/a" "$d/b"
	assert_eq "${lines[0]}" \
	    "records: 8, 6 timed (RFC 3339), 2 without a timestamp, 0 out of order" \
	    "the dry run's records"
	assert_eq "${lines[1]}" \
	    "log time: 2024-01-01T00:00:00.000000000Z to 2024-01-01T00:00:06.000000000Z, 6.000 s" \
	    "the dry run's log time"
	run -0 --separate-stderr tb --replay --time-key ts --speed 1000000 \
	    --stats=json "$d/a" "$d/b"
	assert_eq "$(json_field units_in)/$(json_field records_timed)/$(json_field records_untimed)/$(json_field out_of_order)" \
	    8/6/2/0 "the replay's records, timed, untimed and out of order"
}
