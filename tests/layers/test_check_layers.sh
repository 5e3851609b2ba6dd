#!/usr/bin/env bash
# test_check_layers.sh - the include check (scripts/check-layers.py) passes on the
# tree, and fails, naming the file and the line, on a copy of the tree with one
# planted include that points the wrong way: drivers/ including kernel/, arch/
# including bench/, boot/ including kernel/, kernel/ including bench/ or app/,
# bench/ including app/, arch/ and dma/ including each other (quoted and as
# <sluice/...>), kernel/ including tests/, firmware/ including kernel/ or drivers/
# and drivers/ including firmware/; inside arch/x86_64, a room including a higher
# room and a leaf header including anything of the project. Downward includes
# (app/ -> bench/, bench/ -> kernel/, kernel/ -> boot/) and upward ones under
# tests/ and bench/host/ (host programs, not checked) leave it passing.
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
	for d in arch dma drivers firmware boot kernel bench app tests; do cp -r "$top/$d" "$tmp/t/$d"; done
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

refused drivers/virtio/virtqueue.c '#include "kernel/tasks.h"' "drivers/ -> kernel/"
refused arch/x86_64/smp/smp.c '#include "bench/result_json.h"' "arch/ -> bench/"
refused boot/efi_entry.c '#include "kernel/dma_setup.h"' "boot/ -> kernel/"
refused boot/boot_info.h '#include "kernel/tasks.h"' "boot/ -> kernel/, header"
refused kernel/dma_setup.h '#include "app/task_runners.h"' "kernel/ -> app/"
refused kernel/main.c '#include "bench/blk_bench.h"' "kernel/ -> bench/"
refused bench/blk_bench.c '#include "app/blk_check.h"' "bench/ -> app/"
refused arch/x86_64/mm/mmu.h '#include "dma/bounce.h"' "arch/ -> dma/, quoted"
refused arch/x86_64/cpu/tsc.c '#include <sluice/dma.h>' "arch/ -> dma/, public header"
refused dma/map.c '#include "arch/x86_64/cpu/cpu.h"' "dma/ -> arch/"
refused dma/bounce.h '  #  include "drivers/deadline.h"' "dma/ -> drivers/, spaced"
refused kernel/main.c '#include "tests/fakes/fake_pci.h"' "kernel/ -> tests/"
refused bench/net_bench.c '#include "tests/fakes/mock_port.h"' "bench/ (not bench/host/) -> tests/"
refused firmware/iommu/iommu_port.c '#include "kernel/dma_setup.h"' "firmware/ -> kernel/"
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
passes app/tasks.c '#include "bench/blk_bench.h"' "app/ -> bench/ points down"
passes bench/blk_bench.c '#include "kernel/dma_setup.h"' "bench/ -> kernel/ points down"
passes kernel/main.c '#include "boot/memmap.h"' "kernel/ -> boot/ points down"
passes tests/fakes/fake_pci.c '#include "app/tasks.c"' "tests/ are not checked"
passes bench/host/bench_alloc.c '#include "app/tasks.h"' "bench/host/ (a host program) is not checked"
echo "test_check_layers: the tree passes; upward and arch/dma includes are named and refused"
