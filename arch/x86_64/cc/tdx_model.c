/* SPDX-License-Identifier: MIT */
/*
 * tdx_model.c - a model of the TDX module and the VMM's MapGPA (see tdx_model.h
 * for the rules and their sources).
 */
#include "arch/x86_64/cc/tdx_model.h"

#include <string.h>

#include "arch/x86_64/mm/tlb_gen.h"

#define PAGE 4096u
#define PAGES_2M 512u

void tdx_model_init(struct tdx_model *m, uint64_t base, uint64_t npages, uint8_t *state,
		    uint8_t *pte_shared)
{
	memset(m, 0, sizeof(*m));
	m->base = base;
	m->npages = npages;
	m->state = state;
	m->pte_shared = pte_shared;
	m->gpaw = 48;
	m->attributes = TDX_ATTR_SEPT_VE_DISABLE;
	m->num_vcpus = 1;
	memset(state, TDX_PAGE_ACCEPTED, npages);
	memset(pte_shared, 0, npages);
}

static uint64_t shared_bit(const struct tdx_model *m)
{
	return UINT64_C(1) << (m->gpaw - 1);
}

/* Index of the page at @gpa (shared bit stripped), or -1 outside the window. */
static int64_t page_index(const struct tdx_model *m, uint64_t gpa)
{
	gpa &= ~shared_bit(m);
	if (gpa < m->base || (gpa - m->base) / PAGE >= m->npages)
		return -1;
	return (int64_t)((gpa - m->base) / PAGE);
}

int tdx_model_page(const struct tdx_model *m, uint64_t gpa)
{
	int64_t i = page_index(m, gpa);

	return i < 0 ? -1 : m->state[i];
}

static void broken(struct tdx_model *m, const char *rule, uint64_t gpa)
{
	m->violations++;
	m->last_rule = rule;
	if (m->violation)
		m->violation(m->violation_ctx, rule, gpa);
}

/* Whether the Nth call (1-based) of a kind is to fail, for a fault "every". */
static bool nth(unsigned long n, unsigned int every)
{
	return every && n % every == 0;
}

void tdx_model_set_pages(struct tdx_model *m, uint64_t gpa, uint64_t len, enum tdx_page_state state)
{
	for (uint64_t a = gpa; a < gpa + len; a += PAGE) {
		int64_t i = page_index(m, a);

		if (i >= 0)
			m->state[i] = (uint8_t)state;
	}
}

/* The calling vCPU (R7). */
static unsigned int vcpu(const struct tdx_model *m)
{
	unsigned int c = m->cpu ? m->cpu(m->cpu_ctx) : 0;

	return c < TDX_MODEL_MAX_CPUS ? c : 0;
}

/* R7: the mapping CPU @c's TLB may hold for page @i. */
static bool tlb_shared_seen(const struct tdx_model *m, int64_t i, unsigned int c)
{
	const struct tdx_model_tlb *t;

	if (!m->tlb)
		return m->pte_shared[i];
	t = &m->tlb[i];
	if ((t->fresh & (1u << c)) || tlb_gen_change_seen(m->tlb_synced[c], t->gen))
		return m->pte_shared[i];
	return t->old_shared;
}

void tdx_model_note_ptes(struct tdx_model *m, uint64_t gpa, uint64_t len, bool shared)
{
	/* One generation per change, as the kernel publishes one per conversion
	 * step (tlb_gen.h). */
	m->tlb_gen++;
	for (uint64_t a = gpa; a < gpa + len; a += PAGE) {
		int64_t i = page_index(m, a);

		if (i < 0)
			continue;
		if (m->tlb && m->pte_shared[i] != shared) {
			/* R7: every CPU may keep the old translation until it flushes. */
			m->tlb[i].old_shared = m->pte_shared[i];
			m->tlb[i].gen = m->tlb_gen;
			m->tlb[i].fresh = 0;
		}
		m->pte_shared[i] = shared;
	}
}

void tdx_model_note_tlb_sync(struct tdx_model *m)
{
	m->tlb_synced[vcpu(m)] = m->tlb_gen;
}

void tdx_model_note_access(struct tdx_model *m, uint64_t gpa, uint64_t len)
{
	unsigned int c = vcpu(m);

	gpa &= ~shared_bit(m);
	for (uint64_t a = gpa & ~(uint64_t)(PAGE - 1); a < gpa + len; a += PAGE) {
		int64_t i = page_index(m, a);
		bool seen;

		if (i < 0)
			continue;
		seen = tlb_shared_seen(m, i, c);
		if (seen ? m->state[i] == TDX_PAGE_SHARED : m->state[i] == TDX_PAGE_ACCEPTED)
			continue;
		if (seen != (bool)m->pte_shared[i])
			broken(m, "R7: a CPU reached a converted page through a stale translation",
			       a);
		else if (seen)
			broken(m,
			       "R7: a shared access to a private page (it reaches the host's page)",
			       a);
		else
			broken(m,
			       "R7: a private access to a shared or pending page (#VE or the TD ends)",
			       a);
	}
}

/*
 * R7, Linux's order: MapGPA of page @i while a CPU other than the caller may
 * still translate it otherwise than the guest's mapping says. Linux flushes
 * every CPU first (cpa_flush() in __set_memory_enc_pgtable()); Sluice's
 * generation scheme does not, and is held to the access half instead.
 */
static void tlb_check_map(struct tdx_model *m, int64_t i, uint64_t gpa)
{
	unsigned int me = vcpu(m), n = m->num_vcpus;

	if (!m->tlb)
		return;
	if (n > TDX_MODEL_MAX_CPUS)
		n = TDX_MODEL_MAX_CPUS;
	for (unsigned int c = 0; c < n; c++) {
		if (c == me || tlb_shared_seen(m, i, c) == (bool)m->pte_shared[i])
			continue;
		m->n_stale_at_map++;
		if (m->tlb_linux_order)
			broken(m,
			       "R7 (Linux's order, project rule): MapGPA while another CPU holds a "
			       "stale translation (Linux: cpa_flush() on every CPU first, "
			       "__set_memory_enc_pgtable())",
			       gpa);
		return;
	}
}

void tdx_model_note_flush(struct tdx_model *m, uint64_t gpa, uint64_t len)
{
	unsigned int c = vcpu(m);

	for (uint64_t a = gpa; a < gpa + len; a += PAGE) {
		int64_t i = page_index(m, a);

		if (i >= 0 && m->tlb)
			m->tlb[i].fresh |= (uint16_t)(1u << c); /* R7: the caller's flush */
		if (i < 0 || m->pte_shared[i])
			continue;
		if (m->state[i] == TDX_PAGE_SHARED)
			broken(m, "R4: a private mapping of a shared page at a TLB flush", a);
		else if (m->state[i] == TDX_PAGE_PENDING)
			broken(m, "R5: a private mapping of a page not yet accepted at a TLB flush",
			       a);
	}
}

/* TDG.VP.VMCALL<MapGPA>: R12 GPA (shared bit = to shared), R13 length. */
static void model_map_gpa(struct tdx_model *m, struct tdcall_regs *r)
{
	uint64_t sbit = shared_bit(m), gpa = r->r12, len = r->r13, half;
	bool to_shared = gpa & sbit;
	uint64_t plain = gpa & ~sbit;

	m->n_map++;
	if (!len || (gpa & (PAGE - 1)) || (len & (PAGE - 1)) || plain + len < plain ||
	    plain + len > sbit || (gpa >> m->gpaw)) {
		r->r10 = TDVMCALL_INVALID_OPERAND; /* R3 */
		return;
	}
	if (nth(m->n_map, m->faults.map_error_every) || m->n_map == m->faults.map_fail_at) {
		r->r10 = TDVMCALL_INVALID_OPERAND;
		return;
	}
	if (nth(m->n_map, m->faults.map_stall_every) || m->n_map <= m->faults.map_stall_until) {
		r->r10 = TDVMCALL_RETRY;
		r->r11 = gpa;
		return;
	}
	if (nth(m->n_map, m->faults.map_bad_resume_every)) {
		r->r10 = TDVMCALL_RETRY;
		r->r11 = gpa + len + PAGE;
		return;
	}
	half = len;
	if (len >= 2 * PAGE &&
	    (nth(m->n_map, m->faults.map_partial_every) || m->n_map == m->faults.map_partial_at))
		half = (len / 2) & ~(uint64_t)(PAGE - 1);
	for (uint64_t a = plain; a < plain + half; a += PAGE) {
		int64_t i = page_index(m, a);

		if (i < 0)
			continue; /* outside the window: not modelled */
		tlb_check_map(m, i, a);
		if (to_shared) {
			if (!m->pte_shared[i])
				broken(m, "R4: MapGPA to shared of a page the guest maps private",
				       a);
			m->state[i] = TDX_PAGE_SHARED;
		} else if (m->state[i] == TDX_PAGE_SHARED) {
			m->state[i] = TDX_PAGE_PENDING;
		}
		/* MapGPA to private of a private page leaves it as it is. */
	}
	if (!to_shared && nth(m->n_map, m->faults.map_keep_accepted_every)) {
		int64_t i = page_index(m, plain);

		if (i >= 0)
			m->state[i] = TDX_PAGE_ACCEPTED;
	}
	if (half < len) {
		r->r10 = TDVMCALL_RETRY;
		r->r11 = gpa + half;
		return;
	}
	r->r10 = TDVMCALL_SUCCESS;
}

/* TDG.MEM.PAGE.ACCEPT: RCX = GPA | level. */
static uint64_t model_accept(struct tdx_model *m, uint64_t rcx)
{
	uint64_t gpa = rcx & ~(uint64_t)7, level = rcx & 7, n;
	int64_t i = page_index(m, gpa);

	m->n_accept++;
	if (nth(m->n_accept, m->faults.accept_busy_every))
		return TDX_OPERAND_BUSY;
	if (nth(m->n_accept, m->faults.accept_error_every))
		return TDX_OPERAND_INVALID;
	if (level > 1 || (gpa & shared_bit(m)) || i < 0)
		return TDX_OPERAND_INVALID; /* R1 */
	n = level ? PAGES_2M : 1;
	if (level && ((gpa & ((UINT64_C(1) << 21) - 1)) || (uint64_t)i + n > m->npages))
		return TDX_PAGE_SIZE_MISMATCH; /* R2 */
	if (level && m->faults.vmm_4k_only)
		return TDX_PAGE_SIZE_MISMATCH; /* R2: the VMM mapped 4 KiB pages */
	{
		uint64_t accepted = 0;

		for (uint64_t k = 0; k < n; k++) {
			if (m->state[i + k] == TDX_PAGE_SHARED)
				return TDX_OPERAND_INVALID; /* R1 */
			accepted += m->state[i + k] == TDX_PAGE_ACCEPTED;
		}
		if (accepted == n)
			return TDX_PAGE_ALREADY_ACCEPTED; /* R1 */
		if (accepted)
			return TDX_PAGE_SIZE_MISMATCH; /* R2: not one uniform 2 MiB page */
	}
	for (uint64_t k = 0; k < n; k++)
		m->state[i + k] = TDX_PAGE_ACCEPTED;
	return TDX_SUCCESS;
}

/*
 * R6: the MSRs KVM emulates for a TD, as Linux arch/x86/kvm/vmx/tdx.c
 * tdx_has_emulated_msr() lists them (read at torvalds/linux 3829d81b): the
 * x2APIC range except the registers the CPU virtualises (TPR, PPR, EOI, and
 * the ranges X2APIC_MSR(APIC_ISR) .. X2APIC_MSR(APIC_ISR + APIC_ISR_NR), the
 * same for TMR and IRR, which with APIC_ISR_NR = 8 name 0x810, 0x818 and 0x820
 * only), and a fixed list of platform MSRs.
 */
static bool kvm_tdx_has_emulated_msr(uint32_t msr)
{
	if (msr >= 0x800 && msr <= 0x8ff)
		return msr != 0x808 && msr != 0x80a && msr != 0x80b && msr != 0x810 &&
		       msr != 0x818 && msr != 0x820;
	switch (msr) {
	case 0x8b:	  /* IA32_UCODE_REV */
	case 0x10a:	  /* IA32_ARCH_CAPABILITIES */
	case 0x1fc:	  /* IA32_POWER_CTL */
	case 0x277:	  /* IA32_CR_PAT */
	case 0xfe:	  /* MTRRcap */
	case 0x2ff:	  /* MTRRdefType */
	case 0x6e0:	  /* IA32_TSC_DEADLINE */
	case 0x1a0:	  /* IA32_MISC_ENABLE */
	case 0xce:	  /* PLATFORM_INFO */
	case 0x140:	  /* MISC_FEATURES_ENABLES */
	case 0x1b:	  /* IA32_APIC_BASE */
	case 0xc0000080u: /* EFER */
	case 0x3a:	  /* IA32_FEAT_CTL */
	case 0x179:	  /* IA32_MCG_CAP */
	case 0x17a:	  /* IA32_MCG_STATUS */
	case 0x17b:	  /* IA32_MCG_CTL */
	case 0x4d0:	  /* IA32_MCG_EXT_CTL */
	case 0x4b564d05u: /* MSR_KVM_POLL_CONTROL */
		return true;
	default:
		/* MTRRphysBase0 .. MTRRfix4K_F8000; MCi_CTL/STATUS/ADDR/MISC and
		 * MCi_CTL2 of KVM_MAX_MCE_BANKS (32) banks. */
		return (msr >= 0x200 && msr <= 0x26f) || (msr >= 0x400 && msr <= 0x47f) ||
		       (msr >= 0x280 && msr <= 0x29f);
	}
}

/* R6: tdx_is_read_only_msr() (same file): writes KVM refuses. */
static bool kvm_tdx_is_read_only_msr(uint32_t msr)
{
	return msr == 0x1b || msr == 0xc0000080u || msr == 0x3a;
}

/*
 * R6: a TDG.VP.VMCALL<Instruction.RDMSR/WRMSR> KVM refuses is answered
 * TDVMCALL_INVALID_OPERAND (KVM: tdx_get_msr() / tdx_set_msr() fail, and the
 * TDVMCALL completes with that status; a Linux guest turns it into #GP). A
 * project rule on top (KVM would answer from a stale copy, not refuse): the
 * x2APIC ISR, TMR and IRR words the CPU virtualises (0x810-0x827) are never
 * asked of the VMM; asking is a violation.
 * Return: true if refused.
 */
static bool model_msr_refused(struct tdx_model *m, const struct tdcall_regs *r)
{
	uint32_t msr = (uint32_t)r->r12;
	bool write = r->r11 == TDVMCALL_WRMSR;

	if (r->r11 != TDVMCALL_RDMSR && !write)
		return false;
	if (msr >= 0x810 && msr <= 0x827)
		broken(m,
		       "R6 (project rule): an x2APIC ISR/TMR/IRR word the CPU virtualises "
		       "asked of the VMM",
		       msr);
	if (kvm_tdx_has_emulated_msr(msr) && !(write && kvm_tdx_is_read_only_msr(msr)))
		return false;
	__atomic_add_fetch(&m->n_msr_refused, 1, __ATOMIC_RELAXED);
	return true;
}

static uint64_t model_tdcall(void *ctx, struct tdcall_regs *r)
{
	struct tdx_model *m = ctx;

	switch (r->rax) {
	case TDG_VP_INFO:
		r->rcx = m->gpaw;
		r->rdx = m->attributes;
		r->r8 = m->num_vcpus;
		r->rax = TDX_SUCCESS;
		break;
	case TDG_VP_VEINFO_GET:
		r->rcx = m->ve.exit_reason;
		r->rdx = m->ve.exit_qual;
		r->r8 = m->ve.gla;
		r->r9 = m->ve.gpa;
		r->r10 = m->ve.instr_len;
		r->rax = TDX_SUCCESS;
		break;
	case TDG_MEM_PAGE_ACCEPT:
		r->rax = model_accept(m, r->rcx);
		break;
	case TDG_VP_VMCALL:
		if (m->vmm && r->r10 == 0 && model_msr_refused(m, r)) {
			r->rax = TDX_SUCCESS;
			r->r10 = TDVMCALL_INVALID_OPERAND;
			break;
		}
		if (m->vmm && r->r10 == 0 && r->r11 != TDVMCALL_MAP_GPA) {
			__atomic_add_fetch(&m->n_vmm_calls, 1, __ATOMIC_RELAXED);
			r->rax = TDX_SUCCESS;
			m->vmm(m->vmm_ctx, r);
			break;
		}
		m->n_vmcall++;
		m->last_fn = r->r11;
		m->last_r12 = r->r12;
		m->last_r13 = r->r13;
		m->last_r14 = r->r14;
		m->last_r15 = r->r15;
		r->rax = TDX_SUCCESS;
		if (r->r10 != 0) {
			r->r10 = TDVMCALL_INVALID_OPERAND;
		} else if (r->r11 == TDVMCALL_MAP_GPA) {
			model_map_gpa(m, r);
		} else if (model_msr_refused(m, r)) {
			r->r10 = TDVMCALL_INVALID_OPERAND;
		} else {
			if (r->r11 == TDVMCALL_REPORT_FATAL_ERROR)
				m->fatal_reports++;
			if (r->r11 == TDVMCALL_CPUID) {
				r->r12 = m->cpuid[0];
				r->r13 = m->cpuid[1];
				r->r14 = m->cpuid[2];
				r->r15 = m->cpuid[3];
			}
			r->r10 = TDVMCALL_SUCCESS;
			r->r11 = m->vmcall_r11;
		}
		break;
	default:
		r->rax = TDX_OPERAND_INVALID;
		break;
	}
	return r->rax;
}

void tdx_model_insn(struct tdx_model *m, struct tee_insn_ops *ops)
{
	ops->tdcall = model_tdcall;
	ops->ctx = m;
}
