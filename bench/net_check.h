/* SPDX-License-Identifier: MIT */
/*
 * net_check.h - the network data-integrity task: frames of many sizes sent from
 * one NIC arrive intact and in order on the other (two NICs on one QEMU hub).
 */
#ifndef SLUICE_BENCH_NET_CHECK_H
#define SLUICE_BENCH_NET_CHECK_H

#include "boot/dma_setup.h"
#include "drivers/virtio/virtio_net.h"

/* An EtherType from the IEEE "local experimental" range. */
#define NET_CHECK_ETHERTYPE 0x88B5

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
