/* SPDX-License-Identifier: MIT */
/*
 * test_map_leaf.c - the common map and unmap's leaf paths (dma/map_fast.c)
 * give map.c's answers. Two layers with the same port (exclusive CPU indices,
 * the inline `rep movsb` copy and `rep stosb` zero, MOCK_PORT_INLINE) and the
 * same pool: one takes the leaf paths, the other is told not to (its @fast
 * cleared, white-box), so every call runs map.c's path there. One random
 * sequence of calls runs on both: maps of every length around the common
 * request's limits, in every direction (and invalid ones), with plain and
 * other tags and attributes; unmaps of every kind, right and wrong (length,
 * direction, an interior or foreign address, twice), after the "device" wrote
 * the slots; frees on the other CPU. After each call the two must agree: the
 * return code, the device address's offset in the pool, the bytes the device
 * sees, the bytes that came back into the buffer; and, every so often and at
 * the end, every counter of the statistics and the layer's self-check.
 *
 * A leaf path that answers differently, changes something a refusal must
 * not, copies a byte too many or too few, or skips a counter fails here. The
 * seed is fixed (SLUICE_TEST_SEED overrides it; a failure prints it).
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/fakes/test_bounce_fixture.h"

#ifndef SLUICE_DMA_INLINE_COPY_FN
#error "test_map_leaf is built with MOCK_PORT_INLINE on x86-64 (tests/dma/dma.mk)"
#endif

#define LEAF_STEPS 200000
#define LEAF_LIVE 48
#define LEAF_MAX 8192
#define LEAF_CPUS 4

/* One mapping live on both layers: its buffers, its offset in each pool. */
struct leaf_map {
	bool used;
	uint64_t off;
	size_t len;
	enum sluice_dma_dir dir;
	unsigned char *buf[2]; /* the mapped bytes: page-aligned + @shift in both */
	unsigned char *mem[2];
};

struct leaf_run {
	struct fx *f[2]; /* [0] takes the leaf paths, [1] map.c's */
	uint64_t base[2];
	struct leaf_map live[LEAF_LIVE];
	uint64_t rng;
	unsigned long step;
};

static uint32_t leaf_rand(struct leaf_run *r)
{
	/* xorshift64*: enough to pick calls, reproducible from the seed. */
	r->rng ^= r->rng >> 12;
	r->rng ^= r->rng << 25;
	r->rng ^= r->rng >> 27;
	return (uint32_t)((r->rng * 2685821657736338717ull) >> 32);
}

static void leaf_fail(const struct leaf_run *r, const char *what)
{
	fail_msg("step %lu: the two paths differ: %s", r->step, what);
}

/* The mock port's log, kept quiet: a refusal is counted (and compared), not printed. */
static void leaf_log(void *ctx, enum sluice_dma_log_level level, const char *msg)
{
	struct mock_port *mp = ctx;

	(void)level;
	mp->log_lines++;
	snprintf(mp->last_log, sizeof(mp->last_log), "%s", msg);
}

/* The two layers, identical but for @fast. */
static void leaf_setup(struct leaf_run *r, enum sluice_dma_scrub scrub)
{
	for (int i = 0; i < 2; i++) {
		/*
		 * Four CPUs, so four areas: 514 slots of pages make 4 x 128, and
		 * the pool has a tail past its last slot.
		 */
		r->f[i] = fx_new(SLUICE_DMA_POLICY_SLUICE, LEAF_CPUS, (1 << 20) + 4096, scrub);
		assert_non_null(r->f[i]);
		assert_true(fx_leaf(r->f[i]));
		r->base[i] = (uint64_t)(uintptr_t)r->f[i]->mem[0];
		r->f[i]->dl.ops.log = leaf_log;
	}
	r->f[1]->dl.fast = 0;
	mock_port_set_cpu(0);
}

static const size_t leaf_lens[] = {
	0, 1, 100, 2047, 2048, 2049, 3000, 4095, 4096, 4097, 6000, 8192
};

/* A tag: mostly the default; else one that leaves the common request. */
static struct sluice_dma_tag leaf_tag(struct leaf_run *r, bool *null_tag)
{
	struct sluice_dma_tag t = SLUICE_DMA_TAG_DEFAULT;
	uint32_t x = leaf_rand(r) % 100;

	*null_tag = x == 0;
	if (x >= 80 && x < 84)
		t.alloc_align_mask = 4095;
	else if (x >= 84 && x < 88)
		t.min_align_mask = 2047;
	else if (x >= 88 && x < 91)
		t.boundary_mask = (1u << 16) - 1;
	else if (x >= 91 && x < 95)
		t.max_mapping = 3000;
	else if (x >= 95 && x < 98)
		t.addr_limit = r->base[0] < r->base[1] ? r->base[0] : r->base[1]; /* below both */
	else if (x >= 98)
		t.addr_limit = 0;
	return t;
}

static void leaf_map_step(struct leaf_run *r)
{
	static const enum sluice_dma_dir dirs[] = { SLUICE_DMA_TO_DEVICE, SLUICE_DMA_FROM_DEVICE,
						    SLUICE_DMA_BIDIRECTIONAL };
	static const unsigned int attrs[] = { SLUICE_DMA_ATTR_UNMAP_WRITTEN,
					      SLUICE_DMA_ATTR_OWN_PAGES, 0 };
	struct leaf_map *m = NULL;
	struct sluice_dma_tag t;
	enum sluice_dma_dir dir;
	bool null_tag, with_attrs;
	unsigned int attr = 0;
	size_t len, got_len[2], shift;
	uint64_t a[2];
	int rc[2];

	for (int i = 0; i < LEAF_LIVE && !m; i++)
		if (!r->live[i].used)
			m = &r->live[i];
	if (!m)
		return;
	len = leaf_lens[leaf_rand(r) % (sizeof(leaf_lens) / sizeof(leaf_lens[0]))];
	dir = leaf_rand(r) % 50 ? dirs[leaf_rand(r) % 3] : (enum sluice_dma_dir)(leaf_rand(r) % 5);
	t = leaf_tag(r, &null_tag);
	with_attrs = leaf_rand(r) % 5 == 0;
	if (with_attrs)
		attr = attrs[leaf_rand(r) % 3];
	shift = leaf_rand(r) % 4 ? 0 : leaf_rand(r) % 4096;
	for (int i = 0; i < 2; i++) {
		/*
		 * The same bytes in both buffers, at the same offset in a page (a
		 * min_align tag keeps the buffer's low bits), and a NULL buffer now
		 * and then.
		 */
		bool null_buf = r->step % 97 == 0;

		m->mem[i] = fx_aligned(4096, 4096 + LEAF_MAX);
		assert_non_null(m->mem[i]);
		m->buf[i] = m->mem[i] + shift;
		for (size_t b = 0; b < LEAF_MAX; b++)
			m->buf[i][b] = (unsigned char)(r->step * 7 + b * 13);
		got_len[i] = len;
		if (with_attrs)
			rc[i] = sluice_dma_map_attrs(&r->f[i]->dl, null_tag ? NULL : &t,
						     null_buf ? NULL : m->buf[i], &got_len[i], dir,
						     attr, &a[i]);
		else
			rc[i] = sluice_dma_map(&r->f[i]->dl, null_tag ? NULL : &t,
					       null_buf ? NULL : m->buf[i], len, dir,
					       r->step % 89 == 0 ? NULL : &a[i]);
	}
	if (rc[0] != rc[1])
		leaf_fail(r, "a map's return code");
	if (rc[0]) {
		free(m->mem[0]);
		free(m->mem[1]);
		return;
	}
	if (a[0] - r->base[0] != a[1] - r->base[1] || got_len[0] != got_len[1])
		leaf_fail(r, "a map's device address or length");
	if (memcmp(fx_dev(a[0]), fx_dev(a[1]), got_len[0]))
		leaf_fail(r, "the bytes a new mapping shows the device");
	m->used = true;
	m->off = a[0] - r->base[0];
	m->len = got_len[0];
	m->dir = dir;
}

/* Unmap @m (or something near it) as one of the three unmaps, on both layers. */
static void leaf_unmap_step(struct leaf_run *r, struct leaf_map *m)
{
	uint32_t how = leaf_rand(r) % 100, kind = leaf_rand(r) % 3;
	size_t len = m->len, written = len;
	enum sluice_dma_dir dir = m->dir;
	uint64_t off = m->off;
	int rc[2];

	if (how < 5)
		len += 1;
	else if (how < 10)
		len -= 1;
	else if (how < 15)
		dir = dir == SLUICE_DMA_TO_DEVICE ? SLUICE_DMA_FROM_DEVICE : SLUICE_DMA_TO_DEVICE;
	else if (how < 18)
		off += 1;
	else if (how < 20)
		off += SLUICE_DMA_IO_TLB_SIZE;
	if (kind == 1)
		written = leaf_rand(r) % 8 ? leaf_rand(r) % (m->len + 1) : m->len + 1;
	for (int i = 0; i < 2; i++) {
		uint64_t a = r->base[i] + off;

		/* The device's answer, the same in both. */
		for (size_t b = 0; b < m->len; b++)
			fx_dev(r->base[i] + m->off)[b] = (unsigned char)(r->step * 5 + b * 3);
		if (kind == 0)
			rc[i] = sluice_dma_unmap(&r->f[i]->dl, a, len, dir);
		else if (kind == 1)
			rc[i] = sluice_dma_unmap_written(&r->f[i]->dl, a, len, dir, written);
		else
			rc[i] = sluice_dma_unmap_discard(&r->f[i]->dl, a, len, dir);
	}
	if (rc[0] != rc[1])
		leaf_fail(r, "an unmap's return code");
	if (memcmp(m->buf[0], m->buf[1], LEAF_MAX))
		leaf_fail(r, "the bytes an unmap brought back");
	if (rc[0])
		return;
	/* A moved address that is another live mapping's start ended that one. */
	for (int i = 0; i < LEAF_LIVE; i++)
		if (r->live[i].used && r->live[i].off == off)
			m = &r->live[i];
	free(m->mem[0]);
	free(m->mem[1]);
	m->used = false;
	/*
	 * Now and then a second unmap of the same handle, refused by both: as
	 * it was, or with the length a cleared record holds.
	 */
	if (leaf_rand(r) % 10 == 0) {
		size_t again = leaf_rand(r) % 2 ? len : 0;

		for (int i = 0; i < 2; i++)
			rc[i] = sluice_dma_unmap(&r->f[i]->dl, r->base[i] + off, again, dir);
		if (rc[0] != rc[1] || !rc[0])
			leaf_fail(r, "a second unmap");
	}
}

/* An address no mapping starts at: inside the pool, or past it. */
static void leaf_foreign_step(struct leaf_run *r)
{
	uint64_t off = leaf_rand(r) % 8 ? (1u << 20) + leaf_rand(r) % 4096 :
					  leaf_rand(r) % (2u << 20);
	int rc[2];

	for (int i = 0; i < 2; i++)
		rc[i] = sluice_dma_unmap(&r->f[i]->dl, r->base[i] + off, 4096,
					 SLUICE_DMA_TO_DEVICE);
	if (rc[0] != rc[1])
		leaf_fail(r, "a foreign unmap's return code");
}

static void leaf_stats_equal(struct leaf_run *r)
{
	struct sluice_dma_bounce_stats s[2];

	for (int i = 0; i < 2; i++)
		assert_int_equal(sluice_dma_bounce_stats_get(&r->f[i]->dl, -1, &s[i]), 0);
	/* A time, not a count. */
	s[0].conversion_cycles = s[1].conversion_cycles = 0;
	if (memcmp(&s[0], &s[1], sizeof(s[0])))
		leaf_fail(r, "the statistics");
	for (int i = 0; i < 2; i++)
		if (sluice_dma_layer_check(&r->f[i]->dl))
			leaf_fail(r, "the layer's self-check");
}

static void leaf_run(enum sluice_dma_scrub scrub)
{
	struct leaf_run r = { .rng = 0x5eed1eafull };
	const char *seed = getenv("SLUICE_TEST_SEED");
	unsigned long taken;

	if (seed)
		r.rng = strtoull(seed, NULL, 0) | 1;
	fprintf(stderr, "test_map_leaf: seed 0x%llx\n", (unsigned long long)r.rng);
	leaf_setup(&r, scrub);
	for (r.step = 1; r.step <= LEAF_STEPS; r.step++) {
		uint32_t x = leaf_rand(&r) % 100;

		if (x < 45)
			leaf_map_step(&r);
		else if (x < 90) {
			struct leaf_map *m = &r.live[leaf_rand(&r) % LEAF_LIVE];

			if (m->used)
				leaf_unmap_step(&r, m);
		} else if (x < 95)
			leaf_foreign_step(&r);
		else
			mock_port_set_cpu(leaf_rand(&r) % LEAF_CPUS);
		if (r.f[0]->mp.log_lines != r.f[1]->mp.log_lines)
			leaf_fail(&r, "the refusals logged");
		if (r.step % 4096 == 0)
			leaf_stats_equal(&r);
	}
	mock_port_set_cpu(0);
	for (int i = 0; i < LEAF_LIVE; i++)
		while (r.live[i].used) {
			struct leaf_map *m = &r.live[i];

			for (int k = 0; k < 2; k++)
				assert_int_equal(sluice_dma_unmap_discard(&r.f[k]->dl,
									  r.base[k] + m->off,
									  m->len, m->dir),
						 0);
			free(m->mem[0]);
			free(m->mem[1]);
			m->used = false;
		}
	leaf_stats_equal(&r);
	/*
	 * The sequence was mostly the common request, which is what the leaf
	 * layer (@fast set, fx_leaf()) serves itself: magazine hits, counted by
	 * both paths alike. test_stages.c shows the leaf path is the one taken.
	 */
	taken = 0;
	for (unsigned int c = 0; c < LEAF_CPUS; c++)
		taken += r.f[0]->dl.pools->pcpu[c].fast_maps;
	fprintf(stderr, "test_map_leaf: %lu maps from a magazine, %lu refusals\n", taken,
		(unsigned long)r.f[0]->mp.log_lines);
	assert_true(r.f[0]->dl.fast);
	assert_true(taken > LEAF_STEPS / 10);
	assert_int_equal(fx_free(r.f[0]), 0);
	assert_int_equal(fx_free(r.f[1]), 0);
}

/* A port's cache maintenance (a non-coherent device): nothing to do on the host. */
static void leaf_cache(void *ctx, void *vaddr, size_t len, enum sluice_dma_cache_op op)
{
	(void)ctx, (void)vaddr, (void)len, (void)op;
}

/*
 * The leaf paths are decided once, at init, and again by set_profile: on
 * only with every promise they rest on. Each one taken away turns them off.
 */
static void test_leaf_decided(void **state)
{
	struct fx *f = fx_new(SLUICE_DMA_POLICY_SLUICE, 2, 1 << 20, SLUICE_DMA_SCRUB_ZERO);
	struct sluice_dma_port_ops ops;

	(void)state;
	assert_non_null(f);
	assert_false(f->dl.fast); /* the fixture's port: locked, the library's copy */
	assert_true(fx_leaf(f));
	ops = f->dl.ops;
	f->dl.ops.flags &= ~SLUICE_DMA_PORT_CPU_EXCLUSIVE;
	fx_ops_changed(f);
	assert_false(f->dl.fast);
	f->dl.ops = ops;
	f->dl.ops.cpu_id = NULL;
	fx_ops_changed(f);
	assert_false(f->dl.fast);
	f->dl.ops = ops;
	f->dl.ops.copy = NULL;
	fx_ops_changed(f);
	assert_false(f->dl.fast);
	f->dl.ops = ops;
	f->dl.ops.zero = NULL;
	fx_ops_changed(f);
	assert_false(f->dl.fast);
	f->dl.ops = ops;
	f->dl.ops.cache_maint = leaf_cache;
	fx_ops_changed(f);
	assert_false(f->dl.fast);
	f->dl.ops = ops;
	fx_ops_changed(f);
	assert_true(f->dl.fast);
	/* Through the API: a profiled copy is timed, so map.c's path. */
	assert_int_equal(sluice_dma_layer_set_profile(&f->dl, true), 0);
	assert_false(f->dl.fast);
	assert_int_equal(sluice_dma_layer_set_profile(&f->dl, false), 0);
	assert_true(f->dl.fast);
	assert_int_equal(fx_free(f), 0);
}

static void test_leaf_zero(void **state)
{
	(void)state;
	leaf_run(SLUICE_DMA_SCRUB_ZERO);
}

static void test_leaf_copy(void **state)
{
	(void)state;
	leaf_run(SLUICE_DMA_SCRUB_COPY);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_leaf_decided),
		cmocka_unit_test(test_leaf_zero),
		cmocka_unit_test(test_leaf_copy),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
