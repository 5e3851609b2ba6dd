/* SPDX-License-Identifier: MIT */
/*
 * arena.h - the 2 MB shared arena of the Sluice DMA layer (the DMA_PMD design: Luigi
 * Rizzo's RFC "DMA_PMD: PMD_SIZE-backed IO buffer pools", LKML).
 *
 * The caller hands the arena a 2 MB-aligned region of private memory and a
 * metadata area. The arena converts the region to shared one 2 MB chunk at a
 * time, when a chunk is first needed, with one set_shared call per chunk, and
 * splits chunks into power-of-two blocks of 4 KiB .. 2 MB. A block is shared
 * memory the device can reach directly: mapping it is a range check
 * (sluice_dma_arena_owns()), with no copy and no conversion.
 *
 * Arena blocks are shared memory: the host can read and write them at any time,
 * before, during and after the device's access. Data a device wrote into a
 * block is untrusted until the caller has copied it once into private memory;
 * check and use only the copy. Checking in place and using in place lets the
 * host change the bytes in between (and C code reading shared memory may read
 * a byte more than once). Anything written into a block is disclosed.
 *
 * This is not a general allocator: it never hands out private memory, never
 * allocates its own metadata, and never converts memory on the free path.
 * Idle chunks go back to private only when the caller asks (sluice_dma_arena_reclaim()).
 *
 * The structs below are in the header only so that a caller can embed or size
 * them; their fields are private to dma/arena.c. Fields that CPUs read without
 * a lock (block tags, chunk states, cache counts) are plain integers that
 * arena.c accesses only through the compiler's __atomic builtins rather than
 * C11 _Atomic: C++ has no _Atomic (before C++23), and a plain uint8_t or
 * uint16_t has the size and alignment of its atomic twin, so the layout, and
 * SLUICE_DMA_ARENA_META_SIZE(), are the same for C and C++ callers.
 *
 * Bad arguments follow the rules of <sluice/dma.h>: an error code, NULL, or 0 /
 * false from a query. A free of anything but a live block, or of a block
 * still mapped in place, is refused with an error and a log line naming the
 * address (the arena's config can ask for a trap instead, as a strict layer
 * does). A void function given a bad arena traps, with no log line when the
 * arena itself is NULL (it holds the log op). Zeroed storage that never went
 * through sluice_dma_arena_init() counts as "no arena" for every function.
 */
#ifndef SLUICE_DMA_ARENA_H
#define SLUICE_DMA_ARENA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sluice/dma_errors.h>
#include <sluice/dma_port.h>
#include <sluice/dma_version.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A chunk is one conversion unit: 2 MB, the x86-64 large-page size. */
#define SLUICE_DMA_ARENA_CHUNK_SHIFT 21
#define SLUICE_DMA_ARENA_CHUNK_SIZE ((size_t)1 << SLUICE_DMA_ARENA_CHUNK_SHIFT)
/* The smallest block is one 4 KiB page, the unit of a private/shared conversion. */
#define SLUICE_DMA_ARENA_PAGE_SHIFT 12
#define SLUICE_DMA_ARENA_MIN_BLOCK ((size_t)1 << SLUICE_DMA_ARENA_PAGE_SHIFT)
#define SLUICE_DMA_ARENA_MAX_BLOCK SLUICE_DMA_ARENA_CHUNK_SIZE
#define SLUICE_DMA_ARENA_CHUNK_PAGES \
	(1u << (SLUICE_DMA_ARENA_CHUNK_SHIFT - SLUICE_DMA_ARENA_PAGE_SHIFT))
/* Block orders 0 (4 KiB) .. 9 (2 MB). */
#define SLUICE_DMA_ARENA_NR_ORDERS (SLUICE_DMA_ARENA_CHUNK_SHIFT - SLUICE_DMA_ARENA_PAGE_SHIFT + 1)
/*
 * Orders 0..4 (4 KiB .. 64 KiB) are recycled through the per-CPU caches. Larger
 * blocks are rare and their scrub costs far more than the global lock, so they
 * go straight to the buddy lists instead of sitting idle in a CPU's cache.
 */
#define SLUICE_DMA_ARENA_CACHE_ORDERS 5
/* Blocks a CPU keeps per cached order: at most 8 * (4+8+16+32+64) KiB per CPU. */
#define SLUICE_DMA_ARENA_CACHE_DEPTH 8
/* Chunk indices are stored in 16 bits: at most 65535 chunks (128 GB). */
#define SLUICE_DMA_ARENA_MAX_CHUNKS 65535u
#define SLUICE_DMA_ARENA_MAX_CPUS 1024u
/*
 * Records of in-place mappings per 4 KiB page (API 0.6): each live in-place
 * mapping made through sluice_dma_arena_region()'s hook is recorded by its
 * exact start, length and (API 0.8) direction in the page it starts in
 * (several mappings of one range in one direction share a record and
 * count), so that an unmap of any other address, length or direction is
 * refused. A fifth distinct range starting in one page is refused by the
 * hook, and the layer bounces it instead.
 */
#define SLUICE_DMA_ARENA_MAP_RECORDS 4u

/* sluice_dma_arena_config flag: a bad free traps after its log line instead of
 * returning an error (the Sluice kernel's choice). */
#define SLUICE_DMA_ARENA_STRICT 0x1u

/*
 * sluice_dma_arena_config flag: scrub a block when it is allocated instead of
 * when it is freed. Both keep every byte of a freed block from the next owner
 * (dma/arena.c explains the guarantee); without this flag idle blocks also
 * read zero, which sluice_dma_arena_check() can then verify. Added in 0.5.
 */
#define SLUICE_DMA_ARENA_SCRUB_ON_ALLOC 0x2u

/*
 * sluice_dma_arena_config flag (0.8): each CPU's recycling cache is its
 * owner's alone, popped and pushed without its lock. Only for a port that
 * promises SLUICE_DMA_PORT_CPU_EXCLUSIVE and has locks (init refuses it
 * otherwise). The price: another CPU never takes a cache; an allocation that
 * finds no room, and sluice_dma_arena_reclaim(), ask the other CPUs for
 * their cached blocks, which each returns at its next alloc or free (at most
 * SLUICE_DMA_ARENA_CACHE_DEPTH blocks per cached order per CPU): until then
 * their chunks stay shared, and such an allocation may convert one more
 * chunk. sluice_dma_arena_destroy() (quiescent) takes every cache.
 */
#define SLUICE_DMA_ARENA_OWNED_CACHES 0x4u

/*
 * sluice_dma_arena_check() flag: also verify that every idle block reads all
 * zero (only an arena that scrubs on free promises that; with
 * SLUICE_DMA_ARENA_SCRUB_ON_ALLOC the flag is accepted and checks nothing more).
 */
#define SLUICE_DMA_ARENA_CHECK_SCRUB 0x1u

/**
 * struct sluice_dma_arena_config - what sluice_dma_arena_init() needs.
 * @base: start of the region; 2 MB aligned, private memory, owned by the arena
 *	until sluice_dma_arena_destroy() succeeds.
 * @len: length of the region in bytes; a non-zero multiple of 2 MB.
 * @max_shared: cap on chunks shared at once (including leaked ones, since the
 *	host can still see those); 0 means no cap beyond the region size.
 * @ncpus: number of CPU indices the cpu_id op may return (one cache each).
 * @meta: metadata storage, at least sluice_dma_arena_meta_size(@len, @ncpus) bytes,
 *	any alignment. Must be private memory: the free lists live there, out of
 *	the host's reach.
 * @meta_len: size of @meta in bytes.
 * @flags: 0 or SLUICE_DMA_ARENA_STRICT (added in API 0.2: a 0.1 initialiser
 *	leaves it 0), SLUICE_DMA_ARENA_SCRUB_ON_ALLOC, SLUICE_DMA_ARENA_OWNED_CACHES.
 */
struct sluice_dma_arena_config {
	void *base;
	size_t len;
	uint32_t max_shared;
	uint32_t ncpus;
	void *meta;
	size_t meta_len;
	uint32_t flags;
};

/**
 * struct sluice_dma_arena_stats - a snapshot of the arena's counters.
 * @region_bytes: size of the region given at init.
 * @nchunks: 2 MB chunks in the region.
 * @ncpus: per-CPU caches.
 * @chunks_cap: the cap on chunks shared at once.
 * @chunks_shared: chunks the host can see now (shared, being released, leaked).
 * @chunks_hiwater: the most chunks ever shared at once.
 * @chunks_leaked: chunks whose conversion back to private failed (never reused).
 * @to_shared: successful set_shared calls (one per chunk conversion).
 * @to_shared_cycles: cycles spent in them.
 * @to_shared_failed: failed set_shared calls.
 * @to_private: successful set_private calls.
 * @to_private_cycles: cycles spent in them.
 * @to_private_failed: failed set_private calls (each leaks a chunk).
 * @allocs: successful sluice_dma_arena_alloc() calls.
 * @alloc_failed: failed ones (bad size, cap reached, region exhausted,
 *	conversion failure).
 * @cap_hits: allocations that failed because a new chunk was needed and the
 *	cap was reached.
 * @frees: sluice_dma_arena_free() calls.
 * @blocks_live: blocks handed out and not yet freed.
 * @bytes_live: their total size.
 * @blocks_cached: blocks sitting in the per-CPU caches.
 * @cache_hits: allocations served by a per-CPU cache.
 * @cache_misses: allocations that took the global lock.
 * @cache_flushes: times a full per-CPU cache pushed half its blocks back.
 * @cache_drains: times a per-CPU cache was emptied (reclaim, or an allocation
 *	that found no space elsewhere).
 * @bytes_scrubbed: bytes zeroed (blocks on free, or on alloc with
 *	SLUICE_DMA_ARENA_SCRUB_ON_ALLOC; whole chunks after conversion).
 * @scrub_cycles: cycles spent zeroing. For blocks of the cached orders it is
 *	scaled from one timed scrub in 16 (reading the clock costs a third of a
 *	4 KiB scrub), so it is an estimate; exact for the rest.
 * @search_steps: chunks examined by the global search.
 * @splits: block splits.
 * @merges: buddy merges.
 * @reclaim_passes: sluice_dma_arena_reclaim() calls.
 */
struct sluice_dma_arena_stats {
	uint64_t region_bytes;
	uint32_t nchunks;
	uint32_t ncpus;
	uint32_t chunks_cap;
	uint32_t chunks_shared;
	uint32_t chunks_hiwater;
	uint32_t chunks_leaked;
	uint64_t to_shared;
	uint64_t to_shared_cycles;
	uint64_t to_shared_failed;
	uint64_t to_private;
	uint64_t to_private_cycles;
	uint64_t to_private_failed;
	uint64_t allocs;
	uint64_t alloc_failed;
	uint64_t cap_hits;
	uint64_t frees;
	uint64_t blocks_live;
	uint64_t bytes_live;
	uint64_t blocks_cached;
	uint64_t cache_hits;
	uint64_t cache_misses;
	uint64_t cache_flushes;
	uint64_t cache_drains;
	uint64_t bytes_scrubbed;
	uint64_t scrub_cycles;
	uint64_t search_steps;
	uint64_t splits;
	uint64_t merges;
	uint64_t reclaim_passes;
};

/*
 * Private. Counters kept both per CPU (under that CPU's cache lock) and
 * globally (under the arena lock), summed by sluice_dma_arena_stats_get();
 * grouped by the path that writes them, so that each path's updates are
 * adjacent.
 */
struct sluice_dma_priv_arena_counters {
	/* An allocation. */
	uint64_t allocs;
	uint64_t bytes_allocated;
	uint64_t cache_hits;
	uint64_t cache_misses;
	/* A free (and the scrub of a chunk made shared). */
	uint64_t frees;
	uint64_t bytes_freed;
	uint64_t bytes_scrubbed;
	uint64_t scrub_cycles;
	uint64_t cache_flushes;
	/* A per-CPU cache emptied. */
	uint64_t cache_drains;
};

/*
 * Private. One CPU's recycling cache: a LIFO stack of freed blocks per order,
 * so the most recently freed (cache-hot) block is handed out first. Aligned to
 * a cache line so that CPUs do not share lines.
 */
struct sluice_dma_priv_arena_cpu {
	SLUICE_DMA_ALIGNAS(64) struct sluice_dma_port_lock lock;
	/* Written by the owner (under @lock unless the port is exclusive); read
	 * without it by the "worth draining?" estimate. */
	uint16_t count[SLUICE_DMA_ARENA_CACHE_ORDERS];
	/* Set by another CPU that needs the cached blocks (exclusive ports): the
	 * owner returns them at its next call. In what was padding. */
	uint16_t drain_req;
	void *stack[SLUICE_DMA_ARENA_CACHE_ORDERS][SLUICE_DMA_ARENA_CACHE_DEPTH];
	/*
	 * The owner's pops and pushes of its cache, per order, written as
	 * @count is: its allocations and frees of the cached orders, one
	 * increment each, whose totals and bytes are derived when read. The
	 * scrub's sampled clock reads are drawn from them.
	 */
	uint64_t pops[SLUICE_DMA_ARENA_CACHE_ORDERS];
	uint64_t pushes[SLUICE_DMA_ARENA_CACHE_ORDERS];
	struct sluice_dma_priv_arena_counters ctr;
};

/*
 * Private. The chunk conversions in one direction: the port's calls that
 * succeeded, the cycles they took, the calls that failed (reported as the
 * to_shared* and to_private* fields of &struct sluice_dma_arena_stats).
 */
struct sluice_dma_priv_arena_conversions {
	uint64_t done;
	uint64_t cycles;
	uint64_t failed;
};

/*
 * Private. Buddy state of one 2 MB chunk, indexed by 4 KiB page. Lives in the
 * caller's (private) metadata area, never inside the shared chunk itself: the
 * host can write shared memory, so free-list links kept there could be forged.
 */
struct sluice_dma_priv_arena_chunk {
	/*
	 * Per page: records of the in-place mappings that start in it (count,
	 * offset in the page, length), or of the coherent allocation whose head
	 * it is (its exact size); 0 = unused. See arena_region.c.
	 */
	SLUICE_DMA_ALIGNAS(8)
	uint64_t rec[SLUICE_DMA_ARENA_CHUNK_PAGES][SLUICE_DMA_ARENA_MAP_RECORDS];
	/* Free-list links of free block heads (page indices, 0xffff = none). */
	uint16_t next[SLUICE_DMA_ARENA_CHUNK_PAGES];
	uint16_t prev[SLUICE_DMA_ARENA_CHUNK_PAGES];
	/* Per page: 0 inside a block, else head bit | block state | order. */
	uint8_t tag[SLUICE_DMA_ARENA_CHUNK_PAGES];
	/* Per block head page: live in-place mappings of the block (free refuses
	 * a block whose count is not 0). */
	uint16_t maps[SLUICE_DMA_ARENA_CHUNK_PAGES];
	uint16_t head[SLUICE_DMA_ARENA_NR_ORDERS];
	/* Bit o set iff the order-o free list is non-empty. */
	uint16_t avail;
	/* Pages in free blocks; SLUICE_DMA_ARENA_CHUNK_PAGES means the chunk is idle. */
	uint16_t free_pages;
	/* Link of the reclaim pass's release list. */
	uint16_t next_release;
	uint8_t state;
	uint8_t pad;
	/* Reclaim passes that found the chunk idle since it was last used. */
	uint32_t idle_passes;
};

/**
 * struct sluice_dma_arena - a 2 MB shared arena. Embed it or allocate it statically;
 * initialise with sluice_dma_arena_init(). All fields are private.
 */
struct sluice_dma_arena {
	struct sluice_dma_port_ops ops;
	uintptr_t base;
	size_t len;
	uint32_t nchunks;
	uint32_t ncpus;
	uint32_t cap;
	uint32_t flags;
	struct sluice_dma_priv_arena_cpu *cpus;
	struct sluice_dma_priv_arena_chunk *chunks;
	/* Indices of the chunks in state shared (the only ones searched). */
	uint16_t *active;
	/*
	 * Everything from here on is written on the slow path and protected by
	 * @lock; a new cache line keeps those writes away from the read-mostly
	 * fields above, which every CPU's fast path reads.
	 */
	SLUICE_DMA_ALIGNAS(64) struct sluice_dma_port_lock lock;
	uint32_t nactive;
	uint32_t nshared;
	uint32_t nconverting;
	uint32_t hiwater;
	uint32_t nleaked;
	uint32_t cursor;
	struct sluice_dma_priv_arena_counters ctr;
	uint64_t alloc_failed;
	uint64_t cap_hits;
	struct sluice_dma_priv_arena_conversions to_shared;
	struct sluice_dma_priv_arena_conversions to_private;
	uint64_t search_steps;
	uint64_t splits;
	uint64_t merges;
	uint64_t reclaim_passes;
	/* Conversions ended (either way): what a caller waiting for one watches. */
	uint32_t conv_gen;
	/*
	 * Set by sluice_dma_arena_init() from the arena's own address (API 0.8),
	 * so that an init of a live arena is told from one of fresh storage.
	 */
	uintptr_t live_key;
};

/**
 * SLUICE_DMA_ARENA_META_SIZE() - metadata bytes for a region, as a constant expression.
 * @len: region length in bytes (a multiple of 2 MB).
 * @ncpus: number of CPUs.
 *
 * The 64 spare bytes let sluice_dma_arena_init() align the per-CPU caches to a cache
 * line whatever the alignment of the storage.
 */
#define SLUICE_DMA_ARENA_META_SIZE(len, ncpus)                             \
	(64 + (size_t)(ncpus) * sizeof(struct sluice_dma_priv_arena_cpu) + \
	 ((size_t)(len) >> SLUICE_DMA_ARENA_CHUNK_SHIFT) *                 \
		 (sizeof(struct sluice_dma_priv_arena_chunk) + sizeof(uint16_t)))

/**
 * sluice_dma_arena_meta_size() - metadata bytes sluice_dma_arena_init() needs.
 * @len: region length in bytes (a multiple of 2 MB).
 * @ncpus: number of CPUs.
 * Return: the size, the same as SLUICE_DMA_ARENA_META_SIZE(@len, @ncpus); 0 for a
 * @len or @ncpus that sluice_dma_arena_init() refuses (0, not a multiple of 2 MB,
 * more than SLUICE_DMA_ARENA_MAX_CHUNKS chunks or SLUICE_DMA_ARENA_MAX_CPUS CPUs).
 */
size_t sluice_dma_arena_meta_size(size_t len, unsigned int ncpus);

/**
 * sluice_dma_arena_init() - set up an arena on caller-provided memory.
 * @arena: the arena to initialise.
 * @ops: porting ops; copied, so the table need not outlive the call. set_shared,
 *	set_private and virt_to_dma are required; lock and unlock both or neither.
 * @cfg: region, cap, CPU count, metadata storage and flags.
 *
 * Converts nothing: chunks become shared on first use.
 *
 * Return: 0, or SLUICE_DMA_ERR_INVAL for a NULL argument, a misaligned, empty or
 * wrapping region, too many chunks or CPUs, missing ops, metadata storage
 * that is too small, an unknown flag, or metadata or @arena itself inside the region (it
 * becomes shared: the host could forge free lists and function pointers);
 * SLUICE_DMA_ERR_BUSY (API 0.8) for an arena initialised and not destroyed
 * (wiping it would leak its shared chunks and its port locks): destroy it
 * first. Every refusal but a NULL argument logs its reason through @ops' log.
 */
int sluice_dma_arena_init(struct sluice_dma_arena *arena, const struct sluice_dma_port_ops *ops,
			  const struct sluice_dma_arena_config *cfg);

/**
 * sluice_dma_arena_alloc() - allocate a zeroed block of shared memory.
 * @arena: the arena.
 * @size: bytes wanted, 1 .. 2 MB; rounded up to a power of two >= 4 KiB.
 *
 * The block is aligned to its own (rounded) size and reads all zero. The common
 * case pops the calling CPU's cache; a miss takes the arena lock and searches
 * the shared chunks, and when none has room converts a new chunk (unlocked, one
 * set_shared call) if the cap allows. While another caller converts a chunk,
 * a caller that found no room waits for that conversion and searches again
 * rather than failing or converting a chunk of its own (API 0.6); a wait
 * that outlasts a bound (the converter may be the interrupted code on the
 * same CPU) goes on to convert.
 *
 * Return: the block's CPU address, or NULL (counted in alloc_failed) when @size
 * is 0 or above 2 MB, the cap is reached (also counted in cap_hits; a region
 * exhausted below no cap is not a cap hit), the region is exhausted, or
 * converting a new chunk failed; NULL, uncounted, for a NULL or
 * uninitialised @arena.
 */
void *sluice_dma_arena_alloc(struct sluice_dma_arena *arena, size_t size);

/**
 * sluice_dma_arena_free() - return a block to the arena.
 * @arena: the arena.
 * @ptr: a block from sluice_dma_arena_alloc(), or NULL (ignored).
 *
 * Zeroes the block (outside any lock), then puts it in the calling CPU's cache
 * or back in its chunk's buddy lists. Never converts memory.
 *
 * Return: 0; SLUICE_DMA_ERR_BUSY for a block still mapped in place through a
 * layer (sluice_dma_arena_region()'s get: the device may still use it;
 * unmap first), or a block that is a layer's coherent memory (free it with
 * sluice_dma_free_coherent(), API 0.6); SLUICE_DMA_ERR_NOENT for an address
 * that is not the start of a live block (never allocated, inside a block,
 * freed already, or freed by another CPU at the same time);
 * SLUICE_DMA_ERR_INVAL for a NULL or
 * uninitialised @arena. A refused free changes nothing and logs the address;
 * an arena configured with SLUICE_DMA_ARENA_STRICT traps instead.
 */
int sluice_dma_arena_free(struct sluice_dma_arena *arena, void *ptr);

/**
 * sluice_dma_arena_owns() - whether a range lies inside one live block.
 * @arena: the arena.
 * @vaddr: start of the range.
 * @len: its length; 0 is treated as 1.
 *
 * Takes no lock: the mapping layer calls it on every map to decide that a
 * buffer maps in place. The answer is exact for a block the caller holds.
 *
 * Return: true iff [@vaddr, @vaddr + @len) is inside a single allocated block;
 * false for a NULL @arena.
 */
bool sluice_dma_arena_owns(const struct sluice_dma_arena *arena, const void *vaddr, size_t len);

/**
 * sluice_dma_arena_inplace_owns() - sluice_dma_arena_owns() with an opaque context.
 * @ctx: the struct sluice_dma_arena.
 * @vaddr: start of the range.
 * @len: its length.
 *
 * Has the signature of the mapping layer's in-place hook (struct
 * sluice_dma_inplace_region in dma/include/sluice/dma.h): { .owns = sluice_dma_arena_inplace_owns,
 * .ctx = arena }.
 *
 * Return: sluice_dma_arena_owns(@ctx, @vaddr, @len).
 */
bool sluice_dma_arena_inplace_owns(void *ctx, const void *vaddr, size_t len);

struct sluice_dma_inplace_region;

/**
 * sluice_dma_arena_region() - fill a layer's in-place hook for @arena.
 * @region: the hook to fill (every callback of &struct sluice_dma_inplace_region).
 * @arena: the arena; it must outlive the hook's registration.
 *
 * With this hook a layer maps live blocks in place and records each mapping
 * by its exact start, length and direction (sluice_dma_arena_free() refuses
 * a mapped block; an unmap of any other address is NOENT, of a live start
 * with another length or direction INVAL; a sync is checked against the
 * record as a bounce mapping's; a fifth distinct range starting in one 4 KiB
 * page bounces instead), serves coherent
 * allocations longer than its bounce pools' longest run from the arena (up
 * to 2 MB, any alignment up to 2 MB, marked as the layer's and freed only
 * through it with the size it asked for), and lists both for the layer's
 * teardown (sluice_dma_mapping_foreach(), sluice_dma_unmap_all()).
 * Register it with sluice_dma_layer_set_inplace().
 */
void sluice_dma_arena_region(struct sluice_dma_inplace_region *region,
			     struct sluice_dma_arena *arena);

/**
 * sluice_dma_arena_is_shared() - whether a range lies in chunks the arena converted.
 * @arena: the arena.
 * @vaddr: start of the range.
 * @len: its length; 0 is treated as 1.
 *
 * Weaker than sluice_dma_arena_owns(): the range may span blocks, free or live. This
 * is the check behind "every address a device sees is in converted memory".
 * Leaked chunks do not count (no device may be given them). Takes no lock.
 *
 * Return: true iff every byte of the range is in a chunk in use and shared;
 * false for a NULL @arena.
 */
bool sluice_dma_arena_is_shared(const struct sluice_dma_arena *arena, const void *vaddr,
				size_t len);

/**
 * sluice_dma_arena_block_size() - size of the live block starting at @ptr.
 * @arena: the arena.
 * @ptr: a CPU address.
 * Return: the block size in bytes, or 0 if @ptr is not the start of a live block
 * (or @arena is NULL).
 */
size_t sluice_dma_arena_block_size(const struct sluice_dma_arena *arena, const void *ptr);

/**
 * sluice_dma_arena_dma_addr() - device address of a byte inside a live block.
 * @arena: the arena.
 * @vaddr: CPU address inside a live block (checked).
 * Return: the address the device uses, from the virt_to_dma op; 0 for an
 * address in no live block (logged) or a NULL or uninitialised @arena. A
 * query: since API 0.6 it answers instead of trapping.
 */
uint64_t sluice_dma_arena_dma_addr(const struct sluice_dma_arena *arena, const void *vaddr);

/**
 * sluice_dma_arena_reclaim() - convert idle chunks back to private.
 * @arena: the arena.
 * @min_idle: earlier reclaim passes that must already have found a chunk idle;
 *	0 releases every chunk that is idle now.
 *
 * Drains every per-CPU cache first (blocks parked there would keep their
 * chunk busy; under SLUICE_DMA_ARENA_OWNED_CACHES this CPU's, and the others
 * are asked for theirs, which come back at their next call), then counts one
 * pass for each idle chunk and converts back, with one set_private call each,
 * the chunks idle for more than @min_idle passes. A chunk that fails to
 * convert back is leaked: counted, still counted as shared against the cap,
 * never used again. The caller drives the policy, e.g. one call per timer tick
 * with @min_idle = ticks to wait.
 *
 * Return: the number of chunks converted back; 0 for a NULL or uninitialised
 * @arena.
 */
unsigned int sluice_dma_arena_reclaim(struct sluice_dma_arena *arena, unsigned int min_idle);

/**
 * sluice_dma_arena_destroy() - convert every chunk back and stop using the region.
 * @arena: the arena.
 * Return: 0; SLUICE_DMA_ERR_INVAL for a NULL or uninitialised @arena; SLUICE_DMA_ERR_BUSY
 * if blocks are still live (nothing is released);
 * SLUICE_DMA_ERR_IO if some chunk is leaked (the region must then not be reused as
 * private memory). After 0 or SLUICE_DMA_ERR_IO the arena's locks went to the port's
 * lock_destroy and the arena is uninitialised (API 0.7): its statistics read zero
 * and every other call refuses it, until sluice_dma_arena_init() again.
 */
int sluice_dma_arena_destroy(struct sluice_dma_arena *arena);

/**
 * sluice_dma_arena_stats_get() - read the counters.
 * @arena: the arena.
 * @st: filled with a snapshot (taking each lock briefly).
 *
 * A NULL @arena or @st traps (there is no error to return).
 */
void sluice_dma_arena_stats_get(struct sluice_dma_arena *arena, struct sluice_dma_arena_stats *st);

/**
 * sluice_dma_arena_stats_print() - print the counters through the log op.
 * @arena: the arena (NULL: there is no log op to print with; nothing happens).
 * @prefix: text starting every line (e.g. "arena"), or NULL.
 */
void sluice_dma_arena_stats_print(struct sluice_dma_arena *arena, const char *prefix);

/**
 * sluice_dma_arena_check() - self-check of the whole arena.
 * @arena: the arena; no other thread may use it during the check.
 * @flags: 0, or SLUICE_DMA_ARENA_CHECK_SCRUB to also verify that every idle block
 *	reads zero (this reads all idle shared memory).
 *
 * Walks every chunk: blocks tile it, free lists match the tags, no two free
 * buddies are left unmerged, cached blocks appear once, the active list holds
 * exactly the shared chunks, and the counters add up (allocs - frees = live
 * blocks, conversions to shared - to private = chunks shared, leaks match).
 *
 * Return: 0 if consistent; SLUICE_DMA_ERR_INVAL for a NULL or uninitialised @arena
 * or an unknown flag; else SLUICE_DMA_ERR_FAULT after logging the first problem.
 */
int sluice_dma_arena_check(struct sluice_dma_arena *arena, unsigned int flags);

#ifdef __cplusplus
}
#endif

#endif /* SLUICE_DMA_ARENA_H */
