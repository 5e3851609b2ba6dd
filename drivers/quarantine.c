/* SPDX-License-Identifier: MIT */
/*
 * quarantine.c - the ledger of memory left to devices that did not reset.
 */
#include "drivers/quarantine.h"

static struct quarantine_totals totals;

void quarantine_record(uint64_t bytes, uint64_t mappings)
{
	/* Devices are torn down one at a time, but a CPU may record while another
	 * reads the totals for a report: keep each counter whole. */
	__atomic_fetch_add(&totals.devices, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&totals.bytes, bytes, __ATOMIC_RELAXED);
	__atomic_fetch_add(&totals.mappings, mappings, __ATOMIC_RELAXED);
}

void quarantine_totals_get(struct quarantine_totals *out)
{
	out->devices = __atomic_load_n(&totals.devices, __ATOMIC_RELAXED);
	out->bytes = __atomic_load_n(&totals.bytes, __ATOMIC_RELAXED);
	out->mappings = __atomic_load_n(&totals.mappings, __ATOMIC_RELAXED);
}
