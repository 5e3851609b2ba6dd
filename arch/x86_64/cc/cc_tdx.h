/* SPDX-License-Identifier: MIT */
/*
 * cc_tdx.h - this kernel as a TD guest: the TDX protocol (tdx.c) wired into the
 * kernel, the same way in a real TD and in the simulated one (cc_sim_tdx.c).
 *
 * Once started, the TD owns three things of the kernel:
 *  - paravirtual I/O: the TDX backend (pvio_tdx.c) is selected, so every port
 *    access, MMIO register, CPUID of a hypervisor leaf, MSR and HLT becomes a
 *    TDG.VP.VMCALL instead of a #VE;
 *  - conversions: mmu_set_shared() runs tdx_to_shared() / tdx_to_private(), whose
 *    page-table half is the kernel's (cc_glue.c: mmu_pte_set_shared(), the TLB
 *    generation of mmu_tlb_shootdown(), the cache flush of the instruction layer);
 *  - the #VE guard: vector 20 asks the module (TDG.VP.VEINFO.GET) what happened
 *    and reports it before the exception report ends the kernel.
 * In a real TD the page tables carry the shared bit 1 << (GPAW - 1)
 * (cc_tdx_encoding(), given to mmu_init()); the simulated TD keeps the software
 * bit, since under QEMU an address bit names other memory.
 */
#ifndef SLUICE_ARCH_CC_TDX_H
#define SLUICE_ARCH_CC_TDX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arch/x86_64/cc/cc_glue.h"
#include "arch/x86_64/mm/mmu.h"
#include "arch/x86_64/cc/tdx.h"
#include "arch/x86_64/cc/tee_insn.h"

/**
 * cc_tdx_start() - become a TD guest through @insn.
 * @insn: the TDX module: &tee_insn_native in a real TD, the model's ops in the
 *	simulated one (kept by pointer).
 * @observer: told of each page-table step of a conversion (the simulated TD's
 *	model); NULL in a real TD (kept by pointer).
 * @name: the platform, for reports and the benchmark JSON ("tdx", "sim-tdx").
 * @why: on failure, the reason.
 * @why_len: its size.
 *
 * Runs tdx_init() (TDG.VP.INFO: GPA width, attributes; a TD without
 * SEPT_VE_DISABLE, or with a GPA width other than 48 or 52, is refused), then
 * selects the TDX paravirtual I/O backend, routes conversions through the
 * protocol and installs the #VE guard. Call it on the bootstrap CPU before any
 * port I/O, CPUID or MSR access after ExitBootServices (the firmware's #VE
 * handler is gone with its IDT), and before the application processors start.
 * Return: 0, or a negative TDX_ERR_* code with @why set and nothing changed.
 */
int cc_tdx_start(const struct tee_insn_ops *insn, const struct cc_observer *observer,
		 const char *name, char *why, size_t why_len);

/**
 * cc_tdx_active() - whether cc_tdx_start() succeeded.
 */
bool cc_tdx_active(void);

/**
 * cc_tdx_name() - the platform given to cc_tdx_start(), or NULL.
 */
const char *cc_tdx_name(void);

/**
 * cc_tdx_encoding() - how a real TD's page tables say "shared": the shared bit
 *	at GPAW - 1, for mmu_init().
 * @enc: filled in (its name points into static storage).
 */
void cc_tdx_encoding(struct mmu_encoding *enc);

/**
 * cc_tdx_td() - the TD's parameters (GPA width, shared bit, attributes).
 */
const struct tdx *cc_tdx_td(void);

/**
 * cc_tdx_stats_get() - the protocol's counters, consistent with one another.
 * @out: filled in.
 */
void cc_tdx_stats_get(struct tdx_stats *out);

/**
 * cc_tdx_report() - one line: the TD's parameters, the paravirtual I/O backend
 *	and the protocol's counters.
 * @when: what the counters cover, e.g. "at boot" or "after the tasks".
 * @extra: appended after a comma (the simulated TD's model), or NULL.
 */
void cc_tdx_report(const char *when, const char *extra);

#endif /* SLUICE_ARCH_CC_TDX_H */
