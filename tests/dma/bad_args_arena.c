/* SPDX-License-Identifier: MIT */
/*
 * bad_args_arena.c - bad arguments of the arena (dma/include/sluice/arena.h).
 * Rows of tests/dma/test_bad_args.c (tests/dma/bad_args.h).
 */
#include "tests/dma/bad_args.h"

static long ameta_zero_len(struct bx *b)
{
	(void)b;
	return (long)sluice_dma_arena_meta_size(0, 1);
}

static long ameta_not_chunks(struct bx *b)
{
	(void)b;
	return (long)sluice_dma_arena_meta_size(CHUNK + 4096, 1);
}

static long ameta_zero_cpus(struct bx *b)
{
	(void)b;
	return (long)sluice_dma_arena_meta_size(CHUNK, 0);
}

static long ameta_many_cpus(struct bx *b)
{
	(void)b;
	return (long)sluice_dma_arena_meta_size(CHUNK, SLUICE_DMA_ARENA_MAX_CPUS + 1);
}

static long ameta_many_chunks(struct bx *b)
{
	(void)b;
	return (long)sluice_dma_arena_meta_size((size_t)(SLUICE_DMA_ARENA_MAX_CHUNKS + 1) * CHUNK,
						1);
}

/*
 * sluice_dma_arena_init() on a local arena, one argument spoilt. The region is a
 * 2 MB-aligned address that init never dereferences (it converts nothing);
 * the metadata is real, since a missing check would clear it.
 */
struct arena_args {
	struct sluice_dma_arena *arena;
	struct sluice_dma_port_ops ops;
	bool null_ops;
	struct sluice_dma_arena_config cfg;
	bool null_cfg;
};

static long ainit_with(struct bx *b, void (*spoil)(struct bx *b, struct arena_args *a))
{
	struct sluice_dma_arena local;
	size_t ml = sluice_dma_arena_meta_size(2 * CHUNK, 2);
	void *meta = malloc(ml);
	struct arena_args a = {
		.arena = &local,
		.ops = b->f->mp.ops,
		.cfg = { .base = (void *)(uintptr_t)(64 * CHUNK),
			 .len = 2 * CHUNK,
			 .max_shared = 0,
			 .ncpus = 2,
			 .meta = meta,
			 .meta_len = ml },
	};
	long rc;

	assert_non_null(meta);
	spoil(b, &a);
	rc = sluice_dma_arena_init(a.arena, a.null_ops ? NULL : &a.ops, a.null_cfg ? NULL : &a.cfg);
	free(meta);
	return rc;
}

static void as_null_arena(struct bx *b, struct arena_args *a)
{
	(void)b;
	a->arena = NULL;
}

static void as_null_ops(struct bx *b, struct arena_args *a)
{
	(void)b;
	a->null_ops = true;
}

static void as_null_cfg(struct bx *b, struct arena_args *a)
{
	(void)b;
	a->null_cfg = true;
}

static void as_no_set_shared(struct bx *b, struct arena_args *a)
{
	(void)b;
	a->ops.set_shared = NULL;
}

static void as_no_set_private(struct bx *b, struct arena_args *a)
{
	(void)b;
	a->ops.set_private = NULL;
}

static void as_no_virt_to_dma(struct bx *b, struct arena_args *a)
{
	(void)b;
	a->ops.virt_to_dma = NULL;
}

static void as_lock_no_unlock(struct bx *b, struct arena_args *a)
{
	(void)b;
	a->ops.unlock = NULL;
}

static void as_null_base(struct bx *b, struct arena_args *a)
{
	(void)b;
	a->cfg.base = NULL;
}

static void as_base_misaligned(struct bx *b, struct arena_args *a)
{
	(void)b;
	a->cfg.base = (unsigned char *)a->cfg.base + 4096;
}

static void as_zero_len(struct bx *b, struct arena_args *a)
{
	(void)b;
	a->cfg.len = 0;
}

static void as_len_not_chunks(struct bx *b, struct arena_args *a)
{
	(void)b;
	a->cfg.len += 4096;
}

static void as_many_chunks(struct bx *b, struct arena_args *a)
{
	(void)b;
	a->cfg.len = (size_t)(SLUICE_DMA_ARENA_MAX_CHUNKS + 1) * CHUNK;
}

static void as_region_wraps(struct bx *b, struct arena_args *a)
{
	(void)b;
	a->cfg.base = (void *)(UINTPTR_MAX & ~(uintptr_t)(CHUNK - 1));
}

static void as_zero_cpus(struct bx *b, struct arena_args *a)
{
	(void)b;
	a->cfg.ncpus = 0;
}

static void as_many_cpus(struct bx *b, struct arena_args *a)
{
	(void)b;
	a->cfg.ncpus = SLUICE_DMA_ARENA_MAX_CPUS + 1;
}

static void as_null_meta(struct bx *b, struct arena_args *a)
{
	(void)b;
	a->cfg.meta = NULL;
}

static void as_meta_short(struct bx *b, struct arena_args *a)
{
	(void)b;
	a->cfg.meta_len--;
}

static void as_meta_wraps(struct bx *b, struct arena_args *a)
{
	(void)b;
	a->cfg.meta = (void *)(UINTPTR_MAX - 100);
}

static void as_meta_in_region(struct bx *b, struct arena_args *a)
{
	(void)b;
	a->cfg.base = (void *)((uintptr_t)a->cfg.meta & ~(uintptr_t)(CHUNK - 1));
	a->cfg.len = 2 * CHUNK;
}

static void as_arena_in_region(struct bx *b, struct arena_args *a)
{
	(void)b;
	a->cfg.base = (void *)((uintptr_t)a->arena & ~(uintptr_t)(CHUNK - 1));
	a->cfg.len = 2 * CHUNK;
}

static long ainit_null_arena(struct bx *b)
{
	return ainit_with(b, as_null_arena);
}

static long ainit_null_ops(struct bx *b)
{
	return ainit_with(b, as_null_ops);
}

static long ainit_null_cfg(struct bx *b)
{
	return ainit_with(b, as_null_cfg);
}

static long ainit_no_set_shared(struct bx *b)
{
	return ainit_with(b, as_no_set_shared);
}

static long ainit_no_set_private(struct bx *b)
{
	return ainit_with(b, as_no_set_private);
}

static long ainit_no_virt_to_dma(struct bx *b)
{
	return ainit_with(b, as_no_virt_to_dma);
}

static long ainit_lock_no_unlock(struct bx *b)
{
	return ainit_with(b, as_lock_no_unlock);
}

static long ainit_null_base(struct bx *b)
{
	return ainit_with(b, as_null_base);
}

static long ainit_base_misaligned(struct bx *b)
{
	return ainit_with(b, as_base_misaligned);
}

static long ainit_zero_len(struct bx *b)
{
	return ainit_with(b, as_zero_len);
}

static long ainit_len_not_chunks(struct bx *b)
{
	return ainit_with(b, as_len_not_chunks);
}

static long ainit_many_chunks(struct bx *b)
{
	return ainit_with(b, as_many_chunks);
}

static long ainit_region_wraps(struct bx *b)
{
	return ainit_with(b, as_region_wraps);
}

static long ainit_zero_cpus(struct bx *b)
{
	return ainit_with(b, as_zero_cpus);
}

static long ainit_many_cpus(struct bx *b)
{
	return ainit_with(b, as_many_cpus);
}

static long ainit_null_meta(struct bx *b)
{
	return ainit_with(b, as_null_meta);
}

static long ainit_meta_short(struct bx *b)
{
	return ainit_with(b, as_meta_short);
}

static long ainit_meta_wraps(struct bx *b)
{
	return ainit_with(b, as_meta_wraps);
}

static long ainit_meta_in_region(struct bx *b)
{
	return ainit_with(b, as_meta_in_region);
}

static long ainit_arena_in_region(struct bx *b)
{
	return ainit_with(b, as_arena_in_region);
}

static struct sluice_dma_arena *zeroed_arena(void)
{
	static struct sluice_dma_arena za;

	memset(&za, 0, sizeof(za));
	return &za;
}

static long aalloc_null_arena(struct bx *b)
{
	(void)b;
	return sluice_dma_arena_alloc(NULL, 4096) != NULL;
}

static long aalloc_uninit(struct bx *b)
{
	(void)b;
	return sluice_dma_arena_alloc(zeroed_arena(), 4096) != NULL;
}

static long aalloc_zero(struct bx *b)
{
	return sluice_dma_arena_alloc(&b->arena, 0) != NULL;
}

static long aalloc_over_chunk(struct bx *b)
{
	return sluice_dma_arena_alloc(&b->arena, CHUNK + 1) != NULL;
}

static long aalloc_huge(struct bx *b)
{
	return sluice_dma_arena_alloc(&b->arena, SIZE_MAX) != NULL;
}

static long afree_null_arena(struct bx *b)
{
	return sluice_dma_arena_free(NULL, b->blk);
}

static long afree_uninit(struct bx *b)
{
	return sluice_dma_arena_free(zeroed_arena(), b->blk);
}

static long afree_never(struct bx *b)
{
	return sluice_dma_arena_free(&b->arena, b->blk + 8 * KIB);
}

static long afree_inside(struct bx *b)
{
	return sluice_dma_arena_free(&b->arena, b->blk + 16);
}

static long afree_unconverted(struct bx *b)
{
	return sluice_dma_arena_free(&b->arena, b->region + CHUNK);
}

static long afree_outside(struct bx *b)
{
	return sluice_dma_arena_free(&b->arena, &b->arena);
}

static long afree_twice(struct bx *b)
{
	sluice_dma_unmap(&b->f->dl, b->d_inplace, 4 * KIB, SLUICE_DMA_FROM_DEVICE);
	sluice_dma_arena_free(&b->arena, b->blk);
	return sluice_dma_arena_free(&b->arena, b->blk);
}

static long aowns_null(struct bx *b)
{
	return sluice_dma_arena_owns(NULL, b->blk, 1);
}

static long aowns_free_block(struct bx *b)
{
	return sluice_dma_arena_owns(&b->arena, b->blk + 8 * KIB, 1);
}

static long aowns_past_block(struct bx *b)
{
	return sluice_dma_arena_owns(&b->arena, b->blk + 4 * KIB, 4 * KIB + 1);
}

static long aowns_huge(struct bx *b)
{
	return sluice_dma_arena_owns(&b->arena, b->blk, SIZE_MAX);
}

static long ainplace_null_ctx(struct bx *b)
{
	return sluice_dma_arena_inplace_owns(NULL, b->blk, 1);
}

static long ashared_null(struct bx *b)
{
	return sluice_dma_arena_is_shared(NULL, b->blk, 1);
}

static long ashared_unconverted(struct bx *b)
{
	return sluice_dma_arena_is_shared(&b->arena, b->region + CHUNK, 1);
}

static long ashared_past_region(struct bx *b)
{
	return sluice_dma_arena_is_shared(&b->arena, b->region, 2 * CHUNK + 1);
}

static long ashared_huge(struct bx *b)
{
	return sluice_dma_arena_is_shared(&b->arena, b->blk, SIZE_MAX);
}

static long ashared_below(struct bx *b)
{
	return sluice_dma_arena_is_shared(&b->arena, b->region - 1, 2);
}

static long asize_null(struct bx *b)
{
	return (long)sluice_dma_arena_block_size(NULL, b->blk);
}

static long asize_inside(struct bx *b)
{
	return (long)sluice_dma_arena_block_size(&b->arena, b->blk + 16);
}

static long asize_free(struct bx *b)
{
	return (long)sluice_dma_arena_block_size(&b->arena, b->blk + 8 * KIB);
}

/* A query: a bad address answers 0 (no block has it) instead of trapping. */
static long adma_null(struct bx *b)
{
	return (long)sluice_dma_arena_dma_addr(NULL, b->blk);
}

static long adma_outside(struct bx *b)
{
	return (long)sluice_dma_arena_dma_addr(&b->arena, &b->arena);
}

static long adma_free_block(struct bx *b)
{
	return (long)sluice_dma_arena_dma_addr(&b->arena, b->blk + 8 * KIB);
}

static long areclaim_null(struct bx *b)
{
	(void)b;
	return sluice_dma_arena_reclaim(NULL, 0);
}

static long areclaim_uninit(struct bx *b)
{
	(void)b;
	return sluice_dma_arena_reclaim(zeroed_arena(), 0);
}

static long afini_null(struct bx *b)
{
	(void)b;
	return sluice_dma_arena_destroy(NULL);
}

static long afini_uninit(struct bx *b)
{
	(void)b;
	return sluice_dma_arena_destroy(zeroed_arena());
}

/* A live block: refused, and nothing is released (checked after the row). */
static long afini_live(struct bx *b)
{
	return sluice_dma_arena_destroy(&b->arena);
}

static long astats_null_arena(struct bx *b)
{
	struct sluice_dma_arena_stats st;

	(void)b;
	sluice_dma_arena_stats_get(NULL, &st);
	return 0;
}

static long astats_null_out(struct bx *b)
{
	sluice_dma_arena_stats_get(&b->arena, NULL);
	return 0;
}

static long aprint_null(struct bx *b)
{
	(void)b;
	sluice_dma_arena_stats_print(NULL, "x");
	return 0;
}

static long acheck_null(struct bx *b)
{
	(void)b;
	return sluice_dma_arena_check(NULL, 0);
}

static long acheck_uninit(struct bx *b)
{
	(void)b;
	return sluice_dma_arena_check(zeroed_arena(), 0);
}

static long acheck_bad_flag(struct bx *b)
{
	return sluice_dma_arena_check(&b->arena, 0x80);
}

static long afree_mapped(struct bx *b)
{
	return sluice_dma_arena_free(&b->arena, b->blk);
}

/* The live arena, initialised again with its own, valid, configuration (API 0.8). */
static long ainit_live(struct bx *b)
{
	struct sluice_dma_arena_config cfg = { .base = b->region,
					       .len = 2 * CHUNK,
					       .ncpus = 2,
					       .meta = b->ameta,
					       .meta_len =
						       sluice_dma_arena_meta_size(2 * CHUNK, 2) };

	return sluice_dma_arena_init(&b->arena, &b->f->mp.ops, &cfg);
}

const struct row bad_args_arena_rows[] = {
	/* dma/include/sluice/arena.h */
	{ R(ameta_zero_len, 0), false, false },
	{ R(ameta_not_chunks, 0), false, false },
	{ R(ameta_zero_cpus, 0), false, false },
	{ R(ameta_many_cpus, 0), false, false },
	{ R(ameta_many_chunks, 0), false, false },
	{ R(ainit_null_arena, SLUICE_DMA_ERR_INVAL), false, false },
	{ R(ainit_null_ops, SLUICE_DMA_ERR_INVAL), false, false },
	{ R(ainit_null_cfg, SLUICE_DMA_ERR_INVAL), false, false },
	{ R(ainit_no_set_shared, SLUICE_DMA_ERR_INVAL), false, false },
	{ R(ainit_no_set_private, SLUICE_DMA_ERR_INVAL), false, false },
	{ R(ainit_no_virt_to_dma, SLUICE_DMA_ERR_INVAL), false, false },
	{ R(ainit_lock_no_unlock, SLUICE_DMA_ERR_INVAL), false, false },
	{ R(ainit_null_base, SLUICE_DMA_ERR_INVAL), false, false },
	{ R(ainit_base_misaligned, SLUICE_DMA_ERR_INVAL), false, false },
	{ R(ainit_zero_len, SLUICE_DMA_ERR_INVAL), false, false },
	{ R(ainit_len_not_chunks, SLUICE_DMA_ERR_INVAL), false, false },
	{ R(ainit_many_chunks, SLUICE_DMA_ERR_INVAL), false, false },
	{ R(ainit_region_wraps, SLUICE_DMA_ERR_INVAL), false, false },
	{ R(ainit_zero_cpus, SLUICE_DMA_ERR_INVAL), false, false },
	{ R(ainit_many_cpus, SLUICE_DMA_ERR_INVAL), false, false },
	{ R(ainit_null_meta, SLUICE_DMA_ERR_INVAL), false, false },
	{ R(ainit_meta_short, SLUICE_DMA_ERR_INVAL), false, false },
	{ R(ainit_meta_wraps, SLUICE_DMA_ERR_INVAL), false, false },
	{ R(ainit_meta_in_region, SLUICE_DMA_ERR_INVAL), false, false },
	{ R(ainit_arena_in_region, SLUICE_DMA_ERR_INVAL), false, false },
	{ R(aalloc_null_arena, 0), false, false },
	{ R(aalloc_uninit, 0), false, false },
	{ R(aalloc_zero, 0), false, false },
	{ R(aalloc_over_chunk, 0), false, false },
	{ R(aalloc_huge, 0), false, false },
	{ R(afree_null_arena, SLUICE_DMA_ERR_INVAL), false, false },
	{ R(afree_uninit, SLUICE_DMA_ERR_INVAL), false, false },
	{ E(afree_never, SLUICE_DMA_ERR_NOENT, "not a live block", a_blk_plus8k), false, false },
	{ E(afree_inside, SLUICE_DMA_ERR_NOENT, "not a block start", a_blk_plus16), false, false },
	{ E(afree_unconverted, SLUICE_DMA_ERR_NOENT, "not a live block", a_chunk1), false, false },
	{ E(afree_outside, SLUICE_DMA_ERR_NOENT, "not a block start in the arena", a_arena), false,
	  false },
	{ E(afree_twice, SLUICE_DMA_ERR_NOENT, "not a live block (double free?)", a_inplace), false,
	  true },
	{ R(aowns_null, 0), false, false },
	{ R(aowns_free_block, 0), false, false },
	{ R(aowns_past_block, 0), false, false },
	{ R(aowns_huge, 0), false, false },
	{ R(ainplace_null_ctx, 0), false, false },
	{ R(ashared_null, 0), false, false },
	{ R(ashared_unconverted, 0), false, false },
	{ R(ashared_past_region, 0), false, false },
	{ R(ashared_huge, 0), false, false },
	{ R(ashared_below, 0), false, false },
	{ R(asize_null, 0), false, false },
	{ R(asize_inside, 0), false, false },
	{ R(asize_free, 0), false, false },
	{ R(adma_null, 0), false, false },
	{ R(adma_outside, 0), false, false },
	{ R(adma_free_block, 0), false, false },
	{ R(areclaim_null, 0), false, false },
	{ R(areclaim_uninit, 0), false, false },
	{ R(afini_null, SLUICE_DMA_ERR_INVAL), false, false },
	{ R(afini_uninit, SLUICE_DMA_ERR_INVAL), false, false },
	{ R(afini_live, SLUICE_DMA_ERR_BUSY), false, false },
	{ T(astats_null_arena, NULL, NULL), false, false },
	{ T(astats_null_out, "sluice_dma_arena_stats_get: NULL st for arena", a_arena), false,
	  false },
	{ R(aprint_null, 0), false, false },
	{ R(acheck_null, SLUICE_DMA_ERR_INVAL), false, false },
	{ R(acheck_uninit, SLUICE_DMA_ERR_INVAL), false, false },
	{ R(acheck_bad_flag, SLUICE_DMA_ERR_INVAL), false, false },
	{ E(afree_mapped, SLUICE_DMA_ERR_BUSY, "still mapped in place", a_inplace), false, false },
	{ R(ainit_live, SLUICE_DMA_ERR_BUSY), false, false },
};
const size_t bad_args_arena_nrows = sizeof(bad_args_arena_rows) / sizeof(bad_args_arena_rows[0]);
