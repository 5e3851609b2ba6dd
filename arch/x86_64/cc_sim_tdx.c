/* SPDX-License-Identifier: MIT */
/*
 * cc_sim_tdx.c - the simulated TD (see cc_sim_tdx.h).
 */
#include "arch/x86_64/cc_sim_tdx.h"

#include <inttypes.h>
#include <stdio.h>

#include "arch/x86_64/descriptors.h"
#include "arch/x86_64/mmu.h"
#include "arch/x86_64/qemu_exit.h"
#include "arch/x86_64/spinlock.h"

static struct tdx_model model;
static struct tee_insn_ops model_insn;
static struct tdx td;
static struct tdx_model_faults armed_faults;
/* The model and the protocol's counters are one state: one conversion at a time. */
static struct spinlock sim_lock;

/* The page-table half: the kernel's PTE bit and this CPU's TLB, then the model
 * is told what the mappings now say. */
static int sim_set_pte(void *ctx, uint64_t gpa, uint64_t len, bool shared)
{
	int rc = mmu_pte_set_shared(gpa, len, shared);

	(void)ctx;
	if (!rc)
		tdx_model_note_ptes(&model, gpa, len, shared);
	return rc;
}

/* mmu_pte_set_shared() invalidated this CPU's entries page by page; the model
 * checks its rules for the range as every CPU now sees it. */
static void sim_flush_tlb(void *ctx, uint64_t gpa, uint64_t len)
{
	(void)ctx;
	tdx_model_note_flush(&model, gpa, len);
}

/* The model keeps no cache; the write-back a real TD needs (TDX has no coherence
 * between keys) is WBINVD or CLFLUSH there, which the instruction layer will own. */
static void sim_flush_cache(void *ctx, uint64_t gpa, uint64_t len)
{
	(void)ctx;
	(void)gpa;
	(void)len;
}

static void sim_violation(void *ctx, const char *rule, uint64_t gpa)
{
	(void)ctx;
	printf("tdx-model: VIOLATION at GPA 0x%" PRIx64 ": %s\n", gpa, rule);
	printf("sluice: the TDX protocol broke a rule of the simulated TD; exit %d\n",
	       SLUICE_EXIT_FAIL);
	qemu_exit(SLUICE_EXIT_FAIL);
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
static void sim_ve_report(uint64_t rip)
{
	struct tdx_ve_info ve;

	if (tdx_ve_info_get(&td, &ve)) {
		printf("#VE: TDG.VP.VEINFO.GET failed; rip 0x%" PRIx64 "\n", rip);
		return;
	}
	printf("#VE: TDG.VP.VEINFO.GET: exit reason %u (%s), qualification 0x%" PRIx64
	       ", GPA 0x%" PRIx64 ", GLA 0x%" PRIx64 ", instruction length %u, rip 0x%" PRIx64
	       "\n",
	       ve.exit_reason, ve_reason_name(ve.exit_reason), ve.exit_qual, ve.gpa, ve.gla,
	       ve.instr_len, rip);
}

bool cc_sim_tdx_active(void)
{
	return td.insn != NULL;
}

void cc_sim_tdx_stage_ve(uint32_t exit_reason, uint64_t exit_qual, uint64_t gpa)
{
	model.ve.exit_reason = exit_reason;
	model.ve.exit_qual = exit_qual;
	model.ve.gpa = gpa;
	model.ve.gla = gpa;
	model.ve.instr_len = 1;
}

static int sim_convert(void *ctx, uint64_t va, uint64_t len, bool shared)
{
	int rc;

	(void)ctx;
	spin_lock(&sim_lock);
	rc = shared ? tdx_to_shared(&td, va, len) : tdx_to_private(&td, va, len);
	spin_unlock(&sim_lock);
	return rc;
}

static const struct mmu_cc_backend sim_backend = { "TDX (simulated TD: sim-tdx)", sim_convert,
						    NULL };

int cc_sim_tdx_init(uint64_t ram_top, uint8_t *state, uint8_t *pte,
		    const struct tdx_model_faults *faults, char *why, size_t why_len)
{
	const struct tdx_pt_ops pt = { sim_set_pte, sim_flush_tlb, sim_flush_cache, NULL };
	int rc;

	tdx_model_init(&model, 0, ram_top / TDX_PAGE_4K, state, pte);
	model.violation = sim_violation;
	tdx_model_insn(&model, &model_insn);
	rc = tdx_init(&td, &model_insn, &pt, why, why_len);
	if (rc)
		return rc;
	if (faults)
		armed_faults = *faults;
	mmu_set_cc_backend(&sim_backend);
	trap_set_ve_reporter(sim_ve_report);
	return 0;
}

void cc_sim_tdx_arm_faults(void)
{
	spin_lock(&sim_lock);
	model.faults = armed_faults;
	model.n_map = model.n_accept = 0;
	spin_unlock(&sim_lock);
}

void cc_sim_tdx_stats(struct tdx_stats *out)
{
	spin_lock(&sim_lock);
	*out = td.stats;
	spin_unlock(&sim_lock);
}

void cc_sim_tdx_report(const char *when)
{
	struct tdx_stats s;

	cc_sim_tdx_stats(&s);
	printf("cc: sim-tdx %s: GPAW %u, shared bit 1<<%u, attributes 0x%" PRIx64
	       " (%s), model over %" PRIu64 " MiB; MapGPA %" PRIu64 " (%" PRIu64
	       " retries), accepts %" PRIu64 " (%" PRIu64 " x 4K, %" PRIu64 " x 2M, %" PRIu64
	       " 2M->4K, %" PRIu64 " busy), conversions %" PRIu64 " to shared, %" PRIu64
	       " to private, %" PRIu64 " failed (%" PRIu64 " rolled back, %" PRIu64
	       " pages leaked), rule violations %lu\n",
	       when, td.gpaw, td.gpaw - 1, td.attributes,
	       td.attributes & TDX_ATTR_SEPT_VE_DISABLE ? "SEPT_VE_DISABLE" : "debug TD",
	       model.npages >> 8, s.map_gpa_calls,
	       s.map_gpa_retries, s.accept_calls, s.accepted_4k, s.accepted_2m,
	       s.size_fallbacks, s.busy_retries, s.to_shared, s.to_private, s.failed,
	       s.rolled_back, s.leaked_pages, model.violations);
}
