/* SPDX-License-Identifier: MIT */
/*
 * bounce_area.h - the areas of the policies that search one area at a time
 * and cap a run at a 128-slot segment, as Linux does (linux, bitmap, lifo):
 * the area itself, its accounting and its self-check. Only how a policy finds
 * free slots inside an area differs between them (its own file); what an area
 * counts, and how that count is checked, is the same, so it lives here once.
 * The sluice policy has areas of a different shape (bounce_sluice.c). Not a
 * public header.
 */
#ifndef SLUICE_DMA_BOUNCE_AREA_H
#define SLUICE_DMA_BOUNCE_AREA_H

#include "dma/bounce.h"

/**
 * struct dma_bounce_area - one area (Linux struct io_tlb_area).
 * @lock: taken for every search and release in the area.
 * @used: slots taken in the area.
 * @index: linux, bitmap: where the next search starts, relative to the area.
 * @head: lifo: first free slot (absolute index), or the policy's "none".
 */
struct dma_bounce_area {
	alignas(DMA_CACHELINE) struct sluice_dma_port_lock lock;
	unsigned long used;
	union {
		unsigned long index;
		uint32_t head;
	};
};

_Static_assert(sizeof(struct dma_bounce_area) <= DMA_META_AREA_MAX,
	       "SLUICE_DMA_BOUNCE_META_SIZE() bound (bounce.h)");

/* Bytes of @nareas areas in the policy metadata. */
static inline size_t dma_bounce_areas_size(unsigned int nareas)
{
	return (size_t)nareas * sizeof(struct dma_bounce_area);
}

/* Every area empty, its lock ready, its search at its start. */
static inline void dma_bounce_areas_init(struct sluice_dma_bounce_pool *p,
					 struct dma_bounce_area *areas)
{
	for (unsigned int i = 0; i < p->nareas; i++) {
		dma_lock_init(p->dl, &areas[i].lock);
		areas[i].used = 0;
		areas[i].index = 0;
	}
}

/* The pool is released: its areas' locks go back to the port (lock_destroy). */
static inline void dma_bounce_areas_fini(struct sluice_dma_bounce_pool *p,
					 struct dma_bounce_area *areas)
{
	for (unsigned int i = 0; i < p->nareas; i++)
		dma_lock_destroy(p->dl, &areas[i].lock);
}

/* The area that holds slot @s (a run never crosses areas). */
static inline struct dma_bounce_area *dma_bounce_area_of(const struct sluice_dma_bounce_pool *p,
							 struct dma_bounce_area *areas,
							 unsigned long s)
{
	return &areas[s / p->area_nslabs];
}

/* Next-fit position @index, relative to the area, wrapped to its start. */
static inline unsigned long dma_bounce_area_wrap(const struct sluice_dma_bounce_pool *p,
						 unsigned long index)
{
	return index >= p->area_nslabs ? 0 : index;
}

/*
 * Whether @area may have @nslots free slots at all (lock held): the cheap
 * test Linux makes before it searches an area.
 */
static inline bool dma_bounce_area_has_room(const struct sluice_dma_bounce_pool *p,
					    const struct dma_bounce_area *area,
					    unsigned long nslots)
{
	return nslots <= p->area_nslabs - area->used;
}

/*
 * Linux's next-fit walk of one area (swiotlb_search_pool_area()), area lock
 * held and room checked: from the area's index, an unaligned slot advances by
 * one, an aligned slot that crosses a boundary or that @fits refuses advances
 * by the stride; at most area_nslabs slots are checked. Return the first slot
 * of the run, the area's index moved past it, or -1. @fits is the policy's
 * test that the run at @s is free (a constant at every call: inlined).
 */
static inline long
dma_bounce_area_next_fit(struct sluice_dma_bounce_pool *p, const struct dma_bounce_req *r,
			 unsigned int ai, struct dma_bounce_area *area, unsigned long *steps,
			 bool (*fits)(const struct sluice_dma_bounce_pool *p,
				      const struct dma_bounce_req *r, unsigned long s))
{
	unsigned long slot_base = (unsigned long)ai * p->area_nslabs;
	unsigned long index = area->index, checked, s;

	for (checked = 0; checked < p->area_nslabs;) {
		s = slot_base + index;
		(*steps)++;
		if (!dma_bounce_slot_aligned(p, r, s)) {
			index = dma_bounce_area_wrap(p, index + 1);
			checked++;
			continue;
		}
		if (dma_bounce_span_ok(p, r, s, r->nslots) && fits(p, r, s)) {
			area->index = dma_bounce_area_wrap(p, index + r->nslots);
			return (long)s;
		}
		index = dma_bounce_area_wrap(p, index + r->stride);
		checked += r->stride;
	}
	return -1;
}

/* @nslots slots were taken from @area (lock held): count them, then unlock. */
static inline void dma_bounce_area_took(struct sluice_dma_bounce_pool *p,
					struct dma_bounce_area *area, unsigned long nslots)
{
	area->used += nslots;
	dma_unlock(p->dl, &area->lock);
	dma_bounce_used_add(p, nslots);
}

/* @nslots slots went back to @area (lock held): uncount them, then unlock. */
static inline void dma_bounce_area_gave(struct sluice_dma_bounce_pool *p,
					struct dma_bounce_area *area, unsigned long nslots)
{
	area->used -= nslots;
	dma_unlock(p->dl, &area->lock);
	dma_bounce_used_sub(p, nslots);
}

/* Slots taken in every area. */
static inline unsigned long dma_bounce_areas_used(const struct sluice_dma_bounce_pool *p,
						  const struct dma_bounce_area *areas)
{
	unsigned long used = 0;

	for (unsigned int i = 0; i < p->nareas; i++)
		used += areas[i].used;
	return used;
}

/* Largest run these policies allocate: one segment (as Linux). */
static inline unsigned long dma_bounce_seg_max_slots(const struct sluice_dma_bounce_pool *p)
{
	(void)p;
	return SLUICE_DMA_IO_TLB_SEGSIZE;
}

/*
 * The area half of a policy's self-check: each area's count equals the slots
 * the policy's is_free() says are taken, a next-fit @index (@next_fit) lies
 * inside the area, and the pool's Linux-style total agrees with the areas.
 */
static inline int dma_bounce_areas_check(const struct sluice_dma_bounce_pool *p,
					 const struct dma_bounce_area *areas, bool next_fit)
{
	const struct sluice_dma_port_ops *ops = dma_layer_ops(p->dl);

	for (unsigned int a = 0; a < p->nareas; a++) {
		unsigned long base = a * p->area_nslabs, taken = 0;

		for (unsigned long s = base; s < base + p->area_nslabs; s++)
			taken += !p->pops->is_free(p, s);
		DMA_CHECK(ops, taken == areas[a].used, "%s area %u used %lu, counted %lu",
			  sluice_dma_bounce_policy_name(p->policy), a, areas[a].used, taken);
		DMA_CHECK(ops, !next_fit || areas[a].index < p->area_nslabs, "%s area %u index %lu",
			  sluice_dma_bounce_policy_name(p->policy), a, areas[a].index);
	}
	DMA_CHECK(ops, atomic_load(&p->total_used) == dma_bounce_areas_used(p, areas),
		  "%s total_used %lu, areas %lu", sluice_dma_bounce_policy_name(p->policy),
		  (unsigned long)atomic_load(&p->total_used), dma_bounce_areas_used(p, areas));
	return 0;
}

#endif /* SLUICE_DMA_BOUNCE_AREA_H */
