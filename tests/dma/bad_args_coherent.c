/* SPDX-License-Identifier: MIT */
/*
 * bad_args_coherent.c - bad arguments of coherent memory: sluice_dma_alloc_coherent(),
 * sluice_dma_alloc_attrs(), sluice_dma_free_coherent().
 * Rows of tests/dma/test_bad_args.c (tests/dma/bad_args.h).
 */
#include "tests/dma/bad_args.h"

static long coh_call(struct sluice_dma_layer *dl, const struct sluice_dma_tag *t, size_t size)
{
	uint64_t d = SENTINEL;
	void *p = sluice_dma_alloc_coherent(dl, t, size, &d);

	if (p) {
		sluice_dma_free_coherent(dl, p, size);
		return 1;
	}
	return d == SENTINEL ? 0 : CLOBBERED;
}

static long coh_null_layer(struct bx *b)
{
	(void)b;
	return coh_call(NULL, &deftag, 64);
}

static long coh_uninit_layer(struct bx *b)
{
	struct sluice_dma_layer zl;

	(void)b;
	memset(&zl, 0, sizeof(zl));
	return coh_call(&zl, &deftag, 64);
}

static long coh_null_tag(struct bx *b)
{
	return coh_call(&b->f->dl, NULL, 64);
}

static long coh_null_out(struct bx *b)
{
	return sluice_dma_alloc_coherent(&b->f->dl, &deftag, 64, NULL) != NULL;
}

static long coh_zero_size(struct bx *b)
{
	return coh_call(&b->f->dl, &deftag, 0);
}

static long coh_bad_tag(struct bx *b)
{
	const struct sluice_dma_tag t =
		tag_with(0, 0x800, SLUICE_DMA_NO_LIMIT, SLUICE_DMA_NO_LIMIT, 0);

	return coh_call(&b->f->dl, &t, 64);
}

static long coh_over_max_mapping(struct bx *b)
{
	const struct sluice_dma_tag t =
		tag_with(0, 0, SLUICE_DMA_NO_LIMIT, SLUICE_DMA_NO_LIMIT, 4096);

	return coh_call(&b->f->dl, &t, 4097);
}

static long coh_over_u32(struct bx *b)
{
	SKIP_IF_32BIT_SIZE();
	return coh_call(&b->f->dl, &deftag, (size_t)UINT32_MAX + 1);
}

/* Beyond the pools' runs and the arena's largest block (2 MB). */
static long coh_over_pool(struct bx *b)
{
	return coh_call(&b->f->dl, &deftag, 4 * MIB);
}

/* Pools out of the device's reach, and no region to fall back on. */
static long coh_unreachable(struct bx *b)
{
	const struct sluice_dma_tag t =
		tag_with(0, 0, SLUICE_DMA_NO_LIMIT, (uintptr_t)b->f->mem[0], 0);
	long ret;

	sluice_dma_layer_set_inplace(&b->f->dl, NULL);
	ret = coh_call(&b->f->dl, &t, 64);
	sluice_dma_layer_set_inplace(&b->f->dl, &b->hook);
	return ret;
}

static long free_null_layer(struct bx *b)
{
	return sluice_dma_free_coherent(NULL, b->coh, 4096);
}

static long free_null_vaddr(struct bx *b)
{
	return sluice_dma_free_coherent(&b->f->dl, NULL, 4096);
}

static long free_never_in_pool(struct bx *b)
{
	return sluice_dma_free_coherent(&b->f->dl, (void *)(uintptr_t)a_pool_free(b), 4096);
}

static long free_private(struct bx *b)
{
	return sluice_dma_free_coherent(&b->f->dl, b->buf, 4096);
}

static long free_wrong_size(struct bx *b)
{
	return sluice_dma_free_coherent(&b->f->dl, b->coh, 4095);
}

static long free_streaming(struct bx *b)
{
	return sluice_dma_free_coherent(&b->f->dl, (void *)(uintptr_t)b->d_to, MAP_LEN);
}

static long free_inside(struct bx *b)
{
	return sluice_dma_free_coherent(&b->f->dl, (unsigned char *)b->coh + 16, 4096 - 16);
}

static long free_twice(struct bx *b)
{
	sluice_dma_free_coherent(&b->f->dl, b->coh, 4096);
	return sluice_dma_free_coherent(&b->f->dl, b->coh, 4096);
}

static long aattrs_bad_attrs(struct bx *b)
{
	void *va = NULL;
	uint64_t d;

	return sluice_dma_alloc_attrs(&b->f->dl, &deftag, 64, 1, &va, &d);
}

static long aattrs_null_vaddr(struct bx *b)
{
	uint64_t d;

	return sluice_dma_alloc_attrs(&b->f->dl, &deftag, 64, 0, NULL, &d);
}

static long aattrs_over_max_mapping(struct bx *b)
{
	const struct sluice_dma_tag t =
		tag_with(0, 0, SLUICE_DMA_NO_LIMIT, SLUICE_DMA_NO_LIMIT, 100);
	void *va = NULL;
	uint64_t d;

	return sluice_dma_alloc_attrs(&b->f->dl, &t, 101, 0, &va, &d);
}

const struct row bad_args_coherent_rows[] = {
	/* sluice_dma_alloc_coherent(), sluice_dma_free_coherent() */
	{ R(coh_null_layer, 0), false, false },
	{ R(coh_uninit_layer, 0), false, false },
	{ R(coh_null_tag, 0), true, false },
	{ R(coh_null_out, 0), true, false },
	{ R(coh_zero_size, 0), true, false },
	{ R(coh_bad_tag, 0), true, false },
	{ R(coh_over_max_mapping, 0), true, false },
	{ R(coh_over_u32, 0), true, false },
	{ R(coh_over_pool, 0), true, false },
	{ R(coh_unreachable, 0), true, false },
	{ R(free_null_layer, SLUICE_DMA_ERR_INVAL), true, false },
	{ E(free_null_vaddr, SLUICE_DMA_ERR_NOENT, "not in any pool", a_null), true, false },
	{ E(free_never_in_pool, SLUICE_DMA_ERR_NOENT, "not a live mapping", a_pool_free), true,
	  false },
	{ E(free_private, SLUICE_DMA_ERR_NOENT, "not in any pool", a_buf), true, false },
	{ E(free_wrong_size, SLUICE_DMA_ERR_INVAL, "size 4095, allocated 4096", a_coh), true,
	  false },
	{ E(free_streaming, SLUICE_DMA_ERR_NOENT, "a streaming mapping, not coherent memory", a_to),
	  true, false },
	{ E(free_inside, SLUICE_DMA_ERR_NOENT, "not a live mapping", a_coh_plus16), true, false },
	{ E(free_twice, SLUICE_DMA_ERR_NOENT, "already unmapped", a_coh), true, true },
	{ R(aattrs_bad_attrs, SLUICE_DMA_ERR_INVAL), true, false },
	{ R(aattrs_null_vaddr, SLUICE_DMA_ERR_INVAL), true, false },
	{ R(aattrs_over_max_mapping, SLUICE_DMA_ERR_RANGE), true, false },
};
const size_t bad_args_coherent_nrows =
	sizeof(bad_args_coherent_rows) / sizeof(bad_args_coherent_rows[0]);
