/* SPDX-License-Identifier: MIT */
/*
 * bad_args_pool.c - bad arguments of the bounce pools: sluice_dma_bounce_meta_size(),
 * sluice_dma_bounce_pool_add(), sluice_dma_bounce_policy_name().
 * Rows of tests/dma/test_bad_args.c (tests/dma/bad_args.h).
 */
#include "tests/dma/bad_args.h"

static long meta_bad_policy(struct bx *b)
{
	(void)b;
	return (long)sluice_dma_bounce_meta_size((enum sluice_dma_bounce_policy)9, MIB, 1);
}

static long meta_zero_cpus(struct bx *b)
{
	return (long)sluice_dma_bounce_meta_size(b->f->policy, MIB, 0);
}

static long meta_too_small(struct bx *b)
{
	return (long)sluice_dma_bounce_meta_size(b->f->policy, 128 * SLUICE_DMA_IO_TLB_SIZE - 1, 1);
}

static long meta_zero_bytes(struct bx *b)
{
	return (long)sluice_dma_bounce_meta_size(b->f->policy, 0, 1);
}

/*
 * sluice_dma_bounce_pool_add() with fresh memory and metadata, one argument spoilt.
 * A missing check would convert and zero real memory, which the mock would
 * then find still shared at teardown: the row fails either way.
 */
struct pool_args {
	struct sluice_dma_layer *dl;
	enum sluice_dma_bounce_policy policy;
	void *mem;
	size_t bytes;
	void *meta;
	size_t meta_len;
};

static long pool_add_with(struct bx *b, void (*spoil)(struct bx *b, struct pool_args *a))
{
	size_t ml = sluice_dma_bounce_meta_size(b->f->policy, 256 * KIB, b->f->dl.ncpus);
	unsigned char *mem = fx_aligned(4096, 2 * MIB), *meta = malloc(ml + 64);
	struct pool_args a = { &b->f->dl, b->f->policy, mem, 256 * KIB, meta, ml };
	long rc;

	assert_non_null(mem);
	assert_non_null(meta);
	spoil(b, &a);
	rc = sluice_dma_bounce_pool_add(a.dl, a.policy, a.mem, a.bytes, a.meta, a.meta_len);
	free(meta);
	free(mem);
	return rc;
}

static void sp_null_layer(struct bx *b, struct pool_args *a)
{
	(void)b;
	a->dl = NULL;
}

static void sp_null_mem(struct bx *b, struct pool_args *a)
{
	(void)b;
	a->mem = NULL;
}

static void sp_null_meta(struct bx *b, struct pool_args *a)
{
	(void)b;
	a->meta = NULL;
}

static void sp_bad_policy(struct bx *b, struct pool_args *a)
{
	(void)b;
	a->policy = SLUICE_DMA_POLICY_COUNT;
}

static void sp_mem_misaligned(struct bx *b, struct pool_args *a)
{
	(void)b;
	a->mem = (unsigned char *)a->mem + 2048;
}

static void sp_bytes_not_pages(struct bx *b, struct pool_args *a)
{
	(void)b;
	a->bytes += 2048;
}

static void sp_too_small(struct bx *b, struct pool_args *a)
{
	(void)b;
	a->bytes = 128 * KIB;
}

static void sp_meta_short(struct bx *b, struct pool_args *a)
{
	(void)b;
	a->meta_len--;
}

static void sp_mem_wraps(struct bx *b, struct pool_args *a)
{
	(void)b;
	a->mem = (void *)(UINTPTR_MAX & ~(uintptr_t)4095);
}

static void sp_meta_wraps(struct bx *b, struct pool_args *a)
{
	(void)b;
	a->meta = (void *)(UINTPTR_MAX - 100);
}

static void sp_meta_in_mem(struct bx *b, struct pool_args *a)
{
	(void)b;
	a->meta = (unsigned char *)a->mem + 4096;
}

static void sp_same_mem_twice(struct bx *b, struct pool_args *a)
{
	a->mem = b->f->mem[0];
}

static void sp_mem_overlaps_pool(struct bx *b, struct pool_args *a)
{
	a->mem = (unsigned char *)b->f->mem[0] + b->f->bytes[0] - 64 * KIB;
}

static void sp_meta_in_pool(struct bx *b, struct pool_args *a)
{
	a->meta = (unsigned char *)b->f->mem[0] + 4096;
}

static void sp_meta_on_pool_meta(struct bx *b, struct pool_args *a)
{
	a->meta = (unsigned char *)b->f->meta[0] + 8;
}

static void sp_mem_on_pool_meta(struct bx *b, struct pool_args *a)
{
	a->mem = (void *)(((uintptr_t)b->f->meta[0] + 8 + 64) & ~(uintptr_t)4095);
}

static long pool_null_layer(struct bx *b)
{
	return pool_add_with(b, sp_null_layer);
}

static long pool_null_mem(struct bx *b)
{
	return pool_add_with(b, sp_null_mem);
}

static long pool_null_meta(struct bx *b)
{
	return pool_add_with(b, sp_null_meta);
}

static long pool_bad_policy(struct bx *b)
{
	return pool_add_with(b, sp_bad_policy);
}

static long pool_mem_misaligned(struct bx *b)
{
	return pool_add_with(b, sp_mem_misaligned);
}

static long pool_bytes_not_pages(struct bx *b)
{
	return pool_add_with(b, sp_bytes_not_pages);
}

static long pool_too_small(struct bx *b)
{
	return pool_add_with(b, sp_too_small);
}

static long pool_meta_short(struct bx *b)
{
	return pool_add_with(b, sp_meta_short);
}

static long pool_mem_wraps(struct bx *b)
{
	return pool_add_with(b, sp_mem_wraps);
}

static long pool_meta_wraps(struct bx *b)
{
	return pool_add_with(b, sp_meta_wraps);
}

static long pool_meta_in_mem(struct bx *b)
{
	return pool_add_with(b, sp_meta_in_mem);
}

static long pool_same_mem_twice(struct bx *b)
{
	return pool_add_with(b, sp_same_mem_twice);
}

static long pool_mem_overlaps_pool(struct bx *b)
{
	return pool_add_with(b, sp_mem_overlaps_pool);
}

static long pool_meta_in_pool(struct bx *b)
{
	return pool_add_with(b, sp_meta_in_pool);
}

static long pool_meta_on_pool_meta(struct bx *b)
{
	return pool_add_with(b, sp_meta_on_pool_meta);
}

static long pool_mem_on_pool_meta(struct bx *b)
{
	return pool_add_with(b, sp_mem_on_pool_meta);
}

/* The layer's own storage inside the memory it is given: it would be zeroed. */
static long pool_layer_in_mem(struct bx *b)
{
	size_t ml = sluice_dma_bounce_meta_size(b->f->policy, 256 * KIB, 1);
	unsigned char *mem = fx_aligned(4096, 256 * KIB), *meta = malloc(ml);
	struct sluice_dma_layer *dl = (struct sluice_dma_layer *)(void *)(mem + 128 * KIB);
	long rc;

	assert_int_equal(sluice_dma_layer_init(dl, &b->f->mp.ops, 1, SLUICE_DMA_SCRUB_COPY), 0);
	rc = sluice_dma_bounce_pool_add(dl, b->f->policy, mem, 256 * KIB, meta, ml);
	free(meta);
	free(mem);
	return rc;
}

static long policy_name_bad(struct bx *b)
{
	(void)b;
	return strcmp(sluice_dma_bounce_policy_name((enum sluice_dma_bounce_policy) - 1), "?") ||
	       strcmp(sluice_dma_bounce_policy_name(SLUICE_DMA_POLICY_COUNT), "?");
}

const struct row bad_args_pool_rows[] = {
	/* sluice_dma_bounce_meta_size(), sluice_dma_bounce_pool_add(),
	   sluice_dma_bounce_policy_name() */
	{ R(meta_bad_policy, 0), false, false },
	{ R(meta_zero_cpus, 0), true, false },
	{ R(meta_too_small, 0), true, false },
	{ R(meta_zero_bytes, 0), true, false },
	{ R(pool_null_layer, SLUICE_DMA_ERR_INVAL), true, false },
	{ R(pool_null_mem, SLUICE_DMA_ERR_INVAL), true, false },
	{ R(pool_null_meta, SLUICE_DMA_ERR_INVAL), true, false },
	{ R(pool_bad_policy, SLUICE_DMA_ERR_INVAL), true, false },
	{ R(pool_mem_misaligned, SLUICE_DMA_ERR_INVAL), true, false },
	{ R(pool_bytes_not_pages, SLUICE_DMA_ERR_INVAL), true, false },
	{ R(pool_too_small, SLUICE_DMA_ERR_INVAL), true, false },
	{ R(pool_meta_short, SLUICE_DMA_ERR_NOMEM), true, false },
	{ R(pool_mem_wraps, SLUICE_DMA_ERR_INVAL), true, false },
	{ R(pool_meta_wraps, SLUICE_DMA_ERR_INVAL), true, false },
	{ R(pool_meta_in_mem, SLUICE_DMA_ERR_INVAL), true, false },
	{ R(pool_layer_in_mem, SLUICE_DMA_ERR_INVAL), true, false },
	{ R(pool_same_mem_twice, SLUICE_DMA_ERR_INVAL), true, false },
	{ R(pool_mem_overlaps_pool, SLUICE_DMA_ERR_INVAL), true, false },
	{ R(pool_meta_in_pool, SLUICE_DMA_ERR_INVAL), true, false },
	{ R(pool_meta_on_pool_meta, SLUICE_DMA_ERR_INVAL), true, false },
	{ R(pool_mem_on_pool_meta, SLUICE_DMA_ERR_INVAL), true, false },
	{ R(policy_name_bad, 0), false, false },
};
const size_t bad_args_pool_nrows = sizeof(bad_args_pool_rows) / sizeof(bad_args_pool_rows[0]);
