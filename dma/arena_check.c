/* SPDX-License-Identifier: MIT */
/*
 * arena_check.c - the arena's self-check (sluice_dma_arena_check()), for
 * tests and fuzzers: every chunk is walked and every counter recounted, with
 * every lock held. It is apart from the allocator because it restates the
 * allocator's invariants independently: a bug in one is caught by the other.
 */
#include "dma/arena_priv.h"

/* ---- self-check ---------------------------------------------------------- */

/* Log the first inconsistency found, with the address or count it concerns. */
static int check_fail(const struct sluice_dma_arena *a, const char *what, uint64_t value)
{
	sluice_dma_priv_logf(arena_ops(a), SLUICE_DMA_LOG_ERR,
			     "sluice_dma_arena: check failed: %s 0x%llx", what,
			     (unsigned long long)value);
	return SLUICE_DMA_ERR_FAULT;
}

static bool block_is_zero(const void *p, size_t size)
{
	const uint64_t *w = p;

	for (size_t i = 0; i < size / sizeof(*w); i++)
		if (w[i])
			return false;
	return true;
}

struct check_tally {
	uint64_t live_blocks;
	uint64_t live_bytes;
	uint64_t cached;
};

static int check_chunk(const struct sluice_dma_arena *a,
		       const struct sluice_dma_priv_arena_chunk *c, unsigned int flags,
		       struct check_tally *t)
{
	unsigned int nfree[SLUICE_DMA_ARENA_NR_ORDERS] = { 0 };
	unsigned int free_pages = 0;
	uintptr_t cb = chunk_base(a, c);

	for (unsigned int i = 0; i < CHUNK_PAGES;) {
		uint8_t tag = tag_get(c, i);
		unsigned int o = tag_order(tag), st = tag_state(tag);
		void *addr = page_addr(a, c, i);

		if (!(tag & TAG_HEAD))
			return check_fail(a, "page belongs to no block at", (uintptr_t)addr);
		if (o > MAX_ORDER || (i & ((1u << o) - 1)))
			return check_fail(a, "misaligned block at", (uintptr_t)addr);
		for (unsigned int j = 1; j < (1u << o); j++)
			if (tag_get(c, i + j))
				return check_fail(a, "overlapping blocks at",
						  (uintptr_t)page_addr(a, c, i + j));
		switch (st) {
		case BLK_FREE:
			free_pages += 1u << o;
			nfree[o]++;
			if (o < MAX_ORDER && tag_get(c, i ^ (1u << o)) == tag_make(BLK_FREE, o))
				return check_fail(a, "unmerged free buddies at", (uintptr_t)addr);
			break;
		case BLK_LIVE:
		case BLK_COHERENT:
		case BLK_FREEING:
			t->live_blocks++;
			t->live_bytes += SLUICE_DMA_ARENA_MIN_BLOCK << o;
			break;
		case BLK_CACHED:
			t->cached++;
			break;
		default:
			return check_fail(a, "bad block state at", (uintptr_t)addr);
		}
		if ((flags & SLUICE_DMA_ARENA_CHECK_SCRUB) &&
		    !(a->flags & SLUICE_DMA_ARENA_SCRUB_ON_ALLOC) &&
		    (st == BLK_FREE || st == BLK_CACHED) &&
		    !block_is_zero(addr, SLUICE_DMA_ARENA_MIN_BLOCK << o))
			return check_fail(a, "idle block not scrubbed at", (uintptr_t)addr);
		i += 1u << o;
	}
	if (free_pages != c->free_pages)
		return check_fail(a, "free page count wrong in chunk", cb);

	for (unsigned int o = 0; o < SLUICE_DMA_ARENA_NR_ORDERS; o++) {
		unsigned int n = 0, prev = NO_PAGE;

		for (unsigned int p = c->head[o]; p != NO_PAGE; p = c->next[p]) {
			if (p >= CHUNK_PAGES || n++ > CHUNK_PAGES)
				return check_fail(a, "corrupt free list in chunk", cb);
			if (tag_get(c, p) != tag_make(BLK_FREE, o))
				return check_fail(a, "free list holds a non-free block at",
						  (uintptr_t)page_addr(a, c, p));
			if (c->prev[p] != prev)
				return check_fail(a, "broken prev link at",
						  (uintptr_t)page_addr(a, c, p));
			prev = p;
		}
		if (n != nfree[o])
			return check_fail(a, "free list length wrong in chunk", cb);
		if (!!(c->avail & (1u << o)) != (n != 0))
			return check_fail(a, "avail mask wrong in chunk", cb);
	}
	return 0;
}

static int check_locked(struct sluice_dma_arena *a, unsigned int flags)
{
	struct check_tally t = { 0 };
	struct sluice_dma_priv_arena_counters sum = { 0 };
	unsigned int nshared_state = 0, nleaked = 0;
	uint64_t cached_entries = 0;
	int rc;

	for (unsigned int ci = 0; ci < a->nchunks; ci++) {
		struct sluice_dma_priv_arena_chunk *c = &a->chunks[ci];

		switch (chunk_state_get(c)) {
		case CHUNK_PRIVATE:
			break;
		case CHUNK_SHARED:
			nshared_state++;
			rc = check_chunk(a, c, flags, &t);
			if (rc)
				return rc;
			c->next_release = 0; /* mark: not yet seen in the active list */
			break;
		case CHUNK_LEAKED:
			nleaked++;
			break;
		default:
			return check_fail(
				a, "chunk in transition (arena not quiescent):", chunk_base(a, c));
		}
	}

	if (a->nactive != nshared_state)
		return check_fail(a, "active list length wrong:", a->nactive);
	for (unsigned int i = 0; i < a->nactive; i++) {
		struct sluice_dma_priv_arena_chunk *c = &a->chunks[a->active[i]];

		if (a->active[i] >= a->nchunks || chunk_state_get(c) != CHUNK_SHARED ||
		    c->next_release)
			return check_fail(a, "bad or duplicate active entry", a->active[i]);
		c->next_release = 1;
	}
	for (unsigned int i = 0; i < a->nactive; i++)
		a->chunks[a->active[i]].next_release = NO_PAGE;

	for (unsigned int i = 0; i < a->ncpus; i++) {
		const struct sluice_dma_priv_arena_cpu *cpu = &a->cpus[i];

		sluice_dma_priv_arena_cpu_counters_add(a, &sum, cpu);
		for (unsigned int o = 0; o < SLUICE_DMA_ARENA_CACHE_ORDERS; o++) {
			unsigned int n = __atomic_load_n(&cpu->count[o], __ATOMIC_RELAXED);

			if (n > SLUICE_DMA_ARENA_CACHE_DEPTH)
				return check_fail(a, "cache overfull on cpu", i);
			for (unsigned int j = 0; j < n; j++) {
				uintptr_t p = (uintptr_t)cpu->stack[o][j], off = p - a->base;
				const struct sluice_dma_priv_arena_chunk *c;

				if (p < a->base || off >= a->len ||
				    (p & (SLUICE_DMA_ARENA_MIN_BLOCK - 1)))
					return check_fail(a, "cached pointer outside arena", p);
				c = &a->chunks[off >> SLUICE_DMA_ARENA_CHUNK_SHIFT];
				if (chunk_state_get(c) != CHUNK_SHARED ||
				    tag_get(c, (unsigned int)(off >> SLUICE_DMA_ARENA_PAGE_SHIFT) &
						       (CHUNK_PAGES - 1)) !=
					    tag_make(BLK_CACHED, o))
					return check_fail(a, "cached block not tagged cached", p);
				cached_entries++;
			}
		}
	}
	if (cached_entries != t.cached)
		return check_fail(a, "cached tags vs cache entries differ:", t.cached);

	sluice_dma_priv_arena_counters_add(&sum, &a->ctr);
	if (sum.allocs - sum.frees != t.live_blocks)
		return check_fail(a, "allocs - frees != live blocks:", t.live_blocks);
	if (sum.bytes_allocated - sum.bytes_freed != t.live_bytes)
		return check_fail(a, "live bytes mismatch:", t.live_bytes);
	if (sum.cache_hits + sum.cache_misses != sum.allocs)
		return check_fail(a, "hits + misses != allocs:", sum.allocs);
	if (a->nconverting)
		return check_fail(a, "conversions in flight:", a->nconverting);
	if (a->nshared != nshared_state + nleaked)
		return check_fail(a, "shared chunk count wrong:", a->nshared);
	if (a->to_shared.done - a->to_private.done != a->nshared)
		return check_fail(a, "to_shared - to_private != shared chunks:", a->nshared);
	if (a->nleaked != nleaked || a->to_private.failed != nleaked)
		return check_fail(a, "leak count wrong:", a->nleaked);
	if (a->nshared > a->cap || a->hiwater > a->cap || a->hiwater < a->nshared)
		return check_fail(a, "cap or hiwater violated:", a->hiwater);
	return 0;
}

int sluice_dma_arena_check(struct sluice_dma_arena *arena, unsigned int flags)
{
	int rc;

	if (!arena || !arena->nchunks || (flags & ~SLUICE_DMA_ARENA_CHECK_SCRUB))
		return SLUICE_DMA_ERR_INVAL;
	for (unsigned int i = 0; i < arena->ncpus; i++)
		arena_lock(arena, &arena->cpus[i].lock);
	arena_lock(arena, &arena->lock);
	rc = check_locked(arena, flags);
	arena_unlock(arena, &arena->lock);
	for (unsigned int i = arena->ncpus; i-- > 0;)
		arena_unlock(arena, &arena->cpus[i].lock);
	return rc;
}
