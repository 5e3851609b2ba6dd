/* SPDX-License-Identifier: MIT */
/*
 * test_map.c - host tests of the mapping API (dma/map.c, dma/stats.c): data
 * correctness of map / sync / unmap in every direction and both scrub modes, no
 * copy beyond the recorded length, no stale bytes visible to a device or copied
 * back to a CPU, bad arguments, misuse that traps (checked in a child process),
 * the in-place hook, coherent memory, the shared-address query, statistics,
 * and conversion failures. Every teardown runs the layer's self-check.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/fakes/test_bounce_fixture.h"

#define KIB 1024ul
#define MIB (1024ul * 1024ul)

/* Every policy in both scrub modes, then `sluice` on a leaf port in both (fx_leaf()). */
#define MAP_CASES (SLUICE_DMA_POLICY_COUNT * 2 + 2)
static struct fx_case cases[MAP_CASES];

static void fill_pattern(unsigned char *p, size_t len, unsigned int seed)
{
	for (size_t i = 0; i < len; i++)
		p[i] = (unsigned char)(seed * 29 + i * 13 + (i >> 9));
}

static bool all_bytes(const unsigned char *p, size_t len, unsigned char v)
{
	for (size_t i = 0; i < len; i++)
		if (p[i] != v)
			return false;
	return true;
}

/* ------------------------------------------------------------------ directions */

static void test_to_device(void **state)
{
	struct fx_case *tc = *state;
	struct fx *f = tc->f;
	const struct sluice_dma_tag t = SLUICE_DMA_TAG_DEFAULT;
	unsigned char *buf = malloc(5000 + 64);
	uint64_t d;

	fill_pattern(buf, 5000 + 64, 1);
	assert_int_equal(sluice_dma_map(&f->dl, &t, buf, 5000, SLUICE_DMA_TO_DEVICE, &d), 0);
	assert_true((void *)fx_dev(d) != (void *)buf);
	assert_memory_equal(fx_dev(d), buf, 5000);
	/* The CPU writes again: the device sees it only after sync_for_device. */
	memset(buf + 100, 0x77, 200);
	assert_false(all_bytes(fx_dev(d) + 100, 200, 0x77));
	assert_int_equal(sluice_dma_sync_for_device(&f->dl, d, 100, 200, SLUICE_DMA_TO_DEVICE), 0);
	assert_true(all_bytes(fx_dev(d) + 100, 200, 0x77));
	/* Nothing the device writes comes back for a to-device mapping. */
	memset(fx_dev(d), 0xee, 5000);
	assert_int_equal(sluice_dma_sync_for_cpu(&f->dl, d, 0, 5000, SLUICE_DMA_TO_DEVICE), 0);
	sluice_dma_unmap(&f->dl, d, 5000, SLUICE_DMA_TO_DEVICE);
	assert_false(all_bytes(buf, 100, 0xee));
	assert_true(all_bytes(buf + 100, 200, 0x77));
	free(buf);
}

/*
 * The default of a confidential guest: under SLUICE_DMA_SCRUB_ZERO not one byte of the
 * private buffer is in the slot the device sees; sluice_dma_unmap_written() brings back
 * exactly what the device reported writing and leaves the rest of the buffer as
 * it was (under COPY the rest is as it was too, but the device saw it all).
 */
static void test_unmap_written(void **state)
{
	struct fx_case *tc = *state;
	struct fx *f = tc->f;
	const struct sluice_dma_tag t = SLUICE_DMA_TAG_DEFAULT;
	enum { LEN = 6000, WROTE = 1514 };
	unsigned char *buf = malloc(LEN), *ref = malloc(LEN);
	const unsigned char *dev;
	uint64_t d;
	size_t seen = 0;

	/* A "private" buffer full of a secret no device may see under ZERO. */
	memset(buf, 0x5e, LEN);
	memcpy(ref, buf, LEN);
	assert_int_equal(sluice_dma_map(&f->dl, &t, buf, LEN, SLUICE_DMA_FROM_DEVICE, &d), 0);
	dev = fx_dev(d);
	for (size_t i = 0; i < LEN; i++)
		seen += dev[i] == 0x5e;
	assert_int_equal(seen, tc->scrub == SLUICE_DMA_SCRUB_COPY ? LEN : 0);
	memset(fx_dev(d), 0x77, LEN); /* it writes everything ... */
	sluice_dma_unmap_written(&f->dl, d, LEN, SLUICE_DMA_FROM_DEVICE,
				 WROTE); /* ... but reports 1514 */
	assert_true(all_bytes(buf, WROTE, 0x77));
	assert_memory_equal(buf + WROTE, ref + WROTE, LEN - WROTE);
	/* Nothing written: the buffer is untouched; to-device: as sluice_dma_unmap(). */
	assert_int_equal(sluice_dma_map(&f->dl, &t, buf, LEN, SLUICE_DMA_FROM_DEVICE, &d), 0);
	memset(fx_dev(d), 0x99, LEN);
	sluice_dma_unmap_written(&f->dl, d, LEN, SLUICE_DMA_FROM_DEVICE, 0);
	assert_true(all_bytes(buf, WROTE, 0x77));
	assert_int_equal(sluice_dma_map(&f->dl, &t, buf, LEN, SLUICE_DMA_TO_DEVICE, &d), 0);
	sluice_dma_unmap_written(&f->dl, d, LEN, SLUICE_DMA_TO_DEVICE, 0);
	assert_true(all_bytes(buf, WROTE, 0x77));
	free(ref);
	free(buf);
}

/*
 * SLUICE_DMA_ATTR_UNMAP_WRITTEN (API 0.9): a from-device bounce the layer does
 * not zero at map (under SCRUB_ZERO no byte is written into the slots; under
 * SCRUB_COPY the buffer is copied in, Linux's way, as without the attribute),
 * only the reported bytes come back, and every way of copying back bytes the
 * device may not have written is refused (a plain unmap, a sync for the CPU)
 * or copies nothing (unmap_all).
 */
static void test_unmap_written_attr(void **state)
{
	struct fx_case *tc = *state;
	struct fx *f = tc->f;
	const struct sluice_dma_tag t = SLUICE_DMA_TAG_DEFAULT;
	enum { LEN = 6000, WROTE = 1514 };
	const unsigned int attr = SLUICE_DMA_ATTR_UNMAP_WRITTEN;
	unsigned char *buf = malloc(LEN), *ref = malloc(LEN);
	struct sluice_dma_bounce_stats s0, s1;
	unsigned long count = 0;
	size_t len = LEN, seen = 0, copy_in = tc->scrub == SLUICE_DMA_SCRUB_COPY ? LEN : 0;
	uint64_t d;

	memset(buf, 0x5e, LEN);
	memcpy(ref, buf, LEN);
	assert_int_equal(sluice_dma_bounce_stats_get(&f->dl, -1, &s0), 0);
	assert_int_equal(
		sluice_dma_map_attrs(&f->dl, &t, buf, &len, SLUICE_DMA_FROM_DEVICE, attr, &d), 0);
	assert_int_equal(len, LEN);
	assert_int_equal(sluice_dma_bounce_stats_get(&f->dl, -1, &s1), 0);
	assert_int_equal(s1.bytes_scrubbed, s0.bytes_scrubbed);
	assert_int_equal(s1.bytes_to_device - s0.bytes_to_device, copy_in);
	for (size_t i = 0; i < LEN; i++)
		seen += fx_dev(d)[i] == 0x5e;
	assert_int_equal(seen, copy_in);
	memset(fx_dev(d), 0x77, LEN);
	/* The whole length or a range nobody vouched for: refused, nothing copied. */
	assert_int_equal(sluice_dma_unmap(&f->dl, d, LEN, SLUICE_DMA_FROM_DEVICE),
			 SLUICE_DMA_ERR_INVAL);
	assert_int_equal(sluice_dma_sync_for_cpu(&f->dl, d, 0, 100, SLUICE_DMA_FROM_DEVICE),
			 SLUICE_DMA_ERR_INVAL);
	assert_memory_equal(buf, ref, LEN);
	assert_int_equal(sluice_dma_unmap_written(&f->dl, d, LEN, SLUICE_DMA_FROM_DEVICE, WROTE),
			 0);
	assert_true(all_bytes(buf, WROTE, 0x77));
	assert_memory_equal(buf + WROTE, ref + WROTE, LEN - WROTE);
	memcpy(ref, buf, LEN);

	/* unmap_all does not know what the device wrote: nothing comes back. */
	assert_int_equal(
		sluice_dma_map_attrs(&f->dl, &t, buf, &len, SLUICE_DMA_FROM_DEVICE, attr, &d), 0);
	memset(fx_dev(d), 0x33, LEN);
	assert_int_equal(sluice_dma_unmap_all(&f->dl, 0, &count), 0);
	assert_int_equal(count, 1);
	assert_memory_equal(buf, ref, LEN);

	/* To the device the buffer is copied in, and a plain unmap ends it ... */
	assert_int_equal(
		sluice_dma_map_attrs(&f->dl, &t, buf, &len, SLUICE_DMA_TO_DEVICE, attr, &d), 0);
	assert_memory_equal(fx_dev(d), buf, LEN);
	assert_int_equal(sluice_dma_unmap(&f->dl, d, LEN, SLUICE_DMA_TO_DEVICE), 0);
	/* ... and both ways too: the slots hold the buffer, nothing stale can come back. */
	assert_int_equal(
		sluice_dma_map_attrs(&f->dl, &t, buf, &len, SLUICE_DMA_BIDIRECTIONAL, attr, &d), 0);
	assert_memory_equal(fx_dev(d), buf, LEN);
	memset(fx_dev(d), 0x66, 100);
	assert_int_equal(sluice_dma_sync_for_cpu(&f->dl, d, 0, 100, SLUICE_DMA_BIDIRECTIONAL), 0);
	assert_true(all_bytes(buf, 100, 0x66));
	assert_int_equal(sluice_dma_unmap(&f->dl, d, LEN, SLUICE_DMA_BIDIRECTIONAL), 0);
	/* A page, the common request (a `sluice` magazine hit): not scrubbed either. */
	len = 4096;
	assert_int_equal(sluice_dma_bounce_stats_get(&f->dl, -1, &s0), 0);
	assert_int_equal(
		sluice_dma_map_attrs(&f->dl, &t, buf, &len, SLUICE_DMA_FROM_DEVICE, attr, &d), 0);
	assert_int_equal(sluice_dma_bounce_stats_get(&f->dl, -1, &s1), 0);
	assert_int_equal(s1.bytes_scrubbed, s0.bytes_scrubbed);
	assert_int_equal(s1.bytes_to_device - s0.bytes_to_device, copy_in ? len : 0);
	assert_int_equal(sluice_dma_unmap(&f->dl, d, len, SLUICE_DMA_FROM_DEVICE),
			 SLUICE_DMA_ERR_INVAL);
	assert_int_equal(sluice_dma_unmap_written(&f->dl, d, len, SLUICE_DMA_FROM_DEVICE, len), 0);
	free(ref);
	free(buf);
}

static void test_from_device(void **state)
{
	struct fx_case *tc = *state;
	struct fx *f = tc->f;
	const struct sluice_dma_tag t = SLUICE_DMA_TAG_DEFAULT;
	unsigned char *buf = malloc(3000 + 64), *ref = malloc(3000 + 64);
	uint64_t d;

	fill_pattern(buf, 3000 + 64, 2);
	memcpy(ref, buf, 3000 + 64);
	assert_int_equal(sluice_dma_map(&f->dl, &t, buf, 3000, SLUICE_DMA_FROM_DEVICE, &d), 0);
	/* What a device reading the slots finds before it writes. */
	if (tc->scrub == SLUICE_DMA_SCRUB_COPY)
		assert_memory_equal(fx_dev(d), buf, 3000);
	else
		assert_true(all_bytes(fx_dev(d), 3000, 0));
	memset(fx_dev(d), 0x11, 1000);
	assert_int_equal(sluice_dma_sync_for_cpu(&f->dl, d, 0, 500, SLUICE_DMA_FROM_DEVICE), 0);
	assert_true(all_bytes(buf, 500, 0x11));
	assert_memory_equal(buf + 500, ref + 500, 3000 + 64 - 500);
	/* sync_for_device copies nothing for a from-device mapping. */
	memset(buf, 0x22, 10);
	assert_int_equal(sluice_dma_sync_for_device(&f->dl, d, 0, 3000, SLUICE_DMA_FROM_DEVICE), 0);
	assert_true(all_bytes(fx_dev(d), 10, 0x11));
	sluice_dma_unmap(&f->dl, d, 3000, SLUICE_DMA_FROM_DEVICE);
	assert_true(all_bytes(buf, 1000, 0x11));
	/* The unwritten tail: the original bytes (copy) or zeros (zero), never others. */
	if (tc->scrub == SLUICE_DMA_SCRUB_COPY)
		assert_memory_equal(buf + 1000, ref + 1000, 2000);
	else
		assert_true(all_bytes(buf + 1000, 2000, 0));
	/* Never beyond the mapping's length. */
	assert_memory_equal(buf + 3000, ref + 3000, 64);
	free(ref);
	free(buf);
}

static void test_bidirectional(void **state)
{
	struct fx_case *tc = *state;
	struct fx *f = tc->f;
	const struct sluice_dma_tag t = SLUICE_DMA_TAG_DEFAULT;
	unsigned char *buf = malloc(2048 + 64);
	uint64_t d;

	fill_pattern(buf, 2048 + 64, 3);
	assert_int_equal(sluice_dma_map(&f->dl, &t, buf, 2048, SLUICE_DMA_BIDIRECTIONAL, &d), 0);
	assert_memory_equal(fx_dev(d), buf, 2048);
	fx_dev(d)[0] ^= 0xff;
	assert_int_equal(sluice_dma_sync_for_cpu(&f->dl, d, 0, 1, SLUICE_DMA_BIDIRECTIONAL), 0);
	assert_int_equal(buf[0], fx_dev(d)[0]);
	buf[5] = 0x42;
	assert_int_equal(sluice_dma_sync_for_device(&f->dl, d, 5, 1, SLUICE_DMA_BIDIRECTIONAL), 0);
	assert_int_equal(fx_dev(d)[5], 0x42);
	memset(fx_dev(d), 0x99, 2048);
	sluice_dma_unmap(&f->dl, d, 2048, SLUICE_DMA_BIDIRECTIONAL);
	assert_true(all_bytes(buf, 2048, 0x99));
	assert_false(all_bytes(buf + 2048, 64, 0x99));
	free(buf);
}

/* A device that scribbles over whole slots cannot make the layer copy more than len. */
static void test_no_copy_beyond_length(void **state)
{
	struct fx_case *tc = *state;
	struct fx *f = tc->f;
	struct sluice_dma_tag t = SLUICE_DMA_TAG_DEFAULT;
	unsigned char *buf = fx_aligned(4096, 8192);
	uint64_t d;

	t.min_align_mask = 4095;
	memset(buf, 0x33, 8192);
	assert_int_equal(sluice_dma_map(&f->dl, &t, buf + 0x123, 100, SLUICE_DMA_FROM_DEVICE, &d),
			 0);
	assert_int_equal(d & 4095, (uintptr_t)(buf + 0x123) & 4095);
	/* The device writes its whole slot, before and after the mapping. */
	memset(fx_dev(d & ~(uint64_t)2047), 0xcc, 2048);
	assert_int_equal(sluice_dma_sync_for_cpu(&f->dl, d, 50, 51, SLUICE_DMA_FROM_DEVICE),
			 SLUICE_DMA_ERR_RANGE);
	assert_int_equal(sluice_dma_sync_for_cpu(&f->dl, d, 101, 1, SLUICE_DMA_FROM_DEVICE),
			 SLUICE_DMA_ERR_RANGE);
	assert_int_equal(sluice_dma_sync_for_cpu(&f->dl, d, 0, SIZE_MAX, SLUICE_DMA_FROM_DEVICE),
			 SLUICE_DMA_ERR_RANGE);
	assert_true(all_bytes(buf, 8192, 0x33));
	sluice_dma_unmap(&f->dl, d, 100, SLUICE_DMA_FROM_DEVICE);
	assert_true(all_bytes(buf, 0x123, 0x33));
	assert_true(all_bytes(buf + 0x123, 100, 0xcc));
	assert_true(all_bytes(buf + 0x123 + 100, 8192 - 0x123 - 100, 0x33));
	free(buf);
}

/*
 * CVE-2022-0854: secrets go through every slot of the pool; then from-device
 * mappings cover the pool again. The device must find no secret byte in any
 * mapping, and a partial device write must not carry one back to the CPU.
 */
static void test_no_stale_data(void **state)
{
	struct fx_case *tc = *state;
	struct fx *f = tc->f;
	const struct sluice_dma_tag t = SLUICE_DMA_TAG_DEFAULT;
	enum { N = 512, LEN = 2048 };
	unsigned char *secret = malloc(LEN), *buf = malloc((size_t)N * LEN);
	uint64_t *d = calloc(N, sizeof(*d));
	unsigned int n = 0;

	memset(secret, 0xb7, LEN);
	for (n = 0; n < N; n++)
		if (sluice_dma_map(&f->dl, &t, secret, LEN, SLUICE_DMA_TO_DEVICE, &d[n]))
			break;
	assert_int_equal(n, 512);
	for (unsigned int i = 0; i < n; i++)
		sluice_dma_unmap(&f->dl, d[i], LEN, SLUICE_DMA_TO_DEVICE);

	memset(buf, 0x01, (size_t)N * LEN);
	for (n = 0; n < N; n++)
		if (sluice_dma_map(&f->dl, &t, buf + (size_t)n * LEN, LEN, SLUICE_DMA_FROM_DEVICE,
				   &d[n]))
			break;
	assert_int_equal(n, 512);
	for (unsigned int i = 0; i < n; i++) {
		const unsigned char *dev = fx_dev(d[i]);

		for (unsigned int j = 0; j < LEN; j++)
			if (dev[j] == 0xb7)
				fail_msg("stale byte visible to the device at mapping %u + %u", i,
					 j);
		/* The device writes only the first quarter. */
		memset(fx_dev(d[i]), 0x44, LEN / 4);
	}
	for (unsigned int i = 0; i < n; i++)
		sluice_dma_unmap(&f->dl, d[i], LEN, SLUICE_DMA_FROM_DEVICE);
	for (size_t i = 0; i < (size_t)N * LEN; i++)
		if (buf[i] == 0xb7)
			fail_msg("stale byte copied back at %zu", i);
	assert_true(all_bytes(buf, LEN / 4, 0x44));
	assert_true(all_bytes(buf + LEN / 4, LEN - LEN / 4,
			      tc->scrub == SLUICE_DMA_SCRUB_COPY ? 0x01 : 0));
	free(d);
	free(buf);
	free(secret);
}

/* ------------------------------------------------------------------ bad arguments */

static void test_bad_args(void **state)
{
	struct fx_case *tc = *state;
	struct fx *f = tc->f;
	struct sluice_dma_tag t = SLUICE_DMA_TAG_DEFAULT, b;
	unsigned char *buf = malloc(512 * KIB);
	uint64_t d;

	assert_int_equal(sluice_dma_map(&f->dl, &t, buf, 0, SLUICE_DMA_TO_DEVICE, &d),
			 SLUICE_DMA_ERR_INVAL);
	assert_int_equal(sluice_dma_map(&f->dl, &t, buf, 10, (enum sluice_dma_dir)0, &d),
			 SLUICE_DMA_ERR_INVAL);
	assert_int_equal(sluice_dma_map(&f->dl, &t, buf, 10, (enum sluice_dma_dir)4, &d),
			 SLUICE_DMA_ERR_INVAL);
	assert_int_equal(sluice_dma_map(&f->dl, &t, NULL, 10, SLUICE_DMA_TO_DEVICE, &d),
			 SLUICE_DMA_ERR_INVAL);
	assert_int_equal(sluice_dma_map(&f->dl, NULL, buf, 10, SLUICE_DMA_TO_DEVICE, &d),
			 SLUICE_DMA_ERR_INVAL);
	b = t, b.min_align_mask = 0x1001;
	assert_int_equal(sluice_dma_map(&f->dl, &b, buf, 10, SLUICE_DMA_TO_DEVICE, &d),
			 SLUICE_DMA_ERR_INVAL);
	b = t, b.alloc_align_mask = 0x800;
	assert_int_equal(sluice_dma_map(&f->dl, &b, buf, 10, SLUICE_DMA_TO_DEVICE, &d),
			 SLUICE_DMA_ERR_INVAL);
	b = t, b.boundary_mask = 0x7ff;
	assert_int_equal(sluice_dma_map(&f->dl, &b, buf, 10, SLUICE_DMA_TO_DEVICE, &d),
			 SLUICE_DMA_ERR_INVAL);
	b = t, b.boundary_mask = 0xffff, b.alloc_align_mask = 0x1ffff;
	assert_int_equal(sluice_dma_map(&f->dl, &b, buf, 10, SLUICE_DMA_TO_DEVICE, &d),
			 SLUICE_DMA_ERR_INVAL);
	b = t, b.alloc_align_mask = SLUICE_DMA_NO_LIMIT;
	assert_int_equal(sluice_dma_map(&f->dl, &b, buf, 10, SLUICE_DMA_TO_DEVICE, &d),
			 SLUICE_DMA_ERR_RANGE);
	assert_null(sluice_dma_alloc_coherent(&f->dl, &b, 10, &d));
	b = t, b.max_mapping = 4096;
	assert_int_equal(sluice_dma_map(&f->dl, &b, buf, 4097, SLUICE_DMA_TO_DEVICE, &d),
			 SLUICE_DMA_ERR_RANGE);
	assert_int_equal(sluice_dma_map(&f->dl, &t, buf,
					sluice_dma_max_mapping_size(&f->dl, &t) + 1,
					SLUICE_DMA_TO_DEVICE, &d),
			 SLUICE_DMA_ERR_RANGE);
	/* A device that cannot reach the pool. */
	b = t, b.addr_limit = (uint64_t)(uintptr_t)f->mem[0];
	assert_int_equal(sluice_dma_map(&f->dl, &b, buf, 10, SLUICE_DMA_TO_DEVICE, &d),
			 SLUICE_DMA_ERR_RANGE);
	assert_int_equal(sluice_dma_max_mapping_size(&f->dl, &b), 0);
	assert_null(sluice_dma_alloc_coherent(&f->dl, &t, 0, &d));

	/* Sync: wrong direction, zero length, outside the mapping. */
	assert_int_equal(sluice_dma_map(&f->dl, &t, buf, 1000, SLUICE_DMA_TO_DEVICE, &d), 0);
	assert_int_equal(sluice_dma_sync_for_cpu(&f->dl, d, 0, 10, SLUICE_DMA_FROM_DEVICE),
			 SLUICE_DMA_ERR_PERM);
	assert_int_equal(sluice_dma_sync_for_device(&f->dl, d, 0, 10, SLUICE_DMA_BIDIRECTIONAL),
			 SLUICE_DMA_ERR_PERM);
	assert_int_equal(sluice_dma_sync_for_device(&f->dl, d, 0, 0, SLUICE_DMA_TO_DEVICE),
			 SLUICE_DMA_ERR_INVAL);
	assert_int_equal(sluice_dma_sync_for_device(&f->dl, d, 999, 2, SLUICE_DMA_TO_DEVICE),
			 SLUICE_DMA_ERR_RANGE);
	assert_int_equal(sluice_dma_sync_for_device(&f->dl, d, 999, 1, SLUICE_DMA_TO_DEVICE), 0);
	sluice_dma_unmap(&f->dl, d, 1000, SLUICE_DMA_TO_DEVICE);
	assert_int_equal(sluice_dma_tag_check(NULL), SLUICE_DMA_ERR_INVAL);
	free(buf);
}

/* ------------------------------------------------------------------ misuse traps */

/* What expect_trap() runs in the child: @fn(@f, @arg). */
struct trap_call {
	struct fx *f;
	void (*fn)(struct fx *f, uint64_t arg);
	uint64_t arg;
};

static int trap_call_run(void *ctx)
{
	const struct trap_call *c = ctx;

	c->fn(c->f, c->arg);
	return 0;
}

/*
 * Run @fn in a child: it must die by the trap (SIGILL from ud2) after logging a
 * line that names @needle (the address).
 */
static void expect_trap(struct fx *f, void (*fn)(struct fx *f, uint64_t arg), uint64_t arg,
			const char *needle)
{
	struct trap_call call = { f, fn, arg };
	char out[4096];
	int status = mock_run_child(trap_call_run, &call, out, sizeof(out));

	assert_int_not_equal(status, -1);
	if (!WIFSIGNALED(status) || WTERMSIG(status) != MOCK_TRAP_SIGNAL)
		fail_msg("misuse did not trap (status 0x%x), output: %s", status, out);
	if (!strstr(out, needle))
		fail_msg("trap message does not name %s: %s", needle, out);
}

/* A port's fatal op: says what happened on stderr and stops with status 42. */
static void fatal_exit(void *ctx, const char *msg)
{
	(void)ctx;
	fprintf(stderr, "FATAL: %s\n", msg);
	_exit(42);
}

static void misuse_unmap(struct fx *f, uint64_t a);

/*
 * With a fatal op the port stops the machine itself, with the message (API 0.7):
 * a bad handle on a strict layer reaches it with the BUG line naming the address,
 * and the child ends by the port's exit, not by the trap.
 */
static void test_fatal_hook(void **state)
{
	struct fx_case *tc = *state;
	struct fx *f = tc->f;
	const struct sluice_dma_tag t = SLUICE_DMA_TAG_DEFAULT;
	unsigned char *buf = malloc(4096);
	struct trap_call call = { f, misuse_unmap, 0 };
	char needle[96], out[4096];
	uint64_t d;
	int status;

	assert_int_equal(sluice_dma_layer_set_strict(&f->dl, true), 0);
	f->dl.ops.fatal = fatal_exit;
	assert_int_equal(sluice_dma_map(&f->dl, &t, buf, 100, SLUICE_DMA_TO_DEVICE, &d), 0);
	call.arg = d + 1;
	status = mock_run_child(trap_call_run, &call, out, sizeof(out));
	assert_int_not_equal(status, -1);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 42)
		fail_msg("the fatal op did not stop the child (status 0x%x): %s", status, out);
	snprintf(needle, sizeof(needle), "FATAL: BUG: ");
	assert_non_null(strstr(out, needle));
	snprintf(needle, sizeof(needle), "0x%llx", (unsigned long long)(d + 1));
	assert_non_null(strstr(strstr(out, "FATAL: "), needle));
	/* Without it, the same misuse still traps (test_misuse_traps). */
	f->dl.ops.fatal = NULL;
	sluice_dma_unmap(&f->dl, d, 100, SLUICE_DMA_TO_DEVICE);
	free(buf);
}

static void misuse_unmap(struct fx *f, uint64_t a)
{
	sluice_dma_unmap(&f->dl, a, 100, SLUICE_DMA_TO_DEVICE);
}

static void misuse_unmap_len(struct fx *f, uint64_t a)
{
	sluice_dma_unmap(&f->dl, a, 101, SLUICE_DMA_TO_DEVICE);
}

static void misuse_unmap_dir(struct fx *f, uint64_t a)
{
	sluice_dma_unmap(&f->dl, a, 100, SLUICE_DMA_FROM_DEVICE);
}

static void misuse_sync(struct fx *f, uint64_t a)
{
	(void)sluice_dma_sync_for_cpu(&f->dl, a, 0, 1, SLUICE_DMA_TO_DEVICE);
}

static void misuse_free_coherent(struct fx *f, uint64_t a)
{
	sluice_dma_free_coherent(&f->dl, (void *)(uintptr_t)a, 4096);
}

static void test_misuse_traps(void **state)
{
	struct fx_case *tc = *state;
	struct fx *f = tc->f;
	const struct sluice_dma_tag t = SLUICE_DMA_TAG_DEFAULT;
	unsigned char *buf = malloc(4096);
	char needle[64];
	uint64_t d, c;
	void *cv;

	/* The Sluice kernel's setting: a bad handle stops the machine. */
	assert_int_equal(sluice_dma_layer_set_strict(&f->dl, true), 0);
	assert_int_equal(sluice_dma_map(&f->dl, &t, buf, 100, SLUICE_DMA_TO_DEVICE, &d), 0);
	cv = sluice_dma_alloc_coherent(&f->dl, &t, 8192, &c);
	assert_non_null(cv);

	/* Never mapped: inside the pool, and outside everything. */
	snprintf(needle, sizeof(needle), "0x%llx", (unsigned long long)(d + 64 * 2048));
	expect_trap(f, misuse_unmap, d + 64 * 2048, needle);
	snprintf(needle, sizeof(needle), "0x%llx", (unsigned long long)(uintptr_t)buf);
	expect_trap(f, misuse_unmap, (uint64_t)(uintptr_t)buf, needle);
	expect_trap(f, misuse_sync, (uint64_t)(uintptr_t)buf, needle);
	/* Inside a mapping but not its address. */
	snprintf(needle, sizeof(needle), "0x%llx", (unsigned long long)(d + 1));
	expect_trap(f, misuse_unmap, d + 1, needle);
	/* Wrong length, wrong direction, a coherent address unmapped as streaming. */
	snprintf(needle, sizeof(needle), "0x%llx", (unsigned long long)d);
	expect_trap(f, misuse_unmap_len, d, needle);
	expect_trap(f, misuse_unmap_dir, d, needle);
	snprintf(needle, sizeof(needle), "0x%llx", (unsigned long long)c);
	expect_trap(f, misuse_unmap, c, needle);
	/* Coherent memory freed with the wrong size. */
	snprintf(needle, sizeof(needle), "%p", cv);
	expect_trap(f, misuse_free_coherent, (uint64_t)(uintptr_t)cv, "free_coherent");

	/* Double unmap: the second one traps. */
	sluice_dma_unmap(&f->dl, d, 100, SLUICE_DMA_TO_DEVICE);
	snprintf(needle, sizeof(needle), "0x%llx", (unsigned long long)d);
	expect_trap(f, misuse_unmap, d, needle);
	expect_trap(f, misuse_sync, d, needle);
	sluice_dma_free_coherent(&f->dl, cv, 8192);
	assert_int_equal(sluice_dma_layer_set_strict(&f->dl, false), 0);
	free(buf);
}

/* The last log line names @addr (as 0x<hex>). */
static void assert_logged(struct fx *f, uint64_t addr)
{
	char needle[64];

	snprintf(needle, sizeof(needle), "0x%llx", (unsigned long long)addr);
	if (!strstr(f->mp.last_log, needle))
		fail_msg("the refusal does not name %s: %s", needle, f->mp.last_log);
}

/*
 * The same misuse on a default (not strict) layer: refused with an error,
 * logged, nothing changed (EDK2's IoMmu answers EFI_INVALID_PARAMETER).
 */
static void test_misuse_refused(void **state)
{
	struct fx_case *tc = *state;
	struct fx *f = tc->f;
	const struct sluice_dma_tag t = SLUICE_DMA_TAG_DEFAULT;
	unsigned char *buf = malloc(4096);
	struct sluice_dma_bounce_stats before, after;
	uint64_t d, c;
	void *cv;

	memset(buf, 0x42, 4096);
	assert_int_equal(sluice_dma_map(&f->dl, &t, buf, 100, SLUICE_DMA_FROM_DEVICE, &d), 0);
	cv = sluice_dma_alloc_coherent(&f->dl, &t, 8192, &c);
	assert_non_null(cv);
	assert_int_equal(sluice_dma_bounce_stats_get(&f->dl, -1, &before), 0);

	assert_int_equal(sluice_dma_unmap(&f->dl, d + 64 * 2048, 100, SLUICE_DMA_FROM_DEVICE),
			 SLUICE_DMA_ERR_NOENT);
	assert_logged(f, d + 64 * 2048);
	assert_int_equal(sluice_dma_unmap(&f->dl, (uintptr_t)buf, 100, SLUICE_DMA_FROM_DEVICE),
			 SLUICE_DMA_ERR_NOENT);
	assert_logged(f, (uintptr_t)buf);
	assert_int_equal(sluice_dma_unmap(&f->dl, d + 1, 99, SLUICE_DMA_FROM_DEVICE),
			 SLUICE_DMA_ERR_NOENT);
	assert_int_equal(sluice_dma_unmap(&f->dl, d, 101, SLUICE_DMA_FROM_DEVICE),
			 SLUICE_DMA_ERR_INVAL);
	assert_logged(f, d);
	assert_int_equal(sluice_dma_unmap(&f->dl, d, 100, SLUICE_DMA_TO_DEVICE),
			 SLUICE_DMA_ERR_INVAL);
	assert_int_equal(sluice_dma_unmap_written(&f->dl, d, 100, SLUICE_DMA_FROM_DEVICE, 101),
			 SLUICE_DMA_ERR_INVAL);
	assert_int_equal(sluice_dma_unmap(&f->dl, c, 8192, SLUICE_DMA_BIDIRECTIONAL),
			 SLUICE_DMA_ERR_NOENT);
	assert_int_equal(sluice_dma_sync_for_cpu(&f->dl, (uintptr_t)buf, 0, 1,
						 SLUICE_DMA_FROM_DEVICE),
			 SLUICE_DMA_ERR_NOENT);
	assert_int_equal(sluice_dma_free_coherent(&f->dl, cv, 4096), SLUICE_DMA_ERR_INVAL);
	assert_int_equal(sluice_dma_free_coherent(&f->dl, buf, 4096), SLUICE_DMA_ERR_NOENT);
	assert_int_equal(sluice_dma_free_coherent(&f->dl, (void *)(uintptr_t)d, 100),
			 SLUICE_DMA_ERR_NOENT);
	/* Nothing moved: no copy, no release, the self-check is clean. */
	assert_int_equal(sluice_dma_bounce_stats_get(&f->dl, -1, &after), 0);
	assert_int_equal(after.unmaps, before.unmaps);
	assert_int_equal(after.bytes_from_device, before.bytes_from_device);
	assert_int_equal(sluice_dma_layer_check(&f->dl), 0);
	for (int i = 0; i < 4096; i++)
		assert_int_equal(buf[i], 0x42);

	/* The real release still works; a second one is refused. */
	assert_int_equal(sluice_dma_unmap(&f->dl, d, 100, SLUICE_DMA_FROM_DEVICE), 0);
	assert_int_equal(sluice_dma_unmap(&f->dl, d, 100, SLUICE_DMA_FROM_DEVICE),
			 SLUICE_DMA_ERR_NOENT);
	assert_int_equal(sluice_dma_free_coherent(&f->dl, cv, 8192), 0);
	assert_int_equal(sluice_dma_free_coherent(&f->dl, cv, 8192), SLUICE_DMA_ERR_NOENT);
	free(buf);
}

/* ------------------------------------------------------------------ in-place hook */

struct fake_arena {
	unsigned char *base;
	size_t len;
	unsigned long calls;
};

static bool fake_owns(void *ctx, const void *vaddr, size_t len)
{
	struct fake_arena *a = ctx;
	const unsigned char *p = vaddr;

	a->calls++;
	return p >= a->base && len <= a->len && (size_t)(p - a->base) <= a->len - len;
}

static void test_inplace(void **state)
{
	struct fx_case *tc = *state;
	struct fx *f = tc->f;
	struct sluice_dma_tag t = SLUICE_DMA_TAG_DEFAULT;
	/* The region is the first 64 KiB of a 128 KiB buffer. */
	struct fake_arena arena = { fx_aligned(4096, 128 * KIB), 64 * KIB, 0 };
	struct sluice_dma_inplace_region region = { .owns = fake_owns, .ctx = &arena };
	unsigned char *priv = malloc(4096);
	struct sluice_dma_bounce_stats st;
	uint64_t d;

	sluice_dma_layer_set_inplace(&f->dl, &region);
	assert_int_equal(
		sluice_dma_map(&f->dl, &t, arena.base + 4096, 8192, SLUICE_DMA_FROM_DEVICE, &d), 0);
	assert_int_equal(d, (uint64_t)(uintptr_t)(arena.base + 4096));
	assert_true(sluice_dma_addr_is_shared(&f->dl, d, 8192));
	assert_int_equal(sluice_dma_sync_for_cpu(&f->dl, d, 0, 8192, SLUICE_DMA_FROM_DEVICE), 0);
	/* A sync range leaving the in-place region is an error, not a trap
	 * (found by fuzz_dma_ops); the offset counts. */
	assert_int_equal(sluice_dma_sync_for_cpu(&f->dl, d, 56 * KIB, 8192, SLUICE_DMA_FROM_DEVICE),
			 SLUICE_DMA_ERR_RANGE);
	assert_int_equal(sluice_dma_sync_for_device(&f->dl, d, 60 * KIB, 1, SLUICE_DMA_FROM_DEVICE),
			 SLUICE_DMA_ERR_RANGE);
	assert_int_equal(sluice_dma_sync_for_cpu(&f->dl, d, 50 * KIB, 8192, SLUICE_DMA_FROM_DEVICE),
			 0);
	sluice_dma_unmap(&f->dl, d, 8192, SLUICE_DMA_FROM_DEVICE);
	/*
	 * The common request too (a page, a plain tag): in place, on every path,
	 * a CPU's magazine holding slots or not (a bounce first fills it).
	 */
	assert_int_equal(sluice_dma_map(&f->dl, &t, priv, 4096, SLUICE_DMA_TO_DEVICE, &d), 0);
	sluice_dma_unmap(&f->dl, d, 4096, SLUICE_DMA_TO_DEVICE);
	assert_int_equal(
		sluice_dma_map(&f->dl, &t, arena.base + 8192, 4096, SLUICE_DMA_TO_DEVICE, &d), 0);
	assert_int_equal(d, (uint64_t)(uintptr_t)(arena.base + 8192));
	sluice_dma_unmap(&f->dl, d, 4096, SLUICE_DMA_TO_DEVICE);
	assert_int_equal(__atomic_load_n(&f->dl.inplace_maps, __ATOMIC_SEQ_CST), 2);
	assert_int_equal(sluice_dma_bounce_stats_get(&f->dl, -1, &st), 0);
	assert_int_equal(st.mappings, 1); /* the private buffer's */

	/* Partly outside the region: bounces. */
	assert_int_equal(sluice_dma_map(&f->dl, &t, arena.base + 60 * KIB, 8192,
					SLUICE_DMA_TO_DEVICE, &d),
			 0);
	assert_true(d != (uint64_t)(uintptr_t)(arena.base + 60 * KIB));
	sluice_dma_unmap(&f->dl, d, 8192, SLUICE_DMA_TO_DEVICE);
	/* A private buffer bounces. */
	assert_int_equal(sluice_dma_map(&f->dl, &t, priv, 100, SLUICE_DMA_TO_DEVICE, &d), 0);
	assert_true(fx_slot(f, 0, d) >= 0);
	sluice_dma_unmap(&f->dl, d, 100, SLUICE_DMA_TO_DEVICE);
	/* In the region but beyond the device's reach: bounces into the pool. */
	t.addr_limit = (uint64_t)(uintptr_t)arena.base;
	if (t.addr_limit >= (uint64_t)(uintptr_t)f->mem[0] + f->bytes[0]) {
		assert_int_equal(sluice_dma_map(&f->dl, &t, arena.base + 4096, 100,
						SLUICE_DMA_TO_DEVICE, &d),
				 0);
		assert_true(fx_slot(f, 0, d) >= 0);
		sluice_dma_unmap(&f->dl, d, 100, SLUICE_DMA_TO_DEVICE);
	}
	assert_false(sluice_dma_addr_is_shared(&f->dl, (uint64_t)(uintptr_t)priv, 100));
	sluice_dma_layer_set_inplace(&f->dl, NULL);
	assert_false(sluice_dma_addr_is_shared(&f->dl, (uint64_t)(uintptr_t)arena.base, 1));
	assert_true(arena.calls > 0);
	free(priv);
	free(arena.base);
}

/* ------------------------------------------------------------------ coherent, query */

static void test_coherent(void **state)
{
	struct fx_case *tc = *state;
	struct fx *f = tc->f;
	struct sluice_dma_tag t = SLUICE_DMA_TAG_DEFAULT;
	uint64_t d1, d2, d3;
	unsigned char *v1, *v2, *v3;

	v1 = sluice_dma_alloc_coherent(&f->dl, &t, 4096, &d1);
	assert_non_null(v1);
	assert_int_equal(d1 & 4095, 0);
	assert_true(all_bytes(v1, 4096, 0));
	assert_true(sluice_dma_addr_is_shared(&f->dl, d1, 4096));
	assert_true(mock_port_is_shared(&f->mp, v1, 4096));
	memset(v1, 0xab, 4096);
	t.alloc_align_mask = 0xffff;
	v2 = sluice_dma_alloc_coherent(&f->dl, &t, 100, &d2);
	assert_non_null(v2);
	assert_int_equal(d2 & 0xffff, 0);
	t = SLUICE_DMA_TAG_DEFAULT;
	t.boundary_mask = 0x3fff;
	v3 = sluice_dma_alloc_coherent(&f->dl, &t, 16384, &d3);
	assert_non_null(v3);
	assert_int_equal(d3 & ~(uint64_t)0x3fff, (d3 + 16383) & ~(uint64_t)0x3fff);
	sluice_dma_free_coherent(&f->dl, v1, 4096);
	/* Reallocated memory is zero again. */
	v1 = sluice_dma_alloc_coherent(&f->dl, &t, 4096, &d1);
	assert_non_null(v1);
	assert_true(all_bytes(v1, 4096, 0));
	sluice_dma_free_coherent(&f->dl, v1, 4096);
	sluice_dma_free_coherent(&f->dl, v2, 100);
	sluice_dma_free_coherent(&f->dl, v3, 16384);

	/* A min_align_mask (NVMe-style) concerns streaming buffers only: coherent
	 * memory of a page or more stays page aligned (found by fuzz_dma_ops). */
	t = SLUICE_DMA_TAG_DEFAULT;
	t.min_align_mask = 0x7ff;
	v2 = sluice_dma_alloc_coherent(&f->dl, &t, 2048, &d2); /* misalign what follows */
	for (int i = 0; i < 8; i++) {
		v1 = sluice_dma_alloc_coherent(&f->dl, &t, 4096 + 512 * (unsigned int)i, &d1);
		assert_non_null(v1);
		assert_int_equal(d1 & 4095, 0);
		sluice_dma_free_coherent(&f->dl, v1, 4096 + 512 * (unsigned int)i);
	}
	if (v2)
		sluice_dma_free_coherent(&f->dl, v2, 2048);
}

static void test_is_shared(void **state)
{
	struct fx_case *tc = *state;
	struct fx *f = tc->f;
	uint64_t start = (uint64_t)(uintptr_t)f->mem[0];
	unsigned char *priv = malloc(64);

	assert_true(sluice_dma_addr_is_shared(&f->dl, start, 1));
	assert_true(sluice_dma_addr_is_shared(&f->dl, start, f->bytes[0]));
	assert_false(sluice_dma_addr_is_shared(&f->dl, start, f->bytes[0] + 1));
	assert_false(sluice_dma_addr_is_shared(&f->dl, start - 1, 2));
	assert_false(sluice_dma_addr_is_shared(&f->dl, (uint64_t)(uintptr_t)priv, 64));
	assert_false(sluice_dma_addr_is_shared(&f->dl, UINT64_MAX, 2));
	free(priv);
}

/* ------------------------------------------------------------------ statistics */

static void test_stats(void **state)
{
	struct fx_case *tc = *state;
	struct fx *f = tc->f;
	const struct sluice_dma_tag t = SLUICE_DMA_TAG_DEFAULT;
	unsigned char *buf = calloc(1, 64 * KIB);
	struct sluice_dma_bounce_stats st;
	uint64_t d1, d2, d3;
	unsigned long lines;

	assert_int_equal(sluice_dma_map(&f->dl, &t, buf, 1000, SLUICE_DMA_TO_DEVICE, &d1), 0);
	assert_int_equal(sluice_dma_map(&f->dl, &t, buf, 5000, SLUICE_DMA_FROM_DEVICE, &d2), 0);
	assert_int_equal(sluice_dma_map(&f->dl, &t, buf, 300, SLUICE_DMA_BIDIRECTIONAL, &d3), 0);
	assert_int_equal(sluice_dma_bounce_stats_get(&f->dl, 0, &st), 0);
	assert_int_equal(st.nslabs, 512);
	assert_int_equal(st.used, 1 + 3 + 1);
	assert_int_equal(st.mappings, 3);
	assert_int_equal(st.unmaps, 0);
	assert_int_equal(st.conversions, 1);
	if (tc->scrub == SLUICE_DMA_SCRUB_COPY) {
		assert_int_equal(st.bytes_to_device, 1000 + 5000 + 300);
		assert_int_equal(st.bytes_scrubbed, 0);
	} else {
		assert_int_equal(st.bytes_to_device, 1000 + 300);
		assert_int_equal(st.bytes_scrubbed, 5000);
	}
	assert_true(st.search_steps >= 3);
	assert_int_equal(sluice_dma_sync_for_cpu(&f->dl, d2, 0, 10, SLUICE_DMA_FROM_DEVICE), 0);
	sluice_dma_unmap(&f->dl, d1, 1000, SLUICE_DMA_TO_DEVICE);
	sluice_dma_unmap(&f->dl, d2, 5000, SLUICE_DMA_FROM_DEVICE);
	sluice_dma_unmap(&f->dl, d3, 300, SLUICE_DMA_BIDIRECTIONAL);
	assert_int_equal(sluice_dma_bounce_stats_get(&f->dl, -1, &st), 0);
	assert_int_equal(st.used, 0);
	assert_true(st.used_hiwater >= 5);
	assert_int_equal(st.unmaps, 3);
	assert_int_equal(st.bytes_from_device, 10 + 5000 + 300);
	assert_int_equal(st.full_events, 0);
	assert_int_equal(st.leaked_bytes, 0);
	lines = f->mp.log_lines;
	sluice_dma_bounce_stats_print(&f->dl);
	assert_true(f->mp.log_lines >= lines + 4);
	assert_non_null(strstr(f->mp.last_log, "in-place"));
	free(buf);
}

/* ------------------------------------------------------------------ conversions */

static void test_destroy(void **state)
{
	struct fx_case *tc = *state;
	struct fx *f = tc->f;
	const struct sluice_dma_tag t = SLUICE_DMA_TAG_DEFAULT;
	unsigned char buf[64];
	uint64_t d;

	/* Busy while a mapping is live; nothing is released. */
	assert_int_equal(sluice_dma_map(&f->dl, &t, buf, sizeof(buf), SLUICE_DMA_TO_DEVICE, &d), 0);
	assert_int_equal(sluice_dma_layer_destroy(&f->dl), SLUICE_DMA_ERR_BUSY);
	assert_int_equal(sluice_dma_bounce_pool_count(&f->dl), 1);
	assert_true(mock_port_is_shared(&f->mp, f->mem[0], f->bytes[0]));
	sluice_dma_unmap(&f->dl, d, sizeof(buf), SLUICE_DMA_TO_DEVICE);

	/* A failed conversion back leaks the pool, says so, and reports it. */
	f->mp.fail_to_private_after = 0;
	assert_int_equal(sluice_dma_layer_destroy(&f->dl), SLUICE_DMA_ERR_IO);
	assert_non_null(strstr(f->mp.last_log, "leaked"));
	assert_true(mock_port_is_shared(&f->mp, f->mem[0], f->bytes[0]));
	assert_int_equal(sluice_dma_bounce_pool_count(&f->dl), 0);
	/* The fixture's own teardown needs a clean slate: re-create the layer. */
	f->mp.fail_to_private_after = -1;
	f->mp.nshared = 0;
	assert_int_equal(sluice_dma_layer_init(&f->dl, &f->mp.ops, 2, tc->scrub), 0);
}

static void test_layer_args(void **state)
{
	struct fx_case *tc = *state;
	struct fx *f = tc->f;
	struct sluice_dma_layer dl;
	struct sluice_dma_port_ops ops = f->mp.ops;

	assert_int_equal(sluice_dma_layer_init(&dl, &ops, 0, SLUICE_DMA_SCRUB_COPY),
			 SLUICE_DMA_ERR_INVAL);
	assert_int_equal(sluice_dma_layer_init(&dl, &ops, 1, (enum sluice_dma_scrub)7),
			 SLUICE_DMA_ERR_INVAL);
	ops.set_shared = NULL;
	assert_int_equal(sluice_dma_layer_init(&dl, &ops, 1, SLUICE_DMA_SCRUB_COPY),
			 SLUICE_DMA_ERR_INVAL);
	ops = f->mp.ops;
	ops.unlock = NULL;
	assert_int_equal(sluice_dma_layer_init(&dl, &ops, 1, SLUICE_DMA_SCRUB_COPY),
			 SLUICE_DMA_ERR_INVAL);
	/* Single-threaded platforms may leave out locks and cpu_id altogether. */
	ops.lock = NULL;
	ops.lock_init = NULL;
	ops.lock_destroy = NULL;
	ops.cpu_id = NULL;
	ops.cycles = NULL;
	ops.log = NULL;
	assert_int_equal(sluice_dma_layer_init(&dl, &ops, 1, SLUICE_DMA_SCRUB_COPY), 0);
	{
		void *mem = fx_aligned(4096, 256 * KIB);
		size_t ml = sluice_dma_bounce_meta_size(tc->policy, 256 * KIB, 1);
		void *meta = malloc(ml);
		const struct sluice_dma_tag t = SLUICE_DMA_TAG_DEFAULT;
		unsigned char buf[32] = { 1 };
		uint64_t d;

		assert_int_equal(
			sluice_dma_bounce_pool_add(&dl, tc->policy, mem, 256 * KIB, meta, ml), 0);
		assert_int_equal(
			sluice_dma_map(&dl, &t, buf, sizeof(buf), SLUICE_DMA_BIDIRECTIONAL, &d), 0);
		sluice_dma_unmap(&dl, d, sizeof(buf), SLUICE_DMA_BIDIRECTIONAL);
		assert_int_equal(sluice_dma_layer_check(&dl), 0);
		assert_int_equal(sluice_dma_layer_destroy(&dl), 0);
		free(meta);
		free(mem);
	}
}

/* A completion the driver found invalid: nothing the device wrote reaches the
 * buffer, and the slots are released as by sluice_dma_unmap(). */
static void test_unmap_discard(void **state)
{
	struct fx_case *tc = *state;
	struct fx *f = tc->f;
	const struct sluice_dma_tag t = SLUICE_DMA_TAG_DEFAULT;
	unsigned char *buf = malloc(3000);
	struct sluice_dma_bounce_stats st;
	uint64_t d;

	memset(buf, 0x5c, 3000);
	assert_int_equal(sluice_dma_map(&f->dl, &t, buf, 3000, SLUICE_DMA_FROM_DEVICE, &d), 0);
	memset(fx_dev(d), 0xee, 3000); /* the device's (untrusted) answer */
	sluice_dma_unmap_discard(&f->dl, d, 3000, SLUICE_DMA_FROM_DEVICE);
	assert_true(all_bytes(buf, 3000, 0x5c));
	assert_int_equal(sluice_dma_bounce_stats_get(&f->dl, -1, &st), 0);
	assert_int_equal(st.used, 0);
	assert_int_equal(st.bytes_from_device, 0);
	free(buf);
}

/* Copies are timed only while profiling is on, and only bounce copies count. */
static void test_copy_profile(void **state)
{
	struct fx_case *tc = *state;
	struct fx *f = tc->f;
	const struct sluice_dma_tag t = SLUICE_DMA_TAG_DEFAULT;
	unsigned char *buf = malloc(8192);
	uint64_t d, before;

	memset(buf, 1, 8192);
	assert_int_equal(sluice_dma_map(&f->dl, &t, buf, 8192, SLUICE_DMA_FROM_DEVICE, &d), 0);
	sluice_dma_unmap(&f->dl, d, 8192, SLUICE_DMA_FROM_DEVICE);
	assert_int_equal(sluice_dma_layer_copy_cycles(&f->dl), 0);

	sluice_dma_layer_set_profile(&f->dl, true);
	assert_int_equal(sluice_dma_map(&f->dl, &t, buf, 8192, SLUICE_DMA_TO_DEVICE, &d), 0);
	before = sluice_dma_layer_copy_cycles(&f->dl);
	assert_true(before > 0);
	assert_int_equal(sluice_dma_sync_for_device(&f->dl, d, 0, 4096, SLUICE_DMA_TO_DEVICE), 0);
	assert_true(sluice_dma_layer_copy_cycles(&f->dl) > before);
	sluice_dma_unmap(&f->dl, d, 8192, SLUICE_DMA_TO_DEVICE);
	before = sluice_dma_layer_copy_cycles(&f->dl);
	/* A from-device unmap copies back: it counts too. */
	assert_int_equal(sluice_dma_map(&f->dl, &t, buf, 8192, SLUICE_DMA_FROM_DEVICE, &d), 0);
	sluice_dma_unmap(&f->dl, d, 8192, SLUICE_DMA_FROM_DEVICE);
	assert_true(sluice_dma_layer_copy_cycles(&f->dl) > before);

	sluice_dma_layer_set_profile(&f->dl, false);
	before = sluice_dma_layer_copy_cycles(&f->dl);
	assert_int_equal(sluice_dma_map(&f->dl, &t, buf, 8192, SLUICE_DMA_TO_DEVICE, &d), 0);
	sluice_dma_unmap(&f->dl, d, 8192, SLUICE_DMA_TO_DEVICE);
	assert_int_equal(sluice_dma_layer_copy_cycles(&f->dl), before);
	free(buf);
}

/* ------------------------------------------------------------------ main */

int main(void)
{
	static const struct {
		const char *name;
		CMUnitTestFunction fn;
	} all[] = {
		{ "unmap_written", test_unmap_written },
		{ "unmap_written_attr", test_unmap_written_attr },
		{ "to_device", test_to_device },
		{ "from_device", test_from_device },
		{ "bidirectional", test_bidirectional },
		{ "no_copy_beyond_length", test_no_copy_beyond_length },
		{ "no_stale_data", test_no_stale_data },
		{ "bad_args", test_bad_args },
		{ "misuse_traps", test_misuse_traps },
		{ "fatal_hook", test_fatal_hook },
		{ "misuse_refused", test_misuse_refused },
		{ "inplace", test_inplace },
		{ "coherent", test_coherent },
		{ "is_shared", test_is_shared },
		{ "stats", test_stats },
		{ "destroy", test_destroy },
		{ "layer_args", test_layer_args },
		{ "copy_profile", test_copy_profile },
		{ "unmap_discard", test_unmap_discard },
	};
	enum { NALL = sizeof(all) / sizeof(all[0]) };
	static struct CMUnitTest tests[NALL * MAP_CASES];
	static char names[NALL * MAP_CASES][64];
	size_t n = 0;

	for (unsigned int c = 0; c < MAP_CASES; c++) {
		cases[c].leaf = c >= SLUICE_DMA_POLICY_COUNT * 2;
		cases[c].policy = cases[c].leaf ? SLUICE_DMA_POLICY_SLUICE : fx_policies[c / 2];
		cases[c].scrub = c % 2 ? SLUICE_DMA_SCRUB_ZERO : SLUICE_DMA_SCRUB_COPY;
		cases[c].bytes = 1 * MIB;
		for (unsigned int i = 0; i < NALL; i++) {
			snprintf(names[n], sizeof(names[n]), "%s/%s%s/%s", all[i].name,
				 sluice_dma_bounce_policy_name(cases[c].policy),
				 cases[c].leaf ? "-leaf" : "",
				 cases[c].scrub == SLUICE_DMA_SCRUB_COPY ? "copy" : "zero");
			tests[n] = (struct CMUnitTest){ .name = names[n],
							.test_func = all[i].fn,
							.setup_func = fx_case_setup,
							.teardown_func = fx_case_teardown,
							.initial_state = &cases[c] };
			n++;
		}
	}
	return _cmocka_run_group_tests("map", tests, n, NULL, NULL);
}
