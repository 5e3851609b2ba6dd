/* SPDX-License-Identifier: MIT */
/*
 * bad_args_map.c - bad arguments of mapping: sluice_dma_tag_check(),
 * sluice_dma_max_mapping_size(), sluice_dma_map(), sluice_dma_map_attrs(),
 * sluice_dma_map_sg().
 * Rows of tests/dma/test_bad_args.c (tests/dma/bad_args.h).
 */
#include "tests/dma/bad_args.h"

static long tag_null(struct bx *b)
{
	(void)b;
	return sluice_dma_tag_check(NULL);
}

#define TAG_ROW_FN(id, t)                            \
	static long id(struct bx *b)                 \
	{                                            \
		const struct sluice_dma_tag tag = t; \
		(void)b;                             \
		return sluice_dma_tag_check(&tag);   \
	}

TAG_ROW_FN(tag_min_align_not_mask, tag_with(0x1001, 0, SLUICE_DMA_NO_LIMIT, SLUICE_DMA_NO_LIMIT, 0))

TAG_ROW_FN(tag_alloc_align_not_mask,
	   tag_with(0, 0x800, SLUICE_DMA_NO_LIMIT, SLUICE_DMA_NO_LIMIT, 0))

TAG_ROW_FN(tag_boundary_not_mask, tag_with(0, 0, 0x10000, SLUICE_DMA_NO_LIMIT, 0))

TAG_ROW_FN(tag_boundary_below_page, tag_with(0, 0, 0x7ff, SLUICE_DMA_NO_LIMIT, 0))

TAG_ROW_FN(tag_align_above_boundary, tag_with(0, 0x1ffff, 0xffff, SLUICE_DMA_NO_LIMIT, 0))

TAG_ROW_FN(tag_zero_limit, tag_with(0, 0, SLUICE_DMA_NO_LIMIT, 0, 0))

static long maxmap_null_layer(struct bx *b)
{
	(void)b;
	return (long)sluice_dma_max_mapping_size(NULL, &deftag);
}

static long maxmap_null_tag(struct bx *b)
{
	return (long)sluice_dma_max_mapping_size(&b->f->dl, NULL);
}

static long maxmap_bad_tag(struct bx *b)
{
	const struct sluice_dma_tag t =
		tag_with(0x1001, 0, SLUICE_DMA_NO_LIMIT, SLUICE_DMA_NO_LIMIT, 0);

	return (long)sluice_dma_max_mapping_size(&b->f->dl, &t);
}

static long maxmap_unreachable(struct bx *b)
{
	const struct sluice_dma_tag t =
		tag_with(0, 0, SLUICE_DMA_NO_LIMIT, (uintptr_t)b->f->mem[0], 0);

	return (long)sluice_dma_max_mapping_size(&b->f->dl, &t);
}

/* sluice_dma_map() that must leave *dma_addr alone when it fails. */
static long map_call(struct sluice_dma_layer *dl, const struct sluice_dma_tag *t, void *buf,
		     size_t len, enum sluice_dma_dir dir)
{
	uint64_t d = SENTINEL;
	int rc = sluice_dma_map(dl, t, buf, len, dir, &d);

	if (rc && d != SENTINEL)
		return CLOBBERED;
	if (!rc)
		sluice_dma_unmap(dl, d, len,
				 dir); /* keep the fixture intact; the row fails anyway */
	return rc;
}

static long map_null_layer(struct bx *b)
{
	return map_call(NULL, &deftag, b->buf, 10, SLUICE_DMA_TO_DEVICE);
}

static long map_uninit_layer(struct bx *b)
{
	struct sluice_dma_layer zl;

	memset(&zl, 0, sizeof(zl));
	return map_call(&zl, &deftag, b->buf, 10, SLUICE_DMA_TO_DEVICE);
}

static long map_null_tag(struct bx *b)
{
	return map_call(&b->f->dl, NULL, b->buf, 10, SLUICE_DMA_TO_DEVICE);
}

static long map_null_buf(struct bx *b)
{
	return map_call(&b->f->dl, &deftag, NULL, 10, SLUICE_DMA_TO_DEVICE);
}

static long map_null_out(struct bx *b)
{
	return sluice_dma_map(&b->f->dl, &deftag, b->buf, 10, SLUICE_DMA_TO_DEVICE, NULL);
}

static long map_zero_len(struct bx *b)
{
	return map_call(&b->f->dl, &deftag, b->buf, 0, SLUICE_DMA_TO_DEVICE);
}

static long map_dir_zero(struct bx *b)
{
	return map_call(&b->f->dl, &deftag, b->buf, 10, (enum sluice_dma_dir)0);
}

static long map_dir_four(struct bx *b)
{
	return map_call(&b->f->dl, &deftag, b->buf, 10, (enum sluice_dma_dir)4);
}

static long map_dir_negative(struct bx *b)
{
	return map_call(&b->f->dl, &deftag, b->buf, 10, (enum sluice_dma_dir) - 1);
}

static long map_buf_wraps(struct bx *b)
{
	return map_call(&b->f->dl, &deftag, (void *)(UINTPTR_MAX - 99), 200, SLUICE_DMA_TO_DEVICE);
}

#define MAP_TAG_ROW_FN(id, t)                                                        \
	static long id(struct bx *b)                                                 \
	{                                                                            \
		const struct sluice_dma_tag tag = t;                                 \
		return map_call(&b->f->dl, &tag, b->buf, 100, SLUICE_DMA_TO_DEVICE); \
	}

MAP_TAG_ROW_FN(map_tag_min_align, tag_with(0x1001, 0, SLUICE_DMA_NO_LIMIT, SLUICE_DMA_NO_LIMIT, 0))

MAP_TAG_ROW_FN(map_tag_alloc_align, tag_with(0, 0x800, SLUICE_DMA_NO_LIMIT, SLUICE_DMA_NO_LIMIT, 0))

MAP_TAG_ROW_FN(map_tag_boundary, tag_with(0, 0, 0x10000, SLUICE_DMA_NO_LIMIT, 0))

MAP_TAG_ROW_FN(map_tag_boundary_small, tag_with(0, 0, 0x7ff, SLUICE_DMA_NO_LIMIT, 0))

MAP_TAG_ROW_FN(map_tag_align_gt_boundary, tag_with(0, 0x1ffff, 0xffff, SLUICE_DMA_NO_LIMIT, 0))

MAP_TAG_ROW_FN(map_tag_zero_limit, tag_with(0, 0, SLUICE_DMA_NO_LIMIT, 0, 0))

MAP_TAG_ROW_FN(map_tag_align_wraps,
	       tag_with(0, SLUICE_DMA_NO_LIMIT, SLUICE_DMA_NO_LIMIT, SLUICE_DMA_NO_LIMIT, 0))

MAP_TAG_ROW_FN(map_tag_max_mapping, tag_with(0, 0, SLUICE_DMA_NO_LIMIT, SLUICE_DMA_NO_LIMIT, 99))

static long map_unreachable(struct bx *b)
{
	const struct sluice_dma_tag t =
		tag_with(0, 0, SLUICE_DMA_NO_LIMIT, (uintptr_t)b->f->mem[0], 0);

	return map_call(&b->f->dl, &t, b->buf, 100, SLUICE_DMA_TO_DEVICE);
}

static long map_over_layer_max(struct bx *b)
{
	size_t max = sluice_dma_max_mapping_size(&b->f->dl, &deftag);
	unsigned char *big = malloc(max + 1);
	long rc = map_call(&b->f->dl, &deftag, big, max + 1, SLUICE_DMA_FROM_DEVICE);

	free(big);
	return rc;
}

/* Longer than a slot record can hold: refused before the buffer is touched. */
static long map_over_u32(struct bx *b)
{
	SKIP_IF_32BIT_SIZE();
	return map_call(&b->f->dl, &deftag, b->buf, (size_t)UINT32_MAX + 1, SLUICE_DMA_TO_DEVICE);
}

static long attrs_call(struct bx *b, size_t len, enum sluice_dma_dir dir, unsigned int attrs)
{
	uint64_t d = SENTINEL;
	long ret = sluice_dma_map_attrs(&b->f->dl, &deftag, b->buf, &len, dir, attrs, &d);

	if (!ret) {
		sluice_dma_unmap(&b->f->dl, d, len, dir);
		return 1;
	}
	/* A refused map reports 0 bytes mapped and leaves the address alone. */
	return d == SENTINEL && len == 0 ? ret : CLOBBERED;
}

static long attrs_unknown(struct bx *b)
{
	return attrs_call(b, 64, SLUICE_DMA_TO_DEVICE, 0x100);
}

static long attrs_readonly_from(struct bx *b)
{
	return attrs_call(b, 64, SLUICE_DMA_FROM_DEVICE, SLUICE_DMA_ATTR_READONLY);
}

static long attrs_readonly_bidi(struct bx *b)
{
	return attrs_call(b, 64, SLUICE_DMA_BIDIRECTIONAL, SLUICE_DMA_ATTR_READONLY);
}

static long attrs_null_len(struct bx *b)
{
	uint64_t d;

	return sluice_dma_map_attrs(&b->f->dl, &deftag, b->buf, NULL, SLUICE_DMA_TO_DEVICE, 0, &d);
}

static long sg_call(struct bx *b, struct sluice_dma_sg *sg, unsigned int n,
		    const struct sluice_dma_sg_limits *lim)
{
	long ret = sluice_dma_map_sg(&b->f->dl, &deftag, sg, n, SLUICE_DMA_TO_DEVICE, lim);

	if (!ret) {
		sluice_dma_unmap_sg(&b->f->dl, sg, n, SLUICE_DMA_TO_DEVICE);
		return 1;
	}
	return ret;
}

static long sg_null_layer(struct bx *b)
{
	struct sluice_dma_sg sg[1] = { { b->buf, 64, 0 } };

	return sluice_dma_map_sg(NULL, &deftag, sg, 1, SLUICE_DMA_TO_DEVICE, NULL);
}

static long sg_zero_nents(struct bx *b)
{
	struct sluice_dma_sg sg[1] = { { b->buf, 64, 0 } };

	return sg_call(b, sg, 0, NULL);
}

static long sg_null_segment(struct bx *b)
{
	struct sluice_dma_sg sg[2] = { { b->buf, 64, 0 }, { NULL, 64, 0 } };

	return sg_call(b, sg, 2, NULL);
}

static long sg_empty_segment(struct bx *b)
{
	struct sluice_dma_sg sg[2] = { { b->buf, 64, 0 }, { b->buf + 64, 0, 0 } };

	return sg_call(b, sg, 2, NULL);
}

static long sg_over_segments(struct bx *b)
{
	struct sluice_dma_sg sg[3] = { { b->buf, 64, 0 },
				       { b->buf + 64, 64, 0 },
				       { b->buf + 128, 64, 0 } };
	struct sluice_dma_sg_limits lim = { .max_segments = 2 };

	return sg_call(b, sg, 3, &lim);
}

static long sg_over_segment_size(struct bx *b)
{
	struct sluice_dma_sg sg[2] = { { b->buf, 64, 0 }, { b->buf + 64, 4096, 0 } };
	struct sluice_dma_sg_limits lim = { .max_segment_size = 4095 };

	return sg_call(b, sg, 2, &lim);
}

static long sg_over_total(struct bx *b)
{
	struct sluice_dma_sg sg[2] = { { b->buf, 4096, 0 }, { b->buf + 4096, 4096, 0 } };
	struct sluice_dma_sg_limits lim = { .max_total = 8191 };

	return sg_call(b, sg, 2, &lim);
}

static long sg_bad_tag(struct bx *b)
{
	struct sluice_dma_sg sg[1] = { { b->buf, 64, 0 } };

	return sluice_dma_map_sg(&b->f->dl, NULL, sg, 1, SLUICE_DMA_TO_DEVICE, NULL);
}

const struct row bad_args_map_rows[] = {
	/* sluice_dma_tag_check(), sluice_dma_max_mapping_size() */
	{ R(tag_null, SLUICE_DMA_ERR_INVAL), false, false },
	{ R(tag_min_align_not_mask, SLUICE_DMA_ERR_INVAL), false, false },
	{ R(tag_alloc_align_not_mask, SLUICE_DMA_ERR_INVAL), false, false },
	{ R(tag_boundary_not_mask, SLUICE_DMA_ERR_INVAL), false, false },
	{ R(tag_boundary_below_page, SLUICE_DMA_ERR_INVAL), false, false },
	{ R(tag_align_above_boundary, SLUICE_DMA_ERR_INVAL), false, false },
	{ R(tag_zero_limit, SLUICE_DMA_ERR_INVAL), false, false },
	{ R(maxmap_null_layer, 0), false, false },
	{ R(maxmap_null_tag, 0), true, false },
	{ R(maxmap_bad_tag, 0), true, false },
	{ R(maxmap_unreachable, 0), true, false },
	/* sluice_dma_map() */
	{ R(map_null_layer, SLUICE_DMA_ERR_INVAL), true, false },
	{ R(map_uninit_layer, SLUICE_DMA_ERR_INVAL), true, false },
	{ R(map_null_tag, SLUICE_DMA_ERR_INVAL), true, false },
	{ R(map_null_buf, SLUICE_DMA_ERR_INVAL), true, false },
	{ R(map_null_out, SLUICE_DMA_ERR_INVAL), true, false },
	{ R(map_zero_len, SLUICE_DMA_ERR_INVAL), true, false },
	{ R(map_dir_zero, SLUICE_DMA_ERR_INVAL), true, false },
	{ R(map_dir_four, SLUICE_DMA_ERR_INVAL), true, false },
	{ R(map_dir_negative, SLUICE_DMA_ERR_INVAL), true, false },
	{ R(map_buf_wraps, SLUICE_DMA_ERR_INVAL), true, false },
	{ R(map_tag_min_align, SLUICE_DMA_ERR_INVAL), true, false },
	{ R(map_tag_alloc_align, SLUICE_DMA_ERR_INVAL), true, false },
	{ R(map_tag_boundary, SLUICE_DMA_ERR_INVAL), true, false },
	{ R(map_tag_boundary_small, SLUICE_DMA_ERR_INVAL), true, false },
	{ R(map_tag_align_gt_boundary, SLUICE_DMA_ERR_INVAL), true, false },
	{ R(map_tag_zero_limit, SLUICE_DMA_ERR_INVAL), true, false },
	{ R(map_tag_align_wraps, SLUICE_DMA_ERR_RANGE), true, false },
	{ R(map_tag_max_mapping, SLUICE_DMA_ERR_RANGE), true, false },
	{ R(map_unreachable, SLUICE_DMA_ERR_RANGE), true, false },
	{ R(map_over_layer_max, SLUICE_DMA_ERR_RANGE), true, false },
	{ R(map_over_u32, SLUICE_DMA_ERR_RANGE), true, false },
	{ R(attrs_unknown, SLUICE_DMA_ERR_INVAL), true, false },
	{ R(attrs_readonly_from, SLUICE_DMA_ERR_INVAL), true, false },
	{ R(attrs_readonly_bidi, SLUICE_DMA_ERR_INVAL), true, false },
	{ R(attrs_null_len, SLUICE_DMA_ERR_INVAL), true, false },
	{ R(sg_null_layer, SLUICE_DMA_ERR_INVAL), true, false },
	{ R(sg_zero_nents, SLUICE_DMA_ERR_INVAL), true, false },
	{ R(sg_null_segment, SLUICE_DMA_ERR_INVAL), true, false },
	{ R(sg_empty_segment, SLUICE_DMA_ERR_INVAL), true, false },
	{ R(sg_over_segments, SLUICE_DMA_ERR_RANGE), true, false },
	{ R(sg_over_segment_size, SLUICE_DMA_ERR_RANGE), true, false },
	{ R(sg_over_total, SLUICE_DMA_ERR_RANGE), true, false },
	{ R(sg_bad_tag, SLUICE_DMA_ERR_INVAL), true, false },
};
const size_t bad_args_map_nrows = sizeof(bad_args_map_rows) / sizeof(bad_args_map_rows[0]);
