/* SPDX-License-Identifier: MIT */
/*
 * net_smp_check.h - network data integrity with every CPU sending and receiving
 * at once, each on its own queue pair when the NICs offer multiqueue.
 */
#ifndef SLUICE_BENCH_NET_SMP_CHECK_H
#define SLUICE_BENCH_NET_SMP_CHECK_H

#include "kernel/dma_setup.h"
#include "drivers/virtio/virtio_net.h"

/**
 * net_smp_check() - every CPU sends @frames numbered frames from @tx on pair
 * (cpu mod tx pairs) and receives from @rx on pair (cpu mod rx pairs), all at
 * once. The device may steer any frame to any receive queue, so a frame can be
 * received by another CPU than the one that polled for its sender: each frame
 * is checked byte for byte (net_check_verify()) and marked in its sender's bitmap;
 * a second copy is a duplicate. A sender keeps at most a small window of frames
 * in flight, counted by whoever receives them.
 * @tx: sending device (shared pairs must be locked: virtio_net_share_pairs()).
 * @rx: receiving device (likewise).
 * @cfg: DMA mode and policy (for the report).
 * @frames: frames per CPU, 1..65536.
 *
 * Prints one line per CPU and a summary; only CPU 0 prints.
 * Return: frames lost, corrupted or duplicated (0 when all arrived intact).
 */
int net_smp_check(struct virtio_net *tx, struct virtio_net *rx, const struct kdma_config *cfg,
		  unsigned int frames);

#endif /* SLUICE_BENCH_NET_SMP_CHECK_H */
