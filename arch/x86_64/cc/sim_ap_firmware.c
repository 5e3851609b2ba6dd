/* SPDX-License-Identifier: MIT */
/*
 * sim_ap_firmware.c - the simulated platforms' part in starting application
 * processors (see sim_ap_firmware.h).
 */
#include "arch/x86_64/cc/sim_ap_firmware.h"

#include <stddef.h>

#include "arch/x86_64/cc/pvio.h"
#include "arch/x86_64/cpu/cpu.h"
#include "arch/x86_64/cpu/tsc.h"
#include "arch/x86_64/fw/acpi.h"
#include "arch/x86_64/smp/smp.h"

#define MSR_GS_BASE 0xC0000101u

static bool fw_silent; /* sim-tdx: its APs never take a command (a fault to inject) */
static bool fw_late;   /* sim-tdx: they take it only after the kernel's deadline */

/*
 * Simulated AP creation (cc=sim-snp): parked APs, one slot per start attempt
 * (a skipped AP stays parked in its slot while the kernel's next attempt uses
 * another), released by the simulated hypervisor into a VMSA's state.
 */
#define SIM_PARKS 64
#define PARK_FREE 0
#define PARK_WAITING 1
#define PARK_GO 2
#define PARK_DEAD 3
static struct sim_park {
	volatile uint32_t state;
	uint32_t apic_id;
	uint64_t rip, rsp, rdi, gs_base;
	uint32_t mxcsr;
} sim_parks[SIM_PARKS];
static unsigned int sim_parks_used;

int sim_ap_release(uint32_t apic_id, uint64_t rip, uint64_t rsp, uint64_t rdi, uint64_t gs_base,
		   uint32_t mxcsr)
{
	for (unsigned int i = 0; i < SIM_PARKS; i++) {
		struct sim_park *k = &sim_parks[i];

		if (__atomic_load_n(&k->state, __ATOMIC_ACQUIRE) != PARK_WAITING ||
		    k->apic_id != apic_id)
			continue;
		k->rip = rip;
		k->rsp = rsp;
		k->rdi = rdi;
		k->gs_base = gs_base;
		k->mxcsr = mxcsr;
		__atomic_store_n(&k->state, PARK_GO, __ATOMIC_RELEASE);
		return 0;
	}
	return -1;
}

void sim_ap_destroy(uint32_t apic_id)
{
	for (unsigned int i = 0; i < SIM_PARKS; i++)
		if (sim_parks[i].apic_id == apic_id &&
		    __atomic_load_n(&sim_parks[i].state, __ATOMIC_ACQUIRE) == PARK_WAITING)
			__atomic_store_n(&sim_parks[i].state, PARK_DEAD, __ATOMIC_RELEASE);
}

/* A parked AP: wait to be released, then become what the VMSA says (the GS
 * base through the native instruction and MXCSR, as the hardware loads them
 * from the VMSA; RSP, RDI, RIP) and never come back. Without a free slot it
 * never reports in, and the kernel's deadline skips it. */
__attribute__((noreturn)) static void
vmsa_park(void *ctx, uint32_t apic_id, volatile uint32_t *parked, struct acpi_wakeup_mailbox *mb)
{
	unsigned int slot = __atomic_fetch_add(&sim_parks_used, 1, __ATOMIC_ACQ_REL);
	struct sim_park *k;

	(void)ctx;
	(void)mb;
	if (slot >= SIM_PARKS)
		for (;;)
			cpu_relax();
	k = &sim_parks[slot];
	k->apic_id = apic_id;
	__atomic_store_n(&k->state, PARK_WAITING, __ATOMIC_RELEASE);
	__atomic_store_n(parked, 1, __ATOMIC_RELEASE);
	while (__atomic_load_n(&k->state, __ATOMIC_ACQUIRE) != PARK_GO)
		cpu_relax();
	pvio_native.wrmsr(pvio_native.ctx, MSR_GS_BASE, k->gs_base);
	__asm__ volatile("ldmxcsr %0" : : "m"(k->mxcsr));
	__asm__ volatile("cli\n\tmov %0, %%rsp\n\tjmp *%2"
			 :
			 : "r"(k->rsp), "D"(k->rdi), "r"(k->rip)
			 : "memory");
	__builtin_unreachable();
}

/*
 * TDVF's AP loop (EDK2 OvmfPkg/TdxDxe, the relocated mailbox loop): wait for a
 * wakeup command naming this AP, clear the command, jump to the wakeup vector
 * in 64-bit mode with interrupts off.
 */
__attribute__((noreturn)) static void
mailbox_park(void *ctx, uint32_t apic_id, volatile uint32_t *parked, struct acpi_wakeup_mailbox *mb)
{
	uint64_t vector;

	(void)ctx;
	__atomic_store_n(parked, 1, __ATOMIC_RELEASE);
	for (;;) {
		if (__atomic_load_n(&mb->command, __ATOMIC_ACQUIRE) == ACPI_MAILBOX_WAKEUP &&
		    mb->apic_id == apic_id && !fw_silent)
			break;
		cpu_relax();
	}
	if (fw_late) {
		/* A VMM that runs this vCPU only after the kernel gave up on it. */
		uint64_t until = now_ns() + SMP_AP_START_TIMEOUT_NS + SMP_AP_START_TIMEOUT_NS / 10;

		while (now_ns() < until)
			cpu_relax();
	}
	vector = mb->wakeup_vector;
	__atomic_store_n(&mb->command, 0, __ATOMIC_RELEASE);
	__asm__ volatile("cli; jmp *%0" : : "r"(vector) : "memory");
	__builtin_unreachable();
}

static const struct smp_ap_firmware td_firmware = { "the simulated TD plays the firmware's part",
						    mailbox_park, NULL };
static const struct smp_ap_firmware vmsa_firmware = {
	"the simulated hypervisor releases APs it parked", vmsa_park, NULL
};

void sim_ap_firmware_td(bool silent, bool late)
{
	fw_silent = silent;
	fw_late = late;
	smp_set_ap_firmware(&td_firmware);
	smp_mailbox_only();
}

void sim_ap_firmware_vmsa(void)
{
	smp_set_ap_firmware(&vmsa_firmware);
}
