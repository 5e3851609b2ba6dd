/* SPDX-License-Identifier: MIT */
/*
 * pvio_snp.c - paravirtual I/O in an SEV-SNP guest (see pvio_snp.h). Inputs and
 * outputs per NAE event as the GHCB specification lists them, and as Linux's
 * #VC handlers fill them (arch/x86/coco/sev/vc-shared.c vc_ioio_exitinfo(),
 * vc_handle_ioio(), vc_handle_mmio(), __vc_handle_msr(); EDK2
 * OvmfPkg/Library/CcExitLib/CcExitVcHandler.c).
 */
#include "arch/x86_64/cc/pvio_snp.h"

#include <string.h>

#include "arch/x86_64/cpu/qemu_exit.h"

/* IOIO SW_EXITINFO1 (APM vol. 2, IOIO intercept information). */
#define IOIO_TYPE_IN (UINT64_C(1) << 0)
#define IOIO_DATA_8 (UINT64_C(1) << 4)
#define IOIO_DATA_16 (UINT64_C(1) << 5)
#define IOIO_DATA_32 (UINT64_C(1) << 6)
#define IOIO_ADDR_64 (UINT64_C(1) << 9) /* the address size of IN/OUT in long mode */

static struct pvio_snp *ps(void *ctx)
{
	return ctx;
}

static uint64_t size_mask(unsigned int size)
{
	return size >= 8 ? ~UINT64_C(0) : (UINT64_C(1) << (8 * size)) - 1;
}

/* The calling CPU's GHCB, invalidated for a new request, or NULL (counted) if
 * it has none; every non-NULL one is given back with snp_ghcb_put(). */
static struct ghcb *snp_ghcb(struct pvio_snp *p, uint64_t *gpa)
{
	struct ghcb *g = snp_ghcb_get(p->snp, gpa);

	if (!g) {
		p->errors++;
		p->no_ghcb++;
	}
	return g;
}

static bool snp_exit(struct pvio_snp *p, struct ghcb *g, uint64_t gpa, uint64_t code,
		     uint64_t info1, uint64_t info2)
{
	if (ghcb_call(p->snp->insn, g, gpa, code, info1, info2) != GHCB_RESULT_OK) {
		p->errors++;
		return false;
	}
	return true;
}

static uint64_t ioio_info(uint16_t port, unsigned int size, bool in)
{
	return ((uint64_t)port << 16) | IOIO_ADDR_64 | (in ? IOIO_TYPE_IN : 0) |
	       (size == 1 ? IOIO_DATA_8 :
		size == 2 ? IOIO_DATA_16 :
			    IOIO_DATA_32);
}

static uint32_t snp_io_in(void *ctx, uint16_t port, unsigned int size)
{
	uint64_t gpa;
	struct ghcb *g = snp_ghcb(ps(ctx), &gpa);
	uint32_t v = (uint32_t)size_mask(size);

	if (!g)
		return v;
	GHCB_SET(g, rax, 0);
	if (snp_exit(ps(ctx), g, gpa, SVM_EXIT_IOIO, ioio_info(port, size, true), 0)) {
		/* The answer counts only if the hypervisor marked it valid. */
		if (!ghcb_is_valid(g, GHCB_OFF(rax)))
			ps(ctx)->errors++;
		else
			v = (uint32_t)(g->rax & size_mask(size));
	}
	snp_ghcb_put(ps(ctx)->snp);
	return v;
}

static void snp_io_out(void *ctx, uint16_t port, unsigned int size, uint32_t v)
{
	uint64_t gpa;
	struct ghcb *g = snp_ghcb(ps(ctx), &gpa);

	if (!g)
		return;
	GHCB_SET(g, rax, v & size_mask(size));
	snp_exit(ps(ctx), g, gpa, SVM_EXIT_IOIO, ioio_info(port, size, false), 0);
	snp_ghcb_put(ps(ctx)->snp);
}

/* MMIO: SW_EXITINFO1 = the GPA (MMIO is shared: no C-bit), SW_EXITINFO2 = the
 * size, SW_SCRATCH = the data's GPA, here the GHCB's shared buffer. */
static uint64_t snp_mmio_read(void *ctx, uint64_t pa, unsigned int size)
{
	uint64_t gpa;
	struct ghcb *g = snp_ghcb(ps(ctx), &gpa);
	uint64_t v = 0;

	if (!g)
		return size_mask(size);
	memset(g->shared_buffer, 0, 8);
	GHCB_SET(g, sw_scratch, gpa + GHCB_OFF(shared_buffer));
	if (snp_exit(ps(ctx), g, gpa, SVM_VMGEXIT_MMIO_READ, pa, size))
		memcpy(&v, g->shared_buffer, size > 8 ? 8 : size);
	else
		v = ~UINT64_C(0);
	snp_ghcb_put(ps(ctx)->snp);
	return v & size_mask(size);
}

static void snp_mmio_write(void *ctx, uint64_t pa, unsigned int size, uint64_t v)
{
	uint64_t gpa;
	struct ghcb *g = snp_ghcb(ps(ctx), &gpa);

	if (!g)
		return;
	memcpy(g->shared_buffer, &v, size > 8 ? 8 : size);
	GHCB_SET(g, sw_scratch, gpa + GHCB_OFF(shared_buffer));
	snp_exit(ps(ctx), g, gpa, SVM_VMGEXIT_MMIO_WRITE, pa, size);
	snp_ghcb_put(ps(ctx)->snp);
}

/* Leaves whose ECX selects a sub-leaf (Intel SDM / AMD APM CPUID; the set
 * Linux snp_cpuid_get_validated_func() compares ecx_in for). */
static bool cpuid_indexed(uint32_t leaf)
{
	switch (leaf) {
	case 0x4:
	case 0x7:
	case 0xb:
	case 0xd:
	case 0xf:
	case 0x10:
	case 0x12:
	case 0x14:
	case 0x17:
	case 0x18:
	case 0x1d:
	case 0x1e:
	case 0x1f:
	case 0x24:
	case 0x8000001d:
	case 0x80000020:
	case 0x80000026:
		return true;
	default:
		return false;
	}
}

/* Leaf 0xD sub-leaves 0 and 1 exist in the page once per XCR0/XSS they were
 * computed for; only the base one is taken (Linux
 * snp_cpuid_get_validated_func()), and its sizes are recomputed for the
 * features this CPU has enabled (snp_cpuid_calc_xsave_size(), below). */
static bool cpuid_entry_usable(const struct snp_cpuid_fn *f)
{
	if (f->eax_in == 0xd && (f->ecx_in == 0 || f->ecx_in == 1))
		return (f->xcr0_in == 1 || f->xcr0_in == 3) && !f->xss_in;
	return true;
}

bool pvio_snp_cpuid_lookup(const struct snp_cpuid_page *page, uint32_t leaf, uint32_t sub,
			   uint32_t r[4])
{
	uint32_t n = page ? page->count : 0;

	memset(r, 0, 4 * sizeof(r[0]));
	if (n > SNP_CPUID_COUNT_MAX)
		n = SNP_CPUID_COUNT_MAX; /* a bad count reads no further than the page */
	for (uint32_t i = 0; i < n; i++) {
		const struct snp_cpuid_fn *f = &page->fn[i];

		if (f->eax_in != leaf || (cpuid_indexed(leaf) && f->ecx_in != sub) ||
		    !cpuid_entry_usable(f))
			continue;
		r[0] = f->eax;
		r[1] = f->ebx;
		r[2] = f->ecx;
		r[3] = f->edx;
		return true;
	}
	return false;
}

/*
 * The XSAVE area's size for the features @xfeatures, from the page's leaf 0xD
 * sub-leaves 2..63 (offset in EBX, size in EAX), as Linux
 * snp_cpuid_calc_xsave_size() (torvalds/linux arch/x86/kernel/sev-shared.c)
 * computes it: the legacy area and header (0x240, APM vol. 3 E.3.8) plus each
 * enabled component once (the first entry of a sub-leaf counts), packed when
 * @compacted, else up to the end of the highest one. 0 if an enabled
 * component has no entry (the page and XCR0/XSS disagree, which Linux treats
 * as fatal), or if the sizes overflow (a hostile page).
 */
static uint32_t cpuid_xsave_size(const struct snp_cpuid_page *page, uint64_t xfeatures,
				 bool compacted)
{
	uint32_t n = page->count > SNP_CPUID_COUNT_MAX ? SNP_CPUID_COUNT_MAX : page->count;
	uint64_t found = 0, size = 0x240;

	for (uint32_t i = 0; i < n; i++) {
		const struct snp_cpuid_fn *f = &page->fn[i];
		uint64_t bit;

		if (f->eax_in != 0xd || f->ecx_in <= 1 || f->ecx_in >= 64)
			continue;
		bit = UINT64_C(1) << f->ecx_in;
		if (!(xfeatures & bit) || (found & bit))
			continue;
		found |= bit;
		if (compacted)
			size += f->eax;
		else if ((uint64_t)f->eax + f->ebx > size)
			size = (uint64_t)f->eax + f->ebx;
	}
	if (found != (xfeatures & ~UINT64_C(3)) || size > UINT32_MAX)
		return 0;
	return (uint32_t)size;
}

#define CR4_OSXSAVE (UINT64_C(1) << 18)
#define CR4_PKE (UINT64_C(1) << 22)

/* The hypervisor's registers @mask (bit per register) of leaf @leaf, sub-leaf
 * 0, through the MSR protocol; false if one request failed. */
static bool cpuid_hv(const struct snp_cpuid_cpu *cpu, uint32_t leaf, unsigned int mask,
		     uint32_t hv[4])
{
	for (unsigned int reg = 0; reg < 4; reg++)
		if ((mask & (1u << reg)) && cpu->hv_cpuid(cpu->ctx, leaf, reg, &hv[reg]))
			return false;
	return true;
}

int pvio_snp_cpuid_postprocess(const struct snp_cpuid_page *page, uint32_t leaf, uint32_t sub,
			       const struct snp_cpuid_cpu *cpu, uint32_t r[4])
{
	uint32_t hv[4] = { 0, 0, 0, 0 };

	switch (leaf) {
	case 0x1:
		if (!cpuid_hv(cpu, leaf, 0xa, hv))
			return GHCB_TERM_SLUICE_CPUID_HV;
		/* The initial APIC ID and the APIC-enabled bit are the running
		 * vCPU's: the hypervisor's. */
		r[1] = (hv[1] & 0xff000000u) | (r[1] & 0x00ffffffu);
		r[3] = (hv[3] & (1u << 9)) | (r[3] & ~(1u << 9));
		/* OSXSAVE as this CPU's CR4 has it (Linux only sets it; a bit the
		 * page sets while CR4 lacks it is cleared here, as the hardware
		 * reports it). */
		r[2] &= ~(1u << 27);
		if (cpu->cr4 & CR4_OSXSAVE)
			r[2] |= 1u << 27;
		break;
	case 0x7:
		/* OSPKE, leaf 7 sub-leaf 0 ECX[4] (Linux applies it to every
		 * sub-leaf; only sub-leaf 0 defines the bit). */
		if (sub == 0) {
			r[2] &= ~(1u << 4);
			if (cpu->cr4 & CR4_PKE)
				r[2] |= 1u << 4;
		}
		break;
	case 0xb:
		/* The x2APIC ID of the running vCPU, whatever the sub-leaf:
		 * the MSR protocol asks sub-leaf 0, as Linux does. */
		if (!cpuid_hv(cpu, leaf, 0x8, hv))
			return GHCB_TERM_SLUICE_CPUID_HV;
		r[3] = hv[3];
		break;
	case 0xd: {
		uint64_t xcr0 = 1, xss = 0;
		bool compacted = false;
		uint32_t size;

		if (sub != 0 && sub != 1)
			break;
		if (cpu->cr4 & CR4_OSXSAVE)
			xcr0 = cpu->read_xcr0(cpu->ctx);
		if (sub == 1) {
			if (r[0] & (1u << 3)) /* XSAVES: the supervisor states too */
				xss = cpu->read_xss(cpu->ctx);
			/* Without XSAVEC or XSAVES the compacted size is undefined
			 * (KVM says 0): Linux refuses, so does this. */
			if (!(r[0] & ((1u << 1) | (1u << 3))))
				return GHCB_TERM_SLUICE_CPUID;
			compacted = true;
		}
		size = cpuid_xsave_size(page, xcr0 | xss, compacted);
		if (!size)
			return GHCB_TERM_SLUICE_CPUID;
		r[1] = size;
		break;
	}
	case 0x8000001e:
		/* Extended APIC ID, compute unit and node ID of the running vCPU. */
		if (!cpuid_hv(cpu, leaf, 0x7, hv))
			return GHCB_TERM_SLUICE_CPUID_HV;
		r[0] = hv[0];
		r[1] = (r[1] & ~0xffu) | (hv[1] & 0xffu);
		r[2] = (r[2] & ~0xffu) | (hv[2] & 0xffu);
		break;
	default:
		/* Leaves 0x4 and 0x8000001D (cache topology, indexed) are used as
		 * the page has them, as Linux does: the MSR protocol cannot ask a
		 * sub-leaf (__sev_cpuid_hv_msr() refuses one). */
		break;
	}
	return 0;
}

/* The top of a CPUID range as the page's base leaf of it says (Linux
 * setup_cpuid_table(): cpuid_std_range_max and the others). */
static uint32_t cpuid_range_max(const struct snp_cpuid_page *page, uint32_t base)
{
	uint32_t r[4];

	return pvio_snp_cpuid_lookup(page, base, 0, r) ? r[0] : 0;
}

int pvio_snp_cpuid(const struct snp_cpuid_page *page, uint32_t leaf, uint32_t sub,
		   const struct snp_cpuid_cpu *cpu, uint32_t r[4], bool *missed)
{
	*missed = false;
	if (pvio_snp_cpuid_lookup(page, leaf, sub, r))
		return pvio_snp_cpuid_postprocess(page, leaf, sub, cpu, r);
	*missed = true;
	/* A leaf the page leaves out is zeros; inside a range the page
	 * declares, post-processed from zeros (the hypervisor may omit all-zero
	 * entries), outside it returned as is (Linux snp_cpuid()). */
	if (!page || !(leaf <= cpuid_range_max(page, 0) ||
		       (leaf >= 0x40000000u && leaf <= cpuid_range_max(page, 0x40000000u)) ||
		       (leaf >= 0x80000000u && leaf <= cpuid_range_max(page, 0x80000000u))))
		return 0;
	return pvio_snp_cpuid_postprocess(page, leaf, sub, cpu, r);
}

static uint64_t cpu_read_xcr0(void *ctx)
{
	return ps(ctx)->read_xcr0();
}

static uint64_t cpu_read_xss(void *ctx)
{
	return ps(ctx)->read_xss();
}

static int cpu_hv_cpuid(void *ctx, uint32_t leaf, unsigned int reg, uint32_t *out)
{
	ps(ctx)->cpuid_hv_requests++;
	return ghcb_msr_cpuid(ps(ctx)->snp->insn, leaf, reg, out);
}

/*
 * Not the hypervisor's to answer: the checked page, post-processed for the
 * running CPU (the hypervisor's part through the MSR protocol, which needs no
 * GHCB). A page the post-processing cannot make consistent ends the guest, as
 * Linux terminates (snp_cpuid() failing in the #VC handler; GHCB_TERM_CPUID_HV
 * when the hypervisor does not answer): the termination request, and in a
 * host test, which returns from it, zeros.
 */
static void snp_cpuid(void *ctx, uint32_t leaf, uint32_t sub, uint32_t r[4])
{
	struct pvio_snp *p = ps(ctx);
	const struct snp_cpuid_cpu cpu = { p->read_cr4(), cpu_read_xcr0, cpu_read_xss, cpu_hv_cpuid,
					   p };
	bool missed;
	int code = pvio_snp_cpuid(p->cpuid, leaf, sub, &cpu, r, &missed);

	if (missed)
		p->cpuid_misses++;
	if (!code)
		return;
	p->cpuid_refused++;
	memset(r, 0, 4 * sizeof(r[0]));
	snp_terminate(p->snp, GHCB_TERM_SET_SLUICE, (unsigned int)code);
}

/*
 * MSRs an SEV-ES/SNP guest reads and writes itself: they never raise #VC, and
 * asking the hypervisor would be wrong (it cannot see or change the state the
 * hardware keeps in the encrypted VMSA). The segment bases are in SVM's
 * never-intercepted set; EFER's reads are not intercepted for an SEV-ES guest
 * and its writes are a trap (an automatic exit, not a #VC): Linux KVM
 * sev_es_init_vmcb() clears the EFER intercept, Linux guests use plain
 * RDMSR/WRMSR for them. The TD backend keeps the same four native.
 */
#define MSR_EFER 0xC0000080u
#define MSR_FS_BASE 0xC0000100u
#define MSR_GS_BASE 0xC0000101u
#define MSR_KERNEL_GS_BASE 0xC0000102u

static bool msr_is_guest_state(uint32_t msr)
{
	return msr == MSR_EFER || msr == MSR_FS_BASE || msr == MSR_GS_BASE ||
	       msr == MSR_KERNEL_GS_BASE;
}

static uint64_t snp_rdmsr(void *ctx, uint32_t msr)
{
	uint64_t gpa, v = 0;
	struct ghcb *g;

	/* SEV_STATUS is the hardware's, read-only and never the hypervisor's to
	 * answer (Linux reads it natively before it has any #VC handling,
	 * sme_enable()); the value snp_init() checked at kernel entry: no exit,
	 * so CPU detection needs no GHCB. */
	if (msr == MSR_SEV_STATUS)
		return ps(ctx)->snp->sev_status;
	if (msr_is_guest_state(msr))
		return ps(ctx)->native->rdmsr(ps(ctx)->native->ctx, msr);
	g = snp_ghcb(ps(ctx), &gpa);
	if (!g)
		return 0;
	GHCB_SET(g, rcx, msr);
	if (snp_exit(ps(ctx), g, gpa, SVM_EXIT_MSR, 0, 0)) {
		if (!ghcb_is_valid(g, GHCB_OFF(rax)) || !ghcb_is_valid(g, GHCB_OFF(rdx)))
			ps(ctx)->errors++;
		else
			v = (g->rdx << 32) | (g->rax & 0xffffffffu);
	}
	snp_ghcb_put(ps(ctx)->snp);
	return v;
}

static void snp_wrmsr(void *ctx, uint32_t msr, uint64_t v)
{
	uint64_t gpa;
	struct ghcb *g;

	if (msr_is_guest_state(msr)) {
		ps(ctx)->native->wrmsr(ps(ctx)->native->ctx, msr, v);
		return;
	}
	g = snp_ghcb(ps(ctx), &gpa);
	if (!g)
		return;
	GHCB_SET(g, rcx, msr);
	GHCB_SET(g, rax, v & 0xffffffffu);
	GHCB_SET(g, rdx, v >> 32);
	snp_exit(ps(ctx), g, gpa, SVM_EXIT_MSR, 1, 0);
	snp_ghcb_put(ps(ctx)->snp);
}

/*
 * HLT is not a NAE event: it is an automatic exit, which the hypervisor sees
 * without a GHCB, so the idle wait is the native "sti; hlt" (its one-
 * instruction shadow: a wake-up after the caller's check is still taken by
 * the HLT). KVM's sev_es_validate_vmgexit() has no case for SW_EXITCODE 0x78
 * (GHCB_ERR_INVALID_EVENT; older KVM stops the VM), EDK2's #VC handler
 * (OvmfPkg/Library/CcExitLib/CcExitVcHandler.c) and Linux's
 * (arch/x86/coco/sev/vc-handle.c) have none, and Linux idles with native
 * "sti; hlt" in an SNP guest.
 */
static void snp_halt(void *ctx, bool irqs)
{
	const struct pvio_ops *n = ps(ctx)->native;

	n->halt(n->ctx, irqs);
}

static void snp_fatal(void *ctx, int code, const char *msg)
{
	(void)msg; /* already on the console; the MSR protocol carries a code only */
	/* The run's status first (QEMU's isa-debug-exit, where there is one), then
	 * the GHCB's way to end the guest, which needs no GHCB page. */
	snp_io_out(ctx, QEMU_EXIT_PORT, 4, QEMU_EXIT_BASE + (uint32_t)code);
	for (;;) {
		snp_terminate(ps(ctx)->snp, GHCB_TERM_SET_SLUICE, GHCB_TERM_SLUICE_FATAL);
		snp_halt(ctx, false);
	}
}

static uint64_t native_cr4(void)
{
#ifdef SLUICE_HOST
	return 0; /* user mode: host tests set their own */
#else
	uint64_t v;

	__asm__ volatile("mov %%cr4, %0" : "=r"(v));
	return v;
#endif
}

/* XCR0, read only with CR4.OSXSAVE set (XGETBV raises #UD otherwise). */
static uint64_t native_xcr0(void)
{
#ifdef SLUICE_HOST
	return 1;
#else
	uint32_t lo, hi;

	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	return ((uint64_t)hi << 32) | lo;
#endif
}

/* IA32_XSS, read only when CPUID 0xD.1 says XSAVES; natively, as Linux
 * snp_cpuid_postprocess() does (KVM does not intercept it for a guest with
 * XSAVES). */
static uint64_t native_xss(void)
{
#ifdef SLUICE_HOST
	return 0;
#else
	uint32_t lo, hi;

	__asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(0xda0u));
	return ((uint64_t)hi << 32) | lo;
#endif
}

void pvio_snp_init(struct pvio_snp *p, struct snp *s, const struct snp_cpuid_page *cpuid)
{
	p->snp = s;
	p->cpuid = cpuid;
	p->errors = 0;
	p->cpuid_misses = 0;
	p->cpuid_refused = 0;
	p->cpuid_hv_requests = 0;
	p->no_ghcb = 0;
	p->native = &pvio_native;
	p->read_cr4 = native_cr4;
	p->read_xcr0 = native_xcr0;
	p->read_xss = native_xss;
	p->ops = (struct pvio_ops){
		.name = "snp",
		.io_in = snp_io_in,
		.io_out = snp_io_out,
		.mmio_read = snp_mmio_read,
		.mmio_write = snp_mmio_write,
		.cpuid = snp_cpuid,
		.rdmsr = snp_rdmsr,
		.wrmsr = snp_wrmsr,
		.halt = snp_halt,
		.fatal = snp_fatal,
		.ctx = p,
	};
}
