/* SPDX-License-Identifier: MIT */
/*
 * cc_sim_snp.c - the simulated SEV-SNP guest (see cc_sim_snp.h).
 */
#include "arch/x86_64/cc/cc_sim_snp.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "arch/x86_64/cc/cc_snp.h"
#include "arch/x86_64/cpu/descriptors.h"
#include "arch/x86_64/cc/pvio.h"
#include "arch/x86_64/cpu/qemu_exit.h"
#include "arch/x86_64/smp/smp.h"

static struct snp_model model;
static struct tee_insn_ops model_insn;
static struct snp_model_faults armed_faults;
static bool sim_ap_silent;
static unsigned long vmgexits; /* NAE events the simulated hypervisor carried out */

/* The model is told what the kernel's mappings now say (in its terms: private
 * or not), and checks its rules for the range as every CPU will see it once the
 * TLB generation moved on. */
static void sim_note_ptes(void *ctx, uint64_t gpa, uint64_t len, bool shared)
{
	(void)ctx;
	snp_model_note_ptes(&model, gpa, len, !shared);
}

static void sim_note_flush(void *ctx, uint64_t gpa, uint64_t len)
{
	(void)ctx;
	snp_model_note_flush(&model, gpa, len);
}

static const struct cc_observer sim_observer = { sim_note_ptes, sim_note_flush, NULL };

static unsigned int sim_cpu(void *ctx)
{
	(void)ctx;
	return smp_cpu_id();
}

static void sim_violation(void *ctx, const char *rule, uint64_t gpa)
{
	(void)ctx;
	cc_glue_model_violation("snp-model", "the SNP protocol broke a rule of the simulated guest",
				rule, gpa);
}

/* The hypervisor's own console and exit: native, not through the guest. */
static void hv_puts(const char *s)
{
	const struct pvio_ops *n = &pvio_native;

	for (; *s; s++)
		n->io_out(n->ctx, 0x3f8, 1, (uint8_t)*s);
}

/* A termination request (GHCB MSR protocol 0x100): the hypervisor ends the
 * guest. The kernel's own fatal path wrote its status to the exit port before;
 * a guest that asks without (a refusal) ends with "boot could not complete". */
static void sim_terminate(void *ctx, unsigned int set, unsigned int code)
{
	char line[96];
	const struct pvio_ops *n = &pvio_native;

	(void)ctx;
	snprintf(line, sizeof(line),
		 "sim-snp: the guest asked to be terminated (reason set %u, code %u)\n", set, code);
	hv_puts(line);
	n->io_out(n->ctx, QEMU_EXIT_PORT, 4, QEMU_EXIT_BASE + SLUICE_EXIT_BOOT);
	for (;;)
		n->halt(n->ctx, false);
}

static uint64_t size_mask(unsigned int size)
{
	return size >= 8 ? ~UINT64_C(0) : (UINT64_C(1) << (8 * size)) - 1;
}

static void vmm_error(struct ghcb *g, uint64_t err)
{
	g->sw_exit_info_1 = GHCB_RESULT_ERROR;
	g->sw_exit_info_2 = err;
}

/*
 * The hypervisor's side of each NAE event (GHCB spec 56421, "NAE events"): QEMU
 * is the hypervisor here, so for each request the simulated one does what KVM
 * does for an SNP guest: the instruction, natively, with the inputs the GHCB
 * carries (IOIO: SW_EXITINFO1 = port << 16 | size and direction bits, RAX;
 * MMIO: SW_EXITINFO1 = GPA, SW_EXITINFO2 = size, the data at SW_SCRATCH in the
 * shared buffer; MSR: RCX, SW_EXITINFO1 = 0 read / 1 write, RAX:RDX), the
 * outputs marked valid. The model refused before any event KVM's
 * sev_es_validate_vmgexit() refuses (rule R9 of snp_model.h: HLT among them,
 * an automatic exit the guest executes natively), and every input it needs
 * not marked valid.
 */
static void sim_vmm(void *ctx, struct ghcb *g)
{
	const struct pvio_ops *n = &pvio_native;
	uint64_t code = g->sw_exit_code, info1 = g->sw_exit_info_1, info2 = g->sw_exit_info_2;
	uint32_t r[4];

	(void)ctx;
	__atomic_fetch_add(&vmgexits, 1, __ATOMIC_RELAXED);
	g->sw_exit_info_1 = GHCB_RESULT_OK;
	g->sw_exit_info_2 = 0;
	switch (code) {
	case SVM_EXIT_IOIO: {
		uint16_t port = (uint16_t)(info1 >> 16);
		unsigned int size = (info1 & 0x10) ? 1 :
				    (info1 & 0x20) ? 2 :
				    (info1 & 0x40) ? 4 :
						     0;

		if (!size) {
			vmm_error(g, GHCB_ERR_INVALID_INPUT);
		} else if (info1 & 1) {
			GHCB_SET(g, rax, n->io_in(n->ctx, port, size));
		} else {
			n->io_out(n->ctx, port, size, (uint32_t)(g->rax & size_mask(size)));
		}
		break;
	}
	case SVM_VMGEXIT_MMIO_READ:
	case SVM_VMGEXIT_MMIO_WRITE: {
		uint64_t off = g->sw_scratch - (uint64_t)(uintptr_t)g, v = 0;

		if ((info2 != 1 && info2 != 2 && info2 != 4 && info2 != 8) ||
		    !ghcb_is_valid(g, GHCB_OFF(sw_scratch)) || off < GHCB_OFF(shared_buffer) ||
		    off + info2 > GHCB_OFF(shared_buffer) + GHCB_SHARED_BUF_SIZE ||
		    (info1 & cc_snp_guest()->cbit)) {
			vmm_error(g, GHCB_ERR_INVALID_SCRATCH_AREA);
		} else if (code == SVM_VMGEXIT_MMIO_READ) {
			v = n->mmio_read(n->ctx, info1, (unsigned int)info2);
			memcpy((uint8_t *)g + off, &v, info2);
		} else {
			memcpy(&v, (uint8_t *)g + off, info2);
			n->mmio_write(n->ctx, info1, (unsigned int)info2, v);
		}
		break;
	}
	case SVM_EXIT_MSR: {
		uint32_t msr = (uint32_t)g->rcx;

		if (!ghcb_is_valid(g, GHCB_OFF(rcx)) || info1 > 1) {
			vmm_error(g, GHCB_ERR_MISSING_INPUT);
		} else if (info1 == 0) {
			/* SEV_STATUS is the hardware's answer, not QEMU's (it has none). */
			uint64_t v = msr == MSR_SEV_STATUS ? CC_SIM_SNP_SEV_STATUS :
							     n->rdmsr(n->ctx, msr);

			GHCB_SET(g, rax, v & 0xffffffffu);
			GHCB_SET(g, rdx, v >> 32);
		} else if (!ghcb_is_valid(g, GHCB_OFF(rax)) || !ghcb_is_valid(g, GHCB_OFF(rdx))) {
			vmm_error(g, GHCB_ERR_MISSING_INPUT);
		} else if (msr != MSR_SEV_STATUS) {
			n->wrmsr(n->ctx, msr, (g->rdx << 32) | (g->rax & 0xffffffffu));
		}
		break;
	}
	case SVM_EXIT_CPUID:
		/* Not asked by this kernel (the CPUID page answers), answered as a
		 * hypervisor would. */
		if (!ghcb_is_valid(g, GHCB_OFF(rax)) || !ghcb_is_valid(g, GHCB_OFF(rcx))) {
			vmm_error(g, GHCB_ERR_MISSING_INPUT);
			break;
		}
		n->cpuid(n->ctx, (uint32_t)g->rax, (uint32_t)g->rcx, r);
		GHCB_SET(g, rax, r[0]);
		GHCB_SET(g, rbx, r[1]);
		GHCB_SET(g, rcx, r[2]);
		GHCB_SET(g, rdx, r[3]);
		break;
	default:
		vmm_error(g, GHCB_ERR_INVALID_EVENT);
		break;
	}
}

/*
 * AP creation, the hypervisor's side: the VMSA passed R7 in the model (private,
 * validated, RMPADJUSTed into a VMSA); the "VMRUN" is the release of the AP
 * parked for this APIC ID into the VMSA's state. With ap_silent the request is
 * accepted and the AP never runs.
 */
static int sim_ap_create(void *ctx, uint32_t apic_id, unsigned int op, uint64_t vmsa_gpa,
			 uint64_t sev_features)
{
	const struct snp_vmsa *v = (const struct snp_vmsa *)(uintptr_t)vmsa_gpa;

	(void)ctx;
	__atomic_fetch_add(&vmgexits, 1, __ATOMIC_RELAXED);
	if (op == SNP_AP_DESTROY) {
		smp_sim_destroy(apic_id);
		return 0;
	}
	/* What the hardware checks at VMRUN: SNP active in the VMSA's features,
	 * the same as the request's, long mode, a 64-bit code segment. */
	if (!(v->sev_features & 1) || v->sev_features != sev_features ||
	    !(v->efer & (UINT64_C(1) << 10)) || !(v->cs.attrib & 0x200) || !v->rip || !v->rsp)
		return -1;
	if (sim_ap_silent)
		return 0;
	return smp_sim_release(apic_id, v->rip, v->rsp, v->rdi, v->gs.base, v->mxcsr);
}

/* ------------------------------------------------------------ the CPUID page */

static bool cpuid_add(struct snp_cpuid_page *page, uint32_t leaf, uint32_t sub)
{
	struct snp_cpuid_fn *f;
	uint32_t r[4];

	if (page->count >= SNP_CPUID_COUNT_MAX)
		return false;
	pvio_native.cpuid(pvio_native.ctx, leaf, sub, r);
	f = &page->fn[page->count++];
	memset(f, 0, sizeof(*f));
	f->eax_in = leaf;
	f->ecx_in = sub;
	f->xcr0_in = 1;
	f->eax = r[0];
	f->ebx = r[1];
	f->ecx = r[2];
	f->edx = r[3];
	if (leaf == 0x8000001Fu) {
		/* What an SNP guest's firmware-checked page says: SEV (bit 1),
		 * SEV-ES (3), SEV-SNP (4); the C-bit position in EBX[5:0]. */
		f->eax = (1u << 1) | (1u << 3) | (1u << 4);
		f->ebx = CC_SIM_SNP_CBIT;
		f->ecx = 0;
		f->edx = 0;
	}
	return true;
}

/*
 * The simulated firmware's CPUID page: the leaves this kernel reads, from the
 * native CPUID (as the AMD secure processor checks the hypervisor's values
 * against the hardware), sub-leaves 0 and 1 of the indexed ones, at most 64
 * entries (SNP_CPUID_COUNT_MAX, as the real page).
 */
void cc_sim_snp_build_cpuid_page(struct snp_cpuid_page *page)
{
	static const uint32_t indexed[] = { 0x4, 0x7, 0xb, 0xd, 0xf, 0x10, 0x14, 0x17, 0x18, 0x1f };
	uint32_t r[4], max, ext;

	memset(page, 0, sizeof(*page));
	pvio_native.cpuid(pvio_native.ctx, 0, 0, r);
	max = r[0] < 0x1f ? r[0] : 0x1f;
	pvio_native.cpuid(pvio_native.ctx, 0x80000000u, 0, r);
	ext = r[0] < 0x80000008u ? r[0] : 0x80000008u;
	for (uint32_t l = 0x80000000u; l <= ext; l++)
		cpuid_add(page, l, 0);
	cpuid_add(page, 0x8000001Fu, 0);
	cpuid_add(page, 0x40000000u, 0);
	cpuid_add(page, 0x40000001u, 0);
	for (uint32_t l = 0; l <= max; l++) {
		bool idx = false;

		for (unsigned int i = 0; i < sizeof(indexed) / sizeof(indexed[0]); i++)
			idx = idx || indexed[i] == l;
		cpuid_add(page, l, 0);
		if (idx)
			cpuid_add(page, l, 1);
	}
}

/* The simulated hypervisor's CPUID for the calling vCPU (the MSR protocol's
 * request): QEMU's, natively, as KVM answers with kvm_cpuid(). */
static void sim_hv_cpuid(void *ctx, uint32_t leaf, uint32_t sub, uint32_t r[4])
{
	(void)ctx;
	pvio_native.cpuid(pvio_native.ctx, leaf, sub, r);
}

void cc_sim_snp_firmware(uint64_t ram_top, uint8_t *page, const struct snp_model_faults *faults,
			 bool ap_silent, unsigned int vmpl, uint64_t fw_ghcb_gpa)
{
	snp_model_init(&model, 0, ram_top / 4096, page);
	model.violation = sim_violation;
	model.cpu = sim_cpu;
	model.vmm = sim_vmm;
	model.ap_create = sim_ap_create;
	model.on_terminate = sim_terminate;
	model.hv_cpuid = sim_hv_cpuid;
	model.vmpl = vmpl;
	snp_model_insn(&model, &model_insn);
	/* The model keeps no cache; the flush of a conversion is the real one. */
	model_insn.flush_cache = tee_insn_native.flush_cache;
	if (faults)
		armed_faults = *faults;
	/* Faults the protocol absorbs (early returns, a split 2 MiB entry) start
	 * now, so that they also hit the largest conversions, the DMA layer's
	 * set-up (after it only single 2 MiB chunks convert: one PSC entry, no
	 * room for an early return). Faults with a failure contract wait for
	 * cc_sim_snp_arm_faults(). */
	model.faults.psc_early_every = armed_faults.psc_early_every;
	model.faults.pval_mismatch_every = armed_faults.pval_mismatch_every;
	sim_ap_silent = ap_silent;
	/* What OVMF did before the OS ran: the bootstrap CPU's GHCB shared and
	 * registered, the GHCB MSR left holding its GPA. */
	if (fw_ghcb_gpa)
		snp_model_firmware_ghcb(&model, 0, fw_ghcb_gpa);
}

const struct tee_insn_ops *cc_sim_snp_insn(void)
{
	return &model_insn;
}

const struct cc_observer *cc_sim_snp_observer(void)
{
	return &sim_observer;
}

void cc_sim_snp_hv_puts(const char *s)
{
	hv_puts(s);
}

/* The model's counters before arming (the faults count from zero there). */
static unsigned long psc_before, psc_msr_before, pval_before;

void cc_sim_snp_arm_faults(void)
{
	psc_before += model.n_psc;
	psc_msr_before += model.n_psc_msr;
	pval_before += model.n_pval;
	model.faults = armed_faults;
	model.n_psc = model.n_psc_msr = model.n_pval = model.n_pval_2m = 0;
}

/* The frame the hardware pushes for an exception with an error code, on the
 * vector's IST stack (SDM vol. 3 6.14.2; APM vol. 2 8.9.3): SS, RSP, RFLAGS,
 * CS, RIP, error code; then the IDT's handler. */
void cc_sim_snp_raise_vc(uint64_t exit_code)
{
	uint64_t ist = gdt_vc_stack_top(smp_cpu_id());

	__asm__ volatile("cli\n\t"
			 "mov %%rsp, %%rax\n\t"
			 "mov %0, %%rsp\n\t"
			 "pushq %3\n\t"
			 "pushq %%rax\n\t"
			 "pushfq\n\t"
			 "pushq %4\n\t"
			 "leaq 1f(%%rip), %%rax\n\t"
			 "pushq %%rax\n\t"
			 "pushq %1\n\t"
			 "jmp *%2\n"
			 "1:"
			 :
			 : "r"(ist), "r"(exit_code), "r"(idt_stub(29)), "i"(GDT_KERNEL_DATA),
			   "i"(GDT_KERNEL_CODE)
			 : "rax", "memory");
	__builtin_unreachable();
}

void cc_sim_snp_report(const char *when)
{
	char extra[260];

	snprintf(extra, sizeof(extra),
		 "model over %" PRIu64 " MiB, %lu VMGEXITs to the simulated hypervisor "
		 "(%lu PSC, %lu MSR-protocol PSC, %lu refused as KVM refuses them), "
		 "%lu PVALIDATE, %lu RMPADJUST, rule violations %lu",
		 model.npages >> 8,
		 vmgexits + psc_before + model.n_psc + psc_msr_before + model.n_psc_msr,
		 psc_before + model.n_psc, psc_msr_before + model.n_psc_msr, model.n_refused,
		 pval_before + model.n_pval, model.n_rmpadjust, model.violations);
	cc_snp_report(when, extra);
}
