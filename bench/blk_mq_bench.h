/* SPDX-License-Identifier: MIT */
/*
 * blk_mq_bench.h - the multi-job block benchmark: several CPUs doing I/O at once,
 * each on its own virtio-blk request queue, in every DMA configuration.
 */
#ifndef SLUICE_BENCH_BLK_MQ_BENCH_H
#define SLUICE_BENCH_BLK_MQ_BENCH_H

#include <stdint.h>

#include "kernel/dma_setup.h"
#include "drivers/virtio/virtio.h"

/**
 * blk_mq_bench_suite() - 4 KiB randread and randwrite at iodepth 32 per CPU, first
 * on one CPU, then on every CPU at once (one request queue each when the device
 * has enough, else queues shared under a lock), in every configuration of @modes.
 * @kd: the DMA set-up.
 * @vdev: the virtio-blk device.
 * @modes: KDMA_* bit mask.
 * @warmup_ms: warm-up before each measured window.
 * @run_ms: measured window.
 *
 * Prints one human line and one JSON line ("suite":"blk", "threads" = CPUs doing
 * I/O) per run; the N-CPU lines carry "scaling" (N-CPU IOPS / 1-CPU IOPS of the
 * same configuration) and every line the DMA-lock figures "lock_wait_cycles_per_map"
 * and "lock_contended_pct".
 * Return: number of runs that failed.
 */
int blk_mq_bench_suite(struct kernel_dma *kd, struct virtio_device *vdev, uint64_t modes,
		       unsigned int warmup_ms, unsigned int run_ms);

#endif /* SLUICE_BENCH_BLK_MQ_BENCH_H */
