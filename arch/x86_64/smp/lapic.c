/* SPDX-License-Identifier: MIT */
/*
 * lapic.c - local APIC access for processor start-up (see lapic.h).
 */
#include "arch/x86_64/smp/lapic.h"

#include "arch/x86_64/cpu/cpu.h"
#include "arch/x86_64/cpu/tsc.h"

#define MSR_APIC_BASE 0x1Bu
#define APIC_BASE_ENABLE (1ull << 11)
#define APIC_BASE_X2APIC (1ull << 10)
#define APIC_BASE_ADDR_MASK 0x000ffffffffff000ull
#define CPUID1_ECX_X2APIC (1u << 21)
#define CPUID1_EDX_APIC (1u << 9)

/* xAPIC register offsets; the x2APIC MSR is 0x800 + offset / 16. */
#define LAPIC_ID 0x020u
#define LAPIC_EOI 0x0B0u
#define LAPIC_SVR 0x0F0u
#define LAPIC_ICR_LO 0x300u
#define LAPIC_ICR_HI 0x310u
#define X2APIC_MSR(reg) (0x800u + (reg) / 16u)

#define SVR_APIC_ENABLE (1u << 8)
#define ICR_DELIVERY_FIXED (0u << 8)
#define ICR_DELIVERY_INIT (5u << 8)
#define ICR_DELIVERY_STARTUP (6u << 8)
#define ICR_SEND_PENDING (1u << 12)
#define ICR_LEVEL_ASSERT (1u << 14)
#define IPI_ACCEPT_TIMEOUT_NS 10000000ull

static uint64_t xapic; /* xAPIC register page, 0 in x2APIC mode */
static bool x2apic;

static uint32_t lapic_read(uint32_t reg)
{
	if (x2apic)
		return (uint32_t)rdmsr(X2APIC_MSR(reg));
	return mmio_read32(xapic + reg);
}

static void lapic_write(uint32_t reg, uint32_t v)
{
	if (x2apic)
		wrmsr(X2APIC_MSR(reg), v);
	else
		mmio_write32(xapic + reg, v);
}

/* Software-enable the APIC (spurious vector register): an APIC that is only
 * hardware-enabled does not send IPIs on every implementation. */
static void lapic_software_enable(void)
{
	lapic_write(LAPIC_SVR, lapic_read(LAPIC_SVR) | SVR_APIC_ENABLE | 0xFF);
}

int lapic_init(uint64_t mmio_base)
{
	uint32_t r[4];
	uint64_t base;

	cpuid(1, 0, r);
	if (!(r[3] & CPUID1_EDX_APIC))
		return -1;
	base = rdmsr(MSR_APIC_BASE);
	if (!(base & APIC_BASE_ENABLE))
		return -1;
	if (r[2] & CPUID1_ECX_X2APIC) {
		if (!(base & APIC_BASE_X2APIC))
			wrmsr(MSR_APIC_BASE, base | APIC_BASE_X2APIC);
		x2apic = true;
	} else {
		/* The kernel identity-maps the whole hole below 4 GiB uncached. */
		xapic = mmio_base ? mmio_base : base & APIC_BASE_ADDR_MASK;
	}
	lapic_software_enable();
	return 0;
}

/* IA32_APIC_BASE is written only when a mode bit is missing, as Linux
 * x2apic_enable() does: in a TD the TDX module starts every vCPU in x2APIC mode
 * and the VMM refuses the write (tdx_is_read_only_msr(), Linux
 * arch/x86/kvm/vmx/tdx.c). */
void lapic_enable_on_ap(void)
{
	uint64_t base, want = APIC_BASE_ENABLE | APIC_BASE_X2APIC;

	if (x2apic) {
		base = rdmsr(MSR_APIC_BASE);
		if ((base & want) != want)
			wrmsr(MSR_APIC_BASE, base | want);
	}
	lapic_software_enable();
}

bool lapic_is_x2apic(void)
{
	return x2apic;
}

uint32_t lapic_id(void)
{
	uint32_t id = lapic_read(LAPIC_ID);

	return x2apic ? id : id >> 24;
}

static int lapic_send_ipi(uint32_t apic_id, uint32_t icr_lo)
{
	uint64_t deadline;

	if (x2apic) {
		/* One 64-bit write; x2APIC has no send-pending bit to poll. */
		wrmsr(X2APIC_MSR(LAPIC_ICR_LO), ((uint64_t)apic_id << 32) | icr_lo);
		return 0;
	}
	lapic_write(LAPIC_ICR_HI, apic_id << 24);
	lapic_write(LAPIC_ICR_LO, icr_lo);
	deadline = now_ns() + IPI_ACCEPT_TIMEOUT_NS;
	while (lapic_read(LAPIC_ICR_LO) & ICR_SEND_PENDING) {
		if (now_ns() > deadline)
			return -1;
		cpu_relax();
	}
	return 0;
}

int lapic_send_init(uint32_t apic_id)
{
	return lapic_send_ipi(apic_id, ICR_DELIVERY_INIT | ICR_LEVEL_ASSERT);
}

int lapic_send_startup(uint32_t apic_id, uint64_t page)
{
	return lapic_send_ipi(apic_id, ICR_DELIVERY_STARTUP | (uint32_t)(page >> 12));
}

int lapic_send_fixed(uint32_t apic_id, uint8_t vector)
{
	return lapic_send_ipi(apic_id, ICR_DELIVERY_FIXED | vector);
}

void lapic_eoi(void)
{
	lapic_write(LAPIC_EOI, 0);
}
