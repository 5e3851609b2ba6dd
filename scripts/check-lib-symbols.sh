#!/bin/sh
# check-lib-symbols.sh LIB - fail if the static library LIB references any symbol
# it does not define itself, other than memcpy, memset and memcmp.
#
# The DMA library reaches the platform only through the porting ops (function
# pointers, not symbols) and needs nothing from libc but mem*; anything else
# undefined would break an embedder that links it into firmware.
set -eu

if [ $# -ne 1 ]; then
	echo "usage: $0 LIB" >&2
	exit 2
fi
lib=$1
if [ ! -f "$lib" ]; then
	echo "check-lib-symbols: $lib: no such file" >&2
	exit 2
fi

# _GLOBAL_OFFSET_TABLE_ is not a dependency: the linker defines it for -fpic code.
allowed='^(memcpy|memset|memcmp|_GLOBAL_OFFSET_TABLE_)$'
# Symbols defined anywhere in the archive (one object may use another's).
defined=$(nm -g --defined-only "$lib" 2>/dev/null | awk 'NF >= 3 { print $3 }' | sort -u)
undefined=$(nm -u "$lib" | awk 'NF >= 2 && $1 == "U" { print $2 }' | sort -u)

bad=0
for sym in $undefined; do
	if printf '%s\n' "$sym" | grep -Eq "$allowed"; then
		continue
	fi
	if printf '%s\n' "$defined" | grep -qx -- "$sym"; then
		continue
	fi
	echo "check-lib-symbols: $lib references undefined symbol '$sym'" >&2
	bad=1
done
if [ $bad -ne 0 ]; then
	exit 1
fi
echo "check-lib-symbols: $lib: OK (only memcpy/memset/memcmp undefined)"
