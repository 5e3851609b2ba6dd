/* SPDX-License-Identifier: MIT */
/*
 * map.c - the mapping API: streaming map / unmap / sync (single buffers and
 * scatter-gather lists), coherent allocations, device access rights, the
 * walk over live mappings and the teardown that ends them all, and the "is
 * this address shared?" query.
 *
 * The bounce path read top to bottom (docs/ARCHITECTURE.md): a map checks its
 * arguments and its tag here, tries the in-place region, then runs take
 * (pool choice, slots, the record, the copy or scrub into the slots); an
 * unmap checks its arguments here and runs release (lookup and its refusals,
 * the copy back, the record cleared, the slots freed), or ends an in-place
 * mapping. Take and release are bounce_hit.h's, inline here, so that the
 * common request makes no call but the port's; take's general path is
 * bounce.c's. Every copy is bounded by the length recorded at map time. Sync,
 * access changes, coherent memory and teardown use bounce.c's lookup, end
 * and put.
 *
 * Every release (unmap, sync, free_coherent, set_access) validates its handle
 * completely before it changes anything, so that a bad handle can be refused
 * with an error (DMA_REFUSE) rather than trapping: EDK2's IoMmu answers a bad
 * Mapping with EFI_INVALID_PARAMETER, and a firmware embedder expects the
 * same of us. Cache maintenance (the port's optional cache_maint) brackets
 * every access the device and the CPU make to the same bytes: CLEAN after
 * the CPU wrote slots and before the device may read them, INVALIDATE after
 * the device wrote them and before the CPU reads them.
 */
#include "dma/bounce.h"
#include "dma/bounce_hit.h" /* take and release, inline in map and unmap */

size_t sluice_dma_max_mapping_size(const struct sluice_dma_layer *dl,
				   const struct sluice_dma_tag *tag)
{
	size_t best = 0;

	if (!dl || dma_tag_check(tag))
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

/* What the tag lets a buffer at device address @a of @len bytes do in place. */
static bool dma_inplace_fits(const struct sluice_dma_tag *tag, uint64_t a, size_t len)
{
	uint64_t last = a + len - 1;

	return last >= a && last <= tag->addr_limit &&
	       (a & ~tag->boundary_mask) == (last & ~tag->boundary_mask) &&
	       !(a & tag->alloc_align_mask);
}

/*
 * A buffer in the in-place region, shared already: the device gets the buffer
 * itself if it can reach it; otherwise it bounces, as Linux dma-direct does for
 * a buffer that is not dma_capable(). A region that counts mappings (get) may
 * refuse a block being freed: that buffer bounces too. READONLY is advisory
 * here: the block is not the layer's to protect. Returns whether the buffer was
 * mapped in place (at *@dma_addr).
 */
static bool dma_map_inplace(struct sluice_dma_layer *dl, const struct sluice_dma_tag *tag,
			    void *buf, size_t len, enum sluice_dma_dir dir, uint64_t *dma_addr)
{
	const struct sluice_dma_inplace_region *inplace =
		__atomic_load_n(&dl->inplace, __ATOMIC_ACQUIRE);
	uint64_t a;

	if (!inplace || len > UINT32_MAX || (tag->max_mapping && len > tag->max_mapping) ||
	    !inplace->owns(inplace->ctx, buf, len))
		return false;
	a = dl->ops.virt_to_dma(dl->ops.ctx, buf);
	if (!dma_inplace_fits(tag, a, len) ||
	    (inplace->get && !inplace->get(inplace->ctx, buf, len, (uint32_t)dir)))
		return false;
	__atomic_fetch_add(&dl->inplace_maps, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&dl->inplace_live, 1, __ATOMIC_RELAXED);
	dma_cache(dl, buf, len, SLUICE_DMA_CACHE_CLEAN);
	*dma_addr = a;
	return true;
}

/* A READONLY mapping's pages made read-only to the device; on failure released. */
static int dma_map_readonly(struct sluice_dma_layer *dl, const struct dma_bounce_map *m)
{
	uint64_t a;
	size_t n;
	int err;

	dma_rec_pages(m->pool, m->slot, m->rec, &a, &n);
	err = dl->ops.set_access(dl->ops.ctx, a, n, SLUICE_DMA_ACCESS_READ);
	/* On failure the access may be half changed: restore it on release. */
	m->rec->flags |= DMA_SLOT_ACCESS;
	if (!err)
		return 0;
	sluice_dma_priv_logf(dma_layer_ops(dl), SLUICE_DMA_LOG_ERR,
			     "read-only map at dma 0x%llx: set_access failed (%d)",
			     (unsigned long long)a, err);
	sluice_dma_priv_bounce_put(dl, m, dma_cpu(dl));
	return SLUICE_DMA_ERR_IO;
}

/*
 * Map one buffer (validated by the caller, except the tag and the length
 * limits). *@slots is set to the slots the mapping holds (0 in place).
 */
static inline __attribute__((always_inline)) int
dma_map_one(struct sluice_dma_layer *dl, const struct sluice_dma_tag *tag, void *buf, size_t *lenp,
	    enum sluice_dma_dir dir, unsigned int attrs, uint64_t *dma_addr, unsigned long *slots)
{
	struct dma_bounce_map m;
	struct sluice_dma_tag ctag;
	const struct sluice_dma_tag *t = tag;
	size_t len = *lenp;
	uint8_t flags = 0;
	bool plain;
	int err;

	DMA_STAGE(DMA_STAGE_TAG);
	err = dma_tag_check_plain(tag, &plain);
	if (err)
		return err;
	DMA_STAGE(DMA_STAGE_POOL);

	/* No region (the common case): one load, no call. */
	if (__atomic_load_n(&dl->inplace, __ATOMIC_RELAXED) &&
	    dma_map_inplace(dl, tag, buf, len, dir, dma_addr)) {
		*slots = 0;
		return 0;
	}

	if (__builtin_expect(attrs, 0)) {
		if (attrs & (SLUICE_DMA_ATTR_OWN_PAGES | SLUICE_DMA_ATTR_READONLY)) {
			/*
			 * Whole pages of its own: the allocation starts on a page and
			 * its size rounds up to pages (the alignment mask rounds both),
			 * so an access change on them touches no other mapping. The
			 * common request (no such attribute) uses the caller's tag as
			 * it is.
			 */
			ctag = *tag;
			ctag.alloc_align_mask |= SLUICE_DMA_PAGE_SIZE - 1;
			flags |= DMA_SLOT_PAGES;
			t = &ctag;
			plain = false;
		}
		/* Both ways the slots get the buffer: nothing there to keep back. */
		if ((attrs & SLUICE_DMA_ATTR_UNMAP_WRITTEN) && dir == SLUICE_DMA_FROM_DEVICE)
			flags |= DMA_SLOT_WRITTEN;
		if (attrs & SLUICE_DMA_ATTR_PARTIAL) {
			size_t max = sluice_dma_max_mapping_size(dl, t);

			if (max && len > max)
				len = max;
		}
	}
	if ((t->max_mapping && len > t->max_mapping) || len > UINT32_MAX)
		return SLUICE_DMA_ERR_RANGE;

	/* Pool, slots, record, and the copy into them (bounce_hit.h). */
	err = dma_bounce_take(dl, t, plain, buf, len, dir, flags, &m);
	/*
	 * A partial map whose alignment rounding overflows the longest run
	 * shortens by one alignment unit at a time; the rounding adds less
	 * than one unit plus the min_align offset, so this ends in a few steps.
	 */
	while (err == SLUICE_DMA_ERR_RANGE && (attrs & SLUICE_DMA_ATTR_PARTIAL)) {
		size_t step = (size_t)(t->alloc_align_mask | (SLUICE_DMA_IO_TLB_SIZE - 1)) + 1;

		if (len <= step)
			break;
		len -= step;
		err = sluice_dma_priv_bounce_take(dl, t, buf, len, dir, flags, &m);
	}
	if (err)
		return err;
	if ((attrs & SLUICE_DMA_ATTR_READONLY) && dl->ops.set_access) {
		err = dma_map_readonly(dl, &m);
		if (err)
			return err;
	}
	*dma_addr = dma_slot_addr(m.pool, m.slot, m.rec->off);
	*lenp = len;
	*slots = m.rec->nslots;
	return 0;
}

int sluice_dma_map_attrs(struct sluice_dma_layer *dl, const struct sluice_dma_tag *tag, void *buf,
			 size_t *len, enum sluice_dma_dir dir, unsigned int attrs,
			 uint64_t *dma_addr)
{
	unsigned long slots;
	int err;

	/* The stage markers of sluice_dma_map(): a driver maps through either. */
	DMA_STAGE(DMA_STAGE_ARGS);
	if (!len || !dma_addr)
		return SLUICE_DMA_ERR_INVAL;
	err = dma_map_args(dl, buf, *len, dir, attrs);
	if (!err)
		err = dma_map_one(dl, tag, buf, len, dir, attrs, dma_addr, &slots);
	if (err)
		*len = 0;
	DMA_STAGE(DMA_STAGE_COUNT);
	return err;
}

/* sluice_dma_map() for every request map_fast.c does not take. */
int sluice_dma_priv_map(struct sluice_dma_layer *dl, const struct sluice_dma_tag *tag, void *buf,
			size_t len, enum sluice_dma_dir dir, uint64_t *dma_addr)
{
	unsigned long slots;
	int err;

	/* In the args stage already: sluice_dma_map() entered it. */
	if (DMA_CHECKED(!dma_addr))
		return SLUICE_DMA_ERR_INVAL;
	err = dma_map_args(dl, buf, len, dir, 0);
	if (!err)
		err = dma_map_one(dl, tag, buf, &len, dir, 0, dma_addr, &slots);
	DMA_STAGE(DMA_STAGE_COUNT);
	return err;
}

/* CPU address of device address @dma_addr outside the pools (in place). */
static void *dma_inplace_va(const struct sluice_dma_layer *dl, uint64_t dma_addr)
{
	return dl->ops.dma_to_virt ? dl->ops.dma_to_virt(dl->ops.ctx, dma_addr) :
				     (void *)(uintptr_t)dma_addr;
}

/* Whether the in-place hook owns the memory behind device address @dma_addr. */
static bool dma_inplace_owns(const struct sluice_dma_layer *dl, uint64_t dma_addr, size_t len)
{
	const struct sluice_dma_inplace_region *inplace =
		__atomic_load_n(&dl->inplace, __ATOMIC_ACQUIRE);

	if (!inplace)
		return false;
	return inplace->owns(inplace->ctx, dma_inplace_va(dl, dma_addr), len ? len : 1);
}

/*
 * The refusal of an in-place unmap whose range and direction the region does
 * not hold: a live start given with another length or direction is INVAL, as
 * for a bounce mapping, when the region can say so (find); else NOENT.
 */
static int dma_unmap_inplace_refuse(struct sluice_dma_layer *dl,
				    const struct sluice_dma_inplace_region *inplace, void *va,
				    uint64_t dma_addr, size_t len, enum sluice_dma_dir dir)
{
	size_t mapped = 0;
	int err = inplace->find ? inplace->find(inplace->ctx, va, (uint32_t)dir, &mapped) :
				  SLUICE_DMA_ERR_NOENT;

	if (!err)
		return DMA_REFUSE(dl, SLUICE_DMA_ERR_INVAL,
				  "unmap of dma 0x%llx: length %zu, mapped in place %zu",
				  (unsigned long long)dma_addr, len, mapped);
	if (err == SLUICE_DMA_ERR_PERM)
		return DMA_REFUSE(dl, SLUICE_DMA_ERR_INVAL,
				  "unmap of dma 0x%llx: direction %d, mapped in place in another",
				  (unsigned long long)dma_addr, (int)dir);
	return DMA_REFUSE(dl, SLUICE_DMA_ERR_NOENT,
			  "unmap of dma 0x%llx: in-place block holds no mapping",
			  (unsigned long long)dma_addr);
}

/*
 * Ends an in-place mapping: refused if the hook does not own it or, when it
 * records mappings (put), holds none of exactly this range and direction.
 */
static int dma_unmap_inplace(struct sluice_dma_layer *dl, uint64_t dma_addr, size_t len,
			     enum sluice_dma_dir dir)
{
	const struct sluice_dma_inplace_region *inplace =
		__atomic_load_n(&dl->inplace, __ATOMIC_ACQUIRE);
	void *va;

	/* With records the region judges the length; without, the block must hold it. */
	if (!dma_inplace_owns(dl, dma_addr, inplace && inplace->put ? 1 : len) ||
	    (!len && !inplace->put))
		return DMA_REFUSE(dl, SLUICE_DMA_ERR_NOENT,
				  "unmap of dma 0x%llx: not in any pool nor in-place region",
				  (unsigned long long)dma_addr);
	va = dma_inplace_va(dl, dma_addr);
	if (inplace->put && (!len || !inplace->put(inplace->ctx, va, len, (uint32_t)dir)))
		return dma_unmap_inplace_refuse(dl, inplace, va, dma_addr, len, dir);
	if (dir & SLUICE_DMA_FROM_DEVICE)
		dma_cache(dl, va, len, SLUICE_DMA_CACHE_INVALIDATE);
	__atomic_fetch_sub(&dl->inplace_live, 1, __ATOMIC_RELAXED);
	return 0;
}

/* Ends a mapping; a from-device bounce first copies back its first @written
 * bytes (len: all of them, 0: none); @told: the caller named @written
 * (dma_bounce_release()). Validates everything first. */
static inline __attribute__((always_inline)) int dma_unmap_common(struct sluice_dma_layer *dl,
								  uint64_t dma_addr, size_t len,
								  enum sluice_dma_dir dir,
								  size_t written, bool told)
{
	int err;

	/* No layer: no log op, no strictness to consult; the one silent refusal. */
	if (DMA_CHECKED(!dma_layer_ready(dl)))
		return SLUICE_DMA_ERR_INVAL;
	/* Checked here too: an in-place mapping has no record to compare with. */
	if (DMA_CHECKED(!dma_dir_valid(dir)))
		return DMA_REFUSE(dl, SLUICE_DMA_ERR_INVAL,
				  "unmap of dma 0x%llx: invalid direction %d",
				  (unsigned long long)dma_addr, (int)dir);
	if (DMA_CHECKED(written > len))
		return DMA_REFUSE(dl, SLUICE_DMA_ERR_INVAL,
				  "unmap of dma 0x%llx: %zu bytes written of %zu mapped",
				  (unsigned long long)dma_addr, written, len);
	/* Lookup and its refusals, copy back, slots freed (bounce_hit.h). */
	err = dma_bounce_release(dl, dma_addr, len, dir, written, told);
	if (err == DMA_BOUNCE_NOT_POOL)
		return dma_unmap_inplace(dl, dma_addr, len, dir);
	return err;
}

/*
 * sluice_dma_unmap() for every unmap map_fast.c does not take, and its
 * _written() and _discard() below: in the lookup stage already (the entry
 * points enter it).
 */
int sluice_dma_priv_unmap(struct sluice_dma_layer *dl, uint64_t dma_addr, size_t len,
			  enum sluice_dma_dir dir)
{
	int err;

	err = dma_unmap_common(dl, dma_addr, len, dir, len, false);
	DMA_STAGE(DMA_STAGE_COUNT);
	return err;
}

/* sluice_dma_unmap_written() for every unmap map_fast.c does not take. */
int sluice_dma_priv_unmap_written(struct sluice_dma_layer *dl, uint64_t dma_addr, size_t len,
				  enum sluice_dma_dir dir, size_t written)
{
	int err;

	err = dma_unmap_common(dl, dma_addr, len, dir, written, true);
	DMA_STAGE(DMA_STAGE_COUNT);
	return err;
}

/* sluice_dma_unmap_discard() for every unmap map_fast.c does not take. */
int sluice_dma_priv_unmap_discard(struct sluice_dma_layer *dl, uint64_t dma_addr, size_t len,
				  enum sluice_dma_dir dir)
{
	int err;

	err = dma_unmap_common(dl, dma_addr, len, dir, 0, true);
	DMA_STAGE(DMA_STAGE_COUNT);
	return err;
}

/* ------------------------------------------------------------------ scatter-gather */

int sluice_dma_map_sg(struct sluice_dma_layer *dl, const struct sluice_dma_tag *tag,
		      struct sluice_dma_sg *sg, unsigned int nents, enum sluice_dma_dir dir,
		      const struct sluice_dma_sg_limits *limits)
{
	static const struct sluice_dma_sg_limits none;
	const struct sluice_dma_sg_limits *lim = limits ? limits : &none;
	unsigned long slots_held = 0;
	size_t total = 0;
	unsigned int i;
	int err = 0;

	if (!dma_layer_ready(dl) || !sg || !nents || !dma_dir_valid(dir))
		return SLUICE_DMA_ERR_INVAL;
	err = dma_tag_check(tag);
	if (err)
		return err;
	/* Every limit the list can break is checked before anything is mapped. */
	if (lim->max_segments && nents > lim->max_segments)
		return SLUICE_DMA_ERR_RANGE;
	for (i = 0; i < nents; i++) {
		err = dma_map_args(dl, sg[i].buf, sg[i].len, dir, 0);
		if (err)
			return err;
		if (lim->max_segment_size && sg[i].len > lim->max_segment_size)
			return SLUICE_DMA_ERR_RANGE;
		if (sg[i].len > SIZE_MAX - total)
			return SLUICE_DMA_ERR_RANGE;
		total += sg[i].len;
	}
	if (lim->max_total && total > lim->max_total)
		return SLUICE_DMA_ERR_RANGE;

	for (i = 0; i < nents; i++) {
		size_t len = sg[i].len;
		unsigned long slots;

		err = dma_map_one(dl, tag, sg[i].buf, &len, dir, 0, &sg[i].dma_addr, &slots);
		if (err)
			break;
		slots_held += slots;
		if (lim->max_bounce_slots && slots_held > lim->max_bounce_slots) {
			/* Over the list's budget: this segment goes with the others. */
			i++;
			err = SLUICE_DMA_ERR_NOMEM;
			break;
		}
	}
	if (!err)
		return 0;
	/* All or nothing: what was mapped goes, and no device byte reaches a buffer. */
	while (i-- > 0) {
		int e = dma_unmap_common(dl, sg[i].dma_addr, sg[i].len, dir, 0, true);

		DMA_ASSERT(dl, !e, "map_sg rollback of dma 0x%llx failed (%d)",
			   (unsigned long long)sg[i].dma_addr, e);
	}
	return err;
}

int sluice_dma_unmap_sg(struct sluice_dma_layer *dl, struct sluice_dma_sg *sg, unsigned int nents,
			enum sluice_dma_dir dir)
{
	int first = 0;

	if (!dma_layer_ready(dl) || !sg || !nents)
		return SLUICE_DMA_ERR_INVAL;
	for (unsigned int i = 0; i < nents; i++) {
		int err = sluice_dma_unmap(dl, sg[i].dma_addr, sg[i].len, dir);

		if (err && !first)
			first = err;
	}
	return first;
}

/* ------------------------------------------------------------------ sync */

/*
 * The checks of a sync of memory the in-place region owns. With records
 * (find) they are a bounce mapping's: the address must be a live mapping's
 * start (NOENT), of this direction (PERM), and the range must stay inside
 * the mapping (RANGE). Without, the layer knows no length: the block that
 * holds the address must hold all of [start, start + offset + len) - the
 * synced range alone could lie in the next block, live or not.
 */
static int dma_sync_inplace_check(struct sluice_dma_layer *dl, uint64_t dma_addr, size_t offset,
				  size_t len, enum sluice_dma_dir dir, const char *what)
{
	const struct sluice_dma_inplace_region *inplace =
		__atomic_load_n(&dl->inplace, __ATOMIC_ACQUIRE);
	size_t mapped = 0;
	int err;

	if (offset > SIZE_MAX - len || dma_addr + offset + len < dma_addr)
		return SLUICE_DMA_ERR_RANGE;
	if (!inplace->find)
		return dma_inplace_owns(dl, dma_addr, offset + len) ? 0 : SLUICE_DMA_ERR_RANGE;
	err = inplace->find(inplace->ctx, dma_inplace_va(dl, dma_addr), (uint32_t)dir, &mapped);
	if (err == SLUICE_DMA_ERR_NOENT)
		return DMA_REFUSE(dl, SLUICE_DMA_ERR_NOENT,
				  "%s of dma 0x%llx: no in-place mapping starts there", what,
				  (unsigned long long)dma_addr);
	if (err)
		return err;
	return offset + len > mapped ? SLUICE_DMA_ERR_RANGE : 0;
}

static int dma_sync(struct sluice_dma_layer *dl, uint64_t dma_addr, size_t offset, size_t len,
		    enum sluice_dma_dir dir, bool for_cpu)
{
	const char *what = for_cpu ? "sync_for_cpu" : "sync_for_device";
	struct sluice_dma_bounce_pool *p;
	struct dma_bounce_slot *rec;
	struct dma_bounce_map m;
	unsigned char *tlb, *orig;
	int err;

	if (!dma_layer_ready(dl) || !len || !dma_dir_valid(dir))
		return SLUICE_DMA_ERR_INVAL;
	err = sluice_dma_priv_bounce_lookup(dl, dma_addr, 0, &m, what);
	if (err)
		return err;
	rec = m.rec;
	if (!rec) {
		if (!dma_inplace_owns(dl, dma_addr, 1))
			return DMA_REFUSE(dl, SLUICE_DMA_ERR_NOENT,
					  "%s of dma 0x%llx: not in any pool nor in-place region",
					  what, (unsigned long long)dma_addr);
		/* In place there is nothing to copy, but a bad handle is refused. */
		err = dma_sync_inplace_check(dl, dma_addr, offset, len, dir, what);
		if (err)
			return err;
		if (for_cpu && (dir & SLUICE_DMA_FROM_DEVICE))
			dma_cache(dl, (unsigned char *)dma_inplace_va(dl, dma_addr) + offset, len,
				  SLUICE_DMA_CACHE_INVALIDATE);
		else if (!for_cpu)
			dma_cache(dl, (unsigned char *)dma_inplace_va(dl, dma_addr) + offset, len,
				  SLUICE_DMA_CACHE_CLEAN);
		return 0;
	}
	if (rec->dir != dir)
		return SLUICE_DMA_ERR_PERM;
	if (offset > rec->len || len > rec->len - offset)
		return SLUICE_DMA_ERR_RANGE;
	/* Its slots were not scrubbed: a range the device has not written holds earlier bytes. */
	if (for_cpu && (rec->flags & DMA_SLOT_WRITTEN))
		return DMA_REFUSE(dl, SLUICE_DMA_ERR_INVAL,
				  "sync_for_cpu of dma 0x%llx: mapped with "
				  "SLUICE_DMA_ATTR_UNMAP_WRITTEN, its slots unscrubbed",
				  (unsigned long long)dma_addr);
	p = m.pool;
	tlb = dma_slot_vaddr(p, m.slot, rec->off) + offset;
	orig = (unsigned char *)rec->orig + offset;
	if (for_cpu && (dir & SLUICE_DMA_FROM_DEVICE)) {
		uint64_t t0;

		dma_cache(dl, tlb, len, SLUICE_DMA_CACHE_INVALIDATE);
		t0 = dma_copy_start(dl);
		dma_port_copy(&dl->ops, orig, tlb, len);
		dma_copy_end(dl, t0);
		dma_pcpu_add(p->dl, &p->pcpu[dma_cpu(dl)].bytes_from_device, len);
	} else if (!for_cpu && (dir & SLUICE_DMA_TO_DEVICE)) {
		uint64_t t0 = dma_copy_start(dl);

		dma_port_copy(&dl->ops, tlb, orig, len);
		dma_copy_end(dl, t0);
		dma_cache(dl, tlb, len, SLUICE_DMA_CACHE_CLEAN);
		dma_pcpu_add(p->dl, &p->pcpu[dma_cpu(dl)].bytes_to_device, len);
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

/* ------------------------------------------------------------------ access */

int sluice_dma_set_access(struct sluice_dma_layer *dl, uint64_t dma_addr, unsigned int access)
{
	struct dma_bounce_slot *rec;
	struct dma_bounce_map m;
	uint64_t a;
	size_t n;
	int err;

	if (!dma_layer_ready(dl) || (access & ~(SLUICE_DMA_ACCESS_READ | SLUICE_DMA_ACCESS_WRITE)))
		return SLUICE_DMA_ERR_INVAL;
	if (!dl->ops.set_access)
		return SLUICE_DMA_ERR_NOSYS;
	err = sluice_dma_priv_bounce_lookup(dl, dma_addr, -1, &m, "set_access");
	if (err)
		return err;
	rec = m.rec;
	if (!rec) {
		if (dma_inplace_owns(dl, dma_addr, 1))
			return SLUICE_DMA_ERR_PERM;
		return DMA_REFUSE(dl, SLUICE_DMA_ERR_NOENT,
				  "set_access of dma 0x%llx: not in any pool nor in-place region",
				  (unsigned long long)dma_addr);
	}
	/* Pages another mapping shares cannot change for this one alone. */
	if (!(rec->flags & DMA_SLOT_PAGES))
		return SLUICE_DMA_ERR_PERM;
	dma_rec_pages(m.pool, m.slot, rec, &a, &n);
	err = dl->ops.set_access(dl->ops.ctx, a, n, access);
	/* Even a failed change may have changed something: restore on release. */
	rec->flags |= DMA_SLOT_ACCESS;
	return err;
}

/* ------------------------------------------------------------------ coherent */

static size_t dma_roundup_pow2_size(size_t v)
{
	size_t p = SLUICE_DMA_PAGE_SIZE;

	while (p < v && p <= SIZE_MAX / 2)
		p <<= 1;
	return p;
}

/*
 * Coherent memory from the in-place region (the arena): for sizes beyond the
 * pools' longest run, or when the pools are full. A block aligned to its own
 * power-of-two size satisfies alignment masks and boundaries up to that size;
 * the device address is checked anyway (virt_to_dma need not preserve more
 * than page alignment). The region records @size, the size free takes back:
 * an alignment beyond the size needs alloc_aligned, or the block could never
 * be freed; what the region can never hold is RANGE, not NOMEM.
 */
static int dma_region_alloc(struct sluice_dma_layer *dl, const struct sluice_dma_tag *tag,
			    size_t size, void **vaddr, uint64_t *dma_addr)
{
	const struct sluice_dma_inplace_region *r = __atomic_load_n(&dl->inplace, __ATOMIC_ACQUIRE);
	size_t align = SLUICE_DMA_PAGE_SIZE, block;
	uint64_t a;
	void *va;

	if (!r || !r->alloc)
		return SLUICE_DMA_ERR_NOSYS;
	if (tag->alloc_align_mask >= (uint64_t)SIZE_MAX / 2)
		return SLUICE_DMA_ERR_RANGE;
	if (tag->alloc_align_mask >= align)
		align = (size_t)tag->alloc_align_mask + 1;
	block = dma_roundup_pow2_size(size > align ? size : align);
	if (block < size || block < align ||
	    (tag->boundary_mask != SLUICE_DMA_NO_LIMIT && block - 1 > tag->boundary_mask) ||
	    (r->alloc_max && block > r->alloc_max) ||
	    (align > dma_roundup_pow2_size(size) && !r->alloc_aligned))
		return SLUICE_DMA_ERR_RANGE;
	va = r->alloc_aligned ? r->alloc_aligned(r->ctx, size, align) : r->alloc(r->ctx, size);
	if (!va)
		return SLUICE_DMA_ERR_NOMEM;
	a = dl->ops.virt_to_dma(dl->ops.ctx, va);
	if (!dma_inplace_fits(tag, a, size)) {
		int err = r->free(r->ctx, va, size);

		DMA_ASSERT(dl, !err, "coherent block %p: the region refused its own block (%d)", va,
			   err);
		return SLUICE_DMA_ERR_RANGE;
	}
	/* A fresh block reads zero (the region's promise); make that what memory holds. */
	dma_cache(dl, va, size, SLUICE_DMA_CACHE_CLEAN);
	__atomic_fetch_add(&dl->region_coherent_live, 1, __ATOMIC_RELAXED);
	*vaddr = va;
	*dma_addr = a;
	return 0;
}

int sluice_dma_alloc_attrs(struct sluice_dma_layer *dl, const struct sluice_dma_tag *tag,
			   size_t size, unsigned int attrs, void **vaddr, uint64_t *dma_addr)
{
	struct dma_bounce_map m;
	struct sluice_dma_tag ctag;
	uint8_t flags = DMA_SLOT_COHERENT;
	int err, rerr;

	if (!dma_layer_ready(dl) || !size || !vaddr || !dma_addr || attrs)
		return SLUICE_DMA_ERR_INVAL;
	err = dma_tag_check(tag);
	if (err)
		return err;
	if (size > UINT32_MAX || (tag->max_mapping && size > tag->max_mapping))
		return SLUICE_DMA_ERR_RANGE;
	/*
	 * Coherent memory of a page or more is page aligned whatever the tag says:
	 * the streaming rule (sluice_dma_priv_bounce_req_init(), as upstream) drops page
	 * alignment when the tag has a min_align_mask, and rings must not inherit
	 * that. There is no original buffer whose low bits to keep. Rounded to
	 * whole pages, it owns its pages (sluice_dma_set_access() may change them).
	 */
	ctag = *tag;
	ctag.min_align_mask = 0;
	if (size >= SLUICE_DMA_PAGE_SIZE) {
		ctag.alloc_align_mask |= SLUICE_DMA_PAGE_SIZE - 1;
		flags |= DMA_SLOT_PAGES;
	}
	/* Zeroed by take: rings start zeroed, and no earlier mapping's bytes show through. */
	err = sluice_dma_priv_bounce_take(dl, &ctag, NULL, size, SLUICE_DMA_BIDIRECTIONAL, flags,
					  &m);
	if (err == SLUICE_DMA_ERR_RANGE || err == SLUICE_DMA_ERR_NOMEM) {
		/* Too long for any pool's run, or the pools are full: the region. */
		rerr = dma_region_alloc(dl, &ctag, size, vaddr, dma_addr);
		if (rerr != SLUICE_DMA_ERR_NOSYS && (rerr != SLUICE_DMA_ERR_RANGE || !err))
			return rerr;
		return err;
	}
	if (err)
		return err;
	*vaddr = dma_slot_vaddr(m.pool, m.slot, m.rec->off);
	*dma_addr = dma_slot_addr(m.pool, m.slot, m.rec->off);
	return 0;
}

void *sluice_dma_alloc_coherent(struct sluice_dma_layer *dl, const struct sluice_dma_tag *tag,
				size_t size, uint64_t *dma_addr)
{
	void *va = NULL;

	return sluice_dma_alloc_attrs(dl, tag, size, 0, &va, dma_addr) ? NULL : va;
}

int sluice_dma_free_coherent(struct sluice_dma_layer *dl, void *vaddr, size_t size)
{
	const struct sluice_dma_inplace_region *r;
	struct sluice_dma_bounce_pool *p = NULL;
	struct dma_bounce_map m;
	uint64_t dma_addr = 0;
	int err;

	if (!dma_layer_ready(dl))
		return SLUICE_DMA_ERR_INVAL;
	for (struct sluice_dma_bounce_pool *q = __atomic_load_n(&dl->pools, __ATOMIC_ACQUIRE); q;
	     q = atomic_load_explicit(&q->next, memory_order_acquire)) {
		if ((unsigned char *)vaddr >= q->vaddr &&
		    (unsigned char *)vaddr < q->vaddr + q->bytes) {
			dma_addr = q->dma_start + (uint64_t)((unsigned char *)vaddr - q->vaddr);
			p = q;
			break;
		}
	}
	if (!p) {
		r = __atomic_load_n(&dl->inplace, __ATOMIC_ACQUIRE);
		/*
		 * Memory from the region: it knows its blocks. The live count
		 * keeps a block the region handed out to someone else (directly,
		 * not through us) from being freed here when we hold none.
		 */
		if (r && r->free && vaddr &&
		    __atomic_load_n(&dl->region_coherent_live, __ATOMIC_RELAXED)) {
			err = r->free(r->ctx, vaddr, size);
			if (err)
				return DMA_REFUSE(
					dl, err,
					"free_coherent of %p: the in-place region refused "
					"it (%d)",
					vaddr, err);
			__atomic_fetch_sub(&dl->region_coherent_live, 1, __ATOMIC_RELAXED);
			return 0;
		}
		return DMA_REFUSE(dl, SLUICE_DMA_ERR_NOENT,
				  "free_coherent of %p: not in any pool (never allocated)", vaddr);
	}
	err = sluice_dma_priv_bounce_lookup(dl, dma_addr, 1, &m, "free_coherent");
	if (err)
		return err;
	if (m.rec->len != size)
		return DMA_REFUSE(dl, SLUICE_DMA_ERR_INVAL,
				  "free_coherent of %p: size %zu, allocated %u", vaddr, size,
				  m.rec->len);
	sluice_dma_priv_bounce_put(dl, &m, dma_cpu(dl));
	return 0;
}

/* ------------------------------------------------------------------ teardown */

/* The walk over the in-place region's records: @fn and its argument. */
struct dma_region_walk_ctx {
	struct sluice_dma_layer *dl;
	int (*fn)(void *arg, const struct sluice_dma_mapping_info *m);
	void *arg;
};

static int dma_region_walk_one(void *arg, void *vaddr, size_t len, bool coherent, uint32_t dir,
			       unsigned int count)
{
	struct dma_region_walk_ctx *w = arg;
	struct sluice_dma_mapping_info m;

	m.dma_addr = w->dl->ops.virt_to_dma(w->dl->ops.ctx, vaddr);
	m.len = len;
	m.orig = coherent ? NULL : vaddr;
	m.vaddr = vaddr;
	/* The direction the region recorded: what the unmap must give back. */
	m.dir = coherent || !dir ? SLUICE_DMA_BIDIRECTIONAL : dir;
	m.coherent = coherent;
	m.pool = SLUICE_DMA_POOL_NONE;
	m.in_place = true;
	/* One call per mapping: @fn may end each (a copy, as for the pools). */
	for (unsigned int i = 0; i < count; i++) {
		int ret = w->fn(w->arg, &m);

		if (ret)
			return ret;
	}
	return 0;
}

int sluice_dma_mapping_foreach(struct sluice_dma_layer *dl,
			       int (*fn)(void *arg, const struct sluice_dma_mapping_info *m),
			       void *arg)
{
	const struct sluice_dma_inplace_region *r;
	struct dma_region_walk_ctx w = { dl, fn, arg };

	if (!dma_layer_ready(dl) || !fn)
		return SLUICE_DMA_ERR_INVAL;
	for (struct sluice_dma_bounce_pool *p = __atomic_load_n(&dl->pools, __ATOMIC_ACQUIRE); p;
	     p = atomic_load_explicit(&p->next, memory_order_acquire)) {
		for (unsigned long s = 0; s < p->nslabs; s++) {
			const struct dma_bounce_slot *rec = &p->slots[s];
			struct sluice_dma_mapping_info m;
			int ret;

			if (!(rec->flags & DMA_SLOT_LIVE))
				continue;
			m.dma_addr = dma_slot_addr(p, s, rec->off);
			m.len = rec->len;
			m.orig = rec->orig;
			m.vaddr = dma_slot_vaddr(p, s, rec->off);
			m.dir = (enum sluice_dma_dir)rec->dir;
			m.coherent = rec->flags & DMA_SLOT_COHERENT;
			m.pool = p->index;
			m.in_place = false;
			/* A copy: @fn may end this mapping, which clears the record. */
			ret = fn(arg, &m);
			if (ret)
				return ret;
		}
	}
	r = __atomic_load_n(&dl->inplace, __ATOMIC_ACQUIRE);
	return r && r->walk ? r->walk(r->ctx, dma_region_walk_one, &w) : 0;
}

struct dma_unmap_all_ctx {
	struct sluice_dma_layer *dl;
	unsigned int flags;
	unsigned long count;
};

/* An in-place mapping or region coherent memory: ended as its owner would. */
static void dma_unmap_all_region(struct dma_unmap_all_ctx *c,
				 const struct sluice_dma_mapping_info *m)
{
	int err;

	if (m->coherent)
		err = sluice_dma_free_coherent(c->dl, m->vaddr, m->len);
	else
		err = dma_unmap_inplace(c->dl, m->dma_addr, m->len, m->dir);
	DMA_ASSERT(c->dl, !err, "unmap_all: the region refused its own record at dma 0x%llx (%d)",
		   (unsigned long long)m->dma_addr, err);
	c->count++;
}

static int dma_unmap_all_one(void *arg, const struct sluice_dma_mapping_info *m)
{
	struct dma_unmap_all_ctx *c = arg;
	struct dma_bounce_map b;
	bool back;
	int err;

	if (m->coherent && !(c->flags & SLUICE_DMA_UNMAP_ALL_COHERENT))
		return 0;
	if (m->in_place) {
		dma_unmap_all_region(c, m);
		return 0;
	}
	err = sluice_dma_priv_bounce_lookup(c->dl, m->dma_addr, m->coherent, &b, "unmap_all");
	DMA_ASSERT(c->dl, !err && b.rec, "unmap_all: the record of dma 0x%llx vanished",
		   (unsigned long long)m->dma_addr);
	/* Nobody said what the device wrote into an unscrubbed mapping: nothing comes back. */
	back = !m->coherent && !(c->flags & SLUICE_DMA_UNMAP_ALL_DISCARD) &&
	       !(b.rec->flags & DMA_SLOT_WRITTEN);
	sluice_dma_priv_bounce_end(c->dl, &b, back ? m->len : 0);
	c->count++;
	return 0;
}

int sluice_dma_unmap_all(struct sluice_dma_layer *dl, unsigned int flags, unsigned long *count)
{
	struct dma_unmap_all_ctx c = { dl, flags, 0 };
	int err;

	if (count)
		*count = 0;
	if (!dma_layer_ready(dl) ||
	    (flags & ~(SLUICE_DMA_UNMAP_ALL_DISCARD | SLUICE_DMA_UNMAP_ALL_COHERENT)))
		return SLUICE_DMA_ERR_INVAL;
	err = sluice_dma_mapping_foreach(dl, dma_unmap_all_one, &c);
	if (count)
		*count = c.count;
	return err;
}

bool sluice_dma_addr_is_shared(const struct sluice_dma_layer *dl, uint64_t dma_addr, size_t len)
{
	uint64_t last = dma_addr + (len ? len : 1) - 1;

	/* No layer, nothing shared: the answer that keeps a device away. */
	if (!dma_layer_ready(dl) || last < dma_addr)
		return false;
	for (struct sluice_dma_bounce_pool *p = __atomic_load_n(&dl->pools, __ATOMIC_ACQUIRE); p;
	     p = atomic_load_explicit(&p->next, memory_order_acquire)) {
		if (dma_addr >= p->dma_start && last - p->dma_start < p->bytes)
			return true;
	}
	return dma_inplace_owns(dl, dma_addr, len);
}
