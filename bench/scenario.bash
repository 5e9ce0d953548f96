# shellcheck shell=bash
# bench/scenario.bash: the start that the scenario scripts (replay.sh,
# fleet.sh), run alone or by run.sh, share; source it, then call
# scenario_args with the script's name and arguments.

# scenario_args NAME ARG...: quick=1 for --quick (anything else is exit 2);
# TB (default bench/../tbthrottle) and RECV (default bench/recv) must be
# there to run (else exit 1).
scenario_args() {
	local name=$1 arg dir
	shift
	dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
	TB=${TB:-$dir/../tbthrottle}
	RECV=${RECV:-$dir/recv}
	# shellcheck disable=SC2034 # quick: read by the script sourcing this
	for arg in "$@"; do
		case $arg in
		--quick) quick=1 ;;
		*)
			echo "$name: unknown argument '$arg'" >&2
			exit 2
			;;
		esac
	done
	[[ -x $TB ]] || { echo "$name: no tbthrottle at $TB" >&2; exit 1; }
	[[ -x $RECV ]] || { echo "$name: no recv at $RECV (make bench/recv)" >&2; exit 1; }
}
