/* SPDX-License-Identifier: MIT */
/*
 * iotlb.c - set-associative LRU IOTLB model (see iotlb.h). Plain C: the host
 * tests run it.
 */
#include "bench/iotlb.h"

#include "arch/kernel_errno.h"

#include <string.h>

int iotlb_init(struct iotlb *t, unsigned int entries, unsigned int ways, unsigned int granule_shift)
{
	if (!entries || entries > IOTLB_MAX_ENTRIES || granule_shift > 40)
		return KERR_INVAL;
	if (!ways)
		ways = entries;
	if (ways > entries || entries % ways)
		return KERR_INVAL;
	memset(t, 0, sizeof(*t));
	t->entries = entries;
	t->ways = ways;
	t->nsets = entries / ways;
	t->granule_shift = granule_shift;
	return 0;
}

static void iotlb_lookup(struct iotlb *t, uint64_t tag)
{
	unsigned int set = (unsigned int)(tag % t->nsets);
	unsigned int first = set * t->ways, victim = first;
	bool have_empty = false;

	t->lookups++;
	t->clock++;
	for (unsigned int i = first; i < first + t->ways; i++) {
		if (!t->valid[i]) {
			/* The first empty entry is the victim; nothing need be evicted. */
			if (!have_empty) {
				have_empty = true;
				victim = i;
			}
			continue;
		}
		if (t->tag[i] == tag) {
			t->stamp[i] = t->clock;
			return;
		}
		if (!have_empty && t->stamp[i] < t->stamp[victim])
			victim = i; /* least recently used so far */
	}
	t->misses++;
	t->valid[victim] = true;
	t->tag[victim] = tag;
	t->stamp[victim] = t->clock;
}

void iotlb_access(struct iotlb *t, uint64_t addr, uint64_t len)
{
	uint64_t first = addr >> t->granule_shift;
	uint64_t last = (addr + (len ? len : 1) - 1) >> t->granule_shift;

	for (uint64_t g = first; g <= last; g++)
		iotlb_lookup(t, g);
}

void iotlb_reset_counters(struct iotlb *t)
{
	t->lookups = 0;
	t->misses = 0;
}
