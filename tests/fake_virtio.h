/* SPDX-License-Identifier: MIT */
/*
 * fake_virtio.h - a scriptable virtio device behind a transport ops table, for
 * host tests of the drivers' control path against a device that lies.
 *
 * The device side is plain C over the rings the driver programmed (device
 * addresses are host addresses: tests/mock_port.c maps identity). A test pops
 * the chains the driver offered, writes what it likes into them and pushes
 * completions, or does nothing at all; it can make the reset never complete,
 * count and change configuration reads, and shrink num_queues.
 */
#ifndef SLUICE_TESTS_FAKE_VIRTIO_H
#define SLUICE_TESTS_FAKE_VIRTIO_H

#include <stdbool.h>
#include <stdint.h>

#include "drivers/virtio/virtio.h"

#define FAKE_VIRTIO_MAX_QUEUES 20
#define FAKE_VIRTIO_CFG_BYTES 64
#define FAKE_VIRTIO_MAX_SEGS 24

/**
 * struct fake_chain - one chain the driver offered, as the device found it.
 * @head: its head descriptor index.
 * @n: buffers in it.
 * @addr: their device addresses (host pointers here).
 * @len: their lengths.
 * @write: whether each is device-writable.
 */
struct fake_chain {
	uint16_t head;
	unsigned int n;
	uint64_t addr[FAKE_VIRTIO_MAX_SEGS];
	uint32_t len[FAKE_VIRTIO_MAX_SEGS];
	bool write[FAKE_VIRTIO_MAX_SEGS];
};

/**
 * struct fake_virtio - the device.
 * @vdev: what the driver is given (ops point at the fake transport).
 * @offered: feature bits offered.
 * @accepted: bits the driver accepted.
 * @status: the status byte as the device holds it.
 * @reset_fails: a write of status 0 is ignored: the reset never completes.
 * @reset_fails_after_init: @reset_fails turns on once the driver set
 *	FEATURES_OK (the device resets for the negotiation, then no more).
 * @refuse_features_ok: FEATURES_OK is not kept (the device refuses the subset).
 * @driver_ok_adds: status bits the device sets when the driver writes DRIVER_OK
 *	(VIRTIO_STATUS_FAILED, VIRTIO_STATUS_NEEDS_RESET: a device that fails).
 * @status_log: the first status values the driver wrote (a reset's 0 included).
 * @nstatus: entries in @status_log.
 * @bad_feature_writes: feature writes outside DRIVER..FEATURES_OK (virtio 1.2,
 *	3.1.1), which a test expects to be 0.
 * @resets: status-0 writes seen.
 * @cfg: device configuration space.
 * @cfg_reads: configuration reads per starting offset.
 * @on_notify: if set, called on every queue_notify() (the device acting on a kick).
 * @cfg_change: if set, called after every configuration read, to change the
 *	configuration between the driver's reads.
 * @num_queues: what the common configuration reports.
 * @max_size: largest size of every queue.
 * @num_queues_alt: if not 0, every second read of num_queues returns this
 *	instead (a register that changes between the driver's reads).
 * @max_size_alt: the same for the queue size.
 * @reg_reads: reads of those two registers so far.
 * @setups: queue_setup() calls per queue index.
 * @notifies: queue_notify() calls per queue index.
 * @q: per queue: size, the three areas and the next available entry to take.
 */
struct fake_virtio {
	struct virtio_device vdev;
	uint64_t offered, accepted;
	uint8_t status;
	bool reset_fails;
	bool reset_fails_after_init;
	bool refuse_features_ok;
	uint8_t driver_ok_adds;
	uint8_t status_log[16];
	unsigned int nstatus;
	unsigned int bad_feature_writes;
	unsigned int resets;
	uint8_t cfg[FAKE_VIRTIO_CFG_BYTES];
	unsigned int cfg_reads[FAKE_VIRTIO_CFG_BYTES];
	void (*cfg_change)(struct fake_virtio *f, uint32_t offset);
	void (*on_notify)(struct fake_virtio *f, uint16_t qi);
	uint16_t num_queues;
	uint16_t max_size;
	uint16_t num_queues_alt, max_size_alt;
	unsigned int reg_reads;
	unsigned int setups[FAKE_VIRTIO_MAX_QUEUES];
	unsigned int notifies[FAKE_VIRTIO_MAX_QUEUES];
	struct {
		uint16_t size;
		struct virtq_desc *desc;
		struct virtq_avail *avail;
		struct virtq_used *used;
		uint16_t next_avail;
	} q[FAKE_VIRTIO_MAX_QUEUES];
};

/**
 * fake_virtio_init() - a device of @type offering VERSION_1, ACCESS_PLATFORM and
 *	@features, with @num_queues queues of 64 entries, confidential.
 */
void fake_virtio_init(struct fake_virtio *f, uint16_t type, uint64_t features,
		      uint16_t num_queues);

/**
 * fake_virtio_pop() - take the next chain the driver made available on queue @qi.
 * Return: true and @c filled, or false when there is none.
 */
bool fake_virtio_pop(struct fake_virtio *f, uint16_t qi, struct fake_chain *c);

/**
 * fake_virtio_push() - publish a completion of @id with @len bytes on queue @qi.
 */
void fake_virtio_push(struct fake_virtio *f, uint16_t qi, uint32_t id, uint32_t len);

/**
 * fake_virtio_set_idx() - set the used index of queue @qi (to make it jump).
 */
void fake_virtio_set_idx(struct fake_virtio *f, uint16_t qi, uint16_t idx);

/**
 * fake_virtio_clock_ticks() - a clock for the drivers' deadlines that advances by
 *	one tick every time it is read; tests count time in reads.
 */
uint64_t fake_virtio_clock_ticks(void *ctx);

#endif
