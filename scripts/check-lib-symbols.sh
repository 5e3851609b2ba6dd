#!/bin/sh
# check-lib-symbols.sh LIB - check the symbols of the static library LIB:
#   1. it references no symbol it does not define itself, other than memcpy,
#      memset and memcmp;
#   2. every global symbol it defines is in the library's namespace: the API
#      is sluice_dma_*, and the symbols its files share with each other are
#      sluice_dma_priv_* with hidden visibility (dma/README.md, "The library on its own");
#   3. every sluice_dma_priv_* symbol is hidden and every other one is not
#      (an API function built hidden could not be called from a shared object).
#
# The DMA library reaches the platform only through the porting ops (function
# pointers, not symbols) and needs nothing from libc but mem*; anything else
# undefined would break an embedder that links it into firmware. A global
# symbol outside the namespace would collide with the firmware's own (U-Boot
# and Linux-derived HALs have a dma_*() mapping API of their own).
set -eu
# NM: the target's nm for a cross build (aarch64-linux-gnu-nm); readelf reads any ELF.
NM=${NM:-nm}

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
defined=$($NM -g --defined-only "$lib" 2>/dev/null | awk 'NF >= 3 { print $3 }' | sort -u)
undefined=$($NM -u "$lib" | awk 'NF >= 2 && $1 == "U" { print $2 }' | sort -u)

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

# gcc's i386 PIC code loads its own address through __x86.get_pc_thunk.<reg>:
# hidden COMDAT helpers in every object, merged by the linker, never a collision.
thunk='__x86.get_pc_thunk.*'
ndef=0
for sym in $defined; do
	case $sym in
	$thunk) continue ;;
	esac
	ndef=$((ndef + 1))
	case $sym in
	sluice_dma_*) ;;
	*)
		echo "check-lib-symbols: $lib defines global symbol '$sym' outside sluice_dma_*" >&2
		bad=1
		;;
	esac
done
if [ "$ndef" -eq 0 ]; then
	echo "check-lib-symbols: $lib defines no global symbol (not a library?)" >&2
	exit 1
fi

# readelf -sW: Num Value Size Type Bind Vis Ndx Name; defined globals only.
vis=$(readelf -sW "$lib" | awk '($5 == "GLOBAL" || $5 == "WEAK") && $7 != "UND" && NF >= 8 { print $6, $8 }')
nhidden=0
nexported=0
while read -r v sym; do
	[ -n "$sym" ] || continue
	case $sym in
	$thunk) ;;
	sluice_dma_priv_*)
		nhidden=$((nhidden + 1))
		if [ "$v" != HIDDEN ]; then
			echo "check-lib-symbols: internal symbol '$sym' is $v, not HIDDEN" >&2
			bad=1
		fi
		;;
	*)
		nexported=$((nexported + 1))
		if [ "$v" != DEFAULT ]; then
			echo "check-lib-symbols: API symbol '$sym' is $v, not DEFAULT" >&2
			bad=1
		fi
		;;
	esac
done <<EOT
$vis
EOT

if [ $bad -ne 0 ]; then
	exit 1
fi
echo "check-lib-symbols: $lib: OK ($nexported API symbols sluice_dma_*, $nhidden hidden" \
	"sluice_dma_priv_*, nothing else global; only memcpy/memset/memcmp undefined)"
