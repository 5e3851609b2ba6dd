/* SPDX-License-Identifier: MIT */
/*
 * fuzz_virtqueue_used.c - the split virtqueue (drivers/virtio/virtqueue.c)
 * against a malicious device.
 *
 * The adversary controls everything the device can write: used entries with
 * any id (in flight, replayed, out of range, a free or non-head descriptor) and
 * any length, used->idx set anywhere at any time, used->flags and avail_event,
 * and it scribbles on the descriptor table and the available ring, which the
 * driver must never read back. Through the host build's read hook it also
 * changes each shared field right after the queue has read it (a double
 * fetch would then see two values). The input also picks the queue size, the
 * flags (confidential, indirect, event index), the bounce policy, and the
 * driver's own calls: add (some with zero lengths or private addresses), kick,
 * get_used, has_used, device reset.
 *
 * Checked after every step against a model of the requests in flight: a token
 * comes back only if it is in flight, and only for the id the queue read; the
 * length is exactly the one read, or 0 with SLUICE_DMA_ERR_RANGE when it exceeds the
 * writable bytes posted; add and get_used return the codes the model predicts
 * (SLUICE_DMA_ERR_IO once broken); free and in-flight counts and statistics agree
 * with the model; virtq_check() passes (after every step on one input in
 * VQF_DEEP_SAMPLE, before every reset and at the end on all); in confidential
 * mode every address the device is given lies in shared memory; at the end
 * every descriptor comes back and the DMA layer is clean.
 */
#include "tests/fuzz/fuzz_common.h"

#include <stdlib.h>
#include <string.h>

#include "drivers/virtio/virtqueue.h"

#define VQF_MAX_NUM 256u
#define VQF_MAX_BUFS 20u
#define VQF_BUF_BYTES 65536u
#define VQF_MAX_OPS 2000u

/**
 * struct vqf_req - the model of one request.
 * @inflight: added and not yet returned.
 * @head: its ring head (read from the available ring, as a device would).
 * @writable: device-writable bytes posted.
 * @need: ring descriptors it holds.
 */
struct vqf_req {
	bool inflight;
	uint16_t head;
	uint64_t writable;
	unsigned int need;
};

/**
 * struct vqf - one run.
 * @in: the input.
 * @fd: the DMA layer (fuzz_common.h's, restored for every input).
 * @vq: the queue under test.
 * @num: its size.
 * @flags: its VIRTQ_INIT_* flags.
 * @reqs: request models; the token of request k is &reqs[k].
 * @head_req: request index of each head in flight, or -1.
 * @model_free: descriptors the model says are free.
 * @model_inflight: requests in flight.
 * @adds: successful adds.
 * @completions: tokens returned.
 * @refused: adds refused for a private address.
 * @dev_used: the device's used index.
 * @last_done: head of the last completed request (for replays).
 * @notified: notify callbacks.
 * @mutate: whether the read hook changes what was just read.
 * @id_reads: used ids the queue read.
 * @last_id: the last used id it read (before any change).
 * @last_len: the last used length it read.
 * @deep: this input runs the queue's self-check after every step.
 */
struct vqf {
	struct fuzz_in *in;
	struct fuzz_dma *fd;
	struct virtq vq;
	unsigned int num;
	unsigned int flags;
	struct vqf_req reqs[VQF_MAX_NUM];
	int head_req[VQF_MAX_NUM];
	unsigned int model_free;
	unsigned int model_inflight;
	uint64_t adds, completions, refused;
	uint16_t dev_used;
	uint16_t last_done;
	unsigned long notified;
	bool mutate;
	unsigned long id_reads;
	uint32_t last_id, last_len;
	bool deep;
};

/* One input in this many runs virtq_check() after every step. */
#define VQF_DEEP_SAMPLE 4u

static struct vqf vqf;
/* Private memory: in confidential mode the queue must refuse it. */
static unsigned char vqf_private[8192];

static void vqf_notify(void *ctx, uint16_t queue_index)
{
	struct vqf *s = ctx;

	FUZZ_CHECK(queue_index == 5);
	s->notified++;
}

/* The device's hand on every shared read: note what was read, maybe change it. */
static void vqf_hook(void *ctx, enum virtq_shared_read what, volatile void *addr)
{
	struct vqf *s = ctx;
	bool change = s->mutate && (fuzz_u8(s->in) & 1);

	switch (what) {
	case VIRTQ_READ_USED_ID:
		s->id_reads++;
		s->last_id = *(volatile uint32_t *)addr;
		if (change)
			*(volatile uint32_t *)addr = fuzz_u32(s->in);
		break;
	case VIRTQ_READ_USED_LEN:
		s->last_len = *(volatile uint32_t *)addr;
		if (change)
			*(volatile uint32_t *)addr = fuzz_u32(s->in);
		break;
	case VIRTQ_READ_USED_IDX:
	case VIRTQ_READ_USED_FLAGS:
	case VIRTQ_READ_AVAIL_EVENT:
		if (change)
			*(volatile uint16_t *)addr = fuzz_u16(s->in);
		break;
	default:
		FUZZ_CHECK(!"unknown shared read");
	}
}

static void *vqf_token(struct vqf *s, unsigned int k)
{
	return &s->reqs[k];
}

/* The model's request for a token, checking that it is one of ours in flight. */
static struct vqf_req *vqf_req_of(struct vqf *s, void *token)
{
	uintptr_t t = (uintptr_t)token, base = (uintptr_t)s->reqs;
	struct vqf_req *r;

	FUZZ_CHECK(t >= base && t < base + sizeof(s->reqs) &&
		   (t - base) % sizeof(struct vqf_req) == 0);
	r = token;
	FUZZ_CHECK(r->inflight);
	FUZZ_CHECK(r->head < s->num && s->head_req[r->head] == (int)(r - s->reqs));
	return r;
}

static void vqf_complete(struct vqf *s, struct vqf_req *r)
{
	r->inflight = false;
	s->head_req[r->head] = -1;
	s->model_free += r->need;
	s->model_inflight--;
	s->completions++;
	s->last_done = r->head;
}

/*
 * Counters and statistics against the model after every step. The queue's
 * self-check walks every descriptor and head, which at 256 entries costs more
 * than the step: it runs after every step in a sample of inputs (@deep, one in
 * VQF_DEEP_SAMPLE), and in every input before a reset (which rebuilds the free
 * list and would hide a corruption) and at the end. A broken free list or chain
 * stays broken until then, so every input still meets the check, only later.
 */
static void vqf_check_state(struct vqf *s, bool deep)
{
	struct virtq_stats st;

	FUZZ_CHECK(virtq_num_free(&s->vq) == s->model_free);
	FUZZ_CHECK(virtq_num_inflight(&s->vq) == s->model_inflight);
	if (deep)
		FUZZ_CHECK(virtq_check(&s->vq) == 0);
	virtq_stats_get(&s->vq, &st);
	FUZZ_CHECK(st.adds == s->adds);
	FUZZ_CHECK(st.completions == s->completions);
	FUZZ_CHECK(st.refused_addr == s->refused);
	FUZZ_CHECK(st.indirect_adds <= st.adds);
}

/* What the device finds for a new head: the addresses it will touch are shared
 * (confidential mode), the chain ends, and it posts the writable bytes we know. */
static void vqf_device_view(struct vqf *s, uint16_t head, const struct vqf_req *r)
{
	const struct virtq_desc *d = &s->vq.desc[head];
	bool conf = s->flags & VIRTQ_INIT_CONFIDENTIAL;
	uint64_t writable = 0;

	if (d->flags & VIRTQ_DESC_F_INDIRECT) {
		const struct virtq_desc *t = (const struct virtq_desc *)(uintptr_t)d->addr;
		unsigned int n = d->len / sizeof(*t);

		FUZZ_CHECK(r->need == 1 && n >= 2 && n <= VIRTQ_INDIRECT_MAX);
		FUZZ_CHECK(!conf || mock_port_is_shared(&s->fd->mp, t, d->len));
		for (unsigned int i = 0; i < n; i++) {
			FUZZ_CHECK(!conf ||
				   mock_port_is_shared(&s->fd->mp, (void *)(uintptr_t)t[i].addr,
						       t[i].len));
			if (t[i].flags & VIRTQ_DESC_F_WRITE)
				writable += t[i].len;
			FUZZ_CHECK(!(t[i].flags & VIRTQ_DESC_F_NEXT) == (i + 1 == n));
		}
	} else {
		unsigned int hops = 0;

		for (;;) {
			FUZZ_CHECK(hops++ < r->need);
			FUZZ_CHECK(!conf ||
				   mock_port_is_shared(&s->fd->mp, (void *)(uintptr_t)d->addr,
						       d->len));
			if (d->flags & VIRTQ_DESC_F_WRITE)
				writable += d->len;
			if (!(d->flags & VIRTQ_DESC_F_NEXT))
				break;
			FUZZ_CHECK(d->next < s->num);
			d = &s->vq.desc[d->next];
		}
		FUZZ_CHECK(hops == r->need);
	}
	FUZZ_CHECK(writable == r->writable);
}

static void vqf_add(struct vqf *s, uint64_t buf_dma)
{
	struct fuzz_in *in = s->in;
	unsigned int lim = s->num + 1 < VQF_MAX_BUFS ? s->num + 1 : VQF_MAX_BUFS;
	unsigned int n = 1 + fuzz_below(in, lim), n_out = fuzz_below(in, n + 1);
	uint8_t kind = fuzz_u8(in);
	struct virtq_buf bufs[VQF_MAX_BUFS];
	bool zero = false, private = false;
	uint64_t writable = 0;
	unsigned int k, need;
	int expect, rc;

	for (unsigned int i = 0; i < n; i++) {
		bufs[i].len = 1 + fuzz_below(in, 4096);
		bufs[i].dma_addr = buf_dma + fuzz_below(in, VQF_BUF_BYTES - 4096);
		if (i >= n_out)
			writable += bufs[i].len;
	}
	if ((kind & 3) == 1) {
		bufs[kind % n].len = 0;
		zero = true;
	} else if ((kind & 3) == 2) {
		bufs[kind % n].dma_addr = (uint64_t)(uintptr_t)vqf_private;
		bufs[kind % n].len = 1 + (kind % 4096u);
		private = true;
		writable = 0;
		for (unsigned int i = n_out; i < n; i++)
			writable += bufs[i].len;
	}
	for (k = 0; k < VQF_MAX_NUM && s->reqs[k].inflight; k++)
		;
	FUZZ_CHECK(k < VQF_MAX_NUM);
	need = (s->flags & VIRTQ_INIT_INDIRECT) && n > 1 && n <= VIRTQ_INDIRECT_MAX ? 1 : n;
	if (virtq_is_broken(&s->vq))
		expect = SLUICE_DMA_ERR_IO;
	else if (n > s->num || zero)
		expect = SLUICE_DMA_ERR_INVAL;
	else if (private && (s->flags & VIRTQ_INIT_CONFIDENTIAL))
		expect = SLUICE_DMA_ERR_FAULT;
	else if (need > s->model_free)
		expect = VIRTQ_ERR_NOSPC;
	else
		expect = 0;
	{
		uint16_t avail_before = s->vq.avail->idx;

		rc = virtq_add(&s->vq, bufs, n_out, n - n_out, vqf_token(s, k));
		FUZZ_CHECK(rc == expect);
		/* A refused request leaves no trace the device could see. */
		if (rc)
			FUZZ_CHECK(s->vq.avail->idx == avail_before);
	}
	if (rc == SLUICE_DMA_ERR_FAULT)
		s->refused++;
	if (rc)
		return;
	{
		uint16_t idx = s->vq.avail->idx;
		uint16_t head = s->vq.avail->ring[(uint16_t)(idx - 1) & (s->num - 1)];
		struct vqf_req *r = &s->reqs[k];

		FUZZ_CHECK(head < s->num && s->head_req[head] == -1);
		r->inflight = true;
		r->head = head;
		r->writable = writable;
		r->need = need;
		s->head_req[head] = (int)k;
		s->model_free -= need;
		s->model_inflight++;
		s->adds++;
		vqf_device_view(s, head, r);
	}
}

/* Pick a head in flight (the k-th in index order), or -1. */
static int vqf_pick_inflight(struct vqf *s)
{
	unsigned int k;

	if (!s->model_inflight)
		return -1;
	k = fuzz_below(s->in, s->model_inflight);
	for (unsigned int h = 0; h < s->num; h++)
		if (s->head_req[h] >= 0 && k-- == 0)
			return (int)h;
	FUZZ_CHECK(!"model lost a head");
	return -1;
}

static void vqf_device_push(struct vqf *s)
{
	struct fuzz_in *in = s->in;
	uint8_t how = fuzz_u8(in);
	int h = vqf_pick_inflight(s);
	uint64_t writable = h >= 0 ? s->reqs[s->head_req[h]].writable : 0;
	struct virtq_used_elem *e;
	uint32_t id, len;

	switch (how & 7) {
	case 0:
	case 1:
	case 2:
		id = h >= 0 ? (uint32_t)h : fuzz_u32(in);
		break;
	case 3:
		id = fuzz_u32(in); /* out of range, mostly */
		break;
	case 4:
		id = s->last_done; /* a replay */
		break;
	default:
		id = fuzz_below(in, s->num); /* free, in flight or not a head */
		break;
	}
	switch ((how >> 3) & 7) {
	case 0:
	case 1:
	case 2:
		len = (uint32_t)writable;
		break;
	case 3:
		len = (uint32_t)writable + 1;
		break;
	case 4:
		len = fuzz_u32(in);
		break;
	case 5:
		len = 0;
		break;
	default:
		len = writable ? (uint32_t)(fuzz_u32(in) % (writable + 1)) : 0;
		break;
	}
	e = &s->vq.used->ring[s->dev_used & (s->num - 1)];
	e->id = id;
	e->len = len;
	s->dev_used++;
	/* Sometimes the device forgets to publish, or publishes several at once. */
	if (!(how & 0x40))
		__atomic_store_n(&s->vq.used->idx, s->dev_used, __ATOMIC_RELEASE);
}

static void vqf_get_used(struct vqf *s)
{
	bool want_status = fuzz_u8(s->in) & 1;
	unsigned long reads = s->id_reads;
	uint32_t len = 12345;
	int status = 777;
	void *t;

	t = virtq_get_used(&s->vq, &len, want_status ? &status : NULL);
	if (!t) {
		FUZZ_CHECK(len == 0);
		if (want_status)
			FUZZ_CHECK(status == (virtq_is_broken(&s->vq) ? SLUICE_DMA_ERR_IO : 0));
		return;
	}
	{
		struct vqf_req *r = vqf_req_of(s, t);

		/* The token is the one of the id the queue read, not of a later value. */
		FUZZ_CHECK(s->id_reads > reads);
		FUZZ_CHECK(s->last_id == r->head);
		if (s->last_len > r->writable) {
			FUZZ_CHECK(len == 0);
			if (want_status)
				FUZZ_CHECK(status == SLUICE_DMA_ERR_RANGE);
		} else {
			FUZZ_CHECK(len == s->last_len);
			if (want_status)
				FUZZ_CHECK(status == 0);
		}
		vqf_complete(s, r);
	}
}

/* The driver's side of a device reset: take every chain back, reset the rings. */
static void vqf_reset(struct vqf *s)
{
	void *t;

	FUZZ_CHECK(virtq_check(&s->vq) == 0);

	while ((t = virtq_detach_unused(&s->vq)) != NULL)
		vqf_complete(s, vqf_req_of(s, t));
	FUZZ_CHECK(s->model_inflight == 0 && virtq_num_free(&s->vq) == s->num);
	FUZZ_CHECK(virtq_reset(&s->vq) == 0);
	FUZZ_CHECK(!virtq_is_broken(&s->vq) && s->vq.used->idx == 0 && s->vq.avail->idx == 0);
	s->dev_used = 0;
}

/* Writes the driver must never read back: descriptors and the available ring. */
static void vqf_scribble(struct vqf *s)
{
	struct fuzz_in *in = s->in;
	unsigned int i = fuzz_below(in, s->num);

	switch (fuzz_u8(in) & 3) {
	case 0:
		s->vq.desc[i].next = fuzz_u16(in);
		s->vq.desc[i].flags = fuzz_u16(in);
		break;
	case 1:
		s->vq.desc[i].len = fuzz_u32(in);
		s->vq.desc[i].addr = fuzz_u64(in);
		break;
	case 2:
		s->vq.avail->ring[i] = fuzz_u16(in);
		break;
	default:
		/* used->flags and avail_event are the device's own: the queue reads
		 * them (once per kick) and must live with any value. */
		s->vq.used->flags = fuzz_u16(in);
		*(uint16_t *)(void *)&s->vq.used->ring[s->num] = fuzz_u16(in);
		break;
	}
}

int fuzz_virtqueue_used_one(const uint8_t *data, size_t size)
{
	struct fuzz_in in = fuzz_in_start(data, size);
	struct vqf *s = &vqf;
	const struct sluice_dma_tag tag = SLUICE_DMA_TAG_DEFAULT;
	enum sluice_dma_bounce_policy policy;
	unsigned char *meta;
	size_t meta_len;
	unsigned int meta_off;
	uint64_t buf_dma = 0;
	void *buf;

	memset(s, 0, sizeof(*s));
	s->in = &in;
	s->deep = fuzz_sampled(&in, 0x7671, VQF_DEEP_SAMPLE);
	s->num = 1u << fuzz_below(&in, 9);
	s->flags = fuzz_u8(&in) & 7;
	policy = (enum sluice_dma_bounce_policy)fuzz_below(&in, SLUICE_DMA_POLICY_COUNT);
	meta_off = fuzz_below(&in, 8);
	for (unsigned int h = 0; h < VQF_MAX_NUM; h++)
		s->head_req[h] = -1;
	s->fd = fuzz_dma_begin(&in, policy, 1, SLUICE_DMA_SCRUB_COPY, FUZZ_DMA_ONE_POOL);
	meta_len = virtq_meta_size(s->num);
	meta = malloc(meta_len + meta_off);
	FUZZ_CHECK(meta != NULL && meta_len);
	FUZZ_CHECK(virtq_init(&s->vq, &s->fd->dl, &tag, 5, s->num, meta + meta_off, meta_len,
			      s->flags, vqf_notify, s) == 0);
	s->vq.read_hook = vqf_hook;
	s->vq.read_hook_ctx = s;
	s->model_free = s->num;
	buf = sluice_dma_alloc_coherent(&s->fd->dl, &tag, VQF_BUF_BYTES, &buf_dma);
	FUZZ_CHECK(buf != NULL);

	for (unsigned int ops = 0; fuzz_more(&in) && ops < VQF_MAX_OPS; ops++) {
		switch (fuzz_u8(&in) % 10) {
		case 0:
		case 1:
			vqf_add(s, buf_dma);
			break;
		case 2:
		case 3:
			vqf_device_push(s);
			break;
		case 4:
		case 5:
			vqf_get_used(s);
			break;
		case 6: {
			unsigned long before = s->notified;
			bool kicked = virtq_kick(&s->vq);

			FUZZ_CHECK(s->notified == before + kicked);
			break;
		}
		case 7:
			switch (fuzz_u8(&in) & 3) {
			case 0:
				s->dev_used = fuzz_u16(&in); /* an index jump */
				__atomic_store_n(&s->vq.used->idx, s->dev_used, __ATOMIC_RELEASE);
				break;
			case 1:
				s->mutate = !s->mutate;
				break;
			case 2:
				(void)virtq_has_used(&s->vq);
				break;
			default:
				vqf_scribble(s);
				break;
			}
			break;
		case 8:
			vqf_scribble(s);
			break;
		default:
			if (fuzz_u8(&in) < 16)
				vqf_reset(s);
			else
				vqf_get_used(s);
			break;
		}
		vqf_check_state(s, s->deep);
	}

	/* As a driver after a device reset: everything comes back. */
	s->vq.read_hook = NULL;
	vqf_reset(s);
	vqf_check_state(s, true);
	FUZZ_CHECK(virtq_destroy(&s->vq) == 0);
	sluice_dma_free_coherent(&s->fd->dl, buf, VQF_BUF_BYTES);
	fuzz_dma_end(s->fd);
	free(meta);
	return 0;
}
