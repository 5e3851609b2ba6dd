/* SPDX-License-Identifier: MIT */
/*
 * cc_tdx.h - this kernel as a TD guest: the TDX protocol (tdx.c) wired into the
 * kernel, the same way in a real TD (cc_platform_tdx, cc_tdx.c) and in the
 * simulated one (cc_platform_sim_tdx, cc_sim_tdx.c).
 *
 * Once started, the TD owns three things of the kernel:
 *  - paravirtual I/O: the TDX backend (pvio_tdx.c) is selected, so every port
 *    access, MMIO register, CPUID of a hypervisor leaf, MSR and HLT becomes a
 *    TDG.VP.VMCALL instead of a #VE;
 *  - conversions: mmu_set_shared() calls cc_tdx_convert() (the platform's
 *    convert op), which runs tdx_to_shared() / tdx_to_private() under one
 *    lock; their page-table half is the caller's struct cc_pt_ops: mm/ itself
 *    in a real TD, mm/ plus the model in the simulated one;
 *  - the #VE guard: vector 20 asks the module (TDG.VP.VEINFO.GET) what happened
 *    and reports it before the exception report ends the kernel.
 * In a real TD the page tables carry the shared bit 1 << (GPAW - 1); the
 * simulated TD keeps the software bit, since under QEMU an address bit names
 * other memory.
 */
#ifndef SLUICE_ARCH_CC_TDX_H
#define SLUICE_ARCH_CC_TDX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arch/x86_64/cc/cc.h"
#include "arch/x86_64/cc/cc_pt.h"
#include "arch/x86_64/cc/tdx.h"
#include "arch/x86_64/cc/tee_insn.h"

/**
 * cc_tdx_start() - become a TD guest through @insn.
 * @insn: the TDX module: &tee_insn_native in a real TD, the model's ops in the
 *	simulated one (kept by pointer).
 * @pt: the page-table half of a conversion (copied).
 * @name: the platform, for reports ("tdx", "sim-tdx"; kept by pointer).
 * @why: on failure, the reason.
 * @why_len: its size.
 *
 * Runs tdx_init() (TDG.VP.INFO: GPA width, attributes; a TD without
 * SEPT_VE_DISABLE, or with a GPA width other than 48 or 52, is refused), then
 * selects the TDX paravirtual I/O backend and installs the #VE guard.
 * Conversions go through the protocol once the kernel installs the
 * platform's convert op (cc_tdx_convert()). Call it on the bootstrap CPU
 * before any port I/O, CPUID or MSR access after ExitBootServices (the
 * firmware's #VE handler is gone with its IDT), and before the application
 * processors start.
 * Return: 0, or a negative TDX_ERR_* code with @why set and nothing changed.
 */
int cc_tdx_start(const struct tee_insn_ops *insn, const struct cc_pt_ops *pt, const char *name,
		 char *why, size_t why_len);

/**
 * cc_tdx_convert() - the TD's conversion (a platform's convert op):
 *	tdx_to_shared() or tdx_to_private() under the protocol's lock.
 * @ctx: unused.
 * @va: start (identity-mapped: also the GPA).
 * @len: bytes.
 * @shared: the wanted state.
 * Return: as tdx_to_shared() / tdx_to_private().
 */
int cc_tdx_convert(void *ctx, uint64_t va, uint64_t len, bool shared);

/**
 * cc_tdx_td() - the TD's parameters (GPA width, shared bit, attributes).
 */
const struct tdx *cc_tdx_td(void);

/**
 * cc_tdx_stats() - the protocol's counters, consistent with one another (a
 *	platform's stats op).
 * @out: filled in.
 */
void cc_tdx_stats(struct cc_stats *out);

/**
 * cc_tdx_report() - one line: the TD's parameters, the paravirtual I/O backend
 *	and the protocol's counters.
 * @when: what the counters cover, e.g. "at boot" or "after the tasks".
 * @extra: appended after a comma (the simulated TD's model), or NULL.
 */
void cc_tdx_report(const char *when, const char *extra);

#endif /* SLUICE_ARCH_CC_TDX_H */
