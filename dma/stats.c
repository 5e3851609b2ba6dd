/* SPDX-License-Identifier: MIT */
/*
 * stats.c - reading and printing the bounce pools' statistics.
 *
 * Counters live where they are cheapest to update (per-CPU lines, the pool's
 * Linux-style total_used, the policy's own structures); this file only adds
 * them up. It changes no state.
 */
#include "dma/bounce.h"

static void dma_stats_add_pool(const struct sluice_dma_bounce_pool *p,
			       struct sluice_dma_bounce_stats *o)
{
	o->nslabs += p->nslabs;
	/* Pools of one layer share one geometry rule; report the largest split. */
	if (p->nareas > o->nareas)
		o->nareas = p->nareas;
	o->used += p->pops->used(p);
	o->used_hiwater += atomic_load_explicit(&p->used_hiwater, memory_order_relaxed);
	o->full_events += atomic_load_explicit(&p->full_events, memory_order_relaxed);
	o->conversions += p->conversions;
	o->conversion_cycles += p->conversion_cycles;
	o->leaked_bytes += p->leaked_bytes;
	for (unsigned int cpu = 0; cpu < p->dl->ncpus; cpu++) {
		const struct dma_bounce_pcpu *c = &p->pcpu[cpu];
		/* A magazine hit of the bounce path: a mapping, a step, a hit (bounce.h). */
		unsigned long fast = atomic_load_explicit(&c->fast_maps, memory_order_relaxed);
		/* Every cache hit is also the step that found it (bounce.h). */
		unsigned long hits = atomic_load_explicit(&c->cache_hits, memory_order_relaxed);

		o->mappings += fast + atomic_load_explicit(&c->mappings, memory_order_relaxed);
		o->unmaps += atomic_load_explicit(&c->unmaps, memory_order_relaxed);
		o->bytes_to_device +=
			atomic_load_explicit(&c->bytes_to_device, memory_order_relaxed);
		o->bytes_from_device +=
			atomic_load_explicit(&c->bytes_from_device, memory_order_relaxed);
		o->bytes_scrubbed += atomic_load_explicit(&c->bytes_scrubbed, memory_order_relaxed);
		o->search_steps +=
			fast + hits + atomic_load_explicit(&c->search_steps, memory_order_relaxed);
		o->cache_hits += fast + hits;
	}
}

int sluice_dma_bounce_stats_get(const struct sluice_dma_layer *dl, int pool,
				struct sluice_dma_bounce_stats *out)
{
	int i = 0, found = 0;

	/* -1 means "all"; any other negative index is a caller's mistake. */
	if (!dl || !out || pool < -1)
		return SLUICE_DMA_ERR_INVAL;
	memset(out, 0, sizeof(*out));
	for (struct sluice_dma_bounce_pool *p = __atomic_load_n(&dl->pools, __ATOMIC_ACQUIRE); p;
	     p = atomic_load_explicit(&p->next, memory_order_acquire), i++) {
		if (pool < 0 || pool == i) {
			dma_stats_add_pool(p, out);
			found = 1;
		}
	}
	/* Pools released by sluice_dma_layer_destroy() leave their leak behind. */
	if (pool < 0)
		out->leaked_bytes += dl->retired_leaked_bytes;
	return found || pool < 0 ? 0 : SLUICE_DMA_ERR_NOENT;
}

void sluice_dma_bounce_stats_print(const struct sluice_dma_layer *dl)
{
	int i = 0;

	if (!dl)
		return;
	for (struct sluice_dma_bounce_pool *p = __atomic_load_n(&dl->pools, __ATOMIC_ACQUIRE); p;
	     p = atomic_load_explicit(&p->next, memory_order_acquire), i++) {
		struct sluice_dma_bounce_stats s;

		memset(&s, 0, sizeof(s));
		dma_stats_add_pool(p, &s);
		sluice_dma_priv_logf(dma_layer_ops(dl), SLUICE_DMA_LOG_INFO,
				     "bounce pool %d (%s): nslabs %llu used %llu used_hiwater %llu "
				     "mappings %llu unmaps %llu",
				     i, sluice_dma_bounce_policy_name(p->policy),
				     (unsigned long long)s.nslabs, (unsigned long long)s.used,
				     (unsigned long long)s.used_hiwater,
				     (unsigned long long)s.mappings, (unsigned long long)s.unmaps);
		sluice_dma_priv_logf(dma_layer_ops(dl), SLUICE_DMA_LOG_INFO,
				     "bounce pool %d: bytes to_device %llu from_device %llu "
				     "scrubbed %llu full_events %llu",
				     i, (unsigned long long)s.bytes_to_device,
				     (unsigned long long)s.bytes_from_device,
				     (unsigned long long)s.bytes_scrubbed,
				     (unsigned long long)s.full_events);
		sluice_dma_priv_logf(
			dma_layer_ops(dl), SLUICE_DMA_LOG_INFO,
			"bounce pool %d: conversions %llu (%llu cycles) search_steps %llu "
			"cache_hits %llu leaked_bytes %llu",
			i, (unsigned long long)s.conversions,
			(unsigned long long)s.conversion_cycles, (unsigned long long)s.search_steps,
			(unsigned long long)s.cache_hits, (unsigned long long)s.leaked_bytes);
	}
	sluice_dma_priv_logf(dma_layer_ops(dl), SLUICE_DMA_LOG_INFO,
			     "dma layer: %lu in-place mappings (%lu live), %lu failed for want of "
			     "slots, %llu bytes leaked by released pools",
			     (unsigned long)__atomic_load_n(&dl->inplace_maps, __ATOMIC_RELAXED),
			     (unsigned long)__atomic_load_n(&dl->inplace_live, __ATOMIC_RELAXED),
			     (unsigned long)__atomic_load_n(&dl->nomem_events, __ATOMIC_RELAXED),
			     (unsigned long long)dl->retired_leaked_bytes);
}
