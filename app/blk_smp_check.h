/* SPDX-License-Identifier: MIT */
/*
 * blk_smp_check.h - block data integrity with every CPU doing I/O at once.
 */
#ifndef SLUICE_BENCH_BLK_SMP_CHECK_H
#define SLUICE_BENCH_BLK_SMP_CHECK_H

#include <stddef.h>

#include "kernel/dma_setup.h"
#include "drivers/virtio/virtio_blk.h"

/**
 * blk_smp_check() - write the mode's pattern region (blk_check_region(), the
 * pattern of blk_pattern_byte()) from every CPU at once, each CPU a share of the
 * blocks in scattered order on its own request queue; flush; then every CPU reads
 * back the blocks *another* CPU wrote and compares each byte with the pattern.
 * The host checks the image afterwards (scripts/blk_pattern.py verify).
 * @blk: the device, initialised on the configuration's layer with up to one queue
 *	per CPU (shared under a lock when there are fewer).
 * @kd: the DMA set-up (buffers come from the configuration's memory).
 * @cfg: the configuration.
 * @iodepth: requests in flight per CPU (at most 256).
 * @bs: request size in bytes.
 *
 * Prints one line per CPU and a summary; only CPU 0 prints.
 * Return: number of failures (errors, mismatches, a CPU that did no I/O).
 */
int blk_smp_check(struct virtio_blk *blk, struct kernel_dma *kd, const struct kdma_config *cfg,
		  unsigned int iodepth, size_t bs);

#endif /* SLUICE_BENCH_BLK_SMP_CHECK_H */
