#!/usr/bin/env bash
# tests/lib_install/run.sh TARGET [COMPILER] - `make install LIB_TARGET=TARGET` (TARGET
# i386 or aarch64, COMPILER gcc (default) or clang) into a staging root, then checks
# what an embedder of that target gets:
#   - every object of the installed archive is an ELF of TARGET, as the target's own
#     objdump -f reads it (elf32-i386 / elf64-littleaarch64);
#   - its symbols pass scripts/check-lib-symbols.sh with the target's nm: nothing
#     undefined but mem* (an aarch64 build without -mno-outline-atomics fails here on
#     __aarch64_ldadd8_relax & co.);
#   - the installed sluice-dma.pc, read by pkg-config through the staging root, gives
#     the library's API version, -I of the installed headers and -L/-l of the archive.
# A machine without the target's compiler reports the test as not run (exit 77 with a
# "not run: ..." line, scripts/probe.sh) instead of failing.
set -euo pipefail

target=${1:?usage: $0 TARGET [COMPILER]}
compiler=${2:-gcc}
top=$(cd "$(dirname "$0")/../.." && pwd)
case "$target-$compiler" in
i386-gcc) cap=gcc-i386 bin='' format=elf32-i386 arch=i386 ;;
i386-clang) cap=clang bin='' format=elf32-i386 arch=i386 ;;
aarch64-gcc) cap=gcc-aarch64 bin=aarch64-linux-gnu- format=elf64-littleaarch64 arch=aarch64 ;;
aarch64-clang) cap=clang bin=aarch64-linux-gnu- format=elf64-littleaarch64 arch=aarch64 ;;
*) echo "usage: $0 i386|aarch64 [gcc|clang]" >&2; exit 2 ;;
esac
"$top/scripts/probe.sh" "$cap" >/dev/null || {
	echo "not run: $("$top/scripts/probe.sh" "$cap")"
	exit 77
}
if [ "$arch" = aarch64 ] && ! command -v ${bin}objdump >/dev/null; then
	echo "not run: no ${bin}objdump to read an aarch64 archive"
	exit 77
fi

prefix=/opt/sluice-dma-$target
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
stage=$tmp/stage
fail() { echo "lib_install: $target-$compiler: $*" >&2; exit 1; }

make -s -C "$top" install LIB_TARGET="$target" LIB_COMPILER="$compiler" \
	PREFIX="$prefix" DESTDIR="$stage"
lib=$stage$prefix/lib/libsluice-dma.a
[ -f "$lib" ] || fail "no $lib"
[ -f "$stage$prefix/include/sluice/dma.h" ] || fail "no installed <sluice/dma.h>"

# Architecture: one "file format" line per object, all of the target.
"${bin}objdump" -f "$lib" >"$tmp/objdump.txt"
nobj=$(grep -c 'file format' "$tmp/objdump.txt")
nok=$(grep -c "file format $format\$" "$tmp/objdump.txt" || true)
[ "$nobj" -gt 0 ] || fail "no object in $lib"
[ "$nobj" -eq "$nok" ] ||
	fail "$nok of $nobj objects are $format: $(grep 'file format' "$tmp/objdump.txt" | sort -u -k4)"
narch=$(grep -c "^architecture: $arch" "$tmp/objdump.txt" || true)
[ "$narch" -eq "$nobj" ] || fail "$narch of $nobj objects say architecture $arch"
echo "lib_install: $target-$compiler: $nobj objects, all $format ($arch)"

NM=${bin}nm "$top/scripts/check-lib-symbols.sh" "$lib"

# The .pc, as a cross build's sysroot sees it.
export PKG_CONFIG_LIBDIR=$stage$prefix/lib/pkgconfig PKG_CONFIG_PATH='' \
	PKG_CONFIG_SYSROOT_DIR=$stage
want=$(awk '/define SLUICE_DMA_VERSION_(MAJOR|MINOR|PATCH) / { v = v s $3; s = "." }
	END { print v }' "$top/dma/include/sluice/dma_version.h")
got=$(pkg-config --modversion sluice-dma) || fail "pkg-config finds no sluice-dma"
[ "$got" = "$want" ] || fail "sluice-dma.pc says version $got, the headers $want"
# (trailing blanks dropped: pkg-config ends its line with a space)
cflags=$(pkg-config --cflags sluice-dma | sed 's/[[:space:]]*$//')
libs=$(pkg-config --libs sluice-dma | sed 's/[[:space:]]*$//')
[ "$cflags" = "-I$stage$prefix/include" ] || fail "pkg-config --cflags: '$cflags'"
[ "$libs" = "-L$stage$prefix/lib -lsluice-dma" ] || fail "pkg-config --libs: '$libs'"
# The file itself names the final paths, not the staging root.
grep -qx "prefix=$prefix" "$PKG_CONFIG_LIBDIR/sluice-dma.pc" ||
	fail "the .pc's prefix is not $prefix: $(grep '^prefix=' "$PKG_CONFIG_LIBDIR/sluice-dma.pc")"
echo "lib_install: $target-$compiler: sluice-dma $got: $cflags $libs"
echo "lib_install: $target-$compiler: OK"
