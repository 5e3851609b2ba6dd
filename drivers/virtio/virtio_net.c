/* SPDX-License-Identifier: MIT */
/*
 * virtio_net.c - virtio-net: negotiation, one RX and one TX queue, frames in and
 * out with validation.
 *
 * Receive: every buffer holds header + frame (VIRTIO_NET_BUF_SIZE bytes, enough
 * for 1514-byte frames without MRG_RXBUF). A completion is trusted only after its
 * length passed the queue's check (<= what was posted) and ours (>= header +
 * minimal frame); then exactly that many bytes are synced for the CPU, the
 * header is read once into a local, and the frame is copied to the caller.
 * Transmit: a ring of slots, each a buffer the frame is copied into behind a
 * zeroed header; the slot's mapping lives until the device completes it.
 */
#include "drivers/virtio/virtio_net.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Feature bits (virtio 1.2, 5.1.3). */
#define VIRTIO_NET_F_MAC 5
#define VIRTIO_NET_F_STATUS 16

/* Configuration layout (virtio 1.2, 5.1.4). */
#define VIRTIO_NET_CFG_MAC 0
#define VIRTIO_NET_CFG_STATUS 6
#define VIRTIO_NET_S_LINK_UP 1

#define VIRTIO_NET_RXQ 0
#define VIRTIO_NET_TXQ 1

#define ERR_BUSY (-16)
#define ERR_INVAL (-22)

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

/* Private state of one buffer. */
struct virtio_net_buf {
	uint8_t *cpu;	  /* the buffer */
	uint64_t dma;	  /* its mapping while the device owns it */
	uint32_t len;	  /* mapped length */
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
		return DMA_ERR_NOMEM;
	rc = virtq_init(vq, net->dl, &net->tag, index, size, *meta, meta_len, flags,
			virtio_net_notify, vdev);
	if (rc)
		return rc;
	virtq_ring_addrs(vq, &desc, &driver, &device);
	return vdev->ops->queue_setup(vdev, index, (uint16_t)size, desc, driver, device);
}

/* Map and post receive buffer @i. */
static int virtio_net_post_rx(struct virtio_net *net, unsigned int i)
{
	struct virtio_net_buf *b = &net->rx[i];
	struct virtq_buf vb;
	int rc;

	rc = dma_map(net->dl, &net->tag, b->cpu, VIRTIO_NET_BUF_SIZE, DMA_FROM_DEVICE, &b->dma);
	if (rc)
		return rc;
	b->len = VIRTIO_NET_BUF_SIZE;
	b->mapped = true;
	vb.dma_addr = b->dma;
	vb.len = VIRTIO_NET_BUF_SIZE;
	rc = virtq_add(&net->rxq, &vb, 0, 1, b);
	if (rc) {
		dma_unmap_discard(net->dl, b->dma, b->len, DMA_FROM_DEVICE);
		b->mapped = false;
	}
	return rc;
}

int virtio_net_init(struct virtio_net *net, struct virtio_device *vdev, struct dma_layer *dl,
		    const struct virtio_net_buffers *bufs, unsigned int max_queue_size,
		    char *why, size_t why_len)
{
	/*
	 * EVENT_IDX is not negotiated: with it, QEMU 7.2's transmit path (the
	 * asynchronous hub send and the tx bottom half) now and then left
	 * avail_event one entry behind a kick we had already sent, and the queue
	 * stalled (seen 1 run in 7 here); the NO_NOTIFY flag protocol does not.
	 */
	uint64_t wanted = VIRTIO_FEATURE(VIRTIO_NET_F_MAC) | VIRTIO_FEATURE(VIRTIO_NET_F_STATUS);
	unsigned int size;
	int rc;

	memset(net, 0, sizeof(*net));
	net->vdev = vdev;
	net->dl = dl;
	net->tag = DMA_TAG_DEFAULT;
	net->bufs = *bufs;
	if (vdev->device_type != VIRTIO_ID_NET) {
		snprintf(why, why_len, "%s: not a network device", vdev->name);
		return ERR_INVAL;
	}
	rc = virtio_negotiate(vdev, wanted, why, why_len);
	if (rc)
		return rc;
	if (virtio_has_feature(vdev, VIRTIO_NET_F_MAC)) {
		if (vdev->ops->config_read(vdev, VIRTIO_NET_CFG_MAC, net->mac, 6)) {
			snprintf(why, why_len, "%s: cannot read the MAC address", vdev->name);
			rc = DMA_ERR_IO;
			goto fail;
		}
	} else {
		/* Locally administered, unicast, derived from the device's name. */
		static const uint8_t local[6] = { 0x02, 0x53, 0x4c, 0x55, 0x49, 0x00 };

		memcpy(net->mac, local, 6);
		net->mac[5] = (uint8_t)vdev->name[strlen(vdev->name) - 1];
	}
	net->has_status = virtio_has_feature(vdev, VIRTIO_NET_F_STATUS);

	size = vdev->ops->queue_max_size(vdev, VIRTIO_NET_RXQ);
	if (vdev->ops->queue_max_size(vdev, VIRTIO_NET_TXQ) < size)
		size = vdev->ops->queue_max_size(vdev, VIRTIO_NET_TXQ);
	if (max_queue_size && size > max_queue_size)
		size = max_queue_size;
	while (size & (size - 1))
		size &= size - 1;
	if (!size) {
		snprintf(why, why_len, "%s: no usable queue pair", vdev->name);
		rc = ERR_INVAL;
		goto fail;
	}
	net->queue_size = size;
	net->rx = calloc(size, sizeof(*net->rx));
	net->tx = calloc(size, sizeof(*net->tx));
	net->tx_free = calloc(size, sizeof(*net->tx_free));
	net->rx_unposted = calloc(size, sizeof(*net->rx_unposted));
	if (!net->rx || !net->tx || !net->tx_free || !net->rx_unposted) {
		rc = DMA_ERR_NOMEM;
		goto fail_queue;
	}
	for (unsigned int i = 0; i < size; i++) {
		net->rx[i].cpu = bufs->alloc(bufs->ctx, VIRTIO_NET_BUF_SIZE);
		net->tx[i].cpu = bufs->alloc(bufs->ctx, VIRTIO_NET_BUF_SIZE);
		if (!net->rx[i].cpu || !net->tx[i].cpu) {
			rc = DMA_ERR_NOMEM;
			goto fail_queue;
		}
		net->tx_free[i] = (uint16_t)i;
	}
	net->tx_nfree = size;
	rc = virtio_net_setup_queue(net, &net->rxq, &net->rxq_meta, VIRTIO_NET_RXQ, size);
	if (!rc)
		rc = virtio_net_setup_queue(net, &net->txq, &net->txq_meta, VIRTIO_NET_TXQ, size);
	if (rc)
		goto fail_queue;
	/* Post receive buffers before DRIVER_OK: the device may deliver at once. A
	 * full bounce pool is not fatal; the rest are posted as slots come back. */
	for (unsigned int i = 0; i < size; i++) {
		rc = virtio_net_post_rx(net, i);
		if (rc == DMA_ERR_NOMEM)
			net->rx_unposted[net->rx_nunposted++] = (uint16_t)i;
		else if (rc)
			goto fail_queue;
	}
	if (net->rx_nunposted == size) {
		snprintf(why, why_len, "%s: no bounce slot for even one receive buffer", vdev->name);
		rc = DMA_ERR_NOMEM;
		goto fail;
	}
	rc = virtio_driver_ok(vdev);
	if (rc) {
		snprintf(why, why_len, "%s: device failed after DRIVER_OK", vdev->name);
		goto fail;
	}
	virtq_kick(&net->rxq);
	return 0;

fail_queue:
	snprintf(why, why_len, "%s: queue set-up failed (%d)", vdev->name, rc);
fail:
	virtio_fail(vdev);
	return rc;
}

int virtio_net_tx_reclaim(struct virtio_net *net)
{
	struct virtio_net_buf *b;
	uint32_t len;
	int n = 0, status;

	while ((b = virtq_get_used(&net->txq, &len, &status)) != NULL) {
		/* The device wrote nothing into a transmit buffer; a length it reports
		 * is meaningless, and a bad one changes nothing here. */
		dma_unmap(net->dl, b->dma, b->len, DMA_TO_DEVICE);
		b->mapped = false;
		net->stats.tx_frames++;
		net->stats.tx_bytes += b->len - VIRTIO_NET_HDR_LEN;
		net->tx_free[net->tx_nfree++] = (uint16_t)(b - net->tx);
		n++;
	}
	return n;
}

int virtio_net_send(struct virtio_net *net, const void *frame, size_t len)
{
	struct virtio_net_buf *b;
	struct virtq_buf vb;
	uint16_t i;
	int rc;

	if (len < VIRTIO_NET_MIN_FRAME || len > VIRTIO_NET_MAX_FRAME || !frame)
		return ERR_INVAL;
	if (!net->tx_nfree)
		virtio_net_tx_reclaim(net);
	if (!net->tx_nfree) {
		net->stats.tx_busy++;
		return ERR_BUSY;
	}
	i = net->tx_free[net->tx_nfree - 1];
	b = &net->tx[i];
	/* No offloads: an all-zero header. */
	memset(b->cpu, 0, VIRTIO_NET_HDR_LEN);
	memcpy(b->cpu + VIRTIO_NET_HDR_LEN, frame, len);
	b->len = (uint32_t)(VIRTIO_NET_HDR_LEN + len);
	rc = dma_map(net->dl, &net->tag, b->cpu, b->len, DMA_TO_DEVICE, &b->dma);
	if (rc) {
		net->stats.tx_busy++;
		return rc == DMA_ERR_NOMEM ? ERR_BUSY : rc;
	}
	vb.dma_addr = b->dma;
	vb.len = b->len;
	rc = virtq_add(&net->txq, &vb, 1, 0, b);
	if (rc) {
		dma_unmap(net->dl, b->dma, b->len, DMA_TO_DEVICE);
		net->stats.tx_busy++;
		return rc == VIRTQ_ERR_NOSPC ? ERR_BUSY : rc;
	}
	b->mapped = true;
	net->tx_nfree--;
	virtq_kick(&net->txq);
	return 0;
}

int virtio_net_recv(struct virtio_net *net, void *out, size_t max, size_t *len)
{
	struct virtio_net_buf *b;
	uint32_t used_len;
	int status, got = 0;

	while (!got && (b = virtq_get_used(&net->rxq, &used_len, &status)) != NULL) {
		unsigned int i = (unsigned int)(b - net->rx);
		struct virtio_net_hdr hdr;
		size_t frame_len;

		if (status || used_len < VIRTIO_NET_HDR_LEN + VIRTIO_NET_MIN_FRAME ||
		    used_len > VIRTIO_NET_BUF_SIZE) {
			net->stats.rx_bad_len++;
			dma_unmap_discard(net->dl, b->dma, b->len, DMA_FROM_DEVICE);
			goto repost;
		}
		/* Bring exactly the bytes the device wrote to the CPU's side. */
		dma_sync_for_cpu(net->dl, b->dma, 0, used_len, DMA_FROM_DEVICE);
		dma_unmap_discard(net->dl, b->dma, b->len, DMA_FROM_DEVICE);
		/* One read of the header: in place (arena) the host can still write it. */
		memcpy(&hdr, b->cpu, sizeof(hdr));
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		if (hdr.flags || hdr.gso_type) {
			/* No offload was negotiated: a header asking for one is bogus. */
			net->stats.rx_bad_hdr++;
			goto repost;
		}
		frame_len = used_len - VIRTIO_NET_HDR_LEN;
		if (frame_len > max) {
			net->stats.rx_dropped++;
			goto repost;
		}
		memcpy(out, b->cpu + VIRTIO_NET_HDR_LEN, frame_len);
		*len = frame_len;
		net->stats.rx_frames++;
		net->stats.rx_bytes += frame_len;
		got = 1;
repost:
		b->mapped = false;
		net->rx_unposted[net->rx_nunposted++] = (uint16_t)i;
	}
	/* Refill: every buffer taken above, and any that found no bounce slot before. */
	while (net->rx_nunposted) {
		int rc = virtio_net_post_rx(net, net->rx_unposted[net->rx_nunposted - 1]);

		if (rc) {
			if (rc != DMA_ERR_NOMEM)
				net->stats.rx_repost_failed++;
			break;
		}
		net->rx_nunposted--;
	}
	virtq_kick(&net->rxq);
	return got;
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

void virtio_net_remove(struct virtio_net *net)
{
	struct virtio_net_buf *b;

	net->vdev->ops->reset(net->vdev);
	if (net->rxq_meta) {
		while ((b = virtq_detach_unused(&net->rxq)) != NULL)
			dma_unmap_discard(net->dl, b->dma, b->len, DMA_FROM_DEVICE);
		virtq_destroy(&net->rxq);
	}
	if (net->txq_meta) {
		while ((b = virtq_detach_unused(&net->txq)) != NULL)
			dma_unmap(net->dl, b->dma, b->len, DMA_TO_DEVICE);
		virtq_destroy(&net->txq);
	}
	for (unsigned int i = 0; i < net->queue_size; i++) {
		if (net->rx)
			net->bufs.free(net->bufs.ctx, net->rx[i].cpu);
		if (net->tx)
			net->bufs.free(net->bufs.ctx, net->tx[i].cpu);
	}
	free(net->rx);
	free(net->tx);
	free(net->tx_free);
	free(net->rx_unposted);
	free(net->rxq_meta);
	free(net->txq_meta);
	memset(net, 0, sizeof(*net));
}
