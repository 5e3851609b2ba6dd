/* SPDX-License-Identifier: MIT */
/*
 * map.c - the mapping API: streaming map / unmap / sync, coherent allocations
 * and the "is this address shared?" query.
 *
 * Every bounce copy happens here and is bounded by the length recorded at map
 * time. Slot allocation is the pools' business (bounce.c and the policies).
 */
#include "dma/bounce.h"

/* Profiling of the copies: a cycle stamp, or 0 when profiling is off. */
static inline uint64_t dma_copy_start(const struct sluice_dma_layer *dl)
{
	return dl->profile ? dl->ops->cycles(dl->ops->ctx) : 0;
}

static inline void dma_copy_end(struct sluice_dma_layer *dl, uint64_t t0)
{
	if (t0)
		__atomic_fetch_add(&dl->copy_cycles, dl->ops->cycles(dl->ops->ctx) - t0,
				   __ATOMIC_RELAXED);
}

static bool dma_dir_valid(enum sluice_dma_dir dir)
{
	return dir == SLUICE_DMA_TO_DEVICE || dir == SLUICE_DMA_FROM_DEVICE ||
	       dir == SLUICE_DMA_BIDIRECTIONAL;
}

static void *dma_slot_vaddr(const struct sluice_dma_bounce_pool *p, unsigned long s,
			    unsigned int off)
{
	return p->vaddr + ((size_t)s << SLUICE_DMA_IO_TLB_SHIFT) + off;
}

/* The pool is usable for @tag only if the device reaches all of it. */
static bool dma_pool_reachable(const struct sluice_dma_bounce_pool *p,
			       const struct sluice_dma_tag *tag)
{
	uint64_t last = p->dma_start + ((uint64_t)p->nslabs << SLUICE_DMA_IO_TLB_SHIFT) - 1;

	return last <= tag->addr_limit;
}

static size_t dma_pool_max_mapping(const struct sluice_dma_bounce_pool *p,
				   const struct sluice_dma_tag *tag)
{
	uint64_t bytes = (uint64_t)sluice_dma_priv_bounce_pool_max_slots(p)
			 << SLUICE_DMA_IO_TLB_SHIFT;
	uint64_t boundary = tag->boundary_mask + 1;
	uint64_t min_align = 0;

	if (tag->boundary_mask != SLUICE_DMA_NO_LIMIT && boundary < bytes)
		bytes = boundary;
	/* As swiotlb_max_mapping_size(): the min_align offset can take up to this. */
	if (tag->min_align_mask)
		min_align = (tag->min_align_mask + SLUICE_DMA_IO_TLB_SIZE) &
			    ~(uint64_t)(SLUICE_DMA_IO_TLB_SIZE - 1);
	return bytes > min_align ? (size_t)(bytes - min_align) : 0;
}

size_t sluice_dma_max_mapping_size(const struct sluice_dma_layer *dl,
				   const struct sluice_dma_tag *tag)
{
	size_t best = 0;

	if (!dl || sluice_dma_tag_check(tag))
		return 0;
	for (struct sluice_dma_bounce_pool *p = __atomic_load_n(&dl->pools, __ATOMIC_ACQUIRE); p;
	     p = atomic_load_explicit(&p->next, memory_order_acquire)) {
		size_t m = dma_pool_max_mapping(p, tag);

		if (dma_pool_reachable(p, tag) && m > best)
			best = m;
	}
	if (tag->max_mapping && tag->max_mapping < best)
		best = tag->max_mapping;
	if (best > UINT32_MAX)
		best = UINT32_MAX;
	return best;
}

/*
 * Allocate slots for @len bytes at @orig (0 for coherent memory) in the first
 * pool that can hold them, and record the mapping. Returns the pool and slot of
 * the mapping's address, or an error.
 */
static int dma_bounce_take(struct sluice_dma_layer *dl, const struct sluice_dma_tag *tag,
			   void *orig, size_t len, enum sluice_dma_dir dir, uint8_t flags,
			   unsigned int cpu, struct sluice_dma_bounce_pool **pool_out,
			   unsigned long *slot_out)
{
	struct dma_bounce_req r;
	uint64_t offset;
	bool fits = false;
	int err;

	err = sluice_dma_priv_bounce_req_init(&r, tag, (uint64_t)(uintptr_t)orig, len, &offset);
	if (err)
		return err;
	for (struct sluice_dma_bounce_pool *p = __atomic_load_n(&dl->pools, __ATOMIC_ACQUIRE); p;
	     p = atomic_load_explicit(&p->next, memory_order_acquire)) {
		struct dma_bounce_slot *rec;
		unsigned long s;
		long head;

		/*
		 * Longer than sluice_dma_max_mapping_size() is refused even where the
		 * offset would let it fit: the limit a driver is told is the limit.
		 */
		if (!dma_pool_reachable(p, tag) || len > dma_pool_max_mapping(p, tag) ||
		    r.nslots > sluice_dma_priv_bounce_pool_max_slots(p) || r.nslots > r.max_slots)
			continue;
		fits = true;
		head = sluice_dma_priv_bounce_alloc(p, &r, cpu);
		if (head < 0)
			continue;
		s = (unsigned long)head + (unsigned long)(offset >> SLUICE_DMA_IO_TLB_SHIFT);
		rec = &p->slots[s];
		rec->orig = orig;
		rec->len = (uint32_t)len;
		rec->nslots = (uint32_t)r.nslots;
		rec->pad = (uint16_t)(offset >> SLUICE_DMA_IO_TLB_SHIFT);
		rec->off = (uint16_t)(offset & (SLUICE_DMA_IO_TLB_SIZE - 1));
		rec->dir = (uint8_t)dir;
		rec->flags = DMA_SLOT_LIVE | flags;
		dma_pcpu_add(&p->pcpu[cpu].mappings, 1);
		*pool_out = p;
		*slot_out = s;
		return 0;
	}
	if (!fits)
		return SLUICE_DMA_ERR_RANGE;
	__atomic_fetch_add(&dl->nomem_events, 1, __ATOMIC_RELAXED);
	return SLUICE_DMA_ERR_NOMEM;
}

int sluice_dma_map(struct sluice_dma_layer *dl, const struct sluice_dma_tag *tag, void *buf,
		   size_t len, enum sluice_dma_dir dir, uint64_t *dma_addr)
{
	const struct sluice_dma_inplace_region *inplace;
	struct sluice_dma_bounce_pool *p;
	struct dma_bounce_slot *rec;
	unsigned long s;
	unsigned char *tlb;
	unsigned int cpu;
	uint64_t t0;
	int err;

	if (!dl || !dl->ops || !buf || !dma_addr || !len || !dma_dir_valid(dir))
		return SLUICE_DMA_ERR_INVAL;
	/* A buffer that wraps the address space is no buffer: the copy would fault. */
	if ((uintptr_t)buf + len - 1 < (uintptr_t)buf)
		return SLUICE_DMA_ERR_INVAL;
	err = sluice_dma_tag_check(tag);
	if (err)
		return err;
	if ((tag->max_mapping && len > tag->max_mapping) || len > UINT32_MAX)
		return SLUICE_DMA_ERR_RANGE;

	inplace = __atomic_load_n(&dl->inplace, __ATOMIC_ACQUIRE);
	if (inplace && inplace->owns(inplace->ctx, buf, len)) {
		uint64_t a = dl->ops->virt_to_dma(dl->ops->ctx, buf), last = a + len - 1;

		/*
		 * Shared already: the device gets the buffer itself if it can reach
		 * it; otherwise it bounces, as Linux dma-direct does for a buffer
		 * that is not dma_capable().
		 */
		if (last >= a && last <= tag->addr_limit &&
		    (a & ~tag->boundary_mask) == (last & ~tag->boundary_mask) &&
		    !(a & tag->alloc_align_mask)) {
			__atomic_fetch_add(&dl->inplace_maps, 1, __ATOMIC_RELAXED);
			*dma_addr = a;
			return 0;
		}
	}

	cpu = dma_cpu(dl);
	err = dma_bounce_take(dl, tag, buf, len, dir, 0, cpu, &p, &s);
	if (err)
		return err;
	rec = &p->slots[s];
	tlb = dma_slot_vaddr(p, s, rec->off);
	t0 = dma_copy_start(dl);
	if ((dir & SLUICE_DMA_TO_DEVICE) || dl->scrub == SLUICE_DMA_SCRUB_COPY) {
		/*
		 * From-device too under SLUICE_DMA_SCRUB_COPY (CVE-2022-0854): a partial
		 * device write must leave the original bytes, never a previous
		 * mapping's.
		 */
		memcpy(tlb, buf, len);
		dma_pcpu_add(&p->pcpu[cpu].bytes_to_device, len);
	} else {
		memset(tlb, 0, len);
		dma_pcpu_add(&p->pcpu[cpu].bytes_scrubbed, len);
	}
	dma_copy_end(dl, t0);
	*dma_addr = p->dma_start + ((uint64_t)s << SLUICE_DMA_IO_TLB_SHIFT) + rec->off;
	return 0;
}

/*
 * The live record for @dma_addr, or NULL when the address lies outside every
 * pool. An address inside a pool that is not a live mapping's start traps.
 */
static struct dma_bounce_slot *dma_lookup(struct sluice_dma_layer *dl, uint64_t dma_addr,
					  bool coherent, struct sluice_dma_bounce_pool **pool_out,
					  unsigned long *slot_out, const char *what)
{
	struct sluice_dma_bounce_pool *p = sluice_dma_priv_bounce_pool_of(dl, dma_addr);
	struct dma_bounce_slot *rec;
	unsigned long s;

	if (!p)
		return NULL;
	s = (unsigned long)((dma_addr - p->dma_start) >> SLUICE_DMA_IO_TLB_SHIFT);
	DMA_ASSERT(dl, s < p->nslabs, "%s of dma 0x%llx: outside the pool's slots", what,
		   (unsigned long long)dma_addr);
	rec = &p->slots[s];
	DMA_ASSERT(dl,
		   (rec->flags & DMA_SLOT_LIVE) &&
			   rec->off == ((dma_addr - p->dma_start) & (SLUICE_DMA_IO_TLB_SIZE - 1)),
		   "%s of dma 0x%llx: not a live mapping (never mapped or already unmapped)", what,
		   (unsigned long long)dma_addr);
	DMA_ASSERT(dl, !(rec->flags & DMA_SLOT_COHERENT) == !coherent,
		   "%s of dma 0x%llx: %s", what, (unsigned long long)dma_addr,
		   coherent ? "a streaming mapping, not coherent memory"
			    : "coherent memory, not a streaming mapping");
	*pool_out = p;
	*slot_out = s;
	return rec;
}

/* Whether the in-place hook owns the memory behind device address @dma_addr. */
static bool dma_inplace_owns(const struct sluice_dma_layer *dl, uint64_t dma_addr, size_t len)
{
	const struct sluice_dma_inplace_region *inplace =
		__atomic_load_n(&dl->inplace, __ATOMIC_ACQUIRE);
	void *va;

	if (!inplace)
		return false;
	va = dl->ops->dma_to_virt ? dl->ops->dma_to_virt(dl->ops->ctx, dma_addr)
				  : (void *)(uintptr_t)dma_addr;
	return inplace->owns(inplace->ctx, va, len ? len : 1);
}

static void dma_release(struct sluice_dma_bounce_pool *p, unsigned long s,
			struct dma_bounce_slot *rec, unsigned int cpu)
{
	unsigned long head = s - rec->pad, nslots = rec->nslots;

	rec->flags = 0;
	rec->orig = NULL;
	rec->len = 0;
	dma_pcpu_add(&p->pcpu[cpu].unmaps, 1);
	sluice_dma_priv_bounce_free(p, head, nslots, cpu);
}

/* Ends a mapping; a from-device bounce first copies back its first @written
 * bytes (len: all of them, 0: none). */
static void dma_unmap_common(struct sluice_dma_layer *dl, uint64_t dma_addr, size_t len,
			     enum sluice_dma_dir dir, size_t written)
{
	struct sluice_dma_bounce_pool *p;
	struct dma_bounce_slot *rec;
	unsigned long s;
	unsigned int cpu;

	DMA_ASSERT(dl, dl && dl->ops, "unmap of dma 0x%llx: layer %p not initialised",
		   (unsigned long long)dma_addr, (void *)dl);
	/* Checked here too: an in-place mapping has no record to compare with. */
	DMA_ASSERT(dl, dma_dir_valid(dir), "unmap of dma 0x%llx: invalid direction %d",
		   (unsigned long long)dma_addr, (int)dir);
	rec = dma_lookup(dl, dma_addr, false, &p, &s, "unmap");
	if (!rec) {
		DMA_ASSERT(dl, dma_inplace_owns(dl, dma_addr, len),
			   "unmap of dma 0x%llx: not in any pool nor in-place region",
			   (unsigned long long)dma_addr);
		return;
	}
	DMA_ASSERT(dl, rec->len == len, "unmap of dma 0x%llx: length %zu, mapped %u",
		   (unsigned long long)dma_addr, len, rec->len);
	DMA_ASSERT(dl, rec->dir == dir, "unmap of dma 0x%llx: direction %d, mapped %d",
		   (unsigned long long)dma_addr, (int)dir, rec->dir);
	DMA_ASSERT(dl, written <= len, "unmap of dma 0x%llx: %zu bytes written of %zu mapped",
		   (unsigned long long)dma_addr, written, len);
	cpu = dma_cpu(dl);
	if ((dir & SLUICE_DMA_FROM_DEVICE) && written) {
		uint64_t t0 = dma_copy_start(dl);

		memcpy(rec->orig, dma_slot_vaddr(p, s, rec->off), written);
		dma_copy_end(dl, t0);
		dma_pcpu_add(&p->pcpu[cpu].bytes_from_device, written);
	}
	dma_release(p, s, rec, cpu);
}

void sluice_dma_unmap(struct sluice_dma_layer *dl, uint64_t dma_addr, size_t len,
		      enum sluice_dma_dir dir)
{
	dma_unmap_common(dl, dma_addr, len, dir, len);
}

void sluice_dma_unmap_written(struct sluice_dma_layer *dl, uint64_t dma_addr, size_t len,
			      enum sluice_dma_dir dir, size_t written)
{
	dma_unmap_common(dl, dma_addr, len, dir, written);
}

void sluice_dma_unmap_discard(struct sluice_dma_layer *dl, uint64_t dma_addr, size_t len,
			      enum sluice_dma_dir dir)
{
	dma_unmap_common(dl, dma_addr, len, dir, 0);
}

static int dma_sync(struct sluice_dma_layer *dl, uint64_t dma_addr, size_t offset, size_t len,
		    enum sluice_dma_dir dir, bool for_cpu)
{
	struct sluice_dma_bounce_pool *p;
	struct dma_bounce_slot *rec;
	unsigned char *tlb, *orig;
	unsigned long s;

	if (!dl || !dl->ops || !len || !dma_dir_valid(dir))
		return SLUICE_DMA_ERR_INVAL;
	rec = dma_lookup(dl, dma_addr, false, &p, &s, for_cpu ? "sync_for_cpu" : "sync_for_device");
	if (!rec) {
		DMA_ASSERT(dl, dma_inplace_owns(dl, dma_addr, 1),
			   "sync of dma 0x%llx: not in any pool nor in-place region",
			   (unsigned long long)dma_addr);
		/*
		 * In place there is nothing to copy, but a range that leaves the
		 * in-place block is the caller's error, reported like a bounce
		 * mapping's. The layer keeps no length for in-place mappings: the
		 * block that holds the mapping's start must hold all of
		 * [start, start + offset + len) - checking the synced range alone
		 * would accept one that lies in the next block, live or not.
		 */
		if (offset > SIZE_MAX - len || dma_addr + offset + len < dma_addr ||
		    !dma_inplace_owns(dl, dma_addr, offset + len))
			return SLUICE_DMA_ERR_RANGE;
		return 0;
	}
	if (rec->dir != dir)
		return SLUICE_DMA_ERR_PERM;
	if (offset > rec->len || len > rec->len - offset)
		return SLUICE_DMA_ERR_RANGE;
	tlb = dma_slot_vaddr(p, s, rec->off) + offset;
	orig = (unsigned char *)rec->orig + offset;
	if (for_cpu && (dir & SLUICE_DMA_FROM_DEVICE)) {
		uint64_t t0 = dma_copy_start(dl);

		memcpy(orig, tlb, len);
		dma_copy_end(dl, t0);
		dma_pcpu_add(&p->pcpu[dma_cpu(dl)].bytes_from_device, len);
	} else if (!for_cpu && (dir & SLUICE_DMA_TO_DEVICE)) {
		uint64_t t0 = dma_copy_start(dl);

		memcpy(tlb, orig, len);
		dma_copy_end(dl, t0);
		dma_pcpu_add(&p->pcpu[dma_cpu(dl)].bytes_to_device, len);
	}
	return 0;
}

int sluice_dma_sync_for_cpu(struct sluice_dma_layer *dl, uint64_t dma_addr, size_t offset,
			    size_t len, enum sluice_dma_dir dir)
{
	return dma_sync(dl, dma_addr, offset, len, dir, true);
}

int sluice_dma_sync_for_device(struct sluice_dma_layer *dl, uint64_t dma_addr, size_t offset,
			       size_t len, enum sluice_dma_dir dir)
{
	return dma_sync(dl, dma_addr, offset, len, dir, false);
}

void *sluice_dma_alloc_coherent(struct sluice_dma_layer *dl, const struct sluice_dma_tag *tag,
				size_t size, uint64_t *dma_addr)
{
	struct sluice_dma_bounce_pool *p;
	struct dma_bounce_slot *rec;
	struct sluice_dma_tag ctag;
	unsigned long s;
	void *va;

	if (!dl || !dl->ops || !size || !dma_addr || sluice_dma_tag_check(tag) ||
	    size > UINT32_MAX || (tag->max_mapping && size > tag->max_mapping))
		return NULL;
	/*
	 * Coherent memory of a page or more is page aligned whatever the tag says:
	 * the streaming rule (sluice_dma_priv_bounce_req_init(), as upstream) drops page
	 * alignment when the tag has a min_align_mask, and rings must not inherit
	 * that. There is no original buffer whose low bits to keep.
	 */
	ctag = *tag;
	ctag.min_align_mask = 0;
	if (size >= SLUICE_DMA_PAGE_SIZE)
		ctag.alloc_align_mask |= SLUICE_DMA_PAGE_SIZE - 1;
	if (dma_bounce_take(dl, &ctag, NULL, size, SLUICE_DMA_BIDIRECTIONAL, DMA_SLOT_COHERENT,
			    dma_cpu(dl), &p, &s))
		return NULL;
	rec = &p->slots[s];
	va = dma_slot_vaddr(p, s, rec->off);
	/* Rings start zeroed; and no earlier mapping's bytes may show through. */
	memset(va, 0, size);
	dma_pcpu_add(&p->pcpu[dma_cpu(dl)].bytes_scrubbed, size);
	*dma_addr = p->dma_start + ((uint64_t)s << SLUICE_DMA_IO_TLB_SHIFT) + rec->off;
	return va;
}

void sluice_dma_free_coherent(struct sluice_dma_layer *dl, void *vaddr, size_t size)
{
	struct sluice_dma_bounce_pool *p = NULL;
	struct dma_bounce_slot *rec;
	unsigned long s;
	uint64_t dma_addr = 0;

	DMA_ASSERT(dl, dl && dl->ops, "free_coherent of %p: layer %p not initialised", vaddr,
		   (void *)dl);
	for (struct sluice_dma_bounce_pool *q = __atomic_load_n(&dl->pools, __ATOMIC_ACQUIRE); q;
	     q = atomic_load_explicit(&q->next, memory_order_acquire)) {
		if ((unsigned char *)vaddr >= q->vaddr && (unsigned char *)vaddr < q->vaddr + q->bytes) {
			dma_addr = q->dma_start + (uint64_t)((unsigned char *)vaddr - q->vaddr);
			p = q;
			break;
		}
	}
	DMA_ASSERT(dl, p, "free_coherent of %p: not in any pool (never allocated)", vaddr);
	rec = dma_lookup(dl, dma_addr, true, &p, &s, "free_coherent");
	DMA_ASSERT(dl, rec && rec->len == size, "free_coherent of %p: size %zu, allocated %u",
		   vaddr, size, rec ? rec->len : 0);
	dma_release(p, s, rec, dma_cpu(dl));
}

bool sluice_dma_addr_is_shared(const struct sluice_dma_layer *dl, uint64_t dma_addr, size_t len)
{
	uint64_t last = dma_addr + (len ? len : 1) - 1;

	/* No layer, nothing shared: the answer that keeps a device away. */
	if (!dl || !dl->ops || last < dma_addr)
		return false;
	for (struct sluice_dma_bounce_pool *p = __atomic_load_n(&dl->pools, __ATOMIC_ACQUIRE); p;
	     p = atomic_load_explicit(&p->next, memory_order_acquire)) {
		if (dma_addr >= p->dma_start && last - p->dma_start < p->bytes)
			return true;
	}
	return dma_inplace_owns(dl, dma_addr, len);
}
