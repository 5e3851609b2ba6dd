/* SPDX-License-Identifier: MIT */
/*
 * fuzz_net.h - the malicious network device the virtio-net fuzz targets share
 * (fuzz_virtio_net_rx: one queue pair; fuzz_virtio_net_mq: several, and the
 * control queue; fuzz_virtio_reset: removal of a device that does not reset),
 * over the fake transport of tests/fakes/fake_virtio.h, with the model that checks
 * the driver against it.
 *
 * Per queue pair the device takes every buffer the driver posts and checks it
 * (one descriptor, shared memory, its direction and length; for transmit an
 * all-zero header and exactly the frame sent), answers receive buffers with
 * any header, frame and used entry, completes transmit buffers with any id
 * and length, moves used->idx, and through the host build's read hook changes
 * used-ring fields right after the queue read them. The model predicts every
 * counter and every delivered byte; see fuzz_virtio_net_rx.c for the checks.
 */
#ifndef SLUICE_TESTS_FUZZ_NET_H
#define SLUICE_TESTS_FUZZ_NET_H

#include "drivers/virtio/virtio_net.h"
#include "tests/fakes/fake_virtio.h"
#include "tests/fuzz/fuzz_common.h"

#define FNET_MAX_QSIZE 256u
#define FNET_MAX_PAIRS VIRTIO_NET_MAX_PAIRS
/* Buffers the allocator can hand out (a run may allow fewer: @max_bufs). */
#define FNET_MAX_BUFS (2u * FNET_MAX_QSIZE * FNET_MAX_PAIRS)
/* Buffers sit at this stride in a static region; the rest stays poisoned. */
#define FNET_STRIDE 4096u
#define FNET_MAX_SEND (VIRTIO_NET_BUF_SIZE + 64u)
/* The command buffer of the control queue (virtio_net.c). */
#define FNET_CTRL_BYTES 8u
/* Rings and buffers a device may hold: three rings a queue, a buffer an entry. */
#define FNET_MAX_HELD (3u * (2u * FNET_MAX_PAIRS + 1u) + 2u * FNET_MAX_PAIRS * 64u + 8u)

/* Feature bits (virtio 1.2, 5.1.3). */
#define FNET_F_CSUM 0
#define FNET_F_GUEST_CSUM 1
#define FNET_F_MAC 5
#define FNET_F_GUEST_TSO4 7
#define FNET_F_MRG_RXBUF 15
#define FNET_F_STATUS 16
#define FNET_F_CTRL_VQ 17
#define FNET_F_MQ 22

/**
 * struct fnet_chain - the device's record of the latest buffer posted on a head.
 * @inflight: posted and not yet completed, as the driver's queue sees it.
 * @addr: its device address.
 * @len: its length.
 */
struct fnet_chain {
	bool inflight;
	uint64_t addr;
	uint32_t len;
};

struct fnet_pair;

/**
 * struct fnet_queue - the device side of one data queue.
 * @vq: the driver's queue.
 * @pair: its pair's model.
 * @rx: receive (device-writable buffers) or transmit.
 * @index: its queue index (2N for receive, 2N + 1 for transmit).
 * @size: its size.
 * @chain: per head, what was posted on it.
 * @ninflight: heads in flight.
 * @pending: heads the device took and has not answered yet.
 * @npending: their number.
 * @last_id: the used id the queue read last (before any change).
 * @consumed: completions the queue accepted during the current driver call.
 */
struct fnet_queue {
	struct virtq *vq;
	struct fnet_pair *pair;
	bool rx;
	uint16_t index;
	unsigned int size;
	struct fnet_chain chain[FNET_MAX_QSIZE];
	unsigned int ninflight;
	uint16_t pending[FNET_MAX_QSIZE];
	unsigned int npending;
	uint32_t last_id;
	unsigned int consumed;
};

/**
 * struct fnet_pair - the model of one queue pair.
 * @q: receive (0) and transmit (1) queue.
 * @expect: the counters the driver's pair should show.
 * @tx_posted: a successful send whose chain the device has not taken yet.
 * @sent: that frame.
 * @sent_len: its length.
 */
struct fnet_pair {
	struct fnet_queue q[2];
	struct virtio_net_stats expect;
	bool tx_posted;
	uint8_t sent[FNET_MAX_SEND];
	size_t sent_len;
};

/**
 * struct fnet - one run: the fake device, the driver, the model.
 * @dev: the device (tests/fakes/fake_virtio.h).
 * @in: the input.
 * @fd: the DMA layer.
 * @net: the driver under test.
 * @usable: features the driver may accept (offloads never).
 * @inplace: frame buffers come from the in-place region (mapped in place).
 * @mutate: the read hook changes used-ring fields after they are read.
 * @rx_max: the caller's buffer size in the current receive.
 * @delivered: the model says the current receive delivers a frame ...
 * @deliver_len: ... of this used length ...
 * @snap: ... with these bytes (header included), as the driver will read them.
 * @pairs: the pairs' models.
 * @buf: buffers handed out by the allocator.
 * @buf_live: whether each is allocated.
 * @nbufs: allocator calls that succeeded.
 * @nlive: buffers allocated and not freed.
 * @max_bufs: allocator calls that succeed; later ones return NULL.
 * @owns_calls: calls of the in-place hook (every map and unmap of a buffer).
 * @buf_frees: calls of the allocator's free.
 * @held: a reset failed while the device held queues; then:
 * @held_mark: the layer, heap and ledger as they were,
 * @held_owns: @owns_calls then,
 * @held_frees: @buf_frees then,
 * @held_bytes: what it held: ring, buffer and command bytes,
 * @held_mappings: buffers (each one mapping),
 * @held_range: each ring and buffer (the command buffer if it was posted),
 * @nheld_range: their number.
 */
struct fnet {
	struct fake_virtio dev;
	struct fuzz_in *in;
	struct fuzz_dma *fd;
	struct virtio_net net;
	uint64_t usable;
	bool inplace, mutate;
	size_t rx_max;
	bool delivered;
	uint32_t deliver_len;
	uint8_t snap[VIRTIO_NET_BUF_SIZE];
	struct fnet_pair pairs[FNET_MAX_PAIRS];
	void *buf[FNET_MAX_BUFS];
	bool buf_live[FNET_MAX_BUFS];
	unsigned int nbufs, nlive, max_bufs;
	unsigned long owns_calls, buf_frees;
	bool held;
	struct fuzz_quarantine held_mark;
	unsigned long held_owns, held_frees;
	uint64_t held_bytes, held_mappings;
	struct fuzz_range held_range[FNET_MAX_HELD];
	unsigned int nheld_range;
};

/* The one run of the process (the read hook and the allocator find it here). */
extern struct fnet fnet;

/**
 * fnet_begin() - reset the model and the device for a new input.
 * @s: the run.
 * @in: the input.
 * @mode: bit 0 confidential, 1-2 bounce policy, 3 zero scrub, 4 in-place
 *	buffers, 5 mutate used fields after reads; bit 6 configuration reads
 *	fail, bit 7 DRIVER_OK refused.
 * @second: a second bounce pool's policy, or FUZZ_DMA_ONE_POOL.
 *
 * The caller then sets the device's features, configuration and registers.
 */
void fnet_begin(struct fnet *s, struct fuzz_in *in, uint8_t mode, int second);

/**
 * fnet_buffers() - the frame buffer allocator to hand virtio_net_init*().
 * @s: the run.
 */
struct virtio_net_buffers fnet_buffers(struct fnet *s);

/**
 * fnet_attach() - after a successful init: hook every pair's queues and take
 *	the receive buffers posted at init.
 * @s: the run.
 */
void fnet_attach(struct fnet *s);

/**
 * fnet_take() - the device takes every buffer newly posted on pair @p's queue
 *	@qi (0 receive, 1 transmit) and checks it.
 * @s: the run.
 * @p: pair index.
 * @qi: 0 or 1.
 */
void fnet_take(struct fnet *s, unsigned int p, unsigned int qi);

/**
 * fnet_serve_rx() - the device answers one receive buffer of pair @p: header,
 *	frame, used entry, each as the input says.
 * @s: the run.
 * @p: pair index.
 */
void fnet_serve_rx(struct fnet *s, unsigned int p);

/**
 * fnet_complete_tx() - the device finishes one transmit buffer of pair @p.
 * @s: the run.
 * @p: pair index.
 */
void fnet_complete_tx(struct fnet *s, unsigned int p);

/**
 * fnet_hostile_idx() - used->idx of pair @p's queue @qi moves without entries,
 *	or a stray entry appears.
 * @s: the run.
 * @p: pair index.
 * @qi: 0 or 1.
 */
void fnet_hostile_idx(struct fnet *s, unsigned int p, unsigned int qi);

/**
 * fnet_recv() - virtio_net_recv_on(@p) into a buffer of the input's size, checked.
 * @s: the run.
 * @p: pair index (any: beyond npairs the driver must return nothing).
 */
void fnet_recv(struct fnet *s, unsigned int p);

/**
 * fnet_send() - virtio_net_send_on(@p) of a frame of the input's length, checked.
 * @s: the run.
 * @p: pair index (any: beyond npairs the driver must refuse).
 */
void fnet_send(struct fnet *s, unsigned int p);

/**
 * fnet_reclaim() - virtio_net_tx_reclaim_on(@p), checked against the model.
 * @s: the run.
 * @p: pair index.
 */
void fnet_reclaim(struct fnet *s, unsigned int p);

/**
 * fnet_link() - virtio_net_link_up(), checked against the configuration.
 * @s: the run.
 */
void fnet_link(struct fnet *s);

/**
 * fnet_check() - counters and buffer ownership of every pair against the model;
 *	the queues' and the layer's self-checks when @deep.
 * @s: the run.
 * @deep: run the self-checks too.
 */
void fnet_check(struct fnet *s, bool deep);

/**
 * fnet_quarantine_check() - after a removal (at the end, or inside a failed
 *	init) whose reset may have failed: the quarantine contract, then the
 *	device lets go and a second removal frees everything.
 * @s: the run.
 * @mark: taken before the removal (the check of a failed reset starts from
 *	the state at that reset instead).
 * @rc: what the removal returned (-5 when the driver says it quarantined).
 * @failed_before: failed resets before the removal.
 *
 * When the reset failed the driver must have left every ring the device was
 * given, every posted buffer with its mapping and the control buffer in place
 * (nothing unmapped, nothing freed, not one allocator free or in-place hook
 * call), counted them once, exactly as the model counts them; a second
 * removal changes nothing. Then the device resets at last, and a removal of the
 * same storage releases every buffer once.
 */
void fnet_quarantine_check(struct fnet *s, const struct fuzz_quarantine *mark, int rc,
			   unsigned int failed_before);

/**
 * fnet_end() - remove the driver (checked as above), then the DMA layer.
 * @s: the run.
 */
void fnet_end(struct fnet *s);

/**
 * fnet_drop() - the DMA layer of the run goes (its in-place hook first), with no
 *	driver left on it.
 * @s: the run.
 */
void fnet_drop(struct fnet *s);

/**
 * fnet_init_failed() - after virtio_net_init*() failed: whatever it set up was
 *	released, or quarantined if the device did not reset (checked as above);
 *	no buffer is live; then the DMA layer goes.
 * @s: the run.
 * @mark: taken before the init.
 */
void fnet_init_failed(struct fnet *s, const struct fuzz_quarantine *mark);

/**
 * fnet_take_all() - fnet_take() of both queues of pairs 0 to @npairs - 1.
 * @s: the run.
 * @npairs: pairs set up.
 */
void fnet_take_all(struct fnet *s, unsigned int npairs);

/**
 * fnet_data_op() - one data-path step on pair @p, chosen by @kind: 0 the driver
 *	receives, 1 and 2 the device answers receive buffers, 3 the driver sends,
 *	4 the device completes transmit buffers, 5 the driver reclaims them.
 * @s: the run.
 * @kind: the step; the targets decode it from an input byte (op & 7).
 * @p: a pair that is set up.
 *
 * Return: false, doing nothing, for a @kind above 5 (each target has its own).
 */
bool fnet_data_op(struct fnet *s, unsigned int kind, unsigned int p);

#endif /* SLUICE_TESTS_FUZZ_NET_H */
