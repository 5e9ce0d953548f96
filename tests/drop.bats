#!/usr/bin/env bats
# --drop and --drop-to: policing.  A unit that finds no token when its
# first byte arrives is dropped (or written whole to a file), never
# delayed, and the counts add up.

load helpers

@test "--drop: with all input at once, exactly the burst goes out" {
	run -0 --separate-stderr bash -c 'seq 100 | tb -r 1/min -b 10 --drop --stats=json'
	assert_eq "$output" "$(seq 10)" "the first 10 lines"
	assert_eq "$(json_field units_out)" 10 "units_out"
	assert_eq "$(json_field units_dropped)" 90 "units_dropped"
	assert_eq "$(json_field units_in)" 100 "units_in"
	assert_eq "$(json_field bytes_dropped)" 271 "bytes_dropped"
}

# The limits count a unit from when its write returned (or its command
# started): records that came meanwhile are judged as of then, not
# before it, where the unit would seem taken from a bucket not yet there.
@test "--drop: records that came while the one before went are judged as of then, each key's burst whole" {
	local d=$BATS_TEST_TMPDIR
	keyed 12 4 >"$d/in"
	run -0 tb -k 1 -r 1/h -b 2 --catch-up 0 --drop "$d/in"
	assert_eq "$output" "$(head -n 8 "$d/in")" "two a key"
	run -0 tb -k 1 -r 1/h -b 2 --catch-up 0 --drop "$d/in" \
	    --exec sh -c 'echo "$1"' _
	assert_eq "$output" "$(head -n 8 "$d/in")" "two a key, started"
	# A record whose first bytes came before the one before it went.
	run -0 --separate-stderr bash -c '
	    { printf "ab"; sleep 0.2; printf "c\nde"; sleep 0.2; printf "f\ng\n"; } |
	    tb -r 1/min -b 2 --catch-up 0 --drop'
	assert_eq "$output" $'abc\ndef' "a split record, as of its first byte"
}

@test "--drop-to: the dropped units are in the file, whole and in order" {
	local d=$BATS_TEST_TMPDIR
	run -0 --separate-stderr bash -c 'seq 100 | tb -r 1/min -b 10 --drop-to "$0"' "$d/dropped"
	assert_eq "$output" "$(seq 10)" "kept"
	seq 11 100 | cmp - "$d/dropped"
}

@test "--drop-to appends: nothing already in the file is lost" {
	local d=$BATS_TEST_TMPDIR
	echo old >"$d/dropped"
	run -0 --separate-stderr bash -c 'seq 3 | tb -r 1/min --drop-to "$0"' "$d/dropped"
	printf 'old\n2\n3\n' | cmp - "$d/dropped"
}

@test "--drop never delays: output keeps pace with a producer faster than the rate" {
	local d=$BATS_TEST_TMPDIR t0 t1 kept
	t0=$(now_ms)
	run -0 --separate-stderr bash -c '
	    { for i in $(seq 40); do echo "$i"; sleep 0.025; done
	      echo "${EPOCHREALTIME/,/.}" >"$0.end"; } |
	    tb -r 1/s --drop-to "$0" --stats=json' "$d/dropped"
	t1=$(now_ms)
	kept=${#lines[@]}
	# No more than the burst and 1 a second of the run pass, the run
	# timed from before it started: strict however slow the producer.
	assert_le "$kept" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%d", 1 + (b - a) / 1000 }')" "kept"
	assert_ge "$kept" 1 "kept"
	assert_eq "$((kept + $(wc -l <"$d/dropped")))" 40 "kept + dropped"
	assert_eq "$(json_field units_dropped)" "$(wc -l <"$d/dropped")" "counted drops"
	# It ends with its input: held for their tokens, the 40 would take
	# 39 s at 1/s, more than 5 s after a producer of 40 x 25 ms even on a
	# machine that makes that 30 s.
	assert_le "$(awk -v a="$(cat "$d/dropped.end")" -v b="$t1" \
	    'BEGIN { printf "%d", b - a * 1000 }')" 5000 \
	    "ms from the end of the input to the end of the run"
	sort -n <(printf '%s\n' "${lines[@]}") "$d/dropped" | cmp - <(seq 40)
}

@test "--drop judges a record by its first byte: a split record keeps its verdict" {
	local d=$BATS_TEST_TMPDIR
	run -0 --separate-stderr bash -c '
	    { printf "ab"; sleep 0.2; printf "c\nde"; sleep 0.2; printf "f\ng\n"; } |
	    tb -r 1/min -b 2 --drop-to "$0"' "$d/dropped"
	assert_eq "$output" $'abc\ndef' "kept whole"
	printf 'g\n' | cmp - "$d/dropped"
}

@test "--drop-to: a record longer than the buffer is diverted whole" {
	local d=$BATS_TEST_TMPDIR
	{ echo first; head -c 300000 /dev/zero | tr '\0' y; echo; echo third; } >"$d/in"
	run -0 --separate-stderr tb -r 1/min --drop-to "$d/dropped" "$d/in"
	assert_eq "$output" first "kept"
	tail -n 2 "$d/in" | cmp - "$d/dropped"
}

@test "--drop in byte mode: the burst of bytes passes, the rest is counted" {
	run -0 --separate-stderr bash -c 'head -c 1000 /dev/zero | tb -c -r 1/min -b 100 --drop --stats=json | wc -c'
	assert_eq "$output" 100 "bytes out"
	assert_eq "$(json_field bytes_dropped)" 900 "bytes dropped"
	assert_eq "$(json_field units_in)" 1000 "units in"
}

@test "--drop with -r inf is a usage error" {
	run -2 --separate-stderr tb -r inf --drop </dev/null
	assert_one_stderr_line
	[[ $stderr == *--drop* ]]
}

@test "--drop-to a file that cannot be created: exit 1 naming it" {
	run -1 --separate-stderr tb -r 1/s --drop-to "$BATS_TEST_TMPDIR/no/such/dir" </dev/null
	assert_one_stderr_line
	[[ $stderr == *"no/such/dir"* ]]
}
