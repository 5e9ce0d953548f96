# Bash completion for tbthrottle(1): options, their values, and for -R the
# running tbthrottles of this user.  Installed by make install.

_tbthrottle_running()
{
	# The names and pids of this user's running tbthrottles: the lines
	# of --list that start with a pid.
	command tbthrottle --list 2>/dev/null |
	    awk '$1 ~ /^[0-9]+$/ { print $1; if ($2 != "-") print $2 }'
}

# _tbthrottle_files -f|-d: the files (or the directories) that start with
# $cur, shown and quoted as file names.  Only here: the other values hold
# slashes (10/s) that a list of file names would show cut (s).
_tbthrottle_files()
{
	compopt -o filenames 2>/dev/null
	mapfile -t COMPREPLY < <(compgen "$1" -- "$cur")
}

# _tbthrottle_rates RECORDS|BYTES: rates to offer, by what a unit is:
# records (10/s), or bytes with -c and for --byte-rate (1M/s, as pv's -L).
_tbthrottle_rates()
{
	if [[ $1 == bytes ]]; then
		mapfile -t COMPREPLY < <(compgen -W \
		    '1M/s 500k/s 64K/s 10MB/min 1G/h inf' -- "$cur")
	else
		mapfile -t COMPREPLY < <(compgen -W \
		    '10/s 100/min 1000/h 5/2s 1/0.2s 1/day inf' -- "$cur")
	fi
}

# The commands --exec can run: files on PATH, not the shell's builtins,
# keywords, aliases or functions (tbthrottle runs no shell).
_tbthrottle_commands()
{
	local c
	COMPREPLY=()
	while IFS= read -r c; do
		# No subshell a name: thousands of them with nothing typed.
		type -P -- "$c" >/dev/null && COMPREPLY+=("$c")
	done < <(compgen -c -- "$cur" | sort -u)
}

_tbthrottle()
{
	# _init_completion sets words and cword too.
	# shellcheck disable=SC2034
	local cur prev words cword split=false
	if declare -F _init_completion >/dev/null; then
		_init_completion -s || return
	else
		cur=${COMP_WORDS[COMP_CWORD]}
		prev=${COMP_WORDS[COMP_CWORD - 1]}
		words=("${COMP_WORDS[@]}")
		cword=$COMP_CWORD
	fi

	# After --exec and until a lone ';': a command, then its arguments as
	# that command's own completion offers them (bash-completion's
	# _command_offset), or files.
	local i
	for ((i = cword - 1; i > 0; i--)); do
		case ${words[i]} in
		';') break ;;
		--exec)
			if ((i == cword - 1)); then
				_tbthrottle_commands
			elif declare -F _command_offset >/dev/null; then
				_command_offset $((i + 1))
			else
				_tbthrottle_files -f
			fi
			return ;;
		esac
	done

	case $prev in
	-j | --jobs)
		mapfile -t COMPREPLY < <(compgen -W '1 2 4 8 16' -- "$cur")
		return ;;
	--tagstring)
		mapfile -t COMPREPLY < <(compgen -W '{} {1} {#}' -- "$cur")
		return ;;
	--retry)
		mapfile -t COMPREPLY < <(compgen -W '1 3 5 10' -- "$cur")
		return ;;
	--retry-on)
		mapfile -t COMPREPLY < <(compgen -W '75 75,111 1-254' -- "$cur")
		return ;;
	--halt)
		mapfile -t COMPREPLY < <(compgen -W 'never soon,fail=1 now,fail=1 soon,fail=10%' -- "$cur")
		return ;;
	--retry-delay | --retry-max-delay | --timeout)
		mapfile -t COMPREPLY < <(compgen -W '100ms 1s 10s 1min' -- "$cur")
		return ;;
	-r | --rate | --total-rate)
		for ((i = 1; i < cword; i++)); do
			[[ ${words[i]} == -c || ${words[i]} == --bytes ]] &&
			    { _tbthrottle_rates bytes; return; }
		done
		_tbthrottle_rates records
		return ;;
	--byte-rate)
		_tbthrottle_rates bytes
		return ;;
	--stats)
		# Only --stats=FORMAT takes a value (bash-completion splits it
		# off); --stats FORMAT would be an operand.
		if [[ $split == true ]]; then
			mapfile -t COMPREPLY < <(compgen -W 'text json' -- "$cur")
			return
		fi ;;
	-b | --burst | --byte-burst | --initial | --total-burst)
		mapfile -t COMPREPLY < <(compgen -W '1 10 100 1s 10ms' -- "$cur")
		return ;;
	--catch-up)
		mapfile -t COMPREPLY < <(compgen -W '0 1ms 10ms 100ms' -- "$cur")
		return ;;
	-a | --algorithm)
		mapfile -t COMPREPLY < <(compgen -W \
		    'token leaky sliding fixed' -- "$cur")
		return ;;
	--order)
		mapfile -t COMPREPLY < <(compgen -W 'input key' -- "$cur")
		return ;;
	--tz)
		# UTC, local, and the names of the zone data, a folder at a time.
		# Not the tables beside them, nor the posix/ and right/ copies.
		mapfile -t COMPREPLY < <(compgen -W 'UTC local' -- "$cur"
		    cd "${TZDIR:-/usr/share/zoneinfo}" 2>/dev/null &&
		    compgen -f -- "$cur" | grep -Ev '^(UTC|localtime|posixrules|leapseconds|SECURITY|[+]VERSION|posix|right)$|^(posix|right)/|[.](tab|zi|list)$')
		return ;;
	--redis-fallback)
		mapfile -t COMPREPLY < <(compgen -W 'block local fail' -- "$cur")
		return ;;
	--redis)
		mapfile -t COMPREPLY < <(compgen -W \
		    'redis://127.0.0.1:6379 rediss://127.0.0.1:6379 unix:///run/redis/redis.sock' -- \
		    "$cur")
		return ;;
	-R | --retune)
		mapfile -t COMPREPLY < <(compgen -W \
		    "$(_tbthrottle_running)" -- "$cur")
		return ;;
	-d | --delimiter | -F | --field-separator)
		# Quoted as the shell must read them: \\t, not t.
		local v
		COMPREPLY=()
		for v in ',' '\t' '\0' '|' '\x1e'; do
			[[ $v == "$cur"* ]] || continue
			if [[ $v == ',' ]]; then
				COMPREPLY+=(',')
			else
				COMPREPLY+=("$(printf '%q' "$v")")
			fi
		done
		return ;;
	-k | --key | --queue | --max-keys | --shared | --name)
		return ;;
	--drop-to | --failed-to | --joblog | --tiers | --redis-cacert | --redis-cert | --redis-key)
		_tbthrottle_files -f
		return ;;
	--state-dir)
		_tbthrottle_files -d
		return ;;
	--speed)
		mapfile -t COMPREPLY < <(compgen -W '0.5 2 10 60' -- "$cur")
		return ;;
	--loop)
		mapfile -t COMPREPLY < <(compgen -W '2 10 inf' -- "$cur")
		return ;;
	--max-gap | --loop-gap)
		mapfile -t COMPREPLY < <(compgen -W '100ms 1s 10s' -- "$cur")
		return ;;
	--time-field | --time-key)
		return ;;
	--time-format)
		mapfile -t COMPREPLY < <(compgen -W \
		    "'%Y-%m-%d %H:%M:%S' '%d/%b/%Y:%H:%M:%S %z' '%s'" -- "$cur")
		return ;;
	esac

	case $cur in
	--stats=*)
		mapfile -t COMPREPLY < <(compgen -P --stats= -W 'text json' -- \
		    "${cur#--stats=}")
		return ;;
	-*)
		mapfile -t COMPREPLY < <(compgen -W '--rate --burst --lines
		    --null --delimiter --bytes --algorithm --leaky --tz --initial
		    --catch-up --stats --stats=json --drop --progress --retune
		    --drop-to --byte-rate --byte-burst --queue --key
		    --field-separator --max-keys --shared --state-dir --redis
		    --redis-fallback --redis-allow-eviction --redis-cacert --redis-cert
		    --redis-key --redis-insecure --name --list
		    --tiers --total-rate --total-burst --order --reload --replay
		    --speed --max-gap --time-field --time-key --time-format --loop --loop-gap --dry-run --exec --jobs
		    --line-buffer --group --ungroup --tag --tagstring
		    --retry --retry-on --retry-delay --retry-max-delay --failed-to
		    --timeout --halt --joblog --resume --resume-failed --adapt
		    --take --show --reset --json --help --version -r -b -l -0 -d -c -a -s -P
		    -R -k -F -j -h -V' -- "$cur")
		return ;;
	esac
	_tbthrottle_files -f
}
complete -F _tbthrottle tbthrottle
