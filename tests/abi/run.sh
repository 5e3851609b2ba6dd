#!/usr/bin/env bash
# tests/abi/run.sh - the public structs have one layout per pointer width, whatever
# the data model and enum size: tests/abi/abi_sizes.c (compile-time checks of every
# struct's size against one table) compiled with the public headers alone by clang
# for x86_64 Linux (LP64), x86_64 Windows (LLP64: --target=x86_64-pc-windows-msvc,
# EDK2's data model), aarch64 Linux (LP64) and i386 Linux (ILP32), each with and
# without -fshort-enums, and by gcc natively and with -m32. Syntax only: no library,
# no libc. Run through `scripts/probe.sh run clang --` (not run without clang).
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
src=$top/tests/abi/abi_sizes.c
inc=$top/dma/include
n=0
check() {
	if ! "$@" -std=c11 -ffreestanding -fsyntax-only -Wall -Werror -I"$inc" "$src"; then
		echo "abi: FAILED: $*" >&2
		exit 1
	fi
	n=$((n + 1))
}
for target in x86_64-linux-gnu x86_64-pc-windows-msvc aarch64-linux-gnu i686-linux-gnu; do
	check clang --target=$target
	check clang --target=$target -fshort-enums
done
check gcc
check gcc -m32
check gcc -fshort-enums
echo "abi: the public struct sizes agree in $n compiles (LP64, LLP64, ILP32, -fshort-enums)"
