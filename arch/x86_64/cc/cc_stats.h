/* SPDX-License-Identifier: MIT */
/*
 * cc_stats.h - what a CC protocol did, for the boot report and the benchmarks:
 * one struct for every platform (the TDX and SNP protocols count into it,
 * each the fields of its own protocol; the rest stay 0).
 */
#ifndef SLUICE_ARCH_CC_STATS_H
#define SLUICE_ARCH_CC_STATS_H

#include <stdint.h>

/**
 * struct cc_stats - a protocol's counters.
 * @to_shared: conversions to shared completed.
 * @to_private: conversions to private completed.
 * @failed: conversions that failed.
 * @rolled_back: of those, ranges brought back to their state before the call.
 * @leaked_pages: 4 KiB pages of failed conversions that could not be rolled
 *	back: in no known state; never to be used again.
 * @size_fallbacks: 2 MiB accepts (TDX) or PVALIDATEs (SNP) refused for size
 *	and redone as 4 KiB.
 * @map_gpa_calls: TDX: MapGPA hypercalls made.
 * @map_gpa_retries: TDX: of those, "retry" answers (partial completions).
 * @accept_calls: TDX: TDG.MEM.PAGE.ACCEPT calls made.
 * @accepted_4k: TDX: 4 KiB pages accepted one by one.
 * @accepted_2m: TDX: 2 MiB pages accepted whole.
 * @busy_retries: TDX: accepts answered "busy" and retried.
 * @psc_requests: SNP: Page State Change VMGEXITs (GHCB and MSR protocol).
 * @psc_msr: SNP: of those, MSR-protocol requests (one 4 KiB page each).
 * @psc_batches: SNP: PSC descriptors built (at most SNP_PSC_MAX_ENTRIES entries).
 * @psc_early_returns: SNP: GHCB PSC exits that came back with entries left.
 * @pages_validated: SNP: 4 KiB pages whose Validated bit PVALIDATE set.
 * @pages_rescinded: SNP: 4 KiB pages whose Validated bit it cleared.
 * @pvalidate_2m: SNP: PVALIDATEs of a whole 2 MiB page that succeeded.
 * @pages_evicted: SNP: 4 KiB pages validated and then evicted from the cache
 *	(the cache-coherency mitigation; 0 when CPUID 0x8000001F EBX[31] says it
 *	is not needed).
 */
struct cc_stats {
	uint64_t to_shared, to_private, failed, rolled_back, leaked_pages;
	uint64_t size_fallbacks;
	uint64_t map_gpa_calls, map_gpa_retries;
	uint64_t accept_calls, accepted_4k, accepted_2m, busy_retries;
	uint64_t psc_requests, psc_msr, psc_batches, psc_early_returns;
	uint64_t pages_validated, pages_rescinded, pvalidate_2m;
	uint64_t pages_evicted;
};

#endif /* SLUICE_ARCH_CC_STATS_H */
