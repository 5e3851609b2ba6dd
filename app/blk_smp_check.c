/* SPDX-License-Identifier: MIT */
/*
 * blk_smp_check.c - every CPU writes and verifies its share at once (see header).
 *
 * Block i of the region (visited in the scattered order (i * stride) mod nblocks,
 * as blk_check.c does) belongs to CPU i mod ncpus. Each job keeps up to @iodepth
 * requests in flight on its own queue; CPU 0 allocates the buffers before and
 * prints after, the jobs neither allocate nor print. When CPUs share a queue,
 * whoever polls it may reap another CPU's request: the poller only marks the
 * request's slot done, and the slot's owner checks and reuses it.
 */
#include "app/blk_smp_check.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch/x86_64/cpu/cpu.h"
#include "arch/x86_64/smp/smp.h"
#include "arch/x86_64/cpu/tsc.h"
#include "bench/bench_common.h"
#include "app/blk_check.h"
#include "drivers/deadline.h"

#define SMP_CHECK_MAX_DEPTH 256u
#define SMP_CHECK_BUSY (-16)

enum smp_slot_state { SLOT_IDLE, SLOT_INFLIGHT, SLOT_DONE };

/* One request context; the completion cookie points at it. */
struct smp_check_slot {
	void *buf;
	uint64_t sector;
	int status;
	int state; /* enum smp_slot_state; DONE is published by the poller */
};

struct smp_check_job {
	unsigned int queue;
	struct smp_check_slot slots[SMP_CHECK_MAX_DEPTH];
	/* results of the current phase */
	uint64_t requests, errors, mismatches, first_bad_sector;
	int rc;
	unsigned int abandoned; /* requests left in flight when the job gave up */
	uint8_t *private_copy;	/* arena mode: where read data is checked */
} __attribute__((aligned(64)));

struct smp_check_run {
	struct virtio_blk *blk;
	bool write;
	unsigned int ncpus, iodepth, mode;
	size_t bs;
	uint64_t first, nblocks, stride;
	struct smp_check_job job[SMP_MAX_CPUS];
};

/* Reads check against the CPU after us: its blocks, written from another CPU. */
static unsigned int smp_check_owner(const struct smp_check_run *run, unsigned int cpu)
{
	return run->write ? cpu : (cpu + 1) % run->ncpus;
}

static void smp_check_fill(const struct smp_check_run *run, uint8_t *p, uint64_t sector)
{
	for (size_t b = 0; b < run->bs; b++)
		p[b] = blk_pattern_byte(sector * VIRTIO_BLK_SECTOR + b, run->mode);
}

/* Compares a completed read with the pattern. Arena buffers are shared, so the
 * data is first copied once into the job's private buffer and only the copy is
 * compared: C code reading shared memory directly may read a byte twice. */
static void smp_check_verify(const struct smp_check_run *run, struct smp_check_job *job,
			     const uint8_t *buf, uint64_t sector)
{
	const uint8_t *p = buf;

	if (run->mode == KDMA_ARENA) {
		memcpy(job->private_copy, buf, run->bs);
		p = job->private_copy;
	}
	for (size_t b = 0; b < run->bs; b++) {
		if (p[b] != blk_pattern_byte(sector * VIRTIO_BLK_SECTOR + b, run->mode)) {
			if (!job->mismatches++)
				job->first_bad_sector = sector + b / VIRTIO_BLK_SECTOR;
			return;
		}
	}
}

static void smp_check_job_fn(void *arg, unsigned int cpu)
{
	struct smp_check_run *run = arg;
	struct smp_check_job *job = &run->job[cpu];
	enum virtio_blk_op op = run->write ? VIRTIO_BLK_OP_WRITE : VIRTIO_BLK_OP_READ;
	uint64_t per_req = run->bs / VIRTIO_BLK_SECTOR;
	uint64_t next = smp_check_owner(run, cpu); /* block index i, stepping by ncpus */
	unsigned int inflight = 0;
	struct deadline d;

	for (unsigned int s = 0; s < run->iodepth; s++)
		job->slots[s].state = SLOT_IDLE;
	/* The device deadline restarts whenever one of our requests completes. */
	deadline_start(&d, 0);
	for (;;) {
		struct virtio_blk_completion c[32];
		int got;

		for (unsigned int s = 0; s < run->iodepth; s++) {
			struct smp_check_slot *slot = &job->slots[s];
			uint64_t sector;
			int rc;

			if (__atomic_load_n(&slot->state, __ATOMIC_ACQUIRE) == SLOT_DONE) {
				deadline_start(&d, 0);
				inflight--;
				job->requests++;
				if (slot->status) {
					if (!job->errors++)
						job->first_bad_sector = slot->sector;
				} else if (!run->write) {
					smp_check_verify(run, job, slot->buf, slot->sector);
				}
				slot->state = SLOT_IDLE;
			}
			if (slot->state != SLOT_IDLE || next >= run->nblocks || job->rc)
				continue;
			/* Next block of our share into this idle slot. */
			sector = run->first + (next * run->stride) % run->nblocks * per_req;
			if (run->write)
				smp_check_fill(run, slot->buf, sector);
			slot->sector = sector;
			/* In flight before the device sees it: a poller on another CPU
			 * may mark it done as soon as it is submitted. */
			slot->state = SLOT_INFLIGHT;
			rc = virtio_blk_submit(run->blk, job->queue, op, sector, slot->buf, run->bs,
					       slot);
			if (rc) {
				slot->state = SLOT_IDLE;
				if (rc != SMP_CHECK_BUSY)
					job->rc = rc;
				break; /* busy: queue or bounce pool full, reap first */
			}
			inflight++;
			next += run->ncpus;
		}
		if (!inflight && (next >= run->nblocks || job->rc))
			return;
		if (job->rc && job->rc != SMP_CHECK_BUSY && inflight) {
			/* Our requests may never come back (a broken queue, a device
			 * that stopped answering): leave them; the caller stops the
			 * device before their buffers are freed. */
			job->abandoned = inflight;
			return;
		}
		virtio_blk_kick(run->blk, job->queue);
		got = virtio_blk_poll(run->blk, job->queue, c, 32);
		if (got < 0) {
			job->rc = got;
			continue;
		}
		if (!got && inflight && deadline_passed(&d)) {
			job->rc = DEVICE_ERR_TIMEDOUT;
			continue;
		}
		for (int k = 0; k < got; k++) {
			struct smp_check_slot *slot = c[k].cookie;

			slot->status = c[k].status;
			__atomic_store_n(&slot->state, SLOT_DONE, __ATOMIC_RELEASE);
		}
	}
}

/* One phase on every CPU; prints each CPU's line. Returns failures. */
static int smp_check_phase(struct smp_check_run *run, const char *name)
{
	int failures = 0;
	uint64_t t0 = rdtsc(), t1;

	for (unsigned int c = 0; c < run->ncpus; c++) {
		struct smp_check_job *job = &run->job[c];

		job->requests = job->errors = job->mismatches = job->first_bad_sector = 0;
		job->rc = 0;
		job->abandoned = 0;
	}
	smp_run(run->ncpus, smp_check_job_fn, run);
	t1 = rdtsc();
	for (unsigned int c = 0; c < run->ncpus; c++) {
		const struct smp_check_job *job = &run->job[c];
		unsigned int owner = smp_check_owner(run, c);

		printf("blk-smp: mode=%s cpu %u queue %u %s %" PRIu64
		       " requests (blocks of cpu %u), "
		       "%" PRIu64 " errors, %" PRIu64 " mismatches",
		       name, c, job->queue, run->write ? "wrote" : "read back", job->requests,
		       owner, job->errors, job->mismatches);
		if (job->errors || job->mismatches)
			printf(", first bad sector %" PRIu64, job->first_bad_sector);
		if (job->rc == DEVICE_ERR_TIMEDOUT)
			printf(", the device completed nothing in %u ms (%u requests abandoned)",
			       deadline_timeout_ms(), job->abandoned);
		else if (job->rc)
			printf(", device or submit failed (%d; %u requests abandoned)", job->rc,
			       job->abandoned);
		printf(", %.3f s\n", tsc_to_ns(t1 - t0) / 1e9);
		failures += job->errors || job->mismatches || job->rc || !job->requests;
	}
	return failures;
}

int blk_smp_check(struct virtio_blk *blk, struct kernel_dma *kd, const struct kdma_config *cfg,
		  unsigned int iodepth, size_t bs)
{
	static struct smp_check_run run;
	const char *name = kernel_dma_config_name(cfg);
	uint64_t count;
	int failures = 0, rc;

	memset(&run, 0, sizeof(run));
	run.blk = blk;
	run.ncpus = smp_cpu_count();
	run.iodepth = iodepth < SMP_CHECK_MAX_DEPTH ? iodepth : SMP_CHECK_MAX_DEPTH;
	run.mode = cfg->mode;
	run.bs = bs;
	blk_check_region(blk->capacity, bs, cfg->mode, &run.first, &count);
	run.nblocks = count / (bs / VIRTIO_BLK_SECTOR);
	if (run.nblocks < run.ncpus) {
		printf("blk-smp: mode=%s disk too small for a pattern region\n", name);
		return 1;
	}
	run.stride = run.nblocks / 2 + 1;
	while (gcd64(run.stride, run.nblocks) != 1)
		run.stride++;
	for (unsigned int c = 0; c < run.ncpus; c++) {
		run.job[c].queue = c % blk->nqueues;
		run.job[c].private_copy = cfg->mode == KDMA_ARENA ? malloc(bs) : NULL;
		if (cfg->mode == KDMA_ARENA && !run.job[c].private_copy) {
			printf("blk-smp: mode=%s no memory\n", name);
			failures = 1;
			goto out;
		}
		for (unsigned int s = 0; s < run.iodepth; s++) {
			run.job[c].slots[s].buf = kernel_dma_buf_alloc(kd, cfg->mode, bs);
			if (!run.job[c].slots[s].buf) {
				printf("blk-smp: mode=%s cannot allocate buffers\n", name);
				failures = 1;
				goto out;
			}
		}
	}
	run.write = true;
	failures += smp_check_phase(&run, name);
	if (!failures && blk->has_flush &&
	    (rc = virtio_blk_rw(blk, VIRTIO_BLK_OP_FLUSH, 0, NULL, 0))) {
		printf("blk-smp: mode=%s flush failed (%d)\n", name, rc);
		failures++;
	}
	if (!failures) {
		run.write = false;
		failures += smp_check_phase(&run, name);
	}
	printf("blk-smp: mode=%s %u CPUs wrote sectors %" PRIu64 "..%" PRIu64 " at once and read "
	       "each other's blocks back: %s\n",
	       name, run.ncpus, run.first, run.first + count - 1,
	       failures ? "FAILED" : "all correct");
out:
	/* Requests a failed phase left in flight are taken back by stopping the
	 * device; if it does not reset, their buffers are its own for good. */
	for (unsigned int q = 0; q < blk->nqueues; q++)
		if (virtio_blk_inflight(blk, q) && virtio_blk_stop(blk)) {
			printf("blk-smp: mode=%s the device did not reset: %" PRIu64
			       " bytes and %" PRIu64 " mappings quarantined, never reused\n",
			       name, blk->quarantined_bytes, blk->quarantined_mappings);
			return failures + 1;
		}
	for (unsigned int c = 0; c < run.ncpus; c++) {
		for (unsigned int s = 0; s < run.iodepth; s++)
			kernel_dma_buf_free(kd, cfg->mode, run.job[c].slots[s].buf);
		free(run.job[c].private_copy);
	}
	return failures;
}
