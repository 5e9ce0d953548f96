#!/usr/bin/env bats
# --adapt: each command that asks to be tried again (a --retry-on status:
# the server refused it) cuts the rate, which climbs back to -r, against
# tests/tools/quotad.py, a real HTTP server that keeps a quota, through
# examples/curl-retry.

load helpers

setup() {
	command -v python3 >/dev/null || skip "python3 is not installed"
	command -v curl >/dev/null || skip "curl is not installed"
	PATH=$BATS_TEST_DIRNAME/../examples:$PATH
}

teardown() {
	quotad_stop
}

# urls N: N URLs of the server, one a line, to $BATS_TEST_TMPDIR/urls.
urls() {
	local i
	for ((i = 1; i <= $1; i++)); do echo "${URL}u$i"; done \
	    >"$BATS_TEST_TMPDIR/urls"
}

@test "--adapt: a rate ten times the server's is cut by its refusals; every URL ends with 200, exit 0, each refusal counted" {
	local d=$BATS_TEST_TMPDIR refused cuts limit
	quotad --bucket 5/s,1
	urls 20
	# Waits between tries of a record from 0.1 s to 1 s: the rate, not
	# the backoff, is what is under test (and a busy machine, whose
	# commands start bunched, may be refused often).
	TB_LIMIT=90 run -0 --separate-stderr tb -r 50/s --adapt --retry 100 \
	    --retry-delay 100ms --retry-max-delay 1s -j 2 \
	    --stats=json "$d/urls" --exec curl-retry
	assert_eq "$(awk '$4 == 200' "$d/requests" | wc -l)" 20 "URLs answered 200"
	refused=$(awk '$4 == 429' "$d/requests" | wc -l)
	cuts=$(sed -n 's/.*"adapt":{"refusals":[0-9]*,"cuts":\([0-9]*\)}.*/\1/p' <<<"$stderr")
	[[ $stderr == *"\"adapt\":{\"refusals\":$refused,"* ]] ||
	    { echo "the server refused $refused: $stderr" >&2; false; }
	# The first refusal cuts, and each later one sent after a cut.
	((refused == 0 || (cuts >= 1 && cuts <= refused))) ||
	    { echo "$refused refused, $cuts cuts" >&2; false; }
	# The rate shown is the one now, never above -r.
	limit=$(sed -n 's/.*"limit":"\([0-9.]*\)\/s.*/\1/p' <<<"$stderr")
	[[ -n $limit ]] && awk -v l="$limit" 'BEGIN { exit !(l <= 50) }' ||
	    { echo "$stderr" >&2; false; }
}

@test "--adapt: without refusals the rate stays -r; the text report says what it heard" {
	local d=$BATS_TEST_TMPDIR
	quotad --status 200
	urls 5
	run -0 --separate-stderr tb -r 20/s --adapt -s "$d/urls" \
	    --exec curl-retry
	[[ $stderr == *"(limit 20/s, burst 1)"* ]] || { echo "$stderr" >&2; false; }
	[[ $stderr == *", 0 asked to be tried again, the rate cut 0 times (--adapt)"* ]] ||
	    { echo "$stderr" >&2; false; }
}

@test "--adapt: each refusal slows the starts after it" {
	local d=$BATS_TEST_TMPDIR t0 ms
	# Every answer is 429 (no Retry-After): each try is refused, and
	# with 0.7 a cut the starts spread out: 8 tries at 20/s take 0.35 s
	# unslowed, and about a second slowed.
	quotad --status 429
	urls 1
	t0=$(now_ms)
	run -123 --separate-stderr tb -r 20/s --adapt --retry 7 \
	    --retry-delay 0 -s "$d/urls" --exec curl-retry
	ms=$(elapsed_ms "$t0")
	assert_eq "$(wc -l <"$d/requests")" 8 "tries"
	[[ $stderr == *"8 asked to be tried again, the rate cut 8 times"* ]] ||
	    { echo "$stderr" >&2; false; }
	# Cut to 0.7 each time, the rate climbs back along its curve between
	# cuts, so the gaps are shorter than 1 / (20 * 0.7^k): however long
	# each try takes, the curve puts the 8 starts at least 1.0 s apart
	# from first to last (1.30 s if it never climbed).  0.9 s is under
	# that, and over twice the 0.35 s unslowed.
	assert_ge "$ms" 900 "ms for 8 tries, each cutting the rate"
}

# most_refused_in_a_window W: the most 429s the server answered in one of
# its calendar windows of W seconds.
most_refused_in_a_window() {
	awk -v w="$1" '$4 == 429 { n[int($2 / 1e9 / w)]++ }
	    END { m = 0; for (i in n) if (n[i] > m) m = n[i]; print m }' \
	    "$BATS_TEST_TMPDIR/requests"
}

@test "--adapt: a server's calendar window answers 429 with Retry-After until it ends: at most one request refused a window" {
	local d=$BATS_TEST_TMPDIR
	quotad --window 2/2s
	urls 8
	# 50 times the server's 1 a second, one command at a time: its
	# Retry-After holds every start until the next window.
	TB_LIMIT=60 run -0 --separate-stderr tb -r 50/s --adapt --retry 20 \
	    "$d/urls" --exec curl-retry
	assert_eq "$(awk '$4 == 200' "$d/requests" | wc -l)" 8 "URLs answered 200"
	assert_le "$(most_refused_in_a_window 2)" 1 "refused in one window"
}

@test "--adapt: a Retry-After holds every start until then; without --adapt, only its record's next try" {
	local d=$BATS_TEST_TMPDIR first second
	cat >"$d/cmd" <<'SCRIPT'
#!/bin/sh
echo "$(date +%s%N) $TBTHROTTLE_SEQ $TBTHROTTLE_TRY" >>"$0.starts"
[ "$TBTHROTTLE_SEQ.$TBTHROTTLE_TRY" = 1.1 ] || exit 0
echo 3 >"$TBTHROTTLE_RETRY_AFTER"
exit 75
SCRIPT
	chmod +x "$d/cmd"
	run -0 tb -r 100/s --adapt --retry 1 --exec "$d/cmd" < <(seq 3)
	first=$(awk '$2 == 1 && $3 == 1 { print $1 }' "$d/cmd.starts")
	second=$(awk '$2 == 2 { print $1 }' "$d/cmd.starts")
	# The stamp of record 1 came before its end, and so before the hold.
	assert_ge $(((second - first) / 1000000)) 3000 "ms to the next start"
	rm "$d/cmd.starts"
	run -0 tb -r 100/s --retry 1 --exec "$d/cmd" < <(seq 3)
	first=$(awk '$2 == 1 && $3 == 1 { print $1 }' "$d/cmd.starts")
	second=$(awk '$2 == 2 { print $1 }' "$d/cmd.starts")
	assert_le $(((second - first) / 1000000)) 2500 "ms to the next start"
	# Its own next try waited for it.
	second=$(awk '$2 == 1 && $3 == 2 { print $1 }' "$d/cmd.starts")
	assert_ge $(((second - first) / 1000000)) 3000 "ms to its next try"
}

@test "--adapt --shared: a cut one process heard slows every process of the bucket, and no other bucket" {
	local d=$BATS_TEST_TMPDIR limit
	export XDG_RUNTIME_DIR=$d/run
	mkdir -m 700 "$XDG_RUNTIME_DIR"
	cat >"$d/once" <<'SCRIPT'
#!/bin/sh
[ "$TBTHROTTLE_TRY" = 1 ] && exit 75
exit 0
SCRIPT
	chmod +x "$d/once"
	# One refusal: a cut to 3500/s, back at 5000/s some 15 s later.
	run -0 tb --shared api -r 5000/s --adapt --retry 1 --retry-delay 1ms \
	    --exec "$d/once" < <(echo x)
	# Another process, refused by nobody, books at the cut rate too.
	run -0 --separate-stderr tb --shared api -r 5000/s --adapt \
	    --stats=json --exec true < <(seq 3)
	limit=$(sed -n 's/.*"limit":"\([0-9.]*\)\/s.*/\1/p' <<<"$stderr")
	awk -v l="$limit" 'BEGIN { exit !(l >= 3500 && l < 5000) }' ||
	    { echo "$stderr" >&2; false; }
	[[ $stderr == *'"adapt":{"refusals":0,"cuts":0}'* ]] ||
	    { echo "$stderr" >&2; false; }
	# A bucket of another name heard nothing.
	run -0 --separate-stderr tb --shared other -r 5000/s --adapt \
	    --stats=json --exec true < <(seq 3)
	[[ $stderr == *'"limit":"5000/s, burst 1, shared as other"'* ]] || { echo "$stderr" >&2; false; }
}

@test "--adapt --shared: two processes ten times over the server's rate share its refusals and its slowing; every URL ends with 200" {
	local d=$BATS_TEST_TMPDIR pid st=0
	export XDG_RUNTIME_DIR=$d/run
	mkdir -m 700 "$XDG_RUNTIME_DIR"
	quotad --bucket 5/s,1
	urls 20
	head -n 10 "$d/urls" >"$d/a"
	tail -n 10 "$d/urls" >"$d/b"
	TB_LIMIT=90 tb --shared api -r 50/s --adapt --retry 100 \
	    --retry-delay 100ms --retry-max-delay 1s "$d/a" \
	    --exec curl-retry 2>"$d/a.err" &
	pid=$!
	TB_LIMIT=90 run -0 tb --shared api -r 50/s --adapt --retry 100 \
	    --retry-delay 100ms --retry-max-delay 1s "$d/b" --exec curl-retry
	wait "$pid" || st=$?
	assert_eq "$st" 0 "the other process's exit"
	assert_eq "$(awk '$4 == 200' "$d/requests" | wc -l)" 20 "URLs answered 200"
}

@test "--adapt --shared: a Retry-After one process heard holds the starts of every process of the bucket" {
	local d=$BATS_TEST_TMPDIR pid first second
	export XDG_RUNTIME_DIR=$d/run
	mkdir -m 700 "$XDG_RUNTIME_DIR"
	refused_once "$d/cmd" 3
	tb --shared api -r 100/s --adapt --retry 1 --name a \
	    --exec "$d/cmd" {} < <(echo a) &
	pid=$!
	# b starts once a has counted its refusal: a counts it as it reaps
	# the refused command, and holds the bucket in the same step, before
	# it answers -R.  A tool that kept the hold to itself would start b
	# at once, well under the 3 s.
	wait_for "a's refusal" stat_ge a refusals 1
	run -0 tb --shared api -r 100/s --adapt --exec "$d/cmd" {} < <(echo b)
	wait "$pid"
	first=$(awk '$2 == "a" && $3 == 1 { print $1 }' "$d/cmd.starts")
	second=$(awk '$2 == "b" { print $1 }' "$d/cmd.starts")
	# a's stamp came before its end, and so before the hold.
	assert_ge $(((second - first) / 1000000)) 3000 "ms to b's start"
}

@test "--adapt usage: it needs --exec and one rate of this process's own" {
	local m
	for m in "--adapt -r 1/s|--adapt needs --exec: it learns from the commands' exits" \
	    "--adapt -r 1/s -k 1 --exec true|-k does not combine with --adapt" \
	    "--adapt -r 1/s --shared x --redis redis://127.0.0.1:1 -k 1 --exec true|-k does not combine with --adapt" \
	    "--adapt -r 1/s --shared x -k 1 --exec true|-k does not combine with --adapt" \
	    "--adapt -r 1/s -r 10/min --exec true|--adapt slows one rate: give one -r, not 2" \
	    "--adapt -r inf --exec true|--adapt slows a rate: give -r RATE, not inf" \
	    "--adapt -a sliding -r 1/s --exec true|--adapt changes the rate as the run goes: live changes need -a token or -a leaky"; do
		# shellcheck disable=SC2086 # the arguments, split
		run -2 --separate-stderr tb ${m%%|*} </dev/null
		assert_one_stderr_line
		[[ $stderr == "tbthrottle: ${m#*|}"* ]] ||
		    { echo "${m%%|*}: $stderr" >&2; false; }
	done
}

@test "--adapt: records waiting for a slowed rate cost no CPU; a cut never makes a slow -r faster" {
	local d=$BATS_TEST_TMPDIR c0 c1
	printf '#!/bin/sh\n[ "$1" = 1 ] && exit 75\nexit 0\n' >"$d/job"
	chmod +x "$d/job"
	# After the first command's refusal the others wait about 1.5 s for
	# a rate cut to 0.7 of 2/s: asleep, not turning the engine over.
	children_cpu_ms c0
	run -123 "$TB" -r 2/s --adapt --exec "$d/job" {} < <(seq 4)
	children_cpu_ms c1
	assert_le "$((c1 - c0))" 400 "CPU ms of a run that mostly waits"
	run -123 --separate-stderr "$TB" -r 1/7d -s --adapt \
	    --exec sh -c 'exit 75' <<<x
	[[ $stderr == *"(limit 1/7day, burst 1)"* ]] ||
	    { echo "$stderr" >&2; false; }
}

@test "--adapt --shared: a cut made in a boot of more uptime is as old as it is, not in the future (the rate is not stuck at the floor)" {
	local d=$BATS_TEST_TMPDIR limit
	[[ $(id -u) == 0 ]] && unshare -T --monotonic=1 --fork true 2>/dev/null ||
	    skip "needs time namespaces (unshare -T, as root)"
	printf '#!/bin/sh\n[ "$TBTHROTTLE_TRY" = 1 ] && exit 75\nexit 0\n' >"$d/once"
	chmod +x "$d/once"
	# The cut, by a process whose monotonic clock is 30 days ahead, as
	# the boot before a reboot's would be.
	run -0 unshare -T --monotonic=2592000 --fork "$TB" --shared ad \
	    -r 5000/s --adapt --retry 1 --retry-delay 1ms --exec "$d/once" \
	    < <(echo x)
	run -0 --separate-stderr tb --shared ad -r 5000/s --adapt --stats=json \
	    --exec true < <(seq 3)
	limit=$(sed -n 's/.*"limit":"\([0-9.]*\)\/s.*/\1/p' <<<"$stderr")
	awk -v l="$limit" 'BEGIN { exit !(l >= 3500 && l < 5000) }' ||
	    { echo "$stderr" >&2; false; }
}
