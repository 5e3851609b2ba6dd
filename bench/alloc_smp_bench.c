/* SPDX-License-Identifier: MIT */
/*
 * alloc_smp_bench.c - map/unmap pairs on several CPUs at once (see the header).
 *
 * Each CPU owns one 4 KiB buffer and loops sluice_dma_map + sluice_dma_unmap on it; nothing but
 * the DMA layer is shared. The window is smp_window.h's: CPU 0 keeps the clock,
 * each CPU measures its own window and its own lock counters.
 */
#include "bench/alloc_smp_bench.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch/x86_64/cpu/cpu.h"
#include "arch/x86_64/smp/smp.h"
#include "arch/x86_64/cpu/tsc.h"
#include "bench/smp_window.h"
#include "bench/result_json.h"
#include "boot/bench_suites.h"
#include "boot/options.h"

#define ALLOC_SIZE 4096u

struct alloc_job {
	void *buf;
	uint64_t ops;
	struct smp_window_cpu win;
	int rc;
} __attribute__((aligned(64)));

struct alloc_run {
	struct kernel_dma *kd;
	struct sluice_dma_layer *dl;
	struct smp_window win;
	struct alloc_job job[SMP_MAX_CPUS];
};

struct alloc_result {
	double ns_per_op, cycles_per_op, ops_per_s;
	double lock_wait_per_map, lock_contended_pct;
	uint64_t ops;
};

static void alloc_job_fn(void *arg, unsigned int cpu)
{
	static const struct sluice_dma_tag tag = SLUICE_DMA_TAG_DEFAULT;
	struct alloc_run *run = arg;
	struct alloc_job *job = &run->job[cpu];
	const struct kdma_cpu_stats *locks = &run->kd->cpu[cpu];
	int seen;

	smp_window_enter(&job->win);
	while ((seen = smp_window_step(&run->win, &job->win, cpu, locks)) != SMP_STOP) {
		uint64_t addr;

		/* Batches of 16 pairs between clock checks keep the check cheap. */
		for (int i = 0; i < 16; i++) {
			int rc = sluice_dma_map(run->dl, &tag, job->buf, ALLOC_SIZE,
						SLUICE_DMA_TO_DEVICE, &addr);

			if (rc) {
				job->rc = rc;
				smp_window_abort(&run->win, cpu);
				return;
			}
			sluice_dma_unmap(run->dl, addr, ALLOC_SIZE, SLUICE_DMA_TO_DEVICE);
			if (seen == SMP_MEASURE)
				job->ops++;
		}
	}
}

static int alloc_run_once(struct alloc_run *run, const struct kdma_config *cfg, unsigned int ncpus,
			  unsigned int run_ms, struct alloc_result *out)
{
	uint64_t hz = tsc_hz(), wait = 0, contended = 0, acquires = 0, cycles = 0;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	smp_window_reset(&run->win, hz / 1000 * run_ms / 5, hz / 1000 * run_ms);
	for (unsigned int c = 0; c < ncpus; c++) {
		memset(&run->job[c], 0, sizeof(run->job[c]));
		run->job[c].buf = kernel_dma_buf_alloc(run->kd, cfg->mode, ALLOC_SIZE);
		if (!run->job[c].buf)
			rc = -1;
		else
			memset(run->job[c].buf, (int)c, ALLOC_SIZE);
	}
	if (!rc)
		smp_run(ncpus, alloc_job_fn, run);
	for (unsigned int c = 0; c < ncpus && !rc; c++) {
		struct alloc_job *job = &run->job[c];
		uint64_t window = job->win.t_end - job->win.t_begin;

		if (job->rc) {
			printf("bench: alloc mode=%s cpu %u: sluice_dma_map failed (%d)\n",
			       kernel_dma_config_name(cfg), c, job->rc);
			rc = -1;
			break;
		}
		out->ops += job->ops;
		out->ops_per_s += window ? job->ops / (tsc_to_ns(window) / 1e9) : 0;
		cycles += window;
		wait += job->win.lock1.wait_cycles - job->win.lock0.wait_cycles;
		contended += job->win.lock1.contended - job->win.lock0.contended;
		acquires += job->win.lock1.acquires - job->win.lock0.acquires;
	}
	if (!rc && out->ops) {
		/* Per pair as one CPU sees it: its window over its own pairs, averaged. */
		out->cycles_per_op = (double)cycles / out->ops;
		out->ns_per_op = out->cycles_per_op * 1e9 / (double)hz;
		out->lock_wait_per_map = (double)wait / out->ops;
		out->lock_contended_pct = acquires ? 100.0 * contended / acquires : 0;
	} else if (!rc) {
		rc = -1;
	}
	for (unsigned int c = 0; c < ncpus; c++)
		kernel_dma_buf_free(run->kd, cfg->mode, run->job[c].buf);
	return rc;
}

static void alloc_print(struct kernel_dma *kd, const struct kdma_config *cfg, unsigned int threads,
			const struct alloc_result *r, double scaling)
{
	const char *policy = kernel_dma_policy_json(cfg);
	unsigned int areas = kernel_dma_areas(kd, cfg);

	printf("bench: alloc mode=%s 4 KiB map+unmap on %u CPU%s: %.0f ns per pair, %.0f pairs/s "
	       "in all, DMA lock %.2f%% contended, %.1f wait cycles per map",
	       kernel_dma_config_name(cfg), threads, threads == 1 ? "" : "s", r->ns_per_op,
	       r->ops_per_s, r->lock_contended_pct, r->lock_wait_per_map);
	if (scaling > 0)
		printf(", scaling %.2f", scaling);
	printf("\n");
	bench_json_begin(options_bench_names[BENCH_SUITE_ALLOC]);
	printf(",\"mode\":\"%s\",\"policy\":%s,\"size\":%u,\"threads\":%u,"
	       "\"copy\":%s,\"ns_per_op\":%.1f,\"cycles_per_op\":%.0f,\"ops_per_s\":%.0f,"
	       "\"lock_wait_cycles_per_map\":%.1f,\"lock_contended_pct\":%.3f,\"ops\":%" PRIu64,
	       kernel_dma_mode_name(cfg->mode), policy, ALLOC_SIZE, threads,
	       cfg->mode == KDMA_BOUNCE ? "true" : "false", r->ns_per_op, r->cycles_per_op,
	       r->ops_per_s, r->lock_wait_per_map, r->lock_contended_pct, r->ops);
	if (scaling > 0)
		printf(",\"scaling\":%.3f", scaling);
	if (areas)
		printf(",\"areas\":%u", areas);
	printf("}\n");
}

int alloc_smp_bench_suite(struct kernel_dma *kd, uint64_t modes, unsigned int run_ms)
{
	static struct alloc_run run;
	struct kdma_config cfgs[KDMA_MAX_CONFIGS];
	int ncfg = kernel_dma_configs(kd, modes, cfgs), failures = 0;
	unsigned int ncpus = smp_cpu_count();

	for (int c = 0; c < ncfg; c++) {
		struct alloc_result one, many;

		if (cfgs[c].mode == KDMA_DIRECT)
			continue; /* in place: no allocator to measure */
		run.kd = kd;
		run.dl = kernel_dma_layer(kd, &cfgs[c]);
		if (alloc_run_once(&run, &cfgs[c], 1, run_ms, &one)) {
			failures++;
			continue;
		}
		alloc_print(kd, &cfgs[c], 1, &one, 0);
		if (ncpus < 2)
			continue;
		if (alloc_run_once(&run, &cfgs[c], ncpus, run_ms, &many)) {
			failures++;
			continue;
		}
		alloc_print(kd, &cfgs[c], ncpus, &many,
			    one.ops_per_s > 0 ? many.ops_per_s / one.ops_per_s : 0);
	}
	return failures;
}
