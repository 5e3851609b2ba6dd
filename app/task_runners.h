/* SPDX-License-Identifier: MIT */
/*
 * task_runners.h - the runners behind the entries of the task table
 * (app/tasks.c): the block and network tasks, the network benchmark, the
 * deliberate faults. Only app/tasks.c calls them.
 */
#ifndef SLUICE_BENCH_TASK_RUNNERS_H
#define SLUICE_BENCH_TASK_RUNNERS_H

#include "kernel/dma_setup.h"
#include "boot/options.h"
#include "drivers/virtio/virtio.h"

/**
 * blk_find_device() - the first usable virtio-blk device, or NULL.
 */
struct virtio_device *blk_find_device(void);

/**
 * run_blk_tasks() - the block task in every selected mode, each on its own DMA
 *	layer: every configuration reads the untouched disk first, then each
 *	writes its mode's region (on every CPU at once with blk=smp).
 * @kd: the DMA layers.
 * @opts: the options (modes, blk, iodepth, bs).
 * @device_faults: incremented for each device that broke the protocol, was
 *	stopped or did not reset.
 * Return: the number of failures (0 also when there is no block device).
 */
int run_blk_tasks(struct kernel_dma *kd, const struct kernel_options *opts,
		  unsigned int *device_faults);

/**
 * run_net_tasks() - the network task in every selected mode: NIC 0 sends to
 *	NIC 1 on the hub (on every CPU at once with net=smp).
 * @kd: the DMA layers.
 * @opts: the options (modes, net, frames).
 * @device_faults: incremented for each device that did not reset.
 * Return: the number of failures (0 also when there are fewer than two NICs).
 */
int run_net_tasks(struct kernel_dma *kd, const struct kernel_options *opts,
		  unsigned int *device_faults);

/**
 * run_net_bench() - the network benchmark: 64 B and 1514 B frames in every
 *	configuration, a human line per run, then the JSON lines with ratios.
 * @kd: the DMA layers.
 * @opts: the options (modes, bench_ms).
 * Return: the number of failed runs (1 when there are fewer than two NICs).
 */
int run_net_bench(struct kernel_dma *kd, const struct kernel_options *opts);

/**
 * deliberate_fault() - raise @fault on CPU @cpu, as the options asked. Never
 *	returns: the exception report exits with status 3, and a fault that did
 *	not trap (or cannot be raised here) exits with status 1.
 * @kd: the DMA layers (an arena block for FAULT_EXEC_SHARED).
 * @fault: the fault.
 * @cpu: the CPU index (fault_cpu=).
 */
__attribute__((noreturn)) void deliberate_fault(struct kernel_dma *kd, enum fault_kind fault,
						unsigned int cpu);

#endif /* SLUICE_BENCH_TASK_RUNNERS_H */
