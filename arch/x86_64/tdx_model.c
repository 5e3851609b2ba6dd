/* SPDX-License-Identifier: MIT */
/*
 * tdx_model.c - a model of the TDX module and the VMM's MapGPA (see tdx_model.h
 * for the rules and their sources).
 */
#include "arch/x86_64/tdx_model.h"

#include <string.h>

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

void tdx_model_note_ptes(struct tdx_model *m, uint64_t gpa, uint64_t len, bool shared)
{
	for (uint64_t a = gpa; a < gpa + len; a += PAGE) {
		int64_t i = page_index(m, a);

		if (i >= 0)
			m->pte_shared[i] = shared;
	}
}

void tdx_model_note_flush(struct tdx_model *m, uint64_t gpa, uint64_t len)
{
	for (uint64_t a = gpa; a < gpa + len; a += PAGE) {
		int64_t i = page_index(m, a);

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
