/* SPDX-License-Identifier: MIT */
/*
 * arena_region.c - the arena as a layer's in-place region (the hook of
 * sluice_dma_arena_region()): counting in-place mappings, coherent memory
 * served from arena blocks, and the walk over both for a layer's teardown.
 *
 * Every handle the layer gives back is checked against a record of what it
 * handed out, not against "some live block holds this address":
 *  - an in-place mapping is recorded by its exact start, length and
 *    direction in the page it starts in (chunk.rec,
 *    SLUICE_DMA_ARENA_MAP_RECORDS a page), and counted in its block
 *    (chunk.maps, which sluice_dma_arena_free() checks). An unmap of an
 *    address inside another mapping, or of another length or direction,
 *    finds no record and is refused: otherwise it would drop the block's
 *    count, and the block could be freed and handed to a new owner while
 *    the first device still writes it. The layer asks the records (find)
 *    to check a sync as it checks a bounce mapping's, and to tell a live
 *    start given with another length or direction (INVAL) from no mapping
 *    (NOENT).
 *  - coherent memory is a block in state BLK_COHERENT, and carries a mark
 *    with the size the layer asked for in its head page's records. The
 *    region's free takes only such a block of exactly that size;
 *    sluice_dma_arena_free() refuses it (it is the layer's). A block someone
 *    else allocated from the arena directly is never the layer's to free.
 * Records are single 64-bit words changed by compare-and-swap, so a map and
 * an unmap cost one atomic operation each beyond the block's count.
 */
#include "dma/arena_priv.h"

/* The chunk and head page of the live block holding [@vaddr, @vaddr + @len). */
static struct sluice_dma_priv_arena_chunk *
region_block(struct sluice_dma_arena *a, const void *vaddr, size_t len, unsigned int *head)
{
	const struct sluice_dma_priv_arena_chunk *cc;
	uint8_t tag;

	if (!sluice_dma_arena_owns(a, vaddr, len) ||
	    !sluice_dma_priv_arena_find_block(a, (uintptr_t)vaddr, &cc, head, &tag))
		return NULL;
	return &a->chunks[cc - a->chunks];
}

/*
 * The same for an unmap: the block may also be one a free has just claimed
 * (FREEING) and will give back, since it finds the mapping still counted
 * (arena_claim() in dma/arena_priv.h). The unmap of a recorded mapping goes
 * through then too, instead of failing for a moment and leaving the mapping
 * counted for good. If it ends the last mapping before the free reads the
 * count, the free goes on, as it would have a moment later.
 */
static struct sluice_dma_priv_arena_chunk *
region_block_unmap(struct sluice_dma_arena *a, const void *vaddr, size_t len, unsigned int *head)
{
	const struct sluice_dma_priv_arena_chunk *cc;
	uintptr_t start;
	uint8_t tag;

	if (!sluice_dma_priv_arena_find_block(a, (uintptr_t)vaddr, &cc, head, &tag) ||
	    (!blk_state_live(tag_state(tag)) && tag_state(tag) != BLK_FREEING))
		return NULL;
	start = (uintptr_t)page_addr(a, cc, *head);
	if (len > (SLUICE_DMA_ARENA_MIN_BLOCK << tag_order(tag)) - ((uintptr_t)vaddr - start))
		return NULL;
	return &a->chunks[cc - a->chunks];
}

/* The records of the page holding @vaddr (inside chunk @c of @a). */
static arena_rec_t *region_page_recs(const struct sluice_dma_arena *a,
				     struct sluice_dma_priv_arena_chunk *c, const void *vaddr)
{
	uintptr_t off = (uintptr_t)vaddr - a->base;

	return chunk_rec(c, (unsigned int)(off >> SLUICE_DMA_ARENA_PAGE_SHIFT) & (CHUNK_PAGES - 1));
}

/* Whether @dir is a direction a mapping can be made with (enum sluice_dma_dir). */
static bool region_dir_ok(uint32_t dir)
{
	return dir >= 1 && dir <= 3;
}

/* One more mapping of the range @key in @recs: an existing record or a new one. */
static bool rec_take(arena_rec_t *recs, uint64_t key)
{
	for (;;) {
		arena_rec_t *empty = NULL;
		uint64_t w;
		unsigned int i;

		for (i = 0; i < SLUICE_DMA_ARENA_MAP_RECORDS; i++) {
			w = __atomic_load_n(&recs[i], __ATOMIC_ACQUIRE);
			if (w && !(w & REC_COHERENT) && (w & REC_KEY_MASK) == key &&
			    (w & REC_COUNT_MASK) != REC_COUNT_MASK)
				break;
			if (!w && !empty)
				empty = &recs[i];
		}
		if (i < SLUICE_DMA_ARENA_MAP_RECORDS) {
			if (__atomic_compare_exchange_n(&recs[i], &w, w + 1, false,
							__ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
				return true;
			continue;
		}
		if (!empty)
			return false; /* every record holds another range: bounce it */
		w = 0;
		if (__atomic_compare_exchange_n(empty, &w, key | 1, false, __ATOMIC_SEQ_CST,
						__ATOMIC_RELAXED))
			return true;
	}
}

/* One mapping of the range @key less in @recs; false if none is recorded. */
static bool rec_drop(arena_rec_t *recs, uint64_t key)
{
	for (unsigned int i = 0; i < SLUICE_DMA_ARENA_MAP_RECORDS; i++) {
		uint64_t w = __atomic_load_n(&recs[i], __ATOMIC_ACQUIRE);

		while (w && !(w & REC_COHERENT) && (w & REC_KEY_MASK) == key) {
			uint64_t n = (w & REC_COUNT_MASK) == 1 ? 0 : w - 1;

			if (__atomic_compare_exchange_n(&recs[i], &w, n, false, __ATOMIC_SEQ_CST,
							__ATOMIC_RELAXED))
				return true;
		}
	}
	return false;
}

/*
 * The hook's get: record the mapping, then count it in the block. Counted
 * first, checked second (sequentially consistent, against the claim in
 * sluice_dma_arena_free()): a free racing with this get either sees the count
 * and refuses, or has claimed the block and this get backs out.
 */
static bool arena_region_get(void *ctx, const void *vaddr, size_t len, uint32_t dir)
{
	struct sluice_dma_arena *a = ctx;
	struct sluice_dma_priv_arena_chunk *c;
	arena_rec_t *recs;
	uint64_t key;
	unsigned int head;

	/* A block holds the range, so the length fits the record's 22 bits. */
	if (!len || !region_dir_ok(dir))
		return false;
	c = region_block(a, vaddr, len, &head);
	if (!c)
		return false;
	recs = region_page_recs(a, c, vaddr);
	key = rec_key((uintptr_t)vaddr & (SLUICE_DMA_ARENA_MIN_BLOCK - 1), len, dir);
	if (!rec_take(recs, key))
		return false;
	/* 65535 live mappings of one block: refuse the next rather than wrap. */
	if (__atomic_add_fetch(&c->maps[head], 1, __ATOMIC_SEQ_CST) == 0 ||
	    !blk_state_live(tag_state(__atomic_load_n(&c->tag[head], __ATOMIC_SEQ_CST)))) {
		__atomic_sub_fetch(&c->maps[head], 1, __ATOMIC_SEQ_CST);
		rec_drop(recs, key);
		return false;
	}
	return true;
}

/* The hook's put: only a recorded mapping of exactly this range and direction ends. */
static bool arena_region_put(void *ctx, const void *vaddr, size_t len, uint32_t dir)
{
	struct sluice_dma_arena *a = ctx;
	struct sluice_dma_priv_arena_chunk *c;
	unsigned int head;
	uint16_t n;

	if (!len || !region_dir_ok(dir))
		return false;
	c = region_block_unmap(a, vaddr, len, &head);
	if (!c || !rec_drop(region_page_recs(a, c, vaddr),
			    rec_key((uintptr_t)vaddr & (SLUICE_DMA_ARENA_MIN_BLOCK - 1), len, dir)))
		return false;
	/* A record was live, so the block counts it: the count is not 0. */
	n = __atomic_load_n(&c->maps[head], __ATOMIC_RELAXED);
	do {
		if (!n)
			ARENA_BUG(a, "in-place unmap of %p: recorded but not counted", vaddr);
	} while (!__atomic_compare_exchange_n(&c->maps[head], &n, (uint16_t)(n - 1), true,
					      __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
	return true;
}

/*
 * The hook's find: the records of mappings that start exactly at @vaddr (in
 * the page it lies in; coherent marks are no mappings). A snapshot: a record
 * may change right after it is read, as any answer about a live mapping can
 * when its owner races itself.
 */
static int arena_region_find(void *ctx, const void *vaddr, uint32_t dir, size_t *len)
{
	struct sluice_dma_arena *a = ctx;
	struct sluice_dma_priv_arena_chunk *c;
	unsigned int head,
		off = (unsigned int)((uintptr_t)vaddr & (SLUICE_DMA_ARENA_MIN_BLOCK - 1));
	arena_rec_t *recs;
	bool any = false;
	size_t best = 0;

	c = region_block(a, vaddr, 1, &head);
	if (!c)
		return SLUICE_DMA_ERR_NOENT;
	recs = region_page_recs(a, c, vaddr);
	for (unsigned int i = 0; i < SLUICE_DMA_ARENA_MAP_RECORDS; i++) {
		uint64_t w = __atomic_load_n(&recs[i], __ATOMIC_ACQUIRE);

		if (!w || (w & REC_COHERENT) || rec_off(w) != off)
			continue;
		any = true;
		if ((!dir || rec_dir(w) == dir) && rec_len(w) > best)
			best = rec_len(w);
	}
	if (!any)
		return SLUICE_DMA_ERR_NOENT;
	if (!best)
		return SLUICE_DMA_ERR_PERM;
	*len = best;
	return 0;
}

/*
 * Take the block at page @head of @c, just allocated with tag @live, as the
 * layer's coherent memory of @size bytes: its tag says BLK_COHERENT, then a
 * record holds the mark with @size. False if a record could not be had, with
 * the block left as it was.
 */
static bool region_mark_coherent(struct sluice_dma_priv_arena_chunk *c, unsigned int head,
				 uint8_t live, size_t size)
{
	uint8_t want = live;

	/*
	 * Only a stale free of the block's address (a caller's double free,
	 * racing us) can change the tag now: it claimed the block and will put
	 * it back, so it is not ours to mark.
	 */
	if (!__atomic_compare_exchange_n(&c->tag[head], &want,
					 tag_make(BLK_COHERENT, tag_order(live)), false,
					 __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
		return false;
	for (unsigned int i = 0; i < SLUICE_DMA_ARENA_MAP_RECORDS; i++) {
		uint64_t w = 0;

		if (__atomic_compare_exchange_n(&chunk_rec(c, head)[i], &w,
						REC_COHERENT | rec_key(0, size, 0), false,
						__ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
			return true;
	}
	/* Every record taken by maps of a block not yet handed out: live again. */
	tag_set(c, head, live);
	return false;
}

/* Coherent memory: a block of max(@size, @align), marked with @size. */
static void *arena_region_alloc_aligned(void *ctx, size_t size, size_t align)
{
	struct sluice_dma_arena *a = ctx;
	const struct sluice_dma_priv_arena_chunk *cc;
	unsigned int head;
	uint8_t tag;
	void *p;

	if (!size || size > SLUICE_DMA_ARENA_MAX_BLOCK || align > SLUICE_DMA_ARENA_MAX_BLOCK)
		return NULL;
	/* A block is aligned to its own power-of-two size. */
	p = sluice_dma_arena_alloc(a, size > align ? size : align);
	if (!p)
		return NULL;
	if (!sluice_dma_priv_arena_find_block(a, (uintptr_t)p, &cc, &head, &tag) ||
	    tag_state(tag) != BLK_LIVE)
		ARENA_BUG(a, "coherent block %p: not live right after its allocation", p);
	if (region_mark_coherent(&a->chunks[cc - a->chunks], head, tag, size))
		return p;
	/* The block stays with whoever has it now (kept, or a stale free's). */
	sluice_dma_priv_logf(arena_ops(a), SLUICE_DMA_LOG_WARN,
			     "sluice_dma_arena: coherent block %p mapped or freed before its "
			     "allocation",
			     p);
	return NULL;
}

static void *arena_region_alloc(void *ctx, size_t size)
{
	return arena_region_alloc_aligned(ctx, size, SLUICE_DMA_ARENA_MIN_BLOCK);
}

/* Only a marked block, and only with the size it was asked for. */
static int arena_region_free(void *ctx, void *vaddr, size_t size)
{
	struct sluice_dma_arena *a = ctx;
	struct sluice_dma_priv_arena_chunk *c;
	unsigned int head;
	uint64_t w = 0;

	c = sluice_dma_arena_block_size(a, vaddr) ? region_block(a, vaddr, 1, &head) : NULL;
	for (unsigned int i = 0; c && i < SLUICE_DMA_ARENA_MAP_RECORDS && !w; i++) {
		w = __atomic_load_n(&chunk_rec(c, head)[i], __ATOMIC_ACQUIRE);
		w = w & REC_COHERENT ? w : 0;
	}
	if (!w)
		return SLUICE_DMA_ERR_NOENT;
	if (rec_len(w) != size)
		return SLUICE_DMA_ERR_INVAL;
	return sluice_dma_priv_arena_free(a, vaddr, true);
}

/* Every record of one shared chunk, in address order. */
static int region_walk_chunk(struct sluice_dma_arena *a, struct sluice_dma_priv_arena_chunk *c,
			     int (*fn)(void *arg, void *vaddr, size_t len, bool coherent,
				       uint32_t dir, unsigned int count),
			     void *arg)
{
	for (unsigned int pg = 0; pg < CHUNK_PAGES; pg++) {
		for (unsigned int i = 0; i < SLUICE_DMA_ARENA_MAP_RECORDS; i++) {
			uint64_t w = __atomic_load_n(&chunk_rec(c, pg)[i], __ATOMIC_ACQUIRE);
			unsigned char *va = page_addr(a, c, pg);
			int ret;

			if (!w)
				continue;
			if (w & REC_COHERENT)
				ret = fn(arg, va, rec_len(w), true, 0, 1);
			else
				ret = fn(arg, va + rec_off(w), rec_len(w), false, rec_dir(w),
					 (unsigned int)(w & REC_COUNT_MASK));
			if (ret)
				return ret;
		}
	}
	return 0;
}

static int arena_region_walk(void *ctx,
			     int (*fn)(void *arg, void *vaddr, size_t len, bool coherent,
				       uint32_t dir, unsigned int count),
			     void *arg)
{
	struct sluice_dma_arena *a = ctx;

	for (unsigned int ci = 0; ci < a->nchunks; ci++) {
		int ret;

		if (chunk_state_get(&a->chunks[ci]) != CHUNK_SHARED)
			continue;
		ret = region_walk_chunk(a, &a->chunks[ci], fn, arg);
		if (ret)
			return ret;
	}
	return 0;
}

void sluice_dma_arena_region(struct sluice_dma_inplace_region *region,
			     struct sluice_dma_arena *arena)
{
	if (!region)
		ARENA_BUG(arena, "sluice_dma_arena_region: NULL region for arena %p",
			  (void *)arena);
	region->owns = sluice_dma_arena_inplace_owns;
	region->ctx = arena;
	region->get = arena_region_get;
	region->put = arena_region_put;
	region->alloc = arena_region_alloc;
	region->free = arena_region_free;
	region->alloc_aligned = arena_region_alloc_aligned;
	region->alloc_max = SLUICE_DMA_ARENA_MAX_BLOCK;
	region->walk = arena_region_walk;
	region->find = arena_region_find;
}
