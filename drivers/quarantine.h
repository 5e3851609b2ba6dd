/* SPDX-License-Identifier: MIT */
/*
 * quarantine.h - memory a device may still write, kept out of use for good.
 *
 * A device is shown to be unable to touch memory only when its reset completes
 * (virtio 1.2, 2.4: status reads back 0). When it does not, every ring, header,
 * buffer and mapping it was given is left as it is, never freed, unmapped or
 * reused, and recorded here, so that the report and the statistics show it as
 * leaked rather than pretend it was released.
 */
#ifndef SLUICE_DRIVERS_QUARANTINE_H
#define SLUICE_DRIVERS_QUARANTINE_H

#include <stdint.h>

/**
 * struct quarantine_totals - what has been quarantined since boot.
 * @devices: devices that did not reset when they were to let go.
 * @bytes: bytes of rings, headers and buffers left to them.
 * @mappings: DMA mappings left in place (bounce slots or in-place mappings).
 */
struct quarantine_totals {
	uint64_t devices;
	uint64_t bytes;
	uint64_t mappings;
};

/**
 * quarantine_record() - count one device's memory as quarantined.
 * @bytes: bytes it keeps.
 * @mappings: DMA mappings it keeps.
 */
void quarantine_record(uint64_t bytes, uint64_t mappings);

/**
 * quarantine_totals_get() - the totals since boot.
 * @out: filled in.
 */
void quarantine_totals_get(struct quarantine_totals *out);

#endif /* SLUICE_DRIVERS_QUARANTINE_H */
