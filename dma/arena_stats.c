/* SPDX-License-Identifier: MIT */
/*
 * arena_stats.c - the arena's counters: the snapshot
 * (sluice_dma_arena_stats_get()) and its report through the log op.
 *
 * Counters are kept where they are cheapest to update: per CPU under that
 * CPU's cache lock (the hot alloc/free path, which leaves out what can be
 * derived), globally under the arena lock (the slow path). This file only
 * adds them up; it changes no state.
 */
#include "dma/arena_priv.h"

void sluice_dma_priv_arena_counters_add(struct sluice_dma_priv_arena_counters *sum,
					const struct sluice_dma_priv_arena_counters *c)
{
	sum->allocs += c->allocs;
	sum->bytes_allocated += c->bytes_allocated;
	sum->cache_hits += c->cache_hits;
	sum->cache_misses += c->cache_misses;
	sum->frees += c->frees;
	sum->bytes_freed += c->bytes_freed;
	sum->bytes_scrubbed += c->bytes_scrubbed;
	sum->scrub_cycles += c->scrub_cycles;
	sum->cache_flushes += c->cache_flushes;
	sum->cache_drains += c->cache_drains;
}

/*
 * A CPU's cache counts only its pops and pushes per order (arena_priv.h's
 * cache_pop() and cache_push()): each pop is an allocation and a cache hit (a
 * miss is the slow path's, counted globally), each push a free, of a block of
 * that order's size, and every block it hands out or takes back passes one
 * scrub there, at the point the arena's strategy sets.
 */
void sluice_dma_priv_arena_cpu_counters_add(const struct sluice_dma_arena *a,
					    struct sluice_dma_priv_arena_counters *sum,
					    const struct sluice_dma_priv_arena_cpu *cpu)
{
	struct sluice_dma_priv_arena_counters c = cpu->ctr;

	/*
	 * Read under the cache's lock, except that with owned caches the owner
	 * counts without it: a figure read meanwhile is a moment stale, and on a
	 * 32-bit target could tear, as the counters in @cpu->ctr could before.
	 */
	for (unsigned int o = 0; o < SLUICE_DMA_ARENA_CACHE_ORDERS; o++) {
		uint64_t pops = dma_peek_u64(&cpu->pops[o]), pushes = dma_peek_u64(&cpu->pushes[o]);

		c.allocs += pops;
		c.bytes_allocated += pops * (SLUICE_DMA_ARENA_MIN_BLOCK << o);
		c.frees += pushes;
		c.bytes_freed += pushes * (SLUICE_DMA_ARENA_MIN_BLOCK << o);
		c.cache_hits += pops;
		c.bytes_scrubbed += (a->flags & SLUICE_DMA_ARENA_SCRUB_ON_ALLOC ? pops : pushes) *
				    (SLUICE_DMA_ARENA_MIN_BLOCK << o);
	}
	sluice_dma_priv_arena_counters_add(sum, &c);
}

void sluice_dma_arena_stats_get(struct sluice_dma_arena *arena, struct sluice_dma_arena_stats *st)
{
	struct sluice_dma_priv_arena_counters sum = { 0 };
	uint64_t cached = 0;

	if (!arena)
		ARENA_BUG(arena, "sluice_dma_arena_stats_get: NULL arena %p", (void *)arena);
	if (!st)
		ARENA_BUG(arena, "sluice_dma_arena_stats_get: NULL st for arena %p", (void *)arena);
	/* Uninitialised or destroyed: nothing to count, no lock to take. */
	if (!arena->nchunks) {
		__builtin_memset(st, 0, sizeof(*st));
		return;
	}
	for (unsigned int i = 0; i < arena->ncpus; i++) {
		struct sluice_dma_priv_arena_cpu *cpu = &arena->cpus[i];

		arena_lock(arena, &cpu->lock);
		sluice_dma_priv_arena_cpu_counters_add(arena, &sum, cpu);
		for (unsigned int o = 0; o < SLUICE_DMA_ARENA_CACHE_ORDERS; o++)
			cached += __atomic_load_n(&cpu->count[o], __ATOMIC_RELAXED);
		arena_unlock(arena, &cpu->lock);
	}

	__builtin_memset(st, 0, sizeof(*st));
	arena_lock(arena, &arena->lock);
	sluice_dma_priv_arena_counters_add(&sum, &arena->ctr);
	st->region_bytes = arena->len;
	st->nchunks = arena->nchunks;
	st->ncpus = arena->ncpus;
	st->chunks_cap = arena->cap;
	st->chunks_shared = arena->nshared;
	st->chunks_hiwater = arena->hiwater;
	st->chunks_leaked = arena->nleaked;
	st->to_shared = arena->to_shared.done;
	st->to_shared_cycles = arena->to_shared.cycles;
	st->to_shared_failed = arena->to_shared.failed;
	st->to_private = arena->to_private.done;
	st->to_private_cycles = arena->to_private.cycles;
	st->to_private_failed = arena->to_private.failed;
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

void sluice_dma_arena_stats_print(struct sluice_dma_arena *arena, const char *prefix)
{
	const struct sluice_dma_port_ops *ops = arena_ops(arena);
	struct sluice_dma_arena_stats st;

	/* Nothing to print with, as sluice_dma_bounce_stats_print() for a NULL layer. */
	if (!arena)
		return;
	sluice_dma_arena_stats_get(arena, &st);
	if (!prefix)
		prefix = "arena";
	sluice_dma_priv_logf(ops, SLUICE_DMA_LOG_INFO,
			     "%s: region_bytes %llu chunks %u cap %u cpus %u shared %u hiwater %u "
			     "leaked %u",
			     prefix, (unsigned long long)st.region_bytes, st.nchunks, st.chunks_cap,
			     st.ncpus, st.chunks_shared, st.chunks_hiwater, st.chunks_leaked);
	sluice_dma_priv_logf(
		ops, SLUICE_DMA_LOG_INFO,
		"%s: to_shared %llu cycles %llu failed %llu to_private %llu cycles %llu "
		"failed %llu",
		prefix, (unsigned long long)st.to_shared, (unsigned long long)st.to_shared_cycles,
		(unsigned long long)st.to_shared_failed, (unsigned long long)st.to_private,
		(unsigned long long)st.to_private_cycles, (unsigned long long)st.to_private_failed);
	sluice_dma_priv_logf(ops, SLUICE_DMA_LOG_INFO,
			     "%s: allocs %llu failed %llu cap_hits %llu frees %llu live %llu "
			     "live_bytes %llu cached %llu",
			     prefix, (unsigned long long)st.allocs,
			     (unsigned long long)st.alloc_failed, (unsigned long long)st.cap_hits,
			     (unsigned long long)st.frees, (unsigned long long)st.blocks_live,
			     (unsigned long long)st.bytes_live,
			     (unsigned long long)st.blocks_cached);
	sluice_dma_priv_logf(ops, SLUICE_DMA_LOG_INFO,
			     "%s: hits %llu misses %llu flushes %llu drains %llu search_steps %llu "
			     "splits %llu merges %llu",
			     prefix, (unsigned long long)st.cache_hits,
			     (unsigned long long)st.cache_misses,
			     (unsigned long long)st.cache_flushes,
			     (unsigned long long)st.cache_drains,
			     (unsigned long long)st.search_steps, (unsigned long long)st.splits,
			     (unsigned long long)st.merges);
	sluice_dma_priv_logf(ops, SLUICE_DMA_LOG_INFO,
			     "%s: scrubbed_bytes %llu scrub_cycles %llu reclaim_passes %llu",
			     prefix, (unsigned long long)st.bytes_scrubbed,
			     (unsigned long long)st.scrub_cycles,
			     (unsigned long long)st.reclaim_passes);
}
