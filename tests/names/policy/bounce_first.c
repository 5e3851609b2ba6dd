/* SPDX-License-Identifier: MIT */
/*
 * bounce_first.c - the `first` policy: a test fixture, never shipped.
 * tests/names/add_policy.sh copies it to dma/bounce_first.c in a scratch copy
 * of the tree, with its line in <sluice/dma_policies.h> and its test, to show
 * that adding a policy touches those three files and nothing else.
 *
 * First fit: the bitmap policy's bits (1 = free) and areas, but every search
 * starts at the area's first slot instead of where the last one ended, so a
 * freed low run is handed out again at once. Not a candidate for use: it
 * rescans the taken front of the area on every request.
 */
#include "dma/bounce_area.h"

struct dma_first_meta {
	struct dma_bounce_area *areas;
	uint64_t *map;
};

_Static_assert(sizeof(struct dma_first_meta) <= DMA_CACHELINE,
	       "SLUICE_DMA_BOUNCE_META_SIZE() bound (bounce.h)");

static struct dma_first_meta *dma_first_meta(const struct sluice_dma_bounce_pool *p)
{
	return p->priv;
}

static size_t dma_first_meta_size(unsigned long nslabs, unsigned int nareas, unsigned int ncpus)
{
	(void)ncpus;
	return dma_align_up(sizeof(struct dma_first_meta), DMA_CACHELINE) +
	       dma_bounce_areas_size(nareas) +
	       dma_align_up((nslabs + 63) / 64 * sizeof(uint64_t), DMA_CACHELINE);
}

static void dma_first_init(struct sluice_dma_bounce_pool *p, void *meta)
{
	unsigned char *cur = meta;
	struct dma_first_meta *m = dma_carve(&cur, sizeof(*m));

	m->areas = dma_carve(&cur, (size_t)p->nareas * sizeof(*m->areas));
	m->map = dma_carve(&cur, (p->nslabs + 63) / 64 * sizeof(uint64_t));
	memset(m->map, 0, (p->nslabs + 63) / 64 * sizeof(uint64_t));
	sluice_dma_priv_bits_set(m->map, 0, p->nslabs);
	dma_bounce_areas_init(p, m->areas);
}

static void dma_first_fini(struct sluice_dma_bounce_pool *p)
{
	dma_bounce_areas_fini(p, dma_first_meta(p)->areas);
}

/* The run at @s is free and stays inside one 128-slot segment. */
static bool dma_first_fits(const struct sluice_dma_bounce_pool *p, const struct dma_bounce_req *r,
			   unsigned long s)
{
	return dma_seg_offset(s) + r->nslots <= SLUICE_DMA_IO_TLB_SEGSIZE &&
	       sluice_dma_priv_bits_find_zero(dma_first_meta(p)->map, s, s + r->nslots) ==
		       s + r->nslots;
}

static long dma_first_area_find(struct sluice_dma_bounce_pool *p, const struct dma_bounce_req *r,
				unsigned int ai, unsigned long *steps)
{
	struct dma_first_meta *m = dma_first_meta(p);
	struct dma_bounce_area *area = &m->areas[ai];
	long s = -1;

	dma_lock(p->dl, &area->lock);
	area->index = 0; /* first fit: every search from the area's start */
	if (dma_bounce_area_has_room(p, area, r->nslots))
		s = dma_bounce_area_next_fit(p, r, ai, area, steps, dma_first_fits);
	if (s < 0) {
		dma_unlock(p->dl, &area->lock);
		return -1;
	}
	sluice_dma_priv_bits_clear(m->map, (unsigned long)s, r->nslots);
	dma_bounce_area_took(p, area, r->nslots);
	return s;
}

static long dma_first_alloc(struct sluice_dma_bounce_pool *p, const struct dma_bounce_req *r,
			    unsigned int cpu, unsigned long *steps)
{
	if (r->nslots > SLUICE_DMA_IO_TLB_SEGSIZE)
		return -1;
	return dma_bounce_search_from_cpu(p, r, cpu, steps, dma_first_area_find);
}

static void dma_first_free(struct sluice_dma_bounce_pool *p, unsigned long head,
			   unsigned long nslots, unsigned int cpu)
{
	struct dma_first_meta *m = dma_first_meta(p);
	struct dma_bounce_area *area = dma_bounce_area_of(p, m->areas, head);

	(void)cpu;
	dma_lock(p->dl, &area->lock);
	sluice_dma_priv_bits_set(m->map, head, nslots);
	dma_bounce_area_gave(p, area, nslots);
}

static bool dma_first_is_free(const struct sluice_dma_bounce_pool *p, unsigned long s)
{
	return dma_bit_test(dma_first_meta(p)->map, s);
}

static unsigned long dma_first_used(const struct sluice_dma_bounce_pool *p)
{
	return dma_bounce_areas_used(p, dma_first_meta(p)->areas);
}

static int dma_first_check(const struct sluice_dma_bounce_pool *p)
{
	return dma_bounce_areas_check(p, dma_first_meta(p)->areas, true);
}

const struct dma_bounce_policy_ops sluice_dma_priv_bounce_first_ops = {
	.meta_size = dma_first_meta_size,
	.init = dma_first_init,
	.fini = dma_first_fini,
	.alloc = dma_first_alloc,
	.free = dma_first_free,
	.flush = NULL,
	.is_free = dma_first_is_free,
	.used = dma_first_used,
	.max_slots = dma_bounce_seg_max_slots,
	.check = dma_first_check,
};
