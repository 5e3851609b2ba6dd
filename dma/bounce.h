/* SPDX-License-Identifier: MIT */
/*
 * bounce.h - internals of the bounce pool, shared by bounce.c, map.c, stats.c
 * and the policy files (bounce_<policy>.c). Not a public header: users include
 * dma/include/sluice/dma.h.
 *
 * A pool is a run of 2 KiB slots in shared memory plus metadata the caller gave:
 * the pool header, one record per slot, per-CPU statistics and the policy's own
 * structures. The policy only decides which slots a request gets; alignment and
 * boundary rules are evaluated by the helpers below so that every policy obeys
 * exactly the same constraints (those of Linux's swiotlb_search_pool_area()).
 *
 * Naming and visibility of what the files share: dma/priv.h. Logging and
 * traps: dma/log.h. Calls into the port: dma/port.h.
 */
#ifndef SLUICE_DMA_BOUNCE_H
#define SLUICE_DMA_BOUNCE_H

#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sluice/dma.h>

#include "dma/bits.h"
#include "dma/log.h"
#include "dma/stage.h"
#include "dma/port.h"
#include "dma/priv.h"

/*
 * Whether @dl went through sluice_dma_layer_init(): zeroed storage (or a NULL
 * layer) has no set_shared op, which init requires.
 */
static inline bool dma_layer_ready(const struct sluice_dma_layer *dl)
{
	return dl && dl->ops.set_shared;
}

/* Whether @dir is one of the three directions. */
static inline bool dma_dir_valid(enum sluice_dma_dir dir)
{
	return dir == SLUICE_DMA_TO_DEVICE || dir == SLUICE_DMA_FROM_DEVICE ||
	       dir == SLUICE_DMA_BIDIRECTIONAL;
}

/* The layer's ops, for the log path (NULL for no layer: nothing to log through). */
static inline const struct sluice_dma_port_ops *dma_layer_ops(const struct sluice_dma_layer *dl)
{
	return dl ? &dl->ops : NULL;
}

/*
 * DMA_REFUSE() - refuse a call with a bad handle (log.h's refusal): log the
 * message, naming the address, and return @err; a strict layer
 * (sluice_dma_layer_set_strict()) traps after the log line instead.
 */
#define DMA_REFUSE(dl, err, ...)                                                                   \
	sluice_dma_priv_refuse(dma_layer_ops(dl), (dl) && (dl)->strict, (err), __FILE__, __LINE__, \
			       __VA_ARGS__)

/*
 * DMA_ASSERT() - check a condition whose failure is a programmer error that
 * cannot be refused safely (an internal inconsistency, or a void setter
 * given no layer). The message must name the address.
 */
#define DMA_ASSERT(dl, cond, ...)                                 \
	do {                                                      \
		if (DMA_CHECKED(__builtin_expect(!(cond), 0)))    \
			DMA_FAIL(dma_layer_ops(dl), __VA_ARGS__); \
	} while (0)

/* Slot record flags. */
#define DMA_SLOT_LIVE 0x1     /* this slot holds a mapping's device address */
#define DMA_SLOT_COHERENT 0x2 /* ... of a coherent allocation */
#define DMA_SLOT_PAGES 0x4    /* ... that owns whole 4 KiB pages (OWN_PAGES, READONLY) */
#define DMA_SLOT_ACCESS 0x8   /* ... whose device access was narrowed (restore it) */
#define DMA_SLOT_WRITTEN 0x10 /* ... from the device, made with SLUICE_DMA_ATTR_UNMAP_WRITTEN */

/**
 * struct dma_bounce_slot - record of a mapping, kept in the slot that holds the
 *	mapping's device address (Linux keeps orig_addr/alloc_size per slot).
 * @orig: the original buffer (NULL for coherent memory).
 * @len: mapping length in bytes; every copy is bounded by it.
 * @nslots: slots allocated, counted from the head slot.
 * @pad: slots between the head slot and this one (alignment padding).
 * @off: offset of the device address inside this slot.
 * @dir: &enum sluice_dma_dir of the mapping.
 * @flags: DMA_SLOT_*; zero when this slot holds no mapping address.
 * @owner: the policy's word for the run that starts at this slot, whether or
 *	not this slot holds the mapping's record (the `sluice` policy: the CPU
 *	that allocated it). It sits in the record, not in an array of the
 *	policy's, so that a free reads the line the unmap has just read; no
 *	record write touches it.
 */
struct dma_bounce_slot {
	void *orig;
	uint32_t len;
	uint32_t nslots;
	uint16_t pad;
	uint16_t off;
	uint8_t dir;
	uint8_t flags;
	uint16_t owner;
};
_Static_assert(sizeof(struct dma_bounce_slot) <= 24, "slot record grew");

/**
 * struct dma_bounce_pcpu - per-CPU counters of one pool, one cache line each so
 *	that CPUs never share a line on the map path. Written only through
 *	dma_pcpu_add() (relaxed, so a reader never sees a torn value).
 *	@fast_maps counts the mappings the bounce path made from a magazine hit
 *	(bounce.c's take): each is also one mapping, one search step and one
 *	cache hit, and is folded into those three when read (stats.c), so the
 *	common map updates one counter where it updated three. Likewise
 *	@search_steps holds the candidates that did not serve the request: a
 *	cache hit is one candidate more, added to the steps when read, so a
 *	slot alloc's magazine hit updates @cache_hits alone.
 */
struct dma_bounce_pcpu {
	alignas(DMA_CACHELINE) atomic_ulong mappings;
	atomic_ulong unmaps;
	atomic_ulong bytes_to_device;
	atomic_ulong bytes_from_device;
	atomic_ulong bytes_scrubbed;
	atomic_ulong search_steps;
	atomic_ulong cache_hits;
	atomic_ulong fast_maps;
};
_Static_assert(sizeof(struct dma_bounce_pcpu) == DMA_CACHELINE, "pcpu stats fill one line");

/**
 * struct dma_bounce_req - one slot request, normalised as Linux does it.
 * @orig: original buffer address (0: no min_align matching, coherent memory).
 * @alloc_size: bytes to allocate, including the min_align offset.
 * @nslots: slots to allocate.
 * @alloc_align_mask: required alignment - 1 of the first slot (>= 2047).
 * @iotlb_align_mask: bits of @orig the first slot's address must repeat.
 * @stride: slots to step after an aligned candidate failed.
 * @boundary_mask: the tag's boundary mask.
 * @max_slots: the boundary in slots.
 */
struct dma_bounce_req {
	uint64_t orig;
	uint64_t alloc_size;
	unsigned long nslots;
	uint64_t alloc_align_mask;
	uint64_t iotlb_align_mask;
	unsigned long stride;
	uint64_t boundary_mask;
	uint64_t max_slots;
};

struct sluice_dma_bounce_pool;

/**
 * struct dma_bounce_policy_ops - what a policy implements.
 * @meta_size: bytes of policy metadata for the geometry.
 * @init: set up the policy metadata at @meta: every slot free.
 * @fini: the pool is released (layer destroy): lock_destroy every lock @init
 *	initialised (port.h); nothing else, the metadata goes back to the caller.
 * @alloc: find and take @req->nslots slots, searching from @cpu's area;
 *	add candidate checks to *@steps. Return the first slot or -1.
 * @free: give back @nslots slots from @head (freed on @cpu).
 * @flush: return slots held in per-CPU caches to the areas (may be NULL).
 * @is_free: whether slot @s is free (in the areas or a cache).
 * @used: slots not free.
 * @max_slots: largest run this policy can ever allocate.
 * @check: policy invariants, given the slots that live records cover
 *	(@covered(s)). Return 0 or log and return SLUICE_DMA_ERR_FAULT.
 * @walk_oversize: a request within the maximum mapping size that padding
 *	makes longer than @max_slots (or than its boundary allows) still runs
 *	@alloc, which walks every area and fails, before the layer refuses it:
 *	what Linux's swiotlb_find_slots() spends on such a request, so that the
 *	`linux` policy's failure costs what upstream's does. The other policies
 *	refuse at once; a request over the maximum mapping size is refused at
 *	once for all.
 */
struct dma_bounce_policy_ops {
	size_t (*meta_size)(unsigned long nslabs, unsigned int nareas, unsigned int ncpus);
	void (*init)(struct sluice_dma_bounce_pool *p, void *meta);
	void (*fini)(struct sluice_dma_bounce_pool *p);
	long (*alloc)(struct sluice_dma_bounce_pool *p, const struct dma_bounce_req *req,
		      unsigned int cpu, unsigned long *steps);
	void (*free)(struct sluice_dma_bounce_pool *p, unsigned long head, unsigned long nslots,
		     unsigned int cpu);
	void (*flush)(struct sluice_dma_bounce_pool *p);
	bool (*is_free)(const struct sluice_dma_bounce_pool *p, unsigned long s);
	unsigned long (*used)(const struct sluice_dma_bounce_pool *p);
	unsigned long (*max_slots)(const struct sluice_dma_bounce_pool *p);
	int (*check)(const struct sluice_dma_bounce_pool *p);
	bool walk_oversize;
};

/**
 * struct sluice_dma_bounce_pool - one pool (header of its metadata block).
 * @next: next pool of the layer (appended by growth, never removed while the
 *	layer lives).
 * @dl: the layer.
 * @pops: the policy.
 * @policy: its enum value.
 * @index: position in the layer's list.
 * @vaddr: CPU address of slot 0.
 * @dma_start: device address of slot 0.
 * @bytes: memory converted for the pool (all of it, unused tail included).
 * @nslabs: usable slots (nareas * area_nslabs).
 * @nareas: areas, each with its own lock and search state.
 * @area_nslabs: slots per area, a multiple of 128.
 * @slots: one record per slot.
 * @pcpu: per-CPU counters, dl->ncpus of them.
 * @priv: the policy's metadata.
 * @total_used: slots out of the areas, as Linux's total_used (see
 *	dma_bounce_used_add()).
 * @used_hiwater: highest @total_used.
 * @full_events: requests this pool could not satisfy.
 * @conversions: conversion calls.
 * @conversion_cycles: their cost.
 * @leaked_bytes: bytes that failed to go back to private.
 */
struct sluice_dma_bounce_pool {
	struct sluice_dma_bounce_pool *_Atomic next;
	struct sluice_dma_layer *dl;
	const struct dma_bounce_policy_ops *pops;
	enum sluice_dma_bounce_policy policy;
	unsigned int index;
	unsigned char *vaddr;
	uint64_t dma_start;
	size_t bytes;
	unsigned long nslabs;
	unsigned int nareas;
	unsigned long area_nslabs;
	unsigned long max_slots; /* pops->max_slots(), constant: read once at the add */
	uint64_t dma_last;	 /* device address of the last byte of the slots */
	bool fast_sluice;	 /* the `sluice` policy on a page-aligned pool: */
				 /* the common request pops a magazine directly */
	struct dma_bounce_slot *slots;
	struct dma_bounce_pcpu *pcpu;
	void *priv;
	alignas(DMA_CACHELINE) atomic_ulong total_used;
	atomic_ulong used_hiwater;
	alignas(DMA_CACHELINE) atomic_ulong full_events;
	uint64_t conversions;
	uint64_t conversion_cycles;
	uint64_t leaked_bytes;
};

/*
 * What SLUICE_DMA_BOUNCE_META_SIZE() (dma.h) assumes of the policies: an area
 * structure of at most DMA_META_AREA_MAX bytes (two areas per CPU at most),
 * the sluice policy's per-CPU magazines of at most DMA_META_SLUICE_CPU_MAX,
 * per-slot state of at most 8 bytes and a bit, and a policy header of at most
 * a cache line. Each policy file checks its structures against these.
 */
#define DMA_META_AREA_MAX 128u
#define DMA_META_SLUICE_CPU_MAX 640u
_Static_assert(DMA_CACHELINE + 2 * DMA_META_AREA_MAX + DMA_META_SLUICE_CPU_MAX <=
		       SLUICE_DMA_BOUNCE_META_PER_CPU,
	       "per-CPU metadata bound");
_Static_assert(24 + 8 + 1 <= SLUICE_DMA_BOUNCE_META_PER_SLOT, "per-slot metadata bound");

/*
 * The policies compiled in: every one of SLUICE_DMA_POLICIES()
 * (<sluice/dma_policies.h>), unless the library was built with
 * `make lib SLUICE_DMA_POLICIES="..."` (dma/build.mk), which defines
 * SLUICE_DMA_POLICIES_SELECTED and SLUICE_DMA_WITH_<UPPER> for each policy
 * named (to 1, as -D does) and leaves the other policies' files out of the
 * archive. The kernel and the tests compile every file and define neither.
 *
 * DMA_POLICY_WITH(UPPER) is 1 or 0 whether or not SLUICE_DMA_WITH_<UPPER> is
 * defined, usable inside the list's expansion where #ifdef is not: the way
 * IS_ENABLED() of Linux's include/linux/kconfig.h tells a config option set
 * to 1 from one not defined (a defined 1 pastes into DMA_PASTED_1, which
 * expands to "0," and shifts the argument list by one; anything else pastes
 * into a name nothing defines, and the list is not shifted).
 */
#define DMA_PASTED_1 0,
#define DMA_SECOND_ARG(a, b, ...) b
#define DMA_IS_ONE__(one_or_junk) DMA_SECOND_ARG(one_or_junk 1, 0, 0)
#define DMA_IS_ONE_(val) DMA_IS_ONE__(DMA_PASTED_##val)
#define DMA_IS_ONE(macro) DMA_IS_ONE_(macro)
#ifdef SLUICE_DMA_POLICIES_SELECTED
#define DMA_POLICY_WITH(upper) DMA_IS_ONE(SLUICE_DMA_WITH_##upper)
#else
#define DMA_POLICY_WITH(upper) 1
#endif

/* Each policy's ops, defined in dma/bounce_<lower>.c (<sluice/dma_policies.h>). */
#define DMA_POLICY_OPS_DECL(upper, lower)                         \
	SLUICE_DMA_PRIV extern const struct dma_bounce_policy_ops \
		sluice_dma_priv_bounce_##lower##_ops;
SLUICE_DMA_POLICIES(DMA_POLICY_OPS_DECL)
#undef DMA_POLICY_OPS_DECL

static inline size_t dma_align_up(size_t v, size_t a)
{
	return (v + a - 1) & ~(a - 1);
}

static inline unsigned long dma_nr_slots(uint64_t bytes)
{
	return (unsigned long)((bytes + SLUICE_DMA_IO_TLB_SIZE - 1) >> SLUICE_DMA_IO_TLB_SHIFT);
}

static inline bool dma_is_mask(uint64_t m)
{
	return (m & (m + 1)) == 0;
}

/* Linux io_tlb_offset(): position of a slot inside its 128-slot segment. */
static inline unsigned long dma_seg_offset(unsigned long s)
{
	return s & (SLUICE_DMA_IO_TLB_SEGSIZE - 1);
}

/*
 * First area a CPU searches. Linux masks with nareas - 1 even when limit_nareas()
 * left a count that is not a power of two; we do the same.
 */
static inline unsigned int dma_bounce_start_area(const struct sluice_dma_bounce_pool *p,
						 unsigned int cpu)
{
	return cpu & (p->nareas - 1);
}

/* A policy's search of one area for a request: a slot or -1. */
typedef long (*dma_bounce_area_find_fn)(struct sluice_dma_bounce_pool *p,
					const struct dma_bounce_req *r, unsigned int area,
					unsigned long *steps);

/*
 * swiotlb_find_slots() without dynamic pools: the calling CPU's area first,
 * then the others in order, each searched by @find. Returns a slot or -1.
 * Nothing is refused up front: a request longer than a segment walks every
 * area and fails, as upstream (the layer sends such a request only to a
 * policy that asks for that walk, dma_bounce_policy_ops.walk_oversize).
 */
static inline long dma_bounce_search_from_cpu(struct sluice_dma_bounce_pool *p,
					      const struct dma_bounce_req *r, unsigned int cpu,
					      unsigned long *steps, dma_bounce_area_find_fn find)
{
	unsigned int start = dma_bounce_start_area(p, cpu), i = start;
	long s;

	do {
		s = find(p, r, i, steps);
		if (s >= 0)
			return s;
		if (++i >= p->nareas)
			i = 0;
	} while (i != start);
	return -1;
}

/*
 * Device address of slot @s as the search sees it: like Linux we test alignment
 * on the pool start masked by the boundary mask (tbl_dma_addr).
 */
static inline uint64_t dma_bounce_tbl_addr(const struct sluice_dma_bounce_pool *p,
					   const struct dma_bounce_req *r, unsigned long s)
{
	return (p->dma_start & r->boundary_mask) + ((uint64_t)s << SLUICE_DMA_IO_TLB_SHIFT);
}

/* Whether slot @s may start the allocation: alloc alignment and min_align bits. */
static inline bool dma_bounce_slot_aligned(const struct sluice_dma_bounce_pool *p,
					   const struct dma_bounce_req *r, unsigned long s)
{
	uint64_t a = dma_bounce_tbl_addr(p, r, s);

	if (a & r->alloc_align_mask)
		return false;
	if (r->orig && (a & r->iotlb_align_mask) != (r->orig & r->iotlb_align_mask))
		return false;
	return true;
}

/* Linux iommu_is_span_boundary() negated: [s, s + n) crosses no boundary. */
static inline bool dma_bounce_span_ok(const struct sluice_dma_bounce_pool *p,
				      const struct dma_bounce_req *r, unsigned long s,
				      unsigned long n)
{
	uint64_t shift = dma_nr_slots(p->dma_start & r->boundary_mask);

	/* max_slots is a power of two; boundary_mask == ~0 gives 2^53, no overflow. */
	shift = (shift + s) & (r->max_slots - 1);
	return shift + n <= r->max_slots;
}

/* Linux's DEBUG_FS accounting: a pool-wide atomic total and its high-water mark. */
static inline void dma_bounce_used_add(struct sluice_dma_bounce_pool *p, unsigned long n)
{
	unsigned long now = atomic_fetch_add_explicit(&p->total_used, n, memory_order_relaxed) + n;
	unsigned long old = atomic_load_explicit(&p->used_hiwater, memory_order_relaxed);

	while (now > old &&
	       !atomic_compare_exchange_weak_explicit(&p->used_hiwater, &old, now,
						      memory_order_relaxed, memory_order_relaxed))
		;
}

static inline void dma_bounce_used_sub(struct sluice_dma_bounce_pool *p, unsigned long n)
{
	atomic_fetch_sub_explicit(&p->total_used, n, memory_order_relaxed);
}

/* The exclusive case of dma_pcpu_add(): @c's one writer adds, as plain as it can. */
static inline __attribute__((always_inline)) void dma_pcpu_add_owned(atomic_ulong *c,
								     unsigned long v)
{
#ifdef SLUICE_DMA_BENCH_NO_STATS
	(void)c; /* dma_pcpu_add()'s bench-only build */
	(void)v;
	return;
#endif
	atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + v,
			      memory_order_relaxed);
}

/*
 * Add @v to a per-CPU counter of @dl's pools. Under SLUICE_DMA_PORT_CPU_EXCLUSIVE
 * there is one writer per CPU index: a relaxed load and store is exact and
 * avoids a locked instruction on the map path. Without the promise (the
 * locked path) callers may share an index, and a load and store could lose
 * an update that raced it: an atomic add keeps every counter exact, as
 * sluice_dma_bounce_stats_get() promises, for one locked instruction each.
 */
static inline __attribute__((always_inline)) void dma_pcpu_add(const struct sluice_dma_layer *dl,
							       atomic_ulong *c, unsigned long v)
{
#ifdef SLUICE_DMA_BENCH_NO_STATS
	/*
	 * Only build/bench/bench_alloc_nostats defines it: the statistics turned
	 * off, to measure what the exact-statistics promise costs. Its counters
	 * read 0; no library, kernel or test build has it.
	 */
	(void)dl;
	(void)c;
	(void)v;
	return;
#endif
	DMA_STAGE_PUSH(DMA_STAGE_STATS);
	if (dl->ops.flags & SLUICE_DMA_PORT_CPU_EXCLUSIVE)
		dma_pcpu_add_owned(c, v);
	else
		atomic_fetch_add_explicit(c, v, memory_order_relaxed);
	DMA_STAGE_POP();
}

#define DMA_ATTRS_ALL                                                                     \
	(SLUICE_DMA_ATTR_PARTIAL | SLUICE_DMA_ATTR_OWN_PAGES | SLUICE_DMA_ATTR_READONLY | \
	 SLUICE_DMA_ATTR_UNMAP_WRITTEN)

/*
 * The checks of a buffer that every map entry point makes first (map.c's,
 * and map_fast.c's leaf map, which hands a refusal to map.c to make).
 */
static inline int dma_map_args(const struct sluice_dma_layer *dl, const void *buf, size_t len,
			       enum sluice_dma_dir dir, unsigned int attrs)
{
#ifdef SLUICE_DMA_BENCH_NO_CHECKS
	(void)dl, (void)buf, (void)len, (void)dir, (void)attrs;
	return 0; /* DMA_CHECKED(): bench_alloc_nochecks only */
#endif
	if (!dma_layer_ready(dl) || !buf || !len || !dma_dir_valid(dir) || (attrs & ~DMA_ATTRS_ALL))
		return SLUICE_DMA_ERR_INVAL;
	/* The device writes a read-only mapping: a contradiction, not a hint. */
	if ((attrs & SLUICE_DMA_ATTR_READONLY) && dir != SLUICE_DMA_TO_DEVICE)
		return SLUICE_DMA_ERR_INVAL;
	/* A buffer that wraps the address space is no buffer: the copy would fault. */
	if ((uintptr_t)buf + len - 1 < (uintptr_t)buf)
		return SLUICE_DMA_ERR_INVAL;
	return 0;
}

/*
 * The tag rules every entry point checks (sluice_dma_tag_check(), which is
 * this): inline, so that the map path does not leave map.c for them.
 */
static inline int dma_tag_check(const struct sluice_dma_tag *tag)
{
#ifdef SLUICE_DMA_BENCH_NO_CHECKS
	(void)tag;
	return 0; /* DMA_CHECKED(): bench_alloc_nochecks only */
#endif
	if (!tag)
		return SLUICE_DMA_ERR_INVAL;
	if (!dma_is_mask(tag->min_align_mask) || !dma_is_mask(tag->alloc_align_mask) ||
	    !dma_is_mask(tag->boundary_mask))
		return SLUICE_DMA_ERR_INVAL;
	/* A boundary below a page could not hold a page-aligned mapping. */
	if (tag->boundary_mask < SLUICE_DMA_PAGE_SIZE - 1)
		return SLUICE_DMA_ERR_INVAL;
	/* An alignment wider than the boundary can never be met inside it. */
	if (tag->alloc_align_mask > tag->boundary_mask)
		return SLUICE_DMA_ERR_INVAL;
	if (tag->addr_limit == 0)
		return SLUICE_DMA_ERR_INVAL;
	return 0;
}

/*
 * dma_tag_check_plain() - dma_tag_check() for the map path: a plain tag (no
 * alignment, no min_align bits, no boundary: the common request's, and
 * SLUICE_DMA_TAG_DEFAULT's) passes every mask rule by its shape, so only its
 * address limit is left to check; any other tag gets every rule. *@plain
 * says which it was (take's common request needs a plain tag).
 */
static inline bool dma_tag_plain(const struct sluice_dma_tag *tag)
{
	return tag && !(tag->min_align_mask | tag->alloc_align_mask) &&
	       tag->boundary_mask == SLUICE_DMA_NO_LIMIT;
}

static inline int dma_tag_check_plain(const struct sluice_dma_tag *tag, bool *plain)
{
	*plain = dma_tag_plain(tag);
	if (!*plain)
		return dma_tag_check(tag);
	return DMA_CHECKED(tag->addr_limit == 0) ? SLUICE_DMA_ERR_INVAL : 0;
}

/* CPU and device address of byte @off of slot @s. */
static inline void *dma_slot_vaddr(const struct sluice_dma_bounce_pool *p, unsigned long s,
				   unsigned int off)
{
	return p->vaddr + ((size_t)s << SLUICE_DMA_IO_TLB_SHIFT) + off;
}

static inline uint64_t dma_slot_addr(const struct sluice_dma_bounce_pool *p, unsigned long s,
				     unsigned int off)
{
	return p->dma_start + ((uint64_t)s << SLUICE_DMA_IO_TLB_SHIFT) + off;
}

/* The pool is usable for @tag only if the device reaches all of it. */
static inline bool dma_pool_reachable(const struct sluice_dma_bounce_pool *p,
				      const struct sluice_dma_tag *tag)
{
	return p->dma_last <= tag->addr_limit;
}

/* The longest mapping @p can take for @tag (sluice_dma_max_mapping_size()'s per pool). */
static inline size_t dma_pool_max_mapping(const struct sluice_dma_bounce_pool *p,
					  const struct sluice_dma_tag *tag)
{
	uint64_t bytes = (uint64_t)p->max_slots << SLUICE_DMA_IO_TLB_SHIFT;
	uint64_t boundary = tag->boundary_mask + 1;
	uint64_t min_align = 0;

	if (tag->boundary_mask != SLUICE_DMA_NO_LIMIT && boundary < bytes)
		bytes = boundary;
	/* As swiotlb_max_mapping_size(): the min_align offset can take up to this. */
	if (tag->min_align_mask)
		min_align = (tag->min_align_mask + SLUICE_DMA_IO_TLB_SIZE) &
			    ~(uint64_t)(SLUICE_DMA_IO_TLB_SIZE - 1);
	return bytes > min_align ? (size_t)(bytes - min_align) : 0;
}

/* Device address and length of the whole pages a DMA_SLOT_PAGES mapping owns. */
static inline void dma_rec_pages(const struct sluice_dma_bounce_pool *p, unsigned long s,
				 const struct dma_bounce_slot *rec, uint64_t *addr, size_t *len)
{
	*addr = dma_slot_addr(p, s - rec->pad, 0);
	*len = (size_t)rec->nslots << SLUICE_DMA_IO_TLB_SHIFT;
}

/**
 * struct dma_bounce_map - what sluice_dma_priv_bounce_take() gives the map
 *	path: the pool, the slot of the mapping's address and its record.
 */
struct dma_bounce_map {
	struct sluice_dma_bounce_pool *pool;
	unsigned long slot;
	struct dma_bounce_slot *rec;
};

/* sluice_dma_priv_bounce_release(): the address lies in no pool (in place, or nothing). */
#define DMA_BOUNCE_NOT_POOL 1

/* The layer's calls into the port (port.h, where the rules live). */
static inline void dma_lock_init(const struct sluice_dma_layer *dl, struct sluice_dma_port_lock *l)
{
	dma_port_lock_init(&dl->ops, l);
}

static inline void dma_lock_destroy(const struct sluice_dma_layer *dl,
				    struct sluice_dma_port_lock *l)
{
	dma_port_lock_destroy(&dl->ops, l);
}

static inline void dma_lock(const struct sluice_dma_layer *dl, struct sluice_dma_port_lock *l)
{
	dma_port_lock(&dl->ops, l);
}

static inline void dma_unlock(const struct sluice_dma_layer *dl, struct sluice_dma_port_lock *l)
{
	dma_port_unlock(&dl->ops, l);
}

static inline unsigned int dma_cpu(const struct sluice_dma_layer *dl)
{
	return dma_port_cpu(&dl->ops, dl->ncpus);
}

static inline void dma_cache(const struct sluice_dma_layer *dl, void *vaddr, size_t len,
			     enum sluice_dma_cache_op op)
{
	dma_port_cache(&dl->ops, vaddr, len, op);
}

static inline uint64_t dma_cycles(const struct sluice_dma_layer *dl)
{
	return dma_port_cycles(&dl->ops);
}

/*
 * Profiling of the copies (sluice_dma_layer_set_profile(), off by default): a
 * cycle stamp, or 0 when profiling is off. Off, a copy costs one load and a
 * branch here and no counter read.
 */
static inline uint64_t dma_copy_start(const struct sluice_dma_layer *dl)
{
	uint64_t t0;
	DMA_STAGE_PUSH(DMA_STAGE_STATS);

	t0 = __builtin_expect(dl->profile, 0) ? dl->ops.cycles(dl->ops.ctx) : 0;
	DMA_STAGE_POP();
	return t0;
}

static inline void dma_copy_end(struct sluice_dma_layer *dl, uint64_t t0)
{
	DMA_STAGE_PUSH(DMA_STAGE_STATS);

	if (t0)
		__atomic_fetch_add(&dl->copy_cycles, dl->ops.cycles(dl->ops.ctx) - t0,
				   __ATOMIC_RELAXED);
	DMA_STAGE_POP();
}

/* Carve @size bytes aligned to a cache line from *@cur. */
static inline void *dma_carve(unsigned char **cur, size_t size)
{
	void *p = *cur;

	*cur += dma_align_up(size, DMA_CACHELINE);
	return p;
}

/*
 * bounce.c. Internal, but checked like the public API: bad arguments get
 * SLUICE_DMA_ERR_INVAL / NULL / 0 (ops_of, req_init, pool_of, pool_max_slots), and
 * an alloc or free with a CPU index, slot count or slot range the pool cannot
 * have traps with a message (they index per-CPU and per-slot arrays).
 */
SLUICE_DMA_PRIV const struct dma_bounce_policy_ops *
sluice_dma_priv_bounce_ops_of(enum sluice_dma_bounce_policy policy);
SLUICE_DMA_PRIV int sluice_dma_priv_bounce_req_init(struct dma_bounce_req *r,
						    const struct sluice_dma_tag *tag, uint64_t orig,
						    size_t len, uint64_t *offset);
/*
 * dma_bounce_req_plain() - the request for @len bytes (1 to UINT32_MAX) at
 * @orig under a plain tag (dma_tag_plain()): no offset, no rounding, no
 * boundary, a page's alignment from a page up. It is what the general rules of
 * sluice_dma_priv_bounce_req_init() give for such a tag, built without running
 * them (test_linux_trace replays upstream's slot choices for plain requests of
 * every length class through it).
 */
static inline void dma_bounce_req_plain(struct dma_bounce_req *r, uint64_t orig, size_t len)
{
	uint64_t align =
		(len >= SLUICE_DMA_PAGE_SIZE ? SLUICE_DMA_PAGE_SIZE : SLUICE_DMA_IO_TLB_SIZE) - 1;

	r->orig = orig;
	r->alloc_size = len;
	r->nslots = dma_nr_slots(len);
	r->alloc_align_mask = align;
	r->iotlb_align_mask = 0;
	r->stride = (unsigned long)(align >> SLUICE_DMA_IO_TLB_SHIFT) + 1;
	r->boundary_mask = SLUICE_DMA_NO_LIMIT;
	r->max_slots = (SLUICE_DMA_NO_LIMIT >> SLUICE_DMA_IO_TLB_SHIFT) + 1;
}

/*
 * dma_bounce_req_init() - sluice_dma_priv_bounce_req_init() for callers that
 * pass a request and offset of their own: a plain tag's request is built
 * inline, with no call (the general map path's and the slot cell's common
 * case); any other tag or length, and any NULL argument, goes to the full
 * rules.
 */
static inline int dma_bounce_req_init(struct dma_bounce_req *r, const struct sluice_dma_tag *tag,
				      uint64_t orig, size_t len, uint64_t *offset)
{
	/* @r and @offset too, so every input answers as the full rules do. */
	if (r && offset && len && len <= UINT32_MAX && dma_tag_plain(tag)) {
		dma_bounce_req_plain(r, orig, len);
		*offset = 0;
		return 0;
	}
	return sluice_dma_priv_bounce_req_init(r, tag, orig, len, offset);
}

SLUICE_DMA_PRIV struct sluice_dma_bounce_pool *
sluice_dma_priv_bounce_pool_of(const struct sluice_dma_layer *dl, uint64_t dma_addr);
SLUICE_DMA_PRIV long sluice_dma_priv_bounce_alloc(struct sluice_dma_bounce_pool *p,
						  const struct dma_bounce_req *r, unsigned int cpu);
SLUICE_DMA_PRIV void sluice_dma_priv_bounce_free(struct sluice_dma_bounce_pool *p,
						 unsigned long head, unsigned long nslots,
						 unsigned int cpu);
SLUICE_DMA_PRIV unsigned long
sluice_dma_priv_bounce_pool_max_slots(const struct sluice_dma_bounce_pool *p);
/*
 * The bounce path read top to bottom (docs/ARCHITECTURE.md): a map runs take
 * (pool choice, slots, record, the copy or scrub into them) and an unmap
 * release (lookup and its refusals, the copy back, the record cleared, the
 * slots freed), both inline from bounce_hit.h; take calls the general path
 * below for every request the CPU's magazine does not serve. The rest serve
 * the other entry points of map.c (sync, access, coherent memory, teardown)
 * with the same inline functions.
 */
/* map_fast.c: the common map and unmap, their decision, and map.c's paths for the rest. */
SLUICE_DMA_PRIV uint8_t sluice_dma_priv_fast_decide(const struct sluice_dma_layer *dl);
SLUICE_DMA_PRIV int sluice_dma_priv_map(struct sluice_dma_layer *dl,
					const struct sluice_dma_tag *tag, void *buf, size_t len,
					enum sluice_dma_dir dir, uint64_t *dma_addr);
SLUICE_DMA_PRIV int sluice_dma_priv_unmap(struct sluice_dma_layer *dl, uint64_t dma_addr,
					  size_t len, enum sluice_dma_dir dir);
SLUICE_DMA_PRIV int sluice_dma_priv_unmap_written(struct sluice_dma_layer *dl, uint64_t dma_addr,
						  size_t len, enum sluice_dma_dir dir,
						  size_t written);
SLUICE_DMA_PRIV int sluice_dma_priv_unmap_discard(struct sluice_dma_layer *dl, uint64_t dma_addr,
						  size_t len, enum sluice_dma_dir dir);
SLUICE_DMA_PRIV int sluice_dma_priv_bounce_take(struct sluice_dma_layer *dl,
						const struct sluice_dma_tag *tag, void *orig,
						size_t len, enum sluice_dma_dir dir, uint8_t flags,
						struct dma_bounce_map *m);
SLUICE_DMA_PRIV int sluice_dma_priv_bounce_take_general(struct sluice_dma_layer *dl,
							struct sluice_dma_bounce_pool *p,
							const struct sluice_dma_tag *tag,
							unsigned int cpu, void *orig, size_t len,
							enum sluice_dma_dir dir, uint8_t flags,
							struct dma_bounce_map *m);
SLUICE_DMA_PRIV int sluice_dma_priv_bounce_lookup(struct sluice_dma_layer *dl, uint64_t dma_addr,
						  int kind, struct dma_bounce_map *m,
						  const char *what);
SLUICE_DMA_PRIV void sluice_dma_priv_bounce_end(struct sluice_dma_layer *dl,
						const struct dma_bounce_map *m, size_t written);
SLUICE_DMA_PRIV void sluice_dma_priv_bounce_put(struct sluice_dma_layer *dl,
						const struct dma_bounce_map *m, unsigned int cpu);
/*
 * The `sluice` policy's alloc and free, called directly (no indirect call)
 * by release and bounce.c's alloc and free for a pool whose fast_sluice is
 * set; take and release run the magazines' hit path inline
 * (dma/bounce_sluice_mag.h) and call these on a miss.
 */
SLUICE_DMA_PRIV long sluice_dma_priv_sluice_alloc(struct sluice_dma_bounce_pool *p,
						  const struct dma_bounce_req *r, unsigned int cpu,
						  unsigned long *steps);
/* Every alloc a magazine's hit does not serve (dma_sluice_alloc_hit()). */
SLUICE_DMA_PRIV long sluice_dma_priv_sluice_alloc_rest(struct sluice_dma_bounce_pool *p,
						       const struct dma_bounce_req *r,
						       unsigned int cpu, unsigned long *steps);
SLUICE_DMA_PRIV void sluice_dma_priv_sluice_free(struct sluice_dma_bounce_pool *p,
						 unsigned long head, unsigned long nslots,
						 unsigned int cpu);
SLUICE_DMA_PRIV void sluice_dma_priv_sluice_free_miss(struct sluice_dma_bounce_pool *p,
						      unsigned long head, unsigned long nslots,
						      unsigned int cpu);
SLUICE_DMA_PRIV bool sluice_dma_priv_sluice_fast(const struct sluice_dma_bounce_pool *p);

SLUICE_DMA_PRIV void sluice_dma_priv_bounce_refuse_oversize(struct sluice_dma_bounce_pool *p,
							    const struct dma_bounce_req *r,
							    unsigned int cpu);

#endif /* SLUICE_DMA_BOUNCE_H */
