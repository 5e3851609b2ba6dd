/* SPDX-License-Identifier: MIT */
/*
 * bounce_sluice.c - the `sluice` policy, the one we recommend.
 *
 * Design, from what the seeds measured:
 * - Most bounces are one slot (<= 2 KiB: headers, small packets) or one page
 *   (4 KiB blocks, two slots, page aligned by the Linux rule). Chao Gao's swiotlb
 *   RFC v2 (LKML, 2022) showed that reusing just-freed, cache-hot slots pays (+19%
 *   1-job); its LKML review showed that doing it through one shared list costs up
 *   to 45% with 8 jobs. So each CPU keeps its own two small stacks (magazines)
 *   of free runs: class 0 holds single slots, class 1 holds page-aligned slot
 *   pairs. A map pops, an unmap pushes. The common request (no min_align
 *   bits, no boundary) takes the newest entry unchecked; a constrained one
 *   probes the top entries against its alignment rules, so it still hits
 *   most of the time.
 * - The magazines are the owning CPU's alone when the port promises it
 *   (SLUICE_DMA_PORT_CPU_EXCLUSIVE: no two running callers share a CPU index,
 *   no call interrupts another on the same CPU): then a hit is a few plain
 *   loads and stores - no lock, no atomic read-modify-write; the counts are
 *   relaxed atomic loads and stores only so that statistics read on another
 *   CPU are never torn. Without the promise (CPUs may share an index) the
 *   same code runs under a per-CPU lock, as before. Everything a magazine
 *   exchanges with the rest of the pool moves in batches under an area lock:
 *   an empty magazine is refilled with half a magazine, a full one returns
 *   its oldest half.
 * - A mapping unmapped on another CPU than the one that mapped it goes back
 *   to its owner (a per-slot owner index, written at map) through the
 *   owner's bounded remote list (a short array under its own lock, which
 *   only remote frees and the owner's refill take); when that list is full
 *   the run goes straight back to its area's bitmap. The owner takes its
 *   remote list into its magazines when one runs empty, before the bitmap.
 * - Longer runs get the same treatment, on a smaller scale and always under
 *   the per-CPU lock (they are rarer and must stay reclaimable by any CPU):
 *   each CPU keeps the last DMA_SLUICE_BIG runs of more than two slots it
 *   freed (at most a sixteenth of the pool, and at least one 256 KiB run),
 *   and a request of exactly that length takes the newest one that meets its
 *   rules. A steady stream of 16 or 64 KiB mappings then never touches an
 *   area lock, the bitmap or the pool-wide used counter (an atomic add per
 *   alloc and free in the other policies); a full cache returns its oldest
 *   run to the bitmap.
 * - Behind the caches each area (Linux's per-CPU areas, same geometry) keeps a
 *   bitmap, 1 = free. An empty magazine is refilled with a batch taken from
 *   the CPU's own area a 64-bit word at a time (pairs are found with
 *   w & w >> 1 & 0x55..; single slots prefer "lonely" free bits whose buddy is
 *   taken, so pairs stay whole).
 * - Larger or unusual requests search the area bitmaps: candidates are
 *   enumerated in the single residue class the alignment rules allow, a
 *   blocked candidate jumps past the blocking slot to the next free bit
 *   (ctz), a boundary crossing jumps to the boundary. Search starts at a
 *   per-area hint and wraps; the hint moves past each allocation and back to
 *   each run freed, so a large run is reused while still cache-hot, as LIFO
 *   does, without a list. There are no per-slot counters, so nothing is
 *   renumbered on alloc or free.
 * - An area remembers the smallest unconstrained run it failed to find since
 *   slots were last returned to it, so a full or fragmented pool answers a
 *   request it cannot serve without rescanning (Linux rescans every time).
 * - Runs are not limited to 128-slot segments: a mapping may take up to a
 *   whole area (the pool divided by the area count), well beyond 256 KiB.
 * - When no area can satisfy a request, the slots parked in caches go back
 *   to the bitmaps and the search runs once more: the caller's own
 *   magazines, every CPU's long runs and remote lists, and the other CPUs'
 *   magazines - taken under their lock when they are locked, or, under
 *   SLUICE_DMA_PORT_CPU_EXCLUSIVE, which no other CPU may touch, requested:
 *   each such CPU returns its magazines at its next call. The magazines hold
 *   at most about an eighth of the pool in all, so that is what such a
 *   request may miss. A port without locks (one CPU at a time) takes them
 *   all at once.
 * - Slot to area without a division: a multiply by a reciprocal computed at
 *   init (exact for every slot index below 2^32).
 * Alignment, min_align and boundary rules are the shared helpers of bounce.h,
 * identical for every policy. total_used (and so used_hiwater) counts slots
 * sitting in the per-CPU caches as used; the exact figure is computed by
 * ->used().
 */
#include "dma/bounce_sluice_mag.h"

#define DMA_SLUICE_PROBE 8 /* magazine entries probed for one request */
#define DMA_SLUICE_EVEN 0x5555555555555555ull
#define DMA_SLUICE_NONE (~0ul) /* no failure remembered */

/**
 * struct dma_sluice_area - one area's bitmap state.
 * @lock: taken for refills, drains and searches in the area.
 * @nfree: set bits in the area's part of the bitmap.
 * @hint: absolute slot where the next search starts.
 * @fail_n: smallest run an unconstrained search (stride 1 or 2) failed to find
 *	since slots were last returned to the area; DMA_SLUICE_NONE when none. A
 *	longer request fails at once instead of rescanning a full area.
 */
struct dma_sluice_area {
	alignas(DMA_CACHELINE) struct sluice_dma_port_lock lock;
	unsigned long nfree;
	unsigned long hint;
	unsigned long fail_n[2];
};

_Static_assert(SLUICE_DMA_IO_TLB_SEGSIZE % 64 == 0, "areas start on bitmap word boundaries");

_Static_assert(sizeof(struct dma_sluice_area) <= DMA_META_AREA_MAX &&
		       sizeof(struct dma_sluice_meta) <= DMA_CACHELINE,
	       "SLUICE_DMA_BOUNCE_META_SIZE() bound (bounce.h)");
_Static_assert(sizeof(struct dma_sluice_cpu) <= DMA_META_SLUICE_CPU_MAX,
	       "SLUICE_DMA_BOUNCE_META_SIZE() bound (bounce.h)");
/* Per slot: a bit of bitmap; the owner CPU is in the slot record (bounce.h). */

/* A port without locks runs one CPU at a time: any cache may be taken. */
static inline bool dma_sluice_single(const struct sluice_dma_bounce_pool *p)
{
	return !p->dl->ops.lock;
}

/* The high 64 bits of @a * @b. One instruction where the compiler has a 128-bit
 * type (x86_64, aarch64); four 32-bit products on targets without it (i386),
 * where a 128-bit type does not exist. */
static inline uint64_t dma_sluice_mulhi(uint64_t a, uint64_t b)
{
#if defined(__SIZEOF_INT128__)
	__extension__ typedef unsigned __int128 u128;

	return (uint64_t)(((u128)a * b) >> 64);
#else
	uint64_t al = (uint32_t)a, ah = a >> 32, bl = (uint32_t)b, bh = b >> 32;
	uint64_t lo = al * bl, m1 = ah * bl, m2 = al * bh, hi = ah * bh;
	uint64_t mid = (lo >> 32) + (uint32_t)m1 + (uint32_t)m2;

	return hi + (m1 >> 32) + (m2 >> 32) + (mid >> 32);
#endif
}

/* Area of slot @s: s / area_nslabs as a multiply (exact for s < 2^32). */
static inline unsigned int dma_sluice_area_of(const struct dma_sluice_meta *m, unsigned long s)
{
	return (unsigned int)dma_sluice_mulhi(s, m->area_mul);
}

static size_t dma_sluice_meta_size(unsigned long nslabs, unsigned int nareas, unsigned int ncpus)
{
	return dma_align_up(sizeof(struct dma_sluice_meta), DMA_CACHELINE) +
	       (size_t)nareas * sizeof(struct dma_sluice_area) +
	       (size_t)ncpus * sizeof(struct dma_sluice_cpu) +
	       dma_align_up((nslabs + 63) / 64 * sizeof(uint64_t), DMA_CACHELINE);
}

static void dma_sluice_init(struct sluice_dma_bounce_pool *p, void *meta)
{
	unsigned char *cur = meta;
	struct dma_sluice_meta *m = dma_carve(&cur, sizeof(*m));
	unsigned long per_cpu;

	m->ncpus = p->dl->ncpus;
	m->page_aligned = !(p->dma_start & (SLUICE_DMA_PAGE_SIZE - 1));
	m->areas = dma_carve(&cur, (size_t)p->nareas * sizeof(*m->areas));
	m->cpus = dma_carve(&cur, (size_t)m->ncpus * sizeof(*m->cpus));
	m->map = dma_carve(&cur, (p->nslabs + 63) / 64 * sizeof(uint64_t));
	/* The one division: every slot-to-area mapping after this multiplies. */
	/* No 64-bit division: a libgcc call on i386 (dma/arith.h). */
	m->area_mul = dma_div64(UINT64_MAX, (uint32_t)p->area_nslabs) + 1;
	memset(m->map, 0, (p->nslabs + 63) / 64 * sizeof(uint64_t));
	sluice_dma_priv_bits_set(m->map, 0, p->nslabs);
	for (unsigned int i = 0; i < p->nareas; i++) {
		dma_lock_init(p->dl, &m->areas[i].lock);
		m->areas[i].nfree = p->area_nslabs;
		m->areas[i].hint = (unsigned long)i * p->area_nslabs;
		m->areas[i].fail_n[0] = m->areas[i].fail_n[1] = DMA_SLUICE_NONE;
	}
	for (unsigned int i = 0; i < m->ncpus; i++) {
		struct dma_sluice_cpu *c = &m->cpus[i];

		memset(c, 0, sizeof(*c));
		dma_lock_init(p->dl, &c->lock);
		dma_lock_init(p->dl, &c->rlock);
	}
	/* Magazines may hold at most about an eighth of the pool. */
	per_cpu = p->nslabs / ((unsigned long)m->ncpus * 8 * 3);
	m->cache_max = per_cpu > DMA_SLUICE_CACHE_MAX ? DMA_SLUICE_CACHE_MAX :
		       per_cpu < 4		      ? 4 :
							(unsigned int)per_cpu;
	m->batch = m->cache_max / 2;
	/* Longer runs: at most a sixteenth of the pool per CPU, at least one 256 KiB run. */
	m->big_cap = p->nslabs / ((unsigned long)m->ncpus * 16);
	if (m->big_cap < SLUICE_DMA_IO_TLB_SEGSIZE)
		m->big_cap = SLUICE_DMA_IO_TLB_SEGSIZE;
}

static void dma_sluice_fini(struct sluice_dma_bounce_pool *p)
{
	struct dma_sluice_meta *m = p->priv;

	for (unsigned int i = 0; i < p->nareas; i++)
		dma_lock_destroy(p->dl, &m->areas[i].lock);
	for (unsigned int i = 0; i < m->ncpus; i++) {
		dma_lock_destroy(p->dl, &m->cpus[i].lock);
		dma_lock_destroy(p->dl, &m->cpus[i].rlock);
	}
}

/*
 * Take up to @want runs of class @k from the area's bitmap, one word at a time.
 * Caller holds the area lock. Returns the number of runs written to @out.
 */
static unsigned int dma_sluice_area_take(struct sluice_dma_bounce_pool *p,
					 struct dma_sluice_meta *m, struct dma_sluice_area *a,
					 unsigned int ai, int k, unsigned int want, uint32_t *out)
{
	unsigned long wbase = (unsigned long)ai * p->area_nslabs / 64;
	unsigned long nwords = p->area_nslabs / 64;
	unsigned long wi = a->hint / 64, taken_slots = 0;
	unsigned int got = 0;

	if (wi < wbase || wi >= wbase + nwords)
		wi = wbase;
	for (unsigned long i = 0; i < nwords && got < want; i++, wi++) {
		uint64_t w, pairs, lonely;

		if (wi >= wbase + nwords)
			wi = wbase;
		w = m->map[wi];
		if (!w)
			continue;
		pairs = w & (w >> 1) & DMA_SLUICE_EVEN;
		if (k == 1) {
			while (pairs && got < want) {
				unsigned int b = dma_ctz64(pairs);

				pairs &= pairs - 1;
				w &= ~(3ull << b);
				out[got++] = (uint32_t)(wi * 64 + b);
				taken_slots += 2;
			}
		} else {
			lonely = w & ~(pairs | (pairs << 1));
			while (w && got < want) {
				uint64_t pick = lonely ? lonely : w;
				unsigned int b = dma_ctz64(pick);

				w &= ~(1ull << b);
				lonely &= ~(1ull << b);
				out[got++] = (uint32_t)(wi * 64 + b);
				taken_slots++;
			}
		}
		m->map[wi] = w;
		a->hint = wi * 64;
	}
	a->nfree -= taken_slots;
	if (taken_slots)
		dma_bounce_used_add(p, taken_slots);
	return got;
}

/*
 * Give runs back to their areas' bitmaps: @count runs of @len slots whose
 * first slots are @s[0..count), or with @len == 0 remote list entries (the
 * length in DMA_SLUICE_PAIR). Takes each area lock once per change of area.
 */
static void dma_sluice_put_runs(struct sluice_dma_bounce_pool *p, struct dma_sluice_meta *m,
				const uint32_t *s, unsigned int count, unsigned long len)
{
	struct dma_sluice_area *held = NULL;
	unsigned long slots = 0;

	for (unsigned int i = 0; i < count; i++) {
		uint32_t head = s[i] & ~DMA_SLUICE_PAIR;
		unsigned long n = len ? len : (s[i] & DMA_SLUICE_PAIR) ? 2 : 1;
		struct dma_sluice_area *a = &m->areas[dma_sluice_area_of(m, head)];

		if (a != held) {
			if (held)
				dma_unlock(p->dl, &held->lock);
			dma_lock(p->dl, &a->lock);
			held = a;
		}
		sluice_dma_priv_bits_set(m->map, head, n);
		a->nfree += n;
		a->fail_n[0] = a->fail_n[1] = DMA_SLUICE_NONE;
		slots += n;
	}
	if (held)
		dma_unlock(p->dl, &held->lock);
	if (slots)
		dma_bounce_used_sub(p, slots);
}

/* Return the @count oldest entries of magazine @k of @c (owned) to the bitmaps. */
static __attribute__((noinline)) void dma_sluice_drain(struct sluice_dma_bounce_pool *p,
						       struct dma_sluice_meta *m,
						       struct dma_sluice_cpu *c, int k,
						       unsigned int count)
{
	uint32_t n = c->n[k];

	dma_sluice_put_runs(p, m, c->ent[k], count, k ? 2 : 1);
	for (unsigned int i = count; i < n; i++)
		c->ent[k][i - count] = c->ent[k][i];
	dma_sluice_st(&c->n[k], n - count);
}

/* Return both magazines of @c (owned) entirely; returns the slots returned. */
static unsigned long dma_sluice_drain_all(struct sluice_dma_bounce_pool *p,
					  struct dma_sluice_meta *m, struct dma_sluice_cpu *c)
{
	unsigned long slots = c->n[0] + 2ul * c->n[1];

	dma_sluice_drain(p, m, c, 0, c->n[0]);
	dma_sluice_drain(p, m, c, 1, c->n[1]);
	return slots;
}

/*
 * The owner's check for a drain another CPU asked for (exclusive mode): the
 * magazines go back to the bitmaps before anything else. Returns whether it
 * drained (the caller then takes no new batch: the pool is short of slots).
 */
static inline bool dma_sluice_honour_drain(struct sluice_dma_bounce_pool *p,
					   struct dma_sluice_meta *m, struct dma_sluice_cpu *c)
{
	if (__builtin_expect(dma_sluice_ld(&c->drain_req) != 0, 0)) {
		dma_sluice_st(&c->drain_req, 0);
		dma_sluice_drain_all(p, m, c);
		return true;
	}
	return false;
}

/*
 * Move the runs of @c's remote list (freed by other CPUs) into its magazines
 * (owned) while they have room; the rest stay listed. Returns runs moved.
 */
static unsigned int dma_sluice_take_remote(struct sluice_dma_bounce_pool *p,
					   struct dma_sluice_meta *m, struct dma_sluice_cpu *c)
{
	unsigned int moved = 0, kept = 0;

	if (!dma_sluice_ld(&c->rn))
		return 0;
	dma_lock(p->dl, &c->rlock);
	for (unsigned int i = 0; i < c->rn; i++) {
		uint32_t e = c->rem[i];
		int k = (e & DMA_SLUICE_PAIR) ? 1 : 0;

		if (c->n[k] < m->cache_max) {
			c->ent[k][c->n[k]] = e & ~DMA_SLUICE_PAIR;
			dma_sluice_st(&c->n[k], c->n[k] + 1);
			moved++;
		} else {
			c->rem[kept++] = e;
		}
	}
	dma_sluice_st(&c->rn, kept);
	dma_unlock(p->dl, &c->rlock);
	return moved;
}

/* Return @c's whole remote list to the bitmaps (any CPU); returns the slots. */
static unsigned long dma_sluice_remote_drain(struct sluice_dma_bounce_pool *p,
					     struct dma_sluice_meta *m, struct dma_sluice_cpu *c)
{
	unsigned long slots = 0;

	if (!dma_sluice_ld(&c->rn))
		return 0;
	dma_lock(p->dl, &c->rlock);
	for (unsigned int i = 0; i < c->rn; i++)
		slots += (c->rem[i] & DMA_SLUICE_PAIR) ? 2 : 1;
	dma_sluice_put_runs(p, m, c->rem, c->rn, 0);
	dma_sluice_st(&c->rn, 0);
	dma_unlock(p->dl, &c->rlock);
	return slots;
}

/*
 * Refill magazine @k of @c (owned): its remote list first, then its area, else
 * the next ones. Every run enters a magazine here (or as a run its CPU held),
 * under a lock taken on the owning CPU: the port syncs that CPU's TLB with
 * conversions in its lock op (dma_port.h), which is what makes the lock-free
 * hits of SLUICE_DMA_PORT_CPU_EXCLUSIVE safe. Do not move slots into a
 * magazine without a lock.
 */
static __attribute__((noinline)) void dma_sluice_refill(struct sluice_dma_bounce_pool *p,
							struct dma_sluice_meta *m,
							struct dma_sluice_cpu *c, int k,
							unsigned int cpu)
{
	unsigned int start = dma_bounce_start_area(p, cpu), i = start;
	unsigned long need = k ? 2 : 1;

	dma_sluice_take_remote(p, m, c);
	if (c->n[k])
		return;
	do {
		struct dma_sluice_area *a = &m->areas[i];

		dma_lock(p->dl, &a->lock);
		if (a->nfree >= need)
			dma_sluice_st(&c->n[k],
				      c->n[k] + dma_sluice_area_take(p, m, a, i, k, m->batch,
								     &c->ent[k][c->n[k]]));
		dma_unlock(p->dl, &a->lock);
		if (c->n[k])
			return;
		if (++i >= p->nareas)
			i = 0;
	} while (i != start);
}

/* Give the run [@head, @head + @n) back to its area's bitmap (area lock taken here). */
static void dma_sluice_area_put(struct sluice_dma_bounce_pool *p, struct dma_sluice_meta *m,
				unsigned long head, unsigned long n)
{
	struct dma_sluice_area *a = &m->areas[dma_sluice_area_of(m, head)];

	dma_lock(p->dl, &a->lock);
	sluice_dma_priv_bits_set(m->map, head, n);
	a->nfree += n;
	a->fail_n[0] = a->fail_n[1] = DMA_SLUICE_NONE;
	/*
	 * The next search starts at the run just freed: it is cache-hot and,
	 * in a fragmented area, often the only run of its size (LIFO reuse
	 * without a list to maintain).
	 */
	a->hint = head;
	dma_unlock(p->dl, &a->lock);
	dma_bounce_used_sub(p, n);
}

/* Return the @count oldest long runs of @c (c->lock held) to the bitmaps. */
static void dma_sluice_big_drain(struct sluice_dma_bounce_pool *p, struct dma_sluice_meta *m,
				 struct dma_sluice_cpu *c, unsigned int count)
{
	unsigned int i;

	for (i = 0; i < count; i++) {
		dma_sluice_area_put(p, m, c->big_head[i], c->big_len[i]);
		c->big_slots -= c->big_len[i];
	}
	for (i = count; i < c->nbig; i++) {
		c->big_head[i - count] = c->big_head[i];
		c->big_len[i - count] = c->big_len[i];
	}
	c->nbig -= count;
}

/*
 * Return cached slots to the bitmaps, for a request on @cpu that found none:
 * @cpu's magazines, every CPU's long runs and remote lists, and the other
 * CPUs' magazines where that is allowed (locked, or a port without locks);
 * under SLUICE_DMA_PORT_CPU_EXCLUSIVE those CPUs are asked to return theirs
 * at their next call. With @all (a quiescent layer: destroy) every cache is
 * taken. Returns the slots returned now.
 */
static unsigned long dma_sluice_reclaim(struct sluice_dma_bounce_pool *p, unsigned int cpu,
					bool all)
{
	struct dma_sluice_meta *m = dma_sluice_meta(p);
	bool excl = dma_sluice_exclusive(p), any = all || dma_sluice_single(p);
	unsigned long slots = 0;

	for (unsigned int i = 0; i < m->ncpus; i++) {
		struct dma_sluice_cpu *c = &m->cpus[i];

		dma_lock(p->dl, &c->lock);
		if (!excl || i == cpu || any)
			slots += dma_sluice_drain_all(p, m, c);
		else if (dma_sluice_ld(&c->n[0]) || dma_sluice_ld(&c->n[1]))
			dma_sluice_st(&c->drain_req, 1);
		slots += c->big_slots;
		dma_sluice_big_drain(p, m, c, c->nbig);
		dma_unlock(p->dl, &c->lock);
		slots += dma_sluice_remote_drain(p, m, c);
	}
	return slots;
}

static void dma_sluice_flush(struct sluice_dma_bounce_pool *p)
{
	dma_sluice_reclaim(p, 0, true);
}

static long dma_sluice_cache_get(struct sluice_dma_bounce_pool *p, struct dma_sluice_meta *m,
				 const struct dma_bounce_req *r, int k, unsigned int cpu,
				 unsigned long *steps)
{
	struct dma_sluice_cpu *c = &m->cpus[cpu];
	unsigned int n, lim, i;

	dma_sluice_own(p, c);
	if (dma_sluice_honour_drain(p, m, c)) {
		/* Another CPU ran short: search the bitmap rather than take a batch. */
		dma_sluice_unown(p, c);
		return -1;
	}
	if (!c->n[k])
		dma_sluice_refill(p, m, c, k, cpu);
	n = c->n[k];
	lim = n > DMA_SLUICE_PROBE ? n - DMA_SLUICE_PROBE : 0;
	for (i = n; i-- > lim;) {
		uint32_t s = c->ent[k][i];

		if (dma_bounce_slot_aligned(p, r, s) && dma_bounce_span_ok(p, r, s, r->nslots)) {
			c->ent[k][i] = c->ent[k][n - 1];
			dma_sluice_st(&c->n[k], n - 1);
			/* Its own step is counted with it (bounce.h). */
			dma_pcpu_add(p->dl, &p->pcpu[cpu].cache_hits, 1);
			dma_sluice_unown(p, c);
			return s;
		}
		(*steps)++;
	}
	dma_sluice_unown(p, c);
	return -1;
}

/*
 * A run of exactly @r->nslots (> 2) that this CPU freed recently, newest first,
 * if one meets the request's rules: the LIFO reuse of the magazines for longer
 * runs, with no area lock, no bitmap update and no shared counter.
 */
static long dma_sluice_big_get(struct sluice_dma_bounce_pool *p, struct dma_sluice_meta *m,
			       const struct dma_bounce_req *r, unsigned int cpu,
			       unsigned long *steps)
{
	struct dma_sluice_cpu *c = &m->cpus[cpu];
	long found = -1;

	dma_lock(p->dl, &c->lock);
	for (unsigned int i = c->nbig; i-- > 0;) {
		uint32_t s = c->big_head[i];

		if (c->big_len[i] != r->nslots || !dma_bounce_slot_aligned(p, r, s) ||
		    !dma_bounce_span_ok(p, r, s, r->nslots)) {
			(*steps)++;
			continue;
		}
		found = s;
		c->big_slots -= c->big_len[i];
		for (unsigned int j = i + 1; j < c->nbig; j++) {
			c->big_head[j - 1] = c->big_head[j];
			c->big_len[j - 1] = c->big_len[j];
		}
		c->nbig--;
		/* Its own step is counted with it (bounce.h). */
		dma_pcpu_add(p->dl, &p->pcpu[cpu].cache_hits, 1);
		break;
	}
	dma_unlock(p->dl, &c->lock);
	return found;
}

/* First slot >= @x where the alignment rules allow a run to start. */
static unsigned long dma_sluice_cand(unsigned long step, unsigned long c0, unsigned long x)
{
	if (x <= c0)
		return c0;
	return c0 + ((x - c0 + step - 1) & ~(step - 1));
}

/* Search area @ai's bitmap for a run; see the file comment. */
static long dma_sluice_area_find(struct sluice_dma_bounce_pool *p, const struct dma_bounce_req *r,
				 unsigned int ai, unsigned long *steps)
{
	struct dma_sluice_meta *m = dma_sluice_meta(p);
	struct dma_sluice_area *a = &m->areas[ai];
	unsigned long n = r->nslots, base = (unsigned long)ai * p->area_nslabs;
	unsigned long end = base + p->area_nslabs, c0 = end, step, from, limit, s;
	uint64_t bshift = dma_nr_slots(p->dma_start & r->boundary_mask);
	int memo;

	/* With orig == 0 the min_align bits do not apply, so more slots qualify. */
	step = r->orig ? r->stride :
			 (unsigned long)((r->alloc_align_mask >> SLUICE_DMA_IO_TLB_SHIFT) + 1);
	/*
	 * min_align bits above the alloc alignment give a stride that is not a
	 * power of two (0x7fff over 0x3fff: 9), and rounding candidates to it
	 * lands on misaligned slots (found by fuzz_dma_ops). Walk slot by slot
	 * then: every candidate is checked below anyway, as Linux does.
	 */
	if (step & (step - 1))
		step = 1;
	for (unsigned long i = 0; base + i < end; i++) {
		if (dma_bounce_slot_aligned(p, r, base + i)) {
			c0 = base + i;
			break;
		}
	}
	if (c0 >= end)
		return -1;

	/* Only constraint-free requests may trust or update the failure memo. */
	memo = (step == 1 || step == 2) && (!r->orig || !r->iotlb_align_mask) &&
			       r->boundary_mask == SLUICE_DMA_NO_LIMIT ?
		       (int)step - 1 :
		       -1;
	dma_lock(p->dl, &a->lock);
	if (a->nfree < n || (memo >= 0 && n >= a->fail_n[memo]))
		goto not_found;
	/* Two passes: from the hint to the end, then from the start to the hint. */
	from = a->hint >= base && a->hint < end ? a->hint : base;
	limit = end;
	for (int pass = 0; pass < 2; pass++) {
		s = dma_sluice_cand(step, c0, from);
		while (s < limit && s + n <= end) {
			unsigned long z, f;

			(*steps)++;
			if (!dma_bounce_slot_aligned(p, r, s)) {
				s = dma_sluice_cand(step, c0, s + 1);
				continue;
			}
			if (!dma_bounce_span_ok(p, r, s, n)) {
				/* Jump to the boundary the run would cross. */
				uint64_t next = ((bshift + s) | (r->max_slots - 1)) + 1 - bshift;

				s = dma_sluice_cand(step, c0, (unsigned long)next);
				continue;
			}
			z = sluice_dma_priv_bits_find_zero(m->map, s, s + n);
			if (z == s + n)
				goto found;
			f = sluice_dma_priv_bits_find_one(m->map, z + 1, end);
			if (f >= end)
				break;
			s = dma_sluice_cand(step, c0, f);
		}
		limit = from;
		from = base;
	}
	if (memo >= 0 && n < a->fail_n[memo])
		a->fail_n[memo] = n;
not_found:
	dma_unlock(p->dl, &a->lock);
	return -1;

found:
	sluice_dma_priv_bits_clear(m->map, s, n);
	a->nfree -= n;
	a->hint = s + n < end ? s + n : base;
	dma_unlock(p->dl, &a->lock);
	dma_bounce_used_add(p, n);
	return (long)s;
}

/* Everything but a magazine hit: kept out of line so the hit path stays short. */
static __attribute__((noinline)) long dma_sluice_alloc_slow(struct sluice_dma_bounce_pool *p,
							    const struct dma_bounce_req *r,
							    unsigned int cpu, unsigned long *steps)
{
	long s;

	/* Runs may span a whole area, not only a segment (see the file comment). */
	if (r->nslots > p->area_nslabs)
		return -1;
	s = dma_bounce_search_from_cpu(p, r, cpu, steps, dma_sluice_area_find);
	if (s >= 0)
		return s;
	/*
	 * Slots parked in caches must not make the pool look full: return
	 * what may be taken now and search again if there was any.
	 */
	if (dma_sluice_reclaim(p, cpu, false))
		s = dma_bounce_search_from_cpu(p, r, cpu, steps, dma_sluice_area_find);
	return s;
}

/* Every request but the common one-slot or one-page request with no constraint. */
long sluice_dma_priv_sluice_alloc_rest(struct sluice_dma_bounce_pool *p,
				       const struct dma_bounce_req *r, unsigned int cpu,
				       unsigned long *steps)
{
	struct dma_sluice_meta *m = dma_sluice_meta(p);
	long s = -1;

	if (r->nslots <= 2)
		s = dma_sluice_cache_get(p, m, r, (int)r->nslots - 1, cpu, steps);
	else if (r->nslots <= m->big_cap)
		s = dma_sluice_big_get(p, m, r, cpu, steps);
	if (s < 0)
		s = dma_sluice_alloc_slow(p, r, cpu, steps);
	if (s >= 0)
		p->slots[s].owner = (uint16_t)cpu;
	return s;
}

long sluice_dma_priv_sluice_mag_pop_locked(struct sluice_dma_bounce_pool *p, unsigned int k,
					   unsigned int cpu)
{
	struct dma_sluice_cpu *c = &dma_sluice_meta(p)->cpus[cpu];
	long s;

	dma_lock(p->dl, &c->lock);
	s = dma_sluice_mag_pop_held(p, c, k, cpu);
	dma_unlock(p->dl, &c->lock);
	return s;
}

/* Whether the common request may pop @p's magazines unchecked (class 1 = pages). */
bool sluice_dma_priv_sluice_fast(const struct sluice_dma_bounce_pool *p)
{
	return dma_sluice_meta(p)->page_aligned;
}

/*
 * The policy's alloc through the ops (bounce.c runs the same inline for a
 * fast_sluice pool): a magazine's hit, which counts its own step, or the rest.
 */
long sluice_dma_priv_sluice_alloc(struct sluice_dma_bounce_pool *p, const struct dma_bounce_req *r,
				  unsigned int cpu, unsigned long *steps)
{
	long s = dma_sluice_meta(p)->page_aligned ? dma_sluice_alloc_hit(p, r, cpu) : -1;

	return s >= 0 ? s : sluice_dma_priv_sluice_alloc_rest(p, r, cpu, steps);
}

/* A magazine run freed on @cpu, which is not its owner's: to the owner's remote list. */
static __attribute__((noinline)) void dma_sluice_free_remote(struct sluice_dma_bounce_pool *p,
							     struct dma_sluice_meta *m,
							     unsigned long head, int k,
							     unsigned int owner)
{
	struct dma_sluice_cpu *o = &m->cpus[owner];

	dma_lock(p->dl, &o->rlock);
	if (o->rn < DMA_SLUICE_REMOTE_MAX) {
		o->rem[o->rn] = (uint32_t)head | (k ? DMA_SLUICE_PAIR : 0);
		dma_sluice_st(&o->rn, o->rn + 1);
		dma_unlock(p->dl, &o->rlock);
		return;
	}
	dma_unlock(p->dl, &o->rlock);
	/* The list is full: the run goes straight back to its bitmap. */
	dma_sluice_area_put(p, m, head, k ? 2 : 1);
}

/*
 * Every free the magazine's inline push (dma_sluice_mag_push()) did not take:
 * a run freed on another CPU than its owner's, a pending drain, a full
 * magazine, a long run, any other length. Called by release (bounce.c) after
 * its own push failed, and by sluice_dma_priv_sluice_free().
 */
void sluice_dma_priv_sluice_free_miss(struct sluice_dma_bounce_pool *p, unsigned long head,
				      unsigned long nslots, unsigned int cpu)
{
	struct dma_sluice_meta *m = dma_sluice_meta(p);
	int k = dma_sluice_class(head, nslots);

	if (k >= 0) {
		struct dma_sluice_cpu *c = &m->cpus[cpu];
		unsigned int owner = p->slots[head].owner;
		uint32_t n;

		if (__builtin_expect(owner != cpu && owner < m->ncpus, 0)) {
			dma_sluice_free_remote(p, m, head, k, owner);
			return;
		}
		dma_sluice_own(p, c);
		dma_sluice_honour_drain(p, m, c);
		if (__builtin_expect(c->n[k] >= m->cache_max, 0))
			dma_sluice_drain(p, m, c, k, m->batch);
		n = c->n[k];
		c->ent[k][n] = (uint32_t)head;
		dma_sluice_st(&c->n[k], n + 1);
		dma_sluice_unown(p, c);
		return;
	}
	if (nslots > 2 && nslots <= m->big_cap) {
		struct dma_sluice_cpu *c = &m->cpus[cpu];
		unsigned int evict = 0, slots;

		/* Keep it for this CPU; make room by returning the oldest runs. */
		dma_lock(p->dl, &c->lock);
		slots = c->big_slots;
		while (evict < c->nbig &&
		       (c->nbig - evict >= DMA_SLUICE_BIG || slots + nslots > m->big_cap))
			slots -= c->big_len[evict++];
		if (evict)
			dma_sluice_big_drain(p, m, c, evict);
		c->big_head[c->nbig] = (uint32_t)head;
		c->big_len[c->nbig++] = (uint32_t)nslots;
		c->big_slots += (uint32_t)nslots;
		dma_unlock(p->dl, &c->lock);
		return;
	}
	dma_sluice_area_put(p, m, head, nslots);
}

/* The policy's free (the ops', and bounce.c's for a fast_sluice pool): the push, or the rest. */
void sluice_dma_priv_sluice_free(struct sluice_dma_bounce_pool *p, unsigned long head,
				 unsigned long nslots, unsigned int cpu)
{
	dma_sluice_free_inline(p, head, nslots, cpu);
}

/*
 * Cached run number @i of @c, counting class 0, class 1, the long runs, then
 * the remote list: its first slot in *@s and length in *@len. Returns false
 * past the last one. For a quiescent layer (self-check, is_free).
 */
static bool dma_sluice_cached_run(const struct dma_sluice_cpu *c, unsigned int i, uint32_t *s,
				  unsigned long *len)
{
	if (i < c->n[0]) {
		*s = c->ent[0][i];
		*len = 1;
		return true;
	}
	i -= c->n[0];
	if (i < c->n[1]) {
		*s = c->ent[1][i];
		*len = 2;
		return true;
	}
	i -= c->n[1];
	if (i < c->nbig) {
		*s = c->big_head[i];
		*len = c->big_len[i];
		return true;
	}
	i -= c->nbig;
	if (i < c->rn) {
		*s = c->rem[i] & ~DMA_SLUICE_PAIR;
		*len = (c->rem[i] & DMA_SLUICE_PAIR) ? 2 : 1;
		return true;
	}
	return false;
}

static bool dma_sluice_in_cache(const struct dma_sluice_meta *m, unsigned long s)
{
	for (unsigned int cpu = 0; cpu < m->ncpus; cpu++) {
		unsigned long len;
		uint32_t h;

		for (unsigned int i = 0; dma_sluice_cached_run(&m->cpus[cpu], i, &h, &len); i++)
			if (s >= h && s - h < len)
				return true;
	}
	return false;
}

static bool dma_sluice_is_free(const struct sluice_dma_bounce_pool *p, unsigned long s)
{
	const struct dma_sluice_meta *m = dma_sluice_meta(p);

	return dma_bit_test(m->map, s) || dma_sluice_in_cache(m, s);
}

/* Slots in every cache, read with relaxed loads (statistics on a live layer). */
static unsigned long dma_sluice_cached(const struct dma_sluice_meta *m)
{
	unsigned long n = 0;

	for (unsigned int cpu = 0; cpu < m->ncpus; cpu++) {
		const struct dma_sluice_cpu *c = &m->cpus[cpu];
		unsigned int rn = dma_sluice_ld(&c->rn);

		n += dma_sluice_ld(&c->n[0]) + 2ul * dma_sluice_ld(&c->n[1]) +
		     __atomic_load_n(&c->big_slots, __ATOMIC_RELAXED);
		for (unsigned int i = 0; i < rn && i < DMA_SLUICE_REMOTE_MAX; i++)
			n += (__atomic_load_n(&c->rem[i], __ATOMIC_RELAXED) & DMA_SLUICE_PAIR) ? 2 :
												 1;
	}
	return n;
}

static unsigned long dma_sluice_used(const struct sluice_dma_bounce_pool *p)
{
	const struct dma_sluice_meta *m = dma_sluice_meta(p);
	unsigned long nfree = dma_sluice_cached(m);

	for (unsigned int i = 0; i < p->nareas; i++)
		nfree += __atomic_load_n(&m->areas[i].nfree, __ATOMIC_RELAXED);
	return nfree >= p->nslabs ? 0 : p->nslabs - nfree;
}

static unsigned long dma_sluice_max_slots(const struct sluice_dma_bounce_pool *p)
{
	return p->area_nslabs;
}

static int dma_sluice_check(const struct sluice_dma_bounce_pool *p)
{
	const struct dma_sluice_meta *m = dma_sluice_meta(p);
	unsigned long nfree = 0;

	for (unsigned int a = 0; a < p->nareas; a++) {
		unsigned long base = a * p->area_nslabs, cnt = 0;

		for (unsigned long s = base; s < base + p->area_nslabs; s++) {
			cnt += dma_bit_test(m->map, s);
			if (dma_sluice_area_of(m, s) != a) {
				sluice_dma_priv_logf(
					dma_layer_ops(p->dl), SLUICE_DMA_LOG_ERR,
					"check failed: sluice slot %lu maps to area %u", s,
					dma_sluice_area_of(m, s));
				return SLUICE_DMA_ERR_FAULT;
			}
		}
		if (cnt != m->areas[a].nfree) {
			sluice_dma_priv_logf(dma_layer_ops(p->dl), SLUICE_DMA_LOG_ERR,
					     "check failed: sluice area %u nfree %lu, counted %lu",
					     a, m->areas[a].nfree, cnt);
			return SLUICE_DMA_ERR_FAULT;
		}
		nfree += cnt;
	}
	for (unsigned int cpu = 0; cpu < m->ncpus; cpu++) {
		const struct dma_sluice_cpu *c = &m->cpus[cpu];
		unsigned long big = 0;
		unsigned long len;
		uint32_t s;

		if (c->n[0] > m->cache_max || c->n[1] > m->cache_max || c->nbig > DMA_SLUICE_BIG ||
		    c->rn > DMA_SLUICE_REMOTE_MAX) {
			sluice_dma_priv_logf(dma_layer_ops(p->dl), SLUICE_DMA_LOG_ERR,
					     "check failed: sluice cpu %u cache overfull", cpu);
			return SLUICE_DMA_ERR_FAULT;
		}
		for (unsigned int i = 0; i < c->nbig; i++)
			big += c->big_len[i];
		if (big != c->big_slots || big > m->big_cap) {
			sluice_dma_priv_logf(dma_layer_ops(p->dl), SLUICE_DMA_LOG_ERR,
					     "check failed: sluice cpu %u long runs hold %lu slots",
					     cpu, big);
			return SLUICE_DMA_ERR_FAULT;
		}
		for (unsigned int i = 0; dma_sluice_cached_run(c, i, &s, &len); i++) {
			bool magazine = i < c->n[0] + c->n[1];
			bool remote = i >= c->n[0] + c->n[1] + c->nbig;

			if (!len || s + len > p->nslabs ||
			    (len == 2 && (magazine || remote) && (s & 1)) ||
			    (!magazine && !remote && len <= 2) ||
			    sluice_dma_priv_bits_find_one(m->map, s, s + len) != s + len ||
			    dma_sluice_area_of(m, s) != dma_sluice_area_of(m, s + len - 1)) {
				sluice_dma_priv_logf(
					dma_layer_ops(p->dl), SLUICE_DMA_LOG_ERR,
					"check failed: sluice cpu %u caches bad slot %u", cpu, s);
				return SLUICE_DMA_ERR_FAULT;
			}
			/* No slot may be cached twice (anywhere). */
			for (unsigned int c2 = cpu; c2 < m->ncpus; c2++) {
				const struct dma_sluice_cpu *d = &m->cpus[c2];
				unsigned long tl;
				uint32_t t;

				for (unsigned int j = c2 == cpu ? i + 1 : 0;
				     dma_sluice_cached_run(d, j, &t, &tl); j++) {
					if (t < s + len && s < t + tl) {
						sluice_dma_priv_logf(
							dma_layer_ops(p->dl), SLUICE_DMA_LOG_ERR,
							"check failed: sluice slot %u cached twice",
							s);
						return SLUICE_DMA_ERR_FAULT;
					}
				}
			}
		}
	}
	if (atomic_load(&p->total_used) != p->nslabs - nfree) {
		sluice_dma_priv_logf(dma_layer_ops(p->dl), SLUICE_DMA_LOG_ERR,
				     "check failed: sluice total_used %lu, want %lu",
				     (unsigned long)atomic_load(&p->total_used), p->nslabs - nfree);
		return SLUICE_DMA_ERR_FAULT;
	}
	return 0;
}

const struct dma_bounce_policy_ops sluice_dma_priv_bounce_sluice_ops = {
	.meta_size = dma_sluice_meta_size,
	.init = dma_sluice_init,
	.fini = dma_sluice_fini,
	.alloc = sluice_dma_priv_sluice_alloc,
	.free = sluice_dma_priv_sluice_free,
	.flush = dma_sluice_flush,
	.is_free = dma_sluice_is_free,
	.used = dma_sluice_used,
	.max_slots = dma_sluice_max_slots,
	.check = dma_sluice_check,
};
