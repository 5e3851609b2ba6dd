/* SPDX-License-Identifier: MIT */
/*
 * bench_floor.c - the floor under a bounce on this machine (make
 * bench-floor): the least a bounce can do around its copy, written by hand,
 * timed against the copy alone with the same footprint. 4 KiB, or the bytes
 * the first argument names (1 to 4096): at 4 KiB the sixteen copies in flight
 * fill more than some machines' L1 and the copy hides what is around it.
 *
 * The "bounce" here keeps no guarantee and serves one request shape: pop a
 * slot index off an array stack, write a 16-byte record (buffer, length,
 * direction, live), `rep movsb` the 4 KiB into the slot; at unmap find the
 * record from the address, check it is live with that length, clear it and
 * push the index back. Two non-inlined functions, as a map and an unmap are.
 * Sixteen mappings in flight, "unmap the oldest, map a new one", as
 * bench_alloc's copy cells; the reference is `rep movsb` into sixteen
 * destinations in turn. Rounds alternate between the two, pinned to CPU 0;
 * medians are printed.
 *
 * What it shows: how much of the layer's cost over its copy (bench_alloc's
 * "bounce with copy vs plain memcpy") the mechanism of a bounce needs at the
 * least. A measurement: it prints, and never fails on a time.
 */
#define _GNU_SOURCE /* sched_setaffinity() */
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define FLOOR_DEPTH 16
#define FLOOR_SIZE 4096
#define FLOOR_SLOTS 64
#define FLOOR_ROUNDS 15
#define FLOOR_PAIRS 100000

struct floor_rec {
	void *orig;
	uint32_t len;
	uint8_t dir, live;
	uint16_t pad;
};

static unsigned char *floor_pool;
/* Bytes between slots: the mapping's length in whole cache lines, as the reference's. */
static size_t floor_stride = FLOOR_SIZE;
static struct floor_rec floor_recs[FLOOR_SLOTS];
static uint32_t floor_stack[FLOOR_SLOTS];
static uint32_t floor_n;

static inline void floor_movsb(void *dst, const void *src, size_t len)
{
	__asm__ volatile("rep movsb" : "+D"(dst), "+S"(src), "+c"(len) : : "memory");
}

static double floor_now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static __attribute__((noinline)) int floor_map(void *buf, size_t len, uint64_t *addr)
{
	uint32_t s;
	struct floor_rec *r;

	if (!floor_n)
		return -1;
	s = floor_stack[--floor_n];
	r = &floor_recs[s];
	r->orig = buf;
	r->len = (uint32_t)len;
	r->dir = 1;
	r->live = 1;
	floor_movsb(floor_pool + (size_t)s * floor_stride, buf, len);
	*addr = (uint64_t)s * floor_stride;
	return 0;
}

static __attribute__((noinline)) int floor_unmap(uint64_t addr, size_t len)
{
	uint64_t s = addr / floor_stride;
	struct floor_rec *r;

	if (s >= FLOOR_SLOTS)
		return -1;
	r = &floor_recs[s];
	if (!r->live || r->len != len)
		return -1;
	r->live = 0;
	floor_stack[floor_n++] = (uint32_t)s;
	return 0;
}

static int floor_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	size_t len = argc > 1 ? strtoul(argv[1], NULL, 0) : FLOOR_SIZE;
	unsigned char *src = aligned_alloc(4096, FLOOR_SIZE);
	unsigned char *dst = aligned_alloc(4096, (size_t)FLOOR_DEPTH * FLOOR_SIZE);
	double pair[FLOOR_ROUNDS], copy[FLOOR_ROUNDS];
	uint64_t q[FLOOR_DEPTH];
	cpu_set_t set;

	if (!len || len > FLOOR_SIZE) {
		fprintf(stderr, "usage: bench_floor [BYTES]: 1 to %d, default %d\n", FLOOR_SIZE,
			FLOOR_SIZE);
		return 2;
	}
	floor_stride = (len + 63) & ~(size_t)63;
	floor_pool = aligned_alloc(4096, (size_t)FLOOR_SLOTS * FLOOR_SIZE);
	if (!src || !dst || !floor_pool) {
		fprintf(stderr, "bench_floor: out of memory\n");
		return 1;
	}
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	(void)sched_setaffinity(0, sizeof(set), &set);
	memset(src, 0x5a, FLOOR_SIZE);
	memset(dst, 0, (size_t)FLOOR_DEPTH * FLOOR_SIZE);
	memset(floor_pool, 0, (size_t)FLOOR_SLOTS * FLOOR_SIZE);
	for (uint32_t i = 0; i < FLOOR_SLOTS; i++)
		floor_stack[floor_n++] = FLOOR_SLOTS - 1 - i;
	for (unsigned int i = 0; i < FLOOR_DEPTH; i++)
		if (floor_map(src, len, &q[i]))
			return 1;
	for (unsigned int r = 0; r < FLOOR_ROUNDS; r++) {
		double t0 = floor_now_ns(), t1, t2;

		for (unsigned long i = 0; i < FLOOR_PAIRS; i++) {
			uint64_t *x = &q[i % FLOOR_DEPTH];

			if (floor_unmap(*x, len) || floor_map(src, len, x))
				return 1;
		}
		t1 = floor_now_ns();
		for (unsigned long i = 0; i < FLOOR_PAIRS; i++) {
			unsigned char *d = dst + (i % FLOOR_DEPTH) * floor_stride;

			floor_movsb(d, src, len);
			__asm__ volatile("" : : "r"(d) : "memory");
		}
		t2 = floor_now_ns();
		pair[r] = (t1 - t0) / FLOOR_PAIRS;
		copy[r] = (t2 - t1) / FLOOR_PAIRS;
	}
	qsort(pair, FLOOR_ROUNDS, sizeof(double), floor_cmp);
	qsort(copy, FLOOR_ROUNDS, sizeof(double), floor_cmp);
	printf("bench_floor: %zu bytes, %d in flight, CPU 0, medians of %d rounds of %d pairs: "
	       "hand-written bounce %.1f ns, rep movsb alone %.1f ns, ratio %.2fx\n",
	       len, FLOOR_DEPTH, FLOOR_ROUNDS, FLOOR_PAIRS, pair[FLOOR_ROUNDS / 2],
	       copy[FLOOR_ROUNDS / 2], pair[FLOOR_ROUNDS / 2] / copy[FLOOR_ROUNDS / 2]);
	free(src);
	free(dst);
	free(floor_pool);
	return 0;
}
