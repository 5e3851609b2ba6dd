/* SPDX-License-Identifier: MIT */
/*
 * cc_setup.c - the confidential-computing platform at boot (see cc_setup.h).
 */
#include "boot/cc_setup.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch/x86_64/cc_sim_snp.h"
#include "arch/x86_64/cc_sim_tdx.h"
#include "arch/x86_64/cc_snp.h"
#include "arch/x86_64/cc_tdx.h"
#include "arch/x86_64/qemu_exit.h"
#include "arch/x86_64/smp.h"
#include "arch/x86_64/tee_insn.h"
#include "boot/options.h"

static struct mmu_encoding td_encoding;
static bool real_td;
static bool sim_td;
static bool sim_snp;

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
 * A real SEV-SNP guest (SEV_STATUS said so before ExitBootServices). What runs
 * here: the refusal checks of snp_init() on the SEV_STATUS and C-bit read
 * then, and the termination request through the GHCB MSR protocol, which needs
 * no GHCB, no page table change and no #VC handler.
 *
 * What does not run yet, and why the guest is ended here with a reason code
 * instead: this kernel's first port write (the serial console, in kernel_main
 * right after this) and its first CPUID would raise a #VC, and the firmware's
 * #VC handler left with its IDT. cc_snp_start() needs this kernel's page tables
 * to make its GHCB shared (mmu_init() comes later, and prints). A real SNP
 * boot still needs, in this order: (1) the GHCB before the first I/O: either
 * keep the firmware's (the GHCB MSR still holds its GPA, registered and mapped
 * shared in the firmware's tables) until mmu_init() maps our own, or clear the
 * C-bit of a page in the firmware's page tables ourselves; (2) the SNP CPUID
 * page from the CC blob of the EFI configuration table (EFI_CC_BLOB_GUID),
 * located before ExitBootServices, for cc_snp_start(); (3) the C-bit encoding
 * for mmu_init() (cc_snp_encoding() builds it from bi->c_bit_at_boot;
 * cc_setup_encoding() is to return it once (1) is done: the switch to our CR3
 * keeps the image readable because every private leaf and CR3 carry the
 * C-bit); (4) the memory the firmware left unvalidated or unaccepted left
 * alone (it is: cc_setup() reports it). None of this can be tested under QEMU
 * TCG; the simulated guest (cc=sim-snp) runs everything after (1).
 */
static __attribute__((noreturn)) void snp_fatal(unsigned int set, unsigned int code)
{
	struct snp s;

	memset(&s, 0, sizeof(s));
	s.insn = &tee_insn_native;
	for (;;)
		snp_terminate(&s, set, code);
}

/* Sluice's reason codes (set GHCB_TERM_SET_SLUICE) of an early end. */
#define GHCB_TERM_SLUICE_OPTION 4 /* cc=emulated, sim-tdx or sim-snp in an SNP guest */
#define GHCB_TERM_SLUICE_NO_EARLY_GHCB 5 /* see above: the real SNP path stops here */

static void snp_setup_early(const struct boot_info *bi)
{
	const uint32_t leaf[4] = { 1u << 4, bi->c_bit_at_boot, 0, 0 };
	struct snp s;
	char why[160];

	if (bi->options.cc != CC_OPT_AUTO)
		snp_fatal(GHCB_TERM_SET_SLUICE, GHCB_TERM_SLUICE_OPTION);
	if (snp_init(&s, &tee_insn_native, NULL, bi->sev_status_at_boot, leaf, why, sizeof(why)))
		snp_fatal(GHCB_TERM_SET_GENERAL, GHCB_TERM_SNP_UNSUPPORTED);
	snp_fatal(GHCB_TERM_SET_SLUICE, GHCB_TERM_SLUICE_NO_EARLY_GHCB);
}

void cc_setup_early(const struct boot_info *bi)
{
	char why[160];

	if (bi->cc_at_boot == CC_SEV_SNP)
		snp_setup_early(bi);
	if (bi->cc_at_boot != CC_TDX)
		return;
	if (bi->options.cc != CC_OPT_AUTO)
		td_fatal("sluice: cc=emulated and cc=sim-tdx cannot run in a real TD");
	if (cc_tdx_start(&tee_insn_native, NULL, "tdx", why, sizeof(why)))
		td_fatal(why);
	/* From here on the serial console works, through TDG.VP.VMCALL. */
	cc_tdx_encoding(&td_encoding);
	real_td = true;
}

const struct mmu_encoding *cc_setup_encoding(void)
{
	return real_td ? &td_encoding : NULL;
}

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

/* The model covers all RAM the firmware reported, so that a conversion of any
 * page is checked. */
static void sim_tdx_start(const struct boot_info *bi)
{
	struct tdx_model_faults faults;
	uint64_t ram_top = 0;
	uint8_t *state, *pte;
	char why[160];

	for (unsigned int i = 0; i < bi->nranges; i++) {
		const struct mem_range *m = &bi->ranges[i];

		if (m->kind != MEM_MMIO && m->cacheable && m->base + m->size > ram_top)
			ram_top = m->base + m->size;
	}
	ram_top = (ram_top + 4095) & ~UINT64_C(4095);
	state = malloc(ram_top / 4096);
	pte = malloc(ram_top / 4096);
	sim_tdx_faults(&bi->options, &faults);
	if (!state || !pte || cc_sim_tdx_init(ram_top, state, pte, &faults, why, sizeof(why))) {
		printf("cc: sim-tdx: %s\n", state && pte ? why : "no memory for the model");
		exit(SLUICE_EXIT_BOOT);
	}
	sim_td = true;
	cc_sim_tdx_report("at boot");
	smp_simulate_td_firmware(bi->options.tdx_fault & (UINT64_C(1) << 9));
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

static uint64_t ram_top_of(const struct boot_info *bi)
{
	uint64_t ram_top = 0;

	for (unsigned int i = 0; i < bi->nranges; i++) {
		const struct mem_range *m = &bi->ranges[i];

		if (m->kind != MEM_MMIO && m->cacheable && m->base + m->size > ram_top)
			ram_top = m->base + m->size;
	}
	return (ram_top + 4095) & ~UINT64_C(4095);
}

/* The RMP model covers all RAM the firmware reported. */
static void sim_snp_start(const struct boot_info *bi)
{
	struct snp_model_faults faults;
	uint64_t ram_top = ram_top_of(bi);
	uint8_t *page = malloc(ram_top / 4096);
	char why[160];

	sim_snp_faults(&bi->options, &faults);
	if (!page || cc_sim_snp_init(ram_top, page, &faults,
				     bi->options.snp_fault & (UINT64_C(1) << SNP_FAULT_AP_SILENT),
				     why, sizeof(why))) {
		printf("cc: sim-snp: %s\n", page ? why : "no memory for the model");
		exit(SLUICE_EXIT_BOOT);
	}
	sim_snp = true;
	cc_sim_snp_report("at boot");
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
	if (real_td) {
		cc_tdx_report("at boot", NULL);
		return;
	}
	/* CPUID found a TD that the check before ExitBootServices did not: the
	 * firmware's answer and ours disagree, and nothing here is set up for it. */
	if (cpu->cc == CC_TDX) {
		printf("cc: TDX found after ExitBootServices but not before; exit %d\n",
		       SLUICE_EXIT_BOOT);
		exit(SLUICE_EXIT_BOOT);
	}
	if (cpu->cc == CC_SEV_SNP) {
		printf("cc: SEV-SNP found after ExitBootServices but not before; exit %d\n",
		       SLUICE_EXIT_BOOT);
		exit(SLUICE_EXIT_BOOT);
	}
	if (bi->options.cc == CC_OPT_SIM_TDX)
		sim_tdx_start(bi);
	else if (bi->options.cc == CC_OPT_SIM_SNP)
		sim_snp_start(bi);
}

void cc_setup_arm_faults(void)
{
	if (sim_td)
		cc_sim_tdx_arm_faults();
	else if (sim_snp)
		cc_sim_snp_arm_faults();
}

void cc_setup_report(const char *when)
{
	if (sim_td)
		cc_sim_tdx_report(when);
	else if (sim_snp)
		cc_sim_snp_report(when);
	else if (real_td)
		cc_tdx_report(when, NULL);
}

const char *cc_setup_name(void)
{
	return real_td ? "tdx" : sim_td ? "sim-tdx" : sim_snp ? "sim-snp" : "emulated";
}
