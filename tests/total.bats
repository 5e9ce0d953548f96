#!/usr/bin/env bats
# --total-rate: every key together under one limit, beside each key's own.

load helpers

setup_file() {
	build_stamp
}

@test "--total-rate --drop: each key's burst, and no more than the total's in all" {
	local d=$BATS_TEST_TMPDIR
	keyed 40 4 >"$d/in"
	# 4 keys of burst 5 would pass 20; the total lets 7 through.
	run -0 --separate-stderr tb -k 1 -r 1/h -b 5 --total-rate 1/h \
	    --total-burst 7 --drop --stats=json "$d/in"
	assert_eq "$(json_field units_out)" 7 "units out"
	assert_eq "$(json_field units_dropped)" 33 "units dropped"
	assert_eq "$output" "$(head -n 7 "$d/in")" "the first seven"
	# The keys' own limits still hold under a larger total.
	run -0 --separate-stderr tb -k 1 -r 1/h -b 2 --total-rate 1/h \
	    --total-burst 100 --drop --stats=json "$d/in"
	assert_eq "$(json_field units_out)" 8 "two a key"
}

@test "--total-rate --drop: a record the total refuses takes nothing from its key" {
	local d=$BATS_TEST_TMPDIR
	# a takes the total's only token; b is refused by the total, and
	# its own bucket, untouched, still has it when the total refills.
	printf 'a 1\nb 2\n' >"$d/in"
	run -0 --separate-stderr tb -k 1 -r 1/h -b 1 --total-rate 1/h \
	    --total-burst 1 --drop --stats=json "$d/in"
	assert_eq "$output" "a 1" "out"
	run -0 --separate-stderr tb -k 1 -r 1/h -b 1 --total-rate 1/h \
	    --total-burst 2 --drop --stats=json "$d/in"
	assert_eq "$output" $'a 1\nb 2' "both, with a total of two"
}

@test "--total-rate shaping: keys each under their rate wait for the total, never early" {
	assert_total_shapes
}

@test "--total-rate with -a sliding: at most N in any window across keys" {
	local d=$BATS_TEST_TMPDIR
	keyed 9 3 >"$d/in"
	run -0 "$STAMP" -i "$d/in" -- "$TB" -k 1 -a sliding -r 100/s \
	    --total-rate 3/500ms
	assert_eq "$(stamp_count)" 9 "records out"
	# Three in the first window, then three a window: record 3j+1 is
	# released no sooner than j windows after the input came.
	local in j
	in=$(stamp_in)
	for j in 1 2; do
		assert_ge "$(stamp_field $((3 * j + 1)))" \
		    "$(awk -v t="$in" -v j="$j" 'BEGIN { print t + 500 * j }')" \
		    "record $((3 * j + 1)) (ms)"
	done
}

@test "--total-rate with --tiers: each tier's rate, and the total over them" {
	local d=$BATS_TEST_TMPDIR
	printf 'gold-* 1/h 10\n* 1/h 1\n' >"$d/tiers"
	printf 'gold-a 1\ngold-b 2\nfree-c 3\ngold-a 4\nfree-c 5\nfree-d 6\n' \
	    >"$d/in"
	run -0 --separate-stderr tb -k 1 --tiers "$d/tiers" --total-rate 1/h \
	    --total-burst 4 --drop --stats=json "$d/in"
	# gold-a, gold-b, free-c pass; gold-a passes its tier but the total
	# has one left: it takes it; free-c again is refused by its key,
	# free-d by the total.
	assert_eq "$output" $'gold-a 1\ngold-b 2\nfree-c 3\ngold-a 4' "out"
}

@test "--total-rate: -s compares the achieved rate with the total, and names it" {
	local d=$BATS_TEST_TMPDIR
	keyed 20 4 >"$d/in"
	run -0 --separate-stderr tb -k 1 -r 1000/s -b 5 --total-rate 100/s \
	    -s "$d/in"
	[[ $stderr == *"100/s in all, burst 1"* ]] ||
	    { echo "$stderr" >&2; false; }
	run -0 --separate-stderr tb -k 1 -r 1000/s -b 5 --total-rate 100/s \
	    --stats=json "$d/in"
	assert_eq "$(json_field limit_per_s)" 100 "limit_per_s"
}

@test "--total-rate usage errors: one line naming the value, exit 2" {
	run -2 --separate-stderr tb --total-rate 5/s -r 1/s </dev/null
	assert_one_stderr_line
	[[ $stderr == *"--total-rate 5/s caps all keys together: it needs -k"* ]]
	run -2 --separate-stderr tb --total-burst 3 -k 1 -r 1/s </dev/null
	assert_one_stderr_line
	[[ $stderr == *"--total-burst 3 needs --total-rate"* ]]
	run -2 --separate-stderr tb -k 1 -r 1/s --total-rate 5/fortnight \
	    </dev/null
	assert_one_stderr_line
	[[ $stderr == *"--total-rate: invalid rate '5/fortnight'"* ]]
	run -2 --separate-stderr tb -k 1 -r 1/s --total-rate inf </dev/null
	assert_one_stderr_line
	[[ $stderr == *"invalid --total-rate 'inf'"* ]]
}
