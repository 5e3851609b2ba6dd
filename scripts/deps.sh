#!/usr/bin/env bash
# deps.sh [build|test|bench|fuzz] - make sure the Debian packages Sluice needs are
# installed. As root it installs what is missing with apt-get; otherwise it prints
# the exact command to run and fails.
set -euo pipefail

what=${1:-build}

# package:file-that-proves-it-is-installed
need=(
	"gnu-efi:/usr/lib/libgnuefi.a"
	"ovmf:/usr/share/OVMF/OVMF_CODE_4M.fd"
	"qemu-system-x86:/usr/bin/qemu-system-x86_64"
	"newlib-source:/usr/src/newlib/newlib-3.3.0.tar.xz"
	"libcmocka-dev:/usr/include/cmocka.h"
	"gcc:/usr/bin/gcc"
	"make:/usr/bin/make"
	"binutils:/usr/bin/objcopy"
	"xz-utils:/usr/bin/xz"
	"python3:/usr/bin/python3"
)
case "$what" in
test|fuzz) need+=("clang:/usr/bin/clang" "libclang-rt-14-dev:/usr/lib/llvm-14/lib/clang/14.0.6/lib/linux/libclang_rt.asan-x86_64.a") ;;
esac
case "$what" in
test) need+=("valgrind:/usr/bin/valgrind"
	"python3-matplotlib:/usr/lib/python3/dist-packages/matplotlib/__init__.py"
	"util-linux:/usr/bin/flock"
	"strace:/usr/bin/strace"
	"g++:/usr/bin/g++"
	"pkgconf:/usr/bin/pkg-config") ;;
bench) need+=("python3-matplotlib:/usr/lib/python3/dist-packages/matplotlib/__init__.py") ;;
esac

missing=()
for entry in "${need[@]}"; do
	pkg=${entry%%:*}
	file=${entry#*:}
	[ -e "$file" ] || missing+=("$pkg")
done
[ ${#missing[@]} -eq 0 ] && exit 0

cmd="apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
	echo "deps: missing packages: ${missing[*]}" >&2
	echo "deps: run as root:  apt-get update && $cmd" >&2
	exit 1
fi
echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# A fresh machine has no package lists yet; refresh them once, then install.
if ! apt-get install -y --no-install-recommends "${missing[@]}" >/tmp/sluice-deps.log 2>&1; then
	apt-get update >>/tmp/sluice-deps.log 2>&1 || true
	if ! apt-get install -y --no-install-recommends "${missing[@]}" >>/tmp/sluice-deps.log 2>&1; then
		echo "deps: '$cmd' failed; see /tmp/sluice-deps.log" >&2
		tail -20 /tmp/sluice-deps.log >&2
		exit 1
	fi
fi
echo "deps: done"
