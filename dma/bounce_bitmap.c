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
#include "dma/bounce.h"

/**
 * struct dma_bitmap_area - one area.
 * @lock: taken for every search and release in the area.
 * @used: slots taken in the area.
 * @index: next-fit start, relative to the area.
 */
struct dma_bitmap_area {
	alignas(DMA_CACHELINE) struct sluice_dma_port_lock lock;
	unsigned long used;
	unsigned long index;
};

struct dma_bitmap_meta {
	struct dma_bitmap_area *areas;
	uint64_t *map;
};

_Static_assert(sizeof(struct dma_bitmap_area) <= DMA_META_AREA_MAX &&
		       sizeof(struct dma_bitmap_meta) <= DMA_CACHELINE,
	       "SLUICE_DMA_BOUNCE_META_SIZE() bound (bounce.h)");

static struct dma_bitmap_meta *dma_bitmap_meta(const struct sluice_dma_bounce_pool *p)
{
	return p->priv;
}

static size_t dma_bitmap_meta_size(unsigned long nslabs, unsigned int nareas, unsigned int ncpus)
{
	(void)ncpus;
	return dma_align_up(sizeof(struct dma_bitmap_meta), DMA_CACHELINE) +
	       (size_t)nareas * sizeof(struct dma_bitmap_area) +
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
	for (unsigned int i = 0; i < p->nareas; i++) {
		dma_lock_init(p->dl, &m->areas[i].lock);
		m->areas[i].used = 0;
		m->areas[i].index = 0;
	}
}

static unsigned long dma_bitmap_wrap(const struct sluice_dma_bounce_pool *p, unsigned long index)
{
	return index >= p->area_nslabs ? 0 : index;
}

static long dma_bitmap_area_find(struct sluice_dma_bounce_pool *p, const struct dma_bounce_req *r,
				 unsigned int ai, unsigned long *steps)
{
	struct dma_bitmap_meta *m = dma_bitmap_meta(p);
	struct dma_bitmap_area *area = &m->areas[ai];
	unsigned long nslots = r->nslots, stride = r->stride;
	unsigned long slot_base = (unsigned long)ai * p->area_nslabs;
	unsigned long index, checked, s = 0;

	dma_lock(p->dl, &area->lock);
	if (nslots > p->area_nslabs - area->used)
		goto not_found;

	index = area->index;
	for (checked = 0; checked < p->area_nslabs;) {
		s = slot_base + index;
		(*steps)++;
		if (!dma_bounce_slot_aligned(p, r, s)) {
			index = dma_bitmap_wrap(p, index + 1);
			checked++;
			continue;
		}
		/* Slots shouldn't cross one segment (patch 1). */
		if (dma_bounce_span_ok(p, r, s, nslots) &&
		    dma_seg_offset(s) + nslots <= SLUICE_DMA_IO_TLB_SEGSIZE &&
		    sluice_dma_priv_bits_find_zero(m->map, s, s + nslots) == s + nslots)
			goto found;
		index = dma_bitmap_wrap(p, index + stride);
		checked += stride;
	}
not_found:
	dma_unlock(p->dl, &area->lock);
	return -1;

found:
	sluice_dma_priv_bits_clear(m->map, s, nslots);
	area->index = dma_bitmap_wrap(p, index + nslots);
	area->used += nslots;
	dma_unlock(p->dl, &area->lock);
	dma_bounce_used_add(p, nslots);
	return (long)s;
}

static long dma_bitmap_alloc(struct sluice_dma_bounce_pool *p, const struct dma_bounce_req *r,
			     unsigned int cpu, unsigned long *steps)
{
	return dma_bounce_search_areas(p, r, cpu, steps, dma_bitmap_area_find);
}

static void dma_bitmap_free(struct sluice_dma_bounce_pool *p, unsigned long head,
			    unsigned long nslots, unsigned int cpu)
{
	struct dma_bitmap_meta *m = dma_bitmap_meta(p);
	struct dma_bitmap_area *area = &m->areas[head / p->area_nslabs];

	(void)cpu;
	dma_lock(p->dl, &area->lock);
	sluice_dma_priv_bits_set(m->map, head, nslots);
	area->used -= nslots;
	dma_unlock(p->dl, &area->lock);
	dma_bounce_used_sub(p, nslots);
}

static bool dma_bitmap_is_free(const struct sluice_dma_bounce_pool *p, unsigned long s)
{
	return dma_bit_test(dma_bitmap_meta(p)->map, s);
}

static unsigned long dma_bitmap_used(const struct sluice_dma_bounce_pool *p)
{
	const struct dma_bitmap_meta *m = dma_bitmap_meta(p);
	unsigned long used = 0;

	for (unsigned int i = 0; i < p->nareas; i++)
		used += m->areas[i].used;
	return used;
}

static unsigned long dma_bitmap_max_slots(const struct sluice_dma_bounce_pool *p)
{
	(void)p;
	return SLUICE_DMA_IO_TLB_SEGSIZE;
}

static int dma_bitmap_check(const struct sluice_dma_bounce_pool *p)
{
	const struct dma_bitmap_meta *m = dma_bitmap_meta(p);

	for (unsigned int a = 0; a < p->nareas; a++) {
		unsigned long base = a * p->area_nslabs, taken = 0;

		for (unsigned long s = base; s < base + p->area_nslabs; s++)
			taken += !dma_bit_test(m->map, s);
		if (taken != m->areas[a].used || m->areas[a].index >= p->area_nslabs) {
			sluice_dma_priv_logf(dma_layer_ops(p->dl), SLUICE_DMA_LOG_ERR,
					     "check failed: bitmap area %u used %lu, counted %lu",
					     a, m->areas[a].used, taken);
			return SLUICE_DMA_ERR_FAULT;
		}
	}
	if (atomic_load(&p->total_used) != dma_bitmap_used(p)) {
		sluice_dma_priv_logf(dma_layer_ops(p->dl), SLUICE_DMA_LOG_ERR, "check failed: bitmap total_used");
		return SLUICE_DMA_ERR_FAULT;
	}
	return 0;
}

const struct dma_bounce_policy_ops sluice_dma_priv_bounce_bitmap_ops = {
	.name = "bitmap",
	.meta_size = dma_bitmap_meta_size,
	.init = dma_bitmap_init,
	.alloc = dma_bitmap_alloc,
	.free = dma_bitmap_free,
	.flush = NULL,
	.is_free = dma_bitmap_is_free,
	.used = dma_bitmap_used,
	.max_slots = dma_bitmap_max_slots,
	.check = dma_bitmap_check,
};
