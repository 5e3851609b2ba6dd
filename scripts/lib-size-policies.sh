#!/bin/sh
# lib-size-policies.sh [SET ...] - size of libsluice-dma.a (text + data, from size(1))
# for each bounce-policy set, e.g. lib-size-policies.sh "linux bitmap lifo sluice"
# sluice linux. Each set is built with make lib SLUICE_DMA_POLICIES=SET into
# its own build directory (build/size/<set>), so build/ is left as it was.
set -eu
[ $# -gt 0 ] || set -- "linux bitmap lifo sluice" sluice linux
for set in "$@"; do
	dir=build/size/$(printf '%s' "$set" | tr ' ' '+')
	make -s lib BUILD="$dir" SLUICE_DMA_POLICIES="$set" >/dev/null
	size -t "$dir/libsluice-dma.a" |
		awk -v set="$set" 'END { printf "%-26s text %6d  data %4d  text+data %6d\n", set, $1, $2, $1 + $2 }'
done
