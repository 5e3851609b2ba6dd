/* SPDX-License-Identifier: MIT */
/*
 * arena.c - the 2 MB shared arena (the DMA_PMD design): lazy per-chunk
 * conversion, a buddy allocator per chunk, per-CPU recycling caches, scrub on
 * free, caller-driven release of idle chunks.
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
 *
 * Why scrub on free (not on alloc): every idle block - in the buddy lists or in
 * a CPU cache - then reads all zero, so an allocation hands out zeroed memory
 * (what coherent DMA allocations promise), the hot allocation path is a pop,
 * and the self-check can verify the guarantee by reading idle memory. A fresh
 * chunk is zeroed once right after its conversion: its shared view may hold
 * whatever the host left there. The cost (bytes and cycles) is counted.
 *
 * The scrub is most of an alloc+free pair (4 KiB: ~37 ns of memset against
 * ~15 ns for the rest on the benchmark host), and it stays on the free path
 * on purpose. Cheaper schemes were weighed: zeroing only when another owner
 * reuses a block breaks the "reads all zero" promise to the same owner;
 * deferring the zeroing to an idle pass moves the same stores elsewhere and
 * leaves dirty blocks in the caches that the self-check could no longer
 * vouch for; rep stosb measured the same as the library memset. What was
 * cut is the overhead around the scrub: only one scrub in ARENA_SCRUB_SAMPLE
 * reads the clock (two clock reads cost ~23 ns, as much as the rest of the
 * pair), and scrub_cycles is scaled from the sampled ones.
 *
 * Locking: one lock per CPU cache, one arena lock for the buddy lists and the
 * counters. Order: CPU cache lock, then arena lock. No lock is held across
 * set_shared / set_private (the port's contract); a chunk being converted is
 * in a transitional state that keeps everyone else away from it. Block tags,
 * chunk states and cache counts are read and written only through the
 * __atomic builtins because sluice_dma_arena_owns() and sluice_dma_arena_free()
 * read them without the arena lock (plain fields in the public header; see
 * there for why they are not _Atomic).
 *
 * Not here: the mapping API (dma/map.c) and the bounce pool (dma/bounce*.c).
 */
#include <sluice/arena.h>
#include <sluice/dma.h>

#include <stdalign.h>

#include "dma/log.h"
#include "dma/port.h"

#define CHUNK_PAGES SLUICE_DMA_ARENA_CHUNK_PAGES
#define MAX_ORDER (SLUICE_DMA_ARENA_NR_ORDERS - 1)
#define NO_PAGE 0xffffu
/* One scrub in this many (a power of two) of the cached orders is timed. */
#define ARENA_SCRUB_SAMPLE 16u

/* Block tag of a head page: bit 7 head, bits 4..6 state, bits 0..3 order. */
#define TAG_HEAD 0x80u
#define TAG_STATE_SHIFT 4
#define TAG_STATE_MASK 0x70u
#define TAG_ORDER_MASK 0x0fu

enum blk_state {
	BLK_FREE = 1,		/* in its chunk's buddy lists */
	BLK_LIVE = 2,		/* handed out */
	BLK_FREEING = 3,	/* sluice_dma_arena_free() in progress (scrubbing) */
	BLK_CACHED = 4,		/* in a per-CPU cache */
};

enum chunk_state {
	CHUNK_PRIVATE = 0,	/* never converted, or converted back */
	CHUNK_CONVERTING = 1,	/* set_shared in flight */
	CHUNK_SHARED = 2,	/* in use by the allocator */
	CHUNK_RELEASING = 3,	/* set_private in flight */
	CHUNK_LEAKED = 4,	/* set_private failed: never touched again */
};

_Static_assert(CHUNK_PAGES == 512, "a chunk is 512 pages of 4 KiB");
_Static_assert(CHUNK_PAGES < NO_PAGE, "page indices must fit 16 bits with a sentinel");
_Static_assert(MAX_ORDER <= TAG_ORDER_MASK, "an order must fit the tag's order bits");
_Static_assert(SLUICE_DMA_ARENA_NR_ORDERS <= 16, "the avail mask is 16 bits");
_Static_assert(SLUICE_DMA_ARENA_CACHE_ORDERS <= SLUICE_DMA_ARENA_NR_ORDERS,
	       "cached orders are orders");
_Static_assert(SLUICE_DMA_ARENA_CACHE_DEPTH >= 2 && SLUICE_DMA_ARENA_CACHE_DEPTH % 2 == 0,
	       "a full cache flushes half of itself");
_Static_assert(sizeof(struct sluice_dma_priv_arena_cpu) % 64 == 0,
	       "CPU caches must not share lines");
_Static_assert(sizeof(struct sluice_dma_priv_arena_chunk) % 8 == 0,
	       "chunks follow each other in meta");
_Static_assert(alignof(struct sluice_dma_priv_arena_chunk) <= 64, "meta is aligned to 64 only");
/* The __atomic builtins on these plain fields must not need a lock. */
_Static_assert(__atomic_always_lock_free(sizeof(uint8_t), 0) &&
		       __atomic_always_lock_free(sizeof(uint16_t), 0),
	       "atomic tags and counts must be lock-free");

/* ---- small helpers ------------------------------------------------------ */

static inline uint8_t tag_make(unsigned int state, unsigned int order)
{
	return (uint8_t)(TAG_HEAD | state << TAG_STATE_SHIFT | order);
}

static inline unsigned int tag_state(uint8_t tag)
{
	return (tag & TAG_STATE_MASK) >> TAG_STATE_SHIFT;
}

static inline unsigned int tag_order(uint8_t tag)
{
	return tag & TAG_ORDER_MASK;
}

static inline uint8_t tag_get(const struct sluice_dma_priv_arena_chunk *c, unsigned int page)
{
	return __atomic_load_n(&c->tag[page], __ATOMIC_RELAXED);
}

static inline void tag_set(struct sluice_dma_priv_arena_chunk *c, unsigned int page, uint8_t tag)
{
	__atomic_store_n(&c->tag[page], tag, __ATOMIC_RELAXED);
}

static inline unsigned int chunk_state_get(const struct sluice_dma_priv_arena_chunk *c)
{
	return __atomic_load_n(&c->state, __ATOMIC_ACQUIRE);
}

static inline void chunk_state_set(struct sluice_dma_priv_arena_chunk *c, unsigned int state)
{
	__atomic_store_n(&c->state, (uint8_t)state, __ATOMIC_RELEASE);
}

/* The arena's calls into the port go through port.h, as the layer's do. */
static inline const struct sluice_dma_port_ops *arena_ops(const struct sluice_dma_arena *a)
{
	return a ? &a->ops : NULL;
}

static inline uint64_t arena_cycles(const struct sluice_dma_arena *a)
{
	return dma_port_cycles(&a->ops);
}

static inline void arena_lock(const struct sluice_dma_arena *a, struct sluice_dma_port_lock *l)
{
	dma_port_lock(&a->ops, l);
}

static inline void arena_unlock(const struct sluice_dma_arena *a, struct sluice_dma_port_lock *l)
{
	dma_port_unlock(&a->ops, l);
}

/* The CPU cache to use: the one cpu_id rule of port.h (fold, never trap). */
static inline unsigned int arena_this_cpu(const struct sluice_dma_arena *a)
{
	return dma_port_cpu(&a->ops, a->ncpus);
}

static inline uintptr_t chunk_base(const struct sluice_dma_arena *a,
				   const struct sluice_dma_priv_arena_chunk *c)
{
	return a->base + ((uintptr_t)(c - a->chunks) << SLUICE_DMA_ARENA_CHUNK_SHIFT);
}

static inline void *page_addr(const struct sluice_dma_arena *a,
			      const struct sluice_dma_priv_arena_chunk *c, unsigned int page)
{
	return (void *)(chunk_base(a, c) + ((uintptr_t)page << SLUICE_DMA_ARENA_PAGE_SHIFT));
}

static inline unsigned int size_to_order(size_t size)
{
	size_t pages = (size + SLUICE_DMA_ARENA_MIN_BLOCK - 1) >> SLUICE_DMA_ARENA_PAGE_SHIFT;

	if (pages <= 1)
		return 0;
	/* ceil(log2(pages)); pages <= 512 here, so this cannot overflow. */
	return (unsigned int)(sizeof(unsigned long) * 8) -
	       (unsigned int)__builtin_clzl((unsigned long)(pages - 1));
}

/* ---- logging: the library's one path (log.h), every line prefixed -------- */

/* A programmer error: name the address, then stop before memory is corrupted. */
#define ARENA_BUG(a, fmt, ...) DMA_FAIL(arena_ops(a), "sluice_dma_arena: " fmt, __VA_ARGS__)

/*
 * A refused release: log the address, then trap on a strict arena or return
 * @err. Nothing has been changed when this is called.
 */
#define ARENA_REFUSE(a, err, fmt, ...)                                                     \
	sluice_dma_priv_refuse(arena_ops(a), (a) && ((a)->flags & SLUICE_DMA_ARENA_STRICT), \
			       (err), __FILE__, __LINE__, "sluice_dma_arena: " fmt, __VA_ARGS__)

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
		c->avail &= (uint16_t)~(1u << order);
}

static void chunk_reset(struct sluice_dma_priv_arena_chunk *c)
{
	for (unsigned int i = 0; i < CHUNK_PAGES; i++) {
		tag_set(c, i, 0);
		__atomic_store_n(&c->maps[i], 0, __ATOMIC_RELAXED);
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
static void *chunk_alloc(struct sluice_dma_arena *a, struct sluice_dma_priv_arena_chunk *c,
			 unsigned int order)
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
static void chunk_free(struct sluice_dma_arena *a, struct sluice_dma_priv_arena_chunk *c,
		       unsigned int page, unsigned int order)
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

static void block_free_locked(struct sluice_dma_arena *a, void *ptr, unsigned int order)
{
	uintptr_t off = (uintptr_t)ptr - a->base;
	struct sluice_dma_priv_arena_chunk *c = &a->chunks[off >> SLUICE_DMA_ARENA_CHUNK_SHIFT];

	chunk_free(a, c, (unsigned int)(off >> SLUICE_DMA_ARENA_PAGE_SHIFT) & (CHUNK_PAGES - 1),
		   order);
}

/* ---- active list --------------------------------------------------------- */

static void active_add(struct sluice_dma_arena *a, unsigned int ci)
{
	a->active[a->nactive++] = (uint16_t)ci;
}

static void active_remove_at(struct sluice_dma_arena *a, unsigned int i)
{
	a->active[i] = a->active[--a->nactive];
}

/* ---- per-CPU caches ------------------------------------------------------ */

/* Push the @n oldest (bottom) blocks of order @o back to the buddy lists. */
static void cache_spill(struct sluice_dma_arena *a, struct sluice_dma_priv_arena_cpu *cpu,
			unsigned int o, unsigned int n)
{
	unsigned int count = __atomic_load_n(&cpu->count[o], __ATOMIC_RELAXED);

	for (unsigned int i = 0; i < n; i++)
		block_free_locked(a, cpu->stack[o][i], o);
	for (unsigned int i = n; i < count; i++)
		cpu->stack[o][i - n] = cpu->stack[o][i];
	__atomic_store_n(&cpu->count[o], (uint16_t)(count - n), __ATOMIC_RELAXED);
}

static void cache_drain_one(struct sluice_dma_arena *a, struct sluice_dma_priv_arena_cpu *cpu)
{
	bool any = false;

	arena_lock(a, &cpu->lock);
	for (unsigned int o = 0; o < SLUICE_DMA_ARENA_CACHE_ORDERS; o++)
		any |= __atomic_load_n(&cpu->count[o], __ATOMIC_RELAXED) != 0;
	if (any) {
		arena_lock(a, &a->lock);
		for (unsigned int o = 0; o < SLUICE_DMA_ARENA_CACHE_ORDERS; o++)
			cache_spill(a, cpu, o,
				    __atomic_load_n(&cpu->count[o], __ATOMIC_RELAXED));
		arena_unlock(a, &a->lock);
		cpu->ctr.cache_drains++;
	}
	arena_unlock(a, &cpu->lock);
}

static void cache_drain_all(struct sluice_dma_arena *a)
{
	for (unsigned int i = 0; i < a->ncpus; i++)
		cache_drain_one(a, &a->cpus[i]);
}

/* Racy count of the pages parked in CPU caches: a hint, not a fact. */
static size_t cache_pages_estimate(const struct sluice_dma_arena *a)
{
	size_t pages = 0;

	for (unsigned int i = 0; i < a->ncpus; i++)
		for (unsigned int o = 0; o < SLUICE_DMA_ARENA_CACHE_ORDERS; o++)
			pages += (size_t)__atomic_load_n(&a->cpus[i].count[o], __ATOMIC_RELAXED)
				 << o;
	return pages;
}

/* ---- global allocation (arena lock held) --------------------------------- */

static void *search_alloc(struct sluice_dma_arena *a, unsigned int order)
{
	struct sluice_dma_priv_arena_chunk *best = NULL;
	unsigned int best_order = SLUICE_DMA_ARENA_NR_ORDERS, best_free = CHUNK_PAGES + 1;

	for (unsigned int i = 0; i < a->nactive; i++) {
		struct sluice_dma_priv_arena_chunk *c = &a->chunks[a->active[i]];
		unsigned int m = c->avail >> order, o;

		a->search_steps++;
		if (!m)
			continue;
		o = order + (unsigned int)__builtin_ctz(m);
		if (o < best_order || (o == best_order && c->free_pages < best_free)) {
			best = c;
			best_order = o;
			best_free = c->free_pages;
		}
	}
	return best ? chunk_alloc(a, best, order) : NULL;
}

static int pick_private_chunk(struct sluice_dma_arena *a)
{
	/*
	 * Round robin from the last conversion: after a failed set_shared the next
	 * attempt tries another chunk rather than hammering the same one.
	 */
	for (unsigned int i = 0; i < a->nchunks; i++) {
		unsigned int ci = (a->cursor + i) % a->nchunks;

		if (chunk_state_get(&a->chunks[ci]) == CHUNK_PRIVATE) {
			a->cursor = (ci + 1) % a->nchunks;
			return (int)ci;
		}
	}
	return -1;
}

/*
 * Convert one more chunk and allocate from it. Called and returns with the
 * arena lock held, but drops it around the conversion and the initial scrub.
 */
static void *convert_alloc(struct sluice_dma_arena *a, unsigned int order)
{
	struct sluice_dma_priv_arena_chunk *c;
	uint64_t t0, t1, t2;
	void *base;
	int ci, rc;

	if (a->nshared + a->nconverting >= a->cap) {
		a->cap_hits++;
		return NULL;
	}
	ci = pick_private_chunk(a);
	if (ci < 0)
		return NULL;
	c = &a->chunks[ci];
	chunk_state_set(c, CHUNK_CONVERTING);
	a->nconverting++;
	arena_unlock(a, &a->lock);

	base = (void *)chunk_base(a, c);
	t0 = arena_cycles(a);
	rc = a->ops.set_shared(a->ops.ctx, base, SLUICE_DMA_ARENA_CHUNK_SIZE);
	t1 = arena_cycles(a);
	if (!rc)
		__builtin_memset(base, 0, SLUICE_DMA_ARENA_CHUNK_SIZE);
	t2 = arena_cycles(a);

	arena_lock(a, &a->lock);
	a->nconverting--;
	if (rc) {
		/* The port promises nothing of the range stayed shared: still private. */
		chunk_state_set(c, CHUNK_PRIVATE);
		a->to_shared_failed++;
		sluice_dma_priv_logf(arena_ops(a), SLUICE_DMA_LOG_WARN,
				     "sluice_dma_arena: set_shared failed on chunk %p err %d", base, rc);
		return NULL;
	}
	a->to_shared++;
	a->to_shared_cycles += t1 - t0;
	a->ctr.bytes_scrubbed += SLUICE_DMA_ARENA_CHUNK_SIZE;
	a->ctr.scrub_cycles += t2 - t1;
	a->nshared++;
	if (a->nshared > a->hiwater)
		a->hiwater = a->nshared;
	chunk_reset(c);
	chunk_state_set(c, CHUNK_SHARED);
	active_add(a, (unsigned int)ci);
	/* Still under the lock since CHUNK_SHARED: nobody took its space first. */
	return chunk_alloc(a, c, order);
}

static void *alloc_slow(struct sluice_dma_arena *a, unsigned int order)
{
	bool drained = false;
	void *p;

	arena_lock(a, &a->lock);
	for (;;) {
		p = search_alloc(a, order);
		if (p)
			break;
		/*
		 * Blocks parked in CPU caches may be all that stands between the
		 * buddies and a merged block big enough (even one cached 4 KiB
		 * block keeps a chunk from merging to 2 MB). Draining (a few
		 * locks) is far cheaper than converting one more chunk, and
		 * exposes nothing new to the host. It happens only when the
		 * shared chunks have no room, i.e. right before a conversion
		 * or a failure. Caches before the arena lock: drop it.
		 */
		if (!drained && cache_pages_estimate(a)) {
			arena_unlock(a, &a->lock);
			cache_drain_all(a);
			drained = true;
			arena_lock(a, &a->lock);
			continue;
		}
		p = convert_alloc(a, order);
		break;
	}
	if (p) {
		a->ctr.cache_misses++;
		a->ctr.allocs++;
		a->ctr.bytes_allocated += SLUICE_DMA_ARENA_MIN_BLOCK << order;
	} else {
		a->alloc_failed++;
	}
	arena_unlock(a, &a->lock);
	return p;
}

/* ---- public API ---------------------------------------------------------- */

/* The region and CPU count sluice_dma_arena_init() accepts (the base is checked there). */
static bool arena_geometry_ok(size_t len, unsigned int ncpus)
{
	return len && !(len & (SLUICE_DMA_ARENA_CHUNK_SIZE - 1)) &&
	       (len >> SLUICE_DMA_ARENA_CHUNK_SHIFT) <= SLUICE_DMA_ARENA_MAX_CHUNKS && ncpus &&
	       ncpus <= SLUICE_DMA_ARENA_MAX_CPUS;
}

/* Whether [a, a + alen) and [b, b + blen) share a byte (neither wraps). */
static bool ranges_overlap(uintptr_t a, size_t alen, uintptr_t b, size_t blen)
{
	return a < b + blen && b < a + alen;
}

size_t sluice_dma_arena_meta_size(size_t len, unsigned int ncpus)
{
	return arena_geometry_ok(len, ncpus) ? SLUICE_DMA_ARENA_META_SIZE(len, ncpus) : 0;
}

int sluice_dma_arena_init(struct sluice_dma_arena *arena, const struct sluice_dma_port_ops *ops,
			  const struct sluice_dma_arena_config *cfg)
{
	uintptr_t base, meta;
	size_t nchunks;

	if (!arena || !ops || !cfg)
		return SLUICE_DMA_ERR_INVAL;
	if (!ops->set_shared || !ops->set_private || !ops->virt_to_dma)
		return SLUICE_DMA_ERR_INVAL;
	if (!ops->lock != !ops->unlock)
		return SLUICE_DMA_ERR_INVAL;
	if (cfg->flags & ~SLUICE_DMA_ARENA_STRICT)
		return SLUICE_DMA_ERR_INVAL;
	base = (uintptr_t)cfg->base;
	nchunks = cfg->len >> SLUICE_DMA_ARENA_CHUNK_SHIFT;
	if (!base || (base & (SLUICE_DMA_ARENA_CHUNK_SIZE - 1)) ||
	    !arena_geometry_ok(cfg->len, cfg->ncpus) || base + cfg->len < base)
		return SLUICE_DMA_ERR_INVAL;
	if (!cfg->meta || cfg->meta_len < sluice_dma_arena_meta_size(cfg->len, cfg->ncpus) ||
	    (uintptr_t)cfg->meta + cfg->meta_len < (uintptr_t)cfg->meta)
		return SLUICE_DMA_ERR_INVAL;
	/*
	 * The region becomes shared: free lists or the ops table (function
	 * pointers) kept inside it could be forged by the host.
	 */
	if (ranges_overlap(base, cfg->len, (uintptr_t)cfg->meta, cfg->meta_len) ||
	    ranges_overlap(base, cfg->len, (uintptr_t)arena, sizeof(*arena)))
		return SLUICE_DMA_ERR_INVAL;

	__builtin_memset(arena, 0, sizeof(*arena));
	__builtin_memset(cfg->meta, 0, cfg->meta_len);
	arena->ops = *ops;
	arena->base = base;
	arena->len = cfg->len;
	arena->nchunks = (unsigned int)nchunks;
	arena->ncpus = cfg->ncpus;
	arena->flags = cfg->flags;
	arena->cap = cfg->max_shared && cfg->max_shared < nchunks ? cfg->max_shared
								   : (unsigned int)nchunks;

	meta = ((uintptr_t)cfg->meta + 63) & ~(uintptr_t)63;
	arena->cpus = (struct sluice_dma_priv_arena_cpu *)meta;
	meta += cfg->ncpus * sizeof(struct sluice_dma_priv_arena_cpu);
	arena->chunks = (struct sluice_dma_priv_arena_chunk *)meta;
	meta += nchunks * sizeof(struct sluice_dma_priv_arena_chunk);
	arena->active = (uint16_t *)meta;

	/* Zeroed memory is CHUNK_PRIVATE with empty caches; only locks need more. */
	dma_port_lock_init(&arena->ops, &arena->lock);
	for (unsigned int i = 0; i < cfg->ncpus; i++)
		dma_port_lock_init(&arena->ops, &arena->cpus[i].lock);
	return 0;
}

void *sluice_dma_arena_alloc(struct sluice_dma_arena *arena, size_t size)
{
	struct sluice_dma_priv_arena_cpu *cpu;
	unsigned int order, n;
	void *p;

	/* Not initialised (zeroed storage has no chunks): nothing to count in. */
	if (!arena || !arena->nchunks)
		return NULL;
	if (!size || size > SLUICE_DMA_ARENA_MAX_BLOCK) {
		arena_lock(arena, &arena->lock);
		arena->alloc_failed++;
		arena_unlock(arena, &arena->lock);
		return NULL;
	}
	order = size_to_order(size);
	if (order >= SLUICE_DMA_ARENA_CACHE_ORDERS)
		return alloc_slow(arena, order);

	cpu = &arena->cpus[arena_this_cpu(arena)];
	arena_lock(arena, &cpu->lock);
	n = __atomic_load_n(&cpu->count[order], __ATOMIC_RELAXED);
	if (!n) {
		arena_unlock(arena, &cpu->lock);
		return alloc_slow(arena, order);
	}
	p = cpu->stack[order][n - 1];
	__atomic_store_n(&cpu->count[order], (uint16_t)(n - 1), __ATOMIC_RELAXED);
	{
		uintptr_t off = (uintptr_t)p - arena->base;
		struct sluice_dma_priv_arena_chunk *c =
			&arena->chunks[off >> SLUICE_DMA_ARENA_CHUNK_SHIFT];

		tag_set(c, (unsigned int)(off >> SLUICE_DMA_ARENA_PAGE_SHIFT) & (CHUNK_PAGES - 1),
			tag_make(BLK_LIVE, order));
	}
	cpu->ctr.cache_hits++;
	cpu->ctr.allocs++;
	cpu->ctr.bytes_allocated += SLUICE_DMA_ARENA_MIN_BLOCK << order;
	arena_unlock(arena, &cpu->lock);
	return p;
}

/*
 * Find the block containing @p: walk the aligned candidates upwards; the first
 * head found is the block (pages strictly inside a block carry tag 0).
 */
static bool find_block(const struct sluice_dma_arena *a, uintptr_t p,
		       const struct sluice_dma_priv_arena_chunk **cp, unsigned int *headp,
		       uint8_t *tagp)
{
	uintptr_t off;
	const struct sluice_dma_priv_arena_chunk *c;
	unsigned int page;

	if (!a)
		return false;
	off = p - a->base;
	if (p < a->base || off >= a->len)
		return false;
	c = &a->chunks[off >> SLUICE_DMA_ARENA_CHUNK_SHIFT];
	if (chunk_state_get(c) != CHUNK_SHARED)
		return false;
	page = (unsigned int)(off >> SLUICE_DMA_ARENA_PAGE_SHIFT) & (CHUNK_PAGES - 1);
	for (unsigned int o = 0; o <= MAX_ORDER; o++) {
		unsigned int h = page & ~((1u << o) - 1);
		uint8_t tag = tag_get(c, h);

		if (!(tag & TAG_HEAD))
			continue;
		if (tag_order(tag) < o)
			return false;	/* torn read under concurrent change */
		*cp = c;
		*headp = h;
		*tagp = tag;
		return true;
	}
	return false;
}

bool sluice_dma_arena_owns(const struct sluice_dma_arena *arena, const void *vaddr, size_t len)
{
	const struct sluice_dma_priv_arena_chunk *c;
	uintptr_t p = (uintptr_t)vaddr, start;
	unsigned int head;
	uint8_t tag;

	if (!len)
		len = 1;
	if (!find_block(arena, p, &c, &head, &tag) || tag_state(tag) != BLK_LIVE)
		return false;
	start = (uintptr_t)page_addr(arena, c, head);
	return len <= (SLUICE_DMA_ARENA_MIN_BLOCK << tag_order(tag)) - (p - start);
}

bool sluice_dma_arena_inplace_owns(void *ctx, const void *vaddr, size_t len)
{
	return sluice_dma_arena_owns(ctx, vaddr, len);
}

/*
 * The in-place hook's get: count one mapping in the block holding the range.
 * Counted first, checked second (sequentially consistent, against the claim
 * in sluice_dma_arena_free()): a free racing with this get either sees the
 * count and refuses, or has claimed the block and this get backs out.
 */
static bool arena_region_get(void *ctx, const void *vaddr, size_t len)
{
	struct sluice_dma_arena *a = ctx;
	const struct sluice_dma_priv_arena_chunk *cc;
	struct sluice_dma_priv_arena_chunk *c;
	unsigned int head;
	uint8_t tag;

	if (!sluice_dma_arena_owns(a, vaddr, len) || !find_block(a, (uintptr_t)vaddr, &cc, &head, &tag))
		return false;
	c = &a->chunks[cc - a->chunks];
	/* 65535 live mappings of one block: refuse the next rather than wrap. */
	if (__atomic_add_fetch(&c->maps[head], 1, __ATOMIC_SEQ_CST) == 0 ||
	    tag_state(__atomic_load_n(&c->tag[head], __ATOMIC_SEQ_CST)) != BLK_LIVE) {
		__atomic_sub_fetch(&c->maps[head], 1, __ATOMIC_SEQ_CST);
		return false;
	}
	return true;
}

static bool arena_region_put(void *ctx, const void *vaddr, size_t len)
{
	struct sluice_dma_arena *a = ctx;
	const struct sluice_dma_priv_arena_chunk *cc;
	struct sluice_dma_priv_arena_chunk *c;
	unsigned int head;
	uint8_t tag;
	uint16_t n;

	if (!sluice_dma_arena_owns(a, vaddr, len) || !find_block(a, (uintptr_t)vaddr, &cc, &head, &tag))
		return false;
	c = &a->chunks[cc - a->chunks];
	n = __atomic_load_n(&c->maps[head], __ATOMIC_RELAXED);
	do {
		if (!n)
			return false;
	} while (!__atomic_compare_exchange_n(&c->maps[head], &n, (uint16_t)(n - 1), true,
					      __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
	return true;
}

static void *arena_region_alloc(void *ctx, size_t size)
{
	return sluice_dma_arena_alloc(ctx, size);
}

/* Only a block of exactly the size an allocation of @size gets. */
static int arena_region_free(void *ctx, void *vaddr, size_t size)
{
	struct sluice_dma_arena *a = ctx;
	size_t bs = sluice_dma_arena_block_size(a, vaddr);

	if (!bs)
		return SLUICE_DMA_ERR_NOENT;
	if (!size || size > bs || (bs > SLUICE_DMA_ARENA_MIN_BLOCK && size <= bs / 2))
		return SLUICE_DMA_ERR_INVAL;
	return sluice_dma_arena_free(a, vaddr);
}

void sluice_dma_arena_region(struct sluice_dma_inplace_region *region,
			     struct sluice_dma_arena *arena)
{
	if (!region)
		ARENA_BUG(arena, "sluice_dma_arena_region: NULL region for arena %p", (void *)arena);
	region->owns = sluice_dma_arena_inplace_owns;
	region->ctx = arena;
	region->get = arena_region_get;
	region->put = arena_region_put;
	region->alloc = arena_region_alloc;
	region->free = arena_region_free;
}

bool sluice_dma_arena_is_shared(const struct sluice_dma_arena *arena, const void *vaddr, size_t len)
{
	uintptr_t p = (uintptr_t)vaddr, off, last;

	if (!arena)
		return false;
	off = p - arena->base;
	if (!len)
		len = 1;
	if (p < arena->base || off >= arena->len || len > arena->len - off)
		return false;
	last = off + len - 1;
	for (uintptr_t ci = off >> SLUICE_DMA_ARENA_CHUNK_SHIFT;
	     ci <= last >> SLUICE_DMA_ARENA_CHUNK_SHIFT; ci++)
		if (chunk_state_get(&arena->chunks[ci]) != CHUNK_SHARED)
			return false;
	return true;
}

size_t sluice_dma_arena_block_size(const struct sluice_dma_arena *arena, const void *ptr)
{
	const struct sluice_dma_priv_arena_chunk *c;
	unsigned int head;
	uint8_t tag;

	if (!find_block(arena, (uintptr_t)ptr, &c, &head, &tag) || tag_state(tag) != BLK_LIVE ||
	    page_addr(arena, c, head) != ptr)
		return 0;
	return SLUICE_DMA_ARENA_MIN_BLOCK << tag_order(tag);
}

uint64_t sluice_dma_arena_dma_addr(const struct sluice_dma_arena *arena, const void *vaddr)
{
	if (!sluice_dma_arena_owns(arena, vaddr, 1))
		ARENA_BUG(arena, "sluice_dma_arena_dma_addr: not inside a live arena block: %p",
			  vaddr);
	return arena->ops.virt_to_dma(arena->ops.ctx, vaddr);
}

int sluice_dma_arena_free(struct sluice_dma_arena *arena, void *ptr)
{
	struct sluice_dma_priv_arena_chunk *c;
	struct sluice_dma_priv_arena_cpu *cpu;
	uintptr_t p = (uintptr_t)ptr, off;
	unsigned int page, order, n;
	uint8_t tag;
	uint64_t t0, t1;
	size_t size;

	if (!arena || !arena->ncpus)
		return ARENA_REFUSE(arena, SLUICE_DMA_ERR_INVAL,
				    "sluice_dma_arena_free: no arena; block %p", ptr);
	off = p - arena->base;
	if (!ptr)
		return 0;
	if (p < arena->base || off >= arena->len || (p & (SLUICE_DMA_ARENA_MIN_BLOCK - 1)))
		return ARENA_REFUSE(arena, SLUICE_DMA_ERR_NOENT,
				    "sluice_dma_arena_free: not a block start in the arena: %p", ptr);
	c = &arena->chunks[off >> SLUICE_DMA_ARENA_CHUNK_SHIFT];
	page = (unsigned int)(off >> SLUICE_DMA_ARENA_PAGE_SHIFT) & (CHUNK_PAGES - 1);
	tag = tag_get(c, page);
	if (chunk_state_get(c) != CHUNK_SHARED || !(tag & TAG_HEAD) || tag_state(tag) != BLK_LIVE)
		return ARENA_REFUSE(arena, SLUICE_DMA_ERR_NOENT,
				    "sluice_dma_arena_free: not a live block (double free?): %p", ptr);
	/*
	 * Claim the block: of two racing frees of it, exactly one gets past
	 * here. Sequentially consistent, as the in-place get: a get that
	 * counts a mapping after this claim sees FREEING and backs out, and
	 * this free sees any mapping counted before it (Dekker's pattern).
	 */
	if (!__atomic_compare_exchange_n(&c->tag[page], &tag, tag_make(BLK_FREEING, tag_order(tag)),
					 false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
		return ARENA_REFUSE(arena, SLUICE_DMA_ERR_NOENT,
				    "sluice_dma_arena_free: concurrent free of %p", ptr);
	/*
	 * A block a device may still be using (mapped in place and not
	 * unmapped) must not be scrubbed and handed to someone else: refuse
	 * here, where the caller's bug is, not at the later unmap.
	 */
	if (__atomic_load_n(&c->maps[page], __ATOMIC_SEQ_CST)) {
		tag_set(c, page, tag);
		return ARENA_REFUSE(arena, SLUICE_DMA_ERR_BUSY,
				    "sluice_dma_arena_free: block still mapped in place: %p", ptr);
	}
	order = tag_order(tag);
	size = SLUICE_DMA_ARENA_MIN_BLOCK << order;

	if (order >= SLUICE_DMA_ARENA_CACHE_ORDERS) {
		/* Scrub outside every lock: the next user sees zeros, never our bytes. */
		t0 = arena_cycles(arena);
		__builtin_memset(ptr, 0, size);
		t1 = arena_cycles(arena);
		arena_lock(arena, &arena->lock);
		chunk_free(arena, c, page, order);
		arena->ctr.frees++;
		arena->ctr.bytes_freed += size;
		arena->ctr.bytes_scrubbed += size;
		arena->ctr.scrub_cycles += t1 - t0;
		arena_unlock(arena, &arena->lock);
		return 0;
	}

	cpu = &arena->cpus[arena_this_cpu(arena)];
	/*
	 * Scrub outside every lock. A clock read costs about a third of a 4 KiB
	 * scrub here (rdtsc ~12 ns against ~37 ns), so only one scrub in
	 * ARENA_SCRUB_SAMPLE is timed and scrub_cycles is scaled from those:
	 * an estimate, unbiased for a steady mix of sizes. The sample choice
	 * reads this CPU's free count without its lock; a stale value only
	 * moves the sample.
	 */
	if (!(__atomic_load_n(&cpu->ctr.frees, __ATOMIC_RELAXED) & (ARENA_SCRUB_SAMPLE - 1))) {
		t0 = arena_cycles(arena);
		__builtin_memset(ptr, 0, size);
		t1 = t0 + (arena_cycles(arena) - t0) * ARENA_SCRUB_SAMPLE;
	} else {
		__builtin_memset(ptr, 0, size);
		t0 = t1 = 0;
	}

	arena_lock(arena, &cpu->lock);
	n = __atomic_load_n(&cpu->count[order], __ATOMIC_RELAXED);
	if (n == SLUICE_DMA_ARENA_CACHE_DEPTH) {
		/* Spill the coldest half in one lock hold, not one block per free. */
		arena_lock(arena, &arena->lock);
		cache_spill(arena, cpu, order, SLUICE_DMA_ARENA_CACHE_DEPTH / 2);
		arena_unlock(arena, &arena->lock);
		cpu->ctr.cache_flushes++;
		n -= SLUICE_DMA_ARENA_CACHE_DEPTH / 2;
	}
	tag_set(c, page, tag_make(BLK_CACHED, order));
	cpu->stack[order][n] = ptr;
	__atomic_store_n(&cpu->count[order], (uint16_t)(n + 1), __ATOMIC_RELAXED);
	cpu->ctr.frees++;
	cpu->ctr.bytes_freed += size;
	cpu->ctr.bytes_scrubbed += size;
	cpu->ctr.scrub_cycles += t1 - t0;
	arena_unlock(arena, &cpu->lock);
	return 0;
}

unsigned int sluice_dma_arena_reclaim(struct sluice_dma_arena *arena, unsigned int min_idle)
{
	unsigned int list = NO_PAGE, released = 0;

	if (!arena || !arena->nchunks)
		return 0;
	cache_drain_all(arena);

	arena_lock(arena, &arena->lock);
	arena->reclaim_passes++;
	for (unsigned int i = 0; i < arena->nactive;) {
		unsigned int ci = arena->active[i];
		struct sluice_dma_priv_arena_chunk *c = &arena->chunks[ci];

		if (c->free_pages != CHUNK_PAGES || ++c->idle_passes <= min_idle) {
			i++;
			continue;
		}
		/* Out of the search before the lock drops: nobody allocates from it. */
		chunk_state_set(c, CHUNK_RELEASING);
		active_remove_at(arena, i);
		c->next_release = (uint16_t)list;
		list = ci;
	}
	arena_unlock(arena, &arena->lock);

	while (list != NO_PAGE) {
		struct sluice_dma_priv_arena_chunk *c = &arena->chunks[list];
		void *base = (void *)chunk_base(arena, c);
		uint64_t t0, t1;
		int rc;

		list = c->next_release;
		t0 = arena_cycles(arena);
		rc = arena->ops.set_private(arena->ops.ctx, base, SLUICE_DMA_ARENA_CHUNK_SIZE);
		t1 = arena_cycles(arena);

		arena_lock(arena, &arena->lock);
		if (!rc) {
			chunk_state_set(c, CHUNK_PRIVATE);
			arena->nshared--;
			arena->to_private++;
			arena->to_private_cycles += t1 - t0;
			released++;
		} else {
			/*
			 * Leak it. We cannot tell which of its pages are still
			 * shared (a conversion may stop half way), so it can be
			 * neither private memory again (the host may still read
			 * what we would put there) nor arena memory (a device
			 * access to a page that did turn private faults). It
			 * keeps counting against the cap: the host can see it.
			 */
			chunk_state_set(c, CHUNK_LEAKED);
			arena->nleaked++;
			arena->to_private_failed++;
			sluice_dma_priv_logf(arena_ops(arena), SLUICE_DMA_LOG_WARN,
					     "sluice_dma_arena: set_private failed, chunk leaked: %p "
					     "err %d",
					     base, rc);
		}
		arena_unlock(arena, &arena->lock);
	}
	return released;
}

static void sum_counters(struct sluice_dma_priv_arena_counters *sum,
			 const struct sluice_dma_priv_arena_counters *c)
{
	sum->allocs += c->allocs;
	sum->frees += c->frees;
	sum->bytes_allocated += c->bytes_allocated;
	sum->bytes_freed += c->bytes_freed;
	sum->cache_hits += c->cache_hits;
	sum->cache_misses += c->cache_misses;
	sum->cache_flushes += c->cache_flushes;
	sum->cache_drains += c->cache_drains;
	sum->bytes_scrubbed += c->bytes_scrubbed;
	sum->scrub_cycles += c->scrub_cycles;
}

void sluice_dma_arena_get_stats(struct sluice_dma_arena *arena, struct sluice_dma_arena_stats *st)
{
	struct sluice_dma_priv_arena_counters sum = { 0 };
	uint64_t cached = 0;

	if (!arena)
		ARENA_BUG(arena, "sluice_dma_arena_get_stats: NULL arena %p", (void *)arena);
	if (!st)
		ARENA_BUG(arena, "sluice_dma_arena_get_stats: NULL st for arena %p", (void *)arena);
	for (unsigned int i = 0; i < arena->ncpus; i++) {
		struct sluice_dma_priv_arena_cpu *cpu = &arena->cpus[i];

		arena_lock(arena, &cpu->lock);
		sum_counters(&sum, &cpu->ctr);
		for (unsigned int o = 0; o < SLUICE_DMA_ARENA_CACHE_ORDERS; o++)
			cached += __atomic_load_n(&cpu->count[o], __ATOMIC_RELAXED);
		arena_unlock(arena, &cpu->lock);
	}

	__builtin_memset(st, 0, sizeof(*st));
	arena_lock(arena, &arena->lock);
	sum_counters(&sum, &arena->ctr);
	st->region_bytes = arena->len;
	st->nchunks = arena->nchunks;
	st->ncpus = arena->ncpus;
	st->chunks_cap = arena->cap;
	st->chunks_shared = arena->nshared;
	st->chunks_hiwater = arena->hiwater;
	st->chunks_leaked = arena->nleaked;
	st->to_shared = arena->to_shared;
	st->to_shared_cycles = arena->to_shared_cycles;
	st->to_shared_failed = arena->to_shared_failed;
	st->to_private = arena->to_private;
	st->to_private_cycles = arena->to_private_cycles;
	st->to_private_failed = arena->to_private_failed;
	st->alloc_failed = arena->alloc_failed;
	st->cap_hits = arena->cap_hits;
	st->search_steps = arena->search_steps;
	st->splits = arena->splits;
	st->merges = arena->merges;
	st->reclaim_passes = arena->reclaim_passes;
	arena_unlock(arena, &arena->lock);

	st->allocs = sum.allocs;
	st->frees = sum.frees;
	st->blocks_live = sum.allocs - sum.frees;
	st->bytes_live = sum.bytes_allocated - sum.bytes_freed;
	st->blocks_cached = cached;
	st->cache_hits = sum.cache_hits;
	st->cache_misses = sum.cache_misses;
	st->cache_flushes = sum.cache_flushes;
	st->cache_drains = sum.cache_drains;
	st->bytes_scrubbed = sum.bytes_scrubbed;
	st->scrub_cycles = sum.scrub_cycles;
}

int sluice_dma_arena_fini(struct sluice_dma_arena *arena)
{
	struct sluice_dma_arena_stats st;

	if (!arena || !arena->nchunks)
		return SLUICE_DMA_ERR_INVAL;
	cache_drain_all(arena);
	sluice_dma_arena_get_stats(arena, &st);
	if (st.blocks_live)
		return SLUICE_DMA_ERR_BUSY;
	sluice_dma_arena_reclaim(arena, 0);
	return arena->nleaked ? SLUICE_DMA_ERR_IO : 0;
}

void sluice_dma_arena_print_stats(struct sluice_dma_arena *arena, const char *prefix)
{
	const struct sluice_dma_port_ops *ops = arena_ops(arena);
	struct sluice_dma_arena_stats st;

	/* Nothing to print with, as sluice_dma_stats_print() for a NULL layer. */
	if (!arena)
		return;
	sluice_dma_arena_get_stats(arena, &st);
	if (!prefix)
		prefix = "arena";
	sluice_dma_priv_logf(ops, SLUICE_DMA_LOG_INFO,
			     "%s: region_bytes %llu chunks %u cap %u cpus %u shared %u hiwater %u "
			     "leaked %u",
			     prefix, (unsigned long long)st.region_bytes, st.nchunks, st.chunks_cap,
			     st.ncpus, st.chunks_shared, st.chunks_hiwater, st.chunks_leaked);
	sluice_dma_priv_logf(ops, SLUICE_DMA_LOG_INFO,
			     "%s: to_shared %llu cycles %llu failed %llu to_private %llu cycles %llu "
			     "failed %llu",
			     prefix, (unsigned long long)st.to_shared,
			     (unsigned long long)st.to_shared_cycles,
			     (unsigned long long)st.to_shared_failed, (unsigned long long)st.to_private,
			     (unsigned long long)st.to_private_cycles,
			     (unsigned long long)st.to_private_failed);
	sluice_dma_priv_logf(ops, SLUICE_DMA_LOG_INFO,
			     "%s: allocs %llu failed %llu cap_hits %llu frees %llu live %llu "
			     "live_bytes %llu cached %llu",
			     prefix, (unsigned long long)st.allocs, (unsigned long long)st.alloc_failed,
			     (unsigned long long)st.cap_hits, (unsigned long long)st.frees,
			     (unsigned long long)st.blocks_live, (unsigned long long)st.bytes_live,
			     (unsigned long long)st.blocks_cached);
	sluice_dma_priv_logf(ops, SLUICE_DMA_LOG_INFO,
			     "%s: hits %llu misses %llu flushes %llu drains %llu search_steps %llu "
			     "splits %llu merges %llu",
			     prefix, (unsigned long long)st.cache_hits,
			     (unsigned long long)st.cache_misses, (unsigned long long)st.cache_flushes,
			     (unsigned long long)st.cache_drains, (unsigned long long)st.search_steps,
			     (unsigned long long)st.splits, (unsigned long long)st.merges);
	sluice_dma_priv_logf(ops, SLUICE_DMA_LOG_INFO,
			     "%s: scrubbed_bytes %llu scrub_cycles %llu reclaim_passes %llu", prefix,
			     (unsigned long long)st.bytes_scrubbed, (unsigned long long)st.scrub_cycles,
			     (unsigned long long)st.reclaim_passes);
}

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
			c->next_release = 0;	/* mark: not yet seen in the active list */
			break;
		case CHUNK_LEAKED:
			nleaked++;
			break;
		default:
			return check_fail(a, "chunk in transition (arena not quiescent):",
					  chunk_base(a, c));
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

		sum_counters(&sum, &cpu->ctr);
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

	sum_counters(&sum, &a->ctr);
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
	if (a->to_shared - a->to_private != a->nshared)
		return check_fail(a, "to_shared - to_private != shared chunks:", a->nshared);
	if (a->nleaked != nleaked || a->to_private_failed != nleaked)
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
