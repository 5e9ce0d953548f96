#!/usr/bin/env bats
# Standard descriptors closed at start, and an input that is an output:
# one line, exit 1, and nothing written where it does not belong.

load helpers

@test "a closed stdout is an error, and no file takes its place" {
	local d=$BATS_TEST_TMPDIR st=0
	export XDG_RUNTIME_DIR=$d/run
	mkdir -m 700 "$XDG_RUNTIME_DIR"
	seq 5 | tb -r 1000000/s >&- 2>"$d/err" || st=$?
	assert_eq "$st" 1 "exit status"
	assert_msg "$(cat "$d/err")" "write error: Bad file descriptor"
	assert_eq "$(find "$XDG_RUNTIME_DIR" -type f)" "" "files written"
}

@test "a closed stdout with a rate and a drop file: nothing reaches the drop file" {
	local d=$BATS_TEST_TMPDIR st=0
	seq 5 | tb -r 1/min --drop-to "$d/dropped" >&- 2>"$d/err" || st=$?
	assert_eq "$st" 1 "exit status"
	assert_eq "$(cat "$d/dropped" 2>/dev/null)" "" "drop file"
}

@test "--help with a closed stdout exits 1" {
	local st=0
	tb --help >&- 2>/dev/null || st=$?
	assert_eq "$st" 1 "exit status"
}

# (bats' run does not pass <&- on to the command: run it directly.)
@test "a closed stdin is an error, as cat says" {
	local d=$BATS_TEST_TMPDIR st=0
	"$TB" -r 1000000/s <&- >"$d/out" 2>"$d/err" || st=$?
	assert_eq "$st" 1 "exit status"
	assert_msg "$(cat "$d/err")" "stdin: Bad file descriptor"
	assert_eq "$(cat "$d/out")" "" "stdout"
}

@test "a closed stdin does not stop FILE operands" {
	local d=$BATS_TEST_TMPDIR st=0
	printf 'a\n' >"$d/a"
	"$TB" -r 1000000/s "$d/a" - "$d/a" <&- >"$d/out" 2>"$d/err" || st=$?
	assert_eq "$st" 1 "exit status"
	assert_eq "$(cat "$d/out")" $'a\na' "stdout"
	assert_msg "$(cat "$d/err")" "stdin: Bad file descriptor"
}

@test "a closed stderr: messages and stats go nowhere, not into a file" {
	local d=$BATS_TEST_TMPDIR st=0
	# No -r: no control file, so the drop file is the first one opened.
	printf 'aaaa\nbbbb\n' | tb --byte-rate 5/s --byte-burst 5 \
	    --drop-to "$d/dropped" -s "$d/missing" - 2>&- >"$d/out" || st=$?
	assert_eq "$st" 1 "exit status (the missing operand)"
	assert_eq "$(cat "$d/out")" aaaa "stdout"
	assert_eq "$(cat "$d/dropped")" bbbb "the drop file"
}

@test "an input that is the output is refused, as cat does" {
	local d=$BATS_TEST_TMPDIR st=0
	printf 'hi\n' >"$d/f"
	tb -r inf "$d/f" >>"$d/f" 2>"$d/err" || st=$?
	assert_eq "$st" 1 "exit status"
	assert_msg "$(cat "$d/err")" "$d/f: input file is output file"
	assert_eq "$(cat "$d/f")" hi "the file"
}

@test "stdin that is the output is refused" {
	local d=$BATS_TEST_TMPDIR st=0
	printf 'hi\n' >"$d/f"
	tb -r inf <"$d/f" >>"$d/f" 2>"$d/err" || st=$?
	assert_eq "$st" 1 "exit status"
	assert_msg "$(cat "$d/err")" "stdin: input file is output file"
}

@test "an input that is the --drop-to file is refused, the others read" {
	local d=$BATS_TEST_TMPDIR st=0
	printf 'hi\n' >"$d/f"
	printf 'a\n' >"$d/a"
	tb -r 1/min --drop-to "$d/f" "$d/f" "$d/a" >"$d/out" 2>"$d/err" ||
	    st=$?
	assert_eq "$st" 1 "exit status"
	assert_msg "$(cat "$d/err")" "$d/f: input file is output file"
	assert_eq "$(cat "$d/out")" a "stdout"
	assert_eq "$(cat "$d/f")" hi "the drop file"
}

@test "the output as /dev/null is not mistaken for an input" {
	run -0 tb -r inf /dev/null
	assert_eq "$output" "" "stdout"
}
