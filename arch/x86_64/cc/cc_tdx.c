/* SPDX-License-Identifier: MIT */
/*
 * cc_tdx.c - this kernel as a TD guest (see cc_tdx.h).
 */
#include "arch/x86_64/cc/cc_tdx.h"

#include <inttypes.h>
#include <stdio.h>

#include "arch/x86_64/cpu/descriptors.h"
#include "arch/x86_64/cc/pvio_tdx.h"

static struct tdx td;
static struct pvio_tdx pv;
static struct cc_glue glue;

/* The protocol behind mmu_set_shared() (run under the glue's lock). */
static int tdx_convert(void *ctx, uint64_t va, uint64_t len, bool shared)
{
	return shared ? tdx_to_shared(ctx, va, len) : tdx_to_private(ctx, va, len);
}

/* The VMX exit reasons a #VE reports (Intel SDM vol. 3 appendix C; the GHCI). */
static const char *ve_reason_name(uint32_t reason)
{
	switch (reason) {
	case 10:
		return "CPUID";
	case 12:
		return "HLT";
	case 30:
		return "I/O instruction";
	case 31:
		return "RDMSR";
	case 32:
		return "WRMSR";
	case 48:
		return "EPT violation: MMIO or a shared/private mismatch";
	default:
		return "other";
	}
}

/*
 * The #VE guard: the TDX module's account first (TDG.VP.VEINFO.GET, before
 * anything else can raise a second #VE), printed through the paravirtual I/O
 * layer, then the exception report and the fatal exit. Nothing is emulated: in
 * this kernel every operation a TD traps on already goes through pvio, so a #VE
 * is a bug or the VMM misbehaving.
 */
static void ve_report(uint64_t rip)
{
	struct tdx_ve_info ve;

	if (tdx_ve_info_get(&td, &ve)) {
		printf("#VE: TDG.VP.VEINFO.GET failed; rip 0x%" PRIx64 "\n", rip);
		return;
	}
	printf("#VE: TDG.VP.VEINFO.GET: exit reason %u (%s), qualification 0x%" PRIx64
	       ", GPA 0x%" PRIx64 ", GLA 0x%" PRIx64 ", instruction length %u, rip 0x%" PRIx64 "\n",
	       ve.exit_reason, ve_reason_name(ve.exit_reason), ve.exit_qual, ve.gpa, ve.gla,
	       ve.instr_len, rip);
}

int cc_tdx_start(const struct tee_insn_ops *insn, const struct cc_observer *obs, const char *name,
		 char *why, size_t why_len)
{
	const struct tdx_pt_ops pt = { cc_glue_set_pte_shared, cc_glue_flush_tlb,
				       cc_glue_flush_cache, &glue };
	int rc;

	cc_glue_init(&glue, insn, obs, name);
	rc = tdx_init(&td, insn, &pt, why, why_len);
	if (rc) {
		td.insn = NULL;
		return rc;
	}
	pvio_tdx_init(&pv, &td);
	pvio_select(&pv.ops);
	cc_glue_install(&glue, "TDX", tdx_convert, &td);
	trap_set_ve_reporter(ve_report);
	return 0;
}

bool cc_tdx_active(void)
{
	return td.insn != NULL;
}

const char *cc_tdx_name(void)
{
	return cc_tdx_active() ? glue.platform : NULL;
}

void cc_tdx_encoding(struct mmu_encoding *enc)
{
	snprintf(glue.encoding_name, sizeof(glue.encoding_name),
		 "the TD's shared bit 1<<%u (GPAW %u)", td.gpaw - 1, td.gpaw);
	*enc = (struct mmu_encoding){ .shared_set_mask = td.shared_bit,
				      .shared_clear_mask = 0,
				      .name = glue.encoding_name };
}

const struct tdx *cc_tdx_td(void)
{
	return &td;
}

void cc_tdx_stats_get(struct tdx_stats *out)
{
	cc_glue_stats_get(&glue, out, &td.stats, sizeof(*out));
}

void cc_tdx_report(const char *when, const char *extra)
{
	struct tdx_stats s;

	cc_tdx_stats_get(&s);
	printf("cc: %s %s: GPAW %u, shared bit 1<<%u, attributes 0x%" PRIx64
	       " (%s), paravirtual I/O %s (%lu VMM errors); MapGPA %" PRIu64 " (%" PRIu64
	       " retries), accepts %" PRIu64 " (%" PRIu64 " x 4K, %" PRIu64 " x 2M, %" PRIu64
	       " 2M->4K, %" PRIu64 " busy), ",
	       glue.platform, when, td.gpaw, td.gpaw - 1, td.attributes,
	       td.attributes & TDX_ATTR_SEPT_VE_DISABLE ? "SEPT_VE_DISABLE" : "debug TD",
	       pvio->name, pv.errors, s.map_gpa_calls, s.map_gpa_retries, s.accept_calls,
	       s.accepted_4k, s.accepted_2m, s.size_fallbacks, s.busy_retries);
	cc_glue_conversions_print(s.to_shared, s.to_private, s.failed, s.rolled_back,
				  s.leaked_pages, extra);
}
