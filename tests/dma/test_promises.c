/* SPDX-License-Identifier: MIT */
/*
 * test_promises.c - promises of dma.h and arena.h that a port written from
 * the headers alone found broken (issue 24), each checked for every kind of
 * handle: bounce mappings, coherent memory from the pools, arena blocks
 * mapped in place, coherent memory from the arena.
 *  - foreign and interior handles are refused (NOENT / INVAL) on every path,
 *    and refused before anything changes (a refused unmap leaves the block
 *    counted, so it cannot be freed under the device);
 *  - coherent memory of any alignment can be freed;
 *  - what can never fit is RANGE, not NOMEM;
 *  - teardown lists and ends every kind of mapping, and destroy then succeeds;
 *  - a live layer is not initialised again; configuration errors say why.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <sluice/arena.h>
#include "tests/fakes/test_bounce_fixture.h"

#define KIB 1024ul
#define MIB (1024ul * 1024ul)
#define CHUNK SLUICE_DMA_ARENA_CHUNK_SIZE

/**
 * struct pc - one case: a layer with a 1 MiB pool and a two-chunk arena as
 *	its in-place region.
 */
struct pc {
	enum sluice_dma_bounce_policy policy;
	struct fx *f;
	struct sluice_dma_arena arena;
	struct sluice_dma_inplace_region hook;
	unsigned char *region;
	void *ameta;
};

static struct pc cases[SLUICE_DMA_POLICY_COUNT];
static const struct sluice_dma_tag deftag = SLUICE_DMA_TAG_DEFAULT;

static int setup(void **state)
{
	struct pc *c = *state;
	struct sluice_dma_arena_config cfg;
	size_t ml = sluice_dma_arena_meta_size(2 * CHUNK, 2);

	c->f = fx_new(c->policy, 2, 1 * MIB, SLUICE_DMA_SCRUB_ZERO);
	c->region = fx_aligned(CHUNK, 2 * CHUNK);
	c->ameta = malloc(ml);
	if (!c->f || !c->region || !c->ameta)
		return -1;
	cfg = (struct sluice_dma_arena_config){
		.base = c->region, .len = 2 * CHUNK, .ncpus = 2, .meta = c->ameta, .meta_len = ml
	};
	if (sluice_dma_arena_init(&c->arena, &c->f->mp.ops, &cfg))
		return -1;
	sluice_dma_arena_region(&c->hook, &c->arena);
	sluice_dma_layer_set_inplace(&c->f->dl, &c->hook);
	return 0;
}

static int teardown(void **state)
{
	struct pc *c = *state;
	int err = 0;

	sluice_dma_layer_set_inplace(&c->f->dl, NULL);
	if (sluice_dma_arena_destroy(&c->arena))
		err = -1;
	if (fx_free(c->f))
		err = -1;
	free(c->region);
	free(c->ameta);
	c->f = NULL;
	c->region = NULL;
	c->ameta = NULL;
	return err;
}

static uint64_t dma_of(const void *p)
{
	return (uint64_t)(uintptr_t)p;
}

/* ------------------------------------------------------------------ foreign handles */

/*
 * A block the arena handed to someone else is not the layer's coherent
 * memory, even while the layer holds coherent memory from the same arena:
 * NOENT, and the block stays with its owner.
 */
static void test_free_coherent_foreign_block(void **state)
{
	struct pc *c = *state;
	struct fx *f = c->f;
	void *mine = NULL, *theirs = sluice_dma_arena_alloc(&c->arena, 512 * KIB);
	uint64_t d;

	assert_non_null(theirs);
	assert_int_equal(sluice_dma_alloc_attrs(&f->dl, &deftag, 1 * MIB, 0, &mine, &d), 0);
	assert_true((unsigned char *)mine >= c->region &&
		    (unsigned char *)mine < c->region + 2 * CHUNK);
	assert_int_equal(sluice_dma_free_coherent(&f->dl, theirs, 512 * KIB), SLUICE_DMA_ERR_NOENT);
	assert_int_equal(sluice_dma_arena_block_size(&c->arena, theirs), 512 * KIB);
	/* Inside the layer's own block, or another size: refused too. */
	assert_int_equal(sluice_dma_free_coherent(&f->dl, (unsigned char *)mine + 4096, 4096),
			 SLUICE_DMA_ERR_NOENT);
	assert_int_equal(sluice_dma_free_coherent(&f->dl, mine, 1 * MIB - 4096),
			 SLUICE_DMA_ERR_INVAL);
	/* The arena does not free the layer's block behind its back. */
	assert_int_equal(sluice_dma_arena_free(&c->arena, mine), SLUICE_DMA_ERR_BUSY);
	assert_int_equal(sluice_dma_free_coherent(&f->dl, mine, 1 * MIB), 0);
	assert_int_equal(sluice_dma_arena_free(&c->arena, theirs), 0);
	assert_int_equal(sluice_dma_arena_check(&c->arena, SLUICE_DMA_ARENA_CHECK_SCRUB), 0);
}

/*
 * An unmap of an address inside an in-place mapping is no mapping (NOENT),
 * its start with another length is a bad handle (INVAL, API 0.8): refused,
 * and the block stays counted, so it cannot be freed while the device still
 * holds the real mapping.
 */
static void test_unmap_interior_inplace(void **state)
{
	struct pc *c = *state;
	struct fx *f = c->f;
	unsigned char *blk = sluice_dma_arena_alloc(&c->arena, 8192);
	uint64_t d, d2;

	assert_non_null(blk);
	assert_int_equal(sluice_dma_map(&f->dl, &deftag, blk, 4096, SLUICE_DMA_FROM_DEVICE, &d), 0);
	assert_int_equal(d, dma_of(blk));
	assert_int_equal(sluice_dma_unmap(&f->dl, d + 16, 100, SLUICE_DMA_FROM_DEVICE),
			 SLUICE_DMA_ERR_NOENT);
	assert_int_equal(sluice_dma_unmap(&f->dl, d, 100, SLUICE_DMA_FROM_DEVICE),
			 SLUICE_DMA_ERR_INVAL);
	assert_int_equal(sluice_dma_unmap(&f->dl, d + 4096, 4096, SLUICE_DMA_FROM_DEVICE),
			 SLUICE_DMA_ERR_NOENT);
	assert_int_equal(sluice_dma_arena_free(&c->arena, blk), SLUICE_DMA_ERR_BUSY);
	/* The same range twice: two mappings, each ends once. */
	assert_int_equal(sluice_dma_map(&f->dl, &deftag, blk, 4096, SLUICE_DMA_FROM_DEVICE, &d2),
			 0);
	assert_int_equal(sluice_dma_unmap(&f->dl, d, 4096, SLUICE_DMA_FROM_DEVICE), 0);
	assert_int_equal(sluice_dma_arena_free(&c->arena, blk), SLUICE_DMA_ERR_BUSY);
	assert_int_equal(sluice_dma_unmap(&f->dl, d2, 4096, SLUICE_DMA_FROM_DEVICE), 0);
	assert_int_equal(sluice_dma_unmap(&f->dl, d, 4096, SLUICE_DMA_FROM_DEVICE),
			 SLUICE_DMA_ERR_NOENT);
	assert_int_equal(sluice_dma_arena_free(&c->arena, blk), 0);
}

/*
 * A sync names a mapping by its start, as an unmap does: an address inside an
 * in-place mapping, or in its block but in no mapping, is no mapping (NOENT,
 * logged), and a synced range must stay inside the mapping, not merely inside
 * its block (RANGE).
 */
static void test_sync_interior_inplace(void **state)
{
	struct pc *c = *state;
	struct fx *f = c->f;
	unsigned char *blk = sluice_dma_arena_alloc(&c->arena, 16 * KIB);
	unsigned char *other = sluice_dma_arena_alloc(&c->arena, 4096);
	uint64_t d;

	assert_non_null(blk);
	assert_non_null(other);
	assert_int_equal(sluice_dma_map(&f->dl, &deftag, blk, 4096, SLUICE_DMA_FROM_DEVICE, &d), 0);
	assert_int_equal(d, dma_of(blk));
	f->mp.last_log[0] = 0;
	assert_int_equal(sluice_dma_sync_for_cpu(&f->dl, d + 16, 0, 1, SLUICE_DMA_FROM_DEVICE),
			 SLUICE_DMA_ERR_NOENT);
	assert_non_null(strstr(f->mp.last_log, "sync_for_cpu"));
	assert_int_equal(sluice_dma_sync_for_device(&f->dl, d + 4096, 0, 1, SLUICE_DMA_FROM_DEVICE),
			 SLUICE_DMA_ERR_NOENT);
	/* A live block nobody mapped. */
	assert_int_equal(sluice_dma_sync_for_cpu(&f->dl, dma_of(other), 0, 1,
						 SLUICE_DMA_FROM_DEVICE),
			 SLUICE_DMA_ERR_NOENT);
	/* Inside the block, past the mapping. */
	assert_int_equal(sluice_dma_sync_for_cpu(&f->dl, d, 4000, 200, SLUICE_DMA_FROM_DEVICE),
			 SLUICE_DMA_ERR_RANGE);
	assert_int_equal(sluice_dma_sync_for_cpu(&f->dl, d, 4096, 1, SLUICE_DMA_FROM_DEVICE),
			 SLUICE_DMA_ERR_RANGE);
	assert_int_equal(sluice_dma_sync_for_cpu(&f->dl, d, 0, 4096, SLUICE_DMA_FROM_DEVICE), 0);
	assert_int_equal(sluice_dma_sync_for_cpu(&f->dl, d, 4095, 1, SLUICE_DMA_FROM_DEVICE), 0);
	assert_int_equal(sluice_dma_unmap(&f->dl, d, 4096, SLUICE_DMA_FROM_DEVICE), 0);
	/* Unmapped: the start is no mapping any more. */
	assert_int_equal(sluice_dma_sync_for_cpu(&f->dl, d, 0, 1, SLUICE_DMA_FROM_DEVICE),
			 SLUICE_DMA_ERR_NOENT);
	assert_int_equal(sluice_dma_arena_free(&c->arena, blk), 0);
	assert_int_equal(sluice_dma_arena_free(&c->arena, other), 0);
}

/*
 * A live mapping given back with another length is INVAL on every path: a
 * bounce mapping (unmap, unmap_written, unmap_discard), coherent memory from
 * a pool and from the arena (free_coherent), and an in-place mapping - for
 * which a length past its block, or 0, is another length too. Nothing ends:
 * the right length still works afterwards.
 */
static void test_wrong_length_inval_every_path(void **state)
{
	struct pc *c = *state;
	struct fx *f = c->f;
	unsigned char *buf = calloc(1, 8192), *blk = sluice_dma_arena_alloc(&c->arena, 8192);
	void *pc, *rc;
	uint64_t d, di, pd, rd;

	assert_non_null(buf);
	assert_non_null(blk);
	assert_int_equal(sluice_dma_map(&f->dl, &deftag, buf, 3000, SLUICE_DMA_FROM_DEVICE, &d), 0);
	assert_int_equal(sluice_dma_map(&f->dl, &deftag, blk, 4096, SLUICE_DMA_FROM_DEVICE, &di),
			 0);
	assert_int_equal(di, dma_of(blk));
	pc = sluice_dma_alloc_coherent(&f->dl, &deftag, 4096, &pd);
	rc = sluice_dma_alloc_coherent(&f->dl, &deftag, 1 * MIB, &rd);
	assert_non_null(pc);
	assert_non_null(rc);

	assert_int_equal(sluice_dma_unmap(&f->dl, d, 2999, SLUICE_DMA_FROM_DEVICE),
			 SLUICE_DMA_ERR_INVAL);
	assert_int_equal(sluice_dma_unmap_written(&f->dl, d, 3001, SLUICE_DMA_FROM_DEVICE, 1),
			 SLUICE_DMA_ERR_INVAL);
	assert_int_equal(sluice_dma_unmap_discard(&f->dl, d, 0, SLUICE_DMA_FROM_DEVICE),
			 SLUICE_DMA_ERR_INVAL);
	assert_int_equal(sluice_dma_free_coherent(&f->dl, pc, 4095), SLUICE_DMA_ERR_INVAL);
	assert_int_equal(sluice_dma_free_coherent(&f->dl, rc, 1 * MIB + 1), SLUICE_DMA_ERR_INVAL);
	f->mp.last_log[0] = 0;
	assert_int_equal(sluice_dma_unmap(&f->dl, di, 100, SLUICE_DMA_FROM_DEVICE),
			 SLUICE_DMA_ERR_INVAL);
	assert_non_null(strstr(f->mp.last_log, "length 100"));
	assert_int_equal(sluice_dma_unmap(&f->dl, di, 0, SLUICE_DMA_FROM_DEVICE),
			 SLUICE_DMA_ERR_INVAL);
	assert_int_equal(sluice_dma_unmap(&f->dl, di, 16 * KIB, SLUICE_DMA_FROM_DEVICE),
			 SLUICE_DMA_ERR_INVAL);
	assert_int_equal(sluice_dma_unmap_written(&f->dl, di, 8192, SLUICE_DMA_FROM_DEVICE, 1),
			 SLUICE_DMA_ERR_INVAL);
	assert_int_equal(sluice_dma_unmap_discard(&f->dl, di, 4095, SLUICE_DMA_FROM_DEVICE),
			 SLUICE_DMA_ERR_INVAL);
	/* Still live, every one: the block cannot go, the right length ends each. */
	assert_int_equal(sluice_dma_arena_free(&c->arena, blk), SLUICE_DMA_ERR_BUSY);
	assert_int_equal(sluice_dma_unmap(&f->dl, di, 4096, SLUICE_DMA_FROM_DEVICE), 0);
	assert_int_equal(sluice_dma_unmap(&f->dl, d, 3000, SLUICE_DMA_FROM_DEVICE), 0);
	assert_int_equal(sluice_dma_free_coherent(&f->dl, pc, 4096), 0);
	assert_int_equal(sluice_dma_free_coherent(&f->dl, rc, 1 * MIB), 0);
	assert_int_equal(sluice_dma_arena_free(&c->arena, blk), 0);
	free(buf);
}

struct dirs_seen {
	unsigned int n;
	uint32_t dir[4];
	size_t len[4];
};

static int list_inplace(void *arg, const struct sluice_dma_mapping_info *m)
{
	struct dirs_seen *s = arg;

	if (m->in_place && !m->coherent && s->n < 4) {
		s->dir[s->n] = m->dir;
		s->len[s->n++] = m->len;
	}
	return 0;
}

/*
 * The direction given at map is kept for an in-place mapping as for a bounce
 * one: an unmap with another direction is INVAL and ends nothing (the block
 * stays counted), a sync in another direction is PERM, the walk reports the
 * direction, and one range mapped in two directions is two mappings.
 */
static void test_inplace_direction_kept(void **state)
{
	struct pc *c = *state;
	struct fx *f = c->f;
	unsigned char *blk = sluice_dma_arena_alloc(&c->arena, 8192);
	struct dirs_seen s = { 0 };
	uint64_t d, d2;

	assert_non_null(blk);
	assert_int_equal(sluice_dma_map(&f->dl, &deftag, blk, 4096, SLUICE_DMA_FROM_DEVICE, &d), 0);
	assert_int_equal(d, dma_of(blk));
	f->mp.last_log[0] = 0;
	assert_int_equal(sluice_dma_unmap(&f->dl, d, 4096, SLUICE_DMA_TO_DEVICE),
			 SLUICE_DMA_ERR_INVAL);
	assert_non_null(strstr(f->mp.last_log, "direction"));
	assert_int_equal(sluice_dma_unmap(&f->dl, d, 4096, SLUICE_DMA_BIDIRECTIONAL),
			 SLUICE_DMA_ERR_INVAL);
	assert_int_equal(sluice_dma_arena_free(&c->arena, blk), SLUICE_DMA_ERR_BUSY);
	assert_int_equal(sluice_dma_sync_for_cpu(&f->dl, d, 0, 1, SLUICE_DMA_TO_DEVICE),
			 SLUICE_DMA_ERR_PERM);
	assert_int_equal(sluice_dma_sync_for_device(&f->dl, d, 0, 1, SLUICE_DMA_BIDIRECTIONAL),
			 SLUICE_DMA_ERR_PERM);
	assert_int_equal(sluice_dma_sync_for_cpu(&f->dl, d, 0, 1, SLUICE_DMA_FROM_DEVICE), 0);
	assert_int_equal(sluice_dma_mapping_foreach(&f->dl, list_inplace, &s), 0);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.dir[0], SLUICE_DMA_FROM_DEVICE);
	assert_int_equal(s.len[0], 4096);

	/* The same range to the device as well: a second mapping, its own direction. */
	assert_int_equal(sluice_dma_map(&f->dl, &deftag, blk, 4096, SLUICE_DMA_TO_DEVICE, &d2), 0);
	assert_int_equal(d2, d);
	assert_int_equal(sluice_dma_sync_for_device(&f->dl, d, 0, 4096, SLUICE_DMA_TO_DEVICE), 0);
	assert_int_equal(sluice_dma_unmap(&f->dl, d, 4096, SLUICE_DMA_TO_DEVICE), 0);
	assert_int_equal(sluice_dma_unmap(&f->dl, d, 4096, SLUICE_DMA_TO_DEVICE),
			 SLUICE_DMA_ERR_INVAL);
	assert_int_equal(sluice_dma_sync_for_device(&f->dl, d, 0, 1, SLUICE_DMA_TO_DEVICE),
			 SLUICE_DMA_ERR_PERM);
	assert_int_equal(sluice_dma_arena_free(&c->arena, blk), SLUICE_DMA_ERR_BUSY);
	assert_int_equal(sluice_dma_unmap(&f->dl, d, 4096, SLUICE_DMA_FROM_DEVICE), 0);
	assert_int_equal(sluice_dma_unmap(&f->dl, d, 4096, SLUICE_DMA_FROM_DEVICE),
			 SLUICE_DMA_ERR_NOENT);
	assert_int_equal(sluice_dma_arena_free(&c->arena, blk), 0);
}

/*
 * In-place maps and unmaps with directions from more threads than CPUs, on
 * shared pages of one block: threads whose ranges start in the same page
 * share its records. Each thread maps its range twice in a direction that
 * changes every round, checks that a sync or unmap in another direction is
 * refused, then ends both mappings. Robustness only (nothing is timed): no
 * refusal of a right handle, no acceptance of a wrong one, and afterwards no
 * record left, the block free to go.
 */
#define DIR_THREADS 8
#define DIR_ROUNDS 3000

struct dir_worker {
	struct fx *f;
	unsigned char *va;
	unsigned int t;
	unsigned int errors;
	pthread_t thread;
};

static void *dir_worker_main(void *arg)
{
	struct dir_worker *w = arg;
	struct sluice_dma_layer *dl = &w->f->dl;

	mock_port_set_cpu(w->t % 2);
	for (unsigned int i = 0; i < DIR_ROUNDS; i++) {
		enum sluice_dma_dir dir = (enum sluice_dma_dir)(1 + (w->t + i) % 3);
		enum sluice_dma_dir other = (enum sluice_dma_dir)(1 + (w->t + i + 1) % 3);
		uint64_t d, d2;

		if (sluice_dma_map(dl, &deftag, w->va, 256, dir, &d) || d != dma_of(w->va) ||
		    sluice_dma_map(dl, &deftag, w->va, 256, dir, &d2) || d2 != d) {
			w->errors++;
			continue;
		}
		if (sluice_dma_unmap(dl, d, 256, other) != SLUICE_DMA_ERR_INVAL ||
		    sluice_dma_sync_for_cpu(dl, d, 0, 256, other) != SLUICE_DMA_ERR_PERM ||
		    sluice_dma_sync_for_cpu(dl, d, 0, 256, dir) != 0 ||
		    sluice_dma_unmap(dl, d, 256, dir) != 0 ||
		    sluice_dma_unmap(dl, d, 256, dir) != 0)
			w->errors++;
	}
	return NULL;
}

/* The refusals of the threads: counted, not printed (one per round and thread). */
static atomic_ulong dir_refusals;

static void dir_count_log(void *ctx, enum sluice_dma_log_level level, const char *msg)
{
	(void)ctx;
	(void)msg;
	if (level == SLUICE_DMA_LOG_ERR)
		atomic_fetch_add(&dir_refusals, 1);
}

static void test_inplace_dir_threads(void **state)
{
	struct pc *c = *state;
	struct fx *f = c->f;
	unsigned char *blk = sluice_dma_arena_alloc(&c->arena, 8192);
	struct dir_worker w[DIR_THREADS];
	struct dirs_seen s = { 0 };

	assert_non_null(blk);
	atomic_store(&dir_refusals, 0);
	f->dl.ops.log = dir_count_log; /* the layer's own copy of the ops */
	for (unsigned int i = 0; i < DIR_THREADS; i++) {
		/* Four starts in each of the block's two pages. */
		w[i] = (struct dir_worker){ .f = f,
					    .va = blk + (i / 4) * 4096 + (i % 4) * 512,
					    .t = i };
		assert_int_equal(pthread_create(&w[i].thread, NULL, dir_worker_main, &w[i]), 0);
	}
	for (unsigned int i = 0; i < DIR_THREADS; i++) {
		assert_int_equal(pthread_join(w[i].thread, NULL), 0);
		assert_int_equal(w[i].errors, 0);
	}
	f->dl.ops.log = f->mp.ops.log;
	/* Every wrong-direction unmap was refused with a line, and nothing else was. */
	assert_int_equal(atomic_load(&dir_refusals), (unsigned long)DIR_THREADS * DIR_ROUNDS);
	mock_port_set_cpu(0);
	assert_int_equal(sluice_dma_mapping_foreach(&f->dl, list_inplace, &s), 0);
	assert_int_equal(s.n, 0);
	assert_int_equal(sluice_dma_arena_free(&c->arena, blk), 0);
	assert_int_equal(sluice_dma_arena_check(&c->arena, SLUICE_DMA_ARENA_CHECK_SCRUB), 0);
}

/* Interior handles of bounce mappings and pool coherent memory: NOENT. */
static void test_interior_bounce_and_pool_coherent(void **state)
{
	struct pc *c = *state;
	struct fx *f = c->f;
	unsigned char *buf = malloc(8192);
	uint64_t d, cd;
	void *coh;

	assert_non_null(buf);
	memset(buf, 0x11, 8192);
	assert_int_equal(sluice_dma_map(&f->dl, &deftag, buf, 8192, SLUICE_DMA_TO_DEVICE, &d), 0);
	assert_int_not_equal(d, dma_of(buf));
	assert_int_equal(sluice_dma_unmap(&f->dl, d + 16, 100, SLUICE_DMA_TO_DEVICE),
			 SLUICE_DMA_ERR_NOENT);
	assert_int_equal(sluice_dma_unmap(&f->dl, d + 4096, 4096, SLUICE_DMA_TO_DEVICE),
			 SLUICE_DMA_ERR_NOENT);
	coh = sluice_dma_alloc_coherent(&f->dl, &deftag, 8192, &cd);
	assert_non_null(coh);
	assert_int_equal(sluice_dma_free_coherent(&f->dl, (unsigned char *)coh + 4096, 4096),
			 SLUICE_DMA_ERR_NOENT);
	assert_int_equal(sluice_dma_free_coherent(&f->dl, buf, 8192), SLUICE_DMA_ERR_NOENT);
	assert_int_equal(sluice_dma_unmap(&f->dl, cd, 8192, SLUICE_DMA_TO_DEVICE),
			 SLUICE_DMA_ERR_NOENT);
	assert_int_equal(sluice_dma_unmap(&f->dl, d, 8192, SLUICE_DMA_TO_DEVICE), 0);
	assert_int_equal(sluice_dma_free_coherent(&f->dl, coh, 8192), 0);
	free(buf);
}

/* Coherent memory aligned beyond its size is freed like any other. */
static void test_coherent_any_alignment_freeable(void **state)
{
	struct pc *c = *state;
	struct fx *f = c->f;
	struct sluice_dma_tag t = deftag;
	struct sluice_dma_arena_stats ast;
	void *va[3] = { NULL };
	static const size_t sizes[3] = { 4096, 300 * KIB, 1 * MIB + 4096 };
	uint64_t d;

	t.alloc_align_mask = 2 * MIB - 1;
	for (int i = 0; i < 3; i++) {
		assert_int_equal(sluice_dma_alloc_attrs(&f->dl, &t, sizes[i], 0, &va[i], &d), 0);
		assert_int_equal(d % (2 * MIB), 0);
		assert_int_equal(sluice_dma_free_coherent(&f->dl, va[i], sizes[i]), 0);
	}
	sluice_dma_arena_stats_get(&c->arena, &ast);
	assert_int_equal(ast.blocks_live, 0);
}

/* What no pool and no region can ever hold is RANGE; a full arena is NOMEM. */
static void test_never_fits_is_range(void **state)
{
	struct pc *c = *state;
	struct fx *f = c->f;
	void *va = NULL, *a, *b;
	uint64_t d;

	assert_int_equal(sluice_dma_alloc_attrs(&f->dl, &deftag, 3 * MIB, 0, &va, &d),
			 SLUICE_DMA_ERR_RANGE);
	a = sluice_dma_arena_alloc(&c->arena, 2 * MIB);
	b = sluice_dma_arena_alloc(&c->arena, 2 * MIB);
	assert_non_null(a);
	assert_non_null(b);
	assert_int_equal(sluice_dma_alloc_attrs(&f->dl, &deftag, 1 * MIB, 0, &va, &d),
			 SLUICE_DMA_ERR_NOMEM);
	assert_int_equal(sluice_dma_arena_free(&c->arena, a), 0);
	assert_int_equal(sluice_dma_arena_free(&c->arena, b), 0);
}

/* ------------------------------------------------------------------ teardown */

struct seen {
	unsigned int bounce, pool_coherent, inplace, region_coherent;
};

static int count_kind(void *arg, const struct sluice_dma_mapping_info *m)
{
	struct seen *s = arg;

	if (m->in_place && m->coherent)
		s->region_coherent++;
	else if (m->in_place)
		s->inplace++;
	else if (m->coherent)
		s->pool_coherent++;
	else
		s->bounce++;
	if (m->in_place)
		assert_int_equal(m->pool, SLUICE_DMA_POOL_NONE);
	return 0;
}

/*
 * Every kind of mapping live at once: foreach lists each, unmap_all ends
 * each, and destroy then succeeds (what a firmware needs at
 * ExitBootServices).
 */
static void test_teardown_every_kind(void **state)
{
	struct pc *c = *state;
	struct fx *f = c->f;
	unsigned char *buf = malloc(3 * 4096), *blk = sluice_dma_arena_alloc(&c->arena, 8192);
	struct sluice_dma_destroy_report rep;
	struct seen s = { 0 };
	unsigned long n = 0;
	void *pc, *rc;
	uint64_t d;

	assert_non_null(buf);
	assert_non_null(blk);
	assert_int_equal(sluice_dma_map(&f->dl, &deftag, buf, 4096, SLUICE_DMA_TO_DEVICE, &d), 0);
	assert_int_equal(
		sluice_dma_map(&f->dl, &deftag, buf + 4096, 4096, SLUICE_DMA_FROM_DEVICE, &d), 0);
	assert_int_equal(sluice_dma_map(&f->dl, &deftag, blk, 4096, SLUICE_DMA_FROM_DEVICE, &d), 0);
	assert_int_equal(d, dma_of(blk));
	assert_int_equal(sluice_dma_map(&f->dl, &deftag, blk + 4096, 100, SLUICE_DMA_TO_DEVICE, &d),
			 0);
	assert_int_equal(sluice_dma_map(&f->dl, &deftag, blk + 4096, 100, SLUICE_DMA_TO_DEVICE, &d),
			 0);
	pc = sluice_dma_alloc_coherent(&f->dl, &deftag, 4096, &d);
	rc = sluice_dma_alloc_coherent(&f->dl, &deftag, 1 * MIB, &d);
	assert_non_null(pc);
	assert_non_null(rc);

	assert_int_equal(sluice_dma_mapping_foreach(&f->dl, count_kind, &s), 0);
	assert_int_equal(s.bounce, 2);
	assert_int_equal(s.pool_coherent, 1);
	assert_int_equal(s.inplace, 3);
	assert_int_equal(s.region_coherent, 1);
	assert_int_equal(sluice_dma_layer_destroy_report(&f->dl, &rep), SLUICE_DMA_ERR_BUSY);
	assert_int_equal(rep.live_inplace, 3);
	assert_int_equal(rep.live_region_coherent, 1);

	/* Streaming first: coherent memory stays until asked for. */
	assert_int_equal(sluice_dma_unmap_all(&f->dl, 0, &n), 0);
	assert_int_equal(n, 5);
	assert_int_equal(sluice_dma_arena_free(&c->arena, blk), 0);
	assert_int_equal(sluice_dma_unmap_all(&f->dl, SLUICE_DMA_UNMAP_ALL_COHERENT, &n), 0);
	assert_int_equal(n, 2);
	memset(&s, 0, sizeof(s));
	assert_int_equal(sluice_dma_mapping_foreach(&f->dl, count_kind, &s), 0);
	assert_int_equal(s.bounce + s.pool_coherent + s.inplace + s.region_coherent, 0);
	assert_int_equal(sluice_dma_layer_destroy_report(&f->dl, &rep), 0);
	assert_int_equal(rep.live_inplace + rep.live_region_coherent, 0);
	free(buf);
}

/* ------------------------------------------------------------------ statistics */

/*
 * The locked path (no SLUICE_DMA_PORT_CPU_EXCLUSIVE) with CPU indices that
 * drift: threads share indices and move between them, as a port whose
 * cpu_id is not exclusive sees. Every counter stays exact.
 */
#define STAT_THREADS 4
#define STAT_MAPS 20000
#define STAT_LEN 1000u

struct stat_worker {
	struct fx *f;
	unsigned int t;
	unsigned int failed;
	pthread_t thread;
};

static void *stat_worker_main(void *arg)
{
	struct stat_worker *w = arg;
	unsigned char buf[STAT_LEN];

	memset(buf, 0x22, sizeof(buf));
	for (unsigned int i = 0; i < STAT_MAPS; i++) {
		uint64_t d;

		/* Two threads per index at any time, each index changing every 8 maps. */
		mock_port_set_cpu((w->t + i / 8) % 2);
		if (sluice_dma_map(&w->f->dl, &deftag, buf, STAT_LEN, SLUICE_DMA_TO_DEVICE, &d) ||
		    sluice_dma_unmap(&w->f->dl, d, STAT_LEN, SLUICE_DMA_TO_DEVICE))
			w->failed++;
	}
	return NULL;
}

static void test_stats_exact_drifting_cpus(void **state)
{
	struct pc *c = *state;
	struct fx *f = c->f;
	struct stat_worker w[STAT_THREADS];
	struct sluice_dma_bounce_stats st;
	uint64_t total = (uint64_t)STAT_THREADS * STAT_MAPS;

	assert_false(f->dl.ops.flags & SLUICE_DMA_PORT_CPU_EXCLUSIVE);
	for (unsigned int i = 0; i < STAT_THREADS; i++) {
		w[i] = (struct stat_worker){ .f = f, .t = i };
		assert_int_equal(pthread_create(&w[i].thread, NULL, stat_worker_main, &w[i]), 0);
	}
	for (unsigned int i = 0; i < STAT_THREADS; i++) {
		assert_int_equal(pthread_join(w[i].thread, NULL), 0);
		assert_int_equal(w[i].failed, 0);
	}
	assert_int_equal(sluice_dma_bounce_stats_get(&f->dl, -1, &st), 0);
	assert_int_equal(st.mappings, total);
	assert_int_equal(st.unmaps, total);
	assert_int_equal(st.bytes_to_device, total * STAT_LEN);
	assert_int_equal(st.used, 0);
}

/* ------------------------------------------------------------------ configuration */

/* A live layer is not initialised again (its pools would leak, shared). */
static void test_reinit_live_layer_refused(void **state)
{
	struct pc *c = *state;
	struct fx *f = c->f;

	f->mp.last_log[0] = 0;
	assert_int_equal(sluice_dma_layer_init(&f->dl, &f->mp.ops, 2, SLUICE_DMA_SCRUB_ZERO),
			 SLUICE_DMA_ERR_BUSY);
	assert_non_null(strstr(f->mp.last_log, "live"));
	assert_int_equal(sluice_dma_bounce_pool_count(&f->dl), 1);
}

/*
 * A live arena is not initialised again either (API 0.8): its shared chunks
 * and port locks would leak, and a block it handed out would be handed out
 * twice. It stays as it was; once destroyed, its storage takes an init.
 */
static void test_reinit_live_arena_refused(void **state)
{
	struct pc *c = *state;
	struct fx *f = c->f;
	struct sluice_dma_arena_stats st;
	struct sluice_dma_arena_config cfg = { .base = c->region,
					       .len = 2 * CHUNK,
					       .ncpus = 2,
					       .meta = c->ameta,
					       .meta_len =
						       sluice_dma_arena_meta_size(2 * CHUNK, 2) };
	unsigned char *blk = sluice_dma_arena_alloc(&c->arena, 4096);
	long locks;

	assert_non_null(blk);
	locks = atomic_load(&f->mp.locks_live);
	f->mp.last_log[0] = 0;
	assert_int_equal(sluice_dma_arena_init(&c->arena, &f->mp.ops, &cfg), SLUICE_DMA_ERR_BUSY);
	assert_non_null(strstr(f->mp.last_log, "config refused: "));
	assert_non_null(strstr(f->mp.last_log, "live"));
	assert_int_equal(atomic_load(&f->mp.locks_live), locks);
	sluice_dma_arena_stats_get(&c->arena, &st);
	assert_int_equal(st.blocks_live, 1);
	assert_int_equal(sluice_dma_arena_block_size(&c->arena, blk), 4096);
	/* Idle but initialised: still refused (its locks are live). */
	assert_int_equal(sluice_dma_arena_free(&c->arena, blk), 0);
	assert_int_equal(sluice_dma_arena_init(&c->arena, &f->mp.ops, &cfg), SLUICE_DMA_ERR_BUSY);
	assert_int_equal(sluice_dma_arena_check(&c->arena, SLUICE_DMA_ARENA_CHECK_SCRUB), 0);
	/*
	 * Destroyed: the storage is fresh again (the teardown destroys this one),
	 * even when something else wrote it since (a stack slot reused).
	 */
	assert_int_equal(sluice_dma_arena_destroy(&c->arena), 0);
	c->arena.nchunks = 1;
	assert_int_equal(sluice_dma_arena_init(&c->arena, &f->mp.ops, &cfg), 0);
	assert_int_equal(atomic_load(&f->mp.locks_live), locks);
}

/* A configuration refused: @call returns @err and logs why, naming @word. */
#define EXPECT_LOGGED(mp, call, err, word)                                   \
	do {                                                                 \
		(mp)->last_log[0] = 0;                                       \
		assert_int_equal((call), (err));                             \
		assert_non_null(strstr((mp)->last_log, "config refused: ")); \
		assert_non_null(strstr((mp)->last_log, (word)));             \
	} while (0)

/* Every configuration mistake of the layer and its pools says what it is. */
static void test_config_errors_logged(void **state)
{
	struct pc *c = *state;
	struct fx *f = c->f;
	struct mock_port *mp = &f->mp;
	struct sluice_dma_port_ops ops = mp->ops;
	static struct sluice_dma_layer dl; /* fresh storage */
	size_t bytes = 256 * KIB, ml = sluice_dma_bounce_meta_size(f->policy, bytes, 2);
	unsigned char *mem = fx_aligned(4096, bytes + 4096), *meta = malloc(ml);

	assert_non_null(mem);
	assert_non_null(meta);
	ops.virt_to_dma = NULL;
	EXPECT_LOGGED(mp, sluice_dma_layer_init(&dl, &ops, 2, SLUICE_DMA_SCRUB_ZERO),
		      SLUICE_DMA_ERR_INVAL, "virt_to_dma");
	ops = mp->ops;
	ops.unlock = NULL;
	EXPECT_LOGGED(mp, sluice_dma_layer_init(&dl, &ops, 2, SLUICE_DMA_SCRUB_ZERO),
		      SLUICE_DMA_ERR_INVAL, "lock without unlock");
	EXPECT_LOGGED(mp, sluice_dma_layer_init(&dl, &mp->ops, 0, SLUICE_DMA_SCRUB_ZERO),
		      SLUICE_DMA_ERR_INVAL, "0 CPUs");
	EXPECT_LOGGED(mp, sluice_dma_layer_init(&dl, &mp->ops, 2, (enum sluice_dma_scrub)7),
		      SLUICE_DMA_ERR_INVAL, "scrub 7");
	EXPECT_LOGGED(mp, sluice_dma_layer_set_max_areas(&f->dl, 3), SLUICE_DMA_ERR_INVAL,
		      "power of two");
	EXPECT_LOGGED(mp, sluice_dma_layer_set_max_areas(&f->dl, 2), SLUICE_DMA_ERR_INVAL,
		      "after a pool");
	EXPECT_LOGGED(mp, sluice_dma_bounce_pool_add(&f->dl, f->policy, NULL, bytes, meta, ml),
		      SLUICE_DMA_ERR_INVAL, "bounce pool: policy");
	EXPECT_LOGGED(mp, sluice_dma_bounce_pool_add(&f->dl, f->policy, mem + 16, bytes, meta, ml),
		      SLUICE_DMA_ERR_INVAL, "4 KiB pages");
	EXPECT_LOGGED(mp, sluice_dma_bounce_pool_add(&f->dl, f->policy, mem, bytes - 16, meta, ml),
		      SLUICE_DMA_ERR_INVAL, "4 KiB pages");
	EXPECT_LOGGED(mp, sluice_dma_bounce_pool_add(&f->dl, f->policy, mem, 64 * KIB, meta, ml),
		      SLUICE_DMA_ERR_INVAL, "too small");
	EXPECT_LOGGED(mp, sluice_dma_bounce_pool_add(&f->dl, f->policy, mem, bytes, meta, ml - 1),
		      SLUICE_DMA_ERR_NOMEM, "needed");
	EXPECT_LOGGED(mp, sluice_dma_bounce_pool_add(&f->dl, f->policy, mem, bytes, mem + 4096, ml),
		      SLUICE_DMA_ERR_INVAL, "inside the pool");
	EXPECT_LOGGED(mp, sluice_dma_bounce_pool_add(&f->dl, f->policy, f->mem[0], bytes, meta, ml),
		      SLUICE_DMA_ERR_INVAL, "live pool");
	free(mem);
	free(meta);
}

/* Every configuration mistake of an arena says what it is. */
static void test_arena_config_errors_logged(void **state)
{
	struct pc *c = *state;
	struct mock_port *mp = &c->f->mp;
	struct sluice_dma_port_ops ops = mp->ops;
	static struct sluice_dma_arena a;
	size_t ml = sluice_dma_arena_meta_size(2 * CHUNK, 2);
	void *meta = malloc(ml);
	struct sluice_dma_arena_config good = {
		.base = c->region, .len = 2 * CHUNK, .ncpus = 2, .meta = meta, .meta_len = ml
	};
	struct sluice_dma_arena_config cfg = good;

	assert_non_null(meta);
	ops.set_private = NULL;
	EXPECT_LOGGED(mp, sluice_dma_arena_init(&a, &ops, &cfg), SLUICE_DMA_ERR_INVAL, "lacks");
	cfg.flags = 0x80;
	EXPECT_LOGGED(mp, sluice_dma_arena_init(&a, &mp->ops, &cfg), SLUICE_DMA_ERR_INVAL,
		      "unknown flags 0x80");
	cfg = good;
	cfg.base = c->region + 4096;
	EXPECT_LOGGED(mp, sluice_dma_arena_init(&a, &mp->ops, &cfg), SLUICE_DMA_ERR_INVAL,
		      "2 MB aligned");
	cfg = good;
	cfg.len = CHUNK + 4096;
	EXPECT_LOGGED(mp, sluice_dma_arena_init(&a, &mp->ops, &cfg), SLUICE_DMA_ERR_INVAL,
		      "multiple of 2 MB");
	cfg = good;
	cfg.meta_len = ml - 1;
	EXPECT_LOGGED(mp, sluice_dma_arena_init(&a, &mp->ops, &cfg), SLUICE_DMA_ERR_INVAL,
		      "needed");
	/* Metadata inside the region: the host could forge the free lists. */
	cfg = good;
	cfg.base = c->region + CHUNK;
	cfg.len = CHUNK;
	cfg.meta = c->region + CHUNK + 4096;
	cfg.meta_len = sluice_dma_arena_meta_size(CHUNK, 2);
	EXPECT_LOGGED(mp, sluice_dma_arena_init(&a, &mp->ops, &cfg), SLUICE_DMA_ERR_INVAL,
		      "holds the metadata");
	free(meta);
}

#define CASES(fn)                                                                         \
	cmocka_unit_test_prestate_setup_teardown(fn, setup, teardown, &cases[0]),         \
		cmocka_unit_test_prestate_setup_teardown(fn, setup, teardown, &cases[1]), \
		cmocka_unit_test_prestate_setup_teardown(fn, setup, teardown, &cases[2]), \
		cmocka_unit_test_prestate_setup_teardown(fn, setup, teardown, &cases[3])

/*
 * The lock op's save word (API 0.7, dma_port.h): the mock's lock saves the
 * caller's "interrupt flag" in the word it returns and clears it; its unlock
 * restores the flag from the word handed back, and checks that the hold it
 * ends is the innermost one and that the word is the one that hold's lock
 * returned. After every call on every path the flag must be set again. The
 * library nests at most two locks on the mapping paths, ncpus + 1 in the
 * arena's self-check. lock_destroy: every lock lock_init set up goes back to
 * the port when its object is released, and a pool added after a destroy
 * initialises the layer's lock again.
 */
static void test_lock_save_words(void **state)
{
	struct pc *c = *state;
	struct fx *f = c->f;
	unsigned char *buf = calloc(1, 64 * KIB), *blk;
	uint64_t d[4], cd;
	void *coh;
	long arena_locks = 2 + 1; /* the arena's two CPU locks and its own */

	assert_non_null(buf);
	atomic_store(&f->mp.lock_depth_max, 0);
	for (unsigned int cpu = 0; cpu < 2; cpu++) {
		mock_port_set_cpu(cpu);
		assert_int_equal(
			sluice_dma_map(&f->dl, &deftag, buf, 2048, SLUICE_DMA_TO_DEVICE, &d[0]), 0);
		assert_true(mock_port_irqs_on());
		assert_int_equal(sluice_dma_map(&f->dl, &deftag, buf + 4096, 40 * KIB,
						SLUICE_DMA_FROM_DEVICE, &d[1]),
				 0);
		coh = sluice_dma_alloc_coherent(&f->dl, &deftag, 4096, &cd);
		assert_non_null(coh);
		blk = sluice_dma_arena_alloc(&c->arena, 8192);
		assert_non_null(blk);
		assert_int_equal(
			sluice_dma_map(&f->dl, &deftag, blk, 4096, SLUICE_DMA_TO_DEVICE, &d[2]), 0);
		assert_true(mock_port_irqs_on());
		/* Freed on the other CPU: the remote paths of the per-CPU caches. */
		mock_port_set_cpu(1 - cpu);
		assert_int_equal(sluice_dma_unmap(&f->dl, d[2], 4096, SLUICE_DMA_TO_DEVICE), 0);
		assert_int_equal(sluice_dma_arena_free(&c->arena, blk), 0);
		assert_int_equal(sluice_dma_free_coherent(&f->dl, coh, 4096), 0);
		assert_int_equal(sluice_dma_unmap(&f->dl, d[1], 40 * KIB, SLUICE_DMA_FROM_DEVICE),
				 0);
		assert_int_equal(sluice_dma_unmap(&f->dl, d[0], 2048, SLUICE_DMA_TO_DEVICE), 0);
		assert_true(mock_port_irqs_on());
	}
	mock_port_set_cpu(0);
	assert_int_equal(sluice_dma_layer_check(&f->dl), 0);
	assert_true(mock_port_irqs_on());
	assert_true(atomic_load(&f->mp.lock_depth_max) <= 2);
	assert_int_equal(sluice_dma_arena_check(&c->arena, 0), 0);
	assert_int_equal(atomic_load(&f->mp.lock_depth_max), 2 + 1);
	assert_true(mock_port_irqs_on());

	/* Destroy: the pool's locks and the layer's go back; the arena's stay. */
	sluice_dma_layer_set_inplace(&f->dl, NULL);
	assert_int_equal(sluice_dma_layer_destroy(&f->dl), 0);
	assert_int_equal(atomic_load(&f->mp.locks_live), arena_locks);
	/* A pool after the destroy takes them again; the next destroy returns them. */
	assert_int_equal(fx_add_pool(f, 256 * KIB), 0);
	assert_true(atomic_load(&f->mp.locks_live) > arena_locks);
	assert_int_equal(sluice_dma_map(&f->dl, &deftag, buf, 2048, SLUICE_DMA_TO_DEVICE, &d[0]),
			 0);
	assert_int_equal(sluice_dma_unmap(&f->dl, d[0], 2048, SLUICE_DMA_TO_DEVICE), 0);
	assert_int_equal(sluice_dma_layer_destroy(&f->dl), 0);
	assert_int_equal(atomic_load(&f->mp.locks_live), arena_locks);
	/* A second init of a destroyed layer's storage: one lock, not two. */
	assert_int_equal(sluice_dma_layer_init(&f->dl, &f->mp.ops, 2, SLUICE_DMA_SCRUB_ZERO), 0);
	assert_int_equal(sluice_dma_layer_init(&f->dl, &f->mp.ops, 2, SLUICE_DMA_SCRUB_ZERO), 0);
	assert_int_equal(atomic_load(&f->mp.locks_live), arena_locks + 1);
	assert_int_equal(sluice_dma_arena_destroy(&c->arena), 0);
	assert_int_equal(atomic_load(&f->mp.locks_live), 1);
	assert_int_equal(sluice_dma_layer_destroy(&f->dl), 0);
	assert_int_equal(atomic_load(&f->mp.locks_live), 0);
	/* The teardown destroys the arena again: give it one. */
	assert_int_equal(sluice_dma_arena_init(
				 &c->arena, &f->mp.ops,
				 &(struct sluice_dma_arena_config){
					 .base = c->region,
					 .len = 2 * CHUNK,
					 .ncpus = 2,
					 .meta = c->ameta,
					 .meta_len = sluice_dma_arena_meta_size(2 * CHUNK, 2) }),
			 0);
	free(buf);
}

/*
 * A pool whose size is not a whole number of areas: 768 KiB on 2 CPUs is two
 * areas of 256 KiB (areas are whole 128-slot segments). The 256 KiB left over
 * are never converted: only what the slots use becomes shared, and the same
 * range goes back at destroy.
 */
static void test_pool_remainder_never_converted(void **state)
{
	struct pc *c = *state;
	struct fx *f = fx_new(c->policy, 2, 768 * KIB, SLUICE_DMA_SCRUB_ZERO);
	struct sluice_dma_bounce_stats st;

	assert_non_null(f);
	assert_int_equal(sluice_dma_bounce_stats_get(&f->dl, 0, &st), 0);
	assert_int_equal(st.nslabs * 2048, 512 * KIB);
	assert_int_equal(mock_port_shared_bytes(&f->mp), 512 * KIB);
	assert_true(mock_port_is_shared(&f->mp, f->mem[0], 512 * KIB));
	assert_false(mock_port_is_shared(&f->mp, (unsigned char *)f->mem[0] + 512 * KIB, 1));
	assert_int_equal(fx_free(f), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		CASES(test_free_coherent_foreign_block),
		CASES(test_unmap_interior_inplace),
		CASES(test_interior_bounce_and_pool_coherent),
		CASES(test_sync_interior_inplace),
		CASES(test_wrong_length_inval_every_path),
		CASES(test_inplace_direction_kept),
		CASES(test_inplace_dir_threads),
		CASES(test_coherent_any_alignment_freeable),
		CASES(test_never_fits_is_range),
		CASES(test_teardown_every_kind),
		CASES(test_stats_exact_drifting_cpus),
		CASES(test_reinit_live_layer_refused),
		CASES(test_reinit_live_arena_refused),
		CASES(test_config_errors_logged),
		CASES(test_arena_config_errors_logged),
		CASES(test_lock_save_words),
		CASES(test_pool_remainder_never_converted),
	};

	for (int i = 0; i < SLUICE_DMA_POLICY_COUNT; i++)
		cases[i].policy = (enum sluice_dma_bounce_policy)i;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
