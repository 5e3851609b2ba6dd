/* SPDX-License-Identifier: MIT */
/*
 * test_snp.c - the SEV-SNP guest protocol (arch/x86_64/cc/snp.c, ghcb.c) against
 * the model of the RMP and the hypervisor (arch/x86_64/cc/snp_model.c): the C-bit
 * from CPUID, the refusals, GHCB setup and registration, conversions in both
 * directions at 4 KiB and 2 MiB, PSC batching (an exactly full batch, an early
 * return in the middle, errors, no progress, a hypervisor going backwards),
 * PVALIDATE faults (size mismatch, CF = 1, failure), rollback and leaking.
 * After every conversion the model's rules must hold; one test per rule breaks
 * it on purpose and shows the model notices (each fails if the rule's check is
 * taken out of the model).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "arch/x86_64/cc/snp.h"
#include "arch/x86_64/cc/snp_model.h"
#include "tests/fakes/snp_env.h"

#define BASE UINT64_C(0x40000000) /* 1 GiB, 2 MiB aligned */
#define NPAGES 4096u		  /* 16 MiB modelled */
#define K4 UINT64_C(4096)
#define M2 (UINT64_C(2) << 20)
#define GHCB_GPA (BASE + 8 * M2 - K4) /* the last page, away from the tests' ranges */
#define A (SNP_PG_ASSIGNED)
#define V (SNP_PG_VALIDATED)
#define C (SNP_PG_PTE_C)

struct env {
	struct snp_guest g;
	uint8_t page[NPAGES];
	struct ghcb *ghcb;
	bool pte_fail;
	unsigned int flushes, cache_flushes;
	uint64_t evicted;
	char why[160];
};

static int env_set_pte(void *ctx, uint64_t gpa, uint64_t len, bool shared)
{
	struct env *e = ctx;

	if (e->pte_fail)
		return -12;
	snp_model_note_ptes(&e->g.m, gpa, len, !shared);
	return 0;
}

static void env_flush_tlb(void *ctx, uint64_t gpa, uint64_t len)
{
	struct env *e = ctx;

	e->flushes++;
	snp_model_note_flush(&e->g.m, gpa, len);
}

static void env_flush_cache(void *ctx, uint64_t gpa, uint64_t len)
{
	(void)gpa, (void)len;
	((struct env *)ctx)->cache_flushes++;
}

/* The eviction reads each page through its private mapping: the model checks
 * that such an access is allowed (R3: assigned, validated, C-bit set). */
static void env_evict_cache(void *ctx, uint64_t gpa, uint64_t npages)
{
	struct env *e = ctx;

	e->evicted += npages;
	snp_model_note_access(&e->g.m, gpa, npages * K4);
}

static struct env *env_new(bool with_ghcb)
{
	struct env *e = calloc(1, sizeof(*e));
	const struct cc_pt_ops pt = { env_set_pte, env_flush_tlb, env_flush_cache, e,
				      env_evict_cache };

	snp_env_start(&e->g, e->page, BASE, NPAGES, &pt, SNP_ENV_SEV_STATUS, snp_env_cpuid_c51,
		      e->why, sizeof(e->why));
	e->ghcb = aligned_alloc(4096, sizeof(struct ghcb));
	if (with_ghcb)
		assert_int_equal(snp_ghcb_setup(&e->g.s, e->ghcb, GHCB_GPA), 0);
	return e;
}

static void env_free(struct env *e)
{
	free(e->ghcb);
	free(e);
}

static int setup(void **state)
{
	*state = env_new(true);
	return 0;
}

static int teardown(void **state)
{
	env_free(*state);
	return 0;
}

/* Every page of [gpa, gpa + len) has exactly the flags @f (RMP_2M ignored). */
static void assert_range(struct env *e, uint64_t gpa, uint64_t len, int f)
{
	for (uint64_t a = gpa; a < gpa + len; a += K4)
		assert_int_equal(snp_model_page(&e->g.m, a) & ~SNP_PG_RMP_2M, f);
}

/* ------------------------------------------------------------ C-bit, refusals */

static void test_cbit_47_and_51(void **state)
{
	unsigned int pos = 0;
	struct env *e;

	(void)state;
	assert_int_equal(snp_cbit_from_cpuid((uint32_t[4]){ 0x1f, 0x2f, 0, 0 }, &pos, NULL, 0), 0);
	assert_int_equal(pos, 47);
	/* EBX[11:6] (physical address reduction) does not leak into the position. */
	assert_int_equal(snp_cbit_from_cpuid((uint32_t[4]){ 0x1f, 0x173, 0, 0 }, &pos, NULL, 0), 0);
	assert_int_equal(pos, 51);
	e = env_new(false);
	assert_int_equal(e->g.s.cbit_pos, 51);
	assert_true(e->g.s.cbit == UINT64_C(1) << 51);
	/* Ranges reaching the C-bit are refused. */
	assert_int_equal(snp_to_shared(&e->g.s, e->g.s.cbit, K4), SNP_ERR_INVAL);
	env_free(e);
}

static void test_refusals(void **state)
{
	struct env *e = *state;
	struct snp s;
	char why[160];
	unsigned int pos;

	/* SEV-ES without SNP. */
	assert_int_equal(snp_init(&s, &e->g.insn, &e->g.s.pt, SEV_STATUS_SEV | SEV_STATUS_SEV_ES,
				  snp_env_cpuid_c51, why, sizeof(why)),
			 SNP_ERR_REFUSED);
	assert_non_null(strstr(why, "not an SEV-SNP guest"));
	/* A feature we do not handle (ReflectVC) and one we do not know (bit 30). */
	assert_int_equal(snp_init(&s, &e->g.insn, &e->g.s.pt,
				  SNP_ENV_SEV_STATUS | SEV_STATUS_REFLECT_VC, snp_env_cpuid_c51,
				  why, sizeof(why)),
			 SNP_ERR_REFUSED);
	assert_non_null(strstr(why, "bit 4 "));
	assert_int_equal(snp_init(&s, &e->g.insn, &e->g.s.pt,
				  SNP_ENV_SEV_STATUS | (UINT64_C(1) << 30), snp_env_cpuid_c51, why,
				  sizeof(why)),
			 SNP_ERR_REFUSED);
	assert_non_null(strstr(why, "bit 30 "));
	/* Tolerated features pass. */
	assert_int_equal(snp_init(&s, &e->g.insn, &e->g.s.pt,
				  SNP_ENV_SEV_STATUS | SEV_STATUS_DEBUG_SWAP, snp_env_cpuid_c51,
				  why, sizeof(why)),
			 0);
	/* CPUID without SNP, and C-bit positions no SNP part has. */
	assert_int_equal(snp_init(&s, &e->g.insn, &e->g.s.pt, SNP_ENV_SEV_STATUS,
				  (uint32_t[4]){ 0xf, 0x33, 0, 0 }, why, sizeof(why)),
			 SNP_ERR_REFUSED);
	assert_non_null(strstr(why, "lacks SEV-SNP"));
	assert_int_equal(snp_cbit_from_cpuid((uint32_t[4]){ 0x1f, 0, 0, 0 }, &pos, why,
					     sizeof(why)),
			 SNP_ERR_REFUSED);
	assert_non_null(strstr(why, "C-bit position 0"));
	assert_int_equal(snp_cbit_from_cpuid((uint32_t[4]){ 0x1f, 52, 0, 0 }, &pos, NULL, 0),
			 SNP_ERR_REFUSED);
	/* The caller then terminates through the MSR protocol. */
	snp_terminate(&e->g.s, GHCB_TERM_SET_GENERAL, GHCB_TERM_SNP_UNSUPPORTED);
	assert_int_equal(e->g.m.terminated, 1);
	assert_int_equal(e->g.m.term_set, 0);
	assert_int_equal(e->g.m.term_code, GHCB_TERM_SNP_UNSUPPORTED);
}

/* ------------------------------------------------------------ GHCB */

static void test_ghcb_setup(void **state)
{
	struct env *e = *state;

	/* Rescinded, made shared through the MSR protocol, C-bit cleared,
	 * registered. */
	assert_range(e, GHCB_GPA, K4, 0);
	assert_true(e->g.m.ghcb_gpa[0] == GHCB_GPA);
	assert_int_equal(e->g.m.n_psc_msr, 1);
	assert_int_equal(e->g.s.stats.psc_msr, 1);
	assert_int_equal(e->g.s.stats.pages_rescinded, 1);
	assert_ptr_equal(e->g.s.slot.ghcb, e->ghcb);
	assert_int_equal(e->g.m.violations, 0);
}

static void test_ghcb_registration_refused(void **state)
{
	struct env *e = env_new(false);

	(void)state;
	e->g.m.faults.reg_refuse = true;
	assert_int_equal(snp_ghcb_setup(&e->g.s, e->ghcb, GHCB_GPA), SNP_ERR_IO);
	assert_null(e->g.s.slot.ghcb);
	/* The page is private and validated again. */
	assert_range(e, GHCB_GPA, K4, A | V | C);
	assert_int_equal(e->g.m.violations, 0);
	env_free(e);
}

/* ------------------------------------------------------------ conversions */

static void test_round_trip_4k_and_2m(void **state)
{
	struct env *e = *state;

	assert_int_equal(snp_to_shared(&e->g.s, BASE + K4, 3 * K4), 0);
	assert_range(e, BASE + K4, 3 * K4, 0);
	assert_range(e, BASE, K4, A | V | C);
	snp_model_note_access(&e->g.m, BASE + K4, 3 * K4); /* shared, mapped shared: fine */
	assert_int_equal(snp_to_private(&e->g.s, BASE + K4, 3 * K4), 0);
	assert_range(e, BASE + K4, 3 * K4, A | V | C);
	assert_int_equal(e->g.s.stats.pages_validated, 3);
	assert_int_equal(e->g.s.stats.pages_rescinded, 1 + 3);

	/* 2 MiB: the firmware's 4 KiB RMP entries make the first rescind fall
	 * back; after a PSC with 2 MiB entries the validate is 2 MiB whole. */
	assert_int_equal(snp_to_shared(&e->g.s, BASE + M2, 2 * M2), 0);
	assert_int_equal(e->g.s.stats.size_fallbacks, 2);
	assert_range(e, BASE + M2, 2 * M2, 0);
	assert_int_equal(snp_to_private(&e->g.s, BASE + M2, 2 * M2), 0);
	assert_range(e, BASE + M2, 2 * M2, A | V | C);
	assert_int_equal(e->g.s.stats.pvalidate_2m, 2);
	assert_int_equal(snp_to_shared(&e->g.s, BASE + M2, 2 * M2), 0);
	assert_int_equal(e->g.s.stats.pvalidate_2m, 4);	 /* the rescind is 2 MiB whole now */
	assert_int_equal(e->g.s.stats.to_shared, 1 + 3); /* the GHCB page's, then these */
	assert_int_equal(e->g.s.stats.to_private, 2);
	assert_true(e->cache_flushes >= 5 && e->flushes >= 5);
	assert_int_equal(e->g.m.violations, 0);
}

/* The cache-coherency mitigation: every page PVALIDATE makes private is read
 * through its private mapping right after (Linux pvalidate_pages() /
 * sev_evict_cache()); none when CPUID 0x8000001F EBX[31] (COHERENCY_SFW_NO)
 * says the CPU needs none; never for pages made shared. */
static void test_coherency_mitigation_after_validate(void **state)
{
	struct env *e = *state;
	uint64_t gpa = BASE + 2 * M2, len = M2 + 3 * K4;

	assert_int_equal(snp_to_shared(&e->g.s, gpa, len), 0);
	assert_int_equal(e->evicted, 0);
	assert_int_equal(snp_to_private(&e->g.s, gpa, len), 0);
	assert_int_equal(e->evicted, len / K4);
	assert_true(e->g.s.stats.pages_evicted == len / K4);
	assert_int_equal(e->g.m.violations, 0);
	/* A CPU without the vulnerability: no eviction. */
	{
		struct env *f = calloc(1, sizeof(*f));
		const struct cc_pt_ops pt = { env_set_pte, env_flush_tlb, env_flush_cache, f,
					      env_evict_cache };
		const uint32_t sfw_no[4] = { 0x1b, 0x33 | (1u << 31), 0, 0 };

		snp_env_start(&f->g, f->page, BASE, NPAGES, &pt, SNP_ENV_SEV_STATUS, sfw_no, f->why,
			      sizeof(f->why));
		assert_true(f->g.s.coherency_sfw_no);
		f->ghcb = aligned_alloc(4096, sizeof(struct ghcb));
		assert_int_equal(snp_ghcb_setup(&f->g.s, f->ghcb, GHCB_GPA), 0);
		assert_int_equal(snp_to_shared(&f->g.s, gpa, len), 0);
		assert_int_equal(snp_to_private(&f->g.s, gpa, len), 0);
		assert_int_equal(f->evicted, 0);
		assert_true(f->g.s.stats.pages_validated == len / K4);
		env_free(f);
	}
}

static void test_unaligned_range_mixes_sizes(void **state)
{
	struct env *e = *state;
	uint64_t batches = e->g.s.stats.psc_batches;

	assert_int_equal(snp_to_shared(&e->g.s, BASE + M2 - K4, M2 + 2 * K4), 0);
	assert_int_equal(snp_to_private(&e->g.s, BASE + M2 - K4, M2 + 2 * K4), 0);
	/* 3 entries each way: 4 KiB, 2 MiB, 4 KiB. */
	assert_int_equal(e->g.s.stats.psc_batches - batches, 2);
	assert_int_equal(e->g.s.stats.pvalidate_2m, 1);
	assert_range(e, BASE + M2 - K4, M2 + 2 * K4, A | V | C);
	assert_int_equal(e->g.m.violations, 0);
}

static void test_bad_arguments(void **state)
{
	struct env *e = *state;
	unsigned long pval = e->g.m.n_pval;

	assert_int_equal(snp_to_shared(&e->g.s, BASE + 1, K4), SNP_ERR_INVAL);
	assert_int_equal(snp_to_shared(&e->g.s, BASE, K4 + 1), SNP_ERR_INVAL);
	assert_int_equal(snp_to_shared(&e->g.s, BASE, 0), SNP_ERR_INVAL);
	assert_int_equal(snp_to_private(&e->g.s, UINT64_MAX & ~(K4 - 1), 2 * K4), SNP_ERR_INVAL);
	assert_int_equal(e->g.m.n_pval, pval);
	assert_int_equal(e->g.m.n_psc, 0);
}

static void test_2m_falls_back_to_4k(void **state)
{
	struct env *e = *state;

	e->g.m.faults.rmp_4k_only = true;
	assert_int_equal(snp_to_shared(&e->g.s, BASE, M2), 0);
	assert_int_equal(snp_to_private(&e->g.s, BASE, M2), 0);
	assert_int_equal(e->g.s.stats.size_fallbacks, 2);
	assert_int_equal(e->g.s.stats.pvalidate_2m, 0);
	assert_int_equal(e->g.s.stats.pages_validated, 512);
	assert_range(e, BASE, M2, A | V | C);
	assert_int_equal(e->g.m.violations, 0);
}

/* ------------------------------------------------------------ PSC batching */

static void test_exactly_full_batch(void **state)
{
	struct env *e = *state;

	/* 253 pages: one descriptor, one exit. */
	assert_int_equal(snp_to_shared(&e->g.s, BASE, SNP_PSC_MAX_ENTRIES * K4), 0);
	assert_int_equal(e->g.s.stats.psc_batches, 1);
	assert_int_equal(e->g.m.n_psc, 1);
	/* A caller that is wrong about page 253 (never shared): its validate
	 * answers CF = 1, an error; the whole range is then made shared, the
	 * state the caller claimed. */
	assert_int_equal(snp_to_private(&e->g.s, BASE, (SNP_PSC_MAX_ENTRIES + 1) * K4), SNP_ERR_IO);
	assert_range(e, BASE, (SNP_PSC_MAX_ENTRIES + 1) * K4, 0);
	/* 254 pages: two descriptors. */
	assert_int_equal(snp_to_shared(&e->g.s, BASE + M2, (SNP_PSC_MAX_ENTRIES + 1) * K4), 0);
	assert_int_equal(e->g.s.stats.psc_batches, 1 + 2 + 2 + 2);
	assert_int_equal(snp_to_private(&e->g.s, BASE + M2, (SNP_PSC_MAX_ENTRIES + 1) * K4), 0);
	assert_range(e, BASE + M2, (SNP_PSC_MAX_ENTRIES + 1) * K4, A | V | C);
	assert_int_equal(e->g.m.violations, 0);
}

/* A hypervisor that stops inside a 2 MiB entry says how far it got in the
 * entry's cur_page; the next request carries it over (KVM snp_begin_psc()
 * skips those pages, Linux resends the buffer as the hypervisor left it), so
 * the 512 pages are changed once, not 256 of them twice. A cur_page beyond the
 * entry is a lie: refused. */
static void test_psc_resumes_at_cur_page(void **state)
{
	struct env *e = *state;
	unsigned long before;

	assert_int_equal(snp_to_shared(&e->g.s, BASE + 2 * M2, M2), 0);
	before = e->g.m.n_psc_pages;
	e->g.m.faults.psc_half_entry_at = e->g.m.n_psc + 1;
	assert_int_equal(snp_to_private(&e->g.s, BASE + 2 * M2, M2), 0);
	assert_int_equal(e->g.s.stats.psc_early_returns, 1);
	assert_int_equal(e->g.m.n_psc_pages - before, 512);
	assert_range(e, BASE + 2 * M2, M2, A | V | C);
	assert_int_equal(e->g.m.violations, 0);
	/* A cur_page beyond the entry's 512 pages is a lie: refused, rolled back. */
	e->g.m.faults.psc_bad_cur_page_at = e->g.m.n_psc + 1;
	assert_int_equal(snp_to_shared(&e->g.s, BASE + 2 * M2, M2), SNP_ERR_IO);
	assert_true(e->g.s.last_psc_error == UINT64_MAX);
	assert_int_equal(e->g.s.stats.rolled_back, 1);
	assert_range(e, BASE + 2 * M2, M2, A | V | C);
	assert_int_equal(e->g.m.violations, 0);
}

static void test_early_return_in_the_middle(void **state)
{
	struct env *e = *state;

	/* 40 entries in batches of 16: the second exit does half and returns. */
	e->g.s.psc_max_entries = 16;
	e->g.m.faults.psc_early_at = 2;
	assert_int_equal(snp_to_shared(&e->g.s, BASE, 40 * K4), 0);
	assert_int_equal(e->g.s.stats.psc_batches, 3);
	assert_int_equal(e->g.s.stats.psc_early_returns, 1);
	assert_int_equal(e->g.m.n_psc, 4);
	assert_range(e, BASE, 40 * K4, 0);
	/* Every exit does half: 16 -> 8 -> 4 -> 2 -> 1 -> 1 per batch. */
	e->g.m.faults.psc_early_every = 1;
	assert_int_equal(snp_to_private(&e->g.s, BASE, 40 * K4), 0);
	assert_true(e->g.s.stats.psc_early_returns >= 5);
	assert_range(e, BASE, 40 * K4, A | V | C);
	assert_int_equal(e->g.m.violations, 0);
}

static void test_psc_error_rolls_back(void **state)
{
	struct env *e = *state;

	/* Batch 1 done, batch 2 does half and returns, then fails: the pages
	 * already shared come back; every page validated and mapped private. */
	e->g.s.psc_max_entries = 8;
	e->g.m.faults.psc_early_at = 2;
	e->g.m.faults.psc_error_at = 3;
	assert_int_equal(snp_to_shared(&e->g.s, BASE, 20 * K4), SNP_ERR_IO);
	assert_true(e->g.s.last_psc_error != 0);
	assert_int_equal(e->g.s.stats.rolled_back, 1);
	assert_int_equal(e->g.s.stats.leaked_pages, 0);
	assert_range(e, BASE, 20 * K4, A | V | C);
	assert_int_equal(e->g.m.violations, 0);
	/* To private, failing: back to shared. */
	assert_int_equal(snp_to_shared(&e->g.s, BASE + M2, 4 * K4), 0);
	e->g.m.faults.psc_error_at = e->g.m.n_psc + 1;
	assert_int_equal(snp_to_private(&e->g.s, BASE + M2, 4 * K4), SNP_ERR_IO);
	assert_range(e, BASE + M2, 4 * K4, 0);
	assert_int_equal(e->g.m.violations, 0);
}

static void test_psc_without_progress_ends(void **state)
{
	struct env *e = *state;

	e->g.m.faults.psc_stall_every = 1; /* the rollback stalls too: leaked */
	assert_int_equal(snp_to_shared(&e->g.s, BASE, 4 * K4), SNP_ERR_LEAKED);
	assert_int_equal(e->g.m.n_psc, 2 * SNP_PSC_MAX_STALLS);
	assert_int_equal(e->g.s.stats.leaked_pages, 4);
	assert_int_equal(e->g.s.stats.failed, 1);
	assert_int_equal(e->g.m.violations, 0);
}

static void test_psc_going_backwards_is_a_lie(void **state)
{
	struct env *e = *state;

	e->g.s.psc_max_entries = 8;
	e->g.m.faults.psc_early_at = 1;
	e->g.m.faults.psc_backwards_at = 2;
	assert_int_equal(snp_to_shared(&e->g.s, BASE, 8 * K4), SNP_ERR_IO);
	assert_int_equal(e->g.s.stats.rolled_back, 1);
	assert_range(e, BASE, 8 * K4, A | V | C);
	assert_int_equal(e->g.m.violations, 0);
}

static void test_msr_protocol_without_ghcb(void **state)
{
	struct env *e = env_new(false);

	(void)state;
	assert_int_equal(snp_to_shared(&e->g.s, BASE, 3 * K4), 0);
	assert_int_equal(e->g.m.n_psc_msr, 3);
	assert_int_equal(e->g.m.n_psc, 0);
	assert_range(e, BASE, 3 * K4, 0);
	assert_int_equal(snp_to_private(&e->g.s, BASE, 3 * K4), 0);
	assert_range(e, BASE, 3 * K4, A | V | C);
	/* A refused single-page PSC in the middle: rolled back. */
	e->g.m.faults.psc_msr_error_at = e->g.m.n_psc_msr + 2;
	assert_int_equal(snp_to_shared(&e->g.s, BASE, 3 * K4), SNP_ERR_IO);
	assert_int_equal(e->g.s.last_psc_error, 1);
	assert_range(e, BASE, 3 * K4, A | V | C);
	/* The single-page call on its own. */
	assert_int_equal(snp_psc_msr(&e->g.s, BASE + M2, SNP_PSC_OP_PRIVATE), 0);
	assert_int_equal(e->g.m.violations, 0);
	env_free(e);
}

/* ------------------------------------------------------------ PVALIDATE faults */

static void test_cf_during_rescind_is_a_lie(void **state)
{
	struct env *e = *state;

	/* The third rescind finds the page not validated: the host swapped it. */
	e->g.m.faults.pval_cf_at = e->g.m.n_pval + 3;
	assert_int_equal(snp_to_shared(&e->g.s, BASE, 4 * K4), SNP_ERR_IO);
	assert_int_equal(e->g.s.stats.rolled_back, 1);
	assert_int_equal(e->g.m.n_psc, 0); /* no PSC after a lie */
	assert_range(e, BASE, 4 * K4, A | V | C);
	assert_int_equal(e->g.m.violations, 0);
}

static void test_cf_during_validate_is_a_lie(void **state)
{
	struct env *e = *state;

	assert_int_equal(snp_to_shared(&e->g.s, BASE, 4 * K4), 0);
	e->g.m.faults.pval_cf_at = e->g.m.n_pval + 2;
	assert_int_equal(snp_to_private(&e->g.s, BASE, 4 * K4), SNP_ERR_IO);
	assert_int_equal(e->g.s.stats.rolled_back, 1);
	assert_range(e, BASE, 4 * K4, 0);
	assert_int_equal(e->g.m.violations, 0);
}

static void test_pvalidate_failure_and_4k_mismatch(void **state)
{
	struct env *e = *state;

	/* FAIL_INPUT on the second validate: rolled back to shared. */
	assert_int_equal(snp_to_shared(&e->g.s, BASE, 4 * K4), 0);
	e->g.m.faults.pval_fail_at = e->g.m.n_pval + 2;
	assert_int_equal(snp_to_private(&e->g.s, BASE, 4 * K4), SNP_ERR_IO);
	assert_range(e, BASE, 4 * K4, 0);
	/* A 4 KiB page inside a 2 MiB validated page cannot be rescinded alone:
	 * the error changes nothing. */
	assert_int_equal(snp_to_shared(&e->g.s, BASE + M2, M2), 0);
	assert_int_equal(snp_to_private(&e->g.s, BASE + M2, M2), 0);
	assert_int_equal(snp_to_shared(&e->g.s, BASE + M2 + K4, K4), SNP_ERR_IO);
	assert_range(e, BASE + M2, M2, A | V | C);
	/* An injected size mismatch on a 4 KiB rescind in the middle. */
	e->g.m.faults.pval_mismatch_at = e->g.m.n_pval + 2;
	assert_int_equal(snp_to_shared(&e->g.s, BASE + 2 * M2, 3 * K4), SNP_ERR_IO);
	assert_range(e, BASE + 2 * M2, 3 * K4, A | V | C);
	assert_int_equal(e->g.s.stats.rolled_back, 3);
	assert_int_equal(e->g.m.violations, 0);
}

static void test_unrecoverable_failure_leaks(void **state)
{
	struct env *e = *state;

	/* The validate fails, then so does the rescind of the rollback. */
	assert_int_equal(snp_to_shared(&e->g.s, BASE, 4 * K4), 0);
	e->g.m.faults.pval_fail_at = e->g.m.n_pval + 2;
	e->g.m.faults.pval_cf_every = 0;
	e->g.m.faults.pval_mismatch_at = e->g.m.n_pval + 3;
	assert_int_equal(snp_to_private(&e->g.s, BASE, 4 * K4), SNP_ERR_LEAKED);
	assert_int_equal(e->g.s.stats.leaked_pages, 4);
	assert_int_equal(e->g.s.stats.failed, 1);
	assert_int_equal(e->g.s.stats.rolled_back, 0);
	assert_int_equal(e->g.m.violations, 0);
}

static void test_page_table_failure_rolls_back(void **state)
{
	struct env *e = *state;

	e->pte_fail = true;
	assert_int_equal(snp_to_shared(&e->g.s, BASE, 4 * K4), SNP_ERR_IO);
	assert_range(e, BASE, 4 * K4, A | V | C);
	e->pte_fail = false;
	assert_int_equal(snp_to_shared(&e->g.s, BASE, 4 * K4), 0);
	e->pte_fail = true;
	assert_int_equal(snp_to_private(&e->g.s, BASE, 4 * K4), SNP_ERR_IO);
	assert_range(e, BASE, 4 * K4, 0);
	assert_int_equal(e->g.s.stats.rolled_back, 2);
	assert_int_equal(e->g.m.violations, 0);
}

/* ------------------------------------------------------------ the model's rules */

static void test_rule_r1_rescind_before_psc_shared(void **state)
{
	struct env *e = *state;

	/* PSC to shared of a validated page, through the MSR protocol. */
	assert_int_equal(snp_psc_msr(&e->g.s, BASE, SNP_PSC_OP_SHARED), 0);
	assert_int_equal(e->g.m.violations, 1);
	assert_non_null(strstr(e->g.m.last_rule, "R1"));
}

static void test_rule_r2_validate_after_psc_private(void **state)
{
	struct env *e = *state;
	bool cf;

	assert_int_equal(snp_to_shared(&e->g.s, BASE, K4), 0);
	/* Validate a shared page without the PSC to private. */
	assert_int_equal(e->g.insn.pvalidate(e->g.insn.ctx, BASE, false, true, &cf),
			 PVALIDATE_FAIL_INPUT);
	assert_int_equal(e->g.m.violations, 1);
	assert_non_null(strstr(e->g.m.last_rule, "R2"));
}

static void test_rule_r3_no_access_in_between(void **state)
{
	struct env *e = *state;
	bool cf;

	snp_model_note_access(&e->g.m, BASE, 8); /* private, validated, C-bit: fine */
	assert_int_equal(e->g.m.violations, 0);
	/* Rescinded, not yet shared: touching it is a violation. */
	assert_int_equal(e->g.insn.pvalidate(e->g.insn.ctx, BASE, false, false, &cf), 0);
	assert_false(cf);
	snp_model_note_access(&e->g.m, BASE + 16, 8);
	assert_int_equal(e->g.m.violations, 1);
	assert_non_null(strstr(e->g.m.last_rule, "R3"));
	/* Shared, but still mapped with the C-bit: still a violation. */
	assert_int_equal(snp_psc_msr(&e->g.s, BASE, SNP_PSC_OP_SHARED), 0);
	snp_model_note_access(&e->g.m, BASE, 1);
	assert_int_equal(e->g.m.violations, 2);
}

static void test_rule_r4_2m_only_when_aligned(void **state)
{
	struct env *e = *state;
	bool cf;

	assert_int_equal(e->g.insn.pvalidate(e->g.insn.ctx, BASE + K4, true, false, &cf),
			 PVALIDATE_FAIL_INPUT);
	assert_int_equal(e->g.m.violations, 1);
	assert_non_null(strstr(e->g.m.last_rule, "R4"));
	/* A 2 MiB PSC entry at an unaligned GFN, written by hand. */
	{
		struct snp_psc_desc *d = (struct snp_psc_desc *)e->ghcb->shared_buffer;

		ghcb_invalidate(e->ghcb);
		d->hdr = (struct snp_psc_hdr){ 0, 0, 0 };
		d->entries[0] = snp_psc_entry((BASE + K4) >> 12, SNP_PSC_OP_SHARED, true);
		GHCB_SET(e->ghcb, sw_scratch, GHCB_GPA + GHCB_OFF(shared_buffer));
		assert_int_equal(ghcb_call(&e->g.insn, e->ghcb, GHCB_GPA, SVM_VMGEXIT_PSC, 0, 0),
				 0);
		assert_true(e->ghcb->sw_exit_info_2 != 0);
	}
	assert_int_equal(e->g.m.violations, 2);
	assert_non_null(strstr(e->g.m.last_rule, "R4"));
}

/* R5: the RMP is checked on access. Linux's and EDK2's shared-to-private order
 * (C-bit set and TLB flushed before the PSC and PVALIDATE) breaks no rule; an
 * access through the private mapping before PVALIDATE does (R3), as does one
 * through a mapping whose C-bit was cleared while the page is private. */
static void test_rule_r5_rmp_checked_on_access(void **state)
{
	struct env *e = *state;
	bool cf = true;

	assert_int_equal(snp_to_shared(&e->g.s, BASE, K4), 0);
	snp_model_note_ptes(&e->g.m, BASE, K4, true);
	snp_model_note_flush(&e->g.m, BASE, K4);
	assert_int_equal(snp_psc_msr(&e->g.s, BASE, SNP_PSC_OP_PRIVATE), 0);
	assert_int_equal(e->g.m.violations, 0);
	snp_model_note_access(&e->g.m, BASE, 8); /* before PVALIDATE: caught */
	assert_int_equal(e->g.m.violations, 1);
	assert_non_null(strstr(e->g.m.last_rule, "R3"));
	assert_int_equal(e->g.insn.pvalidate(e->g.insn.ctx, BASE, false, true, &cf), 0);
	assert_false(cf);
	snp_model_note_access(&e->g.m, BASE, 8);
	assert_int_equal(e->g.m.violations, 1);
	assert_range(e, BASE, K4, A | V | C);
	/* The C-bit cleared on a private page: the flush passes, the access not. */
	snp_model_note_ptes(&e->g.m, BASE + K4, K4, false);
	snp_model_note_flush(&e->g.m, BASE + K4, K4);
	assert_int_equal(e->g.m.violations, 1);
	snp_model_note_access(&e->g.m, BASE + K4, 8);
	assert_int_equal(e->g.m.violations, 2);
}

static void test_rule_r6_ghcb_registered_and_shared(void **state)
{
	struct env *e = env_new(false);
	struct ghcb *g = e->ghcb;

	(void)state;
	/* A GHCB exit before any registration. */
	ghcb_invalidate(g);
	assert_int_equal(ghcb_call(&e->g.insn, g, GHCB_GPA, SVM_EXIT_RDTSC, 0, 0),
			 GHCB_RESULT_ERROR);
	assert_int_equal(e->g.m.violations, 1);
	assert_non_null(strstr(e->g.m.last_rule, "R6"));
	/* Registering a page that is still private. */
	assert_int_equal(ghcb_register(&e->g.insn, BASE), 0);
	assert_int_equal(e->g.m.violations, 2);
	assert_non_null(strstr(e->g.m.last_rule, "R6"));
	/* Using it: private, so refused again. */
	assert_int_equal(ghcb_call(&e->g.insn, g, BASE, SVM_EXIT_RDTSC, 0, 0), GHCB_RESULT_ERROR);
	assert_int_equal(e->g.m.violations, 3);
	/* Done right: no violation, the exit goes through. */
	e->g.m.violations = 0;
	assert_int_equal(snp_ghcb_setup(&e->g.s, g, GHCB_GPA), 0);
	ghcb_invalidate(g);
	assert_int_equal(ghcb_call(&e->g.insn, g, GHCB_GPA, SVM_EXIT_RDTSC, 0, 0), 0);
	assert_int_equal(e->g.m.violations, 0);
	env_free(e);
}

/* ------------------------------------------------------------ per-CPU GHCBs */

/* Each CPU registers its own GHCB and uses it; the model keeps the GHCB MSR and
 * the registration per vCPU, and an exit through another CPU's page breaks R6. */
static void test_ghcb_per_cpu(void **state)
{
	struct env *e = env_new(false);
	struct ghcb *g1 = aligned_alloc(4096, sizeof(struct ghcb));
	const uint64_t gpa1 = GHCB_GPA - K4;
	/* Static: the guest and the model keep pointers to it past the test. */
	static struct snp_env_cpus cpus;

	(void)state;
	snp_env_two_cpus(&cpus, &e->g.s, &e->g.m);
	assert_int_equal(snp_ghcb_setup(&e->g.s, e->ghcb, GHCB_GPA), 0);
	assert_ptr_equal(cpus.slots[0].ghcb, e->ghcb);
	assert_null(e->g.s.slot.ghcb);
	cpus.cur = 1;
	/* CPU 1 has none yet: its PSCs go through the MSR protocol. */
	assert_int_equal(snp_to_shared(&e->g.s, BASE, 2 * K4), 0);
	assert_int_equal(e->g.s.stats.psc_batches, 0);
	assert_int_equal(snp_ghcb_setup(&e->g.s, g1, gpa1), 0);
	assert_true(e->g.m.ghcb_gpa[0] == GHCB_GPA);
	assert_true(e->g.m.ghcb_gpa[1] == gpa1);
	/* Now batched, through CPU 1's page. */
	assert_int_equal(snp_to_private(&e->g.s, BASE, 2 * K4), 0);
	assert_int_equal(e->g.s.stats.psc_batches, 1);
	cpus.cur = 0;
	assert_int_equal(snp_to_shared(&e->g.s, BASE + M2, M2), 0);
	assert_int_equal(e->g.s.stats.psc_batches, 2);
	assert_int_equal(e->g.m.violations, 0);
	/* CPU 0 exiting through CPU 1's page: not its registered GHCB. */
	ghcb_invalidate(g1);
	assert_int_equal(ghcb_call(&e->g.insn, g1, gpa1, SVM_EXIT_RDTSC, 0, 0), GHCB_RESULT_ERROR);
	assert_int_equal(e->g.m.violations, 1);
	assert_non_null(strstr(e->g.m.last_rule, "R6"));
	free(g1);
	env_free(e);
}

/* A handler's exchange in the middle of another on the same CPU: the page is
 * saved and put back, so the interrupted exchange finds its inputs. */
static void test_nested_exchange_restores_the_page(void **state)
{
	struct env *e = *state;
	struct ghcb *backup = aligned_alloc(4096, sizeof(struct ghcb));
	uint64_t gpa = 0;
	struct ghcb *outer, *inner;

	outer = snp_ghcb_get(&e->g.s, &gpa);
	assert_ptr_equal(outer, e->ghcb);
	assert_true(gpa == GHCB_GPA);
	GHCB_SET(outer, rax, 0x1234);
	memcpy(outer->shared_buffer, "outer", 6);
	/* Nested, without a backup page: counted, not saved. */
	inner = snp_ghcb_get(&e->g.s, &gpa);
	assert_ptr_equal(inner, outer);
	assert_false(ghcb_is_valid(inner, GHCB_OFF(rax))); /* invalidated for it */
	snp_ghcb_put(&e->g.s);
	assert_int_equal(e->g.s.slot.nested, 1);
	assert_false(ghcb_is_valid(outer, GHCB_OFF(rax)));
	/* With one: the outer request survives the inner exit. */
	GHCB_SET(outer, rax, 0x1234);
	e->g.s.slot.backup = backup;
	inner = snp_ghcb_get(&e->g.s, &gpa);
	memcpy(inner->shared_buffer, "inner", 6);
	assert_int_equal(ghcb_call(&e->g.insn, inner, gpa, SVM_EXIT_RDTSC, 0, 0), 0);
	snp_ghcb_put(&e->g.s);
	assert_int_equal(e->g.s.slot.nested, 2);
	assert_true(ghcb_is_valid(outer, GHCB_OFF(rax)));
	assert_true(outer->rax == 0x1234);
	assert_string_equal((const char *)outer->shared_buffer, "outer");
	snp_ghcb_put(&e->g.s);
	assert_int_equal(e->g.s.slot.depth, 0);
	/* A CPU without a GHCB: nothing begun. */
	e->g.s.slot.ghcb = NULL;
	assert_null(snp_ghcb_get(&e->g.s, &gpa));
	assert_int_equal(e->g.s.slot.depth, 0);
	free(backup);
}

/* ------------------------------------------------------------ AP creation */

static struct {
	unsigned int calls;
	uint32_t apic_id;
	unsigned int op;
	uint64_t vmsa, features;
	int answer;
} hv_ap;

static int test_ap_create(void *ctx, uint32_t apic_id, unsigned int op, uint64_t vmsa_gpa,
			  uint64_t sev_features)
{
	(void)ctx;
	hv_ap.calls++;
	hv_ap.apic_id = apic_id;
	hv_ap.op = op;
	hv_ap.vmsa = vmsa_gpa;
	hv_ap.features = sev_features;
	return hv_ap.answer;
}

/* An AP's VMSA carries the initial FPU/SSE control state Linux gives it
 * (wakeup_cpu_via_vmgexit()): MXCSR 0x1f80, FCW 0x40, FTW 0x5555; zeros would
 * unmask every SSE exception on the AP. */
/* The GHCB protocol version and the hypervisor's features, through the MSR
 * protocol, as Linux sev_es_negotiate_protocol() and get_hv_features(): KVM's
 * answer (versions 1..2, SNP and AP creation) is accepted; a hypervisor that
 * cannot speak version 2, or lacks the SNP feature, is refused with the
 * general reason Linux gives. */
static void test_negotiate_protocol_and_features(void **state)
{
	struct env *e = *state;
	unsigned int code = 99;

	assert_int_equal(snp_negotiate(&e->g.s, &code, e->why, sizeof(e->why)), 0);
	assert_int_equal(e->g.s.ghcb_version, 2);
	assert_true(e->g.s.hv_features == (GHCB_HV_FT_SNP | GHCB_HV_FT_SNP_AP_CREATION));
	e->g.m.ghcb_max = 1;
	assert_int_equal(snp_negotiate(&e->g.s, &code, e->why, sizeof(e->why)), SNP_ERR_REFUSED);
	assert_int_equal(code, GHCB_TERM_PROTOCOL_UNSUPPORTED);
	e->g.m.ghcb_max = 3;
	e->g.m.ghcb_min = 3;
	assert_int_equal(snp_negotiate(&e->g.s, &code, e->why, sizeof(e->why)), SNP_ERR_REFUSED);
	assert_int_equal(code, GHCB_TERM_PROTOCOL_UNSUPPORTED);
	e->g.m.ghcb_min = 2;
	e->g.m.hv_features = GHCB_HV_FT_SNP_AP_CREATION;
	assert_int_equal(snp_negotiate(&e->g.s, &code, e->why, sizeof(e->why)), SNP_ERR_REFUSED);
	assert_int_equal(code, GHCB_TERM_SNP_UNSUPPORTED);
	assert_non_null(strstr(e->why, "lack SEV-SNP"));
	e->g.m.hv_features = GHCB_HV_FT_SNP;
	assert_int_equal(snp_negotiate(&e->g.s, &code, e->why, sizeof(e->why)), 0);
	assert_false(e->g.s.hv_features & GHCB_HV_FT_SNP_AP_CREATION);
	assert_int_equal(e->g.m.violations, 0);
}

/* R10, the per-CPU TLB model: CPU 1 has reached page P (a private translation in
 * its TLB); CPU 0 makes P shared, flushing only its own TLB (the kernel's
 * conversion flushes the converting CPU and advances a generation). CPU 1
 * touching P before it drops its TLB uses the stale private translation of a
 * page the RMP now gives the hypervisor: caught. After mmu_tlb_sync()'s CR3
 * reload (snp_model_note_tlb_sync()), which the kernel makes before converted
 * memory is reached, the same access is correct: the generation scheme holds
 * where every CPU syncs first. */
static void test_rule_r10_stale_tlb_on_another_cpu(void **state)
{
	struct env *e = env_new(true);
	static struct snp_env_cpus cpus;
	struct snp_model_tlb *tlb = calloc(NPAGES, sizeof(*tlb));
	const uint64_t p = BASE + 3 * M2;

	(void)state;
	e->g.m.tlb = tlb;
	snp_env_two_cpus(&cpus, &e->g.s, &e->g.m);
	cpus.slots[0] = e->g.s.slot; /* CPU 0 keeps the GHCB env_new() set up */
	cpus.cur = 1;
	snp_model_note_access(&e->g.m, p, 8);
	cpus.cur = 0;
	assert_int_equal(snp_to_shared(&e->g.s, p, K4), 0);
	snp_model_note_access(&e->g.m, p, 8); /* CPU 0 flushed: fine */
	assert_int_equal(e->g.m.violations, 0);
	cpus.cur = 1;
	snp_model_note_access(&e->g.m, p, 8);
	assert_int_equal(e->g.m.violations, 1);
	assert_non_null(strstr(e->g.m.last_rule, "R10"));
	snp_model_note_tlb_sync(&e->g.m);
	snp_model_note_access(&e->g.m, p, 8);
	assert_int_equal(e->g.m.violations, 1);
	/* And back to private: CPU 1 again sees the shared mapping until it syncs. */
	cpus.cur = 0;
	assert_int_equal(snp_to_private(&e->g.s, p, K4), 0);
	cpus.cur = 1;
	snp_model_note_access(&e->g.m, p, 8);
	assert_int_equal(e->g.m.violations, 2);
	snp_model_note_tlb_sync(&e->g.m);
	snp_model_note_access(&e->g.m, p, 8);
	assert_int_equal(e->g.m.violations, 2);
	free(tlb);
	env_free(e);
}

static void test_vmsa_ap_defaults(void **state)
{
	struct snp_vmsa *v = aligned_alloc(4096, sizeof(*v));

	(void)state;
	memset(v, 0xa5, sizeof(*v));
	snp_vmsa_ap_defaults(v);
	assert_int_equal(v->mxcsr, 0x1f80);
	assert_int_equal(v->x87_fcw, 0x40);
	assert_int_equal(v->x87_ftw, 0x5555);
	assert_int_equal(v->xcr0, 1);
	assert_true(v->dr6 == 0xffff0ff0 && v->dr7 == 0x400 && v->rflags == 2);
	assert_true(v->rip == 0 && v->efer == 0 && v->sev_features == 0);
	free(v);
}

static void test_rule_r7_ap_create_needs_vmsa(void **state)
{
	struct env *e = *state;
	const uint64_t vmsa = BASE + 3 * M2 + K4;

	memset(&hv_ap, 0, sizeof(hv_ap));
	e->g.m.ap_create = test_ap_create;
	/* A private, validated page that RMPADJUST never made a VMSA. */
	assert_int_equal(snp_ap_create(&e->g.s, 3, SNP_AP_CREATE, vmsa, 1), SNP_ERR_IO);
	assert_int_equal(e->g.m.violations, 1);
	assert_non_null(strstr(e->g.m.last_rule, "R7"));
	assert_int_equal(hv_ap.calls, 0);
	/* Done right: the hypervisor is asked, with the request's fields. */
	e->g.m.violations = 0;
	assert_int_equal(snp_vmsa_mark(&e->g.s, vmsa, true), 0);
	assert_true(snp_model_page(&e->g.m, vmsa) & SNP_PG_VMSA);
	assert_int_equal(snp_ap_create(&e->g.s, 3, SNP_AP_CREATE, vmsa, 1), 0);
	assert_int_equal(hv_ap.calls, 1);
	assert_int_equal(hv_ap.apic_id, 3);
	assert_int_equal(hv_ap.op, SNP_AP_CREATE);
	assert_true(hv_ap.vmsa == vmsa && hv_ap.features == 1);
	/* The hypervisor refusing, and the destroy request. */
	hv_ap.answer = -1;
	assert_int_equal(snp_ap_create(&e->g.s, 3, SNP_AP_CREATE, vmsa, 1), SNP_ERR_IO);
	hv_ap.answer = 0;
	assert_int_equal(snp_ap_create(&e->g.s, 3, SNP_AP_DESTROY, vmsa, 0), 0);
	assert_int_equal(hv_ap.op, SNP_AP_DESTROY);
	assert_int_equal(snp_vmsa_mark(&e->g.s, vmsa, false), 0);
	assert_false(snp_model_page(&e->g.m, vmsa) & SNP_PG_VMSA);
	assert_int_equal(e->g.m.violations, 0);
	/* RMPADJUST of a shared page breaks R7; a 2 MiB-aligned VMSA is refused
	 * before any instruction. */
	assert_int_equal(snp_to_shared(&e->g.s, BASE, M2), 0);
	assert_int_equal(snp_vmsa_mark(&e->g.s, BASE + K4, true), SNP_ERR_IO);
	assert_int_equal(e->g.m.violations, 1);
	assert_non_null(strstr(e->g.m.last_rule, "R7"));
	assert_int_equal(snp_vmsa_mark(&e->g.s, BASE + 2 * M2, true), SNP_ERR_INVAL);
	/* Without a GHCB, no AP-creation request. */
	e->g.s.slot.ghcb = NULL;
	assert_int_equal(snp_ap_create(&e->g.s, 3, SNP_AP_CREATE, vmsa, 1), SNP_ERR_IO);
}

/* The kernel's snp_fault= kinds: every Nth PSC fails, every Nth 2 MiB
 * PVALIDATE is a size mismatch. */
static void test_faults_every_nth(void **state)
{
	struct env *e = *state;

	/* The PSC to private makes one 2 MiB RMP entry; the hypervisor splits it
	 * at the PVALIDATE: 4 KiB pages. */
	assert_int_equal(snp_to_shared(&e->g.s, BASE, M2), 0);
	assert_int_equal(e->g.s.stats.size_fallbacks, 1); /* the firmware's 4 KiB entries */
	e->g.m.faults.pval_mismatch_every = 1;
	assert_int_equal(snp_to_private(&e->g.s, BASE, M2), 0);
	assert_int_equal(e->g.s.stats.size_fallbacks, 2);
	assert_int_equal(e->g.s.stats.pvalidate_2m, 0);
	assert_int_equal(e->g.s.stats.pages_validated, 512);
	assert_false(snp_model_page(&e->g.m, BASE) & SNP_PG_RMP_2M);
	/* Without the fault, the same round trip validates one 2 MiB page. */
	e->g.m.faults.pval_mismatch_every = 0;
	assert_int_equal(snp_to_shared(&e->g.s, BASE + 4 * M2, M2), 0);
	assert_int_equal(snp_to_private(&e->g.s, BASE + 4 * M2, M2), 0);
	assert_int_equal(e->g.s.stats.pvalidate_2m, 1);
	e->g.m.faults.pval_mismatch_every = 0;
	e->g.m.faults.psc_error_every = 2;
	e->g.m.n_psc = 0;
	assert_int_equal(snp_to_shared(&e->g.s, BASE + M2, K4), 0);		 /* PSC 1 */
	assert_int_equal(snp_to_shared(&e->g.s, BASE + 2 * M2, K4), SNP_ERR_IO); /* PSC 2 */
	assert_int_equal(e->g.s.stats.rolled_back, 1);
	assert_range(e, BASE + 2 * M2, K4, A | V | C);
	assert_int_equal(e->g.m.violations, 0);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cbit_47_and_51),
		T(test_refusals),
		T(test_ghcb_setup),
		cmocka_unit_test(test_ghcb_registration_refused),
		T(test_round_trip_4k_and_2m),
		T(test_coherency_mitigation_after_validate),
		T(test_unaligned_range_mixes_sizes),
		T(test_bad_arguments),
		T(test_2m_falls_back_to_4k),
		T(test_exactly_full_batch),
		T(test_early_return_in_the_middle),
		T(test_psc_resumes_at_cur_page),
		T(test_psc_error_rolls_back),
		T(test_psc_without_progress_ends),
		T(test_psc_going_backwards_is_a_lie),
		cmocka_unit_test(test_msr_protocol_without_ghcb),
		T(test_cf_during_rescind_is_a_lie),
		T(test_cf_during_validate_is_a_lie),
		T(test_pvalidate_failure_and_4k_mismatch),
		T(test_unrecoverable_failure_leaks),
		T(test_page_table_failure_rolls_back),
		T(test_rule_r1_rescind_before_psc_shared),
		T(test_rule_r2_validate_after_psc_private),
		T(test_rule_r3_no_access_in_between),
		T(test_rule_r4_2m_only_when_aligned),
		T(test_rule_r5_rmp_checked_on_access),
		cmocka_unit_test(test_rule_r6_ghcb_registered_and_shared),
		cmocka_unit_test(test_ghcb_per_cpu),
		T(test_nested_exchange_restores_the_page),
		T(test_rule_r7_ap_create_needs_vmsa),
		cmocka_unit_test(test_vmsa_ap_defaults),
		cmocka_unit_test(test_rule_r10_stale_tlb_on_another_cpu),
		T(test_negotiate_protocol_and_features),
		T(test_faults_every_nth),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
