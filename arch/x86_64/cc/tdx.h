/* SPDX-License-Identifier: MIT */
/*
 * tdx.h - the Intel TDX guest protocol in plain C: TD information, private <->
 * shared conversions (MapGPA, TDG.MEM.PAGE.ACCEPT), #VE information, and the
 * TDG.VP.VMCALL sub-functions a paravirtual I/O backend needs.
 *
 * Every TDCALL goes through a struct tee_insn_ops (arch/x86_64/cc/tee_insn.h): the
 * real instruction in a TD, the model of the TDX module (arch/x86_64/cc/tdx_model.h)
 * in the host tests and in the kernel's simulated TD. The page-table side of a
 * conversion (the shared bit of the guest's own mappings, TLB and cache flushes)
 * is the caller's, through struct cc_pt_ops (cc_pt.h).
 *
 * Facts used, by source (read for facts; no code copied):
 * - Intel TDX Guest-Hypervisor Communication Interface (GHCI): TDG.VP.VMCALL
 *   register use, sub-functions MapGPA (0x10001) and ReportFatalError (0x10003),
 *   the "retry from R11" status of MapGPA, Instruction.IO/CPUID/RDMSR/WRMSR/HLT
 *   and #VE.RequestMMIO;
 * - Intel TDX module ABI: TDG.VP.INFO (GPAW in RCX[5:0], attributes in RDX),
 *   TDG.VP.VEINFO.GET, TDG.MEM.PAGE.ACCEPT (RCX = GPA | level, 0 = 4 KiB,
 *   1 = 2 MiB), completion status codes as EDK2 names them
 *   (MdePkg/Include/IndustryStandard/Tdx.h);
 * - Linux arch/x86/coco/tdx/tdx.c (tdx_parse_tdinfo: shared bit = GPAW - 1,
 *   SEPT_VE_DISABLE required; tdx_map_gpa: retry only with progress, resume
 *   address checked; the ordering comments of tdx_early_init) and
 *   arch/x86/coco/tdx/tdx-shared.c (accept the largest size first);
 * - EDK2 OvmfPkg/Library/BaseMemEncryptTdxLib and MdePkg/Library/TdxLib
 *   (AcceptPages: 2 MiB falls back to 4 KiB on a size mismatch; busy retried).
 */
#ifndef SLUICE_ARCH_TDX_H
#define SLUICE_ARCH_TDX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arch/x86_64/cc/cc_pt.h"
#include "arch/x86_64/cc/cc_stats.h"

#include "arch/x86_64/cc/tee_insn.h"

#include "arch/kernel_errno.h"

/* TDCALL leaves (RAX). */
#define TDG_VP_VMCALL 0
#define TDG_VP_INFO 1
#define TDG_VP_VEINFO_GET 3
#define TDG_MEM_PAGE_ACCEPT 6

/* TDCALL completion status (RAX): the class is in bits 63:32, details below. */
#define TDX_SUCCESS UINT64_C(0)
#define TDX_PAGE_ALREADY_ACCEPTED UINT64_C(0x00000B0A00000000)
#define TDX_PAGE_SIZE_MISMATCH UINT64_C(0xC0000B0B00000000)
#define TDX_OPERAND_INVALID UINT64_C(0xC000010000000000)
#define TDX_OPERAND_BUSY UINT64_C(0x8000020000000000)
#define TDX_STATUS_CLASS(s) ((s)&UINT64_C(0xFFFFFFFF00000000))

/* TDG.VP.VMCALL: R10 = 0 selects the GHCI-defined sub-functions in R11. */
#define TDVMCALL_CPUID 10
#define TDVMCALL_HLT 12
#define TDVMCALL_IO 30
#define TDVMCALL_RDMSR 31
#define TDVMCALL_WRMSR 32
#define TDVMCALL_MMIO 48 /* #VE.RequestMMIO: the EPT-violation exit reason */
#define TDVMCALL_MAP_GPA 0x10001
#define TDVMCALL_REPORT_FATAL_ERROR 0x10003
/* Sub-function status, returned in R10. */
#define TDVMCALL_SUCCESS UINT64_C(0)
#define TDVMCALL_RETRY UINT64_C(1)
#define TDVMCALL_INVALID_OPERAND UINT64_C(0x8000000000000000)

/* TD attributes (TDG.VP.INFO RDX). */
#define TDX_ATTR_DEBUG (UINT64_C(1) << 0)
#define TDX_ATTR_SEPT_VE_DISABLE (UINT64_C(1) << 28)

/* Error codes of this file (negative, errno-style). */
#define TDX_ERR_INVAL KERR_INVAL     /* bad arguments */
#define TDX_ERR_IO KERR_IO	     /* the VMM or the module refused; range rolled back */
#define TDX_ERR_LEAKED KERR_HWPOISON /* EHWPOISON: failed and could not be rolled back */
#define TDX_ERR_REFUSED KERR_PERM    /* EPERM: a TD we cannot run in */

/* Rounds of MapGPA "retry" without progress before the VMM is deemed lying. */
#define TDX_MAP_GPA_MAX_STALLS 3
/* TDG.MEM.PAGE.ACCEPT "busy" answers retried per page before giving up. */
#define TDX_ACCEPT_MAX_BUSY 16

#define TDX_PAGE_4K (UINT64_C(1) << 12)
#define TDX_PAGE_2M (UINT64_C(1) << 21)

/**
 * struct tdx - one TD's protocol state.
 * @insn: how TDCALL is executed.
 * @pt: the guest's page-table side.
 * @gpaw: guest physical address width (48 or 52).
 * @shared_bit: 1 << (@gpaw - 1): set in a GPA (and a PTE) for shared memory.
 * @attributes: the TD's attributes.
 * @num_vcpus: vCPUs the TD has.
 * @stats: counters.
 */
struct tdx {
	const struct tee_insn_ops *insn;
	struct cc_pt_ops pt;
	unsigned int gpaw;
	uint64_t shared_bit;
	uint64_t attributes;
	unsigned int num_vcpus;
	struct cc_stats stats;
};

/**
 * struct tdx_ve_info - a #VE as TDG.VP.VEINFO.GET describes it.
 * @exit_reason: the VMX exit reason (e.g. 30 I/O, 48 EPT violation).
 * @exit_qual: its qualification.
 * @gla: guest linear address, where defined.
 * @gpa: guest physical address, where defined.
 * @instr_len: instruction length (not defined for EPT violations).
 */
struct tdx_ve_info {
	uint32_t exit_reason;
	uint64_t exit_qual, gla, gpa;
	uint32_t instr_len;
};

/**
 * tdx_init() - TDG.VP.INFO: the GPA width, the shared bit and the attributes;
 *	refuse a TD we cannot run in.
 * @t: caller storage.
 * @insn: how TDCALL is executed.
 * @pt: the page-table side (copied).
 * @why: on failure, the reason, one line.
 * @why_len: its size.
 *
 * Refused: a failing TDG.VP.INFO; a GPA width other than 48 or 52 (the widths a
 * TD has); SEPT_VE_DISABLE not set, unless the TD is a debug TD (as Linux): with
 * it clear the VMM can make any private access raise #VE, which this kernel
 * does not handle.
 * Return: 0, or TDX_ERR_REFUSED with @why set.
 */
int tdx_init(struct tdx *t, const struct tee_insn_ops *insn, const struct cc_pt_ops *pt, char *why,
	     size_t why_len);

/**
 * tdx_to_shared() - convert [@gpa, @gpa + @len) from private to shared.
 * @t: the TD.
 * @gpa: start, 4 KiB aligned, below the shared bit.
 * @len: bytes, a multiple of 4 KiB.
 *
 * Order (Linux, tdx_early_init() comment): flush the caches of the range; set
 * the shared bit in the guest's mappings and flush the TLBs (from here on there
 * is no private mapping of the range: a private mapping of a shared page would
 * end the TD); then MapGPA(@gpa | shared bit), following "retry" answers only
 * with progress inside the range. If MapGPA fails, the range goes back: the
 * mappings are made private again and the whole range is mapped private and
 * accepted again (pages the VMM never converted are "already accepted", which
 * is fine here). If that fails too, the range is leaked (counted).
 * Return: 0; TDX_ERR_INVAL; TDX_ERR_IO (rolled back: private and usable, the
 * contents of pages the VMM had converted lost); TDX_ERR_LEAKED.
 */
int tdx_to_shared(struct tdx *t, uint64_t gpa, uint64_t len);

/**
 * tdx_to_private() - convert [@gpa, @gpa + @len) from shared to private.
 * @t: the TD.
 * @gpa: start, 4 KiB aligned, below the shared bit.
 * @len: bytes, a multiple of 4 KiB.
 *
 * Order (Linux tdx_enc_status_change_prepare(), TDVF): flush the caches;
 * MapGPA(@gpa) private; TDG.MEM.PAGE.ACCEPT every page, 2 MiB where aligned and
 * whole, 4 KiB after a size mismatch, "busy" retried a bounded number of times;
 * an "already accepted" page here means the VMM never made it shared or
 * replayed a private page: the host is lying, an error; then clear the shared
 * bit of the mappings and flush the TLBs. On failure the range is mapped shared
 * again (its known state before the call) and the error returned; if that
 * fails the range is leaked (counted).
 * Return: 0; TDX_ERR_INVAL; TDX_ERR_IO (rolled back: still shared);
 * TDX_ERR_LEAKED.
 */
int tdx_to_private(struct tdx *t, uint64_t gpa, uint64_t len);

/**
 * tdx_accept_unaccepted() - accept memory the firmware left unaccepted
 *	(EfiUnacceptedMemoryType), before first use. Pages found already accepted
 *	are counted, not an error (the firmware may have accepted some).
 * @t: the TD.
 * @gpa: start, 4 KiB aligned.
 * @len: bytes, a multiple of 4 KiB.
 * Return: 0, TDX_ERR_INVAL or TDX_ERR_IO.
 */
int tdx_accept_unaccepted(struct tdx *t, uint64_t gpa, uint64_t len);

/**
 * tdx_ve_info_get() - TDG.VP.VEINFO.GET: what caused the current #VE. Must be the
 *	first thing a #VE handler does (a #VE before it is a double fault).
 * @t: the TD.
 * @out: filled in.
 * Return: 0 or TDX_ERR_IO.
 */
int tdx_ve_info_get(struct tdx *t, struct tdx_ve_info *out);

/**
 * tdx_vmcall() - one TDG.VP.VMCALL sub-function with up to four operands.
 * @t: the TD.
 * @fn: the sub-function (TDVMCALL_*), in R11.
 * @r12: first operand, and @r13, @r14, @r15 the others.
 * @out: if not NULL, receives R11 (the value an IO or MMIO read, RDMSR returns).
 * Return: the sub-function status (R10): TDVMCALL_SUCCESS, or the VMM's error;
 * a failing TDCALL itself is reported as TDVMCALL_INVALID_OPERAND.
 */
uint64_t tdx_vmcall(struct tdx *t, uint64_t fn, uint64_t r12, uint64_t r13, uint64_t r14,
		    uint64_t r15, uint64_t *out);

/**
 * tdx_vmcall_hlt() - TDG.VP.VMCALL<Instruction.HLT>: wait for an interrupt.
 * @t: the TD.
 * @irqs: true: the idle wait. R12 (interrupt blocked) is 0 and the TDCALL is
 *	issued right after STI (&tee_insn_ops.tdcall_sti), so no wake-up between
 *	the caller's check and the halt is lost; interrupts are on at return.
 *	false: R12 = 1, the VMM halts the vCPU for good (after a fatal error).
 * Return: the sub-function status.
 */
uint64_t tdx_vmcall_hlt(struct tdx *t, bool irqs);

/**
 * tdx_vmcall_cpuid() - TDG.VP.VMCALL<Instruction.CPUID>: the VMM's answer for a
 *	leaf (R12 = EAX, R13 = ECX in; EAX..EDX back in R12..R15, GHCI).
 * @t: the TD.
 * @leaf: EAX.
 * @sub: ECX.
 * @r: EAX, EBX, ECX, EDX out (zeros when the call fails).
 * Return: the sub-function status.
 */
uint64_t tdx_vmcall_cpuid(struct tdx *t, uint32_t leaf, uint32_t sub, uint32_t r[4]);

/**
 * tdx_report_fatal() - TDG.VP.VMCALL<ReportFatalError> with a short message;
 *	the VMM is expected to end the TD. Returns only if it did not.
 * @t: the TD.
 * @msg: up to 64 bytes of text, carried in the registers the GHCI names.
 */
void tdx_report_fatal(struct tdx *t, const char *msg);

#endif /* SLUICE_ARCH_TDX_H */
