/* SPDX-License-Identifier: MIT */
/*
 * virtio_probe.h - binding the virtio transport to the PCI functions found.
 */
#ifndef SLUICE_BOOT_VIRTIO_PROBE_H
#define SLUICE_BOOT_VIRTIO_PROBE_H

#include <stdbool.h>

#include "drivers/virtio/virtio_pci.h"

#define VIRTIO_PROBE_MAX 8

/**
 * virtio_probe_all() - probe every modern virtio function and check it negotiates.
 * @confidential: whether ACCESS_PLATFORM is required.
 * Return: the number of devices that passed (refusals are printed with why).
 */
int virtio_probe_all(bool confidential);

/**
 * virtio_probed() - the devices that passed virtio_probe_all().
 * @out: set to the array.
 * Return: its length.
 */
int virtio_probed(struct virtio_pci **out);

#endif /* SLUICE_BOOT_VIRTIO_PROBE_H */
