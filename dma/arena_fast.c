/* SPDX-License-Identifier: MIT */
/*
 * arena_fast.c - the arena's common allocation and free, as functions that
 * call nothing: the owner's pop from its own CPU cache, and its free of a
 * live block of a cached order into it, on an arena that init found may take
 * them (ARENA_FAST, arena_priv.h: owned caches, and the port's CPU index and
 * zero run inline). Every other case, and every refusal but the two a claim
 * decides, is handed to arena.c as it came.
 *
 * Why a file of its own: a 4 KiB free+alloc is its scrub and, around it, the
 * arena's own instructions, which do not run under a `rep stosb` (on the AMD
 * EPYC VM of docs/results/2026-12-06-arena-leaf.md, 48 independent register
 * adds after one cost about 0.1 ns each: make bench-floor). A function with a
 * call anywhere on its path saves and restores registers and spills around
 * the call, on every call; these call nothing but a tail call, so they need
 * neither. What they check is what arena.c checks, in the same order of
 * effect: the refusals are arena.c's (the block is handed there unchanged),
 * the claim is the same one (arena_claim(), arena_priv.h), the statistics
 * the same counts.
 */
#include "dma/arena_priv.h"

#ifdef ARENA_FAST_PATH
/* The largest size of a cached order: the fast path's whole range of sizes. */
#define ARENA_FAST_MAX_SIZE (SLUICE_DMA_ARENA_MIN_BLOCK << (SLUICE_DMA_ARENA_CACHE_ORDERS - 1))

/* This CPU's cache: the port's inline CPU index, folded as port.h's rule says. */
static inline __attribute__((always_inline)) struct sluice_dma_priv_arena_cpu *
fast_cpu(const struct sluice_dma_arena *a)
{
	unsigned int id = SLUICE_DMA_INLINE_CPU_ID(a->ops.ctx);

	return &a->cpus[dma_port_cpu_fold(id, a->ncpus)];
}
#endif

void *sluice_dma_arena_alloc(struct sluice_dma_arena *arena, size_t size)
{
#ifdef ARENA_FAST_PATH
	struct sluice_dma_priv_arena_cpu *cpu;
	unsigned int order, n;
	bool timed;
	void *p;

	/* 0 wraps above the range: arena.c refuses it. */
	if (DMA_CHECKED(!arena) || !(arena->flags & ARENA_FAST) || size - 1 >= ARENA_FAST_MAX_SIZE)
		return sluice_dma_priv_arena_alloc(arena, size);
	order = size_to_order(size);
	cpu = fast_cpu(arena);
	if (__atomic_load_n(&cpu->drain_req, __ATOMIC_ACQUIRE) ||
	    !(n = __atomic_load_n(&cpu->count[order], __ATOMIC_RELAXED)))
		return sluice_dma_priv_arena_alloc(arena, size);
	p = cache_pop(arena, cpu, order, n, &timed);
	if (!(arena->flags & SLUICE_DMA_ARENA_SCRUB_ON_ALLOC))
		return p;
	size = SLUICE_DMA_ARENA_MIN_BLOCK << order;
	if (__builtin_expect(timed, 0))
		return sluice_dma_priv_arena_alloc_scrub_timed(arena, cpu, p, size);
	SLUICE_DMA_INLINE_ZERO(arena->ops.ctx, p, size);
	return p;
#else
	return sluice_dma_priv_arena_alloc(arena, size);
#endif
}

int sluice_dma_arena_free(struct sluice_dma_arena *arena, void *ptr)
{
#ifdef ARENA_FAST_PATH
	struct sluice_dma_priv_arena_chunk *c;
	struct sluice_dma_priv_arena_cpu *cpu;
	uintptr_t off = (uintptr_t)ptr;
	unsigned int page, order, n;
	enum arena_claim claim;
	uint8_t tag, want;

	if (DMA_CHECKED(!arena) || !(arena->flags & ARENA_FAST))
		return sluice_dma_priv_arena_free(arena, ptr, false);
	/*
	 * Not a block start in the region (NULL included: the region never
	 * starts at 0, and below its base the offset wraps above its length):
	 * arena.c says which. Not DMA_CHECKED: it chooses the path.
	 */
	off -= arena->base;
	if (off >= arena->len || (off & (SLUICE_DMA_ARENA_MIN_BLOCK - 1)))
		return sluice_dma_priv_arena_free(arena, ptr, false);
	c = &arena->chunks[off >> SLUICE_DMA_ARENA_CHUNK_SHIFT];
	page = (unsigned int)(off >> SLUICE_DMA_ARENA_PAGE_SHIFT) & (CHUNK_PAGES - 1);
	tag = tag_get(c, page);
	/*
	 * One comparison: a live head of a cached order is exactly a tag in
	 * [live head of order 0, + CACHE_ORDERS). Anything else (not a head,
	 * free, cached, freeing, a layer's coherent block, a larger order) is
	 * arena.c's to refuse or to free.
	 */
	want = tag_make(BLK_LIVE, 0);
	if ((uint8_t)(tag - want) >= SLUICE_DMA_ARENA_CACHE_ORDERS ||
	    DMA_CHECKED(chunk_state_get(c) != CHUNK_SHARED) ||
	    DMA_CHECKED(__atomic_load_n(&c->maps[page], __ATOMIC_RELAXED)))
		return sluice_dma_priv_arena_free(arena, ptr, false);
	order = tag_order(tag);
	cpu = fast_cpu(arena);
	if (arena_free_timed(cpu, order) || __atomic_load_n(&cpu->drain_req, __ATOMIC_ACQUIRE) ||
	    (n = __atomic_load_n(&cpu->count[order], __ATOMIC_RELAXED)) ==
		    SLUICE_DMA_ARENA_CACHE_DEPTH)
		return sluice_dma_priv_arena_free(arena, ptr, false);
	claim = arena_claim(c, page, tag);
	if (claim != ARENA_CLAIMED)
		return arena_claim_refusal(arena, ptr, claim);
	/* Scrub outside every lock: the next user sees zeros, never our bytes. */
	if (!(arena->flags & SLUICE_DMA_ARENA_SCRUB_ON_ALLOC))
		SLUICE_DMA_INLINE_ZERO(arena->ops.ctx, ptr, SLUICE_DMA_ARENA_MIN_BLOCK << order);
	cache_push(cpu, ptr, c, page, order, n);
	return 0;
#else
	return sluice_dma_priv_arena_free(arena, ptr, false);
#endif
}
