#!/bin/sh
# size-table.sh NAME=LIB... - dma/README.md's "Portable builds" size tables, in Markdown,
# from the archives themselves (`make portable-size` writes them into dma/README.md with
# scripts/readme-table.sh): text, data and text+data per build (size(1) summed over
# the archive's objects; debug sections and bss not counted), then text+data per
# object for the builds named in SIZE_OBJECT_BUILDS (default: x86_64-gcc i386-gcc
# aarch64-gcc) that are among the arguments.
set -eu

if [ $# -eq 0 ]; then
	echo "usage: $0 NAME=LIB..." >&2
	exit 2
fi
echo '| build | text | data | text+data |'
echo '| --- | ---: | ---: | ---: |'
for arg in "$@"; do
	size "${arg#*=}" | awk -v n="${arg%%=*}" 'NR > 1 { t += $1; d += $2 }
		END { printf "| %s | %d | %d | %d |\n", n, t, d, t + d }'
done
echo
cols=""
for b in ${SIZE_OBJECT_BUILDS:-x86_64-gcc i386-gcc aarch64-gcc}; do
	for arg in "$@"; do
		[ "${arg%%=*}" = "$b" ] && cols="$cols $arg"
	done
done
[ -n "$cols" ] || exit 0
# shellcheck disable=SC2086 # the columns are words
set -- $cols
printf '| object (text+data) |'
for arg in "$@"; do printf ' %s |' "${arg%%=*}"; done
echo
printf '| --- |'
for arg in "$@"; do printf ' ---: |'; done
echo
for o in $(size "${1#*=}" | awk 'NR > 1 { sub(/ \(ex .*/, "", $6); print $6 }'); do
	# shellcheck disable=SC2016 # the backquotes are Markdown
	printf '| `%s` |' "${o%.o}"
	for arg in "$@"; do
		size "${arg#*=}" | awk -v o="$o" 'NR > 1 && $6 == o { printf " %d |", $1 + $2 }'
	done
	echo
done
