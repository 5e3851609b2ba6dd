/* SPDX-License-Identifier: MIT */
/*
 * bounce_bitmap.c - the `bitmap` policy: patch 1 of Chao Gao's swiotlb RFC v2 (LKML,
 * 2022: "swiotlb: use bitmap to track free slots").
 *
 * One bit per slot (1 = free) replaces Linux's per-slot `list` counters, so a
 * release sets bits and renumbers nothing. The search is Linux's: per-CPU
 * areas with their own lock, next-fit `index`, the same stride and alignment
 * rules; a candidate fits when its n bits are all set and the run stays inside
 * one 128-slot segment (the patch clamps max_slots to IO_TLB_SEGSIZE).
 *
 * It is not LIFO (see bounce_lifo.c) and has no per-CPU caches.
 */
#include "dma/bounce_area.h"

struct dma_bitmap_meta {
	struct dma_bounce_area *areas; /* index: next-fit start */
	uint64_t *map;
};

_Static_assert(sizeof(struct dma_bitmap_meta) <= DMA_CACHELINE,
	       "SLUICE_DMA_BOUNCE_META_SIZE() bound (bounce.h)");

static struct dma_bitmap_meta *dma_bitmap_meta(const struct sluice_dma_bounce_pool *p)
{
	return p->priv;
}

static size_t dma_bitmap_meta_size(unsigned long nslabs, unsigned int nareas, unsigned int ncpus)
{
	(void)ncpus;
	return dma_align_up(sizeof(struct dma_bitmap_meta), DMA_CACHELINE) +
	       dma_bounce_areas_size(nareas) +
	       dma_align_up((nslabs + 63) / 64 * sizeof(uint64_t), DMA_CACHELINE);
}

static void dma_bitmap_init(struct sluice_dma_bounce_pool *p, void *meta)
{
	unsigned char *cur = meta;
	struct dma_bitmap_meta *m = dma_carve(&cur, sizeof(*m));

	m->areas = dma_carve(&cur, (size_t)p->nareas * sizeof(*m->areas));
	m->map = dma_carve(&cur, (p->nslabs + 63) / 64 * sizeof(uint64_t));
	memset(m->map, 0, (p->nslabs + 63) / 64 * sizeof(uint64_t));
	sluice_dma_priv_bits_set(m->map, 0, p->nslabs);
	dma_bounce_areas_init(p, m->areas);
}

static void dma_bitmap_fini(struct sluice_dma_bounce_pool *p)
{
	struct dma_bitmap_meta *m = p->priv;

	dma_bounce_areas_fini(p, m->areas);
}

/* The run at @s is free; slots shouldn't cross one segment (patch 1). */
static bool dma_bitmap_fits(const struct sluice_dma_bounce_pool *p, const struct dma_bounce_req *r,
			    unsigned long s)
{
	return dma_seg_offset(s) + r->nslots <= SLUICE_DMA_IO_TLB_SEGSIZE &&
	       sluice_dma_priv_bits_find_zero(dma_bitmap_meta(p)->map, s, s + r->nslots) ==
		       s + r->nslots;
}

static long dma_bitmap_area_find(struct sluice_dma_bounce_pool *p, const struct dma_bounce_req *r,
				 unsigned int ai, unsigned long *steps)
{
	struct dma_bitmap_meta *m = dma_bitmap_meta(p);
	struct dma_bounce_area *area = &m->areas[ai];
	long s = -1;

	dma_lock(p->dl, &area->lock);
	if (dma_bounce_area_has_room(p, area, r->nslots))
		s = dma_bounce_area_next_fit(p, r, ai, area, steps, dma_bitmap_fits);
	if (s < 0) {
		dma_unlock(p->dl, &area->lock);
		return -1;
	}
	sluice_dma_priv_bits_clear(m->map, (unsigned long)s, r->nslots);
	dma_bounce_area_took(p, area, r->nslots);
	return s;
}

static long dma_bitmap_alloc(struct sluice_dma_bounce_pool *p, const struct dma_bounce_req *r,
			     unsigned int cpu, unsigned long *steps)
{
	/* The layer sends nothing longer (no walk_oversize); a run never crosses a segment. */
	if (r->nslots > SLUICE_DMA_IO_TLB_SEGSIZE)
		return -1;
	return dma_bounce_search_from_cpu(p, r, cpu, steps, dma_bitmap_area_find);
}

static void dma_bitmap_free(struct sluice_dma_bounce_pool *p, unsigned long head,
			    unsigned long nslots, unsigned int cpu)
{
	struct dma_bitmap_meta *m = dma_bitmap_meta(p);
	struct dma_bounce_area *area = dma_bounce_area_of(p, m->areas, head);

	(void)cpu;
	dma_lock(p->dl, &area->lock);
	sluice_dma_priv_bits_set(m->map, head, nslots);
	dma_bounce_area_gave(p, area, nslots);
}

static bool dma_bitmap_is_free(const struct sluice_dma_bounce_pool *p, unsigned long s)
{
	return dma_bit_test(dma_bitmap_meta(p)->map, s);
}

static unsigned long dma_bitmap_used(const struct sluice_dma_bounce_pool *p)
{
	return dma_bounce_areas_used(p, dma_bitmap_meta(p)->areas);
}

/* Nothing of the bitmap's own to check: the bits are the free state. */
static int dma_bitmap_check(const struct sluice_dma_bounce_pool *p)
{
	return dma_bounce_areas_check(p, dma_bitmap_meta(p)->areas, true);
}

const struct dma_bounce_policy_ops sluice_dma_priv_bounce_bitmap_ops = {
	.meta_size = dma_bitmap_meta_size,
	.init = dma_bitmap_init,
	.fini = dma_bitmap_fini,
	.alloc = dma_bitmap_alloc,
	.free = dma_bitmap_free,
	.flush = NULL,
	.is_free = dma_bitmap_is_free,
	.used = dma_bitmap_used,
	.max_slots = dma_bounce_seg_max_slots,
	.check = dma_bitmap_check,
};
