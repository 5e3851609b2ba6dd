#!/bin/sh
# check-public-headers.sh INCDIR - every public header of the DMA library under
# INCDIR/sluice/ must compile on its own, with INCDIR as the only include path:
#   - as C11 with -pedantic (no GNU extensions, no header it forgets to include,
#     no internal header of dma/ reached through the repository root);
#   - as C++11 with -pedantic (extern "C", no _Atomic, no C-only keywords);
#   - included twice (include guards).
# Firmware builds vary in dialect and language; a header that needs the
# library's own build flags would fail there first.
set -eu

if [ $# -ne 1 ]; then
	echo "usage: $0 INCDIR" >&2
	exit 2
fi
inc=$1
CC=${CC:-gcc}
CXX=${CXX:-g++}
warn="-Wall -Wextra -Werror -pedantic"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

n=0
bad=0
for h in "$inc"/sluice/*.h; do
	name=sluice/$(basename "$h")
	printf '#include <%s>\n#include <%s>\nint sluice_header_check_dummy;\n' "$name" "$name" \
		>"$tmp/t.c"
	if ! $CC -std=c11 $warn -I"$inc" -fsyntax-only "$tmp/t.c" 2>"$tmp/err"; then
		echo "check-public-headers: $name does not compile alone as C11:" >&2
		cat "$tmp/err" >&2
		bad=1
	fi
	cp "$tmp/t.c" "$tmp/t.cc"
	if ! $CXX -std=c++11 $warn -I"$inc" -fsyntax-only "$tmp/t.cc" 2>"$tmp/err"; then
		echo "check-public-headers: $name does not compile alone as C++11:" >&2
		cat "$tmp/err" >&2
		bad=1
	fi
	n=$((n + 1))
done
if [ "$n" -eq 0 ]; then
	echo "check-public-headers: no header in $inc/sluice" >&2
	exit 1
fi
[ $bad -eq 0 ] || exit 1
echo "check-public-headers: $n headers in $inc/sluice compile alone as C11 -pedantic and C++11"
