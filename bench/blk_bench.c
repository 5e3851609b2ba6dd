/* SPDX-License-Identifier: MIT */
/*
 * blk_bench.c - fio-like block workloads with a cycle breakdown per I/O.
 *
 * Every completed request is resubmitted at once (closed loop, fixed queue
 * depth). Sequential jobs walk the disk and wrap; random jobs pick bs-aligned
 * offsets with xorshift. Time splits three ways per I/O: in the DMA layer (the
 * driver times its map/unmap calls), elsewhere in submit and completion (driver,
 * virtqueue), and polling with nothing to reap (waiting for the device).
 */
#include "bench/blk_bench.h"
#include "bench/rounds.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch/x86_64/cpu/cpu.h"
#include "arch/x86_64/mm/mmu.h"
#include "arch/x86_64/cpu/tsc.h"
#include "bench/bench_common.h"
#include "bench/dma_stages.h"
#include "bench/iotlb.h"
#include "drivers/deadline.h"
#include "bench/result_json.h"
#include "boot/bench_suites.h"
#include "boot/options.h"

#define BLK_BENCH_MAX_SAMPLES 65536

struct bench_slot {
	void *buf;
	uint64_t t_submit;
	unsigned int queue;
};

/*
 * struct bench_state - one run of one workload.
 * @slots: one per request of the queue depth; @pending: those that found no room.
 * @win: warm-up and measured window; the counters below count inside it only.
 * @dma0, @copy0, @bs0, @ms0: DMA-layer counters when the window opened.
 * @dma, @copy, @bs1, @ms1: the same when it closed (@dma, @copy: the cycles inside
 *	it; the drain after the window is not counted).
 */
struct bench_state {
	struct virtio_blk *blk;
	struct sluice_dma_layer *dl;
	const struct blk_workload *w;
	struct bench_slot *slots, **pending;
	unsigned int npending;
	bool write, random;
	uint64_t nblocks, next_block, rng;
	struct bench_window win;
	uint64_t t_end;
	uint64_t ios, errors;
	uint32_t *lat; /* cycles, first BLK_BENCH_MAX_SAMPLES of the window */
	uint64_t nlat, lat_sum;
	uint64_t cycles_busy; /* submit + completion handling */
	uint64_t dma0, dma, copy0, copy;
	struct dma_stages_window stages;
	struct sluice_dma_bounce_stats bs0, bs1;
	struct mmu_stats ms0, ms1;
};

static uint64_t bench_next_sector(struct bench_state *st)
{
	uint64_t block;

	if (st->random) {
		/* xorshift64: cheap, and no two runs need the same sequence. */
		st->rng ^= st->rng << 13;
		st->rng ^= st->rng >> 7;
		st->rng ^= st->rng << 17;
		block = st->rng % st->nblocks;
	} else {
		block = st->next_block++;
		if (st->next_block == st->nblocks)
			st->next_block = 0;
	}
	return block * (st->w->bs / VIRTIO_BLK_SECTOR);
}

static int bench_submit(struct bench_state *st, struct bench_slot *s)
{
	enum virtio_blk_op op = st->write ? VIRTIO_BLK_OP_WRITE : VIRTIO_BLK_OP_READ;
	uint64_t sector = bench_next_sector(st);
	int rc;

	for (;;) {
		uint64_t t0 = rdtsc();

		rc = virtio_blk_submit(st->blk, s->queue, op, sector, s->buf, st->w->bs, s);
		st->cycles_busy += rdtsc() - t0;
		if (rc != -16)
			break;
		/* Queue or bounce pool full: reap something first. */
		for (unsigned int q = 0; q < st->blk->nqueues; q++)
			virtio_blk_kick(st->blk, q);
		return rc;
	}
	s->t_submit = rdtsc();
	return rc;
}

/* The device's view of each I/O, fed to the IOTLB model while measuring. */
static struct iotlb bench_iotlb;

static void bench_trace(void *ctx, uint64_t dma_addr, uint32_t len)
{
	(void)ctx;
	iotlb_access(&bench_iotlb, dma_addr, len);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Waits, at most the device deadline after the last completion, for every
 * request in flight; then stops the device if some are still out. Returns 0
 * when the queues drained, -1 otherwise (the reason printed).
 */
static int blk_bench_drain(struct virtio_blk *blk, const struct blk_workload *w)
{
	struct virtio_blk_completion c[64];
	struct deadline d;
	unsigned int inflight = 0;
	int rc = 0;

	deadline_start(&d, 0);
	for (;;) {
		int done = 0;

		inflight = 0;
		for (unsigned int q = 0; q < blk->nqueues && !rc; q++) {
			int n;

			virtio_blk_kick(blk, q);
			n = virtio_blk_poll(blk, q, c, 64);
			if (n < 0)
				rc = n;
			else
				done += n;
			inflight += virtio_blk_inflight(blk, q);
		}
		if (!inflight)
			return 0;
		if (done)
			deadline_start(&d, 0);
		else if (rc || deadline_passed(&d))
			break;
	}
	printf("bench: blk %s bs=%u iodepth=%u: %u requests %s; device stopped%s\n", w->rw, w->bs,
	       w->iodepth, inflight,
	       rc ? "lost to a broken queue" : "not completed within the device deadline",
	       virtio_blk_stop(blk) ? " but it did not reset: buffers quarantined" : "");
	return -1;
}

/* Buffers, the random sequence and the IOTLB model of one run; 0 or -1 (printed). */
static int blk_bench_setup(struct bench_state *st, struct virtio_blk *blk, struct kernel_dma *kd,
			   const struct kdma_config *cfg, const struct blk_workload *w,
			   const struct blk_bench_iotlb *iotlb)
{
	memset(st, 0, sizeof(*st));
	st->blk = blk;
	st->dl = kernel_dma_layer(kd, cfg);
	st->w = w;
	st->write = !strcmp(w->rw, "write") || !strcmp(w->rw, "randwrite");
	st->random = !strncmp(w->rw, "rand", 4);
	st->nblocks = blk->capacity * VIRTIO_BLK_SECTOR / w->bs;
	st->rng = 0x9e3779b97f4a7c15ull ^ (w->bs * 31 + w->iodepth);
	st->slots = calloc(w->iodepth, sizeof(*st->slots));
	st->pending = calloc(w->iodepth, sizeof(*st->pending));
	st->lat = malloc(BLK_BENCH_MAX_SAMPLES * sizeof(*st->lat));
	if (!st->slots || !st->pending || !st->lat || !st->nblocks) {
		printf("bench: blk %s bs=%u iodepth=%u: no memory or disk too small\n", w->rw,
		       w->bs, w->iodepth);
		return -1;
	}
	for (unsigned int i = 0; i < w->iodepth; i++) {
		st->slots[i].queue = i % blk->nqueues;
		st->slots[i].buf = kernel_dma_buf_alloc(kd, cfg->mode, w->bs);
		if (!st->slots[i].buf) {
			printf("bench: blk %s bs=%u iodepth=%u: cannot allocate buffers\n", w->rw,
			       w->bs, w->iodepth);
			return -1;
		}
		/* Written data is whatever the buffer holds; fill it once. */
		memset(st->slots[i].buf, 0xa5, w->bs);
	}

	/* The arena's buffers sit in 2 MiB shared pages an IOMMU would map with one
	 * PMD-sized entry each (the DMA_PMD RFC); every other mode uses 4 KiB pages. */
	if (iotlb_init(&bench_iotlb, iotlb->entries, iotlb->ways,
		       cfg->mode == KDMA_ARENA ? 21 : 12)) {
		printf("bench: bad IOTLB geometry %u entries, %u ways\n", iotlb->entries,
		       iotlb->ways);
		return -1;
	}
	return 0;
}

/* Warm-up over: start the window from clean counters. */
static void blk_bench_window_open(struct bench_state *st)
{
	struct virtio_blk_stats bst;

	st->cycles_busy = 0;
	virtio_blk_stats_get(st->blk, &bst);
	st->dma0 = bst.cycles_dma;
	st->copy0 = sluice_dma_layer_copy_cycles(st->dl);
	sluice_dma_bounce_stats_get(st->dl, -1, &st->bs0);
	mmu_stats_get(&st->ms0);
	st->blk->trace = bench_trace;
	dma_stages_start();
}

static void blk_bench_window_close(struct bench_state *st)
{
	struct virtio_blk_stats bst;

	st->t_end = rdtsc();
	dma_stages_stop(&st->stages);
	st->blk->trace = NULL;
	virtio_blk_stats_get(st->blk, &bst);
	st->dma = bst.cycles_dma - st->dma0;
	st->copy = sluice_dma_layer_copy_cycles(st->dl) - st->copy0;
	sluice_dma_bounce_stats_get(st->dl, -1, &st->bs1);
	mmu_stats_get(&st->ms1);
}

/*
 * Whether the window is over: it lasts run_ms and at least one turnover of the
 * queue (a short window at a deep queue would otherwise count nothing), bounded by
 * the device deadline (bench_window_over()).
 */
static bool blk_bench_window_over(struct bench_state *st, uint64_t now)
{
	switch (bench_window_tick(&st->win, now)) {
	case BENCH_BEGIN:
		blk_bench_window_open(st);
		return false;
	case BENCH_DONE:
		return bench_window_over(&st->win, now, st->ios, st->w->iodepth);
	default:
		return false;
	}
}

/* Count @got completions, resubmit their slots, retry those that found no room. */
static void blk_bench_reap(struct bench_state *st, const struct virtio_blk_completion *c, int got)
{
	for (int i = 0; i < got; i++) {
		struct bench_slot *s = c[i].cookie;
		uint64_t lat = rdtsc() - s->t_submit;

		if (st->win.measuring) {
			st->ios++;
			if (c[i].status)
				st->errors++;
			st->lat_sum += lat;
			if (st->nlat < BLK_BENCH_MAX_SAMPLES)
				st->lat[st->nlat++] = lat > UINT32_MAX ? UINT32_MAX : (uint32_t)lat;
		}
		if (bench_submit(st, s))
			st->pending[st->npending++] = s;
	}
	/* Requests that found no room earlier get another try now. */
	for (unsigned int i = 0; i < st->npending;) {
		if (!bench_submit(st, st->pending[i]))
			st->pending[i] = st->pending[--st->npending];
		else
			i++;
	}
}

/* The closed loop, warm-up and window; 0, or the error of a broken queue (printed). */
static int blk_bench_loop(struct bench_state *st, unsigned int warmup_ms, unsigned int run_ms)
{
	struct virtio_blk *blk = st->blk;
	const struct blk_workload *w = st->w;
	int rc = 0;

	bench_window_start(&st->win, warmup_ms, run_ms);
	for (unsigned int i = 0; i < w->iodepth; i++)
		if (bench_submit(st, &st->slots[i]))
			st->pending[st->npending++] = &st->slots[i];
	for (;;) {
		struct virtio_blk_completion c[64];
		uint64_t t0;
		int got = 0;

		if (blk_bench_window_over(st, rdtsc()))
			break;
		for (unsigned int q = 0; q < blk->nqueues; q++)
			virtio_blk_kick(blk, q);
		t0 = rdtsc();
		for (unsigned int q = 0; q < blk->nqueues && !rc; q++) {
			int n = virtio_blk_poll(blk, q, c + got, (int)(64 / blk->nqueues));

			if (n < 0)
				rc = n; /* a broken queue: nothing more will complete */
			else
				got += n;
		}
		if (rc) {
			printf("bench: blk %s bs=%u iodepth=%u: the device broke its queue (%d)\n",
			       w->rw, w->bs, w->iodepth, rc);
			break;
		}
		if (!got)
			continue;
		st->cycles_busy += rdtsc() - t0;
		blk_bench_reap(st, c, got);
	}
	blk_bench_window_close(st);
	return rc;
}

/* The figures of the window, per I/O. */
static void blk_bench_results(struct bench_state *st, struct blk_result *out)
{
	uint64_t wall = st->t_end - st->win.t_measure;

	out->ios = st->ios;
	out->errors = st->errors;
	out->seconds = tsc_to_ns(wall) / 1e9;
	out->iops = out->seconds > 0 ? st->ios / out->seconds : 0;
	out->io.rate = out->iops;
	out->bw_mbps = out->iops * st->w->bs / 1e6;
	if (st->ios) {
		double ns_per_cycle = 1e9 / (double)st->win.hz;
		uint64_t dma = st->dma, conv;

		conv = (st->ms1.to_shared_cycles + st->ms1.to_private_cycles) -
		       (st->ms0.to_shared_cycles + st->ms0.to_private_cycles);

		qsort(st->lat, st->nlat, sizeof(*st->lat), cmp_u32);
		out->lat_mean_us = (double)st->lat_sum / st->ios * ns_per_cycle / 1e3;
		out->lat_p50_us = st->lat[st->nlat / 2] * ns_per_cycle / 1e3;
		out->lat_p99_us = st->lat[(st->nlat * 99) / 100] * ns_per_cycle / 1e3;
		/* The copy happens inside the map/unmap calls the driver timed. */
		out->cycles_copy = (double)st->copy / st->ios;
		out->cycles_map = (double)(dma > st->copy ? dma - st->copy : 0) / st->ios;
		out->cycles_convert = (double)conv / st->ios;
		out->cycles_driver =
			(double)(st->cycles_busy > dma ? st->cycles_busy - dma : 0) / st->ios;
		out->cycles_device =
			(double)(wall > st->cycles_busy ? wall - st->cycles_busy : 0) / st->ios;
		out->io.cycles_dma = (double)dma / st->ios;
		out->io.cycles_io = (double)wall / st->ios;
		out->stages = dma_stages_built();
		dma_stages_per_io(&st->stages, st->ios, out->stage);
	}
	out->conversions = (st->ms1.to_shared_calls + st->ms1.to_private_calls) -
			   (st->ms0.to_shared_calls + st->ms0.to_private_calls);
	out->bounced_bytes = (st->bs1.bytes_to_device + st->bs1.bytes_from_device) -
			     (st->bs0.bytes_to_device + st->bs0.bytes_from_device);
	out->iotlb_granule = UINT64_C(1) << bench_iotlb.granule_shift;
	out->iotlb_lookups = bench_iotlb.lookups;
	out->iotlb_misses = bench_iotlb.misses;
}

static void blk_bench_free(struct bench_state *st, struct kernel_dma *kd,
			   const struct kdma_config *cfg)
{
	if (st->slots)
		for (unsigned int i = 0; i < st->w->iodepth; i++)
			kernel_dma_buf_free(kd, cfg->mode, st->slots[i].buf);
	free(st->slots);
	free(st->pending);
	free(st->lat);
}

int blk_bench_run(struct virtio_blk *blk, struct kernel_dma *kd, const struct kdma_config *cfg,
		  const struct blk_workload *w, unsigned int warmup_ms, unsigned int run_ms,
		  const struct blk_bench_iotlb *iotlb, struct blk_result *out)
{
	struct bench_state st;
	int rc;

	memset(out, 0, sizeof(*out));
	if (blk_bench_setup(&st, blk, kd, cfg, w, iotlb)) {
		blk_bench_free(&st, kd, cfg);
		return -1;
	}
	blk->profile = true;
	sluice_dma_layer_set_profile(st.dl, true);
	rc = blk_bench_loop(&st, warmup_ms, run_ms);

	/* Let what is in flight finish before the buffers go; a device that stops
	 * answering is stopped, and if it will not reset the buffers stay its own. */
	if (blk_bench_drain(blk, w) && !rc)
		rc = -1;
	if (blk->quarantined) {
		free(st.slots);
		st.slots = NULL; /* the device may still write the buffers: never freed */
	}
	blk->profile = false;
	sluice_dma_layer_set_profile(st.dl, false);

	blk_bench_results(&st, out);
	blk_bench_free(&st, kd, cfg);
	return rc;
}

/* The DMA cycles a bounce line adds per I/O over direct in the same boot, and,
 * with bounce/linux in the boot adding any, that figure over linux's: the guest
 * form of issue 27's target (bounce/sluice's <= 0.5x bounce/linux's). */
static void blk_bench_print_over_direct(const struct bench_over *ov)
{
	if (!ov || !ov->have)
		return;
	printf(",\"dma_over_direct\":%.0f", ov->over);
	if (ov->have_linux)
		printf(",\"dma_over_direct_vs_linux\":%.3f,\"copy_floor_vs_linux\":%.3f",
		       ov->vs_linux, ov->copy_floor);
}

/* The stage markers' totals per I/O (bench-only image, `make image-stages`), in
 * dma/stage.h's order. */
static void blk_bench_print_stages(const double *st)
{
	printf(",\"cycles_stage_args\":%.1f,\"cycles_stage_tag\":%.1f,"
	       "\"cycles_stage_pool\":%.1f,\"cycles_stage_slot\":%.1f,"
	       "\"cycles_stage_record\":%.1f,\"cycles_stage_copy\":%.1f,"
	       "\"cycles_stage_cache\":%.1f,\"cycles_stage_stats\":%.1f,"
	       "\"cycles_stage_lookup\":%.1f,\"cycles_stage_copy_back\":%.1f,"
	       "\"cycles_stage_release\":%.1f",
	       st[DMA_STAGE_ARGS], st[DMA_STAGE_TAG], st[DMA_STAGE_POOL], st[DMA_STAGE_SLOT],
	       st[DMA_STAGE_RECORD], st[DMA_STAGE_COPY], st[DMA_STAGE_CACHE], st[DMA_STAGE_STATS],
	       st[DMA_STAGE_LOOKUP], st[DMA_STAGE_COPY_BACK], st[DMA_STAGE_RELEASE]);
}

/* One result as a JSON line of the contract (docs/BENCHMARKS.md): @r the line's
 * median round, @direct and @base_linux those of direct and bounce/linux (NULL:
 * none ran) for "ratio_direct", "ratio_linux" and "dma_tax_pct_linux", @ov the
 * medians over the rounds of what it adds over direct (NULL: none). */
static void blk_bench_print(const struct kdma_config *cfg, const struct blk_workload *w,
			    unsigned int queues, unsigned int rounds, const struct blk_result *r,
			    const struct blk_result *direct, const struct blk_result *base_linux,
			    const struct bench_over *ov)
{
	const char *policy = kernel_dma_policy_json(cfg);

	bench_json_begin(options_bench_names[BENCH_SUITE_BLK]);
	printf(",\"mode\":\"%s\",\"policy\":%s,\"rw\":\"%s\",\"bs\":%u,"
	       "\"iodepth\":%u,\"threads\":1,\"queues\":%u,\"copy\":%s,\"iops\":%.1f,"
	       "\"bw_mbps\":%.2f,\"lat_mean_us\":%.1f,\"lat_p50_us\":%.1f,\"lat_p99_us\":%.1f,"
	       "\"cycles_map\":%.0f,\"cycles_copy\":%.0f,\"cycles_convert\":%.0f,"
	       "\"cycles_driver\":%.0f,\"cycles_device\":%.0f,"
	       "\"conversions\":%" PRIu64 ",\"bounced_bytes\":%" PRIu64 ",\"ios\":%" PRIu64
	       ",\"errors\":%" PRIu64 ",\"seconds\":%.3f,\"rounds\":%u",
	       kernel_dma_mode_name(cfg->mode), policy, w->rw, w->bs, w->iodepth, queues,
	       cfg->mode == KDMA_BOUNCE ? "true" : "false", r->iops, r->bw_mbps, r->lat_mean_us,
	       r->lat_p50_us, r->lat_p99_us, r->cycles_map, r->cycles_copy, r->cycles_convert,
	       r->cycles_driver, r->cycles_device, r->conversions, r->bounced_bytes, r->ios,
	       r->errors, r->seconds, rounds);
	if (cfg->mode == KDMA_BOUNCE)
		blk_bench_print_over_direct(ov);
	if (r->stages)
		blk_bench_print_stages(r->stage);
	bench_json_io_end(&r->io, direct ? &direct->io : NULL, base_linux ? &base_linux->io : NULL);
}

/* The full matrix, and the short set `make run` uses. */
static const struct blk_workload full_set[] = {
	{ "read", 4096, 1 },	   { "read", 4096, 32 },       { "read", 4096, 256 },
	{ "read", 65536, 1 },	   { "read", 65536, 32 },      { "read", 65536, 256 },
	{ "write", 4096, 1 },	   { "write", 4096, 32 },      { "write", 4096, 256 },
	{ "write", 65536, 1 },	   { "write", 65536, 32 },     { "write", 65536, 256 },
	{ "randread", 4096, 1 },   { "randread", 4096, 32 },   { "randread", 4096, 256 },
	{ "randread", 65536, 1 },  { "randread", 65536, 32 },  { "randread", 65536, 256 },
	{ "randwrite", 4096, 1 },  { "randwrite", 4096, 32 },  { "randwrite", 4096, 256 },
	{ "randwrite", 65536, 1 }, { "randwrite", 65536, 32 }, { "randwrite", 65536, 256 },
};
static const struct blk_workload short_set[] = {
	{ "randread", 4096, 32 },
	{ "randwrite", 4096, 32 },
	{ "read", 65536, 32 },
	{ "randread", 4096, 256 },
};

#define FULL_N (sizeof(full_set) / sizeof(full_set[0]))
#define SHORT_N (sizeof(short_set) / sizeof(short_set[0]))

/*
 * struct blk_pass - every run of one pass, and what is printed of them.
 * @cfgs: the configurations; @ncfg: how many.
 * @res: each round's result per workload and configuration; @ok: it ran.
 * @median: per workload and configuration, the round whose DMA cycles per I/O
 *	are the median of its rounds (the lower middle of an even count), -1 if
 *	none ran: the line printed is that round's, a real run.
 * @over: per workload and configuration, what a bounce line adds over direct.
 * @direct: the configuration index of mode direct; @base_linux: of bounce/linux
 *	(-1: not set up).
 */
struct blk_pass {
	struct kdma_config cfgs[KDMA_MAX_CONFIGS];
	int ncfg, direct, base_linux;
	struct blk_result res[BENCH_ROUNDS][FULL_N][KDMA_MAX_CONFIGS];
	bool ok[BENCH_ROUNDS][FULL_N][KDMA_MAX_CONFIGS];
	int median[FULL_N][KDMA_MAX_CONFIGS];
	struct bench_over over[FULL_N][KDMA_MAX_CONFIGS];
};

/* @bp->direct and @bp->base_linux, from the configurations. */
static void blk_pass_baselines(struct blk_pass *bp)
{
	bp->direct = bp->base_linux = -1;
	for (int c = 0; c < bp->ncfg; c++) {
		if (bp->cfgs[c].mode == KDMA_DIRECT)
			bp->direct = c;
		if (bp->cfgs[c].mode == KDMA_BOUNCE &&
		    bp->cfgs[c].policy == SLUICE_DMA_POLICY_LINUX)
			bp->base_linux = c;
	}
}

/* One line's rounds of workload @i in configuration @c (-1: none, all not run). */
static void blk_pass_figs(const struct blk_pass *bp, unsigned int i, int c,
			  struct bench_round_figs *figs)
{
	for (int r = 0; r < BENCH_ROUNDS; r++) {
		figs[r].ok = c >= 0 && bp->ok[r][i][c];
		figs[r].dma = figs[r].ok ? bp->res[r][i][c].io.cycles_dma : 0;
		figs[r].copy = figs[r].ok ? bp->res[r][i][c].cycles_copy : 0;
	}
}

/* @bp->median[@i][@c] and, for a bounce line, @bp->over[@i][@c] (rounds.h). */
static void blk_pass_reduce(struct blk_pass *bp, unsigned int i, int c)
{
	struct bench_round_figs line[BENCH_ROUNDS], d[BENCH_ROUNDS], l[BENCH_ROUNDS];

	blk_pass_figs(bp, i, c, line);
	bp->median[i][c] = bench_rounds_median_round(line);
	memset(&bp->over[i][c], 0, sizeof(bp->over[i][c]));
	if (bp->direct < 0 || bp->cfgs[c].mode != KDMA_BOUNCE)
		return;
	blk_pass_figs(bp, i, bp->direct, d);
	blk_pass_figs(bp, i, bp->base_linux, l);
	bench_rounds_over(line, d, bp->base_linux >= 0 ? l : NULL, &bp->over[i][c]);
}

/* One human line per workload: the DMA cycles per I/O each bounce policy adds over
 * direct in this boot, and that over bounce/linux's, medians over the rounds (the
 * JSON lines carry the same figures as "dma_over_direct" and
 * "dma_over_direct_vs_linux"). */
static void blk_pass_say_over_direct(const struct blk_pass *bp, unsigned int i,
				     const struct blk_workload *w, unsigned int queues)
{
	if (bp->direct < 0)
		return;
	printf("bench: blk queues=%u %s bs=%u iodepth=%u: DMA cycles per I/O over direct, "
	       "medians over the rounds:",
	       queues, w->rw, w->bs, w->iodepth);
	for (int c = 0; c < bp->ncfg; c++) {
		const struct bench_over *ov = &bp->over[i][c];

		if (!ov->have)
			continue;
		printf(" %s %.0f", kernel_dma_config_name(&bp->cfgs[c]), ov->over);
		if (ov->have_linux)
			printf(" (%.3fx linux, its copy alone %.3fx)", ov->vs_linux,
			       ov->copy_floor);
	}
	printf("\n");
}

/* Round @round of configuration @c: every workload, on a device opened for it. */
static int blk_pass_round(struct blk_pass *bp, int round, int c, struct kernel_dma *kd,
			  struct virtio_device *vdev, const struct blk_workload *set,
			  unsigned int nw, unsigned int max_queues, unsigned int warmup_ms,
			  unsigned int run_ms, const struct blk_bench_iotlb *iotlb,
			  unsigned int *queues)
{
	const struct kdma_config *cfg = &bp->cfgs[c];
	struct virtio_blk blk;
	int failures = 0;

	if (bench_blk_open(&blk, vdev, kd, cfg, max_queues, "bench: blk"))
		return 1;
	*queues = blk.nqueues;
	for (unsigned int i = 0; i < nw; i++) {
		struct blk_result *r = &bp->res[round][i][c];

		if (blk_bench_run(&blk, kd, cfg, &set[i], warmup_ms, run_ms, iotlb, r)) {
			failures++;
			continue;
		}
		bp->ok[round][i][c] = true;
		printf("bench: blk mode=%s queues=%u %s bs=%u iodepth=%u round %d/%d: %.0f IOPS, "
		       "%.1f MB/s, lat %.0f/%.0f/%.0f us (mean/p50/p99), cycles per I/O: "
		       "map %.0f, copy %.0f, convert %.0f, driver %.0f, device %.0f; DMA %.0f\n",
		       kernel_dma_config_name(cfg), *queues, set[i].rw, set[i].bs, set[i].iodepth,
		       round + 1, BENCH_ROUNDS, r->iops, r->bw_mbps, r->lat_mean_us, r->lat_p50_us,
		       r->lat_p99_us, r->cycles_map, r->cycles_copy, r->cycles_convert,
		       r->cycles_driver, r->cycles_device, r->io.cycles_dma);
	}
	virtio_blk_remove(&blk);
	return failures;
}

/* The IOTLB model's line of one workload's median round in one configuration. */
static void blk_pass_print_iotlb(const struct kdma_config *cfg, const struct blk_workload *w,
				 unsigned int queues, const struct blk_result *r,
				 const struct blk_bench_iotlb *iotlb)
{
	bench_json_begin("iotlb");
	printf(",\"mode\":\"%s\",\"policy\":%s,\"rw\":\"%s\","
	       "\"bs\":%u,\"iodepth\":%u,\"threads\":1,\"queues\":%u,"
	       "\"entries\":%u,\"assoc\":\"%s\",\"ways\":%u,\"granule\":%" PRIu64
	       ",\"ios\":%" PRIu64 ",\"lookups\":%" PRIu64 ",\"misses\":%" PRIu64 "}\n",
	       kernel_dma_mode_name(cfg->mode), kernel_dma_policy_json(cfg), w->rw, w->bs,
	       w->iodepth, queues, iotlb->entries, iotlb->ways ? "set" : "full",
	       iotlb->ways ? iotlb->ways : iotlb->entries, r->iotlb_granule, r->ios,
	       r->iotlb_lookups, r->iotlb_misses);
}

/* The JSON lines of a pass: each configuration's median round per workload, with
 * its ratios against direct and bounce/linux of the same boot; then the IOTLB lines. */
static void blk_pass_print(const struct blk_pass *bp, const struct blk_workload *set,
			   unsigned int nw, unsigned int queues,
			   const struct blk_bench_iotlb *iotlb)
{
	for (unsigned int i = 0; i < nw; i++) {
		int dm = bp->direct >= 0 ? bp->median[i][bp->direct] : -1;
		int lm = bp->base_linux >= 0 ? bp->median[i][bp->base_linux] : -1;
		const struct blk_result *d = dm >= 0 ? &bp->res[dm][i][bp->direct] : NULL;
		const struct blk_result *l = lm >= 0 ? &bp->res[lm][i][bp->base_linux] : NULL;

		for (int c = 0; c < bp->ncfg; c++) {
			unsigned int ran = 0;

			for (int r = 0; r < BENCH_ROUNDS; r++)
				ran += bp->ok[r][i][c];
			if (ran)
				blk_bench_print(&bp->cfgs[c], &set[i], queues, ran,
						&bp->res[bp->median[i][c]][i][c], d, l,
						&bp->over[i][c]);
		}
	}
	for (unsigned int i = 0; i < nw; i++)
		for (int c = 0; c < bp->ncfg; c++)
			if (bp->median[i][c] >= 0)
				blk_pass_print_iotlb(&bp->cfgs[c], &set[i], queues,
						     &bp->res[bp->median[i][c]][i][c], iotlb);
}

/* One pass over every configuration with at most @max_queues request queues, in
 * BENCH_ROUNDS rounds of @run_ms / BENCH_ROUNDS each (@warmup_ms split
 * likewise); prints the human lines, then the JSON lines with ratios. */
static int blk_bench_pass(struct kernel_dma *kd, struct virtio_device *vdev, uint64_t modes,
			  const struct blk_workload *set, unsigned int nw, unsigned int max_queues,
			  unsigned int warmup_ms, unsigned int run_ms,
			  const struct blk_bench_iotlb *iotlb, unsigned int *queues_used)
{
	static struct blk_pass bp;
	unsigned int queues = 1, slice = run_ms / BENCH_ROUNDS ? run_ms / BENCH_ROUNDS : 1;
	int failures = 0;

	memset(&bp, 0, sizeof(bp));
	bp.ncfg = kernel_dma_configs(kd, modes, bp.cfgs);
	for (int r = 0; r < BENCH_ROUNDS; r++)
		for (int c = 0; c < bp.ncfg; c++)
			failures += blk_pass_round(&bp, r, c, kd, vdev, set, nw, max_queues,
						   warmup_ms / BENCH_ROUNDS, slice, iotlb, &queues);
	blk_pass_baselines(&bp);
	for (unsigned int i = 0; i < nw; i++)
		for (int c = 0; c < bp.ncfg; c++)
			blk_pass_reduce(&bp, i, c);
	for (unsigned int i = 0; i < nw; i++)
		if (set[i].bs == 4096)
			blk_pass_say_over_direct(&bp, i, &set[i], queues);
	blk_pass_print(&bp, set, nw, queues, iotlb);
	*queues_used = queues;
	return failures;
}

int blk_bench_suite(struct kernel_dma *kd, struct virtio_device *vdev, uint64_t modes, bool full,
		    unsigned int warmup_ms, unsigned int run_ms,
		    const struct blk_bench_iotlb *iotlb)
{
	const struct blk_workload *set = full ? full_set : short_set;
	unsigned int nw = full ? FULL_N : SHORT_N, queues = 1;
	int failures;

	/* One queue first; then, when the device offers more, all of them. */
	failures = blk_bench_pass(kd, vdev, modes, set, nw, 1, warmup_ms, run_ms, iotlb, &queues);
	if (vdev->ops->num_queues(vdev) > 1)
		failures += blk_bench_pass(kd, vdev, modes, set, nw, VIRTIO_BLK_MAX_QUEUES,
					   warmup_ms, run_ms, iotlb, &queues);
	return failures;
}
