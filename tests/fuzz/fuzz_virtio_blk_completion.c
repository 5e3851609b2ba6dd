/* SPDX-License-Identifier: MIT */
/*
 * fuzz_virtio_blk_completion.c - the virtio-blk driver (drivers/virtio/
 * virtio_blk.c) over its virtqueues and the DMA layer, against a malicious
 * block device behind a simulated transport.
 *
 * The adversary controls the device configuration (capacity, size_max,
 * seg_max, blk_size, num_queues, offered features), each queue's maximum size,
 * and, for every request, what it writes into the data buffers, the status
 * byte (OK, IOERR, UNSUPP, anything else, or nothing), the used entry (the
 * right head, another one, out of range, replayed) and its length (exact, one
 * off, anything), the order of completions, and changes of the status byte
 * after the used entry was published. The input also picks the driver's calls:
 * submits of reads, writes and flushes with valid and invalid arguments on any
 * queue, kicks and polls, the bounce policy, scrub mode and confidential mode.
 *
 * Checked: init succeeds exactly when the configuration is plausible; submit
 * returns the code the arguments call for (or "busy"); every chain the device
 * finds is header, data, status with the right directions and lengths, in
 * shared memory in confidential mode, and a write's data is the caller's;
 * every completion is a request in flight, completed once, whose status is
 * exactly what the status byte and used length the driver read call for; a
 * successful read delivers what the device wrote, a failed one leaves the
 * caller's buffer untouched; counters agree with the completions; the DMA
 * layer's self-check passes after every step, and after remove nothing is
 * mapped or shared.
 */
#include "tests/fuzz/fuzz_common.h"

#include <stdlib.h>
#include <string.h>

#include "drivers/virtio/virtio_blk.h"

#define VBF_MAX_QUEUES 2u
#define VBF_MAX_QSIZE 64u
#define VBF_MAX_REQS 256u
#define VBF_MAX_LEN (64u * 1024u)
#define VBF_MAX_OPS 400u
#define VBF_MAX_SEGS (VIRTIO_BLK_MAX_SEGS + 2)

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
 * @buf: the caller's buffer (private heap memory, so it bounces).
 * @before: the buffer's contents at submission.
 * @len: bytes.
 * @chain: the device's view of it.
 */
struct vbf_req {
	bool inflight;
	unsigned int queue;
	enum virtio_blk_op op;
	uint64_t sector;
	uint8_t *buf;
	uint8_t *before;
	uint32_t len;
	struct vbf_chain chain;
};

/**
 * struct vbf_queue - the device side of one queue.
 * @vq: the driver's queue (found once set up, for the read hook).
 * @size: size the driver chose.
 * @desc: descriptor table (device address = CPU address in the mock).
 * @avail: available ring.
 * @used: used ring.
 * @last_avail: next available entry to take.
 * @used_idx: the device's used index.
 * @fifo: requests submitted on this queue and not yet seen by the device.
 * @nfifo: their number.
 * @pending: requests the device took and has not answered.
 * @npending: their number.
 * @id_reads: used ids the queue read.
 * @last_id: the last used id it read.
 * @last_len: the last used length it read.
 */
struct vbf_queue {
	struct virtq *vq;
	unsigned int size;
	struct virtq_desc *desc;
	struct virtq_avail *avail;
	struct virtq_used *used;
	uint16_t last_avail;
	uint16_t used_idx;
	int pending[VBF_MAX_REQS];
	unsigned int npending;
	unsigned long id_reads;
	uint32_t last_id, last_len;
};

/**
 * struct vbf - one run: the fake device, the driver and the model.
 * @vdev: the transport-independent device (first: the ops cast back).
 * @in: the input.
 * @fd: the DMA layer.
 * @blk: the driver under test.
 * @status: device status byte.
 * @offered: features offered.
 * @accepted: features the driver set.
 * @nqueues: queues the transport reports.
 * @max_size: each queue's maximum size.
 * @cfg: device configuration.
 * @q: the device side of each queue.
 * @reqs: request models; the cookie of request k is &reqs[k].
 * @expect: the counters the driver should show.
 */
struct vbf {
	struct virtio_device vdev;
	struct fuzz_in *in;
	struct fuzz_dma fd;
	struct virtio_blk blk;
	uint8_t status;
	uint64_t offered, accepted;
	uint16_t nqueues;
	uint16_t max_size[VBF_MAX_QUEUES];
	uint8_t cfg[VBF_CFG_BYTES];
	struct vbf_queue q[VBF_MAX_QUEUES];
	struct vbf_req reqs[VBF_MAX_REQS];
	struct virtio_blk_stats expect;
};

static struct vbf vbf;

static struct vbf *vbf_of(struct virtio_device *v)
{
	return (struct vbf *)v;
}

static int vbf_reset(struct virtio_device *v)
{
	vbf_of(v)->status = 0;
	return 0;
}

static uint8_t vbf_get_status(struct virtio_device *v)
{
	return vbf_of(v)->status;
}

static void vbf_set_status(struct virtio_device *v, uint8_t s)
{
	vbf_of(v)->status = s;
}

static uint64_t vbf_get_features(struct virtio_device *v)
{
	return vbf_of(v)->offered;
}

static void vbf_set_features(struct virtio_device *v, uint64_t f)
{
	FUZZ_CHECK((f & ~vbf_of(v)->offered) == 0);
	vbf_of(v)->accepted = f;
}

static uint16_t vbf_num_queues(struct virtio_device *v)
{
	return vbf_of(v)->nqueues;
}

static uint16_t vbf_queue_max_size(struct virtio_device *v, uint16_t index)
{
	return index < VBF_MAX_QUEUES ? vbf_of(v)->max_size[index] : 0;
}

static int vbf_queue_setup(struct virtio_device *v, uint16_t index, uint16_t size, uint64_t desc,
			   uint64_t driver, uint64_t device)
{
	struct vbf *s = vbf_of(v);
	struct vbf_queue *q;

	FUZZ_CHECK(index < VBF_MAX_QUEUES && index < s->nqueues);
	FUZZ_CHECK(size && size <= s->max_size[index] && !(size & (size - 1)));
	FUZZ_CHECK(mock_port_is_shared(&s->fd.mp, (void *)(uintptr_t)desc, 16u * size));
	FUZZ_CHECK(mock_port_is_shared(&s->fd.mp, (void *)(uintptr_t)driver, 6u + 2u * size));
	FUZZ_CHECK(mock_port_is_shared(&s->fd.mp, (void *)(uintptr_t)device, 6u + 8u * size));
	q = &s->q[index];
	q->size = size;
	q->desc = (struct virtq_desc *)(uintptr_t)desc;
	q->avail = (struct virtq_avail *)(uintptr_t)driver;
	q->used = (struct virtq_used *)(uintptr_t)device;
	return 0;
}

static void vbf_queue_notify(struct virtio_device *v, uint16_t index)
{
	FUZZ_CHECK(index < vbf_of(v)->blk.nqueues);
}

static int vbf_config_read(struct virtio_device *v, uint32_t offset, void *buf, uint32_t len)
{
	if ((uint64_t)offset + len > VBF_CFG_BYTES)
		return -34;
	memcpy(buf, vbf_of(v)->cfg + offset, len);
	return 0;
}

static const struct virtio_transport_ops vbf_ops = {
	.reset = vbf_reset,
	.get_status = vbf_get_status,
	.set_status = vbf_set_status,
	.get_features = vbf_get_features,
	.set_features = vbf_set_features,
	.num_queues = vbf_num_queues,
	.queue_max_size = vbf_queue_max_size,
	.queue_setup = vbf_queue_setup,
	.queue_notify = vbf_queue_notify,
	.config_read = vbf_config_read,
};

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

		if (vq->dl == &s->fd.dl && vq->used == s->q[qi].used && vq->num == s->q[qi].size)
			return vq;
	}
	FUZZ_CHECK(!"queue not found in the driver's queue array");
	return NULL;
}

/* The device takes every new chain of queue @qi and checks what it finds. */
static void vbf_device_pop(struct vbf *s, unsigned int qi, int req)
{
	struct vbf_queue *q = &s->q[qi];
	struct vbf_req *r = &s->reqs[req];
	struct vbf_chain *c = &r->chain;
	bool conf = s->vdev.confidential;
	uint16_t avail = __atomic_load_n(&q->avail->idx, __ATOMIC_ACQUIRE);
	const struct virtq_desc *d, *table = q->desc;
	unsigned int limit = q->size, i;
	uint32_t data = 0;

	/* One successful submit publishes exactly one chain. */
	FUZZ_CHECK((uint16_t)(avail - q->last_avail) == 1);
	memset(c, 0, sizeof(*c));
	c->req = req;
	c->head = q->avail->ring[q->last_avail % q->size];
	q->last_avail++;
	FUZZ_CHECK(c->head < q->size);
	d = &q->desc[c->head];
	i = c->head;
	if (d->flags & VIRTQ_DESC_F_INDIRECT) {
		FUZZ_CHECK(d->len % 16 == 0 && d->len / 16 <= VIRTQ_INDIRECT_MAX && d->len);
		FUZZ_CHECK(!conf || mock_port_is_shared(&s->fd.mp, (void *)(uintptr_t)d->addr,
							 d->len));
		table = (const struct virtq_desc *)(uintptr_t)d->addr;
		limit = d->len / 16;
		i = 0;
	}
	for (;;) {
		FUZZ_CHECK(i < limit && c->nseg < VBF_MAX_SEGS);
		d = &table[i];
		FUZZ_CHECK(!(d->flags & VIRTQ_DESC_F_INDIRECT) && d->len);
		FUZZ_CHECK(!conf || mock_port_is_shared(&s->fd.mp, (void *)(uintptr_t)d->addr,
							 d->len));
		c->addr[c->nseg] = d->addr;
		c->len[c->nseg] = d->len;
		c->write[c->nseg] = d->flags & VIRTQ_DESC_F_WRITE;
		c->nseg++;
		if (!(d->flags & VIRTQ_DESC_F_NEXT))
			break;
		i = d->next;
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
		FUZZ_CHECK(type == (r->op == VIRTIO_BLK_OP_READ ? 0u :
				    r->op == VIRTIO_BLK_OP_WRITE ? 1u : 4u));
		FUZZ_CHECK(sector == (r->op == VIRTIO_BLK_OP_FLUSH ? 0 : r->sector));
		FUZZ_CHECK(*(const uint8_t *)(uintptr_t)c->addr[c->nseg - 1] == 0xff);
	}
	for (unsigned int k = 1; k + 1 < c->nseg; k++) {
		FUZZ_CHECK(c->write[k] == (r->op == VIRTIO_BLK_OP_READ));
		/* What the device reads of a write is the caller's data. */
		if (r->op == VIRTIO_BLK_OP_WRITE)
			FUZZ_CHECK(!memcmp((void *)(uintptr_t)c->addr[k], r->buf + data, c->len[k]));
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
	uint64_t limit = dma_max_mapping_size(&s->fd.dl, &s->blk.tag);

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
	free(r->buf);
	free(r->before);
	memset(r, 0, sizeof(*r));
	r->queue = qi;
	r->op = op;
	r->sector = sector;
	r->len = len;
	r->buf = malloc(len ? len : 1);
	r->before = malloc(len ? len : 1);
	FUZZ_CHECK(r->buf && r->before);
	for (uint32_t b = 0; b < len; b++)
		r->buf[b] = (uint8_t)(b * 7 + k);
	memcpy(r->before, r->buf, len);

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
		unsigned int n = (unsigned int)(op == VIRTIO_BLK_OP_FLUSH ? 2 :
						(len + seg - 1) / seg + 2);

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
	FUZZ_CHECK(!memcmp(r->buf, r->before, len));
	if (rc)
		return;
	r->inflight = true;
	s->expect.submitted++;
	vbf_device_pop(s, qi, k);
}

/* Publish a used entry on queue @qi. */
static void vbf_push(struct vbf_queue *q, uint32_t id, uint32_t len)
{
	struct virtq_used_elem *e = &q->used->ring[q->used_idx % q->size];

	e->id = id;
	e->len = len;
	q->used_idx++;
	__atomic_store_n(&q->used->idx, q->used_idx, __ATOMIC_RELEASE);
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

			for (uint32_t b = 0; b < n; b++)
				p[b] = (uint8_t)(seed + b * 13 + k);
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
		vbf_push(q, id, len); /* published twice: a replay */
		break;
	}
	vbf_push(q, id, len);
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
		FUZZ_CHECK(!memcmp(r->buf, r->before, r->len));
		if (!expect && r->op == VIRTIO_BLK_OP_WRITE)
			s->expect.bytes_written += r->len;
	}
	if (expect)
		s->expect.errors++;
	s->expect.completed++;
	r->inflight = false;
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
	unsigned int inflight[VBF_MAX_QUEUES] = { 0 };

	virtio_blk_get_stats(&s->blk, &now);
	if (deep)
		FUZZ_CHECK(dma_layer_check(&s->fd.dl) == 0);
	FUZZ_CHECK(st->submitted == s->expect.submitted && st->completed == s->expect.completed);
	FUZZ_CHECK(st->errors == s->expect.errors && st->bad_len == s->expect.bad_len &&
		   st->bad_status == s->expect.bad_status);
	FUZZ_CHECK(st->bytes_read == s->expect.bytes_read &&
		   st->bytes_written == s->expect.bytes_written);
	for (unsigned int k = 0; k < VBF_MAX_REQS; k++)
		if (s->reqs[k].inflight)
			inflight[s->reqs[k].queue]++;
	for (unsigned int qi = 0; qi < s->blk.nqueues; qi++)
		FUZZ_CHECK(virtio_blk_inflight(&s->blk, qi) == inflight[qi]);
}

/* Configuration and features from the input; returns whether init must work. */
static bool vbf_configure(struct vbf *s)
{
	struct fuzz_in *in = s->in;
	uint16_t feat = fuzz_u16(in);
	static const unsigned int bits[] = { VBF_F_SIZE_MAX, VBF_F_SEG_MAX, VBF_F_RO,
					     VBF_F_BLK_SIZE, VBF_F_FLUSH, VBF_F_MQ,
					     VIRTIO_F_RING_INDIRECT_DESC,
					     VIRTIO_F_RING_EVENT_IDX };
	uint64_t capacity;
	uint32_t size_max;

	s->offered = VIRTIO_FEATURE(VIRTIO_F_VERSION_1) | VIRTIO_FEATURE(VIRTIO_F_ACCESS_PLATFORM);
	for (unsigned int i = 0; i < sizeof(bits) / sizeof(bits[0]); i++)
		if (feat & (1u << i))
			s->offered |= VIRTIO_FEATURE(bits[i]);
	for (unsigned int i = 0; i < VBF_CFG_BYTES; i++)
		s->cfg[i] = fuzz_u8(in);
	/* Mostly a plausible capacity and size_max; sometimes anything. */
	if (!(feat & 0x100)) {
		capacity = fuzz_u8(in) & 1 ? (uint64_t)1 << 48 : (uint64_t)4096 + fuzz_u16(in);
		memcpy(s->cfg, &capacity, 8);
		if (!(feat & 0x200)) {
			size_max = 512u << fuzz_below(in, 8);
			memcpy(s->cfg + 8, &size_max, 4);
		}
	}
	s->nqueues = 1 + fuzz_below(in, VBF_MAX_QUEUES);
	for (unsigned int i = 0; i < VBF_MAX_QUEUES; i++)
		s->max_size[i] = 1 + fuzz_below(in, VBF_MAX_QSIZE);
	memcpy(&capacity, s->cfg, 8);
	memcpy(&size_max, s->cfg + 8, 4);
	return capacity <= ((uint64_t)1 << 48) &&
	       !((s->offered & VIRTIO_FEATURE(VBF_F_SIZE_MAX)) && size_max < 512);
}

int fuzz_virtio_blk_completion_one(const uint8_t *data, size_t size)
{
	struct fuzz_in in = { data, size, 0 };
	struct vbf *s = &vbf;
	uint8_t mode;
	char why[128];
	bool plausible;
	int rc;

	for (unsigned int k = 0; k < VBF_MAX_REQS; k++) {
		free(s->reqs[k].buf);
		free(s->reqs[k].before);
	}
	memset(s, 0, sizeof(*s));
	s->in = &in;
	mode = fuzz_u8(&in);
	s->vdev.ops = &vbf_ops;
	s->vdev.device_type = VIRTIO_ID_BLOCK;
	s->vdev.confidential = mode & 1;
	strcpy(s->vdev.name, "fuzz-blk");
	FUZZ_CHECK(fuzz_dma_init(&s->fd, (enum dma_bounce_policy)((mode >> 1) & 3), 1,
				 (mode & 8) ? DMA_SCRUB_ZERO : DMA_SCRUB_COPY) == 0);
	plausible = vbf_configure(s);
	rc = virtio_blk_init(&s->blk, &s->vdev, &s->fd.dl, 1 + ((mode >> 4) & 1), 0, why,
			     sizeof(why));
	FUZZ_CHECK(!rc == plausible);
	if (rc) {
		FUZZ_CHECK(memchr(why, '\0', sizeof(why)) != NULL);
		fuzz_dma_fini(&s->fd);
		return 0;
	}
	FUZZ_CHECK(s->blk.nqueues >= 1 && s->blk.nqueues <= VBF_MAX_QUEUES);
	FUZZ_CHECK(s->blk.capacity <= ((uint64_t)1 << 48) && s->blk.seg_max >= 1 &&
		   s->blk.seg_max <= VIRTIO_BLK_MAX_SEGS);
	for (unsigned int qi = 0; qi < s->blk.nqueues; qi++) {
		s->q[qi].vq = vbf_find_vq(s, qi);
		s->q[qi].vq->read_hook = vbf_hook;
		s->q[qi].vq->read_hook_ctx = &s->q[qi];
	}

	for (unsigned int ops = 0; fuzz_more(&in) && ops < VBF_MAX_OPS; ops++) {
		uint8_t op = fuzz_u8(&in);
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
		default: {
			/* A status byte changed after the fact, or a stray used entry. */
			struct vbf_queue *q = &s->q[qi];

			if (fuzz_u8(&in) & 1) {
				for (unsigned int k = 0; k < VBF_MAX_REQS; k++)
					if (s->reqs[k].inflight && s->reqs[k].queue == qi) {
						struct vbf_chain *c = &s->reqs[k].chain;

						*(uint8_t *)(uintptr_t)c->addr[c->nseg - 1] =
							fuzz_u8(&in);
						break;
					}
			} else {
				uint32_t id = fuzz_u32(&in);

				vbf_push(q, id, fuzz_u32(&in));
			}
			break;
		}
		}
		vbf_check(s, ops % 4 == 3);
	}
	vbf_check(s, true);

	virtio_blk_remove(&s->blk);
	FUZZ_CHECK(s->status == 0);
	fuzz_dma_fini(&s->fd);
	return 0;
}
