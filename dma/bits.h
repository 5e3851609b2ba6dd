/* SPDX-License-Identifier: MIT */
/*
 * bits.h - runs of bits in a uint64_t array, shared by the bitmap, lifo and
 * sluice policies (their free maps: 1 = free). Not a public header.
 */
#ifndef SLUICE_DMA_BITS_H
#define SLUICE_DMA_BITS_H

#include <stdbool.h>
#include <stdint.h>

#include "dma/arith.h"
#include "dma/priv.h"

static inline bool dma_bit_test(const uint64_t *map, unsigned long i)
{
	return (map[i >> 6] >> (i & 63)) & 1;
}

/* Set or clear bits [start, start + n), a word at a time. */
SLUICE_DMA_PRIV void sluice_dma_priv_bits_set(uint64_t *map, unsigned long start, unsigned long n);
SLUICE_DMA_PRIV void sluice_dma_priv_bits_clear(uint64_t *map, unsigned long start,
						unsigned long n);
/* First clear bit in [start, end), or end: the run [start, end) is free iff == end. */
SLUICE_DMA_PRIV unsigned long
sluice_dma_priv_bits_find_zero(const uint64_t *map, unsigned long start, unsigned long end);
/* First set bit in [start, end), or end. */
SLUICE_DMA_PRIV unsigned long sluice_dma_priv_bits_find_one(const uint64_t *map,
							    unsigned long start, unsigned long end);

#endif /* SLUICE_DMA_BITS_H */
