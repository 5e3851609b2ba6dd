/* SPDX-License-Identifier: MIT */
/*
 * cc_emulated.c - the emulated platform (cc=emulated, and cc=auto on a plain
 * VM): "shared" is the software PTE bit 9 and a conversion is mm/'s own page
 * table change plus one trapping port write standing for the hypercall
 * (mmu_set_shared() with no backend). Nothing to start, no protocol, no
 * guard; the report says nothing (the MMU report describes it).
 */
#include "arch/x86_64/cc/cc.h"

#include "arch/x86_64/mm/mmu.h"

static void emulated_boot_step(const struct cc_boot *b)
{
	(void)b;
}

static void emulated_after_mmu(void)
{
}

static const struct mmu_encoding *emulated_pt_encoding(void)
{
	return NULL; /* the software bit */
}

static void emulated_stats(struct cc_stats *out)
{
	struct mmu_stats m;

	mmu_stats_get(&m);
	*out = (struct cc_stats){ .to_shared = m.to_shared_calls,
				  .to_private = m.to_private_calls,
				  .failed = m.failed_calls };
}

static void emulated_report(const char *when)
{
	(void)when;
}

const struct cc_platform_ops cc_platform_emulated = {
	.name = "emulated",
	.id = CC_PLATFORM_EMULATED,
	.hardware = CC_NONE,
	.early = emulated_boot_step,
	.pt_encoding = emulated_pt_encoding,
	.after_mmu = emulated_after_mmu,
	.start = emulated_boot_step,
	.ap_setup = emulated_boot_step,
	.stats = emulated_stats,
	.report = emulated_report,
};
