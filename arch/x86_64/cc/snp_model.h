/* SPDX-License-Identifier: MIT */
/*
 * snp_model.h - a model of the SEV-SNP hardware (the RMP, PVALIDATE) and of the
 * hypervisor's side of the GHCB protocol, behind struct tee_insn_ops, for the
 * host tests (and later the kernel's simulated SNP guest). The protocol code
 * (arch/x86_64/cc/snp.c, ghcb.c, pvio_snp.c) runs against it unchanged.
 *
 * Per 4 KiB page of one window of guest memory the model keeps the RMP state
 * (assigned to the guest, i.e. private, or not, i.e. shared; Validated; part
 * of a 2 MiB RMP entry) and what the guest's own mapping says (C-bit set or
 * not), plus the registered GHCB. It enforces these rules; each names its
 * source and the host tests (tests/arch/test_snp.c unless said) that hold the
 * protocol to it and that fail if the rule's check is removed:
 *
 *  R1 Rescind before PSC to shared: a Page State Change to shared of a page
 *     that is still validated is a violation. (Linux core.c __set_pages_state():
 *     "Page validation must be rescinded before changing to shared"; OVMF
 *     InternalSetPageState() likewise; AMD SEV-SNP white paper: a validated
 *     page reassigned by the hypervisor is the remapping attack PVALIDATE
 *     exists to catch.) Test: test_rule_r1_rescind_before_psc_shared.
 *  R2 Validate only after PSC to private: PVALIDATE (either way) of a page the
 *     RMP does not assign to the guest is a violation, and answers FAIL_INPUT
 *     (APM vol. 3 PVALIDATE: the RMP entry must be assigned to the guest's
 *     ASID). Test: test_rule_r2_validate_after_psc_private.
 *  R3 No access to a page between its rescission and its new mapping: an
 *     access (snp_model_note_access()) is allowed only to a page that is
 *     assigned, validated and mapped with the C-bit, or shared and mapped
 *     without it. (APM vol. 2 "SEV-SNP": a private access to an unvalidated
 *     page raises #VC (exit code 0x404), a shared access to a guest page or a
 *     private one to a hypervisor page is an RMP #NPF.) Test:
 *     test_rule_r3_no_access_in_between.
 *  R4 2 MiB only when aligned and uniform: a 2 MiB PVALIDATE or PSC entry at an
 *     address not 2 MiB aligned is a violation (FAIL_INPUT / PSC error); a
 *     2 MiB PVALIDATE over pages that are not one 2 MiB RMP entry answers
 *     FAIL_SIZEMISMATCH (APM vol. 3 PVALIDATE; GHCB spec PSC entry page size).
 *     Tests: test_rule_r4_2m_only_when_aligned, test_2m_falls_back_to_4k.
 *  R5 The RMP is checked on access, not at a TLB flush: a mapping whose C-bit
 *     does not match the page's RMP state breaks no rule until it is used
 *     (APM vol. 2 "SEV-SNP", RMP checks are made on the access), so Linux's
 *     and EDK2's shared-to-private order (C-bit, flush, PSC, PVALIDATE)
 *     passes; an access through such a mapping is an R3 violation. (An
 *     earlier version of this model checked the C-bit at every flush, which
 *     is stricter than the hardware.) Test: test_rule_r5_rmp_checked_on_access.
 *  R6 The GHCB is registered before use and shared: a GHCB-protocol VMGEXIT
 *     whose GHCB MSR is not the registered GPA, or whose page is private or
 *     mapped with the C-bit, is a violation, as is registering a private page
 *     (GHCB spec "GHCB GPA Registration": SNP guests must register; the GHCB
 *     must be shared memory). Registration and the GHCB MSR are per vCPU
 *     (@cpu): a CPU exiting through another CPU's GHCB breaks R6 too. Tests:
 *     test_rule_r6_ghcb_registered_and_shared, test_ghcb_per_cpu.
 *  R7 An AP is created only from a VMSA page: the AP-creation request's page
 *     must be assigned, validated and turned into a VMSA by RMPADJUST (APM
 *     vol. 2 "VMSA"; GHCB spec "SNP AP Creation"; Linux wakeup_cpu_via_vmgexit()
 *     and snp_set_vmsa()); RMPADJUST of a page that is not private and
 *     validated fails. Test: test_rule_r7_ap_create_needs_vmsa.
 *  R8 RMPADJUST may set only the permissions of a less privileged
 *     (numerically higher) VMPL than the guest's own; otherwise
 *     RMPADJUST_FAIL_PERMISSION (APM vol. 3 RMPADJUST). Test:
 *     test_vmpl0_check (tests/arch/test_snp_boot.c).
 *  R9 A GHCB exit is refused as KVM refuses it (Linux arch/x86/kvm/svm/sev.c,
 *     sev_es_validate_vmgexit()): SW_EXITCODE/SW_EXITINFO1/SW_EXITINFO2 not
 *     marked valid, or an event's own inputs not valid (e.g. RAX of an OUT,
 *     RCX/RAX/RDX of a WRMSR, SW_SCRATCH of MMIO and PSC), answer
 *     GHCB_ERR_MISSING_INPUT; an exit code KVM does not list, HLT (0x78) among
 *     them, GHCB_ERR_INVALID_EVENT; GHCB usage other than 0,
 *     GHCB_ERR_INVALID_USAGE. The guest gets SW_EXITINFO1 = 2 and the reason
 *     in SW_EXITINFO2 (svm_vmgexit_bad_input()); @n_refused counts them.
 *     Tests (tests/arch/test_pvio_snp.c): test_model_refuses_hlt_as_kvm,
 *     test_model_wants_kvm_inputs; e2e sim_snp.sh checks "0 refused".
 *  R10 Per-CPU TLBs (when @tlb is given): a change of a page's C-bit leaves
 *     every CPU but the ones that then flush that page (snp_model_note_flush(),
 *     the calling CPU) or their whole TLB (snp_model_note_tlb_sync()) holding
 *     the old translation (SDM vol. 3 4.10.5, APM vol. 2 5.5: no TLB coherence
 *     in hardware). An access (snp_model_note_access()) from such a CPU is
 *     checked with the old C-bit, and one that the RMP would fault is a
 *     violation: a stale translation on another CPU during a conversion.
 *     Test: test_rule_r10_stale_tlb_on_another_cpu (it also shows the
 *     kernel's TLB generation scheme, mmu_tlb_sync() before converted memory
 *     is reached, passes).
 *  R11 Project rule (not a platform rule: the hypervisor and the GHCB spec
 *     accept any registered GHCB): no GHCB-protocol exit goes through a GHCB
 *     the guest did not register itself, i.e. the one the firmware left
 *     registered (snp_model_firmware_ghcb()). Linux never uses the
 *     firmware's GHCB (its early code speaks the MSR protocol until its own
 *     boot GHCB is registered: snp_register_ghcb_early()); nor does Sluice:
 *     the host chose that page's address. Counted in @n_fw_ghcb_exits.
 *     Tests (tests/arch/test_snp_boot.c): test_rule_r11_firmware_ghcb_never_used,
 *     test_ghcb_boot_steps; e2e sim_snp.sh ("firmware GHCB: never used").
 *
 * Every conversion test in tests/arch/test_snp.c and tests/arch/test_pvio_snp.c also
 * asserts that no rule was broken. A violation calls the violation hook with
 * the rule's name and counts it. Faults a hostile or busy hypervisor produces
 * are injected on demand (struct snp_model_faults).
 */
#ifndef SLUICE_ARCH_SNP_MODEL_H
#define SLUICE_ARCH_SNP_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arch/x86_64/cc/ghcb.h"
#include "arch/x86_64/cc/tee_insn.h"

/* Per-page flags in struct snp_model.page. */
#define SNP_PG_ASSIGNED 0x01u  /* RMP: the guest's (private) */
#define SNP_PG_VALIDATED 0x02u /* RMP: Validated */
#define SNP_PG_RMP_2M 0x04u    /* RMP: part of a 2 MiB entry */
#define SNP_PG_PTE_C 0x08u     /* the guest maps it with the C-bit */
#define SNP_PG_VMSA 0x10u      /* RMP: a VMSA page (RMPADJUST) */

#define SNP_MODEL_MAX_CPUS 16

/**
 * struct snp_model_faults - what the hypervisor does wrong, on purpose. A
 *	field "_at" N > 0 acts on the Nth call of its kind (1-based); "_every"
 *	N acts on every Nth.
 * @psc_early_at: that GHCB PSC processes only half the remaining entries (at
 *	least one) and returns early.
 * @psc_early_every: the same for every Nth.
 * @psc_stall_every: the PSC returns with nothing processed.
 * @psc_error_at: that PSC fails (SW_EXITINFO2 non-zero) processing nothing.
 * @psc_error_every: the same for every Nth.
 * @psc_backwards_at: that PSC moves cur_entry backwards (a lie).
 * @psc_msr_error_at: that MSR-protocol PSC is refused.
 * @psc_half_entry_at: that GHCB PSC stops half way through its current 2 MiB
 *	entry (cur_page 256) and returns early.
 * @psc_bad_cur_page_at: that GHCB PSC does nothing and returns with a
 *	cur_page beyond the entry's pages (a lie).
 * @rmp_4k_only: the hypervisor backs everything with 4 KiB RMP entries: every
 *	2 MiB PVALIDATE is a size mismatch.
 * @pval_mismatch_at: that PVALIDATE answers FAIL_SIZEMISMATCH.
 * @pval_mismatch_every: every Nth 2 MiB PVALIDATE does (the hypervisor backed
 *	that 2 MiB page with 4 KiB RMP entries behind the guest's back).
 * @pval_fail_at: that PVALIDATE answers FAIL_INPUT.
 * @pval_cf_at: that PVALIDATE succeeds with CF = 1 and changes nothing.
 * @pval_cf_every: the same for every Nth.
 * @cpuid_bad_resp: every MSR-protocol CPUID is answered with a code that is
 *	not a CPUID response.
 * @reg_refuse: registration answers with another GFN.
 * @exit_error: every other GHCB exit answers SW_EXITINFO1 = 2 (error).
 */
struct snp_model_faults {
	unsigned long psc_early_at, psc_early_every, psc_stall_every, psc_error_at;
	unsigned long psc_error_every, psc_backwards_at, psc_msr_error_at, psc_half_entry_at;
	unsigned long psc_bad_cur_page_at;
	bool rmp_4k_only;
	unsigned long pval_mismatch_at, pval_mismatch_every, pval_fail_at, pval_cf_at,
		pval_cf_every;
	bool reg_refuse, exit_error, cpuid_bad_resp;
};

/**
 * struct snp_model_tlb - per page, what the per-CPU TLB model (R10) keeps.
 * @gen: the model's generation at the page's last C-bit change.
 * @fresh: CPUs (bit per CPU) that flushed the page since that change.
 * @old_c: the C-bit before that change (what a stale translation says).
 */
struct snp_model_tlb {
	uint32_t gen;
	uint16_t fresh;
	uint8_t old_c;
	uint8_t pad;
};

/**
 * struct snp_model - the model's state.
 * @base: GPA of the first modelled page (2 MiB aligned for 2 MiB tests).
 * @npages: pages modelled.
 * @page: per page, SNP_PG_* flags (caller storage, @npages bytes).
 * @ghcb_msr: the GHCB MSR, per vCPU.
 * @ghcb_gpa: the registered GHCB GPA (0: none), per vCPU.
 * @cpu: the calling vCPU (below SNP_MODEL_MAX_CPUS); NULL: always 0.
 * @cpu_ctx: handed to @cpu.
 * @vmm: when set, the hypervisor's answer to every GHCB exit other than PSC
 *	and AP creation (the simulated guest's VMM, which carries them out
 *	natively); it sets SW_EXITINFO1/2 and the outputs. NULL: the model answers
 *	from @io_value, @mmio_value, @msr_value.
 * @ap_create: when set, the hypervisor's side of an AP-creation request that
 *	passed R7 (@op SNP_AP_CREATE or SNP_AP_DESTROY); returns 0 or refuses.
 * @on_terminate: when set, called for a termination request.
 * @hv_cpuid: when set, the hypervisor's CPUID for the calling vCPU (the
 *	MSR-protocol request 0x004 asks sub-leaf 0 of it, as KVM's
 *	kvm_cpuid()); NULL: @cpuid_value. @n_msr_cpuid counts the requests and
 *	@last_cpuid_leaf keeps the last one's function.
 * @hv_ctx: handed to @vmm, @ap_create and @on_terminate.
 * @n_ap_create: AP-creation requests; @n_rmpadjust: RMPADJUSTs.
 * @faults: faults to inject.
 * @violation: called for a broken rule: @rule names it, @gpa the page.
 * @violation_ctx: handed to @violation.
 * @violations: rules broken so far; @last_rule the last one.
 * @n_psc: GHCB PSC exits; @n_psc_msr: MSR-protocol PSCs; @n_pval: PVALIDATEs
 *	(@n_pval_2m: of 2 MiB);
 *	@n_exit: other GHCB exits (faults count on these).
 * @terminated: termination requests; @term_set, @term_code: the last one's.
 * @last_exit_code, @last_info1, @last_info2, @last_rax, @last_rcx, @last_rdx:
 *	the last non-PSC GHCB exit as the hypervisor saw it.
 * @last_mmio: the bytes of the last MMIO write.
 * @vmpl: the VMPL the guest runs at (0 unless a test or snp_fault=vmpl1 says).
 * @n_refused: GHCB exits refused as KVM refuses them (R9); @last_refused_code:
 *	the last one's SW_EXITCODE.
 * @n_flush: TLB flushes the guest reported (snp_model_note_flush()).
 * @n_psc_pages: 4 KiB pages GHCB PSC entries changed (a page done twice counts
 *	twice).
 * @ghcb_min, @ghcb_max, @cbit_pos: the SEV information response (MSR protocol
 *	0x001), as KVM gives it: versions 1..2, C-bit 51 unless a test says.
 * @hv_features: the hypervisor features response (0x081): KVM's
 *	GHCB_HV_FT_SNP | GHCB_HV_FT_SNP_AP_CREATION unless a test says.
 * @tlb: per page, the per-CPU TLB model of R10 (caller storage, @npages
 *	entries, zeroed), or NULL: every CPU is taken to see the current
 *	mappings. @tlb_gen: its generation; @tlb_synced: per CPU, the generation
 *	of its last whole-TLB flush.
 * @ghcb_ours: per vCPU, whether the registered GHCB was registered by the
 *	guest (MSR protocol) rather than left by the firmware (R11).
 * @n_fw_ghcb_exits: GHCB exits through a GHCB the guest did not register.
 * @io_value: what an IN returns; @mmio_value: what an MMIO read returns;
 *	@msr_value: what an RDMSR returns.
 */
struct snp_model {
	uint64_t base;
	uint64_t npages;
	uint8_t *page;
	uint64_t ghcb_msr[SNP_MODEL_MAX_CPUS];
	uint64_t ghcb_gpa[SNP_MODEL_MAX_CPUS];
	unsigned int (*cpu)(void *ctx);
	void *cpu_ctx;
	void (*vmm)(void *ctx, struct ghcb *g);
	int (*ap_create)(void *ctx, uint32_t apic_id, unsigned int op, uint64_t vmsa_gpa,
			 uint64_t sev_features);
	void (*on_terminate)(void *ctx, unsigned int set, unsigned int code);
	void (*hv_cpuid)(void *ctx, uint32_t leaf, uint32_t sub, uint32_t r[4]);
	void *hv_ctx;
	uint32_t cpuid_value[4];
	unsigned long n_msr_cpuid;
	uint32_t last_cpuid_leaf;
	unsigned long n_ap_create, n_rmpadjust;
	struct snp_model_faults faults;
	void (*violation)(void *ctx, const char *rule, uint64_t gpa);
	void *violation_ctx;
	unsigned long violations;
	const char *last_rule;
	unsigned long n_psc, n_psc_msr, n_pval, n_pval_2m, n_exit;
	unsigned long terminated;
	unsigned int term_set, term_code;
	uint64_t last_exit_code, last_info1, last_info2, last_rax, last_rcx, last_rdx;
	uint64_t last_mmio;
	uint64_t io_value, mmio_value, msr_value;
	unsigned int vmpl;
	unsigned long n_refused;
	uint64_t last_refused_code;
	unsigned long n_flush;
	unsigned long n_psc_pages;
	unsigned int ghcb_min, ghcb_max, cbit_pos;
	uint64_t hv_features;
	bool ghcb_ours[SNP_MODEL_MAX_CPUS];
	unsigned long n_fw_ghcb_exits;
	struct snp_model_tlb *tlb;
	uint32_t tlb_gen;
	uint32_t tlb_synced[SNP_MODEL_MAX_CPUS];
};

/**
 * snp_model_init() - a guest whose pages in [@base, @base + @npages * 4 KiB)
 *	are all assigned, validated (4 KiB RMP entries) and mapped with the C-bit,
 *	as the firmware hands over its validated memory; no GHCB registered.
 * @m: caller storage.
 * @base: first GPA modelled.
 * @npages: pages modelled.
 * @page: @npages bytes.
 */
void snp_model_init(struct snp_model *m, uint64_t base, uint64_t npages, uint8_t *page);

/**
 * snp_model_firmware_ghcb() - what the firmware did before the guest's OS
 *	ran: made the page at @gpa shared (PVALIDATE rescind, PSC, mapped
 *	without the C-bit) and registered it as @cpu's GHCB, the GHCB MSR left
 *	holding its GPA (EDK2 OvmfPkg/PlatformPei/AmdSev.c).
 * @m: the model.
 * @cpu: the vCPU.
 * @gpa: the page, inside the window.
 */
void snp_model_firmware_ghcb(struct snp_model *m, unsigned int cpu, uint64_t gpa);

/**
 * snp_model_insn() - the ops that route VMGEXIT, PVALIDATE, RMPADJUST and the
 *	GHCB MSR to @m (TDCALL is left NULL).
 * @m: the model.
 * @ops: filled in.
 */
void snp_model_insn(struct snp_model *m, struct tee_insn_ops *ops);

/**
 * snp_model_note_ptes() - record that the guest changed the C-bit of its
 *	mappings of a range.
 * @m: the model.
 * @gpa: start.
 * @len: bytes.
 * @private_: C-bit set.
 */
void snp_model_note_ptes(struct snp_model *m, uint64_t gpa, uint64_t len, bool private_);

/**
 * snp_model_note_flush() - the guest flushed its TLBs for a range: counted; no
 *	rule is checked there (R5: the RMP is checked on access).
 * @m: the model.
 * @gpa: start.
 * @len: bytes.
 */
void snp_model_note_flush(struct snp_model *m, uint64_t gpa, uint64_t len);

/**
 * snp_model_note_tlb_sync() - the calling CPU dropped its whole TLB (R10).
 * @m: the model.
 */
void snp_model_note_tlb_sync(struct snp_model *m);

/**
 * snp_model_note_access() - the guest reads or writes a range: rule R3, and
 *	R10 through the calling CPU's possibly stale translations.
 * @m: the model.
 * @gpa: start.
 * @len: bytes (at least 1).
 */
void snp_model_note_access(struct snp_model *m, uint64_t gpa, uint64_t len);

/**
 * snp_model_page() - the flags of the page holding @gpa.
 * @m: the model.
 * @gpa: an address inside the window.
 * Return: SNP_PG_* flags, or -1 outside the window.
 */
int snp_model_page(const struct snp_model *m, uint64_t gpa);

#endif /* SLUICE_ARCH_SNP_MODEL_H */
