/* SPDX-License-Identifier: MIT */
/*
 * snp.c - the SEV-SNP guest protocol (see snp.h for what it does and on what
 * facts).
 *
 * Ordering. To shared follows Linux exactly (cache flush, rescind, PSC to
 * shared, C-bit cleared, TLB flush). To private differs from Linux and OVMF
 * in one step: both set the C-bit (and flush the TLBs) before the PSC to
 * private, leaving for a moment a live private mapping of a page the RMP
 * still gives the hypervisor; harmless only if nothing touches it. Here the
 * PSC comes first, then the C-bit and the TLB flush, then PVALIDATE through
 * the private mapping, as Linux and OVMF validate: so the C-bit of every
 * mapping agrees with the RMP at every TLB flush, which the model checks.
 *
 * Nothing here trusts the hypervisor: a PSC answer is read once from the
 * shared page, must not go backwards or change the descriptor's end, and
 * must make progress within a few rounds; the descriptor is rebuilt from our
 * own copy before every round; a PVALIDATE that changes nothing during a
 * conversion is a lie. Every failure brings the range back to its state
 * before the call, or counts it as leaked: never a mixed range.
 */
#include "arch/x86_64/cc/snp.h"

#include <stdio.h>
#include <string.h>

static void snp_say(char *why, size_t why_len, const char *msg, unsigned long long a)
{
	if (why && why_len)
		snprintf(why, why_len, msg, a);
}

int snp_cbit_from_cpuid(const uint32_t r[4], unsigned int *pos, char *why, size_t why_len)
{
	unsigned int p = r[1] & 0x3f;

	/* CPUID Fn8000_001F EAX[4]: SEV-SNP supported (APM vol. 3, CPUID). */
	if (!(r[0] & (1u << 4))) {
		snp_say(why, why_len, "snp: CPUID 0x8000001F EAX 0x%llx lacks SEV-SNP",
			(unsigned long long)r[0]);
		return SNP_ERR_REFUSED;
	}
	if (p < 32 || p > 51) {
		snp_say(why, why_len, "snp: C-bit position %llu outside 32..51", p);
		return SNP_ERR_REFUSED;
	}
	*pos = p;
	return 0;
}

int snp_init(struct snp *s, const struct tee_insn_ops *insn, const struct snp_pt_ops *pt,
	     uint64_t sev_status, const uint32_t cpuid_8000001f[4], char *why, size_t why_len)
{
	const uint64_t needed = SEV_STATUS_SEV | SEV_STATUS_SEV_ES | SEV_STATUS_SNP;
	uint64_t unknown = sev_status & ~SEV_STATUS_TOLERATED;
	int rc;

	memset(s, 0, sizeof(*s));
	s->insn = insn;
	if (pt)
		s->pt = *pt;
	s->sev_status = sev_status;
	s->psc_max_entries = SNP_PSC_MAX_ENTRIES;
	if ((sev_status & needed) != needed) {
		snp_say(why, why_len,
			"snp: SEV_STATUS 0x%llx: not an SEV-SNP guest (bits 0-2 must be set)",
			(unsigned long long)sev_status);
		return SNP_ERR_REFUSED;
	}
	if (unknown) {
		/* Name the lowest one: the message must say what to look up. */
		snp_say(why, why_len,
			"snp: SEV_STATUS bit %llu is a feature this kernel does not support; "
			"refusing to run",
			(unsigned long long)__builtin_ctzll(unknown));
		return SNP_ERR_REFUSED;
	}
	rc = snp_cbit_from_cpuid(cpuid_8000001f, &s->cbit_pos, why, why_len);
	if (rc)
		return rc;
	s->cbit = UINT64_C(1) << s->cbit_pos;
	s->coherency_sfw_no = cpuid_8000001f[1] & SNP_CPUID_COHERENCY_SFW_NO;
	return 0;
}

int snp_negotiate(struct snp *s, unsigned int *term_code, char *why, size_t why_len)
{
	uint64_t v = ghcb_msr_call(s->insn, GHCB_MSR_SEV_INFO_REQ);
	unsigned int max = (unsigned int)(v >> 48), min = (unsigned int)((v >> 32) & 0xffff);

	*term_code = GHCB_TERM_PROTOCOL_UNSUPPORTED;
	if (GHCB_MSR_INFO(v) != GHCB_MSR_SEV_INFO_RESP) {
		snp_say(why, why_len,
			"snp: the hypervisor answered the SEV information request "
			"with 0x%llx",
			(unsigned long long)v);
		return SNP_ERR_REFUSED;
	}
	if (max < GHCB_PROTOCOL_VERSION || min > GHCB_PROTOCOL_VERSION) {
		snp_say(why, why_len,
			"snp: the hypervisor speaks GHCB protocol versions 0x%llx; "
			"an SNP guest needs version 2",
			(unsigned long long)(v >> 32));
		return SNP_ERR_REFUSED;
	}
	s->ghcb_version = GHCB_PROTOCOL_VERSION;
	v = ghcb_msr_call(s->insn, GHCB_MSR_HV_FT_REQ);
	*term_code = GHCB_TERM_SNP_UNSUPPORTED;
	if (GHCB_MSR_INFO(v) != GHCB_MSR_HV_FT_RESP || !((v >> 12) & GHCB_HV_FT_SNP)) {
		snp_say(why, why_len, "snp: the hypervisor's features 0x%llx lack SEV-SNP",
			(unsigned long long)v);
		return SNP_ERR_REFUSED;
	}
	s->hv_features = v >> 12;
	return 0;
}

void snp_terminate(struct snp *s, unsigned int set, unsigned int code)
{
	ghcb_msr_call(s->insn, ghcb_msr_term_req(set, code));
}

static bool snp_range_ok(const struct snp *s, uint64_t gpa, uint64_t len)
{
	return len && !(gpa & (SNP_PAGE_4K - 1)) && !(len & (SNP_PAGE_4K - 1)) && gpa + len > gpa &&
	       gpa + len <= s->cbit;
}

/* ------------------------------------------------------------ PVALIDATE */

/*
 * One PVALIDATE. Returns 0 when the Validated bit changed, 1 when nothing
 * changed (CF = 1), or the failure code negated (-PVALIDATE_FAIL_INPUT,
 * -PVALIDATE_FAIL_SIZEMISMATCH), in which case nothing changed either.
 */
static int snp_pval_one(struct snp *s, uint64_t gpa, bool size_2m, bool validate)
{
	bool cf = false;
	uint32_t rc = s->insn->pvalidate(s->insn->ctx, gpa, size_2m, validate, &cf);

	if (rc != PVALIDATE_OK)
		return -(int)rc;
	if (cf)
		return 1;
	if (validate) {
		s->stats.pages_validated += size_2m ? 512 : 1;
		/* The cache-coherency mitigation, page by page as it becomes
		 * private (Linux pvalidate_pages(): unless COHERENCY_SFW_NO). */
		if (!s->coherency_sfw_no) {
			if (s->pt.evict_cache)
				s->pt.evict_cache(s->pt.ctx, gpa, size_2m ? 512 : 1);
			s->stats.pages_evicted += size_2m ? 512 : 1;
		}
	} else
		s->stats.pages_rescinded += size_2m ? 512 : 1;
	if (size_2m)
		s->stats.pvalidate_2m++;
	return 0;
}

/* Whether one PVALIDATE result ends the walk; *upto is then the end of what
 * may need undoing: past the page if CF = 1 (the host changed that page, its
 * state is not what we believed), before it if the instruction failed. */
static bool snp_pval_stop(int rc, bool strict, uint64_t page, uint64_t size, uint64_t *upto)
{
	if (rc < 0) {
		*upto = page;
		return true;
	}
	if (rc == 1 && strict) {
		*upto = page + size;
		return true;
	}
	return false;
}

/*
 * PVALIDATE [gpa, gpa + len): 2 MiB where aligned and whole, 4 KiB otherwise
 * and for the 512 pages of a 2 MiB page the RMP holds as 4 KiB entries
 * (FAIL_SIZEMISMATCH; Linux pval_pages(), OVMF PvalidateRange()). With
 * @strict, CF = 1 is an error (OVMF: a double validation or rescission "can
 * lead to a security compromise"); without it (a rollback), it means the
 * page is already in the wanted state. A size mismatch on a 4 KiB PVALIDATE
 * (a page inside a 2 MiB RMP entry: only the hypervisor can split it) is an
 * error. On failure *upto (if not NULL) is where the pages that may have
 * changed end, [gpa, *upto).
 */
static int snp_pvalidate(struct snp *s, uint64_t gpa, uint64_t len, bool validate, bool strict,
			 uint64_t *upto)
{
	uint64_t end = gpa + len, dummy;

	if (!upto)
		upto = &dummy;
	while (gpa < end) {
		int rc;

		if (!(gpa & (SNP_PAGE_2M - 1)) && end - gpa >= SNP_PAGE_2M) {
			rc = snp_pval_one(s, gpa, true, validate);
			if (rc == -PVALIDATE_FAIL_SIZEMISMATCH) {
				s->stats.size_fallbacks++;
				for (uint64_t p = gpa; p < gpa + SNP_PAGE_2M; p += SNP_PAGE_4K) {
					rc = snp_pval_one(s, p, false, validate);
					if (snp_pval_stop(rc, strict, p, SNP_PAGE_4K, upto))
						return SNP_ERR_IO;
				}
			} else if (snp_pval_stop(rc, strict, gpa, SNP_PAGE_2M, upto)) {
				return SNP_ERR_IO;
			}
			gpa += SNP_PAGE_2M;
			continue;
		}
		rc = snp_pval_one(s, gpa, false, validate);
		if (snp_pval_stop(rc, strict, gpa, SNP_PAGE_4K, upto))
			return SNP_ERR_IO;
		gpa += SNP_PAGE_4K;
	}
	return 0;
}

/* ------------------------------------------------------------ Page State Change */

int snp_psc_msr(struct snp *s, uint64_t gpa, unsigned int op)
{
	uint64_t err;

	s->stats.psc_requests++;
	s->stats.psc_msr++;
	err = ghcb_msr_psc_resp_error(ghcb_msr_call(s->insn, ghcb_msr_psc_req(gpa >> 12, op)));
	if (err) {
		s->last_psc_error = err;
		return SNP_ERR_IO;
	}
	return 0;
}

/*
 * Fill @d with the entries for [gpa, end), at most @max of them (2 MiB where
 * aligned and whole, as Linux __set_pages_state() and OVMF do). Returns the
 * number of entries; *next receives the first address not covered. The same
 * input always gives the same entries: the descriptor can be rebuilt from
 * private data before every round.
 */
static unsigned int snp_psc_fill(struct snp_psc_desc *d, uint64_t gpa, uint64_t end,
				 unsigned int op, unsigned int max, uint64_t *next)
{
	unsigned int n = 0;

	while (gpa < end && n < max) {
		bool big = !(gpa & (SNP_PAGE_2M - 1)) && end - gpa >= SNP_PAGE_2M;

		d->entries[n++] = snp_psc_entry(gpa >> 12, op, big);
		gpa += big ? SNP_PAGE_2M : SNP_PAGE_4K;
	}
	*next = gpa;
	return n;
}

/* ------------------------------------------------------------ GHCB slots */

struct snp_ghcb_slot *snp_ghcb_slot(struct snp *s)
{
	return s->cpu_slot ? s->cpu_slot(s->cpu_slot_ctx) : &s->slot;
}

struct ghcb *snp_ghcb_get(struct snp *s, uint64_t *gpa)
{
	struct snp_ghcb_slot *sl = snp_ghcb_slot(s);

	if (!sl || !sl->ghcb)
		return NULL;
	/* The interrupted exchange's page is saved once; deeper nesting (an
	 * exception inside the handler) is not, and only ends the guest. */
	if (sl->depth++ == 1) {
		sl->nested++;
		if (sl->backup)
			memcpy(sl->backup, sl->ghcb, sizeof(*sl->ghcb));
	}
	*gpa = sl->gpa;
	ghcb_invalidate(sl->ghcb);
	return sl->ghcb;
}

void snp_ghcb_put(struct snp *s)
{
	struct snp_ghcb_slot *sl = snp_ghcb_slot(s);

	if (--sl->depth == 1 && sl->backup)
		memcpy(sl->ghcb, sl->backup, sizeof(*sl->ghcb));
}

/*
 * The hypervisor's progress inside the entry it stopped at: cur_page, the 4 KiB
 * pages of it already done (GHCB spec "SNP Page State Change"; KVM
 * snp_begin_psc() skips them, Linux vmgexit_psc() resends the buffer as the
 * hypervisor left it). Read once from the shared entry; an entry the
 * hypervisor did not stop inside, a count beyond the entry's pages, or one
 * smaller than before in the same entry is refused (UINT_MAX).
 */
static unsigned int snp_psc_cur_page(const struct snp_psc_desc *d, unsigned int at,
				     unsigned int end, unsigned int was_at, unsigned int was)
{
	uint64_t e;
	unsigned int cp;

	if (at > end)
		return 0;
	e = *(const volatile uint64_t *)&d->entries[at];
	cp = snp_psc_entry_cur_page(e);
	if (cp > (snp_psc_entry_2m(e) ? 512u : 1u) || (at == was_at && cp < was))
		return UINT32_MAX;
	return cp;
}

/* One descriptor of [gpa, end) (already cut to fit), until the hypervisor has
 * processed every entry. The descriptor is rebuilt from private data for every
 * round; only cur_entry and the cur_page of that entry carry the hypervisor's
 * progress over. */
static int snp_psc_batch(struct snp *s, struct ghcb *g, uint64_t ghcb_gpa, uint64_t gpa,
			 uint64_t end, unsigned int op)
{
	struct snp_psc_desc *d = (struct snp_psc_desc *)g->shared_buffer;
	unsigned int cur = 0, cur_page = 0, stalls = 0, n = 0;
	uint64_t next;

	s->stats.psc_batches++;
	for (;;) {
		struct snp_psc_hdr h;
		uint64_t info2;
		uint32_t res;
		unsigned int cp;

		ghcb_invalidate(g);
		n = snp_psc_fill(d, gpa, end, op, s->psc_max_entries, &next);
		d->entries[cur] |= cur_page;
		d->hdr.cur_entry = (uint16_t)cur;
		d->hdr.end_entry = (uint16_t)(n - 1);
		d->hdr.reserved = 0;
		GHCB_SET(g, sw_scratch, ghcb_gpa + GHCB_OFF(shared_buffer));
		s->stats.psc_requests++;
		res = ghcb_call(s->insn, g, ghcb_gpa, SVM_VMGEXIT_PSC, 0, 0);
		/* Read what the hypervisor wrote once: it can change it at will. */
		info2 = *(volatile uint64_t *)&g->sw_exit_info_2;
		memcpy(&h, (const void *)(volatile void *)&d->hdr, sizeof(h));
		if (res != GHCB_RESULT_OK || info2) {
			s->last_psc_error = info2 ? info2 : res;
			return SNP_ERR_IO;
		}
		/* Linux vmgexit_psc(): a reserved bit, a moved end, or entries going
		 * backwards are a hypervisor tricking us. */
		if (h.reserved || h.end_entry != n - 1 || h.cur_entry < cur) {
			s->last_psc_error = UINT64_MAX;
			return SNP_ERR_IO;
		}
		if (h.cur_entry > h.end_entry)
			return 0;
		s->stats.psc_early_returns++;
		cp = snp_psc_cur_page(d, h.cur_entry, h.end_entry, cur, cur_page);
		if (cp == UINT32_MAX) {
			s->last_psc_error = UINT64_MAX;
			return SNP_ERR_IO;
		}
		if (h.cur_entry == cur && cp == cur_page) {
			if (++stalls >= SNP_PSC_MAX_STALLS) {
				s->last_psc_error = UINT64_MAX;
				return SNP_ERR_IO;
			}
			continue;
		}
		stalls = 0;
		cur = h.cur_entry;
		cur_page = cp;
	}
}

/* Page State Change of [gpa, gpa + len): GHCB batches, or 4 KiB pages through
 * the MSR protocol when no GHCB is registered yet. */
static int snp_psc(struct snp *s, uint64_t gpa, uint64_t len, unsigned int op)
{
	uint64_t end = gpa + len, ghcb_gpa;
	struct ghcb *g = snp_ghcb_get(s, &ghcb_gpa);
	int rc = 0;

	if (!g) {
		for (; gpa < end; gpa += SNP_PAGE_4K)
			if (snp_psc_msr(s, gpa, op))
				return SNP_ERR_IO;
		return 0;
	}
	while (gpa < end) {
		struct snp_psc_desc *d = (struct snp_psc_desc *)g->shared_buffer;
		uint64_t next;

		/* Where this batch ends: the same cut snp_psc_batch() makes. */
		snp_psc_fill(d, gpa, end, op, s->psc_max_entries, &next);
		if (snp_psc_batch(s, g, ghcb_gpa, gpa, next, op)) {
			rc = SNP_ERR_IO;
			break;
		}
		gpa = next;
	}
	snp_ghcb_put(s);
	return rc;
}

/* ------------------------------------------------------------ conversions */

static void snp_flush_cache(struct snp *s, uint64_t gpa, uint64_t len)
{
	if (s->pt.flush_cache)
		s->pt.flush_cache(s->pt.ctx, gpa, len);
}

/* Changes the C-bit of the mappings and flushes the TLBs; 0 or the page-table
 * code's error (nothing changed). */
static int snp_set_ptes(struct snp *s, uint64_t gpa, uint64_t len, bool private_)
{
	int rc = s->pt.set_pte_private(s->pt.ctx, gpa, len, private_);

	if (!rc)
		s->pt.flush_tlb(s->pt.ctx, gpa, len);
	return rc;
}

static int snp_failed(struct snp *s, uint64_t len, bool rolled_back)
{
	s->stats.failed++;
	if (rolled_back) {
		s->stats.rolled_back++;
		return SNP_ERR_IO;
	}
	s->stats.leaked_pages += len / SNP_PAGE_4K;
	return SNP_ERR_LEAKED;
}

int snp_to_shared(struct snp *s, uint64_t gpa, uint64_t len)
{
	uint64_t upto = gpa;

	if (!snp_range_ok(s, gpa, len))
		return SNP_ERR_INVAL;
	snp_flush_cache(s, gpa, len);
	if (snp_pvalidate(s, gpa, len, false, true, &upto)) {
		/* [gpa, upto) rescinded, the last page maybe one the host had
		 * changed: validate those again. No PSC was made and the mappings
		 * never changed. */
		if (upto > gpa && snp_pvalidate(s, gpa, upto - gpa, true, false, NULL))
			return snp_failed(s, len, false);
		return snp_failed(s, len, true);
	}
	if (!snp_psc(s, gpa, len, SNP_PSC_OP_SHARED) && !snp_set_ptes(s, gpa, len, false)) {
		s->stats.to_shared++;
		return 0;
	}
	/* Some pages may be shared now (the PSC's progress is the hypervisor's
	 * word); the mappings still carry the C-bit. Back to private: PSC, then
	 * validate; the mappings need no change. */
	if (snp_psc(s, gpa, len, SNP_PSC_OP_PRIVATE) ||
	    snp_pvalidate(s, gpa, len, true, false, NULL))
		return snp_failed(s, len, false);
	return snp_failed(s, len, true);
}

int snp_to_private(struct snp *s, uint64_t gpa, uint64_t len)
{
	bool mapped = false;

	if (!snp_range_ok(s, gpa, len))
		return SNP_ERR_INVAL;
	snp_flush_cache(s, gpa, len);
	if (!snp_psc(s, gpa, len, SNP_PSC_OP_PRIVATE)) {
		if (!snp_set_ptes(s, gpa, len, true)) {
			mapped = true;
			if (!snp_pvalidate(s, gpa, len, true, true, NULL)) {
				s->stats.to_private++;
				return 0;
			}
		}
	}
	/* Back to shared, the state the caller knows: rescind whatever may be
	 * validated (only after the mappings changed did any PVALIDATE run;
	 * pages never validated answer CF = 1), PSC to shared, then clear the
	 * C-bit, so that the mappings match the RMP at the TLB flush. */
	if (mapped && snp_pvalidate(s, gpa, len, false, false, NULL))
		return snp_failed(s, len, false);
	if (snp_psc(s, gpa, len, SNP_PSC_OP_SHARED))
		return snp_failed(s, len, false);
	if (mapped && snp_set_ptes(s, gpa, len, false))
		return snp_failed(s, len, false);
	return snp_failed(s, len, true);
}

/*
 * The GHCB page's conversion, in the steps a guest's boot takes apart (see
 * snp.h): the RMP half first (rescind, PSC to shared through the MSR protocol,
 * which needs no GHCB), the mapping later, then the registration. Between the
 * first and the second nothing may touch the page (rule R3 of the model).
 */
int snp_ghcb_prepare(struct snp *s, uint64_t gpa)
{
	uint64_t upto = gpa;

	if (!snp_range_ok(s, gpa, SNP_PAGE_4K))
		return SNP_ERR_INVAL;
	snp_flush_cache(s, gpa, SNP_PAGE_4K);
	if (snp_pvalidate(s, gpa, SNP_PAGE_4K, false, true, &upto)) {
		if (upto > gpa && snp_pvalidate(s, gpa, upto - gpa, true, false, NULL))
			return snp_failed(s, SNP_PAGE_4K, false);
		return snp_failed(s, SNP_PAGE_4K, true);
	}
	if (!snp_psc_msr(s, gpa, SNP_PSC_OP_SHARED))
		return 0;
	/* Still mapped with the C-bit: back to private, validated. */
	if (snp_psc_msr(s, gpa, SNP_PSC_OP_PRIVATE) ||
	    snp_pvalidate(s, gpa, SNP_PAGE_4K, true, false, NULL))
		return snp_failed(s, SNP_PAGE_4K, false);
	return snp_failed(s, SNP_PAGE_4K, true);
}

int snp_ghcb_map(struct snp *s, uint64_t gpa)
{
	if (!snp_range_ok(s, gpa, SNP_PAGE_4K))
		return SNP_ERR_INVAL;
	if (snp_set_ptes(s, gpa, SNP_PAGE_4K, false))
		return SNP_ERR_IO;
	s->stats.to_shared++;
	return 0;
}

int snp_ghcb_register(struct snp *s, struct ghcb *g, uint64_t gpa)
{
	struct snp_ghcb_slot *sl = snp_ghcb_slot(s);

	if (gpa & (SNP_PAGE_4K - 1))
		return SNP_ERR_INVAL;
	/* Shared and mapped without the C-bit: now it may be touched. */
	memset(g, 0, sizeof(*g));
	if (ghcb_register(s->insn, gpa))
		return SNP_ERR_IO;
	sl->gpa = gpa;
	sl->ghcb = g;
	sl->depth = 0;
	return 0;
}

int snp_ghcb_setup(struct snp *s, struct ghcb *g, uint64_t gpa)
{
	struct snp_ghcb_slot *sl;
	int rc;

	if (gpa & (SNP_PAGE_4K - 1))
		return SNP_ERR_INVAL;
	/* Without a GHCB, snp_psc() uses the MSR protocol for this page. */
	sl = snp_ghcb_slot(s);
	sl->ghcb = NULL;
	sl->depth = 0;
	rc = snp_to_shared(s, gpa, SNP_PAGE_4K);
	if (rc)
		return rc;
	if (snp_ghcb_register(s, g, gpa)) {
		sl->ghcb = NULL;
		rc = snp_to_private(s, gpa, SNP_PAGE_4K);
		return rc == SNP_ERR_LEAKED ? rc : SNP_ERR_IO;
	}
	return 0;
}

int snp_check_vmpl0(struct snp *s, uint64_t gpa)
{
	uint32_t rc;

	if ((gpa & (SNP_PAGE_4K - 1)) || !s->insn->rmpadjust)
		return SNP_ERR_INVAL;
	/* VMPL1, no permissions, not a VMSA: allowed only from VMPL0. A page
	 * the firmware validated as part of a 2 MiB RMP entry answers a size
	 * mismatch to a 4 KiB RMPADJUST: then the whole 2 MiB page, which is as
	 * much ours (VMPL1 runs nothing here, its permissions do not matter). */
	rc = s->insn->rmpadjust(s->insn->ctx, gpa, false, 1);
	if (rc == PVALIDATE_FAIL_SIZEMISMATCH)
		rc = s->insn->rmpadjust(s->insn->ctx, gpa & ~(SNP_PAGE_2M - 1), true, 1);
	return rc ? SNP_ERR_REFUSED : 0;
}

int snp_vmsa_mark(struct snp *s, uint64_t gpa, bool vmsa)
{
	uint64_t attrs = 1 | (vmsa ? RMPADJUST_VMSA_PAGE : 0); /* VMPL1 */

	if ((gpa & (SNP_PAGE_4K - 1)) || !(gpa & (SNP_PAGE_2M - 1)) || !s->insn->rmpadjust)
		return SNP_ERR_INVAL;
	return s->insn->rmpadjust(s->insn->ctx, gpa, false, attrs) ? SNP_ERR_IO : 0;
}

int snp_ap_create(struct snp *s, uint32_t apic_id, unsigned int op, uint64_t vmsa_gpa,
		  uint64_t sev_features)
{
	uint64_t ghcb_gpa;
	struct ghcb *g = snp_ghcb_get(s, &ghcb_gpa);
	uint32_t res;

	if (!g)
		return SNP_ERR_IO;
	GHCB_SET(g, rax, sev_features);
	res = ghcb_call(s->insn, g, ghcb_gpa, SVM_VMGEXIT_AP_CREATION,
			((uint64_t)apic_id << 32) | (op & 0xffff), vmsa_gpa);
	snp_ghcb_put(s);
	return res == GHCB_RESULT_OK ? 0 : SNP_ERR_IO;
}

void snp_vmsa_ap_defaults(struct snp_vmsa *v)
{
	memset(v, 0, sizeof(*v));
	v->dr6 = 0xffff0ff0;
	v->dr7 = 0x400;
	v->rflags = 0x2;
	v->g_pat = UINT64_C(0x0007040600070406); /* the power-on PAT */
	v->xcr0 = 1;
	v->mxcsr = SNP_VMSA_MXCSR_DEFAULT;
	v->x87_fcw = SNP_VMSA_X87_FCW_DEFAULT;
	v->x87_ftw = SNP_VMSA_X87_FTW_DEFAULT;
}
