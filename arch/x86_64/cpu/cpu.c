/* SPDX-License-Identifier: MIT */
/*
 * cpu.c - CPU identification and confidential-computing detection.
 *
 * Detection follows the vendors' documented probes: TDX guests see CPUID leaf 0x21
 * with the signature "IntelTDX    "; SEV guests see MSR_AMD64_SEV (0xC0010131) with
 * bit 0 SEV, bit 1 SEV-ES, bit 2 SEV-SNP, and the C-bit position in CPUID
 * 0x8000001F EBX[5:0].
 */
#include "arch/x86_64/cpu/cpu.h"

#include <string.h>

#define MSR_AMD64_SEV 0xC0010131u
#define TDX_CPUID_LEAF 0x21u

static void cpu_copy_regs(char *dst, const uint32_t *regs, unsigned int n)
{
	memcpy(dst, regs, 4 * n);
	dst[4 * n] = '\0';
}

static enum cc_mode cpu_detect_cc(const struct cpu_probe *p, struct cpu_info *info,
				  uint32_t max_leaf, uint32_t max_ext)
{
	uint32_t r[4];

	if (max_leaf >= TDX_CPUID_LEAF) {
		char sig[13];

		p->cpuid(p->ctx, TDX_CPUID_LEAF, 0, r);
		/* The signature is in EBX, EDX, ECX order. */
		memcpy(sig, &r[1], 4);
		memcpy(sig + 4, &r[3], 4);
		memcpy(sig + 8, &r[2], 4);
		sig[12] = '\0';
		if (!strcmp(sig, "IntelTDX    "))
			return CC_TDX;
	}
	if (max_ext >= 0x8000001Fu) {
		p->cpuid(p->ctx, 0x8000001Fu, 0, r);
		/* EAX bit 1: SEV supported. Only then does the status MSR exist. */
		if (r[0] & (1u << 1)) {
			uint64_t status = p->rdmsr(p->ctx, MSR_AMD64_SEV);

			info->c_bit = r[1] & 0x3f;
			info->sev_status = status;
			if (status & (1u << 2))
				return CC_SEV_SNP;
			if (status & (1u << 1))
				return CC_SEV_ES;
			if (status & (1u << 0))
				return CC_SEV;
			info->c_bit = 0;
		}
	}
	return CC_NONE;
}

void cpu_identify(const struct cpu_probe *p, struct cpu_info *info)
{
	uint32_t r[4], max_leaf, max_ext, ecx1;
	uint64_t xcr0 = 0;

	memset(info, 0, sizeof(*info));
	p->cpuid(p->ctx, 0, 0, r);
	max_leaf = r[0];
	memcpy(info->vendor, &r[1], 4);
	memcpy(info->vendor + 4, &r[3], 4);
	memcpy(info->vendor + 8, &r[2], 4);
	info->vendor[12] = '\0';

	p->cpuid(p->ctx, 1, 0, r);
	info->stepping = r[0] & 0xf;
	info->model = (r[0] >> 4) & 0xf;
	info->family = (r[0] >> 8) & 0xf;
	if (info->family == 0xf)
		info->family += (r[0] >> 20) & 0xff;
	if (info->family >= 6)
		info->model |= ((r[0] >> 16) & 0xf) << 4;
	info->has_x2apic = r[2] & (1u << 21);
	ecx1 = r[2];
	if ((ecx1 & CPUID1_ECX_OSXSAVE) && p->xgetbv)
		xcr0 = p->xgetbv(p->ctx, 0);
	if (r[2] & (1u << 31)) {
		uint32_t h[4];

		p->cpuid(p->ctx, 0x40000000u, 0, h);
		cpu_copy_regs(info->hypervisor, &h[1], 3);
	}

	if (max_leaf >= 7) {
		p->cpuid(p->ctx, 7, 0, r);
		info->has_erms = r[1] & (1u << 9);
		info->has_fsrm = r[3] & (1u << 4);
		info->has_avx2 = cpu_avx2_usable(ecx1, r[1], xcr0);
	}

	p->cpuid(p->ctx, 0x80000000u, 0, r);
	max_ext = r[0];
	if (max_ext >= 0x80000001u) {
		p->cpuid(p->ctx, 0x80000001u, 0, r);
		info->has_1g_pages = r[3] & (1u << 26);
		info->has_nx = r[3] & (1u << 20);
	}
	if (max_ext >= 0x80000004u) {
		uint32_t b[12];

		for (unsigned int i = 0; i < 3; i++)
			p->cpuid(p->ctx, 0x80000002u + i, 0, &b[4 * i]);
		cpu_copy_regs(info->brand, b, 12);
	}
	if (max_ext >= 0x80000007u) {
		p->cpuid(p->ctx, 0x80000007u, 0, r);
		info->has_invariant_tsc = r[3] & (1u << 8);
	}
	info->phys_addr_bits = 36;
	if (max_ext >= 0x80000008u) {
		p->cpuid(p->ctx, 0x80000008u, 0, r);
		info->phys_addr_bits = r[0] & 0xff;
	}
	info->cc = cpu_detect_cc(p, info, max_leaf, max_ext);
}

/*
 * VMX and SVM have no XGETBV intercept (XSETBV has one): in a TD or an
 * SEV-ES/SNP guest the CPU answers, not the host. CPUID 1's OSXSAVE bit may
 * come from the host in a TD (a #VE the VMM answers), so the bit it mirrors
 * is read here from CR4 itself: a host that claims OSXSAVE cannot make this
 * raise #UD.
 */
static uint64_t cpu_probe_xgetbv(void *ctx, uint32_t xcr)
{
	(void)ctx;
	return (read_cr4() & CR4_OSXSAVE) ? xgetbv(xcr) : 0;
}

static void cpu_probe_cpuid(void *ctx, uint32_t leaf, uint32_t subleaf, uint32_t regs[4])
{
	(void)ctx;
	cpuid(leaf, subleaf, regs);
}

static uint64_t cpu_probe_rdmsr(void *ctx, uint32_t msr)
{
	(void)ctx;
	return rdmsr(msr);
}

void cpu_detect(struct cpu_info *info)
{
	static const struct cpu_probe hardware = { NULL, cpu_probe_cpuid, cpu_probe_rdmsr,
						   cpu_probe_xgetbv };

	cpu_identify(&hardware, info);
}

const char *cc_mode_name(enum cc_mode mode)
{
	switch (mode) {
	case CC_NONE:
		return "none";
	case CC_SEV:
		return "SEV";
	case CC_SEV_ES:
		return "SEV-ES";
	case CC_SEV_SNP:
		return "SEV-SNP";
	case CC_TDX:
		return "TDX";
	}
	return "unknown";
}
