/* SPDX-License-Identifier: MIT */
/*
 * bad_args_unmap.c - bad arguments of unmapping: sluice_dma_unmap(),
 * sluice_dma_unmap_discard(), sluice_dma_unmap_written(), sluice_dma_unmap_sg(), an
 * in-place block that holds no mapping.
 * Rows of tests/dma/test_bad_args.c (tests/dma/bad_args.h).
 */
#include "tests/dma/bad_args.h"

static long unmap_null_layer(struct bx *b)
{
	return sluice_dma_unmap(NULL, b->d_to, MAP_LEN, SLUICE_DMA_TO_DEVICE);
}

static long unmap_uninit_layer(struct bx *b)
{
	struct sluice_dma_layer zl;

	memset(&zl, 0, sizeof(zl));
	return sluice_dma_unmap(&zl, b->d_to, MAP_LEN, SLUICE_DMA_TO_DEVICE);
}

static long unmap_never_in_pool(struct bx *b)
{
	return sluice_dma_unmap(&b->f->dl, a_pool_free(b), MAP_LEN, SLUICE_DMA_TO_DEVICE);
}

static long unmap_private_addr(struct bx *b)
{
	return sluice_dma_unmap(&b->f->dl, a_buf(b), MAP_LEN, SLUICE_DMA_TO_DEVICE);
}

static long unmap_inside_mapping(struct bx *b)
{
	return sluice_dma_unmap(&b->f->dl, b->d_to + 1, MAP_LEN - 1, SLUICE_DMA_TO_DEVICE);
}

static long unmap_wrong_len(struct bx *b)
{
	return sluice_dma_unmap(&b->f->dl, b->d_to, MAP_LEN - 1, SLUICE_DMA_TO_DEVICE);
}

static long unmap_zero_len(struct bx *b)
{
	return sluice_dma_unmap(&b->f->dl, b->d_to, 0, SLUICE_DMA_TO_DEVICE);
}

static long unmap_wrong_dir(struct bx *b)
{
	return sluice_dma_unmap(&b->f->dl, b->d_to, MAP_LEN, SLUICE_DMA_FROM_DEVICE);
}

static long unmap_invalid_dir(struct bx *b)
{
	return sluice_dma_unmap(&b->f->dl, b->d_to, MAP_LEN, (enum sluice_dma_dir)7);
}

static long unmap_invalid_dir_inplace(struct bx *b)
{
	return sluice_dma_unmap(&b->f->dl, b->d_inplace, 4 * KIB, (enum sluice_dma_dir)0);
}

static long unmap_inplace_past_block(struct bx *b)
{
	return sluice_dma_unmap(&b->f->dl, b->d_inplace, 16 * KIB, SLUICE_DMA_FROM_DEVICE);
}

/* The in-place mapping's start, given back with another length or direction (API 0.8). */
static long unmap_inplace_wrong_len(struct bx *b)
{
	return sluice_dma_unmap(&b->f->dl, b->d_inplace, 100, SLUICE_DMA_FROM_DEVICE);
}

static long unmap_inplace_zero_len(struct bx *b)
{
	return sluice_dma_unmap(&b->f->dl, b->d_inplace, 0, SLUICE_DMA_FROM_DEVICE);
}

static long unmap_inplace_wrong_dir(struct bx *b)
{
	return sluice_dma_unmap(&b->f->dl, b->d_inplace, 4 * KIB, SLUICE_DMA_TO_DEVICE);
}

static long unmap_inplace_interior(struct bx *b)
{
	return sluice_dma_unmap(&b->f->dl, a_blk_plus16(b), 100, SLUICE_DMA_FROM_DEVICE);
}

static long discard_inplace_wrong_dir(struct bx *b)
{
	return sluice_dma_unmap_discard(&b->f->dl, b->d_inplace, 4 * KIB, SLUICE_DMA_BIDIRECTIONAL);
}

static long written_inplace_wrong_len(struct bx *b)
{
	return sluice_dma_unmap_written(&b->f->dl, b->d_inplace, 8 * KIB, SLUICE_DMA_FROM_DEVICE,
					1);
}

static long unmap_coherent(struct bx *b)
{
	return sluice_dma_unmap(&b->f->dl, b->coh_dma, 4096, SLUICE_DMA_BIDIRECTIONAL);
}

static long unmap_twice(struct bx *b)
{
	sluice_dma_unmap(&b->f->dl, b->d_to, MAP_LEN, SLUICE_DMA_TO_DEVICE);
	return sluice_dma_unmap(&b->f->dl, b->d_to, MAP_LEN, SLUICE_DMA_TO_DEVICE);
}

static long discard_null_layer(struct bx *b)
{
	return sluice_dma_unmap_discard(NULL, b->d_from, MAP_LEN, SLUICE_DMA_FROM_DEVICE);
}

static long discard_never(struct bx *b)
{
	return sluice_dma_unmap_discard(&b->f->dl, a_pool_free(b), MAP_LEN, SLUICE_DMA_FROM_DEVICE);
}

static long discard_wrong_len(struct bx *b)
{
	return sluice_dma_unmap_discard(&b->f->dl, b->d_from, MAP_LEN + 1, SLUICE_DMA_FROM_DEVICE);
}

static long discard_wrong_dir(struct bx *b)
{
	return sluice_dma_unmap_discard(&b->f->dl, b->d_from, MAP_LEN, SLUICE_DMA_BIDIRECTIONAL);
}

static long discard_twice(struct bx *b)
{
	sluice_dma_unmap_discard(&b->f->dl, b->d_from, MAP_LEN, SLUICE_DMA_FROM_DEVICE);
	return sluice_dma_unmap_discard(&b->f->dl, b->d_from, MAP_LEN, SLUICE_DMA_FROM_DEVICE);
}

static long written_null_layer(struct bx *b)
{
	return sluice_dma_unmap_written(NULL, b->d_from, MAP_LEN, SLUICE_DMA_FROM_DEVICE, 1);
}

static long written_never(struct bx *b)
{
	return sluice_dma_unmap_written(&b->f->dl, a_pool_free(b), MAP_LEN, SLUICE_DMA_FROM_DEVICE,
					1);
}

static long written_wrong_len(struct bx *b)
{
	return sluice_dma_unmap_written(&b->f->dl, b->d_from, MAP_LEN + 1, SLUICE_DMA_FROM_DEVICE,
					1);
}

static long written_beyond_len(struct bx *b)
{
	return sluice_dma_unmap_written(&b->f->dl, b->d_from, MAP_LEN, SLUICE_DMA_FROM_DEVICE,
					MAP_LEN + 1);
}

static long written_twice(struct bx *b)
{
	sluice_dma_unmap_written(&b->f->dl, b->d_from, MAP_LEN, SLUICE_DMA_FROM_DEVICE, 0);
	return sluice_dma_unmap_written(&b->f->dl, b->d_from, MAP_LEN, SLUICE_DMA_FROM_DEVICE, 0);
}

static long unmap_inplace_unmapped(struct bx *b)
{
	sluice_dma_unmap(&b->f->dl, b->d_inplace, 4 * KIB, SLUICE_DMA_FROM_DEVICE);
	return sluice_dma_unmap(&b->f->dl, b->d_inplace, 4 * KIB, SLUICE_DMA_FROM_DEVICE);
}

static long unmap_sg_null(struct bx *b)
{
	struct sluice_dma_sg sg[1] = { { b->buf, MAP_LEN, b->d_to } };

	return sluice_dma_unmap_sg(NULL, sg, 1, SLUICE_DMA_TO_DEVICE);
}

const struct row bad_args_unmap_rows[] = {
	/* sluice_dma_unmap(), sluice_dma_unmap_discard() */
	{ R(unmap_null_layer, SLUICE_DMA_ERR_INVAL), true, false },
	{ R(unmap_uninit_layer, SLUICE_DMA_ERR_INVAL), true, false },
	{ E(unmap_never_in_pool, SLUICE_DMA_ERR_NOENT, "not a live mapping", a_pool_free), true,
	  false },
	{ E(unmap_private_addr, SLUICE_DMA_ERR_NOENT, "not in any pool nor in-place region", a_buf),
	  true, false },
	{ E(unmap_inside_mapping, SLUICE_DMA_ERR_NOENT, "not a live mapping", a_to_plus1), true,
	  false },
	{ E(unmap_wrong_len, SLUICE_DMA_ERR_INVAL, "length 999, mapped 1000", a_to), true, false },
	{ E(unmap_zero_len, SLUICE_DMA_ERR_INVAL, "length 0, mapped 1000", a_to), true, false },
	{ E(unmap_wrong_dir, SLUICE_DMA_ERR_INVAL, "direction 2, mapped 1", a_to), true, false },
	{ E(unmap_invalid_dir, SLUICE_DMA_ERR_INVAL, "invalid direction 7", a_to), true, false },
	{ E(unmap_invalid_dir_inplace, SLUICE_DMA_ERR_INVAL, "invalid direction 0", a_inplace),
	  true, false },
	{ E(unmap_inplace_past_block, SLUICE_DMA_ERR_INVAL, "length 16384, mapped in place 4096",
	    a_inplace),
	  true, false },
	{ E(unmap_inplace_wrong_len, SLUICE_DMA_ERR_INVAL, "length 100, mapped in place 4096",
	    a_inplace),
	  true, false },
	{ E(unmap_inplace_zero_len, SLUICE_DMA_ERR_INVAL, "length 0, mapped in place 4096",
	    a_inplace),
	  true, false },
	{ E(unmap_inplace_wrong_dir, SLUICE_DMA_ERR_INVAL,
	    "direction 1, mapped in place in another", a_inplace),
	  true, false },
	{ E(unmap_inplace_interior, SLUICE_DMA_ERR_NOENT, "in-place block holds no mapping",
	    a_blk_plus16),
	  true, false },
	{ E(discard_inplace_wrong_dir, SLUICE_DMA_ERR_INVAL,
	    "direction 3, mapped in place in another", a_inplace),
	  true, false },
	{ E(written_inplace_wrong_len, SLUICE_DMA_ERR_INVAL, "length 8192, mapped in place 4096",
	    a_inplace),
	  true, false },
	{ E(unmap_coherent, SLUICE_DMA_ERR_NOENT, "coherent memory, not a streaming mapping",
	    a_coh),
	  true, false },
	{ E(unmap_twice, SLUICE_DMA_ERR_NOENT, "already unmapped", a_to), true, true },
	{ R(discard_null_layer, SLUICE_DMA_ERR_INVAL), true, false },
	{ E(discard_never, SLUICE_DMA_ERR_NOENT, "not a live mapping", a_pool_free), true, false },
	{ E(discard_wrong_len, SLUICE_DMA_ERR_INVAL, "length 1001, mapped 1000", a_from), true,
	  false },
	{ E(discard_wrong_dir, SLUICE_DMA_ERR_INVAL, "direction 3, mapped 2", a_from), true,
	  false },
	{ E(discard_twice, SLUICE_DMA_ERR_NOENT, "already unmapped", a_from), true, true },
	{ R(written_null_layer, SLUICE_DMA_ERR_INVAL), true, false },
	{ E(written_never, SLUICE_DMA_ERR_NOENT, "not a live mapping", a_pool_free), true, false },
	{ E(written_wrong_len, SLUICE_DMA_ERR_INVAL, "length 1001, mapped 1000", a_from), true,
	  false },
	{ E(written_beyond_len, SLUICE_DMA_ERR_INVAL, "1001 bytes written of 1000 mapped", a_from),
	  true, false },
	{ E(written_twice, SLUICE_DMA_ERR_NOENT, "already unmapped", a_from), true, true },
	{ E(unmap_inplace_unmapped, SLUICE_DMA_ERR_NOENT, "in-place block holds no mapping",
	    a_inplace),
	  true, true },
	{ R(unmap_sg_null, SLUICE_DMA_ERR_INVAL), true, false },
};
const size_t bad_args_unmap_nrows = sizeof(bad_args_unmap_rows) / sizeof(bad_args_unmap_rows[0]);
