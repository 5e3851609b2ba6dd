/* SPDX-License-Identifier: MIT */
/*
 * virtio_blk.c - virtio-blk: configuration, queues, request submission and
 * validated completion.
 *
 * A request is a header (device-readable), the data segments, and a status byte
 * (device-writable). Headers and status bytes live in one coherent allocation
 * per queue, one slot per request context, so the hot path maps only the data.
 * Request contexts (which buffer, which mappings) are private memory: nothing
 * the device can write decides what the driver unmaps or copies.
 */
#include "drivers/virtio/virtio_blk.h"

#include "arch/kernel_errno.h"

#include "arch/x86_64/smp/spinlock.h"
#include "drivers/deadline.h"
#include "drivers/quarantine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Feature bits (virtio 1.2, 5.2.3). */
#define VIRTIO_BLK_F_SIZE_MAX 1
#define VIRTIO_BLK_F_SEG_MAX 2
#define VIRTIO_BLK_F_RO 5
#define VIRTIO_BLK_F_BLK_SIZE 6
#define VIRTIO_BLK_F_FLUSH 9
#define VIRTIO_BLK_F_MQ 12

/* Configuration layout (virtio 1.2, 5.2.4). */
#define VIRTIO_BLK_CFG_CAPACITY 0
#define VIRTIO_BLK_CFG_SIZE_MAX 8
#define VIRTIO_BLK_CFG_SEG_MAX 12
#define VIRTIO_BLK_CFG_BLK_SIZE 20
#define VIRTIO_BLK_CFG_NUM_QUEUES 34

/* Request types and status values (virtio 1.2, 5.2.6). */
#define VIRTIO_BLK_T_IN 0
#define VIRTIO_BLK_T_OUT 1
#define VIRTIO_BLK_T_FLUSH 4
#define VIRTIO_BLK_S_OK 0
#define VIRTIO_BLK_S_IOERR 1
#define VIRTIO_BLK_S_UNSUPP 2
/* Written before submission: a device that never writes the status is caught. */
#define VIRTIO_BLK_S_UNSET 0xff

/* Sanity bounds on what the host says: 2^48 sectors is 128 PiB. */
#define VIRTIO_BLK_MAX_CAPACITY (UINT64_C(1) << 48)

/**
 * struct virtio_blk_slot - the shared part of one request: header and status.
 */
struct virtio_blk_slot {
	uint32_t type;
	uint32_t reserved;
	uint64_t sector;
	uint8_t status;
	uint8_t pad[15];
};
_Static_assert(sizeof(struct virtio_blk_slot) == 32, "slot layout");
_Static_assert(offsetof(struct virtio_blk_slot, status) == 16, "header is 16 bytes");

struct virtio_blk_seg {
	uint64_t dma;
	uint32_t len;
};

/* The private part of one request. */
struct virtio_blk_req {
	void *cookie;
	enum virtio_blk_op op;
	bool inflight; /* on the ring: the device may use its buffers */
	uint32_t len;
	unsigned int nsegs;
	struct virtio_blk_seg segs[VIRTIO_BLK_MAX_SEGS];
};

struct virtio_blk_queue {
	struct virtq vq;
	bool vq_ready; /* virtq_init() succeeded: virtq_destroy() owes */
	void *vq_meta;
	struct virtio_blk_slot *slots; /* shared, one per request context */
	uint64_t slots_dma;
	struct virtio_blk_req *reqs; /* private */
	uint16_t *free_ids;
	unsigned int nfree;
	unsigned int size;
	struct virtio_blk_stats stats; /* per queue: each CPU counts only its own */
	struct spinlock lock;	       /* taken only when blk->shared_queues */
};

/* A queue is used by one CPU at a time unless the caller said otherwise; then
 * submit, kick and poll serialise on the queue's own spinlock (not the DMA
 * layer's lock op, so the DMA layer's lock statistics stay its own). */
static void virtio_blk_queue_lock(struct virtio_blk *blk, struct virtio_blk_queue *q)
{
	if (blk->shared_queues)
		spin_lock(&q->lock);
}

static void virtio_blk_queue_unlock(struct virtio_blk *blk, struct virtio_blk_queue *q)
{
	if (blk->shared_queues)
		spin_unlock(&q->lock);
}

static void virtio_blk_notify(void *ctx, uint16_t index)
{
	struct virtio_device *vdev = ctx;

	vdev->ops->queue_notify(vdev, index);
}

static uint64_t virtio_blk_seg_limit(const struct virtio_blk *blk)
{
	uint64_t limit = sluice_dma_max_mapping_size(blk->dl, &blk->tag);

	if (blk->size_max && blk->size_max < limit)
		limit = blk->size_max;
	return limit & ~(uint64_t)(VIRTIO_BLK_SECTOR - 1);
}

static int virtio_blk_read_config(struct virtio_blk *blk, char *why, size_t why_len)
{
	struct virtio_device *vdev = blk->vdev;
	uint64_t capacity;
	uint32_t v32;
	uint16_t v16;

	if (vdev->ops->config_read(vdev, VIRTIO_BLK_CFG_CAPACITY, &capacity, 8)) {
		snprintf(why, why_len, "%s: cannot read the configuration", vdev->name);
		return KERR_IO;
	}
	if (capacity > VIRTIO_BLK_MAX_CAPACITY) {
		snprintf(why, why_len, "%s: capacity of %llu sectors is implausible", vdev->name,
			 (unsigned long long)capacity);
		return KERR_RANGE;
	}
	blk->capacity = capacity;
	blk->blk_size = VIRTIO_BLK_SECTOR;
	if (virtio_has_feature(vdev, VIRTIO_BLK_F_BLK_SIZE) &&
	    !vdev->ops->config_read(vdev, VIRTIO_BLK_CFG_BLK_SIZE, &v32, 4) && v32 >= 512 &&
	    v32 <= 65536 && !(v32 & (v32 - 1)))
		blk->blk_size = v32;
	if (virtio_has_feature(vdev, VIRTIO_BLK_F_SIZE_MAX) &&
	    !vdev->ops->config_read(vdev, VIRTIO_BLK_CFG_SIZE_MAX, &v32, 4)) {
		if (v32 < VIRTIO_BLK_SECTOR) {
			snprintf(why, why_len, "%s: size_max %u is below one sector", vdev->name,
				 v32);
			return KERR_RANGE;
		}
		blk->size_max = v32;
	}
	blk->seg_max = VIRTIO_BLK_MAX_SEGS;
	if (virtio_has_feature(vdev, VIRTIO_BLK_F_SEG_MAX) &&
	    !vdev->ops->config_read(vdev, VIRTIO_BLK_CFG_SEG_MAX, &v32, 4) && v32 &&
	    v32 < blk->seg_max)
		blk->seg_max = v32;
	blk->nqueues = 1;
	if (virtio_has_feature(vdev, VIRTIO_BLK_F_MQ) &&
	    !vdev->ops->config_read(vdev, VIRTIO_BLK_CFG_NUM_QUEUES, &v16, 2) && v16 > 1)
		blk->nqueues = v16;
	blk->read_only = virtio_has_feature(vdev, VIRTIO_BLK_F_RO);
	blk->has_flush = virtio_has_feature(vdev, VIRTIO_BLK_F_FLUSH);
	return 0;
}

static int virtio_blk_setup_queue(struct virtio_blk *blk, unsigned int qi,
				  unsigned int max_queue_size)
{
	struct virtio_device *vdev = blk->vdev;
	struct virtio_blk_queue *q = &blk->queues[qi];
	unsigned int size = vdev->ops->queue_max_size(vdev, qi), flags = 0;
	uint64_t desc, driver, device;
	size_t meta_len;
	int rc;

	if (max_queue_size && size > max_queue_size)
		size = max_queue_size;
	while (size & (size - 1))
		size &= size - 1; /* the largest power of two not above */
	if (!size)
		return KERR_INVAL;
	if (vdev->confidential)
		flags |= VIRTQ_INIT_CONFIDENTIAL;
	if (virtio_has_feature(vdev, VIRTIO_F_RING_INDIRECT_DESC))
		flags |= VIRTQ_INIT_INDIRECT;
	if (virtio_has_feature(vdev, VIRTIO_F_RING_EVENT_IDX))
		flags |= VIRTQ_INIT_EVENT_IDX;
	meta_len = virtq_meta_size(size);
	q->vq_meta = malloc(meta_len);
	q->reqs = calloc(size, sizeof(*q->reqs));
	q->free_ids = calloc(size, sizeof(*q->free_ids));
	if (!q->vq_meta || !q->reqs || !q->free_ids)
		return SLUICE_DMA_ERR_NOMEM;
	rc = virtq_init(&q->vq, blk->dl, &blk->tag, (uint16_t)qi, size, q->vq_meta, meta_len, flags,
			virtio_blk_notify, vdev);
	if (rc)
		return rc;
	q->vq_ready = true;
	q->size = size;
	q->slots = sluice_dma_alloc_coherent(blk->dl, &blk->tag, size * sizeof(*q->slots),
					     &q->slots_dma);
	if (!q->slots)
		return SLUICE_DMA_ERR_NOMEM;
	for (unsigned int i = 0; i < size; i++)
		q->free_ids[i] = (uint16_t)(size - 1 - i);
	q->nfree = size;
	virtq_ring_addrs(&q->vq, &desc, &driver, &device);
	return vdev->ops->queue_setup(vdev, (uint16_t)qi, (uint16_t)size, desc, driver, device);
}

int virtio_blk_init(struct virtio_blk *blk, struct virtio_device *vdev, struct sluice_dma_layer *dl,
		    unsigned int max_queues, unsigned int max_queue_size, char *why, size_t why_len)
{
	uint64_t wanted = VIRTIO_FEATURE(VIRTIO_BLK_F_SIZE_MAX) |
			  VIRTIO_FEATURE(VIRTIO_BLK_F_SEG_MAX) | VIRTIO_FEATURE(VIRTIO_BLK_F_RO) |
			  VIRTIO_FEATURE(VIRTIO_BLK_F_BLK_SIZE) |
			  VIRTIO_FEATURE(VIRTIO_BLK_F_FLUSH) | VIRTIO_FEATURE(VIRTIO_BLK_F_MQ) |
			  VIRTIO_FEATURE(VIRTIO_F_RING_INDIRECT_DESC) |
			  VIRTIO_FEATURE(VIRTIO_F_RING_EVENT_IDX);
	uint16_t device_queues;
	int rc;

	memset(blk, 0, sizeof(*blk));
	blk->vdev = vdev;
	blk->dl = dl;
	blk->tag = SLUICE_DMA_TAG_DEFAULT;
	if (vdev->device_type != VIRTIO_ID_BLOCK || !max_queues) {
		snprintf(why, why_len, "%s: not a block device", vdev->name);
		return KERR_INVAL;
	}
	rc = virtio_negotiate(vdev, wanted, why, why_len);
	if (rc)
		return rc;
	rc = virtio_blk_read_config(blk, why, why_len);
	if (rc)
		goto fail;
	if (blk->nqueues > max_queues)
		blk->nqueues = max_queues;
	if (blk->nqueues > VIRTIO_BLK_MAX_QUEUES)
		blk->nqueues = VIRTIO_BLK_MAX_QUEUES;
	/* Read once: a device that changes num_queues between two reads must not
	 * have one value checked and another used. */
	device_queues = vdev->ops->num_queues(vdev);
	if (blk->nqueues > device_queues)
		blk->nqueues = device_queues;
	if (!blk->nqueues) {
		snprintf(why, why_len, "%s: the device has no queue", vdev->name);
		rc = KERR_INVAL;
		goto fail;
	}
	blk->queues = calloc(blk->nqueues, sizeof(*blk->queues));
	if (!blk->queues) {
		rc = SLUICE_DMA_ERR_NOMEM;
		goto fail_queue;
	}
	for (unsigned int q = 0; q < blk->nqueues; q++) {
		rc = virtio_blk_setup_queue(blk, q, max_queue_size);
		if (rc)
			goto fail_queue;
	}
	blk->queue_size = blk->queues[0].size;
	rc = virtio_driver_ok(vdev);
	if (rc) {
		snprintf(why, why_len, "%s: device failed after DRIVER_OK", vdev->name);
		goto fail;
	}
	return 0;

fail_queue:
	snprintf(why, why_len, "%s: queue set-up failed (%d)", vdev->name, rc);
fail:
	/* Tell the device, then take everything back, but only if it resets; a
	 * device that does not keeps what it was given (quarantined, counted). */
	vdev->ops->set_status(vdev, vdev->ops->get_status(vdev) | VIRTIO_STATUS_FAILED);
	virtio_blk_remove(blk);
	return rc;
}

/* Cycle counter for profiling, 0 when profiling is off or there is no counter. */
static uint64_t virtio_blk_cycles(const struct virtio_blk *blk)
{
	return virtio_dma_cycles(blk->dl, blk->profile);
}

static void virtio_blk_unmap(struct virtio_blk *blk, struct virtio_blk_queue *q,
			     struct virtio_blk_req *r, bool copy_back)
{
	enum sluice_dma_dir dir = r->op == VIRTIO_BLK_OP_READ ? SLUICE_DMA_FROM_DEVICE :
								SLUICE_DMA_TO_DEVICE;
	uint64_t t0 = virtio_blk_cycles(blk);

	for (unsigned int i = 0; i < r->nsegs; i++) {
		/* A validated read: the device wrote every byte of the request
		 * (used length = data + status), so all of it comes back. */
		if (copy_back)
			sluice_dma_unmap_written(blk->dl, r->segs[i].dma, r->segs[i].len, dir,
						 r->segs[i].len);
		else
			sluice_dma_unmap_discard(blk->dl, r->segs[i].dma, r->segs[i].len, dir);
	}
	r->nsegs = 0;
	if (t0)
		q->stats.cycles_dma += virtio_blk_cycles(blk) - t0;
}

/*
 * A device that did not reset may still read and write everything it was given:
 * rings (indirect tables included), request slots and the data mappings of
 * requests in flight. None of it is released, ever; the bytes and mappings are
 * counted (blk and the global ledger).
 */
static void virtio_blk_quarantine(struct virtio_blk *blk)
{
	uint64_t bytes = 0, mappings = 0;

	for (unsigned int qi = 0; qi < blk->nqueues && blk->queues; qi++) {
		const struct virtio_blk_queue *q = &blk->queues[qi];

		if (!q->size)
			continue;
		bytes += virtq_ring_bytes(&q->vq) +
			 (q->slots ? (uint64_t)q->size * sizeof(*q->slots) : 0);
		for (unsigned int id = 0; id < q->size; id++) {
			if (!q->reqs[id].inflight)
				continue;
			bytes += q->reqs[id].len;
			mappings += q->reqs[id].nsegs;
		}
	}
	blk->quarantined = true;
	blk->quarantined_bytes = bytes;
	blk->quarantined_mappings = mappings;
	quarantine_record(bytes, mappings);
}

int virtio_blk_stop(struct virtio_blk *blk)
{
	if (blk->stopped)
		return blk->quarantined ? KERR_IO : 0;
	blk->stopped = true;
	/* Only a completed reset shows that the device lets go of rings and buffers. */
	if (blk->vdev->ops->reset(blk->vdev)) {
		virtio_blk_quarantine(blk);
		return KERR_IO;
	}
	for (unsigned int qi = 0; qi < blk->nqueues && blk->queues; qi++) {
		struct virtio_blk_queue *q = &blk->queues[qi];
		struct virtio_blk_req *r;

		if (!q->vq_ready)
			continue;
		virtio_blk_queue_lock(blk, q);
		/* Requests in flight end here: their data is not copied back. */
		while ((r = virtq_detach_unused(&q->vq)) != NULL) {
			virtio_blk_unmap(blk, q, r, false);
			r->inflight = false;
			q->free_ids[q->nfree++] = (uint16_t)(r - q->reqs);
			q->stats.abandoned++;
		}
		virtio_blk_queue_unlock(blk, q);
	}
	return 0;
}

int virtio_blk_remove(struct virtio_blk *blk)
{
	int rc;

	if (!blk->vdev)
		return 0;
	rc = virtio_blk_stop(blk);
	if (rc)
		return rc; /* quarantined: nothing is released, now or later */
	for (unsigned int qi = 0; qi < blk->nqueues && blk->queues; qi++) {
		struct virtio_blk_queue *q = &blk->queues[qi];

		if (q->vq_ready)
			virtq_destroy(&q->vq);
		if (q->slots)
			sluice_dma_free_coherent(blk->dl, q->slots, q->size * sizeof(*q->slots));
		free(q->vq_meta);
		free(q->reqs);
		free(q->free_ids);
	}
	free(blk->queues);
	blk->queues = NULL;
	blk->nqueues = 0;
	blk->vdev = NULL;
	return 0;
}

/*
 * Map @r's data at @buf (@r->len bytes), one segment of at most @seg_limit per
 * mapping. A full bounce pool is "busy" (KERR_BUSY): the caller completes
 * requests and tries again. On failure nothing stays mapped.
 */
static int virtio_blk_map_data(struct virtio_blk *blk, struct virtio_blk_queue *q,
			       struct virtio_blk_req *r, void *buf, uint64_t seg_limit)
{
	enum sluice_dma_dir dir = r->op == VIRTIO_BLK_OP_READ ? SLUICE_DMA_FROM_DEVICE :
								SLUICE_DMA_TO_DEVICE;
	/*
	 * The unmap always names what the device wrote (virtio_blk_unmap(): all
	 * of a validated read, nothing otherwise), so a read may be mapped with
	 * SLUICE_DMA_ATTR_UNMAP_WRITTEN (@read_attrs).
	 */
	unsigned int attrs = r->op == VIRTIO_BLK_OP_READ ? blk->read_attrs : 0;
	uint64_t t0 = virtio_blk_cycles(blk);
	unsigned int nsegs = 0;

	for (size_t off = 0; off < r->len; nsegs++) {
		size_t seg = r->len - off < seg_limit ? r->len - off : seg_limit;
		size_t mapped = seg;
		int rc = sluice_dma_map_attrs(blk->dl, &blk->tag, (uint8_t *)buf + off, &mapped,
					      dir, attrs, &r->segs[nsegs].dma);

		if (rc) {
			virtio_blk_unmap(blk, q, r, false);
			if (rc == SLUICE_DMA_ERR_NOMEM) {
				q->stats.busy++;
				return KERR_BUSY;
			}
			return rc;
		}
		r->segs[nsegs].len = (uint32_t)seg;
		r->nsegs = nsegs + 1;
		off += seg;
	}
	if (t0)
		q->stats.cycles_dma += virtio_blk_cycles(blk) - t0;
	return 0;
}

static int virtio_blk_submit_locked(struct virtio_blk *blk, struct virtio_blk_queue *q,
				    enum virtio_blk_op op, uint64_t sector, void *buf, size_t len,
				    void *cookie)
{
	struct virtq_buf bufs[VIRTIO_BLK_MAX_SEGS + 2];
	struct virtio_blk_slot *slot;
	struct virtio_blk_req *r;
	uint64_t seg_limit = 0;
	uint16_t id;
	int rc;

	if (blk->stopped)
		return KERR_IO;
	if (op == VIRTIO_BLK_OP_FLUSH) {
		if (!blk->has_flush)
			return KERR_NOTSUP;
		if (len)
			return KERR_INVAL;
	} else {
		if (!buf || !len || len % VIRTIO_BLK_SECTOR || len > UINT32_MAX)
			return KERR_INVAL;
		if (sector > blk->capacity || len / VIRTIO_BLK_SECTOR > blk->capacity - sector)
			return KERR_RANGE;
		if (op == VIRTIO_BLK_OP_WRITE && blk->read_only)
			return KERR_ROFS;
		seg_limit = virtio_blk_seg_limit(blk);
		if (!seg_limit || (len + seg_limit - 1) / seg_limit > blk->seg_max)
			return KERR_INVAL;
	}
	if (!q->nfree) {
		q->stats.busy++;
		return KERR_BUSY;
	}
	id = q->free_ids[q->nfree - 1];
	r = &q->reqs[id];
	r->cookie = cookie;
	r->op = op;
	r->len = (uint32_t)len;
	r->nsegs = 0;

	rc = virtio_blk_map_data(blk, q, r, buf, seg_limit);
	if (rc)
		return rc;

	slot = &q->slots[id];
	slot->type = op == VIRTIO_BLK_OP_READ  ? VIRTIO_BLK_T_IN :
		     op == VIRTIO_BLK_OP_WRITE ? VIRTIO_BLK_T_OUT :
						 VIRTIO_BLK_T_FLUSH;
	slot->reserved = 0;
	slot->sector = op == VIRTIO_BLK_OP_FLUSH ? 0 : sector;
	slot->status = VIRTIO_BLK_S_UNSET;
	bufs[0].dma_addr = q->slots_dma + (uint64_t)id * sizeof(*slot);
	bufs[0].len = 16;
	for (unsigned int i = 0; i < r->nsegs; i++) {
		bufs[1 + i].dma_addr = r->segs[i].dma;
		bufs[1 + i].len = r->segs[i].len;
	}
	bufs[1 + r->nsegs].dma_addr = bufs[0].dma_addr + offsetof(struct virtio_blk_slot, status);
	bufs[1 + r->nsegs].len = 1;

	if (blk->trace)
		for (unsigned int i = 0; i < r->nsegs + 2; i++)
			blk->trace(blk->trace_ctx, bufs[i].dma_addr, bufs[i].len);
	if (op == VIRTIO_BLK_OP_READ)
		rc = virtq_add(&q->vq, bufs, 1, r->nsegs + 1, r);
	else
		rc = virtq_add(&q->vq, bufs, 1 + r->nsegs, 1, r);
	if (rc) {
		virtio_blk_unmap(blk, q, r, false);
		if (rc == VIRTQ_ERR_NOSPC) {
			q->stats.busy++;
			return KERR_BUSY;
		}
		return rc;
	}
	r->inflight = true;
	q->nfree--;
	q->stats.submitted++;
	return 0;
}

int virtio_blk_submit(struct virtio_blk *blk, unsigned int qi, enum virtio_blk_op op,
		      uint64_t sector, void *buf, size_t len, void *cookie)
{
	struct virtio_blk_queue *q;
	int rc;

	if (qi >= blk->nqueues || !cookie)
		return KERR_INVAL;
	q = &blk->queues[qi];
	virtio_blk_queue_lock(blk, q);
	rc = virtio_blk_submit_locked(blk, q, op, sector, buf, len, cookie);
	virtio_blk_queue_unlock(blk, q);
	return rc;
}

void virtio_blk_kick(struct virtio_blk *blk, unsigned int qi)
{
	if (qi >= blk->nqueues)
		return;
	virtio_blk_queue_lock(blk, &blk->queues[qi]);
	virtq_kick(&blk->queues[qi].vq);
	virtio_blk_queue_unlock(blk, &blk->queues[qi]);
}

int virtio_blk_poll(struct virtio_blk *blk, unsigned int qi, struct virtio_blk_completion *out,
		    int max)
{
	struct virtio_blk_queue *q;
	int n = 0;

	if (qi >= blk->nqueues)
		return 0;
	if (blk->stopped)
		return KERR_IO;
	q = &blk->queues[qi];
	virtio_blk_queue_lock(blk, q);
	while (n < max) {
		struct virtio_blk_req *r;
		uint32_t used_len;
		int vq_status, status = 0;
		uint8_t dev_status;
		uint32_t writable;
		uint16_t id;

		r = virtq_get_used(&q->vq, &used_len, &vq_status);
		if (!r)
			break;
		id = (uint16_t)(r - q->reqs);
		/* Read the status byte once: the host may change it at any time. */
		dev_status = __atomic_load_n(&q->slots[id].status, __ATOMIC_ACQUIRE);
		writable = r->op == VIRTIO_BLK_OP_READ ? r->len + 1 : 1;
		if (vq_status || used_len != writable) {
			/* The device claims another amount than the request holds: its
			 * data cannot be trusted. (QEMU reports exactly data + status.) */
			q->stats.bad_len++;
			status = KERR_RANGE;
		} else if (dev_status == VIRTIO_BLK_S_OK) {
			status = 0;
		} else if (dev_status == VIRTIO_BLK_S_IOERR) {
			status = KERR_IO;
		} else if (dev_status == VIRTIO_BLK_S_UNSUPP) {
			status = KERR_NOTSUP;
		} else {
			q->stats.bad_status++;
			status = KERR_RANGE;
		}
		/* Only a validated read is copied into the caller's buffer. */
		virtio_blk_unmap(blk, q, r, status == 0);
		r->inflight = false;
		out[n].cookie = r->cookie;
		out[n].status = status;
		out[n].bytes = status ? 0 : r->len;
		if (status)
			q->stats.errors++;
		else if (r->op == VIRTIO_BLK_OP_READ)
			q->stats.bytes_read += r->len;
		else if (r->op == VIRTIO_BLK_OP_WRITE)
			q->stats.bytes_written += r->len;
		q->stats.completed++;
		q->free_ids[q->nfree++] = id;
		n++;
	}
	/* A broken ring completes nothing more: say so, or callers would wait on
	 * requests that never come back. */
	if (!n && virtq_is_broken(&q->vq))
		n = KERR_IO;
	virtio_blk_queue_unlock(blk, q);
	return n;
}

void virtio_blk_stats_get(const struct virtio_blk *blk, struct virtio_blk_stats *out)
{
	memset(out, 0, sizeof(*out));
	for (unsigned int qi = 0; qi < blk->nqueues && blk->queues; qi++) {
		const struct virtio_blk_stats *st = &blk->queues[qi].stats;
		struct virtq_stats vs;

		if (blk->queues[qi].vq_ready) {
			virtq_stats_get(&blk->queues[qi].vq, &vs);
			out->bad_used += vs.bad_id + vs.not_in_flight;
		}
		out->submitted += st->submitted;
		out->completed += st->completed;
		out->errors += st->errors;
		out->bad_status += st->bad_status;
		out->bad_len += st->bad_len;
		out->busy += st->busy;
		out->bytes_read += st->bytes_read;
		out->bytes_written += st->bytes_written;
		out->cycles_dma += st->cycles_dma;
		out->abandoned += st->abandoned;
	}
}

void virtio_blk_share_queues(struct virtio_blk *blk, bool shared)
{
	for (unsigned int qi = 0; qi < blk->nqueues; qi++)
		blk->queues[qi].lock.locked = 0;
	blk->shared_queues = shared;
}

unsigned int virtio_blk_inflight(const struct virtio_blk *blk, unsigned int qi)
{
	if (qi >= blk->nqueues)
		return 0;
	return blk->queues[qi].size - blk->queues[qi].nfree;
}

int virtio_blk_rw(struct virtio_blk *blk, enum virtio_blk_op op, uint64_t sector, void *buf,
		  size_t len)
{
	struct virtio_blk_completion c;
	struct deadline d;
	int cookie, rc, got;

	deadline_start(&d, 0);
	for (;;) {
		rc = virtio_blk_submit(blk, 0, op, sector, buf, len, &cookie);
		if (rc != KERR_BUSY)
			break;
		/* Room frees up only as earlier requests complete. */
		virtio_blk_kick(blk, 0);
		if (!virtio_blk_inflight(blk, 0))
			return rc;
		got = virtio_blk_poll(blk, 0, &c, 1);
		if (got < 0 || deadline_passed(&d))
			goto give_up;
	}
	if (rc)
		return rc;
	virtio_blk_kick(blk, 0);
	for (;;) {
		got = virtio_blk_poll(blk, 0, &c, 1);
		if (got == 1 && c.cookie == &cookie)
			return c.status;
		if (got < 0 || deadline_passed(&d))
			goto give_up;
	}
give_up:
	/* Our request may still be on the ring, with @buf mapped: reset the device
	 * before returning, or quarantine what it holds if it will not reset. */
	virtio_blk_stop(blk);
	return got < 0 ? KERR_IO : DEVICE_ERR_TIMEDOUT;
}
