/* SPDX-License-Identifier: MIT */
/*
 * test_snp_boot.c - what an SEV-SNP guest checks at kernel entry
 * (arch/x86_64/cc/snp_boot.c, snp.c): the CC blob of the EFI configuration table
 * and the CPUID page it names (a good blob; no blob; bad magic; any version;
 * lengths, addresses; a CPUID count of 0, above 64, or past the page or the
 * bytes copied), the GHCB the firmware registered (a GPA, not an MSR-protocol
 * value; in memory the firmware kept, never usable RAM, the kernel's or MMIO),
 * the VMPL0 check against the model (rule R8), and the GHCB set-up split as
 * the boot does it (prepare before mmu_init, map and register after) with the
 * model's rules holding throughout.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "arch/x86_64/cc/ghcb.h"
#include "arch/x86_64/cc/pvio_snp.h"
#include "arch/x86_64/cc/snp.h"
#include "arch/x86_64/cc/snp_boot.h"
#include "arch/x86_64/cc/snp_model.h"
#include "tests/snp_env.h"

#define K4 UINT64_C(4096)

/* ------------------------------------------------------------ the CC blob */

struct blob_env {
	struct snp_cc_blob b;
	union {
		struct snp_cpuid_page page;
		uint8_t bytes[SNP_CPUID_PAGE_BYTES];
	} cpuid;
	char why[200];
	unsigned int code;
};

static void blob_good(struct blob_env *e)
{
	memset(e, 0, sizeof(*e));
	e->b = (struct snp_cc_blob){ .magic = SNP_CC_BLOB_MAGIC,
				     .version = SNP_CC_BLOB_VERSION,
				     .secrets_phys = 0x80e000,
				     .secrets_len = 4096,
				     .cpuid_phys = 0x80f000,
				     .cpuid_len = 4096 };
	e->cpuid.page.count = 30;
}

static int blob_check(struct blob_env *e, size_t copied)
{
	return snp_cc_blob_check(true, &e->b, e->cpuid.bytes, copied, &e->code, e->why,
				 sizeof(e->why));
}

static void test_blob_good(void **state)
{
	struct blob_env e;

	(void)state;
	blob_good(&e);
	assert_true(snp_cc_blob_header_ok(&e.b, NULL, 0));
	assert_int_equal(blob_check(&e, sizeof(e.cpuid)), 0);
	assert_int_equal(e.code, 0);
	/* A full page of 64 entries, and a longer CPUID area, pass too. */
	e.cpuid.page.count = SNP_CPUID_COUNT_MAX;
	assert_int_equal(blob_check(&e, sizeof(e.cpuid)), 0);
	e.b.cpuid_len = 2 * 4096;
	assert_int_equal(blob_check(&e, sizeof(e.cpuid)), 0);
}

static void test_blob_missing(void **state)
{
	struct blob_env e;

	(void)state;
	blob_good(&e);
	assert_int_equal(snp_cc_blob_check(false, &e.b, e.cpuid.bytes, sizeof(e.cpuid), &e.code,
					   e.why, sizeof(e.why)),
			 -1);
	assert_int_equal(e.code, GHCB_TERM_SLUICE_NO_CC_BLOB);
	assert_non_null(strstr(e.why, "no CC blob"));
}

static void test_blob_bad_magic(void **state)
{
	struct blob_env e;

	(void)state;
	blob_good(&e);
	e.b.magic = 0x45444d42;
	assert_false(snp_cc_blob_header_ok(&e.b, NULL, 0));
	assert_int_equal(blob_check(&e, sizeof(e.cpuid)), -1);
	assert_int_equal(e.code, GHCB_TERM_SLUICE_BAD_CC_BLOB);
	assert_non_null(strstr(e.why, "magic 0x45444d42"));
}

/* The version is not a reason to refuse (Linux checks the magic only): any
 * version with the magic and sane pages is accepted. */
static void test_blob_any_version(void **state)
{
	struct blob_env e;

	(void)state;
	for (unsigned int v = 0; v < 4; v++) {
		blob_good(&e);
		e.b.version = (uint16_t)v;
		assert_int_equal(blob_check(&e, sizeof(e.cpuid)), 0);
	}
}

static void test_blob_short_lengths(void **state)
{
	struct blob_env e;

	(void)state;
	/* A CPUID area shorter than a page (Linux requires a whole page). */
	blob_good(&e);
	e.b.cpuid_len = 4095;
	assert_int_equal(blob_check(&e, sizeof(e.cpuid)), -1);
	assert_non_null(strstr(e.why, "CPUID page"));
	blob_good(&e);
	e.b.cpuid_len = 0;
	assert_int_equal(blob_check(&e, sizeof(e.cpuid)), -1);
	/* A secrets page of 16 bytes. */
	blob_good(&e);
	e.b.secrets_len = 16;
	assert_int_equal(blob_check(&e, sizeof(e.cpuid)), -1);
	assert_non_null(strstr(e.why, "secrets page"));
	/* Absurdly long (above 1 MiB). */
	blob_good(&e);
	e.b.cpuid_len = 2u << 20;
	assert_int_equal(blob_check(&e, sizeof(e.cpuid)), -1);
}

static void test_blob_bad_addresses(void **state)
{
	struct blob_env e;

	(void)state;
	blob_good(&e);
	e.b.cpuid_phys = 0;
	assert_int_equal(blob_check(&e, sizeof(e.cpuid)), -1);
	blob_good(&e);
	e.b.cpuid_phys = 0x80f010; /* not page aligned */
	assert_int_equal(blob_check(&e, sizeof(e.cpuid)), -1);
	blob_good(&e);
	e.b.secrets_phys = UINT64_MAX & ~UINT64_C(0xfff); /* wraps */
	assert_int_equal(blob_check(&e, sizeof(e.cpuid)), -1);
}

static void test_blob_cpuid_count(void **state)
{
	struct blob_env e;

	(void)state;
	/* No entries: nothing to answer CPUID with. */
	blob_good(&e);
	e.cpuid.page.count = 0;
	assert_int_equal(blob_check(&e, sizeof(e.cpuid)), -1);
	assert_int_equal(e.code, GHCB_TERM_SLUICE_BAD_CC_BLOB);
	assert_non_null(strstr(e.why, "count 0"));
	/* One above the maximum, though it would still fit in 4 KiB. */
	e.cpuid.page.count = SNP_CPUID_COUNT_MAX + 1;
	assert_int_equal(blob_check(&e, sizeof(e.cpuid)), -1);
	assert_non_null(strstr(e.why, "count 65"));
	/* A count that overflows the page, and one that would wrap a 32-bit size. */
	e.cpuid.page.count = 200;
	assert_int_equal(blob_check(&e, sizeof(e.cpuid)), -1);
	e.cpuid.page.count = UINT32_MAX;
	assert_int_equal(blob_check(&e, sizeof(e.cpuid)), -1);
	/* 30 entries need 16 + 30 * 48 = 1456 bytes: fewer copied is refused... */
	e.cpuid.page.count = 30;
	assert_int_equal(blob_check(&e, 1455), -1);
	assert_int_equal(blob_check(&e, 1456), 0);
	/* ...and nothing copied at all (the UEFI stage refused the header). */
	assert_int_equal(blob_check(&e, 0), -1);
	assert_non_null(strstr(e.why, "not read"));
}

/* ------------------------------------------------------------ the firmware's GHCB */

static const struct mem_range map[] = {
	{ 0x0, 0xa0000, MEM_USABLE, true },
	{ 0x100000, 0x700000, MEM_USABLE, true },
	{ 0x800000, 0x8000, MEM_ACPI, true },
	{ 0x808000, 0x8000, MEM_RESERVED, true },
	{ 0x1000000, 0x1000000, MEM_KERNEL, true },
	{ 0x3f000000, 0x800000, MEM_RESERVED, true },
	{ 0xb0000000, 0x10000000, MEM_RESERVED, false }, /* the ECAM window */
	{ 0xfec00000, 0x1000, MEM_MMIO, false },
};
#define NMAP (sizeof(map) / sizeof(map[0]))

static int fw_check(uint64_t msr, uint64_t *gpa, char *why, size_t n)
{
	return snp_fw_ghcb_check(msr, map, NMAP, 51, gpa, why, n);
}

static void test_fw_ghcb_good(void **state)
{
	uint64_t gpa = 0;
	char why[200];

	(void)state;
	assert_int_equal(fw_check(0x3f738000, &gpa, why, sizeof(why)), 0);
	assert_int_equal(gpa, 0x3f738000);
	/* ACPI memory is the firmware's too; the last page of a range fits. */
	assert_int_equal(fw_check(0x807000, &gpa, why, sizeof(why)), 0);
	assert_int_equal(fw_check(0x80f000, &gpa, why, sizeof(why)), 0);
}

static void test_fw_ghcb_msr_protocol_value(void **state)
{
	uint64_t gpa = 0;
	char why[200];

	(void)state;
	/* A registration response, a PSC response, a SEV info response: the
	 * firmware used the MSR protocol last and left no GHCB GPA. */
	assert_int_equal(fw_check((UINT64_C(0x3f738) << 12) | GHCB_MSR_REG_GPA_RESP, &gpa, why,
				  sizeof(why)),
			 -1);
	assert_non_null(strstr(why, "MSR-protocol value"));
	assert_int_equal(fw_check(GHCB_MSR_PSC_RESP, &gpa, why, sizeof(why)), -1);
	assert_int_equal(fw_check(0x3f738001, &gpa, why, sizeof(why)), -1);
	assert_int_equal(gpa, 0);
}

static void test_fw_ghcb_not_the_firmwares(void **state)
{
	uint64_t gpa = 0;
	char why[200];

	(void)state;
	/* No GHCB at all. */
	assert_int_equal(fw_check(0, &gpa, why, sizeof(why)), -1);
	/* At or above the C-bit. */
	assert_int_equal(fw_check(UINT64_C(1) << 51, &gpa, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "C-bit"));
	/* Usable RAM (we would hand it out) and the kernel's own memory. */
	assert_int_equal(fw_check(0x200000, &gpa, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "usable"));
	assert_int_equal(fw_check(0x1400000, &gpa, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "kernel"));
	/* Device memory: the ECAM window (reserved but not RAM) and MMIO. */
	assert_int_equal(fw_check(0xb0001000, &gpa, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "uncached"));
	assert_int_equal(fw_check(0xfec00000, &gpa, why, sizeof(why)), -1);
	/* Outside the map. */
	assert_int_equal(fw_check(0x40000000, &gpa, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "outside the memory map"));
	assert_int_equal(gpa, 0);
}

/* ------------------------------------------------------------ VMPL0, GHCB steps */

#define BASE UINT64_C(0x200000)
#define NPAGES 1024u

struct env {
	struct snp_guest g;
	uint8_t page[NPAGES];
	uint8_t *mem; /* guest memory backing [BASE, BASE + NPAGES pages) */
	char why[160];
};

static struct env *env_new(void)
{
	struct env *e = calloc(1, sizeof(*e));
	const struct cc_pt_ops pt = { snp_env_note_ptes, snp_env_note_flush, NULL, &e->g.m, NULL };

	snp_env_start(&e->g, e->page, BASE, NPAGES, &pt, SNP_ENV_SEV_STATUS, snp_env_cpuid_c51,
		      e->why, sizeof(e->why));
	e->mem = aligned_alloc(4096, (size_t)NPAGES * 4096);
	return e;
}

static void env_free(struct env *e)
{
	free(e->mem);
	free(e);
}

static void test_vmpl0_check(void **state)
{
	struct env *e = env_new();

	(void)state;
	/* At VMPL0 RMPADJUST for VMPL1 succeeds, and nothing is a VMSA. */
	assert_int_equal(snp_check_vmpl0(&e->g.s, BASE + 5 * K4), 0);
	assert_int_equal(e->g.m.n_rmpadjust, 1);
	assert_int_equal(snp_model_page(&e->g.m, BASE + 5 * K4) & SNP_PG_VMSA, 0);
	/* At VMPL1 (an SVSM at VMPL0), and at VMPL2 or 3: refused. */
	for (unsigned int v = 1; v <= 3; v++) {
		e->g.m.vmpl = v;
		assert_int_equal(snp_check_vmpl0(&e->g.s, BASE + 5 * K4), SNP_ERR_REFUSED);
	}
	assert_int_equal(e->g.m.violations, 0);
	/* A misaligned page is the caller's mistake, not a refusal. */
	e->g.m.vmpl = 0;
	assert_int_equal(snp_check_vmpl0(&e->g.s, BASE + 5 * K4 + 8), SNP_ERR_INVAL);
	env_free(e);
}

/* The boot's order: the firmware's GHCB registered and used; ours prepared
 * (RMP half) while mapped private; then mapped shared and registered. */
static void test_ghcb_boot_steps(void **state)
{
	struct env *e = env_new();
	const uint64_t fw = BASE + 100 * K4, ours = BASE + 200 * K4;
	struct ghcb *g = (struct ghcb *)(e->mem + 200 * K4);
	struct ghcb *fwg = (struct ghcb *)(e->mem + 100 * K4);
	struct pvio_snp pv;
	uint32_t r[4];

	(void)state;
	snp_model_firmware_ghcb(&e->g.m, 0, fw);
	assert_int_equal(snp_model_page(&e->g.m, fw), 0);
	/* What the kernel reads at entry passes the check. */
	assert_int_equal(e->g.insn.rd_ghcb_msr(e->g.insn.ctx), fw);
	assert_int_equal(snp_ghcb_adopt(&e->g.s, fwg, fw), 0);
	pvio_snp_init(&pv, &e->g.s, NULL);
	pv.ops.io_out(pv.ops.ctx, 0x3f8, 1, 'x');
	assert_int_equal(e->g.m.last_exit_code, SVM_EXIT_IOIO);
	/* Prepare: rescinded and shared in the RMP, the mapping still private. */
	assert_int_equal(snp_ghcb_prepare(&e->g.s, ours), 0);
	assert_int_equal(snp_model_page(&e->g.m, ours), SNP_PG_PTE_C);
	assert_int_equal(e->g.s.stats.psc_msr, 1);
	/* The firmware's GHCB still carries I/O (the MSR protocol in between left
	 * its own value in the GHCB MSR; every exit rewrites it). */
	pv.ops.io_out(pv.ops.ctx, 0x3f8, 1, 'y');
	assert_int_equal(e->g.m.last_rax & 0xff, 'y');
	/* After "mmu_init": mapped shared, registered, used. */
	assert_int_equal(snp_ghcb_map(&e->g.s, ours), 0);
	assert_int_equal(snp_model_page(&e->g.m, ours), 0);
	assert_int_equal(snp_ghcb_register(&e->g.s, g, ours), 0);
	assert_int_equal(e->g.m.ghcb_gpa[0], ours);
	pv.ops.io_out(pv.ops.ctx, 0x3f8, 1, 'z');
	assert_int_equal(e->g.m.last_rax & 0xff, 'z');
	pv.ops.cpuid(pv.ops.ctx, 0, 0, r); /* no CPUID page: a miss, no exit */
	assert_int_equal(e->g.m.violations, 0);
	env_free(e);
}

/* A GHCB the hypervisor refuses to make shared: back to private, validated. */
static void test_ghcb_prepare_refused(void **state)
{
	struct env *e = env_new();
	const uint64_t ours = BASE + 200 * K4;

	(void)state;
	e->g.m.faults.psc_msr_error_at = 1;
	assert_int_equal(snp_ghcb_prepare(&e->g.s, ours), SNP_ERR_IO);
	assert_int_equal(snp_model_page(&e->g.m, ours),
			 SNP_PG_ASSIGNED | SNP_PG_VALIDATED | SNP_PG_PTE_C);
	assert_int_equal(e->g.s.stats.rolled_back, 1);
	/* A host that lies with CF = 1 on the rescission: refused, validated again. */
	e->g.m.faults.pval_cf_at = e->g.m.n_pval + 1;
	assert_int_equal(snp_ghcb_prepare(&e->g.s, ours), SNP_ERR_IO);
	assert_int_equal(snp_model_page(&e->g.m, ours) & SNP_PG_VALIDATED, SNP_PG_VALIDATED);
	assert_int_equal(e->g.m.violations, 0);
	env_free(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_blob_good),
		cmocka_unit_test(test_blob_missing),
		cmocka_unit_test(test_blob_bad_magic),
		cmocka_unit_test(test_blob_any_version),
		cmocka_unit_test(test_blob_short_lengths),
		cmocka_unit_test(test_blob_bad_addresses),
		cmocka_unit_test(test_blob_cpuid_count),
		cmocka_unit_test(test_fw_ghcb_good),
		cmocka_unit_test(test_fw_ghcb_msr_protocol_value),
		cmocka_unit_test(test_fw_ghcb_not_the_firmwares),
		cmocka_unit_test(test_vmpl0_check),
		cmocka_unit_test(test_ghcb_boot_steps),
		cmocka_unit_test(test_ghcb_prepare_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
