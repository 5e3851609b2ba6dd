/* SPDX-License-Identifier: MIT */
/*
 * bits.c - runs of bits (bits.h), a 64-bit word at a time: the policies'
 * free maps are searched and updated by runs of slots, never bit by bit.
 */
#include "dma/bits.h"

/* Set or clear bits [start, start + n), a word at a time. */
static void dma_bits_assign(uint64_t *map, unsigned long start, unsigned long n, bool set)
{
	unsigned long end = start + n;

	while (start < end) {
		unsigned long bit = start & 63, len = 64 - bit;
		uint64_t mask;

		if (len > end - start)
			len = end - start;
		mask = (len == 64 ? ~0ull : ((1ull << len) - 1)) << bit;
		if (set)
			map[start >> 6] |= mask;
		else
			map[start >> 6] &= ~mask;
		start += len;
	}
}

void sluice_dma_priv_bits_set(uint64_t *map, unsigned long start, unsigned long n)
{
	dma_bits_assign(map, start, n, true);
}

void sluice_dma_priv_bits_clear(uint64_t *map, unsigned long start, unsigned long n)
{
	dma_bits_assign(map, start, n, false);
}

static unsigned long dma_bits_find(const uint64_t *map, unsigned long start, unsigned long end,
				   uint64_t invert)
{
	while (start < end) {
		uint64_t w = (map[start >> 6] ^ invert) >> (start & 63);

		if (w) {
			start += dma_ctz64(w);
			return start < end ? start : end;
		}
		start = (start | 63) + 1;
	}
	return end;
}

unsigned long sluice_dma_priv_bits_find_zero(const uint64_t *map, unsigned long start,
					     unsigned long end)
{
	return dma_bits_find(map, start, end, ~0ull);
}

unsigned long sluice_dma_priv_bits_find_one(const uint64_t *map, unsigned long start,
					    unsigned long end)
{
	return dma_bits_find(map, start, end, 0);
}
