#!/usr/bin/env bash
# deps.sh [build|test|bench|fuzz|portable] - make sure the Debian packages Sluice
# needs are installed.
# deps.sh lib [x86_64|i386|aarch64] [gcc|clang] - only what `make lib` / `make install`
# of the DMA library need for that target and compiler (no QEMU, OVMF, GNU-EFI or
# newlib: an embedder building the library alone gets none of them).
# As root it installs what is missing with apt-get; otherwise it prints the exact
# command to run and fails. A package of another architecture (name:arch, e.g.
# libcmocka-dev:arm64) first enables that architecture in dpkg.
set -euo pipefail

what=${1:-build}

# package:file-that-proves-it-is-installed (the package may be name:arch; the
# file is what follows the last colon)
need=(
	"gcc:/usr/bin/gcc"
	"make:/usr/bin/make"
	"binutils:/usr/bin/objcopy"
)
case "$what" in
lib)
	lib_target=${2:-x86_64}
	lib_compiler=${3:-gcc}
	case "$lib_target-$lib_compiler" in
	x86_64-gcc | i386-gcc) ;;
	x86_64-clang | i386-clang) need+=("clang:/usr/bin/clang") ;;
	aarch64-gcc) need+=("gcc-aarch64-linux-gnu:/usr/bin/aarch64-linux-gnu-gcc") ;;
	# clang compiles, the cross binutils archive (the host's ar knows no aarch64)
	aarch64-clang) need+=("clang:/usr/bin/clang"
		"binutils-aarch64-linux-gnu:/usr/bin/aarch64-linux-gnu-ar") ;;
	*)
		echo "deps: lib: unknown target or compiler '$lib_target $lib_compiler'" >&2
		exit 2
		;;
	esac
	;;
*) need+=("gnu-efi:/usr/lib/libgnuefi.a"
	"ovmf:/usr/share/OVMF/OVMF_CODE_4M.fd"
	"qemu-system-x86:/usr/bin/qemu-system-x86_64"
	"newlib-source:/usr/src/newlib/newlib-3.3.0.tar.xz"
	"libcmocka-dev:/usr/include/cmocka.h"
	"xz-utils:/usr/bin/xz"
	"python3:/usr/bin/python3") ;;
esac
case "$what" in
test|fuzz) need+=("clang:/usr/bin/clang" "libclang-rt-14-dev:/usr/lib/llvm-14/lib/clang/14.0.6/lib/linux/libclang_rt.asan-x86_64.a") ;;
esac
case "$what" in
test) need+=("valgrind:/usr/bin/valgrind"
	"python3-matplotlib:/usr/lib/python3/dist-packages/matplotlib/__init__.py"
	"util-linux:/usr/bin/flock"
	"strace:/usr/bin/strace"
	"g++:/usr/bin/g++"
	"pkgconf:/usr/bin/pkg-config"
	"cmake:/usr/bin/cmake"
	"clang-format:/usr/bin/clang-format") ;;
bench) need+=("python3-matplotlib:/usr/lib/python3/dist-packages/matplotlib/__init__.py") ;;
esac
# The portable builds of the DMA library (tests/portable.mk): clang and gcc for
# x86_64 and i386, Debian's aarch64 cross gcc, and the host tests for i386 (native)
# and aarch64 (qemu-user) against Debian's own CMocka of those architectures.
# gcc-multilib conflicts with the cross gcc, so i386 takes its parts instead.
case "$what" in
test|portable) need+=("clang:/usr/bin/clang"
	"libc6-dev-i386:/usr/include/x86_64-linux-gnu/gnu/stubs-32.h"
	"lib32gcc-12-dev:/usr/lib/gcc/x86_64-linux-gnu/12/32/libgcc.a"
	"libcmocka-dev:i386:/usr/lib/i386-linux-gnu/libcmocka.so"
	"gcc-aarch64-linux-gnu:/usr/bin/aarch64-linux-gnu-gcc"
	"libc6-dev-arm64-cross:/usr/aarch64-linux-gnu/include/stdio.h"
	"libcmocka-dev:arm64:/usr/lib/aarch64-linux-gnu/libcmocka.so"
	"qemu-user:/usr/bin/qemu-aarch64") ;;
esac

missing=()
for entry in "${need[@]}"; do
	pkg=${entry%:*}
	file=${entry##*:}
	[ -e "$file" ] || missing+=("$pkg")
done
[ ${#missing[@]} -eq 0 ] && exit 0
# One package may be listed by two groups.
mapfile -t missing < <(printf '%s\n' "${missing[@]}" | awk '!seen[$0]++')

cmd="apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
	echo "deps: missing packages: ${missing[*]}" >&2
	echo "deps: run as root:  apt-get update && $cmd" >&2
	exit 1
fi
echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
: >/tmp/sluice-deps.log
# Foreign architectures the missing packages need; a new one has no package
# lists yet, so the lists are refreshed before the first try.
refresh=0
for pkg in "${missing[@]}"; do
	case $pkg in
	*:*)
		arch=${pkg#*:}
		if [ "$arch" != "$(dpkg --print-architecture)" ] &&
			! dpkg --print-foreign-architectures | grep -qx "$arch"; then
			echo "deps: enabling architecture $arch"
			dpkg --add-architecture "$arch"
			refresh=1
		fi
		;;
	esac
done
if [ $refresh -eq 1 ]; then
	apt-get update >/tmp/sluice-deps.log 2>&1 || true
fi
# A fresh machine has no package lists yet; refresh them once, then install.
if ! apt-get install -y --no-install-recommends "${missing[@]}" >>/tmp/sluice-deps.log 2>&1; then
	apt-get update >>/tmp/sluice-deps.log 2>&1 || true
	if ! apt-get install -y --no-install-recommends "${missing[@]}" >>/tmp/sluice-deps.log 2>&1; then
		echo "deps: '$cmd' failed; see /tmp/sluice-deps.log" >&2
		tail -20 /tmp/sluice-deps.log >&2
		exit 1
	fi
fi
echo "deps: done"
