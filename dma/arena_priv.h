/* SPDX-License-Identifier: MIT */
/*
 * arena_priv.h - what the arena's files share (arena.c: the API, allocation
 * and release; arena_buddy.c: the buddy lists of one chunk; arena_stats.c:
 * counters and their report; arena_check.c: the self-check). Not a public
 * header: the structs themselves are in <sluice/arena.h> so that callers can
 * size them.
 *
 * Locking: one lock per CPU cache, one arena lock for the buddy lists and the
 * counters. Order: CPU cache lock, then arena lock. Under an exclusive port
 * (arena_exclusive()) the owner uses its cache without that lock; other CPUs
 * then never touch it while the arena is live, they set its drain_req. No lock is held across
 * set_shared / set_private (the port's contract); a chunk being converted is
 * in a transitional state that keeps everyone else away from it. Block tags,
 * chunk states and cache counts are read and written only through the
 * __atomic builtins because sluice_dma_arena_owns() and sluice_dma_arena_free()
 * read them without the arena lock (plain fields in the public header; see
 * there for why they are not _Atomic).
 */
#ifndef SLUICE_DMA_ARENA_PRIV_H
#define SLUICE_DMA_ARENA_PRIV_H

#include <sluice/arena.h>
#include <sluice/dma.h>

#include <stdalign.h>

#include "dma/arith.h"
#include "dma/log.h"
#include "dma/port.h"

#define CHUNK_PAGES SLUICE_DMA_ARENA_CHUNK_PAGES
#define MAX_ORDER (SLUICE_DMA_ARENA_NR_ORDERS - 1)
#define NO_PAGE 0xffffu
/*
 * A caller that finds no room while a chunk is being converted waits for it:
 * at most this many times per call, each for at most ARENA_WAIT_SPINS
 * relax hints (a few milliseconds), then it converts a chunk itself.
 */
#define ARENA_CONVERSION_WAITS 8u
#define ARENA_WAIT_SPINS (1ul << 20)
/* One scrub in this many (a power of two) of the cached orders is timed. */
#define ARENA_SCRUB_SAMPLE 16u

/*
 * ARENA_FAST_PATH: the port's CPU index and zero can run inline
 * (SLUICE_DMA_PORT_INLINE names both), so arena_fast.c has a common alloc and
 * free that call nothing. ARENA_FAST, a bit of sluice_dma_arena.flags that no
 * caller may pass (init refuses unknown flags): set by init when this arena
 * may take them, decided once: its caches are their owners'
 * (SLUICE_DMA_ARENA_OWNED_CACHES) and its table holds the very functions the
 * inline bodies stand for; cleared by destroy.
 */
#if defined(SLUICE_DMA_INLINE_CPU_ID_FN) && defined(SLUICE_DMA_INLINE_ZERO_FN)
#define ARENA_FAST_PATH 1
#endif
#define ARENA_FAST 0x80000000u

/* Block tag of a head page: bit 7 head, bits 4..6 state, bits 0..3 order. */
#define TAG_HEAD 0x80u
#define TAG_STATE_SHIFT 4
#define TAG_STATE_MASK 0x70u
#define TAG_ORDER_MASK 0x0fu

enum blk_state {
	BLK_FREE = 1,	 /* in its chunk's buddy lists */
	BLK_LIVE = 2,	 /* handed out */
	BLK_FREEING = 3, /* sluice_dma_arena_free() in progress (scrubbing) */
	BLK_CACHED = 4,	 /* in a per-CPU cache */
	/*
	 * Handed out as a layer's coherent memory (arena_region.c): live, but
	 * only the region's free may free it. In the tag rather than only in
	 * the block's records, so that every free refuses it from the tag it
	 * loads anyway, and the claim's compare-and-swap, which expects the
	 * tag it checked, fails if the block became coherent in between.
	 */
	BLK_COHERENT = 5,
};

enum chunk_state {
	CHUNK_PRIVATE = 0,    /* never converted, or converted back */
	CHUNK_CONVERTING = 1, /* set_shared in flight */
	CHUNK_SHARED = 2,     /* in use by the allocator */
	CHUNK_RELEASING = 3,  /* set_private in flight */
	CHUNK_LEAKED = 4,     /* set_private failed: never touched again */
};

_Static_assert(CHUNK_PAGES == 512, "a chunk is 512 pages of 4 KiB");
_Static_assert(CHUNK_PAGES < NO_PAGE, "page indices must fit 16 bits with a sentinel");
_Static_assert(MAX_ORDER <= TAG_ORDER_MASK, "an order must fit the tag's order bits");
_Static_assert(BLK_COHERENT <= TAG_STATE_MASK >> TAG_STATE_SHIFT,
	       "a state must fit the tag's state bits");
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

/* Whether a block in state @state is handed out (to a caller or a layer). */
static inline bool blk_state_live(unsigned int state)
{
	return state == BLK_LIVE || state == BLK_COHERENT;
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

/*
 * Whether a CPU's cache is its owner's alone (SLUICE_DMA_ARENA_OWNED_CACHES,
 * which init accepts only from a port that promises exclusive CPU indices,
 * SLUICE_DMA_PORT_CPU_EXCLUSIVE: no two running callers share one, no call
 * interrupts another on the same CPU, and has locks). Then the owner pops and
 * pushes without the cache's lock, and another CPU that needs the cached
 * blocks asks for them (drain_req) instead of taking them.
 */
static inline bool arena_exclusive(const struct sluice_dma_arena *a)
{
	return a->flags & SLUICE_DMA_ARENA_OWNED_CACHES;
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

/*
 * A record of chunk.rec (arena_region.c): the in-place mappings of one exact
 * range that start in a page, or a coherent allocation at a block's head.
 * Bits 0..15 the mapping count, 16..27 the offset in the page, 28..49 the
 * length (at most 2 MB, 22 bits), 50..51 the direction of the mappings (an
 * enum sluice_dma_dir, API 0.8: one range mapped in two directions is two
 * records), bit 62 the coherent mark (then the length is the size the layer
 * asked for, the direction and the count are 0). 0 is an unused record.
 */
/* A record as the atomics see it: 8-byte aligned on every target (i386 too). */
typedef uint64_t arena_rec_t __attribute__((aligned(8)));
#define REC_COUNT_MASK 0xffffull
#define REC_OFF_SHIFT 16
#define REC_LEN_SHIFT 28
#define REC_DIR_SHIFT 50
#define REC_KEY_MASK (((1ull << 36) - 1) << REC_OFF_SHIFT)
#define REC_COHERENT (1ull << 62)
_Static_assert(SLUICE_DMA_ARENA_MAX_BLOCK < (1ull << 22), "a length fits 22 bits");
_Static_assert(__atomic_always_lock_free(sizeof(uint64_t), 0), "records must be lock-free");

/* The records of page @page of @c (written only through the __atomic builtins). */
static inline arena_rec_t *chunk_rec(const struct sluice_dma_priv_arena_chunk *c, unsigned int page)
{
	return (arena_rec_t *)(uintptr_t)c->rec[page];
}

/* The key of a range: @len at most 2 MB and @dir 0..3 (the callers check both). */
static inline uint64_t rec_key(uintptr_t off_in_page, size_t len, uint32_t dir)
{
	return (uint64_t)off_in_page << REC_OFF_SHIFT | (uint64_t)len << REC_LEN_SHIFT |
	       (uint64_t)dir << REC_DIR_SHIFT;
}

static inline uint32_t rec_dir(uint64_t r)
{
	return (uint32_t)(r >> REC_DIR_SHIFT) & 3;
}

static inline unsigned int rec_off(uint64_t r)
{
	return (unsigned int)(r >> REC_OFF_SHIFT) & 0xfff;
}

static inline size_t rec_len(uint64_t r)
{
	return (size_t)(r >> REC_LEN_SHIFT) & ((1u << 22) - 1);
}

/* ---- logging: the library's one path (log.h), every line prefixed -------- */

/* A programmer error: name the address, then stop before memory is corrupted. */
#define ARENA_BUG(a, fmt, ...) DMA_FAIL(arena_ops(a), "sluice_dma_arena: " fmt, __VA_ARGS__)

/*
 * A refused release: log the address, then trap on a strict arena or return
 * @err. Nothing has been changed when this is called.
 */
#define ARENA_REFUSE(a, err, fmt, ...)                                                             \
	sluice_dma_priv_refuse(arena_ops(a), (a) && ((a)->flags & SLUICE_DMA_ARENA_STRICT), (err), \
			       __FILE__, __LINE__, "sluice_dma_arena: " fmt, __VA_ARGS__)

/* arena_buddy.c: the buddy lists of one chunk; the arena lock is held. */
SLUICE_DMA_PRIV void sluice_dma_priv_arena_chunk_reset(struct sluice_dma_priv_arena_chunk *c);
SLUICE_DMA_PRIV void *sluice_dma_priv_arena_chunk_alloc(struct sluice_dma_arena *a,
							struct sluice_dma_priv_arena_chunk *c,
							unsigned int order);
SLUICE_DMA_PRIV void sluice_dma_priv_arena_chunk_free(struct sluice_dma_arena *a,
						      struct sluice_dma_priv_arena_chunk *c,
						      unsigned int page, unsigned int order);
SLUICE_DMA_PRIV void sluice_dma_priv_arena_block_free(struct sluice_dma_arena *a, void *ptr,
						      unsigned int order);

/* ---- the owner's side of its CPU cache (arena.c, arena_fast.c) ----------- */

/*
 * Pop the top block of order @order (@n of them) from @cpu's cache, which the
 * caller owns, tag it live and count its pop: the allocation, its bytes, its
 * hit and its scrubbed bytes are derived from that (arena_stats.c). Returns
 * the block; *@timed says whether its scrub, if the arena scrubs on alloc, is
 * the sampled one (one in ARENA_SCRUB_SAMPLE of its order reads the clock, as
 * on free).
 */
static inline __attribute__((always_inline)) void *cache_pop(struct sluice_dma_arena *a,
							     struct sluice_dma_priv_arena_cpu *cpu,
							     unsigned int order, unsigned int n,
							     bool *timed)
{
	void *p = cpu->stack[order][n - 1];
	uintptr_t off = (uintptr_t)p - a->base;
	struct sluice_dma_priv_arena_chunk *c = &a->chunks[off >> SLUICE_DMA_ARENA_CHUNK_SHIFT];
	uint64_t pops = cpu->pops[order] + 1;

	__atomic_store_n(&cpu->count[order], (uint16_t)(n - 1), __ATOMIC_RELAXED);
	tag_set(c, (unsigned int)(off >> SLUICE_DMA_ARENA_PAGE_SHIFT) & (CHUNK_PAGES - 1),
		tag_make(BLK_LIVE, order));
	cpu->pops[order] = pops;
	*timed = !(pops & (ARENA_SCRUB_SAMPLE - 1));
	return p;
}

/*
 * Push the claimed (and scrubbed) block @ptr, of order @order, at page @page
 * of @c, onto @cpu's cache, which the caller owns and which holds @n < DEPTH
 * blocks of that order, and count its push: the free, its bytes and its
 * scrubbed bytes are derived from that (arena_stats.c).
 */
static inline __attribute__((always_inline)) void
cache_push(struct sluice_dma_priv_arena_cpu *cpu, void *ptr, struct sluice_dma_priv_arena_chunk *c,
	   unsigned int page, unsigned int order, unsigned int n)
{
	tag_set(c, page, tag_make(BLK_CACHED, order));
	cpu->stack[order][n] = ptr;
	__atomic_store_n(&cpu->count[order], (uint16_t)(n + 1), __ATOMIC_RELAXED);
	cpu->pushes[order]++;
}

/*
 * Whether this free's scrub (@cpu's next push of order @order) is the sampled
 * one: its ARENA_SCRUB_SAMPLE-th of that order, and every one that many later
 * (the first ones are the fast path's). It reads the CPU's count without its
 * lock; a stale value only moves the sample.
 */
static inline bool arena_free_timed(const struct sluice_dma_priv_arena_cpu *cpu, unsigned int order)
{
	return (dma_peek_u64(&cpu->pushes[order]) & (ARENA_SCRUB_SAMPLE - 1)) ==
	       ARENA_SCRUB_SAMPLE - 1;
}

/*
 * arena.c: the block holding @p (lock-free); every alloc and free, of which
 * arena_fast.c takes the common case first (the free told whether the caller
 * is the region's coherent free, which may free a marked block); the sampled
 * scrub of an alloc from @cpu's cache; the refusals of a claimed free
 * (nothing changed when they are called).
 */
SLUICE_DMA_PRIV bool sluice_dma_priv_arena_find_block(const struct sluice_dma_arena *a, uintptr_t p,
						      const struct sluice_dma_priv_arena_chunk **cp,
						      unsigned int *headp, uint8_t *tagp);
SLUICE_DMA_PRIV void *sluice_dma_priv_arena_alloc(struct sluice_dma_arena *arena, size_t size);
SLUICE_DMA_PRIV int sluice_dma_priv_arena_free(struct sluice_dma_arena *arena, void *ptr,
					       bool coherent);
SLUICE_DMA_PRIV void *sluice_dma_priv_arena_alloc_scrub_timed(struct sluice_dma_arena *a,
							      struct sluice_dma_priv_arena_cpu *cpu,
							      void *p, size_t size);
SLUICE_DMA_PRIV int sluice_dma_priv_arena_refuse_mapped(struct sluice_dma_arena *arena,
							const void *ptr);
SLUICE_DMA_PRIV int sluice_dma_priv_arena_refuse_raced(struct sluice_dma_arena *arena,
						       const void *ptr);

/* What a claim found (arena_claim()). */
enum arena_claim {
	ARENA_CLAIMED = 0,  /* the block is FREEING, the free's to finish */
	ARENA_CLAIM_RACED,  /* another free (or a coherent alloc) came first */
	ARENA_CLAIM_MAPPED, /* mapped in place: the tag is put back */
};

/*
 * Claim the checked live block (@c, @page, @tag) for its free: ARENA_CLAIMED
 * with the block FREEING, or why not, with nothing changed. Every free makes
 * it (arena.c's, and arena_fast.c's common one); a failed claim is refused
 * with arena_claim_refusal().
 *
 * Of two racing frees of the block, exactly one gets past the
 * compare-and-swap, and neither if the block has meanwhile been freed and
 * handed out again as a layer's coherent memory: its tag then says
 * BLK_COHERENT, not the tag checked. Sequentially consistent, as the in-place
 * get: a get that counts a mapping after this claim sees FREEING and backs
 * out, and this free sees any mapping counted before it (Dekker's pattern).
 *
 * That ordering is a locked instruction, which waits for every older store
 * to leave the store buffer, the previous free's scrub included, and lets no
 * later load run before it. So a free does all it can before the claim (the
 * checks, the CPU, the sample choice), where it overlaps with that scrub, and
 * after it only the check a race decides: the in-place map count, which the
 * ordering is for.
 */
static inline __attribute__((always_inline)) enum arena_claim
arena_claim(struct sluice_dma_priv_arena_chunk *c, unsigned int page, uint8_t tag)
{
#ifdef SLUICE_DMA_BENCH_NO_CAS
	/*
	 * Only build/bench/bench_alloc_nocas defines it: the claim as a plain
	 * store, to measure what the compare-and-swap (the double-free
	 * guarantee between racing CPUs) costs. Wrong with two CPUs; no
	 * library, kernel or test build has it.
	 */
	tag_set(c, page, tag_make(BLK_FREEING, tag_order(tag)));
#else
	uint8_t want = tag;

	if (!__atomic_compare_exchange_n(&c->tag[page], &want,
					 tag_make(BLK_FREEING, tag_order(tag)), false,
					 __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
		return ARENA_CLAIM_RACED;
#endif
	/*
	 * A block a device may still be using (mapped in place and not
	 * unmapped) must not be scrubbed and handed to someone else: refuse
	 * it, where the caller's bug is, not at the later unmap.
	 */
	if (DMA_CHECKED(__atomic_load_n(&c->maps[page], __ATOMIC_SEQ_CST))) {
		tag_set(c, page, tag);
		return ARENA_CLAIM_MAPPED;
	}
	return ARENA_CLAIMED;
}

/* The refusal of a free of @ptr whose claim found @claim (not ARENA_CLAIMED). */
static inline __attribute__((always_inline)) int
arena_claim_refusal(struct sluice_dma_arena *arena, const void *ptr, enum arena_claim claim)
{
	return claim == ARENA_CLAIM_RACED ? sluice_dma_priv_arena_refuse_raced(arena, ptr) :
					    sluice_dma_priv_arena_refuse_mapped(arena, ptr);
}

/*
 * arena_stats.c: add the arena's global counters, or one CPU's (with what the
 * fast path leaves to be derived: its hits and its scrubbed bytes), to @sum.
 */
SLUICE_DMA_PRIV void
sluice_dma_priv_arena_counters_add(struct sluice_dma_priv_arena_counters *sum,
				   const struct sluice_dma_priv_arena_counters *c);
SLUICE_DMA_PRIV void
sluice_dma_priv_arena_cpu_counters_add(const struct sluice_dma_arena *a,
				       struct sluice_dma_priv_arena_counters *sum,
				       const struct sluice_dma_priv_arena_cpu *cpu);

#endif /* SLUICE_DMA_ARENA_PRIV_H */
