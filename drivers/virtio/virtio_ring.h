/* SPDX-License-Identifier: MIT */
/*
 * virtio_ring.h - the virtio 1.x split-virtqueue layout in shared memory
 * (virtio 1.2, section 2.7 "Split Virtqueues") and the ring-related feature bit
 * numbers, written from the specification.
 *
 * This is the wire format only: every field is little-endian and lives in memory
 * the device (the untrusted host) can write at any time. Nothing here knows how a
 * queue is driven; that is drivers/virtio/virtqueue.c. Read these structures only
 * through the single-read accessors there, never field by field twice.
 */
#ifndef SLUICE_VIRTIO_RING_H
#define SLUICE_VIRTIO_RING_H

#include <stddef.h>
#include <stdint.h>

/* Feature bits (virtio 1.2, section 6 "Reserved Feature Bits"). */
#define VIRTIO_F_RING_INDIRECT_DESC 28
#define VIRTIO_F_RING_EVENT_IDX 29
#define VIRTIO_F_VERSION_1 32
#define VIRTIO_F_ACCESS_PLATFORM 33
#define VIRTIO_F_RING_PACKED 34
#define VIRTIO_F_IN_ORDER 35

/* Descriptor flags. */
#define VIRTQ_DESC_F_NEXT 1	/* the chain continues in @next */
#define VIRTQ_DESC_F_WRITE 2	/* device-writable (else device-readable) */
#define VIRTQ_DESC_F_INDIRECT 4 /* the buffer is a table of descriptors */

/* avail->flags: the driver asks not to be interrupted (ignored with EVENT_IDX). */
#define VIRTQ_AVAIL_F_NO_INTERRUPT 1
/* used->flags: the device asks not to be notified (ignored with EVENT_IDX). */
#define VIRTQ_USED_F_NO_NOTIFY 1

/* Largest split queue: Queue Size is a power of two no larger than 32768. */
#define VIRTQ_MAX_SIZE 32768u

/* Alignment the specification requires of each part (2.7, table "Virtqueue Part"). */
#define VIRTQ_DESC_ALIGN 16
#define VIRTQ_AVAIL_ALIGN 2
#define VIRTQ_USED_ALIGN 4

/**
 * struct virtq_desc - one buffer of a descriptor chain (device-readable unless
 *	VIRTQ_DESC_F_WRITE).
 * @addr: device (bus) address of the buffer, le64.
 * @len: its length in bytes, le32. For VIRTQ_DESC_F_INDIRECT, the table's
 *	size: a multiple of 16.
 * @flags: VIRTQ_DESC_F_*, le16.
 * @next: index of the next descriptor when VIRTQ_DESC_F_NEXT is set, le16.
 */
struct virtq_desc {
	uint64_t addr;
	uint32_t len;
	uint16_t flags;
	uint16_t next;
};

/**
 * struct virtq_avail - the driver area: chains the driver offers the device.
 * @flags: VIRTQ_AVAIL_F_*, le16.
 * @idx: where the driver will put the next entry (mod queue size), le16;
 *	free-running, wraps at 65536.
 * @ring: heads of offered chains, le16 each. With VIRTIO_F_RING_EVENT_IDX,
 *	ring[queue size] is used_event: "interrupt me once used->idx passes this".
 */
struct virtq_avail {
	uint16_t flags;
	uint16_t idx;
	uint16_t ring[];
};

/**
 * struct virtq_used_elem - one completion written by the device.
 * @id: head index of the completed chain, le32 (the spec widens it to 32 bits
 *	for padding: a hostile device may put anything in it).
 * @len: bytes the device says it wrote into the chain's writable buffers, le32.
 */
struct virtq_used_elem {
	uint32_t id;
	uint32_t len;
};

/**
 * struct virtq_used - the device area: chains the device has finished with.
 * @flags: VIRTQ_USED_F_*, le16.
 * @idx: where the device will put the next entry, le16; free-running.
 * @ring: completions. With VIRTIO_F_RING_EVENT_IDX, the le16 right after
 *	ring[queue size] is avail_event: "notify me once avail->idx passes this".
 */
struct virtq_used {
	uint16_t flags;
	uint16_t idx;
	struct virtq_used_elem ring[];
};

_Static_assert(sizeof(struct virtq_desc) == 16, "virtq_desc is 16 bytes");
_Static_assert(offsetof(struct virtq_desc, len) == 8, "virtq_desc.len at 8");
_Static_assert(offsetof(struct virtq_desc, flags) == 12, "virtq_desc.flags at 12");
_Static_assert(offsetof(struct virtq_desc, next) == 14, "virtq_desc.next at 14");
_Static_assert(sizeof(struct virtq_avail) == 4, "virtq_avail header is 4 bytes");
_Static_assert(offsetof(struct virtq_avail, ring) == 4, "avail ring at 4");
_Static_assert(sizeof(struct virtq_used_elem) == 8, "virtq_used_elem is 8 bytes");
_Static_assert(sizeof(struct virtq_used) == 4, "virtq_used header is 4 bytes");
_Static_assert(offsetof(struct virtq_used, ring) == 4, "used ring at 4");

/* Bytes of each part for a queue of @num entries, event fields included
 * (the spec's sizes: 16 * num, 6 + 2 * num, 6 + 8 * num). */
#define VIRTQ_DESC_TABLE_SIZE(num) ((size_t)(num) * sizeof(struct virtq_desc))
#define VIRTQ_AVAIL_SIZE(num) (sizeof(struct virtq_avail) + (size_t)(num)*2 + 2)
#define VIRTQ_USED_SIZE(num) \
	(sizeof(struct virtq_used) + (size_t)(num) * sizeof(struct virtq_used_elem) + 2)

_Static_assert(VIRTQ_AVAIL_SIZE(256) == 6 + 2 * 256, "avail size as in the spec");
_Static_assert(VIRTQ_USED_SIZE(256) == 6 + 8 * 256, "used size as in the spec");

/*
 * Event-index test (2.7.7.2 / 2.7.10): having moved an index from @old to
 * @new_idx, must the other side be told, given it asked to hear about
 * @event? True when @event lies in [@old, @new_idx) modulo 2^16.
 */
static inline int virtq_need_event(uint16_t event, uint16_t new_idx, uint16_t old)
{
	return (uint16_t)(new_idx - event - 1) < (uint16_t)(new_idx - old);
}

/*
 * virtio 1.x rings are little-endian whatever the CPU. x86 needs no swap; the
 * helpers keep the code honest on a big-endian port.
 */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define virtio_cpu_to_le16(x) __builtin_bswap16(x)
#define virtio_cpu_to_le32(x) __builtin_bswap32(x)
#define virtio_cpu_to_le64(x) __builtin_bswap64(x)
#else
#define virtio_cpu_to_le16(x) ((uint16_t)(x))
#define virtio_cpu_to_le32(x) ((uint32_t)(x))
#define virtio_cpu_to_le64(x) ((uint64_t)(x))
#endif
#define virtio_le16_to_cpu(x) virtio_cpu_to_le16(x)
#define virtio_le32_to_cpu(x) virtio_cpu_to_le32(x)
#define virtio_le64_to_cpu(x) virtio_cpu_to_le64(x)

#endif /* SLUICE_VIRTIO_RING_H */
