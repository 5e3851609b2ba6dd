/* SPDX-License-Identifier: MIT */
/*
 * cc_tdx.c - this kernel as a TD guest (see cc_tdx.h), and the real TD's
 * platform ops (cc_platform_tdx).
 */
#include "arch/x86_64/cc/cc_tdx.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "arch/x86_64/cpu/descriptors.h"
#include "arch/x86_64/cc/pvio_tdx.h"
#include "arch/x86_64/mm/mmu.h"
#include "arch/x86_64/smp/smp.h"
#include "arch/x86_64/smp/spinlock.h"

static struct tdx td;
static struct pvio_tdx pv;
/* The protocol's counters and the model behind it are one state: one
 * conversion at a time, from whichever CPU. */
static struct spinlock lock;
static const char *platform;
static char encoding_name[64];
static struct mmu_encoding encoding;
static char why[160];

int cc_tdx_convert(void *ctx, uint64_t va, uint64_t len, bool shared)
{
	int rc;

	(void)ctx;
	spin_lock(&lock);
	rc = shared ? tdx_to_shared(&td, va, len) : tdx_to_private(&td, va, len);
	spin_unlock(&lock);
	return rc;
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

int cc_tdx_start(const struct tee_insn_ops *insn, const struct cc_pt_ops *pt, const char *name,
		 char *why_out, size_t why_len)
{
	int rc;

	platform = name;
	rc = tdx_init(&td, insn, pt, why_out, why_len);
	if (rc) {
		td.insn = NULL;
		return rc;
	}
	pvio_tdx_init(&pv, &td);
	pvio_select(&pv.ops);
	trap_set_ve_reporter(ve_report);
	return 0;
}

const struct tdx *cc_tdx_td(void)
{
	return &td;
}

void cc_tdx_stats(struct cc_stats *out)
{
	spin_lock(&lock);
	*out = td.stats;
	spin_unlock(&lock);
}

void cc_tdx_report(const char *when, const char *extra)
{
	struct cc_stats s;

	cc_tdx_stats(&s);
	printf("cc: %s %s: GPAW %u, shared bit 1<<%u, attributes 0x%" PRIx64
	       " (%s), paravirtual I/O %s (%lu VMM errors); MapGPA %" PRIu64 " (%" PRIu64
	       " retries), accepts %" PRIu64 " (%" PRIu64 " x 4K, %" PRIu64 " x 2M, %" PRIu64
	       " 2M->4K, %" PRIu64 " busy), ",
	       platform, when, td.gpaw, td.gpaw - 1, td.attributes,
	       td.attributes & TDX_ATTR_SEPT_VE_DISABLE ? "SEPT_VE_DISABLE" : "debug TD",
	       pvio->name, pv.errors, s.map_gpa_calls, s.map_gpa_retries, s.accept_calls,
	       s.accepted_4k, s.accepted_2m, s.size_fallbacks, s.busy_retries);
	cc_conversions_print(&s, extra);
}

/* ------------------------------------------------------------ a real TD */

/* The end of a real TD: nothing can be printed without the TD backend, so the
 * reason goes to the VMM (its first 16 bytes: tdx_report_fatal()) and the vCPU
 * halts for good. */
static __attribute__((noreturn)) void td_fatal(const char *msg)
{
	struct tdx t;

	memset(&t, 0, sizeof(t));
	t.insn = &tee_insn_native;
	for (;;) {
		tdx_report_fatal(&t, msg);
		tdx_vmcall_hlt(&t, false);
	}
}

/*
 * A real TD (CPUID leaf 0x21 said so before ExitBootServices) starts first
 * thing at kernel entry: the firmware's #VE handler is gone. Its page-table
 * half is mm/ itself (no model to tell), the cache flush the instruction's.
 */
static void tdx_early(const struct cc_boot *b)
{
	struct cc_pt_ops pt = { .set_pte_shared = mmu_pt_set_shared,
				.flush_tlb = mmu_pt_flush_tlb,
				.flush_cache = tee_insn_native.flush_cache,
				.ctx = tee_insn_native.ctx };

	if (!b->option_auto)
		td_fatal("sluice: cc=emulated, cc=sim-tdx and cc=sim-snp cannot run in a real TD");
	if (cc_tdx_start(&tee_insn_native, &pt, "tdx", why, sizeof(why)))
		td_fatal(why);
	/* From here on the serial console works, through TDG.VP.VMCALL. */
	snprintf(encoding_name, sizeof(encoding_name), "the TD's shared bit 1<<%u (GPAW %u)",
		 td.gpaw - 1, td.gpaw);
	encoding = (struct mmu_encoding){ .shared_set_mask = td.shared_bit,
					  .shared_clear_mask = 0,
					  .name = encoding_name };
}

static const struct mmu_encoding *tdx_pt_encoding(void)
{
	return &encoding;
}

static void tdx_after_mmu(void)
{
}

static void tdx_start(const struct cc_boot *b)
{
	(void)b;
	cc_tdx_report("at boot", NULL);
}

/* A TD's APs receive no INIT-SIPI: the MADT's wakeup mailbox or none. */
static void tdx_ap_setup(const struct cc_boot *b)
{
	(void)b;
	smp_mailbox_only();
}

static void tdx_report(const char *when)
{
	cc_tdx_report(when, NULL);
}

const struct cc_platform_ops cc_platform_tdx = {
	.name = "tdx",
	.id = CC_PLATFORM_TDX,
	.hardware = CC_TDX,
	.early = tdx_early,
	.pt_encoding = tdx_pt_encoding,
	.after_mmu = tdx_after_mmu,
	.start = tdx_start,
	.ap_setup = tdx_ap_setup,
	.stats = cc_tdx_stats,
	.report = tdx_report,
	.guest = "TD",
	.protocol = "TDX",
	.convert = cc_tdx_convert,
};
