/* SPDX-License-Identifier: MIT */
/*
 * net_check.h - the network data-integrity task: frames of many sizes sent from
 * one NIC arrive intact and in order on the other (two NICs on one QEMU hub).
 */
#ifndef SLUICE_BENCH_NET_CHECK_H
#define SLUICE_BENCH_NET_CHECK_H

#include "kernel/dma_setup.h"
#include "drivers/virtio/virtio_net.h"

/* An EtherType from the IEEE "local experimental" range. */
#define NET_CHECK_ETHERTYPE 0x88B5

/**
 * net_check_build() - frame number @seq: addressed from @tx to @rx, of one of
 *	ten sizes 60..1514 chosen by @seq, carrying @seq, its length and a pattern
 *	derived from both.
 * @f: VIRTIO_NET_MAX_FRAME bytes of room.
 * @tx: sending device (source MAC).
 * @rx: receiving device (destination MAC).
 * @seq: the frame's number.
 * Return: the frame's length.
 */
size_t net_check_build(uint8_t *f, const struct virtio_net *tx, const struct virtio_net *rx,
		       uint32_t seq);

/**
 * net_check_verify() - whether @f is exactly frame @seq from @tx to @rx.
 * @f: the received frame.
 * @len: its length.
 * @tx: sending device.
 * @rx: receiving device.
 * @seq: the number it must carry.
 * Return: NULL if it is, else a short reason ("not a test frame", "out of
 *	sequence", "wrong length", "corrupted payload").
 */
const char *net_check_verify(const uint8_t *f, size_t len, const struct virtio_net *tx,
			     const struct virtio_net *rx, uint32_t seq);

/**
 * net_check_run() - send @frames frames from @tx to @rx and check each one.
 * @tx: sending device.
 * @rx: receiving device.
 * @cfg: DMA mode and policy (for the report).
 * @frames: number of frames.
 * Return: 0, or the number of frames lost, corrupted or out of order.
 */
int net_check_run(struct virtio_net *tx, struct virtio_net *rx, const struct kdma_config *cfg,
		  unsigned int frames);

#endif /* SLUICE_BENCH_NET_CHECK_H */
