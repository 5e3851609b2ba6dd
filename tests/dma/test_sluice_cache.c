/* SPDX-License-Identifier: MIT */
/*
 * test_sluice_cache.c - the `sluice` policy's per-CPU slot caches under a port
 * that promises exclusive CPU indices (SLUICE_DMA_PORT_CPU_EXCLUSIVE), where
 * the owning CPU touches its magazines without a lock: refills and drains at
 * the batch boundaries, frees on another CPU (the owner's remote list), a
 * drain another CPU asks for, the caches taken at destroy, and threads that
 * map on one CPU and unmap on the other. After each: every slot is accounted
 * for (the layer's self-check: free in a bitmap or in exactly one cache, or
 * covered by exactly one live mapping; total_used = slots out of the bitmaps).
 *
 * The batch figures assume the policy's constants (bounce_sluice.c): a CPU's
 * magazine holds at most 40 runs per class, or a 24th of the pool per CPU if
 * less; a refill or drain moves half of that.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dma/bounce.h"
#include "tests/fakes/test_bounce_fixture.h"

#define KIB 1024ul
#define MIB (1024ul * 1024ul)

static const struct sluice_dma_tag tag = SLUICE_DMA_TAG_DEFAULT;

static struct fx *excl_new(unsigned int ncpus, size_t bytes)
{
	struct fx *f = fx_new(SLUICE_DMA_POLICY_SLUICE, ncpus, bytes, SLUICE_DMA_SCRUB_ZERO);

	assert_non_null(f);
	/* The layer copied the ops at init (dma_port.h): the flag goes in its copy. */
	f->mp.ops.flags = f->dl.ops.flags = SLUICE_DMA_PORT_CPU_EXCLUSIVE;
	return f;
}

/* Slots out of the bitmaps (mapped or cached): the pool's Linux-style total_used. */
static unsigned long total_used(struct fx *f)
{
	return atomic_load(&f->dl.pools->total_used);
}

static unsigned long used(struct fx *f)
{
	struct sluice_dma_bounce_stats st;

	assert_int_equal(sluice_dma_bounce_stats_get(&f->dl, 0, &st), 0);
	return st.used;
}

static uint64_t map1(struct fx *f, void *buf, size_t len)
{
	uint64_t d = 0;

	assert_int_equal(sluice_dma_map(&f->dl, &tag, buf, len, SLUICE_DMA_TO_DEVICE, &d), 0);
	return d;
}

static void unmap1(struct fx *f, uint64_t d, size_t len)
{
	assert_int_equal(sluice_dma_unmap(&f->dl, d, len, SLUICE_DMA_TO_DEVICE), 0);
}

/* One CPU, 2048 slots: magazines of 40, batches of 20. */
static void test_batches(void **state)
{
	struct fx *f = excl_new(1, 4 * MIB);
	unsigned char *buf = calloc(1, 4096);
	uint64_t d[64], again;

	(void)state;
	d[0] = map1(f, buf, 2048);
	/* The first map refilled one batch; one run of it is mapped. */
	assert_int_equal(total_used(f), 20);
	assert_int_equal(used(f), 1);
	for (unsigned int i = 1; i < 20; i++)
		d[i] = map1(f, buf, 2048);
	assert_int_equal(total_used(f), 20);
	d[20] = map1(f, buf, 2048);
	assert_int_equal(total_used(f), 40);
	assert_int_equal(sluice_dma_layer_check(&f->dl), 0);
	/* 19 left + 21 freed = 40: full, nothing drained yet. */
	for (unsigned int i = 0; i <= 20; i++)
		unmap1(f, d[i], 2048);
	assert_int_equal(total_used(f), 40);
	assert_int_equal(used(f), 0);
	assert_int_equal(sluice_dma_layer_check(&f->dl), 0);
	/* Newest first: the slot just freed comes back. */
	again = map1(f, buf, 2048);
	assert_true(again == d[20]);
	unmap1(f, again, 2048);
	/* 40 maps empty the magazine without a refill; the 41st takes a batch. */
	for (unsigned int i = 0; i < 40; i++)
		d[i] = map1(f, buf, 2048);
	assert_int_equal(total_used(f), 40);
	d[40] = map1(f, buf, 2048);
	assert_int_equal(total_used(f), 60);
	/* 19 + 21 frees fill it; the 22nd free drains the oldest 20 first. */
	for (unsigned int i = 0; i <= 40; i++) {
		unmap1(f, d[i], 2048);
		assert_int_equal(total_used(f), i < 21 ? 60 : 40);
	}
	assert_int_equal(used(f), 0);
	assert_int_equal(sluice_dma_layer_check(&f->dl), 0);
	/* Pages (class 1) batch the same way, two slots a run. */
	for (unsigned int i = 0; i < 21; i++)
		d[i] = map1(f, buf, 4096);
	assert_int_equal(used(f), 42);
	assert_int_equal(total_used(f), 40 + 80);
	for (unsigned int i = 0; i < 21; i++)
		unmap1(f, d[i], 4096);
	assert_int_equal(sluice_dma_layer_check(&f->dl), 0);
	assert_int_equal(fx_free(f), 0);
	free(buf);
}

/*
 * A magazine hit of the bounce path updates one counter (fast_maps, bounce.h)
 * and reads back as one mapping, one search step and one cache hit, exactly
 * as a hit through the policy counts; a miss counts as the general path does.
 * For single slots and page pairs, with and without the exclusive promise.
 */
static void hit_counters(bool exclusive, size_t len)
{
	struct fx *f = excl_new(1, 4 * MIB);
	unsigned char *buf = calloc(1, 4096);
	struct sluice_dma_bounce_stats s0, s1, s2;
	struct sluice_dma_tag aligned = SLUICE_DMA_TAG_DEFAULT;
	uint64_t d[10];

	if (!exclusive)
		f->mp.ops.flags = f->dl.ops.flags = 0;
	/* The first map misses (empty magazine): refill, then a hit by the policy. */
	unmap1(f, map1(f, buf, len), len);
	assert_int_equal(sluice_dma_bounce_stats_get(&f->dl, 0, &s0), 0);
	assert_int_equal(s0.mappings, 1);
	assert_int_equal(s0.cache_hits, 1);
	assert_true(s0.search_steps >= 1);
	for (unsigned int i = 0; i < 10; i++)
		d[i] = map1(f, buf, len);
	assert_int_equal(sluice_dma_bounce_stats_get(&f->dl, 0, &s1), 0);
	assert_int_equal(s1.mappings - s0.mappings, 10);
	assert_int_equal(s1.cache_hits - s0.cache_hits, 10);
	assert_int_equal(s1.search_steps - s0.search_steps, 10);
	assert_int_equal(s1.bytes_scrubbed + s1.bytes_to_device -
				 (s0.bytes_scrubbed + s0.bytes_to_device),
			 10 * len);
	for (unsigned int i = 0; i < 10; i++)
		unmap1(f, d[i], len);
	assert_int_equal(sluice_dma_bounce_stats_get(&f->dl, 0, &s2), 0);
	assert_int_equal(s2.unmaps - s1.unmaps, 10);
	assert_int_equal(s2.mappings, s1.mappings);
	/* An alignment takes the general path, and the policy's own pop hits. */
	aligned.alloc_align_mask = len > 2048 ? 4095 : 2047;
	assert_int_equal(sluice_dma_map(&f->dl, &aligned, buf, len, SLUICE_DMA_TO_DEVICE, &d[0]),
			 0);
	assert_int_equal(sluice_dma_bounce_stats_get(&f->dl, 0, &s1), 0);
	assert_int_equal(s1.mappings - s2.mappings, 1);
	assert_int_equal(s1.cache_hits - s2.cache_hits, 1);
	assert_int_equal(s1.search_steps - s2.search_steps, 1);
	unmap1(f, d[0], len);
	assert_int_equal(s1.mappings, s1.unmaps + 1);
	assert_int_equal(sluice_dma_layer_check(&f->dl), 0);
	assert_int_equal(fx_free(f), 0);
	free(buf);
}

static void test_hit_counters(void **state)
{
	(void)state;
	for (int excl = 0; excl <= 1; excl++) {
		hit_counters(excl, 2048);
		hit_counters(excl, 4096);
	}
}

/*
 * An alignment beyond what a magazine's class keeps (4 KiB for a single slot,
 * 8 KiB for a page pair) is never served from the magazine's top: with a
 * misaligned run there, an aligned request still gets an aligned address,
 * with and without the exclusive promise. (Linux's rule rounds such a request
 * up to its alignment, so it is a pair, or a run of four, not the class.)
 */
static void hit_alignment(bool exclusive, size_t len, uint64_t align)
{
	struct fx *f = excl_new(1, 4 * MIB);
	unsigned char *buf = calloc(1, 4096);
	struct sluice_dma_tag aligned = SLUICE_DMA_TAG_DEFAULT;
	uint64_t d[8], top = 0, got;

	if (!exclusive)
		f->mp.ops.flags = f->dl.ops.flags = 0;
	for (unsigned int i = 0; i < 8; i++)
		d[i] = map1(f, buf, len);
	for (unsigned int i = 0; i < 8 && !top; i++)
		if (d[i] & (align - 1))
			top = d[i];
	assert_true(top != 0);
	/* The misaligned run freed last: the magazine's newest entry. */
	for (unsigned int i = 0; i < 8; i++)
		if (d[i] != top)
			unmap1(f, d[i], len);
	unmap1(f, top, len);
	aligned.alloc_align_mask = align - 1;
	assert_int_equal(sluice_dma_map(&f->dl, &aligned, buf, len, SLUICE_DMA_TO_DEVICE, &got), 0);
	assert_int_equal(got & (align - 1), 0);
	unmap1(f, got, len);
	/* The plain request still takes the newest entry. */
	assert_true(map1(f, buf, len) == top);
	unmap1(f, top, len);
	assert_int_equal(fx_free(f), 0);
	free(buf);
}

static void test_hit_alignment(void **state)
{
	(void)state;
	for (int excl = 0; excl <= 1; excl++) {
		hit_alignment(excl, 2048, 4096);
		hit_alignment(excl, 4096, 8192);
	}
}

static uint64_t map_tag(struct fx *f, const struct sluice_dma_tag *t, void *buf, size_t len)
{
	uint64_t d = 0;

	assert_int_equal(sluice_dma_map(&f->dl, t, buf, len, SLUICE_DMA_TO_DEVICE, &d), 0);
	return d;
}

/* Map @len at @buf under @t: it must take @want, the second run probed (2 steps, 1 hit). */
static void probe_takes(struct fx *f, const struct sluice_dma_tag *t, void *buf, size_t len,
			uint64_t want)
{
	struct sluice_dma_bounce_stats s0, s1;

	assert_int_equal(sluice_dma_bounce_stats_get(&f->dl, 0, &s0), 0);
	assert_true(map_tag(f, t, buf, len) == want);
	assert_int_equal(sluice_dma_bounce_stats_get(&f->dl, 0, &s1), 0);
	assert_int_equal(s1.search_steps - s0.search_steps, 2);
	assert_int_equal(s1.cache_hits - s0.cache_hits, 1);
	unmap1(f, want, len);
}

/*
 * A min_align request (the device sees the buffer's low address bits: here
 * bit 11, a slot's parity) takes the newest cached run whose address repeats
 * them. Each run probed above it counts one search step; the one taken counts
 * a cache hit, which reads back as one step more (bounce.h). For single slots
 * (the magazine) and for runs of four (the CPU's run cache).
 */
static void test_min_align_probe(void **state)
{
	struct fx *f = excl_new(1, 4 * MIB);
	unsigned char *mem = fx_aligned(4096, 16384);
	struct sluice_dma_tag ma = SLUICE_DMA_TAG_DEFAULT;
	uint64_t d[8], odd = 0, even = 0, a, b;

	(void)state;
	assert_non_null(mem);
	ma.min_align_mask = 0xfff;
	/* Single slots: an odd one, then an even one, freed last (newest). */
	for (unsigned int i = 0; i < 8; i++) {
		d[i] = map1(f, mem, 2048);
		if ((d[i] & 0x800) && !odd)
			odd = d[i];
		else if (!(d[i] & 0x800) && !even)
			even = d[i];
	}
	assert_true(odd && even);
	for (unsigned int i = 0; i < 8; i++)
		if (d[i] != odd && d[i] != even)
			unmap1(f, d[i], 2048);
	unmap1(f, odd, 2048);
	unmap1(f, even, 2048);
	/* Bit 11 of the buffer set: an odd slot; the even one on top is probed. */
	probe_takes(f, &ma, mem + 0x800, 2048, odd);
	/* Runs of four: one at an odd slot (min_align), one page-aligned (plain) on top. */
	a = map_tag(f, &ma, mem + 0x800, 8192);
	b = map1(f, mem, 8192);
	assert_true((a & 0x800) && !(b & 0x800));
	unmap1(f, a, 8192);
	unmap1(f, b, 8192);
	probe_takes(f, &ma, mem + 0x800, 8192, a);
	assert_int_equal(fx_free(f), 0);
	free(mem);
}

/*
 * Without the exclusive promise, callers may share a CPU index at the same
 * time: four threads all on index 0, each mapping its own pattern and reading
 * it back through the device's view, and taking and giving back raw slot
 * runs. Two callers handed the same run would read each other's bytes or
 * break the layer's self-check; the magazines' lock is what keeps them apart.
 */
#define SHARE_THREADS 4
#define SHARE_ITER 20000

struct share_arg {
	struct fx *f;
	unsigned int t;
	atomic_uint *errors;
};

static void *share_worker(void *p)
{
	struct share_arg *a = p;
	struct sluice_dma_bounce_pool *pool = a->f->dl.pools;
	unsigned char *buf = malloc(4096);
	unsigned int seed = 11 + a->t;

	mock_port_set_cpu(0);
	memset(buf, 0x40 + (int)a->t, 4096);
	for (unsigned int i = 0; i < SHARE_ITER; i++) {
		size_t len = rand_r(&seed) & 1 ? 4096 : 2048;
		struct dma_bounce_req r;
		uint64_t d, off;
		long s;

		if (sluice_dma_map(&a->f->dl, &tag, buf, len, SLUICE_DMA_TO_DEVICE, &d)) {
			atomic_fetch_add(a->errors, 1);
			continue;
		}
		assert_int_equal(dma_bounce_req_init(&r, &tag, (uintptr_t)buf, len, &off), 0);
		s = sluice_dma_priv_bounce_alloc(pool, &r, 0);
		/* The bytes are still this thread's after another run was taken. */
		if (fx_dev(d)[0] != buf[0] || fx_dev(d)[len - 1] != buf[0])
			atomic_fetch_add(a->errors, 1);
		if (s >= 0)
			sluice_dma_priv_bounce_free(pool, (unsigned long)s, r.nslots, 0);
		if (sluice_dma_unmap(&a->f->dl, d, len, SLUICE_DMA_TO_DEVICE))
			atomic_fetch_add(a->errors, 1);
	}
	free(buf);
	return NULL;
}

static void test_shared_index_threads(void **state)
{
	struct fx *f = excl_new(1, 4 * MIB);
	struct share_arg a[SHARE_THREADS];
	pthread_t th[SHARE_THREADS];
	struct sluice_dma_bounce_stats st;
	atomic_uint errors = 0;

	(void)state;
	f->mp.ops.flags = f->dl.ops.flags = 0;
	for (unsigned int t = 0; t < SHARE_THREADS; t++) {
		a[t] = (struct share_arg){ .f = f, .t = t, .errors = &errors };
		assert_int_equal(pthread_create(&th[t], NULL, share_worker, &a[t]), 0);
	}
	for (unsigned int t = 0; t < SHARE_THREADS; t++)
		pthread_join(th[t], NULL);
	assert_int_equal(atomic_load(&errors), 0);
	assert_int_equal(sluice_dma_layer_check(&f->dl), 0);
	assert_int_equal(sluice_dma_bounce_stats_get(&f->dl, 0, &st), 0);
	assert_int_equal(st.mappings, st.unmaps);
	assert_int_equal(st.used, 0);
	assert_int_equal(fx_free(f), 0);
}

/* A port whose device addresses run half a page ahead of the CPU's. */
static uint64_t half_page_virt_to_dma(void *ctx, const void *vaddr)
{
	(void)ctx;
	return (uint64_t)(uintptr_t)vaddr + 2048;
}

/*
 * A pool whose device addresses do not start on a page: the page pairs of
 * magazine class 1 are then not pages on the device's side, so the policy
 * serves no request from a magazine unchecked (the pool is no fast_sluice
 * one, and the ops' alloc tests page_aligned). Every 4 KiB mapping still gets
 * a page-aligned device address, from a cold and from a warm magazine.
 */
static void test_unaligned_pool(void **state)
{
	struct fx *f = fx_new(SLUICE_DMA_POLICY_SLUICE, 1, 0, SLUICE_DMA_SCRUB_ZERO);
	unsigned char *buf = calloc(1, 4096);
	uint64_t d[8];

	(void)state;
	assert_non_null(f);
	f->mp.ops.flags = f->dl.ops.flags = SLUICE_DMA_PORT_CPU_EXCLUSIVE;
	f->dl.ops.virt_to_dma = half_page_virt_to_dma;
	assert_int_equal(fx_add_pool(f, 4 * MIB), 0);
	assert_false(f->dl.pools->fast_sluice);
	for (unsigned int round = 0; round < 3; round++) {
		for (unsigned int i = 0; i < 8; i++) {
			d[i] = map1(f, buf, 4096);
			assert_int_equal(d[i] & 4095, 0);
		}
		for (unsigned int i = 0; i < 8; i++)
			unmap1(f, d[(i * 3 + round) % 8], 4096);
		assert_int_equal(sluice_dma_layer_check(&f->dl), 0);
	}
	assert_int_equal(fx_free(f), 0);
	free(buf);
}

/* The layer's lock op, counted: which paths take a CPU's lock. */
static uint64_t (*real_lock)(void *ctx, void *lock);
static unsigned long lock_calls;

static uint64_t counting_lock(void *ctx, void *lock)
{
	lock_calls++;
	return real_lock(ctx, lock);
}

/*
 * Without the exclusive promise two callers may share a CPU index, so every
 * magazine pop and push holds the CPU's lock: the slot alloc and free of the
 * policy (bounce.c's inline hit leaves such a port to the locked path) and
 * the map's own pop. With the promise, a hit takes no lock at all.
 */
static void magazine_locks(bool exclusive)
{
	struct fx *f = excl_new(1, 4 * MIB);
	struct sluice_dma_bounce_pool *p;
	unsigned char *buf = calloc(1, 4096);
	struct dma_bounce_req r;
	unsigned long before;
	uint64_t off, d;
	long s;

	if (!exclusive)
		f->mp.ops.flags = f->dl.ops.flags = 0;
	real_lock = f->dl.ops.lock;
	f->dl.ops.lock = counting_lock;
	p = f->dl.pools;
	/* Warm: the first map refills the magazine (locks either way). */
	unmap1(f, map1(f, buf, 4096), 4096);
	assert_int_equal(dma_bounce_req_init(&r, &tag, (uintptr_t)buf, 4096, &off), 0);
	before = lock_calls;
	s = sluice_dma_priv_bounce_alloc(p, &r, 0);
	assert_true(s >= 0);
	assert_true(exclusive ? lock_calls == before : lock_calls > before);
	before = lock_calls;
	sluice_dma_priv_bounce_free(p, (unsigned long)s, r.nslots, 0);
	assert_true(exclusive ? lock_calls == before : lock_calls > before);
	before = lock_calls;
	d = map1(f, buf, 4096);
	assert_true(exclusive ? lock_calls == before : lock_calls > before);
	before = lock_calls;
	unmap1(f, d, 4096);
	assert_true(exclusive ? lock_calls == before : lock_calls > before);
	f->dl.ops.lock = real_lock;
	assert_int_equal(fx_free(f), 0);
	free(buf);
}

static void test_magazine_locks(void **state)
{
	(void)state;
	magazine_locks(false);
	magazine_locks(true);
}

/* Maps on CPU 0, unmaps on CPU 1: back to CPU 0 through its remote list. */
static void test_remote_list(void **state)
{
	struct fx *f = excl_new(2, 4 * MIB);
	unsigned char *buf = calloc(1, 4096);
	uint64_t d[100], again;
	struct sluice_dma_bounce_stats st;
	unsigned long nslabs, n = 0, tu;

	(void)state;
	mock_port_set_cpu(0);
	for (unsigned int i = 0; i < 100; i++)
		d[i] = map1(f, buf, i & 1 ? 4096 : 2048);
	tu = total_used(f);
	mock_port_set_cpu(1);
	/* 32 fit the list; the rest go straight back to the bitmap. */
	for (unsigned int i = 0; i < 100; i++)
		unmap1(f, d[i], i & 1 ? 4096 : 2048);
	assert_int_equal(used(f), 0);
	assert_int_equal(sluice_dma_layer_check(&f->dl), 0);
	assert_int_equal(total_used(f), tu - (100 - 32) * 3 / 2);
	/* CPU 1 kept nothing: its magazines are empty. */
	mock_port_set_cpu(0);
	/* CPU 0 empties its magazine, then takes the listed runs back. */
	assert_int_equal(sluice_dma_bounce_stats_get(&f->dl, 0, &st), 0);
	nslabs = st.nslabs;
	{
		uint64_t *all = calloc(nslabs, sizeof(*all));
		bool seen = false;

		while (n < nslabs &&
		       !sluice_dma_map(&f->dl, &tag, buf, 2048, SLUICE_DMA_TO_DEVICE, &all[n])) {
			seen |= all[n] == d[98];
			n++;
		}
		/* Nothing lost: the whole pool, the listed runs included. */
		assert_int_equal(n, nslabs);
		assert_true(seen);
		assert_int_equal(sluice_dma_layer_check(&f->dl), 0);
		for (unsigned long i = 0; i < n; i++)
			unmap1(f, all[i], 2048);
		free(all);
	}
	again = map1(f, buf, 2048);
	unmap1(f, again, 2048);
	assert_int_equal(fx_free(f), 0);
	free(buf);
}

/*
 * CPU 1's magazine holds slots no other CPU may take: CPU 0 running out asks
 * for them, and they come back at CPU 1's next call.
 */
static void test_drain_request(void **state)
{
	struct fx *f = excl_new(2, 1 * MIB);
	unsigned char *buf = calloc(1, 4096);
	uint64_t *all = calloc(1024, sizeof(*all)), d[8], one;
	unsigned long cached, n = 0, more = 0;

	(void)state;
	mock_port_set_cpu(1);
	for (unsigned int i = 0; i < 8; i++)
		d[i] = map1(f, buf, 2048);
	for (unsigned int i = 0; i < 8; i++)
		unmap1(f, d[i], 2048);
	cached = total_used(f);
	assert_true(cached >= 8);
	assert_int_equal(used(f), 0);
	mock_port_set_cpu(0);
	while (!sluice_dma_map(&f->dl, &tag, buf, 2048, SLUICE_DMA_TO_DEVICE, &all[n]))
		n++;
	assert_int_equal(n, 512 - cached);
	assert_int_equal(sluice_dma_layer_check(&f->dl), 0);
	/* CPU 1's next call returns its magazine; its map searches the bitmap. */
	mock_port_set_cpu(1);
	one = map1(f, buf, 2048);
	mock_port_set_cpu(0);
	while (!sluice_dma_map(&f->dl, &tag, buf, 2048, SLUICE_DMA_TO_DEVICE, &all[n + more]))
		more++;
	assert_int_equal(more, cached - 1);
	assert_int_equal(used(f), 512);
	assert_int_equal(sluice_dma_layer_check(&f->dl), 0);
	for (unsigned long i = 0; i < n + more; i++)
		unmap1(f, all[i], 2048);
	mock_port_set_cpu(1);
	unmap1(f, one, 2048);
	mock_port_set_cpu(0);
	assert_int_equal(fx_free(f), 0);
	free(all);
	free(buf);
}

/*
 * The drain another CPU asks for is honoured at the owner's next call when
 * that call is an unmap too (the magazine's inline push, bounce.c, must not
 * skip it): the cached runs go back before the freed one is cached.
 */
static void test_drain_request_on_unmap(void **state)
{
	struct fx *f = excl_new(2, 1 * MIB);
	unsigned char *buf = calloc(1, 4096);
	uint64_t *all = calloc(1024, sizeof(*all)), d[8], keep;
	unsigned long cached, n = 0, more = 0;

	(void)state;
	mock_port_set_cpu(1);
	keep = map1(f, buf, 2048);
	for (unsigned int i = 0; i < 8; i++)
		d[i] = map1(f, buf, 2048);
	for (unsigned int i = 0; i < 8; i++)
		unmap1(f, d[i], 2048);
	cached = total_used(f) - used(f);
	assert_true(cached >= 8);
	mock_port_set_cpu(0);
	while (!sluice_dma_map(&f->dl, &tag, buf, 2048, SLUICE_DMA_TO_DEVICE, &all[n]))
		n++;
	assert_int_equal(n, 512 - cached - 1);
	/* CPU 1's next call is an unmap: its magazines go back first. */
	mock_port_set_cpu(1);
	unmap1(f, keep, 2048);
	mock_port_set_cpu(0);
	while (!sluice_dma_map(&f->dl, &tag, buf, 2048, SLUICE_DMA_TO_DEVICE, &all[n + more]))
		more++;
	assert_int_equal(more, cached);
	assert_int_equal(sluice_dma_layer_check(&f->dl), 0);
	for (unsigned long i = 0; i < n + more; i++)
		unmap1(f, all[i], 2048);
	assert_int_equal(fx_free(f), 0);
	free(all);
	free(buf);
}

/* Destroy takes every CPU's caches (the layer is quiescent then). */
static void test_destroy_drains(void **state)
{
	struct fx *f = excl_new(4, 2 * MIB);
	unsigned char *buf = calloc(1, 64 * KIB);
	uint64_t d[3];

	(void)state;
	for (unsigned int cpu = 0; cpu < 4; cpu++) {
		mock_port_set_cpu(cpu);
		d[0] = map1(f, buf, 2048);
		d[1] = map1(f, buf, 4096);
		d[2] = map1(f, buf, 64 * KIB);
		unmap1(f, d[0], 2048);
		unmap1(f, d[1], 4096);
		unmap1(f, d[2], 64 * KIB);
	}
	mock_port_set_cpu(0);
	assert_int_equal(used(f), 0);
	assert_true(total_used(f) > 0);
	/* fx_free: self-check, destroy (must not find slots in use), nothing shared. */
	assert_int_equal(fx_free(f), 0);
	free(buf);
}

/* ------------------------------------------------------------ two threads */

#define XQ 64
#define XITER 20000

struct xshare {
	struct fx *f;
	pthread_mutex_t mu;
	uint64_t q[XQ];
	size_t qlen[XQ];
	unsigned int n;
	atomic_int errors;
};

struct xarg {
	struct xshare *sh;
	unsigned int cpu;
};

/*
 * Map on this CPU, hand the mapping over; unmap whatever the queue holds
 * (often the other CPU's).
 */
static void *xworker(void *p)
{
	struct xarg *a = p;
	struct xshare *sh = a->sh;
	unsigned char *buf = calloc(1, 4096);
	unsigned int seed = 7 + a->cpu;

	mock_port_set_cpu(a->cpu);
	for (unsigned int i = 0; i < XITER; i++) {
		size_t len = rand_r(&seed) & 1 ? 4096 : 2048;
		uint64_t d, od = 0;
		size_t olen = 0;

		if (sluice_dma_map(&sh->f->dl, &tag, buf, len, SLUICE_DMA_TO_DEVICE, &d)) {
			atomic_fetch_add(&sh->errors, 1);
			continue;
		}
		pthread_mutex_lock(&sh->mu);
		if (sh->n == XQ || (rand_r(&seed) & 1 && sh->n)) {
			unsigned int k = (unsigned int)rand_r(&seed) % sh->n;

			od = sh->q[k];
			olen = sh->qlen[k];
			sh->q[k] = d;
			sh->qlen[k] = len;
		} else {
			sh->q[sh->n] = d;
			sh->qlen[sh->n++] = len;
		}
		pthread_mutex_unlock(&sh->mu);
		if (olen && sluice_dma_unmap(&sh->f->dl, od, olen, SLUICE_DMA_TO_DEVICE))
			atomic_fetch_add(&sh->errors, 1);
	}
	free(buf);
	return NULL;
}

static void test_threads_cross_cpu(void **state)
{
	struct xshare sh = { .f = excl_new(2, 2 * MIB) };
	struct xarg a[2];
	pthread_t th[2];

	(void)state;
	pthread_mutex_init(&sh.mu, NULL);
	for (unsigned int i = 0; i < 2; i++) {
		a[i] = (struct xarg){ .sh = &sh, .cpu = i };
		assert_int_equal(pthread_create(&th[i], NULL, xworker, &a[i]), 0);
	}
	for (unsigned int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	assert_int_equal(atomic_load(&sh.errors), 0);
	assert_int_equal(sluice_dma_layer_check(&sh.f->dl), 0);
	for (unsigned int cpu = 0; cpu < 2; cpu++) {
		mock_port_set_cpu(cpu);
		for (unsigned int i = cpu; i < sh.n; i += 2)
			unmap1(sh.f, sh.q[i], sh.qlen[i]);
	}
	mock_port_set_cpu(0);
	assert_int_equal(used(sh.f), 0);
	assert_int_equal(fx_free(sh.f), 0);
	pthread_mutex_destroy(&sh.mu);
}

/* The port's copy and clear (ops.copy / ops.zero, here rep movsb / stosb) carry every bounce. */
static unsigned long port_copies;

static void counting_copy(void *ctx, void *dst, const void *src, size_t len)
{
	port_copies++;
	mock_port_copy_chosen(ctx, dst, src, len);
}

static void test_port_copy(void **state)
{
	struct fx *f = excl_new(1, 2 * MIB);
	unsigned char *buf = malloc(8192);
	uint64_t d;

	(void)state;
	assert_non_null(mock_port_set_copy(&f->mp, "movsb"));
	f->dl.ops.zero = f->mp.ops.zero;
	f->dl.ops.copy = counting_copy;
	for (unsigned int i = 0; i < 8192; i++)
		buf[i] = (unsigned char)(i * 7 + 1);
	d = map1(f, buf + 3, 5000);
	assert_memory_equal(fx_dev(d), buf + 3, 5000);
	unmap1(f, d, 5000);
	assert_int_equal(port_copies, 1);
	/* From-device under scrub=zero: the slot reads zero, the device's bytes come back. */
	assert_int_equal(sluice_dma_map(&f->dl, &tag, buf, 4096, SLUICE_DMA_FROM_DEVICE, &d), 0);
	for (unsigned int i = 0; i < 4096; i++)
		assert_int_equal(((unsigned char *)fx_dev(d))[i], 0);
	memset(fx_dev(d), 0x3c, 100);
	assert_int_equal(sluice_dma_unmap_written(&f->dl, d, 4096, SLUICE_DMA_FROM_DEVICE, 100), 0);
	assert_int_equal(port_copies, 2);
	for (unsigned int i = 0; i < 100; i++)
		assert_int_equal(buf[i], 0x3c);
	assert_int_equal(buf[100], (unsigned char)(100 * 7 + 1));
	assert_int_equal(fx_free(f), 0);
	free(buf);
}

/*
 * The leaf paths with the port's AVX2 copy and clear (where this CPU runs
 * them): every length around the loops' 128-byte block and the slot's size,
 * at odd offsets, copies to the device exactly, copies back exactly the bytes
 * the device wrote, and scrubs a from-device slot whole. The inline bodies
 * are the ones the layer runs: the layer takes its leaf path here.
 */
static void test_port_copy_avx2(void **state)
{
	static const size_t lens[] = { 1, 31, 127, 128, 129, 255, 1000, 2047, 2048, 2049, 4096 };
	unsigned char *buf = malloc(8192), *back = malloc(8192);
	struct fx *f;
	uint64_t d;

	(void)state;
	if (!mock_port_cpu_avx2()) {
		free(buf);
		free(back);
		print_message(
			"this CPU (or its OS) runs no AVX2: the port's AVX2 copy is not tested\n");
		skip();
	}
	f = excl_new(1, 2 * MIB);
	assert_true(fx_leaf(f));
	assert_string_equal(mock_port_set_copy(&f->mp, "avx2"), "avx2");
	assert_ptr_equal(f->mp.ops.copy, mock_port_copy_chosen);
	/* The bodies the inline ops run now: AVX2 for both. */
	assert_true(mock_port_avx2_copy && mock_port_avx2_zero);
	for (unsigned int i = 0; i < 8192; i++)
		buf[i] = (unsigned char)(i * 7 + 1);
	for (unsigned int li = 0; li < sizeof(lens) / sizeof(lens[0]); li++)
		for (unsigned int off = 0; off < 3; off++) {
			size_t len = lens[li];
			unsigned char *dev;

			d = map1(f, buf + off, len);
			assert_memory_equal(fx_dev(d), buf + off, len);
			unmap1(f, d, len);
			/* From the device: a slot that reads zero, then the bytes written. */
			memcpy(back, buf, 8192);
			assert_int_equal(sluice_dma_map(&f->dl, &tag, back + off, len,
							SLUICE_DMA_FROM_DEVICE, &d),
					 0);
			dev = fx_dev(d);
			for (size_t i = 0; i < len; i++)
				assert_int_equal(dev[i], 0);
			memset(dev, 0xa5, len);
			assert_int_equal(sluice_dma_unmap_written(&f->dl, d, len,
								  SLUICE_DMA_FROM_DEVICE,
								  len - len / 3),
					 0);
			for (size_t i = 0; i < 8192; i++)
				assert_int_equal(back[i], i >= off && i < off + len - len / 3 ?
								  0xa5 :
								  buf[i]);
		}
	assert_string_equal(mock_port_set_copy(&f->mp, "movsb"), "movsb");
	assert_false(mock_port_avx2_copy || mock_port_avx2_zero);
	assert_int_equal(fx_free(f), 0);
	free(buf);
	free(back);
}

/* The process-wide bodies back to `rep movsb` / `rep stosb`, whatever a test left. */
static int reset_port_bodies(void **state)
{
	(void)state;
	mock_port_avx2_copy = mock_port_avx2_zero = false;
	return 0;
}

/* A copy the port does not know, or cannot run, changes nothing. */
static void test_port_copy_names(void **state)
{
	struct mock_port mp;

	(void)state;
	mock_port_init(&mp, 1);
	/* The name returned is the port's, not the caller's buffer. */
	{
		char asked[] = "movsb";
		const char *got = mock_port_set_copy(&mp, asked);

		assert_ptr_not_equal(got, asked);
		assert_string_equal(got, "movsb");
	}
	assert_null(mock_port_set_copy(&mp, "memcpy"));
	assert_null(mock_port_set_zero(&mp, "stosb"));
	assert_ptr_equal(mp.ops.copy, mock_port_copy_chosen);
	assert_ptr_equal(mp.ops.zero, mock_port_zero_chosen);
	if (!mock_port_cpu_avx2())
		assert_null(mock_port_set_copy(&mp, "avx2"));
	assert_string_equal(mock_port_set_zero(&mp, "libc"), "libc");
	assert_ptr_equal(mp.ops.copy, mock_port_copy_chosen);
	assert_null(mp.ops.zero);
	/* The copy and the clear apart: each sets its own body. */
	if (mock_port_cpu_avx2()) {
		assert_string_equal(mock_port_set_copy(&mp, "avx2"), "avx2");
		assert_string_equal(mock_port_set_zero(&mp, "movsb"), "movsb");
		assert_true(mock_port_avx2_copy);
		assert_false(mock_port_avx2_zero);
		assert_string_equal(mock_port_set_zero(&mp, "avx2"), "avx2");
		assert_true(mock_port_avx2_zero);
		assert_string_equal(mock_port_set_copy(&mp, "movsb"), "movsb");
		assert_false(mock_port_avx2_copy || mock_port_avx2_zero);
	}
	assert_string_equal(mock_port_set_copy(&mp, "libc"), "libc");
	assert_null(mp.ops.copy);
}

/*
 * The TLB rule of the lock-free magazines. A conversion changes page tables;
 * a CPU that has not caught up since (the kernel port's mmu_tlb_sync(), run in
 * its lock op) may still hold the old, private translation of the memory.
 * The magazines are read without a lock, so the guarantee is structural:
 * every run enters a CPU's magazine under a port lock taken on that CPU (a
 * refill from an area, the CPU's remote list) or comes from a mapping that
 * CPU already held. This mock TLB numbers conversions (generations), records
 * each pool's and, in the lock op, each CPU's last sync; every address a map
 * hands out on a CPU must be of a pool converted no later than that CPU's
 * last sync. Run once with a lock op that syncs (as the kernel's) and once
 * with one that does not, which the check must catch: the check can fail.
 */
#define TLB_CPUS 2

static struct {
	unsigned int gen;		 /* conversions so far */
	unsigned int cpu_sync[TLB_CPUS]; /* generation each CPU last caught up to */
	uintptr_t start[FX_MAX_POOLS], end[FX_MAX_POOLS];
	unsigned int conv_gen[FX_MAX_POOLS];
	unsigned int nranges;
	bool lock_syncs;
	unsigned int violations;
	struct sluice_dma_port_ops inner;
} tlb;

static int tlb_set_shared(void *ctx, void *vaddr, size_t len)
{
	int err = tlb.inner.set_shared(ctx, vaddr, len);

	if (!err && tlb.nranges < FX_MAX_POOLS) {
		tlb.start[tlb.nranges] = (uintptr_t)vaddr;
		tlb.end[tlb.nranges] = (uintptr_t)vaddr + len;
		tlb.conv_gen[tlb.nranges++] = ++tlb.gen;
		/* The converting CPU flushes its own TLB. */
		tlb.cpu_sync[tlb.inner.cpu_id(ctx)] = tlb.gen;
	}
	return err;
}

static uint64_t tlb_lock(void *ctx, void *lock)
{
	uint64_t saved = tlb.inner.lock(ctx, lock);

	if (tlb.lock_syncs)
		tlb.cpu_sync[tlb.inner.cpu_id(ctx)] = tlb.gen;
	return saved;
}

/* A slot handed out on @cpu: its pool's conversion must not postdate the CPU's sync. */
static void tlb_check(uint64_t dma, unsigned int cpu)
{
	for (unsigned int i = 0; i < tlb.nranges; i++)
		if (dma >= tlb.start[i] && dma < tlb.end[i] && tlb.conv_gen[i] > tlb.cpu_sync[cpu])
			tlb.violations++;
}

static uint64_t tlb_map(struct fx *f, unsigned int cpu, void *buf)
{
	uint64_t d = 0;
	int err;

	mock_port_set_cpu(cpu);
	err = sluice_dma_map(&f->dl, &tag, buf, 2048, SLUICE_DMA_TO_DEVICE, &d);
	mock_port_set_cpu(0);
	if (err)
		return 0;
	tlb_check(d, cpu);
	return d;
}

/*
 * CPU 1 fills its magazine from pool A; CPU 0 uses up A and adds pool B (a
 * conversion CPU 1 has not seen); CPU 1 then maps until it has had slots of
 * B. Returns the violations the mock TLB saw.
 */
static unsigned int tlb_scenario(bool lock_syncs)
{
	struct fx *f = excl_new(TLB_CPUS, 0);
	unsigned char *buf = calloc(1, 2048);
	static uint64_t d0[2048], d1[2048];
	unsigned int n0 = 0, n1 = 0, from_b = 0;

	memset(&tlb, 0, sizeof(tlb));
	tlb.lock_syncs = lock_syncs;
	tlb.inner = f->dl.ops;
	f->dl.ops.set_shared = tlb_set_shared;
	f->dl.ops.lock = tlb_lock;
	assert_int_equal(fx_add_pool(f, 256 * KIB), 0);

	d1[n1++] = tlb_map(f, 1, buf);
	unmap1(f, d1[--n1], 2048);
	/* A is used up from CPU 0 (CPU 1's magazine is asked back on the way). */
	while (n0 < 2048 && (d0[n0] = tlb_map(f, 0, buf)) != 0)
		n0++;
	mock_port_set_cpu(0);
	assert_int_equal(fx_add_pool(f, 256 * KIB), 0);
	for (unsigned int i = 0; i < 200 && from_b < 4; i++) {
		uint64_t d = tlb_map(f, 1, buf);

		if (!d)
			break;
		d1[n1++] = d;
		from_b += fx_slot(f, 1, d) >= 0;
	}
	assert_true(from_b > 0);
	while (n1)
		unmap1(f, d1[--n1], 2048);
	while (n0)
		unmap1(f, d0[--n0], 2048);
	assert_int_equal(fx_free(f), 0);
	free(buf);
	return tlb.violations;
}

static void test_tlb_sync(void **state)
{
	(void)state;
	assert_int_equal(tlb_scenario(true), 0);
	assert_int_not_equal(tlb_scenario(false), 0);
}

int main(void)
{
	/* One test a line, not packed in columns. */
	/* clang-format off */
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_batches),
		cmocka_unit_test(test_hit_counters),
		cmocka_unit_test(test_hit_alignment),
		cmocka_unit_test(test_magazine_locks),
		cmocka_unit_test(test_unaligned_pool),
		cmocka_unit_test(test_min_align_probe),
		cmocka_unit_test(test_shared_index_threads),
		cmocka_unit_test(test_remote_list),
		cmocka_unit_test(test_drain_request),
		cmocka_unit_test(test_drain_request_on_unmap),
		cmocka_unit_test(test_destroy_drains),
		cmocka_unit_test(test_threads_cross_cpu),
		cmocka_unit_test(test_port_copy),
		cmocka_unit_test_teardown(test_port_copy_avx2, reset_port_bodies),
		cmocka_unit_test_teardown(test_port_copy_names, reset_port_bodies),
		cmocka_unit_test(test_tlb_sync),
	};
	/* clang-format on */

	return cmocka_run_group_tests(tests, NULL, NULL);
}
