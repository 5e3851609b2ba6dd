/* SPDX-License-Identifier: MIT */
/*
 * tasks.h - the one table through which the kernel's entry runs the work the
 * options ask for: the deliberate faults, the block and network checks, the
 * benchmarks.
 *
 * kernel/ declares the table and walks it (kernel_main(), once the devices are
 * probed and the DMA layer is up); app/tasks.c defines it. kernel/ includes
 * nothing of app/: a new task is an entry in app/tasks.c, never a change to
 * kernel/ (docs/ARCHITECTURE.md, "Adding a task").
 */
#ifndef SLUICE_BOOT_TASKS_H
#define SLUICE_BOOT_TASKS_H

#include <stdbool.h>

#include "kernel/dma_setup.h"
#include "boot/options.h"

/**
 * struct task_env - what every task is given.
 * @kd: the kernel's DMA layers (every mode and policy the options set up).
 * @opts: the options, the accelerator already resolved (opts->accel).
 */
struct task_env {
	struct kernel_dma *kd;
	const struct kernel_options *opts;
};

/**
 * struct kernel_task - one entry of the table.
 * @name: what the task is ("block task", "allocator benchmark").
 * @wanted: whether the options ask for it.
 * @run: run it (only when @wanted said so). It prints its own result and, on
 *	failure, why. Return: SLUICE_EXIT_PASS (0) to go on with the next task,
 *	or the exit status the kernel ends with (SLUICE_EXIT_FAIL, ...). A task
 *	may also never return (the deliberate faults end in the exception report).
 * @arena_release: NULL, or a label: after this entry, whether it ran or not,
 *	the arena's idle chunks go back to private (when the arena mode is
 *	selected) and the release is reported "after <label>".
 */
struct kernel_task {
	const char *name;
	bool (*wanted)(const struct task_env *env);
	int (*run)(const struct task_env *env);
	const char *arena_release;
};

/* The table, in the order the tasks run (app/tasks.c). */
extern const struct kernel_task kernel_tasks[];
extern const unsigned int kernel_task_count;

#endif /* SLUICE_BOOT_TASKS_H */
