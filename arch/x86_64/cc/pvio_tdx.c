/* SPDX-License-Identifier: MIT */
/*
 * pvio_tdx.c - paravirtual I/O in a TD (see pvio_tdx.h). Register use per the
 * GHCI, as Linux's #VE handlers use it (arch/x86/coco/tdx/tdx.c: handle_in/out,
 * mmio_read/write, handle_cpuid, read_msr/write_msr, __halt).
 */
#include "arch/x86_64/cc/pvio_tdx.h"

#include "arch/x86_64/cpu/qemu_exit.h"

#define DIR_READ 0
#define DIR_WRITE 1

/* MSRs the TDX module or the CPU virtualises, read and written without the
 * VMM (pvio_tdx_msr_is_native()). */
#define MSR_APIC_BASE 0x1Bu
#define MSR_FEAT_CTL 0x3Au
#define MSR_EFER 0xC0000080u
#define MSR_FS_BASE 0xC0000100u
#define MSR_GS_BASE 0xC0000101u
#define MSR_KERNEL_GS_BASE 0xC0000102u
#define X2APIC_TPR 0x808u
#define X2APIC_PPR 0x80Au
#define X2APIC_EOI 0x80Bu
#define X2APIC_ISR0 0x810u /* ISR 0x810-0x817, TMR 0x818-0x81F, IRR 0x820-0x827 */
#define X2APIC_IRR7 0x827u

static struct pvio_tdx *pt(void *ctx)
{
	return ctx;
}

static uint64_t size_mask(unsigned int size)
{
	return size >= 8 ? ~UINT64_C(0) : (UINT64_C(1) << (8 * size)) - 1;
}

static uint32_t tdx_io_in(void *ctx, uint16_t port, unsigned int size)
{
	uint64_t v = 0;

	if (tdx_vmcall(pt(ctx)->td, TDVMCALL_IO, size, DIR_READ, port, 0, &v)) {
		pt(ctx)->errors++;
		return (uint32_t)size_mask(size);
	}
	return (uint32_t)(v & size_mask(size));
}

static void tdx_io_out(void *ctx, uint16_t port, unsigned int size, uint32_t v)
{
	if (tdx_vmcall(pt(ctx)->td, TDVMCALL_IO, size, DIR_WRITE, port, v & size_mask(size), NULL))
		pt(ctx)->errors++;
}

/* MMIO lives in shared memory: the VMM is given the shared GPA. */
static uint64_t tdx_mmio_read(void *ctx, uint64_t pa, unsigned int size)
{
	uint64_t v = 0;

	if (tdx_vmcall(pt(ctx)->td, TDVMCALL_MMIO, size, DIR_READ, pa | pt(ctx)->td->shared_bit, 0,
		       &v)) {
		pt(ctx)->errors++;
		return size_mask(size);
	}
	return v & size_mask(size);
}

static void tdx_mmio_write(void *ctx, uint64_t pa, unsigned int size, uint64_t v)
{
	if (tdx_vmcall(pt(ctx)->td, TDVMCALL_MMIO, size, DIR_WRITE, pa | pt(ctx)->td->shared_bit,
		       v & size_mask(size), NULL))
		pt(ctx)->errors++;
}

/*
 * The TDX module answers the architectural leaves itself, from the TD's
 * configuration (trusted); only the hypervisor range 0x40000000-0x4FFFFFFF is
 * the VMM's to answer (as Linux handle_cpuid() does). The instruction for the
 * former is the native backend's: this file executes none.
 */
static void tdx_cpuid(void *ctx, uint32_t leaf, uint32_t sub, uint32_t r[4])
{
	if (leaf < 0x40000000u || leaf > 0x4FFFFFFFu) {
		pt(ctx)->native->cpuid(pt(ctx)->native->ctx, leaf, sub, r);
		return;
	}
	if (tdx_vmcall_cpuid(pt(ctx)->td, leaf, sub, r))
		pt(ctx)->errors++;
}

bool pvio_tdx_msr_is_native(uint32_t msr)
{
	switch (msr) {
	case MSR_EFER:
	case MSR_FS_BASE:
	case MSR_GS_BASE:
	case MSR_KERNEL_GS_BASE:
	case X2APIC_TPR:
	case X2APIC_PPR:
	case X2APIC_EOI:
		return true;
	default:
		return msr >= X2APIC_ISR0 && msr <= X2APIC_IRR7;
	}
}

bool pvio_tdx_msr_is_read_only(uint32_t msr)
{
	return msr == MSR_APIC_BASE || msr == MSR_EFER || msr == MSR_FEAT_CTL;
}

static uint64_t tdx_rdmsr(void *ctx, uint32_t msr)
{
	const struct pvio_ops *n = pt(ctx)->native;
	uint64_t v = 0;

	if (pvio_tdx_msr_is_native(msr))
		return n->rdmsr(n->ctx, msr);
	if (tdx_vmcall(pt(ctx)->td, TDVMCALL_RDMSR, msr, 0, 0, 0, &v))
		pt(ctx)->errors++;
	return v;
}

/* A write the CPU virtualises (the EOI of the wake-up IPI's handler above
 * all: through the VMM it would be refused and the vector would stay in
 * service) is the native instruction; a write the VMM refuses is not sent. */
static void tdx_wrmsr(void *ctx, uint32_t msr, uint64_t v)
{
	const struct pvio_ops *n = pt(ctx)->native;

	if (pvio_tdx_msr_is_native(msr)) {
		n->wrmsr(n->ctx, msr, v);
		return;
	}
	if (pvio_tdx_msr_is_read_only(msr)) {
		pt(ctx)->errors++;
		return;
	}
	if (tdx_vmcall(pt(ctx)->td, TDVMCALL_WRMSR, msr, v, 0, 0, NULL))
		pt(ctx)->errors++;
}

/* Instruction.HLT: R12 says whether interrupts are blocked, so that the VMM
 * does not wake a vCPU that cannot take the interrupt (GHCI; Linux __halt()). */
/* The interrupt flag around the idle call. Host tests run this file in user
 * mode, where STI and CLI fault: there the flag is left alone. */
static void irq_disable(void)
{
#ifndef SLUICE_HOST
	__asm__ volatile("cli" ::: "memory");
#endif
}

static void tdx_halt(void *ctx, bool irqs)
{
	/* Interrupts stay off until the STI that comes with the TDCALL: a wake-up
	 * that arrives after the caller's check is then pending when the VMM's HLT
	 * looks (tdx_vmcall_hlt()), and is taken as soon as the TDCALL returns,
	 * before the CLI. */
	tdx_vmcall_hlt(pt(ctx)->td, irqs);
	irq_disable();
}

static void tdx_fatal(void *ctx, int code, const char *msg)
{
	/* The run's status first (QEMU's isa-debug-exit, where there is one),
	 * then the GHCI's way to end the TD. */
	tdx_io_out(ctx, QEMU_EXIT_PORT, 4, QEMU_EXIT_BASE + (uint32_t)code);
	for (;;) {
		tdx_report_fatal(pt(ctx)->td, msg);
		tdx_halt(ctx, false);
	}
}

void pvio_tdx_init(struct pvio_tdx *p, struct tdx *td)
{
	p->td = td;
	p->errors = 0;
	p->native = &pvio_native;
	p->ops = (struct pvio_ops){
		.name = "tdx",
		.io_in = tdx_io_in,
		.io_out = tdx_io_out,
		.mmio_read = tdx_mmio_read,
		.mmio_write = tdx_mmio_write,
		.cpuid = tdx_cpuid,
		.rdmsr = tdx_rdmsr,
		.wrmsr = tdx_wrmsr,
		.halt = tdx_halt,
		.fatal = tdx_fatal,
		.ctx = p,
	};
}
