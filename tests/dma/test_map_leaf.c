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
 * not, copies a byte too many or too few, or skips a counter fails here: after
 * each map the whole run of slots is compared, not only the mapped bytes;
 * every so often each CPU's counters, every slot record and every magazine.
 * Built with the stage markers (stage.h, -DSLUICE_DMA_STAGES): a map the leaf
 * path served never enters the tag stage, which is how the test knows the
 * leaf layer did take its own path, and how often.
 *
 * The seed is fixed (SLUICE_TEST_SEED overrides it; a failure prints it).
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

#include "bench/host/bench_stages.h"
#include "dma/bounce_sluice_mag.h"
#include "tests/fakes/test_bounce_fixture.h"

#if !defined(SLUICE_DMA_INLINE_COPY_FN) || !defined(SLUICE_DMA_STAGES)
#error "test_map_leaf is built with MOCK_PORT_INLINE and the stage markers (tests/dma/dma.mk)"
#endif

#define LEAF_STEPS 200000
#define LEAF_LIVE 128 /* at most; a run keeps max_live */
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
	unsigned int ncpus, max_live;
	uint64_t base[2];
	struct leaf_map live[LEAF_LIVE];
	uint64_t rng;
	unsigned long step;
	unsigned long leaf_maps; /* maps layer 0 served without the tag stage */
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

/*
 * The two layers, identical but for @fast, each with one pool of @bytes and
 * @r->ncpus CPUs (as many areas): a pool of 2 KiB slots in a number of pages
 * that the areas do not divide has a tail past its last slot.
 */
static void leaf_setup(struct leaf_run *r, enum sluice_dma_scrub scrub, size_t bytes)
{
	for (int i = 0; i < 2; i++) {
		r->f[i] = fx_new(SLUICE_DMA_POLICY_SLUICE, r->ncpus, bytes, scrub);
		assert_non_null(r->f[i]);
		assert_true(fx_leaf(r->f[i]));
		r->base[i] = (uint64_t)(uintptr_t)r->f[i]->mem[0];
		r->f[i]->dl.ops.log = leaf_log;
	}
	r->f[1]->dl.fast = 0;
	/* The pool adds' lines name times: only the refusals from here on compare. */
	r->f[0]->mp.last_log[0] = r->f[1]->mp.last_log[0] = 0;
	mock_port_set_cpu(0);
}

static const size_t leaf_lens[] = {
	0, 1, 100, 2047, 2048, 2049, 3000, 4095, 4096, 4097, 6000, 8192
};

/*
 * A tag for each layer: mostly the default; else one that leaves the common
 * request, or an address limit at the pool's last byte (still common) or one
 * below it (no pool the device reaches), each layer's own.
 */
static void leaf_tags(struct leaf_run *r, struct sluice_dma_tag t[2], bool *null_tag)
{
	uint32_t x = leaf_rand(r) % 100;

	*null_tag = x == 0;
	for (int i = 0; i < 2; i++) {
		uint64_t last = r->f[i]->dl.pools->dma_last;

		t[i] = SLUICE_DMA_TAG_DEFAULT;
		if (x >= 76 && x < 80)
			t[i].addr_limit = last;
		else if (x >= 80 && x < 84)
			t[i].alloc_align_mask = 4095;
		else if (x >= 84 && x < 88)
			t[i].min_align_mask = 2047;
		else if (x >= 88 && x < 91)
			t[i].boundary_mask = (1u << 16) - 1;
		else if (x >= 91 && x < 95)
			t[i].max_mapping = 3000;
		else if (x >= 95 && x < 98)
			t[i].addr_limit = last - 1;
		else if (x >= 98)
			t[i].addr_limit = 0;
	}
}

/* The slots of the run that holds device address @a of @len bytes, as bytes. */
static size_t leaf_run_bytes(uint64_t a, size_t len)
{
	size_t in_slot = (size_t)(a & (SLUICE_DMA_IO_TLB_SIZE - 1));

	return (in_slot + len + SLUICE_DMA_IO_TLB_SIZE - 1) & ~(size_t)(SLUICE_DMA_IO_TLB_SIZE - 1);
}

/*
 * What a tag asks of a mapping of @len bytes at device address @a made from
 * @buf: the allocation alignment (with no min_align bits, the address is the
 * run's start), the buffer's min_align bits kept, no boundary crossed, the
 * address limit. Each path must keep it, not only agree with the other.
 */
static bool leaf_tag_kept(const struct sluice_dma_tag *t, uint64_t a, const void *buf, size_t len)
{
	uint64_t last = a + len - 1;

	return (t->min_align_mask || !(a & t->alloc_align_mask)) &&
	       (a & t->min_align_mask) == ((uintptr_t)buf & t->min_align_mask) &&
	       (a & ~t->boundary_mask) == (last & ~t->boundary_mask) && last <= t->addr_limit;
}

static void leaf_map_step(struct leaf_run *r)
{
	static const enum sluice_dma_dir dirs[] = { SLUICE_DMA_TO_DEVICE, SLUICE_DMA_FROM_DEVICE,
						    SLUICE_DMA_BIDIRECTIONAL };
	static const unsigned int attrs[] = { SLUICE_DMA_ATTR_UNMAP_WRITTEN,
					      SLUICE_DMA_ATTR_OWN_PAGES, 0 };
	struct leaf_map *m = NULL;
	struct sluice_dma_tag t[2];
	enum sluice_dma_dir dir;
	bool null_tag, with_attrs;
	unsigned int attr = 0;
	size_t len, got_len[2], shift;
	uint64_t a[2], tag_stage;
	int rc[2];

	for (unsigned int i = 0; i < r->max_live && !m; i++)
		if (!r->live[i].used)
			m = &r->live[i];
	if (!m)
		return;
	len = leaf_lens[leaf_rand(r) % (sizeof(leaf_lens) / sizeof(leaf_lens[0]))];
	dir = leaf_rand(r) % 50 ? dirs[leaf_rand(r) % 3] : (enum sluice_dma_dir)(leaf_rand(r) % 5);
	leaf_tags(r, t, &null_tag);
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
		bool null_buf = r->step % 97 == 0, wraps = r->step % 101 == 0;

		m->mem[i] = fx_aligned(4096, 4096 + LEAF_MAX);
		assert_non_null(m->mem[i]);
		m->buf[i] = m->mem[i] + shift;
		for (size_t b = 0; b < LEAF_MAX; b++)
			m->buf[i][b] = (unsigned char)(r->step * 7 + b * 13);
		got_len[i] = len;
		tag_stage = sluice_dma_stage_leaves[DMA_STAGE_TAG];
		if (with_attrs)
			rc[i] = sluice_dma_map_attrs(&r->f[i]->dl, null_tag ? NULL : &t[i],
						     null_buf ? NULL : m->buf[i], &got_len[i], dir,
						     attr, &a[i]);
		else
			/* A buffer that wraps the address space: no copy may start. */
			rc[i] = sluice_dma_map(&r->f[i]->dl, null_tag ? NULL : &t[i],
					       null_buf ? NULL :
					       wraps	? (void *)(UINTPTR_MAX - 100) :
							  m->buf[i],
					       wraps ? 4096 : len, dir,
					       r->step % 89 == 0 ? NULL : &a[i]);
		if (i == 0 && !rc[0] && sluice_dma_stage_leaves[DMA_STAGE_TAG] == tag_stage)
			r->leaf_maps++;
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
	for (int i = 0; i < 2; i++) {
		struct sluice_dma_tag kept = t[i];

		if (attr & SLUICE_DMA_ATTR_OWN_PAGES)
			kept.alloc_align_mask |= SLUICE_DMA_PAGE_SIZE - 1;
		if (!leaf_tag_kept(&kept, a[i], m->buf[i], got_len[i]))
			fail_msg("step %lu: a mapping that breaks its tag", r->step);
	}
	/* The whole run: a byte written past the mapping would show there. */
	if (memcmp(fx_dev(a[0] & ~(uint64_t)(SLUICE_DMA_IO_TLB_SIZE - 1)),
		   fx_dev(a[1] & ~(uint64_t)(SLUICE_DMA_IO_TLB_SIZE - 1)),
		   leaf_run_bytes(a[0], got_len[0])))
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

/* Coherent memory on both, and a streaming unmap of it, refused by both. */
static void leaf_coherent_step(struct leaf_run *r)
{
	const struct sluice_dma_tag t = SLUICE_DMA_TAG_DEFAULT;
	uint64_t a[2];
	void *va[2];
	int rc[2];

	for (int i = 0; i < 2; i++)
		va[i] = sluice_dma_alloc_coherent(&r->f[i]->dl, &t, 4096, &a[i]);
	if (!va[0] != !va[1])
		leaf_fail(r, "a coherent allocation");
	if (!va[0])
		return;
	if (a[0] - r->base[0] != a[1] - r->base[1])
		leaf_fail(r, "a coherent allocation's address");
	for (int i = 0; i < 2; i++)
		rc[i] = sluice_dma_unmap(&r->f[i]->dl, a[i], 4096, SLUICE_DMA_BIDIRECTIONAL);
	if (rc[0] != rc[1] || !rc[0])
		leaf_fail(r, "a streaming unmap of coherent memory");
	for (int i = 0; i < 2; i++)
		assert_int_equal(sluice_dma_free_coherent(&r->f[i]->dl, va[i], 4096), 0);
}

/* What a refusal said, with its addresses taken out (the layers' pools differ). */
static void leaf_log_strip(const char *msg, char *out, size_t n)
{
	size_t o = 0;

	for (size_t i = 0; msg[i] && o + 1 < n;) {
		if (msg[i] == '0' && msg[i + 1] == 'x') {
			out[o++] = '#';
			for (i += 2; msg[i] && strchr("0123456789abcdef", msg[i]);)
				i++;
			continue;
		}
		out[o++] = msg[i++];
	}
	out[o] = 0;
}

static void leaf_logs_equal(struct leaf_run *r)
{
	char a[256], b[256];

	if (r->f[0]->mp.log_lines != r->f[1]->mp.log_lines)
		leaf_fail(r, "the refusals logged");
	leaf_log_strip(r->f[0]->mp.last_log, a, sizeof(a));
	leaf_log_strip(r->f[1]->mp.last_log, b, sizeof(b));
	if (strcmp(a, b))
		leaf_fail(r, "what a refusal said");
}

/*
 * Each CPU's magazines and remote list, and every slot record (its buffer
 * only as present or not: the layers' buffers differ).
 */
static void leaf_inner_equal(struct leaf_run *r)
{
	const struct sluice_dma_bounce_pool *p[2] = { r->f[0]->dl.pools, r->f[1]->dl.pools };
	const struct dma_sluice_meta *m[2] = { dma_sluice_meta(p[0]), dma_sluice_meta(p[1]) };

	if (p[0]->nslabs != p[1]->nslabs)
		leaf_fail(r, "the pools");
	for (unsigned int c = 0; c < r->ncpus; c++) {
		const struct dma_sluice_cpu *x = &m[0]->cpus[c], *y = &m[1]->cpus[c];

		if (memcmp(&p[0]->pcpu[c], &p[1]->pcpu[c], sizeof(p[0]->pcpu[c])))
			leaf_fail(r, "a CPU's counters");
		if (memcmp(x->n, y->n, sizeof(x->n)) || x->drain_req != y->drain_req ||
		    memcmp(x->ent[0], y->ent[0], x->n[0] * sizeof(x->ent[0][0])) ||
		    memcmp(x->ent[1], y->ent[1], x->n[1] * sizeof(x->ent[1][0])) ||
		    x->nbig != y->nbig || x->big_slots != y->big_slots || x->rn != y->rn ||
		    memcmp(x->rem, y->rem, x->rn * sizeof(x->rem[0])))
			leaf_fail(r, "a CPU's magazines");
	}
	for (unsigned long i = 0; i < p[0]->nslabs; i++) {
		struct dma_bounce_slot u = p[0]->slots[i], v = p[1]->slots[i];

		if (!u.orig != !v.orig)
			leaf_fail(r, "a slot record's buffer");
		u.orig = v.orig = NULL;
		if (memcmp(&u, &v, sizeof(u)))
			leaf_fail(r, "a slot record");
	}
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
	leaf_inner_equal(r);
	for (int i = 0; i < 2; i++)
		if (sluice_dma_layer_check(&r->f[i]->dl))
			leaf_fail(r, "the layer's self-check");
}

/*
 * The sequence, on layers of @ncpus CPUs and one pool of @bytes. A pool too
 * small for the live mappings and the CPUs' magazines (@small) runs out: maps
 * fail, and CPUs ask each other to drain.
 */
static void leaf_run(enum sluice_dma_scrub scrub, unsigned int ncpus, size_t bytes, bool small)
{
	struct leaf_run r = { .rng = 0x5eed1eafull, .ncpus = ncpus, .max_live = small ? 128 : 48 };
	const char *seed = getenv("SLUICE_TEST_SEED");
	struct sluice_dma_bounce_stats st;

	if (seed)
		r.rng = strtoull(seed, NULL, 0) | 1;
	fprintf(stderr, "test_map_leaf: seed 0x%llx\n", (unsigned long long)r.rng);
	leaf_setup(&r, scrub, bytes);
	for (r.step = 1; r.step <= LEAF_STEPS; r.step++) {
		uint32_t x = leaf_rand(&r) % 100;

		if (x < 45)
			leaf_map_step(&r);
		else if (x < 89) {
			struct leaf_map *m = &r.live[leaf_rand(&r) % r.max_live];

			if (m->used)
				leaf_unmap_step(&r, m);
		} else if (x < 94)
			leaf_foreign_step(&r);
		else if (x < 95)
			leaf_coherent_step(&r);
		else
			mock_port_set_cpu(leaf_rand(&r) % r.ncpus);
		/* A stretch with the copies profiled: map.c's path on both. */
		if (r.step % 50000 == 20000 || r.step % 50000 == 25000) {
			for (int i = 0; i < 2; i++)
				assert_int_equal(sluice_dma_layer_set_profile(
							 &r.f[i]->dl, r.step % 50000 == 20000),
						 0);
			assert_int_equal(r.f[0]->dl.fast, r.step % 50000 == 25000);
			r.f[1]->dl.fast = 0; /* which set_profile() decided again */
		}
		leaf_logs_equal(&r);
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
	assert_int_equal(sluice_dma_bounce_stats_get(&r.f[0]->dl, -1, &st), 0);
	fprintf(stderr,
		"test_map_leaf: %lu maps on the leaf path, %llu maps in all, %llu full, "
		"%lu refusals\n",
		r.leaf_maps, (unsigned long long)st.mappings, (unsigned long long)st.full_events,
		(unsigned long)r.f[0]->mp.log_lines);
	/* The leaf layer did take its own path, for most of the common requests. */
	assert_true(r.f[0]->dl.fast);
	assert_true(r.leaf_maps > LEAF_STEPS / 20);
	if (small)
		assert_true(st.full_events > 0);
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
	for (int i = 0; i < 5; i++) {
		f->dl.ops = ops;
		if (i == 0)
			f->dl.ops.flags &= ~SLUICE_DMA_PORT_CPU_EXCLUSIVE;
		else if (i == 1)
			f->dl.ops.cpu_id = NULL;
		else if (i == 2)
			f->dl.ops.copy = NULL;
		else if (i == 3)
			f->dl.ops.zero = NULL;
		else
			f->dl.ops.cache_maint = leaf_cache;
		fx_ops_changed(f);
		if (f->dl.fast)
			fail_msg("promise %d taken away, the leaf paths still on", i);
	}
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

/* 514 slots of pages, 4 x 128 of them in the areas: a tail of two. */
#define LEAF_POOL ((1ul << 20) + 4096)
/*
 * The least two CPUs may have (two areas of 128 slots): the live mappings
 * (up to 4 slots each) and two CPUs' magazines (up to 120 slots each) need more.
 */
#define LEAF_SMALL_POOL (512ul << 10)

static void test_leaf_zero(void **state)
{
	(void)state;
	leaf_run(SLUICE_DMA_SCRUB_ZERO, LEAF_CPUS, LEAF_POOL, false);
}

static void test_leaf_copy(void **state)
{
	(void)state;
	leaf_run(SLUICE_DMA_SCRUB_COPY, LEAF_CPUS, LEAF_POOL, false);
}

static void test_leaf_small_pool(void **state)
{
	(void)state;
	leaf_run(SLUICE_DMA_SCRUB_ZERO, 2, LEAF_SMALL_POOL, true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_leaf_decided),
		cmocka_unit_test(test_leaf_zero),
		cmocka_unit_test(test_leaf_copy),
		cmocka_unit_test(test_leaf_small_pool),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
