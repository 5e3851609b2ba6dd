/* SPDX-License-Identifier: MIT */
/*
 * bad_args_layer.c - bad arguments of the layer: sluice_dma_layer_init(),
 * set_inplace(), set_profile(), copy_cycles(), destroy(), destroy_report(),
 * set_strict(), caps(), sluice_dma_set_access(), unmap_all(), mapping_foreach(), the
 * arena's in-place region hook, and the queries: addr_is_shared(), the pool count,
 * statistics, the self-check.
 * Rows of tests/dma/test_bad_args.c (tests/dma/bad_args.h).
 */
#include "tests/dma/bad_args.h"

/* sluice_dma_layer_init() of a local layer (or NULL) with the mock's ops, one spoilt. */
static long init_with(struct bx *b, void (*spoil)(struct sluice_dma_port_ops *o), bool null_layer,
		      unsigned int ncpus, enum sluice_dma_scrub scrub)
{
	struct sluice_dma_port_ops ops = b->f->mp.ops;
	struct sluice_dma_layer local;

	if (spoil)
		spoil(&ops);
	return sluice_dma_layer_init(null_layer ? NULL : &local, &ops, ncpus, scrub);
}

static void no_set_shared(struct sluice_dma_port_ops *o)
{
	o->set_shared = NULL;
}

static void no_set_private(struct sluice_dma_port_ops *o)
{
	o->set_private = NULL;
}

static void no_virt_to_dma(struct sluice_dma_port_ops *o)
{
	o->virt_to_dma = NULL;
}

static void no_unlock(struct sluice_dma_port_ops *o)
{
	o->unlock = NULL;
}

static void no_lock(struct sluice_dma_port_ops *o)
{
	o->lock = NULL;
}

static long init_null_layer(struct bx *b)
{
	return init_with(b, NULL, true, 1, SLUICE_DMA_SCRUB_COPY);
}

static long init_null_ops(struct bx *b)
{
	struct sluice_dma_layer dl;

	(void)b;
	return sluice_dma_layer_init(&dl, NULL, 1, SLUICE_DMA_SCRUB_COPY);
}

static long init_no_set_shared(struct bx *b)
{
	return init_with(b, no_set_shared, false, 1, SLUICE_DMA_SCRUB_COPY);
}

static long init_no_set_private(struct bx *b)
{
	return init_with(b, no_set_private, false, 1, SLUICE_DMA_SCRUB_COPY);
}

static long init_no_virt_to_dma(struct bx *b)
{
	return init_with(b, no_virt_to_dma, false, 1, SLUICE_DMA_SCRUB_COPY);
}

static long init_lock_no_unlock(struct bx *b)
{
	return init_with(b, no_unlock, false, 1, SLUICE_DMA_SCRUB_COPY);
}

static long init_unlock_no_lock(struct bx *b)
{
	return init_with(b, no_lock, false, 1, SLUICE_DMA_SCRUB_COPY);
}

static long init_zero_cpus(struct bx *b)
{
	return init_with(b, NULL, false, 0, SLUICE_DMA_SCRUB_COPY);
}

static long init_bad_scrub(struct bx *b)
{
	return init_with(b, NULL, false, 1, (enum sluice_dma_scrub)7);
}

static long inplace_null_layer(struct bx *b)
{
	sluice_dma_layer_set_inplace(NULL, &b->hook);
	return 0;
}

static long inplace_uninit_layer(struct bx *b)
{
	struct sluice_dma_layer zl;

	memset(&zl, 0, sizeof(zl));
	sluice_dma_layer_set_inplace(&zl, &b->hook);
	return 0;
}

static long inplace_no_owns(struct bx *b)
{
	static const struct sluice_dma_inplace_region bad = { .owns = NULL };

	sluice_dma_layer_set_inplace(&b->f->dl, &bad);
	return 0;
}

static long profile_null_layer(struct bx *b)
{
	(void)b;
	sluice_dma_layer_set_profile(NULL, true);
	return 0;
}

static long cycles_null_layer(struct bx *b)
{
	(void)b;
	return (long)sluice_dma_layer_copy_cycles(NULL);
}

static long destroy_null_layer(struct bx *b)
{
	(void)b;
	return sluice_dma_layer_destroy(NULL);
}

static long destroy_uninit_layer(struct bx *b)
{
	struct sluice_dma_layer zl;

	(void)b;
	memset(&zl, 0, sizeof(zl));
	return sluice_dma_layer_destroy(&zl);
}

/* Live mappings: refused, and the pool is still there afterwards (checked). */
static long destroy_live_mappings(struct bx *b)
{
	return sluice_dma_layer_destroy(&b->f->dl);
}

static long shared_null_layer(struct bx *b)
{
	return sluice_dma_addr_is_shared(NULL, b->d_to, 1);
}

static long shared_wraps(struct bx *b)
{
	return sluice_dma_addr_is_shared(&b->f->dl, b->d_to, SIZE_MAX);
}

static long shared_private(struct bx *b)
{
	return sluice_dma_addr_is_shared(&b->f->dl, a_buf(b), 1);
}

static long shared_past_pool(struct bx *b)
{
	return sluice_dma_addr_is_shared(&b->f->dl, (uintptr_t)b->f->mem[0], b->f->bytes[0] + 1);
}

static long count_null_layer(struct bx *b)
{
	(void)b;
	return sluice_dma_bounce_pool_count(NULL);
}

static long stats_null_layer(struct bx *b)
{
	struct sluice_dma_bounce_stats st;

	(void)b;
	return sluice_dma_bounce_stats_get(NULL, -1, &st);
}

static long stats_null_out(struct bx *b)
{
	return sluice_dma_bounce_stats_get(&b->f->dl, -1, NULL);
}

static long stats_pool_minus2(struct bx *b)
{
	struct sluice_dma_bounce_stats st;

	return sluice_dma_bounce_stats_get(&b->f->dl, -2, &st);
}

static long stats_no_such_pool(struct bx *b)
{
	struct sluice_dma_bounce_stats st;

	return sluice_dma_bounce_stats_get(&b->f->dl, 1, &st);
}

static long print_null_layer(struct bx *b)
{
	(void)b;
	sluice_dma_bounce_stats_print(NULL);
	return 0;
}

static long check_null_layer(struct bx *b)
{
	(void)b;
	return sluice_dma_layer_check(NULL);
}

static long check_uninit_layer(struct bx *b)
{
	struct sluice_dma_layer zl;

	(void)b;
	memset(&zl, 0, sizeof(zl));
	return sluice_dma_layer_check(&zl);
}

static long access_no_op(struct bx *b)
{
	return sluice_dma_set_access(&b->f->dl, b->coh_dma, SLUICE_DMA_ACCESS_READ);
}

static long access_bad_bits(struct bx *b)
{
	return sluice_dma_set_access(&b->f->dl, b->coh_dma, 4);
}

static long access_null_layer(struct bx *b)
{
	return sluice_dma_set_access(NULL, b->coh_dma, SLUICE_DMA_ACCESS_READ);
}

static long strict_null_layer(struct bx *b)
{
	(void)b;
	return sluice_dma_layer_set_strict(NULL, true);
}

static long caps_null_layer(struct bx *b)
{
	(void)b;
	return sluice_dma_layer_caps(NULL);
}

static long unmap_all_null(struct bx *b)
{
	(void)b;
	return sluice_dma_unmap_all(NULL, 0, NULL);
}

static long unmap_all_bad_flags(struct bx *b)
{
	return sluice_dma_unmap_all(&b->f->dl, 0x10, NULL);
}

static long foreach_null_fn(struct bx *b)
{
	return sluice_dma_mapping_foreach(&b->f->dl, NULL, NULL);
}

static long destroy_report_live(struct bx *b)
{
	struct sluice_dma_destroy_report rep;
	long ret = sluice_dma_layer_destroy_report(&b->f->dl, &rep);

	/* Three mappings, one coherent block, one in-place mapping, as set up. */
	if (rep.live_mappings != 3 || rep.live_coherent != 1 || rep.live_inplace != 1 ||
	    rep.live_bytes != 3 * MAP_LEN + 4096 || rep.pools_released)
		return CLOBBERED;
	return ret;
}

static long inplace_find_no_get(struct bx *b)
{
	static struct sluice_dma_inplace_region odd;

	odd = b->hook;
	odd.get = NULL;
	odd.put = NULL;
	sluice_dma_layer_set_inplace(&b->f->dl, &odd);
	return 0;
}

static long inplace_get_no_put(struct bx *b)
{
	static struct sluice_dma_inplace_region half;

	half = b->hook;
	half.put = NULL;
	sluice_dma_layer_set_inplace(&b->f->dl, &half);
	return 0;
}

static long region_null(struct bx *b)
{
	sluice_dma_arena_region(NULL, &b->arena);
	return 0;
}

const struct row bad_args_layer_rows[] = {
	/* sluice_dma_layer_init(), set_inplace(), set_profile(), copy_cycles(), destroy() */
	{ R(init_null_layer, SLUICE_DMA_ERR_INVAL), false, false },
	{ R(init_null_ops, SLUICE_DMA_ERR_INVAL), false, false },
	{ R(init_no_set_shared, SLUICE_DMA_ERR_INVAL), false, false },
	{ R(init_no_set_private, SLUICE_DMA_ERR_INVAL), false, false },
	{ R(init_no_virt_to_dma, SLUICE_DMA_ERR_INVAL), false, false },
	{ R(init_lock_no_unlock, SLUICE_DMA_ERR_INVAL), false, false },
	{ R(init_unlock_no_lock, SLUICE_DMA_ERR_INVAL), false, false },
	{ R(init_zero_cpus, SLUICE_DMA_ERR_INVAL), false, false },
	{ R(init_bad_scrub, SLUICE_DMA_ERR_INVAL), false, false },
	{ T(inplace_null_layer, NULL, NULL), false, false },
	{ T(inplace_uninit_layer, NULL, NULL), false, false },
	{ T(inplace_no_owns, "no owns callback", NULL), false, false },
	{ T(profile_null_layer, NULL, NULL), false, false },
	{ R(cycles_null_layer, 0), false, false },
	{ R(destroy_null_layer, SLUICE_DMA_ERR_INVAL), false, false },
	{ R(destroy_uninit_layer, SLUICE_DMA_ERR_INVAL), false, false },
	{ R(destroy_live_mappings, SLUICE_DMA_ERR_BUSY), true, false },
	/* sluice_dma_addr_is_shared(), pool count, statistics, self-check */
	{ R(shared_null_layer, 0), false, false },
	{ R(shared_wraps, 0), true, false },
	{ R(shared_private, 0), true, false },
	{ R(shared_past_pool, 0), true, false },
	{ R(count_null_layer, 0), false, false },
	{ R(stats_null_layer, SLUICE_DMA_ERR_INVAL), false, false },
	{ R(stats_null_out, SLUICE_DMA_ERR_INVAL), true, false },
	{ R(stats_pool_minus2, SLUICE_DMA_ERR_INVAL), true, false },
	{ R(stats_no_such_pool, SLUICE_DMA_ERR_NOENT), true, false },
	{ R(print_null_layer, 0), false, false },
	{ R(check_null_layer, SLUICE_DMA_ERR_INVAL), false, false },
	{ R(check_uninit_layer, SLUICE_DMA_ERR_INVAL), false, false },
	{ R(access_no_op, SLUICE_DMA_ERR_NOSYS), true, false },
	{ R(access_bad_bits, SLUICE_DMA_ERR_INVAL), true, false },
	{ R(access_null_layer, SLUICE_DMA_ERR_INVAL), true, false },
	{ R(strict_null_layer, SLUICE_DMA_ERR_INVAL), false, false },
	{ R(caps_null_layer, 0), false, false },
	{ R(unmap_all_null, SLUICE_DMA_ERR_INVAL), false, false },
	{ R(unmap_all_bad_flags, SLUICE_DMA_ERR_INVAL), true, false },
	{ R(foreach_null_fn, SLUICE_DMA_ERR_INVAL), true, false },
	{ R(destroy_report_live, SLUICE_DMA_ERR_BUSY), true, false },
	{ T(inplace_get_no_put, "get without put", NULL), false, false },
	{ T(inplace_find_no_get, "find without get", NULL), false, false },
	{ T(region_null, "NULL region", NULL), false, false },
};
const size_t bad_args_layer_nrows = sizeof(bad_args_layer_rows) / sizeof(bad_args_layer_rows[0]);
