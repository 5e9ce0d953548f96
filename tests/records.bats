#!/usr/bin/env bats
# Records are atomic: a record goes out whole, in one write, only after its
# token; the final record needs no delimiter; long records stream through.
#
# stamp -c prints one line per read(2) of tbthrottle's stdout: "MS LEN
# LASTBYTE TOTAL".  Writes of at most PIPE_BUF bytes reach a pipe reader
# whole, so when every read ends on a delimiter no record was split.  The
# producers below pause in the middle of records, which gives a splitting
# implementation every chance to show a partial record.

load helpers

setup_file() {
	build_stamp
}

# assert_reads_end_with HEX [LAST]: every read of the output (stamp -c)
# ended on byte HEX, the delimiter; the last read may end on LAST instead
# (a final record without delimiter).
assert_reads_end_with() {
	local bad
	bad=$(awk -v d="$1" -v l="${2:-$1}" '
	    $1 ~ /^[0-9]/ { if (last != "") print last; last = $3 != d ? $0 : "" }
	    END { if (last != "" && (split(last, f, " ") < 3 || f[3] != l)) print last }
	    ' <<<"$output")
	if [[ -n $bad ]]; then
		printf 'reads not ending on a record boundary (%s):\n%s\n' \
		    "$1" "$bad" >&2
		show_output
		return 1
	fi
}

# A producer that stops for 200 ms in the middle of each of two records;
# given PIDFILE, it first waits (up to 20 s) until that file is there, as
# stamp -p makes it once its clock runs, so that its pauses count from
# after stamp's start.
split_producer() {
	local i
	for ((i = 0; i < 2000; i++)); do
		[[ -z ${1:-} || -s $1 ]] && break
		sleep 0.01
	done
	[[ -z ${1:-} || -s $1 ]] || return 1
	printf 'ab'
	sleep 0.2
	printf 'cd\nef'
	sleep 0.2
	printf 'gh\n'
}

@test "a record arriving in pieces goes out whole, with a rate" {
	run -0 --separate-stderr bash -c "$(declare -f split_producer)"'
	    split_producer "$3" | "$0" -c -o "$1" -p "$3" -- "$2" -r 100/s' \
	    "$STAMP" "$BATS_TEST_TMPDIR/out" "$TB" "$BATS_TEST_TMPDIR/pid"
	assert_reads_end_with 0a
	printf 'abcd\nefgh\n' | cmp - "$BATS_TEST_TMPDIR/out"
	# The first record could not leave before its last piece was written,
	# 200 ms after stamp's clock started (the producer waited for it).
	assert_ge "$(stamp_field 1)" 200 "first record arrival (ms)"
}

@test "a record arriving in pieces goes out whole, with -r inf" {
	run -0 --separate-stderr bash -c "$(declare -f split_producer)"'
	    split_producer | "$0" -c -o "$1" -- "$2" -r inf' \
	    "$STAMP" "$BATS_TEST_TMPDIR/out" "$TB"
	assert_reads_end_with 0a
	printf 'abcd\nefgh\n' | cmp - "$BATS_TEST_TMPDIR/out"
}

@test "a NUL record arriving in pieces goes out whole with -0" {
	run -0 --separate-stderr bash -c '
	    { printf "a\nb"; sleep 0.2; printf "c\0d"; sleep 0.2; printf "e\0"; } |
	    "$0" -c -o "$1" -- "$2" -0 -r 100/s' \
	    "$STAMP" "$BATS_TEST_TMPDIR/out" "$TB"
	assert_reads_end_with 00
	printf 'a\nbc\0de\0' | cmp - "$BATS_TEST_TMPDIR/out"
}

@test "a -d record arriving in pieces goes out whole; newline is data" {
	run -0 --separate-stderr bash -c '
	    { printf "a\nb"; sleep 0.2; printf "c,d\n"; sleep 0.2; printf "e,"; } |
	    "$0" -c -o "$1" -- "$2" -d , -r 100/s' \
	    "$STAMP" "$BATS_TEST_TMPDIR/out" "$TB"
	assert_reads_end_with 2c
	printf 'a\nbc,d\ne,' | cmp - "$BATS_TEST_TMPDIR/out"
}

@test "-d accepts an escape: \\x1e records are framed on byte 0x1e" {
	printf 'a\x1eb\nc\x1ed' >"$BATS_TEST_TMPDIR/in"
	run -0 --separate-stderr "$STAMP" -c -o "$BATS_TEST_TMPDIR/out" -- \
	    "$TB" -d '\x1e' -r 20/s <"$BATS_TEST_TMPDIR/in"
	cmp "$BATS_TEST_TMPDIR/in" "$BATS_TEST_TMPDIR/out"
	# Records a\x1e, b\nc\x1e and d leave at 0, 50 and 100 ms at least,
	# and no read ends inside one (at the newline, say).
	assert_ge "$(stamp_byte_time 3)" 50 "record 2 arrival (ms)"
	assert_ge "$(stamp_byte_time 7)" 100 "record 3 arrival (ms)"
	assert_reads_end_with 1e 64
}

@test "-d '\\t' frames on tab and -d '\\\\' on backslash" {
	printf 'a\tb\tc' >"$BATS_TEST_TMPDIR/in"
	run -0 --separate-stderr "$STAMP" -c -- "$TB" -d '\t' -r 20/s \
	    <"$BATS_TEST_TMPDIR/in"
	assert_ge "$(stamp_byte_time 3)" 50 "tab: record 2 arrival (ms)"
	assert_ge "$(stamp_byte_time 5)" 100 "tab: record 3 arrival (ms)"
	assert_reads_end_with 09 63
	printf 'a\\b\\c' >"$BATS_TEST_TMPDIR/in"
	run -0 --separate-stderr "$STAMP" -c -- "$TB" -d '\\' -r 20/s \
	    <"$BATS_TEST_TMPDIR/in"
	assert_ge "$(stamp_byte_time 3)" 50 "backslash: record 2 arrival (ms)"
	assert_ge "$(stamp_byte_time 5)" 100 "backslash: record 3 arrival (ms)"
	assert_reads_end_with 5c 63
}

@test "in line mode a NUL is data, not a delimiter" {
	printf 'a\0b\0c\n' >"$BATS_TEST_TMPDIR/in"
	# One record: with 1/min it can only finish promptly if it is one.
	run -0 --separate-stderr "$STAMP" -c -o "$BATS_TEST_TMPDIR/out" -- \
	    "$TB" -r 1/min <"$BATS_TEST_TMPDIR/in"
	cmp "$BATS_TEST_TMPDIR/in" "$BATS_TEST_TMPDIR/out"
	assert_le "$(stamp_end)" 5000 "exit time (ms)"
}

@test "with -0 a newline is data, not a delimiter" {
	printf 'a\nb\nc\0' >"$BATS_TEST_TMPDIR/in"
	run -0 --separate-stderr "$STAMP" -c -o "$BATS_TEST_TMPDIR/out" -- \
	    "$TB" -0 -r 1/min <"$BATS_TEST_TMPDIR/in"
	cmp "$BATS_TEST_TMPDIR/in" "$BATS_TEST_TMPDIR/out"
	assert_le "$(stamp_end)" 5000 "exit time (ms)"
}

@test "records released one by one reach the reader whole" {
	local in="$BATS_TEST_TMPDIR/in" i
	# 6 records of 3000 bytes (< PIPE_BUF) at 20/s: reads see whole writes.
	for ((i = 0; i < 6; i++)); do
		head -c 2999 /dev/zero | tr '\0' "$i"
		echo
	done >"$in"
	run -0 --separate-stderr "$STAMP" -c -o "$BATS_TEST_TMPDIR/out" -- \
	    "$TB" -r 20/s <"$in"
	cmp "$in" "$BATS_TEST_TMPDIR/out"
	# Reads may merge records but never hold a part of one.
	awk '$1 ~ /^[0-9]/ && $2 % 3000 != 0 { exit 1 }' <<<"$output" ||
	    { show_output; return 1; }
	assert_reads_end_with 0a
}

@test "records across the 128 KiB buffer edge go out whole" {
	local in="$BATS_TEST_TMPDIR/in" i
	# 3001-byte records: the 44th straddles the end of the first 128 KiB.
	for ((i = 0; i < 60; i++)); do
		head -c 3000 /dev/zero | tr '\0' x
		echo
	done >"$in"
	# The producer stops in the middle of record 44 for 200 ms.
	run -0 --separate-stderr bash -c '
	    { head -c 131072 "$3"; sleep 0.2; tail -c +131073 "$3"; } |
	    "$0" -c -o "$1" -- "$2" -r 1k/s' \
	    "$STAMP" "$BATS_TEST_TMPDIR/out" "$TB" "$in"
	cmp "$in" "$BATS_TEST_TMPDIR/out"
	assert_reads_end_with 0a
}

@test "a final record without delimiter is a record: it waits for its token" {
	printf 'a\nb' >"$BATS_TEST_TMPDIR/in"
	run -0 --separate-stderr "$STAMP" -o "$BATS_TEST_TMPDIR/out" -- \
	    "$TB" -r 20/s <"$BATS_TEST_TMPDIR/in"
	assert_eq "$(stamp_texts)" $'a\nb' "records"
	assert_ge "$(stamp_field 2)" 50 "record 2 arrival (ms)"
	cmp "$BATS_TEST_TMPDIR/in" "$BATS_TEST_TMPDIR/out"
}

@test "a final record without delimiter is released at EOF of a slow producer" {
	# The rest, "c", is written only once the first record has been read
	# (stamp copies each read to the -o file at once), however slow the
	# start: the two reads cannot meet.  A run that kept the first record
	# back for more input never gets "c" (the producer gives up after
	# 20 s), and its output is not the input.
	run -0 --separate-stderr bash -c '
	    { printf "a\nb"
	      for ((i = 0; i < 2000; i++)); do
		[[ -s $1 ]] && break
		sleep 0.01
	      done
	      [[ ! -s $1 ]] || printf "c"; } |
	    "$0" -c -o "$1" -- "$2" -r 100/s' \
	    "$STAMP" "$BATS_TEST_TMPDIR/out" "$TB"
	printf 'a\nbc' | cmp - "$BATS_TEST_TMPDIR/out"
	assert_eq "$(stamp_field 1 2)" 2 "first read is the first record only"
	assert_eq "$(stamp_field 2 2)" 2 "second read is the final record, whole"
}

@test "a record longer than the 128 KiB buffer streams through intact and costs one token" {
	local in="$BATS_TEST_TMPDIR/in"
	{
		head -c 300000 /dev/zero | tr '\0' x; printf '\nb\n'
		head -c 300000 /dev/zero | tr '\0' y; printf '\nd\n'
	} >"$in"
	run -0 --separate-stderr "$STAMP" -o "$BATS_TEST_TMPDIR/out" -- \
	    "$TB" -r 20/s <"$in"
	cmp "$in" "$BATS_TEST_TMPDIR/out"
	assert_eq "$(stamp_count)" 4 "number of records"
	assert_schedule 1 50 4
	assert_le "$(stamp_end)" 3000 "exit time (ms)"
}

@test "a long record from a slow producer streams through intact" {
	run -0 --separate-stderr bash -c '
	    { head -c 200000 /dev/zero | tr "\0" x; sleep 0.3;
	      head -c 200000 /dev/zero | tr "\0" y; printf "\nend\n"; } |
	    "$0" -o "$1" -- "$2" -r 20/s' \
	    "$STAMP" "$BATS_TEST_TMPDIR/out" "$TB"
	{ head -c 200000 /dev/zero | tr '\0' x; head -c 200000 /dev/zero |
	  tr '\0' y; printf '\nend\n'; } | cmp - "$BATS_TEST_TMPDIR/out"
	assert_eq "$(stamp_texts)" "$(printf 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...\nend')" \
	    "records"
}
