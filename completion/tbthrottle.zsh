#compdef tbthrottle
# Zsh completion for tbthrottle(1): options, their values, and for -R the
# running tbthrottles of this user.  make install puts it where zsh looks,
# as _tbthrottle.

# The pids and names of this user's running tbthrottles, from the lines
# of --list that start with a pid (then the name or '-', and the limits),
# each described by the other.
_tbthrottle_running() {
	local pid name rest
	local -a runs
	command tbthrottle --list 2>/dev/null | while read -r pid name rest; do
		if [[ $pid != <-> ]]; then
			continue
		elif [[ $name == - ]]; then
			runs+=("$pid:${rest%%;*}")
		else
			runs+=("$pid:$name, ${rest%%;*}" "$name:pid $pid, ${rest%%;*}")
		fi
	done
	_describe -t tbthrottles 'running tbthrottle' runs
}

# A record delimiter or field separator: one byte, or an escape of one.
_tbthrottle_byte() {
	local -a bytes=(',:a comma' '\\t:a tab' '\\0:NUL' '|:a bar'
	    '\\x1e:the record separator')
	_describe -t bytes 'byte' bytes
}

# A zone for --tz: UTC, local, or a name of the zone data.
_tbthrottle_zone() {
	local expl
	# _time_zone offers UTC itself.
	_wanted zones expl 'time zone' compadd -- local
	_time_zone
}

_tbthrottle_time_format() {
	local expl
	_wanted formats expl 'strptime(3) format' compadd -- \
	    '%Y-%m-%d %H:%M:%S' '%d/%b/%Y:%H:%M:%S %z' '%s'
}

_tbthrottle() {
	# Rates of records, or with -c (and for --byte-rate) of bytes.
	local records='10/s 100/min 1000/h 5/2s 1/0.2s 1/day inf'
	local bytes='1M/s 500k/s 64K/s 10MB/min 1G/h inf'
	(( ${words[(I)(-c|--bytes)]} )) && records=$bytes
	local rate="rate:($records)" byterate="byte rate:($bytes)"
	local burst='burst (units, or a duration):(1 10 100 1s 10ms)'
	local unit='(-l --lines -0 --null -d --delimiter -c --bytes)'
	local alone='(- *)'

	_arguments -s -S : \
	    '*'{-r+,--rate=}"[units per period; repeat for several limits]:$rate" \
	    '*'{-b+,--burst=}"[bucket size of the -r before it]:$burst" \
	    "$unit"{-l,--lines}'[a unit is a line ending in newline]' \
	    "$unit"{-0,--null}'[a unit is a record ending in NUL]' \
	    "$unit"{-d+,--delimiter=}'[a unit is a record ending in byte C]:byte:_tbthrottle_byte' \
	    "$unit"{-c,--bytes}'[a unit is a byte]' \
	    "--byte-rate=[also limit records by their bytes]:$byterate" \
	    "--byte-burst=[bytes the byte limit may burst]:$burst" \
	    '(-a --algorithm --leaky)'{-a+,--algorithm=}'[the limiting algorithm]:algorithm:((token\:"bursts up to BURST (default)" leaky\:"one unit every 1/RATE, evenly spaced" sliding\:"at most N in any PERIOD" fixed\:"at most N per PERIOD on the wall clock"))' \
	    '(-a --algorithm --leaky)--leaky[same as -a leaky]' \
	    '--tz=[with -a fixed, windows of the calendar of ZONE]:time zone:_tbthrottle_zone' \
	    "--initial=[tokens in the bucket at start]:$burst" \
	    '--catch-up=[how late a unit may be and keep its slot]:duration:(0 1ms 10ms 100ms)' \
	    '(-k --key)'{-k+,--key=}'[a bucket of its own for each value of a field]:field number (1-based): ' \
	    '(-F --field-separator)'{-F+,--field-separator=}'[fields end at byte C]:byte:_tbthrottle_byte' \
	    '--max-keys=[most keys with a live bucket]:number of keys: ' \
	    '--tiers=[rates by key from a file of PATTERN RATE \[BURST\]]:tiers file:_files' \
	    "--total-rate=[all keys together no faster than RATE]:$rate" \
	    "--total-burst=[the burst of --total-rate]:$burst" \
	    '--order=[with -k, which held record goes first]:order:((input\:"in input order (default)" key\:"each key at its own pace"))' \
	    '--shared=[draw from the bucket NAME, shared by your runs]:bucket name: ' \
	    '--state-dir=[keep --shared buckets in DIR]:state directory:_files -/' \
	    '--redis=[keep the --shared bucket in Redis]:Redis URL:(redis\://127.0.0.1\:6379 unix\:///run/redis/redis.sock)' \
	    '--redis-fallback=[what to do while Redis is down]:fallback:((block\:"wait for Redis (default)" local\:"limit this process alone" fail\:"exit with an error"))' \
	    '--redis-allow-eviction[run on a server that evicts keys]' \
	    '--redis-cacert=[with rediss://, trust the CAs of FILE]:CA file:_files' \
	    '--redis-cert=[with rediss://, our certificate]:certificate file:_files' \
	    '--redis-key=[the private key of --redis-cert]:key file:_files' \
	    '--redis-insecure[with rediss://, take any certificate]' \
	    '--queue=[at most N records wait]:number of records: ' \
	    '(--drop-to)--drop[drop units that find no token instead of waiting]' \
	    '(--drop)--drop-to=[drop units that find no token, appending them to FILE]:drop file:_files' \
	    '--exec[run CMD for each record, up to a lone ;]:command:_command_names -e:*\;::command arguments:_normal' \
	    '(-j --jobs)'{-j+,--jobs=}'[with --exec, at most N commands at once]:number of commands:(1 2 4 8 16)' \
	    '(--group --ungroup)--line-buffer[with --exec, pass the commands'"'"' output on a whole line at a time]' \
	    '(--line-buffer --ungroup)--group[with --exec, pass each command'"'"'s output on whole once it ends]' \
	    '(--line-buffer --group --tag --tagstring)--ungroup[with --exec, the commands write to our output themselves]' \
	    '(--ungroup)--tag[put each line of a command'"'"'s output after its record and a tab]' \
	    '(--ungroup)--tagstring=[the same with STR filled in as the command is]:tag:({} {1} {\#})' \
	    '--retry=[with --exec, start a command that exits 75 again, up to N more times]:tries again:(1 3 5 10)' \
	    '--retry-on=[the exit statuses tried again]:exit statuses:(75 75,111 1-254)' \
	    '--retry-delay=[the first wait between tries is at most T]:duration:(100ms 1s 10s 1min)' \
	    '--retry-max-delay=[no wait between tries over T]:duration:(1s 10s 1min 10min)' \
	    '--failed-to=[with --exec, append the records whose last try failed to FILE]:failed records file:_files' \
	    '--timeout=[with --exec, end a command still running after T]:duration:(500ms 10s 1min 10min)' \
	    '--halt=[with --exec, start nothing more after N failed records]:when:(never soon,fail=1 now,fail=1 soon,fail=10%)' \
	    '--joblog=[with --exec, append a line to FILE for each record done]:joblog file:_files' \
	    '--adapt[with --exec, slow the rate at each refusal, then climb back to -r]' \
	    '(--resume-failed)--resume[with --joblog, start no command for the records done]' \
	    '(--resume)--resume-failed[with --joblog, start again only the records that failed]' \
	    '--take[take a token of the --shared bucket and exit]' \
	    '(--reset)--show[show what the --shared bucket holds now, and exit]' \
	    '(--show)--reset[give the --shared bucket a clean budget, and exit]' \
	    '--replay[release each record at its own timestamp]' \
	    '--dry-run[with --replay, say what it would do, release nothing]' \
	    '--loop=[replay the FILEs N times in all, or for ever]:passes:(2 10 inf)' \
	    '--loop-gap=[wait T between the passes of --loop]:duration:(100ms 1s 10s)' \
	    '--speed=[replay X times as fast]:speed:(0.5 2 10 60)' \
	    '--max-gap=[replay no wait longer than T]:duration:(100ms 1s 10s)' \
	    '(--time-key)--time-field=[the timestamp starts field N]:field number (1-based): ' \
	    '(--time-field)--time-key=[the timestamp is the value of a JSON key]:JSON key:(ts time timestamp @timestamp)' \
	    '--time-format=[read timestamps in a strptime(3) format]:format:_tbthrottle_time_format' \
	    '(-s --stats)-s[report units in, out and dropped on exit]' \
	    '(-s --stats)--stats=-[report on exit, as text or json]::format:(text json)' \
	    '(-P --progress)'{-P,--progress}'[a live status line on a terminal]' \
	    '--name=[call this run NAME, for -R and --list]:run name: ' \
	    '(-R --retune)'{-R+,--retune=}'[change or ask a running tbthrottle]:running tbthrottle:_tbthrottle_running' \
	    '--reload[with -R: read the --tiers file again]' \
	    "--list[list your running tbthrottles]" \
	    '--json[with --list, a JSON object a line]' \
	    "$alone"{-h,--help}'[show the help and exit]' \
	    "$alone"{-V,--version}'[show the version and exit]' \
	    '*:file:_files'
}

_tbthrottle "$@"
