#!/usr/bin/env bash
# build-newlib.sh OUTDIR - build newlib's libc.a and libm.a for the freestanding
# x86_64 kernel from Debian's newlib-source tarball, once.
#
# The result (OUTDIR/lib/libc.a, OUTDIR/lib/libm.a, OUTDIR/include) is reused while
# present: the stamp file is written last, so an interrupted build starts over.
set -euo pipefail

out=${1:?usage: build-newlib.sh OUTDIR}
tarball=/usr/src/newlib/newlib-3.3.0.tar.xz
stamp="$out/.built"

if [ -f "$stamp" ]; then
	exit 0
fi
if [ ! -f "$tarball" ]; then
	echo "build-newlib: $tarball is missing; install newlib-source (scripts/deps.sh does)" >&2
	exit 1
fi

rm -rf "$out"
mkdir -p "$out/src" "$out/obj"
out=$(cd "$out" && pwd)
stamp="$out/.built"
echo "newlib: unpacking $tarball"
tar -xf "$tarball" -C "$out/src"
src="$out/src/newlib-salsa/newlib"

# The kernel is a UEFI image: position independent, no red zone (interrupts use the
# current stack), no stack protector (no TLS canary), 2-byte wchar_t as UEFI wants.
cflags="-O2 -g -ffreestanding -fno-stack-protector -mno-red-zone -fpic -fshort-wchar"
cflags="$cflags -fno-builtin -D_FORTIFY_SOURCE=0 -U_FORTIFY_SOURCE"

echo "newlib: configuring for x86_64-elf with the host gcc"
cd "$out/obj"
CC_FOR_BUILD=gcc \
CC=gcc AR=ar AS=as RANLIB=ranlib LD=ld \
CFLAGS="$cflags" \
	"$src/configure" --host=x86_64-elf --prefix="$out/install" \
	--disable-multilib --disable-newlib-supplied-syscalls \
	--enable-newlib-io-long-long --enable-newlib-io-c99-formats \
	--disable-newlib-multithread --disable-shared >"$out/configure.log" 2>&1 || {
	echo "build-newlib: configure failed; see $out/configure.log" >&2
	tail -20 "$out/configure.log" >&2
	exit 1
}

echo "newlib: building (about 2 minutes on 2 cores)"
make -j"$(nproc)" >"$out/build.log" 2>&1 || {
	echo "build-newlib: make failed; see $out/build.log" >&2
	tail -30 "$out/build.log" >&2
	exit 1
}
make install >>"$out/build.log" 2>&1
mkdir -p "$out/lib"
lib=$(find "$out/install" -name libc.a | head -1)
libm=$(find "$out/install" -name libm.a | head -1)
inc=$(dirname "$(dirname "$lib")")/include
cp "$lib" "$libm" "$out/lib/"
rm -rf "$out/include"
cp -r "$inc" "$out/include"
# newlib's <stdatomic.h> (from FreeBSD) needs its own <stdint.h> types in an order
# that breaks with -ffreestanding; the compiler's own header is self-contained and
# is what the freestanding DMA library is written against.
rm -f "$out/include/stdatomic.h"
rm -rf "$out/src" "$out/obj" "$out/install"
touch "$stamp"
echo "newlib: ready in $out"
