/* SPDX-License-Identifier: MIT */
/*
 * bounce_sluice_mag.h - the `sluice` policy's per-CPU magazines: their layout
 * and their hit path, a pop and a push, inline so that the bounce path
 * (bounce.c's take and release) runs them without a call.
 *
 * Everything else the policy does (refill, drain, remote frees, long runs,
 * the bitmap search) is bounce_sluice.c's, out of line: a hit must stay a
 * few loads and stores on the CPU's own lines, and a miss may cost what it
 * costs. Design and the rules the magazines keep: bounce_sluice.c's file
 * comment.
 */
#ifndef SLUICE_DMA_BOUNCE_SLUICE_MAG_H
#define SLUICE_DMA_BOUNCE_SLUICE_MAG_H

#include "dma/bounce.h"

#define DMA_SLUICE_CACHE_MAX 40	    /* entries per class per CPU */
#define DMA_SLUICE_REMOTE_MAX 32    /* runs a CPU's remote list holds */
#define DMA_SLUICE_BIG 4	    /* longer runs a CPU keeps for reuse */
#define DMA_SLUICE_PAIR 0x80000000u /* remote list entry: a class 1 run */

struct dma_sluice_area;

/**
 * struct dma_sluice_cpu - one CPU's caches.
 * @n: entries in each magazine (written by the owner, relaxed; read anywhere).
 * @drain_req: set by another CPU that ran out of slots (exclusive mode): the
 *	owner returns its magazines at its next call and clears it.
 * @ent: first slot of each cached run; class 1 entries are even (page aligned).
 * @lock: the long runs; the magazines too unless the port is exclusive.
 * @nbig: runs of more than two slots in @big_head / @big_len, oldest first.
 * @big_slots: slots those runs hold (at most dma_sluice_meta.big_cap).
 * @big_head: first slot of each such run.
 * @big_len: its length in slots.
 * @rlock: the remote list.
 * @rn: entries in @rem (written under @rlock; read by the owner unlocked).
 * @rem: runs of this CPU's magazines freed on other CPUs: the first slot,
 *	| DMA_SLUICE_PAIR for a class 1 run.
 * The owner's part and the shared part sit on different cache lines.
 */
struct dma_sluice_cpu {
	alignas(DMA_CACHELINE) uint32_t n[2];
	uint32_t drain_req;
	uint32_t ent[2][DMA_SLUICE_CACHE_MAX];
	alignas(DMA_CACHELINE) struct sluice_dma_port_lock lock;
	uint32_t nbig;
	uint32_t big_slots;
	uint32_t big_head[DMA_SLUICE_BIG];
	uint32_t big_len[DMA_SLUICE_BIG];
	struct sluice_dma_port_lock rlock;
	uint32_t rn;
	uint32_t rem[DMA_SLUICE_REMOTE_MAX];
};

/**
 * struct dma_sluice_meta - the policy's header.
 * @areas: per-area state.
 * @cpus: per-CPU caches.
 * @map: the bitmap, 1 = free.
 * @area_mul: ceil(2^64 / area_nslabs): slot to area is a multiply.
 * @big_cap: slots a CPU's long runs may hold.
 * @ncpus: CPU indices.
 * @cache_max: magazine capacity (<= DMA_SLUICE_CACHE_MAX).
 * @batch: entries moved per refill or drain.
 * @page_aligned: the pool starts on a page (class 1 entries are pages).
 */
struct dma_sluice_meta {
	struct dma_sluice_area *areas;
	struct dma_sluice_cpu *cpus;
	uint64_t *map;
	uint64_t area_mul;
	unsigned long big_cap;
	unsigned int ncpus;
	unsigned int cache_max;
	unsigned int batch;
	bool page_aligned;
};

static inline struct dma_sluice_meta *dma_sluice_meta(const struct sluice_dma_bounce_pool *p)
{
	return p->priv;
}

/* Whether the port promised that CPU indices are exclusive (dma_port.h). */
static inline bool dma_sluice_exclusive(const struct sluice_dma_bounce_pool *p)
{
	return p->dl->ops.flags & SLUICE_DMA_PORT_CPU_EXCLUSIVE;
}

/* The owner's access to its magazines: locked unless exclusive. */
static inline void dma_sluice_own(struct sluice_dma_bounce_pool *p, struct dma_sluice_cpu *c)
{
	if (!dma_sluice_exclusive(p))
		dma_lock(p->dl, &c->lock);
}

static inline void dma_sluice_unown(struct sluice_dma_bounce_pool *p, struct dma_sluice_cpu *c)
{
	if (!dma_sluice_exclusive(p))
		dma_unlock(p->dl, &c->lock);
}

static inline uint32_t dma_sluice_ld(const uint32_t *v)
{
	return __atomic_load_n(v, __ATOMIC_RELAXED);
}

static inline void dma_sluice_st(uint32_t *v, uint32_t x)
{
	__atomic_store_n(v, x, __ATOMIC_RELAXED);
}

/* Magazine class of a run: 0 one slot, 1 a page-aligned pair, -1 neither. */
static inline int dma_sluice_class(unsigned long head, unsigned long nslots)
{
	if (nslots == 1)
		return 0;
	if (nslots == 2 && !(head & 1))
		return 1;
	return -1;
}

/*
 * The pop and the push of a CPU's own magazines, held: always under
 * SLUICE_DMA_PORT_CPU_EXCLUSIVE, else with the CPU's lock taken by the
 * out-of-line callers below. Leaf code: no call, so that the exclusive hit
 * path of take, release and the policy's alloc and free needs no frame.
 */
static inline long dma_sluice_mag_pop_held(struct sluice_dma_bounce_pool *p,
					   struct dma_sluice_cpu *c, unsigned int k,
					   unsigned int cpu)
{
	uint32_t n = c->n[k], s;

	if (__builtin_expect(n == 0 || dma_sluice_ld(&c->drain_req), 0))
		return -1;
	s = c->ent[k][n - 1];
	dma_sluice_st(&c->n[k], n - 1);
	p->slots[s].owner = (uint16_t)cpu;
	return s;
}

/*
 * The push in two steps, for a caller that must know before it changes
 * anything that the push will be taken (map_fast.c's unmap): whether the
 * magazine @k has room and no drain is pending (its count in *@n), then the
 * run stored at that count.
 */
static inline bool dma_sluice_mag_room(const struct dma_sluice_meta *m,
				       const struct dma_sluice_cpu *c, int k, uint32_t *n)
{
	*n = c->n[k];
	return !__builtin_expect(*n >= m->cache_max || dma_sluice_ld(&c->drain_req), 0);
}

static inline void dma_sluice_mag_put(struct dma_sluice_cpu *c, int k, uint32_t n,
				      unsigned long head)
{
	c->ent[k][n] = (uint32_t)head;
	dma_sluice_st(&c->n[k], n + 1);
}

static inline bool dma_sluice_mag_push_held(const struct dma_sluice_meta *m,
					    struct dma_sluice_cpu *c, unsigned long head, int k)
{
	uint32_t n;

	if (!dma_sluice_mag_room(m, c, k, &n))
		return false;
	dma_sluice_mag_put(c, k, n, head);
	return true;
}

/* Without the exclusive promise: the same under the CPU's lock (bounce_sluice.c). */
SLUICE_DMA_PRIV long sluice_dma_priv_sluice_mag_pop_locked(struct sluice_dma_bounce_pool *p,
							   unsigned int k, unsigned int cpu);

/*
 * dma_sluice_mag_pop() - the common request's slots: the newest entry of the
 * CPU's magazine @k (0: one slot, 1: a page-aligned pair), unchecked, since
 * every entry qualifies for a request with no min_align bits and no boundary.
 * Under SLUICE_DMA_PORT_CPU_EXCLUSIVE a few loads and one store on the CPU's
 * own lines and the owner written into the slot's record, no lock, no atomic
 * read-modify-write, no call; else the same under the CPU's lock, out of
 * line. Counts nothing: the caller counts the hit (bounce_hit.h's fast_maps,
 * or the policy's alloc). Returns the run's first slot, or -1 for an empty
 * magazine or a pending drain (the caller's general path then runs).
 */
static inline long dma_sluice_mag_pop(struct sluice_dma_bounce_pool *p, unsigned int k,
				      unsigned int cpu)
{
	if (!dma_sluice_exclusive(p))
		return sluice_dma_priv_sluice_mag_pop_locked(p, k, cpu);
	return dma_sluice_mag_pop_held(p, &dma_sluice_meta(p)->cpus[cpu], k, cpu);
}

/*
 * dma_sluice_alloc_hit() - the policy's alloc (a request normalised by
 * sluice_dma_priv_bounce_req_init()) when a magazine can serve it: one slot
 * or a page-aligned pair, no min_align bits, no boundary, an exclusive port,
 * and a page-aligned pool (the caller's to know: a fast_sluice pool is one,
 * the ops test it). The pop, counted as the general path counts a hit: one
 * cache hit, which reads back as one candidate looked at too (bounce.h), a
 * plain add, since this CPU is the counter's one writer
 * (dma_pcpu_add_owned()); the caller has no step count to add. Returns -1,
 * having changed and counted nothing, for any other request, an empty
 * magazine or a pending drain: sluice_dma_priv_sluice_alloc_rest() then
 * serves it, under the CPU's lock when the port is not exclusive.
 */
static inline long dma_sluice_alloc_hit(struct sluice_dma_bounce_pool *p,
					const struct dma_bounce_req *r, unsigned int cpu)
{
	unsigned long k = r->nslots - 1;
	struct dma_sluice_meta *m = dma_sluice_meta(p);
	struct dma_bounce_pcpu *pc = &p->pcpu[cpu];
	long s;

	/*
	 * No alignment test: a request's alignment never exceeds its run, since
	 * sluice_dma_priv_bounce_req_init() rounds the size up to it (Linux's
	 * rule) for every tag dma_tag_check() accepts, whose masks are 2^n - 1
	 * (test_bounce's request_inline checks it of every request), so a slot
	 * is 2 KiB-aligned enough and a page pair page-aligned enough.
	 */
	if (k > 1 || r->iotlb_align_mask || r->boundary_mask != SLUICE_DMA_NO_LIMIT ||
	    !dma_sluice_exclusive(p))
		return -1;
	s = dma_sluice_mag_pop_held(p, &m->cpus[cpu], (unsigned int)k, cpu);
	if (s >= 0)
		dma_pcpu_add_owned(&pc->cache_hits, 1); /* and its step (bounce.h) */
	return s;
}

/*
 * dma_sluice_mag_push() - a run of @nslots at @head freed on its owner @cpu
 * into that CPU's magazine, when it is a magazine's class, the port is
 * exclusive, no drain is pending and the magazine has room. Returns false,
 * having done nothing, otherwise: the caller then calls
 * sluice_dma_priv_sluice_free_miss(), which handles every case (the CPU's
 * lock on a port that is not exclusive, a remote owner, a drain, a full
 * magazine, long runs).
 */
static inline bool dma_sluice_mag_push(struct sluice_dma_bounce_pool *p, unsigned long head,
				       unsigned long nslots, unsigned int cpu)
{
	struct dma_sluice_meta *m = dma_sluice_meta(p);
	int k = dma_sluice_class(head, nslots);

	if (k < 0 || !dma_sluice_exclusive(p) || p->slots[head].owner != cpu)
		return false;
	return dma_sluice_mag_push_held(m, &m->cpus[cpu], head, k);
}

/*
 * dma_sluice_free_inline() - the policy's free: the push inline, every other
 * case (a port without the exclusive promise, a remote owner, a drain, a full
 * magazine, a long run) out of line.
 */
static inline void dma_sluice_free_inline(struct sluice_dma_bounce_pool *p, unsigned long head,
					  unsigned long nslots, unsigned int cpu)
{
	if (!dma_sluice_mag_push(p, head, nslots, cpu))
		sluice_dma_priv_sluice_free_miss(p, head, nslots, cpu);
}

#endif /* SLUICE_DMA_BOUNCE_SLUICE_MAG_H */
