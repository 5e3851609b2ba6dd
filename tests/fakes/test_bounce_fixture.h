/* SPDX-License-Identifier: MIT */
/*
 * test_bounce_fixture.h - a DMA layer with bounce pools on host memory, shared by
 * test_bounce.c, test_map.c and bench_alloc.c. Teardown runs the layer's
 * self-check, destroys the layer and checks that every converted page went
 * back to private.
 */
#ifndef SLUICE_TESTS_BOUNCE_FIXTURE_H
#define SLUICE_TESTS_BOUNCE_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sluice/dma.h>
#include "dma/bounce.h" /* sluice_dma_priv_fast_decide() */
#include "tests/fakes/mock_port.h"

#define FX_MAX_POOLS 8

/* aligned_alloc() wants size % align == 0; posix_memalign() does not. */
static inline void *fx_aligned(size_t align, size_t size)
{
	void *p = NULL;

	return posix_memalign(&p, align, size) ? NULL : p;
}

/**
 * struct fx - one layer on mock ops.
 * @mp: the mock porting ops.
 * @dl: the layer.
 * @policy: policy of every pool added with fx_add_pool().
 * @npools: pools added.
 * @mem: pool memory.
 * @bytes: pool sizes.
 * @meta: pool metadata.
 */
struct fx {
	struct mock_port mp;
	struct sluice_dma_layer dl;
	enum sluice_dma_bounce_policy policy;
	unsigned int npools;
	void *mem[FX_MAX_POOLS];
	size_t bytes[FX_MAX_POOLS];
	void *meta[FX_MAX_POOLS];
};

/* Add a pool of @bytes, aligned to @align (>= 4096). Returns the layer's code. */
static inline int fx_add_pool_aligned(struct fx *f, size_t bytes, size_t align)
{
	size_t meta_len = sluice_dma_bounce_meta_size(f->policy, bytes, f->dl.ncpus);
	void *mem = fx_aligned(align, bytes);
	/* Odd offset: the layer must accept metadata of any alignment. */
	unsigned char *meta = malloc(meta_len + 8);
	int err;

	if (!mem || !meta || f->npools >= FX_MAX_POOLS) {
		free(mem);
		free(meta);
		return SLUICE_DMA_ERR_NOMEM;
	}
	/* Garbage the host "left" in the pages: the layer must scrub it. */
	memset(mem, 0xA5, bytes);
	err = sluice_dma_bounce_pool_add(&f->dl, f->policy, mem, bytes, meta + 8, meta_len);
	if (err) {
		free(mem);
		free(meta);
		return err;
	}
	f->mem[f->npools] = mem;
	f->bytes[f->npools] = bytes;
	f->meta[f->npools] = meta;
	f->npools++;
	return 0;
}

static inline int fx_add_pool(struct fx *f, size_t bytes)
{
	return fx_add_pool_aligned(f, bytes, 1 << 20);
}

/*
 * After a test changed the layer's own copy of the ops (white-box: a port
 * cannot, dma_port.h), what init decided from them is decided again: whether
 * the common map and unmap take dma/map_fast.c's leaf paths.
 */
static inline void fx_ops_changed(struct fx *f)
{
	__atomic_store_n(&f->dl.fast, sluice_dma_priv_fast_decide(&f->dl), __ATOMIC_RELAXED);
}

/* A layer of @ncpus CPUs with one pool of @bytes (none if @bytes is 0). */
static inline struct fx *fx_new(enum sluice_dma_bounce_policy policy, unsigned int ncpus,
				size_t bytes, enum sluice_dma_scrub scrub)
{
	struct fx *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	mock_port_init(&f->mp, ncpus);
	f->policy = policy;
	if (sluice_dma_layer_init(&f->dl, &f->mp.ops, ncpus, scrub)) {
		free(f);
		return NULL;
	}
	if (bytes && fx_add_pool(f, bytes)) {
		free(f);
		return NULL;
	}
	return f;
}

/* Self-check, destroy, check that nothing stays shared, free. Returns 0 when clean. */
static inline int fx_free(struct fx *f)
{
	int err = 0;

	if (!f)
		return 0;
	if (sluice_dma_layer_check(&f->dl)) {
		fprintf(stderr, "fx_free: self-check failed: %s\n", f->mp.last_log);
		err = -1;
	}
	if (sluice_dma_layer_destroy(&f->dl)) {
		fprintf(stderr, "fx_free: destroy failed: %s\n", f->mp.last_log);
		err = -1;
	}
	if (mock_port_shared_bytes(&f->mp)) {
		fprintf(stderr, "fx_free: %zu bytes still shared\n",
			mock_port_shared_bytes(&f->mp));
		err = -1;
	}
	for (unsigned int i = 0; i < f->npools; i++) {
		free(f->mem[i]);
		free(f->meta[i]);
	}
	free(f);
	return err;
}

/* Index of the slot holding @dma in pool @i. */
static inline long fx_slot(const struct fx *f, unsigned int i, uint64_t dma)
{
	uint64_t start = (uint64_t)(uintptr_t)f->mem[i];

	if (dma < start || dma >= start + f->bytes[i])
		return -1;
	return (long)((dma - start) >> SLUICE_DMA_IO_TLB_SHIFT);
}

/* The device's view of a bounce address (identity in the mock). */
static inline unsigned char *fx_dev(uint64_t dma)
{
	return (unsigned char *)(uintptr_t)dma;
}

/* Every policy of <sluice/dma_policies.h>: each test group runs once per one. */
static const enum sluice_dma_bounce_policy fx_policies[SLUICE_DMA_POLICY_COUNT] = {
#define FX_POLICY_(upper, lower) SLUICE_DMA_POLICY_##upper,
	SLUICE_DMA_POLICIES(FX_POLICY_)
#undef FX_POLICY_
};

/**
 * struct fx_case - one case of a test group run once per policy (and scrub
 *	mode): the CMocka state of fx_case_setup() and fx_case_teardown().
 * @policy: the layer's policy.
 * @scrub: its scrub mode.
 * @bytes: the size of its one pool.
 * @leaf: the port promises exclusive CPU indices and installs its `rep movsb`
 *	copy and `rep stosb` zero (fx_leaf()); in a build that shows the library
 *	their inline bodies (MOCK_PORT_INLINE), the common map and unmap then
 *	take dma/map_fast.c's leaf paths.
 * @f: the layer (two CPUs), from setup to teardown.
 */
struct fx_case {
	enum sluice_dma_bounce_policy policy;
	enum sluice_dma_scrub scrub;
	size_t bytes;
	bool leaf;
	struct fx *f;
};

/*
 * The port of @f made as fx_case's @leaf says, on its layer's copy of the
 * ops too. Returns whether the layer now takes the leaf paths.
 */
static inline bool fx_leaf(struct fx *f)
{
	f->mp.ops.flags |= SLUICE_DMA_PORT_CPU_EXCLUSIVE;
	mock_port_set_copy(&f->mp, "movsb");
	f->dl.ops.flags = f->mp.ops.flags;
	f->dl.ops.copy = f->mp.ops.copy;
	f->dl.ops.zero = f->mp.ops.zero;
	fx_ops_changed(f);
	return f->dl.fast;
}

static inline int fx_case_setup(void **state)
{
	struct fx_case *tc = *state;

	tc->f = fx_new(tc->policy, 2, tc->bytes, tc->scrub);
	if (!tc->f)
		return -1;
		/* Where the build has the inline bodies, a leaf case that is none fails. */
#ifdef SLUICE_DMA_INLINE_COPY_FN
	if (tc->leaf && !fx_leaf(tc->f)) {
		fprintf(stderr, "fx_case_setup: a leaf case the layer does not take as one\n");
		fx_free(tc->f);
		tc->f = NULL;
		return -1;
	}
#else
	if (tc->leaf)
		fx_leaf(tc->f);
#endif
	return 0;
}

/* The layer's self-check and its pages back to private, as fx_free() checks. */
static inline int fx_case_teardown(void **state)
{
	struct fx_case *tc = *state;
	int err = fx_free(tc->f);

	tc->f = NULL;
	return err;
}

#endif /* SLUICE_TESTS_BOUNCE_FIXTURE_H */
