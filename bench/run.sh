#!/usr/bin/env bash
# bench/run.sh: measure tbthrottle's pacing accuracy, burst behaviour and
# overhead against pv, cstream, mbuffer and bench/floor, and print
# Markdown tables.
#
# usage: bash bench/run.sh [--quick]
#
# TB_PORTABLE, when it names a build of make PORTABLE=1, is measured too,
# at 1000 lines/s (make bench builds one).
#
#   --quick   shortened scenarios for a smoke test (about a minute)
#
# Environment:
#   TB   the tbthrottle binary (default: bench/../tbthrottle); the run
#        uses a copy, so a rebuild meanwhile cannot mix two versions
#   CC   the C compiler for bench/recv and bench/floor, built when
#        missing (default: cc)
#
# Each throttled run is `recv [opts] -- THROTTLER < input`: bench/recv
# forks the throttler with its output on a pipe, timestamps every read and
# compares the arrivals with the ideal schedule (see the comment at the top
# of recv.c).  Throttled runs are repeated (3 times; once with --quick) and
# each column is the median.  CPU time and peak RSS are those of the
# throttler process alone, from /usr/bin/time (Debian package `time`).
# Inputs are generated up front under bench/out/ (and removed at exit) so
# the producer is never the bottleneck; only bytes high (a live `head -c
# 1G /dev/zero`) and the idle scenario (lines, a pause, lines) read a
# producer.  Peers missing from PATH are skipped with a note.
#
# bench/floor is the least a throttler keeping tbthrottle's schedule can
# do: it reads, sleeps to the same deadlines and writes the same chunks;
# for bytes (-s) it splices them instead, as tbthrottle does, and the
# copying floor (-c) runs beside it to show what the copies cost.
# It runs beside tbthrottle at 200k lines/s and at 200 MB/s, the latter
# both from a pipe and from a 1 GiB file.  "CPU at full speed" sets the
# ratios side by side: tbthrottle's CPU to pv's and to the floor's, the
# CPU of the whole pipeline `cat | tbthrottle -r 1000000000/s | cat` to
# that of `cat | cat | cat` (bash's times, the median of 7 runs), and the
# wall time of `-c -r inf` to cat's, 4 GiB pipe to pipe and file to pipe.
# Files must fit on the disk and in the page cache: the 4 GiB one shrinks
# until they do, and the report says so.  A full run writes some 5 GiB
# under bench/out/ at most.
#
# The replay scenario is bench/replay.sh; --order key over many keys,
# bench/order.sh.
# The full run takes about 12 minutes on 2 CPUs; the tables go to standard
# output, progress to standard error, each run's raw result to out/run.log.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TB=${TB:-$here/../tbthrottle}
out=$here/out
RECV=$here/recv
FLOOR=$here/floor
quick=0

for arg in "$@"; do
	case $arg in
	--quick) quick=1 ;;
	-h | --help)
		sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"
		exit 0
		;;
	*)
		echo "run.sh: unknown argument '$arg' (try --help)" >&2
		exit 2
		;;
	esac
done

die() {
	echo "run.sh: $*" >&2
	exit 1
}

note() {
	echo "run.sh: $*" >&2
}

[[ -x $TB ]] || die "no tbthrottle at $TB (run make, or set TB)"
mkdir -p "$out"
log=$out/run.log
: >"$log"

# The generated inputs (some 5 GiB in a full run) go when we exit.
inputs=(lines.txt pass-lines.txt pass-bytes.bin bytes-med.bin bytes-leaky.bin low.txt
	med.txt high.txt idle.txt time.txt tbthrottle bytes-high.bin share.txt)
cleanup() {
	local f
	for f in "${inputs[@]}"; do
		rm -f "${out:?}/$f"
	done
}
trap cleanup EXIT

# Run a copy, so that a rebuild during the run cannot mix two versions.
tb_desc="$("$TB" --version 2>&1 | head -n 1) ($TB"
if commit=$(git -C "$(dirname "$TB")" describe --always --dirty 2>/dev/null); then
	tb_desc+=", tree $commit"
fi
tb_desc+=")"
cp "$TB" "$out/tbthrottle"
TB=$out/tbthrottle

# Build the receiver and the floor when missing or older than their source.
for prog in "$RECV" "$FLOOR"; do
	if [[ ! -x $prog || $prog.c -nt $prog ]]; then
		"${CC:-cc}" -std=c11 -D_POSIX_C_SOURCE=200809L -O2 -Wall -Wextra \
			-o "$prog" "$prog.c" -lm || die "cannot build $prog"
	fi
done

# CPU seconds and peak RSS of the throttler alone.
tfile=$out/time.txt
if [[ -x /usr/bin/time ]]; then
	timer=(/usr/bin/time -o "$tfile" -f '%U %S %M')
else
	timer=()
	note "/usr/bin/time not found (Debian package 'time'): no CPU/RSS"
fi

have() {
	command -v "$1" >/dev/null 2>&1
}

notes=()
for peer in pv cstream mbuffer; do
	have "$peer" || notes+=("$peer is not installed: its rows are skipped")
done

# Read the CPU and RSS recorded by the last timed run into cpu and rss.
read_time() {
	local u s m
	cpu=n/a
	rss=n/a
	if ((${#timer[@]} > 0)) && [[ -s $tfile ]] &&
		read -r u s m < <(tail -n 1 "$tfile") &&
		[[ $u =~ ^[0-9.]+$ && $s =~ ^[0-9.]+$ && $m =~ ^[0-9]+$ ]]; then
		cpu=$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.2f", u + s }')
		rss=$(awk -v m="$m" 'BEGIN { printf "%.1f", m / 1024 }')
	fi
	rm -f "$tfile"
}

fmt() { # fmt FORMAT VALUE: printf that passes n/a and nan through
	if [[ $2 =~ ^-?[0-9.]+(e[-+]?[0-9]+)?$ ]]; then
		# shellcheck disable=SC2059
		printf "$1" "$2"
	else
		printf '%s' "$2"
	fi
}

# ---------------------------------------------------------------- inputs

if ((quick)); then
	n_low=10 n_med=2000 n_high=200000 n_vhigh=500000
	b_med=1000000 b_high=$((200 * 1024 * 1024)) b_leaky=500000
	idle_n=20 idle_sleep=1 idle_gap=300
	pass_bytes=$((256 * 1024 * 1024)) pass_lines=2000000 reps=1
	pass_file=$((256 * 1024 * 1024)) pipe_reps=3
	t_reps=1 jitter_s=1
else
	n_low=50 n_med=10000 n_high=1000000 n_vhigh=2000000
	b_med=5000000 b_high=$((1024 * 1024 * 1024)) b_leaky=2000000
	idle_n=50 idle_sleep=2 idle_gap=500
	pass_bytes=$((4 * 1024 * 1024 * 1024)) pass_lines=20000000 reps=3
	pass_file=$((4 * 1024 * 1024 * 1024)) pipe_reps=7
	t_reps=3 jitter_s=3
fi

# The inputs read as regular files must fit on the disk and in the page
# cache (else the disk is what gets measured), a GiB to spare: without
# room for the bytes high file its file scenario is skipped, and the
# pass-through file is halved until it fits beside it.
mib=$((1024 * 1024))
disk_free=$(($(df -Pk "$out" | awk 'NR == 2 { print $4 + 0 }') * 1024))
mem_free=0 # unknown: the disk alone decides
if [[ -r /proc/meminfo ]]; then
	mem_free=$(($(awk '/^MemAvailable:/ { m = $2 } END { print m + 0 }' \
		/proc/meminfo) * 1024))
fi
room() { # room BYTES: do BYTES more fit, with a GiB to spare?
	local need=$(($1 + 1024 * mib))
	((disk_free >= need && (mem_free == 0 || mem_free >= need)))
}
high_file=$b_high
if ! room "$high_file"; then
	high_file=0
	notes+=("no room on the disk or in the page cache for a $b_high-byte file: bytes high from a file is skipped")
fi
want_file=$pass_file
while ((pass_file > 256 * mib)) && ! room $((pass_file + high_file)); do
	pass_file=$((pass_file / 2))
done
if ((pass_file < want_file)); then
	notes+=("bytes file: $pass_file bytes, not $want_file: the largest that fits on the disk and in the page cache")
fi

note "generating inputs in $out"
seq "$n_vhigh" >"$out/lines.txt"      # every line scenario reads a prefix
seq "$pass_lines" >"$out/pass-lines.txt"
head -c "$pass_file" /dev/zero >"$out/pass-bytes.bin"
((high_file == 0)) || head -c "$high_file" /dev/zero >"$out/bytes-high.bin"
head -c "$b_med" /dev/zero >"$out/bytes-med.bin"
head -c "$b_leaky" /dev/zero >"$out/bytes-leaky.bin"
prefix() { # prefix N FILE: the first N lines of lines.txt in FILE
	head -n "$1" "$out/lines.txt" >"$2"
}
prefix "$n_low" "$out/low.txt"
prefix "$n_med" "$out/med.txt"
prefix "$n_high" "$out/high.txt"
prefix $((2 * idle_n)) "$out/idle.txt"

# ------------------------------------------------- throttled scenarios

load_start=$(cut -d ' ' -f 1-3 /proc/loadavg 2>/dev/null || echo n/a)
note "timer wake-up lateness (${jitter_s} s of 1 ms sleeps)"
jitter=$("$RECV" --jitter "$jitter_s")

# Scenario context, set by scenario(): name, input, recv arguments.
sc_name='' sc_file='' sc_prod='' sc_units=0
sc_recv=()

prod_zero() { head -c "$b_high" /dev/zero; }
prod_idle() {
	head -n "$idle_n" "$out/idle.txt"
	sleep "$idle_sleep"
	tail -n +"$((idle_n + 1))" "$out/idle.txt"
}

scenario() { # scenario NAME UNITS (file:PATH | prod:FUNC) RECV-ARGS...
	sc_name=$1 sc_units=$2 sc_file='' sc_prod=''
	case $3 in
	file:*) sc_file=${3#file:} ;;
	prod:*) sc_prod=${3#prod:} ;;
	esac
	shift 3
	sc_recv=("$@")
	note "scenario: $sc_name ($t_reps run(s) per tool)"
}

# run_one CMD...: run CMD under recv (which forks it with its output on a
# pipe to itself and takes t0 just before) fed with the scenario's input;
# sets res (recv's key=value line), cpu and rss.
run_one() {
	rm -f "$tfile"
	echo "== $sc_name: $*" >>"$log"
	if [[ -n $sc_file ]]; then
		res=$("$RECV" "${sc_recv[@]}" -- "${timer[@]}" "$@" \
			<"$sc_file" 2>>"$log") || true
	else
		res=$("$sc_prod" | "$RECV" "${sc_recv[@]}" -- "${timer[@]}" "$@" \
			2>>"$log") || true
	fi
	echo "$res" >>"$log"
	read_time
}

# Parse recv's key=value output into the associative array r.
declare -A r
parse() {
	local kv
	r=()
	for kv in $res; do
		r[${kv%%=*}]=${kv#*=}
	done
}

rows=()      # table 1: saturated input
idle_rows=() # table 2: burst after idle

# vals KEY: KEY's value in each run of measure's runs array, one a line.
vals() {
	printf '%s\n' "${runs[@]}" | awk -v k="$1" '{
		v = "nan"
		for (i = 1; i <= NF; i++)
			if (index($i, k "=") == 1)
				v = substr($i, length(k) + 2)
		print v
	}'
}

# med KEY: the median of KEY over the runs.
med() {
	vals "$1" | sort -g | sed -n "$(((${#runs[@]} + 1) / 2))p"
}

# rng KEY FORMAT: " (min..max)" of KEY over the runs, when more than one.
rng() {
	((${#runs[@]} > 1)) || return 0
	printf ' (%s..%s)' "$(fmt "$2" "$(vals "$1" | sort -g | head -n 1)")" \
		"$(fmt "$2" "$(vals "$1" | sort -g | tail -n 1)")"
}

measure() { # measure TOOL CMD...: t_reps runs, the median of each column
	local tool=$1 i units=$sc_units rate runs=()
	shift
	for ((i = 0; i < t_reps; i++)); do
		run_one "$@"
		parse
		if [[ ${r[units]:-0} != "$sc_units" ]]; then
			units="${r[units]:-0} of $sc_units!"
			notes+=("$sc_name / $tool run $((i + 1)) delivered ${r[units]:-0} of $sc_units units")
		fi
		if [[ ${r[status]:-x} != 0 ]]; then
			notes+=("$sc_name / $tool run $((i + 1)) exited with status ${r[status]:-unknown} (see out/run.log)")
		fi
		runs+=("$res cpu=$cpu rss=$rss")
	done
	m_tool=$tool m_cpu=$(med cpu) m_err=$(med rate_err_pct)
	m_rng=$(rng rate_err_pct %+.4f) m_p99=$(med jit_p99_ms)
	m_min=$(vals lat_min_ms | sort -g | head -n 1)
	if [[ " ${sc_recv[*]} " == *" -c "* ]]; then
		rate="$(awk -v x="$(med rate)" 'BEGIN { printf "%.4f MB/s", x / 1e6 }')"
	else
		rate="$(fmt %.2f "$(med rate)")/s"
	fi
	if [[ " ${sc_recv[*]} " == *" --gap "* ]]; then
		idle_rows+=("| $sc_name | $tool | $units | $(fmt %.0f "$(med gap_ms)") | $(med max_1ms) | $(med post_1ms) | $(fmt %.1f "$(med post_excess_units)") | $(fmt %.1f "$(med excess_units)") | $(med cpu) | $(med rss) |")
		return
	fi
	rows+=("| $sc_name | $tool | $units | $rate | $(fmt %+.3f "$(med rate_err_pct)")$(rng rate_err_pct %+.3f) | $(fmt %+.3f "$(med rate90_err_pct)") | $(fmt %.2f "$(med startup_ms)") | $(fmt %.3f "$(med jit_p50_ms)") | $(fmt %.3f "$(med jit_p99_ms)") | $(fmt %.3f "$(med jit_max_ms)") | $(fmt %.3f "$(med lat_min_ms)") | $(fmt %.1f "$(med excess_units)") ($(fmt %.3f "$(med excess_ms)") ms) | $(med max_1ms) | $(med cpu) | $(med rss) |")
}

# keep TAG: the last measure's medians (its earliest min vs t0) under TAG,
# for the section on CPU at full speed.
declare -A k_tool k_cpu k_err k_rng k_min k_p99
keep() {
	k_tool[$1]=$m_tool k_cpu[$1]=$m_cpu k_err[$1]=$m_err k_rng[$1]=$m_rng
	k_min[$1]=$m_min k_p99[$1]=$m_p99
}

# quantum RATE BURST NS: the units tbthrottle gathers per wake-up, as
# quantum() in src/run/build.c: NS worth of RATE/s, at least 1, at most BURST
# and the 131072 bytes of its buffer.  The floor is given the same.
quantum() {
	local q=$(($1 * $3 / 1000000000))
	((q >= 1)) || q=1
	((q <= $2)) || q=$2
	((q <= 131072)) || q=131072
	echo "$q"
}

# Line scenarios: tbthrottle and pv -l.
lines_scenario() { # NAME RATE BURST N FILE
	local name=$1 rate=$2 burst=$3 n=$4 file=$5
	scenario "$name" "$n" "file:$file" --rate "$rate" --burst "$burst"
	measure "tbthrottle -r $rate/s -b $burst" "$TB" -r "$rate/s" -b "$burst"
	have pv && measure "pv -q -l -L $rate" pv -q -l -L "$rate"
	return 0
}

# Byte scenarios: tbthrottle, pv, cstream -t, mbuffer -r and -R.  Peers take
# plain byte counts: their K/M/G suffixes differ from tbthrottle's.
bytes_peers() { # RATE [TAG]: with TAG, keep pv's medians as TAG
	if have pv; then
		measure "pv -q -L $1" pv -q -L "$1"
		[[ -z ${2:-} ]] || keep "$2"
	fi
	have cstream && measure "cstream -t $1" cstream -t "$1"
	have mbuffer && measure "mbuffer -q -r $1" mbuffer -q -r "$1"
	# -r limits mbuffer's reading; -R limits its writing, what recv sees.
	have mbuffer && measure "mbuffer -q -R $1" mbuffer -q -R "$1"
	return 0
}

lines_scenario "low: 5/s, $n_low lines" 5 1 "$n_low" "$out/low.txt"
lines_scenario "medium: 1000/s, $n_med lines" 1000 1 "$n_med" "$out/med.txt"
# The build of make PORTABLE=1 (relative sleeps, no splice), beside it.
if [[ -n ${TB_PORTABLE:-} && -x $TB_PORTABLE ]]; then
	measure "tbthrottle (PORTABLE=1) -r 1000/s -b 1" "$TB_PORTABLE" \
	    -r 1000/s -b 1
fi
# High, and the floor (bench/floor.c) at the same wake-ups: the least
# any precise throttler can spend on them.
scenario "high: 200k/s b100, $n_high lines" "$n_high" "file:$out/high.txt" \
	--rate 200000 --burst 100
measure "tbthrottle -r 200000/s -b 100" "$TB" -r 200000/s -b 100
keep high_tb
have pv && measure "pv -q -l -L 200000" pv -q -l -L 200000
q=$(quantum 200000 100 500000)
measure "floor 200000 100 $q" "$FLOOR" 200000 100 "$q"
keep high_floor
lines_scenario "very high: 1M/s b1000, $n_vhigh lines" 1000000 1000 \
	"$n_vhigh" "$out/lines.txt"
# The same with the catch-up cut to 1 ms (tbthrottle's default before it
# became 10 ms), tbthrottle only: the rate lost to stalls against the
# smaller burst after one.
scenario "very high: 1M/s b1000 catch-up 1ms, $n_vhigh lines" "$n_vhigh" \
	"file:$out/lines.txt" --rate 1000000 --burst 1000
measure "tbthrottle -r 1M/s -b 1000 --catch-up 1ms" "$TB" -r 1M/s -b 1000 \
	--catch-up 1ms

scenario "bytes medium: 1 MB/s, $b_med B" "$b_med" "file:$out/bytes-med.bin" \
	-c --rate 1000000 --burst 10000
measure "tbthrottle -c -r 1MB/s -b 10000" "$TB" -c -r 1MB/s -b 10000
bytes_peers 1000000

scenario "bytes high: 200 MB/s b1MiB, $b_high B" "$b_high" prod:prod_zero \
	-c --rate 200000000 --burst 1048576
measure "tbthrottle -c -r 200MB/s -b 1MiB" "$TB" -c -r 200MB/s -b 1MiB
keep pipe_tb
bytes_peers 200000000 pipe_pv
q=$(quantum 200000000 1048576 1000000)
measure "floor -s 200000000 1048576 $q" "$FLOOR" -s 200000000 1048576 "$q"
keep pipe_floor
measure "floor -c 200000000 1048576 $q" "$FLOOR" -c 200000000 1048576 "$q"

# The same bytes from a regular file: tbthrottle, pv and the floor.
if ((high_file > 0)); then
	scenario "bytes high from a file: 200 MB/s b1MiB, $b_high B" \
		"$b_high" "file:$out/bytes-high.bin" -c --rate 200000000 \
		--burst 1048576
	measure "tbthrottle -c -r 200MB/s -b 1MiB" "$TB" -c -r 200MB/s -b 1MiB
	keep file_tb
	if have pv; then
		measure "pv -q -L 200000000" pv -q -L 200000000
		keep file_pv
	fi
	measure "floor -s 200000000 1048576 $q" "$FLOOR" -s 200000000 \
		1048576 "$q"
	keep file_floor
	measure "floor -c 200000000 1048576 $q" "$FLOOR" -c 200000000 \
		1048576 "$q"
	rm -f "$out/bytes-high.bin"
fi

scenario "bytes leaky: 1 MB/s, $b_leaky B" "$b_leaky" \
	"file:$out/bytes-leaky.bin" -c --rate 1000000 --leaky
measure "tbthrottle -c -r 1MB/s --leaky" "$TB" -c -r 1MB/s --leaky
have pv && measure "pv -q -L 1000000" pv -q -L 1000000

# The queue pump (reads on while units wait) against the plain one.
scenario "medium leaky: 1000/s, $n_med lines" "$n_med" "file:$out/med.txt" \
	--rate 1000 --leaky
measure "tbthrottle --leaky -r 1000/s" "$TB" --leaky -r 1000/s
measure "tbthrottle --leaky -r 1000/s --queue 100" "$TB" --leaky -r 1000/s \
	--queue 100

# Whole lines under a byte limit, scored per byte: a line's bytes arrive
# together, so none may come before its last byte is due.
scenario "byte-rate: lines at 100 kB/s b100, $n_med lines" \
	"$(wc -c <"$out/med.txt")" "file:$out/med.txt" -c --rate 100000 \
	--burst 100
measure "tbthrottle --byte-rate 100kB/s --byte-burst 100" "$TB" \
	--byte-rate 100kB/s --byte-burst 100

scenario "idle: 100/s b10, $idle_n + ${idle_sleep}s pause + $idle_n" \
	$((2 * idle_n)) prod:prod_idle --rate 100 --burst 10 --gap "$idle_gap"
measure "tbthrottle -r 100/s -b 10" "$TB" -r 100/s -b 10
have pv && measure "pv -q -l -L 100" pv -q -l -L 100

# ------------------------------------------------------ live change (-R)

# The round trip of -R to a running tbthrottle (write the request, signal,
# wait for the answer), in ms: the median and the largest of retune_n.
retune_n=100
((quick)) && retune_n=20
note "live change: $retune_n round trips of -R"
retune_dir=$(mktemp -d)
# Its input: a FIFO we hold open, so it waits for input for good.
mkfifo "$retune_dir/in"
exec {retune_hold}<>"$retune_dir/in"
XDG_RUNTIME_DIR=$retune_dir "$TB" -r 1/min <"$retune_dir/in" >/dev/null &
retune_pid=$!
for ((i = 0; i < 500; i++)); do
	[[ -e $retune_dir/tbthrottle/$retune_pid ]] && break
	sleep 0.01
done
retune_ms=()
for ((i = 0; i < retune_n; i++)); do
	s=$("$RECV" --now)
	XDG_RUNTIME_DIR=$retune_dir "$TB" -R "$retune_pid" \
		-r "$((i % 2 + 1))/min" || notes+=("-R round trip $i failed")
	e=$("$RECV" --now)
	retune_ms+=("$(awk -v s="$s" -v e="$e" 'BEGIN { printf "%.3f", (e - s) / 1e6 }')")
done
kill "$retune_pid" 2>/dev/null || true
wait "$retune_pid" 2>/dev/null || true
exec {retune_hold}>&-
rm -rf "$retune_dir"
retune_med=$(printf '%s\n' "${retune_ms[@]}" | sort -g | sed -n "$(((retune_n + 1) / 2))p")
retune_max=$(printf '%s\n' "${retune_ms[@]}" | sort -g | tail -n 1)

# ------------------------------------------------------- shared buckets

share_rows=()
# share_run LABEL PROCS RATE BURST ARGS...: PROCS tbthrottles with ARGS,
# -r RATE -b BURST, each given an equal part of BURST + RATE x share_s
# lines at once; they should all be done after share_s, not before.
share_run() {
	local label=$1 procs=$2 rate=$3 burst=$4 i s e pids=() per wall err
	shift 4
	per=$(((burst + rate * share_s) / procs))
	head -n "$per" "$out/lines.txt" >"$out/share.txt"
	note "shared: $label"
	s=$("$RECV" --now)
	for ((i = 0; i < procs; i++)); do
		"$TB" "$@" -r "$rate/s" -b "$burst" "$out/share.txt" >/dev/null &
		pids+=($!)
	done
	wait "${pids[@]}" || notes+=("shared: $label: a process failed")
	e=$("$RECV" --now)
	wall=$(awk -v s="$s" -v e="$e" 'BEGIN { printf "%.3f", (e - s) / 1e9 }')
	# The last unit is due at (units - burst) / rate after the start.
	err=$(awk -v w="$wall" -v n="$((per * procs))" -v b="$burst" -v r="$rate" \
		'BEGIN { d = (n - b) / r; printf "%+.3f", (d / w - 1) * 100 }')
	share_rows+=("| $label | $procs | $rate/s b$burst | $((per * procs)) | $wall | $err |")
}
share_s=5
((quick)) && share_s=2
share_dir=$(mktemp -d)
chmod 700 "$share_dir"
export XDG_RUNTIME_DIR=$share_dir
share_run "--shared, one host" 8 1000 104 --shared "bench$$"
if have redis-server && "$TB" -V | grep -q 'Redis support: yes'; then
	redis_port=$((20000 + RANDOM % 20000))
	redis-server --port "$redis_port" --bind 127.0.0.1 --save '' \
		--appendonly no >/dev/null 2>&1 &
	redis_pid=$!
	for ((i = 0; i < 500; i++)); do
		[[ $(redis-cli -p "$redis_port" ping 2>/dev/null) == PONG ]] && break
		sleep 0.01
	done
	share_run "--redis, loopback" 4 200 20 --shared "bench$$" \
		--redis "redis://127.0.0.1:$redis_port"
	kill "$redis_pid" 2>/dev/null || true
	wait "$redis_pid" 2>/dev/null || true
else
	notes+=("--redis not measured: needs redis-server and a build with hiredis")
fi
rm -rf "$share_dir"
unset XDG_RUNTIME_DIR

# Per-key buckets in drop mode: keys_n records over keys_k keys, each
# key's burst 1 at 1/min, so every key passes once: records/s and memory.
keys_n=10000000 keys_k=1000000
((quick)) && keys_n=1000000 keys_k=100000
note "per-key: $keys_n records over $keys_k keys"
awk -v n="$keys_n" -v k="$keys_k" 'BEGIN {
	for (i = 0; i < n; i++) printf "k%d %d\n", (i * 7919) % k, i }' \
	>"$out/keys.txt"
rm -f "$tfile"
s=$("$RECV" --now)
kept=$("${timer[@]}" "$TB" -k 1 -r 1/min --drop "$out/keys.txt" | wc -l)
e=$("$RECV" --now)
read_time
keys_wall=$(awk -v s="$s" -v e="$e" 'BEGIN { printf "%.3f", (e - s) / 1e9 }')
keys_rate=$(awk -v n="$keys_n" -v w="$keys_wall" 'BEGIN { printf "%.2f", n / w / 1e6 }')
keys_cpu=$cpu keys_rss=$rss
keys_per=$(awk -v r="$rss" -v k="$keys_k" 'BEGIN {
	if (r == "n/a") print "n/a"; else printf "%.0f", (r - 1.3) * 1048576 / k }')
# The same records through a sliding window of 10 per key: each key comes
# keys_n / keys_k (10) times, so each window fills and keeps 10 times.
rm -f "$tfile"
wkept=$("${timer[@]}" "$TB" -k 1 -a sliding -r 10/h --drop "$out/keys.txt" |
	wc -l)
read_time
win_rss=$rss
win_per=$(awk -v r="$rss" -v k="$keys_k" 'BEGIN {
	if (r == "n/a") print "n/a"; else printf "%.0f", (r - 1.3) * 1048576 / k }')
rm -f "$out/keys.txt"

# ---------------------------------------------------------- pass-through

pass_rows=()
prod_pass() { head -c "$pass_bytes" /dev/zero; }

# pass_one KIND CMD...: time `input | CMD | cat >/dev/null`; sets wall,
# cpu, rss.
pass_one() {
	local kind=$1 s e
	shift
	rm -f "$tfile"
	echo "== pass-through $kind: $*" >>"$log"
	s=$("$RECV" --now)
	case $kind in
	bytes)
		prod_pass | "${timer[@]}" "$@" 2>>"$log" | cat >/dev/null ||
			notes+=("pass-through $kind / $* failed")
		;;
	"bytes file")
		"${timer[@]}" "$@" <"$out/pass-bytes.bin" 2>>"$log" |
			cat >/dev/null || notes+=("pass-through $kind / $* failed")
		;;
	*)
		"${timer[@]}" "$@" <"$out/pass-lines.txt" 2>>"$log" |
			cat >/dev/null || notes+=("pass-through $kind / $* failed")
		;;
	esac
	e=$("$RECV" --now)
	wall=$(awk -v s="$s" -v e="$e" 'BEGIN { printf "%.3f", (e - s) / 1e9 }')
	read_time
}

# pass KIND LABEL CMD...: the median of reps runs, by wall time.
pass() {
	local kind=$1 label=$2 i size runs=() pick thr
	shift 2
	note "pass-through $kind: $label"
	for ((i = 0; i < reps; i++)); do
		pass_one "$kind" "$@"
		runs+=("$wall $cpu $rss")
	done
	pick=$(printf '%s\n' "${runs[@]}" | sort -n | sed -n "$(((reps + 1) / 2))p")
	read -r wall cpu rss <<<"$pick"
	if [[ $kind == bytes* ]]; then
		size=$pass_bytes
		[[ $kind == bytes ]] || size=$pass_file
		thr=$(awk -v b="$size" -v w="$wall" \
			'BEGIN { printf "%.0f MB/s", b / w / 1e6 }')
	else
		size=$(wc -c <"$out/pass-lines.txt")
		thr=$(awk -v n="$pass_lines" -v b="$size" -v w="$wall" \
			'BEGIN { printf "%.2f Mlines/s (%.0f MB/s)", n / w / 1e6, b / w / 1e6 }')
	fi
	pass_rows+=("| $kind | $label | $wall | $thr | $cpu | $rss |")
}

declare -A k_wall
pass bytes "tbthrottle -c -r inf" "$TB" -c -r inf
k_wall[pipe_tb]=$wall
pass bytes cat cat
k_wall[pipe_cat]=$wall
have pv && pass bytes "pv -q" pv -q
pass "bytes file" "tbthrottle -c -r inf" "$TB" -c -r inf
k_wall[file_tb]=$wall
pass "bytes file" cat cat
k_wall[file_cat]=$wall
have pv && pass "bytes file" "pv -q" pv -q
pass lines "tbthrottle -r inf" "$TB" -r inf
pass lines cat cat
have pv && pass lines "pv -q -l" pv -q -l

# ------------------------------------------------------ whole pipeline

# pipe_cpu MIDDLE...: the CPU time (user + sys, s) of the whole pipeline
# `cat lines | MIDDLE | cat >/dev/null`, its three processes and the
# subshell that runs them, by bash's times (to the ms), into cpu.
pipe_cpu() {
	local t
	echo "== pipeline: cat | $* | cat" >>"$log"
	if ! t=$({ cat -- "$out/pass-lines.txt" | "$@" | cat >/dev/null; } \
		2>>"$log" && times); then
		notes+=("pipeline: cat | $* | cat failed")
	fi
	cpu=$(tr , . <<<"$t" | awk '{
		for (i = 1; i <= NF; i++) {
			split($i, a, /[ms]/)
			s += a[1] * 60 + a[2]
		}
	} END { printf "%.3f", s }')
}

median() { # median VALUE...
	printf '%s\n' "$@" | sort -g | sed -n "$((($# + 1) / 2))p"
}

# A rate that never binds: the cost of the machinery itself, against cat.
note "whole pipeline: $pipe_reps runs each, $pass_lines lines"
tb_cpus=() cat_cpus=()
for ((i = 0; i < pipe_reps; i++)); do
	pipe_cpu "$TB" -r 1000000000/s
	tb_cpus+=("$cpu")
	pipe_cpu cat
	cat_cpus+=("$cpu")
done
pipe_tb=$(median "${tb_cpus[@]}")
pipe_cat=$(median "${cat_cpus[@]}")

# ---------------------------------------------------------------- replay

# --replay against its own schedule, beside a while-read-sleep loop:
# bench/replay.sh, which also runs alone.
replay_args=()
((quick)) && replay_args=(--quick)
replay_table=$(TB=$TB RECV=$RECV bash "$here/replay.sh" "${replay_args[@]}") ||
	notes+=("the replay scenario failed")

# ----------------------------------------------------------------- fleet

# Processes sharing buckets through one redis-server: bench/fleet.sh,
# which also runs alone.
fleet_args=()
((quick)) && fleet_args=(--quick)
fleet_table=$(TB=$TB RECV=$RECV bash "$here/fleet.sh" "${fleet_args[@]}") ||
	notes+=("the fleet scenario failed")

# ---------------------------------------------------------------- starts

# Commands started at a rate (--exec, --take) beside GNU parallel --delay
# and a pipe into xargs -P: bench/starts.sh, which also runs alone.
starts_args=()
((quick)) && starts_args=(--quick)
starts_table=$(TB=$TB RECV=$RECV bash "$here/starts.sh" "${starts_args[@]}") ||
	notes+=("the starts scenario failed")

# ----------------------------------------------------------------- order

# --order key over many keys held, beside input order: bench/order.sh,
# which also runs alone.
order_args=()
((quick)) && order_args=(--quick)
order_table=$(TB=$TB RECV=$RECV bash "$here/order.sh" "${order_args[@]}") ||
	notes+=("the order scenario failed")

# ----------------------------------------------------------------- adapt

# A server whose limit is below the rate given (nginx limit_req 7r/s):
# --adapt, retries alone, curl's own retries and the rate set by hand;
# bench/adapt.sh, which also runs alone.  Needs nginx and curl.
adapt_args=()
((quick)) && adapt_args=(--quick)
if have nginx && have curl; then
	adapt_table=$(TB=$TB RECV=$RECV bash "$here/adapt.sh" "${adapt_args[@]}") ||
		notes+=("the adapt scenario failed")
else
	adapt_table="(the adapt scenario needs nginx and curl)"
fi

# ---------------------------------------------------------------- report

ver() { # the first line of a tool's version output, or "absent"
	local v
	if have "$1"; then
		v=$("$@" 2>&1 | head -n 1) || true
		v=${v% - Copyright*}
		echo "${v:-unknown}"
	else
		echo absent
	fi
}

echo "# tbthrottle benchmark$( ((quick)) && echo ' (--quick)')"
echo
echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'); host: $(uname -srm);" \
	"$(nproc) CPUs"
echo "- tbthrottle: $tb_desc"
echo "- pv: $(ver pv --version); cstream: $(ver cstream -V);" \
	"mbuffer: $(ver mbuffer --version)"
echo "- timer wake-up lateness, clock_nanosleep to 1 ms deadlines for" \
	"${jitter_s} s (\`recv --jitter\`): $jitter"
echo "- load average (1, 5, 15 min) at the start: $load_start; at the end:" \
	"$(cut -d ' ' -f 1-3 /proc/loadavg 2>/dev/null || echo n/a)" \
	"(on $(nproc) CPUs; other work skews every number)"
echo "- throttled rows: the median of $t_reps run(s) per column; err % also" \
	"gives (min..max)"
echo
echo "## Saturated input"
echo
echo "| scenario | tool | units | rate | err % | err % last 90% | start ms | p50 ms | p99 ms | max ms | min ms vs t0 | excess units (ms) | max in 1 ms | CPU s | RSS MiB |"
echo "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|"
printf '%s\n' "${rows[@]}"
cat <<'EOF'

- rate: (units - B) / (last arrival - first arrival), B = the burst (1
  for --leaky): the first B units are due at once.  err % is against the
  requested rate; "last 90%" is the rate over the units after the read
  that completed the first 10%, which leaves out any tool's initial burst.
- start: first arrival - t0, t0 taken by recv just before it forks the
  throttler (process start-up plus the first read and write).
- p50/p99/max: per-unit lateness, the arrival of the read(2) that carried
  the unit minus its due time (unit k due max(0, k - B) / R after the
  start; --leaky: (k - 1) / R), minus the smallest such lateness: i.e.
  against the schedule that puts the earliest unit exactly on time, which
  takes out start-up and pipe latency.  Lost time accumulates in it.
- min vs t0: the earliest unit against the schedule started at t0;
  negative means released ahead of what the rate and burst allow.
- excess: max over windows [t_i, t_j] of units received - (B + R (t_j -
  t_i)); above 0 breaks the token-bucket bound.  tbthrottle allows R * C
  more, C its --catch-up (default 10 ms), after a late wake-up; reads
  that coalesce writes (a receiver that woke late) also count.  max in
  1 ms: most units received within any 1 ms.
- lost time: after a stall of X (a late wake-up, a blocked write)
  tbthrottle may release B + R * C at once, so X - B/R - C of schedule is
  lost for good; it shows in err % and in the lateness columns.
- CPU s (user + sys) and peak RSS are the throttler's alone.
EOF
echo
echo "## Burst after idle"
echo
echo "| scenario | tool | units | pause ms | max in 1 ms | max in 1 ms after pause | excess after pause | excess overall | CPU s | RSS MiB |"
echo "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|"
printf '%s\n' "${idle_rows[@]}"
echo
echo "The input stops for ${idle_sleep} s after $idle_n lines; a token bucket"
echo "of burst 10 should release at most 10 lines at once after the pause."
echo
echo "## Live change"
echo
echo "\`tbthrottle -R PID -r RATE\` to a running tbthrottle, $retune_n times:"
echo "round trip median $retune_med ms, largest $retune_max ms (a process"
echo "start, connecting to its control socket, the request and the reply)."
echo
echo "## Shared buckets"
echo
echo "| bucket | processes | rate | units | wall s | rate err % |"
echo "|---|--:|--:|--:|--:|--:|"
printf '%s\n' "${share_rows[@]}"
echo
echo "Each process gets an equal part of burst + rate x ${share_s} s lines at"
echo "once; together they should take ${share_s} s: err % is the achieved"
echo "rate against the set one (the wall time includes process start-up)."
echo
echo "Per key (\`-k 1 -r 1/min --drop\`): $keys_n records over $keys_k keys,"
echo "$kept kept, in $keys_wall s: $keys_rate M records/s, CPU $keys_cpu s,"
echo "peak RSS $keys_rss MiB, about $keys_per bytes per live key (RSS less"
echo "1.3 MiB, over the keys).  With \`-a sliding -r 10/h\` instead, each key's"
echo "window keeps its 10 releases: $wkept kept, peak RSS $win_rss MiB, about"
echo "$win_per bytes per live key."
echo
echo "## Pass-through (no limit)"
echo
echo "| input | tool | wall s | throughput | CPU s | RSS MiB |"
echo "|---|---|--:|--:|--:|--:|"
printf '%s\n' "${pass_rows[@]}"
echo
echo "bytes: \`head -c $pass_bytes /dev/zero | X | cat >/dev/null\`;" \
	"bytes file: \`X < zeros-$pass_file.bin | cat >/dev/null\`;" \
	"lines: \`X < seq-$pass_lines.txt | cat >/dev/null\`."
echo "Median of $reps run(s) by wall time; CPU and RSS are X's alone."
echo

ratio() { # ratio A B: A / B to two places, or n/a
	awk -v a="$1" -v b="$2" 'BEGIN {
		if (a ~ /^[0-9.]+$/ && b ~ /^[0-9.]+$/ && b > 0)
			printf "%.2f", a / b
		else
			printf "n/a"
	}'
}

full_row() { # full_row WHAT TB REFERENCE REF TARGET
	echo "| $1 | $2 | $3 | $4 | $(ratio "$2" "$4") | $5 |"
}

cpu_row() { # cpu_row WHAT TB-TAG REF-TAG TARGET: CPU of two kept measures
	full_row "$1" "${k_cpu[$2]:-n/a}" "${k_tool[$3]:-absent}" \
		"${k_cpu[$3]:-n/a}" "$4"
}

sched_row() { # sched_row TAG INPUT: the schedule of a kept measure
	[[ -n ${k_tool[$1]:-} ]] || return 0
	echo "| $2 | ${k_tool[$1]} | $(fmt %+.4f "${k_err[$1]}")${k_rng[$1]} | $(fmt %.3f "${k_min[$1]}") | $(fmt %.3f "${k_p99[$1]}") |"
}

echo "## CPU at full speed"
echo
echo "| what | tbthrottle | against | theirs | ratio | target |"
echo "|---|--:|---|--:|--:|--:|"
cpu_row "CPU s, $b_high B at 200 MB/s b1MiB from a pipe" pipe_tb pipe_pv "≤ 1"
cpu_row "CPU s, the same from a file" file_tb file_pv "≤ 1"
cpu_row "CPU s, 200 MB/s from a pipe" pipe_tb pipe_floor ""
cpu_row "CPU s, 200 MB/s from a file" file_tb file_floor ""
cpu_row "CPU s, $n_high lines at 200k/s b100" high_tb high_floor "≤ 1.3"
full_row "CPU s of \`cat \\| X \\| cat\`, $pass_lines lines, X = tbthrottle -r 1000000000/s" \
	"$pipe_tb" "X = cat" "$pipe_cat" "≤ 1.2"
full_row "wall s, $pass_bytes B -c -r inf, pipe to pipe" \
	"${k_wall[pipe_tb]:-n/a}" cat "${k_wall[pipe_cat]:-n/a}" ""
full_row "wall s, $pass_file B -c -r inf, file to pipe" \
	"${k_wall[file_tb]:-n/a}" cat "${k_wall[file_cat]:-n/a}" ""
echo
echo "| input | tool | rate err % | min ms vs t0, earliest | p99 ms |"
echo "|---|---|--:|--:|--:|"
sched_row pipe_tb "200 MB/s, pipe"
sched_row pipe_pv "200 MB/s, pipe"
sched_row pipe_floor "200 MB/s, pipe"
sched_row file_tb "200 MB/s, file"
sched_row file_pv "200 MB/s, file"
sched_row file_floor "200 MB/s, file"
sched_row high_tb "200k lines/s b100"
sched_row high_floor "200k lines/s b100"
cat <<EOF

- The floor (bench/floor.c) reads, sleeps to the same absolute deadlines
  and writes the same chunks as tbthrottle, and does nothing else: the
  least CPU any throttler that keeps this schedule can spend.  For bytes
  the floor rows are \`floor -s\`, which moves them with splice(2) through
  pipes grown to 256 KiB, as tbthrottle does; \`floor -c\` (in the
  saturated-input table) copies them through a buffer.  Its last
  argument is tbthrottle's quantum, the units gathered per wake-up.
- CPU rows: the throttler's own CPU (/usr/bin/time, to 10 ms), the
  median of $t_reps run(s), from the saturated-input table.  The
  pipeline row: all three processes of \`cat seq-$pass_lines.txt | X |
  cat >/dev/null\`, by bash's \`times\`, the median of $pipe_reps runs
  each.  Wall rows: from the pass-through table.
- Targets at 200 MB/s: rate err within ±0.01 % and never ahead of the
  schedule by more than 0.1 ms (min vs t0 ≥ −0.1, over every run).
EOF
echo
echo "$replay_table"
printf '\n%s\n' "$fleet_table"
printf '\n%s\n' "$starts_table"
printf '\n%s\n' "$order_table"
printf '\n%s\n' "$adapt_table"
if ((${#notes[@]} > 0)); then
	echo
	echo "## Notes"
	echo
	printf -- '- %s\n' "${notes[@]}"
fi
