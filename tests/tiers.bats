#!/usr/bin/env bats
# -k with -a sliding and -a fixed (a window per key), --tiers FILE (a
# rate per glob, first match wins), -R NAME --reload (the file read again
# while running, all or nothing) and the per-tier counts of -s.
# shellcheck disable=SC2016 # bash -c scripts read their arguments as $1

load helpers
load redis

setup_file() {
	build_stamp
}

teardown() {
	stop_own_redis
}

setup() {
	export XDG_RUNTIME_DIR=$BATS_TEST_TMPDIR/run HOME=$BATS_TEST_TMPDIR/home
	mkdir -m 700 "$XDG_RUNTIME_DIR" "$HOME"
	d=$BATS_TEST_TMPDIR
}

# tier_json PATTERN|null FIELD: field FIELD of the row of tier PATTERN in
# the JSON report on stderr (jq reads it; null is the keys no tier takes).
tier_json() {
	local sel
	if [[ $1 == null ]]; then
		sel='.tiers[] | select(.pattern == null)'
	else
		sel=".tiers[] | select(.pattern == \"$1\")"
	fi
	jq -r "$sel | .$2" <<<"$stderr"
}

# Records "KEY SEQ" in a fixed interleaving: key i of "K1:N1 K2:N2 ..."
# appears N_i times, spread over the whole file, into FILE.
make_input() {
	local file=$1
	shift
	printf '%s\n' "$@" | awk -F: '
	    { key[NR] = $1; want[NR] = $2; n = NR }
	    END {
		for (round = 0; ; round++) {
			more = 0
			for (i = 1; i <= n; i++)
				if (round < want[i]) {
					print key[i], round + 1
					more = 1
				}
			if (!more)
				break
		}
	    }' >"$file"
}

# The first N records of each key of FILE, in order (what a window of N
# units per key lets through while no window ends), and the others.
first_per_key() {
	awk -v n="$2" '{ if (++c[$1] <= n) print }' "$1"
}
after_per_key() {
	awk -v n="$2" '{ if (++c[$1] > n) print }' "$1"
}

# So that a window of a day cannot end during a run: wait out the last
# seconds before 00:00 UTC.
clear_of_midnight() {
	local s
	s=$(date -u +%s)
	if ((s % 86400 > 86390)); then
		sleep $((86400 - s % 86400 + 1))
	fi
}

@test "at most 100 requests per client IP in any minute, the excess set aside" {
	make_input "$d/in" 10.0.0.1:50 10.0.0.2:100 10.0.0.3:101 \
	    10.0.0.4:250 10.0.0.5:1
	run -0 --separate-stderr tb -k 1 -a sliding -r 100/min \
	    --drop-to "$d/excess.log" --stats=json "$d/in"
	assert_eq "$output" "$(first_per_key "$d/in" 100)" "records out, in order"
	assert_eq "$(cat "$d/excess.log")" "$(after_per_key "$d/in" 100)" \
	    "the excess file: exactly the dropped records, whole, in order"
	assert_eq "$(json_field units_out)" 351 "units out"
	assert_eq "$(json_field units_dropped)" 151 "units dropped"
	assert_eq "$(awk '$1 == "10.0.0.4"' "$d/excess.log" | wc -l | tr -d ' ')" \
	    150 "10.0.0.4's excess"
}

@test "-k -a fixed: the same exact counts per key in one window" {
	make_input "$d/in" a:3 b:10 c:11 d:40
	clear_of_midnight
	run -0 --separate-stderr tb -k 1 -a fixed -r 10/day \
	    --drop-to "$d/excess.log" "$d/in"
	assert_eq "$output" "$(first_per_key "$d/in" 10)" "records out"
	assert_eq "$(cat "$d/excess.log")" "$(after_per_key "$d/in" 10)" \
	    "records set aside"
}

# The example's tiers file, and input over free and premium users and
# guests that no line takes: free-1..3 30 records each, premium-1 and -2
# 1200 each, guest-1 and -2 20 each.
premium_input() {
	printf '%s\n' '# free users: 10 a minute; premium: 1000' \
	    'free-* 10/min' '' 'premium-* 1000/min   # paying' \
	    'unused-* 1/min' >"$d/tiers"
	make_input "$d/in" free-1:30 premium-1:1200 free-2:30 guest-1:20 \
	    premium-2:1200 free-3:30 guest-2:20
}

# count_keys FILE: "KEY COUNT" lines, sorted by key.
count_keys() {
	awk '{ c[$1]++ } END { for (k in c) print k, c[k] }' "$1" | sort
}

@test "tiers: free users 10/min, premium 1000/min; the rest dropped without -r" {
	premium_input
	run -0 --separate-stderr tb -k 1 -a sliding --tiers "$d/tiers" \
	    --max-keys 1000 --drop "$d/in"
	printf '%s\n' "$output" >"$d/out"
	assert_eq "$(count_keys "$d/out")" "$(printf '%s\n' 'free-1 10' \
	    'free-2 10' 'free-3 10' 'premium-1 1000' 'premium-2 1000')" \
	    "records out per key"
	assert_eq "$output" "$(grep -v '^guest' "$d/in" | first_per_key /dev/stdin 1000 |
	    awk '$1 !~ /^free/ || ++c[$1] <= 10')" "the records out, in order"
}

@test "tiers: keys no line takes follow -r" {
	premium_input
	run -0 --separate-stderr tb -k 1 -a sliding --tiers "$d/tiers" \
	    -r 5/min --max-keys 1000 --drop "$d/in"
	printf '%s\n' "$output" >"$d/out"
	assert_eq "$(count_keys "$d/out")" "$(printf '%s\n' 'free-1 10' \
	    'free-2 10' 'free-3 10' 'guest-1 5' 'guest-2 5' 'premium-1 1000' \
	    'premium-2 1000')" "records out per key"
}

@test "tiers with -a fixed and with token buckets: the same counts" {
	premium_input
	# Windows and buckets of a day: nothing refills during the run.  A
	# window takes no BURST: its N is the most in a window.
	printf '%s\n' 'free-* 10/day' 'premium-* 1000/day' >"$d/fixed.t"
	printf '%s\n' 'free-* 10/day 10' 'premium-* 1000/day 1000' >"$d/token.t"
	clear_of_midnight
	run -0 --separate-stderr tb -k 1 -a fixed --tiers "$d/fixed.t" \
	    -r 5/day --drop "$d/in"
	printf '%s\n' "$output" >"$d/fixed"
	run -0 --separate-stderr tb -k 1 --tiers "$d/token.t" -r 5/day -b 5 \
	    --drop "$d/in"
	printf '%s\n' "$output" >"$d/token"
	local want
	want=$(printf '%s\n' 'free-1 10' 'free-2 10' 'free-3 10' 'guest-1 5' \
	    'guest-2 5' 'premium-1 1000' 'premium-2 1000')
	assert_eq "$(count_keys "$d/fixed")" "$want" "-a fixed, per key"
	assert_eq "$(count_keys "$d/token")" "$want" "-a token, per key"
}

@test "tiers: -s counts each tier that saw units, and the rest" {
	premium_input
	run -0 --separate-stderr tb -k 1 -a sliding --tiers "$d/tiers" \
	    --max-keys 1000 --drop -s "$d/in"
	local tiers
	tiers=$(grep -v '^tbthrottle: units ' <<<"$stderr")
	assert_eq "$tiers" "$(printf '%s\n' \
	    "tbthrottle: tier 'free-*' (line 2, 10/min): units 90 in, 30 out, 60 dropped, 0 waiting" \
	    "tbthrottle: tier 'premium-*' (line 4, 1000/min): units 2400 in, 2000 out, 400 dropped, 0 waiting" \
	    "tbthrottle: keys no tier takes (none: dropped): units 40 in, 0 out, 40 dropped, 0 waiting")" \
	    "the tier lines (unused-* saw nothing and is left out)"
	[[ $stderr == "tbthrottle: units 2530 in, 2030 out, 500 dropped, 0 waiting; "* ]] ||
	    { echo "$stderr" >&2; false; }
}

@test "tiers: --stats=json has a row per tier, pattern null for the rest" {
	command -v jq >/dev/null || skip "jq is not installed"
	premium_input
	run -0 --separate-stderr tb -k 1 -a sliding --tiers "$d/tiers" \
	    -r 5/min --max-keys 1000 --drop --stats=json "$d/in"
	assert_eq "$(jq -r '.tiers | length' <<<"$stderr")" 3 "rows"
	assert_eq "$(tier_json 'free-*' line) $(tier_json 'free-*' limit)" \
	    "2 10/min" "free-*'s line and limit"
	assert_eq "$(tier_json 'free-*' units_in) $(tier_json 'free-*' units_out) $(tier_json 'free-*' units_dropped) $(tier_json 'free-*' units_waiting)" \
	    "90 30 60 0" "free-*'s counts"
	assert_eq "$(tier_json 'premium-*' units_in) $(tier_json 'premium-*' units_out) $(tier_json 'premium-*' units_dropped)" \
	    "2400 2000 400" "premium-*'s counts"
	assert_eq "$(tier_json null line) $(tier_json null limit) $(tier_json null units_in) $(tier_json null units_out) $(tier_json null units_dropped)" \
	    "0 5/min 40 10 30" "the rest's row"
	assert_eq "$(jq '[.tiers[].units_out] | add' <<<"$stderr") $(jq '[.tiers[].units_dropped] | add' <<<"$stderr")" \
	    "$(jq '.units_out' <<<"$stderr") $(jq '.units_dropped' <<<"$stderr")" \
	    "the rows add up to the totals"
}

@test "tiers: -s and --stats=json at exit count every tier that saw units, 60 of them and more than a line holds" {
	local i
	for ((i = 1; i <= 60; i++)); do echo "pat$i-* 10/s"; done >"$d/tiers"
	for ((i = 1; i <= 60; i++)); do echo "pat$i-x $i"; done >"$d/in"
	run -0 --separate-stderr tb -k 1 --tiers "$d/tiers" -r 5/s -s "$d/in"
	assert_eq "$(grep -c "^tbthrottle: tier 'pat[0-9]*-\*' (line [0-9]*, 10/s, burst 1): units 1 in, 1 out, 0 dropped, 0 waiting$" <<<"$stderr")" \
	    60 "tier lines of -s"
	command -v jq >/dev/null || skip "jq is not installed"
	run -0 --separate-stderr tb -k 1 --tiers "$d/tiers" -r 5/s \
	    --stats=json "$d/in"
	assert_eq "$(jq '.tiers | length' <<<"$stderr")" 60 "rows of the JSON"
	assert_eq "$(jq '.tiers_cut' <<<"$stderr")" null "tiers_cut"
}

@test "a bad tiers line: exit 2, one line naming file:line and the value" {
	local line want
	while IFS='|' read -r line want; do
		printf '%s\n' '# ok' 'free-* 10/min' "$line" >"$d/t"
		run -2 --separate-stderr tb -k 1 -r 1/s --tiers "$d/t" </dev/null
		assert_one_stderr_line
		assert_eq "$output" "" "stdout for '$line'"
		[[ $stderr == *"$d/t:3: "*"$want"* ]] ||
		    { echo "for '$line': $stderr" >&2; false; }
	done <<-'EOF'
		prem-* 10/fortnight|'10/fortnight'
		prem-* 10/min 0|'0'
		prem-* 10/min 5 6|'6'
		prem-*|prem-*
		free-* 1/s|free-*
	EOF
}

@test "--tiers: a missing file, or not a regular file, exit 2 naming it" {
	run -2 --separate-stderr tb -k 1 -r 1/s --tiers "$d/nothing" </dev/null
	assert_one_stderr_line
	assert_msg "$stderr" "$d/nothing: No such file or directory"
	run -2 --separate-stderr tb -k 1 -r 1/s --tiers "$d" </dev/null
	assert_one_stderr_line
	assert_msg "$stderr" "$d: not a regular file"
}

@test "--tiers without -r, --drop or a '*' line: exit 2; with any one, runs" {
	printf 'free-* 10/min\n' >"$d/t"
	run -2 --separate-stderr tb -k 1 --tiers "$d/t" </dev/null
	assert_one_stderr_line
	[[ $stderr == *"$d/t: no line matches every key"* ]]
	run -0 --separate-stderr bash -c 'printf "x 1\nfree-1 2\n" | tb -k 1 --tiers "$1" -r 1/min' _ "$d/t"
	assert_eq "$output" $'x 1\nfree-1 2' "with -r: x follows -r"
	run -0 --separate-stderr bash -c 'printf "x 1\nfree-1 2\n" | tb -k 1 --tiers "$1" --drop' _ "$d/t"
	assert_eq "$output" "free-1 2" "with --drop: x is dropped"
	printf 'free-* 10/min\n* 1/min\n' >"$d/t"
	run -0 --separate-stderr bash -c 'printf "x 1\nfree-1 2\n" | tb -k 1 --tiers "$1"' _ "$d/t"
	assert_eq "$output" $'x 1\nfree-1 2' "with '*': x follows it"
}

# The --max-keys that the refusal on stderr suggests.
suggested_max_keys() {
	sed -n 's/.*give --max-keys \([0-9][0-9]*\) or less.*/\1/p' <<<"$stderr"
}

@test "-k -a sliding: a worst case over 1 GiB is refused, naming a --max-keys that fits" {
	local fit
	run -2 --separate-stderr tb -k 1 -a sliding -r 1000/min </dev/null
	assert_one_stderr_line
	fit=$(suggested_max_keys)
	assert_ge "$fit" 1000 "--max-keys suggested"
	run -0 --separate-stderr bash -c 'printf "a\na\nb\n" | tb -k 1 -a sliding -r 1000/min --max-keys "$1"' _ "$fit"
	assert_eq "$output" $'a\na\nb' "the suggested --max-keys runs"
	run -2 --separate-stderr tb -k 1 -a sliding -r 1000/min \
	    --max-keys "$((fit + 1))" </dev/null
	assert_one_stderr_line
	# A tier's limit counts too, and the message names its line.
	printf 'small 1/s\nbig-* 1000/min\n' >"$d/t"
	run -2 --separate-stderr tb -k 1 -a sliding -r 1/s --tiers "$d/t" </dev/null
	assert_one_stderr_line
	[[ $stderr == *"tier 'big-*' of $d/t:2"* ]] ||
	    { echo "$stderr" >&2; false; }
	fit=$(suggested_max_keys)
	run -0 --separate-stderr bash -c 'printf "big-1\n" | tb -k 1 -a sliding -r 1/s --tiers "$2" --max-keys "$1"' _ "$fit" "$d/t"
	assert_eq "$output" big-1 "the --max-keys suggested for the tiers runs"
	# -a fixed keeps a count, not the release times: no such limit.
	run -0 --separate-stderr bash -c 'printf "a\n" | tb -k 1 -a fixed -r 1000/min' _
	assert_eq "$output" a "-a fixed runs"
}

# start_named NAME ARGS...: tbthrottle ARGS --name NAME, reading a FIFO
# held open on fd $feed, output to $d/out and stderr to $d/err; its pid in
# $pid once it answers by name.
start_named() {
	local name=$1
	shift
	mkfifo "$d/fifo"
	tb --name "$name" "$@" <"$d/fifo" >"$d/out" 2>"$d/err" &
	pid=$!
	exec {feed}>"$d/fifo"
	wait_running "name.$name"
}

# wait_in NAME N: until the run NAME has read N units (at most 10 s).
wait_in() {
	local i n
	for ((i = 0; i < 1000; i++)); do
		n=$("$TB" -R "$1" --stats=json 2>/dev/null |
		    sed -n 's/^{"units_in":\([0-9]*\),.*/\1/p')
		[[ -n $n ]] && ((n >= $2)) && return 0
		sleep 0.01
	done
	echo "$1 did not read $2 units (last: ${n:-none})" >&2
	return 1
}

# finish: end the run's input and wait for it; its status in $status.
finish() {
	exec {feed}>&-
	status=0
	wait "$pid" || status=$?
	stderr=$(cat "$d/err")
}

@test "-R NAME --reload under load: nothing lost or split, the new rate applies" {
	local batch recs n_after=0 t0 t1
	printf 'k* 5/min\nf* 10/min\n' >"$d/tiers"
	# The input takes 2 s on an idle machine, and may take ten times that.
	TB_LIMIT=100 start_named loaded -k 1 -a sliding --tiers "$d/tiers" \
	    --max-keys 100 --drop-to "$d/dropped" --stats=json
	: >"$d/in"
	# About 2 s of records: k1..k4 and f1, one each every 20 ms, the
	# reload half-way; the rate of k* goes from 5 to 10000 a minute.
	# (Not "i": bats' run, called here, sets its own.)
	for ((batch = 1; batch <= 100; batch++)); do
		printf -v recs '%s %d padding-to-make-the-record-longer\n' \
		    k1 "$batch" k2 "$batch" k3 "$batch" k4 "$batch" f1 "$batch"
		printf '%s' "$recs" >>"$d/in"
		printf '%s' "$recs" >&"$feed"
		if ((batch == 50)); then
			printf 'k* 10000/min\nf* 10/min\n' >"$d/tiers"
			run -0 --separate-stderr "$TB" -R loaded --reload
			assert_eq "$stderr" "" "stderr of the reload"
		elif ((batch > 50)); then
			n_after=$((n_after + 4))
		fi
		sleep 0.02
	done
	t0=$(now_ms)
	finish
	t1=$(now_ms)
	assert_eq "$status" 0 "exit status"
	# Every record is out or set aside, whole, once.
	assert_eq "$(sort "$d/out" "$d/dropped")" "$(sort "$d/in")" \
	    "output and drop file together: the input"
	assert_eq "$(json_field units_in)" 500 "units in"
	assert_eq "$(($(json_field units_out) + $(json_field units_dropped)))" \
	    500 "units out + dropped"
	assert_eq "$(json_field units_out)" "$(wc -l <"$d/out" | tr -d ' ')" \
	    "units out: the lines out"
	# f1 kept its window through the reload: 10 in all, not 10 more.
	assert_eq "$(grep -c '^f1 ' "$d/out")" 10 "f1's records out"
	# Every k record sent after the reload returned goes at 10000/min;
	# those before it went at 5 a minute, at most 5 a key, unless still in
	# the pipe at the reload.
	assert_ge "$(grep -c '^k' "$d/out")" "$((n_after + 20))" "k records out"
	# Nothing is held: the run ends with its input (records held for
	# their windows would keep it a minute).
	assert_le "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" 5000 \
	    "ms from the end of the input to the end of the run"
}

@test "-R NAME --reload: a bad file leaves the running tiers as they were" {
	printf 'k* 2/min\n' >"$d/tiers"
	start_named steady -k 1 -a sliding --tiers "$d/tiers" --drop -s
	printf 'k1 a%d\n' 1 2 3 4 5 >&"$feed"
	wait_in steady 5
	printf 'k* 2/min\nj* 5/fortnight\n' >"$d/tiers"
	run --separate-stderr "$TB" -R steady --reload
	[[ $status -ne 0 ]] || { echo "a bad reload exited 0" >&2; false; }
	assert_one_stderr_line
	[[ $stderr == *"$d/tiers:2: "*"'5/fortnight'"* ]] ||
	    { echo "$stderr" >&2; false; }
	# Still k* 2/min, with k1's window kept: none of these go.
	printf 'k1 b%d\n' 1 2 3 4 5 >&"$feed"
	wait_in steady 10
	# A good file again: 4 a minute, the 2 already out still counted.
	printf 'k* 4/min\n' >"$d/tiers"
	run -0 --separate-stderr "$TB" -R steady --reload
	printf 'k1 c%d\n' 1 2 3 4 5 >&"$feed"
	finish
	assert_eq "$status" 0 "exit status"
	assert_eq "$(cat "$d/out")" $'k1 a1\nk1 a2\nk1 c1\nk1 c2' "records out"
	[[ $stderr == *"tier 'k*' (line 1, 4/min): units 15 in, 4 out, 11 dropped, 0 waiting"* ]] ||
	    { echo "$stderr" >&2; false; }
}

@test "-R NAME --reload to a run without --tiers: a clear error" {
	start_named plain -k 1 -r 1/min --drop
	run -2 --separate-stderr "$TB" -R plain --reload
	assert_one_stderr_line
	assert_msg "$stderr" "plain: this run has no --tiers file"
	finish
	assert_eq "$status" 0 "the run goes on, and ends as usual"
}

@test "-k -a sliding without --drop: never more than N of a key in a window" {
	local k j due in
	# a and b alternate, 7 each; 2 per 300 ms per key, order kept.
	awk 'BEGIN { for (i = 1; i <= 7; i++) printf "a %d\nb %d\n", i, i }' \
	    >"$d/in"
	run -0 --separate-stderr "$STAMP" -i "$d/in" -- \
	    "$TB" -k 1 -a sliding -r 2/300ms --catch-up 0
	assert_eq "$(stamp_texts)" "$(cat "$d/in")" "records out, in order"
	in=$(stamp_in)
	# The (2j+1)-th record of a key leaves at least j windows after the
	# input came: its first release was not before, and each later pair
	# waits for the pair before it to leave the window.
	for k in a b; do
		for j in 1 2 3; do
			due=$(awk -v t="$in" -v j="$j" 'BEGIN { print t + 300 * j }')
			assert_ge "$(awk -v k="$k" -v n=$((2 * j + 1)) \
			    '$1 ~ /^[0-9]/ && $2 == k && ++c == n { print $1 }' \
			    <<<"$output")" "$due" "record $((2 * j + 1)) of $k (ms)"
		done
	done
	assert_le "$(stamp_end)" 15000 "the whole run (ms)"
}

# The awk function rep(C, N): C N times over (awk's sprintf may not reach
# as far).
AWK_REP='function rep(c, n, s) {
	for (s = c; length(s) < n; s = s s)
		;
	return substr(s, 1, n)
}'

# odd_keys FILE: records "KEY N" whose keys no glob of fnmatch(3) could
# see whole: one with a NUL byte, one of 5000 bytes, one of 70000; then a
# plain one.  Each key twice, in turn.
odd_keys() {
	awk "$AWK_REP"'BEGIN {
		long = rep("k", 5000)
		huge = rep("h", 70000)
		for (i = 1; i <= 2; i++)
			printf "a%cb %d\nl%s %d\nh%s %d\nplain %d\n", 0, i,
			    long, i, huge, i, i
	}' >"$1"
}

@test "tiers: with a last line '*', keys of any bytes and length take it, and nothing waits forever" {
	printf '# all\n* 1000/s 1000\n' >"$d/t"
	odd_keys "$d/in"
	# Shaping without -r: no key may find no tier (it would wait for
	# ever, and every record behind it with it).
	run -0 --separate-stderr bash -c 'TB_LIMIT=10 tb -k 1 --tiers "$1" -s <"$2" >"$3"' \
	    _ "$d/t" "$d/in" "$d/out"
	cmp "$d/in" "$d/out"
	[[ $stderr == *"tier '*' (line 2, 1000/s, burst 1000): units 8 in, 8 out, 0 dropped, 0 waiting"* ]] ||
	    { echo "$stderr" >&2; false; }
	[[ $stderr != *"keys no tier takes"* ]] || { echo "$stderr" >&2; false; }
}

@test "tiers --redis: with a last line '*', keys of any bytes and length take it, and nothing waits forever" {
	need_redis
	own_redis
	printf '* 1000/s 1000\n' >"$d/t"
	odd_keys "$d/in"
	run -0 --separate-stderr bash -c 'TB_LIMIT=10 tb -k 1 --tiers "$1" --shared odd --redis "$4" <"$2" >"$3"' \
	    _ "$d/t" "$d/in" "$d/out" "redis://127.0.0.1:$OPORT"
	cmp "$d/in" "$d/out"
}

@test "tiers: a restrictive tier holds keys of any bytes and length, which cannot slip to -r" {
	command -v jq >/dev/null || skip "jq is not installed"
	printf 'blocked-* 1/day 1\n' >"$d/t"
	# Three records of each key; -r would let them all through.
	awk "$AWK_REP"'BEGIN {
		long = rep("x", 5000)
		for (i = 1; i <= 3; i++)
			printf "blocked-%c %d\nblocked-%s %d\nblocked-a %d\nfree %d\n",
			    0, i, long, i, i, i
	}' >"$d/in"
	run -0 --separate-stderr bash -c 'tb -k 1 --tiers "$1" -r 1000/s -b 1000 --drop --stats=json <"$2" >"$3"' \
	    _ "$d/t" "$d/in" "$d/out"
	assert_eq "$(tier_json 'blocked-*' units_out) $(tier_json 'blocked-*' units_dropped)" \
	    "3 6" "blocked-*: one record of each of its three keys"
	assert_eq "$(tier_json null units_out)" 3 "the rest's records out"
	assert_eq "$(cut -c1-12 "$d/out" | tr '\0' 0)" \
	    "$(printf '%s\n' 'blocked-0 1' 'blocked-xxxx' 'blocked-a 1' 'free 1' 'free 2' 'free 3')" \
	    "records out, in order"
}

# many_tiers FILE LAST: 9998 globs that the key of the tests' records
# (KEY) does not match, though each must look at all of it, then the line
# LAST.
many_tiers() {
	awk -v last="$2" 'BEGIN {
		for (i = 1; i < 9999; i++)
			printf "*.nomatch-%d 1/s\n", i
		print last
	}' >"$1"
}
KEY=key-of-a-client-with-a-longer-name-0001

@test "tiers: reports 20 times a second, 9999 tiers, 4000 records held: the schedule keeps its time" {
	many_tiers "$d/t" '* 2000/s 1'
	seq 4000 | sed "s/^/$KEY /" >"$d/in"
	local i cpu0 cpu1 never
	# read -t on a FIFO nobody writes: a wait of 50 ms that starts no
	# process, so the loop keeps its pace on a busy machine.
	mkfifo "$d/never"
	exec {never}<>"$d/never"
	children_cpu_ms cpu0
	"$TB" -k 1 --tiers "$d/t" "$d/in" >"$d/out" 2>"$d/err" &
	pid=$!
	wait_running "$pid"
	# A report (SIGUSR1) every 50 ms until the run ends (8 s at most):
	# each must cost the tiers that saw units, not the records held
	# times the tiers.
	for ((i = 0; i < 160; i++)); do
		kill -USR1 "$pid" 2>/dev/null || break
		read -r -t 0.05 -u "$never" || true
	done
	status=0
	wait "$pid" || status=$?
	exec {never}>&-
	assert_eq "$status" 0 "exit status"
	cmp "$d/in" "$d/out"
	assert_ge "$(grep -c "^tbthrottle: tier '\*'" "$d/err")" 10 "reports"
	# 4000 at 2000/s take 2 s, and well under 0.5 s of the processor
	# with the reports; reports that each matched the records held
	# against the tiers took 0.5 s each.  (Processor time, which a busy
	# machine leaves as it is.)
	children_cpu_ms cpu1
	assert_le "$((cpu1 - cpu0))" 2000 \
	    "processor time of the run and its reports (ms)"
}

@test "tiers: a stop with 2900 records held and 9999 tiers reports at once, their count exact" {
	many_tiers "$d/t" '* 1/min 1'
	# 120 KB: one read of the buffer holds them all.
	seq 2900 | sed "s/^/$KEY /" >"$d/in"
	local cpu0 cpu1
	children_cpu_ms cpu0
	"$TB" -k 1 --tiers "$d/t" -s "$d/in" >"$d/out" 2>"$d/err" &
	pid=$!
	wait_running "$pid"
	wait_for_output "$d/out"
	kill -TERM "$pid"
	status=0
	wait "$pid" || status=$?
	assert_eq "$(cat "$d/out")" "$KEY 1" "records out"
	grep -q "^tbthrottle: tier '\*' (line 9999, 1/min, burst 1): units 2900 in, 1 out, 0 dropped, 2899 waiting$" "$d/err" ||
	    { cat "$d/err" >&2; false; }
	# Reading the records and the report take well under 0.2 s of the
	# processor; matching the records held against the tiers at the
	# report took 1.7 s.  (Processor time, which a busy machine leaves
	# as it is.)
	children_cpu_ms cpu1
	assert_le "$((cpu1 - cpu0))" 1000 \
	    "processor time of the run and its report (ms)"
}

@test "tiers: -R NAME --reload moves the records held to the tiers they now take" {
	command -v jq >/dev/null || skip "jq is not installed"
	printf 'a* 1/min 1\n* 1/min 1\n' >"$d/tiers"
	start_named held -k 1 --tiers "$d/tiers"
	# In one write, so that one read takes them all: the run reads
	# nothing more while its head record waits for a token.
	printf 'a 1\na 2\nb 1\nb 2\n' >"$d/four"
	cat "$d/four" >&"$feed"
	wait_in held 4
	run -0 --separate-stderr "$TB" -R held --stats=json
	stderr=$output
	assert_eq "$(tier_json 'a*' units_out) $(tier_json 'a*' units_waiting) $(tier_json '*' units_waiting)" \
	    "1 1 2" "a*: a 1 out, a 2 waits; b 1, b 2 wait behind it"
	printf 'b* 1/min 1\n* 1/min 1\n' >"$d/tiers"
	run -0 --separate-stderr "$TB" -R held --reload
	run -0 --separate-stderr "$TB" -R held --stats=json
	stderr=$output
	assert_eq "$(tier_json 'b*' units_waiting) $(tier_json '*' units_waiting) $(jq .units_waiting <<<"$stderr")" \
	    "2 1 3" "after the reload: b 1, b 2 under b*, a 2 under '*'"
	kill -TERM "$pid"
	finish
}

@test "tiers: a record longer than the buffer is counted once, in and out" {
	printf '* 1000/s 1000\n' >"$d/t"
	awk "$AWK_REP"'BEGIN { printf "a 1\nlong %s\nb 2\n", rep("x", 300000) }' >"$d/in"
	run -0 --separate-stderr bash -c 'tb -k 1 --tiers "$1" -s <"$2" >"$3"' \
	    _ "$d/t" "$d/in" "$d/out"
	cmp "$d/in" "$d/out"
	[[ $stderr == *"tier '*' (line 1, 1000/s, burst 1000): units 3 in, 3 out, 0 dropped, 0 waiting"* ]] ||
	    { echo "$stderr" >&2; false; }
	printf 'long 1/min 1\n* 1000/s 1000\n' >"$d/t"
	awk "$AWK_REP"'BEGIN { x = rep("x", 300000)
	    printf "long %s\na 1\nlong %s\nb 2\nlong 3\n", x, x }' >"$d/in"
	run -0 --separate-stderr bash -c 'tb -k 1 --tiers "$1" -s --drop <"$2" >"$3"' \
	    _ "$d/t" "$d/in" "$d/out"
	[[ $stderr == *"tier 'long' (line 1, 1/min, burst 1): units 3 in, 1 out, 2 dropped, 0 waiting"* ]] ||
	    { echo "$stderr" >&2; false; }
	[[ $stderr == *"tier '*' (line 2, 1000/s, burst 1000): units 2 in, 2 out, 0 dropped, 0 waiting"* ]] ||
	    { echo "$stderr" >&2; false; }
}

@test "tiers: keys that run past the buffer take the strictest tier together, and cannot slip to -r" {
	command -v jq >/dev/null || skip "jq is not installed"
	printf 'blocked-* 1/day 1\n* 1000/s 1000\n' >"$d/t"
	# Three records of a key of 200 KB, which only the first 128 KiB
	# of can be seen before it must be judged.
	awk "$AWK_REP"'BEGIN { k = rep("x", 200000)
	    for (i = 1; i <= 3; i++) printf "blocked-%s %d\nfree %d\n", k, i, i }' >"$d/in"
	run -0 --separate-stderr bash -c 'tb -k 1 --tiers "$1" -r 1000/s -b 1000 --drop --stats=json <"$2" | cut -c 1-12' \
	    _ "$d/t" "$d/in"
	assert_eq "$output" "$(printf '%s\n' 'blocked-xxxx' 'free 1' 'free 2' 'free 3')" \
	    "records out"
	assert_eq "$(tier_json 'blocked-*' units_out) $(tier_json 'blocked-*' units_dropped) $(tier_json '*' units_out)" \
	    "1 2 3" "counted under the tier that held them"
}

@test "tiers: the report follows a reload: its label and a line per tier of the new file" {
	local d=$BATS_TEST_TMPDIR pid
	printf 'a* 1/min\nb* 1/min\n' >"$d/t"
	"$TB" -k 1 --tiers "$d/t" -r 1/min --name tr \
	    <(printf 'a1 x\na1 y\nb1 x\nc1 x\n'; sleep 20) >/dev/null &
	pid=$!
	wait_running name.tr
	# All 4 records read: c1 x among them, waiting behind a1 y.
	wait_for "the 4 records read" stat_ge tr units_in 4
	run -0 --separate-stderr "$TB" -R tr --stats
	[[ $output == *"(limit 2 tiers by key, else 1/min per key, burst 1)"* ]] ||
	    { echo "$output" >&2; return 1; }
	printf 'a* 1/min\nb* 1/min\nc* 1/min\n' >"$d/t"
	run -0 --separate-stderr "$TB" -R tr --reload
	assert_eq "$output" "tr: 3 tiers from $d/t" "what the reload says"
	run -0 --separate-stderr "$TB" -R tr --stats
	kill "$pid"
	wait "$pid" || true
	[[ $output == *"(limit 3 tiers by key, else 1/min per key, burst 1)"* ]] ||
	    { echo "$output" >&2; return 1; }
	[[ $output == *"tier 'c*' (line 3, 1/min, burst 1): units 1 in, 0 out, 0 dropped, 1 waiting"* ]] ||
	    { echo "$output" >&2; return 1; }
	[[ $output != *"keys no tier takes"* ]] || { echo "$output" >&2; return 1; }
}
