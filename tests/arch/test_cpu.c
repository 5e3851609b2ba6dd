/* SPDX-License-Identifier: MIT */
/*
 * test_cpu.c - CPU identification and confidential-computing detection
 * (arch/x86_64/cpu/cpu.c) against CPUID/MSR tables of made-up processors.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "arch/x86_64/cpu/cpu.h"

#define MAX_LEAVES 32

struct fake_cpu {
	struct {
		uint32_t leaf, regs[4];
	} leaves[MAX_LEAVES];
	unsigned int n;
	uint64_t sev_status;
	unsigned int msr_reads;
	uint32_t last_msr;
	uint64_t xcr0;
	unsigned int xcr_reads;
};

static void fake_set(struct fake_cpu *c, uint32_t leaf, uint32_t a, uint32_t b, uint32_t cx,
		     uint32_t d)
{
	for (unsigned int i = 0; i < c->n; i++) {
		if (c->leaves[i].leaf == leaf) {
			c->leaves[i].regs[0] = a;
			c->leaves[i].regs[1] = b;
			c->leaves[i].regs[2] = cx;
			c->leaves[i].regs[3] = d;
			return;
		}
	}
	assert_true(c->n < MAX_LEAVES);
	c->leaves[c->n].leaf = leaf;
	c->leaves[c->n].regs[0] = a;
	c->leaves[c->n].regs[1] = b;
	c->leaves[c->n].regs[2] = cx;
	c->leaves[c->n].regs[3] = d;
	c->n++;
}

static uint32_t str4(const char *s)
{
	uint32_t v;

	memcpy(&v, s, 4);
	return v;
}

static void fake_cpuid(void *ctx, uint32_t leaf, uint32_t subleaf, uint32_t regs[4])
{
	struct fake_cpu *c = ctx;

	(void)subleaf;
	memset(regs, 0, 16);
	for (unsigned int i = 0; i < c->n; i++)
		if (c->leaves[i].leaf == leaf)
			memcpy(regs, c->leaves[i].regs, 16);
}

static uint64_t fake_rdmsr(void *ctx, uint32_t msr)
{
	struct fake_cpu *c = ctx;

	c->msr_reads++;
	c->last_msr = msr;
	return msr == 0xC0010131u ? c->sev_status : 0;
}

/* A QEMU TCG-like AMD part with no SEV leaf. */
static void fake_amd_base(struct fake_cpu *c, uint32_t max_ext)
{
	memset(c, 0, sizeof(*c));
	fake_set(c, 0, 0xd, str4("Auth"), str4("cAMD"), str4("enti"));
	/* family 0xf + ext 0x0, model 0x6b via ext model, stepping 1; hypervisor bit */
	fake_set(c, 1, 0x00060fb1, 0, (1u << 31), 0);
	fake_set(c, 0x40000000u, 0x40000001u, str4("TCGT"), str4("CGTC"), str4("GTCG"));
	fake_set(c, 0x80000000u, max_ext, 0, 0, 0);
	fake_set(c, 0x80000001u, 0, 0, 0, (1u << 26) | (1u << 20));
	fake_set(c, 0x80000008u, 0x3028, 0, 0, 0);
}

static uint64_t fake_xgetbv(void *ctx, uint32_t xcr)
{
	struct fake_cpu *c = ctx;

	c->xcr_reads++;
	return xcr == 0 ? c->xcr0 : 0;
}

static void identify(struct fake_cpu *c, struct cpu_info *info)
{
	struct cpu_probe probe = { c, fake_cpuid, fake_rdmsr, fake_xgetbv };

	cpu_identify(&probe, info);
}

static void test_plain_vm_is_none_and_reads_no_msr(void **state)
{
	struct fake_cpu c;
	struct cpu_info info;

	(void)state;
	fake_amd_base(&c, 0x8000000Au);
	identify(&c, &info);
	assert_string_equal(info.vendor, "AuthenticAMD");
	assert_string_equal(info.hypervisor, "TCGTCGTCGTCG");
	assert_int_equal(info.family, 0xf);
	assert_int_equal(info.model, 0x6b);
	assert_int_equal(info.stepping, 1);
	assert_int_equal(info.phys_addr_bits, 40);
	assert_true(info.has_1g_pages);
	assert_true(info.has_nx);
	assert_int_equal(info.cc, CC_NONE);
	assert_int_equal(info.c_bit, 0);
	/* The SEV MSR raises #GP where CPUID does not announce SEV. */
	assert_int_equal(c.msr_reads, 0);
	assert_string_equal(cc_mode_name(info.cc), "none");
}

/* NX (execute-disable) is CPUID 0x80000001 EDX bit 20, read only if the leaf exists. */
static void test_nx_from_extended_leaf(void **state)
{
	struct fake_cpu c;
	struct cpu_info info;

	(void)state;
	fake_amd_base(&c, 0x8000000Au);
	fake_set(&c, 0x80000001u, 0, 0, 0, (1u << 26));
	identify(&c, &info);
	assert_false(info.has_nx);
	assert_true(info.has_1g_pages);
	fake_set(&c, 0x80000001u, 0, 0, 0, (1u << 20));
	identify(&c, &info);
	assert_true(info.has_nx);
	assert_false(info.has_1g_pages);
	/* A leaf above the CPU's maximum extended leaf is not read. */
	fake_set(&c, 0x80000000u, 0x80000000u, 0, 0, 0);
	identify(&c, &info);
	assert_false(info.has_nx);
}

static void test_sev_levels_from_the_status_msr(void **state)
{
	static const struct {
		uint64_t status;
		enum cc_mode mode;
		const char *name;
	} cases[] = {
		{ 0x0, CC_NONE, "none" },
		{ 0x1, CC_SEV, "SEV" },
		{ 0x3, CC_SEV_ES, "SEV-ES" },
		{ 0x7, CC_SEV_SNP, "SEV-SNP" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fake_cpu c;
		struct cpu_info info;

		fake_amd_base(&c, 0x8000001Fu);
		/* EAX bit 1: SEV supported; EBX[5:0]: C-bit 51. */
		fake_set(&c, 0x8000001Fu, 0x1b, 0x00000173 & ~0x3fu, 0, 0);
		c.leaves[c.n - 1].regs[1] |= 51;
		c.sev_status = cases[i].status;
		identify(&c, &info);
		assert_int_equal(c.msr_reads, 1);
		assert_int_equal(c.last_msr, 0xC0010131u);
		assert_int_equal(info.cc, cases[i].mode);
		assert_string_equal(cc_mode_name(info.cc), cases[i].name);
		assert_int_equal(info.c_bit, cases[i].mode == CC_NONE ? 0 : 51);
		/* Kept for the SNP guest's feature check (cc_setup.c). */
		assert_int_equal(info.sev_status, cases[i].status);
	}
}

static void test_sev_leaf_without_sev_support_bit(void **state)
{
	struct fake_cpu c;
	struct cpu_info info;

	(void)state;
	fake_amd_base(&c, 0x8000001Fu);
	fake_set(&c, 0x8000001Fu, 0x1 /* SME only */, 47, 0, 0);
	c.sev_status = 0x7;
	identify(&c, &info);
	assert_int_equal(c.msr_reads, 0);
	assert_int_equal(info.cc, CC_NONE);
}

static void test_tdx_signature(void **state)
{
	struct fake_cpu c;
	struct cpu_info info;

	(void)state;
	memset(&c, 0, sizeof(c));
	fake_set(&c, 0, 0x23, str4("Genu"), str4("ntel"), str4("ineI"));
	fake_set(&c, 1, 0x000806f8, 0, (1u << 21) | (1u << 31), 0);
	/* "IntelTDX    " is EBX, EDX, ECX. */
	fake_set(&c, 0x21, 0, str4("Inte"), str4("    "), str4("lTDX"));
	fake_set(&c, 0x80000000u, 0x80000008u, 0, 0, 0);
	fake_set(&c, 0x80000007u, 0, 0, 0, (1u << 8));
	fake_set(&c, 0x80000008u, 0x34, 0, 0, 0);
	identify(&c, &info);
	assert_string_equal(info.vendor, "GenuineIntel");
	assert_int_equal(info.family, 6);
	assert_int_equal(info.model, 0x8f);
	assert_true(info.has_x2apic);
	assert_true(info.has_invariant_tsc);
	assert_int_equal(info.phys_addr_bits, 52);
	assert_int_equal(info.cc, CC_TDX);
	assert_string_equal(cc_mode_name(info.cc), "TDX");
	assert_int_equal(c.msr_reads, 0);

	/* A leaf 0x21 with another signature is not TDX. */
	fake_set(&c, 0x21, 0, str4("Inte"), str4("    "), str4("lTDY"));
	identify(&c, &info);
	assert_int_equal(info.cc, CC_NONE);

	/* Nor is a signature in a leaf above the CPU's maximum. */
	fake_set(&c, 0x21, 0, str4("Inte"), str4("    "), str4("lTDX"));
	fake_set(&c, 0, 0x20, str4("Genu"), str4("ntel"), str4("ineI"));
	identify(&c, &info);
	assert_int_equal(info.cc, CC_NONE);
}

static void test_brand_string(void **state)
{
	struct fake_cpu c;
	struct cpu_info info;

	(void)state;
	fake_amd_base(&c, 0x80000008u);
	fake_set(&c, 0x80000002u, str4("QEMU"), str4(" Vir"), str4("tual"), str4(" CPU"));
	fake_set(&c, 0x80000003u, 0, 0, 0, 0);
	fake_set(&c, 0x80000004u, 0, 0, 0, 0);
	identify(&c, &info);
	assert_string_equal(info.brand, "QEMU Virtual CPU");
}

/*
 * AVX2 runs only when the CPU has AVX and AVX2 and the OS enabled XSAVE and
 * the YMM state: each missing part alone says no, and XCR0 is read only when
 * CPUID says OSXSAVE (XGETBV raises #UD otherwise).
 */
static void test_avx2_needs_the_cpu_and_the_os(void **state)
{
	const uint32_t ecx = CPUID1_ECX_OSXSAVE | CPUID1_ECX_AVX;
	struct fake_cpu c;
	struct cpu_info info;

	(void)state;
	fake_amd_base(&c, 0x8000000Au);
	fake_set(&c, 1, 0x00060fb1, 0, (1u << 31) | ecx, 0);
	fake_set(&c, 7, 0, CPUID7_EBX_AVX2 | (1u << 9), 0, 0);
	c.xcr0 = 7;
	identify(&c, &info);
	assert_true(info.has_avx2);
	assert_true(info.has_erms);
	assert_int_equal(c.xcr_reads, 1);
	/* The OS saves no YMM state (XCR0 bit 2 clear). */
	c.xcr0 = 3;
	identify(&c, &info);
	assert_false(info.has_avx2);
	/* OSXSAVE clear: XCR0 cannot be read, and is not. */
	c.xcr0 = 7, c.xcr_reads = 0;
	fake_set(&c, 1, 0x00060fb1, 0, (1u << 31) | CPUID1_ECX_AVX, 0);
	identify(&c, &info);
	assert_false(info.has_avx2);
	assert_int_equal(c.xcr_reads, 0);
	/* No AVX in leaf 1. */
	fake_set(&c, 1, 0x00060fb1, 0, (1u << 31) | CPUID1_ECX_OSXSAVE, 0);
	identify(&c, &info);
	assert_false(info.has_avx2);
	/* No AVX2 in leaf 7. */
	fake_set(&c, 1, 0x00060fb1, 0, (1u << 31) | ecx, 0);
	fake_set(&c, 7, 0, 1u << 9, 0, 0);
	identify(&c, &info);
	assert_false(info.has_avx2);
	/* Leaf 7 above the maximum leaf: not read, no AVX2. */
	fake_set(&c, 7, 0, CPUID7_EBX_AVX2, 0, 0);
	fake_set(&c, 0, 6, str4("Auth"), str4("cAMD"), str4("enti"));
	identify(&c, &info);
	assert_false(info.has_avx2);
	/* A probe with no XGETBV: no state beyond SSE. */
	fake_set(&c, 0, 0xd, str4("Auth"), str4("cAMD"), str4("enti"));
	{
		struct cpu_probe probe = { &c, fake_cpuid, fake_rdmsr, NULL };

		cpu_identify(&probe, &info);
		assert_false(info.has_avx2);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_avx2_needs_the_cpu_and_the_os),
		cmocka_unit_test(test_plain_vm_is_none_and_reads_no_msr),
		cmocka_unit_test(test_nx_from_extended_leaf),
		cmocka_unit_test(test_sev_levels_from_the_status_msr),
		cmocka_unit_test(test_sev_leaf_without_sev_support_bit),
		cmocka_unit_test(test_tdx_signature),
		cmocka_unit_test(test_brand_string),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
