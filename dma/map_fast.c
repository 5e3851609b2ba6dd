/* SPDX-License-Identifier: MIT */
/*
 * map_fast.c - the common map and unmap as functions that call nothing:
 * a streaming mapping of at most a page, with a plain tag, served from the
 * CPU's magazine of the first pool (the `sluice` policy), and its unmap on
 * the CPU that mapped it, back into that magazine. A layer takes them when
 * init found it may (struct sluice_dma_layer's @fast: the port's CPU index,
 * copy and zero run inline, its CPU indices are exclusive, it has no cache
 * maintenance, and the copies are not profiled). Every other request, and
 * every refusal, is handed to map.c as it came, before anything is changed.
 *
 * Why a file of its own: around a 4 KiB copy, a bounce is its own
 * instructions, and none of them runs under the copy (on the AMD EPYC VM of
 * docs/results/2026-12-06-arena-leaf.md, 48 independent register adds after
 * a `rep stosb` cost about 0.1 ns each: make bench-floor). map.c's path
 * decides at every call what the port's ops are (inline or called, locked or
 * exclusive, cache maintenance or none, profiled or not); these decide it
 * once (@fast) and call nothing but a tail call: a 4 KiB map+unmap is 231
 * instructions around its copy here, 313 on map.c's path (make bench-insns,
 * docs/results/2026-12-06-map-leaf.md). What they check is
 * what map.c checks, and they change what map.c changes: the record
 * (dma_rec_set()), the magazine (dma_sluice_mag_pop_held() and _put()), the
 * same counters, the same copy or scrub (dma_fill_copies()).
 */
#include "dma/bounce_hit.h"

#if defined(SLUICE_DMA_INLINE_CPU_ID_FN) && defined(SLUICE_DMA_INLINE_COPY_FN) && \
	defined(SLUICE_DMA_INLINE_ZERO_FN) && DMA_POLICY_WITH(SLUICE)
#define DMA_FAST_PATH 1
#endif

uint8_t sluice_dma_priv_fast_decide(const struct sluice_dma_layer *dl)
{
#ifdef DMA_FAST_PATH
	const struct sluice_dma_port_ops *ops = &dl->ops;

	return (ops->flags & SLUICE_DMA_PORT_CPU_EXCLUSIVE) &&
	       ops->cpu_id == SLUICE_DMA_INLINE_CPU_ID_FN &&
	       ops->copy == SLUICE_DMA_INLINE_COPY_FN && ops->zero == SLUICE_DMA_INLINE_ZERO_FN &&
	       !ops->cache_maint && !dl->profile;
#else
	(void)dl;
	return 0;
#endif
}

#ifdef DMA_FAST_PATH
/* This CPU's index: the port's inline op, folded as port.h's rule says. */
static inline __attribute__((always_inline)) unsigned int
fast_cpu(const struct sluice_dma_layer *dl)
{
	return dma_port_cpu_fold(SLUICE_DMA_INLINE_CPU_ID(dl->ops.ctx), dl->ncpus);
}

/* Whether @dl may take the leaf paths now (@fast), and its first pool can. */
static inline __attribute__((always_inline)) struct sluice_dma_bounce_pool *
fast_pool(struct sluice_dma_layer *dl)
{
	struct sluice_dma_bounce_pool *p;

	if (DMA_CHECKED(!dl) || !__atomic_load_n(&dl->fast, __ATOMIC_RELAXED))
		return NULL;
	p = __atomic_load_n(&dl->pools, __ATOMIC_ACQUIRE);
	return p && p->fast_sluice ? p : NULL;
}
#endif

int sluice_dma_map(struct sluice_dma_layer *dl, const struct sluice_dma_tag *tag, void *buf,
		   size_t len, enum sluice_dma_dir dir, uint64_t *dma_addr)
{
#ifdef DMA_FAST_PATH
	struct sluice_dma_bounce_pool *p;
	unsigned int cpu, k;
	unsigned char *tlb;
	long head;

	/*
	 * The stage markers (stage.h) of map.c's path, where this path has them;
	 * the args stage is entered for both paths here.
	 */
	DMA_STAGE(DMA_STAGE_ARGS);
	p = fast_pool(dl);

	/*
	 * map.c's refusals, for map.c to make (dma_map_args()), then the common
	 * request: a plain tag (dma_tag_plain()) whose length limit it is within,
	 * at most two slots of a pool the device reaches (dma_take_common()), no
	 * in-place region to try first.
	 */
	if (!p || DMA_CHECKED(!dma_addr) || dma_map_args(dl, buf, len, dir, 0) ||
	    !dma_tag_plain(tag) || (tag->max_mapping && len > tag->max_mapping) ||
	    !dma_take_common(p, tag, len, 0) || __atomic_load_n(&dl->inplace, __ATOMIC_RELAXED))
		return sluice_dma_priv_map(dl, tag, buf, len, dir, dma_addr);
	cpu = fast_cpu(dl);
	k = len > SLUICE_DMA_IO_TLB_SIZE;
	DMA_STAGE(DMA_STAGE_SLOT);
	/* An empty magazine or a pending drain: map.c refills or drains. */
	head = dma_sluice_mag_pop_held(p, &dma_sluice_meta(p)->cpus[cpu], k, cpu);
	if (head < 0)
		return sluice_dma_priv_map(dl, tag, buf, len, dir, dma_addr);
	DMA_STAGE(DMA_STAGE_RECORD);
	dma_rec_set(&p->slots[head], buf, len, k + 1, 0, dir, 0);
	dma_pcpu_add_owned(&p->pcpu[cpu].fast_maps, 1);
	/*
	 * Everything but the bytes is done before them, the counters and the
	 * address too (the caller sees none of it before the return), so that
	 * nothing is kept across the copy and the copy is the path's end.
	 */
	*dma_addr = dma_slot_addr(p, (unsigned long)head, 0);
	tlb = dma_slot_vaddr(p, (unsigned long)head, 0);
	DMA_STAGE(DMA_STAGE_COPY);
	if (dma_fill_copies(dl, buf, dir)) {
		dma_pcpu_add_owned(&p->pcpu[cpu].bytes_to_device, len);
		SLUICE_DMA_INLINE_COPY(dl->ops.ctx, tlb, buf, len);
	} else {
		dma_pcpu_add_owned(&p->pcpu[cpu].bytes_scrubbed, len);
		SLUICE_DMA_INLINE_ZERO(dl->ops.ctx, tlb, len);
	}
	DMA_STAGE(DMA_STAGE_COUNT);
	return 0;
#else
	DMA_STAGE(DMA_STAGE_ARGS);
	return sluice_dma_priv_map(dl, tag, buf, len, dir, dma_addr);
#endif
}

#ifdef DMA_FAST_PATH
/*
 * The common unmap (sluice_dma_unmap(), _written() and _discard(), as
 * dma_unmap_common() in map.c): a live streaming mapping of the first pool, of
 * exactly @len bytes and @dir, with no flag but LIVE (and WRITTEN when the
 * caller named @written, @told), whose slots this CPU took from a magazine
 * that has room for them again. Returns false, having changed nothing, for
 * anything else (another pool, the in-place region, a refusal, a remote
 * free, a full magazine, a drain): map.c's then.
 */
static inline __attribute__((always_inline)) bool fast_unmap(struct sluice_dma_layer *dl,
							     uint64_t dma_addr, size_t len,
							     enum sluice_dma_dir dir,
							     size_t written, bool told)
{
	struct sluice_dma_bounce_pool *p = fast_pool(dl);
	uint8_t live = DMA_SLOT_LIVE | (told ? DMA_SLOT_WRITTEN : 0);
	struct dma_sluice_meta *m;
	struct dma_bounce_slot *rec;
	struct dma_sluice_cpu *c;
	unsigned long s, head;
	unsigned int cpu, off;
	uint64_t at;
	uint32_t n;
	int k;

	if (!p)
		return false;
	at = dma_addr - p->dma_start;
	s = (unsigned long)(at >> SLUICE_DMA_IO_TLB_SHIFT);
	if (at >= p->bytes || s >= p->nslabs)
		return false;
	rec = &p->slots[s];
	off = (unsigned int)(at & (SLUICE_DMA_IO_TLB_SIZE - 1));
	if ((rec->flags | live) != live || !(rec->flags & DMA_SLOT_LIVE) || rec->off != off ||
	    rec->len != len || rec->dir != dir || written > len)
		return false;
	head = s - rec->pad;
	k = dma_sluice_class(head, rec->nslots);
	/*
	 * The run's range too, in the form dma_bounce_put() asserts it (map.c's
	 * trap): a padding larger than the slot index wraps @head above nslabs.
	 */
	if (k < 0 || head >= p->nslabs || rec->nslots > p->nslabs - head)
		return false;
	cpu = fast_cpu(dl);
	m = dma_sluice_meta(p);
	c = &m->cpus[cpu];
	if (p->slots[head].owner != cpu || !dma_sluice_mag_room(m, c, k, &n))
		return false;
	if ((dir & SLUICE_DMA_FROM_DEVICE) && written) {
		DMA_STAGE(DMA_STAGE_COPY_BACK);
		SLUICE_DMA_INLINE_COPY(dl->ops.ctx, rec->orig, dma_slot_vaddr(p, s, off), written);
		dma_pcpu_add_owned(&p->pcpu[cpu].bytes_from_device, written);
	}
	DMA_STAGE(DMA_STAGE_RELEASE);
	rec->flags = 0;
	rec->orig = NULL;
	rec->len = 0;
	dma_pcpu_add_owned(&p->pcpu[cpu].unmaps, 1);
	dma_sluice_mag_put(c, k, n, head);
	DMA_STAGE(DMA_STAGE_COUNT);
	return true;
}
#else
#define fast_unmap(dl, dma_addr, len, dir, written, told) false
#endif

int sluice_dma_unmap(struct sluice_dma_layer *dl, uint64_t dma_addr, size_t len,
		     enum sluice_dma_dir dir)
{
	/* The lookup stage (stage.h), for both paths. */
	DMA_STAGE(DMA_STAGE_LOOKUP);
	if (fast_unmap(dl, dma_addr, len, dir, len, false))
		return 0;
	return sluice_dma_priv_unmap(dl, dma_addr, len, dir);
}

int sluice_dma_unmap_written(struct sluice_dma_layer *dl, uint64_t dma_addr, size_t len,
			     enum sluice_dma_dir dir, size_t written)
{
	/* The lookup stage (stage.h), for both paths. */
	DMA_STAGE(DMA_STAGE_LOOKUP);
	if (fast_unmap(dl, dma_addr, len, dir, written, true))
		return 0;
	return sluice_dma_priv_unmap_written(dl, dma_addr, len, dir, written);
}

int sluice_dma_unmap_discard(struct sluice_dma_layer *dl, uint64_t dma_addr, size_t len,
			     enum sluice_dma_dir dir)
{
	/* The lookup stage (stage.h), for both paths. */
	DMA_STAGE(DMA_STAGE_LOOKUP);
	if (fast_unmap(dl, dma_addr, len, dir, 0, true))
		return 0;
	return sluice_dma_priv_unmap_discard(dl, dma_addr, len, dir);
}
