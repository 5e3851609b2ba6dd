/* SPDX-License-Identifier: MIT */
/*
 * virtqueue.c - split virtqueue (virtio 1.2, section 2.7) for a guest whose host
 * is the adversary.
 *
 * Rules that every function here keeps:
 *  - The rings are shared memory: the device may rewrite any byte at any time.
 *    Nothing is ever read back from the descriptor table or the available ring;
 *    from the used ring, used->idx is read once per refill and each entry's id
 *    and len once, into locals, and only the locals are validated and used.
 *  - All state that decides what is free, in flight or how long a chain is
 *    lives in the caller's private metadata (@heads, @next).
 *  - A misbehaving device costs availability (entries skipped, requests failed,
 *    the queue broken) but never memory safety or the private bookkeeping.
 *
 * Not here: transports, feature negotiation, interrupts (completion is by
 * polling), the packed ring, locking.
 */
#include "drivers/virtio/virtqueue.h"

#include <string.h>

/* End of the private free list (queue indices stop at 32767). */
#define VIRTQ_NONE 0xffffu
/* Bad-entry messages per queue, over its whole life (resets included: a device
 * could otherwise break the queue after every reset); counters keep counting. */
#define VIRTQ_LOG_BUDGET 32u

#define VIRTQ_HEAD_INFLIGHT 0x1u
#define VIRTQ_HEAD_INDIRECT 0x2u

/**
 * struct virtq_head - private state of a descriptor that heads a chain.
 * @token: the caller's cookie.
 * @writable: device-writable bytes posted in the chain: the most a used entry
 *	may report.
 * @ndesc: ring descriptors the chain holds (1 for an indirect request): how
 *	many to give back, counted here and not by following next fields.
 * @state: VIRTQ_HEAD_*.
 */
struct virtq_head {
	void *token;
	uint64_t writable;
	uint16_t ndesc;
	uint16_t state;
};

/* ------------------------------------------------------------------ logging */

static void virtq_put_str(char *buf, size_t *pos, size_t cap, const char *s)
{
	while (*s && *pos + 1 < cap)
		buf[(*pos)++] = *s++;
}

static void virtq_put_u64(char *buf, size_t *pos, size_t cap, uint64_t v, unsigned int base)
{
	char digits[20];
	int n = 0;

	if (base == 16)
		virtq_put_str(buf, pos, cap, "0x");
	do {
		digits[n++] = "0123456789abcdef"[v % base];
		v /= base;
	} while (v);
	while (n && *pos + 1 < cap)
		buf[(*pos)++] = digits[--n];
}

/*
 * One line through the DMA layer's log op: "virtq <index>: " then @fmt with
 * each "%u" (decimal) or "%x" (0x-hex) replaced by the next of @a, @b, @c.
 * No printf: this is freestanding.
 */
static void virtq_log(struct virtq *vq, enum sluice_dma_log_level level, const char *fmt,
		      uint64_t a, uint64_t b, uint64_t c)
{
	const struct sluice_dma_port_ops *ops = vq->dl ? &vq->dl->ops : NULL;
	uint64_t args[3] = { a, b, c };
	unsigned int next_arg = 0;
	char line[160];
	size_t pos = 0;

	if (!ops || !ops->log)
		return;
	virtq_put_str(line, &pos, sizeof(line), "virtq ");
	virtq_put_u64(line, &pos, sizeof(line), vq->index, 10);
	virtq_put_str(line, &pos, sizeof(line), ": ");
	for (const char *p = fmt; *p && pos + 1 < sizeof(line); p++) {
		if (p[0] == '%' && (p[1] == 'u' || p[1] == 'x') && next_arg < 3) {
			virtq_put_u64(line, &pos, sizeof(line), args[next_arg++],
				      p[1] == 'x' ? 16 : 10);
			p++;
		} else {
			line[pos++] = *p;
		}
	}
	line[pos] = '\0';
	ops->log(ops->ctx, level, line);
}

/* A bad entry from the device: rate-limited, so a hostile device cannot turn
 * the serial console into a denial of service. The counters are exact. */
static void virtq_log_bad(struct virtq *vq, enum sluice_dma_log_level level, const char *fmt,
			  uint64_t a, uint64_t b, uint64_t c)
{
	if (!vq->log_budget)
		return;
	vq->log_budget--;
	virtq_log(vq, level, fmt, a, b, c);
	if (!vq->log_budget)
		virtq_log(vq, SLUICE_DMA_LOG_WARN,
			  "further bad used entries are counted, not logged", 0, 0, 0);
}

/* ------------------------------------------------------------ shared reads */

/*
 * Every read of a device-writable field goes through these: one load of the
 * right width (no tearing, no compiler re-read), then the value lives in a
 * local. In host tests the hook may change the field right after the read;
 * the queue must not notice.
 */
#ifdef SLUICE_HOST
#define VIRTQ_READ_HOOK(vq, what, addr)                                       \
	do {                                                                  \
		if ((vq)->read_hook)                                          \
			(vq)->read_hook((vq)->read_hook_ctx, (what), (addr)); \
	} while (0)
#else
#define VIRTQ_READ_HOOK(vq, what, addr) ((void)(vq), (void)(what), (void)(addr))
#endif

/* used->idx with acquire: the entries it covers are read after it. */
static uint16_t virtq_read_used_idx(struct virtq *vq)
{
	uint16_t v = __atomic_load_n(&vq->used->idx, __ATOMIC_ACQUIRE);

	VIRTQ_READ_HOOK(vq, VIRTQ_READ_USED_IDX, &vq->used->idx);
	return virtio_le16_to_cpu(v);
}

static uint32_t virtq_read_u32(struct virtq *vq, uint32_t *p, enum virtq_shared_read what)
{
	uint32_t v = __atomic_load_n(p, __ATOMIC_RELAXED);

	VIRTQ_READ_HOOK(vq, what, p);
	return virtio_le32_to_cpu(v);
}

static uint16_t virtq_read_u16(struct virtq *vq, uint16_t *p, enum virtq_shared_read what)
{
	uint16_t v = __atomic_load_n(p, __ATOMIC_RELAXED);

	VIRTQ_READ_HOOK(vq, what, p);
	return virtio_le16_to_cpu(v);
}

/* avail_event sits right after used->ring[num]; used_event after avail->ring[num]. */
static uint16_t *virtq_avail_event(struct virtq *vq)
{
	return (uint16_t *)(void *)&vq->used->ring[vq->num];
}

static uint16_t *virtq_used_event(struct virtq *vq)
{
	return &vq->avail->ring[vq->num];
}

/* ------------------------------------------------------------------ setup */

static bool virtq_num_ok(unsigned int num)
{
	return num && num <= VIRTQ_MAX_SIZE && !(num & (num - 1));
}

/* Meta layout: heads[num] (8-aligned), next[num], mark[num]. */
size_t virtq_meta_size(unsigned int num)
{
	if (!virtq_num_ok(num))
		return 0;
	/* +7: the caller's memory may have any alignment. */
	return 7 + (size_t)num * (sizeof(struct virtq_head) + sizeof(uint16_t) + 1);
}

/* Private state as after init; the rings must already be zero. */
static void virtq_init_state(struct virtq *vq)
{
	memset(vq->heads, 0, (size_t)vq->num * sizeof(*vq->heads));
	for (unsigned int i = 0; i < vq->num; i++)
		vq->next[i] = (uint16_t)(i + 1 < vq->num ? i + 1 : VIRTQ_NONE);
	vq->free_head = 0;
	vq->num_free = vq->num;
	vq->num_inflight = 0;
	vq->avail_idx = 0;
	vq->kicked_idx = 0;
	vq->last_used = 0;
	vq->used_seen = 0;
	vq->detach_pos = 0;
	vq->broken = false;
	/* Polling driver without EVENT_IDX: ask for no interrupts. With EVENT_IDX
	 * the device ignores this flag and follows used_event instead. */
	if (!(vq->flags & VIRTQ_INIT_EVENT_IDX))
		__atomic_store_n(&vq->avail->flags, virtio_cpu_to_le16(VIRTQ_AVAIL_F_NO_INTERRUPT),
				 __ATOMIC_RELAXED);
}

int virtq_init(struct virtq *vq, struct sluice_dma_layer *dl, const struct sluice_dma_tag *tag,
	       uint16_t index, unsigned int num, void *meta, size_t meta_len, unsigned int flags,
	       void (*notify)(void *ctx, uint16_t queue_index), void *ctx)
{
	size_t ind_bytes = (size_t)num * VIRTQ_INDIRECT_MAX * sizeof(struct virtq_desc);
	uintptr_t m;
	int err = SLUICE_DMA_ERR_NOMEM;

	if (!vq || !dl || !tag || !meta || !notify || !virtq_num_ok(num) ||
	    sluice_dma_tag_check(tag))
		return SLUICE_DMA_ERR_INVAL;
	if (meta_len < virtq_meta_size(num))
		return SLUICE_DMA_ERR_NOMEM;
	memset(vq, 0, sizeof(*vq));
	vq->dl = dl;
	vq->tag = *tag;
	/* Page alignment covers the spec's 16 / 2 / 4 and keeps each ring off
	 * any page it would share with another allocation. */
	vq->tag.alloc_align_mask |= SLUICE_DMA_PAGE_SIZE - 1;
	vq->index = index;
	vq->num = num;
	vq->flags = flags;
	vq->notify = notify;
	vq->notify_ctx = ctx;
	vq->log_budget = VIRTQ_LOG_BUDGET;

	m = ((uintptr_t)meta + 7) & ~(uintptr_t)7;
	vq->heads = (struct virtq_head *)m;
	vq->next = (uint16_t *)(vq->heads + num);
	vq->mark = (uint8_t *)(vq->next + num);

	vq->desc =
		sluice_dma_alloc_coherent(dl, &vq->tag, VIRTQ_DESC_TABLE_SIZE(num), &vq->desc_dma);
	if (!vq->desc)
		goto fail_desc;
	vq->avail = sluice_dma_alloc_coherent(dl, &vq->tag, VIRTQ_AVAIL_SIZE(num), &vq->avail_dma);
	if (!vq->avail)
		goto fail_avail;
	vq->used = sluice_dma_alloc_coherent(dl, &vq->tag, VIRTQ_USED_SIZE(num), &vq->used_dma);
	if (!vq->used)
		goto fail_used;
	if (flags & VIRTQ_INIT_INDIRECT) {
		vq->indirect =
			sluice_dma_alloc_coherent(dl, &vq->tag, ind_bytes, &vq->indirect_dma);
		if (!vq->indirect)
			goto fail_indirect;
	}
	/* The DMA layer hands out shared memory only; in confidential mode the
	 * invariant "every address a device sees is shared" is checked anyway. */
	if ((flags & VIRTQ_INIT_CONFIDENTIAL) &&
	    (!sluice_dma_addr_is_shared(dl, vq->desc_dma, VIRTQ_DESC_TABLE_SIZE(num)) ||
	     !sluice_dma_addr_is_shared(dl, vq->avail_dma, VIRTQ_AVAIL_SIZE(num)) ||
	     !sluice_dma_addr_is_shared(dl, vq->used_dma, VIRTQ_USED_SIZE(num)) ||
	     (vq->indirect && !sluice_dma_addr_is_shared(dl, vq->indirect_dma, ind_bytes)))) {
		virtq_log(vq, SLUICE_DMA_LOG_ERR, "rings not in shared memory", 0, 0, 0);
		err = SLUICE_DMA_ERR_FAULT;
		goto fail_shared;
	}
	virtq_init_state(vq);
	return 0;

fail_shared:
	if (vq->indirect)
		sluice_dma_free_coherent(dl, vq->indirect, ind_bytes);
fail_indirect:
	sluice_dma_free_coherent(dl, vq->used, VIRTQ_USED_SIZE(num));
fail_used:
	sluice_dma_free_coherent(dl, vq->avail, VIRTQ_AVAIL_SIZE(num));
fail_avail:
	sluice_dma_free_coherent(dl, vq->desc, VIRTQ_DESC_TABLE_SIZE(num));
fail_desc:
	virtq_log(vq, SLUICE_DMA_LOG_ERR, "cannot set up a queue of %u entries (error -%u)", num,
		  (uint64_t)-err, 0);
	vq->dl = NULL;
	return err;
}

void virtq_ring_addrs(const struct virtq *vq, uint64_t *desc, uint64_t *driver, uint64_t *device)
{
	*desc = vq->desc_dma;
	*driver = vq->avail_dma;
	*device = vq->used_dma;
}

int virtq_destroy(struct virtq *vq)
{
	if (!vq->dl)
		return 0;
	if (vq->num_inflight)
		return SLUICE_DMA_ERR_BUSY;
	if (vq->indirect)
		sluice_dma_free_coherent(vq->dl, vq->indirect,
					 (size_t)vq->num * VIRTQ_INDIRECT_MAX *
						 sizeof(struct virtq_desc));
	sluice_dma_free_coherent(vq->dl, vq->used, VIRTQ_USED_SIZE(vq->num));
	sluice_dma_free_coherent(vq->dl, vq->avail, VIRTQ_AVAIL_SIZE(vq->num));
	sluice_dma_free_coherent(vq->dl, vq->desc, VIRTQ_DESC_TABLE_SIZE(vq->num));
	vq->desc = NULL;
	vq->avail = NULL;
	vq->used = NULL;
	vq->indirect = NULL;
	vq->dl = NULL;
	return 0;
}

int virtq_reset(struct virtq *vq)
{
	if (vq->num_inflight)
		return SLUICE_DMA_ERR_BUSY;
	memset(vq->desc, 0, VIRTQ_DESC_TABLE_SIZE(vq->num));
	memset(vq->avail, 0, VIRTQ_AVAIL_SIZE(vq->num));
	memset(vq->used, 0, VIRTQ_USED_SIZE(vq->num));
	virtq_init_state(vq);
	return 0;
}

/* ------------------------------------------------------------------ add */

static void virtq_write_desc(struct virtq_desc *d, uint64_t addr, uint32_t len, uint16_t flags,
			     uint16_t next)
{
	d->addr = virtio_cpu_to_le64(addr);
	d->len = virtio_cpu_to_le32(len);
	d->flags = virtio_cpu_to_le16(flags);
	d->next = virtio_cpu_to_le16(next);
}

int virtq_add(struct virtq *vq, const struct virtq_buf *bufs, unsigned int n_out, unsigned int n_in,
	      void *token)
{
	struct virtq_head *h;
	uint64_t writable = 0;
	unsigned int n, need;
	uint16_t head, d;
	bool indirect;

	if (vq->broken)
		return SLUICE_DMA_ERR_IO;
	/* Each count checked alone first: n_out + n_in could wrap. */
	if (!bufs || !token || n_out > vq->num || n_in > vq->num)
		return SLUICE_DMA_ERR_INVAL;
	n = n_out + n_in;
	if (!n || n > vq->num)
		return SLUICE_DMA_ERR_INVAL;
	for (unsigned int i = 0; i < n; i++) {
		if (!bufs[i].len)
			return SLUICE_DMA_ERR_INVAL;
		if (i >= n_out)
			writable += bufs[i].len;
	}
	/* Before any descriptor is written: a refused request leaves no trace
	 * the device could see. */
	if (vq->flags & VIRTQ_INIT_CONFIDENTIAL) {
		for (unsigned int i = 0; i < n; i++) {
			if (sluice_dma_addr_is_shared(vq->dl, bufs[i].dma_addr, bufs[i].len))
				continue;
			vq->stats.refused_addr++;
			virtq_log(vq, SLUICE_DMA_LOG_ERR,
				  "refused buffer %u: address %x length %u not in shared memory", i,
				  bufs[i].dma_addr, bufs[i].len);
			return SLUICE_DMA_ERR_FAULT;
		}
	}
	indirect = vq->indirect && n > 1 && n <= VIRTQ_INDIRECT_MAX;
	need = indirect ? 1 : n;
	if (need > vq->num_free) {
		vq->stats.full++;
		return VIRTQ_ERR_NOSPC;
	}

	head = vq->free_head;
	if (indirect) {
		/* Head @head owns table @head: no allocation on the I/O path. */
		struct virtq_desc *t = vq->indirect + (size_t)head * VIRTQ_INDIRECT_MAX;

		for (unsigned int i = 0; i < n; i++)
			virtq_write_desc(&t[i], bufs[i].dma_addr, bufs[i].len,
					 (uint16_t)((i >= n_out ? VIRTQ_DESC_F_WRITE : 0) |
						    (i + 1 < n ? VIRTQ_DESC_F_NEXT : 0)),
					 (uint16_t)(i + 1 < n ? i + 1 : 0));
		virtq_write_desc(&vq->desc[head],
				 vq->indirect_dma +
					 (uint64_t)head * VIRTQ_INDIRECT_MAX * sizeof(*t),
				 (uint32_t)(n * sizeof(*t)), VIRTQ_DESC_F_INDIRECT, 0);
		d = vq->next[head];
		vq->stats.indirect_adds++;
	} else {
		/* Take n descriptors off the private free list in order: the
		 * private links next[] then already describe the chain. */
		d = head;
		for (unsigned int i = 0; i < n; i++) {
			uint16_t nx = vq->next[d];

			virtq_write_desc(&vq->desc[d], bufs[i].dma_addr, bufs[i].len,
					 (uint16_t)((i >= n_out ? VIRTQ_DESC_F_WRITE : 0) |
						    (i + 1 < n ? VIRTQ_DESC_F_NEXT : 0)),
					 (uint16_t)(i + 1 < n ? nx : 0));
			d = nx;
		}
	}
	vq->free_head = d;
	vq->num_free -= need;
	vq->num_inflight++;
	h = &vq->heads[head];
	h->token = token;
	h->writable = writable;
	h->ndesc = (uint16_t)need;
	h->state = (uint16_t)(VIRTQ_HEAD_INFLIGHT | (indirect ? VIRTQ_HEAD_INDIRECT : 0));

	vq->avail->ring[vq->avail_idx & (vq->num - 1)] = virtio_cpu_to_le16(head);
	vq->avail_idx++;
	/* Descriptors and ring entry before the index that publishes them
	 * (virtio 2.7.13: the driver performs a suitable memory barrier). */
	__atomic_store_n(&vq->avail->idx, virtio_cpu_to_le16(vq->avail_idx), __ATOMIC_RELEASE);
	vq->stats.adds++;
	return 0;
}

/* ------------------------------------------------------------------ kick */

bool virtq_kick(struct virtq *vq)
{
	uint16_t old = vq->kicked_idx, now = vq->avail_idx;
	bool need;

	if (vq->broken || old == now)
		return false;
	vq->kicked_idx = now;
	/* The avail->idx store must be visible before we read the device's
	 * suppression field, or both sides may decide the other will act: a
	 * store-load order, so a full fence even on x86. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (vq->flags & VIRTQ_INIT_EVENT_IDX) {
		uint16_t ev = virtq_read_u16(vq, virtq_avail_event(vq), VIRTQ_READ_AVAIL_EVENT);

		need = virtq_need_event(ev, now, old);
	} else {
		uint16_t fl = virtq_read_u16(vq, &vq->used->flags, VIRTQ_READ_USED_FLAGS);

		need = !(fl & VIRTQ_USED_F_NO_NOTIFY);
	}
	if (!need) {
		vq->stats.kicks_suppressed++;
		return false;
	}
	vq->stats.kicks++;
	vq->notify(vq->notify_ctx, vq->index);
	return true;
}

/* ------------------------------------------------------------------ used */

/* Give a chain's ring descriptors back, walking only private links. */
static void virtq_free_chain(struct virtq *vq, uint16_t head)
{
	struct virtq_head *h = &vq->heads[head];
	uint16_t tail = head;

	for (unsigned int i = 1; i < h->ndesc; i++)
		tail = vq->next[tail];
	vq->next[tail] = vq->free_head;
	vq->free_head = head;
	vq->num_free += h->ndesc;
	vq->num_inflight--;
	h->state = 0;
	h->token = NULL;
	h->ndesc = 0;
	h->writable = 0;
}

/*
 * Entries the device has published and we have not taken. used->idx is read
 * only when the last value read is used up; a value further ahead than the
 * chains in flight cannot come from a correct device, and from then on no
 * entry can be matched with confidence: the queue is broken.
 */
static unsigned int virtq_pending(struct virtq *vq)
{
	uint16_t idx, pending;

	if (vq->broken)
		return 0;
	if (vq->used_seen != vq->last_used)
		return (uint16_t)(vq->used_seen - vq->last_used);
	idx = virtq_read_used_idx(vq);
	pending = (uint16_t)(idx - vq->last_used);
	if (pending > vq->num_inflight) {
		vq->stats.bad_idx++;
		vq->broken = true;
		virtq_log_bad(vq, SLUICE_DMA_LOG_ERR,
			      "used idx %u is %u entries ahead with %u in flight: broken", idx,
			      pending, vq->num_inflight);
		return 0;
	}
	vq->used_seen = idx;
	return pending;
}

bool virtq_has_used(struct virtq *vq)
{
	return virtq_pending(vq) != 0;
}

void *virtq_get_used(struct virtq *vq, uint32_t *len, int *status)
{
	*len = 0;
	if (status)
		*status = 0;
	/* Bounded: a device publishing nothing but bad entries must not keep us
	 * here forever. */
	for (unsigned int tries = 0; tries < vq->num; tries++) {
		struct virtq_used_elem *e;
		struct virtq_head *h;
		uint32_t id, ulen;
		void *token;

		if (!virtq_pending(vq)) {
			if (vq->broken && status)
				*status = SLUICE_DMA_ERR_IO;
			return NULL;
		}
		e = &vq->used->ring[vq->last_used & (vq->num - 1)];
		id = virtq_read_u32(vq, &e->id, VIRTQ_READ_USED_ID);
		ulen = virtq_read_u32(vq, &e->len, VIRTQ_READ_USED_LEN);
		vq->last_used++;
		if (vq->flags & VIRTQ_INIT_EVENT_IDX) {
			/* "Interrupt me at the next completion". Linux follows
			 * this store with a full barrier so that re-enabling
			 * interrupts cannot race with a completion; we poll, so
			 * a late store costs at most a missed interrupt nobody
			 * waits for, and the per-completion fence is saved. */
			__atomic_store_n(virtq_used_event(vq), virtio_cpu_to_le16(vq->last_used),
					 __ATOMIC_RELAXED);
		}
		if (id >= vq->num) {
			vq->stats.bad_id++;
			virtq_log_bad(vq, SLUICE_DMA_LOG_WARN, "used id %u out of range (size %u)",
				      id, vq->num, 0);
			continue;
		}
		h = &vq->heads[id];
		if (!(h->state & VIRTQ_HEAD_INFLIGHT)) {
			vq->stats.not_in_flight++;
			virtq_log_bad(vq, SLUICE_DMA_LOG_WARN, "used id %u not in flight (replay?)",
				      id, 0, 0);
			continue;
		}
		token = h->token;
		if (ulen > h->writable) {
			vq->stats.bad_len++;
			virtq_log_bad(vq, SLUICE_DMA_LOG_WARN,
				      "used id %u len %u > %u writable bytes posted", id, ulen,
				      h->writable);
			if (status)
				*status = SLUICE_DMA_ERR_RANGE;
			ulen = 0;
		}
		virtq_free_chain(vq, (uint16_t)id);
		vq->stats.completions++;
		*len = ulen;
		return token;
	}
	return NULL;
}

void *virtq_detach_unused(struct virtq *vq)
{
	for (; vq->detach_pos < vq->num; vq->detach_pos++) {
		struct virtq_head *h = &vq->heads[vq->detach_pos];
		void *token;

		if (!(h->state & VIRTQ_HEAD_INFLIGHT))
			continue;
		token = h->token;
		virtq_free_chain(vq, (uint16_t)vq->detach_pos);
		vq->stats.completions++;
		return token;
	}
	vq->detach_pos = 0;
	return NULL;
}

/* ------------------------------------------------------------------ queries */

unsigned int virtq_num_free(const struct virtq *vq)
{
	return vq->num_free;
}

unsigned int virtq_num_inflight(const struct virtq *vq)
{
	return vq->num_inflight;
}

size_t virtq_ring_bytes(const struct virtq *vq)
{
	if (!vq->dl)
		return 0;
	return VIRTQ_DESC_TABLE_SIZE(vq->num) + VIRTQ_AVAIL_SIZE(vq->num) +
	       VIRTQ_USED_SIZE(vq->num) +
	       (vq->indirect ? (size_t)vq->num * VIRTQ_INDIRECT_MAX * sizeof(*vq->indirect) : 0);
}

bool virtq_is_broken(const struct virtq *vq)
{
	return vq->broken;
}

void virtq_stats_get(const struct virtq *vq, struct virtq_stats *out)
{
	*out = vq->stats;
}

int virtq_check(struct virtq *vq)
{
	unsigned int d = vq->free_head, inflight = 0, used_descs = 0;

	memset(vq->mark, 0, vq->num);
	for (unsigned int i = 0; i < vq->num_free; i++) {
		if (d >= vq->num || vq->mark[d]) {
			virtq_log(vq, SLUICE_DMA_LOG_ERR,
				  "check: free list broken at step %u (desc %u)", i, d, 0);
			return SLUICE_DMA_ERR_FAULT;
		}
		vq->mark[d] = 1;
		d = vq->next[d];
	}
	if (d != VIRTQ_NONE) {
		virtq_log(vq, SLUICE_DMA_LOG_ERR, "check: free list longer than num_free %u",
			  vq->num_free, 0, 0);
		return SLUICE_DMA_ERR_FAULT;
	}
	for (unsigned int head = 0; head < vq->num; head++) {
		const struct virtq_head *h = &vq->heads[head];

		if (!(h->state & VIRTQ_HEAD_INFLIGHT))
			continue;
		inflight++;
		d = head;
		for (unsigned int i = 0; i < h->ndesc; i++) {
			if (d >= vq->num || vq->mark[d]) {
				virtq_log(vq, SLUICE_DMA_LOG_ERR,
					  "check: chain of head %u reaches desc %u twice or free",
					  head, d, 0);
				return SLUICE_DMA_ERR_FAULT;
			}
			vq->mark[d] = 2;
			used_descs++;
			d = vq->next[d];
		}
	}
	if (inflight != vq->num_inflight || used_descs + vq->num_free != vq->num) {
		virtq_log(vq, SLUICE_DMA_LOG_ERR,
			  "check: %u chains (%u counted), %u descs in flight", inflight,
			  vq->num_inflight, used_descs);
		return SLUICE_DMA_ERR_FAULT;
	}
	return 0;
}
