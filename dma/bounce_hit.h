/* SPDX-License-Identifier: MIT */
/*
 * bounce_hit.h - the bounce itself, inline: take (the common request's slots
 * from the CPU's magazine, the record, the copy or scrub in) and release
 * (lookup and its refusals, the copy back, the record cleared, the slots
 * back to the magazine), compiled into map.c's map and unmap entry points so
 * that a map or an unmap of the common request makes no call but the port's
 * (its CPU index and its copy), and none at all when the port's build shows
 * the library those ops' bodies (SLUICE_DMA_PORT_INLINE, dma_port.h).
 *
 * What is not the hit stays out of line in bounce.c: the general take
 * (sluice_dma_priv_bounce_take_general(): Linux's request normalisation, the
 * pool walk, the policy's alloc), the magazines' misses (bounce_sluice.c), and
 * the wrappers the other entry points (sync, coherent memory, access, teardown)
 * call, which are these same functions. Not a public header.
 */
#ifndef SLUICE_DMA_BOUNCE_HIT_H
#define SLUICE_DMA_BOUNCE_HIT_H

#include "dma/bounce.h"
#include "dma/bounce_sluice_mag.h" /* the magazines' pop and push */

/*
 * The common request (docs/ARCHITECTURE.md): a streaming mapping of at most a
 * page with a plain tag (no alignment beyond the slot's, no min_align bits,
 * no boundary: dma_tag_check_plain()) and no attribute, in a first pool the
 * device reaches whose policy is `sluice` (fast_sluice, decided at the pool
 * add). Its slots are the newest entry of the CPU's magazine, popped inline
 * (dma_sluice_mag_pop()); anything else, a magazine miss included, takes the
 * general path, which gives the same answer.
 */
#if DMA_POLICY_WITH(SLUICE) /* its only caller is too (unused otherwise: clang -Werror) */
static inline bool dma_take_common(const struct sluice_dma_bounce_pool *p,
				   const struct sluice_dma_tag *tag, size_t len, uint8_t flags)
{
	/* The tag's masks were tested once, by dma_tag_check_plain() (@plain). */
	return p->fast_sluice && !(flags & ~DMA_SLOT_WRITTEN) &&
	       len <= 2 * SLUICE_DMA_IO_TLB_SIZE && p->dma_last <= tag->addr_limit;
}
#endif

/* The record of a new mapping, in the slot of its address. */
static inline void dma_rec_set(struct dma_bounce_slot *rec, void *orig, size_t len,
			       unsigned long nslots, uint64_t offset, enum sluice_dma_dir dir,
			       uint8_t flags)
{
	rec->orig = orig;
	rec->len = (uint32_t)len;
	rec->nslots = (uint32_t)nslots;
	rec->pad = (uint16_t)(offset >> SLUICE_DMA_IO_TLB_SHIFT);
	rec->off = (uint16_t)(offset & (SLUICE_DMA_IO_TLB_SIZE - 1));
	rec->dir = (uint8_t)dir;
	rec->flags = DMA_SLOT_LIVE | flags;
}

/* Whether a new mapping's slots get @buf's bytes (else zeros: dma_bounce_fill()). */
static inline bool dma_fill_copies(const struct sluice_dma_layer *dl, const void *buf,
				   enum sluice_dma_dir dir)
{
	return buf && ((dir & SLUICE_DMA_TO_DEVICE) || dl->scrub == SLUICE_DMA_SCRUB_COPY);
}

/*
 * The slots' first bytes: the buffer's (to the device, or any direction
 * under SLUICE_DMA_SCRUB_COPY, Linux's way), else zeros (from-device under
 * the default scrub, and coherent memory, which has no buffer), except for a
 * from-device mapping made with SLUICE_DMA_ATTR_UNMAP_WRITTEN (@flags
 * DMA_SLOT_WRITTEN), which is not zeroed: its unmap copies back only what
 * the device wrote.
 */
static inline __attribute__((always_inline)) void
dma_bounce_fill(struct sluice_dma_layer *dl, struct sluice_dma_bounce_pool *p, unsigned int cpu,
		unsigned char *tlb, const void *buf, size_t len, enum sluice_dma_dir dir,
		uint8_t flags)
{
	bool told = flags & DMA_SLOT_WRITTEN;
	uint64_t t0;

	DMA_STAGE(DMA_STAGE_COPY);
	t0 = dma_copy_start(dl);
	if (dma_fill_copies(dl, buf, dir)) {
		/*
		 * From-device too under SLUICE_DMA_SCRUB_COPY (CVE-2022-0854): a partial
		 * device write must leave the original bytes, never a previous
		 * mapping's.
		 */
		dma_port_copy(&dl->ops, tlb, buf, len);
		dma_pcpu_add(dl, &p->pcpu[cpu].bytes_to_device, len);
	} else if (!told) {
		/* Rings start zeroed; and no earlier mapping's bytes may show through. */
		dma_port_zero(&dl->ops, tlb, len);
		dma_pcpu_add(dl, &p->pcpu[cpu].bytes_scrubbed, len);
	}
	/*
	 * Else the earlier bytes stay in the slots: shared memory the host has
	 * seen, and never copied back, since the unmap copies what the device
	 * wrote and nothing else (dma_bounce_release()).
	 */
	dma_copy_end(dl, t0);
	/*
	 * Whatever the direction: the bytes just written (data or zeros) must
	 * be in memory before the device reads, and no dirty line may be
	 * evicted later over what the device writes.
	 */
	DMA_STAGE(DMA_STAGE_CACHE);
	dma_cache(dl, tlb, len, SLUICE_DMA_CACHE_CLEAN);
	DMA_STAGE(DMA_STAGE_RECORD);
}

/*
 * A new mapping's record written and its slots filled; the map's last step.
 * @counted: the counter it adds to: mappings, or fast_maps for a magazine
 * hit of the common request (bounce.h).
 */
static inline __attribute__((always_inline)) int
dma_take_done(struct sluice_dma_layer *dl, struct sluice_dma_bounce_pool *p, unsigned long s,
	      unsigned int cpu, void *orig, size_t len, enum sluice_dma_dir dir, uint8_t flags,
	      atomic_ulong *counted, struct dma_bounce_map *m)
{
	struct dma_bounce_slot *rec = &p->slots[s];

	dma_pcpu_add(dl, counted, 1);
	dma_bounce_fill(dl, p, cpu, dma_slot_vaddr(p, s, rec->off), orig, len, dir, flags);
	m->pool = p;
	m->slot = s;
	m->rec = rec;
	return 0;
}

/*
 * dma_bounce_take() - the map side of a bounce: slots for @len bytes at @orig
 * (NULL for coherent memory) in the first pool that can hold them, the
 * mapping's record, and the slots filled (the buffer's bytes, or zeros; then
 * the cache cleaned). @plain: dma_tag_check_plain() found @tag plain. The
 * common request is served here, a magazine pop and no call; every other
 * request, a magazine miss included, in sluice_dma_priv_bounce_take_general().
 * Returns 0 with *@m set, SLUICE_DMA_ERR_RANGE when no pool can ever hold the
 * request, SLUICE_DMA_ERR_NOMEM when none has room now, or
 * SLUICE_DMA_ERR_INVAL for a request of no bytes.
 */
static inline __attribute__((always_inline)) int
dma_bounce_take(struct sluice_dma_layer *dl, const struct sluice_dma_tag *tag, bool plain,
		void *orig, size_t len, enum sluice_dma_dir dir, uint8_t flags,
		struct dma_bounce_map *m)
{
	struct sluice_dma_bounce_pool *p = __atomic_load_n(&dl->pools, __ATOMIC_ACQUIRE);
	unsigned int cpu = dma_cpu(dl);

#if DMA_POLICY_WITH(SLUICE)
	if (p && len && plain && dma_take_common(p, tag, len, flags)) {
		unsigned long n = len > SLUICE_DMA_IO_TLB_SIZE ? 2 : 1;
		long head;

		DMA_STAGE(DMA_STAGE_SLOT);
		head = dma_sluice_mag_pop(p, (unsigned int)(n - 1), cpu);
		DMA_STAGE(DMA_STAGE_RECORD);
		if (head >= 0) {
			dma_rec_set(&p->slots[head], orig, len, n, 0, dir, flags);
			return dma_take_done(dl, p, (unsigned long)head, cpu, orig, len, dir, flags,
					     &p->pcpu[cpu].fast_maps, m);
		}
		DMA_STAGE(DMA_STAGE_POOL);
	}
#else
	(void)plain;
#endif
	return sluice_dma_priv_bounce_take_general(dl, p, tag, cpu, orig, len, dir, flags, m);
}

/*
 * dma_bounce_lookup() - the live record for @dma_addr: 0 with
 * @m->rec set; 0 with @m->rec NULL when the address lies outside every pool;
 * or the refusal's error (DMA_REFUSE, naming @what) for an address inside a
 * pool that is no live mapping's start, or a mapping of the other kind
 * (@kind: 0 streaming, 1 coherent, -1 either).
 */
static inline __attribute__((always_inline)) int dma_bounce_lookup(struct sluice_dma_layer *dl,
								   uint64_t dma_addr, int kind,
								   struct dma_bounce_map *m,
								   const char *what)
{
	struct sluice_dma_bounce_pool *p;
	struct dma_bounce_slot *rec;
	unsigned long s;

	m->rec = NULL;
	for (p = __atomic_load_n(&dl->pools, __ATOMIC_ACQUIRE); p;
	     p = atomic_load_explicit(&p->next, memory_order_acquire))
		if (dma_addr >= p->dma_start && dma_addr - p->dma_start < p->bytes)
			break;
	if (!p)
		return 0;
	s = (unsigned long)((dma_addr - p->dma_start) >> SLUICE_DMA_IO_TLB_SHIFT);
	if (DMA_CHECKED(s >= p->nslabs))
		return DMA_REFUSE(dl, SLUICE_DMA_ERR_NOENT,
				  "%s of dma 0x%llx: outside the pool's slots", what,
				  (unsigned long long)dma_addr);
	rec = &p->slots[s];
	if (DMA_CHECKED(!(rec->flags & DMA_SLOT_LIVE) ||
			rec->off != ((dma_addr - p->dma_start) & (SLUICE_DMA_IO_TLB_SIZE - 1))))
		return DMA_REFUSE(dl, SLUICE_DMA_ERR_NOENT,
				  "%s of dma 0x%llx: not a live mapping (never mapped or already "
				  "unmapped)",
				  what, (unsigned long long)dma_addr);
	if (DMA_CHECKED(kind >= 0 && !(rec->flags & DMA_SLOT_COHERENT) != !kind))
		return DMA_REFUSE(dl, SLUICE_DMA_ERR_NOENT, "%s of dma 0x%llx: %s", what,
				  (unsigned long long)dma_addr,
				  kind ? "a streaming mapping, not coherent memory" :
					 "coherent memory, not a streaming mapping");
	m->pool = p;
	m->slot = s;
	m->rec = rec;
	return 0;
}

/*
 * dma_bounce_put() - a validated mapping ends: device access
 * restored if it was narrowed, the record cleared, the slots back to the
 * policy (directly for fast_sluice pools). No copy.
 */
static inline __attribute__((always_inline)) void
dma_bounce_put(struct sluice_dma_layer *dl, const struct dma_bounce_map *m, unsigned int cpu)
{
	struct sluice_dma_bounce_pool *p = m->pool;
	struct dma_bounce_slot *rec = m->rec;
	unsigned long head = m->slot - rec->pad, nslots = rec->nslots;

	/*
	 * Slots go back with full device access, the state every other mapping
	 * expects of them. The port's contract is that restoring cannot fail;
	 * if it does, say so: a later from-device mapping of these slots would
	 * see its device writes fault.
	 */
	if (__builtin_expect(rec->flags & DMA_SLOT_ACCESS, 0)) {
		uint64_t a;
		size_t n;
		int err;

		dma_rec_pages(p, m->slot, rec, &a, &n);
		err = dl->ops.set_access(dl->ops.ctx, a, n,
					 SLUICE_DMA_ACCESS_READ | SLUICE_DMA_ACCESS_WRITE);
		if (err)
			sluice_dma_priv_logf(dma_layer_ops(dl), SLUICE_DMA_LOG_ERR,
					     "dma 0x%llx: restoring device access failed (%d)",
					     (unsigned long long)a, err);
	}
	rec->flags = 0;
	rec->orig = NULL;
	rec->len = 0;
	dma_pcpu_add(dl, &p->pcpu[cpu].unmaps, 1);
#if DMA_POLICY_WITH(SLUICE)
	if (p->fast_sluice) {
		/* The range check of sluice_dma_priv_bounce_free(), without its indirect call. */
		DMA_ASSERT(dl, nslots && head < p->nslabs && nslots <= p->nslabs - head,
			   "bounce free of slots %lu+%lu on cpu %u: outside pool %p (%lu slots)",
			   head, nslots, cpu, (void *)p, p->nslabs);
		/* The magazine's push inline; every other case in the policy. */
		dma_sluice_free_inline(p, head, nslots, cpu);
		return;
	}
#endif
	sluice_dma_priv_bounce_free(p, head, nslots, cpu);
}

/*
 * dma_bounce_end() - a validated bounce mapping ends; a
 * from-device one first copies back its first @written bytes (its length:
 * all of them, 0: none).
 */
static inline __attribute__((always_inline)) void
dma_bounce_end(struct sluice_dma_layer *dl, const struct dma_bounce_map *m, size_t written)
{
	struct dma_bounce_slot *rec = m->rec;
	unsigned int cpu = dma_cpu(dl);

	if ((rec->dir & SLUICE_DMA_FROM_DEVICE) && written) {
		void *tlb = dma_slot_vaddr(m->pool, m->slot, rec->off);
		uint64_t t0;

		DMA_STAGE(DMA_STAGE_CACHE);
		dma_cache(dl, tlb, rec->len, SLUICE_DMA_CACHE_INVALIDATE);
		DMA_STAGE(DMA_STAGE_COPY_BACK);
		t0 = dma_copy_start(dl);
		dma_port_copy(&dl->ops, rec->orig, tlb, written);
		dma_copy_end(dl, t0);
		dma_pcpu_add(dl, &m->pool->pcpu[cpu].bytes_from_device, written);
	}
	DMA_STAGE(DMA_STAGE_RELEASE);
	dma_bounce_put(dl, m, cpu);
}

/*
 * dma_bounce_release() - the unmap side of a bounce: the record of
 * @dma_addr found and checked against the caller's @len and @dir (each
 * mismatch refused, DMA_REFUSE), the first @written bytes copied back for a
 * from-device mapping, the record cleared and the slots freed. @told: the
 * caller named @written (sluice_dma_unmap_written() or _discard()), which a
 * from-device mapping made with SLUICE_DMA_ATTR_UNMAP_WRITTEN requires, since
 * its slots were not scrubbed. Returns 0, the refusal's error, or
 * DMA_BOUNCE_NOT_POOL when the address lies in no pool (the caller tries the
 * in-place region).
 */
static inline __attribute__((always_inline)) int dma_bounce_release(struct sluice_dma_layer *dl,
								    uint64_t dma_addr, size_t len,
								    enum sluice_dma_dir dir,
								    size_t written, bool told)
{
	struct dma_bounce_map m;
	int err = dma_bounce_lookup(dl, dma_addr, 0, &m, "unmap");

	if (err)
		return err;
	if (!m.rec)
		return DMA_BOUNCE_NOT_POOL;
	if (DMA_CHECKED(m.rec->len != len))
		return DMA_REFUSE(dl, SLUICE_DMA_ERR_INVAL,
				  "unmap of dma 0x%llx: length %zu, mapped %u",
				  (unsigned long long)dma_addr, len, m.rec->len);
	if (DMA_CHECKED(m.rec->dir != dir))
		return DMA_REFUSE(dl, SLUICE_DMA_ERR_INVAL,
				  "unmap of dma 0x%llx: direction %d, mapped %d",
				  (unsigned long long)dma_addr, (int)dir, m.rec->dir);
	if (DMA_CHECKED(!told && (m.rec->flags & DMA_SLOT_WRITTEN)))
		return DMA_REFUSE(dl, SLUICE_DMA_ERR_INVAL,
				  "unmap of dma 0x%llx: mapped with SLUICE_DMA_ATTR_UNMAP_WRITTEN, "
				  "its slots unscrubbed: end it with sluice_dma_unmap_written()",
				  (unsigned long long)dma_addr);
	dma_bounce_end(dl, &m, written);
	return 0;
}

#endif /* SLUICE_DMA_BOUNCE_HIT_H */
