#!/bin/sh
# lib-size-policies.sh [--markdown] [SET ...] - size of libsluice-dma.a (text + data,
# from size(1)) for each bounce-policy set, e.g. lib-size-policies.sh "linux bitmap
# lifo sluice" sluice linux. Each set is built with make lib SLUICE_DMA_POLICIES=SET
# into its own build directory (build/size/<set>), so build/ is left as it was.
# --markdown: the rows of dma/README.md's "Policies and size" table (make portable-size
# writes it there between the policy-size markers; make check compares).
set -eu
markdown=0
if [ "${1:-}" = --markdown ]; then
	markdown=1
	shift
fi
all=$("$(dirname "$0")/names.py" policies) || exit 2
[ $# -gt 0 ] || set -- "$all" sluice linux
if [ $markdown -eq 1 ]; then
	echo '| policies | text | data | text + data |'
	echo '| --- | ---: | ---: | ---: |'
fi
for set in "$@"; do
	dir=build/size/$(printf '%s' "$set" | tr ' ' '+')
	# A make of its own: called from a recipe (make portable-size, make check's
	# build), it would inherit the caller's jobserver without its descriptors.
	MAKEFLAGS= MFLAGS= make -s lib BUILD="$dir" SLUICE_DMA_POLICIES="$set" >/dev/null
	if [ $markdown -eq 1 ]; then
		name=$set
		[ "$set" = "$all" ] && name="all (default)"
		size -t "$dir/libsluice-dma.a" |
			awk -v n="$name" 'END { printf "| %s | %d | %d | %d |\n", n, $1, $2, $1 + $2 }'
	else
		size -t "$dir/libsluice-dma.a" | awk -v set="$set" \
			'END { printf "%-26s text %6d  data %4d  text+data %6d\n", set, $1, $2, $1 + $2 }'
	fi
done
