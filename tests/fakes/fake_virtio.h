/* SPDX-License-Identifier: MIT */
/*
 * fake_virtio.h - a scriptable virtio device behind a transport ops table, for
 * host tests and fuzz targets of the drivers against a device that lies.
 *
 * The device side is plain C over the rings the driver programmed (device
 * addresses are host addresses: tests/fakes/mock_port.c maps identity). A test or a
 * fuzz target pops the chains the driver offered, writes what it likes into
 * them and pushes completions, or does nothing at all; it can make resets fail
 * (always, from FEATURES_OK on, or by a script of which reset calls fail),
 * refuse FEATURES_OK or DRIVER_OK, fail configuration reads, change the
 * configuration and the registers between the driver's reads, and watch every
 * queue set-up and notification through hooks.
 *
 * One device model for every harness: tests/drivers/test_hostile_device.c scripts it
 * by hand, the virtio fuzz targets (tests/fuzz/) from their input.
 */
#ifndef SLUICE_TESTS_FAKE_VIRTIO_H
#define SLUICE_TESTS_FAKE_VIRTIO_H

#include <stdbool.h>
#include <stdint.h>

#include "drivers/virtio/virtio.h"

/* Queues set up at once (any index below 65536). */
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
 * @indirect: the head pointed to an indirect table ...
 * @table: ... at this device address ...
 * @table_len: ... of this many bytes.
 */
struct fake_chain {
	uint16_t head;
	unsigned int n;
	uint64_t addr[FAKE_VIRTIO_MAX_SEGS];
	uint32_t len[FAKE_VIRTIO_MAX_SEGS];
	bool write[FAKE_VIRTIO_MAX_SEGS];
	bool indirect;
	uint64_t table;
	uint32_t table_len;
};

/**
 * struct fake_queue - one queue the driver set up.
 * @index: its queue index.
 * @size: its size.
 * @desc: descriptor table.
 * @avail: driver area.
 * @used: device area.
 * @next_avail: the next available entry the device takes.
 * @used_idx: the device's own copy of used->idx (the driver may not write it,
 *	but a test may scribble over the shared one).
 */
struct fake_queue {
	uint16_t index;
	uint16_t size;
	struct virtq_desc *desc;
	struct virtq_avail *avail;
	struct virtq_used *used;
	uint16_t next_avail;
	uint16_t used_idx;
};

/**
 * struct fake_virtio - the device.
 * @vdev: what the driver is given (ops point at the fake transport).
 * @offered: feature bits offered.
 * @accepted: bits the driver accepted.
 * @status: the status byte as the device holds it.
 * @reset_fails: every reset fails: a write of status 0 is ignored.
 * @reset_fails_after_init: @reset_fails turns on once the driver set
 *	FEATURES_OK (the device resets for the negotiation, then no more).
 * @reset_script: bit k set: reset call k (counted from 0) fails, whatever
 *	@reset_fails says; calls from 32 on follow @reset_fails.
 * @refuse_features_ok: FEATURES_OK does not stick (the device refuses the subset).
 * @refuse_driver_ok: DRIVER_OK is answered with FAILED set.
 * @driver_ok_adds: status bits the device sets when the driver writes DRIVER_OK
 *	(VIRTIO_STATUS_FAILED, VIRTIO_STATUS_NEEDS_RESET: a device that fails).
 * @cfg_fails: configuration reads fail (-5, a generation that never settles).
 * @status_log: the first status values the driver wrote (a reset's 0 included).
 * @nstatus: entries in @status_log.
 * @bad_feature_writes: feature writes outside DRIVER..FEATURES_OK (virtio 1.2,
 *	3.1.1), which a test expects to be 0.
 * @resets: reset calls seen.
 * @failed_resets: of those, the ones that failed.
 * @failed_holding: of those, the ones that failed while queues were set up:
 *	the device may still use them, and what it was given must never be freed.
 * @cfg: device configuration space.
 * @cfg_reads: configuration reads per starting offset.
 * @cfg_change: if set, called after every configuration read, to change the
 *	configuration between the driver's reads.
 * @on_notify: if set, called on every queue_notify() (the device acting on a kick).
 * @on_setup: if set, called after each queue set-up with the queue, to check
 *	what the driver programmed; a non-zero return fails the set-up.
 * @on_features: if set, called with the bits the driver accepts.
 * @on_reset: if set, called at every reset with whether it completes, before
 *	the device forgets its queues: what a device that does not reset keeps.
 * @read_num_queues: if set, answers every read of num_queues (instead of
 *	@num_queues and @num_queues_alt).
 * @read_max_size: if set, answers every read of a queue's maximum size.
 * @ctx: for the hooks.
 * @num_queues: what the common configuration reports.
 * @max_size: largest size of every queue below @num_queues.
 * @num_queues_alt: if not 0, every second read of num_queues returns this
 *	instead (a register that changes between the driver's reads).
 * @max_size_alt: the same for the queue size.
 * @reg_reads: reads of those two registers so far.
 * @setups: queue_setup() calls per queue index (below FAKE_VIRTIO_MAX_QUEUES).
 * @notifies: queue_notify() calls per queue index (the same).
 * @nq: queues set up since the last completed reset ...
 * @q: ... in the order they were set up (a set-up of a known index replaces it).
 */
struct fake_virtio {
	struct virtio_device vdev;
	uint64_t offered, accepted;
	uint8_t status;
	bool reset_fails;
	bool reset_fails_after_init;
	uint32_t reset_script;
	bool refuse_features_ok;
	bool refuse_driver_ok;
	uint8_t driver_ok_adds;
	bool cfg_fails;
	uint8_t status_log[16];
	unsigned int nstatus;
	unsigned int bad_feature_writes;
	unsigned int resets, failed_resets, failed_holding;
	uint8_t cfg[FAKE_VIRTIO_CFG_BYTES];
	unsigned int cfg_reads[FAKE_VIRTIO_CFG_BYTES];
	void (*cfg_change)(struct fake_virtio *f, uint32_t offset);
	void (*on_notify)(struct fake_virtio *f, uint16_t qi);
	int (*on_setup)(struct fake_virtio *f, const struct fake_queue *q);
	void (*on_features)(struct fake_virtio *f, uint64_t features);
	void (*on_reset)(struct fake_virtio *f, bool completes);
	uint16_t (*read_num_queues)(struct fake_virtio *f);
	uint16_t (*read_max_size)(struct fake_virtio *f, uint16_t index);
	void *ctx;
	uint16_t num_queues;
	uint16_t max_size;
	uint16_t num_queues_alt, max_size_alt;
	unsigned int reg_reads;
	unsigned int setups[FAKE_VIRTIO_MAX_QUEUES];
	unsigned int notifies[FAKE_VIRTIO_MAX_QUEUES];
	unsigned int nq;
	struct fake_queue q[FAKE_VIRTIO_MAX_QUEUES];
};

/**
 * fake_virtio_let_go() - from now on every reset succeeds: no failing script,
 *	no failure from FEATURES_OK on, no failure at all.
 * @f: the device.
 */
void fake_virtio_let_go(struct fake_virtio *f);

/**
 * fake_virtio_init() - a device of @type offering VERSION_1, ACCESS_PLATFORM and
 *	@features, with @num_queues queues of 64 entries, confidential.
 * @f: storage (all of it is reset).
 * @type: VIRTIO_ID_*.
 * @features: feature bits offered besides the two above.
 * @num_queues: the queue count the device reports.
 */
void fake_virtio_init(struct fake_virtio *f, uint16_t type, uint64_t features, uint16_t num_queues);

/**
 * fake_virtio_queue() - the queue set up with index @index.
 * @f: the device.
 * @index: queue index.
 * Return: the queue, or NULL if the driver has not set it up (since a reset).
 */
struct fake_queue *fake_virtio_queue(struct fake_virtio *f, uint16_t index);

/**
 * fake_virtio_pop() - take the next chain the driver made available on queue @qi.
 * @f: the device.
 * @qi: queue index.
 * @c: filled with the chain.
 *
 * Follows the chain as a device does, with every bound a device must apply: a
 * head or next index outside the queue (or the indirect table), a nested
 * indirect table, a table length that is no multiple of a descriptor, or more
 * than FAKE_VIRTIO_MAX_SEGS buffers make the chain malformed.
 * Return: 1 with @c filled; 0 when nothing new is available (or no such
 * queue); -1 for a malformed chain (the entry is consumed).
 */
int fake_virtio_pop(struct fake_virtio *f, uint16_t qi, struct fake_chain *c);

/**
 * fake_virtio_avail_pending() - available entries the device has not taken.
 * @f: the device.
 * @qi: queue index.
 * Return: their number (0 for a queue not set up).
 */
unsigned int fake_virtio_avail_pending(struct fake_virtio *f, uint16_t qi);

/**
 * fake_virtio_push() - publish a completion of @id with @len bytes on queue @qi.
 * @f: the device.
 * @qi: queue index (a queue not set up is ignored).
 * @id: the used entry's id.
 * @len: its length.
 */
void fake_virtio_push(struct fake_virtio *f, uint16_t qi, uint32_t id, uint32_t len);

/**
 * fake_virtio_set_idx() - set the used index of queue @qi (to make it jump).
 * @f: the device.
 * @qi: queue index.
 * @idx: the new used->idx.
 */
void fake_virtio_set_idx(struct fake_virtio *f, uint16_t qi, uint16_t idx);

/**
 * fake_virtio_clock_ticks() - a clock for the drivers' deadlines that advances by
 *	one tick every time it is read; tests count time in reads.
 * @ctx: a uint64_t tick counter.
 */
uint64_t fake_virtio_clock_ticks(void *ctx);

#endif
