/* SPDX-License-Identifier: MIT */
/*
 * fuzz_virtio_blk_completion.c - the virtio-blk driver (drivers/virtio/
 * virtio_blk.c) over its virtqueues and the DMA layer, against a malicious
 * block device behind the fake transport (tests/fakes/fake_virtio.h).
 *
 * The adversary controls the device configuration (capacity, size_max,
 * seg_max, blk_size, num_queues, offered features), each queue's maximum size
 * (each register must be read once),
 * and, for every request, what it writes into the data buffers, the status
 * byte (OK, IOERR, UNSUPP, anything else, or nothing), the used entry (the
 * right head, another one, out of range, replayed) and its length (exact, one
 * off, anything), the order of completions, and changes of the status byte
 * after the used entry was published; DRIVER_OK refused; resets that fail (the
 * negotiation's, the one at removal, every one from FEATURES_OK on). The input
 * also picks the driver's calls: submits of reads, writes and flushes with
 * valid and invalid arguments on any queue, kicks and polls, the bounce policy,
 * scrub mode and confidential mode.
 *
 * Checked: init succeeds exactly when the configuration is plausible; submit
 * returns the code the arguments call for (or "busy"); every chain the device
 * finds is header, data, status with the right directions and lengths, in
 * shared memory in confidential mode, and a write's data is the caller's;
 * every completion is a request in flight, completed once, whose status is
 * exactly what the status byte and used length the driver read call for; a
 * successful read delivers what the device wrote, a failed one leaves the
 * caller's buffer untouched (ASan: not one byte past it is touched, the rest
 * of its static storage is poisoned); counters agree with the completions; the
 * DMA layer's self-check passes every fourth step (on a sampled input,
 * FUZZ_DEEP_SAMPLE) and at the end; when the removal's reset (or that of a
 * failed init) fails, the quarantine contract: exactly the rings, indirect
 * tables, request slots and data of the requests in flight counted, once,
 * nothing unmapped or freed, nothing accepted afterwards; after the device lets
 * go, removal frees everything and nothing is mapped or shared.
 */
#include "tests/fuzz/fuzz_common.h"

#include <sanitizer/asan_interface.h>
#include <stdlib.h>
#include <string.h>

#include "drivers/virtio/virtio_blk.h"
#include "tests/fakes/fake_virtio.h"
#include "tests/fuzz/fuzz_blk.h"

#define VBF_MAX_QUEUES 2u
#define VBF_MAX_QSIZE 64u
#define VBF_MAX_REQS 256u
#define VBF_MAX_LEN (64u * 1024u)
#define VBF_MAX_OPS 400u
#define VBF_MAX_SEGS (VIRTIO_BLK_MAX_SEGS + 2)
/* Room of each request's buffer: the longest request and a partial sector. */
#define VBF_BUF_BYTES (VBF_MAX_LEN + 512u)
/* The shared slot of a request: header and status (virtio_blk.c). */
#define VBF_SLOT_BYTES 32u

/* Feature bits and configuration offsets (virtio 1.2, 5.2.3 and 5.2.4). */
#define VBF_F_SIZE_MAX 1
#define VBF_F_SEG_MAX 2
#define VBF_F_RO 5
#define VBF_F_BLK_SIZE 6
#define VBF_F_FLUSH 9
#define VBF_F_MQ 12
#define VBF_CFG_BYTES 64u

/**
 * struct vbf_chain - a request as the device found it.
 * @req: the model request (matched by order on the available ring).
 * @head: its head descriptor.
 * @nseg: buffers, header and status included.
 * @addr: their addresses.
 * @len: their lengths.
 * @write: whether each is device-writable.
 */
struct vbf_chain {
	int req;
	uint16_t head;
	unsigned int nseg;
	uint64_t addr[VBF_MAX_SEGS];
	uint32_t len[VBF_MAX_SEGS];
	bool write[VBF_MAX_SEGS];
};

/**
 * struct vbf_req - the driver-side model of one request.
 * @inflight: submitted and not yet completed.
 * @queue: its queue.
 * @op: read, write or flush.
 * @sector: first sector.
 * @buf: the caller's buffer (private memory, so it bounces): vbf_bufs[k],
 *	filled with fuzz_fill(k) and poisoned past @len, so ASan sees any
 *	access beyond the request.
 * @len: bytes.
 * @chain: the device's view of it.
 */
struct vbf_req {
	bool inflight;
	unsigned int queue;
	enum virtio_blk_op op;
	uint64_t sector;
	uint8_t *buf;
	uint32_t len;
	struct vbf_chain chain;
};

/**
 * struct vbf_queue - the device side of one queue (the rings are the fake
 *	device's, tests/fakes/fake_virtio.h).
 * @vq: the driver's queue (found once set up, for the read hook).
 * @size: size the driver chose.
 * @inflight: requests submitted on it and not yet completed.
 * @pending: requests the device took and has not answered.
 * @npending: their number.
 * @id_reads: used ids the queue read.
 * @last_id: the last used id it read.
 * @last_len: the last used length it read.
 */
struct vbf_queue {
	struct virtq *vq;
	unsigned int size;
	unsigned int inflight;
	int pending[VBF_MAX_REQS];
	unsigned int npending;
	unsigned long id_reads;
	uint32_t last_id, last_len;
};

/**
 * struct vbf - one run: the fake device, the driver and the model.
 * @dev: the device (tests/fakes/fake_virtio.h), reset for every input.
 * @in: the input.
 * @fd: the DMA layer.
 * @blk: the driver under test.
 * @max_size: each queue's maximum size.
 * @reg_reads: reads of each queue's size register, and of num_queues (last).
 * @q: the device side of each queue.
 * @reqs: request models; the cookie of request k is &reqs[k].
 * @expect: the counters the driver should show.
 */
struct vbf {
	struct fake_virtio dev;
	struct fuzz_in *in;
	struct fuzz_dma *fd;
	struct virtio_blk blk;
	uint16_t max_size[VBF_MAX_QUEUES];
	unsigned int reg_reads[VBF_MAX_QUEUES + 1];
	struct vbf_queue q[VBF_MAX_QUEUES];
	struct vbf_req reqs[VBF_MAX_REQS];
	struct virtio_blk_stats expect;
};

static struct vbf vbf;

/* The callers' buffers, one per request model. */
static uint8_t vbf_bufs[VBF_MAX_REQS][VBF_BUF_BYTES] __attribute__((aligned(64)));

static void vbf_features(struct fake_virtio *f, uint64_t features)
{
	FUZZ_CHECK((features & ~f->offered) == 0);
}

/* Registers are read once (G19): a second read could answer otherwise, and one
 * value would be checked while another is used. */
static uint16_t vbf_max_size(struct fake_virtio *f, uint16_t index)
{
	struct vbf *s = f->ctx;

	if (index >= VBF_MAX_QUEUES)
		return 0;
	FUZZ_CHECK(++s->reg_reads[index] == 1);
	return s->max_size[index];
}

static uint16_t vbf_num_queues(struct fake_virtio *f)
{
	struct vbf *s = f->ctx;

	FUZZ_CHECK(++s->reg_reads[VBF_MAX_QUEUES] == 1);
	return f->num_queues;
}

/* What the driver programs: an existing queue, a size it may use, shared rings. */
static int vbf_setup(struct fake_virtio *f, const struct fake_queue *fq)
{
	struct vbf *s = f->ctx;

	FUZZ_CHECK(fq->index < VBF_MAX_QUEUES);
	FUZZ_CHECK(fq->size && fq->size <= s->max_size[fq->index] && !(fq->size & (fq->size - 1)));
	FUZZ_CHECK(mock_port_is_shared(&s->fd->mp, fq->desc, VIRTQ_DESC_TABLE_SIZE(fq->size)));
	FUZZ_CHECK(mock_port_is_shared(&s->fd->mp, fq->avail, VIRTQ_AVAIL_SIZE(fq->size)));
	FUZZ_CHECK(mock_port_is_shared(&s->fd->mp, fq->used, VIRTQ_USED_SIZE(fq->size)));
	s->q[fq->index].size = fq->size;
	return 0;
}

static void vbf_notify(struct fake_virtio *f, uint16_t index)
{
	FUZZ_CHECK(index < ((struct vbf *)f->ctx)->blk.nqueues);
}

static void vbf_hook(void *ctx, enum virtq_shared_read what, volatile void *addr)
{
	struct vbf_queue *q = ctx;

	if (what == VIRTQ_READ_USED_ID) {
		q->id_reads++;
		q->last_id = *(volatile uint32_t *)addr;
	} else if (what == VIRTQ_READ_USED_LEN) {
		q->last_len = *(volatile uint32_t *)addr;
	}
}

/*
 * The driver's struct virtq of queue @qi. The queue array's element type is
 * private to virtio_blk.c, so find the queue the way a debugger would: the
 * struct virtq in that array whose used ring is the one the transport was
 * given. Candidates are tried at increasing offsets, so no read goes past the
 * queue being looked for.
 */
static struct virtq *vbf_find_vq(struct vbf *s, unsigned int qi)
{
	unsigned char *base = (unsigned char *)s->blk.queues;

	for (size_t off = 0; off < (qi + 1) * (sizeof(struct virtq) + 1024); off += 8) {
		struct virtq *vq = (struct virtq *)(void *)(base + off);

		if (vq->dl == &s->fd->dl && vq->used == fake_virtio_queue(&s->dev, qi)->used &&
		    vq->num == s->q[qi].size)
			return vq;
	}
	FUZZ_CHECK(!"queue not found in the driver's queue array");
	return NULL;
}

/* The device takes the one new chain of queue @qi and checks what it finds. */
static void vbf_device_pop(struct vbf *s, unsigned int qi, int req)
{
	struct vbf_queue *q = &s->q[qi];
	struct vbf_req *r = &s->reqs[req];
	struct vbf_chain *c = &r->chain;
	bool conf = s->dev.vdev.confidential;
	struct fake_chain fc;
	uint32_t data = 0;

	/* One successful submit publishes exactly one well-formed chain. */
	FUZZ_CHECK(fake_virtio_avail_pending(&s->dev, (uint16_t)qi) == 1);
	FUZZ_CHECK(fake_virtio_pop(&s->dev, (uint16_t)qi, &fc) == 1);
	FUZZ_CHECK(fc.n <= VBF_MAX_SEGS);
	if (fc.indirect)
		FUZZ_CHECK(fc.table_len / 16 <= VIRTQ_INDIRECT_MAX &&
			   (!conf || mock_port_is_shared(&s->fd->mp, (void *)(uintptr_t)fc.table,
							 fc.table_len)));
	c->req = req;
	c->head = fc.head;
	c->nseg = fc.n;
	for (unsigned int k = 0; k < fc.n; k++) {
		FUZZ_CHECK(fc.len[k]);
		FUZZ_CHECK(!conf || mock_port_is_shared(&s->fd->mp, (void *)(uintptr_t)fc.addr[k],
							fc.len[k]));
		c->addr[k] = fc.addr[k];
		c->len[k] = fc.len[k];
		c->write[k] = fc.write[k];
	}
	/* Header (readable, 16 bytes), data, status (writable, 1 byte). */
	FUZZ_CHECK(c->nseg >= 2 && !c->write[0] && c->len[0] == 16);
	FUZZ_CHECK(c->write[c->nseg - 1] && c->len[c->nseg - 1] == 1);
	{
		const uint8_t *hdr = (const uint8_t *)(uintptr_t)c->addr[0];
		uint32_t type;
		uint64_t sector;

		memcpy(&type, hdr, 4);
		memcpy(&sector, hdr + 8, 8);
		FUZZ_CHECK(type == (r->op == VIRTIO_BLK_OP_READ	 ? 0u :
				    r->op == VIRTIO_BLK_OP_WRITE ? 1u :
								   4u));
		FUZZ_CHECK(sector == (r->op == VIRTIO_BLK_OP_FLUSH ? 0 : r->sector));
		FUZZ_CHECK(*(const uint8_t *)(uintptr_t)c->addr[c->nseg - 1] == 0xff);
	}
	for (unsigned int k = 1; k + 1 < c->nseg; k++) {
		FUZZ_CHECK(c->write[k] == (r->op == VIRTIO_BLK_OP_READ));
		/* What the device reads of a write is the caller's data. */
		if (r->op == VIRTIO_BLK_OP_WRITE)
			FUZZ_CHECK(
				!memcmp((void *)(uintptr_t)c->addr[k], r->buf + data, c->len[k]));
		data += c->len[k];
	}
	FUZZ_CHECK(data == r->len);
	q->pending[q->npending++] = req;
}

static uint32_t vbf_writable(const struct vbf_req *r)
{
	return r->op == VIRTIO_BLK_OP_READ ? r->len + 1 : 1;
}

/* Segments the driver will cut @len into, as virtio_blk_submit() does. */
static uint64_t vbf_seg_limit(struct vbf *s)
{
	uint64_t limit = sluice_dma_max_mapping_size(&s->fd->dl, &s->blk.tag);

	if (s->blk.size_max && s->blk.size_max < limit)
		limit = s->blk.size_max;
	return limit & ~(uint64_t)511;
}

static void vbf_submit(struct vbf *s)
{
	struct fuzz_in *in = s->in;
	uint8_t how = fuzz_u8(in);
	unsigned int qi = how & 0x80 ? fuzz_below(in, VBF_MAX_QUEUES + 1) : 0;
	enum virtio_blk_op op = (enum virtio_blk_op)fuzz_below(in, 3);
	uint32_t sectors = fuzz_below(in, VBF_MAX_LEN / 512 + 1);
	uint32_t len = op == VIRTIO_BLK_OP_FLUSH && !(how & 1) ? 0 : sectors * 512;
	uint64_t sector = how & 2 ? fuzz_u64(in) : fuzz_u8(in);
	int k, expect = 1, rc;
	bool too_long = false;
	struct vbf_req *r;

	if (how & 4)
		len += fuzz_below(in, 512); /* not a multiple of a sector */
	for (k = 0; k < (int)VBF_MAX_REQS && s->reqs[k].inflight; k++)
		;
	FUZZ_CHECK(k < (int)VBF_MAX_REQS);
	r = &s->reqs[k];
	memset(r, 0, sizeof(*r));
	r->queue = qi;
	r->op = op;
	r->sector = sector;
	r->len = len;
	r->buf = vbf_bufs[k];
	/* Exactly @len bytes are the caller's: ASan flags the first one past them. */
	ASAN_UNPOISON_MEMORY_REGION(r->buf, VBF_BUF_BYTES);
	ASAN_POISON_MEMORY_REGION(r->buf + len, VBF_BUF_BYTES - len);
	fuzz_fill(r->buf, len, (uint8_t)k);

	/* The codes virtio_blk_submit() documents, in its order of checks. */
	if (qi >= s->blk.nqueues) {
		expect = -22;
	} else if (op == VIRTIO_BLK_OP_FLUSH) {
		if (!s->blk.has_flush)
			expect = -95;
		else if (len)
			expect = -22;
	} else {
		uint64_t seg = vbf_seg_limit(s);

		if (!len || len % 512)
			expect = -22;
		else if (sector > s->blk.capacity || len / 512 > s->blk.capacity - sector)
			expect = -34;
		else if (op == VIRTIO_BLK_OP_WRITE && s->blk.read_only)
			expect = -30;
		else if (!seg || (len + seg - 1) / seg > s->blk.seg_max)
			expect = -22;
	}
	if (expect == 1) {
		uint64_t seg = vbf_seg_limit(s);
		unsigned int n =
			(unsigned int)(op == VIRTIO_BLK_OP_FLUSH ? 2 : (len + seg - 1) / seg + 2);

		/* A chain of more buffers than the queue has entries is refused by
		 * virtq_add(), indirect or not (virtio 2.7.5.3.1 read strictly). */
		too_long = n > s->q[qi].size;
	}
	rc = virtio_blk_submit(&s->blk, qi, op, sector, r->buf, len, r);
	/* Busy (-16: no request slot or no bounce slots) comes before the ring's
	 * verdict: broken (-5, the device broke it earlier), too long (-22). */
	if (expect == 1 && virtq_is_broken(s->q[qi].vq))
		FUZZ_CHECK(rc == -5 || rc == -16);
	else if (expect == 1 && too_long)
		FUZZ_CHECK(rc == -22 || rc == -16);
	else if (expect == 1)
		FUZZ_CHECK(rc == 0 || rc == -16);
	else
		FUZZ_CHECK(rc == expect);
	/* The caller's buffer is never written on submit. */
	FUZZ_CHECK(fuzz_fill_matches(r->buf, len, (uint8_t)k));
	if (rc)
		return;
	r->inflight = true;
	s->q[qi].inflight++;
	s->expect.submitted++;
	vbf_device_pop(s, qi, k);
}

/* The device answers one request it took: data, status byte, used entry. */
static void vbf_serve(struct vbf *s, unsigned int qi)
{
	struct fuzz_in *in = s->in;
	struct vbf_queue *q = &s->q[qi];
	unsigned int pick;
	uint8_t how = fuzz_u8(in), seed = fuzz_u8(in);
	struct vbf_req *r;
	struct vbf_chain *c;
	uint8_t *status;
	uint32_t id, len;

	if (!q->npending)
		return;
	pick = fuzz_below(in, q->npending);
	r = &s->reqs[q->pending[pick]];
	c = &r->chain;
	status = (uint8_t *)(uintptr_t)c->addr[c->nseg - 1];
	/* Data: all of it, a prefix, or none. */
	if (r->op == VIRTIO_BLK_OP_READ && (how & 3) != 3) {
		for (unsigned int k = 1; k + 1 < c->nseg; k++) {
			uint8_t *p = (uint8_t *)(uintptr_t)c->addr[k];
			uint32_t n = (how & 3) == 2 ? c->len[k] / 2 : c->len[k];

			fuzz_fill(p, n, (uint8_t)(seed + k));
		}
	}
	switch ((how >> 2) & 7) {
	case 0:
	case 1:
	case 2:
		*status = 0; /* VIRTIO_BLK_S_OK */
		break;
	case 3:
		*status = 1; /* IOERR */
		break;
	case 4:
		*status = 2; /* UNSUPP */
		break;
	case 5:
		*status = fuzz_u8(in);
		break;
	default:
		break; /* never written: still 0xff */
	}
	switch (how >> 5) {
	case 0:
	case 1:
	case 2:
	case 3:
		id = c->head;
		len = vbf_writable(r);
		break;
	case 4:
		id = c->head;
		len = fuzz_u8(in) & 1 ? vbf_writable(r) + 1 : vbf_writable(r) - 1;
		break;
	case 5:
		id = c->head;
		len = fuzz_u32(in);
		break;
	case 6:
		id = fuzz_u8(in) & 1 ? fuzz_u32(in) : fuzz_below(in, q->size);
		len = fuzz_u32(in);
		break;
	default:
		id = c->head;
		len = vbf_writable(r);
		fake_virtio_push(&s->dev, (uint16_t)qi, id, len); /* published twice: a replay */
		break;
	}
	fake_virtio_push(&s->dev, (uint16_t)qi, id, len);
	if (!(fuzz_u8(in) & 0x10))
		q->pending[pick] = q->pending[--q->npending];
}

static void vbf_poll(struct vbf *s, unsigned int qi)
{
	struct vbf_queue *q = &s->q[qi];
	struct virtio_blk_completion c;
	unsigned long reads = q->id_reads;
	struct vbf_req *r;
	uint8_t dev_status;
	int expect, n;

	memset(&c, 0x5a, sizeof(c));
	n = virtio_blk_poll(&s->blk, qi, &c, 1);
	/* Nothing to take from a queue the device broke is an error, not "no
	 * completion yet": the caller must stop waiting on it. */
	FUZZ_CHECK(n == 0 || n == 1 || n == -5);
	FUZZ_CHECK((n == -5) == (virtq_is_broken(s->q[qi].vq) && n != 1));
	if (n <= 0)
		return;
	r = c.cookie;
	FUZZ_CHECK((uintptr_t)r >= (uintptr_t)s->reqs &&
		   (uintptr_t)r < (uintptr_t)(s->reqs + VBF_MAX_REQS) &&
		   ((uintptr_t)r - (uintptr_t)s->reqs) % sizeof(*r) == 0);
	FUZZ_CHECK(r->inflight && r->queue == qi);
	/* The entry the queue read for it names its head. */
	FUZZ_CHECK(q->id_reads > reads && q->last_id == r->chain.head);
	dev_status = *(volatile uint8_t *)(uintptr_t)r->chain.addr[r->chain.nseg - 1];
	if (q->last_len != vbf_writable(r)) {
		expect = -34;
		s->expect.bad_len++;
	} else if (dev_status == 0) {
		expect = 0;
	} else if (dev_status == 1) {
		expect = -5;
	} else if (dev_status == 2) {
		expect = -95;
	} else {
		expect = -34;
		s->expect.bad_status++;
	}
	FUZZ_CHECK(c.status == expect);
	FUZZ_CHECK(c.bytes == (expect ? 0 : r->len));
	if (r->op == VIRTIO_BLK_OP_READ && !expect) {
		uint32_t off = 0;

		/* What the device wrote, byte for byte (the slots are freed but
		 * untouched since: nothing was mapped in between). */
		for (unsigned int k = 1; k + 1 < r->chain.nseg; k++) {
			FUZZ_CHECK(!memcmp(r->buf + off, (void *)(uintptr_t)r->chain.addr[k],
					   r->chain.len[k]));
			off += r->chain.len[k];
		}
		s->expect.bytes_read += r->len;
	} else {
		/* A failed read and any write leave the caller's buffer alone. */
		FUZZ_CHECK(fuzz_fill_matches(r->buf, r->len, (uint8_t)(r - s->reqs)));
		if (!expect && r->op == VIRTIO_BLK_OP_WRITE)
			s->expect.bytes_written += r->len;
	}
	if (expect)
		s->expect.errors++;
	s->expect.completed++;
	r->inflight = false;
	q->inflight--;
	/* Forget it on the device side too (it may have kept it for a replay). */
	for (unsigned int i = 0; i < q->npending; i++)
		if (&s->reqs[q->pending[i]] == r)
			q->pending[i--] = q->pending[--q->npending];
}

/* Counters after every step; the DMA layer's self-check, which walks every
 * slot, when @deep (a corruption stays, so it is still caught). */
static void vbf_check(struct vbf *s, bool deep)
{
	struct virtio_blk_stats now;
	const struct virtio_blk_stats *st = &now;

	virtio_blk_stats_get(&s->blk, &now);
	if (deep)
		FUZZ_CHECK(sluice_dma_layer_check(&s->fd->dl) == 0);
	FUZZ_CHECK(st->submitted == s->expect.submitted && st->completed == s->expect.completed);
	FUZZ_CHECK(st->errors == s->expect.errors && st->bad_len == s->expect.bad_len &&
		   st->bad_status == s->expect.bad_status);
	FUZZ_CHECK(st->bytes_read == s->expect.bytes_read &&
		   st->bytes_written == s->expect.bytes_written);
	for (unsigned int qi = 0; qi < s->blk.nqueues; qi++)
		FUZZ_CHECK(virtio_blk_inflight(&s->blk, qi) == s->q[qi].inflight);
}

/* Configuration and features from the input; returns whether init must work. */
static bool vbf_configure(struct vbf *s, uint8_t mode)
{
	struct fuzz_in *in = s->in;
	struct fake_virtio *f = &s->dev;
	uint16_t feat = fuzz_u16(in);
	static const unsigned int bits[] = { VBF_F_SIZE_MAX,
					     VBF_F_SEG_MAX,
					     VBF_F_RO,
					     VBF_F_BLK_SIZE,
					     VBF_F_FLUSH,
					     VBF_F_MQ,
					     VIRTIO_F_RING_INDIRECT_DESC,
					     VIRTIO_F_RING_EVENT_IDX };
	uint64_t capacity;
	uint32_t size_max;

	f->offered = VIRTIO_FEATURE(VIRTIO_F_VERSION_1) | VIRTIO_FEATURE(VIRTIO_F_ACCESS_PLATFORM);
	for (unsigned int i = 0; i < sizeof(bits) / sizeof(bits[0]); i++)
		if (feat & (1u << i))
			f->offered |= VIRTIO_FEATURE(bits[i]);
	fuzz_bytes(in, f->cfg, VBF_CFG_BYTES);
	/* Mostly a plausible capacity and size_max; sometimes anything. */
	if (!(feat & 0x100)) {
		capacity = fuzz_u8(in) & 1 ? (uint64_t)1 << 48 : (uint64_t)4096 + fuzz_u16(in);
		memcpy(f->cfg, &capacity, 8);
		if (!(feat & 0x200)) {
			size_max = 512u << fuzz_below(in, 8);
			memcpy(f->cfg + 8, &size_max, 4);
		}
	}
	f->num_queues = (uint16_t)(1 + fuzz_below(in, VBF_MAX_QUEUES));
	for (unsigned int i = 0; i < VBF_MAX_QUEUES; i++)
		s->max_size[i] = (uint16_t)(1 + fuzz_below(in, VBF_MAX_QSIZE));
	/* Mostly a device that behaves; else one that refuses DRIVER_OK (init
	 * fails with the queues set up), or whose reset fails: the negotiation's,
	 * the next one (at removal), or every one from FEATURES_OK on. */
	switch (mode >> 5) {
	case 4:
		f->refuse_driver_ok = true;
		break;
	case 5:
		f->reset_script = 1;
		break;
	case 6:
		f->reset_script = 2;
		break;
	case 7:
		f->reset_fails_after_init = true;
		break;
	}
	memcpy(&capacity, f->cfg, 8);
	memcpy(&size_max, f->cfg + 8, 4);
	return capacity <= ((uint64_t)1 << 48) &&
	       !((f->offered & VIRTIO_FEATURE(VBF_F_SIZE_MAX)) && size_max < 512) &&
	       !(f->reset_script & 1) && !f->refuse_driver_ok;
}

/*
 * After a removal, or an init that failed after the negotiation, whose reset
 * may have failed. A device that did not reset keeps everything it was given:
 * the driver must have quarantined exactly that - the rings and request slots
 * of every queue the device was given, the data of every request in flight -
 * unmapped and freed nothing, counted it once, and must accept nothing more.
 * Then the device lets go (it resets at last) and a second removal releases
 * everything; fuzz_dma_end() then finds the layer empty.
 */
static void vbf_after_remove(struct vbf *s, const struct fuzz_quarantine *mark, int rc,
			     unsigned int failed_before)
{
	uint64_t bytes = 0, mappings = 0;

	if (!s->blk.quarantined) {
		FUZZ_CHECK(rc == 0 && s->dev.failed_resets == failed_before);
		fuzz_quarantine_none(mark);
		FUZZ_CHECK(s->dev.status == 0);
		return;
	}
	FUZZ_CHECK(rc == -5 && s->dev.failed_resets > failed_before);
	for (unsigned int i = 0; i < s->dev.nq; i++) {
		unsigned int n = s->dev.q[i].size;

		bytes += VIRTQ_DESC_TABLE_SIZE(n) + VIRTQ_AVAIL_SIZE(n) + VIRTQ_USED_SIZE(n) +
			 (uint64_t)n * VBF_SLOT_BYTES;
		/* Indirect tables are the device's to read as much as the ring. */
		if (s->dev.accepted & VIRTIO_FEATURE(VIRTIO_F_RING_INDIRECT_DESC))
			bytes += (uint64_t)n * VIRTQ_INDIRECT_MAX * sizeof(struct virtq_desc);
	}
	for (unsigned int k = 0; k < VBF_MAX_REQS; k++) {
		if (!s->reqs[k].inflight)
			continue;
		bytes += s->reqs[k].len;
		mappings += s->reqs[k].chain.nseg - 2;
	}
	FUZZ_CHECK(s->blk.quarantined_bytes == bytes && s->blk.quarantined_mappings == mappings);
	fuzz_quarantine_check(mark, s->fd, bytes, mappings);
	/* Stopped for good: nothing is accepted, a second removal changes nothing. */
	fblk_check_stopped(&s->blk, vbf_bufs[0], s);
	fuzz_quarantine_check(mark, s->fd, bytes, mappings);
	fblk_release(&s->blk, &s->dev);
}

/* The device from the input, virtio_blk_init() on it, checked; false when it
 * failed (as it was to: the run is then over, checked and released). */
static bool vbf_init(struct vbf *s, uint8_t mode)
{
	struct fuzz_quarantine mark;
	char why[128];
	bool plausible;
	int rc;

	s->fd = fuzz_virtio_begin(&s->dev, s->in, VIRTIO_ID_BLOCK, 1, "fuzz-blk", s, mode,
				  FUZZ_DMA_ONE_POOL);
	s->dev.on_features = vbf_features;
	s->dev.read_max_size = vbf_max_size;
	s->dev.read_num_queues = vbf_num_queues;
	s->dev.on_setup = vbf_setup;
	s->dev.on_notify = vbf_notify;
	plausible = vbf_configure(s, mode);
	fuzz_quarantine_mark(&mark, s->fd);
	rc = virtio_blk_init(&s->blk, &s->dev.vdev, &s->fd->dl, 1 + ((mode >> 4) & 1), 0, why,
			     sizeof(why));
	FUZZ_CHECK(!rc == plausible);
	if (!rc)
		return true;
	FUZZ_CHECK(memchr(why, '\0', sizeof(why)) != NULL);
	if (s->dev.reset_script & 1) {
		/* The negotiation's reset failed: nothing was given, nothing kept. */
		FUZZ_CHECK(rc == -5 && !s->blk.quarantined && s->dev.failed_resets == 1);
		fuzz_quarantine_none(&mark);
	} else {
		vbf_after_remove(s, &mark, s->blk.quarantined ? -5 : 0, 0);
	}
	fuzz_dma_end(s->fd);
	return false;
}

/* A status byte of a request in flight on @qi changed after the fact, or a
 * stray used entry. */
static void vbf_lie(struct vbf *s, unsigned int qi)
{
	struct fuzz_in *in = s->in;

	if (fuzz_u8(in) & 1) {
		for (unsigned int k = 0; k < VBF_MAX_REQS; k++)
			if (s->reqs[k].inflight && s->reqs[k].queue == qi) {
				struct vbf_chain *c = &s->reqs[k].chain;

				*(uint8_t *)(uintptr_t)c->addr[c->nseg - 1] = fuzz_u8(in);
				break;
			}
	} else {
		uint32_t id = fuzz_u32(in);

		fake_virtio_push(&s->dev, (uint16_t)qi, id, fuzz_u32(in));
	}
}

/* One step, on the queue of bits 4 to 7. */
static void vbf_op(struct vbf *s, uint8_t op)
{
	unsigned int qi = (op >> 4) % s->blk.nqueues;

	switch (op & 7) {
	case 0:
	case 1:
		vbf_submit(s);
		break;
	case 2:
	case 3:
		vbf_serve(s, qi);
		break;
	case 4:
	case 5:
		vbf_poll(s, qi);
		break;
	case 6:
		virtio_blk_kick(&s->blk, qi);
		break;
	default:
		vbf_lie(s, qi);
		break;
	}
}

int fuzz_virtio_blk_completion_one(const uint8_t *data, size_t size)
{
	struct fuzz_in in = fuzz_in_start(data, size);
	struct vbf *s = &vbf;
	struct fuzz_quarantine mark;
	unsigned int failed;
	int rc;

	memset(s, 0, sizeof(*s));
	s->in = &in;
	if (!vbf_init(s, fuzz_u8(&in)))
		return 0;
	FUZZ_CHECK(s->blk.nqueues >= 1 && s->blk.nqueues <= VBF_MAX_QUEUES);
	FUZZ_CHECK(s->blk.capacity <= ((uint64_t)1 << 48) && s->blk.seg_max >= 1 &&
		   s->blk.seg_max <= VIRTIO_BLK_MAX_SEGS);
	for (unsigned int qi = 0; qi < s->blk.nqueues; qi++) {
		s->q[qi].vq = vbf_find_vq(s, qi);
		s->q[qi].vq->read_hook = vbf_hook;
		s->q[qi].vq->read_hook_ctx = &s->q[qi];
	}

	for (unsigned int ops = 0; fuzz_more(&in) && ops < VBF_MAX_OPS; ops++) {
		vbf_op(s, fuzz_u8(&in));
		vbf_check(s, s->fd->deep && ops % 4 == 3);
	}
	vbf_check(s, s->fd->deep);

	for (unsigned int qi = 0; qi < s->blk.nqueues; qi++)
		s->q[qi].vq->read_hook = NULL;
	fuzz_quarantine_mark(&mark, s->fd);
	failed = s->dev.failed_resets;
	rc = virtio_blk_remove(&s->blk);
	vbf_after_remove(s, &mark, rc, failed);
	fuzz_dma_end(s->fd);
	return 0;
}
