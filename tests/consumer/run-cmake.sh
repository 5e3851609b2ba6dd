#!/usr/bin/env bash
# tests/consumer/run-cmake.sh - the CMake side of tests/consumer/run.sh and the
# vendoring recipe of dma/PORTING.md:
#   1. install the DMA library into a staging root (scripts/stage-dma-lib.sh), copy
#      tests/consumer/ out of the tree, configure it with only CMAKE_PREFIX_PATH set
#      to the staged prefix (find_package(sluice-dma) with the headers' version), build
#      it and run it;
#   2. ask for the next minor version, and from a 32-bit project (gcc -m32, where it
#      works): find_package must refuse both (the ABI holds within one minor and one
#      pointer size);
#   3. vendor the library as PORTING.md says: the sources listed there between its
#      "vendor-sources" markers must be dma/build.mk's DMA_SRCS; copy dma/ into a
#      folder of its own, compile those files with the include paths PORTING.md
#      gives, archive them and link consumer.c against that archive.
set -euo pipefail

prefix=/opt/sluice-dma-test
# shellcheck source=scripts/stage-dma-lib.sh
. "$(dirname "$0")/../../scripts/stage-dma-lib.sh"
version=$(pkg-config --modversion sluice-dma)
major=${version%%.*}
minor=${version#*.}
minor=${minor%%.*}
fail() { echo "consumer-cmake: $*" >&2; exit 1; }

cp -r "$top/tests/consumer" "$tmp/src"
cmake -S "$tmp/src" -B "$tmp/build" -DCMAKE_PREFIX_PATH="$stage$prefix" \
	-DSLUICE_DMA_WANT="$version" >"$tmp/configure.log" 2>&1 ||
	{ cat "$tmp/configure.log"; fail "configure failed"; }
grep 'sluice-dma' "$tmp/configure.log"
cmake --build "$tmp/build" >"$tmp/build.log" 2>&1 || { cat "$tmp/build.log"; fail "build failed"; }
"$tmp/build/consumer"

# Another minor, another pointer size: refused.
if cmake -S "$tmp/src" -B "$tmp/build-next" -DCMAKE_PREFIX_PATH="$stage$prefix" \
	-DSLUICE_DMA_WANT="$major.$((minor + 1))" >"$tmp/next.log" 2>&1; then
	fail "find_package(sluice-dma $major.$((minor + 1))) accepted version $version"
fi
grep -q "sluice-dmaConfig.cmake, version: $version" "$tmp/next.log" ||
	{ cat "$tmp/next.log"; fail "no version mismatch reported for $major.$((minor + 1))"; }
echo "consumer-cmake: find_package(sluice-dma $major.$((minor + 1))) refused"
# (a 32-bit project needs gcc -m32: where it does not work, that step alone is left out)
if "$top/scripts/probe.sh" gcc-i386 >/dev/null; then
	if CFLAGS=-m32 cmake -S "$tmp/src" -B "$tmp/build-32" -DCMAKE_PREFIX_PATH="$stage$prefix" \
		-DSLUICE_DMA_WANT="$version" >"$tmp/32.log" 2>&1; then
		fail "a 32-bit project accepted the x86_64 archive"
	fi
	grep -q "version: $version (64-bit, x86_64)" "$tmp/32.log" ||
		{ cat "$tmp/32.log"; fail "no pointer-size mismatch reported"; }
	echo "consumer-cmake: a 32-bit project refused the x86_64 archive"
else
	echo "consumer-cmake: no 32-bit project tried: $("$top/scripts/probe.sh" gcc-i386)"
fi

# Vendoring: the documented sources, the documented include paths.
doc=$top/dma/PORTING.md
# (dma/bounce_*.c there stands for the policies' files, in the order of their list.)
policy_srcs=$(for p in $("$top/scripts/names.py" policies); do printf 'dma/bounce_%s.c ' "$p"; done)
policy_srcs=${policy_srcs% }
srcs=$(sed -n '/<!-- vendor-sources -->/,/<!-- \/vendor-sources -->/p' "$doc" |
	grep -o 'dma/[a-z_*]*\.c' | tr '\n' ' ' | sed 's/ $//')
srcs=${srcs/dma\/bounce_\*.c/$policy_srcs}
want=$(make -s -C "$top" print-DMA_SRCS)
[ "$srcs" = "$want" ] || fail "PORTING.md lists '$srcs', dma/build.mk has '$want'"
mkdir "$tmp/vendor"
cp -r "$top/dma" "$tmp/vendor/dma"
cd "$tmp/vendor"
objs=()
for src in $srcs; do
	obj=${src//\//_}.o
	${CC:-gcc} -std=gnu11 -O2 -Wall -Wextra -Werror -Wno-unused-parameter -ffreestanding \
		-fno-stack-protector -I. -Idma/include -c "$src" -o "$obj"
	objs+=("$obj")
done
ar rcs libvendored.a "${objs[@]}"
${CC:-gcc} -std=c11 -Wall -Wextra -Werror -pedantic -Idma/include \
	"$top/tests/consumer/consumer.c" libvendored.a -o consumer
./consumer
echo "consumer-cmake: vendored build of ${#objs[@]} sources: OK"
