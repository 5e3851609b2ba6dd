/* SPDX-License-Identifier: MIT */
/*
 * virtio_blk.h - virtio-blk driver (virtio 1.2, 5.2): read, write and flush with
 * many requests in flight on one or several queues, completion by polling.
 *
 * Every device-visible address comes from the DMA layer: data buffers through
 * sluice_dma_map() (bounced or mapped in place, as the layer decides), request headers
 * and status bytes from coherent (shared) memory allocated once per queue slot.
 * The driver does not know the DMA mode; the caller chooses it by the layer and
 * the buffers it passes.
 */
#ifndef SLUICE_DRIVERS_VIRTIO_BLK_H
#define SLUICE_DRIVERS_VIRTIO_BLK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sluice/dma.h>
#include "drivers/virtio/virtio.h"
#include "drivers/virtio/virtqueue.h"

#define VIRTIO_BLK_MAX_QUEUES 8
/* Data segments of one request (each one DMA mapping). */
#define VIRTIO_BLK_MAX_SEGS 16
#define VIRTIO_BLK_SECTOR 512u

/**
 * enum virtio_blk_op - request types.
 * @VIRTIO_BLK_OP_READ: device to memory.
 * @VIRTIO_BLK_OP_WRITE: memory to device.
 * @VIRTIO_BLK_OP_FLUSH: make earlier writes durable (no data).
 */
enum virtio_blk_op {
	VIRTIO_BLK_OP_READ,
	VIRTIO_BLK_OP_WRITE,
	VIRTIO_BLK_OP_FLUSH,
};

/**
 * struct virtio_blk_completion - one finished request.
 * @cookie: what the caller passed to virtio_blk_submit().
 * @status: 0; -5 when the device reported an I/O error, -95 unsupported, -34
 *	when the device's answer was invalid (bad length or status byte); the
 *	data of a failed read must not be used.
 * @bytes: data bytes transferred (0 on failure).
 */
struct virtio_blk_completion {
	void *cookie;
	int status;
	uint32_t bytes;
};

/**
 * struct virtio_blk_stats - driver counters, kept per queue (each CPU updates
 * only its own queue's) and summed by virtio_blk_stats_get().
 * @submitted: requests put on a queue.
 * @completed: requests completed (successful or not).
 * @errors: completions with a non-zero status.
 * @bad_status: status bytes that were none of OK, IOERR, UNSUPP.
 * @bad_len: completions whose used length did not match the request.
 * @busy: submissions refused for lack of descriptors or bounce slots.
 * @bytes_read: data bytes read.
 * @bytes_written: data bytes written.
 * @cycles_dma: with @profile set, cycles spent in the DMA layer's map and unmap
 *	calls (allocator and bounce copies) on behalf of requests.
 * @abandoned: requests taken back unfinished after the device was stopped and
 *	reset (virtio_blk_stop()); their data was not copied.
 * @bad_used: used entries the queues skipped because they named no request in
 *	flight: an id beyond the queue size, a replayed or never-posted one
 *	(&struct virtq_stats bad_id + not_in_flight, summed over the queues).
 *
 * @bad_used, @bad_len and @bad_status count breaches of the virtio protocol by
 * the device (virtio_blk_protocol_errors()); @errors also counts honest device
 * errors (IOERR, UNSUPP).
 */
struct virtio_blk_stats {
	uint64_t submitted, completed, errors, bad_status, bad_len, busy;
	uint64_t bytes_read, bytes_written;
	uint64_t cycles_dma;
	uint64_t abandoned;
	uint64_t bad_used;
};

struct virtio_blk_req;
struct virtio_blk_queue;

/**
 * struct virtio_blk - one virtio-blk device.
 * @vdev: the transport-independent device.
 * @dl: the DMA layer of every address the device sees.
 * @tag: the device's DMA limits.
 * @capacity: size in 512-byte sectors (bounded at probe).
 * @blk_size: logical block size the device reports (512 if not offered).
 * @size_max: largest data segment, 0 if unlimited.
 * @seg_max: most data segments per request.
 * @read_only: the device refuses writes.
 * @has_flush: VIRTIO_BLK_F_FLUSH negotiated.
 * @nqueues: request queues in use.
 * @queue_size: entries per queue.
 * @queues: the queues.
 * @shared_queues: several CPUs may use one queue: its operations take the
 *	queue's lock (virtio_blk_share_queues()). Off: each queue has one user.
 * @profile: time the DMA layer calls (through the layer's cycles op) into the
 *	queue's cycles_dma counter; off by default, for benchmarks.
 * @read_attrs: SLUICE_DMA_ATTR_* a read's data is mapped with; 0 by default.
 *	SLUICE_DMA_ATTR_UNMAP_WRITTEN is always sound here (every read ends in
 *	sluice_dma_unmap_written() or _discard()), and spares its zero scrub.
 * @trace: if set, called with every buffer (device address, length) a request
 *	hands the device: header, data segments, status byte. For the IOTLB model.
 * @trace_ctx: handed back to @trace.
 * @stopped: virtio_blk_stop() ran: no request is accepted any more.
 * @quarantined: the device did not reset when stopped: its rings, slots and the
 *	buffers of requests in flight are left to it for good, never reused.
 * @quarantined_bytes: their bytes.
 * @quarantined_mappings: DMA mappings left in place with them.
 */
struct virtio_blk {
	struct virtio_device *vdev;
	struct sluice_dma_layer *dl;
	struct sluice_dma_tag tag;
	uint64_t capacity;
	uint32_t blk_size;
	uint32_t size_max;
	uint32_t seg_max;
	bool read_only;
	bool has_flush;
	unsigned int nqueues;
	unsigned int queue_size;
	struct virtio_blk_queue *queues;
	bool shared_queues;
	bool profile;
	unsigned int read_attrs;
	void (*trace)(void *ctx, uint64_t dma_addr, uint32_t len);
	void *trace_ctx;
	bool stopped;
	bool quarantined;
	uint64_t quarantined_bytes;
	uint64_t quarantined_mappings;
};

/**
 * virtio_blk_init() - negotiate, read and bound the configuration, set up the
 *	queues, DRIVER_OK.
 * @blk: caller storage.
 * @vdev: a probed device of type VIRTIO_ID_BLOCK.
 * @dl: the DMA layer for rings, headers and data.
 * @max_queues: use at most this many request queues (1..VIRTIO_BLK_MAX_QUEUES).
 * @max_queue_size: use at most this many entries per queue (0: what the device offers).
 * @why: on failure, why.
 * @why_len: its size.
 * Return: 0, or a negative code with the device reset.
 */
int virtio_blk_init(struct virtio_blk *blk, struct virtio_device *vdev, struct sluice_dma_layer *dl,
		    unsigned int max_queues, unsigned int max_queue_size, char *why,
		    size_t why_len);

/**
 * virtio_blk_stop() - stop using a device that can no longer be trusted (a
 *	deadline passed, a queue broke), or before removing it: reset it and take
 *	back every request in flight, unfinished (their data is not copied; each is
 *	counted in @abandoned).
 * @blk: the device.
 *
 * Only a completed reset (status reads 0 within the device deadline) shows that
 * the device lets go. If it does not reset, nothing is taken back: rings, slots
 * and the mappings of requests in flight are quarantined, never reused, and
 * counted (@quarantined_bytes, drivers/quarantine.h). Either way no request is
 * accepted afterwards; submit and poll return -5.
 * Return: 0 when the device reset, -5 when it was quarantined.
 */
int virtio_blk_stop(struct virtio_blk *blk);

/**
 * virtio_blk_remove() - virtio_blk_stop(), then release everything init took,
 *	unless the device was quarantined. Calling it again does nothing.
 * @blk: the device.
 * Return: 0, or -5 when the device did not reset and its memory was kept.
 */
int virtio_blk_remove(struct virtio_blk *blk);

/**
 * virtio_blk_submit() - start one request on queue @q.
 * @blk: the device.
 * @q: queue index.
 * @op: read, write or flush.
 * @sector: first 512-byte sector.
 * @buf: data (ignored for flush); private memory bounces, arena memory maps
 *	in place.
 * @len: bytes, a multiple of 512 (0 for flush).
 * @cookie: returned in the completion.
 * Return: 0; -16 (busy) when the queue or the bounce pool is full right now:
 * poll for completions and retry; -22 for a bad argument, -34 beyond the
 * capacity, -30 writing a read-only device, -95 flush without FLUSH.
 */
int virtio_blk_submit(struct virtio_blk *blk, unsigned int q, enum virtio_blk_op op,
		      uint64_t sector, void *buf, size_t len, void *cookie);

/**
 * virtio_blk_kick() - notify the device of the requests submitted on queue @q.
 * @blk: the device.
 * @q: queue index.
 */
void virtio_blk_kick(struct virtio_blk *blk, unsigned int q);

/**
 * virtio_blk_poll() - collect finished requests of queue @q.
 * @blk: the device.
 * @q: queue index.
 * @out: completions.
 * @max: capacity of @out.
 *
 * For each completion the data mapping is synced and released (a bounced read
 * is copied into the caller's buffer only after the device's answer was
 * validated), then the status byte is read once and checked.
 * Return: number of completions written to @out; -5 when there is none and
 * the device broke the queue's protocol or the device was stopped: requests in
 * flight there will not complete (virtio_blk_stop() takes them back).
 */
int virtio_blk_poll(struct virtio_blk *blk, unsigned int q, struct virtio_blk_completion *out,
		    int max);

/**
 * virtio_blk_inflight() - requests submitted on queue @q and not yet polled.
 * @blk: the device.
 * @q: queue index.
 */
unsigned int virtio_blk_inflight(const struct virtio_blk *blk, unsigned int q);

/**
 * virtio_blk_rw() - one synchronous request: submit (waiting for room), kick,
 *	poll until done.
 * @blk: the device.
 * @op: read, write or flush.
 * @sector: first sector.
 * @buf: data.
 * @len: bytes.
 * Every wait has the device deadline (drivers/deadline.h). When it passes, or
 * the queue breaks, the device is stopped (virtio_blk_stop()) before returning,
 * so that @buf is never left mapped for a device that could still write it.
 * Return: the completion status (0 on success), a submit error, -110 when the
 * device did not answer in time, -5 when it broke the queue.
 */
int virtio_blk_rw(struct virtio_blk *blk, enum virtio_blk_op op, uint64_t sector, void *buf,
		  size_t len);

/**
 * virtio_blk_stats_get() - the counters of every queue, summed.
 * @blk: the device.
 * @out: filled in.
 */
void virtio_blk_stats_get(const struct virtio_blk *blk, struct virtio_blk_stats *out);

/**
 * virtio_blk_protocol_errors() - how often the device broke the virtio protocol
 *	in its answers: used entries naming no request in flight, used lengths other
 *	than the request's, status bytes that are no status. Each was caught (the
 *	entry skipped, the request failed with -34) but a device that lies once may
 *	lie where it cannot be caught: callers treat any as a device fault.
 * @st: counters from virtio_blk_stats_get().
 * Return: @st->bad_used + @st->bad_len + @st->bad_status.
 */
static inline uint64_t virtio_blk_protocol_errors(const struct virtio_blk_stats *st)
{
	return st->bad_used + st->bad_len + st->bad_status;
}

/**
 * virtio_blk_share_queues() - let several CPUs use the same queue.
 * @blk: the device, after virtio_blk_init() and before any request.
 * @shared: true: submit, kick and poll of a queue serialise on that queue's
 *	spinlock; false (default): each queue has a single user, e.g. one queue
 *	per CPU, and no lock is taken.
 *
 * With a shared queue, virtio_blk_poll() returns whichever requests finished,
 * including other CPUs': callers hand a completion to its owner through the
 * cookie (app/blk_smp_check.c marks the request's slot done with a release
 * store and the owner takes it with an acquire load).
 */
void virtio_blk_share_queues(struct virtio_blk *blk, bool shared);

#endif /* SLUICE_DRIVERS_VIRTIO_BLK_H */
