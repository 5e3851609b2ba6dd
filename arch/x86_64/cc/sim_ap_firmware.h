/* SPDX-License-Identifier: MIT */
/*
 * sim_ap_firmware.h - the simulated platforms' part in starting application
 * processors: what TDVF's AP loop does in a TD (cc=sim-tdx) and what the
 * hypervisor does for SNP AP creation (cc=sim-snp).
 *
 * QEMU starts every AP with INIT-SIPI; a TD's APs never see one, and an SNP
 * guest's are created from a VMSA. So under a simulated platform each AP is
 * first started by INIT-SIPI into the kernel's trampoline and diverted, at
 * its first arrival in smp.c's AP entry, into the loop here
 * (smp_set_ap_firmware()): it parks, as the firmware's (or the hypervisor's)
 * AP would, until the wakeup mailbox names it (sim-tdx) or the simulated
 * hypervisor releases it into a VMSA's state (sim-snp); what follows is the
 * code a real TD's or SNP guest's AP runs. smp.c knows nothing of either.
 */
#ifndef SLUICE_ARCH_CC_SIM_AP_FIRMWARE_H
#define SLUICE_ARCH_CC_SIM_AP_FIRMWARE_H

#include <stdbool.h>
#include <stdint.h>

/**
 * sim_ap_firmware_td() - cc=sim-tdx: park every AP in TDVF's loop, polling the
 *	ACPI Multiprocessor Wakeup mailbox the MADT names; a TD starts its APs
 *	only through that mailbox (smp_mailbox_only()). Call before smp_init().
 * @silent: the APs never take the wakeup command (a fault to inject: the
 *	kernel must report and skip them, not wait for ever).
 * @late: they take it only after the kernel's deadline (a fault to inject:
 *	the late AP must find its start-up page as it needs it).
 */
void sim_ap_firmware_td(bool silent, bool late);

/**
 * sim_ap_firmware_vmsa() - cc=sim-snp: park every AP until sim_ap_release()
 *	names it (the simulated hypervisor honouring an AP-create request). Call
 *	before smp_init(), with smp_set_ap_ops().
 */
void sim_ap_firmware_vmsa(void);

/**
 * sim_ap_release() - start a parked AP from a VMSA's state: the simulated
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
int sim_ap_release(uint32_t apic_id, uint64_t rip, uint64_t rsp, uint64_t rdi, uint64_t gs_base,
		   uint32_t mxcsr);

/**
 * sim_ap_destroy() - the simulated hypervisor's AP destroy: a parked AP with
 *	@apic_id is never released.
 * @apic_id: the AP.
 */
void sim_ap_destroy(uint32_t apic_id);

#endif /* SLUICE_ARCH_CC_SIM_AP_FIRMWARE_H */
