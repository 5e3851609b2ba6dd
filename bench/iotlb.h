/* SPDX-License-Identifier: MIT */
/*
 * iotlb.h - a software model of an IOMMU's IOTLB: set-associative (fully
 * associative by default), LRU replacement, one entry per translation granule
 * (4 KiB for pages, 2 MiB for PMD-sized mappings as in the DMA_PMD RFC).
 *
 * Fed with every device-visible address range an I/O touches, it counts lookups
 * and misses, the effect the DMA_PMD RFC measured (16.6 M -> 30 K misses).
 */
#ifndef SLUICE_BENCH_IOTLB_H
#define SLUICE_BENCH_IOTLB_H

#include <stdbool.h>
#include <stdint.h>

#define IOTLB_MAX_ENTRIES 4096

/**
 * struct iotlb - the model's state.
 * @entries: total entries.
 * @ways: entries per set (== @entries: fully associative).
 * @nsets: @entries / @ways.
 * @granule_shift: log2 of the translation size.
 * @tag: cached translation tags (granule numbers), per entry.
 * @valid: whether each entry holds a tag.
 * @stamp: last-use time of each entry, for LRU.
 * @clock: use counter.
 * @lookups: translations looked up.
 * @misses: of those, not found.
 */
struct iotlb {
	unsigned int entries, ways, nsets;
	unsigned int granule_shift;
	uint64_t tag[IOTLB_MAX_ENTRIES];
	bool valid[IOTLB_MAX_ENTRIES];
	uint64_t stamp[IOTLB_MAX_ENTRIES];
	uint64_t clock;
	uint64_t lookups, misses;
};

/**
 * iotlb_init() - an empty IOTLB.
 * @t: the model.
 * @entries: 1..IOTLB_MAX_ENTRIES.
 * @ways: entries per set; 0 or @entries for fully associative; must divide @entries.
 * @granule_shift: 12 for 4 KiB translations, 21 for 2 MiB.
 * Return: 0, or -22 for a bad geometry.
 */
int iotlb_init(struct iotlb *t, unsigned int entries, unsigned int ways,
	       unsigned int granule_shift);

/**
 * iotlb_access() - the device touches [@addr, @addr + @len): one lookup per
 *	granule the range covers.
 * @t: the model.
 * @addr: device address.
 * @len: bytes (0 counts as 1).
 */
void iotlb_access(struct iotlb *t, uint64_t addr, uint64_t len);

/**
 * iotlb_reset_counters() - zero lookups and misses, keep the cached entries.
 * @t: the model.
 */
void iotlb_reset_counters(struct iotlb *t);

#endif /* SLUICE_BENCH_IOTLB_H */
