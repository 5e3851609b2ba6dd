/* SPDX-License-Identifier: MIT */
/*
 * dma.h - public API of the Sluice DMA layer: device tags, streaming mappings,
 * coherent allocations, bounce pools and their statistics.
 *
 * A buffer in memory the layer knows to be shared (the 2 MB arena, through the
 * in-place hook) maps in place; any other buffer bounces through a pool of 2 KiB
 * slots that the layer converted to shared when the pool was added. The layer
 * allocates nothing: the caller hands it pool memory and metadata storage. It is
 * not the porting interface (see dma_port.h) and not the arena (see arena.h).
 *
 * Bad arguments are refused, never acted on: a function returning int returns
 * a SLUICE_DMA_ERR_* code, one returning a pointer returns NULL, a query (size,
 * count, bool) answers 0 / false, which keeps a device away. A release of
 * something the layer never handed out (an unmap, sync or free_coherent of a
 * bad handle, another length or direction) is refused the same way, changes
 * nothing, and logs a line naming the address: SLUICE_DMA_ERR_NOENT for an
 * address that is no live mapping, SLUICE_DMA_ERR_INVAL for a live one given
 * with another length, direction or kind. This is what EDK2's IoMmu expects
 * (EFI_INVALID_PARAMETER). A layer set strict (sluice_dma_layer_set_strict(),
 * what the Sluice kernel does) traps instead after the log line: a driver
 * bug stops the machine before it does harm. The few void functions (setters
 * given a NULL or uninitialised layer) trap; with a NULL layer there is no
 * log op to print through, and it only traps.
 * tests/dma/test_bad_args.c walks every function with each kind of bad argument.
 *
 * Contexts: every function may be called from any thread and, if the port's
 * lock op may be taken there, from interrupt or raised-TPL context; nothing
 * sleeps unless a port op does. The calls that convert memory (pool add,
 * destroy) call set_shared / set_private and are as slow as those.
 * dma/PORTING.md has the details.
 */
#ifndef SLUICE_DMA_H
#define SLUICE_DMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sluice/dma_errors.h>
#include <sluice/dma_policies.h>
#include <sluice/dma_port.h>
#include <sluice/dma_version.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Slot geometry, as in Linux swiotlb: 2 KiB slots, 128-slot segments. */
#define SLUICE_DMA_IO_TLB_SHIFT 11
#define SLUICE_DMA_IO_TLB_SIZE (1u << SLUICE_DMA_IO_TLB_SHIFT)
#define SLUICE_DMA_IO_TLB_SEGSIZE 128
/* Conversion granule and the page alignment rule for >= 4 KiB mappings. */
#define SLUICE_DMA_PAGE_SIZE 4096u
/* No limit, for &struct sluice_dma_tag fields that are masks or limits. */
#define SLUICE_DMA_NO_LIMIT (~(uint64_t)0)

/*
 * Metadata of a bounce pool, as a constant expression, for firmware that
 * sizes its static storage at compile time (the arena's twin is
 * SLUICE_DMA_ARENA_META_SIZE()). An upper bound over every policy: the
 * per-slot record (24 bytes) plus the largest policy's per-slot state (lifo:
 * a bit and two 32-bit links), the per-CPU statistics line and the sluice
 * policy's per-CPU magazines, two areas per CPU (areas are CPUs rounded up to
 * a power of two), and the headers with their cache-line alignment slack.
 * dma/bounce.c checks the real structures against these at compile time, and
 * tests/dma/test_bounce.c checks the bound against sluice_dma_bounce_meta_size().
 */
#define SLUICE_DMA_BOUNCE_META_PER_SLOT 33u
#define SLUICE_DMA_BOUNCE_META_PER_CPU 1024u
#define SLUICE_DMA_BOUNCE_META_FIXED 1024u

/**
 * SLUICE_DMA_BOUNCE_META_SIZE() - metadata bytes enough for a pool of @bytes
 *	for a layer of @ncpus CPUs, whatever its policy.
 * @bytes: pool size in bytes.
 * @ncpus: the layer's CPU count.
 *
 * At least sluice_dma_bounce_meta_size() for every policy, which is exact: the
 * bound spends 33 bytes per 2 KiB slot where the linux policy needs 28 and
 * the bitmap and sluice policies about 24 (under 2% of the pool either way).
 */
#define SLUICE_DMA_BOUNCE_META_SIZE(bytes, ncpus)                                         \
	((size_t)SLUICE_DMA_BOUNCE_META_FIXED +                                           \
	 ((size_t)(bytes) >> SLUICE_DMA_IO_TLB_SHIFT) * SLUICE_DMA_BOUNCE_META_PER_SLOT + \
	 (size_t)(ncpus)*SLUICE_DMA_BOUNCE_META_PER_CPU)

/*
 * Attributes of a streaming mapping (sluice_dma_map_attrs()), Linux's
 * DMA_ATTR_* in spirit.
 * SLUICE_DMA_ATTR_PARTIAL: map as much of the buffer as one mapping can hold
 *	(sluice_dma_max_mapping_size() for the tag and buffer) and report the
 *	length mapped, instead of failing with SLUICE_DMA_ERR_RANGE: EDK2's Map()
 *	NumberOfBytes, "on output the number of bytes that were mapped".
 * SLUICE_DMA_ATTR_OWN_PAGES: a bounce mapping gets whole 4 KiB pages that no
 *	other mapping shares, so that the device's access to it can be changed
 *	(sluice_dma_set_access()); costs up to a page of slots.
 * SLUICE_DMA_ATTR_READONLY: a to-device mapping the device may only read:
 *	implies OWN_PAGES, and the port's set_access op makes the pages
 *	read-only for the device until unmap. Without that op (or for a buffer
 *	mapped in place, which the layer does not own) it is advisory: the
 *	mapping succeeds and the device can still write the slots; see
 *	sluice_dma_layer_caps(). Refused for other directions.
 * SLUICE_DMA_ATTR_UNMAP_WRITTEN (API 0.9): the caller will say how many bytes
 *	the device wrote: a from-device bounce mapping ends with
 *	sluice_dma_unmap_written() or sluice_dma_unmap_discard(), which copy
 *	back only those bytes, so no byte of the slots the device did not write
 *	can ever reach the buffer, and the slots are not zeroed at map time
 *	under SLUICE_DMA_SCRUB_ZERO: a from-device bounce costs its copy back
 *	alone (under SLUICE_DMA_SCRUB_COPY the buffer is still copied in, as
 *	Linux does, since that is what the mode is for). What the slots
 *	held before (earlier mappings' bytes) was already in shared memory and
 *	stays there for the device to see, as any other shared byte. In return
 *	such a mapping refuses, with SLUICE_DMA_ERR_INVAL and a log line,
 *	sluice_dma_unmap() (which copies back the whole length) and
 *	sluice_dma_sync_for_cpu() (which copies back a range the device may not
 *	have written); sluice_dma_unmap_all() ends it copying nothing back.
 *	No effect on to-device and bidirectional mappings (their slots get the
 *	buffer) and on mappings made in place.
 */
#define SLUICE_DMA_ATTR_PARTIAL 0x1u
#define SLUICE_DMA_ATTR_OWN_PAGES 0x2u
#define SLUICE_DMA_ATTR_READONLY 0x4u
#define SLUICE_DMA_ATTR_UNMAP_WRITTEN 0x8u

/*
 * Capabilities of a layer on its port (sluice_dma_layer_caps()).
 * SLUICE_DMA_CAP_ACCESS: the port can restrict a device's access (set_access):
 *	read-only mappings are enforced, sluice_dma_set_access() works.
 * SLUICE_DMA_CAP_CACHE_MAINT: the port does cache maintenance (a non-coherent
 *	platform).
 * SLUICE_DMA_CAP_PROFILE: the port has a cycle counter.
 * SLUICE_DMA_CAP_LARGE_COHERENT: an in-place region with an allocator is
 *	registered: coherent allocations beyond the bounce pools' longest run
 *	come from it.
 */
#define SLUICE_DMA_CAP_ACCESS 0x1u
#define SLUICE_DMA_CAP_CACHE_MAINT 0x2u
#define SLUICE_DMA_CAP_PROFILE 0x4u
#define SLUICE_DMA_CAP_LARGE_COHERENT 0x8u

/**
 * enum sluice_dma_dir - direction of a streaming mapping.
 * @SLUICE_DMA_TO_DEVICE: the device reads the buffer (copied in at map and
 *	sync_for_device).
 * @SLUICE_DMA_FROM_DEVICE: the device writes the buffer (copied out at sync_for_cpu
 *	and unmap).
 * @SLUICE_DMA_BIDIRECTIONAL: both.
 */
enum sluice_dma_dir {
	SLUICE_DMA_TO_DEVICE = 1,
	SLUICE_DMA_FROM_DEVICE = 2,
	SLUICE_DMA_BIDIRECTIONAL = 3,
};

/**
 * enum sluice_dma_bounce_policy - how a bounce pool finds free slots: one
 *	SLUICE_DMA_POLICY_<UPPER> per line of SLUICE_DMA_POLICIES()
 *	(<sluice/dma_policies.h>, which describes each), numbered in its order
 *	from 0 (SLUICE_DMA_POLICY_LINUX, _BITMAP, _LIFO, _SLUICE: 0 to 3).
 * @SLUICE_DMA_POLICY_COUNT: number of policies.
 */
enum sluice_dma_bounce_policy {
#define SLUICE_DMA_POLICY_ENUM_(upper, lower) SLUICE_DMA_POLICY_##upper,
	SLUICE_DMA_POLICIES(SLUICE_DMA_POLICY_ENUM_)
#undef SLUICE_DMA_POLICY_ENUM_
		SLUICE_DMA_POLICY_COUNT
};

/**
 * enum sluice_dma_scrub - how a from-device bounce keeps stale bytes from the device.
 * @SLUICE_DMA_SCRUB_COPY: as Linux since CVE-2022-0854: copy the original buffer into
 *	the slots at map time, whatever the direction. A partial device write
 *	leaves the original's bytes, as without bouncing. In a confidential guest
 *	this shows the host whatever the private buffer held before the device
 *	writes: a disclosure. For comparison with Linux only.
 * @SLUICE_DMA_SCRUB_ZERO: the choice for a confidential guest: zero the mapped bytes at
 *	map time for from-device mappings, so no private byte reaches shared
 *	memory. A driver that knows how many bytes the device wrote ends the
 *	mapping with sluice_dma_unmap_written(), which copies back exactly those and
 *	leaves the rest of the caller's buffer untouched; sluice_dma_unmap() copies back
 *	the whole mapping (zeros where the device wrote nothing).
 *
 * Both give the guarantee Linux's fix gives: the mapped range never shows a
 * device another mapping's bytes and nothing of another mapping is ever copied
 * back into a CPU buffer. Slack in a mapping's first and last slot (alignment
 * padding) is not cleared, as in Linux: it only ever held bytes that were
 * already in shared memory.
 */
enum sluice_dma_scrub {
	SLUICE_DMA_SCRUB_COPY = 0,
	SLUICE_DMA_SCRUB_ZERO = 1,
};

/**
 * struct sluice_dma_tag - limits of one device (FreeBSD busdma tag, Linux dma_parms).
 * @addr_limit: highest device address the device can reach (inclusive);
 *	SLUICE_DMA_NO_LIMIT for 64-bit devices.
 * @min_align_mask: low address bits that must be the same in the bounce
 *	address as in the original buffer (NVMe: 4095); 0 for none. Must be
 *	2^k - 1.
 * @alloc_align_mask: required alignment - 1 of the bounce allocation; 0 for
 *	none. Must be 2^k - 1.
 * @boundary_mask: segment boundary - 1 that no mapping may cross; SLUICE_DMA_NO_LIMIT
 *	for none. Must be 2^k - 1 and at least SLUICE_DMA_PAGE_SIZE - 1.
 * @max_mapping: largest mapping in bytes; 0 for the layer's own limit.
 */
struct sluice_dma_tag {
	uint64_t addr_limit;
	uint64_t min_align_mask;
	uint64_t alloc_align_mask;
	uint64_t boundary_mask;
	size_t max_mapping;
};

/**
 * SLUICE_DMA_TAG_DEFAULT - a tag with no constraints (64-bit device, no alignment).
 */
#define SLUICE_DMA_TAG_DEFAULT                                          \
	((struct sluice_dma_tag){ .addr_limit = SLUICE_DMA_NO_LIMIT,    \
				  .min_align_mask = 0,                  \
				  .alloc_align_mask = 0,                \
				  .boundary_mask = SLUICE_DMA_NO_LIMIT, \
				  .max_mapping = 0 })

/**
 * struct sluice_dma_inplace_region - hook through which shared memory the layer did not
 *	carve into slots (the arena) is recognised and mapped in place.
 * @owns: return true when every byte of [@vaddr, @vaddr + @len) lies in shared
 *	memory the region controls. Called on every map; must be cheap and
 *	thread-safe.
 * @ctx: handed back to every callback.
 * @get: optional. Count one more in-place mapping of the block that holds
 *	[@vaddr, @vaddr + @len), made with direction @dir (an enum
 *	sluice_dma_dir), and return true, or return false (no such live block;
 *	nothing counted). With it the region can refuse to free a block that is
 *	still mapped (the arena does), and an unmap of a block never mapped is
 *	caught. Needs @put. (@dir since API 0.8.)
 * @put: undo one @get of exactly the same range (start and length) and
 *	direction; false if no such @get is live (the unmap is then refused as
 *	a bad handle: an address inside another mapping is no mapping).
 *	(@dir since API 0.8.)
 * @alloc: optional. A zeroed block of at least @size bytes, aligned to @size
 *	rounded up to a power of two (at least 4 KiB), shared, reachable
 *	through the ops' virt_to_dma; NULL when there is none. Used for coherent
 *	allocations longer than the bounce pools' longest run. The region
 *	records @size: @free takes exactly that size.
 * @free: release a block from @alloc or @alloc_aligned: 0, or a negative
 *	code and nothing freed: SLUICE_DMA_ERR_NOENT for anything else (a block
 *	the region handed out another way, an address inside a block),
 *	SLUICE_DMA_ERR_INVAL for another size, SLUICE_DMA_ERR_BUSY while mapped.
 *	Needs @alloc.
 * @alloc_aligned: optional (API 0.6). As @alloc, aligned to @align (a power
 *	of two, at least 4 KiB) when that is more than @size rounded up. Without
 *	it, coherent memory aligned beyond its size is refused with
 *	SLUICE_DMA_ERR_RANGE (a block the layer could not free again).
 * @alloc_max: optional (API 0.6). The largest block @alloc can ever return
 *	(0: unknown); a coherent request beyond it is SLUICE_DMA_ERR_RANGE.
 * @walk: optional (API 0.6). Call @fn once per live record of the region:
 *	in-place mappings (@coherent false; @count mappings of exactly
 *	[@vaddr, @vaddr + @len), made with direction @dir) or a block from
 *	@alloc (@coherent true, @len the size asked for, @dir 0, @count 1). A
 *	non-zero return of @fn stops the walk and is returned. @fn may end the
 *	record it is given. Takes no lock: the caller keeps every other user
 *	away. Lets sluice_dma_mapping_foreach() list, and sluice_dma_unmap_all()
 *	end, what a layer holds in the region. (@dir since API 0.8; a region
 *	that records none passes 0, reported as BIDIRECTIONAL.)
 * @find: optional (API 0.8). The live in-place mappings that start exactly
 *	at @vaddr: 0 with *@len set to the longest made with direction @dir
 *	(any direction when @dir is 0); SLUICE_DMA_ERR_PERM when mappings start
 *	there but none with @dir; SLUICE_DMA_ERR_NOENT when none starts there
 *	(an address inside a mapping, a block nobody mapped, coherent memory).
 *	Needs @get. With it a sync of an in-place mapping is checked as a
 *	bounce mapping's (its start, its direction, its length), and a refused
 *	unmap of a live start is told (INVAL: another length or direction)
 *	from one of no mapping (NOENT). Without it a sync is only checked
 *	against the block that holds it.
 *
 * The callbacks after @ctx were added in API 0.2, those after @free in 0.6,
 * @find in 0.8; all may be left NULL. sluice_dma_arena_region()
 * (<sluice/arena.h>) fills all of them for an arena. A region shared by
 * several layers reports every layer's records to each of them.
 */
struct sluice_dma_inplace_region {
	bool (*owns)(void *ctx, const void *vaddr, size_t len);
	void *ctx;
	bool (*get)(void *ctx, const void *vaddr, size_t len, uint32_t dir);
	bool (*put)(void *ctx, const void *vaddr, size_t len, uint32_t dir);
	void *(*alloc)(void *ctx, size_t size);
	int (*free)(void *ctx, void *vaddr, size_t size);
	void *(*alloc_aligned)(void *ctx, size_t size, size_t align);
	size_t alloc_max;
	int (*walk)(void *ctx,
		    int (*fn)(void *arg, void *vaddr, size_t len, bool coherent, uint32_t dir,
			      unsigned int count),
		    void *arg);
	int (*find)(void *ctx, const void *vaddr, uint32_t dir, size_t *len);
};

/**
 * struct sluice_dma_bounce_stats - statistics of one bounce pool (or all of them).
 * @nslabs: usable slots (Linux debugfs io_tlb_nslabs).
 * @nareas: areas (each with its own lock) of the pool; over several pools, the
 *	most any of them has.
 * @used: slots held by live mappings (io_tlb_used).
 * @used_hiwater: highest @used seen (io_tlb_used_hiwater). For the sluice
 *	policy it counts slots held in per-CPU caches too, so it is an upper
 *	bound, exact when the caches are empty.
 * @mappings: successful bounce mappings and coherent allocations.
 * @unmaps: mappings and coherent allocations released.
 * @bytes_to_device: bytes copied from original buffers into slots.
 * @bytes_from_device: bytes copied from slots back into original buffers.
 * @bytes_scrubbed: bytes zeroed to keep stale data from devices.
 * @full_events: requests this pool could not satisfy (pool full or too
 *	fragmented for the request).
 * @conversions: private<->shared conversion calls made for this pool.
 * @conversion_cycles: cycles spent in those calls.
 * @search_steps: candidate slots examined by the allocator.
 * @cache_hits: allocations served from a per-CPU cache (sluice policy).
 * @leaked_bytes: pool bytes that could not be made private again.
 */
struct sluice_dma_bounce_stats {
	uint64_t nslabs;
	uint64_t nareas;
	uint64_t used;
	uint64_t used_hiwater;
	uint64_t mappings;
	uint64_t unmaps;
	uint64_t bytes_to_device;
	uint64_t bytes_from_device;
	uint64_t bytes_scrubbed;
	uint64_t full_events;
	uint64_t conversions;
	uint64_t conversion_cycles;
	uint64_t search_steps;
	uint64_t cache_hits;
	uint64_t leaked_bytes;
};

struct sluice_dma_bounce_pool;

/**
 * struct sluice_dma_layer - one instance of the DMA layer. Storage is the caller's;
 *	the fields are private to the library (use the functions below).
 * @ops: a copy of the porting ops (the table given to sluice_dma_layer_init()
 *	need not outlive the call; see dma_port.h for the one lifetime rule).
 * @ncpus: CPU indices the ops' cpu_id may return.
 * @scrub: stale-data strategy for from-device bounces (an enum sluice_dma_scrub).
 * @max_areas: most areas a bounce pool is split into (0: CPUs rounded up to a
 *	power of two, as Linux since 6.3); see sluice_dma_layer_set_max_areas().
 * @pools: first bounce pool; later pools (growth) follow through their next
 *	pointers and are only ever appended.
 * @inplace: optional in-place region checker (the arena).
 * @grow_lock: serialises pool additions (mappers never take it).
 * @grow_lock_live: @grow_lock is initialised (a destroy released it, API 0.7).
 * @inplace_maps: mappings served in place.
 * @nomem_events: mappings that failed because every pool was full.
 * @profile: time every bounce copy and scrub with the ops' cycles counter
 *	(see sluice_dma_layer_set_profile()); off by default.
 * @copy_cycles: with @profile, cycles spent in bounce copies and scrubs.
 * @strict: trap (after logging) on a bad handle instead of returning an error.
 * @fast: the common map and unmap may run as leaf functions (dma/map_fast.c):
 *	the port's CPU index, copy and zero inline and its CPU indices exclusive,
 *	no cache maintenance, no @profile. Set by sluice_dma_layer_init() and
 *	sluice_dma_layer_set_profile(); it sits in what was padding after
 *	@strict, so the layout is the same.
 * @inplace_live: in-place mappings not yet unmapped.
 * @region_coherent_live: coherent allocations served by the in-place region.
 * @retired_leaked_bytes: leaked_bytes of pools that sluice_dma_layer_destroy()
 *	released (so the statistics still show the leak after the pools are gone).
 * @live_key: set by sluice_dma_layer_init() from the layer's own address, so
 *	that an init of a live layer is told from one of fresh storage (API 0.6).
 *
 * Fixed-width fields only (API 0.7): the same layout under LP64 (Linux,
 * x86_64 and aarch64) and LLP64 (EDK2's Windows data model), where unsigned
 * long differs, and with -fshort-enums, which shrinks enum-typed fields; the
 * counters are uintptr_t, the width of the pointers beside them, so that an
 * i386 build updates them without 64-bit atomics. tests/abi/ checks the size.
 *
 * @pools, @inplace and the counters are shared between CPUs without a
 * lock. They are plain fields that the library reads and writes only through
 * the compiler's __atomic builtins, not C11 _Atomic objects: <stdatomic.h> and
 * _Atomic do not exist in C++ (before C++23) and change nothing in the layout
 * here (a pointer or unsigned long is as large and aligned as its atomic
 * twin on every target the library builds for), so the header compiles in C
 * and C++ alike and the struct has one layout in both.
 */
struct sluice_dma_layer {
	struct sluice_dma_port_ops ops;
	uint32_t ncpus;
	uint32_t scrub;
	uint32_t max_areas;
	struct sluice_dma_bounce_pool *pools;
	const struct sluice_dma_inplace_region *inplace;
	struct sluice_dma_port_lock grow_lock;
	bool grow_lock_live;
	uintptr_t inplace_maps;
	uintptr_t nomem_events;
	bool profile;
	uintptr_t copy_cycles;
	bool strict;
	uint8_t fast;
	uintptr_t inplace_live;
	uintptr_t region_coherent_live;
	uint64_t retired_leaked_bytes;
	uintptr_t live_key;
};

/**
 * sluice_dma_layer_init() - prepare a layer with no pools yet.
 * @dl: caller storage.
 * @ops: porting ops; needs at least set_shared, set_private and virt_to_dma.
 *	Copied, so the table need not outlive the call (dma_port.h, lifetime).
 * @ncpus: number of CPU indices @ops->cpu_id may return (>= 1).
 * @scrub: stale-data strategy for from-device bounces.
 * Every refusal but a NULL @dl or @ops logs its reason through @ops' log.
 * Return: 0; SLUICE_DMA_ERR_INVAL for missing ops or a zero @ncpus;
 * SLUICE_DMA_ERR_BUSY (API 0.6) for a layer that was initialised and still
 * holds pools or memory: destroy it first (wiping it would leak its pools
 * shared and orphan its mappings).
 */
int sluice_dma_layer_init(struct sluice_dma_layer *dl, const struct sluice_dma_port_ops *ops,
			  unsigned int ncpus, enum sluice_dma_scrub scrub);

/**
 * sluice_dma_layer_set_inplace() - register (or with NULL, remove) the in-place hook.
 * @dl: the layer.
 * @region: the hook; its storage must outlive its registration.
 *
 * A NULL or uninitialised @dl, or a @region without an owns callback, with
 * get without put (or the reverse), alloc without free (or the reverse) or
 * find without get, traps.
 */
void sluice_dma_layer_set_inplace(struct sluice_dma_layer *dl,
				  const struct sluice_dma_inplace_region *region);

/**
 * sluice_dma_layer_set_max_areas() - split the layer's bounce pools into at most
 *	@max_areas areas (each with its own lock and search start).
 * @dl: an initialised layer with no pool yet.
 * @max_areas: a power of two, or 0 for the default (CPUs rounded up to a power
 *	of two). 1 reproduces the single-lock pool of Linux before 6.3, where the
 *	seeds measured their multi-job results.
 *
 * Metadata sized by sluice_dma_bounce_meta_size() for the layer's CPU count is always
 * enough. CPUs share areas as cpu & (areas - 1).
 * Return: 0, or SLUICE_DMA_ERR_INVAL (NULL or uninitialised layer, @max_areas not a
 * power of two, or a pool already added).
 */
int sluice_dma_layer_set_max_areas(struct sluice_dma_layer *dl, unsigned int max_areas);

/**
 * sluice_dma_layer_set_profile() - time the bounce copies (for benchmarks: it costs two
 *	reads of the cycle counter per copy).
 * @dl: the layer (NULL or uninitialised traps).
 * @on: whether to time them.
 * Return: 0; SLUICE_DMA_ERR_NOSYS when @on and the port has no cycles op
 * (profiling stays off).
 */
int sluice_dma_layer_set_profile(struct sluice_dma_layer *dl, bool on);

/**
 * sluice_dma_layer_set_strict() - trap on a bad handle instead of returning an error.
 * @dl: an initialised layer.
 * @on: true: an unmap, sync or free_coherent of an address that is no live
 *	mapping of that kind, length and direction logs and traps (the Sluice
 *	kernel's choice: a driver bug stops the machine). false (the default):
 *	it logs and returns SLUICE_DMA_ERR_NOENT or SLUICE_DMA_ERR_INVAL (what
 *	EDK2's IoMmu and most firmware expect).
 * Return: 0, or SLUICE_DMA_ERR_INVAL for a NULL or uninitialised @dl.
 */
int sluice_dma_layer_set_strict(struct sluice_dma_layer *dl, bool on);

/**
 * sluice_dma_layer_caps() - what the port lets this layer do (SLUICE_DMA_CAP_* bits).
 * @dl: the layer.
 * Return: the bits; 0 for a NULL or uninitialised @dl.
 */
unsigned int sluice_dma_layer_caps(const struct sluice_dma_layer *dl);

/**
 * sluice_dma_layer_copy_cycles() - cycles spent in bounce copies and scrubs while
 *	profiling was on (0 without a cycles op).
 * @dl: the layer.
 * Return: the running total; 0 for a NULL @dl.
 */
uint64_t sluice_dma_layer_copy_cycles(const struct sluice_dma_layer *dl);

/**
 * struct sluice_dma_destroy_report - what sluice_dma_layer_destroy_report() found.
 * @live_mappings: streaming bounce mappings still live.
 * @live_coherent: coherent allocations from the pools still live.
 * @live_bytes: bytes of those mappings and allocations.
 * @live_inplace: in-place mappings not unmapped.
 * @live_region_coherent: coherent allocations from the in-place region.
 * @pools_released: pools converted back (or leaked) and forgotten.
 * @leaked_bytes: pool bytes whose conversion back to private failed.
 */
struct sluice_dma_destroy_report {
	uint64_t live_mappings;
	uint64_t live_coherent;
	uint64_t live_bytes;
	uint64_t live_inplace;
	uint64_t live_region_coherent;
	uint32_t pools_released;
	uint64_t leaked_bytes;
};

/**
 * sluice_dma_layer_destroy() - release every pool: convert its memory back to private.
 * @dl: the layer; no mapping may be live.
 * Return: as sluice_dma_layer_destroy_report() with no report.
 */
int sluice_dma_layer_destroy(struct sluice_dma_layer *dl);

/**
 * sluice_dma_layer_destroy_report() - sluice_dma_layer_destroy(), saying what it found.
 * @dl: the layer; the caller must have stopped every device and mapper.
 * @report: filled in (may be NULL).
 *
 * While anything is live (bounce mappings, coherent memory, in-place
 * mappings, coherent memory from the region) nothing is released: each live
 * bounce mapping is logged (the first 16) and counted in @report, and the
 * call returns SLUICE_DMA_ERR_BUSY; end them (sluice_dma_unmap_all() at
 * ExitBootServices) and call again. Otherwise every pool is converted back
 * to private and forgotten; a pool whose conversion fails is leaked: its
 * bytes are counted in @report->leaked_bytes and stay in the layer's
 * statistics (sluice_dma_bounce_stats_get() with pool -1 reports them as
 * leaked_bytes after the pools are gone), and its memory must never be
 * reused as private memory.
 *
 * Return: 0; SLUICE_DMA_ERR_INVAL for a NULL or uninitialised @dl;
 * SLUICE_DMA_ERR_BUSY (nothing released) while anything is live;
 * SLUICE_DMA_ERR_IO when a conversion back failed.
 */
int sluice_dma_layer_destroy_report(struct sluice_dma_layer *dl,
				    struct sluice_dma_destroy_report *report);

/**
 * sluice_dma_bounce_meta_size_max() - SLUICE_DMA_BOUNCE_META_SIZE() as a function,
 *	for bindings that cannot expand C macros (bindgen, other FFI) (API 0.7).
 * @bytes: pool size in bytes.
 * @ncpus: the layer's CPU count.
 * Return: the macro's value: enough metadata for a pool of @bytes under any
 * policy. (SLUICE_DMA_ARENA_META_SIZE()'s function is sluice_dma_arena_meta_size().)
 */
size_t sluice_dma_bounce_meta_size_max(size_t bytes, unsigned int ncpus);

/**
 * sluice_dma_bounce_meta_size() - metadata bytes a pool needs besides its slots.
 * @policy: the pool's policy.
 * @bytes: pool size in bytes.
 * @ncpus: the layer's CPU count.
 * Return: bytes of metadata storage to pass to sluice_dma_bounce_pool_add(); 0 when
 * @bytes is too small for a pool (less than 128 slots = 256 KiB), or for a
 * policy that is unknown or not compiled in.
 */
size_t sluice_dma_bounce_meta_size(enum sluice_dma_bounce_policy policy, size_t bytes,
				   unsigned int ncpus);

/**
 * sluice_dma_bounce_pool_add() - convert @mem to shared and add it as a bounce pool.
 * @dl: the layer.
 * @policy: the allocator this pool uses.
 * @mem: pool memory, 4 KiB aligned, private; the layer owns it from now on.
 * @bytes: its size, a multiple of 4 KiB, at least 256 KiB.
 * @meta: metadata storage of sluice_dma_bounce_meta_size() bytes (any alignment).
 * @meta_len: its size.
 *
 * The first call creates the layer's first pool; later calls grow the layer
 * at run time. A new pool is appended after the existing ones: mappers that
 * find room in earlier pools never wait for it, and it is searched when they
 * are full. Slots are carved as Linux does: areas = @dl's CPU count rounded up
 * to a power of two, fewer if an area would have less than 128 slots, each
 * area a whole number of 128-slot segments (a remainder is left unused).
 *
 * Every refusal but a NULL or uninitialised @dl logs its reason.
 * Return: 0; SLUICE_DMA_ERR_INVAL for a NULL argument, bad alignment, size or policy,
 * @mem or @meta wrapping the address space, @meta or @dl inside @mem (it is
 * zeroed and shared), or @mem or @meta overlapping an existing pool's memory
 * or metadata; SLUICE_DMA_ERR_NOMEM if @meta_len is too small; SLUICE_DMA_ERR_IO if the
 * conversion failed (nothing added, @mem stays private); SLUICE_DMA_ERR_NOSYS,
 * with a log line naming it, for a policy this build of the library left out
 * (sluice_dma_bounce_policy_available()).
 */
int sluice_dma_bounce_pool_add(struct sluice_dma_layer *dl, enum sluice_dma_bounce_policy policy,
			       void *mem, size_t bytes, void *meta, size_t meta_len);

/**
 * sluice_dma_bounce_policy_name() - short name of a policy ("linux", "bitmap", ...).
 * @policy: the policy.
 * Return: a static string, "?" for an unknown value.
 */
const char *sluice_dma_bounce_policy_name(enum sluice_dma_bounce_policy policy);

/**
 * sluice_dma_bounce_policy_available() - whether a policy is compiled in.
 * @policy: a policy.
 *
 * A library built with `make lib SLUICE_DMA_POLICIES="..."` holds only the
 * policies named; the Sluice kernel and a default build hold all four.
 *
 * Return: true iff sluice_dma_bounce_pool_add() accepts @policy; false for a
 * policy left out of this build (the pool add returns SLUICE_DMA_ERR_NOSYS) or
 * unknown.
 */
bool sluice_dma_bounce_policy_available(enum sluice_dma_bounce_policy policy);

/**
 * sluice_dma_tag_check() - validate a tag.
 * @tag: the tag.
 * Return: 0, or SLUICE_DMA_ERR_INVAL for a mask that is not 2^k - 1 or a boundary
 * below one page.
 */
int sluice_dma_tag_check(const struct sluice_dma_tag *tag);

/**
 * sluice_dma_max_mapping_size() - largest bounce mapping the layer can make for @tag.
 * @dl: the layer.
 * @tag: the device.
 *
 * As Linux swiotlb_max_mapping_size(): the policy's largest run (128 slots =
 * 256 KiB for linux/bitmap/lifo, one area for sluice), capped by the boundary,
 * minus the room min_align_mask may need. sluice_dma_map() refuses longer buffers
 * with SLUICE_DMA_ERR_RANGE, and shorter ones only when alloc_align_mask rounds the
 * allocation beyond the policy's largest run.
 *
 * Return: bytes (the tag's max_mapping if smaller); 0 without reachable pools.
 */
size_t sluice_dma_max_mapping_size(const struct sluice_dma_layer *dl,
				   const struct sluice_dma_tag *tag);

/**
 * sluice_dma_map() - make a buffer reachable by a device.
 * @dl: the layer.
 * @tag: the device's limits.
 * @buf: CPU address of the buffer.
 * @len: its length in bytes.
 * @dir: transfer direction.
 * @dma_addr: set to the device address on success.
 *
 * A buffer the in-place hook owns maps to itself when the device can reach it
 * within the tag's limits (otherwise it bounces). Any other buffer gets slots
 * in a bounce pool whose address keeps the bits of @buf in min_align_mask
 * (taken from the CPU address, which equals the physical address in an
 * identity-mapped kernel), starts on alloc_align_mask and crosses no
 * boundary; to-device (and bidirectional) data is copied in; from-device
 * slots are filled with the original bytes or zeros (see &enum sluice_dma_scrub).
 * Pools are tried in the order they were added.
 *
 * Return: 0; SLUICE_DMA_ERR_INVAL for a NULL or uninitialised argument, a zero length,
 * a buffer that wraps the address space, a bad direction or tag;
 * SLUICE_DMA_ERR_RANGE when @len exceeds the tag's or the layer's largest mapping
 * (sluice_dma_max_mapping_size()) or no pool lies within the tag's addressing limit;
 * SLUICE_DMA_ERR_NOMEM when every pool is full (counted, never fatal).
 */
int sluice_dma_map(struct sluice_dma_layer *dl, const struct sluice_dma_tag *tag, void *buf,
		   size_t len, enum sluice_dma_dir dir, uint64_t *dma_addr);

/**
 * sluice_dma_map_attrs() - sluice_dma_map() with attributes (SLUICE_DMA_ATTR_*).
 * @dl: the layer.
 * @tag: the device's limits.
 * @buf: CPU address of the buffer.
 * @len: in: bytes to map; out: bytes mapped (all of them unless
 *	SLUICE_DMA_ATTR_PARTIAL; 0 on failure, as EDK2's Map() leaves it).
 * @dir: transfer direction.
 * @attrs: SLUICE_DMA_ATTR_* bits.
 * @dma_addr: set to the device address on success.
 *
 * End the mapping with any unmap function and the length mapped.
 *
 * Return: as sluice_dma_map(); SLUICE_DMA_ERR_INVAL also for unknown @attrs or
 * SLUICE_DMA_ATTR_READONLY on a mapping the device writes; SLUICE_DMA_ERR_IO
 * when the port's set_access op failed to make a read-only mapping read-only
 * (nothing mapped).
 */
int sluice_dma_map_attrs(struct sluice_dma_layer *dl, const struct sluice_dma_tag *tag, void *buf,
			 size_t *len, enum sluice_dma_dir dir, unsigned int attrs,
			 uint64_t *dma_addr);

/**
 * sluice_dma_unmap() - end a mapping; from-device data is copied back first.
 * @dl: the layer.
 * @dma_addr: the address sluice_dma_map() returned.
 * @len: the length given to sluice_dma_map().
 * @dir: the direction given to sluice_dma_map().
 *
 * Return: 0; SLUICE_DMA_ERR_NOENT for an address that is not a live mapping
 * (never mapped, already unmapped, inside a mapping, coherent memory);
 * SLUICE_DMA_ERR_INVAL for a NULL or uninitialised @dl, an invalid @dir
 * (even for an in-place mapping, which needs no other work), or a live
 * mapping given with another length (0 included) or direction - on every
 * path since API 0.8: an in-place mapping's region records its start,
 * length and direction (the arena's does; a region without a find callback
 * cannot tell another length or direction from no mapping, and that is
 * NOENT); or a from-device bounce mapping made with
 * SLUICE_DMA_ATTR_UNMAP_WRITTEN (API 0.9: end it with
 * sluice_dma_unmap_written()). Refused calls change
 * nothing and log the address; a strict layer traps instead
 * (sluice_dma_layer_set_strict()).
 */
int sluice_dma_unmap(struct sluice_dma_layer *dl, uint64_t dma_addr, size_t len,
		     enum sluice_dma_dir dir);

/**
 * sluice_dma_unmap_written() - end a mapping, copying back only the first @written
 *	bytes of a from-device bounce: what the device reported it wrote (virtio's
 *	used length; a block request's size). The rest of the original buffer keeps
 *	its previous contents, and none of the slot's other bytes reach it.
 * @dl: the layer.
 * @dma_addr: the address sluice_dma_map() returned.
 * @len: the length given to sluice_dma_map().
 * @dir: the direction given to sluice_dma_map().
 * @written: bytes to copy back, at most @len (more is refused with
 *	SLUICE_DMA_ERR_INVAL: the driver must have bounded the device's claim by
 *	what it mapped).
 *
 * Same checks as sluice_dma_unmap(), but it ends a mapping made with
 * SLUICE_DMA_ATTR_UNMAP_WRITTEN; for to-device and in-place mappings it is
 * sluice_dma_unmap().
 * Return: as sluice_dma_unmap().
 */
int sluice_dma_unmap_written(struct sluice_dma_layer *dl, uint64_t dma_addr, size_t len,
			     enum sluice_dma_dir dir, size_t written);

/**
 * sluice_dma_unmap_discard() - end a mapping without copying anything back: for a
 *	from-device mapping whose data the driver found invalid (a device that
 *	lied about a length or a status), so that none of it reaches the buffer.
 * @dl: the layer.
 * @dma_addr: the address sluice_dma_map() returned.
 * @len: the length given to sluice_dma_map().
 * @dir: the direction given to sluice_dma_map().
 *
 * Same checks as sluice_dma_unmap(), but it ends a mapping made with
 * SLUICE_DMA_ATTR_UNMAP_WRITTEN; the original buffer keeps its previous
 * contents.
 * Return: as sluice_dma_unmap().
 */
int sluice_dma_unmap_discard(struct sluice_dma_layer *dl, uint64_t dma_addr, size_t len,
			     enum sluice_dma_dir dir);

/**
 * struct sluice_dma_sg - one segment of a scatter-gather list.
 * @buf: CPU address of the segment (the caller's).
 * @len: its length in bytes (the caller's).
 * @dma_addr: set by sluice_dma_map_sg() to the segment's device address.
 */
struct sluice_dma_sg {
	void *buf;
	size_t len;
	uint64_t dma_addr;
};

/**
 * struct sluice_dma_sg_limits - limits of one scatter-gather mapping (FreeBSD's
 *	bus_dma_tag nsegments / maxsegsz / maxsize, plus a bounce budget). 0 in
 *	any field: no limit beyond the tag's.
 * @max_segments: most segments in the list.
 * @max_segment_size: longest segment.
 * @max_total: most bytes in the whole list.
 * @max_bounce_slots: most 2 KiB bounce slots the list may hold at once, so
 *	that one long list cannot drain a pool that other devices share.
 */
struct sluice_dma_sg_limits {
	uint32_t max_segments;
	size_t max_segment_size;
	size_t max_total;
	uint32_t max_bounce_slots;
};

/**
 * sluice_dma_map_sg() - map every segment of a list, or none.
 * @dl: the layer.
 * @tag: the device's limits (applied to each segment).
 * @sg: the segments; each one's @dma_addr is set.
 * @nents: number of segments (>= 1).
 * @dir: direction of every segment.
 * @limits: the list's limits, or NULL for none.
 *
 * Each segment is mapped as sluice_dma_map() would (in place or bounced;
 * segments are not merged). All or nothing: when a segment fails, the
 * segments already mapped are unmapped without copying anything back, and
 * the list is as before the call.
 *
 * Return: 0; SLUICE_DMA_ERR_INVAL for a bad argument or a segment
 * sluice_dma_map() would refuse as invalid; SLUICE_DMA_ERR_RANGE when the list
 * exceeds @limits' segment count, segment size or total (checked before
 * anything is mapped), or a segment exceeds the tag's limits;
 * SLUICE_DMA_ERR_NOMEM when the pools are full or the list would hold more
 * than @limits->max_bounce_slots slots.
 */
int sluice_dma_map_sg(struct sluice_dma_layer *dl, const struct sluice_dma_tag *tag,
		      struct sluice_dma_sg *sg, unsigned int nents, enum sluice_dma_dir dir,
		      const struct sluice_dma_sg_limits *limits);

/**
 * sluice_dma_unmap_sg() - end every mapping of a list sluice_dma_map_sg() mapped.
 * @dl: the layer.
 * @sg: the list, as mapped.
 * @nents: the count given to sluice_dma_map_sg().
 * @dir: the direction given to sluice_dma_map_sg().
 *
 * From-device data is copied back segment by segment. Every segment is
 * attempted even after one is refused.
 * Return: 0, or the first error sluice_dma_unmap() returned for a segment.
 */
int sluice_dma_unmap_sg(struct sluice_dma_layer *dl, struct sluice_dma_sg *sg, unsigned int nents,
			enum sluice_dma_dir dir);

/**
 * sluice_dma_sync_for_cpu() - give the CPU ownership of part of a mapping: copy what
 *	the device wrote back into the original buffer.
 * @dl: the layer.
 * @dma_addr: the mapping's address.
 * @offset: first byte to sync, relative to @dma_addr.
 * @len: bytes to sync.
 * @dir: the mapping's direction.
 * Return: 0 (a to-device mapping needs no copy); SLUICE_DMA_ERR_PERM if @dir is not
 * the mapping's direction (exactly: a bidirectional mapping synced as
 * from-device is refused too); SLUICE_DMA_ERR_RANGE if the range leaves the
 * mapping; SLUICE_DMA_ERR_INVAL for a zero @len, an invalid @dir or a NULL or
 * uninitialised @dl; SLUICE_DMA_ERR_NOENT for a @dma_addr that is no live
 * mapping's start (logged; a strict layer traps, as for an unmap: a sync of
 * memory the caller does not own is the same programmer error). In place,
 * the same rules (API 0.8) when the region has a find callback (the
 * arena's); without one only the block that holds the mapping is checked.
 * A from-device bounce mapping made with SLUICE_DMA_ATTR_UNMAP_WRITTEN is
 * refused with SLUICE_DMA_ERR_INVAL and logged (API 0.9): its slots hold
 * earlier bytes wherever the device has not written.
 */
int sluice_dma_sync_for_cpu(struct sluice_dma_layer *dl, uint64_t dma_addr, size_t offset,
			    size_t len, enum sluice_dma_dir dir);

/**
 * sluice_dma_sync_for_device() - give the device ownership again: copy what the CPU
 *	wrote into the slots.
 * @dl: the layer.
 * @dma_addr: the mapping's address.
 * @offset: first byte to sync, relative to @dma_addr.
 * @len: bytes to sync.
 * @dir: the mapping's direction.
 * Return: as sluice_dma_sync_for_cpu() (a from-device mapping needs no copy).
 */
int sluice_dma_sync_for_device(struct sluice_dma_layer *dl, uint64_t dma_addr, size_t offset,
			       size_t len, enum sluice_dma_dir dir);

/**
 * sluice_dma_set_access() - change what the device may do with a live mapping
 *	(EDK2's SetAttribute): through the port's set_access op.
 * @dl: the layer.
 * @dma_addr: a live bounce mapping made with SLUICE_DMA_ATTR_OWN_PAGES (or
 *	READONLY), or coherent memory of at least a page.
 * @access: SLUICE_DMA_ACCESS_* bits, 0 for none.
 *
 * The access holds until it is changed again or the mapping ends (which
 * restores read and write).
 * Return: 0; SLUICE_DMA_ERR_NOSYS when the port has no set_access op;
 * SLUICE_DMA_ERR_INVAL for unknown @access bits or a NULL or uninitialised
 * @dl; SLUICE_DMA_ERR_NOENT for an address that is no live mapping (a
 * strict layer traps); SLUICE_DMA_ERR_PERM for a mapping that shares its
 * pages (made without OWN_PAGES, coherent memory below a page, or in place);
 * the op's error (the access is then unknown: restore it or unmap).
 */
int sluice_dma_set_access(struct sluice_dma_layer *dl, uint64_t dma_addr, unsigned int access);

/**
 * sluice_dma_alloc_coherent() - allocate zeroed shared memory for rings and headers.
 * @dl: the layer.
 * @tag: the device's limits (alloc_align_mask and boundary are honoured; the
 *	memory is at least page aligned when @size >= 4 KiB).
 * @size: bytes.
 * @dma_addr: set to the device address.
 * Return: the CPU address, or NULL; sluice_dma_alloc_attrs() says why.
 */
void *sluice_dma_alloc_coherent(struct sluice_dma_layer *dl, const struct sluice_dma_tag *tag,
				size_t size, uint64_t *dma_addr);

/**
 * sluice_dma_alloc_attrs() - sluice_dma_alloc_coherent() with a reason for failure.
 * @dl: the layer.
 * @tag: the device's limits.
 * @size: bytes.
 * @attrs: 0 (reserved for attributes; any bit is refused).
 * @vaddr: set to the CPU address.
 * @dma_addr: set to the device address.
 *
 * Memory up to the bounce pools' longest run (sluice_dma_max_mapping_size()
 * with no min_align_mask: 256 KiB with the linux, bitmap and lifo policies,
 * an area with sluice) comes from the pools. Longer memory comes from the
 * in-place region's allocator when one is registered (the arena: up to
 * 2 MB, aligned to its power-of-two size): coherent memory needs no
 * bounce slots, only shared pages, which is what Linux's dma-direct does
 * too. If the pools are full a request they could hold also tries the
 * region.
 *
 * Return: 0; SLUICE_DMA_ERR_INVAL for a NULL or uninitialised argument, a
 * zero @size, a bad tag or @attrs; SLUICE_DMA_ERR_RANGE for a @size above the
 * tag's max_mapping or beyond what the pools and the region can ever hold
 * for the tag; SLUICE_DMA_ERR_NOMEM when there is no room now.
 */
int sluice_dma_alloc_attrs(struct sluice_dma_layer *dl, const struct sluice_dma_tag *tag,
			   size_t size, unsigned int attrs, void **vaddr, uint64_t *dma_addr);

/**
 * sluice_dma_free_coherent() - release memory from sluice_dma_alloc_coherent().
 * @dl: the layer.
 * @vaddr: the CPU address returned.
 * @size: the size requested.
 * Return: 0; SLUICE_DMA_ERR_NOENT for a @vaddr that is no live coherent
 * allocation (never allocated, freed already, a streaming mapping, inside
 * one); SLUICE_DMA_ERR_INVAL for another @size or a NULL or uninitialised
 * @dl; for memory from the region, its free's error (SLUICE_DMA_ERR_BUSY:
 * still mapped). Refused calls change nothing and log the address; a
 * strict layer traps instead.
 */
int sluice_dma_free_coherent(struct sluice_dma_layer *dl, void *vaddr, size_t size);

/**
 * struct sluice_dma_mapping_info - one live mapping, as sluice_dma_mapping_foreach()
 *	reports it.
 * @dma_addr: its device address (what unmap or free_coherent takes, via
 *	@vaddr for coherent memory).
 * @len: its length.
 * @orig: the caller's buffer (NULL for coherent memory).
 * @vaddr: CPU address of its slots.
 * @dir: its direction (BIDIRECTIONAL for coherent memory).
 * @coherent: whether it is coherent memory rather than a streaming mapping.
 * @pool: index of its pool; SLUICE_DMA_POOL_NONE for an in-place record.
 * @in_place: (API 0.6) an in-place mapping or coherent memory from the
 *	in-place region (@vaddr is the buffer itself; @dir is the direction
 *	the region recorded at map, since API 0.8, BIDIRECTIONAL for a region
 *	that records none).
 */
struct sluice_dma_mapping_info {
	uint64_t dma_addr;
	size_t len;
	void *orig;
	void *vaddr;
	uint32_t dir;
	bool coherent;
	uint32_t pool;
	bool in_place;
};

/* &struct sluice_dma_mapping_info.pool of a record that is in no pool. */
#define SLUICE_DMA_POOL_NONE (~0u)

/**
 * sluice_dma_mapping_foreach() - call @fn for every live bounce mapping and
 *	coherent allocation of the pools, in pool and address order, then for
 *	every in-place mapping and coherent allocation of the in-place region
 *	when the region can walk its records (the arena's can).
 * @dl: the layer; the caller must keep mappers away (the walk takes no lock).
 * @fn: the callback; a non-zero return stops the walk and is returned. It may
 *	end the mapping it is given (unmap or free_coherent) and no other.
 * @arg: handed to @fn.
 *
 * Of a region without a walk callback, in-place mappings and coherent memory
 * are not reported; the destroy report counts them. A region shared by
 * several layers reports every layer's records.
 * Return: 0 after a full walk, @fn's non-zero value, or SLUICE_DMA_ERR_INVAL
 * for a NULL or uninitialised @dl or a NULL @fn.
 */
int sluice_dma_mapping_foreach(struct sluice_dma_layer *dl,
			       int (*fn)(void *arg, const struct sluice_dma_mapping_info *m),
			       void *arg);

/* sluice_dma_unmap_all() flags. */
#define SLUICE_DMA_UNMAP_ALL_DISCARD 0x1u  /* copy nothing back to the CPU buffers */
#define SLUICE_DMA_UNMAP_ALL_COHERENT 0x2u /* also free the pools' coherent memory */

/**
 * sluice_dma_unmap_all() - end every live streaming bounce mapping at once: the
 *	teardown at ExitBootServices, when every driver has stopped its device
 *	(OVMF's IoMmuDxe unmaps all its mappings then; OvmfPkg/IoMmuDxe/CcIoMmu.c
 *	in tianocore/edk2, IoMmuUnmapAllMappings()).
 * @dl: the layer; no other thread may use it during the call.
 * @flags: SLUICE_DMA_UNMAP_ALL_* bits. Without DISCARD, from-device data is
 *	copied back as sluice_dma_unmap() does (as OVMF's Unmap does for
 *	BusMasterWrite), except into the buffer of a mapping made with
 *	SLUICE_DMA_ATTR_UNMAP_WRITTEN, whose written length nobody told;
 *	with COHERENT, coherent allocations are freed too (the
 *	CPU addresses their owners hold become invalid).
 * @count: set to the number of mappings (and allocations) ended; may be NULL.
 *
 * Touches no memory outside the layer's pools, the in-place region's
 * metadata and the mapped buffers, and converts nothing (the memory map may
 * be locked). In-place mappings end too, and with COHERENT the region's
 * coherent memory is freed, when the region can walk its records (API 0.6;
 * the arena's can): everything sluice_dma_mapping_foreach() lists ends, and
 * sluice_dma_layer_destroy() can follow.
 * Return: 0, or SLUICE_DMA_ERR_INVAL for a NULL or uninitialised @dl or an
 * unknown flag.
 */
int sluice_dma_unmap_all(struct sluice_dma_layer *dl, unsigned int flags, unsigned long *count);

/**
 * sluice_dma_addr_is_shared() - whether a device address range lies entirely in
 *	shared memory the layer converted (a pool) or the in-place hook owns.
 * @dl: the layer.
 * @dma_addr: start of the range.
 * @len: its length (0 is treated as 1).
 * Return: true when a device may be given this range; false for a NULL @dl
 * or a range that wraps.
 */
bool sluice_dma_addr_is_shared(const struct sluice_dma_layer *dl, uint64_t dma_addr, size_t len);

/**
 * sluice_dma_bounce_pool_count() - number of pools added so far.
 * @dl: the layer.
 * Return: the count; 0 for a NULL @dl.
 */
unsigned int sluice_dma_bounce_pool_count(const struct sluice_dma_layer *dl);

/**
 * sluice_dma_bounce_stats_get() - read the statistics of one pool or of all pools.
 * @dl: the layer.
 * @pool: pool index in order of addition, or -1 for the sum of all pools.
 * @out: filled in. Counters are read without stopping mappers: each is exact,
 *	their combination is a snapshot only when the layer is idle.
 * Return: 0; SLUICE_DMA_ERR_INVAL for a NULL argument or @pool below -1;
 * SLUICE_DMA_ERR_NOENT for no such pool.
 */
int sluice_dma_bounce_stats_get(const struct sluice_dma_layer *dl, int pool,
				struct sluice_dma_bounce_stats *out);

/**
 * sluice_dma_bounce_stats_print() - print every pool's statistics through the ops' log.
 * @dl: the layer (NULL: there is nothing to print with; nothing happens).
 */
void sluice_dma_bounce_stats_print(const struct sluice_dma_layer *dl);

/**
 * sluice_dma_layer_check() - self-check of every pool (for tests; the layer must be
 *	idle): live mappings do not overlap, every slot is either free in the
 *	policy's structures or inside exactly one live mapping, the policy's
 *	counters agree with a recount, the pool memory is where it was.
 * @dl: the layer.
 * Return: 0; SLUICE_DMA_ERR_INVAL for a NULL or uninitialised @dl; SLUICE_DMA_ERR_FAULT
 * after logging the first inconsistency.
 */
int sluice_dma_layer_check(const struct sluice_dma_layer *dl);

#ifdef __cplusplus
}
#endif

#endif /* SLUICE_DMA_H */
