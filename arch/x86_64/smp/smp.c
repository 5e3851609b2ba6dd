/* SPDX-License-Identifier: MIT */
/*
 * smp.c - starting the application processors and giving them work (see smp.h).
 *
 * Start-up of one AP, in order:
 *   1. the BSP allocates the AP's stacks and fills the trampoline's parameter
 *      block (its stack, its struct cpu_local, the kernel's CR0/CR3/CR4/EFER),
 *      then makes the page read-only and executable (W^X: see mmu.h);
 *   2. INIT, 10 ms, start-up IPI, 200 us, a second start-up IPI (the second is
 *      ignored by a CPU that already left wait-for-SIPI);
 *   3. the AP runs the trampoline into long mode and ap_entry(): own GDT and TSS,
 *      the shared IDT, GS = its cpu_local, FPU/SSE state like the BSP's, its
 *      local APIC; then it sets "online" and waits for work;
 *   4. the BSP waits for "online" (the parameter block is free again only then),
 *      and on a timeout sends INIT once more to park the CPU for good;
 *   5. the page goes back to writable and non-executable, and every online CPU
 *      drops its TLB entry for it.
 */
#include "arch/x86_64/smp/smp.h"

#include <inttypes.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch/x86_64/fw/acpi.h"
#include "arch/x86_64/cpu/cpu.h"
#include "arch/x86_64/cpu/descriptors.h"
#include "arch/x86_64/cpu/panic.h"
#include "arch/x86_64/smp/lapic.h"
#include "arch/x86_64/smp/percpu.h"
#include "arch/x86_64/mm/mmu.h"
#include "arch/x86_64/cpu/tsc.h"

#define MSR_EFER 0xC0000080u
#define MSR_GS_BASE 0xC0000101u
#define EFER_SCE (1u << 0)
#define EFER_LME (1u << 8)
#define EFER_NXE (1u << 11)
#define CR4_PCIDE (1u << 17)
#define AP_STACK_BYTES (256u << 10)
#define AP_IST_BYTES (16u << 10)
#define AP_START_TIMEOUT_NS SMP_AP_START_TIMEOUT_NS

/**
 * struct cpu_local - one CPU's own data; GS points at it.
 * @pc: the per-CPU head (percpu.h), first: GS base points here; its @self
 *	and @index are also reachable as the members below.
 * @self: the struct's own address (read as %gs:0).
 * @index: dense CPU index (read as %gs:8 by percpu_cpu_id()).
 * @apic_id: local APIC ID.
 * @online: set by the AP once it runs on its own stack and descriptors.
 * @posted: work items posted by CPU 0 (written only by CPU 0).
 * @done: work items finished (written only by this CPU).
 * @fn: the current work.
 * @arg: its argument.
 * @start_ns: how long start-up took, for the report.
 * @ist_top: top of its IST1 stack (NMI, #DF, #MC).
 */
struct cpu_local {
	union {
		struct percpu_head pc;
		struct {
			struct percpu_head *self;
			unsigned int index;
		};
	};
	uint32_t apic_id;
	volatile uint32_t online;
	uint64_t posted;
	uint64_t done;
	smp_fn fn;
	void *arg;
	uint64_t start_ns;
	uint64_t ist_top;
	volatile uint32_t parked; /* in the simulated platform's AP firmware (smp_ap_firmware) */
	uint64_t stack_top;
	volatile int start_error; /* the platform's ap_start hook failed on this AP */
} __attribute__((aligned(64)));	  /* one cache line each: no false sharing */

_Static_assert(__builtin_offsetof(struct cpu_local, index) == PERCPU_INDEX_OFFSET,
	       "percpu_cpu_id() reads the index of struct percpu_head");

/* Layout of the parameter block at ap_trampoline_params (ap_trampoline.S). */
struct ap_trampoline_params {
	uint16_t gdt_limit;
	uint32_t gdt_base;
	uint16_t pad0;
	uint32_t far32_offset;
	uint16_t far32_selector;
	uint16_t pad1;
	uint32_t far64_offset;
	uint16_t far64_selector;
	uint16_t pad2;
	uint32_t cr0;
	uint32_t cr4;
	uint32_t cr3;
	uint32_t efer;
	uint64_t stack_top;
	uint64_t arg;
	uint64_t entry;
	uint16_t gdt64_limit;
	uint64_t gdt64_base;
} __attribute__((packed));
_Static_assert(sizeof(struct ap_trampoline_params) == 74, "trampoline parameter layout");

extern const char ap_trampoline_start[], ap_trampoline_end[], ap_trampoline_params[];
extern const char ap_trampoline_protected[], ap_trampoline_long[], ap_trampoline_gdt[];
extern const char ap_mailbox_entry[];
extern void ipi_wakeup_entry(void);
extern void ipi_spurious_entry(void);

static struct cpu_local cpu_locals[SMP_MAX_CPUS];
static unsigned int cpus_online = 1;
static uint64_t bsp_xcr0;

static inline void xsetbv0(uint64_t v)
{
	__asm__ volatile("xsetbv" : : "a"((uint32_t)v), "d"((uint32_t)(v >> 32)), "c"(0));
}

static void smp_set_gs(struct cpu_local *cl)
{
	percpu_install(&cl->pc);
}

void smp_init_bsp(void)
{
	cpu_locals[0].index = 0;
	smp_set_gs(&cpu_locals[0]);
}

unsigned int smp_cpu_count(void)
{
	return cpus_online;
}

/* Wait, halted with interrupts enabled only inside "sti; hlt" (sti's one-instruction
 * shadow means a wake-up IPI that arrives after the check is still taken by the
 * hlt), until CPU 0 posts work; run it; repeat. */
__attribute__((noreturn)) static void ap_wait_for_work(struct cpu_local *cl)
{
	for (;;) {
		while (__atomic_load_n(&cl->posted, __ATOMIC_ACQUIRE) == cl->done)
			pvio_halt(true);
		/* A conversion while this CPU waited may have left it stale
		 * translations of memory its work will use (mmu.h). */
		mmu_tlb_sync();
		cl->fn(cl->arg, cl->index);
		__atomic_store_n(&cl->done, cl->done + 1, __ATOMIC_RELEASE);
	}
}

/* The AP's first C code, on its own stack, entered from the trampoline with the
 * kernel's page tables but the trampoline's GDT and no IDT. */
static const struct smp_ap_firmware *ap_firmware;
static struct acpi_wakeup_mailbox *wakeup_mailbox;

static const struct smp_ap_ops *ap_ops;

void smp_set_ap_firmware(const struct smp_ap_firmware *fw)
{
	ap_firmware = fw;
}

void smp_set_ap_ops(const struct smp_ap_ops *ops)
{
	ap_ops = ops;
}

#define MXCSR_EXCEPTION_MASKS 0x1f80u
#define SMP_ERR_MXCSR (-1001)

static bool ap_mxcsr_unmasked(void)
{
	uint32_t mxcsr;

	__asm__ volatile("stmxcsr %0" : "=m"(mxcsr));
	return (mxcsr & MXCSR_EXCEPTION_MASKS) != MXCSR_EXCEPTION_MASKS;
}

__attribute__((noreturn, used)) static void ap_entry(struct cpu_local *cl)
{
	/* Under a simulated platform the first arrival is the INIT-SIPI start:
	 * park in its AP firmware until the mailbox wakes this AP (sim-tdx), or
	 * the simulated hypervisor starts it from its VMSA (sim-snp). */
	if (ap_firmware && !__atomic_load_n(&cl->parked, __ATOMIC_ACQUIRE))
		ap_firmware->park(ap_firmware->ctx, cl->apic_id, &cl->parked, wakeup_mailbox);
	gdt_init_cpu(cl->index, cl->ist_top);
	idt_load();
	/* An AP the platform created (SNP) came up with its GS base from the VMSA
	 * (gdt_init_cpu() keeps it): the hook finds this CPU's data through it,
	 * and registers what the paravirtual I/O of smp_set_gs() needs. */
	if (ap_ops && ap_ops->ap_start) {
		int rc = ap_ops->ap_start(ap_ops->ctx, cl->index);

		if (rc) {
			__atomic_store_n(&cl->start_error, rc, __ATOMIC_RELEASE);
			for (;;)
				cpu_relax();
		}
	}
	smp_set_gs(cl);
	/* An AP whose SSE exceptions are not all masked (MXCSR[12:7]; a VMSA
	 * that left MXCSR 0, for one) would fault on its first inexact result:
	 * refused here rather than later. */
	if (ap_mxcsr_unmasked()) {
		__atomic_store_n(&cl->start_error, SMP_ERR_MXCSR, __ATOMIC_RELEASE);
		for (;;)
			cpu_relax();
	}
	/* INIT left x87 in its reset state; SSE is enabled by CR4 copied from the BSP. */
	__asm__ volatile("fninit");
	if (read_cr4() & CR4_OSXSAVE)
		xsetbv0(bsp_xcr0);
	lapic_enable_on_ap();
	__atomic_store_n(&cl->online, 1, __ATOMIC_RELEASE);
	ap_wait_for_work(cl);
}

static void smp_wait_us(uint64_t us)
{
	uint64_t end = now_ns() + us * 1000;

	while (now_ns() < end)
		cpu_relax();
}

/* Send INIT-SIPI-SIPI and wait for the AP to report in (@flag: its online flag,
 * or the simulated firmware's "parked"); 0 once it has. */
static int smp_sipi_and_wait(struct cpu_local *cl, uint64_t page, volatile uint32_t *flag)
{
	uint64_t t0 = now_ns(), deadline;

	if (lapic_send_init(cl->apic_id))
		goto not_accepted;
	smp_wait_us(10000);
	if (lapic_send_startup(cl->apic_id, page))
		goto not_accepted;
	smp_wait_us(200);
	if (!__atomic_load_n(flag, __ATOMIC_ACQUIRE) && lapic_send_startup(cl->apic_id, page))
		goto not_accepted;
	deadline = now_ns() + AP_START_TIMEOUT_NS;
	while (!__atomic_load_n(flag, __ATOMIC_ACQUIRE)) {
		if (now_ns() > deadline) {
			/* Park it: a CPU that woke later would run on these stacks and
			 * this parameter block while the next AP uses them. */
			lapic_send_init(cl->apic_id);
			printf("smp: cpu %u (APIC %u) did not start within %" PRIu64
			       " ms; parked with INIT, going on without it\n",
			       cl->index, cl->apic_id, AP_START_TIMEOUT_NS / 1000000);
			return -1; /* its stacks stay allocated: it might still touch them */
		}
		cpu_relax();
	}
	cl->start_ns = now_ns() - t0;
	return 0;

not_accepted:
	printf("smp: cpu %u (APIC %u): its local APIC did not accept the IPI; skipped\n", cl->index,
	       cl->apic_id);
	return -1;
}

/*
 * The ACPI Multiprocessor Wakeup mailbox (ACPI 6.4 5.2.12.19): how a TD starts
 * its APs, which receive no INIT or SIPI (TDVF parks them in firmware, polling
 * the mailbox). Set by smp_init() from the MADT (the simulated TD's too).
 */
static bool mailbox_stuck;
static struct cpu_local *late_cpu; /* the AP given up on while the mailbox was stuck */

/*
 * Wake @cl through the mailbox: its APIC ID and our 64-bit entry in the start-up
 * page, then the command; the firmware's AP clears the command when it has read
 * it and jumps to the entry. Linux acpi_wakeup_cpu()
 * (arch/x86/kernel/acpi/madt_wakeup.c) waits for the command to be taken for
 * ever, because the VMM may run that vCPU at any later time. Here each wait has
 * a deadline so that the kernel can report and go on, but the AP is never
 * reset (the OS cannot in a TD) and may still arrive: the command stays
 * posted, no other AP is started after it, and smp_start_ap() leaves the
 * start-up page and its parameter block exactly as the late AP needs them
 * (read-only and executable, never written again), so that it comes up on its
 * own stack and halts in ap_wait_for_work() rather than faulting.
 */
static int smp_wake_ap_mailbox(struct cpu_local *cl, uint64_t page)
{
	struct acpi_wakeup_mailbox *mb = wakeup_mailbox;
	uint64_t t0 = now_ns(), deadline = t0 + AP_START_TIMEOUT_NS;

	if (__atomic_load_n(&mb->command, __ATOMIC_ACQUIRE)) {
		printf("smp: cpu %u (APIC %u): the wakeup mailbox is still busy; skipped\n",
		       cl->index, cl->apic_id);
		return -1;
	}
	mb->apic_id = cl->apic_id;
	mb->wakeup_vector = page + (uint64_t)(ap_mailbox_entry - ap_trampoline_start);
	__atomic_store_n(&mb->command, ACPI_MAILBOX_WAKEUP, __ATOMIC_RELEASE);
	while (__atomic_load_n(&mb->command, __ATOMIC_ACQUIRE)) {
		if (now_ns() > deadline) {
			mailbox_stuck = true;
			printf("smp: cpu %u (APIC %u) did not take the mailbox's wakeup command "
			       "within %" PRIu64 " ms; skipped, its start-up page left as it "
			       "needs it, and no AP after it is started\n",
			       cl->index, cl->apic_id, AP_START_TIMEOUT_NS / 1000000);
			return -1;
		}
		cpu_relax();
	}
	while (!__atomic_load_n(&cl->online, __ATOMIC_ACQUIRE)) {
		if (now_ns() > deadline) {
			mailbox_stuck = true; /* it runs somewhere in our start-up code */
			printf("smp: cpu %u (APIC %u) took the wakeup command but did not report "
			       "in within %" PRIu64 " ms; skipped, and no AP after it is started\n",
			       cl->index, cl->apic_id, AP_START_TIMEOUT_NS / 1000000);
			return -1;
		}
		cpu_relax();
	}
	cl->start_ns = now_ns() - t0;
	return 0;
}

static bool mailbox_only; /* a TD: no INIT-SIPI reaches an AP */

void smp_mailbox_only(void)
{
	mailbox_only = true;
}

static const char *aps_disabled;

void smp_disable_aps(const char *why)
{
	aps_disabled = why;
}

/*
 * Start @cl through the platform (SNP: the AP-create request with its VMSA;
 * INIT-SIPI is not used, except by the simulation to park the AP first). An AP
 * that does not report in by the deadline, or whose start-up hook failed, is
 * destroyed through the platform, reported and skipped.
 */
static int smp_create_ap(struct cpu_local *cl, uint64_t page)
{
	uint64_t t0, deadline;
	int rc, err;

	if (ap_firmware && smp_sipi_and_wait(cl, page, &cl->parked))
		return -1;
	t0 = now_ns();
	deadline = t0 + AP_START_TIMEOUT_NS;
	rc = ap_ops->create(ap_ops->ctx, cl->index, cl->apic_id, (uint64_t)(uintptr_t)ap_entry,
			    cl->stack_top - 8, (uint64_t)(uintptr_t)cl);
	if (rc) {
		printf("smp: cpu %u (APIC %u): %s refused (%d); skipped\n", cl->index, cl->apic_id,
		       ap_ops->name, rc);
		return -1;
	}
	while (!__atomic_load_n(&cl->online, __ATOMIC_ACQUIRE)) {
		err = __atomic_load_n(&cl->start_error, __ATOMIC_ACQUIRE);
		if (err || now_ns() > deadline) {
			if (ap_ops->destroy)
				ap_ops->destroy(ap_ops->ctx, cl->index, cl->apic_id);
			if (err == SMP_ERR_MXCSR)
				printf("smp: cpu %u (APIC %u) came up with SSE exceptions "
				       "unmasked in MXCSR; destroyed, skipped\n",
				       cl->index, cl->apic_id);
			else if (err)
				printf("smp: cpu %u (APIC %u) failed to start (%d); destroyed, "
				       "skipped\n",
				       cl->index, cl->apic_id, err);
			else
				printf("smp: cpu %u (APIC %u) did not report in within %" PRIu64
				       " ms of %s; destroyed, skipped\n",
				       cl->index, cl->apic_id, AP_START_TIMEOUT_NS / 1000000,
				       ap_ops->name);
			return -1;
		}
		cpu_relax();
	}
	cl->start_ns = now_ns() - t0;
	return 0;
}

/* Start @cl the way the platform starts APs: the mailbox in a TD, INIT-SIPI
 * otherwise; in the simulated TD, INIT-SIPI into the simulated firmware first. */
static int smp_wake_ap(struct cpu_local *cl, uint64_t page, struct ap_trampoline_params *p)
{
	if (ap_ops)
		return smp_create_ap(cl, page);
	if (!wakeup_mailbox)
		return smp_sipi_and_wait(cl, page, &cl->online);
	/* The start-up page is read-only now (W^X): the AP's first arrival in
	 * ap_entry() diverts it into the simulated firmware (cl->parked clear). */
	(void)p;
	if (ap_firmware && smp_sipi_and_wait(cl, page, &cl->parked))
		return -1;
	return smp_wake_ap_mailbox(cl, page);
}

static int smp_start_ap(struct cpu_local *cl, uint64_t page)
{
	struct ap_trampoline_params *p =
		(void *)(uintptr_t)(page + (uint64_t)(ap_trampoline_params - ap_trampoline_start));
	uint8_t *stack = memalign(64, AP_STACK_BYTES), *ist = memalign(64, AP_IST_BYTES);
	int rc;

	if (!stack || !ist) {
		free(stack);
		free(ist);
		printf("smp: cpu %u (APIC %u): no memory for its stacks\n", cl->index, cl->apic_id);
		return -1;
	}
	cl->ist_top = (uint64_t)(ist + AP_IST_BYTES);
	cl->stack_top = (uint64_t)(stack + AP_STACK_BYTES);
	trap_set_cpu_stack_bounds(cl->index, (uint64_t)stack, (uint64_t)(stack + AP_STACK_BYTES));

	p->gdt_base = (uint32_t)(page + (uint64_t)(ap_trampoline_gdt - ap_trampoline_start));
	p->gdt64_base = p->gdt_base;
	p->far32_offset =
		(uint32_t)(page + (uint64_t)(ap_trampoline_protected - ap_trampoline_start));
	p->far64_offset = (uint32_t)(page + (uint64_t)(ap_trampoline_long - ap_trampoline_start));
	/* CR0 with WP and EFER with NXE, as mmu_init() set them: the AP enforces W^X too. */
	p->cr0 = (uint32_t)read_cr0();
	p->cr4 = (uint32_t)(read_cr4() & ~(uint64_t)CR4_PCIDE); /* PCIDE needs long mode first */
	p->cr3 = (uint32_t)read_cr3();
	p->efer = (uint32_t)(rdmsr(MSR_EFER) & (EFER_SCE | EFER_LME | EFER_NXE));
	p->stack_top = (uint64_t)(stack + AP_STACK_BYTES);
	p->arg = (uint64_t)cl;
	p->entry = (uint64_t)ap_entry;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);

	/*
	 * W^X: the page is writable and non-executable while we fill it, and
	 * read-only and executable only while the AP runs in it (after paging is
	 * on its fetches go through our tables with NX). The AP writes nothing
	 * there: the trampoline's GDT has its accessed bits preset.
	 */
	if (mmu_set_trampoline_exec(true)) {
		printf("smp: cpu %u (APIC %u): the start-up page cannot be made executable; "
		       "skipped\n",
		       cl->index, cl->apic_id);
		trap_set_cpu_stack_bounds(cl->index, 0, 0);
		free(stack);
		free(ist);
		return -1;
	}
	rc = smp_wake_ap(cl, page, p);
	if (rc && mailbox_stuck) {
		late_cpu = cl; /* it may still arrive: the page stays as it needs it */
		return rc;
	}
	if (mmu_set_trampoline_exec(false)) {
		/* Never leave it executable and go on writing it for the next AP. */
		kernel_panic("smp: the start-up page could not be made non-executable again");
	}
	return rc;
}

/* Drop this CPU's TLB entry of the start-up page (it may still say executable). */
static void smp_forget_trampoline(void *arg, unsigned int cpu)
{
	(void)cpu;
	invlpg(*(const uint64_t *)arg);
}

/*
 * The mailbox the MADT names, if the kernel may write to it: the host builds
 * the ACPI tables of a TD (the TDX module measures them, nobody checks them),
 * so a planted entry could make the start-up write 16 bytes at a private
 * address of its choosing. TDVF puts the mailbox in a page of
 * EfiACPIMemoryNVS (OvmfPkg/TdxDxe/TdxAcpiTable.c, RelocateMailbox()): a page
 * the firmware's memory map reserves (ACPI or reserved, not RAM the kernel
 * uses), 4 KiB aligned.
 */
static struct acpi_wakeup_mailbox *smp_checked_mailbox(const struct acpi_cpus *mc,
						       const struct mem_range *ranges,
						       unsigned int nranges)
{
	if (!mc->wakeup_mailbox)
		return NULL;
	if (mc->wakeup_entries > 1)
		printf("smp: the MADT has %u wakeup structures; the first is used (as Linux)\n",
		       mc->wakeup_entries);
	if (!mem_range_firmware_page(ranges, nranges, mc->wakeup_mailbox)) {
		printf("smp: the MADT's wakeup mailbox at 0x%" PRIx64 " is not a 4 KiB page the "
		       "firmware reserved (ACPI NVS or reserved memory); not used\n",
		       mc->wakeup_mailbox);
		return NULL;
	}
	return (struct acpi_wakeup_mailbox *)(uintptr_t)mc->wakeup_mailbox;
}

unsigned int smp_init(const struct acpi_cpus *mc, const struct mem_range *ranges,
		      unsigned int nranges, struct mem_region trampoline, unsigned int max_cpus)
{
	uint64_t page = trampoline.base;
	uint32_t bsp_apic;
	unsigned int listed = mc->count;

	cpus_online = 1;
	if (!max_cpus || max_cpus > SMP_MAX_CPUS)
		max_cpus = SMP_MAX_CPUS;
	if (lapic_init(mc->lapic_base)) {
		printf("smp: no usable local APIC; running on one CPU\n");
		return 1;
	}
	bsp_apic = lapic_id();
	cpu_locals[0].apic_id = bsp_apic;
	printf("smp: MADT lists %u processor%s (%u not usable), local APIC in %s mode, BSP APIC "
	       "ID %u\n",
	       listed, listed == 1 ? "" : "s", mc->skipped, lapic_is_x2apic() ? "x2APIC" : "xAPIC",
	       bsp_apic);
	if (listed <= 1 || max_cpus == 1)
		return 1;
	if (aps_disabled) {
		printf("smp: %s; running on one CPU\n", aps_disabled);
		return 1;
	}
	if (!ap_ops)
		wakeup_mailbox = smp_checked_mailbox(mc, ranges, nranges);
	if (mailbox_only && !ap_ops && !wakeup_mailbox) {
		printf("smp: no usable ACPI wakeup mailbox, and a TD's application processors "
		       "receive no INIT-SIPI; running on one CPU\n");
		return 1;
	}
	if (ap_ops)
		printf("smp: application processors start through %s, not INIT-SIPI%s%s%s\n",
		       ap_ops->name, ap_firmware ? " (" : "", ap_firmware ? ap_firmware->what : "",
		       ap_firmware ? ")" : "");
	else if (wakeup_mailbox)
		printf("smp: application processors start through the ACPI wakeup mailbox "
		       "(MADT version %u) at 0x%" PRIx64 "%s%s%s, not INIT-SIPI\n",
		       mc->wakeup_version, (uint64_t)(uintptr_t)wakeup_mailbox,
		       ap_firmware ? " (" : "", ap_firmware ? ap_firmware->what : "",
		       ap_firmware ? ")" : "");
	if (!trampoline.size || page >= (1u << 20)) {
		printf("smp: no page below 1 MiB for the start-up code; running on one CPU\n");
		return 1;
	}
	if (read_cr3() >= (UINT64_C(1) << 32)) {
		printf("smp: page tables above 4 GiB cannot be loaded from 32-bit code; one CPU\n");
		return 1;
	}
	if (read_cr4() & CR4_OSXSAVE)
		bsp_xcr0 = xgetbv(0);
	memcpy((void *)(uintptr_t)page, ap_trampoline_start,
	       (size_t)(ap_trampoline_end - ap_trampoline_start));
	idt_set_interrupt(SMP_WAKE_VECTOR, ipi_wakeup_entry);
	idt_set_interrupt(SMP_SPURIOUS_VECTOR, ipi_spurious_entry);

	for (unsigned int i = 0; i < listed && cpus_online < max_cpus; i++) {
		struct cpu_local *cl = &cpu_locals[cpus_online];

		if (mc->apic_id[i] == bsp_apic)
			continue;
		if (mailbox_stuck)
			break; /* an AP may still run on the start-up page */
		memset(cl, 0, sizeof(*cl));
		cl->index = cpus_online;
		cl->apic_id = mc->apic_id[i];
		if (smp_start_ap(cl, page))
			continue;
		printf("smp: cpu %u (APIC %u) online in %.3f ms\n", cl->index, cl->apic_id,
		       (double)cl->start_ns / 1e6);
		cpus_online++;
		/*
		 * The new AP ran from the page: it may keep a TLB entry that says
		 * executable, and the page is writable again. mmu only flushed
		 * ours, so every CPU drops its entry before the page is written
		 * for the next AP (SDM vol. 3 4.10.5: no shootdown in hardware).
		 */
		smp_run(cpus_online, smp_forget_trampoline, &page);
	}
	printf("smp: %u CPU%s online\n", cpus_online, cpus_online == 1 ? "" : "s");
	return cpus_online;
}

void smp_report_late(void)
{
	if (!late_cpu)
		return;
	if (__atomic_load_n(&late_cpu->online, __ATOMIC_ACQUIRE))
		printf("smp: APIC %u, given up on at start-up, arrived later and halted "
		       "(not used)\n",
		       late_cpu->apic_id);
	else
		printf("smp: APIC %u, given up on at start-up, has not arrived\n",
		       late_cpu->apic_id);
}

void smp_run(unsigned int ncpus, smp_fn fn, void *arg)
{
	if (ncpus < 1)
		ncpus = 1;
	if (ncpus > cpus_online)
		ncpus = cpus_online;
	for (unsigned int i = 1; i < ncpus; i++) {
		struct cpu_local *cl = &cpu_locals[i];

		cl->fn = fn;
		cl->arg = arg;
		__atomic_store_n(&cl->posted, cl->posted + 1, __ATOMIC_RELEASE);
		lapic_send_fixed(cl->apic_id, SMP_WAKE_VECTOR);
	}
	fn(arg, 0);
	for (unsigned int i = 1; i < ncpus; i++)
		while (__atomic_load_n(&cpu_locals[i].done, __ATOMIC_ACQUIRE) !=
		       cpu_locals[i].posted)
			cpu_relax();
}
