/* SPDX-License-Identifier: MIT */
/*
 * virtio_pci.h - the virtio 1.x modern PCI transport (virtio 1.2, 4.1).
 *
 * Modern devices only (QEMU's disable-legacy=on): the common, notify, ISR and
 * device configuration structures are found through vendor capabilities and
 * reached through memory BARs. Every capability field comes from the host and is
 * bounds-checked against its BAR before the first access.
 */
#ifndef SLUICE_DRIVERS_VIRTIO_PCI_H
#define SLUICE_DRIVERS_VIRTIO_PCI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "drivers/pci/pci.h"
#include "drivers/virtio/virtio.h"

#define VIRTIO_PCI_VENDOR 0x1af4
#define VIRTIO_PCI_MODERN_BASE 0x1040 /* device ID = 0x1040 + virtio device type */
#define VIRTIO_PCI_MAX_QUEUES 64

/* vendor capability cfg_type values */
#define VIRTIO_PCI_CAP_COMMON_CFG 1
#define VIRTIO_PCI_CAP_NOTIFY_CFG 2
#define VIRTIO_PCI_CAP_ISR_CFG 3
#define VIRTIO_PCI_CAP_DEVICE_CFG 4
#define VIRTIO_PCI_CAP_PCI_CFG 5

/**
 * struct virtio_pci_region - where one configuration structure lives.
 * @bar: BAR index.
 * @offset: offset in the BAR.
 * @length: bytes.
 */
struct virtio_pci_region {
	uint8_t bar;
	uint32_t offset;
	uint32_t length;
};

/**
 * struct virtio_pci_caps - the structures a modern device announced.
 * @common: common configuration.
 * @notify: notification area.
 * @notify_off_multiplier: bytes between queue notify addresses.
 * @isr: ISR status.
 * @device: device-specific configuration (length 0 if absent).
 */
struct virtio_pci_caps {
	struct virtio_pci_region common, notify, isr, device;
	uint32_t notify_off_multiplier;
};

/**
 * struct virtio_pci - a virtio device on PCI.
 * @vdev: the transport-independent device (first: container_of is a cast).
 * @pci: the PCI function.
 * @caps: its capability layout.
 * @common: mapped common configuration.
 * @notify: mapped notification area.
 * @device_cfg: mapped device configuration.
 * @queue_notify: notify address of each queue set up.
 * @num_queues: the device's queue count, bounded: read at probe and again, once,
 *	when FEATURES_OK is set (it may depend on the features).
 * @features_ok_latched: @num_queues was read for the current negotiation.
 */
struct virtio_pci {
	struct virtio_device vdev;
	const struct pci_device *pci;
	struct virtio_pci_caps caps;
	uint64_t common;
	uint64_t notify;
	uint64_t device_cfg;
	uint64_t queue_notify[VIRTIO_PCI_MAX_QUEUES];
	uint16_t num_queues;
	bool features_ok_latched;
};

/**
 * virtio_pci_parse_caps() - find and validate the vendor capabilities.
 * @pci: the function (BARs sized).
 * @caps: filled in.
 * @why: on failure, the reason.
 * @why_len: its size.
 * Return: 0, or -22 when a required structure is missing or a capability
 * points outside its BAR.
 */
int virtio_pci_parse_caps(const struct pci_device *pci, struct virtio_pci_caps *caps, char *why,
			  size_t why_len);

/**
 * virtio_pci_probe() - bind the transport to a modern virtio function.
 * @vp: caller storage.
 * @pci: the function; bus mastering is enabled here.
 * @confidential: whether the guest is confidential (see struct virtio_device).
 * @why: on failure, the reason.
 * @why_len: its size.
 * Return: 0 with @vp->vdev ready for virtio_negotiate(), or a negative code.
 */
int virtio_pci_probe(struct virtio_pci *vp, const struct pci_device *pci, bool confidential,
		     char *why, size_t why_len);

/**
 * virtio_pci_device_type() - the virtio device type of a PCI function.
 * @pci: the function.
 * Return: VIRTIO_ID_* for a modern virtio function, 0 otherwise.
 */
uint16_t virtio_pci_device_type(const struct pci_device *pci);

#endif /* SLUICE_DRIVERS_VIRTIO_PCI_H */
