/* SPDX-License-Identifier: MIT */
/*
 * bounce.c - bounce pools: adding (and growing) pools, normalising requests the
 * way Linux does, the bounce itself (take: pool choice, slots, record and the
 * copy in; release: lookup, copy back, record cleared, slots freed),
 * dispatching to the policy, releasing pools and the self-check.
 *
 * It is not a policy: which slots a request gets is decided in bounce_<policy>.c.
 * map.c checks a map's or unmap's arguments, tries the in-place region, and
 * calls take or release here once (docs/ARCHITECTURE.md, "The bounce path read
 * top to bottom").
 */
#include "dma/bounce.h"
#include "dma/bounce_hit.h" /* take and release, inline; their wrappers below */

/* ------------------------------------------------------------------ policies */

/* The released values of the public enum never change (new policies go last). */
_Static_assert(SLUICE_DMA_POLICY_LINUX == 0 && SLUICE_DMA_POLICY_BITMAP == 1 &&
		       SLUICE_DMA_POLICY_LIFO == 2 && SLUICE_DMA_POLICY_SLUICE == 3,
	       "enum sluice_dma_bounce_policy values are ABI");

/* Names of every policy, compiled in or not, so that errors can say which. */
static const char *const dma_policy_names[SLUICE_DMA_POLICY_COUNT] = {
#define DMA_POLICY_NAME(upper, lower) [SLUICE_DMA_POLICY_##upper] = #lower,
	SLUICE_DMA_POLICIES(DMA_POLICY_NAME)
#undef DMA_POLICY_NAME
};

/*
 * The ops of each policy; NULL for one this build left out. The condition is
 * a constant, so a left-out policy's ops are never referenced (no undefined
 * symbol in the archive: scripts/check-lib-symbols.sh).
 */
static const struct dma_bounce_policy_ops *const dma_policy_ops[SLUICE_DMA_POLICY_COUNT] = {
#define DMA_POLICY_OPS(upper, lower)  \
	[SLUICE_DMA_POLICY_##upper] = \
		DMA_POLICY_WITH(upper) ? &sluice_dma_priv_bounce_##lower##_ops : NULL,
	SLUICE_DMA_POLICIES(DMA_POLICY_OPS)
#undef DMA_POLICY_OPS
};

/* NULL for an unknown policy and for one this build left out (dma_policy_known()). */
const struct dma_bounce_policy_ops *
sluice_dma_priv_bounce_ops_of(enum sluice_dma_bounce_policy policy)
{
	return (unsigned int)policy < SLUICE_DMA_POLICY_COUNT ? dma_policy_ops[policy] : NULL;
}

static bool dma_policy_known(enum sluice_dma_bounce_policy policy)
{
	return (unsigned int)policy < SLUICE_DMA_POLICY_COUNT;
}

const char *sluice_dma_bounce_policy_name(enum sluice_dma_bounce_policy policy)
{
	return dma_policy_known(policy) ? dma_policy_names[policy] : "?";
}

bool sluice_dma_bounce_policy_available(enum sluice_dma_bounce_policy policy)
{
	return sluice_dma_priv_bounce_ops_of(policy) != NULL;
}

/* ------------------------------------------------------------------ tags, requests */

int sluice_dma_tag_check(const struct sluice_dma_tag *tag)
{
	return dma_tag_check(tag);
}

/*
 * Normalise a request exactly as Linux's swiotlb_tbl_map_single() and
 * swiotlb_search_pool_area() do, so that every policy sees the same
 * constraints. @offset receives the distance from the first allocated slot to
 * the mapping's address (padding slots included).
 */
int sluice_dma_priv_bounce_req_init(struct dma_bounce_req *r, const struct sluice_dma_tag *tag,
				    uint64_t orig, size_t len, uint64_t *offset)
{
	uint64_t user_align, off, size, align, iotlb;

	/* A request of no bytes would get no slot, yet a record and an address. */
	if (!r || !tag || !offset || !len)
		return SLUICE_DMA_ERR_INVAL;
	if (dma_tag_plain(tag) && len <= UINT32_MAX) {
		/* The general rules below give exactly this; skipped, not changed. */
		dma_bounce_req_plain(r, orig, len);
		*offset = 0;
		return 0;
	}
	user_align = tag->alloc_align_mask;
	off = orig & tag->min_align_mask & (user_align | (SLUICE_DMA_IO_TLB_SIZE - 1));
	iotlb = tag->min_align_mask;
	/* Slot records keep the padding in 16 bits and the length in 32. */
	if (len > UINT32_MAX || (off >> SLUICE_DMA_IO_TLB_SHIFT) > UINT16_MAX)
		return SLUICE_DMA_ERR_RANGE;
	size = ((uint64_t)len + off + user_align) & ~user_align;
	/* An alignment mask near 2^64 wraps the rounding to zero. */
	if (size < (uint64_t)len + off || size > ((uint64_t)UINT32_MAX << SLUICE_DMA_IO_TLB_SHIFT))
		return SLUICE_DMA_ERR_RANGE;

	align = user_align;
	/* Historical rule: >= page sized mappings with no other constraint are page aligned. */
	if (!align && !iotlb && size >= SLUICE_DMA_PAGE_SIZE)
		align = SLUICE_DMA_PAGE_SIZE - 1;
	align |= SLUICE_DMA_IO_TLB_SIZE - 1;
	iotlb &= ~align;

	r->orig = orig;
	r->alloc_size = size;
	r->nslots = dma_nr_slots(size);
	r->alloc_align_mask = align;
	r->iotlb_align_mask = iotlb;
	r->stride =
		(unsigned long)(((align > iotlb ? align : iotlb) >> SLUICE_DMA_IO_TLB_SHIFT) + 1);
	r->boundary_mask = tag->boundary_mask;
	r->max_slots = (tag->boundary_mask >> SLUICE_DMA_IO_TLB_SHIFT) + 1;
	*offset = off;
	return 0;
}

/* ------------------------------------------------------------------ pools */

struct dma_bounce_geometry {
	unsigned long nslabs;
	unsigned int nareas;
	unsigned long area_nslabs;
};

static unsigned int dma_roundup_pow2(unsigned int v)
{
	unsigned int p = 1;

	while (p < v)
		p <<= 1;
	return p;
}

/*
 * Linux: areas = CPUs rounded up to a power of two (swiotlb_adjust_nareas()),
 * limited so that each area has at least one segment (limit_nareas()). Linux
 * also rounds the pool size so that areas are whole segments; we cannot grow
 * the caller's memory, so we drop the remainder instead.
 */
static bool dma_bounce_geometry(size_t bytes, unsigned int ncpus, unsigned int max_areas,
				struct dma_bounce_geometry *g)
{
	unsigned long raw = (unsigned long)(bytes >> SLUICE_DMA_IO_TLB_SHIFT);
	unsigned int nareas = dma_roundup_pow2(ncpus ? ncpus : 1);

	/* A layer limited to fewer areas (sluice_dma_layer_set_max_areas()): the pool
	 * before Linux 6.3 had one, under one lock, whatever the CPU count. */
	if (max_areas && nareas > max_areas)
		nareas = max_areas;
	if (raw < SLUICE_DMA_IO_TLB_SEGSIZE)
		return false;
	if (raw < (unsigned long)nareas * SLUICE_DMA_IO_TLB_SEGSIZE)
		nareas = (unsigned int)(raw / SLUICE_DMA_IO_TLB_SEGSIZE);
	g->nareas = nareas;
	g->area_nslabs = (raw / nareas) & ~(unsigned long)(SLUICE_DMA_IO_TLB_SEGSIZE - 1);
	g->nslabs = g->area_nslabs * nareas;
	return true;
}

/*
 * SLUICE_DMA_BOUNCE_META_FIXED covers the leading slack, the pool header, and
 * the cache-line rounding of the slot array and of the policy's (at most
 * four) arrays; the policies' own bounds are checked in their files.
 */
_Static_assert(DMA_CACHELINE + sizeof(struct sluice_dma_bounce_pool) + DMA_CACHELINE +
			       DMA_CACHELINE /* policy header */ + 4 * DMA_CACHELINE +
			       sizeof(uint64_t) /* bitmap word rounding */
		       <= SLUICE_DMA_BOUNCE_META_FIXED,
	       "fixed metadata bound");

size_t sluice_dma_bounce_meta_size_max(size_t bytes, unsigned int ncpus)
{
	return SLUICE_DMA_BOUNCE_META_SIZE(bytes, ncpus);
}

size_t sluice_dma_bounce_meta_size(enum sluice_dma_bounce_policy policy, size_t bytes,
				   unsigned int ncpus)
{
	const struct dma_bounce_policy_ops *pops = sluice_dma_priv_bounce_ops_of(policy);
	struct dma_bounce_geometry g = { 0 };

	if (!pops || !ncpus || !dma_bounce_geometry(bytes, ncpus, 0, &g))
		return 0;
	/* Leading slack lets the caller pass storage of any alignment. */
	return DMA_CACHELINE + dma_align_up(sizeof(struct sluice_dma_bounce_pool), DMA_CACHELINE) +
	       dma_align_up(g.nslabs * sizeof(struct dma_bounce_slot), DMA_CACHELINE) +
	       (size_t)ncpus * sizeof(struct dma_bounce_pcpu) +
	       dma_align_up(pops->meta_size(g.nslabs, g.nareas, ncpus), DMA_CACHELINE);
}

/* What marks a layer as initialised: its own address, so zeroed or copied storage never matches. */
static uintptr_t dma_layer_key(const struct sluice_dma_layer *dl)
{
	return (uintptr_t)dl ^ (uintptr_t)0x51c3d3a7u;
}

/* A layer already initialised that still holds pools or memory. */
static bool dma_layer_live(const struct sluice_dma_layer *dl)
{
	return dl->live_key == dma_layer_key(dl) && dma_layer_ready(dl) &&
	       (__atomic_load_n(&dl->pools, __ATOMIC_ACQUIRE) ||
		__atomic_load_n(&dl->inplace_live, __ATOMIC_RELAXED) ||
		__atomic_load_n(&dl->region_coherent_live, __ATOMIC_RELAXED));
}

int sluice_dma_layer_init(struct sluice_dma_layer *dl, const struct sluice_dma_port_ops *ops,
			  unsigned int ncpus, enum sluice_dma_scrub scrub)
{
	if (!dl || !ops)
		return SLUICE_DMA_ERR_INVAL;
	if (!ops->set_shared || !ops->set_private || !ops->virt_to_dma)
		return DMA_CONFIG_ERR(ops, SLUICE_DMA_ERR_INVAL,
				      "layer %p: the port lacks set_shared, set_private or "
				      "virt_to_dma",
				      (void *)dl);
	if (!ncpus || (scrub != SLUICE_DMA_SCRUB_COPY && scrub != SLUICE_DMA_SCRUB_ZERO))
		return DMA_CONFIG_ERR(ops, SLUICE_DMA_ERR_INVAL, "layer %p: %u CPUs, scrub %d",
				      (void *)dl, ncpus, (int)scrub);
	/* Locking must be all or nothing. */
	if (!ops->lock != !ops->unlock)
		return DMA_CONFIG_ERR(ops, SLUICE_DMA_ERR_INVAL,
				      "layer %p: the port has lock without unlock or the reverse",
				      (void *)dl);
	/* Wiping a live layer would leak its shared pools and orphan its mappings. */
	if (dma_layer_live(dl))
		return DMA_CONFIG_ERR(ops, SLUICE_DMA_ERR_BUSY,
				      "layer %p is live (pools or mappings): destroy it first",
				      (void *)dl);
	/* Storage that held a destroyed (not live) layer: its own lock goes first. */
	if (dl->live_key == dma_layer_key(dl) && dma_layer_ready(dl) && dl->grow_lock_live)
		dma_lock_destroy(dl, &dl->grow_lock);
	memset(dl, 0, sizeof(*dl));
	/* A copy: the caller's table need not outlive the call (dma_port.h). */
	dl->ops = *ops;
	dl->ncpus = ncpus;
	dl->scrub = scrub;
	__atomic_store_n(&dl->pools, NULL, __ATOMIC_RELAXED);
	__atomic_store_n(&dl->inplace, NULL, __ATOMIC_RELAXED);
	__atomic_store_n(&dl->inplace_maps, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&dl->nomem_events, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&dl->copy_cycles, 0, __ATOMIC_RELAXED);
	dma_lock_init(dl, &dl->grow_lock);
	dl->grow_lock_live = true;
	dl->live_key = dma_layer_key(dl);
	__atomic_store_n(&dl->fast, sluice_dma_priv_fast_decide(dl), __ATOMIC_RELAXED);
	return 0;
}

int sluice_dma_layer_set_max_areas(struct sluice_dma_layer *dl, unsigned int max_areas)
{
	if (!dma_layer_ready(dl))
		return SLUICE_DMA_ERR_INVAL;
	if (max_areas & (max_areas - 1))
		return DMA_CONFIG_ERR(&dl->ops, SLUICE_DMA_ERR_INVAL,
				      "max_areas %u is not a power of two", max_areas);
	/* Pools already carved keep their areas: refuse rather than mix. */
	if (__atomic_load_n(&dl->pools, __ATOMIC_ACQUIRE))
		return DMA_CONFIG_ERR(&dl->ops, SLUICE_DMA_ERR_INVAL,
				      "max_areas after a pool was added");
	dl->max_areas = max_areas;
	return 0;
}

int sluice_dma_layer_set_profile(struct sluice_dma_layer *dl, bool on)
{
	DMA_ASSERT(dl, dma_layer_ready(dl),
		   "sluice_dma_layer_set_profile: layer %p not initialised", (void *)dl);
	if (on && !dl->ops.cycles) {
		dl->profile = false;
		return SLUICE_DMA_ERR_NOSYS;
	}
	dl->profile = on;
	/* A profiled copy is timed: map.c's path, not map_fast.c's. */
	__atomic_store_n(&dl->fast, sluice_dma_priv_fast_decide(dl), __ATOMIC_RELAXED);
	return 0;
}

int sluice_dma_layer_set_strict(struct sluice_dma_layer *dl, bool on)
{
	if (!dma_layer_ready(dl))
		return SLUICE_DMA_ERR_INVAL;
	dl->strict = on;
	return 0;
}

unsigned int sluice_dma_layer_caps(const struct sluice_dma_layer *dl)
{
	const struct sluice_dma_inplace_region *r;
	unsigned int caps = 0;

	if (!dma_layer_ready(dl))
		return 0;
	r = __atomic_load_n(&dl->inplace, __ATOMIC_ACQUIRE);
	if (dl->ops.set_access)
		caps |= SLUICE_DMA_CAP_ACCESS;
	if (dl->ops.cache_maint)
		caps |= SLUICE_DMA_CAP_CACHE_MAINT;
	if (dl->ops.cycles)
		caps |= SLUICE_DMA_CAP_PROFILE;
	if (r && r->alloc)
		caps |= SLUICE_DMA_CAP_LARGE_COHERENT;
	return caps;
}

uint64_t sluice_dma_layer_copy_cycles(const struct sluice_dma_layer *dl)
{
	if (!dl)
		return 0;
	return __atomic_load_n(&dl->copy_cycles, __ATOMIC_RELAXED);
}

void sluice_dma_layer_set_inplace(struct sluice_dma_layer *dl,
				  const struct sluice_dma_inplace_region *region)
{
	DMA_ASSERT(dl, dma_layer_ready(dl),
		   "sluice_dma_layer_set_inplace: layer %p not initialised", (void *)dl);
	/* Every map would call through a NULL owns: refuse it here, by name. */
	DMA_ASSERT(dl, !region || region->owns,
		   "sluice_dma_layer_set_inplace: region %p has no owns callback",
		   (const void *)region);
	/* Half a pair would count mappings it never uncounts, or the reverse. */
	DMA_ASSERT(dl,
		   !region || (!region->get == !region->put && !region->alloc == !region->free &&
			       (!region->find || region->get)),
		   "sluice_dma_layer_set_inplace: region %p has get without put, alloc "
		   "without free or find without get",
		   (const void *)region);
	__atomic_store_n(&dl->inplace, region, __ATOMIC_RELEASE);
}

/* Whether [a, a + alen) and [b, b + blen) share a byte (neither wraps). */
/*
 * A destroy released the layer's own lock (lock_destroy): the next call that
 * needs it, a pool add or another destroy, initialises it again. Those calls
 * never race the destroy (the layer is quiescent then, PORTING.md).
 */
static void dma_grow_lock_ready(struct sluice_dma_layer *dl)
{
	if (!dl->grow_lock_live) {
		dma_lock_init(dl, &dl->grow_lock);
		dl->grow_lock_live = true;
	}
}

static bool dma_ranges_overlap(uintptr_t a, size_t alen, uintptr_t b, size_t blen)
{
	return a < b + blen && b < a + alen;
}

/*
 * Whether new pool memory or metadata would fall on a live pool's memory or
 * metadata: memory given twice would be converted twice and its slots handed
 * out twice; new memory or metadata on a live pool's metadata would wipe it. A
 * pool's metadata runs from its header for at most its meta size less the
 * leading alignment slack.
 */
static bool dma_pool_overlaps_live(struct sluice_dma_layer *dl, const void *mem, size_t bytes,
				   const void *meta, size_t meta_len)
{
	bool overlap = false;

	dma_lock(dl, &dl->grow_lock);
	for (struct sluice_dma_bounce_pool *q = __atomic_load_n(&dl->pools, __ATOMIC_ACQUIRE);
	     q && !overlap; q = atomic_load_explicit(&q->next, memory_order_acquire)) {
		size_t qmeta =
			sluice_dma_bounce_meta_size(q->policy, q->bytes, dl->ncpus) - DMA_CACHELINE;

		overlap =
			dma_ranges_overlap((uintptr_t)mem, bytes, (uintptr_t)q->vaddr, q->bytes) ||
			dma_ranges_overlap((uintptr_t)meta, meta_len, (uintptr_t)q->vaddr,
					   q->bytes) ||
			dma_ranges_overlap((uintptr_t)mem, bytes, (uintptr_t)q, qmeta) ||
			dma_ranges_overlap((uintptr_t)meta, meta_len, (uintptr_t)q, qmeta);
	}
	dma_unlock(dl, &dl->grow_lock);
	return overlap;
}

/*
 * The pool's header, slot array, per-CPU state and the policy's metadata, laid
 * out in @meta (cache-line aligned) and zeroed; the pool is not linked yet.
 */
static struct sluice_dma_bounce_pool *dma_pool_carve(struct sluice_dma_layer *dl,
						     const struct dma_bounce_policy_ops *pops,
						     enum sluice_dma_bounce_policy policy,
						     void *mem, size_t bytes, void *meta,
						     const struct dma_bounce_geometry *g)
{
	unsigned char *cur = (unsigned char *)dma_align_up((uintptr_t)meta, DMA_CACHELINE);
	struct sluice_dma_bounce_pool *p = dma_carve(&cur, sizeof(*p));

	memset(p, 0, sizeof(*p));
	atomic_init(&p->next, NULL);
	p->dl = dl;
	p->pops = pops;
	p->policy = policy;
	p->vaddr = mem;
	p->dma_start = dl->ops.virt_to_dma(dl->ops.ctx, mem);
	p->bytes = bytes;
	p->nslabs = g->nslabs;
	p->nareas = g->nareas;
	p->area_nslabs = g->area_nslabs;
	/* A policy's longest run depends on the geometry only: no indirect call per map. */
	p->max_slots = pops->max_slots(p);
	p->dma_last = p->dma_start + ((uint64_t)g->nslabs << SLUICE_DMA_IO_TLB_SHIFT) - 1;
	p->slots = dma_carve(&cur, g->nslabs * sizeof(*p->slots));
	memset(p->slots, 0, g->nslabs * sizeof(*p->slots));
	p->pcpu = dma_carve(&cur, (size_t)dl->ncpus * sizeof(*p->pcpu));
	memset(p->pcpu, 0, (size_t)dl->ncpus * sizeof(*p->pcpu));
	p->priv = cur;
	atomic_init(&p->total_used, 0);
	atomic_init(&p->used_hiwater, 0);
	atomic_init(&p->full_events, 0);
	p->conversions = 1;
	return p;
}

/* Appends an initialised pool to the layer's list; returns its index. */
static unsigned int dma_pool_link(struct sluice_dma_layer *dl, struct sluice_dma_bounce_pool *p)
{
	struct sluice_dma_bounce_pool *tail;
	unsigned int n = 0;

	dma_lock(dl, &dl->grow_lock);
	tail = __atomic_load_n(&dl->pools, __ATOMIC_RELAXED);
	if (!tail) {
		p->index = 0;
		__atomic_store_n(&dl->pools, p, __ATOMIC_RELEASE);
	} else {
		for (n = 1; atomic_load_explicit(&tail->next, memory_order_relaxed); n++)
			tail = atomic_load_explicit(&tail->next, memory_order_relaxed);
		p->index = n;
		/* Release: a mapper that sees the pointer sees an initialised pool. */
		atomic_store_explicit(&tail->next, p, memory_order_release);
	}
	dma_unlock(dl, &dl->grow_lock);
	return n;
}

/* Every refusal of a pool add's arguments, each with its reason in the log. */
static int dma_pool_args_check(struct sluice_dma_layer *dl, enum sluice_dma_bounce_policy policy,
			       const struct dma_bounce_policy_ops *pops, void *mem, size_t bytes,
			       void *meta, size_t meta_len, struct dma_bounce_geometry *g)
{
	const struct sluice_dma_port_ops *ops = &dl->ops;

	if (!dma_policy_known(policy) || !mem || !meta)
		return DMA_CONFIG_ERR(ops, SLUICE_DMA_ERR_INVAL,
				      "bounce pool: policy %d, memory %p, metadata %p", (int)policy,
				      mem, meta);
	/* A known policy this build left out: say so, rather than a bare INVAL. */
	if (!pops)
		return DMA_CONFIG_ERR(ops, SLUICE_DMA_ERR_NOSYS,
				      "bounce pool: policy %s is not compiled into this library "
				      "(SLUICE_DMA_POLICIES)",
				      dma_policy_names[policy]);
	if (((uintptr_t)mem & (SLUICE_DMA_PAGE_SIZE - 1)) || (bytes & (SLUICE_DMA_PAGE_SIZE - 1)))
		return DMA_CONFIG_ERR(ops, SLUICE_DMA_ERR_INVAL,
				      "bounce pool %p: %zu bytes, not whole 4 KiB pages", mem,
				      bytes);
	if ((uintptr_t)mem + bytes < (uintptr_t)mem || (uintptr_t)meta + meta_len < (uintptr_t)meta)
		return DMA_CONFIG_ERR(ops, SLUICE_DMA_ERR_INVAL,
				      "bounce pool %p or its metadata %p wraps the address space",
				      mem, meta);
	if (!dma_bounce_geometry(bytes, dl->ncpus, dl->max_areas, g))
		return DMA_CONFIG_ERR(ops, SLUICE_DMA_ERR_INVAL,
				      "bounce pool %p: %zu bytes is too small (at least 128 slots "
				      "per area)",
				      mem, bytes);
	if (meta_len < sluice_dma_bounce_meta_size(policy, bytes, dl->ncpus))
		return DMA_CONFIG_ERR(ops, SLUICE_DMA_ERR_NOMEM,
				      "bounce pool %p: metadata of %zu bytes, %zu needed", mem,
				      meta_len,
				      sluice_dma_bounce_meta_size(policy, bytes, dl->ncpus));
	/*
	 * The pool memory becomes shared and is zeroed: metadata or the layer
	 * inside it would be wiped, then forged by the host at will.
	 */
	if (dma_ranges_overlap((uintptr_t)mem, bytes, (uintptr_t)meta, meta_len) ||
	    dma_ranges_overlap((uintptr_t)mem, bytes, (uintptr_t)dl, sizeof(*dl)))
		return DMA_CONFIG_ERR(ops, SLUICE_DMA_ERR_INVAL,
				      "bounce pool %p: metadata %p or the layer %p inside the pool",
				      mem, meta, (void *)dl);
	if (dma_pool_overlaps_live(dl, mem, bytes, meta, meta_len))
		return DMA_CONFIG_ERR(ops, SLUICE_DMA_ERR_INVAL,
				      "bounce pool %p: memory or metadata %p on a live pool", mem,
				      meta);
	return 0;
}

int sluice_dma_bounce_pool_add(struct sluice_dma_layer *dl, enum sluice_dma_bounce_policy policy,
			       void *mem, size_t bytes, void *meta, size_t meta_len)
{
	const struct dma_bounce_policy_ops *pops = sluice_dma_priv_bounce_ops_of(policy);
	struct dma_bounce_geometry g = { 0 };
	struct sluice_dma_bounce_pool *p;
	uint64_t t0, t1;
	unsigned int n;
	int err;

	if (!dma_layer_ready(dl))
		return SLUICE_DMA_ERR_INVAL;
	dma_grow_lock_ready(dl);
	err = dma_pool_args_check(dl, policy, pops, mem, bytes, meta, meta_len, &g);
	if (err)
		return err;
	/*
	 * Only the slots the geometry uses become shared: areas are whole segments,
	 * so e.g. 768 KiB on 2 CPUs is two areas of 256 KiB, and the last 256 KiB
	 * stay private and the caller's (never converted, zeroed or handed out).
	 */
	bytes = (size_t)g.nslabs << SLUICE_DMA_IO_TLB_SHIFT;

	/* The slow part first, with no lock held: mappers never wait for it. */
	t0 = dma_cycles(dl);
	err = dl->ops.set_shared(dl->ops.ctx, mem, bytes);
	t1 = dma_cycles(dl);
	if (err) {
		sluice_dma_priv_logf(dma_layer_ops(dl), SLUICE_DMA_LOG_ERR,
				     "bounce pool %p (%zu bytes): conversion to shared failed (%d)",
				     mem, bytes, err);
		return SLUICE_DMA_ERR_IO;
	}
	/* Whatever the host left in these pages must not reach a device or a CPU. */
	memset(mem, 0, bytes);
	dma_cache(dl, mem, bytes, SLUICE_DMA_CACHE_CLEAN);

	p = dma_pool_carve(dl, pops, policy, mem, bytes, meta, &g);
	p->conversion_cycles = t1 - t0;
	pops->init(p, p->priv);
#if DMA_POLICY_WITH(SLUICE)
	/* Decided once: the common request's direct call into the policy. */
	p->fast_sluice = policy == SLUICE_DMA_POLICY_SLUICE && sluice_dma_priv_sluice_fast(p);
#endif
	n = dma_pool_link(dl, p);

	sluice_dma_priv_logf(dma_layer_ops(dl), SLUICE_DMA_LOG_INFO,
			     "bounce pool %u: policy %s, %lu slots (%u areas of %lu) at dma "
			     "0x%llx, %lu cycles to convert",
			     n, sluice_dma_bounce_policy_name(p->policy), p->nslabs, p->nareas,
			     p->area_nslabs, (unsigned long long)p->dma_start,
			     (unsigned long)p->conversion_cycles);
	return 0;
}

unsigned int sluice_dma_bounce_pool_count(const struct sluice_dma_layer *dl)
{
	unsigned int n = 0;

	if (!dl)
		return 0;
	for (struct sluice_dma_bounce_pool *p = __atomic_load_n(&dl->pools, __ATOMIC_ACQUIRE); p;
	     p = atomic_load_explicit(&p->next, memory_order_acquire))
		n++;
	return n;
}

struct sluice_dma_bounce_pool *sluice_dma_priv_bounce_pool_of(const struct sluice_dma_layer *dl,
							      uint64_t dma_addr)
{
	if (!dl)
		return NULL;
	for (struct sluice_dma_bounce_pool *p = __atomic_load_n(&dl->pools, __ATOMIC_ACQUIRE); p;
	     p = atomic_load_explicit(&p->next, memory_order_acquire)) {
		if (dma_addr >= p->dma_start && dma_addr - p->dma_start < p->bytes)
			return p;
	}
	return NULL;
}

unsigned long sluice_dma_priv_bounce_pool_max_slots(const struct sluice_dma_bounce_pool *p)
{
	return p ? p->max_slots : 0;
}

/*
 * @r cannot fit in @p (longer than its runs or than its boundary allows): let
 * a policy that asks for it (the `linux` policy) walk its areas first, as
 * upstream does before it fails, so the refusal costs what Linux's costs.
 * No run can satisfy such a request, so the walk cannot take slots.
 */
void sluice_dma_priv_bounce_refuse_oversize(struct sluice_dma_bounce_pool *p,
					    const struct dma_bounce_req *r, unsigned int cpu)
{
	unsigned long steps = 0;
	long s;

	if (!p->pops->walk_oversize)
		return;
	/*
	 * The search steps count, the refusal does not count as a full pool
	 * (full_events): the layer reports SLUICE_DMA_ERR_RANGE, not NOMEM,
	 * as it does for the policies that refuse without a walk.
	 */
	s = p->pops->alloc(p, r, cpu, &steps);
	dma_pcpu_add(p->dl, &p->pcpu[cpu].search_steps, steps);
	DMA_ASSERT(p->dl, s < 0, "%s: oversize request of %lu slots got slot %ld",
		   sluice_dma_bounce_policy_name(p->policy), r->nslots, s);
}

/*
 * Every alloc a magazine's hit does not serve: the policy's search, its steps
 * counted, and a failure counted as a full pool. Out of line, so the hit in
 * sluice_dma_priv_bounce_alloc() needs no frame.
 */
static __attribute__((noinline)) long dma_bounce_alloc_search(struct sluice_dma_bounce_pool *p,
							      const struct dma_bounce_req *r,
							      unsigned int cpu)
{
	unsigned long steps = 0;
	long s;

#if DMA_POLICY_WITH(SLUICE)
	/* The one policy of a fast_sluice pool: a direct call, no indirect one. */
	if (p->fast_sluice)
		s = sluice_dma_priv_sluice_alloc_rest(p, r, cpu, &steps);
	else
#endif
		s = p->pops->alloc(p, r, cpu, &steps);

	if (steps)
		dma_pcpu_add(p->dl, &p->pcpu[cpu].search_steps, steps);
	if (s < 0)
		atomic_fetch_add_explicit(&p->full_events, 1, memory_order_relaxed);
	return s;
}

long sluice_dma_priv_bounce_alloc(struct sluice_dma_bounce_pool *p, const struct dma_bounce_req *r,
				  unsigned int cpu)
{
	/* The per-CPU counters are indexed by @cpu; policies assume >= 1 slot. */
	DMA_ASSERT(p ? p->dl : NULL, p && r && cpu < p->dl->ncpus && r->nslots,
		   "bounce alloc: pool %p, request %p, cpu %u, %lu slots: invalid", (void *)p,
		   (const void *)r, cpu, r ? r->nslots : 0);
#if DMA_POLICY_WITH(SLUICE)
	/* A fast_sluice pool's magazine hit inline; it counts itself. */
	if (p->fast_sluice) {
		long s = dma_sluice_alloc_hit(p, r, cpu);

		if (s >= 0)
			return s;
	}
#endif
	return dma_bounce_alloc_search(p, r, cpu);
}

void sluice_dma_priv_bounce_free(struct sluice_dma_bounce_pool *p, unsigned long head,
				 unsigned long nslots, unsigned int cpu)
{
	/*
	 * Only the range is checked: the records in map.c are what prove the
	 * slots are one live allocation, and a per-slot check here would cost
	 * the unmap path a policy lookup per slot.
	 */
	DMA_ASSERT(p ? p->dl : NULL,
		   p && nslots && head < p->nslabs && nslots <= p->nslabs - head &&
			   cpu < p->dl->ncpus,
		   "bounce free of slots %lu+%lu on cpu %u: outside pool %p (%lu slots)", head,
		   nslots, cpu, (void *)p, p ? p->nslabs : 0);
#if DMA_POLICY_WITH(SLUICE)
	if (p->fast_sluice) {
		dma_sluice_free_inline(p, head, nslots, cpu);
		return;
	}
#endif
	p->pops->free(p, head, nslots, cpu);
}

/* Log (the first few) and count what is still live in @p. */
static void dma_destroy_count_live(const struct sluice_dma_layer *dl,
				   const struct sluice_dma_bounce_pool *p,
				   struct sluice_dma_destroy_report *rep)
{
	for (unsigned long s = 0; s < p->nslabs; s++) {
		const struct dma_bounce_slot *rec = &p->slots[s];
		unsigned long n = rep->live_mappings + rep->live_coherent;

		if (!(rec->flags & DMA_SLOT_LIVE))
			continue;
		if (n < 16)
			sluice_dma_priv_logf(
				dma_layer_ops(dl), SLUICE_DMA_LOG_ERR,
				"layer destroy: pool %u: %s of %u bytes at dma 0x%llx still live",
				p->index,
				rec->flags & DMA_SLOT_COHERENT ? "coherent memory" : "mapping",
				rec->len,
				(unsigned long long)(p->dma_start +
						     ((uint64_t)s << SLUICE_DMA_IO_TLB_SHIFT) +
						     rec->off));
		if (rec->flags & DMA_SLOT_COHERENT)
			rep->live_coherent++;
		else
			rep->live_mappings++;
		rep->live_bytes += rec->len;
	}
}

/*
 * After a destroy released @pools: the port's lock_destroy for every lock they
 * and the layer initialised, with no library lock held (dma_port.h). The layer's
 * own lock is initialised again by the next pool add or layer init.
 */
static void dma_destroy_locks(struct sluice_dma_layer *dl, struct sluice_dma_bounce_pool *pools)
{
	for (struct sluice_dma_bounce_pool *p = pools; p;
	     p = atomic_load_explicit(&p->next, memory_order_relaxed))
		p->pops->fini(p);
	dma_lock_destroy(dl, &dl->grow_lock);
	dl->grow_lock_live = false;
}

int sluice_dma_layer_destroy(struct sluice_dma_layer *dl)
{
	return sluice_dma_layer_destroy_report(dl, NULL);
}

int sluice_dma_layer_destroy_report(struct sluice_dma_layer *dl,
				    struct sluice_dma_destroy_report *report)
{
	struct sluice_dma_destroy_report local, *rep = report ? report : &local;
	struct sluice_dma_bounce_pool *p, *released;
	unsigned long used = 0;
	int ret = 0;

	memset(rep, 0, sizeof(*rep));
	if (!dma_layer_ready(dl))
		return SLUICE_DMA_ERR_INVAL;
	dma_grow_lock_ready(dl);
	dma_lock(dl, &dl->grow_lock);
	p = __atomic_load_n(&dl->pools, __ATOMIC_ACQUIRE);
	for (struct sluice_dma_bounce_pool *q = p; q;
	     q = atomic_load_explicit(&q->next, memory_order_acquire)) {
		if (q->pops->flush)
			q->pops->flush(q);
		used += q->pops->used(q);
		dma_destroy_count_live(dl, q, rep);
	}
	rep->live_inplace = __atomic_load_n(&dl->inplace_live, __ATOMIC_RELAXED);
	rep->live_region_coherent = __atomic_load_n(&dl->region_coherent_live, __ATOMIC_RELAXED);
	if (used || rep->live_mappings || rep->live_coherent || rep->live_inplace ||
	    rep->live_region_coherent) {
		sluice_dma_priv_logf(dma_layer_ops(dl), SLUICE_DMA_LOG_ERR,
				     "layer destroy: %lu mappings, %lu coherent allocations (%llu "
				     "bytes, %lu slots), %lu in-place mappings, %lu region "
				     "allocations still live",
				     (unsigned long)rep->live_mappings,
				     (unsigned long)rep->live_coherent,
				     (unsigned long long)rep->live_bytes, used,
				     (unsigned long)rep->live_inplace,
				     (unsigned long)rep->live_region_coherent);
		dma_unlock(dl, &dl->grow_lock);
		return SLUICE_DMA_ERR_BUSY;
	}
	__atomic_store_n(&dl->pools, NULL, __ATOMIC_RELEASE);
	released = p;
	for (; p; p = atomic_load_explicit(&p->next, memory_order_acquire)) {
		uint64_t t0 = dma_cycles(dl);
		int err = dl->ops.set_private(dl->ops.ctx, p->vaddr, p->bytes);

		p->conversions++;
		p->conversion_cycles += dma_cycles(dl) - t0;
		rep->pools_released++;
		if (err) {
			/*
			 * The host may still see these pages: leak them rather than
			 * hand private data to it later (as Linux swiotlb_free_tlb()).
			 */
			p->leaked_bytes += p->bytes;
			sluice_dma_priv_logf(
				dma_layer_ops(dl), SLUICE_DMA_LOG_ERR,
				"bounce pool %u: %zu bytes at %p stay shared (error %d), leaked",
				p->index, p->bytes, (void *)p->vaddr, err);
			ret = SLUICE_DMA_ERR_IO;
		}
		/*
		 * The pool's metadata goes back to the caller with it: keep its
		 * leak in the layer, where the statistics still find it.
		 */
		rep->leaked_bytes += p->leaked_bytes;
		dl->retired_leaked_bytes += p->leaked_bytes;
	}
	dma_unlock(dl, &dl->grow_lock);
	dma_destroy_locks(dl, released);
	return ret;
}

/* ------------------------------------------------------------------ self-check */

static int dma_bounce_pool_check(const struct sluice_dma_bounce_pool *p)
{
	const struct sluice_dma_layer *dl = p->dl;
	const struct sluice_dma_port_ops *ops = dma_layer_ops(dl);
	unsigned long prev_end = 0, covered = 0, busy = 0;

	DMA_CHECK(ops, p->nslabs == (unsigned long)p->nareas * p->area_nslabs, "pool %u geometry",
		  p->index);
	DMA_CHECK(ops, ((size_t)p->nslabs << SLUICE_DMA_IO_TLB_SHIFT) <= p->bytes, "pool %u size",
		  p->index);
	DMA_CHECK(ops, p->dma_start == dl->ops.virt_to_dma(dl->ops.ctx, p->vaddr), "pool %u moved",
		  p->index);

	/*
	 * Records sit in the slot of the mapping's address, @pad slots after the
	 * head. Walking them in slot order, the heads must increase past the
	 * previous mapping's end: that is exactly "no two mappings overlap".
	 */
	for (unsigned long s = 0; s < p->nslabs; s++) {
		const struct dma_bounce_slot *rec = &p->slots[s];
		unsigned long head, end;

		if (!rec->flags)
			continue;
		DMA_CHECK(ops, rec->flags & DMA_SLOT_LIVE, "slot %lu flags 0x%x", s, rec->flags);
		DMA_CHECK(ops, rec->pad <= s, "slot %lu pad %u", s, rec->pad);
		head = s - rec->pad;
		end = head + rec->nslots;
		DMA_CHECK(ops, rec->nslots && end <= p->nslabs && rec->pad < rec->nslots,
			  "slot %lu: %u slots", s, rec->nslots);
		DMA_CHECK(ops, head >= prev_end, "mapping at slot %lu overlaps the previous one",
			  s);
		DMA_CHECK(ops, head / p->area_nslabs == (end - 1) / p->area_nslabs,
			  "mapping at slot %lu crosses an area", s);
		DMA_CHECK(ops,
			  ((unsigned long)rec->off + rec->len + SLUICE_DMA_IO_TLB_SIZE - 1) >>
				  SLUICE_DMA_IO_TLB_SHIFT <= rec->nslots - rec->pad,
			  "mapping at slot %lu: length %u beyond its slots", s, rec->len);
		for (unsigned long i = head; i < end; i++)
			DMA_CHECK(ops, !p->pops->is_free(p, i),
				  "slot %lu of the mapping at %lu is free", i, s);
		covered += rec->nslots;
		prev_end = end;
	}
	for (unsigned long s = 0; s < p->nslabs; s++)
		busy += !p->pops->is_free(p, s);
	DMA_CHECK(ops, busy == covered, "pool %u: %lu slots not free but %lu mapped", p->index,
		  busy, covered);
	DMA_CHECK(ops, p->pops->used(p) == covered, "pool %u: used %lu, mapped %lu", p->index,
		  p->pops->used(p), covered);
	DMA_CHECK(ops,
		  atomic_load(&p->total_used) >= covered &&
			  atomic_load(&p->used_hiwater) >= atomic_load(&p->total_used),
		  "pool %u: total_used %lu hiwater %lu mapped %lu", p->index,
		  (unsigned long)atomic_load(&p->total_used),
		  (unsigned long)atomic_load(&p->used_hiwater), covered);
	return p->pops->check(p);
}

int sluice_dma_layer_check(const struct sluice_dma_layer *dl)
{
	if (!dma_layer_ready(dl))
		return SLUICE_DMA_ERR_INVAL;
	for (struct sluice_dma_bounce_pool *p = __atomic_load_n(&dl->pools, __ATOMIC_ACQUIRE); p;
	     p = atomic_load_explicit(&p->next, memory_order_acquire)) {
		int err = dma_bounce_pool_check(p);

		if (err)
			return err;
	}
	return 0;
}

/* ------------------------------------------------------------------ take and release */

/*
 * sluice_dma_priv_bounce_take_general() - every request take's magazine pop
 * did not serve (bounce_hit.h's dma_bounce_take()): Linux's request
 * normalisation, each pool from @p on that the device reaches in turn, the
 * policy's alloc. Out of line, so that the common request's frame stays a
 * few registers. Returns as dma_bounce_take().
 */
int sluice_dma_priv_bounce_take_general(struct sluice_dma_layer *dl,
					struct sluice_dma_bounce_pool *p,
					const struct sluice_dma_tag *tag, unsigned int cpu,
					void *orig, size_t len, enum sluice_dma_dir dir,
					uint8_t flags, struct dma_bounce_map *m)
{
	struct dma_bounce_req r;
	uint64_t offset;
	bool fits = false;
	int err;

	err = dma_bounce_req_init(&r, tag, (uint64_t)(uintptr_t)orig, len, &offset);
	if (err)
		return err;
	for (; p; p = atomic_load_explicit(&p->next, memory_order_acquire)) {
		unsigned long s;
		long head;

		/*
		 * Longer than sluice_dma_max_mapping_size() is refused even where the
		 * offset would let it fit: the limit a driver is told is the limit.
		 */
		if (!dma_pool_reachable(p, tag) || len > dma_pool_max_mapping(p, tag))
			continue;
		/* Alignment padding made it longer than any run this pool may hold. */
		if (r.nslots > p->max_slots || r.nslots > r.max_slots) {
			sluice_dma_priv_bounce_refuse_oversize(p, &r, cpu);
			continue;
		}
		fits = true;
		DMA_STAGE(DMA_STAGE_SLOT);
		head = sluice_dma_priv_bounce_alloc(p, &r, cpu);
		DMA_STAGE(head < 0 ? DMA_STAGE_POOL : DMA_STAGE_RECORD);
		if (head < 0)
			continue;
		s = (unsigned long)head + (unsigned long)(offset >> SLUICE_DMA_IO_TLB_SHIFT);
		dma_rec_set(&p->slots[s], orig, len, r.nslots, offset, dir, flags);
		return dma_take_done(dl, p, s, cpu, orig, len, dir, flags, &p->pcpu[cpu].mappings,
				     m);
	}
	if (!fits)
		return SLUICE_DMA_ERR_RANGE;
	__atomic_fetch_add(&dl->nomem_events, 1, __ATOMIC_RELAXED);
	return SLUICE_DMA_ERR_NOMEM;
}

/*
 * dma_bounce_take() for the entry points that are not a streaming map
 * (coherent memory, whose flags never make the common request): @tag
 * checked by the caller.
 */
int sluice_dma_priv_bounce_take(struct sluice_dma_layer *dl, const struct sluice_dma_tag *tag,
				void *orig, size_t len, enum sluice_dma_dir dir, uint8_t flags,
				struct dma_bounce_map *m)
{
	return dma_bounce_take(dl, tag, false, orig, len, dir, flags, m);
}

int sluice_dma_priv_bounce_lookup(struct sluice_dma_layer *dl, uint64_t dma_addr, int kind,
				  struct dma_bounce_map *m, const char *what)
{
	return dma_bounce_lookup(dl, dma_addr, kind, m, what);
}

void sluice_dma_priv_bounce_put(struct sluice_dma_layer *dl, const struct dma_bounce_map *m,
				unsigned int cpu)
{
	dma_bounce_put(dl, m, cpu);
}

void sluice_dma_priv_bounce_end(struct sluice_dma_layer *dl, const struct dma_bounce_map *m,
				size_t written)
{
	dma_bounce_end(dl, m, written);
}
