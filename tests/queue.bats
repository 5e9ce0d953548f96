#!/usr/bin/env bats
# --queue N: at most N records wait for their tokens.  With --drop or
# --drop-to a record that finds N waiting is dropped (the classic leaky
# bucket as a queue); without, reading pauses and nothing is lost.

load helpers

setup_file() {
	build_stamp
	seq 20 >"$BATS_FILE_TMPDIR/twenty"
}

@test "--queue 3 --drop: of 20 at once, 3 wait and leave 1/rate apart, 17 are dropped" {
	run -0 --separate-stderr "$STAMP" -i "$BATS_FILE_TMPDIR/twenty" -- \
	    "$TB" --leaky -r 20/s --queue 3 --drop --stats=json
	assert_schedule 1 50 3
	assert_eq "$(stamp_texts)" "$(seq 3)" "kept"
	assert_eq "$(json_field units_dropped)" 17 "units_dropped"
	assert_eq "$(json_field units_out)" 3 "units_out"
	assert_le "$(stamp_field 3)" 5000 "record 3 arrival (ms)"
}

@test "--queue --drop-to: bursts beyond the queue are diverted whole, in order" {
	local d=$BATS_TEST_TMPDIR
	# Four bursts of 10, 200 ms apart, into a queue of 3 at 10/s: each
	# burst finds at most 3 places, so at most 12 pass and at least 3.
	run -0 --separate-stderr bash -c '
	    for b in 0 1 2 3; do seq $((b * 10 + 1)) $((b * 10 + 10)); sleep 0.2; done |
	    tb --leaky -r 10/s --queue 3 --drop-to "$0" --stats=json' "$d/dropped"
	assert_le "${#lines[@]}" 12 "kept"
	assert_ge "${#lines[@]}" 3 "kept"
	assert_eq "$(json_field units_dropped)" "$(wc -l <"$d/dropped")" "counted drops"
	assert_eq "$(( ${#lines[@]} + $(wc -l <"$d/dropped") ))" 40 "kept + dropped"
	sort -n <(printf '%s\n' "${lines[@]}") "$d/dropped" | cmp - <(seq 40)
	# Each side keeps the input's order.
	printf '%s\n' "${lines[@]}" | sort -nc
	sort -nc "$d/dropped"
}

@test "--queue --drop: kept records still leave no faster than the rate" {
	run -0 --separate-stderr "$STAMP" -i "$BATS_FILE_TMPDIR/twenty" -- \
	    "$TB" -r 20/s -b 2 --queue 6 --drop
	# Token bucket, burst 2: 6 queued, then 1/rate apart after the burst.
	assert_schedule 2 50 6
}

@test "--queue without --drop: back-pressure, nothing lost" {
	run -0 --separate-stderr bash -c 'seq 2000 | tb --leaky -r 20k/s --queue 2 --stats=json'
	assert_eq "$output" "$(seq 2000)" "output"
	assert_eq "$(json_field units_dropped)" 0 "units_dropped"
	assert_eq "$(json_field units_out)" 2000 "units_out"
}

@test "--queue: a record longer than the buffer goes out whole" {
	local d=$BATS_TEST_TMPDIR
	{ echo first; head -c 3000000 /dev/zero | tr '\0' y; echo; seq 3; } >"$d/in"
	run -0 --separate-stderr bash -c 'tb --leaky -r 100/s --queue 2 "$0" | cmp - "$0"' "$d/in"
}

@test "--queue: a final record without a newline is kept" {
	run -0 --separate-stderr bash -c 'printf "a\nb" | tb --leaky -r 100/s --queue 1 | od -c'
	[[ $output == *"a  \\n   b"* ]]
}

@test "--queue: stopped by SIGTERM, in = out + dropped + waiting" {
	local d=$BATS_TEST_TMPDIR
	seq 10 >"$d/in"
	# The 4 queued take 4 s at 1/s: a stop however late finds some.
	stop_after 0.5 "$d/out" "$d/err" "$TB" --leaky -r 1/s --queue 4 --drop \
	    --stats=json "$d/in"
	assert_eq "$stopped_status" 143 "exit status"
	assert_eq "$(json_field units_in)" 10 "units_in"
	assert_eq "$(( $(json_field units_out) + $(json_field units_dropped) + $(json_field units_waiting) ))" 10 "out + dropped + waiting"
	assert_eq "$(json_field units_dropped)" 6 "dropped"
	assert_eq "$(json_field units_out)" "$(wc -l <"$d/out")" "units_out"
}

@test "--queue usage errors name the value" {
	local bad
	for bad in 0 abc 1.5 2s -3; do
		run -2 --separate-stderr tb -r 1/s --queue "$bad" </dev/null
		assert_one_stderr_line
		[[ $stderr == *"'$bad'"* ]]
	done
	run -2 --separate-stderr tb -c -r 1K/s --queue 2 </dev/null
	assert_one_stderr_line
	[[ $stderr == *"-c"* ]]
	run -2 --separate-stderr tb --byte-rate 1K/s --queue 2 </dev/null
	assert_one_stderr_line
	[[ $stderr == *"--byte-rate"* ]]
	run -2 --separate-stderr tb -r inf --queue 2 </dev/null
	assert_one_stderr_line
}
