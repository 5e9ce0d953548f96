#!/usr/bin/env bats
# --tz ZONE: fixed windows aligned to a zone's calendar, in a process and
# in a --shared window's file.  The clock cannot be moved here: the days
# of 23 and 25 hours are the unit tests' (tests/unit/zonemap_test.c), and
# these check the windows of today against date(1)'s reading of the zone.

load helpers

setup() {
	[[ -f /usr/share/zoneinfo/Europe/Paris && -f /usr/share/zoneinfo/Asia/Kolkata ]] ||
	    skip "no zone data in /usr/share/zoneinfo (apt-get install tzdata)"
	unset TZDIR
}

# field NAME: the text of the JSON string field NAME of $output.
field() {
	sed -n 's/.*"'"$1"'":"\([^"]*\)".*/\1/p' <<<"$output"
}

# refused WANT ARG...: tbthrottle ARG... on a line of input exits 2 with
# the one line WANT, and copies nothing.
refused() {
	local want=$1
	shift
	run -2 --separate-stderr bash -c 'echo x | tb "$@"' _ "$@"
	assert_msg "$stderr" "$want"
	assert_eq "$output" "" "nothing copied"
}

@test "--tz: a zone not in the zone data is refused in one line naming it, exit 2, before any bucket is made" {
	local hint="give a name from /usr/share/zoneinfo such as Europe/Paris, or UTC"
	refused "unknown time zone 'Europe/Pari': $hint" \
	    --tz Europe/Pari -a fixed -r 1/1d
	refused "unknown time zone 'Europe': $hint" --tz Europe -a fixed -r 1/1d
	refused "unknown time zone '../../../etc/passwd': $hint" \
	    --tz ../../../etc/passwd -a fixed -r 1/1d
	refused "unknown time zone '/etc/passwd': $hint" \
	    --tz /etc/passwd -a fixed -r 1/1d
	refused "unknown time zone 'utc': $hint" --tz utc -a fixed -r 1/1d
	refused "invalid --tz '': give a zone such as Europe/Paris, or UTC or local" \
	    --tz '' -a fixed -r 1/1d
	TZ=Nowhere/Land refused \
	    "unknown time zone 'Nowhere/Land' (TZ, for --tz local): $hint" \
	    --tz local -a fixed -r 1/1d
	refused "unknown time zone 'Europe/Pari': $hint" \
	    --tz Europe/Pari -a fixed -r 1/1d --shared z --take
	[[ ! -e $(bucket_dir)/z.bucket ]]
	# $TZDIR is where the names are looked up, and the line says so.
	TZDIR=$BATS_TEST_TMPDIR refused "unknown time zone 'Europe/Paris': give a name from $BATS_TEST_TMPDIR such as Europe/Paris, or UTC" \
	    --tz Europe/Paris -a fixed -r 1/1d
}

@test "--tz: only with -a fixed, and not with --show, each refused in one line, exit 2" {
	refused "--tz Europe/Paris needs -a fixed: it aligns fixed windows to the zone's calendar" \
	    --tz Europe/Paris -r 1/s
	refused "--tz local needs -a fixed: it aligns fixed windows to the zone's calendar" \
	    --tz local -a sliding -r 1/s
	refused "--tz UTC needs -a fixed: it aligns fixed windows to the zone's calendar" \
	    --tz UTC --shared z -r 1/s --take
	refused "--show takes only --shared NAME, --state-dir or --redis URL, and --json" \
	    --shared z --show --tz Europe/Paris
}

@test "--tz Asia/Kolkata: an hour's shared window starts at half past the hour in UTC, shown in the zone with its offset" {
	local start end
	run -0 tb --tz Asia/Kolkata -a fixed -r 2/1h --shared z --take
	run -0 --separate-stderr tb --shared z --show --json
	start=$(field window_start) end=$(field window_end)
	[[ $start == ????-??-??T??:00:00+05:30 ]] || { echo "$output" >&2; false; }
	assert_eq "$(date -u -d "$start" +%M:%S)" 30:00 "the start in UTC"
	assert_eq "$(($(date -d "$end" +%s) - $(date -d "$start" +%s)))" 3600 "seconds"
	assert_eq "$(field zone)" Asia/Kolkata "zone"
	[[ $output == *'"used":1,"left":1,'* ]] || { echo "$output" >&2; false; }
	# The hour now, as date(1) reads the zone (either side of a turn).
	[[ $start == "$(TZ=Asia/Kolkata date +%Y-%m-%dT%H):00:00+05:30" ||
	    $(date -d "$end" +%s) -le $(date +%s) ]] || { echo "$output" >&2; false; }
	run -0 --separate-stderr tb --shared z --show
	[[ ${lines[0]} == *": -a fixed -r 2/1h --tz Asia/Kolkata" ]]
	[[ ${lines[1]} == "window from $start: 1 of 2 used, 1 left; the next window in "*" s" ]]
}

@test "--tz Europe/Paris -r 1/1d: the window is today from local midnight to the next, as long as date(1) says (23 or 25 h when the clocks change)" {
	local start end today
	today=$(TZ=Europe/Paris date +%F)
	run -0 tb --tz Europe/Paris -a fixed -r 1/1d --shared day --take
	run -0 --separate-stderr tb --shared day --show --json
	start=$(field window_start) end=$(field window_end)
	[[ $(TZ=Europe/Paris date +%F) == "$today" ]] || skip "midnight passed"
	assert_eq "$start" "${today}T00:00:00$(TZ=Europe/Paris date -d "$today 00:00" +%:z)" "window start"
	assert_eq "$(date -d "$end" +%s)" \
	    "$(TZ=Europe/Paris date -d "$today 00:00 +1 day" +%s)" "window end"
	assert_eq "$(($(date -d "$end" +%s) - $(date -d "$start" +%s)))" \
	    "$(($(TZ=Europe/Paris date -d "$today 00:00 +1 day" +%s) - $(TZ=Europe/Paris date -d "$today 00:00" +%s)))" \
	    "the day's length"
	# Its one record is taken: another is refused.
	run -1 tb --shared day --tz Europe/Paris -a fixed -r 1/1d --take --drop
}

@test "--tz: a run asking another zone for a window's file is refused as another rate is; no --tz is UTC's" {
	local path
	run -0 tb --tz Asia/Kolkata -a fixed -r 2/1h --shared z --take
	path=$(bucket_dir)/z.bucket
	run -1 --separate-stderr tb --tz Europe/Paris -a fixed -r 2/1h --shared z --take
	assert_msg "$stderr" "shared bucket 'z' is -a fixed -r 2/1h --tz Asia/Kolkata; this run asks for --tz Europe/Paris (give the same, or remove $path when no process uses it)"
	run -1 --separate-stderr tb -a fixed -r 2/1h --shared z --take
	assert_msg "$stderr" "shared bucket 'z' is -a fixed -r 2/1h --tz Asia/Kolkata; this run asks for --tz UTC (give the same, or remove $path when no process uses it)"
	# --tz UTC is the window without --tz: the same file serves both.
	run -0 tb -a fixed -r 3/1d --shared u --take
	run -0 tb --tz UTC -a fixed -r 3/1d --shared u --take
	run -0 --separate-stderr tb --shared u --show --json
	[[ $output == *'"used":2,'* && $(field zone) == UTC ]] ||
	    { echo "$output" >&2; false; }
}

@test "--tz: the TZ variable alone changes no window; --tz local takes TZ's zone" {
	local start
	TZ=Asia/Kolkata run -0 tb -a fixed -r 1/1h --shared u --take
	run -0 --separate-stderr tb --shared u --show --json
	start=$(field window_start)
	[[ $start == ????-??-??T??:00:00Z && $(field zone) == UTC ]] ||
	    { echo "$output" >&2; false; }
	# TZ's leading ':' names the same zone: the same file serves both.
	TZ=Asia/Kolkata run -0 tb --tz local -a fixed -r 5/1h --shared l --take
	TZ=:Asia/Kolkata run -0 tb --tz local -a fixed -r 5/1h --shared l --take
	run -0 --separate-stderr tb --shared l --show --json
	assert_eq "$(field zone)" Asia/Kolkata "the zone kept"
	TZ=Europe/Paris run -1 --separate-stderr tb --tz local -a fixed -r 5/1h --shared l --take
	[[ $stderr == *"this run asks for --tz Europe/Paris"* ]] || { echo "$stderr" >&2; false; }
}

@test "--tz in one process: -k keeps a window a key in the zone, and -s names it" {
	run -0 --separate-stderr bash -c \
	    "printf 'a\na\nb\na\nb\n' | tb -k 1 -a fixed -r 1/1d --tz Asia/Kolkata --drop -s"
	assert_eq "$output" $'a\nb' "one a day a key"
	[[ $stderr == *"(limit 1/day per key per clock window of Asia/Kolkata)"* ]] ||
	    { echo "$stderr" >&2; false; }
	run -0 --separate-stderr bash -c \
	    "seq 5 | tb -a fixed -r 2/1d --tz Europe/Paris --drop -s"
	assert_eq "$output" $'1\n2' "two a day"
	[[ $stderr == *"(limit 2/day per clock window of Europe/Paris)"* ]] ||
	    { echo "$stderr" >&2; false; }
}
