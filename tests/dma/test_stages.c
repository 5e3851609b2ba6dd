/* SPDX-License-Identifier: MIT */
/*
 * test_stages.c - the stage markers of dma/stage.h are on the bounce path,
 * each where the cost breakdown (bench_alloc -K, make bench-breakdown) says it
 * is. Built, like the breakdown's binary, with -DSLUICE_DMA_STAGES (tests/dma/dma.mk):
 * one map + unmap is run and the times each stage was left are counted
 * (sluice_dma_stage_leaves, bench/host/bench_stages.c). A marker dropped from the
 * path, or moved so that a stage is charged twice or never, changes a count,
 * and this test fails: the breakdown would otherwise go on printing a table
 * whose rows no longer mean what they say. Counts, never times.
 *
 * The expected counts below are the path's: when a change adds or removes a
 * marker on purpose, update them with it (and the breakdown's README text).
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "dma/bounce.h"
#include "bench/host/bench_stages.h"
#include "tests/fakes/test_bounce_fixture.h"

#ifndef SLUICE_DMA_STAGES
#error "test_stages is built with -DSLUICE_DMA_STAGES (tests/dma/dma.mk)"
#endif

/*
 * A sluice layer with exclusive CPU indices, as the kernel's port sets it.
 * @leaf: its copy and zero are the port's inline `rep movsb` and `rep stosb`
 * too, so the common map and unmap take dma/map_fast.c's leaf paths; else
 * the library's own copy, and every request map.c's path.
 */
static struct fx *stages_fx_as(bool leaf)
{
	struct fx *f = fx_new(SLUICE_DMA_POLICY_SLUICE, 1, 1 << 20, SLUICE_DMA_SCRUB_ZERO);

	assert_non_null(f);
	f->mp.ops.flags = SLUICE_DMA_PORT_CPU_EXCLUSIVE;
	if (leaf)
		mock_port_set_copy(&f->mp, "movsb");
	f->dl.ops.flags = f->mp.ops.flags;
	f->dl.ops.copy = f->mp.ops.copy;
	f->dl.ops.zero = f->mp.ops.zero;
	fx_ops_changed(f);
	assert_int_equal(f->dl.fast, leaf);
	return f;
}

static struct fx *stages_fx(void)
{
	return stages_fx_as(false);
}

/* One map + unmap of @len bytes in @dir under @tag, its stage leaves in @leaves. */
static void stages_pair(struct fx *f, const struct sluice_dma_tag *tag, void *buf, size_t len,
			enum sluice_dma_dir dir, uint64_t leaves[DMA_STAGE_COUNT + 1])
{
	uint64_t a;

	bench_stages_reset();
	assert_int_equal(sluice_dma_map(&f->dl, tag, buf, len, dir, &a), 0);
	/* Every entry point leaves the layer with the path back outside it. */
	assert_int_equal(sluice_dma_stage_now, DMA_STAGE_COUNT);
	assert_int_equal(sluice_dma_unmap(&f->dl, a, len, dir), 0);
	assert_int_equal(sluice_dma_stage_now, DMA_STAGE_COUNT);
	memcpy(leaves, sluice_dma_stage_leaves, sizeof(sluice_dma_stage_leaves));
}

static void stages_expect(const uint64_t got[DMA_STAGE_COUNT + 1],
			  const uint64_t want[DMA_STAGE_COUNT], const char *what)
{
	int bad = 0;

	for (unsigned int s = 0; s < DMA_STAGE_COUNT; s++)
		if (got[s] != want[s]) {
			fprintf(stderr, "%s: stage %s left %llu times, expected %llu\n", what,
				bench_stage_names[s], (unsigned long long)got[s],
				(unsigned long long)want[s]);
			bad = 1;
		}
	assert_false(bad);
}

/* A 4 KiB to-device pair after one that refilled the magazine: its stages as @want. */
static void stages_warm_to_device(struct fx *f, const struct sluice_dma_tag *t, unsigned char *buf,
				  const uint64_t want[DMA_STAGE_COUNT], const char *what)
{
	uint64_t got[DMA_STAGE_COUNT + 1];

	memset(buf, 7, 4096);
	stages_pair(f, t, buf, 4096, SLUICE_DMA_TO_DEVICE, got); /* the magazine's refill */
	stages_pair(f, t, buf, 4096, SLUICE_DMA_TO_DEVICE, got);
	stages_expect(got, want, what);
}

/*
 * The common request, to the device: every stage but the copy back. A stage
 * is left once per marker that ends it, and once more for each statistics
 * stage nested in it (a per-CPU counter or the copy timing's test, PUSH/POP):
 * slot = its end (the magazine's pop counts nothing); record = the fast_maps
 * counter (a mapping, a search step and a cache hit in one, bounce.h) + its
 * end; copy = the timing's two tests and the byte counter + its end; stats =
 * every counter (fast_maps, bytes, unmaps) and the timing's two tests.
 */
static void test_common_to_device(void **state)
{
	static const uint64_t want[DMA_STAGE_COUNT] = {
		[DMA_STAGE_ARGS] = 1,	   [DMA_STAGE_TAG] = 1,	    [DMA_STAGE_POOL] = 1,
		[DMA_STAGE_SLOT] = 1,	   [DMA_STAGE_RECORD] = 3,  [DMA_STAGE_COPY] = 4,
		[DMA_STAGE_CACHE] = 1,	   [DMA_STAGE_STATS] = 5,   [DMA_STAGE_LOOKUP] = 1,
		[DMA_STAGE_COPY_BACK] = 0, [DMA_STAGE_RELEASE] = 2,
	};
	const struct sluice_dma_tag t = SLUICE_DMA_TAG_DEFAULT;
	struct fx *f = stages_fx();
	unsigned char *buf = fx_aligned(4096, 4096);

	(void)state;
	stages_warm_to_device(f, &t, buf, want, "4 KiB to-device");
	free(buf);
	assert_int_equal(fx_free(f), 0);
}

/* Bidirectional: the copy back is a stage of its own, after the cache's invalidate. */
static void test_common_bidirectional(void **state)
{
	static const uint64_t want[DMA_STAGE_COUNT] = {
		[DMA_STAGE_ARGS] = 1,	   [DMA_STAGE_TAG] = 1,	    [DMA_STAGE_POOL] = 1,
		[DMA_STAGE_SLOT] = 1,	   [DMA_STAGE_RECORD] = 3,  [DMA_STAGE_COPY] = 4,
		[DMA_STAGE_CACHE] = 2,	   [DMA_STAGE_STATS] = 8,   [DMA_STAGE_LOOKUP] = 1,
		[DMA_STAGE_COPY_BACK] = 4, [DMA_STAGE_RELEASE] = 2,
	};
	const struct sluice_dma_tag t = SLUICE_DMA_TAG_DEFAULT;
	struct fx *f = stages_fx();
	unsigned char *buf = fx_aligned(4096, 4096);
	uint64_t got[DMA_STAGE_COUNT + 1];

	(void)state;
	stages_pair(f, &t, buf, 4096, SLUICE_DMA_BIDIRECTIONAL, got);
	stages_pair(f, &t, buf, 4096, SLUICE_DMA_BIDIRECTIONAL, got);
	stages_expect(got, want, "4 KiB bidirectional");
	free(buf);
	assert_int_equal(fx_free(f), 0);
}

/*
 * A request off the common path (an 8 KiB alignment): the general path's
 * markers. The second pair's run comes from the CPU's run cache at its first
 * probe: a cache hit, which carries its own step, so no step count is added.
 */
static void test_general_path(void **state)
{
	static const uint64_t want[DMA_STAGE_COUNT] = {
		[DMA_STAGE_ARGS] = 1,	   [DMA_STAGE_TAG] = 1,	    [DMA_STAGE_POOL] = 1,
		[DMA_STAGE_SLOT] = 2,	   [DMA_STAGE_RECORD] = 3,  [DMA_STAGE_COPY] = 4,
		[DMA_STAGE_CACHE] = 1,	   [DMA_STAGE_STATS] = 6,   [DMA_STAGE_LOOKUP] = 1,
		[DMA_STAGE_COPY_BACK] = 0, [DMA_STAGE_RELEASE] = 2,
	};
	struct sluice_dma_tag t = SLUICE_DMA_TAG_DEFAULT;
	struct fx *f = stages_fx();
	unsigned char *buf = fx_aligned(4096, 4096);
	uint64_t got[DMA_STAGE_COUNT + 1];

	(void)state;
	t.alloc_align_mask = 8191;
	stages_pair(f, &t, buf, 4096, SLUICE_DMA_TO_DEVICE, got);
	stages_pair(f, &t, buf, 4096, SLUICE_DMA_TO_DEVICE, got);
	stages_expect(got, want, "4 KiB to-device, 8 KiB aligned");
	free(buf);
	assert_int_equal(fx_free(f), 0);
}

/*
 * A from-device map of @buf, then sluice_dma_unmap_written() of 100 bytes or
 * _discard(): one lookup stage, @release leaves of the release stage, and
 * @copy_back of the copy back's for the written unmap (none for discard).
 */
static void stages_driver_unmaps(struct fx *f, unsigned char *buf, uint64_t release,
				 uint64_t copy_back)
{
	const struct sluice_dma_tag t = SLUICE_DMA_TAG_DEFAULT;
	uint64_t a;
	int err;

	for (int discard = 0; discard <= 1; discard++) {
		assert_int_equal(sluice_dma_map(&f->dl, &t, buf, 4096, SLUICE_DMA_FROM_DEVICE, &a),
				 0);
		bench_stages_reset();
		err = discard ? sluice_dma_unmap_discard(&f->dl, a, 4096, SLUICE_DMA_FROM_DEVICE) :
				sluice_dma_unmap_written(&f->dl, a, 4096, SLUICE_DMA_FROM_DEVICE,
							 100);
		assert_int_equal(err, 0);
		assert_int_equal(sluice_dma_stage_now, DMA_STAGE_COUNT);
		assert_int_equal(sluice_dma_stage_leaves[DMA_STAGE_LOOKUP], 1);
		assert_int_equal(sluice_dma_stage_leaves[DMA_STAGE_RELEASE], release);
		assert_int_equal(sluice_dma_stage_leaves[DMA_STAGE_COPY_BACK],
				 discard ? 0 : copy_back);
	}
}

/*
 * The drivers unmap with sluice_dma_unmap_written() and _discard(): the same
 * lookup stage as sluice_dma_unmap() (the guest's stage lines charge their
 * checks and record lookup to it), and the path back outside the layer.
 */
static void test_unmap_written_and_discard(void **state)
{
	struct fx *f = stages_fx();
	unsigned char *buf = fx_aligned(4096, 4096);

	(void)state;
	stages_driver_unmaps(f, buf, 2, 4);
	free(buf);
	assert_int_equal(fx_free(f), 0);
}

/*
 * A driver may map through sluice_dma_map_attrs() (virtio-blk does): the same
 * args stage first and the path back outside the layer at the end, so the
 * guest's stage lines charge its checks as they charge sluice_dma_map()'s.
 */
static void test_map_attrs(void **state)
{
	const struct sluice_dma_tag t = SLUICE_DMA_TAG_DEFAULT;
	struct fx *f = stages_fx();
	unsigned char *buf = fx_aligned(4096, 4096);
	size_t len = 4096;
	uint64_t a;

	(void)state;
	bench_stages_reset();
	assert_int_equal(sluice_dma_map_attrs(&f->dl, &t, buf, &len, SLUICE_DMA_FROM_DEVICE,
					      SLUICE_DMA_ATTR_UNMAP_WRITTEN, &a),
			 0);
	assert_int_equal(sluice_dma_stage_now, DMA_STAGE_COUNT);
	assert_int_equal(sluice_dma_stage_leaves[DMA_STAGE_ARGS], 1);
	assert_int_equal(sluice_dma_stage_leaves[DMA_STAGE_TAG], 1);
	assert_int_equal(sluice_dma_unmap_discard(&f->dl, a, len, SLUICE_DMA_FROM_DEVICE), 0);
	free(buf);
	assert_int_equal(fx_free(f), 0);
}

/*
 * The leaf paths (dma/map_fast.c): one marker per stage they have. No tag,
 * pool or cache stage (their tests are among the args', and a leaf layer has
 * no cache maintenance), no statistics stage (the owner's plain adds are in
 * the stage they count); the copy back only from the device.
 */
static void test_leaf_paths(void **state)
{
	static const uint64_t want_to[DMA_STAGE_COUNT] = {
		[DMA_STAGE_ARGS] = 1, [DMA_STAGE_SLOT] = 1,   [DMA_STAGE_RECORD] = 1,
		[DMA_STAGE_COPY] = 1, [DMA_STAGE_LOOKUP] = 1, [DMA_STAGE_RELEASE] = 1,
	};
	static const uint64_t want_bidi[DMA_STAGE_COUNT] = {
		[DMA_STAGE_ARGS] = 1,	 [DMA_STAGE_SLOT] = 1,	 [DMA_STAGE_RECORD] = 1,
		[DMA_STAGE_COPY] = 1,	 [DMA_STAGE_LOOKUP] = 1, [DMA_STAGE_COPY_BACK] = 1,
		[DMA_STAGE_RELEASE] = 1,
	};
	const struct sluice_dma_tag t = SLUICE_DMA_TAG_DEFAULT;
	struct fx *f = stages_fx_as(true);
	unsigned char *buf = fx_aligned(4096, 4096);
	uint64_t got[DMA_STAGE_COUNT + 1];

	(void)state;
	stages_warm_to_device(f, &t, buf, want_to, "leaf, 4 KiB to-device");
	stages_pair(f, &t, buf, 4096, SLUICE_DMA_BIDIRECTIONAL, got);
	stages_expect(got, want_bidi, "leaf, 4 KiB bidirectional");
	/* The drivers' unmaps: the same lookup, a copy back only of bytes written. */
	stages_driver_unmaps(f, buf, 1, 1);
	free(buf);
	assert_int_equal(fx_free(f), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_common_to_device),
		cmocka_unit_test(test_common_bidirectional),
		cmocka_unit_test(test_general_path),
		cmocka_unit_test(test_unmap_written_and_discard),
		cmocka_unit_test(test_map_attrs),
		cmocka_unit_test(test_leaf_paths),
	};

	assert_true(bench_stages_built());
	return cmocka_run_group_tests(tests, NULL, NULL);
}
