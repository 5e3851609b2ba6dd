/* SPDX-License-Identifier: MIT */
/*
 * bad_args_bounce.c - bad arguments of the pool internals of dma/bounce.h: the
 * request, slot allocation and free, the layer's log and its argument check.
 * Rows of tests/dma/test_bad_args.c (tests/dma/bad_args.h).
 */
#include "tests/dma/bad_args.h"

static struct sluice_dma_bounce_pool *pool0(struct bx *b)
{
	return sluice_dma_priv_bounce_pool_of(&b->f->dl, (uintptr_t)b->f->mem[0]);
}

static long ops_of_bad(struct bx *b)
{
	(void)b;
	return sluice_dma_priv_bounce_ops_of(SLUICE_DMA_POLICY_COUNT) != NULL ||
	       sluice_dma_priv_bounce_ops_of((enum sluice_dma_bounce_policy) - 1) != NULL;
}

static long req_call(const struct sluice_dma_tag *t, size_t len, bool null_req, bool null_off)
{
	struct dma_bounce_req r;
	uint64_t off;

	return sluice_dma_priv_bounce_req_init(null_req ? NULL : &r, t, 0x1234, len,
					       null_off ? NULL : &off);
}

/* The same through dma_bounce_req_init(), which builds a plain tag's request inline. */
static long req_inline_call(const struct sluice_dma_tag *t, size_t len, bool null_req,
			    bool null_off)
{
	struct dma_bounce_req r;
	uint64_t off;

	return dma_bounce_req_init(null_req ? NULL : &r, t, 0x1234, len, null_off ? NULL : &off);
}

static long req_inline(const struct sluice_dma_tag *t, size_t len)
{
	return req_inline_call(t, len, false, false);
}

static long req_inline_null_req(struct bx *b)
{
	(void)b;
	return req_inline_call(&deftag, 10, true, false);
}

static long req_inline_null_off(struct bx *b)
{
	(void)b;
	return req_inline_call(&deftag, 10, false, true);
}

static long req_inline_null_tag(struct bx *b)
{
	(void)b;
	return req_inline(NULL, 10);
}

static long req_inline_zero_len(struct bx *b)
{
	(void)b;
	return req_inline(&deftag, 0);
}

static long req_inline_over_u32(struct bx *b)
{
	SKIP_IF_32BIT_SIZE();
	(void)b;
	return req_inline(&deftag, (size_t)UINT32_MAX + 1);
}

static long req_null_req(struct bx *b)
{
	(void)b;
	return req_call(&deftag, 10, true, false);
}

static long req_null_tag(struct bx *b)
{
	(void)b;
	return req_call(NULL, 10, false, false);
}

static long req_null_off(struct bx *b)
{
	(void)b;
	return req_call(&deftag, 10, false, true);
}

static long req_zero_len(struct bx *b)
{
	(void)b;
	return req_call(&deftag, 0, false, false);
}

static long req_over_u32(struct bx *b)
{
	SKIP_IF_32BIT_SIZE();
	(void)b;
	return req_call(&deftag, (size_t)UINT32_MAX + 1, false, false);
}

static long req_align_wraps(struct bx *b)
{
	const struct sluice_dma_tag t =
		tag_with(0, SLUICE_DMA_NO_LIMIT, SLUICE_DMA_NO_LIMIT, SLUICE_DMA_NO_LIMIT, 0);

	(void)b;
	return req_call(&t, 10, false, false);
}

static long pool_of_null(struct bx *b)
{
	return sluice_dma_priv_bounce_pool_of(NULL, b->d_to) != NULL;
}

static long pool_of_outside(struct bx *b)
{
	return sluice_dma_priv_bounce_pool_of(&b->f->dl, a_buf(b)) != NULL;
}

static long max_slots_null(struct bx *b)
{
	(void)b;
	return (long)sluice_dma_priv_bounce_pool_max_slots(NULL);
}

static long balloc_with(struct bx *b, unsigned int cpu, bool zero_slots)
{
	struct dma_bounce_req r;
	uint64_t off;

	assert_int_equal(sluice_dma_priv_bounce_req_init(&r, &deftag, 0, 2048, &off), 0);
	if (zero_slots)
		r.nslots = 0;
	return sluice_dma_priv_bounce_alloc(pool0(b), &r, cpu);
}

static long balloc_bad_cpu(struct bx *b)
{
	return balloc_with(b, 2, false);
}

static long balloc_zero_slots(struct bx *b)
{
	return balloc_with(b, 0, true);
}

static long balloc_null_pool(struct bx *b)
{
	struct dma_bounce_req r;
	uint64_t off;

	(void)b;
	assert_int_equal(sluice_dma_priv_bounce_req_init(&r, &deftag, 0, 2048, &off), 0);
	return sluice_dma_priv_bounce_alloc(NULL, &r, 0);
}

static long bfree_past_end(struct bx *b)
{
	sluice_dma_priv_bounce_free(pool0(b), pool0(b)->nslabs, 1, 0);
	return 0;
}

static long bfree_run_past_end(struct bx *b)
{
	sluice_dma_priv_bounce_free(pool0(b), pool0(b)->nslabs - 1, 2, 0);
	return 0;
}

static long bfree_zero_slots(struct bx *b)
{
	sluice_dma_priv_bounce_free(pool0(b), 10, 0, 0);
	return 0;
}

static long bfree_bad_cpu(struct bx *b)
{
	sluice_dma_priv_bounce_free(pool0(b), 10, 1, 2);
	return 0;
}

static long logf_null_layer(struct bx *b)
{
	(void)b;
	sluice_dma_priv_logf(NULL, SLUICE_DMA_LOG_ERR, "nothing %d", 1);
	return 0;
}

static long fail_names_argument(struct bx *b)
{
	sluice_dma_priv_fail(dma_layer_ops(&b->f->dl), "here.c", 7, "bad argument %s at %p",
			     "widget", (void *)0x1234);
	return 0;
}

const struct row bad_args_bounce_rows[] = {
	/* dma/bounce.h */
	{ R(ops_of_bad, 0), false, false },
	{ R(req_null_req, SLUICE_DMA_ERR_INVAL), false, false },
	{ R(req_null_tag, SLUICE_DMA_ERR_INVAL), false, false },
	{ R(req_null_off, SLUICE_DMA_ERR_INVAL), false, false },
	{ R(req_zero_len, SLUICE_DMA_ERR_INVAL), false, false },
	{ R(req_over_u32, SLUICE_DMA_ERR_RANGE), false, false },
	{ R(req_inline_null_req, SLUICE_DMA_ERR_INVAL), false, false },
	{ R(req_inline_null_off, SLUICE_DMA_ERR_INVAL), false, false },
	{ R(req_inline_null_tag, SLUICE_DMA_ERR_INVAL), false, false },
	{ R(req_inline_zero_len, SLUICE_DMA_ERR_INVAL), false, false },
	{ R(req_inline_over_u32, SLUICE_DMA_ERR_RANGE), false, false },
	{ R(req_align_wraps, SLUICE_DMA_ERR_RANGE), false, false },
	{ R(pool_of_null, 0), false, false },
	{ R(pool_of_outside, 0), true, false },
	{ R(max_slots_null, 0), false, false },
	{ T(balloc_bad_cpu, "cpu 2, 1 slots: invalid", NULL), true, false },
	{ T(balloc_zero_slots, "cpu 0, 0 slots: invalid", NULL), true, false },
	{ T(balloc_null_pool, NULL, NULL), false, false },
	{ T(bfree_past_end, "bounce free of slots 512+1 on cpu 0: outside pool", NULL), true,
	  false },
	{ T(bfree_run_past_end, "bounce free of slots 511+2 on cpu 0: outside pool", NULL), true,
	  false },
	{ T(bfree_zero_slots, "bounce free of slots 10+0 on cpu 0: outside pool", NULL), true,
	  false },
	{ T(bfree_bad_cpu, "bounce free of slots 10+1 on cpu 2: outside pool", NULL), true, false },
	{ R(logf_null_layer, 0), false, false },
	{ T(fail_names_argument, "BUG: bad argument widget at 0x1234 (here.c:7)", NULL), false,
	  false },
};
const size_t bad_args_bounce_nrows = sizeof(bad_args_bounce_rows) / sizeof(bad_args_bounce_rows[0]);
