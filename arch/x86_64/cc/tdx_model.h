/* SPDX-License-Identifier: MIT */
/*
 * tdx_model.h - a model of the TDX module and of the VMM's side of MapGPA, behind
 * struct tee_insn_ops, for the host tests and the kernel's simulated TD
 * (cc=sim-tdx). The protocol code (arch/x86_64/cc/tdx.c) runs against it unchanged.
 *
 * The model keeps the state of every 4 KiB page of one window of guest memory
 * (private-accepted, private-pending, shared) and what the guest's own mappings
 * say (private or shared), and enforces the rules the protocol must follow.
 * Each rule, where it comes from, and the tests that hold the protocol to it
 * (host: tests/arch/test_tdx.c; QEMU: tests/e2e/sim_tdx.sh, every conversion of a
 * whole boot):
 *
 *  R1 TDG.MEM.PAGE.ACCEPT succeeds only on a private-pending page; an accepted
 *     page answers TDX_PAGE_ALREADY_ACCEPTED, a shared page or a GPA with the
 *     shared bit TDX_OPERAND_INVALID (TDX module ABI, TDG.MEM.PAGE.ACCEPT).
 *     Tests: test_already_accepted_during_conversion_is_a_lie,
 *     test_mid_range_failure_rolls_back_whole_range.
 *  R2 A 2 MiB accept needs a 2 MiB aligned GPA and all 512 pages pending and
 *     mapped as one 2 MiB page by the VMM; otherwise TDX_PAGE_SIZE_MISMATCH
 *     (same; EDK2 TdxLib falls back to 4 KiB on it). Tests:
 *     test_2m_falls_back_to_4k, test_unaligned_range_mixes_sizes, e2e
 *     sim_tdx_busy_vmm (tdx_fault=4k).
 *  R3 MapGPA takes a 4 KiB aligned GPA and a non-zero multiple of 4 KiB inside
 *     the GPA width; otherwise TDVMCALL_INVALID_OPERAND (GHCI, MapGPA). Tests:
 *     test_model_catches_wrong_order, test_bad_arguments (tdx.c refuses first).
 *  R4 No private mapping of a shared page, ever: MapGPA to shared while the
 *     guest still maps a page private, or a TLB flush after which a page mapped
 *     private is shared, is a violation (Linux arch/x86/coco/tdx/tdx.c,
 *     tdx_early_init(): "Private mapping => Shared Page == Guest shutdown";
 *     Linux orders its steps so that no such mapping exists). The TDX module
 *     faults only on an access through such a mapping: checking it at MapGPA
 *     and at the flush is a project rule, stricter than the hardware.
 *     Tests: every conversion test asserts no violation;
 *     test_model_catches_wrong_order shows the model catches the wrong order.
 *  R5 A page converted to private is pending until accepted; a private mapping
 *     of a pending page at a TLB flush is a violation (the first access would
 *     raise #VE with SEPT_VE_DISABLE clear, or end the TD with it set). Project
 *     rule: the hardware faults on the access, the model at the flush. Tests:
 *     as R4.
 *  R6 TDG.VP.VMCALL<Instruction.RDMSR/WRMSR> is answered only for the MSRs
 *     KVM emulates for a TD (Linux arch/x86/kvm/vmx/tdx.c,
 *     tdx_has_emulated_msr()), and a write only if the MSR is not read-only
 *     there (tdx_is_read_only_msr(): IA32_APIC_BASE, EFER, IA32_FEAT_CTL);
 *     otherwise TDVMCALL_INVALID_OPERAND, as KVM answers, counted in
 *     @n_msr_refused. Not emulated: the x2APIC TPR, PPR, EOI and (literally)
 *     ISR0/TMR0/IRR0, which the CPU virtualises. Project rule on top: any
 *     x2APIC ISR/TMR/IRR word (0x810-0x827) asked of the VMM is a violation.
 *     Tests (tests/arch/test_pvio_tdx.c): test_model_refuses_what_kvm_refuses,
 *     test_virtualised_msrs_are_native; e2e sim_tdx.sh checks "0 refused".
 *  R7 Per-CPU TLBs (when @tlb is given): every vCPU keeps its own cached
 *     translation of each page (SDM vol. 3 4.10.4-4.10.5: a change of a
 *     paging entry reaches another CPU's TLB only when that CPU flushes). A
 *     change of a page's mapping leaves every CPU holding the old one but the
 *     CPUs that then flush the page (tdx_model_note_flush(), the calling CPU)
 *     or their whole TLB (tdx_model_note_tlb_sync()).
 *     - Platform rule: an access (tdx_model_note_access()) goes through the
 *       calling CPU's translation. A private access to a shared or pending
 *       page faults (#VE, or the TD ends with SEPT_VE_DISABLE: Linux
 *       tdx_early_init(), "Private mapping => Shared Page == Guest
 *       shutdown"); a shared access to a private page reaches the host's
 *       memory, not the guest's (KVM answers the fault on a shared GPA whose
 *       attribute is private with KVM_EXIT_MEMORY_FAULT, and the VMM may
 *       convert the page back). Through a stale translation that is "a CPU
 *       reached a converted page through a stale translation", a violation.
 *     - Linux's order: a MapGPA of a page while another CPU may still hold a
 *       translation of it that differs from the guest's mapping is a
 *       conversion with a stale TLB on another CPU. Linux never makes one:
 *       __set_memory_enc_pgtable() (arch/x86/mm/pat/set_memory.c) flushes
 *       the range on every CPU with cpa_flush() before the hypercall and
 *       again after changing the entries. Counted in @n_stale_at_map; a
 *       violation only with @tlb_linux_order, because the TDX module and KVM
 *       never see a TLB entry that is not used (project rule): Sluice's
 *       generation scheme (arch/x86_64/mm/tlb_gen.h) leaves such entries on
 *       purpose and instead makes every CPU sync before it reaches converted
 *       memory, which the platform half checks.
 *     Tests: test_rule_r7_stale_tlb_on_another_cpu (both halves refuse a
 *     second CPU's stale translation; Linux's synchronous flush passes both),
 *     test_two_cpus_generation_scheme (the protocol and the kernel's
 *     generation rule with two CPUs converting and touching pages: no
 *     violation).
 *
 * The rules of the guest's side (a MapGPA "retry" must resume inside the range
 * and make progress; a failure rolls back or leaks, never leaves a mixed range;
 * SEPT_VE_DISABLE required; the shared bit at GPAW - 1) are in tdx.h and tested
 * in test_map_gpa_without_progress_ends, test_stall_then_rollback,
 * test_resume_address_outside_range, test_unrecoverable_failure_leaks,
 * test_refusals and test_shared_bit_for_gpaw_48_and_52.
 *
 * A violation calls the violation hook with the rule's name (the kernel stops
 * with a report; a host test records it). Faults a hostile or busy VMM and
 * module produce are injected on demand (struct tdx_model_faults).
 */
#ifndef SLUICE_ARCH_TDX_MODEL_H
#define SLUICE_ARCH_TDX_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arch/x86_64/cc/tdx.h"

#define TDX_MODEL_MAX_CPUS 16

/* Page states. */
enum tdx_page_state {
	TDX_PAGE_ACCEPTED = 0, /* private, accepted: usable */
	TDX_PAGE_PENDING = 1,  /* private, not yet accepted */
	TDX_PAGE_SHARED = 2,
};

/**
 * struct tdx_model_faults - what the VMM and the module do wrong, on purpose.
 *	Each "every" field N > 0 acts on every Nth call of its kind (1: each).
 * @map_partial_every: MapGPA converts only the first half of the range and
 *	answers "retry" from there.
 * @map_stall_every: MapGPA answers "retry" from the start, doing nothing.
 * @map_bad_resume_every: MapGPA answers "retry" from an address past the range.
 * @map_error_every: MapGPA fails, doing nothing.
 * @map_keep_accepted_every: MapGPA to private leaves the first page accepted
 *	(a VMM that never took it away, or replays it): the accept must notice.
 * @accept_busy_every: the accept answers TDX_OPERAND_BUSY.
 * @accept_error_every: the accept fails (TDX_OPERAND_INVALID).
 * @vmm_4k_only: the VMM maps everything in 4 KiB pages: every 2 MiB accept is
 *	a size mismatch.
 * @map_partial_at: the Nth MapGPA (1-based; 0: none) converts only half, as
 *	@map_partial_every does for every Nth.
 * @map_fail_at: the Nth MapGPA fails, doing nothing.
 * @map_stall_until: MapGPA calls 1 .. N answer "retry" from the start.
 */
struct tdx_model_faults {
	unsigned int map_partial_every, map_stall_every, map_bad_resume_every;
	unsigned int map_error_every, map_keep_accepted_every;
	unsigned int accept_busy_every, accept_error_every;
	bool vmm_4k_only;
	unsigned long map_partial_at, map_fail_at, map_stall_until;
};

/**
 * struct tdx_model_tlb - per page, what the per-CPU TLB model (R7) keeps.
 * @gen: the model's generation at the page's last mapping change.
 * @fresh: CPUs (bit per CPU) that flushed the page since that change.
 * @old_shared: the mapping before that change (what a stale translation
 *	says; after two changes before a CPU syncs, the latest old one).
 */
struct tdx_model_tlb {
	uint64_t gen;
	uint16_t fresh;
	uint8_t old_shared;
	uint8_t pad[5];
};

/**
 * struct tdx_model - the model's state.
 * @base: GPA of the first modelled page (4 KiB aligned).
 * @npages: pages modelled.
 * @state: per page, enum tdx_page_state (caller storage, @npages bytes).
 * @pte_shared: per page, what the guest's mapping says (caller storage).
 * @gpaw: GPA width TDG.VP.INFO reports.
 * @attributes: TD attributes it reports.
 * @num_vcpus: vCPUs it reports.
 * @ve: what TDG.VP.VEINFO.GET reports.
 * @faults: faults to inject.
 * @violation: called for a broken rule: @rule names it, @gpa the page.
 * @violation_ctx: handed to @violation.
 * @violations: rules broken so far.
 * @last_rule: the last one broken.
 * @n_map, @n_accept, @n_vmcall: calls seen, by kind (faults count on these).
 * @last_fn: the last TDG.VP.VMCALL sub-function seen, and @last_r12 .. its operands.
 * @fatal_reports: ReportFatalError calls.
 * @vmcall_r11: what any other TDG.VP.VMCALL returns in R11.
 * @cpuid: what TDG.VP.VMCALL<Instruction.CPUID> returns (EAX..EDX).
 * @vmm: if set, the VMM's side of every standard TDG.VP.VMCALL sub-function but
 *	MapGPA (the model's own): it gets the registers as the TD passed them and
 *	sets R10 (status) and the results (R11, or R12..R15 for CPUID). Called
 *	from any CPU at once, so it records nothing in the model; only
 *	@n_vmm_calls counts (atomically). The kernel's simulated TD executes the
 *	instruction natively there, as QEMU is the VMM (cc_sim_tdx.c).
 * @vmm_ctx: handed to @vmm.
 * @n_vmm_calls: VMCALLs given to @vmm.
 * @n_msr_refused: MSR VMCALLs refused as KVM refuses them (R6).
 * @cpu: the calling vCPU (below TDX_MODEL_MAX_CPUS), for R7; NULL: always 0.
 * @cpu_ctx: handed to @cpu.
 * @tlb: per page, the per-CPU TLB model of R7 (caller storage, @npages
 *	entries, zeroed), or NULL: every CPU is taken to see the current mapping.
 *	@tlb_gen: its generation; @tlb_synced: per CPU, the generation of its
 *	last whole-TLB flush. CPUs 0 .. @num_vcpus - 1 are modelled.
 * @tlb_linux_order: R7's conversion half is a violation (Linux's order),
 *	not only counted.
 * @n_stale_at_map: pages MapGPA converted while another CPU may still have
 *	held a stale translation of them (R7).
 */
struct tdx_model {
	uint64_t base;
	uint64_t npages;
	uint8_t *state;
	uint8_t *pte_shared;
	unsigned int gpaw;
	uint64_t attributes;
	unsigned int num_vcpus;
	struct tdx_ve_info ve;
	struct tdx_model_faults faults;
	void (*violation)(void *ctx, const char *rule, uint64_t gpa);
	void *violation_ctx;
	unsigned long violations;
	const char *last_rule;
	unsigned long n_map, n_accept, n_vmcall;
	uint64_t last_fn, last_r12, last_r13, last_r14, last_r15;
	unsigned long fatal_reports;
	uint64_t vmcall_r11;
	uint32_t cpuid[4];
	void (*vmm)(void *ctx, struct tdcall_regs *r);
	void *vmm_ctx;
	unsigned long n_vmm_calls;
	unsigned long n_msr_refused;
	unsigned int (*cpu)(void *ctx);
	void *cpu_ctx;
	struct tdx_model_tlb *tlb;
	uint64_t tlb_gen;
	uint64_t tlb_synced[TDX_MODEL_MAX_CPUS];
	bool tlb_linux_order;
	unsigned long n_stale_at_map;
};

/**
 * tdx_model_init() - a TD whose pages in [@base, @base + @npages * 4 KiB) are all
 *	private and accepted and mapped private, GPA width 48, SEPT_VE_DISABLE set.
 * @m: caller storage.
 * @base: first GPA modelled.
 * @npages: pages modelled.
 * @state: @npages bytes.
 * @pte_shared: @npages bytes.
 */
void tdx_model_init(struct tdx_model *m, uint64_t base, uint64_t npages, uint8_t *state,
		    uint8_t *pte_shared);

/**
 * tdx_model_insn() - the ops that route TDCALL to @m.
 * @m: the model.
 * @ops: filled in.
 */
void tdx_model_insn(struct tdx_model *m, struct tee_insn_ops *ops);

/**
 * tdx_model_note_ptes() - record that the guest changed its mappings of a range.
 * @m: the model.
 * @gpa: start.
 * @len: bytes.
 * @shared: the new attribute.
 */
void tdx_model_note_ptes(struct tdx_model *m, uint64_t gpa, uint64_t len, bool shared);

/**
 * tdx_model_note_flush() - the calling CPU flushed its TLB for a range: rules
 *	R4 and R5 are checked for every page of it; for R7 that CPU now holds
 *	the current mappings of the range.
 * @m: the model.
 * @gpa: start.
 * @len: bytes.
 */
void tdx_model_note_flush(struct tdx_model *m, uint64_t gpa, uint64_t len);

/**
 * tdx_model_note_tlb_sync() - the calling CPU dropped its whole TLB (R7; the
 *	kernel's mmu_tlb_sync() CR3 reload).
 * @m: the model.
 */
void tdx_model_note_tlb_sync(struct tdx_model *m);

/**
 * tdx_model_note_access() - the calling CPU reads or writes a range through
 *	its own (possibly stale) translations: rule R7.
 * @m: the model.
 * @gpa: start (without the shared bit).
 * @len: bytes (at least 1).
 */
void tdx_model_note_access(struct tdx_model *m, uint64_t gpa, uint64_t len);

/**
 * tdx_model_page() - the state of the page holding @gpa.
 * @m: the model.
 * @gpa: an address inside the window.
 * Return: enum tdx_page_state, or -1 outside the window.
 */
int tdx_model_page(const struct tdx_model *m, uint64_t gpa);

/**
 * tdx_model_set_pages() - put pages into a state (a test's starting point, or
 *	the firmware's unaccepted memory).
 * @m: the model.
 * @gpa: start.
 * @len: bytes.
 * @state: the state.
 */
void tdx_model_set_pages(struct tdx_model *m, uint64_t gpa, uint64_t len,
			 enum tdx_page_state state);

#endif /* SLUICE_ARCH_TDX_MODEL_H */
