/* SPDX-License-Identifier: MIT */
/*
 * virtio_net.h - virtio-net driver (virtio 1.2, 5.1): receive/transmit queue
 * pairs (one, or one per CPU with VIRTIO_NET_F_MQ), frames in and out, link
 * status, completion by polling.
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

#include "arch/x86_64/smp/spinlock.h"
#include <sluice/dma.h>
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
 * @cycles_dma: with &struct virtio_net.profile set, cycles spent in the DMA layer's
 *	map, sync and unmap calls of frames (sent and received; bounce copies
 *	included), like &struct virtio_blk_stats.cycles_dma.
 */
struct virtio_net_stats {
	uint64_t tx_frames, tx_bytes, tx_busy;
	uint64_t rx_frames, rx_bytes, rx_bad_len, rx_bad_hdr, rx_dropped, rx_repost_failed;
	uint64_t cycles_dma;
};

struct virtio_net_buf;

/* Queue pairs used at most (one per CPU, up to this many). */
#define VIRTIO_NET_MAX_PAIRS 8

/**
 * struct virtio_net_pair - one receive queue and one transmit queue, with
 *	their buffers (receiveq N = queue 2N, transmitq N = queue 2N + 1).
 * @rxq: receive queue.
 * @txq: transmit queue.
 * @rxq_meta: @rxq's private metadata.
 * @txq_meta: @txq's private metadata.
 * @rx: receive buffers (private bookkeeping).
 * @tx: transmit buffers (private bookkeeping).
 * @tx_free: free transmit buffer indices.
 * @tx_nfree: count of @tx_free.
 * @rx_unposted: receive buffers not on the ring (no bounce slot was free when
 *	they were to be posted); refilled as slots come back.
 * @rx_nunposted: count of @rx_unposted.
 * @stats: this pair's counters (each CPU updates only its own pair's).
 * @lock: serialises the pair's operations when several CPUs share it.
 */
struct virtio_net_pair {
	struct virtq rxq, txq;
	void *rxq_meta, *txq_meta;
	struct virtio_net_buf *rx, *tx;
	uint16_t *tx_free;
	unsigned int tx_nfree;
	uint16_t *rx_unposted;
	unsigned int rx_nunposted;
	struct virtio_net_stats stats;
	struct spinlock lock;
};

struct virtio_net_ctrl;

/**
 * struct virtio_net - one virtio-net device.
 * @vdev: the transport-independent device.
 * @dl: the DMA layer of every address the device sees.
 * @tag: DMA limits.
 * @mac: the device's MAC address (from the configuration, or a locally
 *	administered one when the device does not offer it).
 * @has_status: the device reports link status.
 * @queue_size: entries of each queue in use.
 * @npairs: queue pairs in use (1 unless the device offers VIRTIO_NET_F_MQ).
 * @device_pairs: queue pairs the device has (max_virtqueue_pairs, 1 without MQ).
 * @pairs: the pairs in use.
 * @pairs_allocated: entries of @pairs (more than @npairs when the device refused
 *	to turn the others on; they stay set up, unused, until removal).
 * @shared: several CPUs may use one pair: each pair operation takes its lock.
 * @ctrlq: control queue (only with VIRTIO_NET_F_CTRL_VQ).
 * @ctrlq_meta: its metadata, NULL when there is none.
 * @ctrl: the command buffer (coherent memory) and its device address.
 * @ctrl_dma: device address of @ctrl.
 * @bufs: where frame buffers come from.
 * @ctrl_timeouts: control commands the device did not answer within the device
 *	deadline (drivers/deadline.h).
 * @quarantined: the device did not reset at removal: its rings and buffers are
 *	left to it for good, never freed or reused.
 * @quarantined_bytes: their bytes.
 * @quarantined_mappings: DMA mappings left in place with them.
 * @profile: time the DMA layer calls of the data path (through the layer's cycles
 *	op) into the pair's cycles_dma counter; off by default, for benchmarks.
 */
struct virtio_net {
	struct virtio_device *vdev;
	struct sluice_dma_layer *dl;
	struct sluice_dma_tag tag;
	uint8_t mac[6];
	bool has_status;
	unsigned int queue_size;
	unsigned int npairs;
	unsigned int device_pairs;
	struct virtio_net_pair *pairs;
	unsigned int pairs_allocated;
	bool shared;
	struct virtq ctrlq;
	void *ctrlq_meta;
	struct virtio_net_ctrl *ctrl;
	uint64_t ctrl_dma;
	struct virtio_net_buffers bufs;
	unsigned int ctrl_timeouts;
	bool quarantined;
	uint64_t quarantined_bytes;
	uint64_t quarantined_mappings;
	bool profile;
};

/**
 * virtio_net_init() - virtio_net_init_mq() with one queue pair.
 * @net: caller storage.
 * @vdev: a probed device of type VIRTIO_ID_NET.
 * @dl: the DMA layer for rings and buffers.
 * @bufs: frame buffer allocator.
 * @max_queue_size: at most this many entries per queue (0: what the device offers).
 * @why: on failure, why.
 * @why_len: its size.
 * Return: 0 or a negative error; on failure nothing is left allocated or mapped.
 */
int virtio_net_init(struct virtio_net *net, struct virtio_device *vdev, struct sluice_dma_layer *dl,
		    const struct virtio_net_buffers *bufs, unsigned int max_queue_size, char *why,
		    size_t why_len);

/**
 * virtio_net_init_mq() - negotiate, read MAC and status, set up up to
 *	@max_pairs receive/transmit queue pairs, post receive buffers, DRIVER_OK.
 * @net: caller storage.
 * @vdev: a probed device of type VIRTIO_ID_NET.
 * @dl: the DMA layer for rings and buffers.
 * @bufs: frame buffer allocator.
 * @max_queue_size: at most this many entries per queue (0: what the device offers).
 * @max_pairs: queue pairs wanted (1..VIRTIO_NET_MAX_PAIRS), e.g. one per CPU.
 * @why: on failure, why.
 * @why_len: its size.
 *
 * More than one pair needs VIRTIO_NET_F_MQ and VIRTIO_NET_F_CTRL_VQ: the pairs
 * are enabled with the control command VIRTIO_NET_CTRL_MQ_VQ_PAIRS_SET, whose
 * acknowledgement byte is read once and must be VIRTIO_NET_OK; otherwise (or if
 * the device answers nothing) the driver uses one pair. @npairs says how many.
 * Return: 0 or a negative error; on failure nothing is left allocated or mapped,
 * unless the device did not reset (then it is quarantined, see virtio_net_remove()).
 */
int virtio_net_init_mq(struct virtio_net *net, struct virtio_device *vdev,
		       struct sluice_dma_layer *dl, const struct virtio_net_buffers *bufs,
		       unsigned int max_queue_size, unsigned int max_pairs, char *why,
		       size_t why_len);

/**
 * virtio_net_share_pairs() - let several CPUs use one pair (fewer pairs than
 *	CPUs): every operation on a pair then takes the pair's spinlock.
 * @net: an initialised device.
 * @shared: true to lock, false (default) when each pair has one user.
 */
void virtio_net_share_pairs(struct virtio_net *net, bool shared);

/**
 * virtio_net_send_on() - copy a frame into a transmit slot of pair @pair and
 *	post it.
 * @net: the device.
 * @pair: queue pair, below @net->npairs.
 * @frame: Ethernet frame without FCS.
 * @len: VIRTIO_NET_MIN_FRAME..VIRTIO_NET_MAX_FRAME bytes.
 * Return: 0; -16 (busy) when no slot or bounce slot is free (reclaim and retry);
 *	-22 for a bad length or pair; another negative error if the queue broke.
 */
int virtio_net_send_on(struct virtio_net *net, unsigned int pair, const void *frame, size_t len);

/**
 * virtio_net_tx_reclaim_on() - take back transmit slots the device finished.
 * @net: the device.
 * @pair: queue pair.
 * Return: slots reclaimed.
 */
int virtio_net_tx_reclaim_on(struct virtio_net *net, unsigned int pair);

/**
 * virtio_net_recv_on() - take one received frame from pair @pair, if any.
 * @net: the device.
 * @pair: queue pair.
 * @out: where the frame (without the virtio header) is copied.
 * @max: its size.
 * @len: set to the frame's length.
 * Return: 1 if a frame was copied, 0 if none was waiting.
 */
int virtio_net_recv_on(struct virtio_net *net, unsigned int pair, void *out, size_t max,
		       size_t *len);

/**
 * virtio_net_tx_pending() - transmit slots the device still holds on @pair.
 * @net: the device.
 * @pair: queue pair.
 */
unsigned int virtio_net_tx_pending(const struct virtio_net *net, unsigned int pair);

/**
 * virtio_net_send() - virtio_net_send_on() pair 0.
 * @net: the device.
 * @frame: Ethernet frame without FCS.
 * @len: its length.
 */
int virtio_net_send(struct virtio_net *net, const void *frame, size_t len);

/**
 * virtio_net_tx_reclaim() - virtio_net_tx_reclaim_on() pair 0.
 * @net: the device.
 */
int virtio_net_tx_reclaim(struct virtio_net *net);

/**
 * virtio_net_recv() - virtio_net_recv_on() pair 0.
 * @net: the device.
 * @out: where the frame is copied.
 * @max: its size.
 * @len: set to the frame's length.
 */
int virtio_net_recv(struct virtio_net *net, void *out, size_t max, size_t *len);

/**
 * virtio_net_stats_get() - every pair's counters, summed.
 * @net: the device.
 * @out: filled in.
 */
void virtio_net_stats_get(const struct virtio_net *net, struct virtio_net_stats *out);

/**
 * virtio_net_link_up() - whether the device reports its link up (true when it
 *	does not report link status).
 * @net: the device.
 */
bool virtio_net_link_up(struct virtio_net *net);

/**
 * virtio_net_remove() - reset the device, unmap and free everything; but if the
 *	reset does not complete within the device deadline, quarantine instead:
 *	rings, buffers and their mappings stay as they are, never reused, counted
 *	in @quarantined_bytes and drivers/quarantine.h.
 * @net: the device (may be the storage of a failed init: then nothing is left).
 * Return: 0, or -5 when the device was quarantined (again on later calls).
 */
int virtio_net_remove(struct virtio_net *net);

#endif /* SLUICE_DRIVERS_VIRTIO_NET_H */
