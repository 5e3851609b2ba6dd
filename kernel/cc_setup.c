/* SPDX-License-Identifier: MIT */
/*
 * cc_setup.c - the confidential-computing platform at boot (see cc_setup.h):
 * the boot hand-off and the options turned into the platform's terms
 * (struct cc_boot), the platform chosen once (cc_platform_select()), and its
 * ops called at their points of the boot. Which platform does what is theirs
 * (arch/x86_64/cc/cc.h); nothing here names one.
 */
#include "kernel/cc_setup.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch/x86_64/cc/snp_model.h"
#include "arch/x86_64/cc/tdx_model.h"
#include "arch/x86_64/cpu/qemu_exit.h"
#include "boot/options.h"

static const struct cc_platform_ops *platform;
static struct cc_boot boot;
static struct tdx_model_faults tdx_faults;
static struct snp_model_faults snp_faults;
static struct mmu_cc_backend backend;
static char backend_name[32];

/* The sim-tdx faults of tdx_fault=, every Nth call of each kind. */
static void sim_tdx_faults(const struct kernel_options *o, struct tdx_model_faults *f)
{
	unsigned int n = (unsigned int)o->tdx_fault_every;

	memset(f, 0, sizeof(*f));
#define TDX_FAULT(bit) (o->tdx_fault & (UINT64_C(1) << (bit)) ? n : 0)
	f->map_partial_every = TDX_FAULT(1);
	f->map_stall_every = TDX_FAULT(2);
	f->map_bad_resume_every = TDX_FAULT(3);
	f->map_error_every = TDX_FAULT(4);
	f->map_keep_accepted_every = TDX_FAULT(5);
	f->accept_busy_every = TDX_FAULT(6);
	f->accept_error_every = TDX_FAULT(7);
	f->vmm_4k_only = o->tdx_fault & (UINT64_C(1) << 8);
#undef TDX_FAULT
}

/* The sim-snp faults of snp_fault=, every Nth call of each kind. */
static void sim_snp_faults(const struct kernel_options *o, struct snp_model_faults *f)
{
	unsigned long n = (unsigned long)o->snp_fault_every;

	memset(f, 0, sizeof(*f));
#define SNP_FAULT(bit) (o->snp_fault & (UINT64_C(1) << (bit)) ? n : 0)
	f->psc_early_every = SNP_FAULT(SNP_FAULT_EARLY_RETURN);
	f->psc_error_every = SNP_FAULT(SNP_FAULT_PSC_ERROR);
	f->pval_mismatch_every = SNP_FAULT(SNP_FAULT_SIZE_MISMATCH);
	f->pval_cf_every = SNP_FAULT(SNP_FAULT_CF);
#undef SNP_FAULT
}

/* What the platform needs of the hand-off and the options, in its terms. */
static void cc_boot_fill(const struct boot_info *bi)
{
	const struct kernel_options *o = &bi->options;

	sim_tdx_faults(o, &tdx_faults);
	sim_snp_faults(o, &snp_faults);
	boot = (struct cc_boot){
		.option_auto = o->cc == CC_OPT_AUTO,
		.ranges = bi->ranges,
		.nranges = bi->nranges,
		.sev_status = bi->sev_status_at_boot,
		.cc_blob_found = bi->cc_blob_found,
		.cc_blob = &bi->cc_blob,
		.cc_cpuid = bi->cc_cpuid,
		.cc_cpuid_copied = bi->cc_cpuid_copied,
		.sim_snp_fw_ghcb = bi->sim_snp_fw_ghcb,
		.tdx_faults = &tdx_faults,
		.tdx_ap_silent = o->tdx_fault & (UINT64_C(1) << 9),
		.tdx_ap_late = o->tdx_fault & (UINT64_C(1) << 10),
		.snp_faults = &snp_faults,
		.snp_ap_silent = o->snp_fault & (UINT64_C(1) << SNP_FAULT_AP_SILENT),
		.snp_vmpl = o->snp_fault & (UINT64_C(1) << SNP_FAULT_VMPL1) ? 1 : 0,
	};
}

void cc_setup_early(const struct boot_info *bi)
{
	cc_boot_fill(bi);
	platform = cc_platform_select((enum cc_mode)bi->cc_at_boot, (unsigned int)bi->options.cc);
	platform->early(&boot);
}

const struct mmu_encoding *cc_setup_encoding(void)
{
	return platform->pt_encoding();
}

void cc_setup_after_mmu(void)
{
	platform->after_mmu();
}

void cc_setup(const struct boot_info *bi, const struct cpu_info *cpu)
{
	if (bi->unaccepted_bytes)
		printf("memory: %" PRIu64 " KiB in %u range%s left unaccepted by the firmware "
		       "(EfiUnacceptedMemoryType): left alone, never used\n",
		       bi->unaccepted_bytes >> 10, bi->unaccepted_ranges,
		       bi->unaccepted_ranges == 1 ? "" : "s");
	else
		printf("memory: no unaccepted memory in the firmware's map\n");
	/* CPUID found a TD or SNP guest that the check before ExitBootServices
	 * did not: the firmware's answer and ours disagree, and nothing here is
	 * set up for it. */
	if (platform->hardware == CC_NONE && (cpu->cc == CC_TDX || cpu->cc == CC_SEV_SNP)) {
		printf("cc: %s found after ExitBootServices but not before; exit %d\n",
		       cpu->cc == CC_TDX ? "TDX" : "SEV-SNP", SLUICE_EXIT_BOOT);
		exit(SLUICE_EXIT_BOOT);
	}
	platform->start(&boot);
	/* Every later conversion through the platform's protocol: one indirect
	 * call from mm/ (the platform's convert op), none back. */
	if (platform->convert) {
		snprintf(backend_name, sizeof(backend_name), "%s (%s)", platform->protocol,
			 platform->name);
		backend = (struct mmu_cc_backend){ backend_name, platform->convert, NULL };
		mmu_set_cc_backend(&backend);
	}
	platform->ap_setup(&boot);
}

void cc_setup_arm_faults(void)
{
	if (platform->arm_faults)
		platform->arm_faults();
}

void cc_setup_report(const char *when)
{
	platform->report(when);
}

const char *cc_setup_name(void)
{
	return cc_platform()->name;
}
