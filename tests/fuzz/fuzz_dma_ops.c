/* SPDX-License-Identifier: MIT */
/*
 * fuzz_dma_ops.c - the DMA API (dma/include/sluice/dma.h) and the shared arena
 * (dma/include/sluice/arena.h) driven by random operation sequences and checked against a reference
 * model.
 *
 * The adversary controls the caller's side within the API's contract: which
 * buffers are mapped (private memory, which bounces, or arena blocks, which map
 * in place when the tag allows), lengths (zero, tiny, up to beyond the largest
 * mapping), directions (valid or not), device tags (typical ones and random
 * masks, limits and alignments, valid or not), syncs with any offset, length and
 * direction, coherent allocations, arena allocations and frees, reclaim,
 * growth by a second pool, the calling CPU, and conversion failures injected
 * through the porting ops. It also controls the device: it writes any bytes
 * into any live mapping, whatever its direction, and scribbles over every byte
 * of the bounce pools that no live mapping covers. The input also picks the
 * policy (every one of DMA_POLICY_*), the scrub mode, the CPU count and whether
 * the port promises exclusive CPU indices (SLUICE_DMA_PORT_CPU_EXCLUSIVE).
 *
 * The model knows every live mapping, what the device must see in it and what
 * every byte of the caller's buffers must hold. Checked after every step:
 * return codes are the documented ones; a mapping is in place exactly when the
 * hook owns the buffer and the tag allows it, else it lies in a pool, in
 * shared memory, inside the tag's limits (address limit, boundary,
 * min_align bits, alloc alignment) and overlaps no other live mapping; the
 * device sees the caller's bytes (or zeros under SLUICE_DMA_SCRUB_ZERO for
 * from-device), never another mapping's; syncs and unmaps copy exactly what
 * the direction says and nothing on discard; coherent memory and arena blocks
 * come zeroed and aligned, and a freed block reads zero right after the free;
 * an empty layer never reports "full" for a small request; pool and arena
 * statistics equal the model's counts; sluice_dma_layer_check() and sluice_dma_arena_check()
 * pass (after steps 3, 7, 15, 31, then every 32nd on a sampled input,
 * FUZZ_DEEP_SAMPLE, and at the end
 * of one input in DOF_END_SAMPLE; the scrub of every idle arena block on one in
 * DOF_SCRUB_SAMPLE); at the end everything is released, the layer refuses to go
 * while a slot is in use, and nothing but leaked chunks stays shared.
 *
 * Found and fixed (replayed from tests/fuzz/regressions/): coherent memory not
 * page aligned for a tag with a min_align_mask; an in-place sync past the arena
 * block trapped instead of returning SLUICE_DMA_ERR_RANGE; the sluice policy rounded
 * candidates to a stride that is no power of two (min_align_mask bits above the
 * alloc alignment) and returned misaligned slots.
 */
#include "dma/bounce.h" /* sluice_dma_priv_fast_decide() */
#include "tests/fuzz/fuzz_common.h"

#include <stdlib.h>
#include <string.h>

#include <sluice/arena.h>

#define DOF_PRIV_BYTES (256u * 1024u)
#define DOF_ARENA_BYTES (2 * SLUICE_DMA_ARENA_CHUNK_SIZE)
#define DOF_MAX_MAPS 48u
#define DOF_MAX_BLOCKS 16u
#define DOF_MAX_OPS 600u
#define DOF_NTAGS 8u
/* The longest mapping or coherent allocation a step asks for. */
#define DOF_MAX_DEV (512u * 1024u)
/* One input in this many checks at the end that every idle arena block reads
 * zero (sluice_dma_arena_check() with SLUICE_DMA_ARENA_CHECK_SCRUB: megabytes of reads);
 * every input checks each block it frees right after the free. */
#define DOF_SCRUB_SAMPLE 64u
/* One input in this many (besides the FUZZ_DEEP_SAMPLE ones, checked all along)
 * runs the layer's and the arena's self-checks once everything is released. */
#define DOF_END_SAMPLE 4u

/**
 * struct dof_map - the model of one live mapping or coherent allocation.
 * @live: in use.
 * @coherent: from sluice_dma_alloc_coherent() (@buf is its CPU address).
 * @inplace: mapped in place (the device address is the buffer).
 * @block: arena block the buffer lies in, or -1.
 * @buf: the caller's buffer.
 * @dma: the device address.
 * @len: length.
 * @dir: direction.
 * @dev: what the device must read at @dma (bounce and coherent only): the
 *	slot's own buffer in dof_dev.
 */
struct dof_map {
	bool live;
	bool coherent;
	bool inplace;
	int block;
	unsigned char *buf;
	uint64_t dma;
	size_t len;
	enum sluice_dma_dir dir;
	unsigned char *dev;
};

/**
 * struct dof_block - the model of one live arena block.
 * @ptr: its address (NULL when the slot is unused).
 * @size: its size (a power of two).
 * @shadow: what every byte of it must hold (its place in dof_arena_shadow).
 */
struct dof_block {
	unsigned char *ptr;
	size_t size;
	unsigned char *shadow;
};

/**
 * struct dof_expect - pool counters the model predicts (all pools summed).
 * @mappings: bounce mappings and coherent allocations made.
 * @unmaps: of those, released.
 * @to_dev: bytes copied into slots.
 * @from_dev: bytes copied back to buffers.
 * @scrubbed: bytes zeroed.
 */
struct dof_expect {
	uint64_t mappings, unmaps, to_dev, from_dev, scrubbed;
};

/**
 * struct dof - one run.
 * @in: the input.
 * @fd: the layer (fuzz_common.h's, restored for every input).
 * @scrub: its scrub mode.
 * @ncpus: its CPU count.
 * @use_arena: whether the arena exists (and is the in-place hook).
 * @arena: the arena.
 * @arena_meta: its metadata.
 * @hook: the in-place hook.
 * @tags: the tags ops pick from.
 * @maps: live mappings.
 * @blocks: live arena blocks.
 * @exp: expected pool counters.
 * @arena_allocs: successful arena allocations.
 * @arena_frees: arena frees.
 */
struct dof {
	struct fuzz_in *in;
	struct fuzz_dma *fd;
	enum sluice_dma_scrub scrub;
	unsigned int ncpus;
	bool use_arena;
	struct sluice_dma_arena arena;
	void *arena_meta;
	struct sluice_dma_inplace_region hook;
	struct sluice_dma_tag tags[DOF_NTAGS];
	struct dof_map maps[DOF_MAX_MAPS];
	struct dof_block blocks[DOF_MAX_BLOCKS];
	struct dof_expect exp;
	uint64_t arena_allocs, arena_frees;
};

static struct dof dof;
/* The caller's private memory (bounces) and the arena's region. */
static unsigned char dof_priv[DOF_PRIV_BYTES] __attribute__((aligned(4096)));
static unsigned char dof_arena_mem[DOF_ARENA_BYTES]
	__attribute__((aligned(SLUICE_DMA_ARENA_CHUNK_SIZE)));
/*
 * The model's memory, static so that no input pays for a fresh allocation of
 * up to 2 MiB (an mmap and its page faults): what the private buffer must
 * hold, what each arena block must hold (at the block's offset), and what the
 * device must read in each mapping slot.
 */
static unsigned char dof_priv_shadow[DOF_PRIV_BYTES];
static unsigned char dof_priv_pattern[DOF_PRIV_BYTES];
static unsigned char dof_arena_shadow[DOF_ARENA_BYTES];
static unsigned char dof_dev[DOF_MAX_MAPS][DOF_MAX_DEV];
/* Pages of the private buffer (and its shadow) written since the input began:
 * the next input copies the pattern back over these only. */
static uint64_t dof_priv_dirty;
_Static_assert(DOF_PRIV_BYTES / 4096 <= 64, "one dirty bit per private page");

/* ------------------------------------------------------------------ model helpers */

/* The model's copy of CPU byte @p (private buffer or a live arena block). */
static unsigned char *dof_shadow_of(struct dof *s, const unsigned char *p)
{
	if (p >= dof_priv && p < dof_priv + DOF_PRIV_BYTES)
		return dof_priv_shadow + (p - dof_priv);
	for (unsigned int i = 0; i < DOF_MAX_BLOCKS; i++)
		if (s->blocks[i].ptr && p >= s->blocks[i].ptr &&
		    p < s->blocks[i].ptr + s->blocks[i].size)
			return s->blocks[i].shadow + (p - s->blocks[i].ptr);
	FUZZ_CHECK(!"byte outside the model");
	return NULL;
}

/* The CPU's bytes [@p, @p + @len) are about to change (modelled writes only). */
static void dof_cpu_dirty(const unsigned char *p, size_t len)
{
	size_t first, last;

	if (!len || p < dof_priv || p >= dof_priv + DOF_PRIV_BYTES)
		return;
	first = (size_t)(p - dof_priv) / 4096;
	last = ((size_t)(p - dof_priv) + len - 1) / 4096;
	for (size_t pg = first; pg <= last && pg < DOF_PRIV_BYTES / 4096; pg++)
		dof_priv_dirty |= 1ull << pg;
}

static void dof_check_cpu_range(struct dof *s, const unsigned char *p, size_t len)
{
	if (len)
		FUZZ_CHECK(!memcmp(p, dof_shadow_of(s, p), len));
}

static bool dof_dir_valid(int dir)
{
	return dir == SLUICE_DMA_TO_DEVICE || dir == SLUICE_DMA_FROM_DEVICE ||
	       dir == SLUICE_DMA_BIDIRECTIONAL;
}

/* The documented rules of a valid tag (sluice_dma_tag_check()). */
static bool dof_tag_valid(const struct sluice_dma_tag *t)
{
	return !(t->min_align_mask & (t->min_align_mask + 1)) &&
	       !(t->alloc_align_mask & (t->alloc_align_mask + 1)) &&
	       !(t->boundary_mask & (t->boundary_mask + 1)) && t->boundary_mask >= 4095 &&
	       t->alloc_align_mask <= t->boundary_mask && t->addr_limit;
}

/* [a, a + len) satisfies the tag's address limit and boundary. */
static bool dof_in_limits(const struct sluice_dma_tag *t, uint64_t a, size_t len)
{
	uint64_t last = a + len - 1;

	return last >= a && last <= t->addr_limit &&
	       (a & ~t->boundary_mask) == (last & ~t->boundary_mask);
}

/* Index of the pool holding device range [a, a + len), or -1. */
static int dof_pool_of(struct dof *s, uint64_t a, size_t len)
{
	for (unsigned int i = 0; i < s->fd->npools; i++) {
		uint64_t start = (uint64_t)(uintptr_t)fuzz_dma_pool_mem(i);

		if (a >= start && a + len <= start + FUZZ_POOL_BYTES && a + len >= a)
			return (int)i;
	}
	return -1;
}

static bool dof_overlaps_live(struct dof *s, uint64_t a, size_t len, int except)
{
	for (unsigned int i = 0; i < DOF_MAX_MAPS; i++) {
		const struct dof_map *m = &s->maps[i];

		if (!m->live || m->inplace || (int)i == except)
			continue;
		if (a < m->dma + m->len && m->dma < a + len)
			return true;
	}
	return false;
}

static int dof_free_map_slot(struct dof *s)
{
	for (unsigned int i = 0; i < DOF_MAX_MAPS; i++)
		if (!s->maps[i].live)
			return (int)i;
	return -1;
}

/* A live mapping picked by the input, or -1. */
static int dof_pick_map(struct dof *s, bool coherent)
{
	unsigned int n = 0, k;

	for (unsigned int i = 0; i < DOF_MAX_MAPS; i++)
		n += s->maps[i].live && s->maps[i].coherent == coherent;
	if (!n)
		return -1;
	k = fuzz_below(s->in, n);
	for (unsigned int i = 0; i < DOF_MAX_MAPS; i++)
		if (s->maps[i].live && s->maps[i].coherent == coherent && k-- == 0)
			return (int)i;
	return -1;
}

static int dof_pick_block(struct dof *s)
{
	unsigned int n = 0, k;

	for (unsigned int i = 0; i < DOF_MAX_BLOCKS; i++)
		n += s->blocks[i].ptr != NULL;
	if (!n)
		return -1;
	k = fuzz_below(s->in, n);
	for (unsigned int i = 0; i < DOF_MAX_BLOCKS; i++)
		if (s->blocks[i].ptr && k-- == 0)
			return (int)i;
	return -1;
}

static bool dof_layer_empty(struct dof *s)
{
	for (unsigned int i = 0; i < DOF_MAX_MAPS; i++)
		if (s->maps[i].live && !s->maps[i].inplace)
			return false;
	return true;
}

/* A length: sometimes zero, mostly small, one in eight up to beyond any pool's
 * run (each such mapping costs the model and the layer a few copies of up to
 * 300 KiB: at one in four they were most of a long input's time). */
static size_t dof_len(struct fuzz_in *in, size_t max)
{
	size_t len;

	switch (fuzz_u8(in) & 7) {
	case 0:
		len = fuzz_u8(in) < 16 ? 0 : 1 + fuzz_below(in, 64);
		break;
	case 1:
	case 2:
	case 3:
		len = 1 + fuzz_u16(in) % 4096;
		break;
	case 4:
	case 5:
	case 6:
		len = 1 + fuzz_u32(in) % 65536;
		break;
	default:
		len = 1 + fuzz_u32(in) % (300u * 1024u);
		break;
	}
	return len < max ? len : max;
}

/* ------------------------------------------------------------------ tags */

static void dof_random_tag(struct fuzz_in *in, struct sluice_dma_tag *t)
{
	uint8_t how = fuzz_u8(in);

	*t = SLUICE_DMA_TAG_DEFAULT;
	if (how & 0x80) {
		/* Raw values: mostly invalid masks, which must be refused. */
		t->min_align_mask = fuzz_u64(in);
		t->alloc_align_mask = fuzz_u64(in);
		t->boundary_mask = fuzz_u64(in);
		t->addr_limit = fuzz_u64(in);
		t->max_mapping = fuzz_u32(in);
		return;
	}
	if (how & 1)
		t->min_align_mask = (1ull << fuzz_below(in, 16)) - 1;
	if (how & 2)
		t->alloc_align_mask = (1ull << fuzz_below(in, 18)) - 1;
	if (how & 4)
		t->boundary_mask = (1ull << (11 + fuzz_below(in, 14))) - 1;
	if (how & 8)
		t->addr_limit = fuzz_u8(in) & 1 ? fuzz_u64(in) :
						  (uint64_t)(uintptr_t)fuzz_dma_pool_mem(0) +
							  fuzz_below(in, 2 * FUZZ_POOL_BYTES);
	if (how & 16)
		t->max_mapping = fuzz_u32(in) % (512u * 1024u);
}

static void dof_setup_tags(struct dof *s)
{
	struct sluice_dma_tag *t = s->tags;

	t[0] = SLUICE_DMA_TAG_DEFAULT;
	t[1] = SLUICE_DMA_TAG_DEFAULT;
	t[1].min_align_mask = 4095; /* NVMe */
	t[2] = SLUICE_DMA_TAG_DEFAULT;
	t[2].alloc_align_mask = 4095;
	t[3] = SLUICE_DMA_TAG_DEFAULT;
	t[3].boundary_mask = 65535;
	t[3].max_mapping = 16384;
	t[4] = SLUICE_DMA_TAG_DEFAULT;
	t[4].addr_limit = 0xffffffffu; /* a 32-bit device: the pool is above it */
	for (unsigned int i = 5; i < DOF_NTAGS; i++)
		dof_random_tag(s->in, &t[i]);
}

/* ------------------------------------------------------------------ operations */

/*
 * A bounce mapping dof_map() got: in a pool, shared, in limits, disjoint from the
 * rest; recorded in @slot with what the device must see.
 */
static void dof_check_bounce(struct dof *s, const struct sluice_dma_tag *tag, int slot, int bi,
			     unsigned char *buf, size_t len, int dir, uint64_t dma)
{
	uint64_t off = (uint64_t)(uintptr_t)buf & tag->min_align_mask &
		       (tag->alloc_align_mask | (SLUICE_DMA_IO_TLB_SIZE - 1));
	unsigned char *view = (unsigned char *)(uintptr_t)dma;
	struct dof_map *m = &s->maps[slot];

	FUZZ_CHECK(dma != (uint64_t)(uintptr_t)buf);
	FUZZ_CHECK(dof_pool_of(s, dma, len) >= 0);
	FUZZ_CHECK(mock_port_is_shared(&s->fd->mp, view, len));
	FUZZ_CHECK(sluice_dma_addr_is_shared(&s->fd->dl, dma, len));
	FUZZ_CHECK(dof_in_limits(tag, dma, len));
	FUZZ_CHECK((dma & tag->min_align_mask) == ((uint64_t)(uintptr_t)buf & tag->min_align_mask));
	FUZZ_CHECK(((dma - off) & tag->alloc_align_mask) == 0);
	FUZZ_CHECK(!dof_overlaps_live(s, dma, len, -1));
	*m = (struct dof_map){ .live = true,
			       .block = bi,
			       .buf = buf,
			       .dma = dma,
			       .len = len,
			       .dir = (enum sluice_dma_dir)dir };
	m->dev = dof_dev[slot];
	/* What the device sees: the caller's bytes, or zeros - never
	 * anything an earlier mapping or the host left there. */
	if ((dir & SLUICE_DMA_TO_DEVICE) || s->scrub == SLUICE_DMA_SCRUB_COPY) {
		memcpy(m->dev, dof_shadow_of(s, buf), len);
		s->exp.to_dev += len;
	} else {
		memset(m->dev, 0, len);
		s->exp.scrubbed += len;
	}
	FUZZ_CHECK(!memcmp(view, m->dev, len));
	s->exp.mappings++;
}

static void dof_map(struct dof *s)
{
	struct fuzz_in *in = s->in;
	const struct sluice_dma_tag *tag = &s->tags[fuzz_below(in, DOF_NTAGS)];
	uint8_t d = fuzz_u8(in);
	int dir = d < 8 ? d % 5 : 1 + d % 3;
	int bi = fuzz_u8(in) & 1 ? dof_pick_block(s) : -1;
	int slot = dof_free_map_slot(s);
	unsigned char *buf;
	size_t len, room;
	uint64_t dma = 0;
	bool owned, empty;
	int rc;

	if (slot < 0)
		return;
	if (bi >= 0) {
		size_t off = fuzz_below(in, (uint32_t)s->blocks[bi].size);

		buf = s->blocks[bi].ptr + off;
		room = s->blocks[bi].size - off;
	} else {
		size_t off = fuzz_below(in, DOF_PRIV_BYTES);

		buf = dof_priv + off;
		room = DOF_PRIV_BYTES - off;
	}
	len = dof_len(in, room);
	owned = bi >= 0 && len;
	empty = dof_layer_empty(s);
	rc = sluice_dma_map(&s->fd->dl, tag, buf, len, (enum sluice_dma_dir)dir, &dma);

	if (!len || !dof_dir_valid(dir) || !dof_tag_valid(tag)) {
		FUZZ_CHECK(rc == SLUICE_DMA_ERR_INVAL);
		return;
	}
	if (tag->max_mapping && len > tag->max_mapping) {
		FUZZ_CHECK(rc == SLUICE_DMA_ERR_RANGE);
		return;
	}
	/* In place exactly when the hook owns the buffer and the tag allows it. */
	if (owned && dof_in_limits(tag, (uint64_t)(uintptr_t)buf, len) &&
	    !((uintptr_t)buf & tag->alloc_align_mask)) {
		FUZZ_CHECK(rc == 0 && dma == (uint64_t)(uintptr_t)buf);
		s->maps[slot] = (struct dof_map){ .live = true,
						  .inplace = true,
						  .block = bi,
						  .buf = buf,
						  .dma = dma,
						  .len = len,
						  .dir = (enum sluice_dma_dir)dir };
		return;
	}
	if (rc) {
		size_t max = sluice_dma_max_mapping_size(&s->fd->dl, tag);

		FUZZ_CHECK(rc == SLUICE_DMA_ERR_RANGE || rc == SLUICE_DMA_ERR_NOMEM);
		if (len > max)
			FUZZ_CHECK(rc == SLUICE_DMA_ERR_RANGE);
		/* Shorter than the limit: only alloc alignment may push it over. */
		if (rc == SLUICE_DMA_ERR_RANGE && len <= max)
			FUZZ_CHECK(tag->alloc_align_mask);
		/* A small plain request never finds an empty layer full. */
		if (empty && tag == &s->tags[0] && len <= 65536)
			FUZZ_CHECK(rc == 0);
		return;
	}
	dof_check_bounce(s, tag, slot, bi, buf, len, dir, dma);
}

static void dof_release(struct dof_map *m)
{
	memset(m, 0, sizeof(*m));
}

static void dof_unmap(struct dof *s, int i, bool discard)
{
	struct dof_map *m = &s->maps[i];

	if (!m->inplace) {
		/* The device's bytes are still where the model says. */
		FUZZ_CHECK(!memcmp((void *)(uintptr_t)m->dma, m->dev, m->len));
		if ((m->dir & SLUICE_DMA_FROM_DEVICE) && !discard) {
			dof_cpu_dirty(m->buf, m->len);
			memcpy(dof_shadow_of(s, m->buf), m->dev, m->len);
			s->exp.from_dev += m->len;
		}
		s->exp.unmaps++;
	}
	if (discard)
		sluice_dma_unmap_discard(&s->fd->dl, m->dma, m->len, m->dir);
	else
		sluice_dma_unmap(&s->fd->dl, m->dma, m->len, m->dir);
	dof_check_cpu_range(s, m->buf, m->len);
	dof_release(m);
}

static void dof_sync(struct dof *s, bool for_cpu)
{
	struct fuzz_in *in = s->in;
	int i = dof_pick_map(s, false);
	struct dof_map *m;
	size_t off, len;
	int dir, rc, expect;

	if (i < 0)
		return;
	m = &s->maps[i];
	off = fuzz_u8(in) & 1 ? fuzz_below(in, (uint32_t)m->len + 2) : 0;
	len = fuzz_u8(in) & 1 ? fuzz_below(in, (uint32_t)m->len + 2) :
				m->len - (off < m->len ? off : 0);
	dir = fuzz_u8(in) & 3 ? (int)m->dir : (int)fuzz_below(in, 5);
	if (!len || !dof_dir_valid(dir)) {
		expect = SLUICE_DMA_ERR_INVAL;
	} else if (m->inplace) {
		/* The layer keeps no length for an in-place mapping: it can only
		 * refuse a range that leaves the arena block (SLUICE_DMA_ERR_RANGE), and
		 * has no direction to compare. */
		const struct dof_block *b = &s->blocks[m->block];
		size_t from = (size_t)(m->buf - b->ptr);

		expect = off > b->size - from || len > b->size - from - off ? SLUICE_DMA_ERR_RANGE :
									      0;
	} else if (dir != (int)m->dir) {
		expect = SLUICE_DMA_ERR_PERM;
	} else if (off > m->len || len > m->len - off) {
		expect = SLUICE_DMA_ERR_RANGE;
	} else {
		expect = 0;
	}
	if (for_cpu)
		rc = sluice_dma_sync_for_cpu(&s->fd->dl, m->dma, off, len,
					     (enum sluice_dma_dir)dir);
	else
		rc = sluice_dma_sync_for_device(&s->fd->dl, m->dma, off, len,
						(enum sluice_dma_dir)dir);
	FUZZ_CHECK(rc == expect);
	if (rc || m->inplace)
		return;
	if (for_cpu && (m->dir & SLUICE_DMA_FROM_DEVICE)) {
		dof_cpu_dirty(m->buf + off, len);
		memcpy(dof_shadow_of(s, m->buf + off), m->dev + off, len);
		s->exp.from_dev += len;
	} else if (!for_cpu && (m->dir & SLUICE_DMA_TO_DEVICE)) {
		memcpy(m->dev + off, dof_shadow_of(s, m->buf + off), len);
		s->exp.to_dev += len;
	}
	/* Only the synced range may have changed: it is compared now, with a
	 * margin on both sides for a copy that spills; all of the mapping is
	 * compared again at its unmap, which every mapping meets before the
	 * input ends. */
	{
		size_t lo = off > 64 ? off - 64 : 0;
		size_t hi = m->len - off - len > 64 ? off + len + 64 : m->len;

		dof_check_cpu_range(s, m->buf + lo, hi - lo);
		FUZZ_CHECK(!memcmp((unsigned char *)(uintptr_t)m->dma + lo, m->dev + lo, hi - lo));
	}
}

/* The device writes into a live mapping, whatever its direction. */
static void dof_device_write(struct dof *s)
{
	struct fuzz_in *in = s->in;
	int i = fuzz_u8(in) & 1 ? dof_pick_map(s, false) : dof_pick_map(s, true);
	struct dof_map *m;
	size_t off, len;
	uint8_t seed;

	if (i < 0)
		return;
	m = &s->maps[i];
	off = fuzz_below(in, (uint32_t)m->len);
	len = 1 + fuzz_below(in, (uint32_t)(m->len - off));
	seed = fuzz_u8(in);
	fuzz_fill((unsigned char *)(uintptr_t)m->dma + off, len, seed);
	if (m->inplace)
		fuzz_fill(dof_shadow_of(s, m->buf + off), len, seed);
	else
		fuzz_fill(m->dev + off, len, seed);
}

/* The host writes over pool bytes no live mapping covers: free slots, slack. */
static void dof_host_scribble(struct dof *s)
{
	struct fuzz_in *in = s->in;
	unsigned int pool = fuzz_below(in, s->fd->npools);
	unsigned char *base = fuzz_dma_pool_mem(pool);
	size_t off = fuzz_below(in, FUZZ_POOL_BYTES), len = 1 + fuzz_below(in, 8192);
	uint8_t v = fuzz_u8(in);

	uint64_t cur = (uint64_t)(uintptr_t)base + off, end = cur + len;

	if (off + len > FUZZ_POOL_BYTES)
		end = (uint64_t)(uintptr_t)base + FUZZ_POOL_BYTES;
	/* Fill the gaps between live mappings (a per-byte test would be slow). */
	while (cur < end) {
		uint64_t next = end, skip = cur;

		for (unsigned int i = 0; i < DOF_MAX_MAPS; i++) {
			const struct dof_map *m = &s->maps[i];

			if (!m->live || m->inplace)
				continue;
			if (m->dma <= cur && cur < m->dma + m->len && m->dma + m->len > skip)
				skip = m->dma + m->len;
			else if (m->dma > cur && m->dma < next)
				next = m->dma;
		}
		if (skip > cur) {
			cur = skip;
			continue;
		}
		memset((void *)(uintptr_t)cur, v, next - cur);
		fuzz_dma_dirty((void *)(uintptr_t)cur, next - cur);
		cur = next;
	}
}

static void dof_cpu_write(struct dof *s)
{
	struct fuzz_in *in = s->in;
	int bi = fuzz_u8(in) & 1 ? dof_pick_block(s) : -1;
	unsigned char *p;
	size_t room, len;
	uint8_t seed = fuzz_u8(in);

	if (bi >= 0) {
		size_t off = fuzz_below(in, (uint32_t)s->blocks[bi].size);

		p = s->blocks[bi].ptr + off;
		room = s->blocks[bi].size - off;
	} else {
		size_t off = fuzz_below(in, DOF_PRIV_BYTES);

		p = dof_priv + off;
		room = DOF_PRIV_BYTES - off;
	}
	len = 1 + fuzz_below(in, 8192);
	if (len > room)
		len = room;
	dof_cpu_dirty(p, len);
	fuzz_fill(p, len, seed);
	fuzz_fill(dof_shadow_of(s, p), len, seed);
}

static void dof_coherent_alloc(struct dof *s)
{
	struct fuzz_in *in = s->in;
	const struct sluice_dma_tag *tag = &s->tags[fuzz_below(in, DOF_NTAGS)];
	size_t size = dof_len(in, 512u * 1024u);
	int slot = dof_free_map_slot(s);
	bool empty = dof_layer_empty(s);
	uint64_t dma = 0;
	unsigned char *va;

	if (slot < 0)
		return;
	va = sluice_dma_alloc_coherent(&s->fd->dl, tag, size, &dma);
	if (!size || !dof_tag_valid(tag) || (tag->max_mapping && size > tag->max_mapping)) {
		FUZZ_CHECK(va == NULL);
		return;
	}
	if (!va) {
		FUZZ_CHECK(!(empty && tag == &s->tags[0] && size <= 65536));
		return;
	}
	FUZZ_CHECK(dma == (uint64_t)(uintptr_t)va);
	FUZZ_CHECK(dof_pool_of(s, dma, size) >= 0);
	FUZZ_CHECK(mock_port_is_shared(&s->fd->mp, va, size));
	FUZZ_CHECK(dof_in_limits(tag, dma, size));
	FUZZ_CHECK(!(dma & tag->alloc_align_mask));
	FUZZ_CHECK(size < SLUICE_DMA_PAGE_SIZE || !(dma & (SLUICE_DMA_PAGE_SIZE - 1)));
	FUZZ_CHECK(!dof_overlaps_live(s, dma, size, -1));
	FUZZ_CHECK(fuzz_is_zero(va, size));
	s->maps[slot] = (struct dof_map){ .live = true,
					  .coherent = true,
					  .block = -1,
					  .buf = va,
					  .dma = dma,
					  .len = size,
					  .dir = SLUICE_DMA_BIDIRECTIONAL };
	s->maps[slot].dev = dof_dev[slot];
	memset(s->maps[slot].dev, 0, size);
	s->exp.mappings++;
	s->exp.scrubbed += size;
}

static void dof_coherent_free(struct dof *s, int i)
{
	struct dof_map *m = &s->maps[i];

	FUZZ_CHECK(!memcmp(m->buf, m->dev, m->len));
	sluice_dma_free_coherent(&s->fd->dl, m->buf, m->len);
	s->exp.unmaps++;
	dof_release(m);
}

static void dof_arena_alloc(struct dof *s)
{
	struct fuzz_in *in = s->in;
	uint8_t how = fuzz_u8(in);
	size_t size, want;
	unsigned char *p;
	int slot = -1;

	for (unsigned int i = 0; i < DOF_MAX_BLOCKS && slot < 0; i++)
		if (!s->blocks[i].ptr)
			slot = (int)i;
	if (slot < 0)
		return;
	if (how < 8) {
		size = how == 0 ? 0 : SLUICE_DMA_ARENA_MAX_BLOCK + fuzz_u8(in);
	} else if (how < 32) {
		/* Any order up to a whole chunk, each as likely: a 2 MiB block
		 * (scrubbed, shadowed and compared whole) is one draw in ten. */
		size_t top = SLUICE_DMA_ARENA_MIN_BLOCK
			     << fuzz_below(in, SLUICE_DMA_ARENA_NR_ORDERS);

		size = 1 + fuzz_u32(in) % top;
	} else {
		size = 1 + fuzz_u32(in) % (64u * 1024u);
	}
	p = sluice_dma_arena_alloc(&s->arena, size);
	if (!size || size > SLUICE_DMA_ARENA_MAX_BLOCK) {
		FUZZ_CHECK(p == NULL);
		return;
	}
	if (!p)
		return; /* cap, exhaustion or an injected conversion failure */
	for (want = SLUICE_DMA_ARENA_MIN_BLOCK; want < size; want <<= 1)
		;
	FUZZ_CHECK(p >= dof_arena_mem && p + want <= dof_arena_mem + DOF_ARENA_BYTES);
	FUZZ_CHECK(!((uintptr_t)p & (want - 1)));
	FUZZ_CHECK(sluice_dma_arena_block_size(&s->arena, p) == want);
	FUZZ_CHECK(sluice_dma_arena_owns(&s->arena, p, want) &&
		   !sluice_dma_arena_owns(&s->arena, p, want + 1));
	FUZZ_CHECK(sluice_dma_arena_is_shared(&s->arena, p, want));
	FUZZ_CHECK(mock_port_is_shared(&s->fd->mp, p, want));
	for (unsigned int i = 0; i < DOF_MAX_BLOCKS; i++)
		if (s->blocks[i].ptr)
			FUZZ_CHECK(p + want <= s->blocks[i].ptr ||
				   s->blocks[i].ptr + s->blocks[i].size <= p);
	FUZZ_CHECK(fuzz_is_zero(p, want));
	s->blocks[slot].ptr = p;
	s->blocks[slot].size = want;
	s->blocks[slot].shadow = dof_arena_shadow + (p - dof_arena_mem);
	memset(s->blocks[slot].shadow, 0, want);
	s->arena_allocs++;
}

static void dof_arena_free(struct dof *s, int bi)
{
	struct dof_block *b = &s->blocks[bi];

	/* Not while a mapping uses it: that would be the caller's bug. */
	for (unsigned int i = 0; i < DOF_MAX_MAPS; i++)
		if (s->maps[i].live && s->maps[i].block == bi)
			return;
	FUZZ_CHECK(!memcmp(b->ptr, b->shadow, b->size));
	sluice_dma_arena_free(&s->arena, b->ptr);
	FUZZ_CHECK(!sluice_dma_arena_owns(&s->arena, b->ptr, 1));
	/* Scrubbed on free: nothing of its user reaches the next one, or the host. */
	FUZZ_CHECK(fuzz_is_zero(b->ptr, b->size));
	memset(b, 0, sizeof(*b));
	s->arena_frees++;
}

/* ------------------------------------------------------------------ checks */

/*
 * The model's counters after every step; the self-checks, which walk every slot
 * and page and cost more than the step, when @deep: at the steps
 * dof_deep_step() picks in a sampled input (FUZZ_DEEP_SAMPLE), and in another
 * sample (DOF_END_SAMPLE) once
 * every mapping and block is released. What they find (a slot neither free nor
 * mapped, counters off, a broken free list or buddy list) stays in the layer
 * until the input ends, every input that reaches a bug has many mutated
 * siblings that reach it too, and every mapping's own invariants (device view,
 * limits, no overlap, copies, statistics) are checked at every step of all.
 */
/* The steps of a FUZZ_DEEP_SAMPLE input after which the self-checks run: 3, 7, 15,
 * 31 (the first steps, where an input's set-up goes wrong), then every 32nd. A
 * long input (600 steps) gets 22, not 150. */
static bool dof_deep_step(unsigned int ops)
{
	return ops % 32 == 31 || (ops < 32 && !((ops + 1) & ops) && ops >= 3);
}

static void dof_check(struct dof *s, bool deep)
{
	struct sluice_dma_bounce_stats st;
	uint64_t live = 0;

	if (deep)
		FUZZ_CHECK(sluice_dma_layer_check(&s->fd->dl) == 0);
	FUZZ_CHECK(sluice_dma_bounce_stats_get(&s->fd->dl, -1, &st) == 0);
	FUZZ_CHECK(st.mappings == s->exp.mappings && st.unmaps == s->exp.unmaps);
	FUZZ_CHECK(st.bytes_to_device == s->exp.to_dev);
	FUZZ_CHECK(st.bytes_from_device == s->exp.from_dev);
	FUZZ_CHECK(st.bytes_scrubbed == s->exp.scrubbed);
	for (unsigned int i = 0; i < DOF_MAX_MAPS; i++)
		live += s->maps[i].live && !s->maps[i].inplace;
	FUZZ_CHECK(st.used >= live && st.used <= st.nslabs);
	FUZZ_CHECK(st.used_hiwater >= st.used || s->fd->dl.ncpus > 1);
	FUZZ_CHECK(sluice_dma_bounce_stats_get(&s->fd->dl, (int)s->fd->npools, &st) ==
		   SLUICE_DMA_ERR_NOENT);
	if (s->use_arena) {
		struct sluice_dma_arena_stats as;

		if (deep)
			FUZZ_CHECK(sluice_dma_arena_check(&s->arena, 0) == 0);
		sluice_dma_arena_stats_get(&s->arena, &as);
		FUZZ_CHECK(as.allocs == s->arena_allocs && as.frees == s->arena_frees);
		FUZZ_CHECK(as.blocks_live == s->arena_allocs - s->arena_frees);
	}
}

/* ------------------------------------------------------------------ the target */

static void dof_setup_arena(struct dof *s, uint8_t cap)
{
	struct sluice_dma_arena_config cfg = {
		.base = dof_arena_mem,
		.len = DOF_ARENA_BYTES,
		.max_shared = cap % 3,
		.ncpus = s->ncpus,
	};

	cfg.meta_len = sluice_dma_arena_meta_size(cfg.len, cfg.ncpus);
	/* Any alignment: offset the storage by one byte. */
	s->arena_meta = malloc(cfg.meta_len + 1);
	FUZZ_CHECK(s->arena_meta != NULL);
	cfg.meta = (char *)s->arena_meta + 1;
	FUZZ_CHECK(sluice_dma_arena_init(&s->arena, &s->fd->mp.ops, &cfg) == 0);
	s->hook.owns = sluice_dma_arena_inplace_owns;
	s->hook.ctx = &s->arena;
	sluice_dma_layer_set_inplace(&s->fd->dl, &s->hook);
}

static void dof_teardown(struct dof *s)
{
	s->fd->mp.fail_to_shared_after = -1;
	s->fd->mp.fail_to_private_after = -1;
	for (unsigned int i = 0; i < DOF_MAX_MAPS; i++) {
		if (!s->maps[i].live)
			continue;
		if (s->maps[i].coherent)
			dof_coherent_free(s, (int)i);
		else
			dof_unmap(s, (int)i, false);
	}
	FUZZ_CHECK(!memcmp(dof_priv, dof_priv_shadow, DOF_PRIV_BYTES));
	dof_check(s, s->fd->deep || fuzz_sampled(s->in, 0xe4d, DOF_END_SAMPLE));
	if (s->use_arena) {
		struct sluice_dma_arena_stats as;
		int rc;

		for (unsigned int i = 0; i < DOF_MAX_BLOCKS; i++)
			if (s->blocks[i].ptr)
				dof_arena_free(s, (int)i);
		/* Each block was checked zero as it was freed; all idle memory is,
		 * here, on a sample (every idle block of every shared chunk). */
		FUZZ_CHECK(sluice_dma_arena_check(&s->arena,
						  fuzz_sampled(s->in, 0x5c2b, DOF_SCRUB_SAMPLE) ?
							  SLUICE_DMA_ARENA_CHECK_SCRUB :
							  0) == 0);
		sluice_dma_arena_stats_get(&s->arena, &as);
		rc = sluice_dma_arena_destroy(&s->arena);
		FUZZ_CHECK(rc == (as.chunks_leaked ? SLUICE_DMA_ERR_IO : 0));
		/* Leaked chunks stay shared, on purpose: the host may still see them. */
		s->fd->shared_left = (size_t)as.chunks_leaked * SLUICE_DMA_ARENA_CHUNK_SIZE;
		sluice_dma_layer_set_inplace(&s->fd->dl, NULL);
		free(s->arena_meta);
	}
	fuzz_dma_end(s->fd);
}

/* The caller's memory starts with known contents: the pattern, copied back over
 * the pages the previous input wrote (a byte loop, or even a copy of all of it,
 * per input would cost more than the input). */
static void dof_restore_priv(void)
{
	if (!dof_priv_pattern[1]) {
		fuzz_fill(dof_priv_pattern, DOF_PRIV_BYTES, 0x11);
		dof_priv_dirty = ~0ull;
	}
	for (unsigned int pg = 0; pg < DOF_PRIV_BYTES / 4096; pg++) {
		if (!(dof_priv_dirty >> pg & 1))
			continue;
		memcpy(dof_priv + pg * 4096, dof_priv_pattern + pg * 4096, 4096);
		memcpy(dof_priv_shadow + pg * 4096, dof_priv_pattern + pg * 4096, 4096);
	}
	dof_priv_dirty = 0;
}

/* The layer from the input's first two bytes: policy, scrub mode, CPUs, arena
 * or not, pools, exclusive CPU indices. */
static void dof_begin(struct dof *s, struct fuzz_in *in)
{
	uint8_t mode, cap;
	enum sluice_dma_bounce_policy policy;

	memset(s, 0, sizeof(*s));
	s->in = in;
	mode = fuzz_u8(in);
	cap = fuzz_u8(in);
	/* Two bits choose among the first four policies; a later one is reached
	 * through the pool grown by dof_platform_op(). */
	policy = (enum sluice_dma_bounce_policy)((mode & 3) % SLUICE_DMA_POLICY_COUNT);
	s->scrub = (mode & 4) ? SLUICE_DMA_SCRUB_ZERO : SLUICE_DMA_SCRUB_COPY;
	s->ncpus = 1 + ((mode >> 3) & 3);
	s->use_arena = !(mode & 0x20);
	s->fd = fuzz_dma_begin(in, policy, s->ncpus, s->scrub,
			       (mode & 0x40) ? (int)(cap >> 6) : FUZZ_DMA_ONE_POOL);
	/*
	 * One thread switches CPU indices, so the port may promise exclusive
	 * indices: the sluice policy's magazines then run without locks and a
	 * CPU's magazines go back only at its own next call (or at teardown).
	 */
	s->fd->dl.ops.flags = (mode & 0x80) ? SLUICE_DMA_PORT_CPU_EXCLUSIVE : 0;
	/*
	 * With the port's `rep movsb` copy and `rep stosb` zero too (a bit of the
	 * second byte), a sluice layer's common map and unmap take the leaf paths
	 * of dma/map_fast.c where the build shows the library those bodies
	 * (MOCK_PORT_INLINE: the fuzzer's, tests/fuzz/fuzz.mk). Init decided from
	 * the set-up's ops: the layer decides again from these.
	 */
	if ((mode & 0x80) && (cap & 0x20)) {
		s->fd->dl.ops.copy = mock_port_copy_chosen;
		s->fd->dl.ops.zero = mock_port_zero_chosen;
	}
	s->fd->dl.fast = sluice_dma_priv_fast_decide(&s->fd->dl);
	if (s->use_arena)
		dof_setup_arena(s, cap);
	dof_setup_tags(s);
}

/* The platform changes under the layer: a pool added, conversions that fail
 * from the next but N on, or a tag made up. */
static void dof_platform_op(struct dof *s)
{
	struct fuzz_in *in = s->in;
	int rc;

	switch (fuzz_u8(in) & 3) {
	case 0:
		rc = fuzz_dma_add_pool(s->fd, (enum sluice_dma_bounce_policy)fuzz_below(
						      in, SLUICE_DMA_POLICY_COUNT));
		FUZZ_CHECK(rc == 0 || rc == SLUICE_DMA_ERR_NOMEM || rc == SLUICE_DMA_ERR_IO);
		break;
	case 1:
		s->fd->mp.fail_to_shared_after = (long)fuzz_below(in, 4) - 1;
		break;
	case 2:
		s->fd->mp.fail_to_private_after = (long)fuzz_below(in, 4) - 1;
		break;
	default:
		dof_random_tag(in, &s->tags[5 + fuzz_below(in, DOF_NTAGS - 5)]);
		break;
	}
}

/* A coherent buffer (bit 7 clear) or an arena block (bit 7 set: one freed). */
static void dof_alloc_op(struct dof *s, uint8_t op, bool arena)
{
	int i;

	if (arena && (op & 0x80)) {
		i = dof_pick_block(s);
		if (i >= 0)
			dof_arena_free(s, i);
	} else if (arena) {
		dof_arena_alloc(s);
	} else if (op & 0x80) {
		i = dof_pick_map(s, true);
		if (i >= 0)
			dof_coherent_free(s, i);
	} else {
		dof_coherent_alloc(s);
	}
}

/* One step, chosen by @op % 16. */
static void dof_op(struct dof *s, uint8_t op)
{
	int i;

	switch (op % 16) {
	case 0:
	case 1:
	case 2:
		dof_map(s);
		break;
	case 3:
	case 4:
		i = dof_pick_map(s, false);
		if (i >= 0)
			dof_unmap(s, i, op & 0x80);
		break;
	case 5:
		dof_sync(s, true);
		break;
	case 6:
		dof_sync(s, false);
		break;
	case 7:
		dof_device_write(s);
		break;
	case 8:
		dof_host_scribble(s);
		break;
	case 9:
		dof_cpu_write(s);
		break;
	case 10:
		dof_alloc_op(s, op, false);
		break;
	case 11:
	case 12:
		if (s->use_arena)
			dof_alloc_op(s, op, true);
		break;
	case 13:
		if (s->use_arena)
			(void)sluice_dma_arena_reclaim(&s->arena, fuzz_below(s->in, 3));
		break;
	case 14:
		mock_port_set_cpu(fuzz_below(s->in, s->ncpus));
		break;
	default:
		dof_platform_op(s);
		break;
	}
}

int fuzz_dma_ops_one(const uint8_t *data, size_t size)
{
	struct fuzz_in in = fuzz_in_start(data, size);
	struct dof *s = &dof;

	dof_restore_priv();
	dof_begin(s, &in);
	for (unsigned int ops = 0; fuzz_more(&in) && ops < DOF_MAX_OPS; ops++) {
		dof_op(s, fuzz_u8(&in));
		dof_check(s, s->fd->deep && dof_deep_step(ops));
	}
	dof_teardown(s);
	return 0;
}
