/* SPDX-License-Identifier: MIT */
/*
 * smp.h - the application processors: start-up, per-CPU data, and running a
 * function on several CPUs at once.
 *
 * There is no scheduler. After smp_init() every started AP waits, halted, for
 * work; smp_run() hands one function to CPUs 0..n-1 (the bootstrap CPU runs it
 * too, as CPU 0) and returns when all have finished. CPU indices are dense
 * (0..smp_cpu_count()-1) whatever the APIC IDs are.
 *
 * Rules for a function run on an AP: no stdio and no malloc/free (newlib is built
 * without locks; syscalls.c stops the kernel if an AP tries), no exit(). It may use
 * the DMA layer and the drivers, which take their own spinlocks.
 */
#ifndef SLUICE_ARCH_SMP_H
#define SLUICE_ARCH_SMP_H

#include <stdbool.h>
#include <stdint.h>

#define SMP_MAX_CPUS 16
/* The vector of the IPI that wakes a halted AP; 0xff is the APIC's spurious one. */
#define SMP_WAKE_VECTOR 0xf0
#define SMP_SPURIOUS_VECTOR 0xff

struct boot_info;

/**
 * typedef smp_fn - work for smp_run().
 * @arg: the argument given to smp_run().
 * @cpu: index of the CPU running it.
 */
typedef void (*smp_fn)(void *arg, unsigned int cpu);

/**
 * smp_init_bsp() - per-CPU data of the bootstrap CPU (index 0). Call right after
 * gdt_init(), before anything calls smp_cpu_id().
 */
void smp_init_bsp(void);

/**
 * smp_init() - start the application processors the MADT lists.
 * @bi: the boot hand-off (MADT processor list, the trampoline page).
 * @max_cpus: use at most this many CPUs including the BSP (0: all listed).
 *
 * Each AP is started with INIT-SIPI-SIPI and must report in within a deadline;
 * one that does not is sent INIT again (so it cannot wake later on a stack meant
 * for another), reported, and skipped. Prints one line per CPU.
 * Return: the number of CPUs online, at least 1.
 */
unsigned int smp_init(const struct boot_info *bi, unsigned int max_cpus);

/**
 * smp_simulate_td_firmware() - start the APs the way a TD does, through an ACPI
 *	Multiprocessor Wakeup mailbox, with the kernel playing the firmware's part:
 *	each AP is first started by INIT-SIPI into a loop that waits on the mailbox
 *	as TDVF's APs do, then woken through it (cc=sim-tdx). Call before smp_init().
 * @silent: the simulated firmware's APs never take the wakeup command (a fault
 *	to inject: the kernel must report and skip them, not wait for ever).
 */
void smp_simulate_td_firmware(bool silent);

/**
 * smp_cpu_count() - CPUs online (1 before smp_init()).
 */
unsigned int smp_cpu_count(void);

/**
 * smp_cpu_id() - the calling CPU's index (0 on the BSP and before smp_init_bsp()).
 */
unsigned int smp_cpu_id(void);

/**
 * smp_run() - run @fn(@arg, cpu) on CPUs 0..@ncpus-1 at once and wait for all.
 * @ncpus: how many CPUs, clamped to 1..smp_cpu_count(); CPU 0 is the caller.
 * @fn: the work.
 * @arg: its argument.
 *
 * Call only from CPU 0. The APs start as soon as their wake-up IPI arrives; the
 * caller runs its share, then waits for the others.
 */
void smp_run(unsigned int ncpus, smp_fn fn, void *arg);

#endif /* SLUICE_ARCH_SMP_H */
