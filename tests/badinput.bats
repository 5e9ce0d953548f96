#!/usr/bin/env bats
# Bad input: every invalid option value, and every conflict, gives one
# line on standard error naming what is wrong, nothing on standard output,
# and exit status 2.  One row per case: the arguments, a tab, and a piece
# of text the message must contain.

load helpers

# The one test runs the tool some 160 times, each well under 10 ms on an
# idle machine, and each a process start that a busy one may make 200 ms:
# it is allowed 300 s.  What it pins is the messages and statuses, not
# their speed; a hang still fails it.
BATS_TEST_TIMEOUT=300

# ARGS<TAB>NEEDLE; ARGS are split by the shell (quotes allowed).
cases() {
	cat <<'EOF_CASES'
-r 0	'0'
-r -1	'-1'
-r abc	'abc'
-r 1e400	'1e400'
-r 10/fortnight	'10/fortnight'
-r 5/0s	'5/0s'
-r ''	''
-r 5/	'5/'
-r 5s	'5s'
-r 1KiB/s	'1KiB/s'
-r 1/s/s	'1/s/s'
-r 2000T/s	'2000T/s'
-r 1/3651day	'1/3651day'
-r 0x10/s	'0x10/s'
-r nan	'nan'
-r ' 5/s'	' 5/s'
-r 1/s -b 0	'0'
-r 1/s -b -1	'-1'
-r 1/s -b abc	'abc'
-r 1/s -b 99999999999999999999999	'99999999999999999999999'
-r 1/day -b 40000day	'40000day'
-r 1/s -b 1ms	'1ms'
-r 1/s -b 1 -b 2	-b given twice
-b 2 -r 1/s -r 2/s	comes before any -r
-r 1/s --initial -1	'-1'
-r 1/s -b 3 --initial 4	'4'
-r 1/s --initial x	'x'
-r 1/s -r 2/s --initial 1	--initial applies to a single -r
-r 1/s -d ''	delimiter ''
-r 1/s -d ab	'ab'
-r 1/s -d '\xZZ'	'\xZZ'
-r 1/s -l -c	conflicts
-r 1/s -0 -d ,	conflicts
-r 1/s -a token -a leaky	conflicting algorithms
-r 1/s -a sliding -a fixed	-a sliding and -a fixed
-r 1/s -b 2.7	'2.7': give a whole number
-r 1/s --initial 1.5	'1.5': give a whole number
-c -r 1M/s -b 0.5	'0.5': give a whole number
-c -r 2m	write 2m/s for MiB a second, or 2/min
-r 2m	a period needs a slash: 2/m
-c -r 1T/s	above the fastest rate, 1TB/s
-r 2000G/s	above the fastest rate, 1000G/s
-r 1e	unknown unit 'e'
--dr -r 1/s	'--dr' is ambiguous; possibilities: '--drop' '--drop-to'
-r 1/s -a bucket	'bucket'
-r 1/s --leaky -b 3	-a leaky
-r 1.5/s -a sliding	'1.5/s'
-r 10/min -a sliding -b 3	-b
-r 2000000/s -a sliding	'2000000/s'
-r 1/s --catch-up 2h	'2h'
-r 1/s --catch-up x	'x'
-r 1/s --catch-up 5	'5'
-r inf --drop	--drop
-r inf --drop-to x	--drop-to needs a rate
--replay --drop-to x	(with --replay, -r is a ceiling)
-r 1/s --drop-to ''	--drop-to ''
-r 1/s --stats=xml	'xml'
--replay --speed 0	'0'
--replay --speed -1	'-1'
--replay --speed fast	'fast'
--replay --speed 0.0000001	'0.0000001'
--speed 2	--speed needs --replay
--max-gap 1s -r 1/s	--max-gap needs --replay
--time-field 2 -r 1/s	--time-field needs --replay
--replay --max-gap -1s	'-1s'
--replay --max-gap 5	'5'
--replay --time-field 0	'0'
--replay --time-format '%Q'	%Q
--replay --time-format '%d %H'	without a month
--replay --time-format x	no date or time
--replay -c	-c
--replay -r 1/s --queue 3	--queue
--replay -r 1/s --shared x	--shared
--replay -b 3	-b 3
-R x --speed 0	'0'
-R x --speed 2 -r 1/s	--speed alone
-r 1/s --bogus	'--bogus'
-r 1/s -x	'-x'
-r 1/s --drop=1	takes no value
--lea=1 -r 1/s	option '--leaky' takes no value
-r 1/s --drop -xl	unknown option '-x' (
-R x -Ps	not '-P'
-R x -k1	not '-k'
-r	needs a value
-r 1/s -r 1/s -r 1/s -r 1/s -r 1/s -r 1/s -r 1/s -r 1/s -r 1/s	at most 8
-r inf -r 1/s	-r inf
-c --byte-rate 1M/s	-r 1M/s
--byte-burst 10 -r 1/s	needs --byte-rate
--byte-rate inf	'inf'
--byte-rate 10q/s	'10q/s'
--byte-rate 1K/s --byte-burst 0	'0'
-b 5 --byte-rate 1M/s	-b 5
--leaky --byte-rate 1M/s	-a applies to -r
-r 1/s --queue 0	'0'
-r 1/s --queue 1.5	'1.5'
-r 1/s --queue 2000000000	'2000000000'
-c -r 1K/s --queue 2	-c
--byte-rate 1K/s --queue 2	--byte-rate
-r inf --queue 2	--queue
-k 0 -r 1/s	'0'
-k 1 -c -r 1/s	-c
-k 1 -r 1/s -r 2/s	one -r
-k 1 --tiers /dev/null -r 1/s	not a regular file
-k 1 -r 1/s --initial 0	--initial
-F , -r 1/s	needs -k
-r 1/s -k 1 --max-keys 0	'0'
--max-keys 9 -r 1/s	needs -k
--shared '' -r 1/s	''
--shared a/b -r 1/s	'a/b'
--shared .x -r 1/s	'.x'
--shared x -r inf	needs a rate
--shared x -k 1 -r 1/s	-k
--shared x -a sliding -c -r 1/s	with a window (-a fixed or sliding) counts records: not with -c
--shared x -a fixed -r 3/1h --take 4	more than the window holds (3, of -r 3/1h)
--shared x -a fixed -c -r 1/s	with a window (-a fixed or sliding) counts records: not with -c
--shared x --redis redis://h -a fixed -r 1/s --adapt --exec true	--adapt does not combine with a window in Redis (-a fixed or sliding): use -a token or -a leaky with it
--state-dir /tmp -r 1/s	--state-dir needs --shared NAME
--redis redis://h -r 1/s	needs --shared
--shared x --redis http://h -r 1/s	'http://h'
--shared x --redis redis://h:0 -r 1/s	port
--shared x --redis redis://h/x -r 1/s	database
--shared x --redis redis://h --redis-fallback maybe -r 1/s	'maybe'
--shared x --redis-allow-eviction -r 1/s	needs --redis
-R .abc -r 1/s	'.abc'
-R 0 -r 1/s	'0'
-R 99999999999 -r 1/s	'99999999999'
-R 123	needs -r
-R 123 -r 1/s -s	or --stats, not both
-R 123 -r 1/q	'1/q'
-r 1/s -j 2	-j 2 needs --exec
-r 1/s -j 0 --exec echo	'0'
-r 1/s -j 5000 --exec echo	'5000'
-r 1/s --exec	--exec needs a command
-r 1/s --retry 2	--retry needs --exec
-r 1/s --retry 0 --exec true	'0'
-r 1/s --retry 1e3 --exec true	'1e3'
-r 1/s --retry 2 --retry-on 75, --exec true	'75,'
-r 1/s --retry 2 --retry-on 0 --exec true	'0'
-r 1/s --retry 2 --retry-delay -1s --exec true	'-1s'
-r 1/s --retry 2 --retry-max-delay 2day --exec true	'2day'
-r 1/s --retry-on 75 --exec true	--retry-on needs --retry N
-r 1/s --failed-to '' --exec true	''
-r 1/s --timeout 2s	--timeout needs --exec
-r 1/s --timeout -1s --exec true	'-1s'
-r 1/s --timeout 2day --exec true	'2day'
-r 1/s --timeout 5 --exec true	invalid --timeout '5': a duration needs its unit: 5s, or 5ms
-r 1/s --retry-delay 0.5 --exec true	invalid --retry-delay '0.5': a duration needs its unit: 0.5s, or 0.5ms
-r 1/s --halt 1	--halt needs --exec
-r 1/s --halt soon --exec true	'soon'
-r 1/s --halt now,fail=101% --exec true	'now,fail=101%'
-r 1/s --joblog '' --exec true	''
-r 1/s --joblog log	--joblog needs --exec
-r 1/s --adapt	--adapt needs --exec
-r 1/s --adapt -k 1 --exec true	-k does not combine with --adapt
-r 1/s --adapt --redis redis://127.0.0.1:1 --shared x --total-rate 5/s -k 1 --exec true	does not combine with --adapt
-r 1/s --resume --exec true	--resume needs --joblog FILE
-r 1/s --resume-failed --exec true	--resume-failed needs --joblog FILE
-r 1/s --joblog l --resume --resume-failed --exec true	--resume and --resume-failed: give one
-r 1/s --joblog l --resume --loop 2 f --exec true	--resume does not combine with --loop
--replay --retry 2 --exec true	does not combine with --replay
--replay --dry-run --exec echo	--dry-run says what a replay would do and starts nothing: it does not combine with --exec
--replay --dry-run -s	--dry-run releases nothing and says what it read itself: -s would do nothing with it; leave it out
--replay --dry-run --name x	--name would do nothing
--replay --dry-run -r 1/s --drop-to x	--drop-to would do nothing
-r 1/s -j ' 3' --exec echo	invalid -j ' 3': give a whole number from 1 to 4096
-r 1/s -j '3 ' --exec echo	invalid -j '3 ': give a whole number
-r 1/s -j 1e3 --exec echo	invalid -j '1e3': give a whole number
-r 1/s -j 2k --exec echo	invalid -j '2k': give a whole number
-r 1/s -j +3 --exec echo	invalid -j '+3': GNU parallel counts jobs by the CPUs so (more than them)
-r 1/s -j 3.0 --exec echo	invalid -j '3.0': give a whole number
-r 1/s --queue ' 5'	invalid --queue ' 5': give a whole number from 1 to
-r 1/s --queue 1e2	invalid --queue '1e2': give a whole number
-r 1/s --queue +5	invalid --queue '+5': give a whole number
-k ' 1' -r 1/s	invalid -k ' 1': give a whole number from 1 to
-k 1e0 -r 1/s	invalid -k '1e0': give a whole number
-r 1/s -k 1 --max-keys ' 9'	invalid --max-keys ' 9': give a whole number
-r 1/s -k 1 --max-keys 1e3	invalid --max-keys '1e3': give a whole number
--replay --time-field ' 2'	invalid --time-field ' 2': give a whole number
--replay --time-field 2e0	invalid --time-field '2e0': give a whole number
--replay --loop ' 2'	invalid --loop ' 2': give the passes in all, a whole number from 1 to
--replay --loop 2e0	invalid --loop '2e0': give the passes in all, a whole number
--replay --loop +2	invalid --loop '+2': give the passes in all, a whole number
-r 1/s -c --exec echo	not apply to -c
-r 1/s --exec sh -c 'echo `{}`'	{} stands after a backquote in the shell's script: its value could run as code there
-r 1/s --exec bash -ec 'echo x # {2}'	{2} stands in a comment
-r 1/s --exec sh -c 'echo "$(echo {#})"'	{#} stands inside $(...) or (...) within double quotes
-r 1/s --exec fish -c 'echo {}'	{} stands in the script of fish -c, whose quoting is not sh's
-r 1/s --take	needs --shared
--shared a -r 1/s --take x	'x'
--shared a -r 1/s --take 0	'0'
--shared a -r 1/s --take ' 1'	invalid --take operand ' 1': give the tokens to take, a whole number from 1 to
--shared a -r 1/s --take '1 '	invalid --take operand '1 ': give the tokens to take, a whole number
--shared a -r 1/s --take 1e0	invalid --take operand '1e0': give the tokens to take, a whole number
--shared a -r 1/s --take +1	invalid --take operand '+1': give the tokens to take, a whole number
--shared a -r 1/s --take 2 --drop	--take 2 with --drop
--shared a -r 1/s --take -s	with -s
--json	--json needs --list
--list --json -r 1/s	--list takes no other
-L 10	'-L'
-rate 5/s	'-rate'
-s=json -r 1/s	'-s=json'
-r 10 per second	'per'
--replay --time-key ''	''
--replay --time-key ts --time-field 2	not both
-r 1/s --time-key ts	--time-key needs --replay
EOF_CASES
}

# check_case ARGS NEEDLE: tbthrottle ARGS (split by the shell) exits 2, says
# nothing on stdout and one line containing NEEDLE on stderr; otherwise
# it says why on stderr and fails.  The run is a plain child of the test
# with its output in files (one that hung would be killed with the test):
# bats' run and tb's timeout cost processes that a table of this size
# cannot afford on a busy machine.
check_case() {
	local args=$1 needle=$2 st=0 out='' err='' d=$BATS_TEST_TMPDIR
	eval "\"\$TB\" $args" </dev/null >"$d/out" 2>"$d/err" || st=$?
	IFS= read -r -d '' out <"$d/out" || true
	IFS= read -r -d '' err <"$d/err" || true
	err=${err%$'\n'}
	if [[ $st != 2 || -n $out || -z $err || $err == *$'\n'* ||
	    $err != *"$needle"* ]]; then
		printf 'tb %s\n  status %s, stdout [%s], stderr [%s], want [%s]\n' \
		    "$args" "$st" "$out" "$err" "$needle" >&2
		return 1
	fi
}

@test "every invalid value or conflict: one line naming it, exit 2" {
	local args needle n=0 bad=0
	while IFS=$'\t' read -r args needle; do
		n=$((n + 1))
		check_case "$args" "$needle" || {
			echo "  (case $n)" >&2
			bad=$((bad + 1))
		}
	done < <(cases)
	echo "# $n bad-input cases" >&3
	assert_eq "$bad" 0 "cases that failed"
	assert_ge "$n" 80 "cases in the table"
}
