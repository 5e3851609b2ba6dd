/* SPDX-License-Identifier: MIT */
/*
 * fuzz_net.c - the malicious network device of the virtio-net fuzz targets and
 * the model that checks the driver against it (see fuzz_net.h).
 */
#include "tests/fuzz/fuzz_net.h"

#include <sanitizer/asan_interface.h>
#include <string.h>

#include "drivers/virtio/virtqueue.h"

struct fnet fnet;

/* Frame buffers: shared memory the layer maps in place (think arena) when the
 * run is in place, private memory that bounces otherwise. */
static unsigned char fnet_region[FNET_MAX_BUFS * FNET_STRIDE] __attribute__((aligned(4096)));
/* The caller's buffers of one receive and one send, poisoned past their length. */
static uint8_t fnet_out[VIRTIO_NET_BUF_SIZE + 64] __attribute__((aligned(64)));
static uint8_t fnet_frame[FNET_MAX_SEND + 64] __attribute__((aligned(64)));
static uint8_t fnet_a7[VIRTIO_NET_BUF_SIZE];

/* ------------------------------------------------------------------ buffers */

/* The in-place hook: a range inside one live buffer of the region. */
static bool fnet_owns(void *ctx, const void *vaddr, size_t len)
{
	struct fnet *s = &fnet;
	uintptr_t p = (uintptr_t)vaddr, base = (uintptr_t)fnet_region;
	size_t off, slot;

	(void)ctx;
	s->owns_calls++;
	if (!s->inplace || p < base || p - base >= sizeof(fnet_region))
		return false;
	off = (p - base) % FNET_STRIDE;
	slot = (p - base) / FNET_STRIDE;
	return slot < s->nbufs && s->buf_live[slot] && len <= VIRTIO_NET_BUF_SIZE &&
	       off + (len ? len : 1) <= VIRTIO_NET_BUF_SIZE;
}

static const struct sluice_dma_inplace_region fnet_hook_region = { .owns = fnet_owns };

/* Whether a device may be given [addr, addr + len): pool memory or the region. */
static bool fnet_shared(struct fnet *s, uint64_t addr, uint32_t len)
{
	unsigned long calls = s->owns_calls;
	bool ok = mock_port_is_shared(&s->fd->mp, (void *)(uintptr_t)addr, len) ||
		  fnet_owns(NULL, (void *)(uintptr_t)addr, len);

	s->owns_calls = calls; /* the harness's own calls do not count */
	return ok;
}

/* The driver's buffer allocator: at most @max_bufs, then NULL. Exactly
 * @size bytes are addressable: ASan flags the first byte read past them. */
static void *fnet_alloc(void *ctx, size_t size)
{
	struct fnet *s = ctx;
	unsigned char *p;

	FUZZ_CHECK(size && size <= VIRTIO_NET_BUF_SIZE);
	if (s->nbufs >= s->max_bufs)
		return NULL;
	p = fnet_region + (size_t)s->nbufs * FNET_STRIDE;
	ASAN_UNPOISON_MEMORY_REGION(p, size);
	ASAN_POISON_MEMORY_REGION(p + size, FNET_STRIDE - size);
	/* What the previous input left there must not decide anything. */
	memset(p, 0x5c, size);
	s->buf[s->nbufs] = p;
	s->buf_live[s->nbufs++] = true;
	s->nlive++;
	return p;
}

/* Freeing NULL is allowed (remove after a failed init); anything else once. */
static void fnet_free(void *ctx, void *ptr)
{
	struct fnet *s = ctx;
	unsigned int i;

	s->buf_frees++;
	if (!ptr)
		return;
	FUZZ_CHECK((unsigned char *)ptr >= fnet_region &&
		   (unsigned char *)ptr < fnet_region + sizeof(fnet_region) &&
		   ((unsigned char *)ptr - fnet_region) % FNET_STRIDE == 0);
	i = (unsigned int)(((unsigned char *)ptr - fnet_region) / FNET_STRIDE);
	FUZZ_CHECK(i < s->nbufs && s->buf_live[i]);
	s->buf_live[i] = false;
	s->nlive--;
	ASAN_POISON_MEMORY_REGION(ptr, FNET_STRIDE);
}

struct virtio_net_buffers fnet_buffers(struct fnet *s)
{
	return (struct virtio_net_buffers){ fnet_alloc, fnet_free, s };
}

/* ------------------------------------------------------------------ transport */

static void fnet_features(struct fake_virtio *f, uint64_t features)
{
	struct fnet *s = f->ctx;

	/* Only what was offered, and no offload: a header asking for one is bogus. */
	FUZZ_CHECK((features & ~f->offered) == 0 && (features & ~s->usable) == 0);
}

/* The queue a driver's index names in the model: pair index * 2 + direction. */
static struct fnet_queue *fnet_queue_of(struct fnet *s, uint16_t index)
{
	return index / 2 < FNET_MAX_PAIRS ? &s->pairs[index / 2].q[index % 2] : NULL;
}

static void fnet_notify(struct fake_virtio *f, uint16_t index)
{
	/* Only queues the driver set up are notified. */
	FUZZ_CHECK(fake_virtio_queue(f, index) != NULL);
}

/* ------------------------------------------------------------------ the model */

/*
 * The queue accepted used entry (@id, @len) if @id is a head in flight; the
 * driver then treats it as virtio_net_recv_on() / virtio_net_tx_reclaim_on()
 * say. Called from the read hook, so the bytes snapshotted here are exactly
 * what the driver reads next (nothing runs in between).
 */
static void fnet_classify(struct fnet *s, struct fnet_queue *q, uint32_t id, uint32_t len)
{
	struct virtio_net_stats *ex = &q->pair->expect;
	struct fnet_chain *c;

	if (id >= q->size || !q->chain[id].inflight)
		return; /* skipped by the queue: out of range or a replay */
	c = &q->chain[id];
	c->inflight = false;
	q->ninflight--;
	q->consumed++;
	if (!q->rx) {
		ex->tx_frames++;
		ex->tx_bytes += c->len - VIRTIO_NET_HDR_LEN;
		return;
	}
	if (len > c->len || len < VIRTIO_NET_HDR_LEN + VIRTIO_NET_MIN_FRAME) {
		ex->rx_bad_len++;
		return;
	}
	memcpy(s->snap, (const void *)(uintptr_t)c->addr, len);
	if (s->snap[0] || s->snap[1]) { /* flags, gso_type */
		ex->rx_bad_hdr++;
		return;
	}
	if (len - VIRTIO_NET_HDR_LEN > s->rx_max) {
		ex->rx_dropped++;
		return;
	}
	FUZZ_CHECK(!s->delivered); /* one frame per receive call */
	s->delivered = true;
	s->deliver_len = len;
	ex->rx_frames++;
	ex->rx_bytes += len - VIRTIO_NET_HDR_LEN;
}

static void fnet_hook(void *ctx, enum virtq_shared_read what, volatile void *addr)
{
	struct fnet_queue *q = ctx;
	struct fnet *s = &fnet;

	if (what == VIRTQ_READ_USED_ID)
		q->last_id = *(volatile uint32_t *)addr;
	else if (what == VIRTQ_READ_USED_LEN)
		fnet_classify(s, q, q->last_id, *(volatile uint32_t *)addr);
	/* A double fetch would now see another value. */
	if (s->mutate && !(fuzz_u8(s->in) & 3)) {
		if (what == VIRTQ_READ_USED_ID || what == VIRTQ_READ_USED_LEN)
			*(volatile uint32_t *)addr = fuzz_u32(s->in);
		else
			*(volatile uint16_t *)addr = fuzz_u16(s->in);
	}
}

void fnet_take(struct fnet *s, unsigned int p, unsigned int qi)
{
	struct fnet_pair *pair = &s->pairs[p];
	struct fnet_queue *q = &pair->q[qi];
	struct fake_chain fc;

	if (!q->vq)
		return;
	FUZZ_CHECK(fake_virtio_avail_pending(&s->dev, q->index) <= q->size);
	while (fake_virtio_avail_pending(&s->dev, q->index)) {
		struct fnet_chain *c;

		/* One buffer per frame, its direction, never private memory. */
		FUZZ_CHECK(fake_virtio_pop(&s->dev, q->index, &fc) == 1);
		FUZZ_CHECK(fc.n == 1 && !fc.indirect && fc.head < q->size);
		FUZZ_CHECK(fc.write[0] == q->rx);
		FUZZ_CHECK(fnet_shared(s, fc.addr[0], fc.len[0]));
		c = &q->chain[fc.head];
		FUZZ_CHECK(!c->inflight);
		if (q->rx) {
			FUZZ_CHECK(fc.len[0] == VIRTIO_NET_BUF_SIZE);
		} else {
			static const uint8_t zero[VIRTIO_NET_HDR_LEN];
			const uint8_t *b = (const uint8_t *)(uintptr_t)fc.addr[0];

			/* A chain only after a successful send, carrying that frame. */
			FUZZ_CHECK(pair->tx_posted);
			pair->tx_posted = false;
			FUZZ_CHECK(fc.len[0] == VIRTIO_NET_HDR_LEN + pair->sent_len);
			FUZZ_CHECK(!memcmp(b, zero, VIRTIO_NET_HDR_LEN));
			FUZZ_CHECK(!memcmp(b + VIRTIO_NET_HDR_LEN, pair->sent, pair->sent_len));
		}
		c->inflight = true;
		c->addr = fc.addr[0];
		c->len = fc.len[0];
		q->ninflight++;
		/* A head the driver got back through a forged id is a new buffer now. */
		for (unsigned int i = 0; i < q->npending; i++)
			if (q->pending[i] == fc.head)
				q->pending[i--] = q->pending[--q->npending];
		q->pending[q->npending++] = fc.head;
	}
	if (!q->rx)
		FUZZ_CHECK(!pair->tx_posted);
}

/* Pick the id of a used entry: mostly @head, else another, out of range, a replay. */
static uint32_t fnet_pick_id(struct fnet *s, struct fnet_queue *q, uint16_t head, unsigned int how)
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

void fnet_serve_rx(struct fnet *s, unsigned int p)
{
	struct fuzz_in *in = s->in;
	struct fnet_queue *q = &s->pairs[p].q[0];
	uint8_t how = fuzz_u8(in), how2 = fuzz_u8(in), seed = fuzz_u8(in);
	unsigned int pick;
	uint16_t head;
	uint8_t *b;
	uint32_t flen, written, len;

	if (!q->npending)
		return;
	pick = fuzz_below(in, q->npending);
	head = q->pending[pick];
	b = (uint8_t *)(uintptr_t)q->chain[head].addr;
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
	memset(b, 0, VIRTIO_NET_HDR_LEN);
	b[10] = 1;
	if (how & 0x08)
		fuzz_bytes(in, b, VIRTIO_NET_HDR_LEN);
	if (how & 0x10)
		fuzz_bytes(in, b + 2, 8); /* hdr_len .. csum_offset, no flag */
	if (how & 0x20)
		fuzz_bytes(in, b + 10, 2);
	fuzz_fill(b + VIRTIO_NET_HDR_LEN, written - VIRTIO_NET_HDR_LEN, seed);
	switch (how >> 6) {
	case 0:
	case 1:
		len = VIRTIO_NET_HDR_LEN + flen;
		break;
	case 2:
		len = fuzz_u32(in);
		break;
	default:
		len = fuzz_u8(in) & 1 ? VIRTIO_NET_BUF_SIZE + 1u + fuzz_u8(in) :
					fuzz_below(in, VIRTIO_NET_HDR_LEN + VIRTIO_NET_MIN_FRAME);
		break;
	}
	fake_virtio_push(&s->dev, q->index, fnet_pick_id(s, q, head, how2), len);
	if (how2 & 0x04)
		fake_virtio_push(&s->dev, q->index, head, len); /* published twice: a replay */
	if (!(how2 & 0x08))
		q->pending[pick] = q->pending[--q->npending];
}

void fnet_complete_tx(struct fnet *s, unsigned int p)
{
	struct fnet_queue *q = &s->pairs[p].q[1];
	uint8_t how = fuzz_u8(s->in);
	unsigned int pick;
	uint32_t id;
	uint16_t head;

	if (!q->npending)
		return;
	pick = fuzz_below(s->in, q->npending);
	head = q->pending[pick];
	/* Id first, then length: the input is read in a fixed order. */
	id = fnet_pick_id(s, q, head, how);
	fake_virtio_push(&s->dev, q->index, id, how & 0x04 ? fuzz_u32(s->in) : 0);
	if (how & 0x08)
		fake_virtio_push(&s->dev, q->index, head, 0);
	if (!(how & 0x10))
		q->pending[pick] = q->pending[--q->npending];
}

void fnet_hostile_idx(struct fnet *s, unsigned int p, unsigned int qi)
{
	struct fnet_queue *q = &s->pairs[p].q[qi];
	struct fake_queue *fq;

	if (!q->vq)
		return;
	fq = fake_virtio_queue(&s->dev, q->index);
	FUZZ_CHECK(fq != NULL);
	if (fuzz_u8(s->in) & 1) {
		uint16_t d = fuzz_u16(s->in);

		fake_virtio_set_idx(&s->dev, q->index, (uint16_t)(fq->used_idx + d));
	} else {
		uint32_t id = fuzz_u32(s->in);

		fake_virtio_push(&s->dev, q->index, id, fuzz_u32(s->in));
	}
}

/* ------------------------------------------------------------------ driver calls */

void fnet_recv(struct fnet *s, unsigned int p)
{
	uint8_t how = fuzz_u8(s->in);
	size_t max = how & 1 ? VIRTIO_NET_BUF_SIZE : fuzz_below(s->in, VIRTIO_NET_BUF_SIZE + 1);
	size_t len = (size_t)-1;
	int rc;

	/* Exactly @max bytes are the caller's. */
	ASAN_UNPOISON_MEMORY_REGION(fnet_out, sizeof(fnet_out));
	ASAN_POISON_MEMORY_REGION(fnet_out + max, sizeof(fnet_out) - max);
	memset(fnet_out, 0xa7, max);
	s->rx_max = max;
	s->delivered = false;
	rc = virtio_net_recv_on(&s->net, p, fnet_out, max, &len);
	FUZZ_CHECK(rc == 0 || rc == 1);
	FUZZ_CHECK(rc == s->delivered);
	if (rc) {
		/* Never more than was posted, never less than a frame, never past @max. */
		FUZZ_CHECK(p < s->net.npairs);
		FUZZ_CHECK(len >= VIRTIO_NET_MIN_FRAME &&
			   len <= VIRTIO_NET_BUF_SIZE - VIRTIO_NET_HDR_LEN && len <= max);
		FUZZ_CHECK(len == s->deliver_len - VIRTIO_NET_HDR_LEN);
		FUZZ_CHECK(!memcmp(fnet_out, s->snap + VIRTIO_NET_HDR_LEN, len));
	} else {
		len = 0;
	}
	if (!fnet_a7[0])
		memset(fnet_a7, 0xa7, sizeof(fnet_a7));
	FUZZ_CHECK(!memcmp(fnet_out + len, fnet_a7, max - len));
}

void fnet_send(struct fnet *s, unsigned int p)
{
	struct fuzz_in *in = s->in;
	struct fnet_pair *pair = &s->pairs[p];
	uint8_t how = fuzz_u8(in);
	size_t len, have;
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
	have = len < FNET_MAX_SEND ? len : FNET_MAX_SEND;
	ASAN_UNPOISON_MEMORY_REGION(fnet_frame, sizeof(fnet_frame));
	ASAN_POISON_MEMORY_REGION(fnet_frame + have, sizeof(fnet_frame) - have);
	fuzz_fill(fnet_frame, have, how);
	bad = len < VIRTIO_NET_MIN_FRAME || len > VIRTIO_NET_MAX_FRAME || (how & 0x80) ||
	      p >= s->net.npairs;
	pair->q[1].consumed = 0;
	rc = virtio_net_send_on(&s->net, p, how & 0x80 ? NULL : fnet_frame, len);
	if (bad) {
		FUZZ_CHECK(rc == -22);
	} else if (rc) {
		/* Busy (slots or bounce slots), or the device broke the queue. */
		FUZZ_CHECK(rc == -16 || (rc == -5 && virtq_is_broken(&s->net.pairs[p].txq)));
		pair->expect.tx_busy++;
	} else {
		memcpy(pair->sent, fnet_frame, len);
		pair->sent_len = len;
		pair->tx_posted = true;
	}
}

void fnet_reclaim(struct fnet *s, unsigned int p)
{
	int n;

	s->pairs[p].q[1].consumed = 0;
	n = virtio_net_tx_reclaim_on(&s->net, p);
	FUZZ_CHECK(n >= 0 && (unsigned int)n == s->pairs[p].q[1].consumed);
}

void fnet_link(struct fnet *s)
{
	bool up = virtio_net_link_up(&s->net);
	uint16_t st;

	memcpy(&st, s->dev.cfg + 6, 2);
	if (!(s->dev.accepted & VIRTIO_FEATURE(FNET_F_STATUS)))
		FUZZ_CHECK(up);
	else
		FUZZ_CHECK(up == (!s->dev.cfg_fails && (st & 1)));
}

void fnet_check(struct fnet *s, bool deep)
{
	const struct virtio_net *n = &s->net;

	for (unsigned int p = 0; p < n->pairs_allocated; p++) {
		const struct virtio_net_pair *dp = &n->pairs[p];
		const struct virtio_net_stats *st = &dp->stats, *ex = &s->pairs[p].expect;
		const struct fnet_queue *rq = &s->pairs[p].q[0], *tq = &s->pairs[p].q[1];

		FUZZ_CHECK(st->tx_frames == ex->tx_frames && st->tx_bytes == ex->tx_bytes &&
			   st->tx_busy == ex->tx_busy);
		FUZZ_CHECK(st->rx_frames == ex->rx_frames && st->rx_bytes == ex->rx_bytes);
		FUZZ_CHECK(st->rx_bad_len == ex->rx_bad_len && st->rx_bad_hdr == ex->rx_bad_hdr &&
			   st->rx_dropped == ex->rx_dropped);
		/* A buffer that could not be posted again only ever fails on a broken ring. */
		FUZZ_CHECK(!st->rx_repost_failed || virtq_is_broken(&dp->rxq));
		/* Every receive buffer posted or waiting; every transmit slot free or out. */
		FUZZ_CHECK(virtq_num_inflight(&dp->rxq) == rq->ninflight);
		FUZZ_CHECK(virtq_num_inflight(&dp->txq) == tq->ninflight);
		FUZZ_CHECK(rq->ninflight + dp->rx_nunposted == n->queue_size);
		FUZZ_CHECK(tq->ninflight + dp->tx_nfree == n->queue_size);
		if (deep) {
			FUZZ_CHECK(virtq_check((struct virtq *)&dp->rxq) == 0);
			FUZZ_CHECK(virtq_check((struct virtq *)&dp->txq) == 0);
		}
	}
	FUZZ_CHECK(s->nlive == 2 * n->queue_size * n->pairs_allocated);
	if (deep)
		FUZZ_CHECK(sluice_dma_layer_check(&s->fd->dl) == 0);
}

/* ------------------------------------------------------------------ set-up, removal */

/*
 * A reset: if it fails while the device holds queues, count what it holds
 * right now - before a later reset that completes makes it forget - as the
 * driver must count its quarantine: every ring, every buffer posted and not
 * completed (taken by the device now if it had not yet), the command buffer.
 */
/* Note one range the device holds. */
static void fnet_hold(struct fnet *s, uint64_t addr, uint64_t len, bool mapping)
{
	FUZZ_CHECK(s->nheld_range < FNET_MAX_HELD);
	s->held_range[s->nheld_range++] = (struct fuzz_range){ addr, len };
	s->held_bytes += len;
	s->held_mappings += mapping;
}

static void fnet_reset(struct fake_virtio *f, bool completes)
{
	struct fnet *s = f->ctx;
	unsigned int data_queues = 2 * s->net.pairs_allocated;
	struct fake_chain fc;

	if (completes || !f->nq || s->held)
		return;
	s->held = true;
	fuzz_quarantine_mark(&s->held_mark, s->fd);
	s->held_owns = s->owns_calls;
	s->held_frees = s->buf_frees;
	for (unsigned int i = 0; i < f->nq; i++) {
		struct fake_queue *fq = &f->q[i];
		struct fnet_queue *q = fnet_queue_of(s, fq->index);
		unsigned int n = fq->size;

		fnet_hold(s, (uintptr_t)fq->desc, VIRTQ_DESC_TABLE_SIZE(n), false);
		fnet_hold(s, (uintptr_t)fq->avail, VIRTQ_AVAIL_SIZE(n), false);
		fnet_hold(s, (uintptr_t)fq->used, VIRTQ_USED_SIZE(n), false);
		if (fq->index >= data_queues) {
			/* The command buffer; where it is shows once a command is posted. */
			uint16_t keep = fq->next_avail;

			s->held_bytes += FNET_CTRL_BYTES;
			fq->next_avail = (uint16_t)(fq->avail->idx - 1);
			if (fq->avail->idx && fake_virtio_pop(f, fq->index, &fc) == 1 && fc.n) {
				FUZZ_CHECK(s->nheld_range < FNET_MAX_HELD);
				s->held_range[s->nheld_range++] =
					(struct fuzz_range){ fc.addr[0], FNET_CTRL_BYTES };
			}
			fq->next_avail = keep;
			continue;
		}
		if (q->vq) {
			fnet_take(s, fq->index / 2, fq->index % 2);
			for (unsigned int h = 0; h < q->size; h++)
				if (q->chain[h].inflight)
					fnet_hold(s, q->chain[h].addr, q->chain[h].len, true);
			continue;
		}
		/* Not attached (init failed): every buffer posted is on the ring. */
		while (fake_virtio_avail_pending(f, fq->index)) {
			FUZZ_CHECK(fake_virtio_pop(f, fq->index, &fc) == 1 && fc.n == 1);
			fnet_hold(s, fc.addr[0], fc.len[0], true);
		}
	}
}

void fnet_begin(struct fnet *s, struct fuzz_in *in, uint8_t mode, int second)
{
	memset(s, 0, sizeof(*s));
	s->in = in;
	s->fd = fuzz_virtio_begin(&s->dev, in, VIRTIO_ID_NET, 2, "fuzz-net0", s, mode, second);
	s->dev.offered = 0;
	s->dev.on_features = fnet_features;
	s->dev.on_notify = fnet_notify;
	s->dev.on_reset = fnet_reset;
	s->dev.cfg_fails = mode & 0x40;
	s->dev.refuse_driver_ok = mode & 0x80;
	s->max_bufs = 2 * FNET_MAX_QSIZE;
	s->inplace = mode & 0x10;
	s->mutate = mode & 0x20;
	s->usable = VIRTIO_FEATURE(VIRTIO_F_VERSION_1) | VIRTIO_FEATURE(VIRTIO_F_ACCESS_PLATFORM) |
		    VIRTIO_FEATURE(FNET_F_MAC) | VIRTIO_FEATURE(FNET_F_STATUS);
	if (s->inplace)
		sluice_dma_layer_set_inplace(&s->fd->dl, &fnet_hook_region);
}

void fnet_attach(struct fnet *s)
{
	for (unsigned int p = 0; p < s->net.pairs_allocated; p++) {
		for (unsigned int qi = 0; qi < 2; qi++) {
			struct fnet_queue *q = &s->pairs[p].q[qi];
			struct fake_queue *fq;

			q->vq = qi ? &s->net.pairs[p].txq : &s->net.pairs[p].rxq;
			q->pair = &s->pairs[p];
			q->rx = !qi;
			q->index = (uint16_t)(2 * p + qi);
			fq = fake_virtio_queue(&s->dev, q->index);
			FUZZ_CHECK(fq != NULL && fq->size == s->net.queue_size);
			FUZZ_CHECK(fnet_queue_of(s, q->index) == q);
			q->size = fq->size;
			q->vq->read_hook = fnet_hook;
			q->vq->read_hook_ctx = q;
			fnet_take(s, p, qi);
		}
	}
}

void fnet_quarantine_check(struct fnet *s, const struct fuzz_quarantine *mark, int rc,
			   unsigned int failed_before)
{
	uint64_t bytes = s->held_bytes, mappings = s->held_mappings;
	unsigned long owns = s->held_owns, frees = s->held_frees;

	if (!s->net.quarantined) {
		/* The device let go (or was never given anything): nothing to keep. */
		FUZZ_CHECK(rc == 0 && !s->held);
		fuzz_quarantine_none(mark);
		return;
	}
	FUZZ_CHECK(rc == -5 && s->dev.failed_resets > failed_before);
	FUZZ_CHECK(s->net.quarantined_bytes == bytes);
	FUZZ_CHECK(s->net.quarantined_mappings == mappings);
	/* Nothing given back from the failed reset on (a reset that fails with
	 * nothing set up has nothing to give back either). */
	if (s->held)
		mark = &s->held_mark;
	else
		owns = s->owns_calls, frees = s->buf_frees;
	fuzz_quarantine_check(mark, s->fd, bytes, mappings);
	/* Not a buffer given back, not one unmapped in place. */
	FUZZ_CHECK(s->buf_frees == frees && s->owns_calls == owns);
	FUZZ_CHECK(virtio_net_remove(&s->net) == -5);
	fuzz_quarantine_check(mark, s->fd, bytes, mappings);
	FUZZ_CHECK(s->buf_frees == frees && s->owns_calls == owns);
	fuzz_quarantine_reuse(s->fd, s->held_range, s->nheld_range);
	/* The device lets go at last: the same storage is released, each buffer once. */
	fake_virtio_let_go(&s->dev);
	s->net.quarantined = false;
	FUZZ_CHECK(virtio_net_remove(&s->net) == 0);
	FUZZ_CHECK(s->nlive == 0 && s->dev.status == 0);
}

void fnet_end(struct fnet *s)
{
	struct fuzz_quarantine mark;
	unsigned int failed = s->dev.failed_resets;
	int rc;

	for (unsigned int p = 0; p < s->net.pairs_allocated; p++) {
		s->net.pairs[p].rxq.read_hook = NULL;
		s->net.pairs[p].txq.read_hook = NULL;
	}
	fuzz_quarantine_mark(&mark, s->fd);
	rc = virtio_net_remove(&s->net);
	/* One reset at removal: it failed exactly when the driver quarantined. */
	FUZZ_CHECK(s->net.quarantined == (s->dev.failed_resets > failed));
	fnet_quarantine_check(s, &mark, rc, failed);
	FUZZ_CHECK(s->nlive == 0 && s->dev.status == 0);
	fnet_drop(s);
}

void fnet_drop(struct fnet *s)
{
	sluice_dma_layer_set_inplace(&s->fd->dl, NULL);
	fuzz_dma_end(s->fd);
}

void fnet_init_failed(struct fnet *s, const struct fuzz_quarantine *mark)
{
	/* Whatever init got as far as setting up is released, or quarantined if
	 * the device did not reset; then nothing is left. */
	fnet_quarantine_check(s, mark, s->net.quarantined ? -5 : 0, 0);
	FUZZ_CHECK(s->nlive == 0);
	fnet_drop(s);
}

void fnet_take_all(struct fnet *s, unsigned int npairs)
{
	for (unsigned int p = 0; p < npairs; p++) {
		fnet_take(s, p, 0);
		fnet_take(s, p, 1);
	}
}

bool fnet_data_op(struct fnet *s, unsigned int kind, unsigned int p)
{
	/* Serving receive buffers twice as likely: the device's answers are where
	 * it can lie. */
	static void (*const step[])(struct fnet *, unsigned int) = {
		fnet_recv, fnet_serve_rx, fnet_serve_rx, fnet_send, fnet_complete_tx, fnet_reclaim,
	};

	if (kind >= sizeof(step) / sizeof(step[0]))
		return false;
	step[kind](s, p);
	return true;
}
