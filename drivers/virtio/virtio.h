/* SPDX-License-Identifier: MIT */
/*
 * virtio.h - a virtio device as the blk and net drivers see it: status, features,
 * queues and configuration through a transport's ops table, plus the generic
 * initialisation handshake (virtio 1.2, section 3.1.1).
 *
 * The drivers never touch PCI: virtio_pci.c fills the ops table. The handshake is
 * plain C over the ops, so the host tests drive it with a simulated transport.
 */
#ifndef SLUICE_DRIVERS_VIRTIO_H
#define SLUICE_DRIVERS_VIRTIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Feature bit numbers (VIRTIO_F_VERSION_1, VIRTIO_F_ACCESS_PLATFORM, ...). */
#include <sluice/dma.h>
#include "drivers/virtio/virtio_ring.h"

/* Device status bits (virtio 1.2, 2.1). */
#define VIRTIO_STATUS_ACKNOWLEDGE 1u
#define VIRTIO_STATUS_DRIVER 2u
#define VIRTIO_STATUS_DRIVER_OK 4u
#define VIRTIO_STATUS_FEATURES_OK 8u
#define VIRTIO_STATUS_NEEDS_RESET 64u
#define VIRTIO_STATUS_FAILED 128u

#define VIRTIO_FEATURE(bit) (UINT64_C(1) << (bit))

/* Device types (virtio 1.2, 5). */
#define VIRTIO_ID_NET 1
#define VIRTIO_ID_BLOCK 2

struct virtio_device;

/**
 * struct virtio_transport_ops - what a transport provides (PCI here).
 * @reset: write status 0 and wait until the device reads back 0, at most the
 *	device deadline (drivers/deadline.h). Return 0, or -5 if the device did
 *	not complete the reset: it may still use everything it was given.
 * @get_status: read the device status byte.
 * @set_status: write it.
 * @get_features: the 64 feature bits the device offers.
 * @set_features: the 64 bits the driver accepts.
 * @num_queues: queues the device has.
 * @queue_max_size: largest size of queue @index, 0 if it does not exist.
 * @queue_setup: program queue @index with @size entries at the given device
 *	addresses of the descriptor table, driver (available) and device (used)
 *	areas, and enable it. Return 0 or a negative code.
 * @queue_notify: tell the device queue @index has new buffers.
 * @config_read: copy @len bytes of device configuration from @offset into
 *	@buf, retrying until the configuration generation is stable. Return 0,
 *	-34 if the range lies outside the device's configuration, -5 if the
 *	generation never settled.
 */
struct virtio_transport_ops {
	int (*reset)(struct virtio_device *vdev);
	uint8_t (*get_status)(struct virtio_device *vdev);
	void (*set_status)(struct virtio_device *vdev, uint8_t status);
	uint64_t (*get_features)(struct virtio_device *vdev);
	void (*set_features)(struct virtio_device *vdev, uint64_t features);
	uint16_t (*num_queues)(struct virtio_device *vdev);
	uint16_t (*queue_max_size)(struct virtio_device *vdev, uint16_t index);
	int (*queue_setup)(struct virtio_device *vdev, uint16_t index, uint16_t size, uint64_t desc,
			   uint64_t driver, uint64_t device);
	void (*queue_notify)(struct virtio_device *vdev, uint16_t index);
	int (*config_read)(struct virtio_device *vdev, uint32_t offset, void *buf, uint32_t len);
};

/**
 * struct virtio_device - one device, transport-independent.
 * @ops: the transport's ops.
 * @transport: the transport's private state.
 * @device_type: VIRTIO_ID_*.
 * @name: short name for messages, e.g. "virtio-blk@00:02.0".
 * @offered: features the device offered.
 * @features: features negotiated (valid after virtio_negotiate()).
 * @confidential: the guest is confidential: ACCESS_PLATFORM is required and
 *	every buffer goes through the DMA layer's shared memory.
 */
struct virtio_device {
	const struct virtio_transport_ops *ops;
	void *transport;
	uint16_t device_type;
	char name[32];
	uint64_t offered;
	uint64_t features;
	bool confidential;
};

/**
 * virtio_negotiate() - reset, ACKNOWLEDGE, DRIVER, feature negotiation,
 *	FEATURES_OK (virtio 1.2, 3.1.1 steps 1-6).
 * @vdev: the device.
 * @wanted: optional features the driver can use.
 * @why: on failure, a one-line reason.
 * @why_len: size of @why.
 *
 * VERSION_1 is required (modern devices only). In a confidential guest
 * ACCESS_PLATFORM is required too, as Linux and OVMF require it: without it the
 * device would bypass the DMA layer and reach private memory directly. It is
 * accepted whenever offered, since Sluice always uses the DMA layer. On failure
 * the device is reset so that it does not keep a half-negotiated state.
 * Return: 0; -95 (EOPNOTSUPP) when a required feature is missing; -5 when the
 * device refused FEATURES_OK or did not reset.
 */
int virtio_negotiate(struct virtio_device *vdev, uint64_t wanted, char *why, size_t why_len);

/**
 * virtio_driver_ok() - the last handshake step: the driver is ready.
 * @vdev: the device.
 * Return: 0, or -5 if the device reports NEEDS_RESET or FAILED afterwards.
 */
int virtio_driver_ok(struct virtio_device *vdev);

/**
 * virtio_fail() - report a driver failure to the device (status FAILED) and reset it.
 * @vdev: the device.
 * Return: 0, or -5 if the reset did not complete: the device may still use
 *	whatever it was given, which must then never be reused.
 */
int virtio_fail(struct virtio_device *vdev);

/**
 * virtio_has_feature() - whether @bit was negotiated.
 * @vdev: the device.
 * @bit: feature bit number.
 */
static inline bool virtio_has_feature(const struct virtio_device *vdev, unsigned int bit)
{
	return (vdev->features >> bit) & 1;
}

/**
 * virtio_dma_cycles() - the DMA layer's cycle counter, read by a driver that times
 *	its map, sync and unmap calls for a benchmark.
 * @dl: the DMA layer the driver maps through.
 * @profile: the driver's profiling switch.
 * Return: the port's counter (its cycles op), or 0 when @profile is off or the port
 * has none; a caller that got 0 before a call adds nothing after it.
 */
static inline uint64_t virtio_dma_cycles(const struct sluice_dma_layer *dl, bool profile)
{
	return profile && dl->ops.cycles ? dl->ops.cycles(dl->ops.ctx) : 0;
}

#endif /* SLUICE_DRIVERS_VIRTIO_H */
