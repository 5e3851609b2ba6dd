#!/bin/sh
# lib-size.sh NAME=LIB... - the size of each static library LIB as `size` counts
# it: text+data (and bss) summed over its objects, then the same per object
# (each bounce policy is one object: bounce_<policy>.c), for dma/README.md.
set -eu

if [ $# -eq 0 ]; then
	echo "usage: $0 NAME=LIB..." >&2
	exit 2
fi
printf '%-18s %8s %6s %6s %10s\n' build text data bss text+data
for arg in "$@"; do
	name=${arg%%=*}
	lib=${arg#*=}
	size "$lib" | awk -v n="$name" 'NR > 1 { t += $1; d += $2; b += $3 }
		END { printf "%-18s %8d %6d %6d %10d\n", n, t, d, b, t + d }'
done
echo
# Per object: one column per build.
printf '%-18s' object
for arg in "$@"; do printf ' %14s' "${arg%%=*}"; done
echo
objs=$(size "${1#*=}" | awk 'NR > 1 { sub(/ \(ex .*/, "", $6); print $6 }')
for o in $objs; do
	printf '%-18s' "${o%.o}"
	for arg in "$@"; do
		size "${arg#*=}" | awk -v o="$o" 'NR > 1 && $6 == o { printf " %14d", $1 + $2 }'
	done
	echo
done
