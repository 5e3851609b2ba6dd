/* SPDX-License-Identifier: MIT */
/*
 * snp_model.c - a model of the RMP, PVALIDATE and the hypervisor's side of the
 * GHCB protocol (see snp_model.h for the rules and their sources).
 */
#include "arch/x86_64/cc/snp_model.h"

#include <string.h>

#include "arch/x86_64/mm/tlb_gen.h"

#define PAGE 4096u
#define PAGES_2M 512u
/* The model's PSC error codes in SW_EXITINFO2 (any non-zero value is an error
 * to the guest; these only tell the tests apart). */
#define MODEL_PSC_ERR_INJECTED (UINT64_C(1) << 32)
#define MODEL_PSC_ERR_BAD_HEADER (UINT64_C(2) << 32)
#define MODEL_PSC_ERR_BAD_ENTRY (UINT64_C(3) << 32)

void snp_model_init(struct snp_model *m, uint64_t base, uint64_t npages, uint8_t *page)
{
	memset(m, 0, sizeof(*m));
	m->base = base;
	m->npages = npages;
	m->page = page;
	memset(page, SNP_PG_ASSIGNED | SNP_PG_VALIDATED | SNP_PG_PTE_C, npages);
	/* As KVM answers an SNP guest (arch/x86/kvm/svm/sev.c: GHCB_VERSION_MIN
	 * 1, GHCB_VERSION_DEFAULT 2, GHCB_HV_FT_SUPPORTED). */
	m->ghcb_min = 1;
	m->ghcb_max = 2;
	m->hv_features = GHCB_HV_FT_SNP | GHCB_HV_FT_SNP_AP_CREATION;
	m->cbit_pos = 51;
}

static int64_t page_index(const struct snp_model *m, uint64_t gpa)
{
	if (gpa < m->base || (gpa - m->base) / PAGE >= m->npages)
		return -1;
	return (int64_t)((gpa - m->base) / PAGE);
}

int snp_model_page(const struct snp_model *m, uint64_t gpa)
{
	int64_t i = page_index(m, gpa);

	return i < 0 ? -1 : m->page[i];
}

static void broken(struct snp_model *m, const char *rule, uint64_t gpa)
{
	m->violations++;
	m->last_rule = rule;
	if (m->violation)
		m->violation(m->violation_ctx, rule, gpa);
}

/* The calling vCPU, for its GHCB MSR and registration. */
static unsigned int vcpu(const struct snp_model *m)
{
	unsigned int c = m->cpu ? m->cpu(m->cpu_ctx) : 0;

	return c < SNP_MODEL_MAX_CPUS ? c : 0;
}

static bool nth(unsigned long n, unsigned long every)
{
	return every && n % every == 0;
}

/* R10: the page's translation changes; every CPU may keep the old one. */
static void tlb_note_change(struct snp_model *m, int64_t i, bool private_)
{
	struct snp_model_tlb *t;
	bool c = m->page[i] & SNP_PG_PTE_C;

	if (!m->tlb || c == private_)
		return;
	t = &m->tlb[i];
	t->old_c = c;
	t->gen = m->tlb_gen;
	t->fresh = 0;
}

void snp_model_note_ptes(struct snp_model *m, uint64_t gpa, uint64_t len, bool private_)
{
	m->tlb_gen++;
	for (uint64_t a = gpa; a < gpa + len; a += PAGE) {
		int64_t i = page_index(m, a);

		if (i < 0)
			continue;
		tlb_note_change(m, i, private_);
		if (private_)
			m->page[i] |= SNP_PG_PTE_C;
		else
			m->page[i] &= (uint8_t)~SNP_PG_PTE_C;
	}
}

/*
 * R5: the RMP is checked on access, not when a translation is flushed (APM
 * vol. 2 "SEV-SNP", RMP checks on the guest's memory accesses): a mapping
 * whose C-bit does not match the RMP may exist for a while, as in Linux's and
 * EDK2's shared-to-private order (C-bit set, TLB flush, PSC, PVALIDATE:
 * __set_memory_enc_pgtable(), InternalMemEncryptSevSetMemoryEncrypted()).
 * The flush itself breaks no rule; an access through such a mapping does
 * (R3, snp_model_note_access()). Only counted.
 */
void snp_model_note_flush(struct snp_model *m, uint64_t gpa, uint64_t len)
{
	unsigned int c = vcpu(m);

	m->n_flush++;
	if (!m->tlb)
		return;
	/* The flush is the calling CPU's own (R10). */
	for (uint64_t a = gpa; a < gpa + len; a += PAGE) {
		int64_t i = page_index(m, a);

		if (i >= 0)
			m->tlb[i].fresh |= (uint16_t)(1u << c);
	}
}

void snp_model_note_tlb_sync(struct snp_model *m)
{
	m->tlb_synced[vcpu(m)] = m->tlb_gen;
}

/* The C-bit the calling CPU's translation of page @i says (R10). */
static bool tlb_c_seen(const struct snp_model *m, int64_t i, unsigned int c)
{
	const struct snp_model_tlb *t;

	if (!m->tlb)
		return m->page[i] & SNP_PG_PTE_C;
	t = &m->tlb[i];
	if ((t->fresh & (1u << c)) || tlb_gen_change_seen(m->tlb_synced[c], t->gen))
		return m->page[i] & SNP_PG_PTE_C;
	return t->old_c;
}

void snp_model_note_access(struct snp_model *m, uint64_t gpa, uint64_t len)
{
	unsigned int c = vcpu(m);

	for (uint64_t a = gpa & ~(uint64_t)(PAGE - 1); a < gpa + len; a += PAGE) {
		int64_t i = page_index(m, a);
		uint8_t f;
		bool seen;

		if (i < 0)
			continue;
		f = m->page[i];
		seen = tlb_c_seen(m, i, c);
		if ((f & SNP_PG_ASSIGNED) && (f & SNP_PG_VALIDATED) && seen)
			continue;
		if (!(f & SNP_PG_ASSIGNED) && !seen)
			continue;
		if (seen != (bool)(f & SNP_PG_PTE_C))
			broken(m, "R10: a CPU reached a converted page through a stale translation",
			       a);
		else
			broken(m,
			       "R3: an access to a page between its rescission and its new "
			       "mapping",
			       a);
	}
}

/* A 4 KiB change to a page of a 2 MiB RMP entry: the hypervisor splits the
 * entry first (PSMASH keeps every 4 KiB page's state). */
static void smash(struct snp_model *m, int64_t i)
{
	int64_t first = i - (int64_t)(((uint64_t)i + m->base / PAGE) % PAGES_2M);

	for (int64_t k = first; k < first + PAGES_2M; k++)
		if (k >= 0 && (uint64_t)k < m->npages)
			m->page[k] &= (uint8_t)~SNP_PG_RMP_2M;
}

/* One PSC operation on one 4 KiB page (an entry's part). */
static void psc_page(struct snp_model *m, uint64_t gpa, unsigned int op, bool entry_2m)
{
	int64_t i = page_index(m, gpa);

	if (i < 0)
		return; /* outside the window: not modelled */
	if (!entry_2m && (m->page[i] & SNP_PG_RMP_2M))
		smash(m, i);
	if (op == SNP_PSC_OP_SHARED) {
		if (m->page[i] & SNP_PG_VALIDATED)
			broken(m, "R1: a Page State Change to shared of a page still validated",
			       gpa);
		m->page[i] &= SNP_PG_PTE_C;
	} else if (!(m->page[i] & SNP_PG_ASSIGNED)) {
		/* Assigned, not validated (RMPUPDATE clears Validated). */
		m->page[i] = (uint8_t)((m->page[i] & SNP_PG_PTE_C) | SNP_PG_ASSIGNED |
				       (entry_2m && !m->faults.rmp_4k_only ? SNP_PG_RMP_2M : 0));
	}
	/* To private of a page already private: nothing changes. */
}

/* One PSC entry, its pages [cur_page, @last) (KVM snp_begin_psc() skips the
 * cur_page pages already done; a cur_page beyond the entry is refused).
 * Returns false for an entry the hypervisor refuses. */
static bool psc_entry(struct snp_model *m, uint64_t e, unsigned int last)
{
	uint64_t gpa = snp_psc_entry_gfn(e) << 12;
	unsigned int op = snp_psc_entry_op(e);
	bool big = snp_psc_entry_2m(e);
	unsigned int first = snp_psc_entry_cur_page(e);

	if (op != SNP_PSC_OP_PRIVATE && op != SNP_PSC_OP_SHARED)
		return false;
	if (last > (big ? PAGES_2M : 1u))
		last = big ? PAGES_2M : 1u;
	if (first > last)
		return false;
	if (big && (gpa & ((UINT64_C(1) << 21) - 1))) {
		broken(m, "R4: a 2 MiB Page State Change entry not 2 MiB aligned", gpa);
		return false;
	}
	for (unsigned int k = first; k < last; k++) {
		psc_page(m, gpa + (uint64_t)k * PAGE, op, big);
		m->n_psc_pages++;
	}
	if (big && op == SNP_PSC_OP_PRIVATE) {
		/* Pages that were private already kept their 4 KiB entries: then
		 * the hypervisor could not make one 2 MiB entry of the range. */
		int64_t i = page_index(m, gpa);
		bool uniform = true;

		for (unsigned int k = 0; i >= 0 && k < PAGES_2M && (uint64_t)i + k < m->npages; k++)
			uniform = uniform && (m->page[i + k] & SNP_PG_RMP_2M);
		if (!uniform && i >= 0)
			smash(m, i);
	}
	return true;
}

/* The SNP Page State Change NAE event: the descriptor in the shared buffer. */
static void model_psc(struct snp_model *m, struct ghcb *g)
{
	struct snp_psc_desc *d = (struct snp_psc_desc *)g->shared_buffer;
	unsigned int cur = d->hdr.cur_entry, end = d->hdr.end_entry, todo, k;

	m->n_psc++;
	if (!ghcb_is_valid(g, GHCB_OFF(sw_scratch)) ||
	    g->sw_scratch != m->ghcb_gpa[vcpu(m)] + GHCB_OFF(shared_buffer)) {
		g->sw_exit_info_1 = GHCB_RESULT_ERROR;
		g->sw_exit_info_2 = GHCB_ERR_INVALID_SCRATCH_AREA;
		return;
	}
	g->sw_exit_info_1 = GHCB_RESULT_OK;
	g->sw_exit_info_2 = 0;
	if (end >= SNP_PSC_MAX_ENTRIES || cur > end || d->hdr.reserved) {
		g->sw_exit_info_2 = MODEL_PSC_ERR_BAD_HEADER;
		return;
	}
	if (m->n_psc == m->faults.psc_error_at || nth(m->n_psc, m->faults.psc_error_every)) {
		g->sw_exit_info_2 = MODEL_PSC_ERR_INJECTED;
		return;
	}
	if (m->n_psc == m->faults.psc_backwards_at) {
		if (cur)
			d->hdr.cur_entry = (uint16_t)(cur - 1);
		else
			d->hdr.end_entry = (uint16_t)(end + 1);
		return;
	}
	if (nth(m->n_psc, m->faults.psc_stall_every))
		return;
	todo = end - cur + 1;
	/* An early return: the hypervisor may stop before end_entry and leave
	 * cur_entry at the first entry it did not process (GHCB spec, "SNP Page
	 * State Change"); the injected one does half of what is left, at least one
	 * entry, so that every early return still makes progress. */
	if (m->n_psc == m->faults.psc_early_at || nth(m->n_psc, m->faults.psc_early_every))
		todo = todo / 2 ? todo / 2 : 1;
	if (m->n_psc == m->faults.psc_bad_cur_page_at) {
		/* A lie: more pages done than the entry has. */
		d->entries[cur] = (d->entries[cur] & ~SNP_PSC_CUR_PAGE_MASK) | (PAGES_2M + 1);
		return;
	}
	if (m->n_psc == m->faults.psc_half_entry_at && snp_psc_entry_2m(d->entries[cur]) &&
	    snp_psc_entry_cur_page(d->entries[cur]) < PAGES_2M / 2) {
		/* Stop half way through a 2 MiB entry: cur_page says where. */
		if (!psc_entry(m, d->entries[cur], PAGES_2M / 2)) {
			g->sw_exit_info_2 = MODEL_PSC_ERR_BAD_ENTRY;
			return;
		}
		d->entries[cur] = (d->entries[cur] & ~SNP_PSC_CUR_PAGE_MASK) | (PAGES_2M / 2);
		return;
	}
	for (k = 0; k < todo; k++) {
		if (!psc_entry(m, d->entries[cur + k], UINT32_MAX)) {
			d->hdr.cur_entry = (uint16_t)(cur + k);
			g->sw_exit_info_2 = MODEL_PSC_ERR_BAD_ENTRY;
			return;
		}
	}
	d->hdr.cur_entry = (uint16_t)(cur + todo);
}

static uint64_t size_mask(unsigned int size)
{
	return size >= 8 ? ~UINT64_C(0) : (UINT64_C(1) << (8 * size)) - 1;
}

/* AP Creation (GHCB spec "SNP AP Creation"): R7, then the hypervisor. */
static void model_ap_creation(struct snp_model *m, struct ghcb *g)
{
	unsigned int op = (unsigned int)(g->sw_exit_info_1 & 0xffff);
	uint32_t apic_id = (uint32_t)(g->sw_exit_info_1 >> 32);
	uint64_t vmsa = g->sw_exit_info_2;
	int64_t i = page_index(m, vmsa);
	bool ok = true;

	m->n_ap_create++;
	g->sw_exit_info_1 = GHCB_RESULT_OK;
	g->sw_exit_info_2 = 0;
	if (op == SNP_AP_CREATE) {
		const uint8_t want = SNP_PG_ASSIGNED | SNP_PG_VALIDATED | SNP_PG_VMSA;

		if ((vmsa & (PAGE - 1)) || i < 0 || (m->page[i] & want) != want ||
		    !ghcb_is_valid(g, GHCB_OFF(rax))) {
			broken(m, "R7: an AP created from a page that is not a validated VMSA",
			       vmsa);
			ok = false;
		}
	} else if (op != SNP_AP_DESTROY) {
		ok = false;
	}
	if (ok && m->ap_create && m->ap_create(m->hv_ctx, apic_id, op, vmsa, g->rax))
		ok = false;
	if (!ok) {
		g->sw_exit_info_1 = GHCB_RESULT_ERROR;
		g->sw_exit_info_2 = GHCB_ERR_INVALID_INPUT;
	}
}

/*
 * R9: which NAE events the hypervisor accepts, and which of their inputs must
 * be marked valid, as KVM's sev_es_validate_vmgexit() (Linux
 * arch/x86/kvm/svm/sev.c) has them: SW_EXITCODE, SW_EXITINFO1 and
 * SW_EXITINFO2 valid for every event (else GHCB_ERR_MISSING_INPUT), GHCB usage
 * 0 (else GHCB_ERR_INVALID_USAGE), then per event. Any code not listed there,
 * HLT (0x78) among them (HLT is an automatic exit, not a NAE event), is
 * GHCB_ERR_INVALID_EVENT.
 * Return: 0, or the GHCB_ERR_* reason KVM puts in SW_EXITINFO2.
 */
static uint64_t kvm_validate_vmgexit(const struct ghcb *g)
{
#define V(f) ghcb_is_valid(g, GHCB_OFF(f))
	uint64_t info1 = g->sw_exit_info_1;

	if (g->ghcb_usage)
		return GHCB_ERR_INVALID_USAGE;
	if (!V(sw_exit_code) || !V(sw_exit_info_1) || !V(sw_exit_info_2))
		return GHCB_ERR_MISSING_INPUT;
	switch (g->sw_exit_code) {
	case 0x27:	 /* READ_DR7 */
	case 0x6e:	 /* RDTSC */
	case 0x76:	 /* INVD */
	case 0x87:	 /* RDTSCP */
	case 0x89:	 /* WBINVD */
	case 0x80000003: /* NMI_COMPLETE */
	case 0x80000004: /* AP_HLT_LOOP */
	case 0x80000005: /* AP_JUMP_TABLE */
	case 0x80000011: /* GUEST_REQUEST */
	case 0x80000012: /* EXT_GUEST_REQUEST */
	case 0x8000fffd: /* HV_FEATURES */
	case 0x8000fffe: /* TERM_REQUEST */
	case 0x8000ffff: /* UNSUPPORTED_EVENT */
		return 0;
	case 0x37: /* WRITE_DR7 */
		return V(rax) ? 0 : GHCB_ERR_MISSING_INPUT;
	case 0x6f: /* RDPMC */
		return V(rcx) ? 0 : GHCB_ERR_MISSING_INPUT;
	case SVM_EXIT_CPUID:
		return V(rax) && V(rcx) && (g->rax != 0xd || V(xcr0)) ? 0 : GHCB_ERR_MISSING_INPUT;
	case SVM_EXIT_IOIO:
		/* A string needs the scratch area, an OUT its value (SVM_IOIO_STR_MASK
		 * = bit 2, SVM_IOIO_TYPE_MASK = bit 0: IN). */
		if (info1 & 4)
			return V(sw_scratch) ? 0 : GHCB_ERR_MISSING_INPUT;
		return (info1 & 1) || V(rax) ? 0 : GHCB_ERR_MISSING_INPUT;
	case SVM_EXIT_MSR:
		return V(rcx) && (!info1 || (V(rax) && V(rdx))) ? 0 : GHCB_ERR_MISSING_INPUT;
	case 0x81: /* VMMCALL */
		return V(rax) && V(cpl) ? 0 : GHCB_ERR_MISSING_INPUT;
	case 0x8a: /* MONITOR */
		return V(rax) && V(rcx) && V(rdx) ? 0 : GHCB_ERR_MISSING_INPUT;
	case 0x8b: /* MWAIT */
		return V(rax) && V(rcx) ? 0 : GHCB_ERR_MISSING_INPUT;
	case SVM_VMGEXIT_MMIO_READ:
	case SVM_VMGEXIT_MMIO_WRITE:
	case SVM_VMGEXIT_PSC:
		return V(sw_scratch) ? 0 : GHCB_ERR_MISSING_INPUT;
	case SVM_VMGEXIT_AP_CREATION:
		return (uint32_t)info1 == SNP_AP_DESTROY || V(rax) ? 0 : GHCB_ERR_MISSING_INPUT;
	default:
		return GHCB_ERR_INVALID_EVENT;
	}
#undef V
}

/* Every other NAE event: recorded and answered from the model's values. */
static void model_exit(struct snp_model *m, struct ghcb *g)
{
	uint64_t code = g->sw_exit_code, info1 = g->sw_exit_info_1;

	m->n_exit++;
	m->last_exit_code = code;
	m->last_info1 = info1;
	m->last_info2 = g->sw_exit_info_2;
	m->last_rax = ghcb_is_valid(g, GHCB_OFF(rax)) ? g->rax : UINT64_MAX;
	m->last_rcx = ghcb_is_valid(g, GHCB_OFF(rcx)) ? g->rcx : UINT64_MAX;
	m->last_rdx = ghcb_is_valid(g, GHCB_OFF(rdx)) ? g->rdx : UINT64_MAX;
	if (m->faults.exit_error) {
		g->sw_exit_info_1 = GHCB_RESULT_ERROR;
		g->sw_exit_info_2 = GHCB_ERR_INVALID_INPUT;
		return;
	}
	if (code == SVM_VMGEXIT_AP_CREATION) {
		model_ap_creation(m, g);
		return;
	}
	if (m->vmm) {
		m->vmm(m->hv_ctx, g);
		return;
	}
	g->sw_exit_info_1 = GHCB_RESULT_OK;
	if (code == SVM_EXIT_IOIO) {
		if (info1 & 1) { /* IN: the size is one of bits 4-6 */
			unsigned int size = (info1 & 0x10) ? 1 : (info1 & 0x20) ? 2 : 4;

			GHCB_SET(g, rax, m->io_value & size_mask(size));
		}
	} else if (code == SVM_VMGEXIT_MMIO_READ || code == SVM_VMGEXIT_MMIO_WRITE) {
		uint64_t off = g->sw_scratch - m->ghcb_gpa[vcpu(m)], len = g->sw_exit_info_2;

		if (!ghcb_is_valid(g, GHCB_OFF(sw_scratch)) || off < GHCB_OFF(shared_buffer) ||
		    len > 8 || off + len > GHCB_OFF(shared_buffer) + GHCB_SHARED_BUF_SIZE) {
			g->sw_exit_info_1 = GHCB_RESULT_ERROR;
			g->sw_exit_info_2 = GHCB_ERR_INVALID_SCRATCH_AREA;
			return;
		}
		if (code == SVM_VMGEXIT_MMIO_READ) {
			memcpy((uint8_t *)g + off, &m->mmio_value, len);
		} else {
			m->last_mmio = 0;
			memcpy(&m->last_mmio, (uint8_t *)g + off, len);
		}
	} else if (code == SVM_EXIT_MSR) {
		if (info1 == 0) {
			GHCB_SET(g, rax, m->msr_value & 0xffffffffu);
			GHCB_SET(g, rdx, m->msr_value >> 32);
		}
	}
	/* Any other event kvm_validate_vmgexit() let through: nothing to return. */
}

/* R6 for a page about to serve as, or serving as, the GHCB. */
static bool ghcb_page_shared(struct snp_model *m, uint64_t gpa)
{
	int64_t i = page_index(m, gpa);

	if (i >= 0 && (m->page[i] & (SNP_PG_ASSIGNED | SNP_PG_PTE_C))) {
		broken(m, "R6: the GHCB page is private or mapped with the C-bit", gpa);
		return false;
	}
	return true;
}

/* The MSR protocol: GHCBInfo in GHCBData[11:0]. */
static void model_msr_protocol(struct snp_model *m)
{
	unsigned int c = vcpu(m);
	uint64_t v = m->ghcb_msr[c], gfn;

	switch (GHCB_MSR_INFO(v)) {
	case GHCB_MSR_REG_GPA_REQ:
		gfn = v >> 12;
		ghcb_page_shared(m, gfn << 12);
		m->ghcb_gpa[c] = m->faults.reg_refuse ? 0 : gfn << 12;
		m->ghcb_ours[c] = !m->faults.reg_refuse;
		m->ghcb_msr[c] = ((m->faults.reg_refuse ? gfn + 1 : gfn) << 12) |
				 GHCB_MSR_REG_GPA_RESP;
		break;
	case GHCB_MSR_PSC_REQ: {
		unsigned int op = (unsigned int)((v >> 52) & 0xf);

		m->n_psc_msr++;
		gfn = (v >> 12) & GHCB_GFN_MASK;
		if (m->n_psc_msr == m->faults.psc_msr_error_at ||
		    (op != SNP_PSC_OP_PRIVATE && op != SNP_PSC_OP_SHARED)) {
			m->ghcb_msr[c] = (UINT64_C(1) << 32) | GHCB_MSR_PSC_RESP;
			break;
		}
		psc_page(m, gfn << 12, op, false);
		m->ghcb_msr[c] = GHCB_MSR_PSC_RESP;
		break;
	}
	case GHCB_MSR_SEV_INFO_REQ:
		/* KVM sev_handle_vmgexit_msr_protocol(): its version range and
		 * the C-bit position. */
		m->ghcb_msr[c] = ((uint64_t)m->ghcb_max << 48) | ((uint64_t)m->ghcb_min << 32) |
				 ((uint64_t)m->cbit_pos << 24) | GHCB_MSR_SEV_INFO_RESP;
		break;
	case GHCB_MSR_HV_FT_REQ:
		/* KVM: GHCB_HV_FT_SUPPORTED (SNP, SNP AP creation). */
		m->ghcb_msr[c] = (m->hv_features << 12) | GHCB_MSR_HV_FT_RESP;
		break;
	case GHCB_MSR_CPUID_REQ: {
		/* KVM sev_handle_vmgexit_msr_protocol(): kvm_cpuid() of the
		 * function, sub-leaf 0, the asked register in [63:32]; the
		 * request's other bits stay. */
		uint32_t r[4] = { m->cpuid_value[0], m->cpuid_value[1], m->cpuid_value[2],
				  m->cpuid_value[3] };
		uint32_t leaf = (uint32_t)(v >> 32);

		__atomic_add_fetch(&m->n_msr_cpuid, 1, __ATOMIC_RELAXED);
		m->last_cpuid_leaf = leaf;
		if (m->hv_cpuid)
			m->hv_cpuid(m->hv_ctx, leaf, 0, r);
		m->ghcb_msr[c] =
			((uint64_t)r[(v >> 30) & 3] << 32) | (v & (UINT64_C(3) << 30)) |
			(m->faults.cpuid_bad_resp ? GHCB_MSR_CPUID_REQ : GHCB_MSR_CPUID_RESP);
		break;
	}
	case GHCB_MSR_TERM_REQ:
		m->terminated++;
		m->term_set = (unsigned int)((v >> 12) & 0xf);
		m->term_code = (unsigned int)((v >> 16) & 0xff);
		if (m->on_terminate)
			m->on_terminate(m->hv_ctx, m->term_set, m->term_code);
		break;
	default:
		m->ghcb_msr[c] = 0;
		break;
	}
}

static void model_vmgexit(void *ctx, void *page)
{
	struct snp_model *m = ctx;
	struct ghcb *g = page;
	unsigned int c = vcpu(m);
	uint64_t reason;

	if (GHCB_MSR_INFO(m->ghcb_msr[c])) {
		model_msr_protocol(m);
		return;
	}
	if (!g || !m->ghcb_gpa[c] || m->ghcb_msr[c] != m->ghcb_gpa[c]) {
		broken(m, "R6: a GHCB exit through a page that is not this CPU's registered GHCB",
		       m->ghcb_msr[c]);
		if (g) {
			g->sw_exit_info_1 = GHCB_RESULT_ERROR;
			g->sw_exit_info_2 = GHCB_ERR_NOT_REGISTERED;
		}
		return;
	}
	if (!ghcb_page_shared(m, m->ghcb_gpa[c])) {
		g->sw_exit_info_1 = GHCB_RESULT_ERROR;
		g->sw_exit_info_2 = GHCB_ERR_NOT_REGISTERED;
		return;
	}
	if (!m->ghcb_ours[c]) {
		/* R11 (project rule): the platform would carry it out. */
		m->n_fw_ghcb_exits++;
		broken(m,
		       "R11 (project rule): a GHCB exit through a GHCB the guest did not register "
		       "(the firmware's; Linux never uses it)",
		       m->ghcb_gpa[c]);
	}
	reason = kvm_validate_vmgexit(g);
	if (reason) {
		/* KVM's answer (svm_vmgexit_bad_input()): the guest resumes with
		 * SW_EXITINFO1 = 2 and the reason in SW_EXITINFO2. */
		__atomic_add_fetch(&m->n_refused, 1, __ATOMIC_RELAXED);
		m->last_refused_code = g->sw_exit_code;
		g->sw_exit_info_1 = GHCB_RESULT_ERROR;
		g->sw_exit_info_2 = reason;
		return;
	}
	if (g->sw_exit_code == SVM_VMGEXIT_PSC)
		model_psc(m, g);
	else
		model_exit(m, g);
}

/* PVALIDATE; the virtual address is the GPA (the kernel's identity map). */
static uint32_t model_pvalidate(void *ctx, uint64_t va, bool size_2m, bool validate, bool *cf)
{
	struct snp_model *m = ctx;
	int64_t i = page_index(m, va);
	unsigned int n = size_2m ? PAGES_2M : 1;
	bool was;

	*cf = false;
	m->n_pval++;
	if (m->n_pval == m->faults.pval_fail_at)
		return PVALIDATE_FAIL_INPUT;
	if (m->n_pval == m->faults.pval_mismatch_at)
		return PVALIDATE_FAIL_SIZEMISMATCH;
	if (size_2m && nth(++m->n_pval_2m, m->faults.pval_mismatch_every)) {
		/* The hypervisor split the 2 MiB RMP entry (PSMASH) behind the
		 * guest's back: 4 KiB PVALIDATEs of its pages work. */
		if (i >= 0 && !(va & ((UINT64_C(1) << 21) - 1)) && (uint64_t)i + n <= m->npages)
			smash(m, i);
		return PVALIDATE_FAIL_SIZEMISMATCH;
	}
	if (m->n_pval == m->faults.pval_cf_at || nth(m->n_pval, m->faults.pval_cf_every)) {
		*cf = true;
		return PVALIDATE_OK;
	}
	if ((va & (PAGE - 1)) || i < 0 || (uint64_t)i + n > m->npages)
		return PVALIDATE_FAIL_INPUT;
	if (size_2m && (va & ((UINT64_C(1) << 21) - 1))) {
		broken(m, "R4: a 2 MiB PVALIDATE not 2 MiB aligned", va);
		return PVALIDATE_FAIL_INPUT;
	}
	for (unsigned int k = 0; k < n; k++) {
		if (!(m->page[i + k] & SNP_PG_ASSIGNED)) {
			broken(m,
			       "R2: PVALIDATE of a page not assigned to the guest (no PSC to "
			       "private before)",
			       va + (uint64_t)k * PAGE);
			return PVALIDATE_FAIL_INPUT;
		}
	}
	/* The page size must match the RMP entry's: 2 MiB needs one 2 MiB entry
	 * (512 uniform pages), 4 KiB a 4 KiB entry (APM vol. 3 PVALIDATE). */
	for (unsigned int k = 0; k < n; k++)
		if (!(m->page[i + k] & SNP_PG_RMP_2M) != !size_2m)
			return PVALIDATE_FAIL_SIZEMISMATCH;
	was = m->page[i] & SNP_PG_VALIDATED;
	if (was == validate) {
		*cf = true;
		return PVALIDATE_OK;
	}
	for (unsigned int k = 0; k < n; k++) {
		if (validate)
			m->page[i + k] |= SNP_PG_VALIDATED;
		else
			m->page[i + k] &= (uint8_t)~SNP_PG_VALIDATED;
	}
	return PVALIDATE_OK;
}

static uint64_t model_rd_msr(void *ctx)
{
	struct snp_model *m = ctx;

	return m->ghcb_msr[vcpu(m)];
}

static void model_wr_msr(void *ctx, uint64_t v)
{
	struct snp_model *m = ctx;

	m->ghcb_msr[vcpu(m)] = v;
}

/* RMPADJUST at VMPL0: only a less privileged VMPL's attributes, of a page that
 * is the guest's and validated; the VMSA bit is kept per page (R7). */
static uint32_t model_rmpadjust(void *ctx, uint64_t va, bool size_2m, uint64_t attrs)
{
	struct snp_model *m = ctx;
	int64_t i = page_index(m, va);
	const uint8_t want = SNP_PG_ASSIGNED | SNP_PG_VALIDATED;

	m->n_rmpadjust++;
	if (size_2m || (va & (PAGE - 1)) || i < 0 || (attrs & 0xff) == 0 || (attrs & 0xff) > 3)
		return PVALIDATE_FAIL_INPUT;
	/* R8: only a less privileged (numerically higher) VMPL's attributes. */
	if ((attrs & 0xff) <= m->vmpl)
		return RMPADJUST_FAIL_PERMISSION;
	if ((m->page[i] & want) != want) {
		broken(m, "R7: RMPADJUST of a page that is not private and validated", va);
		return PVALIDATE_FAIL_INPUT;
	}
	if (attrs & (UINT64_C(1) << 16))
		m->page[i] |= SNP_PG_VMSA;
	else
		m->page[i] &= (uint8_t)~SNP_PG_VMSA;
	return PVALIDATE_OK;
}

void snp_model_firmware_ghcb(struct snp_model *m, unsigned int cpu, uint64_t gpa)
{
	int64_t i = page_index(m, gpa);

	if (i >= 0)
		m->page[i] &= (uint8_t) ~(SNP_PG_ASSIGNED | SNP_PG_VALIDATED | SNP_PG_PTE_C);
	m->ghcb_msr[cpu % SNP_MODEL_MAX_CPUS] = gpa;
	m->ghcb_gpa[cpu % SNP_MODEL_MAX_CPUS] = gpa;
	m->ghcb_ours[cpu % SNP_MODEL_MAX_CPUS] = false;
}

void snp_model_insn(struct snp_model *m, struct tee_insn_ops *ops)
{
	memset(ops, 0, sizeof(*ops));
	ops->ctx = m;
	ops->vmgexit = model_vmgexit;
	ops->pvalidate = model_pvalidate;
	ops->rd_ghcb_msr = model_rd_msr;
	ops->wr_ghcb_msr = model_wr_msr;
	ops->rmpadjust = model_rmpadjust;
}
