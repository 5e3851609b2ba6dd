/* SPDX-License-Identifier: MIT */
/*
 * bounce_linux.c - the `linux` policy: upstream Linux kernel/dma/swiotlb.c,
 * faithful in its decisions (our code, written from reading upstream).
 *
 * Which Linux: mainline since v6.10, without CONFIG_SWIOTLB_DYNAMIC. The slot
 * search and release (below) are v6.6's: v6.6's swiotlb_area_find_slots() and
 * mainline's swiotlb_search_pool_area() walk an area alike. What changed is
 * the request the walk is given, and there we follow the newer kernels
 * (dma/bounce.c, sluice_dma_priv_bounce_req_init()):
 *  - v6.9 (Will Deacon's alignment fixes): the allocation alignment is its own
 *    mask, tested against the slot address alone; min_align keeps only the
 *    original's bits below it; a mapping of a page or more with neither
 *    constraint is page aligned. v6.6 instead ORed everything, the page rule
 *    included, into one mask compared with the original address, so a page
 *    sized mapping kept the original's offset within the page (and a
 *    coherent allocation, with no original, skipped the alignment test).
 *  - v6.9: padding slots when the min_align offset exceeds a slot; v6.10: the
 *    size rounded up to the allocation alignment (swiotlb_tbl_map_single()
 *    lost its alloc_size argument).
 * Where the layer differs from any Linux: coherent memory of a page or more
 * is page aligned (map.c); Linux's swiotlb_alloc(), used only for restricted
 * DMA pools, aligns to the allocation's power-of-two order since v6.9.
 * tests/dma/test_linux_trace.c replays random request sequences against an
 * independent model of exactly this version.
 *
 * Every slot has a `list` counter: the number of free slots from it to the end
 * of its 128-slot segment (0 when taken). Each area has a lock, a `used` count
 * and a next-fit `index`. A request searches the calling CPU's area first
 * (cpu & (nareas - 1)), then the following ones, wrapping. Inside an area the
 * search starts at `index`: an unaligned slot advances by one, an aligned slot
 * that fails (boundary crossing or list < nslots) advances by the stride; at
 * most area_nslabs slots are checked. Taking slots zeroes their counters and
 * renumbers the free slots just before them in the segment; freeing counts up
 * from the free run after and merges with the free run before. For the same
 * requests on the same geometry it picks the same slots as upstream
 * (swiotlb_search_pool_area(), swiotlb_release_slots()).
 *
 * A request within the maximum mapping size that alignment padding makes
 * longer than a segment (or than its boundary allows) is not refused up front
 * either: upstream walks every area before it fails, and so does this policy
 * (walk_oversize), so that a comparison under such requests charges it what
 * Linux pays. A request longer than the maximum mapping size the driver was
 * told (sluice_dma_max_mapping_size()) is refused by the layer at once, for
 * every policy.
 *
 * It is not a model of the dynamic (CONFIG_SWIOTLB_DYNAMIC) pool list: growth
 * is the layer's, which searches pools in the order they were added.
 */
#include "dma/bounce_area.h"

struct dma_linux_meta {
	struct dma_bounce_area *areas; /* index: next-fit start */
	unsigned int *list;
};

_Static_assert(sizeof(struct dma_linux_meta) <= DMA_CACHELINE,
	       "SLUICE_DMA_BOUNCE_META_SIZE() bound (bounce.h)");

static struct dma_linux_meta *dma_linux_meta(const struct sluice_dma_bounce_pool *p)
{
	return p->priv;
}

static size_t dma_linux_meta_size(unsigned long nslabs, unsigned int nareas, unsigned int ncpus)
{
	(void)ncpus;
	return dma_align_up(sizeof(struct dma_linux_meta), DMA_CACHELINE) +
	       dma_bounce_areas_size(nareas) +
	       dma_align_up(nslabs * sizeof(unsigned int), DMA_CACHELINE);
}

static void dma_linux_init(struct sluice_dma_bounce_pool *p, void *meta)
{
	unsigned char *cur = meta;
	struct dma_linux_meta *m = dma_carve(&cur, sizeof(*m));

	m->areas = dma_carve(&cur, (size_t)p->nareas * sizeof(*m->areas));
	m->list = dma_carve(&cur, p->nslabs * sizeof(*m->list));
	dma_bounce_areas_init(p, m->areas);
	for (unsigned long i = 0; i < p->nslabs; i++)
		m->list[i] = SLUICE_DMA_IO_TLB_SEGSIZE - dma_seg_offset(i);
}

static void dma_linux_fini(struct sluice_dma_bounce_pool *p)
{
	struct dma_linux_meta *m = p->priv;

	dma_bounce_areas_fini(p, m->areas);
}

/* The run at @s is free: its counter says that many free slots follow in the segment. */
static bool dma_linux_fits(const struct sluice_dma_bounce_pool *p, const struct dma_bounce_req *r,
			   unsigned long s)
{
	return dma_linux_meta(p)->list[s] >= r->nslots;
}

/* swiotlb_search_pool_area() */
static long dma_linux_area_find(struct sluice_dma_bounce_pool *p, const struct dma_bounce_req *r,
				unsigned int ai, unsigned long *steps)
{
	struct dma_linux_meta *m = dma_linux_meta(p);
	struct dma_bounce_area *area = &m->areas[ai];
	unsigned long nslots = r->nslots, i;
	unsigned int count = 0;
	long s = -1;

	dma_lock(p->dl, &area->lock);
	if (dma_bounce_area_has_room(p, area, nslots))
		s = dma_bounce_area_next_fit(p, r, ai, area, steps, dma_linux_fits);
	if (s < 0) {
		dma_unlock(p->dl, &area->lock);
		return -1;
	}
	for (i = (unsigned long)s; i < (unsigned long)s + nslots; i++)
		m->list[i] = 0;
	/* Free slots just before the run now end at it: renumber them. */
	for (i = (unsigned long)s; dma_seg_offset(i) != 0 && m->list[i - 1]; i--)
		m->list[i - 1] = ++count;
	dma_bounce_area_took(p, area, nslots);
	return s;
}

/* swiotlb_find_slots() without dynamic pools: this CPU's area, then the others. */
static long dma_linux_alloc(struct sluice_dma_bounce_pool *p, const struct dma_bounce_req *r,
			    unsigned int cpu, unsigned long *steps)
{
	return dma_bounce_search_from_cpu(p, r, cpu, steps, dma_linux_area_find);
}

/* swiotlb_release_slots() */
static void dma_linux_free(struct sluice_dma_bounce_pool *p, unsigned long head,
			   unsigned long nslots, unsigned int cpu)
{
	struct dma_linux_meta *m = dma_linux_meta(p);
	struct dma_bounce_area *area = dma_bounce_area_of(p, m->areas, head);
	unsigned long seg_end = dma_align_up(head + 1, SLUICE_DMA_IO_TLB_SEGSIZE);
	unsigned int count;
	unsigned long i;

	(void)cpu;
	dma_lock(p->dl, &area->lock);
	count = head + nslots < seg_end ? m->list[head + nslots] : 0;
	/* Step 1: the returned slots, merged with the free run after them. */
	for (i = head + nslots; i-- > head;)
		m->list[i] = ++count;
	/* Step 2: merge with the free run before them, inside the segment. */
	for (i = head; dma_seg_offset(i) != 0 && m->list[i - 1]; i--)
		m->list[i - 1] = ++count;
	dma_bounce_area_gave(p, area, nslots);
}

static bool dma_linux_is_free(const struct sluice_dma_bounce_pool *p, unsigned long s)
{
	return dma_linux_meta(p)->list[s] != 0;
}

static unsigned long dma_linux_used(const struct sluice_dma_bounce_pool *p)
{
	return dma_bounce_areas_used(p, dma_linux_meta(p)->areas);
}

/* Every counter is what a recount from the end of its segment gives, then the areas. */
static int dma_linux_check(const struct sluice_dma_bounce_pool *p)
{
	const struct dma_linux_meta *m = dma_linux_meta(p);

	for (unsigned long s = 0; s < p->nslabs; s++) {
		unsigned int next = dma_seg_offset(s + 1) ? m->list[s + 1] : 0;
		unsigned int want = m->list[s] ? next + 1 : 0;

		if (s + 1 >= p->nslabs)
			want = m->list[s] ? 1 : 0;
		DMA_CHECK(dma_layer_ops(p->dl), m->list[s] == want, "linux list[%lu] = %u, want %u",
			  s, m->list[s], want);
	}
	return dma_bounce_areas_check(p, m->areas, true);
}

const struct dma_bounce_policy_ops sluice_dma_priv_bounce_linux_ops = {
	.meta_size = dma_linux_meta_size,
	.init = dma_linux_init,
	.fini = dma_linux_fini,
	.alloc = dma_linux_alloc,
	.free = dma_linux_free,
	.flush = NULL,
	.is_free = dma_linux_is_free,
	.used = dma_linux_used,
	.max_slots = dma_bounce_seg_max_slots,
	.check = dma_linux_check,
	.walk_oversize = true,
};
