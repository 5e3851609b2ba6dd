/* SPDX-License-Identifier: MIT */
/*
 * fuzz_virtio_reset.c - the virtio-blk and virtio-net drivers against a device
 * whose reset fails (tests/fakes/fake_virtio.h), at the points where a driver resets
 * it: the negotiation, the clean-up of an init that failed after the device
 * was given rings and buffers, the removal of a working device, and (blk) the
 * stop after a request missed its deadline or broke its queue, (net) the
 * removal after the control command missed its deadline.
 *
 * The adversary controls which reset calls fail (a script, and "every one from
 * FEATURES_OK on"), where init fails (DRIVER_OK refused, a queue set-up
 * refused, a configuration read that fails), what the device holds when the
 * reset fails (requests or frames in flight, answered or not, on any queue,
 * indirect tables, buffers bounced or in place), whether the request of
 * virtio_blk_rw() is never answered or breaks its queue, and the bounce
 * policy, scrub mode and confidential mode.
 *
 * Checked, whenever a reset fails while the device holds anything: the driver
 * quarantines, exactly once; it unmaps nothing (no DMA unmap or coherent free),
 * frees nothing (no free(), no buffer given back to the net allocator, no
 * in-place unmap); it counts exactly the rings (the control queue's and the
 * indirect tables included), request slots, command buffer and in-flight
 * buffers the device holds, in bytes and mappings, in the driver and in the
 * quarantine ledger; a second removal changes nothing and counts nothing; it
 * accepts no new request (blk: submit and poll return -5), and a late write
 * by the device into everything it holds reaches neither the caller's buffer
 * nor any mapping or coherent memory the layer hands out afterwards (none
 * overlaps what is held). When the negotiation's reset fails, init fails and
 * nothing is kept or counted. When a reset completes nothing is quarantined.
 * At the end the device lets go and a removal frees everything; the layer is
 * then empty.
 */
#include "tests/fuzz/fuzz_net.h"

#include <sanitizer/asan_interface.h>
#include <string.h>

#include "drivers/virtio/virtio_blk.h"
#include "tests/fuzz/fuzz_blk.h"

#define VRS_MAX_OPS 200u
#define VRS_BUDGET 16u
/* Block side: requests of up to 16 KiB on up to two queues of up to 64. */
#define VRB_MAX_REQS 128u
#define VRB_MAX_LEN (16u * 1024u)
#define VRB_SLOT_BYTES 32u
#define VRB_CAPACITY 4096u
#define VRB_MAX_HELD (6u + VRB_MAX_REQS * (VIRTIO_BLK_MAX_SEGS + 2u))

/* Feature bits (virtio 1.2, 5.2.3). */
#define VRB_F_FLUSH 9
#define VRB_F_MQ 12

/* Where the reset fails. */
enum vrs_point { VRS_NEGOTIATION, VRS_INIT_FAILURE, VRS_REMOVE, VRS_DEADLINE };

/**
 * struct vrb_req - a block request the device took.
 * @inflight: submitted, not completed.
 * @queue: its queue.
 * @len: data bytes.
 * @chain: the chain as the device found it.
 */
struct vrb_req {
	bool inflight;
	unsigned int queue;
	uint32_t len;
	struct fake_chain chain;
};

/**
 * struct vrb - the block side of a run.
 * @dev: the device.
 * @in: the input.
 * @fd: the DMA layer.
 * @blk: the driver.
 * @point: where the reset is to fail.
 * @refuse_queue: a queue set-up the device refuses (init failure), or -1.
 * @reqs: request models; the cookie of request k is &reqs[k].
 * @held: a reset failed while the device held queues; then:
 * @held_mark: the layer, heap and ledger as they were,
 * @held_bytes: what it held: bytes,
 * @held_mappings: data mappings,
 * @held_range: rings, slots and buffers,
 * @nheld_range: their number.
 */
struct vrb {
	struct fake_virtio dev;
	struct fuzz_in *in;
	struct fuzz_dma *fd;
	struct virtio_blk blk;
	enum vrs_point point;
	int refuse_queue;
	struct vrb_req reqs[VRB_MAX_REQS];
	bool held;
	struct fuzz_quarantine held_mark;
	uint64_t held_bytes, held_mappings;
	struct fuzz_range held_range[VRB_MAX_HELD];
	unsigned int nheld_range;
};

static struct vrb vrb;
static uint8_t vrb_bufs[VRB_MAX_REQS][VRB_MAX_LEN] __attribute__((aligned(64)));
static uint8_t vrb_rw_buf[4096] __attribute__((aligned(4096)));

/* ------------------------------------------------------------------ block device */

static int vrb_setup(struct fake_virtio *f, const struct fake_queue *fq)
{
	struct vrb *s = f->ctx;

	FUZZ_CHECK(mock_port_is_shared(&s->fd->mp, fq->desc, VIRTQ_DESC_TABLE_SIZE(fq->size)));
	FUZZ_CHECK(mock_port_is_shared(&s->fd->mp, fq->avail, VIRTQ_AVAIL_SIZE(fq->size)));
	FUZZ_CHECK(mock_port_is_shared(&s->fd->mp, fq->used, VIRTQ_USED_SIZE(fq->size)));
	return fq->index == s->refuse_queue ? -5 : 0;
}

static void vrb_hold(struct vrb *s, uint64_t addr, uint64_t len)
{
	FUZZ_CHECK(s->nheld_range < VRB_MAX_HELD);
	s->held_range[s->nheld_range++] = (struct fuzz_range){ addr, len };
}

/* A reset that fails while the device holds queues: what it holds now. */
static void vrb_reset(struct fake_virtio *f, bool completes)
{
	struct vrb *s = f->ctx;
	struct fake_chain fc;

	if (completes || !f->nq || s->held)
		return;
	s->held = true;
	fuzz_quarantine_mark(&s->held_mark, s->fd);
	for (unsigned int i = 0; i < f->nq; i++) {
		const struct fake_queue *fq = &f->q[i];
		unsigned int n = fq->size;

		/* A request the device has not taken yet (virtio_blk_rw()'s) is its
		 * all the same: it is on the ring. */
		while (fake_virtio_avail_pending(f, fq->index)) {
			FUZZ_CHECK(fake_virtio_pop(f, fq->index, &fc) == 1 && fc.n >= 2);
			for (unsigned int j = 0; j < fc.n; j++) {
				vrb_hold(s, fc.addr[j], fc.len[j]);
				if (j && j + 1 < fc.n)
					s->held_bytes += fc.len[j];
			}
			s->held_mappings += fc.n - 2;
		}

		vrb_hold(s, (uintptr_t)fq->desc, VIRTQ_DESC_TABLE_SIZE(n));
		vrb_hold(s, (uintptr_t)fq->avail, VIRTQ_AVAIL_SIZE(n));
		vrb_hold(s, (uintptr_t)fq->used, VIRTQ_USED_SIZE(n));
		s->held_bytes += VIRTQ_DESC_TABLE_SIZE(n) + VIRTQ_AVAIL_SIZE(n) +
				 VIRTQ_USED_SIZE(n) + (uint64_t)n * VRB_SLOT_BYTES;
		if (f->accepted & VIRTIO_FEATURE(VIRTIO_F_RING_INDIRECT_DESC))
			s->held_bytes += (uint64_t)n * VIRTQ_INDIRECT_MAX * 16u;
	}
	for (unsigned int k = 0; k < VRB_MAX_REQS; k++) {
		const struct vrb_req *r = &s->reqs[k];

		if (!r->inflight)
			continue;
		for (unsigned int j = 0; j < r->chain.n; j++)
			vrb_hold(s, r->chain.addr[j], r->chain.len[j]);
		s->held_bytes += r->len;
		s->held_mappings += r->chain.n - 2;
	}
}

/* The device takes the chain of request @k (just submitted on queue @qi). */
static void vrb_take(struct vrb *s, unsigned int qi, unsigned int k)
{
	struct vrb_req *r = &s->reqs[k];
	bool conf = s->dev.vdev.confidential;

	FUZZ_CHECK(fake_virtio_pop(&s->dev, (uint16_t)qi, &r->chain) == 1);
	FUZZ_CHECK(r->chain.n >= 3 && r->chain.len[0] == 16 && r->chain.len[r->chain.n - 1] == 1);
	for (unsigned int j = 0; j < r->chain.n; j++)
		FUZZ_CHECK(!conf ||
			   mock_port_is_shared(&s->fd->mp, (void *)(uintptr_t)r->chain.addr[j],
					       r->chain.len[j]));
	r->inflight = true;
	r->queue = qi;
}

static void vrb_submit(struct vrb *s)
{
	struct fuzz_in *in = s->in;
	uint8_t how = fuzz_u8(in);
	unsigned int qi = (how >> 7) % s->blk.nqueues, k;
	uint32_t len = 512u * (1 + fuzz_below(in, VRB_MAX_LEN / 512));
	enum virtio_blk_op op = how & 1 ? VIRTIO_BLK_OP_WRITE : VIRTIO_BLK_OP_READ;
	int rc;

	for (k = 0; k < VRB_MAX_REQS && s->reqs[k].inflight; k++)
		;
	if (k == VRB_MAX_REQS)
		return;
	s->reqs[k].len = len;
	fuzz_fill(vrb_bufs[k], len, (uint8_t)k);
	rc = virtio_blk_submit(&s->blk, qi, op, fuzz_u8(in), vrb_bufs[k], len, &s->reqs[k]);
	FUZZ_CHECK(rc == 0 || rc == -16 || rc == -5);
	if (!rc) {
		virtio_blk_kick(&s->blk, qi);
		vrb_take(s, qi, k);
	}
}

/* The device completes a request it took, correctly; the driver polls. */
static void vrb_complete(struct vrb *s)
{
	unsigned int k = fuzz_below(s->in, VRB_MAX_REQS), n = 0;
	struct virtio_blk_completion c;
	struct vrb_req *r;

	for (unsigned int i = 0; i < VRB_MAX_REQS && !s->reqs[k].inflight; i++)
		k = (k + 1) % VRB_MAX_REQS;
	r = &s->reqs[k];
	if (!r->inflight)
		return;
	*(uint8_t *)(uintptr_t)r->chain.addr[r->chain.n - 1] = 0; /* VIRTIO_BLK_S_OK */
	fake_virtio_push(&s->dev, (uint16_t)r->queue, r->chain.head,
			 r->chain.write[1] ? r->len + 1 : 1);
	for (int got; (got = virtio_blk_poll(&s->blk, r->queue, &c, 1)) == 1; n++) {
		struct vrb_req *done = c.cookie;

		FUZZ_CHECK(done >= s->reqs && done < s->reqs + VRB_MAX_REQS && done->inflight);
		FUZZ_CHECK(c.status == 0);
		done->inflight = false;
	}
	FUZZ_CHECK(n == 1);
}

/*
 * A request the device never answers, or whose queue it breaks: virtio_blk_rw()
 * gives up at its deadline (or at once) and stops the device. Unless the bounce
 * pool is full of the other queue's requests and none is in flight on queue 0:
 * nothing there can free a slot, and it returns "busy" at once, the device
 * untouched (then false).
 */
static bool vrb_rw_deadline(struct vrb *s)
{
	bool breaks = fuzz_u8(s->in) & 1, write = fuzz_u8(s->in) & 1;
	int rc;

	if (breaks) {
		/* used->idx far ahead of the requests in flight: the first poll
		 * finds the queue broken. */
		struct fake_queue *fq = fake_virtio_queue(&s->dev, 0);

		fake_virtio_set_idx(&s->dev, 0, (uint16_t)(fq->used_idx + 0x100));
	}
	rc = virtio_blk_rw(&s->blk, write ? VIRTIO_BLK_OP_WRITE : VIRTIO_BLK_OP_READ, 0, vrb_rw_buf,
			   sizeof(vrb_rw_buf));
	if (rc == -16) {
		FUZZ_CHECK(!virtio_blk_inflight(&s->blk, 0) && !s->blk.stopped);
		return false;
	}
	FUZZ_CHECK(rc == (breaks ? -5 : -110));
	FUZZ_CHECK(s->blk.stopped);
	if (!breaks)
		FUZZ_CHECK(fuzz_clock_ticks() >= VRS_BUDGET && fuzz_clock_ticks() < 4 * VRS_BUDGET);
	return true;
}

/* After a removal (or the stop inside virtio_blk_rw()) whose reset may have
 * failed: the contract, then the device lets go. */
static void vrb_quarantine_check(struct vrb *s, const struct fuzz_quarantine *mark)
{
	if (!s->blk.quarantined) {
		FUZZ_CHECK(!s->held);
		fuzz_quarantine_none(mark);
		return;
	}
	FUZZ_CHECK(s->held);
	FUZZ_CHECK(s->blk.quarantined_bytes == s->held_bytes &&
		   s->blk.quarantined_mappings == s->held_mappings);
	mark = &s->held_mark; /* from the failed reset on */
	fuzz_quarantine_check(mark, s->fd, s->held_bytes, s->held_mappings);
	fblk_check_stopped(&s->blk, vrb_bufs[0], s);
	fuzz_quarantine_check(mark, s->fd, s->held_bytes, s->held_mappings);
	fuzz_quarantine_reuse(s->fd, s->held_range, s->nheld_range);
	/* The caller's buffer of a request given up on is never written again. */
	FUZZ_CHECK(fuzz_fill_matches(vrb_rw_buf, sizeof(vrb_rw_buf), 0x3c));
	fblk_release(&s->blk, &s->dev);
}

/*
 * The resets that fail, from the input: the negotiation's alone
 * (VRS_NEGOTIATION), or a script of later reset calls that always includes
 * the first after the negotiation's (init's clean-up, or the removal's), and
 * perhaps every one from FEATURES_OK on (@feat bit 7).
 */
static void vrs_script(struct fake_virtio *dev, struct fuzz_in *in, uint8_t feat,
		       enum vrs_point point)
{
	dev->reset_script = (uint32_t)fuzz_u8(in) << 1;
	dev->reset_fails_after_init = feat & 0x80;
	if (point == VRS_NEGOTIATION) {
		dev->reset_script = 1;
		dev->reset_fails_after_init = false;
	} else {
		dev->reset_script |= 2;
	}
}

static void vrb_run(struct fuzz_in *in, uint8_t mode)
{
	struct vrb *s = &vrb;
	struct fuzz_quarantine mark;
	uint8_t feat = fuzz_u8(in), b = fuzz_u8(in);
	uint64_t capacity = VRB_CAPACITY;
	uint16_t nq = 2;
	char why[128];
	int rc;

	memset(s, 0, sizeof(*s));
	fuzz_fill(vrb_rw_buf, sizeof(vrb_rw_buf), 0x3c);
	s->in = in;
	s->point = (enum vrs_point)(mode >> 6);
	s->refuse_queue = -1;
	fake_virtio_init(&s->dev, VIRTIO_ID_BLOCK, 0, (uint16_t)(1 + (feat & 1)));
	s->dev.vdev.confidential = mode & 2;
	s->dev.ctx = s;
	s->dev.on_setup = vrb_setup;
	s->dev.on_reset = vrb_reset;
	s->dev.max_size = (uint16_t)(8u << (b & 3));
	if (feat & 1)
		s->dev.offered |= VIRTIO_FEATURE(VRB_F_MQ);
	if (feat & 2)
		s->dev.offered |= VIRTIO_FEATURE(VIRTIO_F_RING_INDIRECT_DESC);
	if (feat & 4)
		s->dev.offered |= VIRTIO_FEATURE(VRB_F_FLUSH);
	memcpy(s->dev.cfg, &capacity, 8);
	memcpy(s->dev.cfg + 34, &nq, 2);
	/* The reset that is to fail, and perhaps others; or all from FEATURES_OK on. */
	vrs_script(&s->dev, in, feat, s->point);
	/* Init fails at a queue set-up the device refuses (of a queue it has), or DRIVER_OK. */
	if (s->point == VRS_INIT_FAILURE && (feat & 8) && ((feat >> 4) & 1) < s->dev.num_queues)
		s->refuse_queue = (feat >> 4) & 1;
	else if (s->point == VRS_INIT_FAILURE)
		s->dev.refuse_driver_ok = true;
	s->fd = fuzz_dma_begin(in, (enum sluice_dma_bounce_policy)((mode >> 2) & 3), 1,
			       (mode & 0x10) ? SLUICE_DMA_SCRUB_ZERO : SLUICE_DMA_SCRUB_COPY,
			       FUZZ_DMA_ONE_POOL);
	fuzz_clock_start(VRS_BUDGET, NULL, NULL);
	fuzz_quarantine_mark(&mark, s->fd);
	rc = virtio_blk_init(&s->blk, &s->dev.vdev, &s->fd->dl, 2, 0, why, sizeof(why));
	if (s->point == VRS_NEGOTIATION) {
		/* Nothing was given: nothing kept, nothing counted. */
		FUZZ_CHECK(rc == -5 && !s->blk.quarantined && s->dev.failed_resets == 1);
		fuzz_quarantine_none(&mark);
		fuzz_dma_end(s->fd);
		return;
	}
	if (s->point == VRS_INIT_FAILURE) {
		FUZZ_CHECK(rc != 0 && s->blk.quarantined);
		vrb_quarantine_check(s, &mark);
		fuzz_dma_end(s->fd);
		return;
	}
	FUZZ_CHECK(rc == 0);
	for (unsigned int ops = 0; fuzz_more(in) && ops < VRS_MAX_OPS; ops++) {
		switch (fuzz_u8(in) & 3) {
		case 0:
		case 1:
			vrb_submit(s);
			break;
		case 2:
			vrb_complete(s);
			break;
		default:
			ops = VRS_MAX_OPS; /* enough: on to the reset */
			break;
		}
	}
	fuzz_quarantine_mark(&mark, s->fd);
	if (s->point == VRS_DEADLINE && vrb_rw_deadline(s)) {
		vrb_quarantine_check(s, &mark);
	} else {
		rc = virtio_blk_remove(&s->blk);
		FUZZ_CHECK(rc == (s->blk.quarantined ? -5 : 0));
		vrb_quarantine_check(s, &mark);
	}
	fuzz_dma_end(s->fd);
}

/* ------------------------------------------------------------------ network device */

/* The network device from the input: one pair, or two for VRS_DEADLINE (the
 * second needs the control command, which no one answers). */
static void vrn_device(struct fnet *s, struct fuzz_in *in, uint8_t mode, enum vrs_point point,
		       unsigned int pairs)
{
	uint8_t feat = fuzz_u8(in), b = fuzz_u8(in);
	uint16_t max_pairs = 2;

	/* fnet's mode: confidential, policy, scrub, in place. */
	fnet_begin(s, in, (uint8_t)(((mode >> 1) & 0x1f) & ~0x20), FUZZ_DMA_ONE_POOL);
	s->dev.offered = VIRTIO_FEATURE(VIRTIO_F_VERSION_1) |
			 VIRTIO_FEATURE(VIRTIO_F_ACCESS_PLATFORM) | VIRTIO_FEATURE(FNET_F_MAC);
	s->dev.max_size = (uint16_t)(4u << (b & 3));
	fuzz_bytes(in, s->dev.cfg, 6);
	if (pairs > 1) {
		s->dev.offered |= VIRTIO_FEATURE(FNET_F_MQ) | VIRTIO_FEATURE(FNET_F_CTRL_VQ);
		s->usable |= VIRTIO_FEATURE(FNET_F_MQ) | VIRTIO_FEATURE(FNET_F_CTRL_VQ);
		s->dev.num_queues = 5;
		memcpy(s->dev.cfg + 8, &max_pairs, 2);
	}
	vrs_script(&s->dev, in, feat, point);
	/* Init fails reading the MAC, or at DRIVER_OK. */
	if (point == VRS_INIT_FAILURE && (feat & 1))
		s->dev.cfg_fails = true;
	else if (point == VRS_INIT_FAILURE)
		s->dev.refuse_driver_ok = true;
}

/* virtio_net_init_mq() on the device, checked; false when it was to fail (the
 * run is then over, checked and released). */
static bool vrn_init(struct fnet *s, enum vrs_point point, unsigned int pairs)
{
	struct virtio_net_buffers bufs = fnet_buffers(s);
	struct fuzz_quarantine mark;
	char why[160];
	int rc;

	fuzz_clock_start(VRS_BUDGET, NULL, NULL);
	fuzz_quarantine_mark(&mark, s->fd);
	rc = virtio_net_init_mq(&s->net, &s->dev.vdev, &s->fd->dl, &bufs, 0, pairs, why,
				sizeof(why));
	if (point == VRS_NEGOTIATION) {
		FUZZ_CHECK(rc == -5 && !s->net.quarantined && s->dev.failed_resets == 1);
		fuzz_quarantine_none(&mark);
		fnet_drop(s);
		return false;
	}
	if (point == VRS_INIT_FAILURE) {
		/* Quarantined even when it fails before any queue (a MAC that
		 * cannot be read): the reset failed, and nothing more is known. */
		FUZZ_CHECK(rc != 0 && s->net.quarantined);
		fnet_init_failed(s, &mark);
		return false;
	}
	FUZZ_CHECK(rc == 0 && s->net.npairs == 1 && s->net.pairs_allocated == pairs);
	FUZZ_CHECK(s->net.ctrl_timeouts == (pairs > 1));
	if (pairs > 1)
		FUZZ_CHECK(fuzz_clock_ticks() >= VRS_BUDGET && fuzz_clock_ticks() < 4 * VRS_BUDGET);
	return true;
}

static void vrn_run(struct fuzz_in *in, uint8_t mode)
{
	struct fnet *s = &fnet;
	enum vrs_point point = (enum vrs_point)(mode >> 6);
	unsigned int pairs = point == VRS_DEADLINE ? 2 : 1;

	vrn_device(s, in, mode, point, pairs);
	if (!vrn_init(s, point, pairs))
		return;
	fnet_attach(s);
	for (unsigned int ops = 0; fuzz_more(in) && ops < VRS_MAX_OPS; ops++) {
		uint8_t op = fuzz_u8(in);

		/* A data-path step on any pair; anything else: on to the removal. */
		if (!fnet_data_op(s, op & 7, (op >> 4) % pairs))
			ops = VRS_MAX_OPS;
		fnet_take_all(s, pairs);
		fnet_check(s, false);
	}
	fnet_check(s, s->fd->deep);
	fnet_end(s);
}

int fuzz_virtio_reset_one(const uint8_t *data, size_t size)
{
	struct fuzz_in in = fuzz_in_start(data, size);
	uint8_t mode = fuzz_u8(&in);

	if (mode & 1)
		vrn_run(&in, mode);
	else
		vrb_run(&in, mode);
	return 0;
}
