/* SPDX-License-Identifier: MIT */
/*
 * cc_sim_tdx.c - the simulated TD (see cc_sim_tdx.h): cc_platform_sim_tdx.
 */
#include "arch/x86_64/cc/cc_sim_tdx.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "arch/x86_64/cc/cc_tdx.h"
#include "arch/x86_64/cc/pvio.h"
#include "arch/x86_64/cc/sim_ap_firmware.h"
#include "arch/x86_64/cpu/qemu_exit.h"
#include "arch/x86_64/mm/mmu.h"

static struct tdx_model model;
static struct tee_insn_ops model_insn;
static struct tdx_model_faults armed_faults;

/* The page-table half of a conversion: mm/'s, then the model is told what the
 * kernel's mappings now say and checks its rules for the range as every CPU
 * will see it once the TLB generation moved on. */
static int sim_set_pte_shared(void *ctx, uint64_t gpa, uint64_t len, bool shared)
{
	int rc = mmu_pte_set_shared(gpa, len, shared);

	(void)ctx;
	if (!rc)
		tdx_model_note_ptes(&model, gpa, len, shared);
	return rc;
}

static void sim_flush_tlb(void *ctx, uint64_t gpa, uint64_t len)
{
	(void)ctx;
	mmu_tlb_shootdown(gpa, len);
	tdx_model_note_flush(&model, gpa, len);
}

static void sim_violation(void *ctx, const char *rule, uint64_t gpa)
{
	(void)ctx;
	cc_model_violation("tdx-model", "the TDX protocol broke a rule of the simulated TD", rule,
			   gpa);
}

/*
 * The VMM's side of TDG.VP.VMCALL. QEMU is the VMM here, so for each request
 * the simulated TD does what a VMM does for a TD: the instruction, natively,
 * with the operands the GHCI puts in R12..R15 (Instruction.IO: size, direction,
 * port, value; #VE.RequestMMIO: size, direction, shared GPA, value;
 * Instruction.CPUID: EAX, ECX; RDMSR/WRMSR: MSR, value; Instruction.HLT:
 * interrupt blocked), results in R11 (or R12..R15 for CPUID), status in R10. So
 * every port access, MMIO register, hypervisor CPUID leaf, MSR and idle wait of
 * the kernel runs through the TD backend of the paravirtual I/O layer.
 */
static void sim_vmm(void *ctx, struct tdcall_regs *r)
{
	const struct pvio_ops *n = &pvio_native;
	unsigned int size = (unsigned int)r->r12;
	bool write = r->r13 == 1;
	uint32_t cpuid[4];

	(void)ctx;
	r->r10 = TDVMCALL_SUCCESS;
	switch (r->r11) {
	case TDVMCALL_IO:
		if ((size != 1 && size != 2 && size != 4) || r->r13 > 1 || r->r14 > 0xffff) {
			r->r10 = TDVMCALL_INVALID_OPERAND;
		} else if (write) {
			n->io_out(n->ctx, (uint16_t)r->r14, size, (uint32_t)r->r15);
		} else {
			r->r11 = n->io_in(n->ctx, (uint16_t)r->r14, size);
		}
		break;
	case TDVMCALL_MMIO:
		/* A VMM emulates MMIO only at a shared GPA: a private one is the
		 * guest's own memory. */
		if ((size != 1 && size != 2 && size != 4 && size != 8) || r->r13 > 1 ||
		    !(r->r14 & cc_tdx_td()->shared_bit)) {
			r->r10 = TDVMCALL_INVALID_OPERAND;
		} else if (write) {
			n->mmio_write(n->ctx, r->r14 & ~cc_tdx_td()->shared_bit, size, r->r15);
		} else {
			r->r11 = n->mmio_read(n->ctx, r->r14 & ~cc_tdx_td()->shared_bit, size);
		}
		break;
	case TDVMCALL_CPUID:
		n->cpuid(n->ctx, (uint32_t)r->r12, (uint32_t)r->r13, cpuid);
		r->r12 = cpuid[0];
		r->r13 = cpuid[1];
		r->r14 = cpuid[2];
		r->r15 = cpuid[3];
		break;
	case TDVMCALL_RDMSR:
		r->r11 = n->rdmsr(n->ctx, (uint32_t)r->r12);
		break;
	case TDVMCALL_WRMSR:
		n->wrmsr(n->ctx, (uint32_t)r->r12, r->r13);
		break;
	case TDVMCALL_HLT:
		n->halt(n->ctx, r->r12 == 0);
		break;
	case TDVMCALL_REPORT_FATAL_ERROR:
		/* The VMM ends the TD: this vCPU never runs again. */
		for (;;)
			n->halt(n->ctx, false);
	default:
		r->r10 = TDVMCALL_INVALID_OPERAND;
		break;
	}
}

void cc_sim_tdx_stage_ve(uint32_t exit_reason, uint64_t exit_qual, uint64_t gpa)
{
	model.ve.exit_reason = exit_reason;
	model.ve.exit_qual = exit_qual;
	model.ve.gpa = gpa;
	model.ve.gla = gpa;
	model.ve.instr_len = 1;
}

int cc_sim_tdx_init(uint64_t ram_top, uint8_t *state, uint8_t *pte,
		    const struct tdx_model_faults *faults, char *why, size_t why_len)
{
	struct cc_pt_ops pt = { .set_pte_shared = sim_set_pte_shared,
				.flush_tlb = sim_flush_tlb,
				/* The model keeps no cache; the flush is the real one. */
				.flush_cache = tee_insn_native.flush_cache,
				.ctx = tee_insn_native.ctx };

	tdx_model_init(&model, 0, ram_top / TDX_PAGE_4K, state, pte);
	model.violation = sim_violation;
	model.vmm = sim_vmm;
	tdx_model_insn(&model, &model_insn);
	model_insn.flush_cache = tee_insn_native.flush_cache;
	if (faults)
		armed_faults = *faults;
	return cc_tdx_start(&model_insn, &pt, "sim-tdx", why, why_len);
}

/* The kernel arms the faults on the bootstrap CPU between its DMA self-test and
 * its tasks, when no conversion runs. */
void cc_sim_tdx_arm_faults(void)
{
	model.faults = armed_faults;
	model.n_map = model.n_accept = 0;
}

void cc_sim_tdx_report(const char *when)
{
	char extra[200];

	snprintf(extra, sizeof(extra),
		 "model over %" PRIu64 " MiB, %lu VMCALLs to the VMM (%lu refused as KVM "
		 "refuses them), rule violations %lu",
		 model.npages >> 8, model.n_vmm_calls, model.n_msr_refused, model.violations);
	cc_tdx_report(when, extra);
}

/* ------------------------------------------------------------ the platform */

static void sim_tdx_boot_nothing(const struct cc_boot *b)
{
	(void)b;
}

static const struct mmu_encoding *sim_tdx_pt_encoding(void)
{
	return NULL; /* the software bit: under QEMU an address bit names other memory */
}

static void sim_tdx_after_mmu(void)
{
}

/* Unlike a real TD, started once the kernel's page tables are loaded; the
 * model covers all RAM the firmware reported, so that a conversion of any
 * page is checked. */
static void sim_tdx_start(const struct cc_boot *b)
{
	uint64_t ram_top = mem_range_ram_top(b->ranges, b->nranges);
	uint8_t *state = malloc(ram_top / 4096), *pte = malloc(ram_top / 4096);
	char why[160];

	if (!state || !pte ||
	    cc_sim_tdx_init(ram_top, state, pte, b->tdx_faults, why, sizeof(why))) {
		printf("cc: sim-tdx: %s\n", state && pte ? why : "no memory for the model");
		exit(SLUICE_EXIT_BOOT);
	}
	cc_sim_tdx_report("at boot");
}

/* The simulated firmware plays TDVF's part: APs parked in a loop polling the
 * MADT's wakeup mailbox (sim_ap_firmware.c). */
static void sim_tdx_ap_setup(const struct cc_boot *b)
{
	sim_ap_firmware_td(b->tdx_ap_silent, b->tdx_ap_late);
}

const struct cc_platform_ops cc_platform_sim_tdx = {
	.name = "sim-tdx",
	.id = CC_PLATFORM_SIM_TDX,
	.hardware = CC_NONE,
	.early = sim_tdx_boot_nothing,
	.pt_encoding = sim_tdx_pt_encoding,
	.after_mmu = sim_tdx_after_mmu,
	.start = sim_tdx_start,
	.ap_setup = sim_tdx_ap_setup,
	.stats = cc_tdx_stats,
	.report = cc_sim_tdx_report,
	.guest = "sim-tdx",
	.boot_firmware = CC_FW_SIM_TDVF,
	.protocol = "TDX",
	.convert = cc_tdx_convert,
	.arm_faults = cc_sim_tdx_arm_faults,
	.stage_ve = cc_sim_tdx_stage_ve,
};
