/* SPDX-License-Identifier: MIT */
/*
 * test_linux_trace.c - the `linux` policy's slot choices, step by step,
 * against an independent model of the Linux it documents mirroring
 * (dma/bounce_linux.c): mainline since v6.10 without CONFIG_SWIOTLB_DYNAMIC,
 * torvalds/linux kernel/dma/swiotlb.c. The model below is written from
 * upstream's functions, not from the library: swiotlb_align_offset() and the
 * size rounding of swiotlb_tbl_map_single(), swiotlb_search_pool_area() (the
 * v6.9 masks and page rule, the v6.6 walk), swiotlb_pool_find_slots() and
 * swiotlb_release_slots().
 *
 * Seeded random sequences of maps and unmaps of varying sizes, CPUs, offsets,
 * min_align / alloc_align masks and boundaries run through the public API and
 * through the model; at every step the device address the layer returns must
 * be the one the model computes (so the slot, the padding and the offset),
 * a request must fail exactly when the model's does, and the allocator's
 * search steps must equal the model's loop iterations (which is how a failed
 * oversize request is checked to walk every area, as upstream does).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/fakes/test_bounce_fixture.h"

#define KIB 1024ul
#define MIB (1024ul * 1024ul)

/* Upstream's constants (include/linux/swiotlb.h), spelled out for the model. */
#define M_IO_TLB_SHIFT 11
#define M_IO_TLB_SIZE (1ul << M_IO_TLB_SHIFT)
#define M_IO_TLB_SEGSIZE 128
#define M_PAGE_SIZE 4096ul

#define M_MAX_SLOTS 4096
#define M_MAX_AREAS 8
#define M_MAX_LIVE 256

/* ---------------------------------------------------------------- the model */

struct m_area {
	unsigned long used;
	unsigned long index;
};

struct m_map {
	uint64_t dma;
	size_t len;
	unsigned long head, nslots;
};

struct model {
	uint64_t start; /* the pool's device address (identity in the mock) */
	unsigned long nslabs, nareas, area_nslabs;
	unsigned int list[M_MAX_SLOTS];
	struct m_area areas[M_MAX_AREAS];
	unsigned long steps; /* loop iterations of the area walks, in total */
};

static unsigned long m_nr_slots(uint64_t bytes)
{
	return (unsigned long)((bytes + M_IO_TLB_SIZE - 1) >> M_IO_TLB_SHIFT);
}

/* get_max_slots() */
static uint64_t m_max_slots(uint64_t boundary_mask)
{
	return (boundary_mask >> M_IO_TLB_SHIFT) + 1;
}

/* iommu_is_span_boundary() */
static bool m_span_boundary(uint64_t index, uint64_t nr, uint64_t shift, uint64_t boundary_size)
{
	shift = (shift + index) & (boundary_size - 1);
	return shift + nr > boundary_size;
}

static unsigned long m_wrap(const struct model *m, unsigned long index)
{
	return index >= m->area_nslabs ? 0 : index;
}

/* swiotlb_io_tlb_offset() is slot % IO_TLB_SEGSIZE; the pool is segment aligned. */
static unsigned long m_seg_off(unsigned long s)
{
	return s & (M_IO_TLB_SEGSIZE - 1);
}

static void m_init(struct model *m, uint64_t start, unsigned long nslabs, unsigned long nareas)
{
	memset(m, 0, sizeof(*m));
	m->start = start;
	m->nslabs = nslabs;
	m->nareas = nareas;
	m->area_nslabs = nslabs / nareas;
	for (unsigned long i = 0; i < nslabs; i++)
		m->list[i] = M_IO_TLB_SEGSIZE - m_seg_off(i);
}

/* swiotlb_search_pool_area() */
static long m_search_area(struct model *m, unsigned long ai, uint64_t orig, uint64_t alloc_size,
			  uint64_t alloc_align_mask, uint64_t min_align_mask,
			  uint64_t boundary_mask)
{
	struct m_area *area = &m->areas[ai];
	uint64_t tbl_dma_addr = m->start & boundary_mask;
	uint64_t max_slots = m_max_slots(boundary_mask);
	uint64_t iotlb_align_mask = min_align_mask;
	unsigned long nslots = m_nr_slots(alloc_size), stride, index, slots_checked, slot_index;
	unsigned long slot_base, count = 0;

	if (!alloc_align_mask && !iotlb_align_mask && alloc_size >= M_PAGE_SIZE)
		alloc_align_mask = M_PAGE_SIZE - 1;
	alloc_align_mask |= M_IO_TLB_SIZE - 1;
	iotlb_align_mask &= ~alloc_align_mask;
	stride = (unsigned long)m_max_slots(alloc_align_mask > iotlb_align_mask ? alloc_align_mask :
										  iotlb_align_mask);

	if (nslots > m->area_nslabs - area->used)
		return -1;
	slot_base = ai * m->area_nslabs;
	index = area->index;
	for (slots_checked = 0; slots_checked < m->area_nslabs;) {
		uint64_t tlb_addr;

		slot_index = slot_base + index;
		tlb_addr = tbl_dma_addr + ((uint64_t)slot_index << M_IO_TLB_SHIFT);
		m->steps++;
		if ((tlb_addr & alloc_align_mask) ||
		    (orig && (tlb_addr & iotlb_align_mask) != (orig & iotlb_align_mask))) {
			index = m_wrap(m, index + 1);
			slots_checked++;
			continue;
		}
		if (!m_span_boundary(slot_index, nslots, m_nr_slots(tbl_dma_addr), max_slots) &&
		    m->list[slot_index] >= nslots)
			goto found;
		index = m_wrap(m, index + stride);
		slots_checked += stride;
	}
	return -1;

found:
	for (unsigned long i = slot_index; i < slot_index + nslots; i++)
		m->list[i] = 0;
	for (long i = (long)slot_index - 1;
	     i >= 0 && m_seg_off((unsigned long)i) != M_IO_TLB_SEGSIZE - 1 && m->list[i]; i--)
		m->list[i] = (unsigned int)++count;
	area->index = m_wrap(m, index + nslots);
	area->used += nslots;
	return (long)slot_index;
}

/*
 * swiotlb_tbl_map_single() up to the address it returns, with
 * swiotlb_pool_find_slots() (the calling CPU's area, then the next ones).
 * Returns 0 and fills @mp, or -1 when upstream fails the mapping.
 */
static int m_map(struct model *m, unsigned int cpu, uint64_t orig, size_t len,
		 uint64_t min_align_mask, uint64_t alloc_align_mask, uint64_t boundary_mask,
		 struct m_map *mp)
{
	/* swiotlb_align_offset() */
	uint64_t offset = orig & min_align_mask & (alloc_align_mask | (M_IO_TLB_SIZE - 1));
	uint64_t size = (len + offset + alloc_align_mask) & ~alloc_align_mask;
	unsigned long start = cpu & (m->nareas - 1), i = start, pad;
	long index;

	do {
		index = m_search_area(m, i, orig, size, alloc_align_mask, min_align_mask,
				      boundary_mask);
		if (index >= 0)
			break;
		if (++i >= m->nareas)
			i = 0;
	} while (i != start);
	if (index < 0)
		return -1;
	pad = (unsigned long)(offset >> M_IO_TLB_SHIFT);
	mp->head = (unsigned long)index;
	mp->nslots = m_nr_slots(size);
	mp->len = len;
	mp->dma = m->start + ((uint64_t)(index + (long)pad) << M_IO_TLB_SHIFT) +
		  (offset & (M_IO_TLB_SIZE - 1));
	return 0;
}

/* swiotlb_release_slots() */
static void m_unmap(struct model *m, const struct m_map *mp)
{
	unsigned long index = mp->head, nslots = mp->nslots;
	struct m_area *area = &m->areas[index / m->area_nslabs];
	unsigned long seg_end = (index + 1 + M_IO_TLB_SEGSIZE - 1) & ~(M_IO_TLB_SEGSIZE - 1ul);
	unsigned int count = index + nslots < seg_end ? m->list[index + nslots] : 0;

	for (long i = (long)(index + nslots - 1); i >= (long)index; i--)
		m->list[i] = ++count;
	for (long i = (long)index - 1;
	     i >= 0 && m_seg_off((unsigned long)i) != M_IO_TLB_SEGSIZE - 1 && m->list[i]; i--)
		m->list[i] = ++count;
	area->used -= nslots;
}

/* ---------------------------------------------------------------- the trace */

static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static uint64_t pick(uint64_t *s, const uint64_t *v, size_t n)
{
	return v[rng_next(s) % n];
}

static unsigned long layer_steps(struct fx *f)
{
	struct sluice_dma_bounce_stats st;

	assert_int_equal(sluice_dma_bounce_stats_get(&f->dl, 0, &st), 0);
	return (unsigned long)st.search_steps;
}

/* The policy chose another slot than upstream's for the same request: say both. */
static void fail_other_slot(struct fx *f, const struct model *m, uint64_t seed, unsigned int step,
			    const struct sluice_dma_tag *t, size_t len, size_t off,
			    unsigned int cpu, uint64_t dma, uint64_t want)
{
	fail_msg("seed %llu step %u: %zu B on cpu %u (min_align %#llx alloc_align %#llx "
		 "boundary %#llx, offset %#zx): slot %ld + %#llx, upstream slot %lu + %#llx",
		 (unsigned long long)seed, step, len, cpu, (unsigned long long)t->min_align_mask,
		 (unsigned long long)t->alloc_align_mask, (unsigned long long)t->boundary_mask, off,
		 fx_slot(f, 0, dma), (unsigned long long)(dma & (M_IO_TLB_SIZE - 1)),
		 (unsigned long)((want - m->start) >> M_IO_TLB_SHIFT),
		 (unsigned long long)(want & (M_IO_TLB_SIZE - 1)));
}

/*
 * One trace: @nsteps random requests on a `linux` layer of @ncpus CPUs and one
 * pool of @bytes. Returns how many maps the model refused (to check that
 * the trace reached a full or fragmented pool).
 */
static unsigned int run_trace(unsigned int ncpus, size_t bytes, uint64_t seed, unsigned int nsteps)
{
	static const uint64_t lens[] = { 1,	100,   2047,   2048,   2049,   3000,
					 4095,	4096,  4097,   6000,   8192,   16384,
					 20000, 65536, 131072, 200000, 250000, 262144 };
	static const uint64_t min_aligns[] = { 0, 0, 0, 0x1ff, 0x7ff, 0xfff, 0x1fff };
	static const uint64_t alloc_aligns[] = { 0, 0, 0, 0xfff, 0x3fff, 0xffff, 0x7ffff };
	static const uint64_t boundaries[] = { SLUICE_DMA_NO_LIMIT, SLUICE_DMA_NO_LIMIT,
					       SLUICE_DMA_NO_LIMIT, 0xffff, 0x3ffff };
	struct fx *f = fx_new(SLUICE_DMA_POLICY_LINUX, ncpus, bytes, SLUICE_DMA_SCRUB_COPY);
	unsigned char *buf = fx_aligned(64 * KIB, 512 * KIB);
	struct sluice_dma_bounce_stats st;
	struct m_map live[M_MAX_LIVE];
	unsigned int nlive = 0, refused = 0;
	struct model *m = calloc(1, sizeof(*m));
	uint64_t s = seed;

	assert_non_null(f);
	assert_non_null(buf);
	assert_non_null(m);
	memset(buf, 0x5a, 512 * KIB);
	assert_int_equal(sluice_dma_bounce_stats_get(&f->dl, 0, &st), 0);
	assert_true(st.nslabs <= M_MAX_SLOTS && st.nareas <= M_MAX_AREAS);
	m_init(m, (uint64_t)(uintptr_t)f->mem[0], (unsigned long)st.nslabs,
	       (unsigned long)st.nareas);

	for (unsigned int step = 0; step < nsteps; step++) {
		bool do_map = nlive == 0 || (nlive < M_MAX_LIVE && rng_next(&s) % 100 < 58);
		struct m_map want;
		uint64_t dma;
		int err, merr;

		if (!do_map) {
			unsigned int k = (unsigned int)(rng_next(&s) % nlive);

			m_unmap(m, &live[k]);
			assert_int_equal(sluice_dma_unmap(&f->dl, live[k].dma, live[k].len,
							  SLUICE_DMA_TO_DEVICE),
					 0);
			live[k] = live[--nlive];
			continue;
		}

		struct sluice_dma_tag t = { SLUICE_DMA_NO_LIMIT, pick(&s, min_aligns, 7),
					    pick(&s, alloc_aligns, 7), pick(&s, boundaries, 5), 0 };
		size_t len = (size_t)pick(&s, lens, sizeof(lens) / sizeof(lens[0]));
		size_t off = (size_t)(rng_next(&s) % (64 * KIB));
		unsigned int cpu = (unsigned int)(rng_next(&s) % ncpus);

		/*
		 * Over sluice_dma_max_mapping_size() the layer refuses before any
		 * pool is asked (a driver is told that limit, as Linux's
		 * dma_max_mapping_size()): not a slot choice, so not traced.
		 */
		if (len > sluice_dma_max_mapping_size(&f->dl, &t))
			continue;
		merr = m_map(m, cpu, (uint64_t)(uintptr_t)(buf + off), len, t.min_align_mask,
			     t.alloc_align_mask, t.boundary_mask, &want);
		mock_port_set_cpu(cpu);
		err = sluice_dma_map(&f->dl, &t, buf + off, len, SLUICE_DMA_TO_DEVICE, &dma);
		mock_port_set_cpu(0);
		if (merr) {
			refused++;
			if (!err)
				fail_msg("seed %llu step %u: upstream fails %zu B (min_align %#llx "
					 "alloc_align %#llx boundary %#llx), the policy mapped "
					 "slot %ld",
					 (unsigned long long)seed, step, len,
					 (unsigned long long)t.min_align_mask,
					 (unsigned long long)t.alloc_align_mask,
					 (unsigned long long)t.boundary_mask, fx_slot(f, 0, dma));
		} else {
			if (err)
				fail_msg("seed %llu step %u: upstream maps %zu B at slot %lu, the "
					 "policy failed (%d)",
					 (unsigned long long)seed, step, len, want.head, err);
			if (dma != want.dma)
				fail_other_slot(f, m, seed, step, &t, len, off, cpu, dma, want.dma);
			live[nlive++] = want;
		}
		if (layer_steps(f) != m->steps)
			fail_msg("seed %llu step %u: %lu search steps, upstream's walk takes %lu",
				 (unsigned long long)seed, step, layer_steps(f), m->steps);
	}
	assert_int_equal(sluice_dma_layer_check(&f->dl), 0);
	while (nlive--)
		assert_int_equal(sluice_dma_unmap(&f->dl, live[nlive].dma, live[nlive].len,
						  SLUICE_DMA_TO_DEVICE),
				 0);
	assert_int_equal(fx_free(f), 0);
	free(buf);
	free(m);
	return refused;
}

/* One CPU, one area of 512 slots: next fit, wrap, fragmentation, full. */
static void test_trace_one_area(void **state)
{
	unsigned int refused = 0;

	(void)state;
	for (uint64_t seed = 1; seed <= 6; seed++)
		refused += run_trace(1, 1 * MIB, seed * 0x9e3779b97f4a7c15ull, 400);
	assert_true(refused > 0);
}

/* Four CPUs, four areas of 256 slots: the area walk from cpu & 3 and its wrap. */
static void test_trace_areas(void **state)
{
	unsigned int refused = 0;

	(void)state;
	for (uint64_t seed = 1; seed <= 6; seed++)
		refused += run_trace(4, 2 * MIB, seed * 0xd1b54a32d192ed03ull, 400);
	assert_true(refused > 0);
}

/*
 * An oversize request (alignment rounding past a 128-slot segment) on an
 * empty pool: upstream walks every area, stride by stride, before it fails;
 * so must the policy (its steps are checked against the model's in
 * run_trace() too), and the map fails with SLUICE_DMA_ERR_RANGE without
 * counting a full pool. A run longer
 * than its boundary cannot be asked for: the tag check and
 * sluice_dma_max_mapping_size() keep the rounded size inside the boundary.
 */
static void test_trace_oversize_walks(void **state)
{
	struct fx *f = fx_new(SLUICE_DMA_POLICY_LINUX, 4, 2 * MIB, SLUICE_DMA_SCRUB_COPY);
	unsigned char *buf = fx_aligned(64 * KIB, 512 * KIB);
	/* 200 KiB rounded up to 512 KiB alignment: 256 slots, twice a segment. */
	struct sluice_dma_tag t = { SLUICE_DMA_NO_LIMIT, 0, 0x7ffff, SLUICE_DMA_NO_LIMIT, 0 };
	struct model m;
	struct m_map want;
	uint64_t dma;

	(void)state;
	assert_non_null(f);
	assert_non_null(buf);
	m_init(&m, (uint64_t)(uintptr_t)f->mem[0], 1024, 4);
	assert_int_equal(m_map(&m, 1, (uint64_t)(uintptr_t)buf, 200 * KIB, 0, 0x7ffff,
			       SLUICE_DMA_NO_LIMIT, &want),
			 -1);
	/* Four areas of 256 slots, stride 256 (the 512 KiB alignment): one step each. */
	assert_int_equal(m.steps, 4);
	mock_port_set_cpu(1);
	assert_int_equal(sluice_dma_map(&f->dl, &t, buf, 200 * KIB, SLUICE_DMA_TO_DEVICE, &dma),
			 SLUICE_DMA_ERR_RANGE);
	mock_port_set_cpu(0);
	assert_int_equal(layer_steps(f), m.steps);
	/* Refused as too long, not for want of room: no pool counts itself full. */
	{
		struct sluice_dma_bounce_stats st;

		assert_int_equal(sluice_dma_bounce_stats_get(&f->dl, -1, &st), 0);
		assert_int_equal(st.full_events, 0);
	}

	assert_int_equal(fx_free(f), 0);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_trace_one_area),
		cmocka_unit_test(test_trace_areas),
		cmocka_unit_test(test_trace_oversize_walks),
	};

	if (!sluice_dma_bounce_policy_available(SLUICE_DMA_POLICY_LINUX)) {
		printf("test_linux_trace: the linux policy is not built in, skipped\n");
		return 0;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
