#!/usr/bin/env bats
# --byte-rate and --byte-burst: whole records, each costing its length in
# bytes.  A record longer than the byte burst waits for a full bucket, goes
# out whole, and leaves the bucket in debt, so the long-run rate holds.

load helpers

setup_file() {
	build_stamp
	local d=$BATS_FILE_TMPDIR i
	for ((i = 1; i <= 8; i++)); do printf '%08d\n' "$i"; done >"$d/nine"
	for ((i = 1; i <= 6; i++)); do echo "$i"; done >"$d/short"
	{ head -c 99 /dev/zero | tr '\0' x; echo; echo b; echo c; } >"$d/long"
}

@test "--byte-rate alone: whole lines, no faster than the byte rate" {
	# 9-byte lines at 450 B/s, burst 9: one line every 20 ms.
	run -0 --separate-stderr "$STAMP" -i "$BATS_FILE_TMPDIR/nine" -- \
	    "$TB" --byte-rate 450/s --byte-burst 9
	assert_schedule 1 20 8
	assert_eq "$(stamp_texts)" "$(cat "$BATS_FILE_TMPDIR/nine")" "records"
	assert_le "$(stamp_field 8)" 5000 "record 8 arrival (ms)"
}

@test "a record longer than the byte burst goes on a full bucket and leaves debt" {
	# 100 bytes at 1000 B/s with a 10-byte burst: it goes at once, 90
	# bytes in debt; "b\n" then waits 92 ms and "c\n" 2 ms more.
	run -0 --separate-stderr "$STAMP" -i "$BATS_FILE_TMPDIR/long" -- \
	    "$TB" --byte-rate 1000/s --byte-burst 10
	assert_eq "$(stamp_count)" 3 "records"
	local in
	in=$(stamp_in)
	assert_ge "$(stamp_field 2)" "$(awk -v t="$in" 'BEGIN { print t + 92 }')" "b (ms)"
	assert_ge "$(stamp_field 3)" "$(awk -v t="$in" 'BEGIN { print t + 94 }')" "c (ms)"
	assert_le "$(stamp_field 3)" 5000 "c (ms)"
	assert_eq "$(stamp_texts | tail -n 2)" $'b\nc' "records after the long one"
}

@test "-r with --byte-rate: short lines meet the record limit" {
	# 2-byte lines: 200 B/s would allow 100/s, -r 20/s allows 20/s.
	run -0 --separate-stderr "$STAMP" -i "$BATS_FILE_TMPDIR/short" -- \
	    "$TB" -r 20/s --byte-rate 200/s --byte-burst 2
	assert_schedule 1 50 6
	assert_le "$(stamp_field 6)" 5000 "record 6 arrival (ms)"
}

@test "-r with --byte-rate: long lines meet the byte limit" {
	# 9-byte lines: -r 100/s would allow 100/s, 90 B/s allows 10/s.
	run -0 --separate-stderr "$STAMP" -i "$BATS_FILE_TMPDIR/nine" -- \
	    "$TB" -r 100/s -b 8 --byte-rate 90/s --byte-burst 9
	assert_schedule 1 100 8
	assert_le "$(stamp_field 8)" 5000 "record 8 arrival (ms)"
}

@test "--byte-rate output is byte for byte the input, records whole" {
	local d=$BATS_TEST_TMPDIR
	seq 1 20000 | sed 's/$/ some padding to vary the length/' | head -c 500000 >"$d/in"
	run -0 --separate-stderr bash -c 'tb --byte-rate 10M/s --byte-burst 300 "$0" | cmp - "$0"' "$d/in"
}

@test "--drop with --byte-rate: records that would overdraw the bytes are dropped" {
	# 9-byte lines, 35-byte burst, no refill to speak of: 3 pass.
	run -0 --separate-stderr tb --drop --byte-rate 1/min --byte-burst 35 \
	    --stats=json "$BATS_FILE_TMPDIR/nine"
	assert_eq "$output" "$(head -n 3 "$BATS_FILE_TMPDIR/nine")" "kept"
	assert_eq "$(json_field units_out)" 3 "units_out"
	assert_eq "$(json_field units_dropped)" 5 "units_dropped"
	assert_eq "$(json_field bytes_out)" 27 "bytes_out"
	assert_eq "$(json_field bytes_dropped)" 45 "bytes_dropped"
}

@test "--drop with --byte-rate: a long record passes on a full bucket, then debt drops the rest" {
	local d=$BATS_TEST_TMPDIR
	run -0 --separate-stderr tb --byte-rate 1/min --byte-burst 10 \
	    --drop-to "$d/dropped" "$BATS_FILE_TMPDIR/long"
	assert_eq "$output" "$(head -n 1 "$BATS_FILE_TMPDIR/long")" "kept"
	printf 'b\nc\n' | cmp - "$d/dropped"
}

@test "--drop with --byte-rate: a record longer than the buffer is charged its bytes once" {
	local d=$BATS_TEST_TMPDIR
	# 150 000 bytes outgrow the 128 KiB buffer, then 40 000: 190 002 in
	# all, within a burst of 200 000 that hardly refills.  Its first
	# 128 KiB were once charged when it was judged and again as they
	# passed, so the second record was dropped.
	{ head -c 150000 /dev/zero | tr '\0' a; echo
	  head -c 40000 /dev/zero | tr '\0' b; echo; } >"$d/in"
	run -0 --separate-stderr tb --drop -r 1000/s -b 10 --byte-rate 1/h \
	    --byte-burst 200000 --stats=json "$d/in"
	assert_eq "$(json_field units_out)" 2 "units_out"
	assert_eq "$(json_field bytes_out)" 190002 "bytes_out"
	# Past the burst, the second is dropped: the check still holds.
	run -0 --separate-stderr tb --drop -r 1000/s -b 10 --byte-rate 1/h \
	    --byte-burst 180000 --stats=json "$d/in"
	assert_eq "$(json_field units_out)" 1 "units_out"
	assert_eq "$(json_field units_dropped)" 1 "units_dropped"
}

@test "--drop with -r and --byte-rate: each limit holds" {
	# Record limit 2, byte burst 20: two 9-byte lines pass both.
	run -0 --separate-stderr tb --drop -r 1/min -b 2 --byte-rate 1/min \
	    --byte-burst 20 --stats=json "$BATS_FILE_TMPDIR/nine"
	assert_eq "$(json_field units_out)" 2 "units_out"
	assert_eq "$(json_field bytes_out)" 18 "bytes_out"
}

@test "--byte-rate usage errors name the value" {
	run -2 --separate-stderr tb -c --byte-rate 1M/s </dev/null
	assert_one_stderr_line
	[[ $stderr == *"-r 1M/s"* ]]
	run -2 --separate-stderr tb --byte-burst 10 -r 1/s </dev/null
	assert_one_stderr_line
	[[ $stderr == *"needs --byte-rate"* ]]
	run -2 --separate-stderr tb --byte-rate inf </dev/null
	assert_one_stderr_line
	[[ $stderr == *"'inf'"* ]]
	run -2 --separate-stderr tb --byte-rate 10q/s </dev/null
	assert_one_stderr_line
	[[ $stderr == *"'10q/s'"* ]]
	run -2 --separate-stderr tb --byte-rate 1K/s --byte-burst 0 </dev/null
	assert_one_stderr_line
	[[ $stderr == *"'0'"* ]]
}

@test "a record longer than the buffer waits for a full byte bucket" {
	local d=$BATS_TEST_TMPDIR i
	for i in 1 2 3; do head -c 200000 /dev/zero | tr '\0' x; echo; done >"$d/in"
	# 1 MB/s, burst 300 kB: the first goes at once and leaves 100 kB;
	# each next one waits for a full bucket, 200 ms later.
	run -0 --separate-stderr "$STAMP" -c -i "$d/in" -- "$TB" \
	    --byte-rate 1MB/s --byte-burst 300000
	local in
	in=$(stamp_in)
	assert_ge "$(stamp_byte_time 200002)" "$(awk -v t="$in" 'BEGIN { print t + 200 }')" "record 2 (ms)"
	assert_ge "$(stamp_byte_time 400003)" "$(awk -v t="$in" 'BEGIN { print t + 400 }')" "record 3 (ms)"
}

@test "--byte-burst may be a duration at the byte rate" {
	# 100 ms at 1000 B/s is 100 bytes: eleven 9-byte lines fit, the
	# twelfth is dropped.
	run -0 --separate-stderr bash -c '
	    for i in $(seq 12); do printf "%08d\n" "$i"; done |
	    tb --drop --byte-rate 1000/s --byte-burst 100ms --stats=json'
	assert_eq "$(json_field units_out)" 11 "units_out"
	assert_eq "$(json_field units_dropped)" 1 "units_dropped"
}
