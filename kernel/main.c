/* SPDX-License-Identifier: MIT */
/*
 * main.c - the kernel proper: set up the CPU, the clock, the heap and the page
 * tables, print the boot report, run what the options ask for, exit QEMU.
 *
 * Runs after ExitBootServices on the kernel stack; no GNU-EFI headers here.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch/x86_64/fw/acpi.h"
#include "arch/x86_64/cpu/cpu.h"
#include "arch/x86_64/cpu/descriptors.h"
#include "arch/x86_64/mm/mmu.h"
#include "arch/x86_64/cpu/qemu_exit.h"
#include "arch/x86_64/cpu/serial.h"
#include "arch/x86_64/smp/smp.h"
#include "arch/x86_64/cpu/tsc.h"
#include "boot/boot_info.h"
#include "kernel/cc_setup.h"
#include "kernel/dma_setup.h"
#include "boot/memmap.h"
#include "kernel/pci_setup.h"
#include "kernel/tasks.h"
#include "kernel/virtio_probe.h"
#include "drivers/deadline.h"
#include "kernel/syscalls.h"

#define MIB (UINT64_C(1) << 20)
static uint64_t deadline_tsc_now(void *ctx)
{
	(void)ctx;
	return rdtsc();
}

static void report_memory(const struct boot_info *bi)
{
	uint64_t bytes[MEM_MMIO + 1] = { 0 };

	for (unsigned int i = 0; i < bi->nranges; i++)
		bytes[bi->ranges[i].kind] += bi->ranges[i].size;
	printf("memory: %" PRIu64 " MiB usable, %" PRIu64 " MiB kernel, %" PRIu64
	       " KiB acpi, %" PRIu64 " MiB reserved, %u ranges\n",
	       bytes[MEM_USABLE] / MIB, bytes[MEM_KERNEL] / MIB, bytes[MEM_ACPI] / 1024,
	       bytes[MEM_RESERVED] / MIB, bi->nranges);
	for (unsigned int i = 0; i < bi->nranges; i++)
		printf("  [%2u] 0x%010" PRIx64 "-0x%010" PRIx64 " %-8s %8" PRIu64 " KiB\n", i,
		       bi->ranges[i].base, bi->ranges[i].base + bi->ranges[i].size,
		       mem_kind_name(bi->ranges[i].kind), bi->ranges[i].size / 1024);
	printf("reserved at boot:\n");
	printf("  image  0x%010" PRIx64 " %6" PRIu64 " KiB\n", bi->image_base,
	       bi->image_size / 1024);
	printf("  heap   0x%010" PRIx64 " %6" PRIu64 " KiB\n", bi->heap.base, bi->heap.size / 1024);
	printf("  dma    0x%010" PRIx64 " %6" PRIu64 " KiB (2 MiB aligned)\n", bi->dma.base,
	       bi->dma.size / 1024);
	printf("  ptpool 0x%010" PRIx64 " %6" PRIu64 " KiB\n", bi->pagetables.base,
	       bi->pagetables.size / 1024);
	printf("  stack  0x%010" PRIx64 " %6" PRIu64 " KiB\n", bi->stack.base,
	       bi->stack.size / 1024);
}

static void report_cpu(const struct cpu_info *cpu)
{
	printf("cpu: %s \"%s\" family %u model %u stepping %u%s%s\n", cpu->vendor, cpu->brand,
	       cpu->family, cpu->model, cpu->stepping, cpu->hypervisor[0] ? ", hypervisor " : "",
	       cpu->hypervisor);
	printf("cpu: %u-bit physical addresses, invariant TSC %s, x2APIC %s, 1G pages %s\n",
	       cpu->phys_addr_bits, cpu->has_invariant_tsc ? "yes" : "no",
	       cpu->has_x2apic ? "yes" : "no", cpu->has_1g_pages ? "yes" : "no");
	if (cpu->cc == CC_NONE)
		printf("cc: none detected; private/shared conversions are emulated in the page "
		       "tables\n");
	else
		printf("cc: %s detected (C-bit %u); the platform's own lines follow\n",
		       cc_mode_name(cpu->cc), cpu->c_bit);
}

/* The options lines of the boot report; lists as they are written (a,b,c). */
static void report_options(const struct boot_info *bi)
{
	const struct kernel_options *o = &bi->options;
	char policies[128], modes[64];

	options_list_format(policies, sizeof(policies), options_policy_names, o->policies);
	options_list_format(modes, sizeof(modes), options_mode_names, o->modes);
	printf("options: heap=%" PRIu64 "K dma=%" PRIu64 "K pool=%" PRIu64
	       "K policies=%s scrub=%s fault=%s (from %s)\n",
	       o->heap_bytes / 1024, o->dma_bytes / 1024, o->pool_bytes / 1024, policies,
	       options_scrub_names[o->scrub], options_fault_name(o->fault), bi->options_source);
	printf("options: modes=%s blk=%s iodepth=%" PRIu64 " bs=%" PRIu64 " frames=%" PRIu64 "\n",
	       modes, options_blk_names[o->blk], o->iodepth, o->bs, o->frames);
}

/*
 * The accelerator label for the report and every result line. The runner names it
 * (accel=); QEMU's CPUID hypervisor signature says it too ("TCGTCGTCGTCG",
 * "KVMKVMKVM"), and where the two disagree the signature wins: figures must never
 * be filed under the wrong accelerator.
 */
static void report_accel(const struct cpu_info *cpu, struct kernel_options *opts)
{
	static const char *const signatures[] = { "", "TCGTCGTCGTCG", "KVMKVMKVM" };
	int seen = 0;

	for (int i = 1; i < (int)(sizeof(signatures) / sizeof(signatures[0])); i++)
		if (strcmp(cpu->hypervisor, signatures[i]) == 0)
			seen = i;
	if (seen && opts->accel && seen != opts->accel)
		printf("options: accel=%s, but the CPU's hypervisor signature says %s; "
		       "results are labelled %s\n",
		       options_accel_names[opts->accel], options_accel_names[seen],
		       options_accel_names[seen]);
	const char *source = !opts->accel	 ? (seen ? "from the CPU's hypervisor signature" :
							   "not named by the runner") :
			     seen == opts->accel ? "named by the runner, confirmed by CPUID" :
			     seen		 ? "from the CPU's hypervisor signature" :
						   "as the runner named it";

	if (seen)
		opts->accel = seen;
	printf("options: accel=%s (%s; every result line names it)\n",
	       options_accel_names[opts->accel], source);
}

static void report_tsc(const struct acpi_pm_timer *pm)
{
	uint64_t hz = tsc_hz();

	if (tsc_reference() == TSC_REF_ACPI_PM)
		printf("tsc: %" PRIu64 ".%06" PRIu64 " MHz, calibrated against the ACPI PM timer "
		       "(port 0x%x, %s)\n",
		       hz / 1000000, hz % 1000000, pm->port, pm->is_32bit ? "32-bit" : "24-bit");
	else
		printf("tsc: %" PRIu64 ".%06" PRIu64 " MHz, calibrated against PIT channel 2\n",
		       hz / 1000000, hz % 1000000);
}

/* Convert one 4 KiB page of the DMA region to shared and back: proves the
 * emulated conversion path works before anything depends on it. */
static int selftest_shared_attribute(const struct boot_info *bi)
{
	uint64_t page = bi->dma.base + 4096, t0, t1, t2;
	int rc;

	t0 = rdtsc();
	rc = mmu_set_shared(page, 4096, true);
	t1 = rdtsc();
	if (rc || !mmu_is_shared(page) || mmu_is_shared(page + 4096)) {
		printf("selftest: converting 0x%" PRIx64 " to shared failed (%d)\n", page, rc);
		return -1;
	}
	rc = mmu_set_shared(page, 4096, false);
	t2 = rdtsc();
	if (rc || mmu_is_shared(page)) {
		printf("selftest: converting 0x%" PRIx64 " back to private failed (%d)\n", page,
		       rc);
		return -1;
	}
	printf("mmu: 4 KiB page to shared %" PRIu64 " cycles (includes the 2 MiB split), back "
	       "%" PRIu64 " cycles\n",
	       t1 - t0, t2 - t1);
	return 0;
}

/* The task table (kernel/tasks.h), in order: each task the options ask for runs;
 * one that fails ends the kernel with its status. */
static void run_tasks(const struct task_env *env)
{
	for (unsigned int i = 0; i < kernel_task_count; i++) {
		const struct kernel_task *t = &kernel_tasks[i];

		if (t->wanted(env)) {
			int status = t->run(env);

			if (status != SLUICE_EXIT_PASS)
				exit(status);
		}
		if (t->arena_release && (env->opts->modes & (UINT64_C(1) << KDMA_ARENA)))
			kernel_dma_arena_release(env->kd, t->arena_release);
	}
}

void kernel_main(struct boot_info *bi)
{
	struct cpu_info cpu;
	struct acpi_pm_timer pm;
	struct kernel_dma *kd;
	uint64_t tsc_main = rdtsc();
	int rc;

	/* No I/O: the heap is plain memory (cc=sim-snp allocates its model). */
	syscalls_set_heap((void *)bi->heap.base, bi->heap.size);
	/* In a real TD or SNP guest, before anything that would raise a #VE or
	 * #VC (cc_setup.h). */
	cc_setup_early(bi);
	gdt_init();
	smp_init_bsp();
	idt_init();
	trap_set_image_base(bi->image_base);
	trap_set_stack_bounds(bi->stack.base, bi->stack.base + bi->stack.size);
	/* Unbuffered: each printf is one write, so output interleaves correctly with
	 * the exception reporter, which writes to the UART directly. */
	setvbuf(stdout, NULL, _IONBF, 0);
	setvbuf(stderr, NULL, _IONBF, 0);

	/* CPU detection (CPUID and SEV_STATUS only) and our page tables come
	 * before any port I/O, MMIO or output: an SNP guest has no GHCB until
	 * cc_setup_after_mmu(), and never uses the firmware's (cc_setup.c). */
	cpu_detect(&cpu);
	rc = mmu_init(&(struct mmu_memory){ .image_base = bi->image_base,
					    .image_size = bi->image_size,
					    .pagetables = bi->pagetables,
					    .trampoline = bi->trampoline,
					    .ranges = bi->ranges,
					    .nranges = bi->nranges },
		      &cpu, cc_setup_encoding());
	/* Nothing in between: an SNP guest has no GHCB until this. */
	if (!rc)
		cc_setup_after_mmu();
	acpi_pm_timer(bi->acpi_rsdp, &pm);
	tsc_calibrate(pm.port, pm.is_32bit);
	/* Every wait on a device ends: deadlines count TSC time from here on. */
	deadline_set_clock(deadline_tsc_now, NULL, tsc_hz() / 1000);
	deadline_set_timeout_ms((uint32_t)bi->options.device_timeout_ms);

	printf("\nSluice %s (rev %s): DMA cost in confidential guests\n", SLUICE_VERSION,
	       SLUICE_GIT_REV);
	report_cpu(&cpu);
	report_tsc(&pm);
	report_memory(bi);
	printf("boot: efi_main -> kernel_main %.3f ms (ExitBootServices at %.3f ms, "
	       "%u attempt%s)\n",
	       tsc_to_ns(tsc_main - bi->tsc_entry) / 1e6,
	       tsc_to_ns(bi->tsc_exit_boot_services - bi->tsc_entry) / 1e6, bi->ebs_attempts,
	       bi->ebs_attempts == 1 ? "" : "s");
	report_options(bi);
	report_accel(&cpu, &bi->options);

	if (rc) {
		/* Reported only now, with the console up (the old tables are
		 * still loaded); in an SNP guest nothing prints (no GHCB), and
		 * pvio_fatal() still ends it (the MSR protocol's termination). */
		printf("mmu: building the kernel page tables failed (%d)\n", rc);
		pvio_fatal(SLUICE_EXIT_BOOT, "mmu_init failed");
	}
	cc_setup(bi, &cpu);
	mmu_report();
	if (selftest_shared_attribute(bi))
		exit(SLUICE_EXIT_FAIL);
	smp_init(&bi->cpus, bi->ranges, bi->nranges, bi->trampoline,
		 (unsigned int)bi->options.cpus);
	kd = kernel_dma_init(bi, &cpu);
	if (!kd)
		exit(SLUICE_EXIT_BOOT);
	kernel_dma_report(kd);
	if (kernel_dma_selftest(kd))
		exit(SLUICE_EXIT_FAIL);
	cc_setup_arm_faults();

	pci_setup(bi, cpu.phys_addr_bits);
	pci_report();
	virtio_probe_all(true);

	run_tasks(&(struct task_env){ kd, &bi->options });

	smp_report_late();
	cc_setup_report("after the tasks");
	printf("sluice: boot report complete; exit 0\n");
	exit(SLUICE_EXIT_PASS);
}
