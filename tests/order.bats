#!/usr/bin/env bats
# --order key: with -k, a key that waits holds up only its own records.

load helpers

setup_file() {
	build_stamp
	printf 'slow* 1/s\n* 100/s 5\n' >"$BATS_FILE_TMPDIR/tiers"
	printf 'slow 1\nslow 2\nslow 3\nfast 1\nfast 2\nfast 3\n' \
	    >"$BATS_FILE_TMPDIR/in"
}

# stamped FILE N: stamp's output in FILE holds N records or more.
stamped() {
	(($(awk '$1 ~ /^[0-9]/' "$1" 2>/dev/null | wc -l) >= $2))
}

@test "--order key: the fast key goes at once, the slow one at its pace, each in order" {
	local d=$BATS_FILE_TMPDIR in
	run -0 "$STAMP" -i "$d/in" -- "$TB" -k 1 --tiers "$d/tiers" \
	    --order key
	in=$(stamp_in)
	# Nothing waits for slow 1 or the fast ones: input order among them.
	# Fast 3 before slow 2, which goes 1 s after the input at the
	# earliest: a run that held the fast key behind slow 2 would put it
	# after, whatever the machine's speed.
	assert_eq "$(stamp_texts)" $'slow 1\nfast 1\nfast 2\nfast 3\nslow 2\nslow 3' "order"
	assert_ge "$(stamp_field 5)" "$(awk -v t="$in" 'BEGIN { print t + 1000 }')" "slow 2 at 1/s (ms)"
	assert_ge "$(stamp_field 6)" "$(awk -v t="$in" 'BEGIN { print t + 2000 }')" "slow 3 at 1/s (ms)"
}

@test "--order input (the default): records leave in input order, the fast key behind the slow" {
	local d=$BATS_FILE_TMPDIR in
	run -0 "$STAMP" -i "$d/in" -- "$TB" -k 1 --tiers "$d/tiers"
	in=$(stamp_in)
	assert_eq "$(stamp_texts)" "$(cat "$d/in")" "input order"
	assert_ge "$(stamp_field 4)" "$(awk -v t="$in" 'BEGIN { print t + 2000 }')" "fast 1 behind slow 3 (ms)"
	run -0 "$STAMP" -i "$d/in" -- "$TB" -k 1 --tiers "$d/tiers" \
	    --order input
	assert_eq "$(stamp_texts)" "$(cat "$d/in")" "--order input"
}

@test "--order key --queue N: at most N records held, so a key past them waits" {
	local d=$BATS_TEST_TMPDIR
	printf 'slow 1\nslow 2\nslow 3\nslow 4\nfast 1\n' >"$d/in"
	printf 'slow* 1/min\n* 100/s 5\n' >"$d/tiers"
	# Held: slow 2-4 fill the queue of 3, and fast 1 is not read yet.
	run --separate-stderr timeout -s TERM 1 "$TB" -k 1 --tiers "$d/tiers" \
	    --order key --queue 3 --stats=json "$d/in"
	assert_eq "$output" "slow 1" "out with 3 held"
	assert_eq "$(json_field units_out)" 1 "units out with 3 held"
	# With room for it, fast 1 goes at once.
	run --separate-stderr timeout -s TERM 1 "$TB" -k 1 --tiers "$d/tiers" \
	    --order key --queue 10 --stats=json "$d/in"
	assert_eq "$output" $'slow 1\nfast 1' "out with room for 10"
}

@test "--order key: each key's records never earlier than its own rate allows" {
	local d=$BATS_TEST_TMPDIR in i
	awk 'BEGIN { for (i = 1; i <= 12; i++) printf "k%d %d\n", i % 3, i }' \
	    >"$d/in"
	run -0 "$STAMP" -i "$d/in" -- "$TB" -k 1 -r 10/s --order key
	in=$(stamp_in)
	assert_eq "$(stamp_count)" 12 "records out"
	# Four records a key at 10/s, burst 1: a key's 4th at >= 300 ms.
	for i in 10 11 12; do
		assert_ge "$(awk -v n="$i" '$1 ~ /^[0-9]/ && $3 == n { print $1 }' <<<"$output")" \
		    "$(awk -v t="$in" 'BEGIN { print t + 300 }')" "record $i (ms)"
	done
	# Within a key, input order.
	assert_eq "$(awk '$1 ~ /^[0-9]/ && $2 == "k1" { print $3 }' <<<"$output" | tr '\n' ' ')" \
	    "1 4 7 10 " "k1's order"
}

@test "--order usage errors: one line naming the value, exit 2" {
	run -2 --separate-stderr tb -r 1/s --order key </dev/null
	assert_one_stderr_line
	[[ $stderr == *"--order key lets each key go at its own pace: it needs -k"* ]]
	run -2 --separate-stderr tb -k 1 -r 1/s --order key --drop </dev/null
	assert_one_stderr_line
	[[ $stderr == *"with --drop none waits"* ]]
	run -2 --separate-stderr tb -k 1 -r 1/s --order fair </dev/null
	assert_one_stderr_line
	[[ $stderr == *"invalid --order 'fair': use input or key"* ]]
	run -2 --separate-stderr tb -k 1 -r 1/s --queue 5 </dev/null
	assert_one_stderr_line
	[[ $stderr == *"(but with --order key"* ]]
	run -2 --separate-stderr tb -k 1 -r 1/s --order key --replay </dev/null
	assert_one_stderr_line
	[[ $stderr == *"--order key does not combine with --replay"* ]]
}

@test "--order key: a reload that raises a waiting key's rate lets its records go at once, behind a key that still waits" {
	local d=$BATS_TEST_TMPDIR bg pid st
	export XDG_RUNTIME_DIR=$d/run
	mkdir -m 700 "$XDG_RUNTIME_DIR"
	printf 'a 1/min\nb 1/min\n' >"$d/tiers"
	printf 'a 1\na 2\nb 1\nb 2\nb 3\n' >"$d/in"
	"$STAMP" -p "$d/pid" -- "$TB" -k 1 --tiers "$d/tiers" -r 100/s \
	    --order key <"$d/in" >"$d/stamps" 2>"$d/err" &
	bg=$!
	wait_for_output "$d/pid"
	pid=$(cat "$d/pid")
	# a 1 and b 1 are out, and the control socket is up; a 2 waits at
	# the head, b 2 and b 3 behind it.
	wait_running "$pid"
	wait_for "a 1 and b 1 out" stamped "$d/stamps" 2
	printf 'a 1/min\nb 10/s\n' >"$d/tiers"
	run -0 --separate-stderr "$TB" -R "$pid" --reload
	# At 10/s b 2 and b 3 go within 0.2 s; a run that kept b at 1/min
	# would hold them for 1 and 2 min, which the wait does not last.
	st=0
	wait_for "b 2 and b 3 out" stamped "$d/stamps" 4 || st=1
	kill -s TERM "$pid"
	wait "$bg" || true
	output=$(cat "$d/stamps")
	assert_eq "$st" 0 "b 2 and b 3 out after the reload" ||
	    { show_output; return 1; }
	assert_eq "$(stamp_texts)" $'a 1\nb 1\nb 2\nb 3' "out, a 2 still waiting"
}

@test "--order key: a record longer than the buffer goes whole in its turn, and those after it whole, in order" {
	local d=$BATS_TEST_TMPDIR
	{
		echo "a 0"
		printf 'b '
		head -c 1500000 /dev/zero | tr '\0' x
		echo
		# More than the buffer holds again, in short records.
		awk 'BEGIN { for (i = 0; i < 150000; i++) printf "k%d %d\n", i, i }'
	} >"$d/in"
	tb -k 1 -r 1000/s --order key "$d/in" >"$d/out"
	cmp "$d/in" "$d/out"
}

@test "--order key --queue 100000: 100000 keys within their bursts go in input order, each release costing no look at all those held (20 s at most)" {
	local d=$BATS_TEST_TMPDIR
	awk 'BEGIN { for (i = 0; i < 100000; i++) printf "k%d %d\n", i, i }' \
	    >"$d/in"
	# A look at every record held for each release took minutes here.
	tb -k 1 -r 1/s --order key --queue 100000 "$d/in" >"$d/out"
	cmp "$d/in" "$d/out"
}
