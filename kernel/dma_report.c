/* SPDX-License-Identifier: MIT */
/*
 * dma_report.c - what the kernel's DMA set-up says: the boot report's dma:
 * lines, the arena's release between tasks, and the figures benchmark output
 * takes from it (policy, areas, lock statistics).
 */
#include "kernel/dma_setup.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "arch/x86_64/mm/mmu.h"

/* The bounce copy and clear installed and why: every candidate's 4 KiB copy
 * and clear as timed at start-up (memops_choose()), in one line; "-" for a
 * candidate this CPU cannot run. */
static void kernel_dma_report_copy(const struct kernel_dma *kd)
{
	const struct memops_timing *t = &kd->memops_timing;

	printf("dma: bounce copy %s, clear %s, chosen by timing (ERMS %s, FSRM %s; cycles per "
	       "%u-byte copy + clear, each with the %u adds after it, least of %u:",
	       kd->copy_name, kd->zero_name, kd->erms ? "yes" : "no", kd->fsrm ? "yes" : "no",
	       MEMOPS_TIMED_LEN, MEMOPS_WORK_ADDS, t->runs);
	memops_print_candidates(t);
	printf(")\n");
}

void kernel_dma_report(struct kernel_dma *kd)
{
	struct sluice_dma_arena_stats as;
	struct mmu_stats ms;

	for (int p = 0; p < SLUICE_DMA_POLICY_COUNT; p++) {
		struct sluice_dma_bounce_stats bs;

		if (!(kd->policies & (UINT64_C(1) << p)))
			continue;
		sluice_dma_bounce_stats_get(&kd->bounce[p], -1, &bs);
		printf("dma: bounce pool 0x%010" PRIx64 " %" PRIu64 " KiB, %" PRIu64
		       " slots of 2 KiB in %" PRIu64
		       " area%s, policy %s, scrub %s, largest mapping "
		       "%zu KiB\n",
		       kd->pool_base[p], kd->pool_bytes >> 10, bs.nslabs, bs.nareas,
		       bs.nareas == 1 ? "" : "s",
		       sluice_dma_bounce_policy_name((enum sluice_dma_bounce_policy)p),
		       kd->bounce[p].scrub == SLUICE_DMA_SCRUB_COPY   ? "copy" :
		       kd->read_attrs & SLUICE_DMA_ATTR_UNMAP_WRITTEN ? "written" :
									"zero",
		       sluice_dma_max_mapping_size(&kd->bounce[p], &SLUICE_DMA_TAG_DEFAULT) >> 10);
	}
	sluice_dma_arena_stats_get(&kd->arena, &as);
	mmu_stats_get(&ms);
	printf("dma: coherent pools of the direct and arena modes: 2 x %" PRIu64 " KiB\n",
	       KDMA_COHERENT_POOL_BYTES >> 10);
	printf("dma: arena 0x%010" PRIx64 " %" PRIu64 " KiB = %" PRIu64 " chunks of 2 MiB, %" PRIu64
	       " shared now, converted lazily\n",
	       kd->arena_base, kd->arena_bytes >> 10, (uint64_t)as.nchunks,
	       (uint64_t)as.chunks_shared);
	printf("dma: conversions so far: %" PRIu64 " to shared (%" PRIu64 " cycles), %" PRIu64
	       " to private (%" PRIu64 " cycles), %" PRIu64 " 2 MiB splits\n",
	       ms.to_shared_calls, ms.to_shared_cycles, ms.to_private_calls, ms.to_private_cycles,
	       ms.splits);
	kernel_dma_report_copy(kd);
	printf("dma: per-CPU slot caches %s\n", (kd->ops.flags & SLUICE_DMA_PORT_CPU_EXCLUSIVE) ?
							"without locks (exclusive CPUs)" :
							"locked");
	printf("dma: built for %u CPU%s (per-CPU caches and areas)\n", kd->ncpus,
	       kd->ncpus == 1 ? "" : "s");
	for (unsigned int c = 1; c < SMP_MAX_CPUS; c++)
		if (kd->cpu[c].log_dropped)
			printf("dma: cpu %u had %" PRIu64
			       " message%s it could not print; last: %s\n",
			       c, kd->cpu[c].log_dropped, kd->cpu[c].log_dropped == 1 ? "" : "s",
			       kd->cpu[c].last_log);
}

void kernel_dma_arena_release(struct kernel_dma *kd, const char *label)
{
	struct sluice_dma_arena_stats st;
	unsigned int released = sluice_dma_arena_reclaim(&kd->arena, 0);

	sluice_dma_arena_stats_get(&kd->arena, &st);
	printf("dma: arena after %s: %u idle chunks released to private, %u shared now, %u "
	       "leaked (conversion back failed %" PRIu64 " times), %" PRIu64 " conversions to "
	       "shared so far\n",
	       label, released, st.chunks_shared, st.chunks_leaked, st.to_private_failed,
	       st.to_shared);
}

const char *kernel_dma_policy_json(const struct kdma_config *cfg)
{
	static const char *const quoted[SLUICE_DMA_POLICY_COUNT] = {
#define KDMA_POLICY_JSON_(upper, lower) [SLUICE_DMA_POLICY_##upper] = "\"" #lower "\"",
		SLUICE_DMA_POLICIES(KDMA_POLICY_JSON_)
#undef KDMA_POLICY_JSON_
	};

	if (cfg->mode != KDMA_BOUNCE || (unsigned int)cfg->policy >= SLUICE_DMA_POLICY_COUNT)
		return "null";
	return quoted[cfg->policy];
}

unsigned int kernel_dma_areas(struct kernel_dma *kd, const struct kdma_config *cfg)
{
	struct sluice_dma_bounce_stats bs;

	if (cfg->mode != KDMA_BOUNCE ||
	    sluice_dma_bounce_stats_get(kernel_dma_layer(kd, cfg), -1, &bs))
		return 0;
	return (unsigned int)bs.nareas;
}

void kernel_dma_lock_stats_get(const struct kernel_dma *kd, struct kdma_cpu_stats *out)
{
	memset(out, 0, sizeof(*out));
	for (unsigned int i = 0; i < SMP_MAX_CPUS; i++) {
		out->acquires += kd->cpu[i].acquires;
		out->contended += kd->cpu[i].contended;
		out->wait_cycles += kd->cpu[i].wait_cycles;
		out->log_dropped += kd->cpu[i].log_dropped;
	}
}

void kernel_dma_lock_stats_reset(struct kernel_dma *kd)
{
	for (unsigned int i = 0; i < SMP_MAX_CPUS; i++) {
		kd->cpu[i].acquires = 0;
		kd->cpu[i].contended = 0;
		kd->cpu[i].wait_cycles = 0;
	}
}
