#!/usr/bin/env bats
# Runtime failures: unreadable operands (exit 1, the error names the file,
# the other files are still copied) and write errors (exit 1).

load helpers

setup() {
	cd "$BATS_TEST_TMPDIR"
	printf 'one\n' >a
	printf 'two\n' >b
}

@test "a missing file in the middle: named on stderr, the others copied, exit 1" {
	run -1 --separate-stderr tb -r inf a missing b
	assert_eq "$output" $'one\ntwo' "stdout"
	assert_eq "${#stderr_lines[@]}" 1 "number of stderr lines"
	[[ $stderr == *missing* ]]
}

@test "a missing file while throttled: the others still copied in order, exit 1" {
	run -1 --separate-stderr tb -r 1k/s missing a b
	assert_eq "$output" $'one\ntwo' "stdout"
	[[ $stderr == *missing* ]]
}

@test "a missing last file: exit 1 after copying the rest" {
	run -1 --separate-stderr tb -r inf a b nothere
	assert_eq "$output" $'one\ntwo' "stdout"
	[[ $stderr == *nothere* ]]
}

@test "two missing files: both named, exit 1" {
	run -1 --separate-stderr tb -r inf gone1 a gone2
	assert_eq "$output" "one" "stdout"
	[[ $stderr == *gone1* && $stderr == *gone2* ]]
}

@test "only missing files: no output, exit 1" {
	run -1 --separate-stderr tb -r 5/s gone
	assert_eq "$output" "" "stdout"
	[[ $stderr == *gone* ]]
}

@test "a directory operand: named on stderr, the others copied, exit 1" {
	mkdir adir
	run -1 --separate-stderr tb -r inf a adir b
	assert_eq "$output" $'one\ntwo' "stdout"
	[[ $stderr == *adir* ]]
}

@test "an unreadable file: named on stderr, the others copied, exit 1" {
	if [[ $(id -u) == 0 ]]; then
		skip "root can read a mode 000 file"
	fi
	printf 'secret\n' >locked
	chmod 000 locked
	run -1 --separate-stderr tb -r inf a locked b
	assert_eq "$output" $'one\ntwo' "stdout"
	[[ $stderr == *locked* ]]
}

@test "a missing file does not stop standard input given as -" {
	run -1 --separate-stderr tb -r inf missing - b <a
	assert_eq "$output" $'one\ntwo' "stdout"
	[[ $stderr == *missing* ]]
}

@test "a failed write (/dev/full) is exit 1 with a message" {
	local st=0
	tb -r inf a >/dev/full 2>err || st=$?
	assert_eq "$st" 1 "exit status"
	[[ -s err ]]
}

@test "a failed write while throttled is exit 1 with a message" {
	local st=0
	tb -r 5/s a >/dev/full 2>err || st=$?
	assert_eq "$st" 1 "exit status"
	[[ -s err ]]
}

@test "a failed write in byte mode is exit 1 with a message" {
	local st=0
	tb -c -r 1M/s a >/dev/full 2>err || st=$?
	assert_eq "$st" 1 "exit status"
	[[ -s err ]]
}

@test "a closed standard output is exit 1 with a message, not a crash" {
	local st=0
	tb -r inf a >&- 2>err || st=$?
	assert_eq "$st" 1 "exit status"
	[[ -s err ]]
}

@test "a write error stops at once: the rest of a slow input is not waited for" {
	local st=0 t0 t1
	printf 'a\nb\nc\n' >three
	t0=$(now_ms)
	# At 1/min the second line would take a minute: the first write fails.
	tb -r 1/min three >/dev/full 2>err || st=$?
	t1=$(now_ms)
	assert_eq "$st" 1 "exit status"
	assert_le "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" 5000 \
	    "time taken (ms)"
}

@test "empty input is not an error" {
	: >empty
	run -0 --separate-stderr tb -r 5/s empty
	assert_eq "$output" "" "stdout"
	assert_eq "$stderr" "" "stderr"
}
