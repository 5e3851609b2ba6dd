/* SPDX-License-Identifier: MIT */
/*
 * virtqueue.h - a virtio 1.x split virtqueue driven by a guest that does not trust
 * its host: rings in shared (coherent) memory from the DMA layer, all bookkeeping
 * in private memory the caller provides, every used-ring entry validated, every
 * shared index read once.
 *
 * This is the ring only: it knows no transport (PCI lives in virtio_pci.c), no
 * device type (blk, net) and never computes a device address itself - buffers
 * arrive as device addresses the DMA layer produced. It takes no locks: one
 * caller at a time per queue (the driver's per-queue lock or a single CPU).
 */
#ifndef SLUICE_VIRTQUEUE_H
#define SLUICE_VIRTQUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sluice/dma.h>
#include "drivers/virtio/virtio_ring.h"

#include "arch/kernel_errno.h"

/* virtq_init() flags. */
/* Check every buffer address with sluice_dma_addr_is_shared() before the device sees it. */
#define VIRTQ_INIT_CONFIDENTIAL 0x1u
/* VIRTIO_F_RING_INDIRECT_DESC was negotiated: put multi-buffer requests in one
 * indirect table (one ring slot per request). */
#define VIRTQ_INIT_INDIRECT 0x2u
/* VIRTIO_F_RING_EVENT_IDX was negotiated: honour avail_event for kicks and
 * publish used_event. */
#define VIRTQ_INIT_EVENT_IDX 0x4u

/* Descriptors per indirect table; requests with more buffers use a plain chain. */
#define VIRTQ_INDIRECT_MAX 16u

/**
 * enum virtq_err - codes of the virtqueue besides the DMA_ERR_* it also returns
 *	(SLUICE_DMA_ERR_INVAL for bad arguments, SLUICE_DMA_ERR_NOMEM for a failed ring
 *	allocation or short metadata, SLUICE_DMA_ERR_FAULT for a refused address,
 *	SLUICE_DMA_ERR_RANGE for a bad used length, SLUICE_DMA_ERR_IO for a broken queue,
 *	SLUICE_DMA_ERR_BUSY for chains still in flight).
 * @VIRTQ_ERR_NOSPC: not enough free descriptors for the request (ENOSPC).
 *	A runtime condition: counted in &struct virtq_stats.full; retry after
 *	completions.
 */
enum virtq_err {
	VIRTQ_ERR_NOSPC = KERR_NOSPC,
};

/**
 * struct virtq_buf - one buffer of a request, as the device will see it.
 * @dma_addr: device address from sluice_dma_map() / sluice_dma_alloc_coherent().
 * @len: length in bytes, not zero.
 */
struct virtq_buf {
	uint64_t dma_addr;
	uint32_t len;
};

/**
 * struct virtq_stats - counters of one queue (reset only by virtq_init()).
 * @adds: requests published.
 * @indirect_adds: of those, requests put in an indirect table.
 * @full: virtq_add() calls refused with VIRTQ_ERR_NOSPC.
 * @kicks: notifications sent to the device.
 * @kicks_suppressed: kicks the device asked us to skip (NO_NOTIFY or
 *	avail_event).
 * @completions: chains returned by virtq_get_used() (bad lengths included)
 *	or by virtq_detach_unused().
 * @bad_id: used entries whose id was >= the queue size (skipped).
 * @not_in_flight: used entries whose id was no chain head in flight: a
 *	replay, a non-head descriptor, a free one (skipped).
 * @bad_len: used entries whose length exceeded the writable bytes posted
 *	(completed with SLUICE_DMA_ERR_RANGE and length 0).
 * @bad_idx: used->idx values that ran further ahead than the chains in flight
 *	(the queue is then broken).
 * @refused_addr: buffers refused in confidential mode because their address
 *	did not lie in shared memory.
 */
struct virtq_stats {
	uint64_t adds;
	uint64_t indirect_adds;
	uint64_t full;
	uint64_t kicks;
	uint64_t kicks_suppressed;
	uint64_t completions;
	uint64_t bad_id;
	uint64_t not_in_flight;
	uint64_t bad_len;
	uint64_t bad_idx;
	uint64_t refused_addr;
};

struct virtq_head;

/**
 * enum virtq_shared_read - the shared fields the queue reads (host test builds
 *	report each read through &struct virtq.read_hook).
 * @VIRTQ_READ_USED_IDX: used->idx.
 * @VIRTQ_READ_USED_ID: used->ring[i].id.
 * @VIRTQ_READ_USED_LEN: used->ring[i].len.
 * @VIRTQ_READ_USED_FLAGS: used->flags.
 * @VIRTQ_READ_AVAIL_EVENT: avail_event after the used ring.
 * @VIRTQ_READ_COUNT: number of kinds.
 */
enum virtq_shared_read {
	VIRTQ_READ_USED_IDX,
	VIRTQ_READ_USED_ID,
	VIRTQ_READ_USED_LEN,
	VIRTQ_READ_USED_FLAGS,
	VIRTQ_READ_AVAIL_EVENT,
	VIRTQ_READ_COUNT,
};

/**
 * struct virtq - one split virtqueue. Storage is the caller's; the fields are
 *	private (use the functions below).
 * @dl: the DMA layer the rings came from.
 * @tag: copy of the device's tag, page alignment added, for ring allocations.
 * @index: queue index, passed to @notify.
 * @num: queue size (a power of two).
 * @flags: VIRTQ_INIT_*.
 * @desc: descriptor table (shared).
 * @avail: driver area (shared).
 * @used: device area (shared).
 * @indirect: VIRTQ_INDIRECT_MAX descriptors per head (shared), or NULL.
 * @desc_dma: device address of @desc.
 * @avail_dma: device address of @avail.
 * @used_dma: device address of @used.
 * @indirect_dma: device address of @indirect.
 * @notify: tells the device that new chains are available.
 * @notify_ctx: handed back to @notify.
 * @heads: per-descriptor private state, meaningful for chain heads (private).
 * @next: private chain and free-list links; the device's copy in @desc is
 *	written, never read.
 * @mark: scratch of virtq_check().
 * @free_head: first free descriptor, or 0xffff.
 * @num_free: free descriptors.
 * @num_inflight: chains the device owns.
 * @avail_idx: private copy of avail->idx.
 * @kicked_idx: @avail_idx at the last virtq_kick().
 * @last_used: next used entry to consume.
 * @used_seen: used->idx as last read and validated.
 * @detach_pos: where virtq_detach_unused() resumes.
 * @log_budget: bad-entry messages still allowed (a hostile device must not
 *	flood the console).
 * @broken: the device broke the ring protocol; only reset or destroy help.
 * @stats: counters.
 * @read_hook: (host tests only) called after every read of a shared field with
 *	its address, so that a test can change it behind the queue's back.
 * @read_hook_ctx: handed back to @read_hook.
 */
struct virtq {
	struct sluice_dma_layer *dl;
	struct sluice_dma_tag tag;
	uint16_t index;
	unsigned int num;
	unsigned int flags;
	struct virtq_desc *desc;
	struct virtq_avail *avail;
	struct virtq_used *used;
	struct virtq_desc *indirect;
	uint64_t desc_dma;
	uint64_t avail_dma;
	uint64_t used_dma;
	uint64_t indirect_dma;
	void (*notify)(void *ctx, uint16_t queue_index);
	void *notify_ctx;
	struct virtq_head *heads;
	uint16_t *next;
	uint8_t *mark;
	uint16_t free_head;
	unsigned int num_free;
	unsigned int num_inflight;
	uint16_t avail_idx;
	uint16_t kicked_idx;
	uint16_t last_used;
	uint16_t used_seen;
	unsigned int detach_pos;
	unsigned int log_budget;
	bool broken;
	struct virtq_stats stats;
#ifdef SLUICE_HOST
	void (*read_hook)(void *ctx, enum virtq_shared_read what, volatile void *addr);
	void *read_hook_ctx;
#endif
};

/**
 * virtq_meta_size() - private bookkeeping bytes a queue of @num entries needs.
 * @num: queue size.
 * Return: bytes to pass as virtq_init()'s @meta_len; 0 if @num is not a power
 * of two between 1 and VIRTQ_MAX_SIZE.
 */
size_t virtq_meta_size(unsigned int num);

/**
 * virtq_init() - allocate and initialise a queue's rings.
 * @vq: caller storage.
 * @dl: the DMA layer; descriptor table, driver and device areas (and indirect
 *	tables with VIRTQ_INIT_INDIRECT) come from sluice_dma_alloc_coherent(), each page
 *	aligned.
 * @tag: the device's limits (copied).
 * @index: queue index (given back to @notify).
 * @num: queue size: a power of two, at most VIRTQ_MAX_SIZE and what the device
 *	offers.
 * @meta: private memory of virtq_meta_size(@num) bytes (any alignment), never
 *	shared with the host; the queue owns it until virtq_destroy().
 * @meta_len: its size.
 * @flags: VIRTQ_INIT_* (set only what was negotiated).
 * @notify: called by virtq_kick() to notify the device; must not be NULL.
 * @ctx: handed back to @notify.
 *
 * Completion is by polling: without VIRTQ_INIT_EVENT_IDX the driver area
 * carries VIRTQ_AVAIL_F_NO_INTERRUPT; with it, used_event follows the entries
 * taken (the device then ignores the flag).
 *
 * Return: 0; SLUICE_DMA_ERR_INVAL for a bad @num, tag or a NULL argument; SLUICE_DMA_ERR_NOMEM
 * if @meta_len is too small or a ring allocation failed (nothing kept);
 * SLUICE_DMA_ERR_FAULT in confidential mode if a ring is not in shared memory.
 */
int virtq_init(struct virtq *vq, struct sluice_dma_layer *dl, const struct sluice_dma_tag *tag,
	       uint16_t index, unsigned int num, void *meta, size_t meta_len, unsigned int flags,
	       void (*notify)(void *ctx, uint16_t queue_index), void *ctx);

/**
 * virtq_ring_addrs() - device addresses the transport programs into the device
 *	(queue_desc, queue_driver, queue_device).
 * @vq: the queue.
 * @desc: set to the descriptor table's address.
 * @driver: set to the driver (available) area's address.
 * @device: set to the device (used) area's address.
 */
void virtq_ring_addrs(const struct virtq *vq, uint64_t *desc, uint64_t *driver, uint64_t *device);

/**
 * virtq_destroy() - free the rings. The device must have been reset first (it
 *	could still write the rings otherwise) and no chain may be in flight (see
 *	virtq_detach_unused()).
 * @vq: the queue (after a failed virtq_init() or a second destroy, a no-op).
 * Return: 0, or SLUICE_DMA_ERR_BUSY (nothing freed) while chains are in flight.
 */
int virtq_destroy(struct virtq *vq);

/**
 * virtq_reset() - return a queue to its state after virtq_init(), rings zeroed,
 *	after a device reset; clears the broken state. Statistics are kept.
 * @vq: the queue.
 * Return: 0, or SLUICE_DMA_ERR_BUSY while chains are in flight.
 */
int virtq_reset(struct virtq *vq);

/**
 * virtq_add() - offer one request to the device: @n_out device-readable buffers
 *	followed by @n_in device-writable ones.
 * @vq: the queue.
 * @bufs: @n_out + @n_in buffers, device addresses from the DMA layer.
 * @n_out: device-readable buffers (first).
 * @n_in: device-writable buffers (after the readable ones, as the spec
 *	requires).
 * @token: the caller's cookie, returned by virtq_get_used(); not NULL.
 *
 * With VIRTQ_INIT_INDIRECT a request of 2 to VIRTQ_INDIRECT_MAX buffers takes
 * one ring descriptor pointing to an indirect table; otherwise one descriptor
 * per buffer. The chain is visible to the device on return (avail->idx
 * published after a write barrier); the device hears of it at virtq_kick().
 * In confidential mode every address is checked before anything is written.
 *
 * Return: 0; SLUICE_DMA_ERR_INVAL for no buffer, more than the queue size, a zero
 * length or a NULL @token; VIRTQ_ERR_NOSPC if free descriptors are short
 * (counted; retry after completions); SLUICE_DMA_ERR_FAULT in confidential mode if a
 * buffer is not in shared memory (counted and logged; nothing is published);
 * SLUICE_DMA_ERR_IO if the queue is broken.
 */
int virtq_add(struct virtq *vq, const struct virtq_buf *bufs, unsigned int n_out, unsigned int n_in,
	      void *token);

/**
 * virtq_kick() - notify the device of the chains added since the last kick,
 *	unless it asked not to be (VIRTQ_USED_F_NO_NOTIFY, or avail_event with
 *	VIRTQ_INIT_EVENT_IDX).
 * @vq: the queue.
 * Return: true if @notify was called.
 */
bool virtq_kick(struct virtq *vq);

/**
 * virtq_get_used() - take the next completion, validated.
 * @vq: the queue.
 * @len: not NULL; set to the bytes the device wrote (at most what was posted
 *	writable), or 0 when there is no completion or its length was invalid.
 * @status: if not NULL, set to 0; SLUICE_DMA_ERR_RANGE when the device reported more
 *	bytes than were posted writable (the request must fail: its data cannot
 *	be trusted); SLUICE_DMA_ERR_IO when the queue is broken.
 *
 * used->idx is read once per refill and each entry's id and len once. An
 * entry whose id is out of range or not a chain head in flight (a replay) is
 * counted, logged and skipped. A used->idx further ahead than the chains in
 * flight breaks the queue: the device must be reset (virtq_detach_unused(),
 * virtq_reset()). The chain's descriptors are freed from private bookkeeping,
 * never by following the device-writable next fields.
 *
 * Return: the token given to virtq_add(), or NULL when there is nothing
 * (more) to take.
 */
void *virtq_get_used(struct virtq *vq, uint32_t *len, int *status);

/**
 * virtq_has_used() - whether virtq_get_used() has an entry to look at (it may
 *	still turn out invalid and be skipped).
 * @vq: the queue.
 * Return: true if the device has completed entries not yet taken.
 */
bool virtq_has_used(struct virtq *vq);

/**
 * virtq_detach_unused() - after a device reset, take back one chain still in
 *	flight so the caller can release its buffers.
 * @vq: the queue; the device must no longer access it.
 * Return: a token of a chain that was in flight, or NULL when none is left.
 */
void *virtq_detach_unused(struct virtq *vq);

/**
 * virtq_num_free() - free descriptors.
 * @vq: the queue.
 * Return: the count.
 */
unsigned int virtq_num_free(const struct virtq *vq);

/**
 * virtq_num_inflight() - chains the device owns.
 * @vq: the queue.
 * Return: the count.
 */
unsigned int virtq_num_inflight(const struct virtq *vq);

/**
 * virtq_ring_bytes() - shared memory the queue's rings take: descriptor table,
 *	driver and device areas and, with VIRTQ_INIT_INDIRECT, the indirect
 *	tables. What a device that does not reset keeps (quarantine).
 * @vq: the queue.
 * Return: the bytes; 0 for a queue that is not set up (never initialised, a
 * failed virtq_init(), or destroyed).
 */
size_t virtq_ring_bytes(const struct virtq *vq);

/**
 * virtq_is_broken() - whether the device broke the ring protocol.
 * @vq: the queue.
 * Return: true once a bad used->idx was seen, until virtq_reset().
 */
bool virtq_is_broken(const struct virtq *vq);

/**
 * virtq_stats_get() - copy the counters.
 * @vq: the queue.
 * @out: filled in.
 */
void virtq_stats_get(const struct virtq *vq, struct virtq_stats *out);

/**
 * virtq_check() - self-check of the private bookkeeping (tests; any time the
 *	caller holds the queue): every descriptor is either on the free list once
 *	or in exactly one chain in flight, and the counters agree.
 * @vq: the queue.
 * Return: 0, or SLUICE_DMA_ERR_FAULT after logging the first inconsistency.
 */
int virtq_check(struct virtq *vq);

#endif /* SLUICE_VIRTQUEUE_H */
