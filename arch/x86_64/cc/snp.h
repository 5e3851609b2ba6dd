/* SPDX-License-Identifier: MIT */
/*
 * snp.h - the AMD SEV-SNP guest protocol in plain C: the C-bit, the refusal of
 * a guest we cannot run in, the GHCB page (made shared and registered), and
 * private <-> shared conversions (PVALIDATE, Page State Change through the
 * GHCB in batches or through the MSR protocol for single pages).
 *
 * Every VMGEXIT, PVALIDATE and GHCB MSR access goes through a struct
 * tee_insn_ops (arch/x86_64/cc/tee_insn.h): the real instructions in an SNP
 * guest, the model of the RMP and the hypervisor (arch/x86_64/cc/snp_model.h) in
 * the host tests. The page-table side of a conversion (the C-bit of the
 * guest's own mappings, TLB and cache flushes) is the caller's, through
 * struct cc_pt_ops. PVALIDATE takes a virtual address: this kernel maps RAM
 * at virtual == physical (arch/x86_64/mm/paging.h), so the GPA is passed.
 *
 * Facts used, by source (read for facts; no code copied):
 * - AMD GHCB specification 56421: the MSR protocol, the GHCB layout, the SNP
 *   Page State Change NAE event (0x80000010; the hypervisor may return before
 *   processing every entry, cur_entry <= end_entry; errors in SW_EXITINFO2);
 * - AMD APM vol. 3, PVALIDATE (RAX = VA, RCX = size, RDX = validate; EAX 0,
 *   FAIL_INPUT 1, FAIL_SIZEMISMATCH 6; CF = 1: Validated bit unchanged) and
 *   vol. 2 (SEV_STATUS MSR bits; CPUID 0x8000001F EBX[5:0] = C-bit position);
 * - Linux arch/x86/coco/sev/core.c: __set_pages_state() (rescind before the
 *   PSC to shared, validate after the PSC to private, 2 MiB entries where
 *   aligned), vmgexit_psc() (loop while cur_entry <= end_entry; error on
 *   SW_EXITINFO2, on a reserved header bit, on entries going backwards),
 *   pval_pages() (2 MiB -> 4 KiB fallback on FAIL_SIZEMISMATCH),
 *   sev_status_feat_names[] (the SEV_STATUS bits); arch/x86/mm/pat/set_memory.c
 *   __set_memory_enc_pgtable() (caches flushed before the attribute changes);
 * - EDK2 OvmfPkg/Library/BaseMemEncryptSevLib/X64/SnpPageStateChangeInternal.c
 *   (CF = 1 is a double validation or rescission: terminate) and
 *   PeiDxeVirtualMemory.c ("set the page to shared in the RMP table before
 *   clearing the memory encryption mask").
 */
#ifndef SLUICE_ARCH_SNP_H
#define SLUICE_ARCH_SNP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arch/x86_64/cc/cc_pt.h"
#include "arch/x86_64/cc/cc_stats.h"

#include "arch/x86_64/cc/ghcb.h"

#include "arch/kernel_errno.h"
#include "arch/x86_64/cc/tee_insn.h"

/* SEV_STATUS (MSR 0xC0010131) bits, as Linux sev_status_feat_names[] names them. */
#define SEV_STATUS_SEV (UINT64_C(1) << 0)
#define SEV_STATUS_SEV_ES (UINT64_C(1) << 1)
#define SEV_STATUS_SNP (UINT64_C(1) << 2)
#define SEV_STATUS_VTOM (UINT64_C(1) << 3)
#define SEV_STATUS_REFLECT_VC (UINT64_C(1) << 4)
#define SEV_STATUS_RESTRICTED_INJ (UINT64_C(1) << 5)
#define SEV_STATUS_ALT_INJ (UINT64_C(1) << 6)
#define SEV_STATUS_DEBUG_SWAP (UINT64_C(1) << 7)
#define SEV_STATUS_PREVENT_HOST_IBS (UINT64_C(1) << 8)
#define SEV_STATUS_BTB_ISOLATION (UINT64_C(1) << 9)
#define SEV_STATUS_SMT_PROT (UINT64_C(1) << 17)
/*
 * The bits this kernel runs with: SEV, SEV-ES and SNP themselves, and
 * features that change nothing the guest does (debug register swap, IBS and
 * branch-target isolation from the host, SMT protection). Refused: vTOM (this
 * kernel marks shared memory with the C-bit, not a top-of-memory split),
 * ReflectVC and restricted/alternate injection (they deliver #HV or reflect
 * #VC, which it does not handle), and every bit it does not know.
 */
#define SEV_STATUS_TOLERATED                                                           \
	(SEV_STATUS_SEV | SEV_STATUS_SEV_ES | SEV_STATUS_SNP | SEV_STATUS_DEBUG_SWAP | \
	 SEV_STATUS_PREVENT_HOST_IBS | SEV_STATUS_BTB_ISOLATION | SEV_STATUS_SMT_PROT)

/* Error codes of this file (negative, errno-style, as tdx.h). */
#define SNP_ERR_INVAL KERR_INVAL
#define SNP_ERR_IO KERR_IO	     /* the hypervisor refused or lied; range rolled back */
#define SNP_ERR_LEAKED KERR_HWPOISON /* failed and could not be rolled back */
#define SNP_ERR_REFUSED KERR_PERM    /* a guest we cannot run in */

/* PSC rounds without progress (cur_entry unchanged) before the hypervisor is
 * deemed stuck or lying: Linux loops for ever, this kernel does not. */
#define SNP_PSC_MAX_STALLS 3

#define SNP_PAGE_4K (UINT64_C(1) << 12)
#define SNP_PAGE_2M (UINT64_C(1) << 21)

/* CPUID 0x8000001F EBX[31]: no cache-coherency mitigation needed after
 * PVALIDATE (Linux arch/x86/kernel/cpu/scattered.c, X86_FEATURE_COHERENCY_SFW_NO). */
#define SNP_CPUID_COHERENCY_SFW_NO (1u << 31)

/**
 * struct snp_ghcb_slot - one CPU's GHCB.
 * @ghcb: the page, shared and registered by this CPU, or NULL: none yet.
 * @gpa: its GPA.
 * @depth: exchanges through it in progress on this CPU. More than one means a
 *	handler (an interrupt taken while the hypervisor emulated HLT, the
 *	exception report) uses the page while the code it interrupted is half way
 *	through filling or reading it.
 * @backup: where the nested exchange saves the page and restores it after (as
 *	Linux's backup GHCB, __sev_get_ghcb()/__sev_put_ghcb()); NULL: not saved.
 * @nested: nested exchanges so far.
 */
struct snp_ghcb_slot {
	struct ghcb *ghcb;
	uint64_t gpa;
	unsigned int depth;
	struct ghcb *backup;
	unsigned long nested;
};

/**
 * struct snp - one SNP guest's protocol state.
 * @insn: the TEE instructions.
 * @pt: the guest's page-table side.
 * @sev_status: SEV_STATUS as read at boot.
 * @cbit_pos: the C-bit's position.
 * @cbit: 1 << @cbit_pos: set in a PTE (and CR3) for private memory.
 * @slot: the GHCB when there is one for the whole guest (the host tests, and
 *	every guest before it has per-CPU GHCBs): @slot.ghcb NULL means none is
 *	registered yet, and every PSC goes through the MSR protocol, one 4 KiB
 *	page at a time.
 * @cpu_slot: when each CPU has its own GHCB (the kernel: the GHCB MSR and the
 *	registration are per vCPU), the calling CPU's slot; NULL: @slot.
 * @cpu_slot_ctx: handed to @cpu_slot.
 * @psc_max_entries: entries per PSC descriptor (SNP_PSC_MAX_ENTRIES; a test
 *	may lower it).
 * @last_psc_error: SW_EXITINFO2 (or the MSR response's error) of the last
 *	refused PSC.
 * @stats: counters.
 */
struct snp {
	const struct tee_insn_ops *insn;
	struct cc_pt_ops pt;
	uint64_t sev_status;
	unsigned int cbit_pos;
	uint64_t cbit;
	struct snp_ghcb_slot slot;
	struct snp_ghcb_slot *(*cpu_slot)(void *ctx);
	void *cpu_slot_ctx;
	unsigned int psc_max_entries;
	uint64_t last_psc_error;
	struct cc_stats stats;
	bool coherency_sfw_no;
	unsigned int ghcb_version;
	uint64_t hv_features;
};

/**
 * snp_negotiate() - the GHCB protocol version and the hypervisor's features,
 *	through the MSR protocol (no GHCB needed), as Linux
 *	sev_es_negotiate_protocol() and snp_init()/get_hv_features() do: the
 *	hypervisor's range [min, max] must include version 2 (the one with the
 *	SNP events; this kernel speaks only it), and its features must include
 *	GHCB_HV_FT_SNP. The result is kept in @s (ghcb_version, hv_features;
 *	AP creation is used only with GHCB_HV_FT_SNP_AP_CREATION).
 * @s: an initialised guest.
 * @term_code: on failure, the GHCB_TERM_SET_GENERAL reason to terminate with
 *	(GHCB_TERM_PROTOCOL_UNSUPPORTED or GHCB_TERM_SNP_UNSUPPORTED).
 * @why: on failure, the reason, one line.
 * @why_len: its size.
 * Return: 0 or SNP_ERR_REFUSED.
 */
int snp_negotiate(struct snp *s, unsigned int *term_code, char *why, size_t why_len);

/**
 * snp_cbit_from_cpuid() - the C-bit position from CPUID 0x8000001F.
 * @r: EAX, EBX, ECX, EDX of leaf 0x8000001F (in an SNP guest, from the CPUID
 *	page the firmware checked, not from the hypervisor).
 * @pos: receives EBX[5:0].
 * @why: on failure, the reason, one line (may be NULL).
 * @why_len: its size.
 *
 * Refused: EAX[4] (SEV-SNP) clear; a position outside 32..51, where no
 * address bit of this kernel's RAM can sit below it and a PTE still has room
 * (PT_ADDR_MASK ends at bit 51). Real parts report 47 or 51.
 * Return: 0 or SNP_ERR_REFUSED.
 */
int snp_cbit_from_cpuid(const uint32_t r[4], unsigned int *pos, char *why, size_t why_len);

/**
 * snp_init() - check that this is an SNP guest we can run in and set up @s.
 * @s: caller storage.
 * @insn: the TEE instructions.
 * @pt: the page-table side (copied).
 * @sev_status: SEV_STATUS (MSR 0xC0010131), read by the caller.
 * @cpuid_8000001f: CPUID leaf 0x8000001F from the SNP CPUID page (EBX[31],
 *	COHERENCY_SFW_NO, turns the cache-coherency mitigation off).
 * @why: on failure, the reason, one line.
 * @why_len: its size.
 *
 * Refused: SEV_STATUS without SNP (or without SEV/SEV-ES, which SNP implies);
 * any SEV_STATUS bit outside SEV_STATUS_TOLERATED (named in @why); a C-bit
 * snp_cbit_from_cpuid() refuses. The caller then terminates through
 * snp_terminate() (with GHCB_TERM_SNP_UNSUPPORTED).
 * Return: 0 or SNP_ERR_REFUSED.
 */
int snp_init(struct snp *s, const struct tee_insn_ops *insn, const struct cc_pt_ops *pt,
	     uint64_t sev_status, const uint32_t cpuid_8000001f[4], char *why, size_t why_len);

/**
 * snp_ghcb_slot() - the calling CPU's GHCB slot (@s->cpu_slot, or @s->slot).
 * @s: the guest.
 */
struct snp_ghcb_slot *snp_ghcb_slot(struct snp *s);

/**
 * snp_ghcb_get() - begin an exchange through the calling CPU's GHCB: the page,
 *	invalidated for a new request, or NULL (nothing begun) if this CPU has
 *	none. A nested exchange (see struct snp_ghcb_slot) saves the page first.
 * @s: the guest.
 * @gpa: receives the page's GPA.
 * Return: the page or NULL. Every non-NULL return is paired with
 *	snp_ghcb_put().
 */
struct ghcb *snp_ghcb_get(struct snp *s, uint64_t *gpa);

/**
 * snp_ghcb_put() - end the exchange snp_ghcb_get() began (a nested one puts
 *	back what the interrupted exchange had in the page).
 * @s: the guest.
 */
void snp_ghcb_put(struct snp *s);

/**
 * snp_ghcb_setup() - make the page at @gpa this CPU's GHCB: convert it to
 *	shared (rescind, PSC through the MSR protocol, C-bit clear, TLB flush),
 *	clear it, register it (GHCB MSR protocol 0x012) and put it in this CPU's
 *	slot (snp_ghcb_slot()). From then on conversions on this CPU use it for
 *	batched PSCs. Interrupts must be off: an MSR-protocol exchange is one
 *	write, one VMGEXIT, one read of an MSR a handler would overwrite.
 * @s: the guest.
 * @g: the page, mapped at @gpa (identity).
 * @gpa: its GPA, 4 KiB aligned.
 * Return: 0; SNP_ERR_INVAL; SNP_ERR_IO (the page is private again);
 *	SNP_ERR_LEAKED.
 */
int snp_ghcb_setup(struct snp *s, struct ghcb *g, uint64_t gpa);

/**
 * snp_ghcb_prepare() - the RMP half of making the page at @gpa a GHCB, as a
 *	guest does before its own page tables exist: flush its cache lines,
 *	PVALIDATE-rescind it (CF = 1: an error), Page State Change to shared
 *	through the MSR protocol (no GHCB needed). The mapping still carries the
 *	C-bit: nothing may touch the page until snp_ghcb_map(). On failure the
 *	page is brought back to private and validated (or leaked, counted).
 * @s: the guest.
 * @gpa: the page, 4 KiB aligned.
 * Return: 0; SNP_ERR_INVAL; SNP_ERR_IO (rolled back); SNP_ERR_LEAKED.
 */
int snp_ghcb_prepare(struct snp *s, uint64_t gpa);

/**
 * snp_ghcb_map() - the page-table half: clear the C-bit of the page's
 *	mappings and flush the TLBs (@s->pt). Counts a conversion to shared.
 * @s: the guest.
 * @gpa: a page snp_ghcb_prepare() made shared.
 * Return: 0, SNP_ERR_INVAL or SNP_ERR_IO (the page-table side failed).
 */
int snp_ghcb_map(struct snp *s, uint64_t gpa);

/**
 * snp_ghcb_register() - clear the shared page @g at @gpa, register it (GHCB
 *	MSR protocol 0x012) and put it in this CPU's slot. Interrupts off.
 * @s: the guest.
 * @g: the page, mapped shared at @gpa (identity).
 * @gpa: its GPA.
 * Return: 0, SNP_ERR_INVAL, or SNP_ERR_IO (the hypervisor answered another
 *	GFN: the slot is unchanged).
 */
int snp_ghcb_register(struct snp *s, struct ghcb *g, uint64_t gpa);

/**
 * snp_check_vmpl0() - refuse to run below VMPL0, as Linux enforce_vmpl0()
 *	(arch/x86/boot/compressed/sev.c): RMPADJUST of a private, validated page
 *	of ours with target VMPL1 and no permissions changes the permissions of
 *	a less privileged VMPL, which only VMPL0 may do; below VMPL0 it fails
 *	(APM vol. 3 RMPADJUST: the target VMPL must be numerically above the
 *	current one). Nothing else runs at VMPL1 in this guest, so clearing its
 *	permissions costs nothing.
 * @s: the guest.
 * @gpa: a private, validated page of ours, 4 KiB aligned.
 * Return: 0 (VMPL0), SNP_ERR_REFUSED (below VMPL0), SNP_ERR_INVAL.
 */
int snp_check_vmpl0(struct snp *s, uint64_t gpa);

/**
 * snp_psc_msr() - one Page State Change of one 4 KiB page through the MSR
 *	protocol (0x014/0x015): no GHCB needed. The caller owns the order
 *	(rescind before, validate after).
 * @s: the guest.
 * @gpa: the page, 4 KiB aligned.
 * @op: SNP_PSC_OP_PRIVATE or SNP_PSC_OP_SHARED.
 * Return: 0 or SNP_ERR_IO (@s->last_psc_error says why).
 */
int snp_psc_msr(struct snp *s, uint64_t gpa, unsigned int op);

/**
 * snp_to_shared() - convert [@gpa, @gpa + @len) from private to shared.
 * @s: the guest.
 * @gpa: start, 4 KiB aligned, below the C-bit.
 * @len: bytes, a multiple of 4 KiB.
 *
 * Order (Linux __set_memory_enc_pgtable() with snp_set_memory_shared() as
 * its "prepare" step; OVMF the same): flush the caches of the range;
 * PVALIDATE-rescind every page (2 MiB where aligned and whole, 4 KiB after a
 * size mismatch), where CF = 1 (the page was not validated: the host changed
 * it behind our back) or any failure is an error; Page State Change to shared
 * (GHCB batches, or the MSR protocol without a GHCB); clear the C-bit in the
 * mappings; flush the TLBs. On failure the range goes back: the PSC to
 * private (if any PSC was made) and PVALIDATE-validate of the whole range,
 * where CF = 1 (still validated) is expected for pages that never changed.
 * If that fails too the range is leaked (counted). Nothing touches the pages
 * between the rescission and the new mapping.
 * Return: 0; SNP_ERR_INVAL; SNP_ERR_IO (rolled back: private, validated,
 * usable; contents of pages the hypervisor converted lost); SNP_ERR_LEAKED.
 */
int snp_to_shared(struct snp *s, uint64_t gpa, uint64_t len);

/**
 * snp_to_private() - convert [@gpa, @gpa + @len) from shared to private.
 * @s: the guest.
 * @gpa: start, 4 KiB aligned, below the C-bit.
 * @len: bytes, a multiple of 4 KiB.
 *
 * Order: flush the caches; Page State Change to private; set the C-bit in the
 * mappings and flush the TLBs; PVALIDATE-validate every page through that
 * private mapping (2 MiB where aligned, 4 KiB after FAIL_SIZEMISMATCH), where
 * CF = 1 (already validated: the hypervisor did not take the page away, or
 * replays an old one) or any failure is an error. Linux and OVMF set the
 * C-bit before the PSC; this follows them in validating through the private
 * mapping, but asks for the PSC first so that at no TLB flush is there a
 * private mapping of a page the RMP gives the hypervisor (see snp.c). On
 * failure: rescind what may be validated, PSC the range back to shared, clear
 * the C-bit: the caller's known state; or leak it.
 * Return: 0; SNP_ERR_INVAL; SNP_ERR_IO (rolled back: still shared);
 * SNP_ERR_LEAKED.
 */
int snp_to_private(struct snp *s, uint64_t gpa, uint64_t len);

/* ------------------------------------------------------------ AP creation */

/**
 * struct vmcb_seg - a segment register in the VMSA (APM vol. 2, "VMCB
 *	State Save Area"): selector, attributes (the descriptor's bits 8-15 and
 *	52-55 packed into 12 bits), limit, base.
 */
struct vmcb_seg {
	uint16_t selector;
	uint16_t attrib;
	uint32_t limit;
	uint64_t base;
} __attribute__((packed));

/**
 * struct snp_vmsa - the fields of the VM Save Area an AP starts from that
 *	this kernel fills (AMD APM vol. 2, table B-4 "VMSA Layout, State Save
 *	Area for SEV-ES"; Linux struct sev_es_save_area in
 *	arch/x86/include/asm/svm.h): a 64-bit entry with its stack, page tables
 *	and argument. Everything else stays zero. The page is private, validated
 *	and turned into a VMSA by RMPADJUST before the AP-create request.
 */
struct snp_vmsa {
	struct vmcb_seg es, cs, ss, ds, fs, gs, gdtr, ldtr, idtr, tr; /* 0x000 */
	uint8_t rsvd_0a0[0x0ca - 0x0a0];
	uint8_t vmpl; /* 0x0CA */
	uint8_t cpl;  /* 0x0CB */
	uint8_t rsvd_0cc[4];
	uint64_t efer; /* 0x0D0 */
	uint8_t rsvd_0d8[0x148 - 0x0d8];
	uint64_t cr4;	 /* 0x148 */
	uint64_t cr3;	 /* 0x150 */
	uint64_t cr0;	 /* 0x158 */
	uint64_t dr7;	 /* 0x160 */
	uint64_t dr6;	 /* 0x168 */
	uint64_t rflags; /* 0x170 */
	uint64_t rip;	 /* 0x178 */
	uint8_t rsvd_180[0x1d8 - 0x180];
	uint64_t rsp; /* 0x1D8 */
	uint8_t rsvd_1e0[0x268 - 0x1e0];
	uint64_t g_pat; /* 0x268 */
	uint8_t rsvd_270[0x338 - 0x270];
	uint64_t rdi; /* 0x338 */
	uint8_t rsvd_340[0x3b0 - 0x340];
	uint64_t sev_features; /* 0x3B0 */
	uint8_t rsvd_3b8[0x3e8 - 0x3b8];
	uint64_t xcr0; /* 0x3E8 */
	uint8_t rsvd_3f0[0x408 - 0x3f0];
	uint32_t mxcsr;	  /* 0x408 */
	uint16_t x87_ftw; /* 0x40C */
	uint16_t x87_fsw; /* 0x40E */
	uint16_t x87_fcw; /* 0x410 */
	uint8_t rsvd_412[4096 - 0x412];
} __attribute__((packed, aligned(4096)));

_Static_assert(offsetof(struct snp_vmsa, mxcsr) == 0x408, "VMSA MXCSR");
_Static_assert(offsetof(struct snp_vmsa, x87_ftw) == 0x40c, "VMSA x87 FTW");
_Static_assert(offsetof(struct snp_vmsa, x87_fcw) == 0x410, "VMSA x87 FCW");

/* An AP's initial state where the VMSA's zero would be wrong (Linux
 * arch/x86/coco/sev/core.c, wakeup_cpu_via_vmgexit(), AP_INIT_*_DEFAULT): MXCSR
 * with every SSE exception masked, x87 control word with every exception
 * masked, the tag word in the VMSA's abridged "all empty" encoding. */
#define SNP_VMSA_MXCSR_DEFAULT 0x1f80u
#define SNP_VMSA_X87_FCW_DEFAULT 0x0040u
#define SNP_VMSA_X87_FTW_DEFAULT 0x5555u

/**
 * snp_vmsa_ap_defaults() - zero @v and set the architectural defaults an AP's
 *	VMSA needs besides its entry state (as Linux wakeup_cpu_via_vmgexit()):
 *	DR6 0xffff0ff0, DR7 0x400, RFLAGS 0x2, the power-on PAT, XCR0 1, and
 *	MXCSR, x87 FCW and FTW as above (a zero MXCSR unmasks every SSE
 *	exception: the first inexact result would fault).
 * @v: the VMSA page.
 */
void snp_vmsa_ap_defaults(struct snp_vmsa *v);

_Static_assert(offsetof(struct snp_vmsa, cs) == 0x010, "VMSA CS");
_Static_assert(offsetof(struct snp_vmsa, gs) == 0x050, "VMSA GS");
_Static_assert(offsetof(struct snp_vmsa, gdtr) == 0x060, "VMSA GDTR");
_Static_assert(offsetof(struct snp_vmsa, idtr) == 0x080, "VMSA IDTR");
_Static_assert(offsetof(struct snp_vmsa, tr) == 0x090, "VMSA TR");
_Static_assert(offsetof(struct snp_vmsa, vmpl) == 0x0ca, "VMSA VMPL");
_Static_assert(offsetof(struct snp_vmsa, efer) == 0x0d0, "VMSA EFER");
_Static_assert(offsetof(struct snp_vmsa, cr4) == 0x148, "VMSA CR4");
_Static_assert(offsetof(struct snp_vmsa, cr3) == 0x150, "VMSA CR3");
_Static_assert(offsetof(struct snp_vmsa, cr0) == 0x158, "VMSA CR0");
_Static_assert(offsetof(struct snp_vmsa, rflags) == 0x170, "VMSA RFLAGS");
_Static_assert(offsetof(struct snp_vmsa, rip) == 0x178, "VMSA RIP");
_Static_assert(offsetof(struct snp_vmsa, rsp) == 0x1d8, "VMSA RSP");
_Static_assert(offsetof(struct snp_vmsa, g_pat) == 0x268, "VMSA G_PAT");
_Static_assert(offsetof(struct snp_vmsa, rdi) == 0x338, "VMSA RDI");
_Static_assert(offsetof(struct snp_vmsa, sev_features) == 0x3b0, "VMSA SEV_FEATURES");
_Static_assert(offsetof(struct snp_vmsa, xcr0) == 0x3e8, "VMSA XCR0");
_Static_assert(sizeof(struct snp_vmsa) == 4096, "the VMSA is one page");

/* RMPADJUST attributes (APM vol. 3 RMPADJUST; Linux RMPADJUST_VMSA_PAGE_BIT):
 * [7:0] the target VMPL, bit 16 the VMSA bit. */
#define RMPADJUST_VMSA_PAGE (UINT64_C(1) << 16)

/**
 * snp_vmsa_mark() - make the private page at @gpa a VMSA (or a plain page
 *	again): RMPADJUST with the VMSA bit for VMPL1, as Linux snp_set_vmsa()
 *	(a guest at VMPL0 may only adjust a less privileged VMPL's permissions;
 *	the VMSA bit is the page's, whatever the VMPL).
 * @s: the guest.
 * @gpa: the page (private, validated), 4 KiB aligned and not 2 MiB aligned
 *	(Linux snp_alloc_vmsa_page(): an erratum of some parts).
 * @vmsa: set or clear the VMSA bit.
 * Return: 0, SNP_ERR_INVAL, or SNP_ERR_IO (RMPADJUST failed).
 */
int snp_vmsa_mark(struct snp *s, uint64_t gpa, bool vmsa);

/**
 * snp_ap_create() - the AP Creation NAE event (0x80000013; GHCB spec "SNP
 *	AP Creation"): SW_EXITINFO1 = APIC ID << 32 | VMPL << 16 | @op,
 *	SW_EXITINFO2 = the VMSA's GPA, RAX = the SEV features of the VMSA.
 * @s: the guest (this CPU's GHCB).
 * @apic_id: the AP.
 * @op: SNP_AP_CREATE (start it from the VMSA now) or SNP_AP_DESTROY.
 * @vmsa_gpa: the VMSA page.
 * @sev_features: what the VMSA's SEV_FEATURES says.
 * Return: 0, or SNP_ERR_IO (no GHCB, or the hypervisor refused).
 */
int snp_ap_create(struct snp *s, uint32_t apic_id, unsigned int op, uint64_t vmsa_gpa,
		  uint64_t sev_features);

/**
 * snp_terminate() - ask the hypervisor to end the guest (MSR protocol 0x100).
 *	Returns only if it did not.
 * @s: the guest.
 * @set: reason code set (GHCB_TERM_SET_*).
 * @code: reason code.
 */
void snp_terminate(struct snp *s, unsigned int set, unsigned int code);

#endif /* SLUICE_ARCH_SNP_H */
