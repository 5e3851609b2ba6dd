#!/usr/bin/env bash
# test_check_layers.sh - the include check (scripts/check-layers.py) passes on the
# tree, and fails, naming the file and the line, on a copy of the tree with one
# planted include that points the wrong way: drivers/ including boot/, arch/
# including bench/, arch/ and dma/ including each other (quoted and as
# <sluice/...>), boot/ including tests/, firmware/ including boot/ or drivers/ and
# drivers/ including firmware/; inside arch/x86_64, a room including a higher
# room and a leaf header including anything of the project. A downward include (bench/ -> boot/) and
# an upward one under tests/ (not checked) leave it passing.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
check="$top/scripts/check-layers.py"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

python3 "$check" --root "$top" >"$tmp/tree.out" 2>&1 ||
	{ cat "$tmp/tree.out"; fail "the tree does not pass the check"; }
cat "$tmp/tree.out"

# A fresh copy of the checked folders (and tests/, to show it is exempt).
fresh() {
	rm -rf "$tmp/t"
	mkdir -p "$tmp/t"
	for d in arch dma drivers firmware boot bench tests; do cp -r "$top/$d" "$tmp/t/$d"; done
}

# plant FILE TEXT: append TEXT as a new last line of FILE in the copy; prints the
# line number it landed on.
plant() {
	printf '%s\n' "$2" >>"$tmp/t/$1"
	wc -l <"$tmp/t/$1" | tr -d ' '
}

# refused FILE TEXT WHY: the check fails on the planted line and names it.
refused() {
	local file=$1 text=$2 why=$3 line rc
	fresh
	line=$(plant "$file" "$text")
	python3 "$check" --root "$tmp/t" >"$tmp/out" 2>&1
	rc=$?
	[ "$rc" -eq 1 ] || { cat "$tmp/out"; fail "$why: the check returned $rc, expected 1"; }
	grep -qF "check-layers: $file:$line: includes " "$tmp/out" ||
		{ cat "$tmp/out"; fail "$why: the check did not name $file:$line"; }
	[ "$(grep -c '^check-layers: [a-z].*:[0-9]*: includes ' "$tmp/out")" -eq 1 ] ||
		{ cat "$tmp/out"; fail "$why: the check blamed more than the planted line"; }
	echo "refused ($why): $(grep -F "$file:$line" "$tmp/out")"
}

# passes FILE TEXT WHY: the check still passes with the planted line.
passes() {
	fresh
	plant "$1" "$2" >/dev/null
	python3 "$check" --root "$tmp/t" >"$tmp/out" 2>&1 ||
		{ cat "$tmp/out"; fail "$3: the check failed"; }
	echo "passes ($3)"
}

refused drivers/virtio/virtqueue.c '#include "boot/tasks.h"' "drivers/ -> boot/"
refused arch/x86_64/smp/smp.c '#include "bench/result_json.h"' "arch/ -> bench/"
refused boot/dma_setup.h '#include "bench/task_runners.h"' "boot/ -> bench/"
refused arch/x86_64/mm/mmu.h '#include "dma/bounce.h"' "arch/ -> dma/, quoted"
refused arch/x86_64/cpu/tsc.c '#include <sluice/dma.h>' "arch/ -> dma/, public header"
refused dma/map.c '#include "arch/x86_64/cpu/cpu.h"' "dma/ -> arch/"
refused dma/bounce.h '  #  include "drivers/deadline.h"' "dma/ -> drivers/, spaced"
refused boot/main.c '#include "tests/fake_pci.h"' "boot/ -> tests/"
refused firmware/iommu/iommu_port.c '#include "boot/dma_setup.h"' "firmware/ -> boot/"
refused firmware/iommu/iommu_setup.c '#include "drivers/deadline.h"' "firmware/ -> drivers/"
refused drivers/virtio/virtqueue.c '#include "firmware/iommu/iommu_port.h"' "drivers/ -> firmware/"
# Rooms inside arch/x86_64: cpu/ < fw/ < mm/ < smp/ < cc/, leaf headers from anywhere.
refused arch/x86_64/mm/mmu.c '#include "arch/x86_64/smp/smp.h"' "arch: mm/ -> smp/ (room above)"
refused arch/x86_64/cpu/trap.c '#include "arch/x86_64/cc/tdx.h"' "arch: cpu/ -> cc/ (room above)"
refused arch/x86_64/smp/smp.h '#include "arch/x86_64/cc/pvio_tdx.h"' "arch: smp/ -> cc/ (room above)"
refused arch/x86_64/smp/percpu.h '#include "arch/x86_64/cpu/cpu.h"' "arch: a leaf header includes a lower room"
refused arch/x86_64/smp/spinlock.h '#include "arch/x86_64/smp/lapic.h"' "arch: a leaf header includes its own room"
passes arch/x86_64/mm/mmu.c '#include "arch/x86_64/smp/percpu.h"' "arch: mm/ -> the leaf percpu.h"
passes arch/x86_64/cpu/cpu.c '#include "arch/x86_64/cc/pvio.h"' "arch: cpu/ -> the leaf pvio.h"
passes arch/x86_64/cc/cc_tdx.c '#include "arch/x86_64/mm/mmu.h"' "arch: cc/ -> mm/ points down"
passes firmware/iommu/iommu_port.c '#include "dma/bounce.h"' "firmware/ -> dma/ points down"
passes bench/tasks.c '#include "boot/dma_setup.h"' "bench/ -> boot/ points down"
passes tests/fake_pci.c '#include "bench/tasks.c"' "tests/ are not checked"
echo "test_check_layers: the tree passes; upward and arch/dma includes are named and refused"
