/* SPDX-License-Identifier: MIT */
/*
 * virtio_net.h - virtio-net driver (virtio 1.2, 5.1): one receive and one
 * transmit queue, frames in and out, link status, completion by polling.
 *
 * Receive buffers are posted once and reposted after each frame; transmit
 * buffers are a ring of slots. Both come from a caller-chosen allocator, so the
 * same driver runs with private buffers (direct and bounce modes: the DMA layer
 * maps them in place or bounces them) and with arena buffers (mapped in place,
 * no copy). Every length and header field the device writes is validated, and
 * read once, before a frame is handed up.
 */
#ifndef SLUICE_DRIVERS_VIRTIO_NET_H
#define SLUICE_DRIVERS_VIRTIO_NET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dma/dma.h"
#include "drivers/virtio/virtio.h"
#include "drivers/virtio/virtqueue.h"

/* Header in front of every frame (virtio 1.x: num_buffers always present). */
#define VIRTIO_NET_HDR_LEN 12
/* Largest frame without FCS and VLAN tag, and the receive buffer that holds it
 * with its header (the spec asks for at least 1526 bytes). */
#define VIRTIO_NET_MAX_FRAME 1514
#define VIRTIO_NET_MIN_FRAME 14
#define VIRTIO_NET_BUF_SIZE 2048

/**
 * struct virtio_net_buffers - where the driver's frame buffers come from.
 * @alloc: return @size bytes of memory (4 KiB aligned if @size >= 4 KiB) or NULL.
 * @free: release memory from @alloc.
 * @ctx: handed back to both.
 */
struct virtio_net_buffers {
	void *(*alloc)(void *ctx, size_t size);
	void (*free)(void *ctx, void *ptr);
	void *ctx;
};

/**
 * struct virtio_net_stats - driver counters.
 * @tx_frames: frames sent (completed by the device).
 * @tx_bytes: their bytes (without the virtio header).
 * @tx_busy: sends refused because every slot or bounce slot was in use.
 * @rx_frames: frames received and handed up.
 * @rx_bytes: their bytes.
 * @rx_bad_len: completions with a length below the header plus a minimal frame,
 *	or above the buffer (dropped).
 * @rx_bad_hdr: headers asking for offloads that were not negotiated (dropped).
 * @rx_dropped: frames dropped because the caller's buffer was too small.
 * @rx_repost_failed: receive buffers that could not be reposted.
 */
struct virtio_net_stats {
	uint64_t tx_frames, tx_bytes, tx_busy;
	uint64_t rx_frames, rx_bytes, rx_bad_len, rx_bad_hdr, rx_dropped, rx_repost_failed;
};

struct virtio_net_buf;

/**
 * struct virtio_net - one virtio-net device.
 * @vdev: the transport-independent device.
 * @dl: the DMA layer of every address the device sees.
 * @tag: DMA limits.
 * @mac: the device's MAC address (from the configuration, or a locally
 *	administered one when the device does not offer it).
 * @has_status: the device reports link status.
 * @queue_size: entries of each queue in use.
 * @rxq: receive queue (queue 0).
 * @txq: transmit queue (queue 1).
 * @rx: receive buffers (private bookkeeping).
 * @tx: transmit buffers (private bookkeeping).
 * @tx_free: free transmit buffer indices.
 * @tx_nfree: count of @tx_free.
 * @rx_unposted: receive buffers not on the ring (no bounce slot was free when
 *	they were to be posted); refilled as slots come back.
 * @rx_nunposted: count of @rx_unposted.
 * @bufs: the buffer allocator.
 * @stats: counters.
 */
struct virtio_net {
	struct virtio_device *vdev;
	struct dma_layer *dl;
	struct dma_tag tag;
	uint8_t mac[6];
	bool has_status;
	unsigned int queue_size;
	struct virtq rxq, txq;
	void *rxq_meta, *txq_meta;
	struct virtio_net_buf *rx, *tx;
	uint16_t *tx_free;
	unsigned int tx_nfree;
	uint16_t *rx_unposted;
	unsigned int rx_nunposted;
	struct virtio_net_buffers bufs;
	struct virtio_net_stats stats;
};

/**
 * virtio_net_init() - negotiate, read the MAC, set up both queues, post the
 *	receive buffers, DRIVER_OK.
 * @net: caller storage.
 * @vdev: a probed device of type VIRTIO_ID_NET.
 * @dl: the DMA layer.
 * @bufs: the frame buffer allocator (copied).
 * @max_queue_size: use at most this many entries per queue (0: what the device offers).
 * @why: on failure, why.
 * @why_len: its size.
 * Receive buffers that find no bounce slot now (a small pool) are posted later,
 * as slots come back; at least one must be posted.
 * Return: 0, or a negative code with the device reset.
 */
int virtio_net_init(struct virtio_net *net, struct virtio_device *vdev, struct dma_layer *dl,
		    const struct virtio_net_buffers *bufs, unsigned int max_queue_size,
		    char *why, size_t why_len);

/**
 * virtio_net_send() - queue one frame for transmission and notify the device.
 * @net: the device.
 * @frame: Ethernet frame (destination, source, type, payload), no FCS.
 * @len: VIRTIO_NET_MIN_FRAME .. VIRTIO_NET_MAX_FRAME bytes.
 * Return: 0; -16 when every transmit slot (or bounce slot) is in use: reclaim
 * with virtio_net_tx_reclaim() and retry; -22 for a bad length.
 */
int virtio_net_send(struct virtio_net *net, const void *frame, size_t len);

/**
 * virtio_net_tx_reclaim() - take back transmit slots the device finished with.
 * @net: the device.
 * Return: slots reclaimed.
 */
int virtio_net_tx_reclaim(struct virtio_net *net);

/**
 * virtio_net_recv() - take one received frame, validated, and repost its buffer.
 * @net: the device.
 * @out: where the frame is copied.
 * @max: size of @out.
 * @len: set to the frame's length.
 * Return: 1 with a frame, 0 when none is waiting (frames the device got wrong
 * are counted and skipped).
 */
int virtio_net_recv(struct virtio_net *net, void *out, size_t max, size_t *len);

/**
 * virtio_net_link_up() - the device's link state (true if it does not report one).
 * @net: the device.
 */
bool virtio_net_link_up(struct virtio_net *net);

/**
 * virtio_net_remove() - reset the device and release its queues and buffers.
 * @net: the device.
 */
void virtio_net_remove(struct virtio_net *net);

#endif /* SLUICE_DRIVERS_VIRTIO_NET_H */
