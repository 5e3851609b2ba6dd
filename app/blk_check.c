/* SPDX-License-Identifier: MIT */
/*
 * blk_check.c - whole-disk read with a cksum, and a scattered pattern write.
 *
 * The read keeps @iodepth requests in flight; completions may arrive in any
 * order, but the checksum must see the disk in order, so each request owns a
 * buffer slot that is checksummed and reused strictly in submission order.
 */
#include "app/blk_check.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch/x86_64/cpu/cpu.h"
#include "arch/x86_64/cpu/tsc.h"
#include "bench/bench_common.h"
#include "app/cksum.h"
#include "drivers/deadline.h"

struct blk_slot {
	void *buf;
	unsigned int queue;
	uint64_t sector;
	uint32_t len;
	int status;
	int done;
};

void blk_check_region(uint64_t capacity, size_t bs, unsigned int mode, uint64_t *first,
		      uint64_t *count)
{
	uint64_t per_req = bs / VIRTIO_BLK_SECTOR;
	uint64_t region = capacity / 4 / 3;

	region -= region % per_req;
	*first = capacity - capacity / 4 + mode * region;
	*count = region;
}

/* Requests are spread over every queue the device gave us, slot by slot. */
static unsigned int blk_inflight(const struct virtio_blk *blk)
{
	unsigned int n = 0;

	for (unsigned int q = 0; q < blk->nqueues; q++)
		n += virtio_blk_inflight(blk, q);
	return n;
}

static void blk_kick_all(struct virtio_blk *blk)
{
	for (unsigned int q = 0; q < blk->nqueues; q++)
		virtio_blk_kick(blk, q);
}

/* Polls every queue once; marks the slots of finished requests done. Returns the
 * completions, or a negative code when a queue broke (nothing more will come). */
static int blk_reap(struct virtio_blk *blk, struct blk_slot *slots)
{
	struct virtio_blk_completion c[32];
	int total = 0;

	(void)slots;
	for (unsigned int q = 0; q < blk->nqueues; q++) {
		int n = virtio_blk_poll(blk, q, c, 32);

		if (n < 0)
			return n;
		for (int i = 0; i < n; i++) {
			struct blk_slot *s = c[i].cookie;

			s->status = c[i].status;
			s->done = 1;
		}
		total += n;
	}
	return total;
}

/*
 * Waits for the device to complete something. Every wait of the checks goes
 * through here: the device deadline restarts with each completion, and a device
 * that completes nothing within it, or breaks a queue, fails the check.
 * Returns completions (> 0), DEVICE_ERR_TIMEDOUT, or the queue's error.
 */
static int blk_wait(struct virtio_blk *blk, struct blk_slot *slots, struct deadline *d)
{
	int n;

	blk_kick_all(blk);
	n = blk_reap(blk, slots);
	if (n > 0)
		deadline_start(d, 0);
	else if (!n && deadline_passed(d))
		n = DEVICE_ERR_TIMEDOUT;
	return n;
}

/*
 * blk_wait() in a check's main loop: a device given up on (nothing completed
 * within the deadline, a broken queue) is said why. Returns whether it was.
 */
static bool blk_wait_gave_up(struct virtio_blk *blk, struct blk_slot *slots, struct deadline *d,
			     const char *mname)
{
	int rc = blk_wait(blk, slots, d);

	if (rc >= 0)
		return false;
	if (rc == DEVICE_ERR_TIMEDOUT)
		printf("blk: mode=%s the device completed nothing in %u ms: stopped\n", mname,
		       deadline_timeout_ms());
	else
		printf("blk: mode=%s the device broke its queue (%d): stopped\n", mname, rc);
	return true;
}

/* Submits, retrying while the queue or the bounce pool is full. */
static int blk_submit_retry(struct virtio_blk *blk, struct blk_slot *slots, enum virtio_blk_op op,
			    struct blk_slot *s, struct deadline *d)
{
	for (;;) {
		int rc = virtio_blk_submit(blk, s->queue, op, s->sector, s->buf, s->len, s);

		if (rc != -16)
			return rc;
		/* Busy: room comes back only as requests complete. */
		if (!blk_inflight(blk))
			return rc;
		rc = blk_wait(blk, slots, d);
		if (rc < 0)
			return rc;
	}
}

static int blk_check_slots_alloc(struct virtio_blk *blk, struct blk_slot *slots,
				 struct kernel_dma *kd, enum kernel_dma_mode mode,
				 unsigned int iodepth, size_t bs)
{
	for (unsigned int i = 0; i < iodepth; i++) {
		slots[i].queue = i % blk->nqueues;
		slots[i].buf = kernel_dma_buf_alloc(kd, mode, bs);
		if (!slots[i].buf) {
			printf("blk: mode=%s cannot allocate %u buffers of %zu bytes\n",
			       kernel_dma_mode_name(mode), iodepth, bs);
			return -1;
		}
	}
	return 0;
}

/*
 * After a failure requests may still be in flight: they get the device deadline
 * to complete; then the device is stopped, which takes them back if it resets.
 * If it does not, their buffers are the device's for good: never freed. Returns
 * the extra failure to count.
 */
static int blk_check_slots_free(struct virtio_blk *blk, struct blk_slot *slots,
				struct kernel_dma *kd, enum kernel_dma_mode mode,
				unsigned int iodepth)
{
	struct deadline d;
	int rc = 0;

	deadline_start(&d, 0);
	while (blk_inflight(blk) && !blk->stopped && rc >= 0)
		rc = blk_wait(blk, slots, &d);
	if (blk_inflight(blk) && virtio_blk_stop(blk)) {
		printf("blk: mode=%s the device did not reset: %u requests in flight, %" PRIu64
		       " bytes and %" PRIu64 " mappings quarantined, never reused\n",
		       kernel_dma_mode_name(mode), blk_inflight(blk), blk->quarantined_bytes,
		       blk->quarantined_mappings);
		free(slots);
		return 1;
	}
	for (unsigned int i = 0; i < iodepth; i++)
		kernel_dma_buf_free(kd, mode, slots[i].buf);
	free(slots);
	return 0;
}

int blk_check_read(struct virtio_blk *blk, struct kernel_dma *kd, const struct kdma_config *cfg,
		   unsigned int iodepth, size_t bs)
{
	const char *mname = kernel_dma_config_name(cfg);
	enum kernel_dma_mode mode = cfg->mode;
	uint64_t total = blk->capacity * VIRTIO_BLK_SECTOR, submitted = 0, checked = 0;
	uint64_t t0, t1;
	struct blk_slot *slots = calloc(iodepth, sizeof(*slots));
	unsigned int head = 0, tail = 0; /* submission and checksum order */
	struct cksum ck;
	struct deadline d;
	/* Arena buffers are shared: the host may change them at any time. The data
	 * is copied once into private memory and only the copy is checked. */
	uint8_t *private_copy = mode == KDMA_ARENA ? malloc(bs) : NULL;
	int failures = 0, rc;

	if (!slots || (mode == KDMA_ARENA && !private_copy)) {
		free(slots);
		free(private_copy);
		return 1;
	}
	if (blk_check_slots_alloc(blk, slots, kd, mode, iodepth, bs)) {
		failures = 1;
		goto out;
	}

	/* Read it all; checksum in order of submission. */
	cksum_init(&ck);
	deadline_start(&d, 0);
	t0 = rdtsc();
	while (checked < total) {
		while (submitted < total && head - tail < iodepth) {
			struct blk_slot *s = &slots[head % iodepth];

			s->sector = submitted / VIRTIO_BLK_SECTOR;
			s->len = (uint32_t)(total - submitted < bs ? total - submitted : bs);
			s->done = 0;
			rc = blk_submit_retry(blk, slots, VIRTIO_BLK_OP_READ, s, &d);
			if (rc) {
				printf("blk: mode=%s submit of sector %" PRIu64 " failed (%d)\n",
				       mname, s->sector, rc);
				failures++;
				goto out;
			}
			submitted += s->len;
			head++;
		}
		if (blk_wait_gave_up(blk, slots, &d, mname)) {
			failures++;
			goto out;
		}
		while (tail != head && slots[tail % iodepth].done) {
			struct blk_slot *s = &slots[tail % iodepth];

			if (s->status) {
				printf("blk: mode=%s read of sector %" PRIu64 " failed (%d)\n",
				       mname, s->sector, s->status);
				failures++;
			}
			if (private_copy) {
				memcpy(private_copy, s->buf, s->len);
				cksum_update(&ck, private_copy, s->len);
			} else {
				cksum_update(&ck, s->buf, s->len);
			}
			checked += s->len;
			tail++;
		}
	}
	t1 = rdtsc();
	printf("blk: mode=%s read %" PRIu64 " bytes bs=%zu iodepth=%u: cksum %" PRIu32 " %" PRIu64
	       ", %d errors, %.3f s, %.1f MB/s\n",
	       mname, total, bs, iodepth, cksum_final(&ck), ck.length, failures,
	       tsc_to_ns(t1 - t0) / 1e9, total / (tsc_to_ns(t1 - t0) / 1e3 + 1));
out:
	free(private_copy);
	return failures + blk_check_slots_free(blk, slots, kd, mode, iodepth);
}

int blk_check_write(struct virtio_blk *blk, struct kernel_dma *kd, const struct kdma_config *cfg,
		    unsigned int iodepth, size_t bs)
{
	const char *mname = kernel_dma_config_name(cfg);
	enum kernel_dma_mode mode = cfg->mode;
	uint64_t per_req = bs / VIRTIO_BLK_SECTOR, first, count, nblocks, stride, t0, t1;
	struct blk_slot *slots = calloc(iodepth, sizeof(*slots));
	unsigned int head = 0, tail = 0;
	struct deadline d;
	int failures = 0, rc;

	if (!slots)
		return 1;
	if (blk_check_slots_alloc(blk, slots, kd, mode, iodepth, bs)) {
		failures = 1;
		goto out;
	}
	blk_check_region(blk->capacity, bs, mode, &first, &count);
	nblocks = count / per_req;
	if (!nblocks) {
		printf("blk: mode=%s disk too small for a pattern region\n", mname);
		goto out;
	}
	/* Visit block (i * stride) mod nblocks: a permutation when they are coprime. */
	stride = nblocks / 2 + 1;
	while (gcd64(stride, nblocks) != 1)
		stride++;
	head = tail = 0;
	deadline_start(&d, 0);
	t0 = rdtsc();
	for (uint64_t i = 0; i < nblocks || tail != head;) {
		while (i < nblocks && head - tail < iodepth) {
			struct blk_slot *s = &slots[head % iodepth];
			uint64_t block = (i * stride) % nblocks;
			uint8_t *p = s->buf;

			s->sector = first + block * per_req;
			s->len = (uint32_t)bs;
			s->done = 0;
			for (size_t b = 0; b < bs; b++)
				p[b] = blk_pattern_byte(s->sector * VIRTIO_BLK_SECTOR + b, mode);
			rc = blk_submit_retry(blk, slots, VIRTIO_BLK_OP_WRITE, s, &d);
			if (rc) {
				printf("blk: mode=%s write submit failed (%d)\n", mname, rc);
				failures++;
				goto out;
			}
			head++;
			i++;
		}
		if (blk_wait_gave_up(blk, slots, &d, mname)) {
			failures++;
			goto out;
		}
		for (; tail != head && slots[tail % iodepth].done; tail++) {
			const struct blk_slot *s = &slots[tail % iodepth];

			if (s->status) {
				printf("blk: mode=%s write of sector %" PRIu64 " failed (%d)\n",
				       mname, s->sector, s->status);
				failures++;
			}
		}
	}
	if (blk->has_flush && (rc = virtio_blk_rw(blk, VIRTIO_BLK_OP_FLUSH, 0, NULL, 0))) {
		printf("blk: mode=%s flush failed (%d)\n", mname, rc);
		failures++;
	}
	t1 = rdtsc();
	printf("blk: mode=%s wrote pattern to sectors %" PRIu64 "..%" PRIu64 " (%" PRIu64
	       " requests, scattered, flushed), %d errors, %.3f s\n",
	       mname, first, first + count - 1, nblocks, failures, tsc_to_ns(t1 - t0) / 1e9);
out:
	return failures + blk_check_slots_free(blk, slots, kd, mode, iodepth);
}
