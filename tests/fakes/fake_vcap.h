/* SPDX-License-Identifier: MIT */
/*
 * fake_vcap.h - a virtio vendor capability written into a fake function's
 * configuration space, for the host tests that parse one (tests/drivers/test_pci.c over
 * its own bus, tests/kernel/test_pci_setup.c over tests/fakes/fake_pci.c).
 */
#ifndef SLUICE_TESTS_FAKE_VCAP_H
#define SLUICE_TESTS_FAKE_VCAP_H

#include <stdint.h>
#include <string.h>

#include "drivers/pci/pci.h"
#include "drivers/virtio/virtio_pci.h"

/**
 * fake_vcap_write() - struct virtio_pci_cap (virtio 1.2, 4.1.4), and for the
 *	notify capability struct virtio_pci_notify_cap, at @at of @cfg.
 * @cfg: the function's 256 bytes of configuration space.
 * @at: the capability's offset.
 * @next: the next capability's offset (0: the last).
 * @type: VIRTIO_PCI_CAP_*.
 * @bar: the BAR the structure is in.
 * @off: its offset in the BAR.
 * @len: its length.
 * @mult: notify_off_multiplier (notify capability only).
 */
static inline void fake_vcap_write(uint8_t *cfg, uint8_t at, uint8_t next, uint8_t type,
				   uint8_t bar, uint32_t off, uint32_t len, uint32_t mult)
{
	cfg[at] = PCI_CAP_ID_VENDOR;
	cfg[at + 1] = next;
	cfg[at + 2] = type == VIRTIO_PCI_CAP_NOTIFY_CFG ? 20 : 16;
	cfg[at + 3] = type;
	cfg[at + 4] = bar;
	memcpy(cfg + at + 8, &off, 4);
	memcpy(cfg + at + 12, &len, 4);
	if (type == VIRTIO_PCI_CAP_NOTIFY_CFG)
		memcpy(cfg + at + 16, &mult, 4);
}

#endif
