/* SPDX-License-Identifier: MIT */
/*
 * bad_args.h - what the files of the bad-argument test share: the live state a
 * row runs against (struct bx), the row (struct row) and its R/T/E makers, the
 * addresses a log line must name, and one table of rows per API area
 * (bad_args_<area>.c); tests/dma/test_bad_args.c sets up, runs and checks them.
 */
#ifndef SLUICE_TESTS_BAD_ARGS_H
#define SLUICE_TESTS_BAD_ARGS_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* fork, pipe under any -std */
#endif
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <sluice/arena.h>
#include "dma/bounce.h"
#include "tests/fakes/test_bounce_fixture.h"

#define KIB 1024ul
#define MIB (1024ul * 1024ul)
#define CHUNK SLUICE_DMA_ARENA_CHUNK_SIZE
#define MAP_LEN 1000u
#define CPU_BYTE 0x11 /* the caller's buffer */
#define DEV_BYTE 0xee /* what the device wrote into its from-device slots */

/**
 * struct bx - the live state every row runs against.
 * @f: a layer of two CPUs with one 1 MiB pool (tests/fakes/test_bounce_fixture.h).
 * @arena: a two-chunk arena on the same mock ops, registered as the layer's
 *	in-place hook.
 * @hook: that hook.
 * @region: the arena's region.
 * @ameta: its metadata.
 * @buf: the caller's private buffer (64 KiB of CPU_BYTE).
 * @d_to: a to-device mapping of @buf.
 * @d_from: a from-device mapping of @buf + 4 KiB, slot written by the device.
 * @d_bidi: a bidirectional mapping of @buf + 8 KiB, slot written by the device.
 * @coh: 4 KiB of coherent memory; @coh_dma its device address.
 * @blk: an 8 KiB arena block; @d_inplace its first 4 KiB mapped in place.
 * @st: the pool statistics before the row.
 * @ast: the arena statistics before the row.
 */
struct bx {
	struct fx *f;
	struct sluice_dma_arena arena;
	struct sluice_dma_inplace_region hook;
	unsigned char *region;
	void *ameta;
	unsigned char *buf;
	uint64_t d_to, d_from, d_bidi;
	void *coh;
	uint64_t coh_dma;
	unsigned char *blk;
	uint64_t d_inplace;
	struct sluice_dma_bounce_stats st;
	struct sluice_dma_arena_stats ast;
};

enum expect { RET, TRAP, REFUSE };

/**
 * struct row - one bad call.
 * @name: what is called with what.
 * @run: the call; returns the function's result as a long (pointers: 1 for
 *	non-NULL, 0 for NULL; bools: 0 / 1).
 * @expect: RET, TRAP or REFUSE (a bad handle: the call returns @ret and logs
 *	@text and @addr, and on a strict layer or arena it traps after the same
 *	line).
 * @ret: with RET and REFUSE, the value @run must return.
 * @text: with TRAP and REFUSE, text the log line must contain (NULL: none required).
 * @addr: with TRAP and REFUSE, an address the log line must name as 0x<hex> (or NULL).
 * @pools: whether the row runs once per bounce policy.
 * @mutates: a REFUSE row whose first call succeeds (a double unmap): it runs
 *	only in children, so the parent's state stays as set up.
 */
struct row {
	const char *name;
	long (*run)(struct bx *b);
	enum expect expect;
	long ret;
	const char *text;
	uint64_t (*addr)(struct bx *b);
	bool pools;
	bool mutates;
};

/* A value no function returns: an output argument written on failure. */
#define CLOBBERED (-999)
#define SENTINEL 0x5e5e5e5e5e5e5e5eull

static const struct sluice_dma_tag deftag = SLUICE_DMA_TAG_DEFAULT;

static inline struct sluice_dma_tag tag_with(uint64_t min_align, uint64_t alloc_align,
					     uint64_t boundary, uint64_t limit, size_t max_mapping)
{
	return (struct sluice_dma_tag){ .addr_limit = limit,
					.min_align_mask = min_align,
					.alloc_align_mask = alloc_align,
					.boundary_mask = boundary,
					.max_mapping = max_mapping };
}

/* ------------------------------------------------------------------ addresses */

static inline uint64_t a_null(struct bx *b)
{
	(void)b;
	return 0;
}

static inline uint64_t a_to(struct bx *b)
{
	return b->d_to;
}

static inline uint64_t a_from(struct bx *b)
{
	return b->d_from;
}

static inline uint64_t a_to_plus1(struct bx *b)
{
	return b->d_to + 1;
}

static inline uint64_t a_from_plus1(struct bx *b)
{
	return b->d_from + 1;
}

/* A free slot well inside the pool: never mapped. */
static inline uint64_t a_pool_free(struct bx *b)
{
	return (uint64_t)(uintptr_t)b->f->mem[0] + 200 * SLUICE_DMA_IO_TLB_SIZE;
}

static inline uint64_t a_buf(struct bx *b)
{
	return (uint64_t)(uintptr_t)b->buf;
}

static inline uint64_t a_coh(struct bx *b)
{
	return b->coh_dma;
}

static inline uint64_t a_coh_plus16(struct bx *b)
{
	return b->coh_dma + 16;
}

static inline uint64_t a_inplace(struct bx *b)
{
	return b->d_inplace;
}

static inline uint64_t a_blk_plus16(struct bx *b)
{
	return (uint64_t)(uintptr_t)b->blk + 16;
}

static inline uint64_t a_blk_plus4k(struct bx *b)
{
	return (uint64_t)(uintptr_t)b->blk + 4 * KIB;
}

static inline uint64_t a_blk_plus8k(struct bx *b)
{
	return (uint64_t)(uintptr_t)b->blk + 8 * KIB;
}

static inline uint64_t a_chunk1(struct bx *b)
{
	return (uint64_t)(uintptr_t)b->region + CHUNK;
}

static inline uint64_t a_arena(struct bx *b)
{
	return (uint64_t)(uintptr_t)&b->arena;
}

/*
 * Lengths above 4 GiB - 1 do not exist where size_t has 32 bits (i386, built by
 * tests/portable.mk): (size_t)UINT32_MAX + 1 would be 0 there.
 */
#define SKIP_IF_32BIT_SIZE()                \
	do {                                \
		if (SIZE_MAX <= UINT32_MAX) \
			skip();             \
	} while (0)

#define R(fn, want) #fn, fn, RET, want, NULL, NULL
#define T(fn, text, addr) #fn, fn, TRAP, 0, text, addr
#define E(fn, err, text, addr) #fn, fn, REFUSE, err, text, addr

/* One table of rows per API area, in the order they run. */
extern const struct row bad_args_layer_rows[];
extern const size_t bad_args_layer_nrows;
extern const struct row bad_args_pool_rows[];
extern const size_t bad_args_pool_nrows;
extern const struct row bad_args_map_rows[];
extern const size_t bad_args_map_nrows;
extern const struct row bad_args_unmap_rows[];
extern const size_t bad_args_unmap_nrows;
extern const struct row bad_args_sync_rows[];
extern const size_t bad_args_sync_nrows;
extern const struct row bad_args_coherent_rows[];
extern const size_t bad_args_coherent_nrows;
extern const struct row bad_args_bounce_rows[];
extern const size_t bad_args_bounce_nrows;
extern const struct row bad_args_arena_rows[];
extern const size_t bad_args_arena_nrows;

#endif /* SLUICE_TESTS_BAD_ARGS_H */
