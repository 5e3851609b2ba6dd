/* SPDX-License-Identifier: MIT */
/*
 * bench_alloc.c - host micro-benchmark of the bounce pool policies and the 2 MB
 * arena (suite "alloc"). It measures and prints; it asserts nothing and never
 * fails on a time. Run it with `make bench-host [BENCH_ARGS=...]`.
 *
 * Bounce cells (policy x size x occupancy x threads x copy): one layer with one
 * pool of the policy (16 MiB by default, the areas Linux would carve for the
 * thread count). Each thread (its own CPU index) keeps BENCH_DEPTH mappings of
 * `size` in flight and repeats "unmap the oldest, map a new one" - a pair.
 * - The in-flight mappings are made first, then the pool is filled with 1..8
 *   slot mappings and those are freed at random until `occupancy` percent of
 *   the slots are used (in-flight ones included): the free space is
 *   fragmented, yet the workload always has the room it held, so a cell times
 *   searches, not failures. Failed maps are still counted ("nomem").
 * - copy=false times the allocator alone: slot search and release through the
 *   pool (sluice_dma_priv_bounce_alloc / sluice_dma_priv_bounce_free), no data movement. copy=true
 *   times sluice_dma_map(to-device) + sluice_dma_unmap, bounce copy included.
 * - Every cell runs `rounds` timed rounds (barrier between rounds when several
 *   threads run); a round's figure is the mean over threads of the time per
 *   pair, the cell's figure the median over rounds (min and max are printed
 *   too). "cycles" are TSC ticks.
 *
 * Reference: a plain memcpy of the same size, with the footprint of the bounce
 * path: one source buffer and BENCH_DEPTH destinations of `size` used in turn
 * (the slots the in-flight mappings rotate through).
 *
 * Arena cells: each thread keeps BENCH_DEPTH blocks of `size` (512 B and 2 KiB
 * round up to 4 KiB blocks) and repeats "free the oldest, allocate one"
 * (owned per-CPU caches, SLUICE_DMA_ARENA_OWNED_CACHES, unless -X or -L),
 * under each scrub strategy (arena_strats[]: on free or on alloc, with the
 * port's zero op or non-temporal stores). The scrub is part of that cost; it
 * is also timed alone (the same zero op over the same blocks) and reported
 * next to each pair, and the arena's own scrub_cycles counter is in the JSON.
 *
 * Port settings, as the kernel's port makes them: the port promises exclusive
 * CPU indices (SLUICE_DMA_PORT_CPU_EXCLUSIVE: the sluice policy's magazines
 * run without locks; -X: without the promise, locked), and installs the copy
 * it chose once for this CPU (-C auto: `rep movsb` / `rep stosb` when the CPU
 * reports ERMS, else libc; -C libc or -C movsb to force one). Every JSON line
 * says which ("percpu", "copy_impl").
 *
 * Copy table (-c 1 or both): the bounce copy and clear alone, per size, with
 * the footprint of the bounce path (BENCH_DEPTH destinations in turn), for
 * libc memcpy / memset (glibc here), `rep movsb` / `rep stosb`, and `rep movsq`
 * with a byte tail (the shape of newlib's x86-64 memcpy.S, which the kernel
 * links): mode "copy" / "clear", policy = the implementation.
 *
 * Output: one JSON object per line (the benchmark output contract) to stdout or
 * to the file of -o, then readable tables with ratios against `linux` from
 * the same run.
 */
#define _GNU_SOURCE /* pthread_setaffinity_np() */
#include <getopt.h>
#include <sched.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sluice/arena.h>
/* rdtsc(), and the copy candidates timed as the kernel times them. */
#include "arch/x86_64/cpu/memops.h"
#include "dma/bounce.h"
#include "bench/host/bench_json.h"
#include "bench/host/bench_stages.h"
#include "tests/fakes/test_bounce_fixture.h"

#define BENCH_DEPTH 16
#define BENCH_MAX_THREADS 8
#define BENCH_MAX_ROUNDS 31
#define BENCH_NTHR_MAX 4

static const size_t bench_sizes[] = { 512, 2048, 4096, 16384, 65536, 262144 };
static const unsigned int bench_occ[] = { 0, 50, 90 };
enum { NSIZES = 6, NOCC = 3 };

static struct {
	unsigned long pairs; /* pairs per thread per round, for 4 KiB and below */
	unsigned int rounds;
	size_t only_size;
	int only_policy; /* -1: all */
	size_t pool;
	bool no_bounce, no_arena;
	int only_copy;	       /* -1: both */
	bool nolock;	       /* 1-thread cells on a port without locks */
	bool breakdown;	       /* -K: the cost breakdown only */
	unsigned long insns;   /* -I: pairs of the instruction-count run only */
	bool locked;	       /* no SLUICE_DMA_PORT_CPU_EXCLUSIVE promise */
	bool avx2;	       /* this CPU runs AVX2 (probed once, print_header()) */
	const char *copy_req;  /* -C: libc, movsb, avx2, auto, timed */
	const char *copy_name; /* the copy installed */
	const char *zero_name; /* the clear installed */
	FILE *json;
	unsigned int threads[BENCH_NTHR_MAX];
	unsigned int nthr;
} cfg = { .pairs = 10000,
	  .rounds = 9,
	  .only_policy = -1,
	  .only_copy = -1,
	  .pool = 16ul << 20,
	  .copy_req = "timed",
	  .copy_name = "libc",
	  .zero_name = "libc" };

/* The copy and the clear chosen at start-up (print_header()), in @mp's ops. */
static void bench_port_copy(struct mock_port *mp)
{
	mock_port_set_copy(mp, cfg.copy_name);
	mock_port_set_zero(mp, cfg.zero_name);
}

/* The port settings of every layer the benchmark makes (see the file comment). */
static void bench_port(struct fx *f)
{
	f->mp.ops.flags = cfg.locked ? 0 : SLUICE_DMA_PORT_CPU_EXCLUSIVE;
	bench_port_copy(&f->mp);
	/* The layer took its own copy of the ops at init (dma_port.h): the flag
	 * and the copy go there too; the layer is idle here. */
	f->dl.ops.flags = f->mp.ops.flags;
	f->dl.ops.copy = f->mp.ops.copy;
	f->dl.ops.zero = f->mp.ops.zero;
	fx_ops_changed(f);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Larger operations get fewer pairs per round so that every cell takes similar time. */
static unsigned long pairs_for(size_t size, bool heavy)
{
	unsigned long p = cfg.pairs;

	if (heavy && size > 4096)
		p = (unsigned long)(cfg.pairs * 4096 / size);
	return p < 200 ? 200 : p;
}

struct figure {
	double ns; /* median over rounds */
	double cycles;
	double ns_min, ns_max;
	unsigned long nomem;		   /* failed maps or allocations, all rounds and threads */
	unsigned long ops;		   /* pairs timed, all rounds and threads */
	double paired;			   /* median over rounds of linux / this, same round */
	double round_ns[BENCH_MAX_ROUNDS]; /* per round, in run order */
	bool valid;
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Median of @n figures (sorted in place). */
static double median(double *v, unsigned int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Per-round per-thread timings, reduced to a figure. */
struct timing {
	double ns[BENCH_MAX_ROUNDS][BENCH_MAX_THREADS];
	double cyc[BENCH_MAX_ROUNDS][BENCH_MAX_THREADS];
};

static struct figure reduce(const struct timing *t, unsigned int threads, unsigned long pairs)
{
	double ns[BENCH_MAX_ROUNDS], cyc[BENCH_MAX_ROUNDS];
	struct figure f = { .valid = true };

	for (unsigned int r = 0; r < cfg.rounds; r++) {
		ns[r] = cyc[r] = 0;
		for (unsigned int i = 0; i < threads; i++) {
			ns[r] += t->ns[r][i] / (double)pairs;
			cyc[r] += t->cyc[r][i] / (double)pairs;
		}
		/* Per pair per thread: the cost one thread sees. */
		ns[r] /= threads;
		cyc[r] /= threads;
		f.round_ns[r] = ns[r];
	}
	f.ns = median(ns, cfg.rounds);
	f.ns_min = ns[0];
	f.ns_max = ns[cfg.rounds - 1];
	f.cycles = median(cyc, cfg.rounds);
	f.ops = pairs * threads * cfg.rounds;
	return f;
}

/* ------------------------------------------------------------ bounce cells */

/* One in-flight mapping: a full mapping (copy) or a raw slot run (alloc). */
struct inflight {
	bool live;
	uint64_t dma;
	struct sluice_dma_bounce_pool *pool;
	long head;
	unsigned long nslots;
};

/*
 * One entry of a group: a pool of one policy with its workload, or (f == NULL)
 * the memcpy reference with the same footprint.
 */
struct cell {
	struct fx *f;
	enum sluice_dma_bounce_policy policy;
	size_t size;
	bool copy;
	struct inflight q[BENCH_MAX_THREADS][BENCH_DEPTH];
	unsigned char *src[BENCH_MAX_THREADS];
	unsigned char *dst[BENCH_MAX_THREADS]; /* memcpy reference only */
	unsigned long k[BENCH_MAX_THREADS];
	unsigned long nomem[BENCH_MAX_THREADS];
	uint64_t *held;
	size_t *lens;
	unsigned int nheld;
	struct timing t;
};

/*
 * The entries measured together: the same size, occupancy, thread count and
 * copy mode for every policy (and the memcpy reference). Their rounds are
 * interleaved, so a burst of noise from other work on the machine hits every
 * entry alike instead of one whole cell.
 */
struct group {
	unsigned int threads;
	unsigned long pairs;
	unsigned int n;
	struct cell *e[SLUICE_DMA_POLICY_COUNT + 1];
	pthread_barrier_t bar;
};

struct worker {
	struct group *g;
	unsigned int cpu;
};

/*
 * bench_get() and bench_put() are the cells' own work around each call into
 * the layer; inline, so what a pair times is the layer's calls, not a call
 * and a frame of the bench's as well (every policy's cell alike).
 */
static inline __attribute__((always_inline)) bool bench_get(struct cell *c, unsigned int cpu,
							    struct inflight *x)
{
	/* Static: the cell times the layer, not the tag's stores on every pair. */
	static const struct sluice_dma_tag t = SLUICE_DMA_TAG_DEFAULT;
	unsigned char *buf = c->src[cpu];

	if (c->copy) {
		if (sluice_dma_map(&c->f->dl, &t, buf, c->size, SLUICE_DMA_TO_DEVICE, &x->dma))
			return false;
	} else {
		struct dma_bounce_req r;
		uint64_t off;

		dma_bounce_req_init(&r, &t, (uint64_t)(uintptr_t)buf, c->size, &off);
		x->pool = __atomic_load_n(&c->f->dl.pools, __ATOMIC_ACQUIRE);
		x->head = sluice_dma_priv_bounce_alloc(x->pool, &r, cpu);
		if (x->head < 0)
			return false;
		x->nslots = r.nslots;
	}
	x->live = true;
	return true;
}

static inline __attribute__((always_inline)) void bench_put(struct cell *c, unsigned int cpu,
							    struct inflight *x)
{
	if (!x->live)
		return;
	if (c->copy)
		sluice_dma_unmap(&c->f->dl, x->dma, c->size, SLUICE_DMA_TO_DEVICE);
	else
		sluice_dma_priv_bounce_free(x->pool, (unsigned long)x->head, x->nslots, cpu);
	x->live = false;
}

static void run_pairs(struct cell *c, unsigned int cpu, unsigned long pairs)
{
	unsigned long k = c->k[cpu], nomem = 0;

	if (!c->f) {
		/* Reference: one source, BENCH_DEPTH destinations in turn, as the slots. */
		for (unsigned long i = 0; i < pairs; i++, k++) {
			unsigned char *d = c->dst[cpu] + (k % BENCH_DEPTH) * c->size;

			memcpy(d, c->src[cpu], c->size);
			__asm__ volatile("" : : "r"(d) : "memory");
		}
	} else {
		struct inflight *q = c->q[cpu];

		for (unsigned long i = 0; i < pairs; i++, k++) {
			struct inflight *x = &q[k % BENCH_DEPTH];

			bench_put(c, cpu, x);
			if (!bench_get(c, cpu, x))
				nomem++;
		}
	}
	c->k[cpu] = k;
	c->nomem[cpu] += nomem;
}

/*
 * Run the calling thread on host CPU @cpu (modulo the CPUs online) only: on this
 * project's VM the two vCPUs run the same code at different speeds at times (a
 * 4 KiB copy ~37 ns on one, ~47 ns on the other), and a thread the scheduler
 * moves mixes them into one cell. Best effort: a failure leaves it unpinned.
 */
static void bench_pin(unsigned int cpu)
{
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(online > 0 ? cpu % (unsigned int)online : 0, &set);
	(void)pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static void *group_worker(void *arg)
{
	struct worker *w = arg;
	struct group *g = w->g;

	bench_pin(w->cpu);
	mock_port_set_cpu(w->cpu);
	for (unsigned int r = 0; r < cfg.rounds; r++) {
		for (unsigned int j = 0; j < g->n; j++) {
			/* Rotate the order so that no entry always runs first. */
			struct cell *c = g->e[(j + r) % g->n];
			uint64_t t0, c0, c1, t1;

			pthread_barrier_wait(&g->bar);
			t0 = now_ns();
			c0 = rdtsc();
			run_pairs(c, w->cpu, g->pairs);
			c1 = rdtsc();
			t1 = now_ns();
			c->t.ns[r][w->cpu] = (double)(t1 - t0);
			c->t.cyc[r][w->cpu] = (double)(c1 - c0);
		}
	}
	return NULL;
}

/*
 * Fill the pool with 1..8-slot mappings, then free them at random until @occ
 * percent of the slots are used (the in-flight mappings already count).
 */
static void bench_occupy(struct cell *c, unsigned int occ, unsigned char *buf)
{
	const struct sluice_dma_tag t = SLUICE_DMA_TAG_DEFAULT;
	struct fx *f = c->f;
	unsigned int max = (unsigned int)(f->bytes[0] >> SLUICE_DMA_IO_TLB_SHIFT);
	unsigned long target = f->bytes[0] / SLUICE_DMA_IO_TLB_SIZE * occ / 100;
	unsigned int n = 0, seed = 12345;
	struct sluice_dma_bounce_stats st;

	c->held = calloc(max, sizeof(*c->held));
	c->lens = calloc(max, sizeof(*c->lens));
	if (!c->held || !c->lens) {
		fprintf(stderr, "bench: out of memory\n");
		exit(1);
	}
	sluice_dma_bounce_stats_get(&f->dl, 0, &st);
	if (st.used >= target)
		return;
	mock_port_set_cpu(0);
	while (n < max) {
		size_t len = (size_t)(1 + rand_r(&seed) % 8) * SLUICE_DMA_IO_TLB_SIZE - 100;

		if (sluice_dma_map(&f->dl, &t, buf, len, SLUICE_DMA_TO_DEVICE, &c->held[n]))
			break;
		c->lens[n++] = len;
	}
	for (;;) {
		unsigned int i;

		sluice_dma_bounce_stats_get(&f->dl, 0, &st);
		if (st.used <= target || !n)
			break;
		i = (unsigned int)rand_r(&seed) % n;
		sluice_dma_unmap(&f->dl, c->held[i], c->lens[i], SLUICE_DMA_TO_DEVICE);
		c->held[i] = c->held[n - 1];
		c->lens[i] = c->lens[n - 1];
		n--;
	}
	c->nheld = n;
}

static struct cell *cell_new(int policy, size_t size, unsigned int occ, unsigned int threads,
			     bool copy, unsigned char *fillbuf)
{
	struct cell *c = calloc(1, sizeof(*c));

	if (!c) {
		fprintf(stderr, "bench: out of memory\n");
		exit(1);
	}
	c->size = size;
	c->copy = copy;
	for (unsigned int i = 0; i < threads; i++) {
		c->src[i] = fx_aligned(4096, size);
		memset(c->src[i], 0x5a, size);
	}
	if (policy < 0) {
		for (unsigned int i = 0; i < threads; i++) {
			c->dst[i] = fx_aligned(4096, size * BENCH_DEPTH);
			memset(c->dst[i], 2, size * BENCH_DEPTH);
		}
		return c;
	}
	c->policy = (enum sluice_dma_bounce_policy)policy;
	c->f = fx_new(c->policy, threads, cfg.pool, SLUICE_DMA_SCRUB_ZERO);
	if (!c->f) {
		fprintf(stderr, "bench: pool setup failed\n");
		exit(1);
	}
	bench_port(c->f);
	/* The layer keeps its own copy of the ops: drop the locks there. */
	if (cfg.nolock)
		c->f->dl.ops.lock = NULL, c->f->dl.ops.unlock = NULL;
	/* The workload's mappings first: it keeps the room it holds. */
	for (unsigned int i = 0; i < threads; i++) {
		mock_port_set_cpu(i);
		for (unsigned int j = 0; j < BENCH_DEPTH; j++)
			bench_get(c, i, &c->q[i][j]);
	}
	bench_occupy(c, occ, fillbuf);
	mock_port_set_cpu(0);
	return c;
}

static struct figure cell_free(struct cell *c, unsigned int threads, unsigned long pairs)
{
	struct figure fig = reduce(&c->t, threads, pairs);

	for (unsigned int i = 0; i < threads; i++) {
		fig.nomem += c->nomem[i];
		if (c->f) {
			mock_port_set_cpu(i);
			for (unsigned int j = 0; j < BENCH_DEPTH; j++)
				bench_put(c, i, &c->q[i][j]);
		}
		free(c->src[i]);
		free(c->dst[i]);
	}
	mock_port_set_cpu(0);
	if (c->f) {
		while (c->nheld) {
			c->nheld--;
			sluice_dma_unmap(&c->f->dl, c->held[c->nheld], c->lens[c->nheld],
					 SLUICE_DMA_TO_DEVICE);
		}
		if (fx_free(c->f))
			fprintf(stderr, "bench: layer self-check failed after a %s cell\n",
				sluice_dma_bounce_policy_name(c->policy));
	}
	free(c->held);
	free(c->lens);
	free(c);
	return fig;
}

/*
 * Measure every wanted policy (and, with @ref, the memcpy reference) for one
 * size, occupancy, thread count and copy mode; results go to @out[policy] and
 * *@ref.
 */
static void run_group(size_t size, unsigned int occ, unsigned int threads, bool copy,
		      struct figure *out, struct figure *ref, bool (*wanted)(int))
{
	unsigned char *fillbuf = fx_aligned(4096, 8 * SLUICE_DMA_IO_TLB_SIZE);
	struct group g = { .threads = threads, .pairs = pairs_for(size, copy) };
	struct worker w[BENCH_MAX_THREADS];
	pthread_t th[BENCH_MAX_THREADS];
	int pol[SLUICE_DMA_POLICY_COUNT + 1];

	memset(fillbuf, 1, 8 * SLUICE_DMA_IO_TLB_SIZE);
	for (int p = 0; p < SLUICE_DMA_POLICY_COUNT; p++) {
		if (!wanted(p))
			continue;
		pol[g.n] = p;
		g.e[g.n++] = cell_new(p, size, occ, threads, copy, fillbuf);
	}
	if (ref) {
		pol[g.n] = -1;
		g.e[g.n++] = cell_new(-1, size, occ, threads, copy, fillbuf);
	}
	pthread_barrier_init(&g.bar, NULL, threads);
	for (unsigned int i = 0; i < threads; i++) {
		w[i] = (struct worker){ .g = &g, .cpu = i };
		pthread_create(&th[i], NULL, group_worker, &w[i]);
	}
	for (unsigned int i = 0; i < threads; i++)
		pthread_join(th[i], NULL);
	pthread_barrier_destroy(&g.bar);
	/*
	 * Paired ratio: rounds of linux and of a policy ran back to back, so
	 * their ratio round by round cancels most slow drifts of the machine.
	 */
	if (g.n && pol[0] == SLUICE_DMA_POLICY_LINUX) {
		for (unsigned int j = 0; j < g.n; j++) {
			double v[BENCH_MAX_ROUNDS];

			for (unsigned int r = 0; r < cfg.rounds; r++) {
				double a = 0, b = 0;

				for (unsigned int i = 0; i < threads; i++) {
					a += g.e[0]->t.ns[r][i];
					b += g.e[j]->t.ns[r][i];
				}
				v[r] = b > 0 ? a / b : 0;
			}
			if (pol[j] >= 0)
				out[pol[j]].paired = median(v, cfg.rounds);
			else
				ref->paired = median(v, cfg.rounds);
		}
	}
	for (unsigned int j = 0; j < g.n; j++) {
		struct figure f = cell_free(g.e[j], threads, g.pairs);

		f.paired = pol[j] < 0 ? ref->paired : out[pol[j]].paired;
		if (pol[j] < 0)
			*ref = f;
		else
			out[pol[j]] = f;
	}
	free(fillbuf);
}

/* ------------------------------------------------------------ arena cells */

/*
 * The arena's scrub strategies (dma/arena.c): when (on free, the default, or on
 * alloc) and with which zero op the port installs - the -C choice (libc
 * memset, or `rep stosb`), or non-temporal stores with a fence, which a port
 * may offer (mock_port_zero_nt()).
 */
static const struct arena_strategy {
	const char *name;
	const char *at;
	bool nt;
	unsigned int flags;
} arena_strats[] = {
	{ "free", "free", false, 0 },
	{ "alloc", "alloc", false, SLUICE_DMA_ARENA_SCRUB_ON_ALLOC },
	{ "free-nt", "free", true, 0 },
	{ "alloc-nt", "alloc", true, SLUICE_DMA_ARENA_SCRUB_ON_ALLOC },
};
enum { NSTRAT = 4 };

struct arena_cell {
	struct sluice_dma_arena arena;
	size_t size;
	unsigned long pairs;
	pthread_barrier_t bar;
	void *q[BENCH_MAX_THREADS][BENCH_DEPTH];
	unsigned long nomem[BENCH_MAX_THREADS];
	struct timing t;
	/* Scrub reference: the strategy's zero op over BENCH_DEPTH blocks in turn,
	 * through the arena's own dispatch (dma_port_zero(): inline, as the
	 * arena's, when the table holds the port's inline zero). */
	unsigned char *zero[BENCH_MAX_THREADS];
	struct sluice_dma_port_ops zero_ops;
	size_t block;
	struct timing tz;
};

struct arena_worker {
	struct arena_cell *c;
	unsigned int cpu;
};

static void *arena_worker(void *arg)
{
	struct arena_worker *w = arg;
	struct arena_cell *c = w->c;
	void **q = c->q[w->cpu];
	unsigned long nomem = 0, k = 0;

	bench_pin(w->cpu);
	mock_port_set_cpu(w->cpu);
	for (unsigned int r = 0; r < cfg.rounds; r++) {
		uint64_t t0, c0, c1, t1;

		pthread_barrier_wait(&c->bar);
		t0 = now_ns();
		c0 = rdtsc();
		for (unsigned long i = 0; i < c->pairs; i++, k++) {
			void **x = &q[k % BENCH_DEPTH];

			sluice_dma_arena_free(&c->arena, *x);
			*x = sluice_dma_arena_alloc(&c->arena, c->size);
			nomem += !*x;
		}
		c1 = rdtsc();
		t1 = now_ns();
		c->t.ns[r][w->cpu] = (double)(t1 - t0);
		c->t.cyc[r][w->cpu] = (double)(c1 - c0);

		/* The scrub alone, right after: the same stores the arena makes. */
		pthread_barrier_wait(&c->bar);
		t0 = now_ns();
		c0 = rdtsc();
		for (unsigned long i = 0; i < c->pairs; i++) {
			unsigned char *z = c->zero[w->cpu] + (i % BENCH_DEPTH) * c->block;

			dma_port_zero(&c->zero_ops, z, c->block);
			__asm__ volatile("" : : "r"(z) : "memory");
		}
		c1 = rdtsc();
		t1 = now_ns();
		c->tz.ns[r][w->cpu] = (double)(t1 - t0);
		c->tz.cyc[r][w->cpu] = (double)(c1 - c0);
	}
	c->nomem[w->cpu] = nomem;
	return NULL;
}

/*
 * Returns the alloc+free pair cost (scrub included) under strategy @st.
 * *@scrub gets the scrub alone (the strategy's zero op over the block size and
 * the same number of blocks, in rounds interleaved with the arena's);
 * *@scrub_cyc the arena's own scrub_cycles counter per pair (TSC ticks,
 * sampled for the cached sizes).
 */
static struct figure arena_cell(size_t size, unsigned int threads, const struct arena_strategy *st,
				struct figure *scrub, double *scrub_cyc)
{
	size_t region = 16ul << 20;
	struct mock_port mp;
	struct arena_cell *c = fx_aligned(64, sizeof(*c));
	void *base = fx_aligned(SLUICE_DMA_ARENA_CHUNK_SIZE, region);
	size_t meta_len = sluice_dma_arena_meta_size(region, threads);
	void *meta = malloc(meta_len);
	struct sluice_dma_arena_config ac = {
		.base = base,
		.len = region,
		.ncpus = threads,
		.meta = meta,
		.meta_len = meta_len,
		.flags = st->flags,
	};
	struct sluice_dma_arena_stats s0, s1;
	struct arena_worker w[BENCH_MAX_THREADS];
	pthread_t th[BENCH_MAX_THREADS];
	struct figure f;

	memset(c, 0, sizeof(*c));
	mock_port_init(&mp, threads);
	if (cfg.nolock)
		mp.ops.lock_init = NULL, mp.ops.lock = NULL, mp.ops.unlock = NULL;
	/* As the bounce cells: exclusive CPU indices, each CPU's cache its own (-X: locked). */
	if (!cfg.locked && !cfg.nolock) {
		mp.ops.flags = SLUICE_DMA_PORT_CPU_EXCLUSIVE;
		ac.flags |= SLUICE_DMA_ARENA_OWNED_CACHES;
	}
	bench_port_copy(&mp);
	if (st->nt)
		mp.ops.zero = mock_port_zero_nt;
	c->zero_ops = mp.ops;
	if (!base || !meta || sluice_dma_arena_init(&c->arena, &mp.ops, &ac)) {
		fprintf(stderr, "bench: arena setup failed\n");
		exit(1);
	}
	c->size = size;
	c->pairs = pairs_for(size, true);
	c->block = size < SLUICE_DMA_ARENA_MIN_BLOCK ? SLUICE_DMA_ARENA_MIN_BLOCK : size;
	for (unsigned int i = 0; i < threads; i++) {
		c->zero[i] = fx_aligned(4096, c->block * BENCH_DEPTH);
		memset(c->zero[i], 1, c->block * BENCH_DEPTH);
		mock_port_set_cpu(i);
		for (unsigned int j = 0; j < BENCH_DEPTH; j++)
			c->q[i][j] = sluice_dma_arena_alloc(&c->arena, size);
	}
	sluice_dma_arena_stats_get(&c->arena, &s0);
	pthread_barrier_init(&c->bar, NULL, threads);
	for (unsigned int i = 0; i < threads; i++) {
		w[i] = (struct arena_worker){ .c = c, .cpu = i };
		pthread_create(&th[i], NULL, arena_worker, &w[i]);
	}
	for (unsigned int i = 0; i < threads; i++)
		pthread_join(th[i], NULL);
	sluice_dma_arena_stats_get(&c->arena, &s1);
	f = reduce(&c->t, threads, c->pairs);
	*scrub = reduce(&c->tz, threads, c->pairs);
	for (unsigned int i = 0; i < threads; i++) {
		f.nomem += c->nomem[i];
		free(c->zero[i]);
	}
	*scrub_cyc = s1.frees > s0.frees ? (double)(s1.scrub_cycles - s0.scrub_cycles) /
						   (double)(s1.frees - s0.frees) :
					   0;
	/* The scrub's promise, whichever strategy: nothing idle or live holds a stale byte
	 * that the next allocation would see (tests/dma/test_arena.c checks it properly). */
	for (unsigned int i = 0; i < threads; i++) {
		mock_port_set_cpu(i);
		for (unsigned int j = 0; j < BENCH_DEPTH; j++)
			sluice_dma_arena_free(&c->arena, c->q[i][j]);
	}
	mock_port_set_cpu(0);
	if (sluice_dma_arena_check(&c->arena, 0) || sluice_dma_arena_destroy(&c->arena))
		fprintf(stderr, "bench: arena self-check or fini failed\n");
	pthread_barrier_destroy(&c->bar);
	free(meta);
	free(base);
	free(c);
	return f;
}

/* ------------------------------------------------------------ receive path */

/*
 * The receive path of one from-device bounce under each scrub mode, one thread,
 * policy sluice, an empty pool: map (zero: memset of the slot; copy: memcpy of
 * the private buffer into it, what Linux does since CVE-2022-0854), the device's
 * write (a memset of the slot, the same in both), then the copy back of what it
 * wrote (sluice_dma_unmap_written() of the whole length: a block read; the copy mode's
 * cost is the same either way). Figures: median ns per map+write+unmap over the
 * rounds. What the zero mode buys is that no private byte reaches the slot; what
 * it costs, or saves, is this difference.
 */
static struct figure scrub_cell(size_t size, enum sluice_dma_scrub scrub)
{
	const struct sluice_dma_tag t = SLUICE_DMA_TAG_DEFAULT;
	unsigned long pairs = pairs_for(size, true);
	struct fx *f = fx_new(SLUICE_DMA_POLICY_SLUICE, 1, cfg.pool, scrub);
	unsigned char *buf = fx_aligned(4096, size);
	struct timing tm;
	struct figure fig;
	unsigned long nomem = 0;

	if (!f || !buf) {
		fprintf(stderr, "bench: scrub cell setup failed\n");
		exit(1);
	}
	bench_port(f);
	memset(buf, 0x5a, size);
	for (unsigned int r = 0; r < cfg.rounds; r++) {
		uint64_t t0 = now_ns(), c0 = rdtsc();

		for (unsigned long i = 0; i < pairs; i++) {
			uint64_t d;

			if (sluice_dma_map(&f->dl, &t, buf, size, SLUICE_DMA_FROM_DEVICE, &d)) {
				nomem++;
				continue;
			}
			memset(fx_dev(d), (int)(i & 0xff), size); /* the device writes */
			sluice_dma_unmap_written(&f->dl, d, size, SLUICE_DMA_FROM_DEVICE, size);
		}
		tm.ns[r][0] = (double)(now_ns() - t0);
		tm.cyc[r][0] = (double)(rdtsc() - c0);
	}
	fig = reduce(&tm, 1, pairs);
	fig.nomem = nomem;
	fx_free(f);
	free(buf);
	return fig;
}

/* ------------------------------------------------------------ copy table */

struct copy_impl {
	const char *name;
	void (*copy)(void *ctx, void *dst, const void *src, size_t len);
	void (*zero)(void *ctx, void *dst, size_t len);
};

static const struct copy_impl copy_impls[] = {
	{ "libc", mock_port_copy_libc, mock_port_zero_libc },
	{ "movsb", memops_copy_movsb, memops_zero_stosb },
	{ "movsq", mock_port_copy_movsq, NULL },
	{ "avx2", memops_copy_avx2, memops_zero_avx2 },
};
enum { NIMPL = 4, IMPL_AVX2 = 3 };

/* [size][impl][0 copy, 1 clear] */
static struct figure copy_fig[NSIZES][NIMPL][2];

/*
 * The copy and the clear alone, with the bounce path's footprint: one source,
 * BENCH_DEPTH destinations of @size in turn. Rounds of every implementation
 * are interleaved, as the policies' are.
 */
static void copy_cells(unsigned int si)
{
	size_t size = bench_sizes[si];
	unsigned long pairs = pairs_for(size, true);
	unsigned char *src = fx_aligned(4096, size), *dst = fx_aligned(4096, size * BENCH_DEPTH);
	struct timing tm[NIMPL][2];

	if (!src || !dst) {
		fprintf(stderr, "bench: out of memory\n");
		exit(1);
	}
	memset(src, 0x5a, size);
	memset(dst, 1, size * BENCH_DEPTH);
	for (unsigned int r = 0; r < cfg.rounds; r++)
		for (unsigned int j = 0; j < NIMPL * 2; j++) {
			unsigned int ii = (j + r) % (NIMPL * 2), im = ii / 2, op = ii % 2;
			const struct copy_impl *ci = &copy_impls[im];
			uint64_t t0, c0;

			if ((op && !ci->zero) || (im == IMPL_AVX2 && !cfg.avx2))
				continue;
			t0 = now_ns();
			c0 = rdtsc();
			for (unsigned long i = 0; i < pairs; i++) {
				unsigned char *d = dst + (i % BENCH_DEPTH) * size;

				if (op)
					ci->zero(NULL, d, size);
				else
					ci->copy(NULL, d, src, size);
				__asm__ volatile("" : : "r"(d) : "memory");
			}
			tm[im][op].cyc[r][0] = (double)(rdtsc() - c0);
			tm[im][op].ns[r][0] = (double)(now_ns() - t0);
		}
	for (unsigned int im = 0; im < NIMPL; im++)
		for (unsigned int op = 0; op < 2; op++)
			if ((!op || copy_impls[im].zero) && (im != IMPL_AVX2 || cfg.avx2))
				copy_fig[si][im][op] = reduce(&tm[im][op], 1, pairs);
	free(src);
	free(dst);
}

/* ------------------------------------------------------------ output */

static void json_figure(const char *mode, const char *policy, size_t size, unsigned int threads,
			unsigned int occ, bool copy, const struct figure *f,
			const struct bench_json *extra)
{
	struct bench_json j;

	bench_json_init(&j);
	bench_json_raw(&j, "{\"suite\":\"alloc\"");
	bench_json_str(&j, "mode", mode);
	bench_json_str(&j, "policy", policy);
	bench_json_ulong(&j, "size", size);
	bench_json_ulong(&j, "threads", threads);
	bench_json_ulong(&j, "occupancy", occ);
	bench_json_ulong(&j, "iodepth", BENCH_DEPTH);
	bench_json_bool(&j, "copy", copy);
	bench_json_num(&j, "ns_per_op", f->ns, 1);
	bench_json_num(&j, "cycles_per_op", f->cycles, 1);
	bench_json_num(&j, "ns_min", f->ns_min, 1);
	bench_json_num(&j, "ns_max", f->ns_max, 1);
	bench_json_ulong(&j, "rounds", cfg.rounds);
	bench_json_ulong(&j, "ops", f->ops);
	bench_json_ulong(&j, "nomem", f->nomem);
	bench_json_bool(&j, "locks", !cfg.nolock);
	bench_json_str(&j, "percpu", cfg.locked ? "locked" : "exclusive");
	bench_json_str(&j, "copy_impl", cfg.copy_name);
	bench_json_str(&j, "zero_impl", cfg.zero_name);
	bench_json_cat(&j, extra);
	bench_json_raw(&j, "}");
	if (!bench_json_emit(&j, cfg.json))
		fprintf(stderr, "bench_alloc: out of memory: a JSON line of %s/%s dropped\n", mode,
			policy);
	bench_json_free(&j);
}

/* " linux bitmap ...": every policy of <sluice/dma_policies.h>, for the help. */
#define BENCH_POLICY_WORD_(upper, lower) " " #lower
#define BENCH_POLICY_WORDS SLUICE_DMA_POLICIES(BENCH_POLICY_WORD_)

static void usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s [-n pairs] [-r rounds] [-s size] [-p policy] [-c 0|1] [-t threads]\n"
		"          [-P pool_mib] [-B] [-A] [-L] [-X] [-K] [-I pairs] [-C copy]\n"
		"          [-W real|max|nan|inf] [-o file.json]\n"
		"  -n  pairs per thread per round at <= 4 KiB (fewer for larger copies);\n"
		"      default 10000\n"
		"  -r  timed rounds per cell, median reported (1..%d); default 9\n"
		"  -s  one size only (bytes)\n"
		"  -c  0: allocator cells only, 1: copy cells only\n"
		"  -p  one bounce policy only (one of%s; no ratios\n"
		"      without %s)\n"
		"  -t  largest thread count (default: 2, or more when the machine has more CPUs)\n"
		"  -P  bounce pool size in MiB (default 16)\n"
		"  -B  skip the bounce cells; -A  skip the arena cells\n"
		"  -L  one thread on a port without locks (what the locks cost)\n"
		"  -X  the port does not promise exclusive CPU indices: sluice's magazines locked\n"
		"  -K  the cost breakdown only: each stage of a 4 KiB map+unmap with copy\n"
		"      (the stage build, build/bench/bench_alloc_stages, has the markers)\n"
		"  -I  only n pairs of 4 KiB map+unmap and of arena free+alloc, for\n"
		"      valgrind --tool=callgrind (make bench-insns)\n"
		"  -C  the bounce copy and clear the port installs: timed (the default: each\n"
		"      the fastest of libc, movsb and avx2 on a 4 KiB copy and clear, CPUID's\n"
		"      pick kept unless another is faster by more than an eighth), auto (movsb\n"
		"      with ERMS, else libc), libc, movsb, avx2, or copy/clear (avx2/movsb)\n"
		"  -W  every number of the JSON lines replaced with the widest a run can\n"
		"      produce (max: -DBL_MAX, ULONG_MAX; nan, inf: written as null), to\n"
		"      test that every line still parses; the tables keep the real figures\n"
		"  -o  write the JSON lines to this file instead of stdout\n",
		prog, BENCH_MAX_ROUNDS, BENCH_POLICY_WORDS,
		sluice_dma_bounce_policy_name(SLUICE_DMA_POLICY_LINUX));
}

/* 1, 2, then powers of two up to @max, and @max itself. */
static void set_threads(unsigned int max)
{
	cfg.nthr = 0;
	if (max < 1)
		max = 1;
	if (max > BENCH_MAX_THREADS)
		max = BENCH_MAX_THREADS;
	for (unsigned int t = 1; t <= max && cfg.nthr < BENCH_NTHR_MAX; t *= 2)
		cfg.threads[cfg.nthr++] = t;
	if (cfg.threads[cfg.nthr - 1] != max && cfg.nthr < BENCH_NTHR_MAX)
		cfg.threads[cfg.nthr++] = max;
}

static int policy_by_name(const char *name)
{
	for (int p = 0; p < SLUICE_DMA_POLICY_COUNT; p++)
		if (!strcmp(name, sluice_dma_bounce_policy_name(fx_policies[p])))
			return p;
	return -2;
}

static bool size_wanted(size_t size)
{
	return !cfg.only_size || cfg.only_size == size;
}

static bool policy_wanted(int p)
{
	return cfg.only_policy < 0 || p == cfg.only_policy;
}

/* Indices: policy, size, occupancy, thread-count index, copy. */
static struct figure res[SLUICE_DMA_POLICY_COUNT][NSIZES][NOCC][BENCH_NTHR_MAX][2];
/* memcpy reference, measured with each copy group */
static struct figure ref[NSIZES][NOCC][BENCH_NTHR_MAX];
static struct figure arena[NSTRAT][NSIZES][BENCH_NTHR_MAX];
static double arena_scrub_ns[NSTRAT][NSIZES][BENCH_NTHR_MAX];
/* The receive path under scrub=copy [0] and scrub=zero [1], by size. */
static struct figure scrub_fig[NSIZES][2];

/* Cells within this factor of the best baseline policy are reported as a tie. */
#define BENCH_NOISE 1.10

/*
 * How much faster @a is than @b: the median over rounds of b / a, both timed
 * in the same round of the same group (back to back), which cancels most of
 * the machine's slow drifts.
 */
static double faster(const struct figure *a, const struct figure *b)
{
	double v[BENCH_MAX_ROUNDS];

	for (unsigned int r = 0; r < cfg.rounds; r++)
		v[r] = a->round_ns[r] > 0 ? b->round_ns[r] / a->round_ns[r] : 0;
	return median(v, cfg.rounds);
}

/* Sluice against the baseline policy it does worst against; *@worst gets that policy. */
static double sluice_vs_seeds(unsigned int si, unsigned int oi, unsigned int ti, unsigned int cp,
			      int *worst)
{
	const struct figure *s = &res[SLUICE_DMA_POLICY_SLUICE][si][oi][ti][cp];
	double x = 0;

	*worst = -1;
	if (!s->valid)
		return 0;
	for (unsigned int p = 0; p < SLUICE_DMA_POLICY_SLUICE; p++) {
		const struct figure *v = &res[p][si][oi][ti][cp];
		double y;

		if (!v->valid)
			continue;
		y = faster(s, v);
		if (*worst < 0 || y < x) {
			x = y;
			*worst = (int)p;
		}
	}
	return x;
}

static void print_bounce_table(void)
{
	printf("\nmap+unmap pair, median ns per pair per thread; (x) = linux / policy, "
	       "> 1 is faster;\n"
	       "last column: sluice vs its closest baseline policy, median of per-round ratios\n");
	printf("%-3s %-5s %7s %4s | %8s |", "thr", "copy", "size", "occ",
	       sluice_dma_bounce_policy_name(fx_policies[0]));
	for (unsigned int p = 1; p < SLUICE_DMA_POLICY_COUNT; p++)
		printf(" %16s", sluice_dma_bounce_policy_name(fx_policies[p]));
	printf(" | %s vs best baseline\n", sluice_dma_bounce_policy_name(SLUICE_DMA_POLICY_SLUICE));
	for (unsigned int ti = 0; ti < cfg.nthr; ti++)
		for (unsigned int cp = 0; cp < 2; cp++)
			for (unsigned int si = 0; si < NSIZES; si++)
				for (unsigned int oi = 0; oi < NOCC; oi++) {
					const struct figure *l = &res[0][si][oi][ti][cp];
					double x;
					int worst;

					if (!l->valid &&
					    !res[SLUICE_DMA_POLICY_SLUICE][si][oi][ti][cp].valid)
						continue;
					printf("%-3u %-5s %7zu %3u%% | %8.1f |", cfg.threads[ti],
					       cp ? "copy" : "alloc", bench_sizes[si],
					       bench_occ[oi], l->ns);
					for (unsigned int p = 1; p < SLUICE_DMA_POLICY_COUNT; p++) {
						const struct figure *v = &res[p][si][oi][ti][cp];

						if (!v->valid) {
							printf(" %16s", "-");
							continue;
						}
						printf(" %8.1f (%5.2fx)", v->ns, l->ns / v->ns);
					}
					/* Judged round by round against each baseline policy. */
					x = sluice_vs_seeds(si, oi, ti, cp, &worst);
					if (worst >= 0)
						printf(" | %5.2fx %s%s%s", x,
						       x >= 1		    ? "faster" :
						       x * BENCH_NOISE >= 1 ? "tie (noise)" :
									      "SLOWER",
						       x < 1 ? " than " : "",
						       x < 1 ? sluice_dma_bounce_policy_name(
								       fx_policies[worst]) :
							       "");
					/* Cells where many requests failed time the
					 * failure path. */
					for (unsigned int p = 0; p < SLUICE_DMA_POLICY_COUNT; p++) {
						const struct figure *v = &res[p][si][oi][ti][cp];

						if (v->valid && v->nomem * 100 > v->ops)
							printf(" %s:%lu%%failed",
							       sluice_dma_bounce_policy_name(
								       fx_policies[p]),
							       v->nomem * 100 / v->ops);
					}
					printf("\n");
				}
}

/* ------------------------------------------------------------ cost breakdown */

/* Stage totals of one direction of the breakdown, medians over rounds. */
struct breakdown {
	double stage[DMA_STAGE_COUNT]; /* cycles per pair, markers subtracted */
	double pair;		       /* cycles per pair, markers subtracted */
	double markers;		       /* markers per pair */
	double memcpy_cyc;	       /* libc memcpy, same footprint */
	double port_copy_cyc;	       /* the port's copy op, same footprint */
	double ns_per_cycle;
	unsigned long ops;
};

/* @pairs copies of 4 KiB from @src into BENCH_DEPTH destinations in turn. */
static double breakdown_copy(struct fx *f, bool port, unsigned char *src, unsigned char *dst,
			     unsigned long pairs)
{
	uint64_t c0 = rdtsc();

	for (unsigned long i = 0; i < pairs; i++) {
		unsigned char *d = dst + (i % BENCH_DEPTH) * 4096;

		/* The layer's own dispatch: inline when the port's copy is. */
		if (port)
			dma_port_copy(&f->dl.ops, d, src, 4096);
		else
			memcpy(d, src, 4096);
		__asm__ volatile("" : : "r"(d) : "memory");
	}
	return (double)(rdtsc() - c0) / (double)pairs;
}

/* One timed round of @pairs map+unmap pairs of 4 KiB in @dir, BENCH_DEPTH in flight. */
static double breakdown_round(struct fx *f, unsigned char *src, uint64_t *q, unsigned long *k,
			      unsigned long pairs, enum sluice_dma_dir dir)
{
	const struct sluice_dma_tag t = SLUICE_DMA_TAG_DEFAULT;
	uint64_t c0;

	bench_stages_reset();
	c0 = rdtsc();
	for (unsigned long i = 0; i < pairs; i++, (*k)++) {
		uint64_t *x = &q[*k % BENCH_DEPTH];

		if (*x)
			sluice_dma_unmap(&f->dl, *x, 4096, dir);
		*x = 0;
		if (sluice_dma_map(&f->dl, &t, src, 4096, dir, x))
			*x = 0;
	}
	return (double)(rdtsc() - c0) / (double)pairs;
}

/* Every stage of the sluice policy's 4 KiB map+unmap in @dir, medians over rounds. */
static void breakdown_run(enum sluice_dma_dir dir, double marker, struct breakdown *b)
{
	struct fx *f = fx_new(SLUICE_DMA_POLICY_SLUICE, 1, cfg.pool, SLUICE_DMA_SCRUB_ZERO);
	unsigned char *src = fx_aligned(4096, 4096), *dst = fx_aligned(4096, 4096 * BENCH_DEPTH);
	double st[DMA_STAGE_COUNT][BENCH_MAX_ROUNDS], pair[BENCH_MAX_ROUNDS];
	double mc[BENCH_MAX_ROUNDS], pc[BENCH_MAX_ROUNDS], mk[BENCH_MAX_ROUNDS];
	double npc[BENCH_MAX_ROUNDS];
	uint64_t q[BENCH_DEPTH] = { 0 };
	unsigned long k = 0;

	if (!f || !src || !dst) {
		fprintf(stderr, "bench: breakdown setup failed\n");
		exit(1);
	}
	bench_port(f);
	memset(src, 0x5a, 4096);
	memset(dst, 2, 4096 * BENCH_DEPTH);
	breakdown_round(f, src, q, &k, cfg.pairs, dir); /* warm-up */
	for (unsigned int r = 0; r < cfg.rounds; r++) {
		uint64_t t0 = now_ns(), c0 = rdtsc();
		double per[DMA_STAGE_COUNT];

		breakdown_round(f, src, q, &k, cfg.pairs, dir);
		mk[r] = bench_stages_read(per, cfg.pairs, marker);
		npc[r] = (double)(now_ns() - t0) / (double)(rdtsc() - c0);
		bench_stages_enable(false);
		pair[r] = breakdown_round(f, src, q, &k, cfg.pairs, dir);
		bench_stages_enable(true);
		for (unsigned int s = 0; s < DMA_STAGE_COUNT; s++)
			st[s][r] = per[s];
		mc[r] = breakdown_copy(f, false, src, dst, cfg.pairs);
		pc[r] = breakdown_copy(f, true, src, dst, cfg.pairs);
	}
	for (unsigned int s = 0; s < DMA_STAGE_COUNT; s++)
		b->stage[s] = median(st[s], cfg.rounds);
	b->pair = median(pair, cfg.rounds);
	b->markers = median(mk, cfg.rounds);
	b->memcpy_cyc = median(mc, cfg.rounds);
	b->port_copy_cyc = median(pc, cfg.rounds);
	b->ns_per_cycle = median(npc, cfg.rounds);
	b->ops = cfg.pairs * cfg.rounds;
	for (unsigned int j = 0; j < BENCH_DEPTH; j++)
		if (q[j])
			sluice_dma_unmap(&f->dl, q[j], 4096, dir);
	fx_free(f);
	free(src);
	free(dst);
}

/* One JSON line of the breakdown: @stage's cycles per pair (or a total's). */
static void breakdown_json(const char *dir, const char *stage, double cyc, double marker,
			   const struct breakdown *b)
{
	struct figure fig = { .ns = cyc * b->ns_per_cycle, .cycles = cyc, .valid = true };
	struct bench_json extra;

	fig.ns_min = fig.ns_max = fig.ns;
	fig.ops = b->ops;
	bench_json_init(&extra);
	bench_json_str(&extra, "direction", dir);
	bench_json_str(&extra, "stage", stage);
	bench_json_num(&extra, "marker_cycles", marker, 1);
	bench_json_num(&extra, "markers_per_op", b->markers, 1);
	json_figure("breakdown", sluice_dma_bounce_policy_name(SLUICE_DMA_POLICY_SLUICE), 4096, 1,
		    0, true, &fig, &extra);
	bench_json_free(&extra);
}

static void breakdown_row(const char *name, const struct breakdown b[2], const double cyc[2])
{
	printf("%-28s |", name);
	for (unsigned int d = 0; d < 2; d++)
		printf(" %8.1f %7.1f %5.1f%% |", cyc[d], cyc[d] * b[d].ns_per_cycle,
		       100 * cyc[d] / b[d].pair);
	printf("\n");
}

/*
 * -K: each stage of one 4 KiB map+unmap with copy (sluice, 1 thread, occupancy
 * 0, BENCH_DEPTH in flight), to-device and bidirectional (which copies back),
 * from the markers of dma/stage.h; then the pair and a plain copy of the same
 * footprint, in the same rounds.
 */
static int run_breakdown(void)
{
	static const char *const dirs[2] = { "to_device", "bidirectional" };
	struct breakdown b[2];
	double marker, whole, cyc[2];

	if (!bench_stages_built()) {
		fprintf(stderr, "bench_alloc: -K needs the stage markers: run "
				"build/bench/bench_alloc_stages -K (make bench-breakdown)\n");
		return 2;
	}
	marker = bench_stages_marker_cycles(&whole);
	breakdown_run(SLUICE_DMA_TO_DEVICE, marker, &b[0]);
	breakdown_run(SLUICE_DMA_BIDIRECTIONAL, marker, &b[1]);
	printf("\ncost breakdown: one 4 KiB map+unmap with copy, sluice, 1 thread, depth %d, "
	       "occupancy 0, copy %s, %s per-CPU caches; median of %u rounds of %lu pairs; "
	       "cycles per pair, each stage less its markers' own cost (%.1f cycles a "
	       "marker, measured back to back (%.1f with its bookkeeping); %.1f markers a "
	       "pair); the pair timed whole in rounds of its own, markers off\n",
	       BENCH_DEPTH, cfg.copy_name, cfg.locked ? "locked" : "exclusive", cfg.rounds,
	       cfg.pairs, marker, whole, b[0].markers);
	printf("%-28s | %8s %7s %6s | %8s %7s %6s |\n", "stage", dirs[0], "ns", "share", dirs[1],
	       "ns", "share");
	for (unsigned int s = 0; s < DMA_STAGE_COUNT; s++) {
		cyc[0] = b[0].stage[s];
		cyc[1] = b[1].stage[s];
		breakdown_row(bench_stage_names[s], b, cyc);
		for (unsigned int d = 0; d < 2; d++)
			breakdown_json(dirs[d], bench_stage_names[s], cyc[d], marker, &b[d]);
	}
	for (unsigned int d = 0; d < 2; d++) {
		cyc[d] = 0;
		for (unsigned int s = 0; s < DMA_STAGE_COUNT; s++)
			cyc[d] += b[d].stage[s];
	}
	breakdown_row("sum of the stages", b, cyc);
	cyc[0] = b[0].pair;
	cyc[1] = b[1].pair;
	breakdown_row("pair, timed whole", b, cyc);
	for (unsigned int d = 0; d < 2; d++) {
		cyc[d] = b[d].pair;
		for (unsigned int s = 0; s < DMA_STAGE_COUNT; s++)
			cyc[d] -= b[d].stage[s];
		breakdown_json(dirs[d], "unattributed", cyc[d], marker, &b[d]);
	}
	breakdown_row("whole less the stages", b, cyc);
	for (unsigned int d = 0; d < 2; d++) {
		cyc[d] = b[d].pair - b[d].stage[DMA_STAGE_COPY] - b[d].stage[DMA_STAGE_COPY_BACK];
		breakdown_json(dirs[d], "pair", b[d].pair, marker, &b[d]);
		breakdown_json(dirs[d], "not_copy", cyc[d], marker, &b[d]);
		breakdown_json(dirs[d], "memcpy", b[d].memcpy_cyc, marker, &b[d]);
		breakdown_json(dirs[d], "port_copy", b[d].port_copy_cyc, marker, &b[d]);
	}
	breakdown_row("pair less its copies", b, cyc);
	cyc[0] = b[0].memcpy_cyc;
	cyc[1] = b[1].memcpy_cyc;
	breakdown_row("4 KiB memcpy alone", b, cyc);
	cyc[0] = b[0].port_copy_cyc;
	cyc[1] = b[1].port_copy_cyc;
	breakdown_row("4 KiB port copy alone", b, cyc);
	printf("(share: of the pair timed whole; bidirectional copies twice: to the slot "
	       "and back; a stage of a few cycles is within the markers' noise, which can "
	       "make it read below 0; 'whole less the stages' is what the markers moved "
	       "or the loop costs)\n");
	return 0;
}

/* ------------------------------------------------------------ instruction counts */

/*
 * -I n: n pairs of each operation the targets name, each pair in a
 * function of its own so that `valgrind --tool=callgrind` (make bench-insns,
 * bench/host/bench_insns.sh) counts the instructions of sluice_dma_map(),
 * sluice_dma_unmap(), the port's copy, the arena's free and alloc and the
 * port's zero inside them. Instruction counts repeat exactly from run to run,
 * where times on a shared 2-core machine do not; they are not times (a cache
 * miss or a locked instruction counts 1). Same setup as the breakdown: sluice,
 * 1 CPU, BENCH_DEPTH in flight, empty pool, to-device 4 KiB; the arena one CPU,
 * 4 KiB blocks, BENCH_DEPTH in flight, scrub on free.
 */
static __attribute__((noinline)) void insn_bounce_pairs(struct fx *f, unsigned char *src,
							uint64_t *q, unsigned long n)
{
	const struct sluice_dma_tag t = SLUICE_DMA_TAG_DEFAULT;

	for (unsigned long i = 0; i < n; i++) {
		uint64_t *x = &q[i % BENCH_DEPTH];

		if (*x && sluice_dma_unmap(&f->dl, *x, 4096, SLUICE_DMA_TO_DEVICE))
			exit(1);
		if (sluice_dma_map(&f->dl, &t, src, 4096, SLUICE_DMA_TO_DEVICE, x))
			exit(1);
	}
}

/* The alloc cell's pair (bench_get / bench_put without copy), sluice, 4 KiB. */
static __attribute__((noinline)) void insn_slot_pairs(struct cell *c, unsigned long n)
{
	for (unsigned long i = 0; i < n; i++) {
		struct inflight *x = &c->q[0][i % BENCH_DEPTH];

		bench_put(c, 0, x);
		if (!bench_get(c, 0, x))
			exit(1);
	}
}

static __attribute__((noinline)) void insn_arena_pairs(struct sluice_dma_arena *a, void **q,
						       unsigned long n)
{
	for (unsigned long i = 0; i < n; i++) {
		void **x = &q[i % BENCH_DEPTH];

		if (sluice_dma_arena_free(a, *x))
			exit(1);
		*x = sluice_dma_arena_alloc(a, 4096);
		if (!*x)
			exit(1);
	}
}

/*
 * The copy and the zero themselves, n times each of @len bytes, through the
 * same dispatch as the layer's (dma_port_copy(), dma_port_zero(): inline in
 * these builds). bench_insns.sh runs them at 4096 and at 0 bytes: the
 * difference is what valgrind counts for the bytes alone (a `rep movsb`
 * counts one per byte), which it takes off the map and the arena's free, so
 * that what is left is everything around the copy, whether the copy ran
 * inline or as a call.
 */
static inline __attribute__((always_inline)) void
insn_copy_bytes(const struct sluice_dma_port_ops *ops, unsigned char *dst, const unsigned char *src,
		size_t len, unsigned long n)
{
	for (unsigned long i = 0; i < n; i++) {
		dma_port_copy(ops, dst, src, len);
		__asm__ volatile("" : : "r"(dst) : "memory");
	}
}

static inline __attribute__((always_inline)) void
insn_zero_bytes(const struct sluice_dma_port_ops *ops, unsigned char *dst, size_t len,
		unsigned long n)
{
	for (unsigned long i = 0; i < n; i++) {
		dma_port_zero(ops, dst, len);
		__asm__ volatile("" : : "r"(dst) : "memory");
	}
}

/* One function per length, so that callgrind counts each apart. */
static __attribute__((noinline)) void insn_copy_4096(const struct sluice_dma_port_ops *ops,
						     unsigned char *dst, const unsigned char *src,
						     unsigned long n)
{
	insn_copy_bytes(ops, dst, src, 4096, n);
}

static __attribute__((noinline)) void insn_copy_0(const struct sluice_dma_port_ops *ops,
						  unsigned char *dst, const unsigned char *src,
						  unsigned long n)
{
	insn_copy_bytes(ops, dst, src, 0, n);
}

static __attribute__((noinline)) void insn_zero_4096(const struct sluice_dma_port_ops *ops,
						     unsigned char *dst, unsigned long n)
{
	insn_zero_bytes(ops, dst, 4096, n);
}

static __attribute__((noinline)) void insn_zero_0(const struct sluice_dma_port_ops *ops,
						  unsigned char *dst, unsigned long n)
{
	insn_zero_bytes(ops, dst, 0, n);
}

/* The four above, each n times. */
static void insn_calibrate(const struct sluice_dma_port_ops *ops, unsigned char *src)
{
	unsigned char *dst = fx_aligned(4096, 4096);

	if (!dst)
		exit(1);
	insn_copy_4096(ops, dst, src, cfg.insns);
	insn_copy_0(ops, dst, src, cfg.insns);
	insn_zero_4096(ops, dst, cfg.insns);
	insn_zero_0(ops, dst, cfg.insns);
	free(dst);
}

static int run_insns(void)
{
	struct fx *f = fx_new(SLUICE_DMA_POLICY_SLUICE, 1, cfg.pool, SLUICE_DMA_SCRUB_ZERO);
	unsigned char *src = fx_aligned(4096, 4096);
	size_t region = 4ul << 20, meta_len = sluice_dma_arena_meta_size(region, 1);
	void *base = fx_aligned(SLUICE_DMA_ARENA_CHUNK_SIZE, region), *meta = malloc(meta_len);
	struct sluice_dma_arena_config ac = {
		.base = base, .len = region, .ncpus = 1, .meta = meta, .meta_len = meta_len
	};
	struct sluice_dma_arena arena;
	struct mock_port mp;
	uint64_t q[BENCH_DEPTH] = { 0 };
	void *aq[BENCH_DEPTH];
	struct cell *slots;

	if (!f || !src || !base || !meta) {
		fprintf(stderr, "bench: -I setup failed\n");
		return 1;
	}
	bench_port(f);
	memset(src, 0x5a, 4096);
	insn_calibrate(&f->dl.ops, src);
	insn_bounce_pairs(f, src, q, cfg.insns);
	for (unsigned int j = 0; j < BENCH_DEPTH; j++)
		if (q[j] && sluice_dma_unmap(&f->dl, q[j], 4096, SLUICE_DMA_TO_DEVICE))
			return 1;
	slots = calloc(1, sizeof(*slots));
	if (!slots)
		return 1;
	slots->f = f;
	slots->policy = SLUICE_DMA_POLICY_SLUICE;
	slots->size = 4096;
	slots->src[0] = src;
	insn_slot_pairs(slots, cfg.insns);
	for (unsigned int j = 0; j < BENCH_DEPTH; j++)
		bench_put(slots, 0, &slots->q[0][j]);
	free(slots);
	if (fx_free(f))
		return 1;
	mock_port_init(&mp, 1);
	mp.ops.flags = cfg.locked ? 0 : SLUICE_DMA_PORT_CPU_EXCLUSIVE;
	ac.flags = cfg.locked ? 0 : SLUICE_DMA_ARENA_OWNED_CACHES;
	bench_port_copy(&mp);
	if (sluice_dma_arena_init(&arena, &mp.ops, &ac))
		return 1;
	for (unsigned int j = 0; j < BENCH_DEPTH; j++)
		if (!(aq[j] = sluice_dma_arena_alloc(&arena, 4096)))
			return 1;
	insn_arena_pairs(&arena, aq, cfg.insns);
	for (unsigned int j = 0; j < BENCH_DEPTH; j++)
		sluice_dma_arena_free(&arena, aq[j]);
	if (sluice_dma_arena_check(&arena, 0) || sluice_dma_arena_destroy(&arena))
		return 1;
	printf("bench_alloc -I: %lu pairs of 4 KiB map+unmap (sluice), of slot alloc+free "
	       "(sluice) and of arena free+alloc\n",
	       cfg.insns);
	free(src);
	free(base);
	free(meta);
	return 0;
}

/* The command line into cfg. Returns -1 to go on, or the exit status. */
static int parse_args(int argc, char **argv, const char **json_path)
{
	int opt;

	while ((opt = getopt(argc, argv, "n:r:s:p:c:t:P:BALXKI:C:W:o:h")) != -1) {
		switch (opt) {
		case 'n':
			cfg.pairs = strtoul(optarg, NULL, 0);
			break;
		case 'r':
			cfg.rounds = (unsigned int)strtoul(optarg, NULL, 0);
			if (cfg.rounds < 1 || cfg.rounds > BENCH_MAX_ROUNDS) {
				usage(argv[0]);
				return 2;
			}
			break;
		case 's':
			cfg.only_size = strtoul(optarg, NULL, 0);
			break;
		case 'p':
			cfg.only_policy = policy_by_name(optarg);
			if (cfg.only_policy < 0) {
				usage(argv[0]);
				return 2;
			}
			break;
		case 'c':
			cfg.only_copy = !!strtoul(optarg, NULL, 0);
			break;
		case 't':
			set_threads((unsigned int)strtoul(optarg, NULL, 0));
			break;
		case 'P':
			cfg.pool = strtoul(optarg, NULL, 0) << 20;
			break;
		case 'B':
			cfg.no_bounce = true;
			break;
		case 'A':
			cfg.no_arena = true;
			break;
		case 'L':
			cfg.nolock = true;
			set_threads(1);
			break;
		case 'X':
			cfg.locked = true;
			break;
		case 'K':
			cfg.breakdown = true;
			break;
		case 'I':
			cfg.insns = strtoul(optarg, NULL, 0);
			break;
		case 'C':
			cfg.copy_req = optarg;
			break;
		case 'W':
			if (!bench_json_set_widest(optarg)) {
				usage(argv[0]);
				return 2;
			}
			break;
		case 'o':
			*json_path = optarg;
			break;
		default:
			usage(argv[0]);
			return opt == 'h' ? 0 : 2;
		}
	}
	return -1;
}

/*
 * -C timed: each candidate the port can install (libc, movsb, and avx2 where
 * this CPU runs it) timed on a 4 KiB copy and clear, each followed by the
 * layer's stand-in work (MEMOPS_WORK_ADDS), least of BENCH_COPY_TIMING_RUNS, as
 * the kernel chooses at boot (memops_time(), memops_pick(): CPUID's pick, movsb
 * with ERMS, kept unless another is faster by more than an eighth); the copy
 * and the clear picked apart. Prints the line that says which ran, and why.
 */
#define BENCH_COPY_TIMING_RUNS 256u

static void choose_copy_by_timing(bool erms)
{
	static unsigned char scratch[2][MEMOPS_TIMED_LEN] __attribute__((aligned(4096)));
	/*
	 * 64 copies a clock read: this VM's TSC steps by 26 ticks, 10 ns. 256
	 * runs, about 4 ms: the least of 16 (0.3 ms) still fell in a slow spell
	 * of the VM for one candidate in some starts.
	 */
	struct memops_timing t = { .preferred = erms ? MEMOPS_MOVSB : MEMOPS_LIBC,
				   .reps = 64,
				   .runs = BENCH_COPY_TIMING_RUNS,
				   .after = memops_work_after };
	struct memops chosen;

	/* The port installs no `rep movsq` (its copy is in the copy table). */
	t.skip[MEMOPS_MOVSQ] = true;
	t.skip[MEMOPS_AVX2] = !cfg.avx2;
	memset(scratch[1], 0x5a, sizeof(scratch[1]));
	memops_time(&t, memops_candidates, scratch[0], scratch[1], rdtsc);
	t.chosen_copy = memops_pick(&t, false);
	t.chosen_zero = memops_pick(&t, true);
	memops_install(&t, memops_candidates, &chosen);
	cfg.copy_name = chosen.name;
	cfg.zero_name = chosen.zero_name;
	printf("bench_alloc: bounce copy %s, clear %s, chosen by timing (TSC ticks per %u-byte "
	       "copy + clear, each with the %u adds after it, least of %u runs of %u:",
	       cfg.copy_name, cfg.zero_name, MEMOPS_TIMED_LEN, MEMOPS_WORK_ADDS, t.runs, t.reps);
	memops_print_candidates(&t);
	printf("; - not timed: the port installs no movsq%s)\n",
	       cfg.avx2 ? "" : ", this CPU runs no AVX2");
}

/*
 * -C as asked: "timed" (choose_copy_by_timing()), "auto" (movsb with ERMS,
 * else libc), one name for both ops, or "copy/clear". Returns false, having
 * said why, when a name is unknown or its op does not run on this CPU.
 */
static bool choose_copy(bool erms)
{
	struct mock_port probe;
	char copy[16], *zero;

	if (!strcmp(cfg.copy_req, "timed")) {
		choose_copy_by_timing(erms);
		return true;
	}
	/* A request longer than the buffer is refused whole, never cut to a name. */
	if (snprintf(copy, sizeof(copy), "%s", cfg.copy_req) < (int)sizeof(copy)) {
		zero = strchr(copy, '/');
		if (zero)
			*zero++ = '\0';
		mock_port_init(&probe, 1);
		cfg.copy_name = mock_port_set_copy(&probe, copy);
		cfg.zero_name = cfg.copy_name && zero ? mock_port_set_zero(&probe, zero) :
							cfg.copy_name;
	} else {
		cfg.copy_name = cfg.zero_name = NULL;
	}
	if (!cfg.copy_name || !cfg.zero_name) {
		fprintf(stderr, "bench_alloc: -C %s: unknown, or not run by this CPU\n",
			cfg.copy_req);
		return false;
	}
	return true;
}

/* The CPU's copy instructions, the copy chosen and the run's shape. Returns
 * false when -C named no copy this CPU runs. */
static bool print_header(void)
{
	bool fsrm = false, erms = mock_port_cpu_erms(&fsrm);

	cfg.avx2 = mock_port_cpu_avx2();
	if (!choose_copy(erms))
		return false;
	printf("bench_alloc: CPU ERMS %s, FSRM %s, AVX2 %s; bounce copy: %s, clear: %s; "
	       "per-CPU caches: %s\n",
	       erms ? "yes" : "no", fsrm ? "yes" : "no", cfg.avx2 ? "yes" : "no", cfg.copy_name,
	       cfg.zero_name,
	       cfg.locked ? "locked (-X)" : "exclusive (no locks on the owner's path)");
	if (cfg.nolock)
		printf("bench_alloc: -L: port WITHOUT locks (single-threaded platform)\n");
	printf("bench_alloc: each thread pinned to one host CPU (thread i on CPU i; the main "
	       "thread on CPU 0)\n");
	printf("bench_alloc: %u rounds per cell (median), %lu pairs per round at <= 4 KiB, "
	       "depth %d, pool %zu MiB, threads",
	       cfg.rounds, cfg.pairs, BENCH_DEPTH, cfg.pool >> 20);
	for (unsigned int ti = 0; ti < cfg.nthr; ti++)
		printf(" %u", cfg.threads[ti]);
	printf("\n");
	fflush(stdout);
	return true;
}

/* One bounce cell: every policy at one size, occupancy and thread count, with
 * copy (@cp) or without. */
static void run_bounce_cell(unsigned int si, unsigned int oi, unsigned int ti, unsigned int cp)
{
	unsigned int thr = cfg.threads[ti];
	struct figure out[SLUICE_DMA_POLICY_COUNT] = { 0 }, m = { 0 };
	struct bench_json extra;

	run_group(bench_sizes[si], bench_occ[oi], thr, cp, out, cp ? &m : NULL, policy_wanted);
	if (cp) {
		ref[si][oi][ti] = m;
		json_figure("direct", "memcpy", bench_sizes[si], thr, bench_occ[oi], true, &m,
			    NULL);
	}
	for (unsigned int p = 0; p < SLUICE_DMA_POLICY_COUNT; p++) {
		struct figure *f = &res[p][si][oi][ti][cp];

		*f = out[p];
		if (!f->valid)
			continue;
		bench_json_init(&extra);
		bench_json_num(&extra, "ratio_vs_linux", out[0].valid ? out[0].ns / f->ns : 0.0, 3);
		bench_json_num(&extra, "ratio_vs_linux_paired", f->paired, 3);
		if (cp)
			bench_json_num(&extra, "memcpy_ns", m.ns, 1);
		json_figure("bounce", sluice_dma_bounce_policy_name(fx_policies[p]),
			    bench_sizes[si], thr, bench_occ[oi], cp, f, &extra);
		bench_json_free(&extra);
	}
}

/* Every bounce cell: policy by size, occupancy, threads, with and without copy. */
static void run_bounce_cells(void)
{
	for (unsigned int ti = 0; ti < cfg.nthr; ti++) {
		for (unsigned int si = 0; si < NSIZES; si++) {
			if (!size_wanted(bench_sizes[si]))
				continue;
			for (unsigned int cp = 0; cp < 2; cp++)
				for (unsigned int oi = 0; oi < NOCC; oi++)
					if (cfg.only_copy < 0 || cfg.only_copy == (int)cp)
						run_bounce_cell(si, oi, ti, cp);
			fprintf(stderr, ".");
		}
	}
}

/* Copy and clear alone, per implementation. */
static void run_copy_cells(void)
{
	for (unsigned int si = 0; si < NSIZES; si++) {
		if (!size_wanted(bench_sizes[si]))
			continue;
		copy_cells(si);
		for (unsigned int im = 0; im < NIMPL; im++)
			for (unsigned int op = 0; op < 2; op++) {
				if (!copy_fig[si][im][op].valid)
					continue;
				json_figure(op ? "clear" : "copy", copy_impls[im].name,
					    bench_sizes[si], 1, 0, true, &copy_fig[si][im][op],
					    NULL);
			}
	}
}

/* The receive path under each scrub mode. */
static void run_scrub_cells(void)
{
	struct bench_json extra;

	for (unsigned int si = 0; si < NSIZES; si++) {
		if (!size_wanted(bench_sizes[si]))
			continue;
		for (unsigned int z = 0; z < 2; z++) {
			enum sluice_dma_scrub sc = z ? SLUICE_DMA_SCRUB_ZERO :
						       SLUICE_DMA_SCRUB_COPY;

			scrub_fig[si][z] = scrub_cell(bench_sizes[si], sc);
			bench_json_init(&extra);
			bench_json_str(&extra, "direction", "from_device");
			bench_json_str(&extra, "scrub", z ? "zero" : "copy");
			json_figure("bounce",
				    sluice_dma_bounce_policy_name(SLUICE_DMA_POLICY_SLUICE),
				    bench_sizes[si], 1, 0, true, &scrub_fig[si][z], &extra);
			bench_json_free(&extra);
		}
	}
}

/* The arena's free+alloc pair, and a plain scrub of the same blocks. */
static void run_arena_cells(void)
{
	struct bench_json extra;

	for (unsigned int ti = 0; ti < cfg.nthr; ti++) {
		for (unsigned int si = 0; si < NSIZES; si++) {
			if (!size_wanted(bench_sizes[si]))
				continue;
			for (unsigned int k = 0; k < NSTRAT; k++) {
				const struct arena_strategy *st = &arena_strats[k];
				struct figure *f = &arena[k][si][ti], z;
				double scrub_cyc;

				*f = arena_cell(bench_sizes[si], cfg.threads[ti], st, &z,
						&scrub_cyc);
				arena_scrub_ns[k][si][ti] = z.ns;
				bench_json_init(&extra);
				bench_json_bool(&extra, "scrub", true);
				bench_json_str(&extra, "strategy", st->name);
				bench_json_str(&extra, "scrub_at", st->at);
				bench_json_str(&extra, "scrub_impl", st->nt ? "nt" : cfg.zero_name);
				bench_json_num(&extra, "scrub_ns", z.ns, 1);
				bench_json_num(&extra, "scrub_cycles", z.cycles, 1);
				bench_json_num(&extra, "ns_excl_scrub", f->ns - z.ns, 1);
				bench_json_num(&extra, "scrub_cycles_arena", scrub_cyc, 1);
				json_figure("arena", "arena", bench_sizes[si], cfg.threads[ti], 0,
					    false, f, &extra);
				bench_json_free(&extra);
			}
		}
	}
}

/* A copy table cell: its median, or "-" for one not run (AVX2 on a CPU without it). */
static void print_ns_or_dash(const struct figure *f)
{
	if (f->valid)
		printf("%8.1f", f->ns);
	else
		printf("%8s", "-");
}

/* The bounce tables: receive path by scrub mode, copy and clear alone, policy
 * by policy, and bounce with copy against plain memcpy. */
static void print_bounce_tables(void)
{
	printf("\nreceive path (from-device map + device write + unmap_written), sluice, 1 "
	       "thread, median ns: scrub=copy (Linux: the private buffer is copied into "
	       "shared memory) vs scrub=zero (the default: nothing private is)\n");
	printf("%7s | %10s | %10s | %s\n", "size", "copy", "zero", "zero/copy");
	for (unsigned int si = 0; si < NSIZES; si++)
		if (scrub_fig[si][0].valid && scrub_fig[si][1].valid)
			printf("%7zu | %10.1f | %10.1f | %8.2fx\n", bench_sizes[si],
			       scrub_fig[si][0].ns, scrub_fig[si][1].ns,
			       scrub_fig[si][1].ns / scrub_fig[si][0].ns);
	printf("\ncopy and clear alone (footprint of the bounce path), 1 thread, median ns; "
	       "movsq = rep movsq + tail, the shape of newlib's x86-64 memcpy; avx2 = the "
	       "AVX2 loops (- where this CPU does not run them)\n");
	printf("%7s | %8s %8s %8s %8s | %8s %8s %8s\n", "size", "memcpy", "movsb", "movsq", "avx2",
	       "memset", "stosb", "avx2");
	for (unsigned int si = 0; si < NSIZES; si++) {
		const struct figure(*c)[2] = copy_fig[si];

		if (!c[0][0].valid)
			continue;
		printf("%7zu | %8.1f %8.1f %8.1f ", bench_sizes[si], c[0][0].ns, c[1][0].ns,
		       c[2][0].ns);
		print_ns_or_dash(&c[IMPL_AVX2][0]);
		printf(" | %8.1f %8.1f ", c[0][1].ns, c[1][1].ns);
		print_ns_or_dash(&c[IMPL_AVX2][1]);
		printf("\n");
	}
	print_bounce_table();
	printf("\nbounce with copy vs plain memcpy of the same size and footprint "
	       "(occupancy 0%%, median ns)\n");
	printf("%-3s %7s | %8s | %8s %6s | %8s %6s | %8s %6s\n", "thr", "size", "memcpy",
	       sluice_dma_bounce_policy_name(SLUICE_DMA_POLICY_SLUICE), "ratio",
	       sluice_dma_bounce_policy_name(SLUICE_DMA_POLICY_LIFO), "ratio",
	       sluice_dma_bounce_policy_name(SLUICE_DMA_POLICY_LINUX), "ratio");
	for (unsigned int ti = 0; ti < cfg.nthr; ti++)
		for (unsigned int si = 0; si < NSIZES; si++) {
			const struct figure *m = &ref[si][0][ti];
			const struct figure *s = &res[SLUICE_DMA_POLICY_SLUICE][si][0][ti][1];
			const struct figure *f = &res[SLUICE_DMA_POLICY_LIFO][si][0][ti][1];
			const struct figure *l = &res[SLUICE_DMA_POLICY_LINUX][si][0][ti][1];

			if (!m->valid || !l->valid)
				continue;
			printf("%-3u %7zu | %8.1f | %8.1f %5.2fx | %8.1f %5.2fx | %8.1f %5.2fx\n",
			       cfg.threads[ti], bench_sizes[si], m->ns, s->ns,
			       s->valid ? s->ns / m->ns : 0, f->ns, f->valid ? f->ns / m->ns : 0,
			       l->ns, l->ns / m->ns);
		}
}

/* The arena's free+alloc pair by scrub strategy, each next to its scrub alone. */
static void print_arena_table(void)
{
	printf("\narena free+alloc pair by scrub strategy, median ns (scrub on free or on "
	       "alloc; zero op %s, or nt: non-temporal stores + sfence); scrub = that zero "
	       "op alone over the same %d blocks, in rounds interleaved with the arena's "
	       "(the arena's own sampled scrub_cycles are in the JSON)\n",
	       cfg.copy_name, BENCH_DEPTH);
	printf("%-3s %7s |", "thr", "size");
	for (unsigned int k = 0; k < NSTRAT; k++)
		printf(" %8s %7s |", arena_strats[k].name, "scrub");
	printf("\n");
	for (unsigned int ti = 0; ti < cfg.nthr; ti++)
		for (unsigned int si = 0; si < NSIZES; si++) {
			bool fail = false;

			if (!arena[0][si][ti].valid)
				continue;
			printf("%-3u %7zu |", cfg.threads[ti], bench_sizes[si]);
			for (unsigned int k = 0; k < NSTRAT; k++) {
				printf(" %8.1f %7.1f |", arena[k][si][ti].ns,
				       arena_scrub_ns[k][si][ti]);
				fail |= arena[k][si][ti].nomem != 0;
			}
			printf("%s\n", fail ? " (failures)" : "");
		}
}

/*
 * The pair against the port's own copy alone (the copy table's cell of the
 * copy installed, same footprint): what the layer adds to the copy it runs,
 * beside the target's ratio against the C library's memcpy.
 */
static void print_own_copy_ratio(void)
{
	for (unsigned int im = 0; im < NIMPL; im++)
		if (!strcmp(copy_impls[im].name, cfg.copy_name) && copy_fig[2][im][0].valid) {
			const struct figure *pair = &res[SLUICE_DMA_POLICY_SLUICE][2][0][0][1];

			printf("  4 KiB bounce with copy / the port's own copy (%s) alone: %.2fx, "
			       "+%.1f ns\n",
			       cfg.copy_name, pair->ns / copy_fig[2][im][0].ns,
			       pair->ns - copy_fig[2][im][0].ns);
		}
}

/* The targets set for the allocator, from this run (size index 2 = 4 KiB,
 * occupancy index 1 = 50%). */
static void print_targets(void)
{
	printf("\ntargets:\n");
	if (!cfg.no_bounce && res[SLUICE_DMA_POLICY_SLUICE][2][1][0][0].valid) {
		const struct figure *l1 = &res[SLUICE_DMA_POLICY_LINUX][2][1][0][0];
		const struct figure *s1 = &res[SLUICE_DMA_POLICY_SLUICE][2][1][0][0];
		unsigned int slower = 0, ties = 0, cells = 0;

		printf("  sluice vs linux, 4 KiB, 50%% occupancy, 1 thread, alloc: %.2fx faster "
		       "(paired rounds %.2fx) (target >= 4x)\n",
		       l1->ns / s1->ns, s1->paired);
		printf("  sluice vs linux, 4 KiB, 50%% occupancy, 1 thread, copy:  %.2fx faster "
		       "(paired rounds %.2fx)\n",
		       res[SLUICE_DMA_POLICY_LINUX][2][1][0][1].ns /
			       res[SLUICE_DMA_POLICY_SLUICE][2][1][0][1].ns,
		       res[SLUICE_DMA_POLICY_SLUICE][2][1][0][1].paired);
		if (cfg.nthr > 1 && res[SLUICE_DMA_POLICY_SLUICE][2][1][1][0].valid) {
			const struct figure *s2 = &res[SLUICE_DMA_POLICY_SLUICE][2][1][1][0];

			printf("  sluice %u-thread throughput / 1-thread, 4 KiB, 50%%, alloc: "
			       "%.2fx (target >= 1.9x with 2)\n",
			       cfg.threads[1], cfg.threads[1] * s1->ns / s2->ns);
		}
		printf("  4 KiB bounce with copy / plain memcpy (0%%, 1 thread): %.2fx "
		       "(target <= 1.2x)\n",
		       res[SLUICE_DMA_POLICY_SLUICE][2][0][0][1].ns / ref[2][0][0].ns);
		print_own_copy_ratio();
		for (unsigned int ti = 0; ti < cfg.nthr; ti++)
			for (unsigned int cp = 0; cp < 2; cp++)
				for (unsigned int si = 0; si < NSIZES; si++)
					for (unsigned int oi = 0; oi < NOCC; oi++) {
						int worst;
						double x = sluice_vs_seeds(si, oi, ti, cp, &worst);

						if (worst < 0)
							continue;
						cells++;
						slower += x * BENCH_NOISE < 1;
						ties += x < 1 && x * BENCH_NOISE >= 1;
					}
		printf("  sluice never slower than a baseline policy: %u of %u cells slower beyond "
		       "noise (%.0f%%), %u ties within noise\n",
		       slower, cells, (BENCH_NOISE - 1) * 100, ties);
	}
	if (!cfg.no_arena && arena[0][2][0].valid)
		for (unsigned int k = 0; k < NSTRAT; k++)
			printf("  arena alloc+free 4 KiB, 1 thread, scrub %-8s: %.1f ns, scrub "
			       "%.1f ns of it (target <= scrub + 5 ns)\n",
			       arena_strats[k].name, arena[k][2][0].ns, arena_scrub_ns[k][2][0]);
}

int main(int argc, char **argv)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	const char *json_path = NULL;
	int rc;

	cfg.json = stdout;
	set_threads(ncpu > 2 ? (unsigned int)ncpu : 2);
	rc = parse_args(argc, argv, &json_path);
	if (rc >= 0)
		return rc;
	if (json_path) {
		cfg.json = fopen(json_path, "w");
		if (!cfg.json) {
			perror(json_path);
			return 2;
		}
	}
	/* What runs on this thread (the breakdown, the copy table) runs on CPU 0. */
	bench_pin(0);
	if (!print_header()) {
		usage(argv[0]);
		return 2;
	}
	if (cfg.insns) {
		rc = run_insns();
		if (json_path)
			fclose(cfg.json);
		return rc;
	}
	if (cfg.breakdown) {
		rc = run_breakdown();
		if (json_path)
			fclose(cfg.json);
		return rc;
	}
	if (!cfg.no_bounce)
		run_bounce_cells();
	if (!cfg.no_bounce && cfg.only_copy != 0)
		run_copy_cells();
	if (!cfg.no_bounce)
		run_scrub_cells();
	if (!cfg.no_arena)
		run_arena_cells();
	fprintf(stderr, "\n");

	if (!cfg.no_bounce)
		print_bounce_tables();
	if (!cfg.no_arena)
		print_arena_table();
	print_targets();
	if (json_path)
		fclose(cfg.json);
	return 0;
}
