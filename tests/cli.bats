#!/usr/bin/env bats
# Command line: help, version, the RATE grammar, usage errors (exit 2).

load helpers

# A usage error: status 2, nothing on stdout, exactly one stderr line that
# contains every NEEDLE.   usage_error NEEDLE... -- ARG...
usage_error() {
	local needles=() n
	while [[ $1 != -- ]]; do
		needles+=("$1")
		shift
	done
	shift
	run -2 --separate-stderr tb "$@" </dev/null
	assert_eq "$output" "" "stdout of a usage error"
	assert_one_stderr_line
	for n in "${needles[@]}"; do
		if [[ $stderr != *"$n"* ]]; then
			printf 'stderr does not name %s:\n%s\n' "$n" "$stderr" >&2
			return 1
		fi
	done
}

# The option is accepted: status 0, no output, no message.
accepted() {
	run -0 --separate-stderr tb "$@" </dev/null
	assert_eq "$output" "" "stdout"
	assert_eq "$stderr" "" "stderr"
}

# --- help and version ------------------------------------------------------

@test "--help prints usage on stdout, nothing on stderr, and exits 0" {
	run -0 --separate-stderr tb --help
	[[ $output == *usage:*tbthrottle* ]]
	assert_eq "$stderr" "" "stderr"
}

@test "-h prints the same text as --help" {
	run -0 --separate-stderr tb --help
	local long=$output
	run -0 --separate-stderr tb -h
	assert_eq "$output" "$long" "-h output"
}

@test "--help mentions every long option" {
	run -0 --separate-stderr tb --help
	local opt
	for opt in rate burst lines null delimiter bytes algorithm leaky tz \
	    initial help version; do
		if [[ $output != *"--$opt"* ]]; then
			echo "--help does not mention --$opt" >&2
			return 1
		fi
	done
}

@test "--help needs no -r and ignores other options" {
	run -0 --separate-stderr tb -c --help
	[[ $output == *usage:* ]]
}

@test "--version prints one version line on stdout and exits 0" {
	run -0 --separate-stderr tb --version
	assert_eq "${#lines[@]}" 1 "number of lines"
	[[ $output =~ ^tbthrottle\ [0-9]+\.[0-9]+ ]]
	assert_eq "$stderr" "" "stderr"
}

@test "--version names the licence, whose text ships as LICENSE" {
	run -0 --separate-stderr tb --version
	[[ $output == *"ISC licence"* ]]
	grep -q '^ISC License' "$BATS_TEST_DIRNAME/../LICENSE"
	grep -q '^\.Sh LICENSE' "$BATS_TEST_DIRNAME/../man/tbthrottle.1"
}

@test "-V is --version" {
	run -0 --separate-stderr tb -V
	local short=$output
	run -0 --separate-stderr tb --version
	assert_eq "$short" "$output" "-V output"
}

# --- accepted forms --------------------------------------------------------

@test "record rates in every documented form are accepted" {
	local r
	for r in 5 5/s 0.5 .5 90/min 2/h 1/day 3/10s 1/250ms 2k/s \
	    5/ms 5/sec 5/second 5/seconds 5/m 5/minute 5/minutes 5/hour \
	    5/hours 5/d 5/days 1/1.5s inf; do
		accepted -r "$r"
	done
	accepted --rate 5/s
	accepted --rate=5/s
	# M, G and T are accepted for records, with a warning: bytes were
	# likely meant.
	run -0 --separate-stderr tb -r 1M/min </dev/null
	assert_msg "$stderr" "-r 1M/min counts lines, not bytes; to limit bytes, add -c, or give --byte-rate 1M/min"
}

@test "byte rates with K KiB KB M G T suffixes are accepted with -c" {
	local r
	for r in 5 1.5M/s 64KiB/s 64K/s 10MB/min 1G/min 1GB/h 2T/h 1TB/day inf; do
		accepted -c -r "$r"
	done
}

@test "every unit option is accepted: -l -0 -d -c and their long forms" {
	accepted -r 5 -l
	accepted -r 5 --lines
	accepted -r 5 -0
	accepted -r 5 --null
	accepted -r 5 -d ,
	accepted -r 5 --delimiter ,
	accepted -r 5 -c
	accepted -r 5 --bytes
	accepted -r 5 -l --lines
}

@test "-d takes one byte or the escapes \\n \\t \\r \\0 \\\\ \\xHH" {
	local d
	for d in , '|' x '\n' '\t' '\r' '\0' '\\' '\x1e' '\xFF' '\x00'; do
		accepted -r 5 -d "$d"
	done
}

@test "-a token, -a leaky, --algorithm and --leaky are accepted" {
	accepted -r 5 -a token
	accepted -r 5 -a leaky
	accepted -r 5 --algorithm=leaky
	accepted -r 5 --leaky
	accepted -r 5 -a leaky --leaky
	accepted -r 5 -a token -b 3
}

# --- exact values of suffixes and periods ----------------------------------
# --initial above the burst is a usage error, so the largest accepted
# --initial measures the burst exactly, and a duration burst measures RATE.

# burst_is N ARG...: with ARG..., --initial N is accepted and N+1 is not.
burst_is() {
	local n=$1
	shift
	run -0 --separate-stderr tb "$@" --initial "$n" </dev/null
	run -2 --separate-stderr tb "$@" --initial "$((n + 1))" </dev/null
	[[ $stderr == *"$((n + 1))"* ]]
}

@test "the default burst is 1 record" {
	burst_is 1 -r 5/s
	burst_is 1 -r 1k/s -0
}

@test "the default byte burst is 10 ms of the rate" {
	burst_is 1000 -c -r 100KB/s
	burst_is 10 -c -r 1K/s
}

@test "byte suffixes: K and KiB are 1024, KB is 1000, M G T are powers of 1024" {
	burst_is 1024 -c -r 1K/s -b 1K
	burst_is 1024 -c -r 1K/s -b 1KiB
	burst_is 1000 -c -r 1K/s -b 1KB
	burst_is 1048576 -c -r 1K/s -b 1M
	burst_is 1000000 -c -r 1K/s -b 1MB
	burst_is 1073741824 -c -r 1M/s -b 1G
	burst_is 1099511627776 -c -r 1G/s -b 1T
}

@test "byte suffixes as pv and curl write them: lowercase k m g t are powers of 1024" {
	burst_is 1024 -c -r 1K/s -b 1k
	# In -b a bare m stays a minute, as it always was: 60 s of 1 KiB/s.
	burst_is 61440 -c -r 1K/s -b 1m
	burst_is 1073741824 -c -r 1M/s -b 1g
	burst_is 1099511627776 -c -r 1G/s -b 1t
	# 500k/s is 512000 B/s: 10 ms of it is 5120 bytes.
	burst_is 5120 -c -r 500k/s
	burst_is 5120 -c -r 500k
	run -0 tb -c -r 2g/min </dev/null
}

@test "numbers in exponent form are exact; INF and infinity in any case" {
	burst_is 10000 -r 1e6 -b 10ms
	burst_is 25 -r 2.5e3/s -b 10ms
	burst_is 1 -r 1E-3/s -b 1000s
	burst_is 1200 -r 12e-1/s -b 1000s
	run -0 tb -r INF </dev/null
	run -0 tb -r Infinity </dev/null
	run -0 tb -c -r iNf </dev/null
}

@test "record suffixes: k is 1000, M is a million, G a billion" {
	burst_is 2000 -r 1k/s -b 2k
	burst_is 1000000 -r 1k/s -b 1M
	burst_is 1000000000 -r 1M/s -b 1G
}

@test "a duration burst is that much time at the rate" {
	burst_is 20 -r 10/s -b 2s
	burst_is 2 -r 20/s -b 100ms
	burst_is 3 -r 90/min -b 2s
	burst_is 3 -r 3/10s -b 10s
	burst_is 4 -r 1/250ms -b 1s
	burst_is 2 -r 0.5 -b 4s
	burst_is 2 -r 2/h -b 1h
	burst_is 2 -r 2/h -b 60min
	burst_is 3 -r 1/day -b 3day
	burst_is 3 -r 1/day -b 72h
	burst_is 2000 -r 2k/s -b 1s
}

@test "byte rates: a duration burst measures the rate exactly" {
	burst_is 65536 -c -r 64KiB/s -b 1s
	burst_is 1572864 -c -r 1.5M/s -b 1s
	burst_is 10000000 -c -r 10MB/min -b 1min
}

@test "--initial may be a duration, and 0" {
	run -0 --separate-stderr tb -r 10/s -b 5 --initial 500ms </dev/null
	run -0 --separate-stderr tb -r 10/s -b 5 --initial 0 </dev/null
	run -2 --separate-stderr tb -r 10/s -b 5 --initial 600ms </dev/null
}

# --- usage errors: status 2, one line naming the bad value, no output -------

@test "usage error: no -r at all" {
	usage_error -r --
}

@test "usage error: -r 0" {
	usage_error "'0'" -- -r 0
}

@test "usage error: -r -1" {
	usage_error "'-1'" -- -r -1
}

@test "usage error: -r abc" {
	usage_error "'abc'" -- -r abc
}

@test "usage error: -r 1e400" {
	usage_error "1e400" -- -r 1e400
}

@test "usage error: -r 10/fortnight" {
	usage_error "fortnight" -- -r 10/fortnight
}

@test "usage error: -r 5/0s" {
	usage_error "5/0s" -- -r 5/0s
}

@test "usage error: -r '' (empty rate)" {
	usage_error "rate" "''" -- -r ''
}

@test "usage error: -r 5/ (period missing after the slash)" {
	usage_error "5/" -- -r 5/
}

@test "usage error: -r 5s (a period without a slash)" {
	usage_error "5s" -- -r 5s
}

@test "usage error: -r 1KiB/s without -c" {
	usage_error "1KiB/s" -- -r 1KiB/s
}

@test "usage error: -b 0" {
	usage_error "'0'" -- -r 5/s -b 0
}

@test "usage error: -b abc" {
	usage_error "abc" -- -r 5/s -b abc
}

@test "usage error: --initial -1" {
	usage_error "'-1'" -- -r 5/s --initial -1
}

@test "usage error: -b 0 even with -r inf" {
	usage_error "'0'" -- -r inf -b 0
}

@test "usage error: --catch-up 5 (a count, not a duration)" {
	usage_error "'5'" "duration" -- -r 5/s --catch-up 5
}

@test "usage error: --catch-up 2h (longer than an hour)" {
	usage_error "'2h'" -- -r 5/s --catch-up 2h
}

@test "usage error: --catch-up -1ms" {
	usage_error "'-1ms'" -- -r 5/s --catch-up -1ms
}

@test "usage error: --initial 2 with --leaky (the leaky bucket holds one)" {
	usage_error "'2'" -- -c --leaky -r 1000/s --initial 2
}

@test "--catch-up takes a duration or 0" {
	run -0 --separate-stderr tb -r 10/s --catch-up 0 </dev/null
	run -0 --separate-stderr tb -r 10/s --catch-up=1ms </dev/null
	run -0 --separate-stderr tb -r 10/s --catch-up 1h </dev/null
}

@test "usage error: --stats=xml" {
	usage_error "'xml'" -- -r 5/s --stats=xml
}

@test "usage error: -d '' (empty delimiter)" {
	usage_error "delimiter" "''" -- -r 5/s -d ''
}

@test "usage error: -d ab (two bytes)" {
	usage_error "'ab'" -- -r 5/s -d ab
}

@test "usage error: -d '\\xZZ' (bad hex escape)" {
	usage_error '\xZZ' -- -r 5/s -d '\xZZ'
}

@test "usage error: -a foo" {
	usage_error "foo" -- -r 5/s -a foo
}

@test "usage error: -c and -l conflict, in either order" {
	usage_error -c -l -- -r 5/s -c -l
	usage_error -c -l -- -r 5/s -l -c
}

@test "usage error: every pair of different unit options conflicts" {
	usage_error -0 -c -- -r 5/s -0 -c
	usage_error -d -l -- -r 5/s -d , -l
	usage_error -0 -l -- -r 5/s --null --lines
	usage_error -d -c -- -r 5/s --bytes --delimiter=,
}

@test "usage error: -b with -a leaky or --leaky, in any order" {
	usage_error -b -- -r 5/s -a leaky -b 2
	usage_error -b -- -r 5/s -b 2 --leaky
	usage_error -b -- -r 5/s --leaky --burst=1
}

@test "usage error: --initial larger than the burst" {
	usage_error "'3'" -- -r 5/s -b 2 --initial 3
	usage_error "'2'" -- -r 5/s --initial 2
}

@test "usage error: unknown short option" {
	usage_error "-x" -- -r 5/s -x
}

@test "usage error: unknown long option" {
	usage_error "--frobnicate" -- -r 5/s --frobnicate
}

@test "usage error: unknown option is never exit 0, even with a valid rate after it" {
	usage_error "--nope" -- --nope -r 5/s
}

@test "usage error: -r without its value" {
	usage_error "-r" -- -r
}

@test "usage error: --rate without its value" {
	usage_error "--rate" -- --rate
}

@test "usage error: --leaky=1 names --leaky (no value allowed)" {
	usage_error "'--leaky" -- -r 5/s --leaky=1
}

@test "usage error: --lines=1, --help=1 etc. name the long option, not its short form" {
	local opt bad=()
	for opt in lines null bytes help version; do
		run -2 --separate-stderr tb -r 5/s "--$opt=1" </dev/null
		assert_eq "$output" "" "stdout"
		assert_one_stderr_line
		[[ $stderr == *"'--$opt"* ]] || bad+=("--$opt=1 -> $stderr")
	done
	if ((${#bad[@]})); then
		printf 'message does not name the option:\n' >&2
		printf '  %s\n' "${bad[@]}" >&2
		return 1
	fi
}
