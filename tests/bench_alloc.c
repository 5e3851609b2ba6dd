/* SPDX-License-Identifier: MIT */
/*
 * bench_alloc.c - host micro-benchmark of the bounce pool policies (suite
 * "alloc"). It measures and prints; it asserts nothing.
 *
 * Each cell: one layer with one 16 MiB pool of the policy, brought to the
 * occupancy (0%, or 50% / 90% with mappings of 1..8 slots freed at random so
 * the free space is fragmented), then every thread (own CPU index) keeps
 * BENCH_DEPTH mappings in flight: unmap the oldest, map a new one of `size`.
 * copy=false times the allocator alone (slot search and release, no data
 * movement); copy=true times dma_map(to-device) + dma_unmap, bounce copy
 * included. A plain memcpy of the same size is printed as the reference.
 *
 * Output: one JSON object per line (benchmark output contract), then a table
 * with ratios against `linux` in the same run.
 *
 * Usage: bench_alloc [pairs-per-thread [size]]   (default 20000 pairs, all sizes)
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dma/bounce.h"
#include "tests/test_bounce_fixture.h"

#define BENCH_POOL (16ul << 20)
#define BENCH_DEPTH 16
#define BENCH_MAX_THREADS 8

static const size_t bench_sizes[] = { 512, 2048, 4096, 16384, 65536, 262144 };
static const unsigned int bench_occ[] = { 0, 50, 90 };
enum { NSIZES = 6, NOCC = 3 };

static unsigned long bench_pairs = 20000;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

struct cell {
	struct fx *f;
	size_t size;
	bool copy;
	unsigned int threads;
	pthread_barrier_t start;
	atomic_ulong nomem;
	uint64_t ns[BENCH_MAX_THREADS];
	uint64_t cycles[BENCH_MAX_THREADS];
	unsigned long ops[BENCH_MAX_THREADS];
};

struct worker {
	struct cell *c;
	unsigned int cpu;
};

/* One in-flight mapping: either a full mapping or a raw slot run. */
struct inflight {
	bool live;
	uint64_t dma;
	struct dma_bounce_pool *pool;
	long head;
	unsigned long nslots;
};

static bool bench_get(struct cell *c, unsigned int cpu, const struct dma_tag *t, unsigned char *buf,
		      struct inflight *x)
{
	if (c->copy) {
		if (dma_map(&c->f->dl, t, buf, c->size, DMA_TO_DEVICE, &x->dma))
			return false;
	} else {
		struct dma_bounce_req r;
		uint64_t off;

		dma_bounce_req_init(&r, t, (uint64_t)(uintptr_t)buf, c->size, &off);
		x->pool = atomic_load_explicit(&c->f->dl.pools, memory_order_acquire);
		x->head = dma_bounce_alloc(x->pool, &r, cpu);
		if (x->head < 0)
			return false;
		x->nslots = r.nslots;
	}
	x->live = true;
	return true;
}

static void bench_put(struct cell *c, unsigned int cpu, struct inflight *x)
{
	if (!x->live)
		return;
	if (c->copy)
		dma_unmap(&c->f->dl, x->dma, c->size, DMA_TO_DEVICE);
	else
		dma_bounce_free(x->pool, (unsigned long)x->head, x->nslots, cpu);
	x->live = false;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct cell *c = w->c;
	const struct dma_tag t = DMA_TAG_DEFAULT;
	struct inflight q[BENCH_DEPTH];
	unsigned char *buf = fx_aligned(4096, c->size);
	uint64_t t0, c0;
	unsigned long nomem = 0;

	memset(buf, 0x5a, c->size);
	memset(q, 0, sizeof(q));
	mock_port_set_cpu(w->cpu);
	/* Warm up: fill the queue once. */
	for (unsigned int i = 0; i < BENCH_DEPTH; i++)
		bench_get(c, w->cpu, &t, buf, &q[i]);
	pthread_barrier_wait(&c->start);
	t0 = now_ns();
	c0 = __builtin_ia32_rdtsc();
	for (unsigned long i = 0; i < bench_pairs; i++) {
		struct inflight *x = &q[i % BENCH_DEPTH];

		bench_put(c, w->cpu, x);
		if (!bench_get(c, w->cpu, &t, buf, x))
			nomem++;
	}
	c->cycles[w->cpu] = __builtin_ia32_rdtsc() - c0;
	c->ns[w->cpu] = now_ns() - t0;
	c->ops[w->cpu] = bench_pairs;
	for (unsigned int i = 0; i < BENCH_DEPTH; i++)
		bench_put(c, w->cpu, &q[i]);
	atomic_fetch_add(&c->nomem, nomem);
	free(buf);
	return NULL;
}

/* Fill to @occ percent with 1..8-slot mappings, freeing at random (fragmented). */
static unsigned int bench_occupy(struct fx *f, unsigned int occ, uint64_t *held, unsigned char *buf,
				 size_t *lens, unsigned int max)
{
	const struct dma_tag t = DMA_TAG_DEFAULT;
	unsigned long nslabs = BENCH_POOL >> DMA_IO_TLB_SHIFT, target = nslabs * occ / 100;
	unsigned int n = 0, seed = 12345;
	struct dma_bounce_stats st;

	if (!occ)
		return 0;
	while (n < max) {
		size_t len = (size_t)(1 + rand_r(&seed) % 8) * DMA_IO_TLB_SIZE - 100;

		if (dma_map(&f->dl, &t, buf, len, DMA_TO_DEVICE, &held[n]))
			break;
		lens[n++] = len;
	}
	for (;;) {
		unsigned int i;

		dma_bounce_stats_get(&f->dl, 0, &st);
		if (st.used <= target || !n)
			break;
		i = (unsigned int)rand_r(&seed) % n;
		dma_unmap(&f->dl, held[i], lens[i], DMA_TO_DEVICE);
		held[i] = held[n - 1];
		lens[i] = lens[n - 1];
		n--;
	}
	return n;
}

struct result {
	double ns;
	double cycles;
	unsigned long nomem;
};

static struct result bench_cell(enum dma_bounce_policy policy, size_t size, unsigned int occ,
				unsigned int threads, bool copy)
{
	struct fx *f = fx_new(policy, threads, BENCH_POOL, DMA_SCRUB_ZERO);
	unsigned int maxheld = (unsigned int)(BENCH_POOL >> DMA_IO_TLB_SHIFT);
	uint64_t *held = calloc(maxheld, sizeof(*held));
	size_t *lens = calloc(maxheld, sizeof(*lens));
	unsigned char *fillbuf = fx_aligned(4096, 8 * DMA_IO_TLB_SIZE);
	struct cell c = { .f = f, .size = size, .copy = copy, .threads = threads };
	struct worker w[BENCH_MAX_THREADS];
	pthread_t th[BENCH_MAX_THREADS];
	struct result r = { 0, 0, 0 };
	unsigned int n;

	memset(fillbuf, 1, 8 * DMA_IO_TLB_SIZE);
	n = bench_occupy(f, occ, held, fillbuf, lens, maxheld);
	pthread_barrier_init(&c.start, NULL, threads);
	atomic_init(&c.nomem, 0);
	for (unsigned int i = 0; i < threads; i++) {
		w[i] = (struct worker){ .c = &c, .cpu = i };
		pthread_create(&th[i], NULL, worker_main, &w[i]);
	}
	for (unsigned int i = 0; i < threads; i++)
		pthread_join(th[i], NULL);
	for (unsigned int i = 0; i < threads; i++) {
		r.ns += (double)c.ns[i] / (double)c.ops[i];
		r.cycles += (double)c.cycles[i] / (double)c.ops[i];
	}
	/* Per op per thread: the wall cost one thread sees for a pair. */
	r.ns /= threads;
	r.cycles /= threads;
	r.nomem = atomic_load(&c.nomem);
	mock_port_set_cpu(0);
	while (n) {
		n--;
		dma_unmap(&f->dl, held[n], lens[n], DMA_TO_DEVICE);
	}
	pthread_barrier_destroy(&c.start);
	if (fx_free(f))
		fprintf(stderr, "bench: layer self-check failed after %s cell\n",
			dma_bounce_policy_name(policy));
	free(fillbuf);
	free(lens);
	free(held);
	return r;
}

static struct result bench_memcpy(size_t size)
{
	unsigned char *a = fx_aligned(4096, size), *b = fx_aligned(4096, size);
	struct result r = { 0, 0, 0 };
	uint64_t t0, c0;

	memset(a, 1, size);
	memset(b, 2, size);
	t0 = now_ns();
	c0 = __builtin_ia32_rdtsc();
	for (unsigned long i = 0; i < bench_pairs; i++) {
		memcpy(b, a, size);
		__asm__ volatile("" : : "r"(b) : "memory");
	}
	r.cycles = (double)(__builtin_ia32_rdtsc() - c0) / (double)bench_pairs;
	r.ns = (double)(now_ns() - t0) / (double)bench_pairs;
	free(a);
	free(b);
	return r;
}

int main(int argc, char **argv)
{
	static struct result res[DMA_POLICY_COUNT][NSIZES][NOCC][2][2];
	unsigned int thread_counts[2] = { 1, 2 };
	double memcpy_ns[NSIZES];

	size_t only = 0;

	if (argc > 1)
		bench_pairs = strtoul(argv[1], NULL, 0);
	if (argc > 2)
		only = strtoul(argv[2], NULL, 0);
	for (unsigned int ti = 0; ti < 2; ti++) {
		for (unsigned int cp = 0; cp < 2; cp++) {
			for (unsigned int si = 0; si < NSIZES; si++) {
				if (only && bench_sizes[si] != only)
					continue;
				for (unsigned int oi = 0; oi < NOCC; oi++) {
					for (unsigned int p = 0; p < DMA_POLICY_COUNT; p++) {
						struct result r = bench_cell(fx_policies[p], bench_sizes[si],
									     bench_occ[oi],
									     thread_counts[ti], cp);

						res[p][si][oi][ti][cp] = r;
						printf("{\"suite\":\"alloc\",\"mode\":\"bounce\",\"policy\":\"%s\","
						       "\"size\":%zu,\"threads\":%u,\"occupancy\":%u,"
						       "\"iodepth\":%d,\"copy\":%s,\"ns_per_op\":%.1f,"
						       "\"cycles_per_op\":%.1f,\"nomem\":%lu}\n",
						       dma_bounce_policy_name(fx_policies[p]), bench_sizes[si],
						       thread_counts[ti], bench_occ[oi], BENCH_DEPTH,
						       cp ? "true" : "false", r.ns, r.cycles, r.nomem);
						fflush(stdout);
					}
				}
			}
		}
	}
	for (unsigned int si = 0; si < NSIZES; si++) {
		struct result r = bench_memcpy(bench_sizes[si]);

		memcpy_ns[si] = r.ns;
		printf("{\"suite\":\"alloc\",\"mode\":\"direct\",\"policy\":\"memcpy\",\"size\":%zu,"
		       "\"threads\":1,\"occupancy\":0,\"copy\":true,\"ns_per_op\":%.1f,"
		       "\"cycles_per_op\":%.1f}\n",
		       bench_sizes[si], r.ns, r.cycles);
	}

	printf("\nmap+unmap pair, ns per op per thread (ratio = linux / policy; > 1 is faster)\n");
	printf("%-5s %-7s %7s %4s | %9s | %17s %17s %17s\n", "thr", "copy", "size", "occ", "linux",
	       "bitmap", "lifo", "sluice");
	for (unsigned int ti = 0; ti < 2; ti++)
		for (unsigned int cp = 0; cp < 2; cp++)
			for (unsigned int si = 0; si < NSIZES; si++)
				for (unsigned int oi = 0; oi < NOCC; oi++) {
					double base = res[0][si][oi][ti][cp].ns;

					if (only && bench_sizes[si] != only)
						continue;
					printf("%-5u %-7s %7zu %3u%% | %9.1f |", thread_counts[ti],
					       cp ? "copy" : "alloc", bench_sizes[si], bench_occ[oi], base);
					for (unsigned int p = 1; p < DMA_POLICY_COUNT; p++) {
						double v = res[p][si][oi][ti][cp].ns;

						printf(" %8.1f (%5.2fx)", v, v > 0 ? base / v : 0.0);
					}
					/* Cells where requests failed time the failure path. */
					for (unsigned int p = 0; p < DMA_POLICY_COUNT; p++)
						if (res[p][si][oi][ti][cp].nomem * 10 >
						    bench_pairs * thread_counts[ti])
							printf(" %s:full", dma_bounce_policy_name(fx_policies[p]));
					printf("\n");
				}
	/* The targets, from this run (size index 2 = 4 KiB, occupancy index 1 = 50%). */
	{
		const struct result *l1 = &res[DMA_POLICY_LINUX][2][1][0][0];
		const struct result *s1 = &res[DMA_POLICY_SLUICE][2][1][0][0];
		const struct result *s2 = &res[DMA_POLICY_SLUICE][2][1][1][0];
		const struct result *sc = &res[DMA_POLICY_SLUICE][2][0][0][1];

		printf("\ntargets (4 KiB):\n");
		printf("  sluice vs linux, 50%% occupancy, 1 thread, alloc: %.2fx faster (target >= 2x)\n",
		       l1->ns / s1->ns);
		printf("  sluice vs linux, 50%% occupancy, 1 thread, copy:  %.2fx faster\n",
		       res[DMA_POLICY_LINUX][2][1][0][1].ns / res[DMA_POLICY_SLUICE][2][1][0][1].ns);
		printf("  sluice 2-thread throughput / 1-thread: %.2fx (target >= 1.6x)\n",
		       2.0 * s1->ns / s2->ns);
		printf("  sluice bounce with copy / plain memcpy: %.2fx (target <= 1.3x)\n",
		       sc->ns / memcpy_ns[2]);
	}
	return 0;
}
