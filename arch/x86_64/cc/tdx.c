/* SPDX-License-Identifier: MIT */
/*
 * tdx.c - the TDX guest protocol (see tdx.h for what it does and on what facts).
 *
 * Nothing here trusts the VMM: a MapGPA "retry" must name an address inside the
 * range that was asked for and make progress within a few rounds; an accept
 * that finds a page already accepted during a conversion is a lie; every failure
 * brings the range back to its state before the call, or counts it as leaked.
 */
#include "arch/x86_64/cc/tdx.h"

#include <stdio.h>
#include <string.h>

/* TDG.VP.VMCALL RCX: expose R10-R15 to the VMM (GHCI: bit n exposes GPR n). */
#define TDVMCALL_EXPOSE_R10_R15 UINT64_C(0xfc00)

static void tdx_say(char *why, size_t why_len, const char *msg, unsigned long long a)
{
	if (why && why_len)
		snprintf(why, why_len, msg, a);
}

static uint64_t tdx_call(struct tdx *t, struct tdcall_regs *r)
{
	return t->insn->tdcall(t->insn->ctx, r);
}

int tdx_init(struct tdx *t, const struct tee_insn_ops *insn, const struct cc_pt_ops *pt, char *why,
	     size_t why_len)
{
	struct tdcall_regs r;

	memset(t, 0, sizeof(*t));
	t->insn = insn;
	if (pt)
		t->pt = *pt;
	memset(&r, 0, sizeof(r));
	r.rax = TDG_VP_INFO;
	if (tdx_call(t, &r) != TDX_SUCCESS) {
		tdx_say(why, why_len, "tdx: TDG.VP.INFO failed (status 0x%llx)",
			(unsigned long long)r.rax);
		return TDX_ERR_REFUSED;
	}
	t->gpaw = (unsigned int)(r.rcx & 0x3f);
	t->attributes = r.rdx;
	t->num_vcpus = (unsigned int)(r.r8 & 0xffffffff);
	/* A TD's GPA width is 48 or 52 (the S-EPT levels); anything else is a lie
	 * that would put the shared bit inside ordinary addresses. */
	if (t->gpaw != 48 && t->gpaw != 52) {
		tdx_say(why, why_len, "tdx: GPA width %llu is neither 48 nor 52",
			(unsigned long long)t->gpaw);
		return TDX_ERR_REFUSED;
	}
	t->shared_bit = UINT64_C(1) << (t->gpaw - 1);
	if (!(t->attributes & TDX_ATTR_SEPT_VE_DISABLE) && !(t->attributes & TDX_ATTR_DEBUG)) {
		tdx_say(why, why_len,
			"tdx: attributes 0x%llx lack SEPT_VE_DISABLE: the VMM could raise #VE "
			"on private memory; refusing to run",
			(unsigned long long)t->attributes);
		return TDX_ERR_REFUSED;
	}
	return 0;
}

/*
 * One TDG.VP.VMCALL with sub-function @fn and operands R12-R15 in @r; the VMM's
 * results come back in @r. Returns the sub-function's status (R10); a failing
 * TDCALL itself (not the sub-function) means a broken ABI with no VMM answer in
 * the registers, reported as TDVMCALL_INVALID_OPERAND.
 */
static uint64_t tdx_vmcall_regs(struct tdx *t, uint64_t fn, struct tdcall_regs *r)
{
	r->rax = TDG_VP_VMCALL;
	r->rcx = TDVMCALL_EXPOSE_R10_R15;
	r->r10 = 0; /* the GHCI's standard sub-functions */
	r->r11 = fn;
	if (tdx_call(t, r) != TDX_SUCCESS)
		return TDVMCALL_INVALID_OPERAND;
	return r->r10;
}

uint64_t tdx_vmcall(struct tdx *t, uint64_t fn, uint64_t r12, uint64_t r13, uint64_t r14,
		    uint64_t r15, uint64_t *out)
{
	struct tdcall_regs r = { .r12 = r12, .r13 = r13, .r14 = r14, .r15 = r15 };
	uint64_t status = tdx_vmcall_regs(t, fn, &r);

	if (status != TDVMCALL_INVALID_OPERAND && out)
		*out = r.r11;
	return status;
}

uint64_t tdx_vmcall_hlt(struct tdx *t, bool irqs)
{
	struct tdcall_regs r = { .r12 = irqs ? 0 : 1 };

	r.rax = TDG_VP_VMCALL;
	r.rcx = TDVMCALL_EXPOSE_R10_R15;
	r.r11 = TDVMCALL_HLT;
	if (irqs && t->insn->tdcall_sti) {
		if (t->insn->tdcall_sti(t->insn->ctx, &r) != TDX_SUCCESS)
			return TDVMCALL_INVALID_OPERAND;
		return r.r10;
	}
	if (tdx_call(t, &r) != TDX_SUCCESS)
		return TDVMCALL_INVALID_OPERAND;
	return r.r10;
}

uint64_t tdx_vmcall_cpuid(struct tdx *t, uint32_t leaf, uint32_t sub, uint32_t r[4])
{
	struct tdcall_regs regs = { .r12 = leaf, .r13 = sub };
	uint64_t status = tdx_vmcall_regs(t, TDVMCALL_CPUID, &regs);

	memset(r, 0, 4 * sizeof(r[0]));
	if (status == TDVMCALL_SUCCESS) {
		r[0] = (uint32_t)regs.r12;
		r[1] = (uint32_t)regs.r13;
		r[2] = (uint32_t)regs.r14;
		r[3] = (uint32_t)regs.r15;
	}
	return status;
}

void tdx_report_fatal(struct tdx *t, const char *msg)
{
	uint64_t words[2] = { 0, 0 };
	size_t n = msg ? strlen(msg) : 0;

	/* The GHCI carries up to 64 message bytes in R14, R15, RBX, RDI, RSI, R8,
	 * R9, RDX (in that order); the first 16 go in R14 and R15 here, and the
	 * whole message has already gone to the console. Error code 0: panic. */
	memcpy(words, msg ? msg : "", n < sizeof(words) ? n : sizeof(words));
	tdx_vmcall(t, TDVMCALL_REPORT_FATAL_ERROR, 0, 0, words[0], words[1], NULL);
}

int tdx_ve_info_get(struct tdx *t, struct tdx_ve_info *out)
{
	struct tdcall_regs r;

	memset(&r, 0, sizeof(r));
	r.rax = TDG_VP_VEINFO_GET;
	if (tdx_call(t, &r) != TDX_SUCCESS)
		return TDX_ERR_IO;
	out->exit_reason = (uint32_t)r.rcx;
	out->exit_qual = r.rdx;
	out->gla = r.r8;
	out->gpa = r.r9;
	out->instr_len = (uint32_t)r.r10;
	return 0;
}

static bool tdx_range_ok(const struct tdx *t, uint64_t gpa, uint64_t len)
{
	return len && !(gpa & (TDX_PAGE_4K - 1)) && !(len & (TDX_PAGE_4K - 1)) && gpa + len > gpa &&
	       gpa + len <= t->shared_bit;
}

/*
 * MapGPA of [gpa, gpa + len) to shared or private. The VMM may complete part
 * of it and answer "retry" with the GPA to go on from in R11: that GPA must lie
 * inside what is left (it comes from the VMM) and be page aligned; rounds that
 * make no progress are counted and end the call after TDX_MAP_GPA_MAX_STALLS
 * (Linux tdx_map_gpa() does the same).
 */
static int tdx_map_gpa(struct tdx *t, uint64_t gpa, uint64_t len, bool shared)
{
	uint64_t start = gpa | (shared ? t->shared_bit : 0), end = start + len;
	unsigned int stalls = 0;

	while (stalls < TDX_MAP_GPA_MAX_STALLS) {
		uint64_t resume = 0, status;

		t->stats.map_gpa_calls++;
		status = tdx_vmcall(t, TDVMCALL_MAP_GPA, start, end - start, 0, 0, &resume);
		if (status == TDVMCALL_SUCCESS)
			return 0;
		if (status != TDVMCALL_RETRY)
			return TDX_ERR_IO;
		t->stats.map_gpa_retries++;
		if (resume < start || resume >= end || (resume & (TDX_PAGE_4K - 1)))
			return TDX_ERR_IO; /* a resume address outside the range: a lie */
		if (resume == start) {
			stalls++;
			continue;
		}
		start = resume;
		stalls = 0;
	}
	return TDX_ERR_IO;
}

/* One accept of the page at @gpa, @level 0 (4 KiB) or 1 (2 MiB), "busy" retried. */
static uint64_t tdx_accept_one(struct tdx *t, uint64_t gpa, unsigned int level)
{
	uint64_t status = TDX_OPERAND_BUSY;

	for (unsigned int tries = 0; tries <= TDX_ACCEPT_MAX_BUSY; tries++) {
		struct tdcall_regs r;

		memset(&r, 0, sizeof(r));
		r.rax = TDG_MEM_PAGE_ACCEPT;
		r.rcx = gpa | level;
		t->stats.accept_calls++;
		status = tdx_call(t, &r);
		if (TDX_STATUS_CLASS(status) != TDX_OPERAND_BUSY)
			return status;
		t->stats.busy_retries++;
	}
	return status;
}

/*
 * Accept [gpa, gpa + len): 2 MiB where aligned and whole, 4 KiB otherwise and
 * after a size mismatch (the VMM mapped that 2 MiB in 4 KiB pages). With
 * @strict an already accepted page is an error (during a conversion the VMM
 * said it made the page private-pending); without it, it is counted as fine.
 */
static int tdx_accept(struct tdx *t, uint64_t gpa, uint64_t len, bool strict)
{
	uint64_t end = gpa + len;

	while (gpa < end) {
		uint64_t status;

		if (!(gpa & (TDX_PAGE_2M - 1)) && end - gpa >= TDX_PAGE_2M) {
			status = tdx_accept_one(t, gpa, 1);
			if (status == TDX_SUCCESS) {
				t->stats.accepted_2m++;
				gpa += TDX_PAGE_2M;
				continue;
			}
			if (!strict && TDX_STATUS_CLASS(status) == TDX_PAGE_ALREADY_ACCEPTED) {
				gpa += TDX_PAGE_2M;
				continue;
			}
			if (TDX_STATUS_CLASS(status) != TDX_PAGE_SIZE_MISMATCH)
				return TDX_ERR_IO;
			/* Mapped in 4 KiB pages: accept those one by one. */
			t->stats.size_fallbacks++;
			for (uint64_t p = gpa; p < gpa + TDX_PAGE_2M; p += TDX_PAGE_4K) {
				status = tdx_accept_one(t, p, 0);
				if (status == TDX_SUCCESS)
					t->stats.accepted_4k++;
				else if (strict ||
					 TDX_STATUS_CLASS(status) != TDX_PAGE_ALREADY_ACCEPTED)
					return TDX_ERR_IO;
			}
			gpa += TDX_PAGE_2M;
			continue;
		}
		status = tdx_accept_one(t, gpa, 0);
		if (status == TDX_SUCCESS)
			t->stats.accepted_4k++;
		else if (strict || TDX_STATUS_CLASS(status) != TDX_PAGE_ALREADY_ACCEPTED)
			return TDX_ERR_IO;
		gpa += TDX_PAGE_4K;
	}
	return 0;
}

static void tdx_flush(struct tdx *t, uint64_t gpa, uint64_t len, bool cache)
{
	if (cache && t->pt.flush_cache)
		t->pt.flush_cache(t->pt.ctx, gpa, len);
	if (!cache)
		t->pt.flush_tlb(t->pt.ctx, gpa, len);
}

/* Changes the mappings and flushes the TLBs; 0 or the page-table code's error. */
static int tdx_set_ptes(struct tdx *t, uint64_t gpa, uint64_t len, bool shared)
{
	int rc = t->pt.set_pte_shared(t->pt.ctx, gpa, len, shared);

	if (!rc)
		tdx_flush(t, gpa, len, false);
	return rc;
}

static int tdx_failed(struct tdx *t, uint64_t len, bool rolled_back)
{
	t->stats.failed++;
	if (rolled_back) {
		t->stats.rolled_back++;
		return TDX_ERR_IO;
	}
	t->stats.leaked_pages += len / TDX_PAGE_4K;
	return TDX_ERR_LEAKED;
}

int tdx_to_shared(struct tdx *t, uint64_t gpa, uint64_t len)
{
	int rc;

	if (!tdx_range_ok(t, gpa, len))
		return TDX_ERR_INVAL;
	tdx_flush(t, gpa, len, true);
	rc = tdx_set_ptes(t, gpa, len, true);
	if (rc)
		return tdx_failed(t, len, true); /* nothing changed yet */
	if (!tdx_map_gpa(t, gpa, len, true)) {
		t->stats.to_shared++;
		return 0;
	}
	/* Roll back. Pages the VMM already converted are shared now (and mapped
	 * shared): make the whole range private again (MapGPA, accept; pages it
	 * never converted answer "already accepted", which is fine here), and only
	 * then clear the shared bit of the mappings, so that there is never a
	 * private mapping of a shared page. */
	if (tdx_map_gpa(t, gpa, len, false) || tdx_accept(t, gpa, len, false) ||
	    tdx_set_ptes(t, gpa, len, false))
		return tdx_failed(t, len, false);
	return tdx_failed(t, len, true);
}

int tdx_to_private(struct tdx *t, uint64_t gpa, uint64_t len)
{
	if (!tdx_range_ok(t, gpa, len))
		return TDX_ERR_INVAL;
	tdx_flush(t, gpa, len, true);
	/* The mappings stay shared until the pages are private and accepted: a
	 * shared mapping of a private page only faults if touched, a private
	 * mapping of a shared page would end the TD. */
	if (!tdx_map_gpa(t, gpa, len, false) && !tdx_accept(t, gpa, len, true) &&
	    !tdx_set_ptes(t, gpa, len, false)) {
		t->stats.to_private++;
		return 0;
	}
	/* Back to shared, the state the caller knows. */
	if (tdx_map_gpa(t, gpa, len, true))
		return tdx_failed(t, len, false);
	return tdx_failed(t, len, true);
}

int tdx_accept_unaccepted(struct tdx *t, uint64_t gpa, uint64_t len)
{
	if (!tdx_range_ok(t, gpa, len))
		return TDX_ERR_INVAL;
	return tdx_accept(t, gpa, len, false);
}
