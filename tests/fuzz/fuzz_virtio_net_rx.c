/* SPDX-License-Identifier: MIT */
/*
 * fuzz_virtio_net_rx.c - the virtio-net driver (drivers/virtio/virtio_net.c)
 * over its two virtqueues and the DMA layer, against a malicious network
 * device behind a simulated transport.
 *
 * The adversary controls the offered features (offloads and MRG_RXBUF
 * included, which the driver must not accept), the configuration (MAC, link
 * status, reads that fail), both queues' maximum sizes (up to 65535), FEATURES_OK
 * and DRIVER_OK refused, and for every receive completion: the virtio_net_hdr
 * (flags, gso_type, hdr_len, gso_size, csum_start, csum_offset, num_buffers,
 * all arbitrary), the frame bytes, the used entry's id (the buffer's head,
 * another one, out of range, a replay) and its length (exact, shorter than a
 * header plus the minimal Ethernet frame, longer than the buffer, anything);
 * for transmit completions the id and length; used->idx jumps; and, through
 * the host build's read hook, changes to every used-ring field right after the
 * queue read it. The input also picks the driver's calls: receive into
 * buffers of any size, send frames of valid and invalid lengths (and no
 * frame), reclaim, link status; the bounce policy, scrub mode, confidential
 * mode, and whether frame buffers come from private memory (they bounce) or
 * from a shared region registered as the layer's in-place hook (like the
 * arena: mapped in place, the device writes the buffer itself).
 *
 * Checked: init succeeds exactly when the device is usable, accepts no
 * feature but VERSION_1, ACCESS_PLATFORM, MAC and STATUS, and reads the MAC;
 * every descriptor the device finds is one buffer (no chain, no indirect
 * table) in shared memory - pool or in-place region, never private memory -
 * of VIRTIO_NET_BUF_SIZE device-writable bytes for receive, and for transmit
 * an all-zero header then exactly the frame sent; a head is never handed out
 * while in flight. A frame is delivered exactly when the completion the queue
 * read names a buffer in flight, its length lies between header + 14 and the
 * posted VIRTIO_NET_BUF_SIZE, the header asks for no offload and the frame
 * fits the caller's buffer; it is then byte for byte what the device wrote,
 * of that length, and not one byte of the caller's buffer past it is
 * written. Counters equal the model's (frames, bytes, bad lengths, bad
 * headers, drops, transmit completions and busy sends); every buffer is
 * either posted or waiting to be, every transmit slot either free or in
 * flight; virtq_check() and the DMA layer's self-check pass; ASan catches any
 * read past a buffer (private buffers are malloc'd to their exact size,
 * in-place ones are surrounded by poisoned memory); after remove every buffer
 * is freed once and nothing is mapped or shared.
 *
 * Not asserted: num_buffers. Without MRG_RXBUF the device must set it to 1,
 * but the driver never reads it, so a lie about it changes nothing.
 */
#include "tests/fuzz/fuzz_common.h"

#include <sanitizer/asan_interface.h>
#include <stdlib.h>
#include <string.h>

#include "drivers/virtio/virtio_net.h"

#define VNF_MAX_QSIZE 256u
/* Buffers the allocator hands out: a receive and a transmit one per entry. */
#define VNF_MAX_BUFS (2u * VNF_MAX_QSIZE)
/* In-place buffers sit at this stride; the rest of each stride stays poisoned. */
#define VNF_STRIDE 4096u
#define VNF_CFG_BYTES 16u
#define VNF_MAX_OPS 500u
#define VNF_MAX_SEND (VIRTIO_NET_BUF_SIZE + 64u)

/* Feature bits (virtio 1.2, 5.1.3). */
#define VNF_F_CSUM 0
#define VNF_F_GUEST_CSUM 1
#define VNF_F_MAC 5
#define VNF_F_GUEST_TSO4 7
#define VNF_F_MRG_RXBUF 15
#define VNF_F_STATUS 16

/**
 * struct vnf_chain - the device's record of the latest buffer posted on a head.
 * @inflight: posted and not yet completed, as the driver's queue sees it.
 * @addr: its device address.
 * @len: its length.
 */
struct vnf_chain {
	bool inflight;
	uint64_t addr;
	uint32_t len;
};

/**
 * struct vnf_queue - the device side of one queue.
 * @vq: the driver's queue.
 * @rx: receive (device-writable buffers) or transmit.
 * @size: size the driver chose.
 * @desc: descriptor table (device address = CPU address in the mock).
 * @avail: available ring.
 * @used: used ring.
 * @last_avail: next available entry to take.
 * @used_idx: the device's used index.
 * @chain: per head, what was posted on it.
 * @ninflight: heads in flight.
 * @pending: heads the device took and has not answered yet.
 * @npending: their number.
 * @last_id: the used id the queue read last (before any change).
 * @consumed: completions the queue accepted during the current driver call.
 */
struct vnf_queue {
	struct virtq *vq;
	bool rx;
	unsigned int size;
	struct virtq_desc *desc;
	struct virtq_avail *avail;
	struct virtq_used *used;
	uint16_t last_avail;
	uint16_t used_idx;
	struct vnf_chain chain[VNF_MAX_QSIZE];
	unsigned int ninflight;
	uint16_t pending[VNF_MAX_QSIZE];
	unsigned int npending;
	uint32_t last_id;
	unsigned int consumed;
};

/**
 * struct vnf - one run: the fake device, the driver, the model.
 * @vdev: the transport-independent device (first: the ops cast back).
 * @in: the input.
 * @fd: the DMA layer.
 * @net: the driver under test.
 * @status: device status byte.
 * @offered: features offered.
 * @accepted: features the driver set.
 * @refuse_features: the device clears FEATURES_OK.
 * @fail_driver_ok: the device sets NEEDS_RESET at DRIVER_OK.
 * @fail_config: configuration reads fail.
 * @max_size: each queue's maximum size.
 * @cfg: device configuration (MAC, status).
 * @q: the device side of the receive (0) and transmit (1) queue.
 * @inplace: frame buffers come from the in-place region.
 * @mutate: the read hook changes used-ring fields after they are read.
 * @rx_max: the caller's buffer size in the current receive.
 * @delivered: the model says the current receive delivers a frame ...
 * @deliver_len: ... of this used length ...
 * @snap: ... with these bytes (header included), as the driver will read them.
 * @expect: the counters the driver should show.
 * @tx_posted: a successful send whose chain the device has not taken yet.
 * @sent: that frame.
 * @sent_len: its length.
 * @buf: buffers handed out by the allocator.
 * @buf_live: whether each is allocated.
 * @nbufs: allocator calls that succeeded.
 * @nlive: buffers allocated and not freed.
 */
struct vnf {
	struct virtio_device vdev;
	struct fuzz_in *in;
	struct fuzz_dma fd;
	struct virtio_net net;
	uint8_t status;
	uint64_t offered, accepted;
	bool refuse_features, fail_driver_ok, fail_config;
	uint16_t max_size[2];
	uint8_t cfg[VNF_CFG_BYTES];
	struct vnf_queue q[2];
	bool inplace, mutate;
	size_t rx_max;
	bool delivered;
	uint32_t deliver_len;
	uint8_t snap[VIRTIO_NET_BUF_SIZE];
	struct virtio_net_stats expect;
	bool tx_posted;
	uint8_t sent[VNF_MAX_SEND];
	size_t sent_len;
	void *buf[VNF_MAX_BUFS];
	bool buf_live[VNF_MAX_BUFS];
	unsigned int nbufs, nlive;
};

static struct vnf vnf;

/* The in-place region (think arena): shared memory the layer maps in place. */
static unsigned char vnf_region[VNF_MAX_BUFS * VNF_STRIDE] __attribute__((aligned(VNF_STRIDE)));

static struct vnf *vnf_of(struct virtio_device *v)
{
	return (struct vnf *)v;
}

/* ------------------------------------------------------------------ buffers */

/* The in-place hook: a range inside one live buffer of the region. */
static bool vnf_owns(void *ctx, const void *vaddr, size_t len)
{
	struct vnf *s = &vnf;
	uintptr_t p = (uintptr_t)vaddr, base = (uintptr_t)vnf_region;
	size_t off, slot;

	(void)ctx;
	if (!s->inplace || p < base || p - base >= sizeof(vnf_region))
		return false;
	off = (p - base) % VNF_STRIDE;
	slot = (p - base) / VNF_STRIDE;
	return slot < s->nbufs && s->buf_live[slot] && len <= VIRTIO_NET_BUF_SIZE &&
	       off + (len ? len : 1) <= VIRTIO_NET_BUF_SIZE;
}

static const struct dma_inplace_region vnf_hook_region = { vnf_owns, NULL };

/* Whether a device may be given [addr, addr + len): pool memory or the region. */
static bool vnf_shared(struct vnf *s, uint64_t addr, uint32_t len)
{
	return mock_port_is_shared(&s->fd.mp, (void *)(uintptr_t)addr, len) ||
	       vnf_owns(NULL, (void *)(uintptr_t)addr, len);
}

/* The driver's buffer allocator: at most VNF_MAX_BUFS, then NULL. */
static void *vnf_alloc(void *ctx, size_t size)
{
	struct vnf *s = ctx;
	void *p;

	FUZZ_CHECK(size && size <= VIRTIO_NET_BUF_SIZE);
	if (s->nbufs >= VNF_MAX_BUFS)
		return NULL;
	if (s->inplace) {
		p = vnf_region + (size_t)s->nbufs * VNF_STRIDE;
		ASAN_UNPOISON_MEMORY_REGION(p, size);
		memset(p, 0x5c, size);
	} else {
		/* Exactly @size: ASan flags the first byte read past it. */
		p = malloc(size);
		FUZZ_CHECK(p != NULL);
		memset(p, 0x5c, size);
	}
	s->buf[s->nbufs] = p;
	s->buf_live[s->nbufs++] = true;
	s->nlive++;
	return p;
}

/* Freeing NULL is allowed (remove after a failed init); anything else once. */
static void vnf_free(void *ctx, void *ptr)
{
	struct vnf *s = ctx;
	unsigned int i;

	if (!ptr)
		return;
	for (i = 0; i < s->nbufs && s->buf[i] != ptr; i++)
		;
	FUZZ_CHECK(i < s->nbufs && s->buf_live[i]);
	s->buf_live[i] = false;
	s->nlive--;
	if (s->inplace)
		ASAN_POISON_MEMORY_REGION(ptr, VNF_STRIDE);
	else
		free(ptr);
}

/* ------------------------------------------------------------------ transport */

static int vnf_reset(struct virtio_device *v)
{
	vnf_of(v)->status = 0;
	return 0;
}

static uint8_t vnf_get_status(struct virtio_device *v)
{
	return vnf_of(v)->status;
}

static void vnf_set_status(struct virtio_device *v, uint8_t st)
{
	struct vnf *s = vnf_of(v);

	if (s->refuse_features)
		st &= (uint8_t)~VIRTIO_STATUS_FEATURES_OK;
	if (s->fail_driver_ok && (st & VIRTIO_STATUS_DRIVER_OK))
		st |= VIRTIO_STATUS_NEEDS_RESET;
	s->status = st;
}

static uint64_t vnf_get_features(struct virtio_device *v)
{
	return vnf_of(v)->offered;
}

static void vnf_set_features(struct virtio_device *v, uint64_t f)
{
	/* Only what was offered, and no offload: a header asking for one is bogus. */
	const uint64_t usable = VIRTIO_FEATURE(VIRTIO_F_VERSION_1) |
				VIRTIO_FEATURE(VIRTIO_F_ACCESS_PLATFORM) |
				VIRTIO_FEATURE(VNF_F_MAC) | VIRTIO_FEATURE(VNF_F_STATUS);

	FUZZ_CHECK((f & ~vnf_of(v)->offered) == 0 && (f & ~usable) == 0);
	vnf_of(v)->accepted = f;
}

static uint16_t vnf_num_queues(struct virtio_device *v)
{
	(void)v;
	return 2;
}

static uint16_t vnf_queue_max_size(struct virtio_device *v, uint16_t index)
{
	return index < 2 ? vnf_of(v)->max_size[index] : 0;
}

static int vnf_queue_setup(struct virtio_device *v, uint16_t index, uint16_t size, uint64_t desc,
			   uint64_t driver, uint64_t device)
{
	struct vnf *s = vnf_of(v);
	struct vnf_queue *q;

	FUZZ_CHECK(index < 2);
	FUZZ_CHECK(size && size <= s->max_size[index] && !(size & (size - 1)) &&
		   size <= VNF_MAX_QSIZE);
	FUZZ_CHECK(mock_port_is_shared(&s->fd.mp, (void *)(uintptr_t)desc, 16u * size));
	FUZZ_CHECK(mock_port_is_shared(&s->fd.mp, (void *)(uintptr_t)driver, 6u + 2u * size));
	FUZZ_CHECK(mock_port_is_shared(&s->fd.mp, (void *)(uintptr_t)device, 6u + 8u * size));
	q = &s->q[index];
	q->rx = index == 0;
	q->size = size;
	q->desc = (struct virtq_desc *)(uintptr_t)desc;
	q->avail = (struct virtq_avail *)(uintptr_t)driver;
	q->used = (struct virtq_used *)(uintptr_t)device;
	return 0;
}

static void vnf_queue_notify(struct virtio_device *v, uint16_t index)
{
	(void)v;
	FUZZ_CHECK(index < 2);
}

static int vnf_config_read(struct virtio_device *v, uint32_t offset, void *buf, uint32_t len)
{
	struct vnf *s = vnf_of(v);

	if (s->fail_config)
		return -5;
	if ((uint64_t)offset + len > VNF_CFG_BYTES)
		return -34;
	memcpy(buf, s->cfg + offset, len);
	return 0;
}

static const struct virtio_transport_ops vnf_ops = {
	.reset = vnf_reset,
	.get_status = vnf_get_status,
	.set_status = vnf_set_status,
	.get_features = vnf_get_features,
	.set_features = vnf_set_features,
	.num_queues = vnf_num_queues,
	.queue_max_size = vnf_queue_max_size,
	.queue_setup = vnf_queue_setup,
	.queue_notify = vnf_queue_notify,
	.config_read = vnf_config_read,
};

/* ------------------------------------------------------------------ the model */

/*
 * The queue accepted used entry (@id, @len) if @id is a head in flight; the
 * driver then treats it as virtio_net_recv() / virtio_net_tx_reclaim() say.
 * Called from the read hook, so the bytes snapshotted here are exactly what
 * the driver reads next (nothing runs in between).
 */
static void vnf_classify(struct vnf *s, struct vnf_queue *q, uint32_t id, uint32_t len)
{
	struct vnf_chain *c;

	if (id >= q->size || !q->chain[id].inflight)
		return; /* skipped by the queue: out of range or a replay */
	c = &q->chain[id];
	c->inflight = false;
	q->ninflight--;
	q->consumed++;
	if (!q->rx) {
		s->expect.tx_frames++;
		s->expect.tx_bytes += c->len - VIRTIO_NET_HDR_LEN;
		return;
	}
	if (len > c->len || len < VIRTIO_NET_HDR_LEN + VIRTIO_NET_MIN_FRAME) {
		s->expect.rx_bad_len++;
		return;
	}
	memcpy(s->snap, (const void *)(uintptr_t)c->addr, len);
	if (s->snap[0] || s->snap[1]) { /* flags, gso_type */
		s->expect.rx_bad_hdr++;
		return;
	}
	if (len - VIRTIO_NET_HDR_LEN > s->rx_max) {
		s->expect.rx_dropped++;
		return;
	}
	FUZZ_CHECK(!s->delivered); /* one frame per receive call */
	s->delivered = true;
	s->deliver_len = len;
	s->expect.rx_frames++;
	s->expect.rx_bytes += len - VIRTIO_NET_HDR_LEN;
}

static void vnf_hook(void *ctx, enum virtq_shared_read what, volatile void *addr)
{
	struct vnf_queue *q = ctx;
	struct vnf *s = &vnf;

	if (what == VIRTQ_READ_USED_ID)
		q->last_id = *(volatile uint32_t *)addr;
	else if (what == VIRTQ_READ_USED_LEN)
		vnf_classify(s, q, q->last_id, *(volatile uint32_t *)addr);
	/* A double fetch would now see another value. */
	if (s->mutate && !(fuzz_u8(s->in) & 3)) {
		if (what == VIRTQ_READ_USED_ID || what == VIRTQ_READ_USED_LEN)
			*(volatile uint32_t *)addr = fuzz_u32(s->in);
		else
			*(volatile uint16_t *)addr = fuzz_u16(s->in);
	}
}

/* The device takes every newly available buffer of queue @qi and checks it. */
static void vnf_take(struct vnf *s, unsigned int qi)
{
	struct vnf_queue *q = &s->q[qi];
	uint16_t avail = __atomic_load_n(&q->avail->idx, __ATOMIC_ACQUIRE);

	FUZZ_CHECK((uint16_t)(avail - q->last_avail) <= q->size);
	while (q->last_avail != avail) {
		uint16_t head = q->avail->ring[q->last_avail % q->size];
		const struct virtq_desc *d;
		struct vnf_chain *c;

		q->last_avail++;
		FUZZ_CHECK(head < q->size);
		d = &q->desc[head];
		c = &q->chain[head];
		/* One buffer per frame, its direction, never private memory. */
		FUZZ_CHECK(!(d->flags & (VIRTQ_DESC_F_NEXT | VIRTQ_DESC_F_INDIRECT)));
		FUZZ_CHECK(!!(d->flags & VIRTQ_DESC_F_WRITE) == q->rx);
		FUZZ_CHECK(vnf_shared(s, d->addr, d->len));
		FUZZ_CHECK(!c->inflight);
		if (q->rx) {
			FUZZ_CHECK(d->len == VIRTIO_NET_BUF_SIZE);
		} else {
			static const uint8_t zero[VIRTIO_NET_HDR_LEN];
			const uint8_t *p = (const uint8_t *)(uintptr_t)d->addr;

			/* A chain only after a successful send, carrying that frame. */
			FUZZ_CHECK(s->tx_posted);
			s->tx_posted = false;
			FUZZ_CHECK(d->len == VIRTIO_NET_HDR_LEN + s->sent_len);
			FUZZ_CHECK(!memcmp(p, zero, VIRTIO_NET_HDR_LEN));
			FUZZ_CHECK(!memcmp(p + VIRTIO_NET_HDR_LEN, s->sent, s->sent_len));
		}
		c->inflight = true;
		c->addr = d->addr;
		c->len = d->len;
		q->ninflight++;
		/* A head the driver got back through a forged id is a new buffer now. */
		for (unsigned int i = 0; i < q->npending; i++)
			if (q->pending[i] == head)
				q->pending[i--] = q->pending[--q->npending];
		q->pending[q->npending++] = head;
	}
	if (!q->rx)
		FUZZ_CHECK(!s->tx_posted);
}

/* Publish a used entry on queue @q. */
static void vnf_push(struct vnf_queue *q, uint32_t id, uint32_t len)
{
	struct virtq_used_elem *e = &q->used->ring[q->used_idx % q->size];

	e->id = id;
	e->len = len;
	q->used_idx++;
	__atomic_store_n(&q->used->idx, q->used_idx, __ATOMIC_RELEASE);
}

/* Pick the id of a used entry: mostly @head, else another, out of range, a replay. */
static uint32_t vnf_pick_id(struct vnf *s, struct vnf_queue *q, uint16_t head, unsigned int how)
{
	switch (how & 3) {
	case 0:
	case 1:
		return head;
	case 2:
		return fuzz_below(s->in, q->size);
	default:
		return fuzz_u8(s->in) & 1 ? fuzz_u32(s->in) : q->size + fuzz_u8(s->in);
	}
}

/* The device answers one receive buffer: header, frame, used entry. */
static void vnf_serve_rx(struct vnf *s)
{
	struct fuzz_in *in = s->in;
	struct vnf_queue *q = &s->q[0];
	uint8_t how = fuzz_u8(in), how2 = fuzz_u8(in), seed = fuzz_u8(in);
	unsigned int pick;
	uint16_t head;
	uint8_t *p;
	uint32_t flen, written, len;

	if (!q->npending)
		return;
	pick = fuzz_below(in, q->npending);
	head = q->pending[pick];
	p = (uint8_t *)(uintptr_t)q->chain[head].addr;
	switch (how & 7) {
	case 4:
		flen = fuzz_below(in, VIRTIO_NET_MIN_FRAME); /* runt */
		break;
	case 5:
		flen = fuzz_below(in, VIRTIO_NET_BUF_SIZE - VIRTIO_NET_HDR_LEN + 1);
		break;
	case 6:
		flen = fuzz_u16(in); /* written up to the buffer's end, claimed in full */
		break;
	case 7:
		flen = VIRTIO_NET_MAX_FRAME;
		break;
	default:
		flen = VIRTIO_NET_MIN_FRAME +
		       fuzz_below(in, VIRTIO_NET_MAX_FRAME - VIRTIO_NET_MIN_FRAME + 1);
		break;
	}
	written = VIRTIO_NET_HDR_LEN + flen;
	if (written > q->chain[head].len)
		written = q->chain[head].len;
	/* Header: all zero but num_buffers = 1; or any field arbitrary. */
	memset(p, 0, VIRTIO_NET_HDR_LEN);
	p[10] = 1;
	if (how & 0x08)
		for (unsigned int i = 0; i < VIRTIO_NET_HDR_LEN; i++)
			p[i] = fuzz_u8(in);
	if (how & 0x10)
		for (unsigned int i = 2; i < 10; i++) /* hdr_len .. csum_offset, no flag */
			p[i] = fuzz_u8(in);
	if (how & 0x20) {
		p[10] = fuzz_u8(in);
		p[11] = fuzz_u8(in);
	}
	for (uint32_t b = VIRTIO_NET_HDR_LEN; b < written; b++)
		p[b] = (uint8_t)(seed + b * 7);
	switch (how >> 6) {
	case 0:
	case 1:
		len = VIRTIO_NET_HDR_LEN + flen;
		break;
	case 2:
		len = fuzz_u32(in);
		break;
	default:
		len = fuzz_u8(in) & 1 ? VIRTIO_NET_BUF_SIZE + 1u + fuzz_u8(in)
				      : fuzz_below(in, VIRTIO_NET_HDR_LEN + VIRTIO_NET_MIN_FRAME);
		break;
	}
	vnf_push(q, vnf_pick_id(s, q, head, how2), len);
	if (how2 & 0x04)
		vnf_push(q, head, len); /* published twice: a replay */
	if (!(how2 & 0x08))
		q->pending[pick] = q->pending[--q->npending];
}

/* The device finishes one transmit buffer. */
static void vnf_complete_tx(struct vnf *s)
{
	struct vnf_queue *q = &s->q[1];
	uint8_t how = fuzz_u8(s->in);
	unsigned int pick;
	uint32_t id;
	uint16_t head;

	if (!q->npending)
		return;
	pick = fuzz_below(s->in, q->npending);
	head = q->pending[pick];
	/* Id first, then length: the input is read in a fixed order. */
	id = vnf_pick_id(s, q, head, how);
	vnf_push(q, id, how & 0x04 ? fuzz_u32(s->in) : 0);
	if (how & 0x08)
		vnf_push(q, head, 0);
	if (!(how & 0x10))
		q->pending[pick] = q->pending[--q->npending];
}

/* used->idx moved without entries, or a stray entry. */
static void vnf_hostile_idx(struct vnf *s, unsigned int qi)
{
	struct vnf_queue *q = &s->q[qi];

	if (fuzz_u8(s->in) & 1) {
		q->used_idx = (uint16_t)(q->used_idx + fuzz_u16(s->in));
		__atomic_store_n(&q->used->idx, q->used_idx, __ATOMIC_RELEASE);
	} else {
		uint32_t id = fuzz_u32(s->in);

		vnf_push(q, id, fuzz_u32(s->in));
	}
}

/* ------------------------------------------------------------------ driver calls */

static void vnf_recv(struct vnf *s)
{
	uint8_t how = fuzz_u8(s->in);
	size_t max = how & 1 ? VIRTIO_NET_BUF_SIZE : fuzz_below(s->in, VIRTIO_NET_BUF_SIZE + 1);
	uint8_t *out = malloc(max ? max : 1);
	size_t len = (size_t)-1;
	int rc;

	FUZZ_CHECK(out != NULL);
	memset(out, 0xa7, max);
	s->rx_max = max;
	s->delivered = false;
	rc = virtio_net_recv(&s->net, out, max, &len);
	FUZZ_CHECK(rc == 0 || rc == 1);
	FUZZ_CHECK(rc == s->delivered);
	if (rc) {
		/* Never more than was posted, never less than a frame, never past @max. */
		FUZZ_CHECK(len >= VIRTIO_NET_MIN_FRAME &&
			   len <= VIRTIO_NET_BUF_SIZE - VIRTIO_NET_HDR_LEN && len <= max);
		FUZZ_CHECK(len == s->deliver_len - VIRTIO_NET_HDR_LEN);
		FUZZ_CHECK(!memcmp(out, s->snap + VIRTIO_NET_HDR_LEN, len));
	} else {
		len = 0;
	}
	for (size_t i = len; i < max; i++)
		FUZZ_CHECK(out[i] == 0xa7);
	free(out);
}

static void vnf_send(struct vnf *s)
{
	struct fuzz_in *in = s->in;
	uint8_t how = fuzz_u8(in);
	size_t len, have;
	uint8_t *frame;
	bool bad;
	int rc;

	switch (how & 7) {
	case 5:
		len = fuzz_below(in, VIRTIO_NET_MIN_FRAME);
		break;
	case 6:
		len = VIRTIO_NET_MAX_FRAME + 1 + fuzz_below(in, 64);
		break;
	case 7:
		len = fuzz_u8(in) & 1 ? (size_t)-1 : fuzz_u32(in);
		break;
	default:
		len = VIRTIO_NET_MIN_FRAME +
		      fuzz_below(in, VIRTIO_NET_MAX_FRAME - VIRTIO_NET_MIN_FRAME + 1);
		break;
	}
	/* Exactly the bytes a caller has: a length the driver should refuse but
	 * reads anyway shows up as an ASan report. */
	have = len < VNF_MAX_SEND ? len : VNF_MAX_SEND;
	frame = malloc(have ? have : 1);
	FUZZ_CHECK(frame != NULL);
	for (size_t i = 0; i < have; i++)
		frame[i] = (uint8_t)(how + i * 3);
	bad = len < VIRTIO_NET_MIN_FRAME || len > VIRTIO_NET_MAX_FRAME || (how & 0x80);
	s->q[1].consumed = 0;
	rc = virtio_net_send(&s->net, how & 0x80 ? NULL : frame, len);
	if (bad) {
		FUZZ_CHECK(rc == -22);
	} else if (rc) {
		/* Busy (slots or bounce slots), or the device broke the queue. */
		FUZZ_CHECK(rc == -16 || (rc == -5 && virtq_is_broken(&s->net.pairs[0].txq)));
		s->expect.tx_busy++;
	} else {
		memcpy(s->sent, frame, len);
		s->sent_len = len;
		s->tx_posted = true;
	}
	free(frame);
}

static void vnf_reclaim(struct vnf *s)
{
	int n;

	s->q[1].consumed = 0;
	n = virtio_net_tx_reclaim(&s->net);
	FUZZ_CHECK(n >= 0 && (unsigned int)n == s->q[1].consumed);
}

static void vnf_link(struct vnf *s)
{
	bool up = virtio_net_link_up(&s->net);
	uint16_t st;

	memcpy(&st, s->cfg + 6, 2);
	if (!(s->accepted & VIRTIO_FEATURE(VNF_F_STATUS)))
		FUZZ_CHECK(up);
	else
		FUZZ_CHECK(up == (!s->fail_config && (st & 1)));
}

/* Counters and ownership after every step; the self-checks when @deep. */
static void vnf_check(struct vnf *s, bool deep)
{
	const struct virtio_net_stats *st = &s->net.pairs[0].stats;
	const struct virtio_net_stats *ex = &s->expect;

	FUZZ_CHECK(st->tx_frames == ex->tx_frames && st->tx_bytes == ex->tx_bytes &&
		   st->tx_busy == ex->tx_busy);
	FUZZ_CHECK(st->rx_frames == ex->rx_frames && st->rx_bytes == ex->rx_bytes);
	FUZZ_CHECK(st->rx_bad_len == ex->rx_bad_len && st->rx_bad_hdr == ex->rx_bad_hdr &&
		   st->rx_dropped == ex->rx_dropped);
	/* A buffer that could not be posted again only ever fails on a broken ring. */
	FUZZ_CHECK(!st->rx_repost_failed || virtq_is_broken(&s->net.pairs[0].rxq));
	/* Every receive buffer posted or waiting; every transmit slot free or out. */
	FUZZ_CHECK(virtq_num_inflight(&s->net.pairs[0].rxq) == s->q[0].ninflight);
	FUZZ_CHECK(virtq_num_inflight(&s->net.pairs[0].txq) == s->q[1].ninflight);
	FUZZ_CHECK(s->q[0].ninflight + s->net.pairs[0].rx_nunposted == s->net.queue_size);
	FUZZ_CHECK(s->q[1].ninflight + s->net.pairs[0].tx_nfree == s->net.queue_size);
	FUZZ_CHECK(s->nlive == 2 * s->net.queue_size);
	if (deep) {
		FUZZ_CHECK(virtq_check(&s->net.pairs[0].rxq) == 0);
		FUZZ_CHECK(virtq_check(&s->net.pairs[0].txq) == 0);
		FUZZ_CHECK(dma_layer_check(&s->fd.dl) == 0);
	}
}

/* Features, configuration and queue sizes; returns whether init must work. */
static bool vnf_configure(struct vnf *s, uint8_t mode, unsigned int *max_queue)
{
	struct fuzz_in *in = s->in;
	uint8_t dev = fuzz_u8(in);
	unsigned int size;

	s->fail_config = mode & 0x40;
	s->fail_driver_ok = mode & 0x80;
	s->vdev.device_type = dev & 1 ? VIRTIO_ID_BLOCK : VIRTIO_ID_NET;
	s->refuse_features = dev & 2;
	s->offered = 0;
	if (!(dev & 4))
		s->offered |= VIRTIO_FEATURE(VIRTIO_F_VERSION_1);
	if (!(dev & 8))
		s->offered |= VIRTIO_FEATURE(VIRTIO_F_ACCESS_PLATFORM);
	if (dev & 0x10)
		s->offered |= VIRTIO_FEATURE(VNF_F_MAC);
	if (dev & 0x20)
		s->offered |= VIRTIO_FEATURE(VNF_F_STATUS);
	if (dev & 0x40)
		s->offered |= VIRTIO_FEATURE(VNF_F_CSUM) | VIRTIO_FEATURE(VNF_F_GUEST_CSUM) |
			      VIRTIO_FEATURE(VNF_F_GUEST_TSO4) | VIRTIO_FEATURE(VNF_F_MRG_RXBUF) |
			      VIRTIO_FEATURE(VIRTIO_F_RING_EVENT_IDX) |
			      VIRTIO_FEATURE(VIRTIO_F_RING_INDIRECT_DESC);
	for (unsigned int i = 0; i < VNF_CFG_BYTES; i++)
		s->cfg[i] = fuzz_u8(in);
	for (unsigned int i = 0; i < 2; i++) {
		uint8_t b = fuzz_u8(in);

		s->max_size[i] = b == 0xff ? fuzz_u16(in) : b % 65;
	}
	*max_queue = fuzz_u8(in);
	size = s->max_size[0] < s->max_size[1] ? s->max_size[0] : s->max_size[1];
	if (*max_queue && size > *max_queue)
		size = *max_queue;
	while (size & (size - 1))
		size &= size - 1;
	return !(dev & 1) && !(dev & 4) && !((mode & 1) && (dev & 8)) && !(dev & 2) &&
	       !((dev & 0x10) && s->fail_config) && size && size <= VNF_MAX_QSIZE &&
	       !s->fail_driver_ok;
}

int fuzz_virtio_net_rx_one(const uint8_t *data, size_t size)
{
	struct fuzz_in in = { data, size, 0 };
	struct vnf *s = &vnf;
	struct virtio_net_buffers bufs = { vnf_alloc, vnf_free, s };
	unsigned int max_queue;
	uint8_t mode;
	char why[160];
	bool usable;
	int rc;

	memset(s, 0, sizeof(*s));
	s->in = &in;
	mode = fuzz_u8(&in);
	s->vdev.ops = &vnf_ops;
	s->vdev.confidential = mode & 1;
	strcpy(s->vdev.name, "fuzz-net0");
	s->inplace = mode & 0x10;
	s->mutate = mode & 0x20;
	ASAN_POISON_MEMORY_REGION(vnf_region, sizeof(vnf_region));
	FUZZ_CHECK(fuzz_dma_init(&s->fd, (enum dma_bounce_policy)((mode >> 1) & 3), 1,
				 (mode & 8) ? DMA_SCRUB_ZERO : DMA_SCRUB_COPY) == 0);
	if (s->inplace)
		dma_layer_set_inplace(&s->fd.dl, &vnf_hook_region);
	usable = vnf_configure(s, mode, &max_queue);
	why[0] = '\0';
	rc = virtio_net_init(&s->net, &s->vdev, &s->fd.dl, &bufs, max_queue, why, sizeof(why));
	FUZZ_CHECK(!rc == usable);
	if (rc) {
		FUZZ_CHECK(why[0] && memchr(why, '\0', sizeof(why)) != NULL);
		FUZZ_CHECK(s->status == 0);
		/* Whatever init got as far as setting up, remove takes back. */
		virtio_net_remove(&s->net);
		FUZZ_CHECK(s->nlive == 0);
		dma_layer_set_inplace(&s->fd.dl, NULL);
		fuzz_dma_fini(&s->fd);
		return 0;
	}
	FUZZ_CHECK(s->status & VIRTIO_STATUS_DRIVER_OK);
	FUZZ_CHECK(s->net.queue_size == s->q[0].size && s->net.queue_size == s->q[1].size);
	if (s->accepted & VIRTIO_FEATURE(VNF_F_MAC))
		FUZZ_CHECK(!memcmp(s->net.mac, s->cfg, 6));
	FUZZ_CHECK(s->net.has_status == !!(s->accepted & VIRTIO_FEATURE(VNF_F_STATUS)));
	s->q[0].vq = &s->net.pairs[0].rxq;
	s->q[1].vq = &s->net.pairs[0].txq;
	for (unsigned int qi = 0; qi < 2; qi++) {
		s->q[qi].vq->read_hook = vnf_hook;
		s->q[qi].vq->read_hook_ctx = &s->q[qi];
		vnf_take(s, qi);
	}
	vnf_check(s, true);

	for (unsigned int ops = 0; fuzz_more(&in) && ops < VNF_MAX_OPS; ops++) {
		uint8_t op = fuzz_u8(&in);

		switch (op & 7) {
		case 0:
			vnf_recv(s);
			break;
		case 1:
		case 2:
			vnf_serve_rx(s);
			break;
		case 3:
			vnf_send(s);
			break;
		case 4:
			vnf_complete_tx(s);
			break;
		case 5:
			vnf_reclaim(s);
			break;
		case 6:
			if (op & 0x80)
				s->mutate = !s->mutate;
			else
				vnf_link(s);
			break;
		default:
			vnf_hostile_idx(s, (op >> 3) & 1);
			break;
		}
		vnf_take(s, 0);
		vnf_take(s, 1);
		vnf_check(s, ops % 8 == 7);
	}
	vnf_check(s, true);

	s->net.pairs[0].rxq.read_hook = NULL;
	s->net.pairs[0].txq.read_hook = NULL;
	virtio_net_remove(&s->net);
	FUZZ_CHECK(s->status == 0);
	FUZZ_CHECK(s->nlive == 0);
	dma_layer_set_inplace(&s->fd.dl, NULL);
	fuzz_dma_fini(&s->fd);
	return 0;
}
