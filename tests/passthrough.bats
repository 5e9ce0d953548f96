#!/usr/bin/env bats
# Byte-exactness: whatever the mode and rate, stdout is the input, byte for
# byte (compared with cmp).

load helpers

setup_file() {
	export RND="$BATS_FILE_TMPDIR/random"
	head -c 1048576 /dev/urandom >"$RND"
}

# same_bytes INPUT ARG...: tbthrottle ARG... < INPUT reproduces INPUT and
# exits 0 with nothing on stderr.
same_bytes() {
	local in=$1 out="$BATS_TEST_TMPDIR/out" err="$BATS_TEST_TMPDIR/err"
	shift
	local st=0
	tb "$@" <"$in" >"$out" 2>"$err" || st=$?
	assert_eq "$st" 0 "exit status of tbthrottle $*"
	cmp "$in" "$out"
	assert_eq "$(cat "$err")" "" "stderr"
}

@test "random binary data passes unchanged in line mode, -r inf" {
	same_bytes "$RND" -r inf
}

@test "random binary data passes unchanged in line mode at a rate" {
	# About 4000 newlines in 1 MiB: a few ms at a million a second.
	same_bytes "$RND" -r 1000000/s
}

@test "random binary data passes unchanged in line mode with a burst" {
	same_bytes "$RND" -r 1000000/s -b 100
}

@test "random binary data passes unchanged with -c at a byte rate" {
	same_bytes "$RND" -c -r 1G/s
}

@test "random binary data passes unchanged with -c -r inf" {
	same_bytes "$RND" -c -r inf
}

@test "random binary data passes unchanged with -0" {
	same_bytes "$RND" -0 -r 1000000/s
}

@test "random binary data passes unchanged with -d" {
	same_bytes "$RND" -d '\xff' -r 1000000/s
	same_bytes "$RND" -d , -r inf
}

@test "random binary data passes unchanged with --leaky" {
	same_bytes "$RND" --leaky -r 1000000/s
}

@test "NUL bytes inside lines pass unchanged in line mode" {
	printf 'a\0b\n\0\0\n\0' >"$BATS_TEST_TMPDIR/in"
	same_bytes "$BATS_TEST_TMPDIR/in" -r 1k/s
	same_bytes "$BATS_TEST_TMPDIR/in" -r inf
}

@test "CRLF line endings pass unchanged" {
	printf 'one\r\ntwo\r\n\r\nthree\r' >"$BATS_TEST_TMPDIR/in"
	same_bytes "$BATS_TEST_TMPDIR/in" -r 1k/s
}

@test "empty input gives empty output and exit 0" {
	: >"$BATS_TEST_TMPDIR/empty"
	same_bytes "$BATS_TEST_TMPDIR/empty" -r 5/s
	same_bytes "$BATS_TEST_TMPDIR/empty" -r inf
	same_bytes "$BATS_TEST_TMPDIR/empty" -c -r 1K/s
	same_bytes "$BATS_TEST_TMPDIR/empty" -0 -r 5/s
}

@test "input without a trailing newline keeps its last bytes" {
	printf 'first\nno newline at end' >"$BATS_TEST_TMPDIR/in"
	same_bytes "$BATS_TEST_TMPDIR/in" -r 1k/s
	same_bytes "$BATS_TEST_TMPDIR/in" -r inf
	printf 'x' >"$BATS_TEST_TMPDIR/one"
	same_bytes "$BATS_TEST_TMPDIR/one" -r 1k/s
}

@test "only newlines pass unchanged" {
	printf '\n\n\n\n' >"$BATS_TEST_TMPDIR/in"
	same_bytes "$BATS_TEST_TMPDIR/in" -r 1k/s
}

@test "a 20 MB single line passes unchanged at a record rate" {
	local in="$BATS_TEST_TMPDIR/big"
	{ head -c 20000000 /dev/zero | tr '\0' x; echo; } >"$in"
	same_bytes "$in" -r 10/s
}

@test "a 20 MB single line without newline passes unchanged with -r inf" {
	local in="$BATS_TEST_TMPDIR/big"
	head -c 20000000 /dev/zero | tr '\0' y >"$in"
	same_bytes "$in" -r inf
}

@test "records straddling the 128 KiB buffer pass unchanged" {
	local in="$BATS_TEST_TMPDIR/in" n pre rate
	for n in 131071 131072 131073 262144; do
		for pre in '' 'abc\n'; do
			{ printf "$pre"; head -c "$n" /dev/zero | tr '\0' x;
			  printf '\nyy\n'; head -c "$n" /dev/zero | tr '\0' z; } >"$in"
			for rate in inf 1000000/s; do
				same_bytes "$in" -r "$rate"
			done
		done
	done
}

@test "byte mode at a modest rate passes unchanged" {
	head -c 3000 "$RND" >"$BATS_TEST_TMPDIR/in"
	# 3000 bytes at 100 KB/s: 30 ms.
	same_bytes "$BATS_TEST_TMPDIR/in" -c -r 100KB/s
}

@test "several files are concatenated like cat, also in byte mode" {
	local d=$BATS_TEST_TMPDIR
	printf 'one\ntwo' >"$d/a"
	printf '\0three\n' >"$d/b"
	: >"$d/c"
	head -c 5000 "$RND" >"$d/e"
	cat "$d/a" "$d/b" "$d/c" "$d/e" >"$d/want"
	tb -r 1000000/s "$d/a" "$d/b" "$d/c" "$d/e" >"$d/got"
	cmp "$d/want" "$d/got"
	tb -c -r inf "$d/a" "$d/b" "$d/c" "$d/e" >"$d/got"
	cmp "$d/want" "$d/got"
}

@test "- reads standard input in its place among the files" {
	local d=$BATS_TEST_TMPDIR
	printf 'A\n' >"$d/a"
	printf 'C\n' >"$d/c"
	printf 'B\n' >"$d/b"
	tb -r 1k/s "$d/a" - "$d/c" <"$d/b" >"$d/got"
	printf 'A\nB\nC\n' | cmp - "$d/got"
}

@test "a lone - is standard input" {
	tb -r inf - <"$RND" >"$BATS_TEST_TMPDIR/got"
	cmp "$RND" "$BATS_TEST_TMPDIR/got"
}

@test "a file named like an option is read after --" {
	cd "$BATS_TEST_TMPDIR"
	printf 'dash\n' >./-r
	run -0 --separate-stderr tb -r inf -- -r
	assert_eq "$output" "dash" "output"
}
