/* SPDX-License-Identifier: MIT */
/*
 * tasks.c - the task table the kernel's entry walks (kernel/tasks.h): what runs
 * after the boot report, in this order, each when the options ask for it:
 *
 *   fault           fault=KIND          a deliberate exception (never returns)
 *   block task      blk=check|smp       the disk checks in every DMA configuration
 *   network task    frames=N            the NIC-to-NIC checks in every configuration
 *   benchmarks      bench=convert,net,blk,mq,alloc
 *
 * A task prints its own lines and, on failure, the line the end of the run is
 * known by; its status is the kernel's exit status.
 */
#include "kernel/tasks.h"

#include <inttypes.h>
#include <stdio.h>

#include "arch/x86_64/cpu/qemu_exit.h"
#include "bench/alloc_smp_bench.h"
#include "bench/blk_bench.h"
#include "bench/blk_mq_bench.h"
#include "bench/convert_bench.h"
#include "bench/result_json.h"
#include "app/task_runners.h"
#include "boot/bench_suites.h"
#include "kernel/cc_setup.h"
#include "drivers/deadline.h"
#include "drivers/quarantine.h"

/* Devices that broke their protocol, missed a deadline or did not reset. */
static unsigned int device_faults;

/*
 * A task failed: say whether a device was at fault (exit code 6, the device was
 * stopped, what it still holds is quarantined) or a check of ours (exit code 1).
 */
static int task_failed(const char *task)
{
	struct quarantine_totals q;

	quarantine_totals_get(&q);
	if (q.devices)
		printf("quarantine: %" PRIu64 " device%s did not reset; %" PRIu64
		       " bytes and %" PRIu64 " DMA mappings left to them, never reused\n",
		       q.devices, q.devices == 1 ? "" : "s", q.bytes, q.mappings);
	if (device_faults) {
		printf("sluice: %s failed: %u device fault%s (deadline %u ms); exit %d\n", task,
		       device_faults, device_faults == 1 ? "" : "s", deadline_timeout_ms(),
		       SLUICE_EXIT_DEVICE);
		return SLUICE_EXIT_DEVICE;
	}
	printf("sluice: %s failed; exit %d\n", task, SLUICE_EXIT_FAIL);
	return SLUICE_EXIT_FAIL;
}

/* Every result line names the accelerator and the platform it was taken on. */
static void json_labels(const struct task_env *env)
{
	bench_json_set_accel(options_accel_names[env->opts->accel]);
	bench_json_set_cc(cc_setup_name());
	bench_json_set_dma(env->kd->copy_name, options_scrub_names[env->opts->scrub]);
}

static bool fault_wanted(const struct task_env *env)
{
	return env->opts->fault != FAULT_NONE;
}

static int fault_run(const struct task_env *env)
{
	deliberate_fault(env->kd, env->opts->fault, (unsigned int)env->opts->fault_cpu);
}

static bool blk_wanted(const struct task_env *env)
{
	return env->opts->blk != 0;
}

static int blk_run(const struct task_env *env)
{
	if (run_blk_tasks(env->kd, env->opts, &device_faults))
		return task_failed("block task");
	return SLUICE_EXIT_PASS;
}

static bool net_wanted(const struct task_env *env)
{
	return env->opts->frames != 0;
}

static int net_run(const struct task_env *env)
{
	if (run_net_tasks(env->kd, env->opts, &device_faults))
		return task_failed("network task");
	return SLUICE_EXIT_PASS;
}

/* bench=...: a bit per suite of boot/bench_suites.h. */
static bool bench_wanted(const struct task_env *env, enum bench_suite suite)
{
	return (env->opts->bench & (UINT64_C(1) << suite)) != 0;
}

static bool convert_wanted(const struct task_env *env)
{
	return bench_wanted(env, BENCH_SUITE_CONVERT);
}

static int convert_run(const struct task_env *env)
{
	json_labels(env);
	if (convert_bench_run(32)) {
		printf("sluice: conversion benchmark failed\n");
		return SLUICE_EXIT_FAIL;
	}
	return SLUICE_EXIT_PASS;
}

static bool net_bench_wanted(const struct task_env *env)
{
	return bench_wanted(env, BENCH_SUITE_NET);
}

static int net_bench_task(const struct task_env *env)
{
	json_labels(env);
	if (run_net_bench(env->kd, env->opts)) {
		printf("sluice: network benchmark: some runs failed\n");
		return SLUICE_EXIT_FAIL;
	}
	return SLUICE_EXIT_PASS;
}

static bool blk_bench_wanted(const struct task_env *env)
{
	return bench_wanted(env, BENCH_SUITE_BLK);
}

static int blk_bench_task(const struct task_env *env)
{
	const struct kernel_options *o = env->opts;
	struct virtio_device *vdev = blk_find_device();
	int failures = -1;

	json_labels(env);
	if (vdev) {
		struct blk_bench_iotlb iotlb = { (unsigned int)o->iotlb_entries,
						 (unsigned int)o->iotlb_ways };

		failures = blk_bench_suite(env->kd, vdev, o->modes, o->bench_set == 1,
					   (unsigned int)o->bench_ms / 5, (unsigned int)o->bench_ms,
					   &iotlb);
	}
	if (failures) {
		printf("sluice: block benchmark: %s\n",
		       failures < 0 ? "no virtio-blk device" : "some runs failed");
		return SLUICE_EXIT_FAIL;
	}
	return SLUICE_EXIT_PASS;
}

static bool mq_bench_wanted(const struct task_env *env)
{
	return bench_wanted(env, BENCH_SUITE_MQ);
}

static int mq_bench_task(const struct task_env *env)
{
	const struct kernel_options *o = env->opts;
	struct virtio_device *vdev = blk_find_device();

	json_labels(env);
	if (!vdev || blk_mq_bench_suite(env->kd, vdev, o->modes, (unsigned int)o->bench_ms / 5,
					(unsigned int)o->bench_ms)) {
		printf("sluice: multi-job block benchmark: %s\n",
		       vdev ? "some runs failed" : "no virtio-blk device");
		return SLUICE_EXIT_FAIL;
	}
	return SLUICE_EXIT_PASS;
}

static bool alloc_bench_wanted(const struct task_env *env)
{
	return bench_wanted(env, BENCH_SUITE_ALLOC);
}

static int alloc_bench_task(const struct task_env *env)
{
	json_labels(env);
	if (alloc_smp_bench_suite(env->kd, env->opts->modes, (unsigned int)env->opts->bench_ms)) {
		printf("sluice: allocator benchmark: some runs failed\n");
		return SLUICE_EXIT_FAIL;
	}
	return SLUICE_EXIT_PASS;
}

/* Idle arena chunks go back to private after the block and the network task
 * (lazy release); the next task's buffers come from chunks converted again, or
 * from others. */
const struct kernel_task kernel_tasks[] = {
	{ "fault", fault_wanted, fault_run, NULL },
	{ "block task", blk_wanted, blk_run, "the block task" },
	{ "network task", net_wanted, net_run, "the network task" },
	{ "conversion benchmark", convert_wanted, convert_run, NULL },
	{ "network benchmark", net_bench_wanted, net_bench_task, NULL },
	{ "block benchmark", blk_bench_wanted, blk_bench_task, NULL },
	{ "multi-job block benchmark", mq_bench_wanted, mq_bench_task, NULL },
	{ "allocator benchmark", alloc_bench_wanted, alloc_bench_task, NULL },
};

const unsigned int kernel_task_count = sizeof(kernel_tasks) / sizeof(kernel_tasks[0]);
