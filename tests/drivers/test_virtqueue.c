/* SPDX-License-Identifier: MIT */
/*
 * test_virtqueue.c - host tests of the split virtqueue (drivers/virtio/virtqueue.c)
 * on a DMA layer with one bounce pool, against a simulated device that walks the
 * available ring and writes used entries the way QEMU does - and, in the hostile
 * tests, the way a malicious host might: ids out of range or not in flight,
 * replays, lengths above what was posted, used->idx far ahead, rewritten next
 * fields, values changed between two reads.
 *
 * Every case runs over a matrix of queue sizes and flags (plain, confidential,
 * indirect, event index). Every teardown runs the queue's self-check and the
 * DMA layer's, and checks that nothing stays shared.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drivers/virtio/virtqueue.h"
#include "tests/fakes/test_bounce_fixture.h"
#include "tests/fakes/test_matrix.h"

#define MIB (1024ul * 1024ul)

/* ------------------------------------------------------------------ device */

#define DEV_MAX_SEGS (VIRTQ_INDIRECT_MAX + 64)

/**
 * struct dev_req - a chain as the simulated device found it.
 * @head: head index (what goes into the used entry).
 * @nseg: buffers.
 * @addr: their device addresses.
 * @len: their lengths.
 * @write: whether each is device-writable.
 * @indirect: whether the chain was an indirect table.
 */
struct dev_req {
	uint16_t head;
	unsigned int nseg;
	uint64_t addr[DEV_MAX_SEGS];
	uint32_t len[DEV_MAX_SEGS];
	bool write[DEV_MAX_SEGS];
	bool indirect;
};

/**
 * struct dev - the device side of one queue: its own indices, like QEMU's.
 * @vq: the queue (only its ring pointers and size are used, as a device
 *	would know them from the transport).
 * @mp: the mock, to check every address the device is given is shared.
 * @last_avail: next available entry to take.
 * @used_idx: the device's used index.
 * @notified: notifications received.
 * @lenient: tolerate a driver more than a ring ahead (see dev_pop()).
 */
struct dev {
	struct virtq *vq;
	struct mock_port *mp;
	uint16_t last_avail;
	uint16_t used_idx;
	unsigned long notified;
	bool lenient;
};

static void dev_notify(void *ctx, uint16_t queue_index)
{
	struct dev *dev = ctx;

	assert_int_equal(queue_index, 3);
	dev->notified++;
}

static void *dev_ptr(uint64_t dma)
{
	return (void *)(uintptr_t)dma;
}

/* Read one descriptor (from the ring or an indirect table) into @r. */
static void dev_take_desc(struct dev *dev, struct dev_req *r, const struct virtq_desc *d)
{
	assert_true(r->nseg < DEV_MAX_SEGS);
	assert_true(d->len > 0);
	/* The invariant under test: the device is only ever given shared memory. */
	assert_true(mock_port_is_shared(dev->mp, dev_ptr(d->addr), d->len));
	/* Readable before writable (virtio 2.7.4). */
	if (r->nseg && r->write[r->nseg - 1])
		assert_true(d->flags & VIRTQ_DESC_F_WRITE);
	r->addr[r->nseg] = d->addr;
	r->len[r->nseg] = d->len;
	r->write[r->nseg] = d->flags & VIRTQ_DESC_F_WRITE;
	r->nseg++;
}

/* Take the next available chain; false if there is none. */
static bool dev_pop(struct dev *dev, struct dev_req *r)
{
	struct virtq *vq = dev->vq;
	unsigned int num = vq->num;
	uint16_t avail = __atomic_load_n(&vq->avail->idx, __ATOMIC_ACQUIRE);
	uint16_t d;

	if (avail == dev->last_avail)
		return false;
	/* A device that completed chains it never took (a lying one) finds
	 * the driver more than a ring ahead: it loses the oldest entries. */
	if (dev->lenient && (uint16_t)(avail - dev->last_avail) > num)
		dev->last_avail = (uint16_t)(avail - num);
	assert_true((uint16_t)(avail - dev->last_avail) <= num);
	memset(r, 0, sizeof(*r));
	r->head = vq->avail->ring[dev->last_avail % num];
	dev->last_avail++;
	assert_true(r->head < num);
	d = r->head;
	if (vq->desc[d].flags & VIRTQ_DESC_F_INDIRECT) {
		const struct virtq_desc *t = dev_ptr(vq->desc[d].addr);
		unsigned int n = vq->desc[d].len / sizeof(*t);

		assert_int_equal(vq->desc[d].len % sizeof(*t), 0);
		assert_false(vq->desc[d].flags & VIRTQ_DESC_F_NEXT);
		assert_true(mock_port_is_shared(dev->mp, t, vq->desc[d].len));
		r->indirect = true;
		for (unsigned int i = 0;; i = t[i].next) {
			assert_true(i < n);
			assert_false(t[i].flags & VIRTQ_DESC_F_INDIRECT);
			dev_take_desc(dev, r, &t[i]);
			if (!(t[i].flags & VIRTQ_DESC_F_NEXT))
				break;
		}
		return true;
	}
	for (unsigned int hops = 0;; hops++) {
		assert_true(hops < num);
		dev_take_desc(dev, r, &vq->desc[d]);
		if (!(vq->desc[d].flags & VIRTQ_DESC_F_NEXT))
			break;
		d = vq->desc[d].next;
		assert_true(d < num);
	}
	return true;
}

/*
 * The device's work: every writable byte i becomes readable byte i (mod the
 * readable total) xor 0x5a, or 0xd0 + i when nothing was readable. Returns
 * the bytes written, at most @limit.
 */
static uint32_t dev_serve(const struct dev_req *r, uint32_t limit)
{
	uint64_t out_total = 0;
	uint32_t written = 0;

	for (unsigned int i = 0; i < r->nseg; i++)
		if (!r->write[i])
			out_total += r->len[i];
	for (unsigned int i = 0; i < r->nseg; i++) {
		unsigned char *p = dev_ptr(r->addr[i]);

		if (!r->write[i])
			continue;
		for (uint32_t b = 0; b < r->len[i] && written < limit; b++, written++) {
			unsigned char v = (unsigned char)(0xd0 + written);

			if (out_total) {
				uint64_t k = written % out_total;

				for (unsigned int j = 0; j < r->nseg; j++) {
					if (r->write[j])
						continue;
					if (k < r->len[j]) {
						const unsigned char *o = dev_ptr(r->addr[j]);

						v = o[k] ^ 0x5a;
						break;
					}
					k -= r->len[j];
				}
			}
			p[b] = v;
		}
	}
	return written;
}

/* Publish one used entry, as a device may: any id, any length. */
static void dev_push(struct dev *dev, uint32_t id, uint32_t len)
{
	struct virtq *vq = dev->vq;
	struct virtq_used_elem *e = &vq->used->ring[dev->used_idx % vq->num];

	e->id = id;
	e->len = len;
	dev->used_idx++;
	__atomic_store_n(&vq->used->idx, dev->used_idx, __ATOMIC_RELEASE);
}

/* Serve and complete every available chain, in order. Returns how many. */
static unsigned int dev_run(struct dev *dev)
{
	struct dev_req r;
	unsigned int n = 0;

	while (dev_pop(dev, &r)) {
		dev_push(dev, r.head, dev_serve(&r, UINT32_MAX));
		n++;
	}
	return n;
}

/* ------------------------------------------------------------------ fixture */

/**
 * struct tcase - one setting of the matrix and its fixture.
 * @num: queue size.
 * @flags: VIRTQ_INIT_*.
 * @policy: the bounce pool's policy (rings and bounce buffers come from it).
 * @f: the DMA layer.
 * @vq: the queue under test.
 * @meta: its private bookkeeping.
 * @dev: the simulated device.
 */
struct tcase {
	unsigned int num;
	unsigned int flags;
	enum sluice_dma_bounce_policy policy;
	struct fx *f;
	struct virtq vq;
	void *meta;
	struct dev dev;
};

#define CONF VIRTQ_INIT_CONFIDENTIAL
#define IND VIRTQ_INIT_INDIRECT
#define EVT VIRTQ_INIT_EVENT_IDX
static struct tcase cases[] = {
	{ .num = 16, .flags = 0, .policy = SLUICE_DMA_POLICY_SLUICE },
	{ .num = 256, .flags = CONF, .policy = SLUICE_DMA_POLICY_SLUICE },
	{ .num = 256, .flags = CONF | IND, .policy = SLUICE_DMA_POLICY_SLUICE },
	{ .num = 256, .flags = CONF | IND | EVT, .policy = SLUICE_DMA_POLICY_SLUICE },
	{ .num = 1024, .flags = EVT, .policy = SLUICE_DMA_POLICY_SLUICE },
	/* Upstream Linux's allocator: 256 KiB largest allocation, just enough for
	 * 1024 indirect tables. */
	{ .num = 1024, .flags = CONF | IND | EVT, .policy = SLUICE_DMA_POLICY_LINUX },
	{ .num = 64, .flags = CONF | IND, .policy = SLUICE_DMA_POLICY_BITMAP },
};
enum { NCASES = sizeof(cases) / sizeof(cases[0]) };

static int setup(void **state)
{
	struct tcase *tc = *state;
	size_t ml = virtq_meta_size(tc->num);
	const struct sluice_dma_tag t = SLUICE_DMA_TAG_DEFAULT;

	tc->f = fx_new(tc->policy, 1, 4 * MIB, SLUICE_DMA_SCRUB_COPY);
	/* Odd offset: the queue must accept metadata of any alignment. */
	tc->meta = malloc(ml + 3);
	if (!tc->f || !tc->meta || !ml)
		return -1;
	memset(tc->meta, 0xee, ml + 3);
	memset(&tc->dev, 0, sizeof(tc->dev));
	tc->dev.vq = &tc->vq;
	tc->dev.mp = &tc->f->mp;
	return virtq_init(&tc->vq, &tc->f->dl, &t, 3, tc->num, (char *)tc->meta + 3, ml, tc->flags,
			  dev_notify, &tc->dev);
}

static int teardown(void **state)
{
	struct tcase *tc = *state;
	int err = 0;

	if (virtq_check(&tc->vq)) {
		fprintf(stderr, "teardown: queue self-check: %s\n", tc->f->mp.last_log);
		err = -1;
	}
	if (virtq_num_free(&tc->vq) + virtq_num_inflight(&tc->vq) > tc->num) {
		fprintf(stderr, "teardown: free + in flight above the size\n");
		err = -1;
	}
	/* As a driver would after a device reset. */
	while (virtq_detach_unused(&tc->vq))
		;
	if (virtq_num_free(&tc->vq) != tc->num || virtq_check(&tc->vq)) {
		fprintf(stderr, "teardown: descriptors lost\n");
		err = -1;
	}
	if (virtq_destroy(&tc->vq))
		err = -1;
	if (fx_free(tc->f))
		err = -1;
	free(tc->meta);
	tc->f = NULL;
	tc->meta = NULL;
	return err;
}

static bool conf(const struct tcase *tc)
{
	return tc->flags & VIRTQ_INIT_CONFIDENTIAL;
}

static void *tok(unsigned long i)
{
	return (void *)(uintptr_t)(i + 1);
}

/* A coherent buffer of @len for requests that need no copy. */
static uint64_t coherent(struct tcase *tc, size_t len, void **va)
{
	const struct sluice_dma_tag t = SLUICE_DMA_TAG_DEFAULT;
	uint64_t d = 0;

	*va = sluice_dma_alloc_coherent(&tc->f->dl, &t, len, &d);
	assert_non_null(*va);
	return d;
}

/* ------------------------------------------------------------------ round trips */

static void fill(unsigned char *p, size_t len, unsigned int seed)
{
	for (size_t i = 0; i < len; i++)
		p[i] = (unsigned char)(seed * 31 + i * 7 + (i >> 8));
}

static void test_rings(void **state)
{
	struct tcase *tc = *state;
	uint64_t d, a, u;

	virtq_ring_addrs(&tc->vq, &d, &a, &u);
	assert_int_equal(d % SLUICE_DMA_PAGE_SIZE, 0);
	assert_int_equal(a % SLUICE_DMA_PAGE_SIZE, 0);
	assert_int_equal(u % SLUICE_DMA_PAGE_SIZE, 0);
	assert_true(mock_port_is_shared(&tc->f->mp, dev_ptr(d), VIRTQ_DESC_TABLE_SIZE(tc->num)));
	assert_true(mock_port_is_shared(&tc->f->mp, dev_ptr(a), VIRTQ_AVAIL_SIZE(tc->num)));
	assert_true(mock_port_is_shared(&tc->f->mp, dev_ptr(u), VIRTQ_USED_SIZE(tc->num)));
	assert_int_equal(virtq_num_free(&tc->vq), tc->num);
	assert_false(virtq_has_used(&tc->vq));
	assert_int_equal(tc->vq.avail->idx, 0);
	assert_int_equal(tc->vq.used->idx, 0);
}

static void test_single(void **state)
{
	struct tcase *tc = *state;
	const struct sluice_dma_tag t = SLUICE_DMA_TAG_DEFAULT;
	unsigned char *in = malloc(1500), *out = malloc(700);
	struct virtq_buf b;
	uint32_t len = 99;
	int status = 1;

	/* A receive buffer: device-writable only. */
	memset(in, 0, 1500);
	assert_int_equal(
		sluice_dma_map(&tc->f->dl, &t, in, 1500, SLUICE_DMA_FROM_DEVICE, &b.dma_addr), 0);
	b.len = 1500;
	assert_int_equal(virtq_add(&tc->vq, &b, 0, 1, tok(1)), 0);
	assert_int_equal(virtq_num_free(&tc->vq), tc->num - 1);
	assert_false(virtq_has_used(&tc->vq));
	assert_null(virtq_get_used(&tc->vq, &len, &status));
	assert_int_equal(len, 0);
	assert_int_equal(status, 0);
	assert_true(virtq_kick(&tc->vq));
	assert_int_equal(tc->dev.notified, 1);
	assert_int_equal(dev_run(&tc->dev), 1);
	assert_true(virtq_has_used(&tc->vq));
	assert_ptr_equal(virtq_get_used(&tc->vq, &len, &status), tok(1));
	assert_int_equal(len, 1500);
	assert_int_equal(status, 0);
	sluice_dma_unmap(&tc->f->dl, b.dma_addr, 1500, SLUICE_DMA_FROM_DEVICE);
	for (unsigned int i = 0; i < 1500; i++)
		assert_int_equal(in[i], (unsigned char)(0xd0 + i));

	/* A transmit buffer: device-readable only; the device reports 0. */
	fill(out, 700, 4);
	assert_int_equal(
		sluice_dma_map(&tc->f->dl, &t, out, 700, SLUICE_DMA_TO_DEVICE, &b.dma_addr), 0);
	b.len = 700;
	assert_int_equal(virtq_add(&tc->vq, &b, 1, 0, tok(2)), 0);
	virtq_kick(&tc->vq);
	assert_int_equal(dev_run(&tc->dev), 1);
	assert_ptr_equal(virtq_get_used(&tc->vq, &len, &status), tok(2));
	assert_int_equal(len, 0);
	assert_int_equal(status, 0);
	sluice_dma_unmap(&tc->f->dl, b.dma_addr, 700, SLUICE_DMA_TO_DEVICE);
	assert_null(virtq_get_used(&tc->vq, &len, NULL));
	assert_int_equal(virtq_num_free(&tc->vq), tc->num);
	free(in);
	free(out);
}

/* A virtio-blk-like chain: header and data out, data and status in. */
static void test_chain(void **state)
{
	struct tcase *tc = *state;
	const struct sluice_dma_tag t = SLUICE_DMA_TAG_DEFAULT;
	static const uint32_t lens[5] = { 16, 4096, 512, 3000, 1 };
	unsigned char *buf[5];
	struct virtq_buf b[5];
	struct virtq_stats st;
	uint32_t len;
	int status;

	for (unsigned int i = 0; i < 5; i++) {
		buf[i] = malloc(lens[i]);
		fill(buf[i], lens[i], i + 1);
		assert_int_equal(sluice_dma_map(&tc->f->dl, &t, buf[i], lens[i],
						i < 2 ? SLUICE_DMA_TO_DEVICE :
							SLUICE_DMA_FROM_DEVICE,
						&b[i].dma_addr),
				 0);
		b[i].len = lens[i];
	}
	assert_int_equal(virtq_add(&tc->vq, b, 2, 3, tok(7)), 0);
	virtq_stats_get(&tc->vq, &st);
	if (tc->flags & VIRTQ_INIT_INDIRECT) {
		uint16_t head = tc->vq.avail->ring[0];

		assert_int_equal(virtq_num_free(&tc->vq), tc->num - 1);
		assert_int_equal(tc->vq.desc[head].flags, VIRTQ_DESC_F_INDIRECT);
		assert_int_equal(tc->vq.desc[head].len, 5 * sizeof(struct virtq_desc));
		assert_int_equal(st.indirect_adds, 1);
	} else {
		assert_int_equal(virtq_num_free(&tc->vq), tc->num - 5);
		assert_int_equal(st.indirect_adds, 0);
	}
	virtq_kick(&tc->vq);
	assert_int_equal(dev_run(&tc->dev), 1);
	assert_ptr_equal(virtq_get_used(&tc->vq, &len, &status), tok(7));
	assert_int_equal(status, 0);
	assert_int_equal(len, 512 + 3000 + 1);
	for (unsigned int i = 0; i < 5; i++)
		sluice_dma_unmap(&tc->f->dl, b[i].dma_addr, lens[i],
				 i < 2 ? SLUICE_DMA_TO_DEVICE : SLUICE_DMA_FROM_DEVICE);
	/* Writable byte k = readable byte k (over header + data) ^ 0x5a. */
	for (unsigned int k = 0; k < 512 + 3000 + 1; k++) {
		unsigned int o = k % (16 + 4096);
		unsigned char want = (o < 16 ? buf[0][o] : buf[1][o - 16]) ^ 0x5a;
		unsigned char got = k < 512 ? buf[2][k] : k < 3512 ? buf[3][k - 512] : buf[4][0];

		assert_int_equal(got, want);
	}
	assert_int_equal(virtq_num_free(&tc->vq), tc->num);
	for (unsigned int i = 0; i < 5; i++)
		free(buf[i]);
}

/* Which requests go into an indirect table: 2 to VIRTQ_INDIRECT_MAX buffers. */
static void test_indirect_limits(void **state)
{
	struct tcase *tc = *state;
	static const unsigned int sizes[] = { 1, 2, VIRTQ_INDIRECT_MAX, VIRTQ_INDIRECT_MAX + 1 };
	struct virtq_buf b[VIRTQ_INDIRECT_MAX + 1];
	unsigned char *va;
	uint64_t d = coherent(tc, sizeof(b) / sizeof(b[0]) * 32, (void **)&va);
	bool ind = tc->flags & VIRTQ_INIT_INDIRECT;
	uint32_t len;
	int status;

	for (unsigned int i = 0; i < sizeof(b) / sizeof(b[0]); i++)
		b[i] = (struct virtq_buf){ d + 32 * i, 32 };
	for (unsigned int k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		unsigned int n = sizes[k];
		bool want_ind = ind && n > 1 && n <= VIRTQ_INDIRECT_MAX;
		struct dev_req r;

		if (n > tc->num)
			continue;
		assert_int_equal(virtq_add(&tc->vq, b, 1, n - 1, tok(k)), 0);
		assert_int_equal(virtq_num_free(&tc->vq), tc->num - (want_ind ? 1 : n));
		virtq_kick(&tc->vq);
		assert_true(dev_pop(&tc->dev, &r));
		assert_int_equal(r.indirect, want_ind);
		assert_int_equal(r.nseg, n);
		for (unsigned int i = 0; i < n; i++) {
			assert_int_equal(r.addr[i], b[i].dma_addr);
			assert_int_equal(r.write[i], i >= 1);
		}
		dev_push(&tc->dev, r.head, dev_serve(&r, UINT32_MAX));
		assert_ptr_equal(virtq_get_used(&tc->vq, &len, &status), tok(k));
		assert_int_equal(len, 32 * (n - 1));
		assert_int_equal(virtq_num_free(&tc->vq), tc->num);
	}
	sluice_dma_free_coherent(&tc->f->dl, va, sizeof(b) / sizeof(b[0]) * 32);
}

/* Fill the queue, get refused, complete one, go on. */
static void test_full_then_recover(void **state)
{
	struct tcase *tc = *state;
	struct virtq_buf b[3];
	struct virtq_stats st;
	unsigned int per = tc->flags & VIRTQ_INIT_INDIRECT ? 1 : 3, fit = tc->num / per, n = 0;
	unsigned char *va;
	uint64_t d = coherent(tc, 3 * 64, (void **)&va);
	uint32_t len;
	int status;

	for (unsigned int i = 0; i < 3; i++)
		b[i] = (struct virtq_buf){ .dma_addr = d + 64 * i, .len = 64 };
	while (virtq_add(&tc->vq, b, 1, 2, tok(n)) == 0)
		n++;
	assert_int_equal(n, fit);
	assert_int_equal(virtq_num_inflight(&tc->vq), fit);
	assert_int_equal(virtq_add(&tc->vq, b, 1, 2, tok(n)), VIRTQ_ERR_NOSPC);
	virtq_stats_get(&tc->vq, &st);
	assert_int_equal(st.full, 2);
	assert_int_equal(st.adds, fit);
	/* A one-buffer request may still fit in the remainder. */
	if (tc->num - fit * per >= 1) {
		assert_int_equal(virtq_add(&tc->vq, b, 1, 0, tok(1000)), 0);
		n++;
	}
	assert_int_equal(virtq_check(&tc->vq), 0);
	virtq_kick(&tc->vq);

	/* The device serves one chain only; then there is room for one more. */
	{
		struct dev_req r;

		assert_true(dev_pop(&tc->dev, &r));
		dev_push(&tc->dev, r.head, dev_serve(&r, UINT32_MAX));
	}
	assert_ptr_equal(virtq_get_used(&tc->vq, &len, &status), tok(0));
	assert_int_equal(len, 128);
	assert_int_equal(virtq_add(&tc->vq, b, 1, 2, tok(n)), 0);
	n++;
	virtq_kick(&tc->vq);
	/* Everything else completes, in order. */
	dev_run(&tc->dev);
	for (unsigned int i = 1; i < n; i++) {
		void *t = virtq_get_used(&tc->vq, &len, &status);

		assert_non_null(t);
		assert_int_equal(status, 0);
	}
	assert_null(virtq_get_used(&tc->vq, &len, &status));
	assert_int_equal(virtq_num_free(&tc->vq), tc->num);
	sluice_dma_free_coherent(&tc->f->dl, va, 3 * 64);
}

/* More than 65536 requests: both 16-bit indices wrap, several times with a
 * varying number in flight. */
static void test_wraparound(void **state)
{
	struct tcase *tc = *state;
	enum { TOTAL = 70000 + 333 };
	unsigned char *va;
	uint64_t d = coherent(tc, 2 * 32, (void **)&va);
	struct virtq_buf b[2] = { { d, 32 }, { d + 32, 32 } };
	unsigned long sent = 0, done = 0;
	struct virtq_stats st;
	uint32_t len;
	int status;

	while (done < TOTAL) {
		unsigned int batch = 1 + (unsigned int)(sent * 7919 % tc->num);

		for (unsigned int i = 0; i < batch && sent < TOTAL; i++) {
			int err = virtq_add(&tc->vq, b, 1, 1, tok(sent));

			if (err == VIRTQ_ERR_NOSPC)
				break;
			assert_int_equal(err, 0);
			sent++;
		}
		virtq_kick(&tc->vq);
		dev_run(&tc->dev);
		for (void *t; (t = virtq_get_used(&tc->vq, &len, &status)); done++) {
			assert_ptr_equal(t, tok(done));
			assert_int_equal(len, 32);
			assert_int_equal(status, 0);
		}
	}
	virtq_stats_get(&tc->vq, &st);
	assert_int_equal(st.adds, TOTAL);
	assert_int_equal(st.completions, TOTAL);
	assert_int_equal(tc->vq.avail->idx, (uint16_t)TOTAL);
	assert_int_equal(tc->vq.used->idx, (uint16_t)TOTAL);
	assert_int_equal(virtq_num_free(&tc->vq), tc->num);
	sluice_dma_free_coherent(&tc->f->dl, va, 64);
}

/* Up to num requests in flight, completed in an order unrelated to submission. */
static void test_many_in_flight(void **state)
{
	struct tcase *tc = *state;
	unsigned int num = tc->num;
	struct dev_req *r = calloc(num, sizeof(*r));
	bool *seen = calloc(num, sizeof(*seen));
	unsigned char *va;
	uint64_t d = coherent(tc, (size_t)num * 8, (void **)&va);
	uint32_t len;
	int status;

	for (unsigned int i = 0; i < num; i++) {
		struct virtq_buf b = { d + 8 * i, 1 + i % 8 };

		assert_int_equal(virtq_add(&tc->vq, &b, 0, 1, tok(i)), 0);
	}
	assert_int_equal(virtq_num_free(&tc->vq), 0);
	virtq_kick(&tc->vq);
	for (unsigned int i = 0; i < num; i++)
		assert_true(dev_pop(&tc->dev, &r[i]));
	/* Stride 5 is coprime with a power of two: a permutation. */
	for (unsigned int k = 0; k < num; k++) {
		unsigned int i = (k * 5 + 3) % num;

		dev_push(&tc->dev, r[i].head, dev_serve(&r[i], UINT32_MAX));
	}
	for (unsigned int k = 0; k < num; k++) {
		void *t = virtq_get_used(&tc->vq, &len, &status);
		unsigned int i = (unsigned int)((uintptr_t)t - 1);

		assert_non_null(t);
		assert_int_equal(i, (k * 5 + 3) % num);
		assert_false(seen[i]);
		seen[i] = true;
		assert_int_equal(len, 1 + i % 8);
		assert_int_equal(status, 0);
	}
	assert_null(virtq_get_used(&tc->vq, &len, &status));
	assert_int_equal(virtq_num_free(&tc->vq), num);
	sluice_dma_free_coherent(&tc->f->dl, va, (size_t)num * 8);
	free(seen);
	free(r);
}

/* ------------------------------------------------------------------ hostile device */

static void stats_of(struct tcase *tc, struct virtq_stats *st)
{
	virtq_stats_get(&tc->vq, st);
}

/* Post @n one-buffer writable requests of 100 bytes; returns the buffer memory. */
static unsigned char *post(struct tcase *tc, unsigned int n, uint64_t *dma)
{
	unsigned char *va;

	*dma = coherent(tc, (size_t)n * 100, (void **)&va);
	for (unsigned int i = 0; i < n; i++) {
		struct virtq_buf b = { *dma + 100 * i, 100 };

		assert_int_equal(virtq_add(&tc->vq, &b, 0, 1, tok(i)), 0);
	}
	virtq_kick(&tc->vq);
	return va;
}

static void test_bad_id(void **state)
{
	struct tcase *tc = *state;
	struct virtq_stats st;
	struct dev_req r;
	uint64_t d;
	/* Four in flight: the device may publish up to four entries at once. */
	unsigned char *va = post(tc, 4, &d);
	unsigned long logs = tc->f->mp.log_lines;
	uint32_t len;
	int status;

	assert_true(dev_pop(&tc->dev, &r));
	dev_push(&tc->dev, tc->num, 10);
	dev_push(&tc->dev, 0xffffffffu, 10);
	dev_push(&tc->dev, r.head, 100);
	/* Both bad entries are skipped; the good one behind them comes out. */
	assert_ptr_equal(virtq_get_used(&tc->vq, &len, &status), tok(0));
	assert_int_equal(len, 100);
	assert_int_equal(status, 0);
	assert_null(virtq_get_used(&tc->vq, &len, &status));
	stats_of(tc, &st);
	assert_int_equal(st.bad_id, 2);
	assert_int_equal(st.completions, 1);
	assert_true(tc->f->mp.log_lines >= logs + 2);
	assert_non_null(strstr(tc->f->mp.last_log, "out of range"));
	assert_int_equal(virtq_num_inflight(&tc->vq), 3);
	assert_false(virtq_is_broken(&tc->vq));
	assert_int_equal(virtq_check(&tc->vq), 0);
	/* The others complete normally. */
	dev_run(&tc->dev);
	for (unsigned int i = 1; i < 4; i++)
		assert_ptr_equal(virtq_get_used(&tc->vq, &len, &status), tok(i));
	sluice_dma_free_coherent(&tc->f->dl, va, 400);
}

static void test_not_in_flight(void **state)
{
	struct tcase *tc = *state;
	struct virtq_stats st;
	struct dev_req r;
	uint64_t d;
	unsigned char *va = post(tc, 3, &d);
	uint32_t len;
	int status;

	assert_true(dev_pop(&tc->dev, &r));
	/* A free descriptor (the last one is free: three requests in flight). */
	dev_push(&tc->dev, tc->num - 1, 10);
	dev_push(&tc->dev, r.head, 50);
	/* A replay of the completion just made. */
	dev_push(&tc->dev, r.head, 50);
	assert_ptr_equal(virtq_get_used(&tc->vq, &len, &status), tok(0));
	assert_int_equal(len, 50);
	assert_null(virtq_get_used(&tc->vq, &len, &status));
	assert_int_equal(status, 0);
	stats_of(tc, &st);
	assert_int_equal(st.not_in_flight, 2);
	assert_int_equal(st.completions, 1);
	assert_int_equal(virtq_num_inflight(&tc->vq), 2);
	assert_false(virtq_is_broken(&tc->vq));
	/* The queue still works. */
	{
		struct virtq_buf b = { d, 100 };

		assert_int_equal(virtq_add(&tc->vq, &b, 0, 1, tok(9)), 0);
		virtq_kick(&tc->vq);
		dev_run(&tc->dev);
		assert_ptr_equal(virtq_get_used(&tc->vq, &len, &status), tok(1));
		assert_ptr_equal(virtq_get_used(&tc->vq, &len, &status), tok(2));
		assert_ptr_equal(virtq_get_used(&tc->vq, &len, &status), tok(9));
		assert_int_equal(len, 100);
	}
	assert_int_equal(virtq_num_free(&tc->vq), tc->num);
	sluice_dma_free_coherent(&tc->f->dl, va, 300);
}

/* The id of a descriptor in the middle of a chain in flight is no head. */
static void test_non_head_id(void **state)
{
	struct tcase *tc = *state;
	/* Longer than an indirect table, so it is a real chain in every setting. */
	unsigned int n = tc->num < VIRTQ_INDIRECT_MAX + 4 ? tc->num : VIRTQ_INDIRECT_MAX + 4;
	struct virtq_buf *b = calloc(n, sizeof(*b));
	struct virtq_stats st;
	struct dev_req r;
	unsigned char *va;
	uint64_t d = coherent(tc, (size_t)n * 16, (void **)&va);
	uint16_t second;
	uint32_t len;
	int status;

	for (unsigned int i = 0; i < n; i++)
		b[i] = (struct virtq_buf){ d + 16 * i, 16 };
	assert_int_equal(virtq_add(&tc->vq, b, 1, n - 1, tok(0)), 0);
	assert_int_equal(virtq_num_free(&tc->vq), tc->num - n);
	virtq_kick(&tc->vq);
	assert_true(dev_pop(&tc->dev, &r));
	assert_false(r.indirect);
	assert_int_equal(r.nseg, n);
	second = tc->vq.desc[r.head].next;
	dev_push(&tc->dev, second, 16);
	assert_null(virtq_get_used(&tc->vq, &len, &status));
	stats_of(tc, &st);
	assert_int_equal(st.not_in_flight, 1);
	assert_int_equal(virtq_num_inflight(&tc->vq), 1);
	assert_int_equal(virtq_num_free(&tc->vq), tc->num - n);
	dev_push(&tc->dev, r.head, 16 * (n - 1));
	assert_ptr_equal(virtq_get_used(&tc->vq, &len, &status), tok(0));
	assert_int_equal(len, 16 * (n - 1));
	assert_int_equal(virtq_num_free(&tc->vq), tc->num);
	sluice_dma_free_coherent(&tc->f->dl, va, (size_t)n * 16);
	free(b);
}

/* A length above what was posted fails that request; the queue goes on. */
static void test_bad_len(void **state)
{
	struct tcase *tc = *state;
	struct virtq_stats st;
	struct dev_req r0, r1;
	uint64_t d;
	unsigned char *va = post(tc, 2, &d);
	uint32_t len = 7;
	int status = 0;

	assert_true(dev_pop(&tc->dev, &r0));
	assert_true(dev_pop(&tc->dev, &r1));
	dev_push(&tc->dev, r0.head, 101);
	dev_push(&tc->dev, r1.head, 0xffffffffu);
	assert_ptr_equal(virtq_get_used(&tc->vq, &len, &status), tok(0));
	assert_int_equal(status, SLUICE_DMA_ERR_RANGE);
	assert_int_equal(len, 0);
	/* Without a status the length still reads 0. */
	len = 7;
	assert_ptr_equal(virtq_get_used(&tc->vq, &len, NULL), tok(1));
	assert_int_equal(len, 0);
	stats_of(tc, &st);
	assert_int_equal(st.bad_len, 2);
	assert_int_equal(st.completions, 2);
	assert_int_equal(virtq_num_free(&tc->vq), tc->num);
	assert_false(virtq_is_broken(&tc->vq));
	sluice_dma_free_coherent(&tc->f->dl, va, 200);
}

/* used->idx far ahead of the chains in flight: the queue is broken, nothing
 * is taken from it, and a reset brings it back. */
static void test_idx_jump(void **state)
{
	struct tcase *tc = *state;
	struct virtq_stats st;
	struct dev_req r;
	uint64_t d;
	unsigned char *va = post(tc, 3, &d);
	struct virtq_buf b = { d, 100 };
	uint32_t len;
	int status;
	unsigned int detached = 0;

	assert_true(dev_pop(&tc->dev, &r));
	dev_push(&tc->dev, r.head, 100);
	/* One completion is real; the index claims four. */
	__atomic_store_n(&tc->vq.used->idx, (uint16_t)(tc->dev.used_idx + 3), __ATOMIC_RELEASE);
	assert_false(virtq_has_used(&tc->vq));
	assert_null(virtq_get_used(&tc->vq, &len, &status));
	assert_int_equal(status, SLUICE_DMA_ERR_IO);
	assert_true(virtq_is_broken(&tc->vq));
	stats_of(tc, &st);
	assert_int_equal(st.bad_idx, 1);
	assert_int_equal(st.completions, 0);
	assert_int_equal(virtq_add(&tc->vq, &b, 0, 1, tok(5)), SLUICE_DMA_ERR_IO);
	assert_false(virtq_kick(&tc->vq));
	assert_int_equal(virtq_destroy(&tc->vq), SLUICE_DMA_ERR_BUSY);
	assert_int_equal(virtq_reset(&tc->vq), SLUICE_DMA_ERR_BUSY);
	/* Device reset; the driver takes its requests back. */
	for (void *t; (t = virtq_detach_unused(&tc->vq)); detached++)
		assert_ptr_equal(t, tok(detached));
	assert_int_equal(detached, 3);
	assert_int_equal(virtq_reset(&tc->vq), 0);
	assert_false(virtq_is_broken(&tc->vq));
	memset(&tc->dev.last_avail, 0, sizeof(tc->dev.last_avail));
	tc->dev.used_idx = 0;
	assert_int_equal(virtq_add(&tc->vq, &b, 0, 1, tok(5)), 0);
	virtq_kick(&tc->vq);
	dev_run(&tc->dev);
	assert_ptr_equal(virtq_get_used(&tc->vq, &len, &status), tok(5));
	assert_int_equal(status, 0);
	assert_int_equal(len, 100);
	sluice_dma_free_coherent(&tc->f->dl, va, 300);
}

/* The device rewrites next fields (and flags) of chains it holds: the free
 * list comes from private bookkeeping, so nothing changes. */
static void test_next_rewritten(void **state)
{
	struct tcase *tc = *state;
	unsigned int n = tc->num < 24 ? tc->num / 2 : 24, k = tc->num / n;
	struct virtq_buf *b = calloc(n, sizeof(*b));
	unsigned char *va;
	uint64_t d = coherent(tc, (size_t)n * 8, (void **)&va);
	uint32_t len;
	int status;

	for (unsigned int i = 0; i < n; i++)
		b[i] = (struct virtq_buf){ d + 8 * i, 8 };
	for (unsigned int round = 0; round < 3; round++) {
		unsigned int added = 0;

		while (virtq_add(&tc->vq, b, 2, n - 2, tok(added)) == 0)
			added++;
		assert_true(added >= k);
		virtq_kick(&tc->vq);
		dev_run(&tc->dev);
		/* Scribble over the whole table and the indirect tables. */
		for (unsigned int i = 0; i < tc->num; i++) {
			tc->vq.desc[i].next = (uint16_t)(i * 3 + round);
			tc->vq.desc[i].flags ^= VIRTQ_DESC_F_NEXT;
		}
		if (tc->vq.indirect)
			memset(tc->vq.indirect, 0x5c,
			       (size_t)tc->num * VIRTQ_INDIRECT_MAX * sizeof(struct virtq_desc));
		for (unsigned int i = 0; i < added; i++) {
			assert_ptr_equal(virtq_get_used(&tc->vq, &len, &status), tok(i));
			assert_int_equal(status, 0);
			assert_int_equal(len, 8 * (n - 2));
			assert_int_equal(virtq_check(&tc->vq), 0);
		}
		assert_int_equal(virtq_num_free(&tc->vq), tc->num);
	}
	sluice_dma_free_coherent(&tc->f->dl, va, (size_t)n * 8);
	free(b);
}

/**
 * struct flip - a device that changes each shared field right after the queue
 *	read it (through the test build's read hook).
 * @vq: the queue.
 * @reads: reads per kind.
 * @active: whether to change the field.
 */
struct flip {
	struct virtq *vq;
	unsigned int reads[VIRTQ_READ_COUNT];
	bool active;
};

static void flip_hook(void *ctx, enum virtq_shared_read what, volatile void *addr)
{
	struct flip *fl = ctx;

	fl->reads[what]++;
	if (!fl->active)
		return;
	switch (what) {
	case VIRTQ_READ_USED_IDX:
		/* Far ahead: if read again, the queue would break. */
		*(volatile uint16_t *)addr += 1000;
		break;
	case VIRTQ_READ_USED_ID:
		*(volatile uint32_t *)addr = fl->vq->num + 1;
		break;
	case VIRTQ_READ_USED_LEN:
		*(volatile uint32_t *)addr = 0xfffffff0u;
		break;
	case VIRTQ_READ_USED_FLAGS:
		*(volatile uint16_t *)addr ^= VIRTQ_USED_F_NO_NOTIFY;
		break;
	case VIRTQ_READ_AVAIL_EVENT:
		*(volatile uint16_t *)addr += 0x4000;
		break;
	default:
		break;
	}
}

/* Double fetch: every shared field is read once per use, so a value changed
 * after the read cannot give the queue two different values. */
static void test_read_once(void **state)
{
	struct tcase *tc = *state;
	struct flip fl = { .vq = &tc->vq };
	struct virtq_stats st;
	uint64_t d;
	unsigned char *va = post(tc, 4, &d);
	uint16_t true_idx;
	uint32_t len;
	int status;

	dev_run(&tc->dev);
	true_idx = tc->dev.used_idx;
	tc->vq.read_hook = flip_hook;
	tc->vq.read_hook_ctx = &fl;
	fl.active = true;
	/* has_used reads the index once; get_used uses that value, not a new one. */
	assert_true(virtq_has_used(&tc->vq));
	assert_int_equal(fl.reads[VIRTQ_READ_USED_IDX], 1);
	for (unsigned int i = 0; i < 4; i++) {
		assert_ptr_equal(virtq_get_used(&tc->vq, &len, &status), tok(i));
		assert_int_equal(status, 0);
		assert_int_equal(len, 100);
		assert_int_equal(fl.reads[VIRTQ_READ_USED_ID], i + 1);
		assert_int_equal(fl.reads[VIRTQ_READ_USED_LEN], i + 1);
	}
	assert_int_equal(fl.reads[VIRTQ_READ_USED_IDX], 1);
	stats_of(tc, &st);
	assert_int_equal(st.bad_id + st.bad_len + st.bad_idx + st.not_in_flight, 0);
	assert_int_equal(st.completions, 4);
	/* The device did change everything behind our back. */
	assert_int_equal(tc->vq.used->idx, (uint16_t)(true_idx + 1000));
	assert_int_equal(tc->vq.used->ring[0].id, tc->num + 1);
	/* Repair the index (the ring entries are spent) and go on. */
	fl.active = false;
	tc->vq.used->idx = true_idx;
	assert_null(virtq_get_used(&tc->vq, &len, &status));
	assert_int_equal(fl.reads[VIRTQ_READ_USED_IDX], 2);

	/* Kick: the suppression field is read once, after the index store. */
	memset(fl.reads, 0, sizeof(fl.reads));
	fl.active = true;
	{
		struct virtq_buf b = { d, 100 };

		assert_int_equal(virtq_add(&tc->vq, &b, 0, 1, tok(9)), 0);
	}
	virtq_kick(&tc->vq);
	assert_int_equal(fl.reads[VIRTQ_READ_USED_FLAGS] + fl.reads[VIRTQ_READ_AVAIL_EVENT], 1);
	fl.active = false;
	tc->vq.read_hook = NULL;
	dev_run(&tc->dev);
	assert_ptr_equal(virtq_get_used(&tc->vq, &len, &status), tok(9));
	sluice_dma_free_coherent(&tc->f->dl, va, 400);
}

/* A device publishing nothing but bad entries cannot keep get_used spinning. */
static void test_flood(void **state)
{
	struct tcase *tc = *state;
	struct virtq_stats st;
	uint64_t d;
	unsigned char *va = post(tc, 1, &d);
	unsigned long rounds = 0, logs = tc->f->mp.log_lines;
	uint32_t len;
	int status;

	/* With one chain in flight the device may advance idx by one at a time. */
	for (rounds = 0; rounds < 3 * (unsigned long)tc->num; rounds++) {
		dev_push(&tc->dev, tc->num + 7, 1);
		assert_null(virtq_get_used(&tc->vq, &len, &status));
		assert_int_equal(status, 0);
	}
	stats_of(tc, &st);
	assert_int_equal(st.bad_id, rounds);
	/* Counted every time, logged a bounded number of times. */
	assert_true(rounds > 32);
	assert_int_equal(tc->f->mp.log_lines - logs, 32 + 1);
	assert_false(virtq_is_broken(&tc->vq));
	assert_int_equal(virtq_num_inflight(&tc->vq), 1);
	dev_run(&tc->dev);
	assert_ptr_equal(virtq_get_used(&tc->vq, &len, &status), tok(0));
	sluice_dma_free_coherent(&tc->f->dl, va, 100);
}

/*
 * A random mix of requests and device behaviour - honest completions in any
 * order, ids out of range, free and non-head ids, replays, lengths above what
 * was posted, index jumps - checked against a reference model of what is in
 * flight. Whatever the device does, the queue only ever returns a token that
 * is in flight, once, with a length no larger than was posted, and its
 * bookkeeping stays consistent. A broken queue is recovered as a driver would:
 * detach everything, reset. Deterministic (fixed seed).
 */
static uint64_t rnd_state;

static unsigned int rnd(unsigned int n)
{
	rnd_state = rnd_state * 6364136223846793005ull + 1442695040888963407ull;
	return (unsigned int)((rnd_state >> 33) % n);
}

enum { RH_STEPS = 40000, RH_MAXN = VIRTQ_INDIRECT_MAX + 4 };

/**
 * struct rh - the model of test_random_hostile(): what the driver has in flight.
 * @tc: the queue and its device.
 * @num: the queue size.
 * @npend: chains the device took and holds in @pend.
 * @writable: per token, the writable bytes posted.
 * @inflight: per token, whether it is in flight.
 * @pend: the chains the device holds.
 * @d: device address of the requests' buffers (RH_MAXN * 64 bytes).
 * @serial: tokens handed out (the next token).
 * @model_inflight: tokens in flight.
 * @resets: device resets.
 * @returned: tokens the driver got back from the used ring.
 */
struct rh {
	struct tcase *tc;
	unsigned int num, npend;
	uint64_t *writable;
	bool *inflight;
	struct dev_req *pend;
	uint64_t d;
	unsigned long serial, model_inflight, resets, returned;
};

/* The driver adds a request of random shape. */
static void rh_add(struct rh *r)
{
	struct virtq *vq = &r->tc->vq;
	struct virtq_buf b[RH_MAXN];
	unsigned int n = 1 + rnd(r->num < RH_MAXN ? r->num : RH_MAXN), n_out = rnd(n + 1);
	uint64_t w = 0;
	int err;

	for (unsigned int i = 0; i < n; i++) {
		b[i] = (struct virtq_buf){ r->d + 64 * i, 1 + rnd(64) };
		if (i >= n_out)
			w += b[i].len;
	}
	err = virtq_add(vq, b, n_out, n - n_out, tok(r->serial));
	if (err == 0) {
		r->writable[r->serial] = w;
		r->inflight[r->serial] = true;
		r->model_inflight++;
		r->serial++;
	} else if (err != VIRTQ_ERR_NOSPC) {
		assert_int_equal(err, SLUICE_DMA_ERR_IO);
		assert_true(virtq_is_broken(vq));
	}
	if (rnd(4) == 0)
		virtq_kick(vq);
}

/* The device completes something, honestly or not. */
static void rh_complete(struct rh *r)
{
	struct tcase *tc = r->tc;
	unsigned int kind = rnd(100), num = r->num;

	if (kind < 70 && r->npend) {
		struct dev_req *pend = r->pend;
		unsigned int i = rnd(r->npend);
		uint64_t w = 0;

		for (unsigned int k = 0; k < pend[i].nseg; k++)
			if (pend[i].write[k])
				w += pend[i].len[k];
		dev_push(&tc->dev, pend[i].head, (uint32_t)(rnd(3) ? w : w + 1));
		/* Sometimes a replay: keep the entry around. */
		if (rnd(8))
			pend[i] = pend[--r->npend];
	} else if (kind < 78) {
		dev_push(&tc->dev, num + rnd(1000), rnd(100));
	} else if (kind < 90) {
		dev_push(&tc->dev, rnd(num), rnd(2000));
	} else if (kind < 91) {
		tc->dev.used_idx += (uint16_t)rnd(2 * num + 2);
		__atomic_store_n(&tc->vq.used->idx, tc->dev.used_idx, __ATOMIC_RELEASE);
	}
}

/* The driver polls: only tokens in flight come back, never longer than posted. */
static void rh_poll(struct rh *r)
{
	uint32_t len;
	int status;
	void *t;

	while ((t = virtq_get_used(&r->tc->vq, &len, &status))) {
		unsigned long s = (unsigned long)((uintptr_t)t - 1);

		assert_true(s < r->serial);
		assert_true(r->inflight[s]);
		r->inflight[s] = false;
		r->model_inflight--;
		r->returned++;
		assert_true(len <= r->writable[s]);
		if (status)
			assert_int_equal(status, SLUICE_DMA_ERR_RANGE);
		if (status)
			assert_int_equal(len, 0);
	}
}

/* Broken, or stuck with nothing the device will ever complete: reset the
 * device, take everything back, start over. */
static void rh_reset_if_stuck(struct rh *r)
{
	struct tcase *tc = r->tc;

	if (!virtq_is_broken(&tc->vq) && (virtq_num_free(&tc->vq) != 0 || r->npend))
		return;
	for (void *t; (t = virtq_detach_unused(&tc->vq));) {
		unsigned long s = (unsigned long)((uintptr_t)t - 1);

		assert_true(r->inflight[s]);
		r->inflight[s] = false;
		r->model_inflight--;
	}
	assert_int_equal(r->model_inflight, 0);
	assert_int_equal(virtq_reset(&tc->vq), 0);
	tc->dev.last_avail = 0;
	tc->dev.used_idx = 0;
	r->npend = 0;
	r->resets++;
}

/* One random step: add, the device takes, the device completes, or a poll. */
static void rh_step(struct rh *r)
{
	unsigned int op = rnd(100);

	if (op < 35) {
		rh_add(r);
	} else if (op < 50) {
		/* The device takes what is available. */
		while (r->npend < r->num && dev_pop(&r->tc->dev, &r->pend[r->npend]))
			r->npend++;
	} else if (op < 75) {
		rh_complete(r);
	} else {
		rh_poll(r);
	}
}

static void test_random_hostile(void **state)
{
	struct tcase *tc = *state;
	struct rh r = {
		.tc = tc,
		.num = tc->num,
		/* Per token: posted writable bytes, in flight or not. */
		.writable = calloc(RH_STEPS + 1, sizeof(*r.writable)),
		.inflight = calloc(RH_STEPS + 1, sizeof(*r.inflight)),
		.pend = calloc(tc->num, sizeof(*r.pend)),
	};
	struct virtq_stats st;
	unsigned char *va;

	r.d = coherent(tc, RH_MAXN * 64, (void **)&va);
	rnd_state = 0x5eed0000u + r.num;
	tc->dev.lenient = true;
	for (unsigned int step = 0; step < RH_STEPS; step++) {
		rh_step(&r);
		assert_int_equal(virtq_num_inflight(&tc->vq), r.model_inflight);
		if (step % 64 == 0)
			assert_int_equal(virtq_check(&tc->vq), 0);
		rh_reset_if_stuck(&r);
	}
	virtq_stats_get(&tc->vq, &st);
	/* Every kind of bad entry was seen and the queue went on working. */
	assert_true(st.bad_id > 0);
	assert_true(st.not_in_flight > 0);
	assert_true(st.bad_len > 0);
	assert_true(st.bad_idx > 0);
	assert_true(r.returned > 1000);
	print_message("random_hostile: %lu adds, %lu returned, %lu resets, bad id %lu, "
		      "not in flight %lu, bad len %lu, bad idx %lu\n",
		      r.serial, r.returned, r.resets, (unsigned long)st.bad_id,
		      (unsigned long)st.not_in_flight, (unsigned long)st.bad_len,
		      (unsigned long)st.bad_idx);
	sluice_dma_free_coherent(&tc->f->dl, va, RH_MAXN * 64);
	free(r.pend);
	free(r.inflight);
	free(r.writable);
}

/* ------------------------------------------------------------------ confidential */

static void test_confidential(void **state)
{
	struct tcase *tc = *state;
	const struct sluice_dma_tag t = SLUICE_DMA_TAG_DEFAULT;
	unsigned char *priv = malloc(4096);
	struct virtq_buf b[2];
	struct virtq_stats st;
	uint16_t avail_before = tc->vq.avail->idx;
	uint32_t len;
	int status;

	/* A bounce address: accepted. */
	assert_int_equal(
		sluice_dma_map(&tc->f->dl, &t, priv, 512, SLUICE_DMA_TO_DEVICE, &b[0].dma_addr), 0);
	b[0].len = 512;
	/* The private buffer itself, as a buggy driver might pass it. */
	b[1].dma_addr = (uint64_t)(uintptr_t)(priv + 1024);
	b[1].len = 1024;
	if (conf(tc)) {
		assert_int_equal(virtq_add(&tc->vq, b, 1, 1, tok(1)), SLUICE_DMA_ERR_FAULT);
		stats_of(tc, &st);
		assert_int_equal(st.refused_addr, 1);
		assert_int_equal(st.adds, 0);
		assert_int_equal(virtq_num_free(&tc->vq), tc->num);
		assert_int_equal(tc->vq.avail->idx, avail_before);
		assert_non_null(strstr(tc->f->mp.last_log, "not in shared memory"));
		/* A range that starts shared and runs past the pool is refused too. */
		b[1].dma_addr = b[0].dma_addr;
		b[1].len = 0xfffffff0u;
		assert_int_equal(virtq_add(&tc->vq, b, 1, 1, tok(1)), SLUICE_DMA_ERR_FAULT);
		stats_of(tc, &st);
		assert_int_equal(st.refused_addr, 2);
	}
	assert_int_equal(virtq_add(&tc->vq, b, 1, 0, tok(2)), 0);
	virtq_kick(&tc->vq);
	dev_run(&tc->dev);
	assert_ptr_equal(virtq_get_used(&tc->vq, &len, &status), tok(2));
	assert_int_equal(status, 0);
	sluice_dma_unmap(&tc->f->dl, b[0].dma_addr, 512, SLUICE_DMA_TO_DEVICE);
	free(priv);
}

/* ------------------------------------------------------------------ notification */

static void test_notify(void **state)
{
	struct tcase *tc = *state;
	struct virtq_stats st;
	unsigned char *va;
	uint64_t d = coherent(tc, 64, (void **)&va);
	struct virtq_buf b = { d, 64 };
	uint16_t *avail_event = (uint16_t *)(void *)&tc->vq.used->ring[tc->num];
	uint16_t *used_event = &tc->vq.avail->ring[tc->num];
	uint32_t len;
	int status;

	/* Nothing new since the last kick: no notification. */
	assert_false(virtq_kick(&tc->vq));
	if (!(tc->flags & VIRTQ_INIT_EVENT_IDX)) {
		/* A polling driver asks for no interrupts. */
		assert_int_equal(tc->vq.avail->flags, VIRTQ_AVAIL_F_NO_INTERRUPT);
		tc->vq.used->flags = VIRTQ_USED_F_NO_NOTIFY;
		assert_int_equal(virtq_add(&tc->vq, &b, 0, 1, tok(0)), 0);
		assert_false(virtq_kick(&tc->vq));
		tc->vq.used->flags = 0;
		assert_int_equal(virtq_add(&tc->vq, &b, 0, 1, tok(1)), 0);
		assert_true(virtq_kick(&tc->vq));
		stats_of(tc, &st);
		assert_int_equal(st.kicks, 1);
		assert_int_equal(st.kicks_suppressed, 1);
		assert_int_equal(tc->dev.notified, 1);
		dev_run(&tc->dev);
		assert_ptr_equal(virtq_get_used(&tc->vq, &len, &status), tok(0));
		assert_ptr_equal(virtq_get_used(&tc->vq, &len, &status), tok(1));
	} else {
		/* The device wants a kick once entry 0 is available. */
		*avail_event = 0;
		assert_int_equal(virtq_add(&tc->vq, &b, 0, 1, tok(0)), 0);
		assert_true(virtq_kick(&tc->vq));
		/* ... then only once entry 3 is: entries 1 and 2 go unannounced. */
		*avail_event = 3;
		assert_int_equal(virtq_add(&tc->vq, &b, 0, 1, tok(1)), 0);
		assert_false(virtq_kick(&tc->vq));
		assert_int_equal(virtq_add(&tc->vq, &b, 0, 1, tok(2)), 0);
		assert_false(virtq_kick(&tc->vq));
		/* Entries 3 and 4 in one kick: 3 is crossed. */
		assert_int_equal(virtq_add(&tc->vq, &b, 0, 1, tok(3)), 0);
		assert_int_equal(virtq_add(&tc->vq, &b, 0, 1, tok(4)), 0);
		assert_true(virtq_kick(&tc->vq));
		/* used->flags is ignored with the event index. */
		tc->vq.used->flags = VIRTQ_USED_F_NO_NOTIFY;
		*avail_event = 5;
		assert_int_equal(virtq_add(&tc->vq, &b, 0, 1, tok(5)), 0);
		assert_true(virtq_kick(&tc->vq));
		stats_of(tc, &st);
		assert_int_equal(st.kicks, 3);
		assert_int_equal(st.kicks_suppressed, 2);
		assert_int_equal(tc->dev.notified, 3);
		/* used_event follows what the driver has consumed. */
		dev_run(&tc->dev);
		for (unsigned int i = 0; i < 6; i++) {
			assert_ptr_equal(virtq_get_used(&tc->vq, &len, &status), tok(i));
			assert_int_equal(*used_event, i + 1);
		}
	}
	sluice_dma_free_coherent(&tc->f->dl, va, 64);
}

/* ------------------------------------------------------------------ arguments */

static void test_bad_args(void **state)
{
	struct tcase *tc = *state;
	const struct sluice_dma_tag t = SLUICE_DMA_TAG_DEFAULT;
	unsigned char *va;
	uint64_t d = coherent(tc, 64, (void **)&va);
	struct virtq_buf b[2] = { { d, 32 }, { d + 32, 0 } };
	struct virtq q;
	char meta[64];

	assert_int_equal(virtq_add(&tc->vq, b, 0, 0, tok(0)), SLUICE_DMA_ERR_INVAL);
	assert_int_equal(virtq_add(&tc->vq, b, 1, 0, NULL), SLUICE_DMA_ERR_INVAL);
	assert_int_equal(virtq_add(&tc->vq, NULL, 1, 0, tok(0)), SLUICE_DMA_ERR_INVAL);
	assert_int_equal(virtq_add(&tc->vq, b, 1, 1, tok(0)), SLUICE_DMA_ERR_INVAL);
	assert_int_equal(virtq_add(&tc->vq, b, tc->num, 1, tok(0)), SLUICE_DMA_ERR_INVAL);
	assert_int_equal(virtq_add(&tc->vq, b, 1, UINT32_MAX, tok(0)), SLUICE_DMA_ERR_INVAL);
	assert_int_equal(virtq_add(&tc->vq, b, UINT32_MAX, 2, tok(0)), SLUICE_DMA_ERR_INVAL);
	assert_int_equal(virtq_num_free(&tc->vq), tc->num);
	assert_int_equal(tc->vq.avail->idx, 0);

	assert_int_equal(virtq_meta_size(0), 0);
	assert_int_equal(virtq_meta_size(3), 0);
	assert_int_equal(virtq_meta_size(VIRTQ_MAX_SIZE * 2), 0);
	assert_true(virtq_meta_size(1) > 0);
	assert_true(virtq_meta_size(VIRTQ_MAX_SIZE) > 0);
	assert_int_equal(virtq_init(&q, &tc->f->dl, &t, 0, 48, meta, sizeof(meta), 0, dev_notify,
				    NULL),
			 SLUICE_DMA_ERR_INVAL);
	assert_int_equal(virtq_init(&q, &tc->f->dl, &t, 0, 4, meta, sizeof(meta), 0, NULL, NULL),
			 SLUICE_DMA_ERR_INVAL);
	assert_int_equal(virtq_init(&q, &tc->f->dl, &t, 0, 64, meta, sizeof(meta), 0, dev_notify,
				    NULL),
			 SLUICE_DMA_ERR_NOMEM);
	/* A queue the pool has no room for: nothing is kept. */
	{
		size_t ml = virtq_meta_size(VIRTQ_MAX_SIZE);
		void *m = malloc(ml);

		assert_int_equal(virtq_init(&q, &tc->f->dl, &t, 0, VIRTQ_MAX_SIZE, m, ml,
					    VIRTQ_INIT_INDIRECT, dev_notify, NULL),
				 SLUICE_DMA_ERR_NOMEM);
		free(m);
	}
	sluice_dma_free_coherent(&tc->f->dl, va, 64);
}

/* ------------------------------------------------------------------ main */

static void case_name(const void *c, char *buf, size_t len)
{
	const struct tcase *tc = c;

	snprintf(buf, len, "%s/%u%s%s%s%s", sluice_dma_bounce_policy_name(tc->policy), tc->num,
		 tc->flags ? "/" : "/plain", tc->flags & VIRTQ_INIT_CONFIDENTIAL ? "conf" : "",
		 tc->flags & VIRTQ_INIT_INDIRECT ? "+indirect" : "",
		 tc->flags & VIRTQ_INIT_EVENT_IDX ? "+event_idx" : "");
}

int main(void)
{
	static const struct test_matrix_test all[] = {
		{ "rings", test_rings },
		{ "single", test_single },
		{ "chain", test_chain },
		{ "indirect_limits", test_indirect_limits },
		{ "full_then_recover", test_full_then_recover },
		{ "wraparound", test_wraparound },
		{ "many_in_flight", test_many_in_flight },
		{ "bad_id", test_bad_id },
		{ "not_in_flight", test_not_in_flight },
		{ "non_head_id", test_non_head_id },
		{ "bad_len", test_bad_len },
		{ "idx_jump", test_idx_jump },
		{ "next_rewritten", test_next_rewritten },
		{ "read_once", test_read_once },
		{ "flood", test_flood },
		{ "random_hostile", test_random_hostile },
		{ "confidential", test_confidential },
		{ "notify", test_notify },
		{ "bad_args", test_bad_args },
	};
	return test_matrix_run("virtqueue", all, sizeof(all) / sizeof(all[0]), cases,
			       sizeof(cases[0]), NCASES, case_name, setup, teardown);
}
