/* SPDX-License-Identifier: MIT */
/*
 * test_bounce.c - host tests of the bounce pools (dma/bounce*.c), run for every
 * policy: placement under alignment and boundary constraints, fill / drain /
 * fragmentation / pool full, growth, large mappings, real threads on per-CPU
 * areas, a seeded random sequence against a reference model, and the exact
 * slot choices of the `linux` policy replayed against hand-computed upstream
 * decisions. Every teardown runs the layer's self-check.
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
#include <time.h>

#include "tests/fakes/test_bounce_fixture.h"

#define KIB 1024ul
#define MIB (1024ul * 1024ul)

static struct fx_case cases[SLUICE_DMA_POLICY_COUNT];

/* Replace the fixture's layer by one with another geometry. */
static struct fx *reopen(struct fx_case *tc, unsigned int ncpus, size_t bytes)
{
	assert_int_equal(fx_free(tc->f), 0);
	tc->f = fx_new(tc->policy, ncpus, bytes, SLUICE_DMA_SCRUB_COPY);
	assert_non_null(tc->f);
	return tc->f;
}

/* ------------------------------------------------------------------ model */

/**
 * struct live - a mapping as the reference model sees it.
 * @dma: device address returned.
 * @orig: original buffer.
 * @len: length.
 * @dir: direction.
 * @head: start of the allocated slots (device address).
 * @end: end of the allocated slots.
 */
struct live {
	uint64_t dma;
	unsigned char *orig;
	size_t len;
	enum sluice_dma_dir dir;
	uint64_t head;
	uint64_t end;
};

/*
 * Check the placement rules of a returned address, computed independently of
 * the library from the tag (the Linux rules, identical for every policy).
 */
static void check_placement(const struct sluice_dma_tag *t, const void *orig, size_t len,
			    uint64_t dma, struct live *out)
{
	uint64_t o = (uint64_t)(uintptr_t)orig;
	uint64_t off = o & t->min_align_mask & (t->alloc_align_mask | (SLUICE_DMA_IO_TLB_SIZE - 1));
	uint64_t size = (len + off + t->alloc_align_mask) & ~t->alloc_align_mask;
	uint64_t head = dma - off,
		 nslots = (size + SLUICE_DMA_IO_TLB_SIZE - 1) / SLUICE_DMA_IO_TLB_SIZE;
	uint64_t end = head + nslots * SLUICE_DMA_IO_TLB_SIZE;

	assert_int_equal(dma & t->min_align_mask, o & t->min_align_mask);
	assert_int_equal(head & (SLUICE_DMA_IO_TLB_SIZE - 1), 0);
	assert_int_equal(head & t->alloc_align_mask, 0);
	if (!t->alloc_align_mask && !t->min_align_mask && size >= SLUICE_DMA_PAGE_SIZE)
		assert_int_equal(head & (SLUICE_DMA_PAGE_SIZE - 1), 0);
	assert_int_equal(head & ~t->boundary_mask, (end - 1) & ~t->boundary_mask);
	assert_true(dma + len <= end);
	out->dma = dma;
	out->orig = (unsigned char *)orig;
	out->len = len;
	out->head = head;
	out->end = end;
}

static void check_no_overlap(const struct live *l, unsigned int n, const struct live *x)
{
	for (unsigned int i = 0; i < n; i++) {
		if (x->head < l[i].end && l[i].head < x->end)
			fail_msg("mapping [%#llx, %#llx) overlaps [%#llx, %#llx)",
				 (unsigned long long)x->head, (unsigned long long)x->end,
				 (unsigned long long)l[i].head, (unsigned long long)l[i].end);
	}
}

static uint64_t used_of(const struct fx *f, int pool)
{
	struct sluice_dma_bounce_stats st;

	assert_int_equal(sluice_dma_bounce_stats_get(&f->dl, pool, &st), 0);
	return st.used;
}

static void fill_pattern(unsigned char *p, size_t len, unsigned int seed)
{
	for (size_t i = 0; i < len; i++)
		p[i] = (unsigned char)(seed * 131 + i * 7 + (i >> 8));
}

/* ------------------------------------------------------------------ constraints */

static const struct sluice_dma_tag tag_variants[] = {
	{ SLUICE_DMA_NO_LIMIT, 0, 0, SLUICE_DMA_NO_LIMIT, 0 },
	{ SLUICE_DMA_NO_LIMIT, 4095, 0, SLUICE_DMA_NO_LIMIT, 0 }, /* NVMe */
	{ SLUICE_DMA_NO_LIMIT, 2047, 0, SLUICE_DMA_NO_LIMIT, 0 },
	{ SLUICE_DMA_NO_LIMIT, 0x3fff, 0, SLUICE_DMA_NO_LIMIT, 0 }, /* min_align beyond a page */
	{ SLUICE_DMA_NO_LIMIT, 0, 0x3fff, SLUICE_DMA_NO_LIMIT, 0 }, /* 16 KiB allocations */
	{ SLUICE_DMA_NO_LIMIT, 0, 0, 0xffff, 0 },		    /* 64 KiB boundary */
	{ SLUICE_DMA_NO_LIMIT, 4095, 0xfff, 0x7fff, 0 },	    /* all at once */
	{ SLUICE_DMA_NO_LIMIT, 0, 0, SLUICE_DMA_NO_LIMIT, 8192 },   /* max mapping */
};

static const size_t sizes[] = {
	1, 100, 2048, 2049, 4000, 4096, 5000, 16384, 65536, 200000, 262144,
};
static const size_t offsets[] = { 0, 0x10, 0x7f0, 0x800, 0x9ab, 0x1234 };

static void test_constraints(void **state)
{
	struct fx_case *tc = *state;
	struct fx *f = tc->f;
	size_t buf_len = 2 * MIB;
	unsigned char *buf = fx_aligned(64 * KIB, buf_len);
	struct live *l = calloc(64, sizeof(*l));
	unsigned int n = 0, maps = 0;

	assert_non_null(buf);
	fill_pattern(buf, buf_len, 1);
	for (size_t ti = 0; ti < sizeof(tag_variants) / sizeof(tag_variants[0]); ti++) {
		const struct sluice_dma_tag *t = &tag_variants[ti];
		size_t max = sluice_dma_max_mapping_size(&f->dl, t);

		assert_true(max > 0);
		for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
			for (size_t oi = 0; oi < sizeof(offsets) / sizeof(offsets[0]); oi++) {
				unsigned char *orig = buf + (si * 64 * KIB) % MIB + offsets[oi];
				size_t len = sizes[si];
				uint64_t dma;
				int err = sluice_dma_map(&f->dl, t, orig, len, SLUICE_DMA_TO_DEVICE,
							 &dma);
				struct live x;

				/* The advertised maximum is exactly the limit. */
				assert_int_equal(err == SLUICE_DMA_ERR_RANGE, len > max);
				if (err == SLUICE_DMA_ERR_RANGE)
					continue;
				if (err == SLUICE_DMA_ERR_NOMEM && n) {
					/* Crowded: make room and retry once. */
					while (n)
						n--, sluice_dma_unmap(&f->dl, l[n].dma, l[n].len,
								      SLUICE_DMA_TO_DEVICE);
					err = sluice_dma_map(&f->dl, t, orig, len,
							     SLUICE_DMA_TO_DEVICE, &dma);
				}
				if (err)
					fail_msg("tag %zu len %zu orig %p: error %d (max %zu)", ti,
						 len, (void *)orig, err, max);
				maps++;
				check_placement(t, orig, len, dma, &x);
				check_no_overlap(l, n, &x);
				assert_true(sluice_dma_addr_is_shared(&f->dl, dma, len));
				assert_true(mock_port_is_shared(&f->mp, fx_dev(dma), len));
				assert_memory_equal(fx_dev(dma), orig, len);
				l[n++] = x;
				if (n == 64) {
					/* Unmap every other one: leaves holes to search around. */
					unsigned int k = 0;

					for (unsigned int i = 0; i < n; i++) {
						if (i & 1)
							sluice_dma_unmap(&f->dl, l[i].dma, l[i].len,
									 SLUICE_DMA_TO_DEVICE);
						else
							l[k++] = l[i];
					}
					n = k;
				}
			}
		}
		assert_int_equal(sluice_dma_layer_check(&f->dl), 0);
	}
	while (n)
		n--, sluice_dma_unmap(&f->dl, l[n].dma, l[n].len, SLUICE_DMA_TO_DEVICE);
	assert_int_equal(used_of(f, -1), 0);
	assert_true(maps > 300);
	free(l);
	free(buf);
}

/* ------------------------------------------------------------------ fill, drain, fragmentation */

static unsigned int fill(struct fx *f, unsigned char *buf, size_t len, uint64_t *dma,
			 unsigned int max)
{
	const struct sluice_dma_tag t = SLUICE_DMA_TAG_DEFAULT;
	unsigned int n = 0;
	int err = 0;

	while (n < max &&
	       !(err = sluice_dma_map(&f->dl, &t, buf, len, SLUICE_DMA_TO_DEVICE, &dma[n])))
		n++;
	assert_true(n == max || err == SLUICE_DMA_ERR_NOMEM);
	return n;
}

static void test_fill_drain(void **state)
{
	struct fx_case *tc = *state;
	struct fx *f = reopen(tc, 2, 1 * MIB);
	unsigned char *buf = calloc(1, 256 * KIB);
	uint64_t *dma = calloc(1024, sizeof(*dma));
	struct sluice_dma_bounce_stats st;
	unsigned int n;

	n = fill(f, buf, 2048, dma, 1024);
	assert_int_equal(n, 512);
	assert_int_equal(sluice_dma_bounce_stats_get(&f->dl, 0, &st), 0);
	assert_int_equal(st.nslabs, 512);
	assert_int_equal(st.used, 512);
	assert_int_equal(st.used_hiwater, 512);
	assert_true(st.full_events >= 1);
	assert_int_equal(__atomic_load_n(&f->dl.nomem_events, __ATOMIC_SEQ_CST), 1);
	assert_int_equal(sluice_dma_layer_check(&f->dl), 0);
	/* Full is a runtime condition: it repeats without harm. */
	assert_int_equal(fill(f, buf, 100, dma + n, 1), 0);
	for (unsigned int i = 0; i < n; i++)
		sluice_dma_unmap(&f->dl, dma[i], 2048, SLUICE_DMA_TO_DEVICE);
	assert_int_equal(used_of(f, 0), 0);
	assert_int_equal(sluice_dma_layer_check(&f->dl), 0);

	n = fill(f, buf, 4096, dma, 1024);
	assert_int_equal(n, 256);
	for (unsigned int i = 0; i < n; i++)
		sluice_dma_unmap(&f->dl, dma[i], 4096, SLUICE_DMA_TO_DEVICE);

	n = fill(f, buf, 256 * KIB, dma, 1024);
	assert_int_equal(n, 4);
	for (unsigned int i = 0; i < n; i++)
		sluice_dma_unmap(&f->dl, dma[i], 256 * KIB, SLUICE_DMA_TO_DEVICE);
	assert_int_equal(used_of(f, 0), 0);
	free(dma);
	free(buf);
}

static void test_fragmentation(void **state)
{
	struct fx_case *tc = *state;
	struct fx *f = reopen(tc, 2, 1 * MIB);
	const struct sluice_dma_tag t = SLUICE_DMA_TAG_DEFAULT;
	unsigned char *buf = calloc(1, 8192);
	uint64_t *dma = calloc(1024, sizeof(*dma)), d;
	unsigned int n, k = 0;

	n = fill(f, buf, 2048, dma, 1024);
	assert_int_equal(n, 512);
	/* Free every slot with an even index: no two free slots touch. */
	for (unsigned int i = 0; i < n; i++) {
		if (fx_slot(f, 0, dma[i]) % 2 == 0)
			sluice_dma_unmap(&f->dl, dma[i], 2048, SLUICE_DMA_TO_DEVICE);
		else
			dma[k++] = dma[i];
	}
	assert_int_equal(k, 256);
	assert_int_equal(used_of(f, 0), 256);
	assert_int_equal(sluice_dma_layer_check(&f->dl), 0);
	assert_int_equal(sluice_dma_map(&f->dl, &t, buf, 2049, SLUICE_DMA_TO_DEVICE, &d),
			 SLUICE_DMA_ERR_NOMEM);
	assert_int_equal(sluice_dma_map(&f->dl, &t, buf, 4096, SLUICE_DMA_TO_DEVICE, &d),
			 SLUICE_DMA_ERR_NOMEM);
	assert_int_equal(sluice_dma_map(&f->dl, &t, buf, 4096, SLUICE_DMA_TO_DEVICE, &d),
			 SLUICE_DMA_ERR_NOMEM);
	/* Free slot 1: slots 0..1 form the only page; a failure must not be sticky. */
	for (unsigned int i = 0; i < k; i++) {
		if (fx_slot(f, 0, dma[i]) == 1) {
			sluice_dma_unmap(&f->dl, dma[i], 2048, SLUICE_DMA_TO_DEVICE);
			dma[i] = dma[--k];
			break;
		}
	}
	assert_int_equal(k, 255);
	assert_int_equal(sluice_dma_map(&f->dl, &t, buf, 4096, SLUICE_DMA_TO_DEVICE, &d), 0);
	assert_int_equal(fx_slot(f, 0, d), 0);
	sluice_dma_unmap(&f->dl, d, 4096, SLUICE_DMA_TO_DEVICE);
	assert_int_equal(sluice_dma_map(&f->dl, &t, buf, 2049, SLUICE_DMA_TO_DEVICE, &d), 0);
	assert_int_equal(fx_slot(f, 0, d), 0);
	dma[k++] = d;
	/* Both slots 0..1 now belong to one 2049-byte mapping: unmap it by that length. */
	n = fill(f, buf, 1000, dma + k, 1024 - k);
	assert_int_equal(n, 255);
	for (unsigned int i = 0; i < k; i++)
		sluice_dma_unmap(&f->dl, dma[i], fx_slot(f, 0, dma[i]) == 0 ? 2049 : 2048,
				 SLUICE_DMA_TO_DEVICE);
	for (unsigned int i = k; i < k + n; i++)
		sluice_dma_unmap(&f->dl, dma[i], 1000, SLUICE_DMA_TO_DEVICE);
	assert_int_equal(used_of(f, 0), 0);
	free(dma);
	free(buf);
}

/* ------------------------------------------------------------------ growth */

static void test_growth(void **state)
{
	struct fx_case *tc = *state;
	struct fx *f = reopen(tc, 1, 256 * KIB);
	const struct sluice_dma_tag t = SLUICE_DMA_TAG_DEFAULT;
	unsigned char *buf = calloc(1, 4096);
	uint64_t *dma = calloc(512, sizeof(*dma)), d;
	struct sluice_dma_bounce_stats st;
	size_t shared;
	unsigned int n, m;

	n = fill(f, buf, 2048, dma, 512);
	assert_int_equal(n, 128);
	assert_int_equal(sluice_dma_map(&f->dl, &t, buf, 2048, SLUICE_DMA_TO_DEVICE, &d),
			 SLUICE_DMA_ERR_NOMEM);

	/* A failed conversion adds nothing and leaves nothing shared. */
	shared = mock_port_shared_bytes(&f->mp);
	f->mp.fail_to_shared_after = 0;
	assert_int_equal(fx_add_pool(f, 256 * KIB), SLUICE_DMA_ERR_IO);
	f->mp.fail_to_shared_after = -1;
	assert_int_equal(sluice_dma_bounce_pool_count(&f->dl), 1);
	assert_int_equal(mock_port_shared_bytes(&f->mp), shared);

	/* Grow while mappings are live: new requests land in the new pool. */
	assert_int_equal(fx_add_pool(f, 512 * KIB), 0);
	assert_int_equal(sluice_dma_bounce_pool_count(&f->dl), 2);
	assert_true(mock_port_is_shared(&f->mp, f->mem[1], 512 * KIB));
	m = fill(f, buf, 2048, dma + n, 512 - n);
	assert_int_equal(m, 256);
	for (unsigned int i = n; i < n + m; i++)
		assert_true(fx_slot(f, 1, dma[i]) >= 0);
	assert_int_equal(sluice_dma_bounce_stats_get(&f->dl, 0, &st), 0);
	assert_int_equal(st.nslabs, 128);
	assert_int_equal(st.used, 128);
	assert_int_equal(st.conversions, 1);
	assert_int_equal(sluice_dma_bounce_stats_get(&f->dl, 1, &st), 0);
	assert_int_equal(st.nslabs, 256);
	assert_int_equal(st.used, 256);
	assert_int_equal(sluice_dma_bounce_stats_get(&f->dl, -1, &st), 0);
	assert_int_equal(st.nslabs, 384);
	assert_int_equal(st.used, 384);
	assert_int_equal(sluice_dma_bounce_stats_get(&f->dl, 2, &st), SLUICE_DMA_ERR_NOENT);

	/* Space freed in the first pool is used first again. */
	sluice_dma_unmap(&f->dl, dma[5], 2048, SLUICE_DMA_TO_DEVICE);
	assert_int_equal(sluice_dma_map(&f->dl, &t, buf, 2048, SLUICE_DMA_TO_DEVICE, &dma[5]), 0);
	assert_true(fx_slot(f, 0, dma[5]) >= 0);
	for (unsigned int i = 0; i < n + m; i++)
		sluice_dma_unmap(&f->dl, dma[i], 2048, SLUICE_DMA_TO_DEVICE);
	assert_int_equal(used_of(f, -1), 0);
	free(dma);
	free(buf);
}

/* ------------------------------------------------------------------ large mappings */

static void test_large(void **state)
{
	struct fx_case *tc = *state;
	struct fx *f = reopen(tc, 1, 4 * MIB);
	const struct sluice_dma_tag t = SLUICE_DMA_TAG_DEFAULT;
	unsigned char *buf = malloc(4 * MIB);
	uint64_t d, d2;

	fill_pattern(buf, 4 * MIB, 7);
	assert_int_equal(sluice_dma_map(&f->dl, &t, buf, 256 * KIB, SLUICE_DMA_BIDIRECTIONAL, &d),
			 0);
	assert_memory_equal(fx_dev(d), buf, 256 * KIB);
	sluice_dma_unmap(&f->dl, d, 256 * KIB, SLUICE_DMA_BIDIRECTIONAL);
	if (f->policy == SLUICE_DMA_POLICY_SLUICE) {
		/* Beyond swiotlb's 128-slot segments. */
		assert_true(sluice_dma_max_mapping_size(&f->dl, &t) >= 4 * MIB);
		assert_int_equal(sluice_dma_map(&f->dl, &t, buf, 1 * MIB, SLUICE_DMA_TO_DEVICE, &d),
				 0);
		assert_memory_equal(fx_dev(d), buf, 1 * MIB);
		/* More than is left: a runtime NOMEM, not a range error. */
		assert_int_equal(sluice_dma_map(&f->dl, &t, buf, 3 * MIB + 4096,
						SLUICE_DMA_TO_DEVICE, &d2),
				 SLUICE_DMA_ERR_NOMEM);
		assert_int_equal(
			sluice_dma_map(&f->dl, &t, buf, 2 * MIB, SLUICE_DMA_TO_DEVICE, &d2), 0);
		assert_memory_equal(fx_dev(d2), buf, 2 * MIB);
		assert_int_equal(sluice_dma_layer_check(&f->dl), 0);
		sluice_dma_unmap(&f->dl, d, 1 * MIB, SLUICE_DMA_TO_DEVICE);
		sluice_dma_unmap(&f->dl, d2, 2 * MIB, SLUICE_DMA_TO_DEVICE);
	} else {
		assert_int_equal(sluice_dma_max_mapping_size(&f->dl, &t), 256 * KIB);
		assert_int_equal(sluice_dma_map(&f->dl, &t, buf, 256 * KIB + 1,
						SLUICE_DMA_TO_DEVICE, &d),
				 SLUICE_DMA_ERR_RANGE);
	}
	free(buf);
}

/* ------------------------------------------------------------------ threads */

#define NTHREADS 4

struct thread_arg {
	struct fx *f;
	unsigned int cpu;
	atomic_uint *errors;
	unsigned int nomem;
};

static void *thread_main(void *p)
{
	static const size_t tsizes[] = { 512, 2048, 4096, 4096, 8192, 16384, 65536 };
	struct thread_arg *a = p;
	struct sluice_dma_tag t = SLUICE_DMA_TAG_DEFAULT;
	unsigned int seed = 77 + a->cpu, n = 0;
	struct live l[16];
	bool busy[16] = { false };
	unsigned char *buf = malloc(16 * 65536);

	mock_port_set_cpu(a->cpu);
	for (int it = 0; it < 20000; it++) {
		unsigned int k = (unsigned int)rand_r(&seed) % 16;

		if (!busy[k]) {
			size_t len = tsizes[rand_r(&seed) % 7];
			enum sluice_dma_dir dir = rand_r(&seed) % 2 ? SLUICE_DMA_TO_DEVICE :
								      SLUICE_DMA_BIDIRECTIONAL;
			unsigned char *orig = buf + k * 65536;
			uint64_t d;
			int err;

			fill_pattern(orig, len, (unsigned int)it);
			err = sluice_dma_map(&a->f->dl, &t, orig, len, dir, &d);
			if (err == SLUICE_DMA_ERR_NOMEM) {
				a->nomem++;
				continue;
			}
			if (err || memcmp(fx_dev(d), orig, len))
				atomic_fetch_add(a->errors, 1);
			if (err)
				continue;
			l[k] = (struct live){ .dma = d, .orig = orig, .len = len, .dir = dir };
			busy[k] = true;
			n++;
		} else {
			struct live *x = &l[k];

			if (x->dir == SLUICE_DMA_BIDIRECTIONAL)
				memset(fx_dev(x->dma), 0x5a, x->len);
			/* Sometimes release on another CPU than the one that mapped. */
			if (rand_r(&seed) % 8 == 0)
				mock_port_set_cpu((a->cpu + 1) % NTHREADS);
			sluice_dma_unmap(&a->f->dl, x->dma, x->len, x->dir);
			mock_port_set_cpu(a->cpu);
			if (x->dir == SLUICE_DMA_BIDIRECTIONAL &&
			    (x->orig[0] != 0x5a || x->orig[x->len - 1] != 0x5a))
				atomic_fetch_add(a->errors, 1);
			busy[k] = false;
			n--;
		}
	}
	for (unsigned int k = 0; k < 16; k++)
		if (busy[k])
			sluice_dma_unmap(&a->f->dl, l[k].dma, l[k].len, l[k].dir);
	free(buf);
	return NULL;
}

static void test_threads(void **state)
{
	struct fx_case *tc = *state;
	struct fx *f = reopen(tc, NTHREADS, 4 * MIB);
	pthread_t th[NTHREADS];
	struct thread_arg args[NTHREADS];
	atomic_uint errors = 0;
	struct sluice_dma_bounce_stats st;

	for (unsigned int i = 0; i < NTHREADS; i++) {
		args[i] = (struct thread_arg){ .f = f, .cpu = i, .errors = &errors };
		assert_int_equal(pthread_create(&th[i], NULL, thread_main, &args[i]), 0);
	}
	for (unsigned int i = 0; i < NTHREADS; i++)
		pthread_join(th[i], NULL);
	assert_int_equal(atomic_load(&errors), 0);
	assert_int_equal(sluice_dma_layer_check(&f->dl), 0);
	assert_int_equal(sluice_dma_bounce_stats_get(&f->dl, -1, &st), 0);
	assert_int_equal(st.used, 0);
	assert_true(st.mappings > 1000);
}

/*
 * Growth while mappers run: two threads keep mapping 2 KiB buffers in a pool
 * that is soon full while a third adds pools. Mappers never wait for the
 * conversion; once a pool is published they use it.
 */
struct grow_arg {
	struct fx *f;
	unsigned int cpu;
	atomic_int *stop;
	atomic_ulong nomem;
	atomic_ulong in_new;
	unsigned long errors;
};

static void *grow_mapper(void *p)
{
	struct grow_arg *a = p;
	const struct sluice_dma_tag t = SLUICE_DMA_TAG_DEFAULT;
	unsigned char buf[2048];
	uint64_t held[160]; /* two mappers want more than the first pool's 128 slots */
	unsigned int n = 0;

	memset(buf, (int)a->cpu + 1, sizeof(buf));
	mock_port_set_cpu(a->cpu);
	while (!atomic_load(a->stop) || n) {
		if (n < 160 && !atomic_load(a->stop)) {
			uint64_t d;
			int err = sluice_dma_map(&a->f->dl, &t, buf, sizeof(buf),
						 SLUICE_DMA_TO_DEVICE, &d);

			if (err == 0) {
				if (memcmp(fx_dev(d), buf, sizeof(buf)))
					a->errors++;
				if (!sluice_dma_addr_is_shared(&a->f->dl, d, sizeof(buf)))
					a->errors++;
				held[n++] = d;
				if (fx_slot(a->f, 0, d) < 0)
					atomic_fetch_add(&a->in_new, 1);
				continue;
			}
			if (err == SLUICE_DMA_ERR_NOMEM)
				atomic_fetch_add(&a->nomem, 1);
			else
				a->errors++;
		}
		if (n)
			sluice_dma_unmap(&a->f->dl, held[--n], sizeof(buf), SLUICE_DMA_TO_DEVICE);
	}
	return NULL;
}

static void test_grow_concurrent(void **state)
{
	struct fx_case *tc = *state;
	struct fx *f = reopen(tc, 2, 256 * KIB);
	struct grow_arg a[2];
	pthread_t th[2];
	atomic_int stop = 0;

	const struct timespec nap = { 0, 1000000 };
	unsigned int waited = 0;

	for (unsigned int i = 0; i < 2; i++) {
		a[i] = (struct grow_arg){ .f = f, .cpu = i, .stop = &stop };
		atomic_init(&a[i].nomem, 0);
		atomic_init(&a[i].in_new, 0);
		assert_int_equal(pthread_create(&th[i], NULL, grow_mapper, &a[i]), 0);
	}
	/* Grow only once the mappers have found the pool full. */
	while (atomic_load(&a[0].nomem) + atomic_load(&a[1].nomem) == 0 && waited++ < 20000)
		nanosleep(&nap, NULL);
	for (unsigned int i = 0; i < 3; i++)
		assert_int_equal(fx_add_pool(f, 256 * KIB), 0);
	/* Then wait (however slow the machine) until they have used the new pools. */
	waited = 0;
	while (atomic_load(&a[0].in_new) + atomic_load(&a[1].in_new) < 64 && waited++ < 20000)
		nanosleep(&nap, NULL);
	atomic_store(&stop, 1);
	for (unsigned int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	assert_int_equal(a[0].errors + a[1].errors, 0);
	assert_true(atomic_load(&a[0].nomem) + atomic_load(&a[1].nomem) > 0);
	assert_true(atomic_load(&a[0].in_new) + atomic_load(&a[1].in_new) >= 64);
	assert_int_equal(sluice_dma_bounce_pool_count(&f->dl), 4);
	assert_int_equal(used_of(f, -1), 0);
}

/* ------------------------------------------------------------------ random sequence vs model */

static void test_random_model(void **state)
{
	struct fx_case *tc = *state;
	struct fx *f = reopen(tc, 2, 1 * MIB);
	static const size_t rsizes[] = { 1, 300, 2048, 2100, 4096, 6000, 16384, 40000, 100000 };
	unsigned int seed = 20261202u + (unsigned int)tc->policy;
	unsigned char *buf = fx_aligned(64 * KIB, 4 * MIB);
	struct live *l = calloc(256, sizeof(*l));
	unsigned int n = 0, nomem = 0;
	uint64_t model_used = 0;

	fill_pattern(buf, 4 * MIB, 3);
	for (int step = 0; step < 6000; step++) {
		if (n < 256 && (n == 0 || rand_r(&seed) % 100 < 55)) {
			const struct sluice_dma_tag *t = &tag_variants[rand_r(&seed) % 7];
			size_t len = rsizes[rand_r(&seed) % 9];
			unsigned char *orig =
				buf + (rand_r(&seed) % 3800) * KIB + rand_r(&seed) % 4096;
			enum sluice_dma_dir dir = (enum sluice_dma_dir)(1 + rand_r(&seed) % 3);
			uint64_t d;
			struct live x;
			int err = sluice_dma_map(&f->dl, t, orig, len, dir, &d);

			if (err == SLUICE_DMA_ERR_NOMEM) {
				nomem++;
				continue;
			}
			assert_int_equal(err == SLUICE_DMA_ERR_RANGE,
					 len > sluice_dma_max_mapping_size(&f->dl, t));
			if (err == SLUICE_DMA_ERR_RANGE)
				continue;
			assert_int_equal(err, 0);
			check_placement(t, orig, len, d, &x);
			check_no_overlap(l, n, &x);
			x.dir = dir;
			assert_memory_equal(fx_dev(d), orig, len);
			model_used += (x.end - x.head) / SLUICE_DMA_IO_TLB_SIZE;
			l[n++] = x;
		} else {
			unsigned int i = (unsigned int)rand_r(&seed) % n;

			sluice_dma_unmap(&f->dl, l[i].dma, l[i].len, l[i].dir);
			model_used -= (l[i].end - l[i].head) / SLUICE_DMA_IO_TLB_SIZE;
			l[i] = l[--n];
		}
		assert_int_equal(used_of(f, 0), model_used);
		if (step % 200 == 0)
			assert_int_equal(sluice_dma_layer_check(&f->dl), 0);
	}
	while (n) {
		n--;
		sluice_dma_unmap(&f->dl, l[n].dma, l[n].len, l[n].dir);
	}
	assert_int_equal(used_of(f, 0), 0);
	free(l);
	free(buf);
}

/* ------------------------------------------------------------------ linux faithfulness */

struct replay_step {
	int op; /* 0 map, 1 unmap step #arg */
	unsigned int cpu;
	size_t len;
	size_t orig_off; /* from a 64 KiB aligned buffer */
	uint64_t min_align, alloc_align, boundary;
	long want_slot; /* slot of the returned address; -1: SLUICE_DMA_ERR_NOMEM */
	int unmap_of;
};

#define MAP(len_, off_, ma_, aa_, b_, want_)                         \
	{                                                            \
		0, 0, (len_), (off_), (ma_), (aa_), (b_), (want_), 0 \
	}
#define MAPC(cpu_, len_, want_)                                             \
	{                                                                   \
		0, (cpu_), (len_), 0, 0, 0, SLUICE_DMA_NO_LIMIT, (want_), 0 \
	}
#define UNMAP(i_)                            \
	{                                    \
		1, 0, 0, 0, 0, 0, 0, 0, (i_) \
	}

static void replay(struct fx *f, const struct replay_step *steps, unsigned int n)
{
	unsigned char *buf = fx_aligned(64 * KIB, 1 * MIB);
	uint64_t dma[64];
	size_t lens[64];

	assert_true(n <= 64);
	memset(buf, 1, 1 * MIB);
	for (unsigned int i = 0; i < n; i++) {
		const struct replay_step *s = &steps[i];

		if (s->op == 1) {
			sluice_dma_unmap(&f->dl, dma[s->unmap_of], lens[s->unmap_of],
					 SLUICE_DMA_TO_DEVICE);
			dma[s->unmap_of] = 0;
			continue;
		}
		struct sluice_dma_tag t = { SLUICE_DMA_NO_LIMIT, s->min_align, s->alloc_align,
					    s->boundary ? s->boundary : SLUICE_DMA_NO_LIMIT, 0 };
		int err;

		mock_port_set_cpu(s->cpu);
		err = sluice_dma_map(&f->dl, &t, buf + s->orig_off, s->len, SLUICE_DMA_TO_DEVICE,
				     &dma[i]);
		mock_port_set_cpu(0);
		lens[i] = s->len;
		if (s->want_slot < 0) {
			assert_int_equal(err, SLUICE_DMA_ERR_NOMEM);
			dma[i] = 0;
			continue;
		}
		if (err)
			fail_msg("replay step %u: error %d", i, err);
		if (fx_slot(f, 0, dma[i]) != s->want_slot)
			fail_msg("replay step %u: slot %ld, upstream picks %ld", i,
				 fx_slot(f, 0, dma[i]), s->want_slot);
		assert_int_equal(dma[i] & s->min_align, s->orig_off & s->min_align);
	}
	assert_int_equal(sluice_dma_layer_check(&f->dl), 0);
	for (unsigned int i = 0; i < n; i++)
		if (steps[i].op == 0 && dma[i])
			sluice_dma_unmap(&f->dl, dma[i], lens[i], SLUICE_DMA_TO_DEVICE);
	free(buf);
}

/*
 * One area of 512 slots (1 MiB, 1 CPU). Expected slots computed by hand from
 * upstream swiotlb_search_pool_area() / swiotlb_release_slots():
 *  0: 1 slot, stride 1, index 0                          -> 0, index 1
 *  1: 4 KiB: page rule, stride 2; 1 unaligned, 2 fits    -> 2, index 4
 *     (renumbers slot 1: list 127 -> 1)
 *  2: 3000 B: 2 slots, no page rule, stride 1            -> 4, index 6
 *  3: unmap #0: list[0] = list[1] + 1 = 2
 *  4: 4 KiB at index 6 (next fit, not the free 0..1)     -> 6, index 8
 *  5: 256 KiB: stride 2 from 8, list < 128 until 128     -> 128, index 256
 *  6: 256 KiB                                            -> 256, index 384
 *  7: 256 KiB                                            -> 384, index wraps to 0
 *  8: 2 KiB at index 0: list[0] = 2                       -> 0, index 1
 *  9: 4 KiB: 1 unaligned, 2,4,6 taken, 8 fits            -> 8, index 10
 * 10: min_align 2047, orig +0x123, 100 B: iotlb mask 0   -> 10 (+0x123)
 * 11: min_align 4095, orig +0x010: bit 11 must be 0, 11 has it set, stride 2
 *                                                        -> 12
 * 12: min_align 4095, orig +0x820, 4000 B = 2 slots; 13 has bit 11 -> 13
 * 13: alloc_align 16 KiB, 4 KiB: 8 slots, 15 unaligned, 16 fits -> 16, index 24
 * 14: boundary 64 KiB (32 slots), 20 KiB = 10 slots, page stride 2:
 *     24..30 would cross slot 32, 32 fits                -> 32, index 42
 * 15: unmap #5 (128..255); 16: unmap #13 (16..23)
 * 17: 16 KiB (8 slots) at index 42: list[42] = 86        -> 42, index 50
 * 18: 200 KiB (100 slots): 50.. list < 100; segment 1 (128) list 128 -> 128
 * 19: 2 slots at index 228: 228 fits                     -> 228, index 230
 * 20: 128 slots, but the area has 123 free (used 389): -> NOMEM at once
 */
static void test_linux_replay(void **state)
{
	static const struct replay_step steps[] = {
		MAP(2048, 0, 0, 0, 0, 0),
		MAP(4096, 0, 0, 0, 0, 2),
		MAP(3000, 0, 0, 0, 0, 4),
		UNMAP(0),
		MAP(4096, 0, 0, 0, 0, 6),
		MAP(262144, 0, 0, 0, 0, 128),
		MAP(262144, 0, 0, 0, 0, 256),
		MAP(262144, 0, 0, 0, 0, 384),
		MAP(2048, 0, 0, 0, 0, 0),
		MAP(4096, 0, 0, 0, 0, 8),
		MAP(100, 0x123, 2047, 0, 0, 10),
		MAP(1000, 0x010, 4095, 0, 0, 12),
		MAP(4000, 0x820, 4095, 0, 0, 13),
		MAP(4096, 0, 0, 0x3fff, 0, 16),
		MAP(20480, 0, 0, 0, 0xffff, 32),
		UNMAP(5),
		UNMAP(13),
		MAP(16384, 0, 0, 0, 0, 42),
		MAP(204800, 0, 0, 0, 0, 128),
		MAP(4096, 0, 0, 0, 0, 228),
		MAP(262144, 0, 0, 0, 0, -1),
	};
	struct fx_case *tc = *state;
	struct fx *f = reopen(tc, 1, 1 * MIB);

	replay(f, steps, sizeof(steps) / sizeof(steps[0]));
}

/*
 * Areas: 4 CPUs on 1024 slots give 4 areas of 256; a CPU starts in area
 * cpu & 3 and moves on when its area cannot serve.
 */
static void test_linux_replay_areas(void **state)
{
	static const struct replay_step steps[] = {
		MAPC(2, 2048, 512),
		MAPC(3, 2048, 768),
		MAPC(1, 262144, 256),
		MAPC(1, 262144, 384),
		/* Area 1 full (used 256): area 2, index 1; stride 2 walks to 640. */
		MAPC(1, 262144, 640),
		MAPC(0, 4096, 0),
		MAPC(2, 4096, 514),
	};
	struct fx_case *tc = *state;
	struct fx *f = reopen(tc, 4, 2 * MIB);

	replay(f, steps, sizeof(steps) / sizeof(steps[0]));
}

/*
 * limit_nareas(): 8 CPUs but only 512 slots give 4 areas (cpu 5 -> area 1);
 * 4 CPUs on 384 slots give 3 areas, searched from cpu & 2 as upstream masks.
 */
static void test_linux_nareas(void **state)
{
	static const struct replay_step eight[] = {
		MAPC(5, 2048, 128),
		MAPC(7, 2048, 384),
		MAPC(4, 2048, 0),
	};
	static const struct replay_step three[] = {
		MAPC(3, 2048, 256),
		MAPC(1, 2048, 0),
		MAPC(2, 2048, 257),
	};
	struct fx_case *tc = *state;
	struct fx *f = reopen(tc, 8, 1 * MIB);
	struct sluice_dma_bounce_stats st;

	replay(f, eight, 3);
	f = reopen(tc, 4, 768 * KIB);
	assert_int_equal(sluice_dma_bounce_stats_get(&f->dl, 0, &st), 0);
	assert_int_equal(st.nslabs, 384);
	replay(f, three, 3);
}

/*
 * sluice_dma_layer_set_max_areas(1): the single-lock pool of Linux before 6.3. With 4
 * CPUs and 512 slots, Linux gives 4 areas (cpu 3 starts at slot 384); limited to
 * one, every CPU allocates from slot 0 on.
 */
static void test_linux_one_area(void **state)
{
	static const struct replay_step one_area[] = {
		MAPC(3, 2048, 0),
		MAPC(1, 2048, 1),
		MAPC(2, 2048, 2),
	};
	static const struct replay_step two_areas[] = {
		MAPC(3, 2048, 256),
		MAPC(2, 2048, 0),
	};
	struct fx_case *tc = *state;
	struct fx *f = reopen(tc, 4, 0);

	assert_int_equal(sluice_dma_layer_set_max_areas(&f->dl, 1), 0);
	assert_int_equal(fx_add_pool(f, 1 * MIB), 0);
	replay(f, one_area, 3);
	f = reopen(tc, 4, 0);
	assert_int_equal(sluice_dma_layer_set_max_areas(&f->dl, 2), 0);
	assert_int_equal(fx_add_pool(f, 1 * MIB), 0);
	replay(f, two_areas, 2);
}

/* Every policy works on one area shared by all CPUs; the limit is checked. */
static void test_max_areas(void **state)
{
	struct fx_case *tc = *state;
	struct fx *f = reopen(tc, 4, 0);
	unsigned char *buf = fx_aligned(4096, 4 * 4096);
	uint64_t dma[4];

	assert_int_equal(sluice_dma_layer_set_max_areas(NULL, 1), SLUICE_DMA_ERR_INVAL);
	assert_int_equal(sluice_dma_layer_set_max_areas(&f->dl, 3), SLUICE_DMA_ERR_INVAL);
	assert_int_equal(sluice_dma_layer_set_max_areas(&f->dl, 1), 0);
	assert_int_equal(fx_add_pool(f, 1 * MIB), 0);
	/* Too late once a pool exists: it keeps the areas it was carved with. */
	assert_int_equal(sluice_dma_layer_set_max_areas(&f->dl, 4), SLUICE_DMA_ERR_INVAL);
	memset(buf, 7, 4 * 4096);
	for (unsigned int cpu = 0; cpu < 4; cpu++) {
		mock_port_set_cpu(cpu);
		assert_int_equal(sluice_dma_map(&f->dl, &SLUICE_DMA_TAG_DEFAULT, buf + cpu * 4096,
						4096, SLUICE_DMA_TO_DEVICE, &dma[cpu]),
				 0);
	}
	for (unsigned int cpu = 0; cpu < 4; cpu++) {
		mock_port_set_cpu(cpu);
		sluice_dma_unmap(&f->dl, dma[cpu], 4096, SLUICE_DMA_TO_DEVICE);
	}
	mock_port_set_cpu(0);
	assert_int_equal(sluice_dma_layer_check(&f->dl), 0);
	free(buf);
}

/* ------------------------------------------------------------------ requests */

/*
 * dma_bounce_req_init() builds a plain tag's request inline and hands every
 * other to sluice_dma_priv_bounce_req_init(): for every tag shape, length
 * class and buffer offset, both give the same code, request and offset. And
 * every request's alignment fits in its run (the size is rounded up to it),
 * which the `sluice` policy's magazine hit relies on instead of testing it.
 */
static void test_request_inline(void **state)
{
	const uint64_t lens[] = { 0,
				  1,
				  2047,
				  2048,
				  2049,
				  4095,
				  4096,
				  4097,
				  65536,
				  UINT32_MAX,
				  (uint64_t)UINT32_MAX + 1 };
	const uint64_t origs[] = { 0, 0x1234, 0x1800, 0xfffff000 };
	enum { NTAGS = 10 };
	struct sluice_dma_tag tags[NTAGS];

	(void)state;
	for (unsigned int t = 0; t < NTAGS; t++)
		tags[t] = (struct sluice_dma_tag)SLUICE_DMA_TAG_DEFAULT;
	tags[1].addr_limit = 0xffffffffull; /* still plain: the limit is no mask rule */
	tags[2].alloc_align_mask = 4095;
	tags[3].min_align_mask = 0xfff;
	tags[4].boundary_mask = 0xffff;
	tags[5].min_align_mask = 0x7ff;
	tags[6].alloc_align_mask = 1023;
	tags[7].alloc_align_mask = 8191;
	tags[8].alloc_align_mask = 65535;
	tags[8].min_align_mask = 0x3fff;
	tags[9].alloc_align_mask = 2047;
	tags[9].min_align_mask = 0xffff;
	for (unsigned int t = 0; t <= NTAGS; t++) {
		const struct sluice_dma_tag *tag = t < NTAGS ? &tags[t] : NULL;

		for (unsigned int l = 0; l < sizeof(lens) / sizeof(lens[0]); l++) {
			if (lens[l] > SIZE_MAX)
				continue;
			for (unsigned int o = 0; o < sizeof(origs) / sizeof(origs[0]); o++) {
				struct dma_bounce_req a, b;
				uint64_t oa = 7, ob = 7;
				int ra, rb;

				memset(&a, 0x5a, sizeof(a));
				memset(&b, 0x5a, sizeof(b));
				ra = dma_bounce_req_init(&a, tag, origs[o], (size_t)lens[l], &oa);
				rb = sluice_dma_priv_bounce_req_init(&b, tag, origs[o],
								     (size_t)lens[l], &ob);
				assert_int_equal(ra, rb);
				if (ra)
					continue;
				assert_memory_equal(&a, &b, sizeof(a));
				assert_int_equal(oa, ob);
				assert_true(a.alloc_align_mask <
					    (uint64_t)a.nslots << SLUICE_DMA_IO_TLB_SHIFT);
			}
		}
	}
}

/* ------------------------------------------------------------------ geometry and init errors */

static void test_pool_args(void **state)
{
	struct fx_case *tc = *state;
	struct fx *f = tc->f;
	unsigned char *mem = fx_aligned(4096, 512 * KIB);
	unsigned char meta[64];
	size_t need = sluice_dma_bounce_meta_size(tc->policy, 512 * KIB, f->dl.ncpus);

	assert_true(need > 0);
	assert_int_equal(sluice_dma_bounce_meta_size(tc->policy, 128 * KIB, 2), 0);
	assert_int_equal(sluice_dma_bounce_meta_size(SLUICE_DMA_POLICY_COUNT, 512 * KIB, 2), 0);
	assert_int_equal(sluice_dma_bounce_pool_add(&f->dl, tc->policy, mem + 2048, 256 * KIB, meta,
						    sizeof(meta)),
			 SLUICE_DMA_ERR_INVAL);
	assert_int_equal(sluice_dma_bounce_pool_add(&f->dl, tc->policy, mem, 256 * KIB + 2048, meta,
						    sizeof(meta)),
			 SLUICE_DMA_ERR_INVAL);
	assert_int_equal(sluice_dma_bounce_pool_add(&f->dl, tc->policy, mem, 128 * KIB, meta,
						    sizeof(meta)),
			 SLUICE_DMA_ERR_INVAL);
	assert_int_equal(sluice_dma_bounce_pool_add(&f->dl, tc->policy, mem, 512 * KIB, meta,
						    sizeof(meta)),
			 SLUICE_DMA_ERR_NOMEM);
	assert_int_equal(sluice_dma_bounce_pool_add(&f->dl, SLUICE_DMA_POLICY_COUNT, mem, 512 * KIB,
						    meta, sizeof(meta)),
			 SLUICE_DMA_ERR_INVAL);
	assert_int_equal(sluice_dma_bounce_pool_count(&f->dl), 1);
	assert_false(mock_port_is_shared(&f->mp, mem, 4096));
	{
		static const char *const names[SLUICE_DMA_POLICY_COUNT] = {
#define TB_POLICY_NAME_(upper, lower) [SLUICE_DMA_POLICY_##upper] = #lower,
			SLUICE_DMA_POLICIES(TB_POLICY_NAME_)
#undef TB_POLICY_NAME_
		};

		assert_string_equal(sluice_dma_bounce_policy_name(tc->policy), names[tc->policy]);
	}
	free(mem);
}

/* ------------------------------------------------------------------ main */

struct named_test {
	const char *name;
	CMUnitTestFunction fn;
	bool linux_only;
};

int main(void)
{
	static const struct named_test all[] = {
		{ "constraints", test_constraints, false },
		{ "fill_drain", test_fill_drain, false },
		{ "fragmentation", test_fragmentation, false },
		{ "growth", test_growth, false },
		{ "large", test_large, false },
		{ "threads", test_threads, false },
		{ "grow_concurrent", test_grow_concurrent, false },
		{ "random_model", test_random_model, false },
		{ "pool_args", test_pool_args, false },
		{ "request_inline", test_request_inline, false },
		{ "linux_replay", test_linux_replay, true },
		{ "linux_replay_areas", test_linux_replay_areas, true },
		{ "linux_nareas", test_linux_nareas, true },
		{ "linux_one_area", test_linux_one_area, true },
		{ "max_areas", test_max_areas, false },
	};
	enum { NALL = sizeof(all) / sizeof(all[0]) };
	static struct CMUnitTest tests[NALL * SLUICE_DMA_POLICY_COUNT];
	static char names[NALL * SLUICE_DMA_POLICY_COUNT][64];
	size_t n = 0;

	for (unsigned int p = 0; p < SLUICE_DMA_POLICY_COUNT; p++) {
		cases[p].policy = fx_policies[p];
		cases[p].scrub = SLUICE_DMA_SCRUB_COPY;
		cases[p].bytes = 4 * MIB;
	}
	for (unsigned int p = 0; p < SLUICE_DMA_POLICY_COUNT; p++) {
		for (unsigned int i = 0; i < NALL; i++) {
			if (all[i].linux_only && fx_policies[p] != SLUICE_DMA_POLICY_LINUX)
				continue;
			snprintf(names[n], sizeof(names[n]), "%s/%s", all[i].name,
				 sluice_dma_bounce_policy_name(fx_policies[p]));
			tests[n] = (struct CMUnitTest){ .name = names[n],
							.test_func = all[i].fn,
							.setup_func = fx_case_setup,
							.teardown_func = fx_case_teardown,
							.initial_state = &cases[p] };
			n++;
		}
	}
	return _cmocka_run_group_tests("bounce", tests, n, NULL, NULL);
}
