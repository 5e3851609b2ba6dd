/* SPDX-License-Identifier: MIT */
/*
 * virtio_net.c - virtio-net: negotiation, receive/transmit queue pairs (one, or
 * one per CPU when the device offers multiqueue), frames in and out with
 * validation.
 *
 * Receive: every buffer holds header + frame (VIRTIO_NET_BUF_SIZE bytes, enough
 * for 1514-byte frames without MRG_RXBUF). A completion is trusted only after its
 * length passed the queue's check (<= what was posted) and ours (>= header +
 * minimal frame); then exactly that many bytes are synced for the CPU, the
 * header is read once into a local, and the frame is copied to the caller.
 * Transmit: a ring of slots, each a buffer the frame is copied into behind a
 * zeroed header; the slot's mapping lives until the device completes it.
 * Multiqueue: with VIRTIO_NET_F_MQ and VIRTIO_NET_F_CTRL_VQ every pair gets its
 * own rings and buffers, and the control command VQ_PAIRS_SET turns them on; the
 * device may deliver a frame to any receive queue it likes (its steering), so a
 * receiver polls its own pair and takes whatever arrives there.
 */
#include "drivers/virtio/virtio_net.h"

#include "arch/kernel_errno.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drivers/deadline.h"
#include "drivers/quarantine.h"

/* Feature bits (virtio 1.2, 5.1.3). */
#define VIRTIO_NET_F_MAC 5
#define VIRTIO_NET_F_STATUS 16
#define VIRTIO_NET_F_CTRL_VQ 17
#define VIRTIO_NET_F_MQ 22

/* Configuration layout (virtio 1.2, 5.1.4). */
#define VIRTIO_NET_CFG_MAC 0
#define VIRTIO_NET_CFG_STATUS 6
#define VIRTIO_NET_CFG_MAX_PAIRS 8
#define VIRTIO_NET_S_LINK_UP 1
/* The spec's bounds on max_virtqueue_pairs (VQ_PAIRS_MIN..MAX). */
#define VIRTIO_NET_DEVICE_MAX_PAIRS 0x8000

/* Control queue command (virtio 1.2, 5.1.6.5.5). */
#define VIRTIO_NET_CTRL_MQ 4
#define VIRTIO_NET_CTRL_MQ_VQ_PAIRS_SET 0
#define VIRTIO_NET_OK 0
#define VIRTIO_NET_CTRL_QSIZE 8

/**
 * struct virtio_net_hdr - the header in front of every frame (virtio 1.2, 5.1.6).
 */
struct virtio_net_hdr {
	uint8_t flags;
	uint8_t gso_type;
	uint16_t hdr_len;
	uint16_t gso_size;
	uint16_t csum_start;
	uint16_t csum_offset;
	uint16_t num_buffers;
};
_Static_assert(sizeof(struct virtio_net_hdr) == VIRTIO_NET_HDR_LEN, "virtio-net header");
_Static_assert(VIRTIO_NET_BUF_SIZE >= VIRTIO_NET_HDR_LEN + VIRTIO_NET_MAX_FRAME,
	       "a receive buffer holds the largest frame");

/* The command buffer in coherent memory: class and command, the number of
 * pairs (device-readable), the acknowledgement (device-writable). */
struct virtio_net_ctrl {
	uint8_t class;
	uint8_t cmd;
	uint16_t pairs;
	uint8_t ack;
	uint8_t pad[3];
};

/* Private state of one buffer. */
struct virtio_net_buf {
	uint8_t *cpu; /* the buffer */
	uint64_t dma; /* its mapping while the device owns it */
	uint32_t len; /* mapped length */
	bool mapped;
};

static void virtio_net_notify(void *ctx, uint16_t index)
{
	struct virtio_device *vdev = ctx;

	vdev->ops->queue_notify(vdev, index);
}

static int virtio_net_setup_queue(struct virtio_net *net, struct virtq *vq, void **meta,
				  uint16_t index, unsigned int size)
{
	struct virtio_device *vdev = net->vdev;
	unsigned int flags = 0;
	uint64_t desc, driver, device;
	size_t meta_len = virtq_meta_size(size);
	int rc;

	if (vdev->confidential)
		flags |= VIRTQ_INIT_CONFIDENTIAL;
	if (virtio_has_feature(vdev, VIRTIO_F_RING_EVENT_IDX))
		flags |= VIRTQ_INIT_EVENT_IDX;
	*meta = malloc(meta_len);
	if (!*meta)
		return SLUICE_DMA_ERR_NOMEM;
	rc = virtq_init(vq, net->dl, &net->tag, index, size, *meta, meta_len, flags,
			virtio_net_notify, vdev);
	if (rc)
		return rc;
	virtq_ring_addrs(vq, &desc, &driver, &device);
	return vdev->ops->queue_setup(vdev, index, (uint16_t)size, desc, driver, device);
}

static void virtio_net_lock(struct virtio_net *net, struct virtio_net_pair *p)
{
	if (net->shared)
		spin_lock(&p->lock);
}

static void virtio_net_unlock(struct virtio_net *net, struct virtio_net_pair *p)
{
	if (net->shared)
		spin_unlock(&p->lock);
}

/* Cycle counter for profiling, 0 when profiling is off or there is no counter. */
static uint64_t virtio_net_cycles(const struct virtio_net *net)
{
	return virtio_dma_cycles(net->dl, net->profile);
}

/* Add the cycles since @t0 (from virtio_net_cycles()) to @p's DMA counter. */
static void virtio_net_count_dma(const struct virtio_net *net, struct virtio_net_pair *p,
				 uint64_t t0)
{
	if (t0)
		p->stats.cycles_dma += virtio_net_cycles(net) - t0;
}

/* Map and post receive buffer @i of pair @p. */
static int virtio_net_post_rx(struct virtio_net *net, struct virtio_net_pair *p, unsigned int i)
{
	struct virtio_net_buf *b = &p->rx[i];
	struct virtq_buf vb;
	uint64_t t0 = virtio_net_cycles(net);
	int rc;

	rc = sluice_dma_map(net->dl, &net->tag, b->cpu, VIRTIO_NET_BUF_SIZE, SLUICE_DMA_FROM_DEVICE,
			    &b->dma);
	virtio_net_count_dma(net, p, t0);
	if (rc)
		return rc;
	b->len = VIRTIO_NET_BUF_SIZE;
	b->mapped = true;
	vb.dma_addr = b->dma;
	vb.len = VIRTIO_NET_BUF_SIZE;
	rc = virtq_add(&p->rxq, &vb, 0, 1, b);
	if (rc) {
		sluice_dma_unmap_discard(net->dl, b->dma, b->len, SLUICE_DMA_FROM_DEVICE);
		b->mapped = false;
	}
	return rc;
}

/* Buffers and rings of pair @pi; receive buffers posted (those that found no
 * bounce slot wait in rx_unposted). */
static int virtio_net_pair_setup(struct virtio_net *net, unsigned int pi, char *why, size_t why_len)
{
	struct virtio_net_pair *p = &net->pairs[pi];
	const struct virtio_net_buffers *bufs = &net->bufs;
	unsigned int size = net->queue_size;
	int rc;

	p->rx = calloc(size, sizeof(*p->rx));
	p->tx = calloc(size, sizeof(*p->tx));
	p->tx_free = calloc(size, sizeof(*p->tx_free));
	p->rx_unposted = calloc(size, sizeof(*p->rx_unposted));
	if (!p->rx || !p->tx || !p->tx_free || !p->rx_unposted)
		goto nomem;
	for (unsigned int i = 0; i < size; i++) {
		p->rx[i].cpu = bufs->alloc(bufs->ctx, VIRTIO_NET_BUF_SIZE);
		p->tx[i].cpu = bufs->alloc(bufs->ctx, VIRTIO_NET_BUF_SIZE);
		if (!p->rx[i].cpu || !p->tx[i].cpu)
			goto nomem;
		p->tx_free[i] = (uint16_t)i;
	}
	p->tx_nfree = size;
	rc = virtio_net_setup_queue(net, &p->rxq, &p->rxq_meta, (uint16_t)(2 * pi), size);
	if (!rc)
		rc = virtio_net_setup_queue(net, &p->txq, &p->txq_meta, (uint16_t)(2 * pi + 1),
					    size);
	if (rc) {
		snprintf(why, why_len, "%s: set-up of queue pair %u failed (%d)", net->vdev->name,
			 pi, rc);
		return rc;
	}
	/* Post receive buffers before DRIVER_OK: the device may deliver at once. A
	 * full bounce pool is not fatal; the rest are posted as slots come back. */
	for (unsigned int i = 0; i < size; i++) {
		rc = virtio_net_post_rx(net, p, i);
		if (rc == SLUICE_DMA_ERR_NOMEM) {
			p->rx_unposted[p->rx_nunposted++] = (uint16_t)i;
		} else if (rc) {
			snprintf(why, why_len, "%s: posting receive buffers failed (%d)",
				 net->vdev->name, rc);
			return rc;
		}
	}
	if (p->rx_nunposted == size) {
		snprintf(why, why_len, "%s: no bounce slot for even one receive buffer",
			 net->vdev->name);
		return SLUICE_DMA_ERR_NOMEM;
	}
	return 0;
nomem:
	snprintf(why, why_len, "%s: no memory for the buffers of queue pair %u", net->vdev->name,
		 pi);
	return SLUICE_DMA_ERR_NOMEM;
}

/*
 * Queue pairs the device has: max_virtqueue_pairs with MQ, else one. The value
 * is read once and must fit what the device says it has: receive and transmit
 * queues 0 .. 2N-1 and, with CTRL_VQ, the control queue at 2N (virtio 1.2,
 * 5.1.2), all below num_queues. A device claiming 0x8000 pairs would otherwise
 * put the control queue at 2 * 0x8000, which a 16-bit queue index wraps to 0:
 * receive queue 0, whose buffers are posted.
 */
static int virtio_net_device_pairs(struct virtio_net *net, unsigned int *out, char *why,
				   size_t why_len)
{
	struct virtio_device *vdev = net->vdev;
	uint32_t num_queues = vdev->ops->num_queues(vdev), needed;
	uint16_t max = 1;

	*out = 1;
	if (virtio_has_feature(vdev, VIRTIO_NET_F_MQ)) {
		if (vdev->ops->config_read(vdev, VIRTIO_NET_CFG_MAX_PAIRS, &max, 2)) {
			snprintf(why, why_len, "%s: cannot read max_virtqueue_pairs", vdev->name);
			return SLUICE_DMA_ERR_IO;
		}
		if (max < 1 || max > VIRTIO_NET_DEVICE_MAX_PAIRS) {
			snprintf(why, why_len, "%s: max_virtqueue_pairs %u is outside 1..%u",
				 vdev->name, max, VIRTIO_NET_DEVICE_MAX_PAIRS);
			return KERR_INVAL;
		}
	}
	needed = 2 * (uint32_t)max + (virtio_has_feature(vdev, VIRTIO_NET_F_CTRL_VQ) ? 1 : 0);
	if (needed > num_queues) {
		snprintf(why, why_len, "%s: %u queue pairs%s need %u queues, the device has %u",
			 vdev->name, max,
			 virtio_has_feature(vdev, VIRTIO_NET_F_CTRL_VQ) ? " and a control queue" :
									  "",
			 needed, num_queues);
		return KERR_INVAL;
	}
	*out = max;
	return 0;
}

/* The control queue sits after every pair the device has (queue 2N; below
 * num_queues and so below 0x10000, as virtio_net_device_pairs() checked). */
static int virtio_net_ctrl_setup(struct virtio_net *net)
{
	struct virtio_device *vdev = net->vdev;
	uint32_t ctrl_index = 2 * (uint32_t)net->device_pairs;
	uint16_t index = (uint16_t)ctrl_index;
	unsigned int size = VIRTIO_NET_CTRL_QSIZE, max;

	if (ctrl_index >= vdev->ops->num_queues(vdev))
		return KERR_INVAL;
	max = vdev->ops->queue_max_size(vdev, index); /* once: see virtio_net_init_mq() */
	if (max < size)
		size = max;
	while (size & (size - 1))
		size &= size - 1;
	if (size < 4)
		return KERR_INVAL; /* a command takes three descriptors */
	net->ctrl =
		sluice_dma_alloc_coherent(net->dl, &net->tag, sizeof(*net->ctrl), &net->ctrl_dma);
	if (!net->ctrl)
		return SLUICE_DMA_ERR_NOMEM;
	return virtio_net_setup_queue(net, &net->ctrlq, &net->ctrlq_meta, index, size);
}

/* VQ_PAIRS_SET @pairs; true if the device acknowledged it. */
static bool virtio_net_ctrl_set_pairs(struct virtio_net *net, unsigned int pairs)
{
	struct virtio_net_ctrl *c = net->ctrl;
	struct virtq_buf vb[3];
	struct deadline d;
	uint32_t len;
	int status;
	uint8_t ack;

	c->class = VIRTIO_NET_CTRL_MQ;
	c->cmd = VIRTIO_NET_CTRL_MQ_VQ_PAIRS_SET;
	c->pairs = (uint16_t)pairs;
	c->ack = 0xff;
	vb[0].dma_addr = net->ctrl_dma;
	vb[0].len = 2;
	vb[1].dma_addr = net->ctrl_dma + offsetof(struct virtio_net_ctrl, pairs);
	vb[1].len = 2;
	vb[2].dma_addr = net->ctrl_dma + offsetof(struct virtio_net_ctrl, ack);
	vb[2].len = 1;
	if (virtq_add(&net->ctrlq, vb, 2, 1, c))
		return false;
	virtq_kick(&net->ctrlq);
	/* A device that never answers leaves the command on the ring: the control
	 * buffer stays its own until the reset at remove (or quarantine). */
	deadline_start(&d, 0);
	while (!deadline_passed(&d)) {
		void *done = virtq_get_used(&net->ctrlq, &len, &status);

		if (!done) {
			if (virtq_is_broken(&net->ctrlq))
				return false;
			continue;
		}
		/* One read of the acknowledgement: the host may rewrite it. */
		ack = __atomic_load_n(&c->ack, __ATOMIC_ACQUIRE);
		return done == c && !status && len == 1 && ack == VIRTIO_NET_OK;
	}
	net->ctrl_timeouts++;
	return false;
}

/* The device's MAC address, or one of ours if it offers none. */
static int virtio_net_mac_read(struct virtio_net *net, char *why, size_t why_len)
{
	/* Locally administered, unicast, derived from the device's name. */
	static const uint8_t local[6] = { 0x02, 0x53, 0x4c, 0x55, 0x49, 0x00 };
	struct virtio_device *vdev = net->vdev;
	size_t n = strlen(vdev->name);

	if (virtio_has_feature(vdev, VIRTIO_NET_F_MAC)) {
		if (vdev->ops->config_read(vdev, VIRTIO_NET_CFG_MAC, net->mac, 6)) {
			snprintf(why, why_len, "%s: cannot read the MAC address", vdev->name);
			return SLUICE_DMA_ERR_IO;
		}
		return 0;
	}
	memcpy(net->mac, local, 6);
	net->mac[5] = n ? (uint8_t)vdev->name[n - 1] : 0;
	return 0;
}

/*
 * The size of every queue of @npairs pairs: the smallest the device allows, at
 * most @max_queue_size (0: no limit), rounded down to a power of two; 0 if none.
 */
static unsigned int virtio_net_queue_size(struct virtio_device *vdev, unsigned int npairs,
					  unsigned int max_queue_size)
{
	/* Each register is read once: a device that changes it between reads
	 * must not have one value checked and another used. */
	unsigned int size = vdev->ops->queue_max_size(vdev, 0);

	for (unsigned int q = 1; q < 2 * npairs; q++) {
		unsigned int max = vdev->ops->queue_max_size(vdev, (uint16_t)q);

		if (max < size)
			size = max;
	}
	if (max_queue_size && size > max_queue_size)
		size = max_queue_size;
	while (size & (size - 1))
		size &= size - 1;
	return size;
}

/* @npairs queue pairs, and the control queue if there is more than one. */
static int virtio_net_queues_setup(struct virtio_net *net, unsigned int npairs,
				   unsigned int max_queue_size, char *why, size_t why_len)
{
	struct virtio_device *vdev = net->vdev;
	int rc;

	net->queue_size = virtio_net_queue_size(vdev, npairs, max_queue_size);
	if (!net->queue_size) {
		snprintf(why, why_len, "%s: no usable queue pair", vdev->name);
		return KERR_INVAL;
	}
	net->pairs = calloc(npairs, sizeof(*net->pairs));
	if (!net->pairs) {
		snprintf(why, why_len, "%s: no memory for %u queue pairs", vdev->name, npairs);
		return SLUICE_DMA_ERR_NOMEM;
	}
	net->npairs = npairs;
	net->pairs_allocated = npairs;
	for (unsigned int pi = 0; pi < npairs; pi++) {
		rc = virtio_net_pair_setup(net, pi, why, why_len);
		if (rc)
			return rc;
	}
	if (npairs > 1) {
		rc = virtio_net_ctrl_setup(net);
		if (rc) {
			snprintf(why, why_len, "%s: control queue set-up failed (%d)", vdev->name,
				 rc);
			return rc;
		}
	}
	return 0;
}

int virtio_net_init_mq(struct virtio_net *net, struct virtio_device *vdev,
		       struct sluice_dma_layer *dl, const struct virtio_net_buffers *bufs,
		       unsigned int max_queue_size, unsigned int max_pairs, char *why,
		       size_t why_len)
{
	/*
	 * EVENT_IDX is not negotiated: with it, QEMU 7.2's transmit path (the
	 * asynchronous hub send and the tx bottom half) now and then left
	 * avail_event one entry behind a kick we had already sent, and the queue
	 * stalled (seen 1 run in 7 here); the NO_NOTIFY flag protocol does not.
	 */
	uint64_t wanted = VIRTIO_FEATURE(VIRTIO_NET_F_MAC) | VIRTIO_FEATURE(VIRTIO_NET_F_STATUS);
	unsigned int want_pairs;
	int rc;

	memset(net, 0, sizeof(*net));
	net->vdev = vdev;
	net->dl = dl;
	net->tag = SLUICE_DMA_TAG_DEFAULT;
	net->bufs = *bufs;
	if (vdev->device_type != VIRTIO_ID_NET) {
		snprintf(why, why_len, "%s: not a network device", vdev->name);
		return KERR_INVAL;
	}
	if (max_pairs < 1 || max_pairs > VIRTIO_NET_MAX_PAIRS) {
		snprintf(why, why_len, "%s: %u queue pairs asked for (1..%u)", vdev->name,
			 max_pairs, VIRTIO_NET_MAX_PAIRS);
		return KERR_INVAL;
	}
	if (max_pairs > 1)
		wanted |= VIRTIO_FEATURE(VIRTIO_NET_F_MQ) | VIRTIO_FEATURE(VIRTIO_NET_F_CTRL_VQ);
	rc = virtio_negotiate(vdev, wanted, why, why_len);
	if (rc)
		return rc;
	rc = virtio_net_mac_read(net, why, why_len);
	if (rc)
		goto fail;
	net->has_status = virtio_has_feature(vdev, VIRTIO_NET_F_STATUS);
	rc = virtio_net_device_pairs(net, &net->device_pairs, why, why_len);
	if (rc)
		goto fail;
	/* Pairs beyond the first need the control queue to be switched on. */
	want_pairs = max_pairs < net->device_pairs ? max_pairs : net->device_pairs;
	if (!virtio_has_feature(vdev, VIRTIO_NET_F_CTRL_VQ))
		want_pairs = 1;

	rc = virtio_net_queues_setup(net, want_pairs, max_queue_size, why, why_len);
	if (rc)
		goto fail;
	rc = virtio_driver_ok(vdev);
	if (rc) {
		snprintf(why, why_len, "%s: device failed after DRIVER_OK", vdev->name);
		goto fail;
	}
	/* Until the command is acknowledged the device uses pair 0 only; a device
	 * that refuses keeps it that way, and so do we. */
	if (want_pairs > 1 && !virtio_net_ctrl_set_pairs(net, want_pairs))
		net->npairs = 1;
	for (unsigned int pi = 0; pi < net->npairs; pi++)
		virtq_kick(&net->pairs[pi].rxq);
	return 0;

fail:
	/* Leave nothing behind: the caller has no device to remove. */
	virtio_net_remove(net);
	virtio_fail(vdev);
	return rc;
}

int virtio_net_init(struct virtio_net *net, struct virtio_device *vdev, struct sluice_dma_layer *dl,
		    const struct virtio_net_buffers *bufs, unsigned int max_queue_size, char *why,
		    size_t why_len)
{
	return virtio_net_init_mq(net, vdev, dl, bufs, max_queue_size, 1, why, why_len);
}

void virtio_net_share_pairs(struct virtio_net *net, bool shared)
{
	for (unsigned int pi = 0; pi < net->npairs; pi++)
		net->pairs[pi].lock.locked = 0;
	net->shared = shared;
}

static int virtio_net_tx_reclaim_locked(struct virtio_net *net, struct virtio_net_pair *p)
{
	struct virtio_net_buf *b;
	uint32_t len;
	int n = 0, status;

	while ((b = virtq_get_used(&p->txq, &len, &status)) != NULL) {
		/* The device wrote nothing into a transmit buffer; a length it reports
		 * is meaningless, and a bad one changes nothing here. */
		uint64_t t0 = virtio_net_cycles(net);

		sluice_dma_unmap(net->dl, b->dma, b->len, SLUICE_DMA_TO_DEVICE);
		virtio_net_count_dma(net, p, t0);
		b->mapped = false;
		p->stats.tx_frames++;
		p->stats.tx_bytes += b->len - VIRTIO_NET_HDR_LEN;
		p->tx_free[p->tx_nfree++] = (uint16_t)(b - p->tx);
		n++;
	}
	return n;
}

int virtio_net_tx_reclaim_on(struct virtio_net *net, unsigned int pair)
{
	struct virtio_net_pair *p;
	int n;

	if (pair >= net->npairs)
		return 0;
	p = &net->pairs[pair];
	virtio_net_lock(net, p);
	n = virtio_net_tx_reclaim_locked(net, p);
	virtio_net_unlock(net, p);
	return n;
}

static int virtio_net_send_locked(struct virtio_net *net, struct virtio_net_pair *p,
				  const void *frame, size_t len)
{
	struct virtio_net_buf *b;
	struct virtq_buf vb;
	uint64_t t0;
	uint16_t i;
	int rc;

	if (!p->tx_nfree)
		virtio_net_tx_reclaim_locked(net, p);
	if (!p->tx_nfree) {
		p->stats.tx_busy++;
		return KERR_BUSY;
	}
	i = p->tx_free[p->tx_nfree - 1];
	b = &p->tx[i];
	/* No offloads: an all-zero header. */
	memset(b->cpu, 0, VIRTIO_NET_HDR_LEN);
	memcpy(b->cpu + VIRTIO_NET_HDR_LEN, frame, len);
	b->len = (uint32_t)(VIRTIO_NET_HDR_LEN + len);
	t0 = virtio_net_cycles(net);
	rc = sluice_dma_map(net->dl, &net->tag, b->cpu, b->len, SLUICE_DMA_TO_DEVICE, &b->dma);
	virtio_net_count_dma(net, p, t0);
	if (rc) {
		p->stats.tx_busy++;
		return rc == SLUICE_DMA_ERR_NOMEM ? KERR_BUSY : rc;
	}
	vb.dma_addr = b->dma;
	vb.len = b->len;
	rc = virtq_add(&p->txq, &vb, 1, 0, b);
	if (rc) {
		sluice_dma_unmap(net->dl, b->dma, b->len, SLUICE_DMA_TO_DEVICE);
		p->stats.tx_busy++;
		return rc == VIRTQ_ERR_NOSPC ? KERR_BUSY : rc;
	}
	b->mapped = true;
	p->tx_nfree--;
	virtq_kick(&p->txq);
	return 0;
}

int virtio_net_send_on(struct virtio_net *net, unsigned int pair, const void *frame, size_t len)
{
	struct virtio_net_pair *p;
	int rc;

	if (len < VIRTIO_NET_MIN_FRAME || len > VIRTIO_NET_MAX_FRAME || !frame ||
	    pair >= net->npairs)
		return KERR_INVAL;
	p = &net->pairs[pair];
	virtio_net_lock(net, p);
	rc = virtio_net_send_locked(net, p, frame, len);
	virtio_net_unlock(net, p);
	return rc;
}

static int virtio_net_recv_locked(struct virtio_net *net, struct virtio_net_pair *p, void *out,
				  size_t max, size_t *len)
{
	struct virtio_net_buf *b;
	uint32_t used_len;
	int status, got = 0;

	while (!got && (b = virtq_get_used(&p->rxq, &used_len, &status)) != NULL) {
		unsigned int i = (unsigned int)(b - p->rx);
		struct virtio_net_hdr hdr;
		size_t frame_len;
		uint64_t t0;

		if (status || used_len < VIRTIO_NET_HDR_LEN + VIRTIO_NET_MIN_FRAME ||
		    used_len > VIRTIO_NET_BUF_SIZE) {
			p->stats.rx_bad_len++;
			sluice_dma_unmap_discard(net->dl, b->dma, b->len, SLUICE_DMA_FROM_DEVICE);
			goto repost;
		}
		/* Bring exactly the bytes the device wrote to the CPU's side. */
		t0 = virtio_net_cycles(net);
		sluice_dma_sync_for_cpu(net->dl, b->dma, 0, used_len, SLUICE_DMA_FROM_DEVICE);
		sluice_dma_unmap_discard(net->dl, b->dma, b->len, SLUICE_DMA_FROM_DEVICE);
		virtio_net_count_dma(net, p, t0);
		/* One read of the header: in place (arena) the host can still write it. */
		memcpy(&hdr, b->cpu, sizeof(hdr));
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		if (hdr.flags || hdr.gso_type) {
			/* No offload was negotiated: a header asking for one is bogus. */
			p->stats.rx_bad_hdr++;
			goto repost;
		}
		frame_len = used_len - VIRTIO_NET_HDR_LEN;
		if (frame_len > max) {
			p->stats.rx_dropped++;
			goto repost;
		}
		memcpy(out, b->cpu + VIRTIO_NET_HDR_LEN, frame_len);
		*len = frame_len;
		p->stats.rx_frames++;
		p->stats.rx_bytes += frame_len;
		got = 1;
repost:
		b->mapped = false;
		p->rx_unposted[p->rx_nunposted++] = (uint16_t)i;
	}
	/* Refill: every buffer taken above, and any that found no bounce slot before. */
	while (p->rx_nunposted) {
		int rc = virtio_net_post_rx(net, p, p->rx_unposted[p->rx_nunposted - 1]);

		if (rc) {
			if (rc != SLUICE_DMA_ERR_NOMEM)
				p->stats.rx_repost_failed++;
			break;
		}
		p->rx_nunposted--;
	}
	virtq_kick(&p->rxq);
	return got;
}

int virtio_net_recv_on(struct virtio_net *net, unsigned int pair, void *out, size_t max,
		       size_t *len)
{
	struct virtio_net_pair *p;
	int got;

	if (pair >= net->npairs)
		return 0;
	p = &net->pairs[pair];
	virtio_net_lock(net, p);
	got = virtio_net_recv_locked(net, p, out, max, len);
	virtio_net_unlock(net, p);
	return got;
}

unsigned int virtio_net_tx_pending(const struct virtio_net *net, unsigned int pair)
{
	if (pair >= net->npairs)
		return 0;
	return net->queue_size - net->pairs[pair].tx_nfree;
}

int virtio_net_send(struct virtio_net *net, const void *frame, size_t len)
{
	return virtio_net_send_on(net, 0, frame, len);
}

int virtio_net_tx_reclaim(struct virtio_net *net)
{
	return virtio_net_tx_reclaim_on(net, 0);
}

int virtio_net_recv(struct virtio_net *net, void *out, size_t max, size_t *len)
{
	return virtio_net_recv_on(net, 0, out, max, len);
}

void virtio_net_stats_get(const struct virtio_net *net, struct virtio_net_stats *out)
{
	memset(out, 0, sizeof(*out));
	for (unsigned int pi = 0; pi < net->npairs; pi++) {
		const struct virtio_net_stats *st = &net->pairs[pi].stats;

		out->tx_frames += st->tx_frames;
		out->tx_bytes += st->tx_bytes;
		out->tx_busy += st->tx_busy;
		out->rx_frames += st->rx_frames;
		out->rx_bytes += st->rx_bytes;
		out->rx_bad_len += st->rx_bad_len;
		out->rx_bad_hdr += st->rx_bad_hdr;
		out->rx_dropped += st->rx_dropped;
		out->rx_repost_failed += st->rx_repost_failed;
		out->cycles_dma += st->cycles_dma;
	}
}

bool virtio_net_link_up(struct virtio_net *net)
{
	uint16_t status;

	if (!net->has_status)
		return true;
	if (net->vdev->ops->config_read(net->vdev, VIRTIO_NET_CFG_STATUS, &status, 2))
		return false;
	return status & VIRTIO_NET_S_LINK_UP;
}

static void virtio_net_pair_free(struct virtio_net *net, struct virtio_net_pair *p)
{
	struct virtio_net_buf *b;

	if (p->rxq_meta) {
		while ((b = virtq_detach_unused(&p->rxq)) != NULL)
			sluice_dma_unmap_discard(net->dl, b->dma, b->len, SLUICE_DMA_FROM_DEVICE);
		virtq_destroy(&p->rxq);
	}
	if (p->txq_meta) {
		while ((b = virtq_detach_unused(&p->txq)) != NULL)
			sluice_dma_unmap(net->dl, b->dma, b->len, SLUICE_DMA_TO_DEVICE);
		virtq_destroy(&p->txq);
	}
	for (unsigned int i = 0; i < net->queue_size; i++) {
		if (p->rx && p->rx[i].cpu)
			net->bufs.free(net->bufs.ctx, p->rx[i].cpu);
		if (p->tx && p->tx[i].cpu)
			net->bufs.free(net->bufs.ctx, p->tx[i].cpu);
	}
	free(p->rx);
	free(p->tx);
	free(p->tx_free);
	free(p->rx_unposted);
	free(p->rxq_meta);
	free(p->txq_meta);
}

/*
 * A device that did not reset may still read and write every ring and buffer it
 * was given: none of it is released, ever; its size is counted. The rings are
 * those of every queue set up - the control queue's too - and only those: a
 * queue whose set-up failed has none.
 */
static void virtio_net_quarantine(struct virtio_net *net)
{
	uint64_t bytes = virtq_ring_bytes(&net->ctrlq), mappings = 0;

	for (unsigned int pi = 0; net->pairs && pi < net->pairs_allocated; pi++) {
		const struct virtio_net_pair *p = &net->pairs[pi];

		bytes += virtq_ring_bytes(&p->rxq) + virtq_ring_bytes(&p->txq);
		for (unsigned int i = 0; i < net->queue_size; i++) {
			if (p->rx && p->rx[i].mapped) {
				bytes += p->rx[i].len;
				mappings++;
			}
			if (p->tx && p->tx[i].mapped) {
				bytes += p->tx[i].len;
				mappings++;
			}
		}
	}
	if (net->ctrl)
		bytes += sizeof(*net->ctrl);
	net->quarantined = true;
	net->quarantined_bytes = bytes;
	net->quarantined_mappings = mappings;
	quarantine_record(bytes, mappings);
}

int virtio_net_remove(struct virtio_net *net)
{
	if (!net->vdev)
		return 0;
	if (net->quarantined)
		return SLUICE_DMA_ERR_IO;
	/* Reset first: only then can the device no longer touch rings or buffers.
	 * A device that does not reset keeps them all (quarantine). */
	if (net->vdev->ops->reset(net->vdev)) {
		virtio_net_quarantine(net);
		return SLUICE_DMA_ERR_IO;
	}
	/* Every pair that was allocated, also those a refused command left idle. */
	for (unsigned int pi = 0; net->pairs && pi < net->pairs_allocated; pi++)
		virtio_net_pair_free(net, &net->pairs[pi]);
	if (net->ctrlq_meta) {
		virtq_detach_unused(&net->ctrlq);
		virtq_destroy(&net->ctrlq);
		free(net->ctrlq_meta);
	}
	if (net->ctrl)
		sluice_dma_free_coherent(net->dl, net->ctrl, sizeof(*net->ctrl));
	free(net->pairs);
	memset(net, 0, sizeof(*net));
	return 0;
}
