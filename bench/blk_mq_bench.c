/* SPDX-License-Identifier: MIT */
/*
 * blk_mq_bench.c - several CPUs doing block I/O at once (see blk_mq_bench.h).
 *
 * CPU 0 prepares everything that allocates or prints (buffers, latency arrays,
 * the device), then smp_run() starts one closed-loop job per CPU. CPU 0's job
 * also keeps the clock (smp_window.h): each job notes its own window and
 * snapshots its own CPU's lock counters there, so nothing is shared on the I/O
 * path except the DMA layer itself, which is what is being measured. With
 * fewer queues than CPUs a poller may reap another CPU's request: it stamps the
 * request's slot done, and the owner accounts for it and resubmits.
 */
#include "bench/blk_mq_bench.h"

#include "arch/kernel_errno.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch/x86_64/cpu/cpu.h"
#include "arch/x86_64/smp/smp.h"
#include "arch/x86_64/cpu/tsc.h"
#include "bench/bench_common.h"
#include "bench/smp_window.h"
#include "drivers/deadline.h"
#include "bench/result_json.h"
#include "boot/bench_suites.h"
#include "boot/options.h"
#include "drivers/virtio/virtio_blk.h"

#define MQ_BS 4096u
#define MQ_IODEPTH 32u
#define MQ_LAT_SAMPLES 16384u

enum mq_slot_state { MQ_SLOT_IDLE, MQ_SLOT_INFLIGHT, MQ_SLOT_DONE };

/* One request context; the completion cookie points at it. */
struct mq_slot {
	void *buf;
	uint64_t t_submit, t_done;
	int status;
	int state; /* enum mq_slot_state; DONE is published by the poller */
};

/* One CPU's job: its queue, its request slots, its results. */
struct mq_job {
	unsigned int queue;
	struct mq_slot slots[MQ_IODEPTH];
	uint64_t rng;
	uint32_t *lat;
	uint64_t nlat;
	/* results, in the job's own window */
	uint64_t ios, errors, lat_sum;
	struct smp_window_cpu win;
	int rc;
} __attribute__((aligned(64)));

struct mq_run {
	struct virtio_blk *blk;
	struct kernel_dma *kd;
	bool write;
	uint64_t nblocks;
	struct smp_window win;
	struct mq_job job[SMP_MAX_CPUS];
};

struct mq_result {
	double iops, bw_mbps, lat_mean_us, lat_p50_us, lat_p99_us, seconds;
	double lock_wait_per_map, lock_contended_pct, lock_acquires_per_io;
	uint64_t ios, errors;
	bool ok;
};

static uint64_t mq_next_sector(struct mq_run *run, struct mq_job *job)
{
	job->rng ^= job->rng << 13;
	job->rng ^= job->rng >> 7;
	job->rng ^= job->rng << 17;
	return (job->rng % run->nblocks) * (MQ_BS / VIRTIO_BLK_SECTOR);
}

/* Submit @slot; a full queue or bounce pool leaves it idle for the next round. */
static bool mq_submit(struct mq_run *run, struct mq_job *job, struct mq_slot *slot)
{
	int rc;

	/* In flight before the device sees it: another CPU polling a shared queue
	 * may mark it done as soon as it is submitted. */
	slot->state = MQ_SLOT_INFLIGHT;
	slot->t_submit = rdtsc();
	rc = virtio_blk_submit(run->blk, job->queue,
			       run->write ? VIRTIO_BLK_OP_WRITE : VIRTIO_BLK_OP_READ,
			       mq_next_sector(run, job), slot->buf, MQ_BS, slot);
	if (rc == 0)
		return true;
	slot->state = MQ_SLOT_IDLE;
	if (rc != KERR_BUSY && !job->rc)
		job->rc = rc;
	return false;
}

static void mq_job_fn(void *arg, unsigned int cpu)
{
	struct mq_run *run = arg;
	struct mq_job *job = &run->job[cpu];
	const struct kdma_cpu_stats *locks = &run->kd->cpu[cpu];
	unsigned int inflight = 0;
	int seen = SMP_WARMUP;
	struct deadline d;

	for (unsigned int i = 0; i < MQ_IODEPTH; i++)
		job->slots[i].state = MQ_SLOT_IDLE;
	smp_window_enter(&job->win);
	/* Restarted by every completion: a device that answers nothing for the
	 * device deadline ends the job, measuring or draining. */
	deadline_start(&d, 0);
	while (seen != SMP_STOP || inflight) {
		struct virtio_blk_completion c[MQ_IODEPTH];
		int got;

		seen = smp_window_step(&run->win, &job->win, cpu, locks);
		/* Account for finished slots; closed loop: resubmit until the stop. */
		for (unsigned int i = 0; i < MQ_IODEPTH; i++) {
			struct mq_slot *slot = &job->slots[i];

			if (__atomic_load_n(&slot->state, __ATOMIC_ACQUIRE) == MQ_SLOT_DONE) {
				uint64_t lat = slot->t_done - slot->t_submit;

				deadline_start(&d, 0);
				inflight--;
				if (seen == SMP_MEASURE) {
					job->ios++;
					job->errors += slot->status != 0;
					job->lat_sum += lat;
					if (job->nlat < MQ_LAT_SAMPLES)
						job->lat[job->nlat++] = lat > UINT32_MAX ?
										UINT32_MAX :
										(uint32_t)lat;
				}
				slot->state = MQ_SLOT_IDLE;
			}
			if (slot->state == MQ_SLOT_IDLE && seen != SMP_STOP && !job->rc &&
			    mq_submit(run, job, slot))
				inflight++;
		}
		if (job->rc) {
			/* CPU 0 keeps the clock: the others must still see the stop.
			 * Requests still in flight are the caller's to take back
			 * (it stops the device) before their buffers go. */
			smp_window_abort(&run->win, cpu);
			break;
		}
		virtio_blk_kick(run->blk, job->queue);
		got = virtio_blk_poll(run->blk, job->queue, c, (int)MQ_IODEPTH);
		if (got < 0) {
			job->rc = got; /* a broken queue: nothing more will complete */
			continue;
		}
		if (!got && inflight && deadline_passed(&d)) {
			job->rc = DEVICE_ERR_TIMEDOUT;
			continue;
		}
		for (int k = 0; k < got; k++) {
			struct mq_slot *slot = c[k].cookie;

			slot->t_done = rdtsc();
			slot->status = c[k].status;
			__atomic_store_n(&slot->state, MQ_SLOT_DONE, __ATOMIC_RELEASE);
		}
	}
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* One run of @ncpus jobs; CPU 0 allocates before and sums after. */
static int mq_run_once(struct mq_run *run, const struct kdma_config *cfg, unsigned int ncpus,
		       unsigned int warmup_ms, unsigned int run_ms, struct mq_result *out)
{
	uint64_t hz = tsc_hz(), nlat = 0, lat_sum = 0, wait = 0, contended = 0, acquires = 0;
	uint32_t *all_lat = NULL;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	smp_window_reset(&run->win, hz / 1000 * warmup_ms, hz / 1000 * run_ms);
	for (unsigned int c = 0; c < ncpus; c++) {
		struct mq_job *job = &run->job[c];

		memset(job, 0, sizeof(*job));
		job->queue = c % run->blk->nqueues;
		job->rng = 0x9e3779b97f4a7c15ull * (c + 1) ^ (run->write ? 0x5555 : 0);
		job->lat = malloc(MQ_LAT_SAMPLES * sizeof(*job->lat));
		if (!job->lat)
			rc = -1;
		for (unsigned int i = 0; i < MQ_IODEPTH && !rc; i++) {
			job->slots[i].buf = kernel_dma_buf_alloc(run->kd, cfg->mode, MQ_BS);
			if (!job->slots[i].buf)
				rc = -1;
			else
				memset(job->slots[i].buf, 0x5a ^ (int)c, MQ_BS);
		}
	}
	if (!rc) {
		smp_run(ncpus, mq_job_fn, run);
		all_lat = malloc(ncpus * MQ_LAT_SAMPLES * sizeof(*all_lat));
		if (!all_lat)
			rc = -1;
	}
	for (unsigned int c = 0; c < ncpus && !rc; c++) {
		struct mq_job *job = &run->job[c];
		double secs = tsc_to_ns(job->win.t_end - job->win.t_begin) / 1e9;

		if (job->rc) {
			printf("bench: blk-mq mode=%s cpu %u: request failed (%d)\n",
			       kernel_dma_config_name(cfg), c, job->rc);
			rc = -1;
			break;
		}
		out->ios += job->ios;
		out->errors += job->errors;
		out->iops += secs > 0 ? job->ios / secs : 0;
		out->seconds = secs > out->seconds ? secs : out->seconds;
		lat_sum += job->lat_sum;
		memcpy(all_lat + nlat, job->lat, job->nlat * sizeof(*all_lat));
		nlat += job->nlat;
		wait += job->win.lock1.wait_cycles - job->win.lock0.wait_cycles;
		contended += job->win.lock1.contended - job->win.lock0.contended;
		acquires += job->win.lock1.acquires - job->win.lock0.acquires;
	}
	if (!rc && out->ios && nlat) {
		double us_per_cycle = 1e6 / (double)hz;

		qsort(all_lat, nlat, sizeof(*all_lat), cmp_u32);
		out->bw_mbps = out->iops * MQ_BS / 1e6;
		out->lat_mean_us = (double)lat_sum / out->ios * us_per_cycle;
		out->lat_p50_us = all_lat[nlat / 2] * us_per_cycle;
		out->lat_p99_us = all_lat[nlat * 99 / 100] * us_per_cycle;
		/* One DMA mapping per 4 KiB request. */
		out->lock_wait_per_map = (double)wait / out->ios;
		out->lock_acquires_per_io = (double)acquires / out->ios;
		out->lock_contended_pct = acquires ? 100.0 * contended / acquires : 0;
		out->ok = true;
	} else if (!rc) {
		printf("bench: blk-mq mode=%s: no I/O completed in the window\n",
		       kernel_dma_config_name(cfg));
		rc = -1;
	}
	free(all_lat);
	/* A failed job may have left requests in flight: stopping the device takes
	 * them back; if it does not reset, the buffers are its own for good. */
	for (unsigned int q = 0; q < run->blk->nqueues; q++)
		if (virtio_blk_inflight(run->blk, q) && virtio_blk_stop(run->blk))
			printf("bench: blk-mq mode=%s: the device did not reset; %" PRIu64
			       " bytes quarantined, never reused\n",
			       kernel_dma_config_name(cfg), run->blk->quarantined_bytes);
	for (unsigned int c = 0; c < ncpus; c++) {
		for (unsigned int i = 0; i < MQ_IODEPTH && !run->blk->quarantined; i++)
			kernel_dma_buf_free(run->kd, cfg->mode, run->job[c].slots[i].buf);
		free(run->job[c].lat);
	}
	return rc;
}

static void mq_print(struct kernel_dma *kd, const struct kdma_config *cfg, const char *rw,
		     unsigned int threads, unsigned int queues, const struct mq_result *r,
		     double scaling)
{
	const char *policy = kernel_dma_policy_json(cfg);
	unsigned int areas = kernel_dma_areas(kd, cfg);

	printf("bench: blk-mq mode=%s %s bs=%u iodepth=%u x %u CPU%s on %u queue%s: %.0f IOPS, "
	       "lat %.0f/%.0f us (mean/p99), DMA lock: %.2f acquisitions per I/O, %.2f%% "
	       "contended, %.1f wait cycles per map",
	       kernel_dma_config_name(cfg), rw, MQ_BS, MQ_IODEPTH, threads, threads == 1 ? "" : "s",
	       queues, queues == 1 ? "" : "s", r->iops, r->lat_mean_us, r->lat_p99_us,
	       r->lock_acquires_per_io, r->lock_contended_pct, r->lock_wait_per_map);
	if (scaling > 0)
		printf(", scaling %.2f", scaling);
	printf("\n");
	bench_json_begin(options_bench_names[BENCH_SUITE_BLK]);
	printf(",\"bench\":\"mq\",\"mode\":\"%s\",\"policy\":%s,\"rw\":\"%s\",\"bs\":%u,"
	       "\"iodepth\":%u,\"threads\":%u,\"queues\":%u,\"copy\":%s,\"iops\":%.1f,"
	       "\"bw_mbps\":%.2f,\"lat_mean_us\":%.1f,\"lat_p50_us\":%.1f,\"lat_p99_us\":%.1f,"
	       "\"lock_wait_cycles_per_map\":%.1f,\"lock_contended_pct\":%.3f,"
	       "\"lock_acquires_per_io\":%.2f,\"ios\":%" PRIu64 ",\"errors\":%" PRIu64
	       ",\"seconds\":%.3f",
	       kernel_dma_mode_name(cfg->mode), policy, rw, MQ_BS, MQ_IODEPTH, threads, queues,
	       cfg->mode == KDMA_BOUNCE ? "true" : "false", r->iops, r->bw_mbps, r->lat_mean_us,
	       r->lat_p50_us, r->lat_p99_us, r->lock_wait_per_map, r->lock_contended_pct,
	       r->lock_acquires_per_io, r->ios, r->errors, r->seconds);
	if (scaling > 0)
		printf(",\"scaling\":%.3f", scaling);
	if (areas)
		printf(",\"areas\":%u", areas);
	printf("}\n");
}

int blk_mq_bench_suite(struct kernel_dma *kd, struct virtio_device *vdev, uint64_t modes,
		       unsigned int warmup_ms, unsigned int run_ms)
{
	static const char *const rws[] = { "randread", "randwrite" };
	static struct mq_run run;
	struct kdma_config cfgs[KDMA_MAX_CONFIGS];
	int ncfg = kernel_dma_configs(kd, modes, cfgs), failures = 0;
	unsigned int ncpus = smp_cpu_count();
	unsigned int max_queues = ncpus < VIRTIO_BLK_MAX_QUEUES ? ncpus : VIRTIO_BLK_MAX_QUEUES;

	if (ncpus < 2)
		printf("bench: blk-mq: only one CPU online; the N-CPU runs are skipped\n");
	for (int c = 0; c < ncfg; c++) {
		struct virtio_blk blk;

		if (bench_blk_open(&blk, vdev, kd, &cfgs[c], max_queues, "bench: blk-mq")) {
			failures++;
			continue;
		}
		/* Fewer queues than CPUs: CPUs share them, under each queue's lock. */
		virtio_blk_share_queues(&blk, blk.nqueues < ncpus);
		run.blk = &blk;
		run.kd = kd;
		run.nblocks = blk.capacity * VIRTIO_BLK_SECTOR / MQ_BS;
		for (unsigned int w = 0; w < 2; w++) {
			struct mq_result one, many;

			run.write = w == 1;
			if (mq_run_once(&run, &cfgs[c], 1, warmup_ms, run_ms, &one)) {
				failures++;
				continue;
			}
			mq_print(kd, &cfgs[c], rws[w], 1, 1, &one, 0);
			if (ncpus < 2)
				continue;
			if (mq_run_once(&run, &cfgs[c], ncpus, warmup_ms, run_ms, &many)) {
				failures++;
				continue;
			}
			mq_print(kd, &cfgs[c], rws[w], ncpus,
				 blk.nqueues < ncpus ? blk.nqueues : ncpus, &many,
				 one.iops > 0 ? many.iops / one.iops : 0);
		}
		virtio_blk_remove(&blk);
	}
	return failures;
}
