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

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch/x86_64/cpu.h"
#include "arch/x86_64/mmu.h"
#include "arch/x86_64/tsc.h"
#include "bench/iotlb.h"
#include "drivers/deadline.h"
#include "bench/result_json.h"

#define BLK_BENCH_MAX_SAMPLES 65536

struct bench_slot {
	void *buf;
	uint64_t t_submit;
	unsigned int queue;
};

struct bench_state {
	struct virtio_blk *blk;
	const struct blk_workload *w;
	bool write, random;
	uint64_t nblocks, next_block, rng;
	bool measuring;
	uint64_t ios, errors;
	uint32_t *lat; /* cycles, first BLK_BENCH_MAX_SAMPLES of the window */
	uint64_t nlat, lat_sum;
	uint64_t cycles_busy; /* submit + completion handling */
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
	printf("bench: blk %s bs=%u iodepth=%u: %u requests %s; device stopped%s\n", w->rw,
	       w->bs, w->iodepth, inflight,
	       rc ? "lost to a broken queue" : "not completed within the device deadline",
	       virtio_blk_stop(blk) ? " but it did not reset: buffers quarantined" : "");
	return -1;
}

int blk_bench_run(struct virtio_blk *blk, struct kernel_dma *kd, const struct kdma_config *cfg,
		  const struct blk_workload *w, unsigned int warmup_ms, unsigned int run_ms,
		  const struct blk_bench_iotlb *iotlb, struct blk_result *out)
{
	struct bench_state st;
	struct bench_slot *slots = calloc(w->iodepth, sizeof(*slots));
	struct bench_slot **pending = calloc(w->iodepth, sizeof(*pending));
	unsigned int npending = 0;
	struct sluice_dma_bounce_stats bs0, bs1;
	struct mmu_stats ms0, ms1;
	struct virtio_blk_stats bst;
	uint64_t t_start, t_measure = 0, t_end, wall, dma0 = 0, copy0 = 0;
	uint64_t hz = tsc_hz();
	struct sluice_dma_layer *dl = kernel_dma_layer(kd, cfg);
	int rc = 0;

	memset(out, 0, sizeof(*out));
	memset(&st, 0, sizeof(st));
	st.blk = blk;
	st.w = w;
	st.write = !strcmp(w->rw, "write") || !strcmp(w->rw, "randwrite");
	st.random = !strncmp(w->rw, "rand", 4);
	st.nblocks = blk->capacity * VIRTIO_BLK_SECTOR / w->bs;
	st.rng = 0x9e3779b97f4a7c15ull ^ (w->bs * 31 + w->iodepth);
	st.lat = malloc(BLK_BENCH_MAX_SAMPLES * sizeof(*st.lat));
	if (!slots || !pending || !st.lat || !st.nblocks) {
		printf("bench: blk %s bs=%u iodepth=%u: no memory or disk too small\n", w->rw, w->bs,
		       w->iodepth);
		rc = -1;
		goto out;
	}
	for (unsigned int i = 0; i < w->iodepth; i++) {
		slots[i].queue = i % blk->nqueues;
		slots[i].buf = kernel_dma_buf_alloc(kd, cfg->mode, w->bs);
		if (!slots[i].buf) {
			printf("bench: blk %s bs=%u iodepth=%u: cannot allocate buffers\n", w->rw,
			       w->bs, w->iodepth);
			rc = -1;
			goto out;
		}
		/* Written data is whatever the buffer holds; fill it once. */
		memset(slots[i].buf, 0xa5, w->bs);
	}

	/* The arena's buffers sit in 2 MiB shared pages an IOMMU would map with one
	 * PMD-sized entry each (the DMA_PMD RFC); every other mode uses 4 KiB pages. */
	if (iotlb_init(&bench_iotlb, iotlb->entries, iotlb->ways, cfg->mode == KDMA_ARENA ? 21 : 12)) {
		printf("bench: bad IOTLB geometry %u entries, %u ways\n", iotlb->entries, iotlb->ways);
		rc = -1;
		goto out;
	}
	blk->profile = true;
	sluice_dma_layer_set_profile(dl, true);
	t_start = rdtsc();
	for (unsigned int i = 0; i < w->iodepth; i++)
		if (bench_submit(&st, &slots[i]))
			pending[npending++] = &slots[i];
	for (;;) {
		struct virtio_blk_completion c[64];
		uint64_t now = rdtsc(), t0;
		int got = 0;

		if (!st.measuring && now - t_start >= hz / 1000 * warmup_ms) {
			/* Warm-up over: start the window from clean counters. */
			st.measuring = true;
			t_measure = now;
			st.cycles_busy = 0;
			virtio_blk_get_stats(blk, &bst);
			dma0 = bst.cycles_dma;
			copy0 = sluice_dma_layer_copy_cycles(dl);
			sluice_dma_bounce_stats_get(dl, -1, &bs0);
			mmu_get_stats(&ms0);
			blk->trace = bench_trace;
		}
		/* The window lasts run_ms and at least one turnover of the queue (a
		 * short window at a deep queue would otherwise count nothing), but
		 * never more than ten times run_ms. */
		if (st.measuring && now - t_measure >= hz / 1000 * run_ms &&
		    (st.ios >= w->iodepth || now - t_measure >= hz / 100 * run_ms))
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
		st.cycles_busy += rdtsc() - t0;
		for (int i = 0; i < got; i++) {
			struct bench_slot *s = c[i].cookie;
			uint64_t lat = rdtsc() - s->t_submit;

			if (st.measuring) {
				st.ios++;
				if (c[i].status)
					st.errors++;
				st.lat_sum += lat;
				if (st.nlat < BLK_BENCH_MAX_SAMPLES)
					st.lat[st.nlat++] = lat > UINT32_MAX ? UINT32_MAX : (uint32_t)lat;
			}
			if (bench_submit(&st, s))
				pending[npending++] = s;
		}
		/* Requests that found no room earlier get another try now. */
		for (unsigned int i = 0; i < npending;) {
			if (!bench_submit(&st, pending[i]))
				pending[i] = pending[--npending];
			else
				i++;
		}
	}
	t_end = rdtsc();
	blk->trace = NULL;
	copy0 = sluice_dma_layer_copy_cycles(dl) - copy0;
	sluice_dma_bounce_stats_get(dl, -1, &bs1);
	mmu_get_stats(&ms1);

	/* Let what is in flight finish before the buffers go; a device that stops
	 * answering is stopped, and if it will not reset the buffers stay its own. */
	if (blk_bench_drain(blk, w) && !rc)
		rc = -1;
	if (blk->quarantined) {
		free(slots);
		slots = NULL; /* the device may still write the buffers: never freed */
	}
	blk->profile = false;
	sluice_dma_layer_set_profile(dl, false);

	wall = t_end - t_measure;
	out->ios = st.ios;
	out->errors = st.errors;
	out->seconds = tsc_to_ns(wall) / 1e9;
	out->iops = out->seconds > 0 ? st.ios / out->seconds : 0;
	out->bw_mbps = out->iops * w->bs / 1e6;
	if (st.ios) {
		double ns_per_cycle = 1e9 / (double)hz;
		uint64_t dma;

		virtio_blk_get_stats(blk, &bst);
		dma = bst.cycles_dma - dma0;
		uint64_t conv = (ms1.to_shared_cycles + ms1.to_private_cycles) -
				(ms0.to_shared_cycles + ms0.to_private_cycles);

		qsort(st.lat, st.nlat, sizeof(*st.lat), cmp_u32);
		out->lat_mean_us = (double)st.lat_sum / st.ios * ns_per_cycle / 1e3;
		out->lat_p50_us = st.lat[st.nlat / 2] * ns_per_cycle / 1e3;
		out->lat_p99_us = st.lat[(st.nlat * 99) / 100] * ns_per_cycle / 1e3;
		/* The copy happens inside the map/unmap calls the driver timed. */
		out->cycles_copy = (double)copy0 / st.ios;
		out->cycles_map = (double)(dma > copy0 ? dma - copy0 : 0) / st.ios;
		out->cycles_convert = (double)conv / st.ios;
		out->cycles_driver = (double)(st.cycles_busy > dma ? st.cycles_busy - dma : 0) / st.ios;
		out->cycles_device =
			(double)(wall > st.cycles_busy ? wall - st.cycles_busy : 0) / st.ios;
	}
	out->conversions = (ms1.to_shared_calls + ms1.to_private_calls) -
			   (ms0.to_shared_calls + ms0.to_private_calls);
	out->bounced_bytes = (bs1.bytes_to_device + bs1.bytes_from_device) -
			     (bs0.bytes_to_device + bs0.bytes_from_device);
	out->iotlb_granule = UINT64_C(1) << bench_iotlb.granule_shift;
	out->iotlb_lookups = bench_iotlb.lookups;
	out->iotlb_misses = bench_iotlb.misses;
out:
	if (slots)
		for (unsigned int i = 0; i < w->iodepth; i++)
			kernel_dma_buf_free(kd, cfg->mode, slots[i].buf);
	free(slots);
	free(pending);
	free(st.lat);
	return rc;
}

void blk_bench_print(const struct kdma_config *cfg, const struct blk_workload *w,
		     unsigned int queues, const struct blk_result *r, double ratio_direct,
		     double ratio_linux)
{
	const char *policy = kernel_dma_policy_json(cfg);

	bench_json_begin("blk");
	printf(",\"mode\":\"%s\",\"policy\":%s,\"rw\":\"%s\",\"bs\":%u,"
	       "\"iodepth\":%u,\"threads\":1,\"queues\":%u,\"copy\":%s,\"iops\":%.1f,"
	       "\"bw_mbps\":%.2f,\"lat_mean_us\":%.1f,\"lat_p50_us\":%.1f,\"lat_p99_us\":%.1f,"
	       "\"cycles_map\":%.0f,\"cycles_copy\":%.0f,\"cycles_convert\":%.0f,"
	       "\"cycles_driver\":%.0f,\"cycles_device\":%.0f,"
	       "\"conversions\":%" PRIu64 ",\"bounced_bytes\":%" PRIu64 ",\"ios\":%" PRIu64
	       ",\"errors\":%" PRIu64 ",\"seconds\":%.3f",
	       kernel_dma_mode_name(cfg->mode), policy, w->rw, w->bs, w->iodepth, queues,
	       cfg->mode == KDMA_BOUNCE ? "true" : "false", r->iops, r->bw_mbps, r->lat_mean_us,
	       r->lat_p50_us, r->lat_p99_us, r->cycles_map, r->cycles_copy, r->cycles_convert,
	       r->cycles_driver, r->cycles_device,
	       r->conversions, r->bounced_bytes, r->ios, r->errors, r->seconds);
	if (ratio_direct > 0)
		printf(",\"ratio_direct\":%.3f", ratio_direct);
	if (ratio_linux > 0)
		printf(",\"ratio_linux\":%.3f", ratio_linux);
	printf("}\n");
}

/* The full matrix, and the short set `make run` uses. */
static const struct blk_workload full_set[] = {
	{ "read", 4096, 1 },	  { "read", 4096, 32 },	    { "read", 4096, 256 },
	{ "read", 65536, 1 },	  { "read", 65536, 32 },    { "read", 65536, 256 },
	{ "write", 4096, 1 },	  { "write", 4096, 32 },    { "write", 4096, 256 },
	{ "write", 65536, 1 },	  { "write", 65536, 32 },   { "write", 65536, 256 },
	{ "randread", 4096, 1 },  { "randread", 4096, 32 }, { "randread", 4096, 256 },
	{ "randread", 65536, 1 }, { "randread", 65536, 32 }, { "randread", 65536, 256 },
	{ "randwrite", 4096, 1 }, { "randwrite", 4096, 32 }, { "randwrite", 4096, 256 },
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

/* One pass over every configuration with at most @max_queues request queues;
 * prints the human lines, then the JSON lines with ratios. */
static int blk_bench_pass(struct kernel_dma *kd, struct virtio_device *vdev, uint64_t modes,
			  const struct blk_workload *set, unsigned int nw, unsigned int max_queues,
			  unsigned int warmup_ms, unsigned int run_ms,
			  const struct blk_bench_iotlb *iotlb, unsigned int *queues_used)
{
	struct kdma_config cfgs[KDMA_MAX_CONFIGS];
	int ncfg = kernel_dma_configs(kd, modes, cfgs), failures = 0;
	static struct blk_result results[FULL_N][KDMA_MAX_CONFIGS];
	static bool ok[FULL_N][KDMA_MAX_CONFIGS];
	unsigned int queues = 1;

	memset(ok, 0, sizeof(ok));
	for (int c = 0; c < ncfg; c++) {
		struct virtio_blk blk;
		char why[192];

		vdev->confidential = cfgs[c].mode != KDMA_DIRECT;
		if (virtio_blk_init(&blk, vdev, kernel_dma_layer(kd, &cfgs[c]), max_queues, 0, why,
				    sizeof(why))) {
			printf("bench: blk mode=%s: %s\n", kernel_dma_config_name(&cfgs[c]), why);
			failures++;
			continue;
		}
		queues = blk.nqueues;
		for (unsigned int i = 0; i < nw; i++) {
			struct blk_result *r = &results[i][c];

			if (blk_bench_run(&blk, kd, &cfgs[c], &set[i], warmup_ms, run_ms, iotlb, r)) {
				failures++;
				continue;
			}
			ok[i][c] = true;
			printf("bench: blk mode=%s queues=%u %s bs=%u iodepth=%u: %.0f IOPS, %.1f MB/s, "
			       "lat %.0f/%.0f/%.0f us (mean/p50/p99), cycles per I/O: map %.0f, "
			       "copy %.0f, convert %.0f, driver %.0f, device %.0f\n",
			       kernel_dma_config_name(&cfgs[c]), queues, set[i].rw, set[i].bs,
			       set[i].iodepth, r->iops, r->bw_mbps, r->lat_mean_us, r->lat_p50_us,
			       r->lat_p99_us, r->cycles_map, r->cycles_copy, r->cycles_convert,
			       r->cycles_driver, r->cycles_device);
		}
		virtio_blk_remove(&blk);
	}
	/* JSON lines last: each carries its ratios against direct and bounce/linux
	 * of the same boot. */
	for (unsigned int i = 0; i < nw; i++) {
		double direct = 0, linux_iops = 0;

		for (int c = 0; c < ncfg; c++) {
			if (!ok[i][c])
				continue;
			if (cfgs[c].mode == KDMA_DIRECT)
				direct = results[i][c].iops;
			if (cfgs[c].mode == KDMA_BOUNCE &&
			    cfgs[c].policy == SLUICE_DMA_POLICY_LINUX)
				linux_iops = results[i][c].iops;
		}
		for (int c = 0; c < ncfg; c++)
			if (ok[i][c])
				blk_bench_print(&cfgs[c], &set[i], queues, &results[i][c],
						direct > 0 ? results[i][c].iops / direct : 0,
						linux_iops > 0 ? results[i][c].iops / linux_iops : 0);
	}
	for (unsigned int i = 0; i < nw; i++) {
		for (int c = 0; c < ncfg; c++) {
			const struct blk_result *r = &results[i][c];
			const char *policy = kernel_dma_policy_json(&cfgs[c]);

			if (!ok[i][c])
				continue;
			bench_json_begin("iotlb");
			printf(",\"mode\":\"%s\",\"policy\":%s,\"rw\":\"%s\","
			       "\"bs\":%u,\"iodepth\":%u,\"threads\":1,\"queues\":%u,\"entries\":%u,"
			       "\"assoc\":\"%s\",\"ways\":%u,\"granule\":%" PRIu64 ",\"ios\":%" PRIu64
			       ",\"lookups\":%" PRIu64 ",\"misses\":%" PRIu64 "}\n",
			       kernel_dma_mode_name(cfgs[c].mode), policy, set[i].rw, set[i].bs,
			       set[i].iodepth, queues, iotlb->entries, iotlb->ways ? "set" : "full",
			       iotlb->ways ? iotlb->ways : iotlb->entries, r->iotlb_granule, r->ios,
			       r->iotlb_lookups, r->iotlb_misses);
		}
	}
	*queues_used = queues;
	return failures;
}

int blk_bench_suite(struct kernel_dma *kd, struct virtio_device *vdev, uint64_t modes, bool full,
		    unsigned int warmup_ms, unsigned int run_ms, const struct blk_bench_iotlb *iotlb)
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
