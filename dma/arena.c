/* SPDX-License-Identifier: MIT */
/*
 * arena.c - the 2 MB shared arena (the DMA_PMD design): its API, allocation
 * and release. Lazy per-chunk conversion, per-CPU recycling caches in front
 * of a buddy allocator per chunk (arena_buddy.c), scrub on free,
 * caller-driven release of idle chunks. The common alloc and free, which
 * call nothing, are in arena_fast.c; it hands every other case here.
 * Counters and their report are in arena_stats.c, the self-check in
 * arena_check.c, what they share in arena_priv.h (locking rules included).
 *
 * The scrub: what keeps a freed block's bytes from its next owner. Every
 * byte a block held while live is overwritten with zeros, by the port's zero
 * op (dma_port_zero(): `rep stosb`, non-temporal stores, or memset), at one
 * of two points that every block passes between two owners:
 *  - on free (the default): before the block joins a CPU cache or the buddy
 *    lists, outside every lock. Every idle block then reads all zero, so an
 *    allocation is a pop and hands out zeroed memory (what coherent DMA
 *    allocations promise), and the self-check can verify the guarantee by
 *    reading idle memory (SLUICE_DMA_ARENA_CHECK_SCRUB).
 *  - on alloc (SLUICE_DMA_ARENA_SCRUB_ON_ALLOC): after the block leaves the
 *    cache or the lists and before its address is returned, outside every
 *    lock. Idle blocks keep their last owner's bytes, which the host could
 *    already read while the block was live (the arena is shared memory
 *    throughout); no later owner, and no device it maps the block for, can.
 * Either way no path hands a block out without passing the scrub: the
 * fast path pops only blocks that came through sluice_dma_arena_free(), the
 * slow path takes buddies that did, or a fresh chunk, zeroed once right after
 * its conversion (its shared view may hold whatever the host left there). A
 * non-temporal zero must fence its stores before returning (dma_port.h).
 * tests/dma/test_arena.c frees blocks full of a pattern and checks that no byte
 * of it shows in the next allocations, under both points and a
 * non-temporal zero; bench/host/bench_alloc.c measures them (docs/BENCHMARKS.md, "Host
 * benchmark of the DMA layer") - the default is the fastest there.
 *
 * The scrub is most of an alloc+free pair (4 KiB: ~57 ns of `rep stosb`
 * against ~30 ns for the rest on the loaded benchmark host). Deferring it to
 * an idle pass would move the same stores elsewhere and leave dirty blocks in
 * the caches. What was cut is the overhead around it: only one scrub in
 * ARENA_SCRUB_SAMPLE of the cached orders reads the clock (two clock reads
 * cost 19-23 ns, about as much as the rest of the pair), and scrub_cycles is
 * scaled from the sampled ones.
 *
 * Not here: the mapping API (dma/map.c) and the bounce pool (dma/bounce*.c).
 */
#include "dma/arena_priv.h"

/* ---- the scrub ------------------------------------------------------------- */

static inline bool scrub_on_alloc(const struct sluice_dma_arena *a)
{
	return a->flags & SLUICE_DMA_ARENA_SCRUB_ON_ALLOC;
}

/* The sampled scrub, out of line: its two clock reads would crowd the free's frame. */
static __attribute__((noinline)) uint64_t
arena_scrub_timed(const struct sluice_dma_arena *a, void *p, size_t size, unsigned int scale)
{
	uint64_t t0 = arena_cycles(a);

	dma_port_zero(&a->ops, p, size);
	return (arena_cycles(a) - t0) * scale;
}

/*
 * Zero @size bytes at @p through the port's zero op. Timed when @timed (the
 * caller's sample choice): returns the cycles, scaled by @scale, else 0. The
 * untimed scrub, all but one in ARENA_SCRUB_SAMPLE, is the port's zero inline.
 */
static inline __attribute__((always_inline)) uint64_t
arena_scrub(const struct sluice_dma_arena *a, void *p, size_t size, bool timed, unsigned int scale)
{
	if (__builtin_expect(timed, 0))
		return arena_scrub_timed(a, p, size, scale);
	dma_port_zero(&a->ops, p, size);
	return 0;
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
		sluice_dma_priv_arena_block_free(a, cpu->stack[o][i], o);
	for (unsigned int i = n; i < count; i++)
		cpu->stack[o][i - n] = cpu->stack[o][i];
	__atomic_store_n(&cpu->count[o], (uint16_t)(count - n), __ATOMIC_RELAXED);
}

/* Every block of @cpu's cache back to the buddy lists; the cache is the caller's. */
static void cache_spill_all(struct sluice_dma_arena *a, struct sluice_dma_priv_arena_cpu *cpu)
{
	bool any = false;

	for (unsigned int o = 0; o < SLUICE_DMA_ARENA_CACHE_ORDERS; o++)
		any |= __atomic_load_n(&cpu->count[o], __ATOMIC_RELAXED) != 0;
	if (!any)
		return;
	arena_lock(a, &a->lock);
	for (unsigned int o = 0; o < SLUICE_DMA_ARENA_CACHE_ORDERS; o++)
		cache_spill(a, cpu, o, __atomic_load_n(&cpu->count[o], __ATOMIC_RELAXED));
	arena_unlock(a, &a->lock);
	cpu->ctr.cache_drains++;
}

/*
 * The owner's access to its cache: locked, unless the port is exclusive. The
 * owner first returns its cache if another CPU asked for it (drain_req).
 */
static inline void cache_own(struct sluice_dma_arena *a, struct sluice_dma_priv_arena_cpu *cpu)
{
	if (!arena_exclusive(a)) {
		arena_lock(a, &cpu->lock);
		return;
	}
	if (__builtin_expect(__atomic_load_n(&cpu->drain_req, __ATOMIC_ACQUIRE) != 0, 0)) {
		__atomic_store_n(&cpu->drain_req, 0, __ATOMIC_RELAXED);
		arena_lock(a, &cpu->lock);
		cache_spill_all(a, cpu);
		arena_unlock(a, &cpu->lock);
	}
}

static inline void cache_unown(struct sluice_dma_arena *a, struct sluice_dma_priv_arena_cpu *cpu)
{
	if (!arena_exclusive(a))
		arena_unlock(a, &cpu->lock);
}

/*
 * CPU @i's cache back to the buddy lists: taken under its lock, unless the
 * port is exclusive and @i is another CPU's, whose cache only its owner
 * touches: then it is asked for (drain_req), and returned at that CPU's next
 * alloc or free. @all: the arena is quiescent (destroy): take every cache.
 */
static void cache_drain_one(struct sluice_dma_arena *a, unsigned int i, bool all)
{
	struct sluice_dma_priv_arena_cpu *cpu = &a->cpus[i];

	if (arena_exclusive(a) && !all && i != arena_this_cpu(a)) {
		for (unsigned int o = 0; o < SLUICE_DMA_ARENA_CACHE_ORDERS; o++)
			if (__atomic_load_n(&cpu->count[o], __ATOMIC_RELAXED)) {
				__atomic_store_n(&cpu->drain_req, 1, __ATOMIC_RELEASE);
				break;
			}
		return;
	}
	arena_lock(a, &cpu->lock);
	cache_spill_all(a, cpu);
	arena_unlock(a, &cpu->lock);
}

static void cache_drain_all(struct sluice_dma_arena *a, bool all)
{
	for (unsigned int i = 0; i < a->ncpus; i++)
		cache_drain_one(a, i, all);
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
	return best ? sluice_dma_priv_arena_chunk_alloc(a, best, order) : NULL;
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
		/* A cap is a limit someone set; a region used up is not one. */
		if (a->cap < a->nchunks)
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
		dma_port_zero(&a->ops, base, SLUICE_DMA_ARENA_CHUNK_SIZE);
	t2 = arena_cycles(a);

	arena_lock(a, &a->lock);
	a->nconverting--;
	__atomic_store_n(&a->conv_gen, a->conv_gen + 1, __ATOMIC_RELEASE);
	if (rc) {
		/* The port promises nothing of the range stayed shared: still private. */
		chunk_state_set(c, CHUNK_PRIVATE);
		a->to_shared.failed++;
		sluice_dma_priv_logf(arena_ops(a), SLUICE_DMA_LOG_WARN,
				     "sluice_dma_arena: set_shared failed on chunk %p err %d", base,
				     rc);
		return NULL;
	}
	a->to_shared.done++;
	a->to_shared.cycles += t1 - t0;
	a->ctr.bytes_scrubbed += SLUICE_DMA_ARENA_CHUNK_SIZE;
	a->ctr.scrub_cycles += t2 - t1;
	a->nshared++;
	if (a->nshared > a->hiwater)
		a->hiwater = a->nshared;
	sluice_dma_priv_arena_chunk_reset(c);
	chunk_state_set(c, CHUNK_SHARED);
	active_add(a, (unsigned int)ci);
	/* Still under the lock since CHUNK_SHARED: nobody took its space first. */
	return sluice_dma_priv_arena_chunk_alloc(a, c, order);
}

/*
 * Drop the arena lock until the conversion in flight ends (conv_gen moves),
 * or a bound passes: the converter may be the code this call interrupted on
 * the same CPU, which cannot finish while we spin. Retaken on return.
 */
static void arena_wait_conversion(struct sluice_dma_arena *a)
{
	unsigned int gen = a->conv_gen;

	arena_unlock(a, &a->lock);
	for (unsigned long i = 0;
	     i < ARENA_WAIT_SPINS && __atomic_load_n(&a->conv_gen, __ATOMIC_ACQUIRE) == gen; i++)
		dma_cpu_relax();
	arena_lock(a, &a->lock);
}

static void *alloc_slow(struct sluice_dma_arena *a, unsigned int order)
{
	bool drained = false, fresh = false;
	unsigned int waits = 0;
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
			cache_drain_all(a, false);
			drained = true;
			arena_lock(a, &a->lock);
			continue;
		}
		/*
		 * A conversion in flight will bring a whole chunk: wait for it and
		 * search again rather than convert one more (or fail at the cap).
		 */
		if (a->nconverting && waits < ARENA_CONVERSION_WAITS) {
			arena_wait_conversion(a);
			waits++;
			continue;
		}
		p = convert_alloc(a, order);
		fresh = true; /* the whole chunk was just zeroed */
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
	if (p && scrub_on_alloc(a) && !fresh) {
		/* The slow path: always timed, counted under the lock once more. */
		size_t size = SLUICE_DMA_ARENA_MIN_BLOCK << order;
		uint64_t cyc = arena_scrub(a, p, size, true, 1);

		arena_lock(a, &a->lock);
		a->ctr.bytes_scrubbed += size;
		a->ctr.scrub_cycles += cyc;
		arena_unlock(a, &a->lock);
	}
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

/* Every refusal of sluice_dma_arena_init(), each logged with its reason. */
static int arena_config_check(const struct sluice_dma_arena *arena,
			      const struct sluice_dma_port_ops *ops,
			      const struct sluice_dma_arena_config *cfg)
{
	uintptr_t base = (uintptr_t)cfg->base;

	if (!ops->set_shared || !ops->set_private || !ops->virt_to_dma)
		return DMA_CONFIG_ERR(ops, SLUICE_DMA_ERR_INVAL,
				      "arena %p: the port lacks set_shared, set_private or "
				      "virt_to_dma",
				      (const void *)arena);
	if (!ops->lock != !ops->unlock)
		return DMA_CONFIG_ERR(ops, SLUICE_DMA_ERR_INVAL,
				      "arena %p: the port has lock without unlock or the reverse",
				      (const void *)arena);
	if (cfg->flags & ~(SLUICE_DMA_ARENA_STRICT | SLUICE_DMA_ARENA_SCRUB_ON_ALLOC |
			   SLUICE_DMA_ARENA_OWNED_CACHES))
		return DMA_CONFIG_ERR(ops, SLUICE_DMA_ERR_INVAL, "arena %p: unknown flags 0x%x",
				      (const void *)arena, cfg->flags);
	/* Caches without locks are sound only if no two running callers share a CPU. */
	if ((cfg->flags & SLUICE_DMA_ARENA_OWNED_CACHES) &&
	    (!(ops->flags & SLUICE_DMA_PORT_CPU_EXCLUSIVE) || !ops->lock))
		return DMA_CONFIG_ERR(ops, SLUICE_DMA_ERR_INVAL,
				      "arena %p: owned caches need a port with locks that "
				      "promises SLUICE_DMA_PORT_CPU_EXCLUSIVE",
				      (const void *)arena);
	if (!base || (base & (SLUICE_DMA_ARENA_CHUNK_SIZE - 1)) || base + cfg->len < base)
		return DMA_CONFIG_ERR(ops, SLUICE_DMA_ERR_INVAL,
				      "arena region %p: not 2 MB aligned, or wraps", cfg->base);
	if (!arena_geometry_ok(cfg->len, cfg->ncpus))
		return DMA_CONFIG_ERR(ops, SLUICE_DMA_ERR_INVAL,
				      "arena region %p: %zu bytes (a non-zero multiple of 2 MB, "
				      "at most %u chunks), %u CPUs (1 to %u)",
				      cfg->base, cfg->len, SLUICE_DMA_ARENA_MAX_CHUNKS, cfg->ncpus,
				      SLUICE_DMA_ARENA_MAX_CPUS);
	if (!cfg->meta || cfg->meta_len < sluice_dma_arena_meta_size(cfg->len, cfg->ncpus) ||
	    (uintptr_t)cfg->meta + cfg->meta_len < (uintptr_t)cfg->meta)
		return DMA_CONFIG_ERR(ops, SLUICE_DMA_ERR_INVAL,
				      "arena metadata %p: %zu bytes, %zu needed, or wraps",
				      cfg->meta, cfg->meta_len,
				      sluice_dma_arena_meta_size(cfg->len, cfg->ncpus));
	/*
	 * The region becomes shared: free lists or the ops table (function
	 * pointers) kept inside it could be forged by the host.
	 */
	if (ranges_overlap(base, cfg->len, (uintptr_t)cfg->meta, cfg->meta_len) ||
	    ranges_overlap(base, cfg->len, (uintptr_t)arena, sizeof(*arena)))
		return DMA_CONFIG_ERR(ops, SLUICE_DMA_ERR_INVAL,
				      "arena region %p: holds the metadata %p or the arena %p",
				      cfg->base, cfg->meta, (const void *)arena);
	return 0;
}

/* What marks an arena as initialised: its own address (zeroed or copied storage never matches). */
static uintptr_t arena_key(const struct sluice_dma_arena *arena)
{
	return (uintptr_t)arena ^ (uintptr_t)0xa7e4a5c1u;
}

int sluice_dma_arena_init(struct sluice_dma_arena *arena, const struct sluice_dma_port_ops *ops,
			  const struct sluice_dma_arena_config *cfg)
{
	uintptr_t base, meta;
	size_t nchunks;
	int err;

	if (!arena || !ops || !cfg)
		return SLUICE_DMA_ERR_INVAL;
	err = arena_config_check(arena, ops, cfg);
	if (err)
		return err;
	/* Wiping a live arena would leak its shared chunks and its port locks. */
	if (arena->live_key == arena_key(arena) && arena->nchunks)
		return DMA_CONFIG_ERR(ops, SLUICE_DMA_ERR_BUSY,
				      "arena %p is live (not destroyed): destroy it first",
				      (void *)arena);

	base = (uintptr_t)cfg->base;
	nchunks = cfg->len >> SLUICE_DMA_ARENA_CHUNK_SHIFT;
	__builtin_memset(arena, 0, sizeof(*arena));
	__builtin_memset(cfg->meta, 0, cfg->meta_len);
	arena->ops = *ops;
	arena->base = base;
	arena->len = cfg->len;
	arena->nchunks = (unsigned int)nchunks;
	arena->ncpus = cfg->ncpus;
	arena->flags = cfg->flags;
#ifdef ARENA_FAST_PATH
	if ((cfg->flags & SLUICE_DMA_ARENA_OWNED_CACHES) &&
	    ops->cpu_id == SLUICE_DMA_INLINE_CPU_ID_FN && ops->zero == SLUICE_DMA_INLINE_ZERO_FN)
		arena->flags |= ARENA_FAST;
#endif
	arena->cap = cfg->max_shared && cfg->max_shared < nchunks ? cfg->max_shared :
								    (unsigned int)nchunks;

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
	arena->live_key = arena_key(arena);
	return 0;
}

/* A size no block has: counted, then NULL. */
static __attribute__((noinline)) void *arena_alloc_refused(struct sluice_dma_arena *a)
{
	arena_lock(a, &a->lock);
	a->alloc_failed++;
	arena_unlock(a, &a->lock);
	return NULL;
}

/* The sampled scrub at alloc of @p, counted in @cpu's cache: returns @p. */
__attribute__((noinline)) void *
sluice_dma_priv_arena_alloc_scrub_timed(struct sluice_dma_arena *a,
					struct sluice_dma_priv_arena_cpu *cpu, void *p, size_t size)
{
	uint64_t cyc = arena_scrub_timed(a, p, size, ARENA_SCRUB_SAMPLE);

	cache_own(a, cpu);
	cpu->ctr.scrub_cycles += cyc;
	cache_unown(a, cpu);
	return p;
}

/*
 * An allocation of a cached order (@order) from @cpu's cache through its
 * lock, or with a drain request to answer first, or from an empty cache (the
 * slow path then): every case but the owner's plain pop.
 */
static __attribute__((noinline)) void *arena_alloc_cached(struct sluice_dma_arena *a,
							  struct sluice_dma_priv_arena_cpu *cpu,
							  unsigned int order)
{
	size_t size = SLUICE_DMA_ARENA_MIN_BLOCK << order;
	unsigned int n;
	bool timed;
	void *p;

	cache_own(a, cpu);
	n = __atomic_load_n(&cpu->count[order], __ATOMIC_RELAXED);
	if (!n) {
		cache_unown(a, cpu);
		return alloc_slow(a, order);
	}
	p = cache_pop(a, cpu, order, n, &timed);
	cache_unown(a, cpu);
	/* Outside the lock; only a sampled scrub takes it again, to count. */
	if (!scrub_on_alloc(a))
		return p;
	if (timed)
		return sluice_dma_priv_arena_alloc_scrub_timed(a, cpu, p, size);
	dma_port_zero(&a->ops, p, size);
	return p;
}

/*
 * Every allocation that arena_fast.c does not take. The owner's pop from its
 * own cache (an exclusive port, no drain asked, a block there) takes no lock;
 * every other case goes to arena_alloc_cached() or alloc_slow().
 */
void *sluice_dma_priv_arena_alloc(struct sluice_dma_arena *arena, size_t size)
{
	struct sluice_dma_priv_arena_cpu *cpu;
	unsigned int order, n;
	bool timed;
	void *p;

	/* Not initialised (zeroed storage has no chunks): nothing to count in. */
	if (DMA_CHECKED(!arena || !arena->nchunks))
		return NULL;
	if (DMA_CHECKED(!size || size > SLUICE_DMA_ARENA_MAX_BLOCK))
		return arena_alloc_refused(arena);
	order = size_to_order(size);
	if (order >= SLUICE_DMA_ARENA_CACHE_ORDERS)
		return alloc_slow(arena, order);
	cpu = &arena->cpus[arena_this_cpu(arena)];
	if (!arena_exclusive(arena) ||
	    __builtin_expect(__atomic_load_n(&cpu->drain_req, __ATOMIC_ACQUIRE) != 0, 0) ||
	    !(n = __atomic_load_n(&cpu->count[order], __ATOMIC_RELAXED)))
		return arena_alloc_cached(arena, cpu, order);
	p = cache_pop(arena, cpu, order, n, &timed);
	if (!scrub_on_alloc(arena))
		return p;
	size = SLUICE_DMA_ARENA_MIN_BLOCK << order;
	if (__builtin_expect(timed, 0))
		return sluice_dma_priv_arena_alloc_scrub_timed(arena, cpu, p, size);
	dma_port_zero(&arena->ops, p, size);
	return p;
}

/*
 * Find the block containing @p: walk the aligned candidates upwards; the first
 * head found is the block (pages strictly inside a block carry tag 0).
 */
bool sluice_dma_priv_arena_find_block(const struct sluice_dma_arena *a, uintptr_t p,
				      const struct sluice_dma_priv_arena_chunk **cp,
				      unsigned int *headp, uint8_t *tagp)
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
			return false; /* torn read under concurrent change */
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
	if (!sluice_dma_priv_arena_find_block(arena, p, &c, &head, &tag) ||
	    !blk_state_live(tag_state(tag)))
		return false;
	start = (uintptr_t)page_addr(arena, c, head);
	return len <= (SLUICE_DMA_ARENA_MIN_BLOCK << tag_order(tag)) - (p - start);
}

bool sluice_dma_arena_inplace_owns(void *ctx, const void *vaddr, size_t len)
{
	return sluice_dma_arena_owns(ctx, vaddr, len);
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

	if (!sluice_dma_priv_arena_find_block(arena, (uintptr_t)ptr, &c, &head, &tag) ||
	    !blk_state_live(tag_state(tag)) || page_addr(arena, c, head) != ptr)
		return 0;
	return SLUICE_DMA_ARENA_MIN_BLOCK << tag_order(tag);
}

uint64_t sluice_dma_arena_dma_addr(const struct sluice_dma_arena *arena, const void *vaddr)
{
	/* A query: a miss answers 0, the address no block has, and says why. */
	if (!sluice_dma_arena_owns(arena, vaddr, 1)) {
		if (arena && arena->nchunks)
			sluice_dma_priv_logf(arena_ops(arena), SLUICE_DMA_LOG_ERR,
					     "sluice_dma_arena_dma_addr: not inside a live arena "
					     "block: %p",
					     vaddr);
		return 0;
	}
	return arena->ops.virt_to_dma(arena->ops.ctx, vaddr);
}

/* The refusal of a free of a block a device may still use (mapped in place). */
__attribute__((noinline)) int sluice_dma_priv_arena_refuse_mapped(struct sluice_dma_arena *arena,
								  const void *ptr)
{
	/* Refused here, where the caller's bug is, not at the later unmap. */
	return ARENA_REFUSE(arena, SLUICE_DMA_ERR_BUSY,
			    "sluice_dma_arena_free: block still mapped in place: %p", ptr);
}

/* The refusal of a free whose claim lost: another free of the block came first. */
__attribute__((noinline)) int sluice_dma_priv_arena_refuse_raced(struct sluice_dma_arena *arena,
								 const void *ptr)
{
	return ARENA_REFUSE(arena, SLUICE_DMA_ERR_NOENT,
			    "sluice_dma_arena_free: concurrent free of %p", ptr);
}

/*
 * The refusal of a free of a layer's coherent memory, which goes back through
 * sluice_dma_free_coherent(): that checks its size and counts it, and the
 * region's free clears the mark.
 */
static int arena_refuse_coherent(struct sluice_dma_arena *arena, const void *ptr)
{
	return ARENA_REFUSE(arena, SLUICE_DMA_ERR_BUSY,
			    "sluice_dma_arena_free: block is a layer's coherent memory "
			    "(free it with sluice_dma_free_coherent()): %p",
			    ptr);
}

/*
 * Validate a free of the block at @ptr (@coherent: the region's free of the
 * layer's coherent memory, the only free of a BLK_COHERENT block) without
 * changing anything: 0 with its chunk, page and tag set; 1 for NULL (nothing
 * to do); or the refusal.
 */
static int arena_free_check(struct sluice_dma_arena *arena, void *ptr, bool coherent,
			    struct sluice_dma_priv_arena_chunk **cp, unsigned int *pagep,
			    uint8_t *tagp)
{
	struct sluice_dma_priv_arena_chunk *c;
	uintptr_t p = (uintptr_t)ptr, off;
	unsigned int page;
	uint8_t tag;

	if (DMA_CHECKED(!arena || !arena->ncpus))
		return ARENA_REFUSE(arena, SLUICE_DMA_ERR_INVAL,
				    "sluice_dma_arena_free: no arena; block %p", ptr);
	off = p - arena->base;
	if (!ptr)
		return 1;
	if (DMA_CHECKED(p < arena->base || off >= arena->len ||
			(p & (SLUICE_DMA_ARENA_MIN_BLOCK - 1))))
		return ARENA_REFUSE(arena, SLUICE_DMA_ERR_NOENT,
				    "sluice_dma_arena_free: not a block start in the arena: %p",
				    ptr);
	c = &arena->chunks[off >> SLUICE_DMA_ARENA_CHUNK_SHIFT];
	page = (unsigned int)(off >> SLUICE_DMA_ARENA_PAGE_SHIFT) & (CHUNK_PAGES - 1);
	tag = tag_get(c, page);
	if (DMA_CHECKED(chunk_state_get(c) != CHUNK_SHARED || !(tag & TAG_HEAD) ||
			tag_state(tag) != (coherent ? BLK_COHERENT : BLK_LIVE))) {
		if (tag_state(tag) == BLK_COHERENT)
			return arena_refuse_coherent(arena, ptr);
		return ARENA_REFUSE(arena, SLUICE_DMA_ERR_NOENT,
				    "sluice_dma_arena_free: not a live block (double free?): %p",
				    ptr);
	}
	/*
	 * The refusal of arena_claim(), first without the claim, so that
	 * the usual misuse (a free of a block still mapped in place) changes
	 * nothing: a claimed block's tag says FREEING until it is put back. The
	 * claim checks again: only its ordering decides a race.
	 */
	if (DMA_CHECKED(__atomic_load_n(&c->maps[page], __ATOMIC_RELAXED)))
		return sluice_dma_priv_arena_refuse_mapped(arena, ptr);
	*cp = c;
	*pagep = page;
	*tagp = tag;
	return 0;
}

/* The coherent mark of the block at page @page of @c, which the region's free claimed. */
static __attribute__((noinline)) void
arena_clear_coherent_mark(struct sluice_dma_priv_arena_chunk *c, unsigned int page)
{
	for (unsigned int i = 0; i < SLUICE_DMA_ARENA_MAP_RECORDS; i++)
		if (__atomic_load_n(&chunk_rec(c, page)[i], __ATOMIC_RELAXED) & REC_COHERENT)
			__atomic_store_n(&chunk_rec(c, page)[i], 0, __ATOMIC_RELAXED);
}

/*
 * The claim of a free (arena_claim(), arena_priv.h); the region's free of a
 * layer's coherent block (@coherent) also clears the block's mark.
 */
static inline __attribute__((always_inline)) int
arena_free_claim(struct sluice_dma_arena *arena, void *ptr, bool coherent,
		 struct sluice_dma_priv_arena_chunk *c, unsigned int page, uint8_t tag)
{
	enum arena_claim claim = arena_claim(c, page, tag);

	if (claim != ARENA_CLAIMED)
		return arena_claim_refusal(arena, ptr, claim);
	if (coherent)
		arena_clear_coherent_mark(c, page);
	return 0;
}

/* A block of an uncached order: claimed, scrubbed, then back to the buddy lists. */
static __attribute__((noinline)) int arena_free_uncached(struct sluice_dma_arena *arena, void *ptr,
							 bool coherent,
							 struct sluice_dma_priv_arena_chunk *c,
							 unsigned int page, uint8_t tag)
{
	unsigned int order = tag_order(tag);
	size_t size = SLUICE_DMA_ARENA_MIN_BLOCK << order;
	bool scrub = !scrub_on_alloc(arena);
	uint64_t cyc;
	int err;

	err = arena_free_claim(arena, ptr, coherent, c, page, tag);
	if (err)
		return err;
	/* Scrub outside every lock: the next user sees zeros, never our bytes. */
	cyc = scrub ? arena_scrub(arena, ptr, size, true, 1) : 0;
	arena_lock(arena, &arena->lock);
	sluice_dma_priv_arena_chunk_free(arena, c, page, order);
	arena->ctr.frees++;
	arena->ctr.bytes_freed += size;
	arena->ctr.bytes_scrubbed += scrub ? size : 0;
	arena->ctr.scrub_cycles += cyc;
	arena_unlock(arena, &arena->lock);
	return 0;
}

/*
 * The free of a checked block of a cached order into @cpu's cache, @timed its
 * scrub: claimed, scrubbed outside every lock, pushed. Every case but the
 * owner's common free (sluice_dma_priv_arena_free()).
 */
static __attribute__((noinline)) int arena_free_cached(struct sluice_dma_arena *arena,
						       struct sluice_dma_priv_arena_cpu *cpu,
						       void *ptr, bool coherent,
						       struct sluice_dma_priv_arena_chunk *c,
						       unsigned int page, uint8_t tag, bool timed)
{
	unsigned int order = tag_order(tag), n;
	uint64_t cyc = 0;
	int err;

	err = arena_free_claim(arena, ptr, coherent, c, page, tag);
	if (err)
		return err;
	if (!scrub_on_alloc(arena))
		cyc = arena_scrub(arena, ptr, SLUICE_DMA_ARENA_MIN_BLOCK << order, timed,
				  ARENA_SCRUB_SAMPLE);
	cache_own(arena, cpu);
	n = __atomic_load_n(&cpu->count[order], __ATOMIC_RELAXED);
	if (n == SLUICE_DMA_ARENA_CACHE_DEPTH) {
		/* Spill the coldest half in one lock hold, not one block per free. */
		arena_lock(arena, &arena->lock);
		cache_spill(arena, cpu, order, SLUICE_DMA_ARENA_CACHE_DEPTH / 2);
		arena_unlock(arena, &arena->lock);
		cpu->ctr.cache_flushes++;
		n -= SLUICE_DMA_ARENA_CACHE_DEPTH / 2;
	}
	cache_push(cpu, ptr, c, page, order, n);
	cpu->ctr.scrub_cycles += cyc;
	cache_unown(arena, cpu);
	return 0;
}

/*
 * Every free that arena_fast.c does not take (and the region's free of a
 * layer's coherent block). The owner's free of a block of a cached order into
 * its own cache (an exclusive port, no drain asked, room there, not the
 * sampled scrub, not the region's free) takes no lock; every other case goes
 * to arena_free_cached() or arena_free_uncached(). Before the claim
 * (arena_claim() says why): the checks, this CPU's cache and whether
 * this scrub is timed. A clock read costs about a third of a 4 KiB scrub
 * (rdtsc 10-12 ns against a 37 ns scrub on the VMs of docs/results/), so one
 * scrub in ARENA_SCRUB_SAMPLE of each order is timed and scrub_cycles is
 * scaled from those: an estimate, unbiased for any mix of sizes. The sample
 * choice reads this CPU's push count of the order without its lock; a stale
 * value only moves the sample.
 */
int sluice_dma_priv_arena_free(struct sluice_dma_arena *arena, void *ptr, bool coherent)
{
	struct sluice_dma_priv_arena_chunk *c = NULL;
	struct sluice_dma_priv_arena_cpu *cpu;
	unsigned int page = 0, order, n;
	uint8_t tag = 0;
	bool timed;
	int err;

	err = arena_free_check(arena, ptr, coherent, &c, &page, &tag);
	if (err)
		return err > 0 ? 0 : err;
	order = tag_order(tag);
	if (order >= SLUICE_DMA_ARENA_CACHE_ORDERS)
		return arena_free_uncached(arena, ptr, coherent, c, page, tag);
	cpu = &arena->cpus[arena_this_cpu(arena)];
	timed = arena_free_timed(cpu, order);
	if (__builtin_expect(timed || coherent || !arena_exclusive(arena) ||
				     __atomic_load_n(&cpu->drain_req, __ATOMIC_ACQUIRE) ||
				     (n = __atomic_load_n(&cpu->count[order], __ATOMIC_RELAXED)) ==
					     SLUICE_DMA_ARENA_CACHE_DEPTH,
			     0))
		return arena_free_cached(arena, cpu, ptr, coherent, c, page, tag, timed);
	err = arena_free_claim(arena, ptr, false, c, page, tag);
	if (err)
		return err;
	if (!scrub_on_alloc(arena))
		dma_port_zero(&arena->ops, ptr, SLUICE_DMA_ARENA_MIN_BLOCK << order);
	cache_push(cpu, ptr, c, page, order, n);
	return 0;
}

unsigned int sluice_dma_arena_reclaim(struct sluice_dma_arena *arena, unsigned int min_idle)
{
	unsigned int list = NO_PAGE, released = 0;

	if (!arena || !arena->nchunks)
		return 0;
	/*
	 * Under an exclusive port the other CPUs' caches come back at their
	 * next call: a chunk one of them still caches a block of is released
	 * by a later pass.
	 */
	cache_drain_all(arena, false);

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
			arena->to_private.done++;
			arena->to_private.cycles += t1 - t0;
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
			arena->to_private.failed++;
			sluice_dma_priv_logf(
				arena_ops(arena), SLUICE_DMA_LOG_WARN,
				"sluice_dma_arena: set_private failed, chunk leaked: %p "
				"err %d",
				base, rc);
		}
		arena_unlock(arena, &arena->lock);
	}
	return released;
}

int sluice_dma_arena_destroy(struct sluice_dma_arena *arena)
{
	struct sluice_dma_arena_stats st;
	int err;

	if (!arena || !arena->nchunks)
		return SLUICE_DMA_ERR_INVAL;
	/* Quiescent (the caller's promise): every cache may be taken. */
	cache_drain_all(arena, true);
	sluice_dma_arena_stats_get(arena, &st);
	if (st.blocks_live)
		return SLUICE_DMA_ERR_BUSY;
	sluice_dma_arena_reclaim(arena, 0);
	err = arena->nleaked ? SLUICE_DMA_ERR_IO : 0;
	/*
	 * Done with the region: the locks go back to the port (lock_destroy) and the
	 * arena is uninitialised, so no later call can take them (the metadata that
	 * holds the CPU locks is the caller's again).
	 */
	dma_port_lock_destroy(&arena->ops, &arena->lock);
	for (unsigned int i = 0; i < arena->ncpus; i++)
		dma_port_lock_destroy(&arena->ops, &arena->cpus[i].lock);
	arena->nchunks = 0;
	arena->ncpus = 0;
	arena->flags &= ~ARENA_FAST;
	/* Destroyed storage is fresh storage, whatever else it comes to hold. */
	arena->live_key = 0;
	return err;
}
