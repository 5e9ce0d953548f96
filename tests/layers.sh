#!/usr/bin/env bash
# The layering check of `make lint`: a file may include only headers of
# its own layer or a lower one, and a pure module (no system calls, unit
# tested on a fake clock) only pure headers.  Every source file must be in
# the table, so a new file is placed on purpose.
set -euo pipefail
cd "$(dirname "$0")/../src"

# file stem, layer, pure (p) or system-facing (s)
table='
clock 0 s
signals 0 s
input 0 s
output 0 s
splice 0 s
stdfd 0 s
rundir 0 s
transport 0 s
piperoom 0 p
runname 0 p
request 0 p
name 0 s
control 0 s
ask 0 s
msg 1 p
siphash 1 p
rate 1 p
framer 1 p
stats 1 p
redisurl 1 p
eviction 1 p
options 1 p
tiers 1 p
wildcard 1 p
timestamp 1 p
bucket 2 p
gcra 2 p
sliding 2 p
fixed 2 p
keys 2 p
limiter 2 p
shared 2 s
redisconn 2 s
redis 2 s
policy 3 p
batch 3 p
pass 3 p
shape 3 p
drop 3 p
queue 3 p
replay 3 p
stream 4 s
engine 4 s
limits 4 s
retune 4 s
zone 4 s
main 5 s
'
declare -A layer pure
while read -r stem l p; do
	[[ -n $stem ]] || continue
	layer[$stem]=$l
	pure[$stem]=$p
done <<<"$table"

bad=0
for f in *.c *.h; do
	stem=${f%.*}
	if [[ -z ${layer[$stem]:-} ]]; then
		echo "layers: src/$f is in no layer (add it to tests/layers.sh)" >&2
		bad=1
		continue
	fi
	while read -r inc; do
		istem=${inc%.h}
		if [[ -z ${layer[$istem]:-} ]]; then
			echo "layers: src/$f includes $inc, which is in no layer" >&2
			bad=1
		elif ((layer[$istem] > layer[$stem])); then
			echo "layers: src/$f (layer ${layer[$stem]}) includes" \
			    "$inc from layer ${layer[$istem]} above it" >&2
			bad=1
		elif [[ ${pure[$stem]} == p && ${pure[$istem]} == s ]]; then
			echo "layers: src/$f is pure but includes $inc," \
			    "which makes system calls" >&2
			bad=1
		fi
	done < <(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f")
done
if ((bad)); then
	exit 1
fi
echo "layers: every include points down"
