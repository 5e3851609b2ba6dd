/* SPDX-License-Identifier: MIT */
/*
 * arena_buddy.c - the buddy allocator of one 2 MB arena chunk: free lists per
 * order, split on allocation, merge on free. The arena lock is held by every
 * caller (arena.c); nothing here converts memory or takes a lock.
 *
 * Why a buddy allocator per 2 MB chunk: blocks are powers of two from 4 KiB to
 * 2 MB and naturally aligned, which is exactly what buddies give; split and
 * merge are O(orders) = 10 steps with no search inside a chunk; and a chunk is
 * idle exactly when it has merged back into one free 2 MB block, so the release
 * test is "free_pages == 512". Keeping the buddy state per chunk (not one
 * global free list per order) means a chunk can leave the allocator at reclaim
 * time without walking anyone else's blocks. The cross-chunk search (on a CPU
 * cache miss only) picks the chunk with the smallest sufficient free block,
 * ties broken towards the fullest chunk so that emptier chunks drain and can be
 * released.
 */
#include "dma/arena_priv.h"

/* ---- buddy lists of one chunk (arena lock held) ------------------------- */

static void list_push(struct sluice_dma_priv_arena_chunk *c, unsigned int order, unsigned int page)
{
	unsigned int first = c->head[order];

	c->next[page] = (uint16_t)first;
	c->prev[page] = NO_PAGE;
	if (first != NO_PAGE)
		c->prev[first] = (uint16_t)page;
	c->head[order] = (uint16_t)page;
	c->avail |= (uint16_t)(1u << order);
	tag_set(c, page, tag_make(BLK_FREE, order));
}

static void list_remove(struct sluice_dma_priv_arena_chunk *c, unsigned int order,
			unsigned int page)
{
	unsigned int next = c->next[page], prev = c->prev[page];

	if (prev != NO_PAGE)
		c->next[prev] = (uint16_t)next;
	else
		c->head[order] = (uint16_t)next;
	if (next != NO_PAGE)
		c->prev[next] = (uint16_t)prev;
	if (c->head[order] == NO_PAGE)
		c->avail &= (uint16_t) ~(1u << order);
}

void sluice_dma_priv_arena_chunk_reset(struct sluice_dma_priv_arena_chunk *c)
{
	for (unsigned int i = 0; i < CHUNK_PAGES; i++) {
		tag_set(c, i, 0);
		__atomic_store_n(&c->maps[i], 0, __ATOMIC_RELAXED);
		for (unsigned int r = 0; r < SLUICE_DMA_ARENA_MAP_RECORDS; r++)
			__atomic_store_n(&chunk_rec(c, i)[r], 0, __ATOMIC_RELAXED);
	}
	for (unsigned int o = 0; o < SLUICE_DMA_ARENA_NR_ORDERS; o++)
		c->head[o] = NO_PAGE;
	c->avail = 0;
	c->free_pages = CHUNK_PAGES;
	c->idle_passes = 0;
	c->next_release = NO_PAGE;
	list_push(c, MAX_ORDER, 0);
}

/* Take a block of @order from @c, which has one (avail says so). */
void *sluice_dma_priv_arena_chunk_alloc(struct sluice_dma_arena *a,
					struct sluice_dma_priv_arena_chunk *c, unsigned int order)
{
	unsigned int o = order + (unsigned int)__builtin_ctz((unsigned int)(c->avail >> order));
	unsigned int page = c->head[o];

	list_remove(c, o, page);
	while (o > order) {
		o--;
		list_push(c, o, page + (1u << o));
		a->splits++;
	}
	tag_set(c, page, tag_make(BLK_LIVE, order));
	c->free_pages -= (uint16_t)(1u << order);
	c->idle_passes = 0;
	return page_addr(a, c, page);
}

/* Give back the block at @page (not free, not in any list) and merge it up. */
void sluice_dma_priv_arena_chunk_free(struct sluice_dma_arena *a,
				      struct sluice_dma_priv_arena_chunk *c, unsigned int page,
				      unsigned int order)
{
	c->free_pages += (uint16_t)(1u << order);
	while (order < MAX_ORDER) {
		unsigned int buddy = page ^ (1u << order);

		if (tag_get(c, buddy) != tag_make(BLK_FREE, order))
			break;
		list_remove(c, order, buddy);
		/* The higher of the two stops being a head. */
		tag_set(c, page > buddy ? page : buddy, 0);
		page = page < buddy ? page : buddy;
		order++;
		a->merges++;
	}
	list_push(c, order, page);
}

void sluice_dma_priv_arena_block_free(struct sluice_dma_arena *a, void *ptr, unsigned int order)
{
	uintptr_t off = (uintptr_t)ptr - a->base;
	struct sluice_dma_priv_arena_chunk *c = &a->chunks[off >> SLUICE_DMA_ARENA_CHUNK_SHIFT];

	sluice_dma_priv_arena_chunk_free(
		a, c, (unsigned int)(off >> SLUICE_DMA_ARENA_PAGE_SHIFT) & (CHUNK_PAGES - 1),
		order);
}
