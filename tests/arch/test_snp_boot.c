/* SPDX-License-Identifier: MIT */
/*
 * test_snp_boot.c - what an SEV-SNP guest checks at kernel entry
 * (arch/x86_64/cc/snp_boot.c, snp.c): the CC blob of the EFI configuration table
 * and the CPUID page it names (a good blob; no blob; bad magic; any version;
 * lengths, addresses; a CPUID count of 0, above 64, or past the page or the
 * bytes copied), the VMPL0 check against the model (rule R8), and the GHCB
 * set-up split as the boot does it (no GHCB before mmu_init: CPUID and
 * SEV_STATUS without one; ours prepared before mmu_init, mapped and
 * registered after) with the model's rules holding throughout, R11 (the
 * firmware's GHCB never used) included.
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
#include "tests/fakes/snp_env.h"

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

/* The boot's order, as cc_snp_early() and cc_snp_after_mmu() run it: the
 * firmware left its GHCB registered, and it is never used. Before our GHCB
 * is registered the backend answers CPUID (the page, post-processed through
 * the MSR protocol) and SEV_STATUS without a GHCB, and refuses and counts
 * anything that needs one; ours is prepared (RMP half) while mapped private,
 * then mapped shared, registered and used. No rule breaks, R11 included. */
static void test_ghcb_boot_steps(void **state)
{
	struct env *e = env_new();
	const uint64_t fw = BASE + 100 * K4, ours = BASE + 200 * K4;
	struct ghcb *g = (struct ghcb *)(e->mem + 200 * K4);
	struct snp_cpuid_page *page = calloc(1, sizeof(*page));
	struct pvio_snp pv;
	unsigned long exits;
	uint32_t r[4];

	(void)state;
	snp_model_firmware_ghcb(&e->g.m, 0, fw);
	assert_int_equal(e->g.insn.rd_ghcb_msr(e->g.insn.ctx), fw);
	page->count = 2;
	page->fn[0] = (struct snp_cpuid_fn){ .eax_in = 0, .eax = 0xd };
	page->fn[1] = (struct snp_cpuid_fn){ .eax_in = 1, .ebx = 0x800 };
	e->g.s.slot.ghcb = NULL; /* no GHCB of ours yet */
	pvio_snp_init(&pv, &e->g.s, page);
	exits = e->g.m.n_exit;
	/* What CPU detection needs works without a GHCB. */
	pv.ops.cpuid(pv.ops.ctx, 1, 0, r);
	assert_int_equal(r[1], 0x800);
	assert_true(e->g.m.n_msr_cpuid > 0);
	assert_true(pv.ops.rdmsr(pv.ops.ctx, MSR_SEV_STATUS) == SNP_ENV_SEV_STATUS);
	assert_int_equal(pv.no_ghcb, 0);
	/* Anything else is refused and counted (the kernel does none here). */
	pv.ops.io_out(pv.ops.ctx, 0x3f8, 1, 'x');
	assert_int_equal(pv.no_ghcb, 1);
	assert_int_equal(e->g.m.n_exit, exits);
	/* Prepare: rescinded and shared in the RMP, the mapping still private. */
	assert_int_equal(snp_ghcb_prepare(&e->g.s, ours), 0);
	assert_int_equal(snp_model_page(&e->g.m, ours), SNP_PG_PTE_C);
	assert_int_equal(e->g.s.stats.psc_msr, 1);
	/* After "mmu_init": mapped shared, registered, used. */
	assert_int_equal(snp_ghcb_map(&e->g.s, ours), 0);
	assert_int_equal(snp_model_page(&e->g.m, ours), 0);
	assert_int_equal(snp_ghcb_register(&e->g.s, g, ours), 0);
	assert_int_equal(e->g.m.ghcb_gpa[0], ours);
	pv.ops.io_out(pv.ops.ctx, 0x3f8, 1, 'z');
	assert_int_equal(e->g.m.last_rax & 0xff, 'z');
	assert_int_equal(pv.no_ghcb, 1);
	assert_int_equal(e->g.m.n_fw_ghcb_exits, 0);
	assert_int_equal(e->g.m.violations, 0);
	free(page);
	env_free(e);
}

/* R11, a project rule: an exit through the GHCB the firmware left registered
 * is refused by the model (the hypervisor would carry it out: the platform
 * allows it), the same exit through a GHCB the guest registered is not. */
static void test_rule_r11_firmware_ghcb_never_used(void **state)
{
	struct env *e = env_new();
	const uint64_t fw = BASE + 100 * K4, ours = BASE + 200 * K4;
	struct ghcb *fwg = (struct ghcb *)(e->mem + 100 * K4);
	struct ghcb *g = (struct ghcb *)(e->mem + 200 * K4);

	(void)state;
	snp_model_firmware_ghcb(&e->g.m, 0, fw);
	memset(fwg, 0, sizeof(*fwg));
	GHCB_SET(fwg, rax, 'x');
	assert_int_equal(ghcb_call(&e->g.insn, fwg, fw, SVM_EXIT_IOIO,
				   (UINT64_C(0x3f8) << 16) | (1u << 9) | (1u << 4), 0),
			 GHCB_RESULT_OK);
	assert_int_equal(e->g.m.violations, 1);
	assert_non_null(strstr(e->g.m.last_rule, "R11 (project rule)"));
	assert_int_equal(e->g.m.n_fw_ghcb_exits, 1);
	/* Our own, registered by the guest: accepted. */
	assert_int_equal(snp_ghcb_prepare(&e->g.s, ours), 0);
	assert_int_equal(snp_ghcb_map(&e->g.s, ours), 0);
	assert_int_equal(snp_ghcb_register(&e->g.s, g, ours), 0);
	GHCB_SET(g, rax, 'y');
	assert_int_equal(ghcb_call(&e->g.insn, g, ours, SVM_EXIT_IOIO,
				   (UINT64_C(0x3f8) << 16) | (1u << 9) | (1u << 4), 0),
			 GHCB_RESULT_OK);
	assert_int_equal(e->g.m.violations, 1);
	assert_int_equal(e->g.m.n_fw_ghcb_exits, 1);
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
		cmocka_unit_test(test_vmpl0_check),
		cmocka_unit_test(test_ghcb_boot_steps),
		cmocka_unit_test(test_rule_r11_firmware_ghcb_never_used),
		cmocka_unit_test(test_ghcb_prepare_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
