/* SPDX-License-Identifier: MIT */
/*
 * bad_args_sync.c - bad arguments of sluice_dma_sync_for_cpu() and
 * sluice_dma_sync_for_device().
 * Rows of tests/dma/test_bad_args.c (tests/dma/bad_args.h).
 */
#include "tests/dma/bad_args.h"

static long sync_cpu(struct bx *b, uint64_t d, size_t off, size_t len, enum sluice_dma_dir dir)
{
	return sluice_dma_sync_for_cpu(&b->f->dl, d, off, len, dir);
}

static long sync_dev(struct bx *b, uint64_t d, size_t off, size_t len, enum sluice_dma_dir dir)
{
	return sluice_dma_sync_for_device(&b->f->dl, d, off, len, dir);
}

static long sync_null_layer(struct bx *b)
{
	return sluice_dma_sync_for_cpu(NULL, b->d_from, 0, 1, SLUICE_DMA_FROM_DEVICE);
}

static long sync_uninit_layer(struct bx *b)
{
	struct sluice_dma_layer zl;

	memset(&zl, 0, sizeof(zl));
	return sluice_dma_sync_for_device(&zl, b->d_to, 0, 1, SLUICE_DMA_TO_DEVICE);
}

static long sync_zero_len(struct bx *b)
{
	return sync_cpu(b, b->d_from, 0, 0, SLUICE_DMA_FROM_DEVICE);
}

static long sync_dir_zero(struct bx *b)
{
	return sync_cpu(b, b->d_from, 0, 1, (enum sluice_dma_dir)0);
}

static long sync_dir_five(struct bx *b)
{
	return sync_dev(b, b->d_to, 0, 1, (enum sluice_dma_dir)5);
}

/* The direction given is not the mapping's. */
static long sync_cpu_on_to_device(struct bx *b)
{
	return sync_cpu(b, b->d_to, 0, 1, SLUICE_DMA_FROM_DEVICE);
}

static long sync_cpu_bidi_as_from(struct bx *b)
{
	return sync_cpu(b, b->d_bidi, 0, 1, SLUICE_DMA_FROM_DEVICE);
}

static long sync_dev_on_from_device(struct bx *b)
{
	return sync_dev(b, b->d_from, 0, 1, SLUICE_DMA_TO_DEVICE);
}

static long sync_dev_from_as_bidi(struct bx *b)
{
	return sync_dev(b, b->d_from, 0, 1, SLUICE_DMA_BIDIRECTIONAL);
}

static long sync_off_at_end(struct bx *b)
{
	return sync_cpu(b, b->d_from, MAP_LEN, 1, SLUICE_DMA_FROM_DEVICE);
}

static long sync_len_past_end(struct bx *b)
{
	return sync_cpu(b, b->d_from, MAP_LEN - 1, 2, SLUICE_DMA_FROM_DEVICE);
}

static long sync_off_huge(struct bx *b)
{
	return sync_cpu(b, b->d_from, SIZE_MAX, 1, SLUICE_DMA_FROM_DEVICE);
}

static long sync_len_huge(struct bx *b)
{
	return sync_dev(b, b->d_bidi, 1, SIZE_MAX, SLUICE_DMA_BIDIRECTIONAL);
}

static long sync_inplace_past_block(struct bx *b)
{
	return sync_cpu(b, b->d_inplace, 8 * KIB, 1, SLUICE_DMA_FROM_DEVICE);
}

static long sync_inplace_len_past_block(struct bx *b)
{
	return sync_dev(b, b->d_inplace, 4 * KIB, 8 * KIB, SLUICE_DMA_FROM_DEVICE);
}

static long sync_inplace_off_wraps(struct bx *b)
{
	return sync_cpu(b, b->d_inplace, SIZE_MAX, 1, SLUICE_DMA_FROM_DEVICE);
}

/* In place, a sync is checked as a bounce mapping's (API 0.8). */
static long sync_inplace_interior(struct bx *b)
{
	return sync_cpu(b, a_blk_plus16(b), 0, 1, SLUICE_DMA_FROM_DEVICE);
}

static long sync_inplace_unmapped(struct bx *b)
{
	return sync_dev(b, a_blk_plus4k(b), 0, 1, SLUICE_DMA_FROM_DEVICE);
}

static long sync_inplace_wrong_dir(struct bx *b)
{
	return sync_cpu(b, b->d_inplace, 0, 1, SLUICE_DMA_BIDIRECTIONAL);
}

static long sync_inplace_past_mapping(struct bx *b)
{
	return sync_cpu(b, b->d_inplace, 4000, 200, SLUICE_DMA_FROM_DEVICE);
}

static long sync_never_in_pool(struct bx *b)
{
	return sync_cpu(b, a_pool_free(b), 0, 1, SLUICE_DMA_FROM_DEVICE);
}

static long sync_private_addr(struct bx *b)
{
	return sync_dev(b, a_buf(b), 0, 1, SLUICE_DMA_TO_DEVICE);
}

static long sync_inside_mapping(struct bx *b)
{
	return sync_cpu(b, b->d_from + 1, 0, 1, SLUICE_DMA_FROM_DEVICE);
}

static long sync_coherent(struct bx *b)
{
	return sync_cpu(b, b->coh_dma, 0, 1, SLUICE_DMA_BIDIRECTIONAL);
}

static long sync_after_unmap(struct bx *b)
{
	sluice_dma_unmap(&b->f->dl, b->d_from, MAP_LEN, SLUICE_DMA_FROM_DEVICE);
	return sync_cpu(b, b->d_from, 0, 1, SLUICE_DMA_FROM_DEVICE);
}

const struct row bad_args_sync_rows[] = {
	/* sluice_dma_sync_for_cpu(), sluice_dma_sync_for_device() */
	{ R(sync_null_layer, SLUICE_DMA_ERR_INVAL), true, false },
	{ R(sync_uninit_layer, SLUICE_DMA_ERR_INVAL), true, false },
	{ R(sync_zero_len, SLUICE_DMA_ERR_INVAL), true, false },
	{ R(sync_dir_zero, SLUICE_DMA_ERR_INVAL), true, false },
	{ R(sync_dir_five, SLUICE_DMA_ERR_INVAL), true, false },
	{ R(sync_cpu_on_to_device, SLUICE_DMA_ERR_PERM), true, false },
	{ R(sync_cpu_bidi_as_from, SLUICE_DMA_ERR_PERM), true, false },
	{ R(sync_dev_on_from_device, SLUICE_DMA_ERR_PERM), true, false },
	{ R(sync_dev_from_as_bidi, SLUICE_DMA_ERR_PERM), true, false },
	{ R(sync_off_at_end, SLUICE_DMA_ERR_RANGE), true, false },
	{ R(sync_len_past_end, SLUICE_DMA_ERR_RANGE), true, false },
	{ R(sync_off_huge, SLUICE_DMA_ERR_RANGE), true, false },
	{ R(sync_len_huge, SLUICE_DMA_ERR_RANGE), true, false },
	{ R(sync_inplace_past_block, SLUICE_DMA_ERR_RANGE), true, false },
	{ R(sync_inplace_len_past_block, SLUICE_DMA_ERR_RANGE), true, false },
	{ R(sync_inplace_off_wraps, SLUICE_DMA_ERR_RANGE), true, false },
	{ E(sync_inplace_interior, SLUICE_DMA_ERR_NOENT, "no in-place mapping starts there",
	    a_blk_plus16),
	  true, false },
	{ E(sync_inplace_unmapped, SLUICE_DMA_ERR_NOENT, "no in-place mapping starts there",
	    a_blk_plus4k),
	  true, false },
	{ R(sync_inplace_wrong_dir, SLUICE_DMA_ERR_PERM), true, false },
	{ R(sync_inplace_past_mapping, SLUICE_DMA_ERR_RANGE), true, false },
	{ E(sync_never_in_pool, SLUICE_DMA_ERR_NOENT, "not a live mapping", a_pool_free), true,
	  false },
	{ E(sync_private_addr, SLUICE_DMA_ERR_NOENT, "not in any pool nor in-place region", a_buf),
	  true, false },
	{ E(sync_inside_mapping, SLUICE_DMA_ERR_NOENT, "not a live mapping", a_from_plus1), true,
	  false },
	{ E(sync_coherent, SLUICE_DMA_ERR_NOENT, "coherent memory, not a streaming mapping", a_coh),
	  true, false },
	{ E(sync_after_unmap, SLUICE_DMA_ERR_NOENT, "already unmapped", a_from), true, true },
};
const size_t bad_args_sync_nrows = sizeof(bad_args_sync_rows) / sizeof(bad_args_sync_rows[0]);
