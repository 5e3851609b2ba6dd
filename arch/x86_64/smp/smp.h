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

#include "arch/x86_64/cpu/cpu.h"
#include "arch/x86_64/mm/mem_range.h"
#include "arch/x86_64/smp/percpu.h"

/* The vector of the IPI that wakes a halted AP; 0xff is the APIC's spurious one. */
#define SMP_WAKE_VECTOR 0xf0
#define SMP_SPURIOUS_VECTOR 0xff

struct acpi_cpus;

/**
 * typedef smp_fn - work for smp_run().
 * @arg: the argument given to smp_run().
 * @cpu: index of the CPU running it.
 */
typedef void (*smp_fn)(void *arg, unsigned int cpu);

/**
 * smp_init_bsp() - per-CPU data of the bootstrap CPU (index 0), installed
 * (percpu_install()). Call right after gdt_init(), before any AP exists.
 */
void smp_init_bsp(void);

/**
 * smp_init() - start the application processors the MADT lists.
 * @cpus: the processors the ACPI MADT lists (read by the boot stage).
 * @ranges: the memory map: a wakeup mailbox is used only in a page it
 *	reserves for the firmware (mem_range_firmware_page()).
 * @nranges: entries in @ranges.
 * @trampoline: a page below 1 MiB for the real-mode start-up code (size 0: none).
 * @max_cpus: use at most this many CPUs including the BSP (0: all listed).
 *
 * Each AP is started with INIT-SIPI-SIPI and must report in within a deadline;
 * one that does not is sent INIT again (so it cannot wake later on a stack meant
 * for another), reported, and skipped. Prints one line per CPU.
 * Return: the number of CPUs online, at least 1.
 */
unsigned int smp_init(const struct acpi_cpus *cpus, const struct mem_range *ranges,
		      unsigned int nranges, struct mem_region trampoline, unsigned int max_cpus);

/**
 * smp_simulate_td_firmware() - start the APs the way a TD does, through an ACPI
 *	Multiprocessor Wakeup mailbox, with the kernel playing the firmware's part:
 *	each AP is first started by INIT-SIPI into a loop that waits on the mailbox
 *	as TDVF's APs do, then woken through it (cc=sim-tdx). Call before smp_init().
 * @silent: the simulated firmware's APs never take the wakeup command (a fault
 *	to inject: the kernel must report and skip them, not wait for ever).
 * @late: they take it only after the kernel's deadline (a fault to inject: the
 *	late AP must find its start-up page as it needs it).
 */
void smp_simulate_td_firmware(bool silent, bool late);

/**
 * smp_report_late() - if an AP was given up on while the mailbox still held
 *	its command, say whether it has arrived since (it then halts, unused).
 */
void smp_report_late(void);

/**
 * smp_disable_aps() - start no AP: the platform has no way to (smp_init() says
 *	@why and runs on one CPU). Call before smp_init().
 * @why: the reason, printed (a string that lives as long as the kernel).
 */
void smp_disable_aps(const char *why);

/**
 * smp_mailbox_only() - this guest is a TD: its APs start only through the MADT's
 *	wakeup mailbox; without a usable one the kernel runs on one CPU rather than
 *	send INIT-SIPI. Call before smp_init().
 */
void smp_mailbox_only(void);

/**
 * struct smp_ap_ops - a platform that starts APs itself rather than by
 *	INIT-SIPI or the ACPI mailbox (an SEV-SNP guest: the AP-create request
 *	with a VMSA per AP).
 * @name: the mechanism, for the report ("SNP AP creation").
 * @create: ask the platform to start the AP @apic_id (dense index @cpu) in
 *	64-bit mode at @entry with RSP @rsp, RDI and the GS base @arg, on this
 *	kernel's page tables and descriptor tables. Return 0 or a negative code
 *	(the platform refused: the AP never runs).
 * @destroy: the AP did not report in: ask the platform to stop it for good.
 * @ap_start: the first thing the AP does on its own descriptors, before any
 *	paravirtual I/O (an SNP AP registers its GHCB here). Return 0, or a
 *	negative code: the AP stops and the BSP reports it.
 * @ctx: handed to each.
 */
struct smp_ap_ops {
	const char *name;
	int (*create)(void *ctx, unsigned int cpu, uint32_t apic_id, uint64_t entry, uint64_t rsp,
		      uint64_t arg);
	void (*destroy)(void *ctx, unsigned int cpu, uint32_t apic_id);
	int (*ap_start)(void *ctx, unsigned int cpu);
	void *ctx;
};

/**
 * smp_set_ap_ops() - start every AP through @ops from now on (before
 *	smp_init()); NULL: INIT-SIPI or the mailbox.
 * @ops: kept by pointer.
 */
void smp_set_ap_ops(const struct smp_ap_ops *ops);

/**
 * smp_simulate_parking() - the simulated SNP guest (cc=sim-snp) plays the
 *	hypervisor's part of AP creation: each AP is first started by INIT-SIPI
 *	into a loop where it waits, parked, until smp_sim_release() names it
 *	(the simulated hypervisor honouring an AP-create request). Call before
 *	smp_init(), with smp_set_ap_ops().
 */
void smp_simulate_parking(void);

/**
 * smp_sim_release() - start a parked AP from a VMSA's state: the simulated
 *	hypervisor's VMRUN. Called on any CPU; the AP loads @gs_base into its GS
 *	base, @mxcsr into MXCSR, @rsp, @rdi, and jumps to @rip with interrupts off.
 * @apic_id: the AP.
 * @rip: the VMSA's RIP.
 * @rsp: its RSP.
 * @rdi: its RDI.
 * @gs_base: its GS base.
 * @mxcsr: its MXCSR.
 * Return: 0, or -1 if no AP with that APIC ID is parked.
 */
int smp_sim_release(uint32_t apic_id, uint64_t rip, uint64_t rsp, uint64_t rdi, uint64_t gs_base,
		    uint32_t mxcsr);

/**
 * smp_sim_destroy() - the simulated hypervisor's AP destroy: a parked AP with
 *	@apic_id is never released.
 * @apic_id: the AP.
 */
void smp_sim_destroy(uint32_t apic_id);

/**
 * smp_cpu_count() - CPUs online (1 before smp_init()).
 */
unsigned int smp_cpu_count(void);

/**
 * smp_cpu_id() - the calling CPU's index (0 on the BSP and before smp_init_bsp()):
 *	percpu_cpu_id(), named here for the floors above arch/.
 */
static inline unsigned int smp_cpu_id(void)
{
	return percpu_cpu_id();
}

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
