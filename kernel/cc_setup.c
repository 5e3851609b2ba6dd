/* SPDX-License-Identifier: MIT */
/*
 * cc_setup.c - the confidential-computing platform at boot (see cc_setup.h).
 */
#include "kernel/cc_setup.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch/x86_64/cc/cc_sim_snp.h"
#include "arch/x86_64/cc/cc_sim_tdx.h"
#include "arch/x86_64/cc/cc_snp.h"
#include "arch/x86_64/cc/cc_tdx.h"
#include "arch/x86_64/cpu/qemu_exit.h"
#include "arch/x86_64/cpu/serial.h"
#include "arch/x86_64/smp/smp.h"
#include "arch/x86_64/cc/snp_boot.h"
#include "arch/x86_64/cc/tee_insn.h"
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
 * An SEV-SNP guest, real (SEV_STATUS said so before ExitBootServices) or
 * simulated (cc=sim-snp), starts here at kernel entry, the same code for both;
 * only the instructions differ (tee_insn_native, or the model of
 * cc_sim_snp.c, which also plays the firmware's and the hypervisor's part).
 *
 * The window, precisely (Linux never uses the firmware's GHCB either: its
 * early code speaks the GHCB MSR protocol until its own boot GHCB is
 * registered, snp_register_ghcb_early()):
 *  1. kernel entry to cc_snp_early()'s pvio_select(): no port I/O, no MSR
 *     other than the GHCB MSR, no CPUID. The firmware's IDT (and #VC
 *     handler) is still loaded but nothing here may trap. Checked in order:
 *     the CC blob and the CPUID page copied before ExitBootServices
 *     (snp_cc_blob_check()), SEV_STATUS and the C-bit of the CPUID page
 *     (snp_init()), VMPL0 (RMPADJUST), the protocol version and the
 *     hypervisor's features (MSR protocol). A failure here ends the guest
 *     with a termination request (the MSR protocol needs no GHCB) and prints
 *     nothing: there is no way to. Our own per-CPU GHCB pages are rescinded
 *     and made shared in the RMP (MSR-protocol PSC), still mapped private.
 *  2. from there to cc_snp_after_mmu(): the SNP backend is selected with no
 *     GHCB. It answers CPUID from the CPUID page (post-processed for this
 *     CPU through the MSR protocol's CPUID request) and SEV_STATUS from
 *     snp_init(); anything else would need a GHCB and is refused and
 *     counted (the count is printed, and is 0: kernel_main() runs only CPU
 *     detection and mmu_init() here, and prints nothing until after). The
 *     GHCB the firmware left registered is never used (in cc=sim-snp the
 *     model's R11 stops the kernel if it were).
 *  3. cc_snp_after_mmu(): our GHCB pages mapped shared in our tables, the
 *     bootstrap CPU's registered; from there on every CPU uses its own. The
 *     firmware's page stays private in our tables, never touched.
 */
static struct mmu_encoding snp_encoding;
static bool real_snp;
static char snp_why[200];

/* The end of an SNP guest at boot: the reason through the console when it
 * works, then the termination request (GHCB MSR protocol), for good. */
static __attribute__((noreturn)) void snp_fatal(const struct tee_insn_ops *insn, unsigned int set,
						unsigned int code, const char *why)
{
	struct snp s;

	if (why && cc_snp_console_up()) {
		serial_puts("sluice: ");
		serial_puts(why);
		serial_puts("\n");
	} else if (why && insn != &tee_insn_native) {
		/* The simulated guest cannot print either; its host's log says. */
		cc_sim_snp_hv_puts("sim-snp: the guest's reason (a real guest cannot print it "
				   "here): ");
		cc_sim_snp_hv_puts(why);
		cc_sim_snp_hv_puts("\n");
	}
	memset(&s, 0, sizeof(s));
	s.insn = insn;
	for (;;)
		snp_terminate(&s, set, code);
}

static void snp_boot(const struct boot_info *bi, const struct tee_insn_ops *insn,
		     const struct cc_observer *obs, const char *name, uint64_t sev_status)
{
	unsigned int set = GHCB_TERM_SET_SLUICE, code;

	if (snp_cc_blob_check(bi->cc_blob_found, &bi->cc_blob, bi->cc_cpuid, bi->cc_cpuid_copied,
			      &code, snp_why, sizeof(snp_why)))
		snp_fatal(insn, set, code, snp_why);
	if (cc_snp_early(insn, obs, name, sev_status,
			 (const struct snp_cpuid_page *)(const void *)bi->cc_cpuid, &set, &code,
			 snp_why, sizeof(snp_why)))
		snp_fatal(insn, set, code, snp_why);
	/* No GHCB yet: nothing prints until cc_setup_after_mmu(). */
}

static void snp_setup_early(const struct boot_info *bi)
{
	if (bi->options.cc != CC_OPT_AUTO)
		snp_fatal(&tee_insn_native, GHCB_TERM_SET_SLUICE, GHCB_TERM_SLUICE_OPTION, NULL);
	snp_boot(bi, &tee_insn_native, NULL, "snp", bi->sev_status_at_boot);
	cc_snp_encoding(cc_snp_guest()->cbit_pos, &snp_encoding);
	real_snp = true;
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

/*
 * cc=sim-snp at kernel entry: the model of the RMP over all RAM the firmware
 * reported (its page array from the heap), with the firmware's GHCB
 * registered, then the real guest's boot (snp_boot()).
 */
static void sim_snp_setup_early(const struct boot_info *bi)
{
	const struct kernel_options *o = &bi->options;
	struct snp_model_faults faults;
	uint64_t ram_top = ram_top_of(bi);
	uint8_t *page = malloc(ram_top / 4096);

	if (!page) {
		printf("cc: sim-snp: no memory for the model\n");
		exit(SLUICE_EXIT_BOOT);
	}
	sim_snp_faults(o, &faults);
	cc_sim_snp_firmware(ram_top, page, &faults,
			    o->snp_fault & (UINT64_C(1) << SNP_FAULT_AP_SILENT),
			    o->snp_fault & (UINT64_C(1) << SNP_FAULT_VMPL1) ? 1 : 0,
			    bi->sim_snp_fw_ghcb);
	snp_boot(bi, cc_sim_snp_insn(), cc_sim_snp_observer(), "sim-snp", CC_SIM_SNP_SEV_STATUS);
	sim_snp = true;
}

void cc_setup_early(const struct boot_info *bi)
{
	char why[160];

	if (bi->cc_at_boot == CC_SEV_SNP) {
		snp_setup_early(bi);
		return;
	}
	if (bi->cc_at_boot == CC_NONE && bi->options.cc == CC_OPT_SIM_SNP) {
		sim_snp_setup_early(bi);
		return;
	}
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
	return real_td ? &td_encoding : real_snp ? &snp_encoding : NULL;
}

void cc_setup_after_mmu(void)
{
	if (!real_snp && !sim_snp)
		return;
	if (cc_snp_after_mmu(snp_why, sizeof(snp_why)))
		snp_fatal(cc_snp_guest()->insn, GHCB_TERM_SET_SLUICE, GHCB_TERM_SLUICE_GHCB_SETUP,
			  snp_why);
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
	smp_simulate_td_firmware(bi->options.tdx_fault & (UINT64_C(1) << 9),
				 bi->options.tdx_fault & (UINT64_C(1) << 10));
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
		smp_mailbox_only();
		return;
	}
	if (real_snp || sim_snp) {
		cc_snp_finish();
		if (sim_snp) {
			smp_simulate_parking();
			cc_sim_snp_report("at boot");
		} else {
			cc_snp_report("at boot", NULL);
		}
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
	else if (real_snp)
		cc_snp_report(when, NULL);
}

const char *cc_setup_name(void)
{
	return real_td	? "tdx" :
	       real_snp ? "snp" :
	       sim_td	? "sim-tdx" :
	       sim_snp	? "sim-snp" :
			  "emulated";
}
