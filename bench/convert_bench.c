/* SPDX-License-Identifier: MIT */
/*
 * convert_bench.c - conversion costs on scratch memory from the kernel heap.
 *
 * Three cases, each to shared and back: a 4 KiB page inside a 2 MiB mapping that
 * is still whole (the conversion splits it), a 4 KiB page of a mapping already
 * split, and a whole 2 MiB page (one entry, no split: the arena's case). A
 * conversion is the page-table change, the TLB invalidation and one trapping I/O
 * write (arch/x86_64/mm/mmu.c), so under KVM it also pays a VM exit.
 */
#include "bench/convert_bench.h"

#include <inttypes.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>

#include "arch/x86_64/cpu/cpu.h"
#include "arch/x86_64/mm/mmu.h"
#include "arch/x86_64/cpu/tsc.h"
#include "bench/result_json.h"
#include "boot/bench_suites.h"
#include "boot/options.h"

#define TWO_MIB (UINT64_C(2) << 20)

static void convert_print(const char *what, uint64_t size, const char *direction, uint64_t cycles,
			  unsigned int n, uint64_t splits)
{
	double per = (double)cycles / n;

	bench_json_begin(options_bench_names[BENCH_SUITE_CONVERT]);
	printf(",\"mode\":\"%s\",\"case\":\"%s\",\"size\":%" PRIu64
	       ",\"direction\":\"%s\",\"cycles_per_op\":%.0f,\"ns_per_op\":%.1f,\"ops\":%u,"
	       "\"splits\":%" PRIu64 ",\"conversions\":%u}\n",
	       bench_json_cc(), what, size, direction, per, tsc_to_ns((uint64_t)per) * 1.0, n,
	       splits, n);
}

/* Times @n round trips of [va, va + size); @fresh_split: use a new 2 MiB page
 * per round trip so that every to-shared conversion splits. */
static int convert_case(const char *what, uint8_t *base, uint64_t size, unsigned int n,
			bool fresh_split)
{
	uint64_t to = 0, back = 0, splits0, t0;
	struct mmu_stats ms;

	mmu_stats_get(&ms);
	splits0 = ms.splits;
	for (unsigned int i = 0; i < n; i++) {
		uint64_t va = (uint64_t)(uintptr_t)base + (fresh_split ? i * TWO_MIB : 0);

		t0 = rdtsc();
		if (mmu_set_shared(va, size, true))
			return -1;
		to += rdtsc() - t0;
		t0 = rdtsc();
		if (mmu_set_shared(va, size, false))
			return -1;
		back += rdtsc() - t0;
	}
	mmu_stats_get(&ms);
	convert_print(what, size, "to_shared", to, n, ms.splits - splits0);
	convert_print(what, size, "to_private", back, n, 0);
	return 0;
}

int convert_bench_run(unsigned int repeats)
{
	/* Fresh 2 MiB pages for the splitting case: as many as repeats, capped. */
	unsigned int fresh = repeats < 8 ? repeats : 8;
	uint8_t *scratch = memalign(TWO_MIB, (fresh + 1) * TWO_MIB);
	int rc = 0;

	if (!scratch) {
		printf("bench: convert: no 2 MiB-aligned scratch memory in the heap\n");
		return -1;
	}
	/* Touch it so the heap pages exist (they are identity-mapped RAM anyway). */
	for (unsigned int i = 0; i <= fresh; i++)
		scratch[i * TWO_MIB] = 0;
	rc |= convert_case("4k_split", scratch + TWO_MIB, 4096, fresh, true);
	rc |= convert_case("4k", scratch + TWO_MIB + 8192, 4096, repeats, false);
	rc |= convert_case("2m", scratch, TWO_MIB, repeats, false);
	free(scratch);
	if (rc)
		printf("bench: convert: a conversion failed\n");
	return rc ? -1 : 0;
}
