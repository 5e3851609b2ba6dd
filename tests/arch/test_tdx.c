/* SPDX-License-Identifier: MIT */
/*
 * test_tdx.c - the TDX guest protocol (arch/x86_64/cc/tdx.c) against the model of
 * the TDX module and the VMM (arch/x86_64/cc/tdx_model.c): every status path of
 * MapGPA and TDG.MEM.PAGE.ACCEPT, partial completion with and without progress,
 * a resume address outside the range, 2 MiB -> 4 KiB fallback, busy, a host that
 * lies about a page being accepted, rollback of a range that failed half way,
 * leaking what cannot be rolled back, the shared bit for GPAW 48 and 52, and the
 * refusal of a TD without SEPT_VE_DISABLE. After every conversion the model's
 * rules (no private mapping of a shared or pending page) must hold; tests that
 * break the order on purpose show that the model notices.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "arch/x86_64/cc/tdx.h"
#include "arch/x86_64/cc/tdx_model.h"
#include "arch/x86_64/mm/tlb_gen.h"

#define BASE UINT64_C(0x40000000) /* 1 GiB, 2 MiB aligned */
#define NPAGES 4096u		  /* 16 MiB modelled */
#define K4 UINT64_C(4096)
#define M2 (UINT64_C(2) << 20)

/**
 * struct env - a TD on the model with page tables the test owns.
 * @m: the model.
 * @insn: TDCALL routed to it.
 * @t: the protocol state.
 * @pte_fail: set_pte_shared fails while set.
 * @flushes: TLB flushes seen; @cache_flushes: cache flushes seen.
 * @cur: the CPU the protocol and the accesses run on (R7, two CPUs).
 * @flush_every_cpu: a TLB flush is Linux's cpa_flush(), on every CPU at once;
 *	otherwise it is the kernel's: the calling CPU page by page, then the
 *	generation advances (mmu_tlb_shootdown()).
 * @kgen: the kernel's TLB generation; @kseen: per CPU, the one it synced to.
 */
struct env {
	struct tdx_model m;
	uint8_t state[NPAGES], pte[NPAGES];
	struct tee_insn_ops insn;
	struct tdx t;
	bool pte_fail;
	unsigned int flushes, cache_flushes;
	char why[160];
	unsigned int cur;
	bool flush_every_cpu;
	uint64_t kgen, kseen[2];
};

static int env_set_pte(void *ctx, uint64_t gpa, uint64_t len, bool shared)
{
	struct env *e = ctx;

	if (e->pte_fail)
		return -12;
	tdx_model_note_ptes(&e->m, gpa, len, shared);
	return 0;
}

static void env_flush_tlb(void *ctx, uint64_t gpa, uint64_t len)
{
	struct env *e = ctx;
	unsigned int me = e->cur;

	e->flushes++;
	if (!e->flush_every_cpu) {
		tdx_model_note_flush(&e->m, gpa, len);
		e->kgen++; /* mmu_tlb_shootdown() */
		return;
	}
	for (e->cur = 0; e->cur < 2; e->cur++)
		tdx_model_note_flush(&e->m, gpa, len);
	e->cur = me;
}

static unsigned int env_cpu(void *ctx)
{
	return ((struct env *)ctx)->cur;
}

/* The kernel's mmu_tlb_sync() on the current CPU: a whole-TLB drop when the
 * generation moved since this CPU's last one (the rule of tlb_gen.h). */
static void env_tlb_sync(struct env *e)
{
	if (!tlb_gen_needs_sync(e->kseen[e->cur], e->kgen))
		return;
	tdx_model_note_tlb_sync(&e->m);
	e->kseen[e->cur] = e->kgen;
}

static void env_flush_cache(void *ctx, uint64_t gpa, uint64_t len)
{
	(void)gpa;
	(void)len;
	((struct env *)ctx)->cache_flushes++;
}

static struct env *env_new(unsigned int gpaw)
{
	struct env *e = calloc(1, sizeof(*e));
	const struct cc_pt_ops pt = { env_set_pte, env_flush_tlb, env_flush_cache, e, NULL };

	tdx_model_init(&e->m, BASE, NPAGES, e->state, e->pte);
	e->m.gpaw = gpaw;
	tdx_model_insn(&e->m, &e->insn);
	assert_int_equal(tdx_init(&e->t, &e->insn, &pt, e->why, sizeof(e->why)), 0);
	return e;
}

static int setup(void **state)
{
	*state = env_new(48);
	return 0;
}

static int teardown(void **state)
{
	free(*state);
	return 0;
}

/* Every page of [gpa, gpa + len) is in @st and mapped with @shared. */
static void assert_range(struct env *e, uint64_t gpa, uint64_t len, int st, bool shared)
{
	for (uint64_t a = gpa; a < gpa + len; a += K4) {
		assert_int_equal(tdx_model_page(&e->m, a), st);
		assert_int_equal(e->pte[(a - BASE) / K4], shared);
	}
}

/* ------------------------------------------------------------ TD information */

static void test_shared_bit_for_gpaw_48_and_52(void **state)
{
	struct env *e;

	(void)state;
	e = env_new(48);
	assert_int_equal(e->t.gpaw, 48);
	assert_true(e->t.shared_bit == UINT64_C(1) << 47);
	free(e);
	e = env_new(52);
	assert_true(e->t.shared_bit == UINT64_C(1) << 51);
	/* MapGPA carries the bit for shared and not for private. */
	assert_int_equal(tdx_to_shared(&e->t, BASE, K4), 0);
	assert_true(e->m.last_r12 == (BASE | UINT64_C(1) << 51));
	assert_int_equal(tdx_to_private(&e->t, BASE, K4), 0);
	assert_true(e->m.last_r12 == BASE);
	free(e);
}

static void test_refusals(void **state)
{
	struct env *e = *state;
	struct tdx t;
	char why[160];

	/* No SEPT_VE_DISABLE: refused, unless a debug TD. */
	e->m.attributes = 0;
	assert_int_equal(tdx_init(&t, &e->insn, &e->t.pt, why, sizeof(why)), TDX_ERR_REFUSED);
	assert_non_null(strstr(why, "SEPT_VE_DISABLE"));
	e->m.attributes = TDX_ATTR_DEBUG;
	assert_int_equal(tdx_init(&t, &e->insn, &e->t.pt, why, sizeof(why)), 0);
	/* A GPA width a TD cannot have. */
	e->m.attributes = TDX_ATTR_SEPT_VE_DISABLE;
	e->m.gpaw = 40;
	assert_int_equal(tdx_init(&t, &e->insn, &e->t.pt, why, sizeof(why)), TDX_ERR_REFUSED);
	assert_non_null(strstr(why, "GPA width 40"));
	e->m.gpaw = 0;
	assert_int_equal(tdx_init(&t, &e->insn, &e->t.pt, why, sizeof(why)), TDX_ERR_REFUSED);
}

static uint64_t failing_tdcall(void *ctx, struct tdcall_regs *r)
{
	(void)ctx;
	return r->rax = TDX_OPERAND_INVALID;
}

static void test_info_failure_refused(void **state)
{
	const struct tee_insn_ops bad = { .tdcall = failing_tdcall };
	struct tdx t;
	char why[160];

	(void)state;
	assert_int_equal(tdx_init(&t, &bad, NULL, why, sizeof(why)), TDX_ERR_REFUSED);
	assert_non_null(strstr(why, "TDG.VP.INFO failed"));
}

/* ------------------------------------------------------------ conversions */

static void test_round_trip_4k_and_2m(void **state)
{
	struct env *e = *state;

	assert_int_equal(tdx_to_shared(&e->t, BASE + K4, 3 * K4), 0);
	assert_range(e, BASE + K4, 3 * K4, TDX_PAGE_SHARED, true);
	assert_range(e, BASE, K4, TDX_PAGE_ACCEPTED, false);
	assert_int_equal(tdx_to_private(&e->t, BASE + K4, 3 * K4), 0);
	assert_range(e, BASE + K4, 3 * K4, TDX_PAGE_ACCEPTED, false);
	assert_int_equal(e->t.stats.accepted_4k, 3);

	assert_int_equal(tdx_to_shared(&e->t, BASE + M2, 2 * M2), 0);
	assert_range(e, BASE + M2, 2 * M2, TDX_PAGE_SHARED, true);
	assert_int_equal(tdx_to_private(&e->t, BASE + M2, 2 * M2), 0);
	assert_range(e, BASE + M2, 2 * M2, TDX_PAGE_ACCEPTED, false);
	assert_int_equal(e->t.stats.accepted_2m, 2);
	assert_int_equal(e->t.stats.to_shared, 2);
	assert_int_equal(e->t.stats.to_private, 2);
	assert_int_equal(e->t.stats.map_gpa_calls, 4);
	assert_true(e->cache_flushes >= 4 && e->flushes >= 4);
	assert_int_equal(e->m.violations, 0);
}

static void test_unaligned_range_mixes_sizes(void **state)
{
	struct env *e = *state;

	/* 4 KiB before a 2 MiB boundary, a whole 2 MiB, 4 KiB after. */
	assert_int_equal(tdx_to_shared(&e->t, BASE + M2 - K4, M2 + 2 * K4), 0);
	assert_int_equal(tdx_to_private(&e->t, BASE + M2 - K4, M2 + 2 * K4), 0);
	assert_int_equal(e->t.stats.accepted_2m, 1);
	assert_int_equal(e->t.stats.accepted_4k, 2);
	assert_int_equal(e->m.violations, 0);
}

static void test_bad_arguments(void **state)
{
	struct env *e = *state;

	assert_int_equal(tdx_to_shared(&e->t, BASE + 1, K4), TDX_ERR_INVAL);
	assert_int_equal(tdx_to_shared(&e->t, BASE, K4 + 1), TDX_ERR_INVAL);
	assert_int_equal(tdx_to_shared(&e->t, BASE, 0), TDX_ERR_INVAL);
	assert_int_equal(tdx_to_private(&e->t, e->t.shared_bit, K4), TDX_ERR_INVAL);
	assert_int_equal(tdx_to_private(&e->t, UINT64_MAX & ~(K4 - 1), 2 * K4), TDX_ERR_INVAL);
	assert_int_equal(e->m.n_map, 0);
}

static void test_2m_falls_back_to_4k(void **state)
{
	struct env *e = *state;

	e->m.faults.vmm_4k_only = true;
	assert_int_equal(tdx_to_shared(&e->t, BASE, M2), 0);
	assert_int_equal(tdx_to_private(&e->t, BASE, M2), 0);
	assert_int_equal(e->t.stats.size_fallbacks, 1);
	assert_int_equal(e->t.stats.accepted_4k, 512);
	assert_int_equal(e->t.stats.accepted_2m, 0);
	assert_range(e, BASE, M2, TDX_PAGE_ACCEPTED, false);
}

static void test_partial_map_gpa_with_progress(void **state)
{
	struct env *e = *state;

	e->m.faults.map_partial_every = 1; /* every call does half */
	assert_int_equal(tdx_to_shared(&e->t, BASE, 16 * K4), 0);
	assert_range(e, BASE, 16 * K4, TDX_PAGE_SHARED, true);
	assert_true(e->t.stats.map_gpa_retries >= 4); /* 16 -> 8 -> 4 -> 2 -> 1 */
	assert_int_equal(tdx_to_private(&e->t, BASE, 16 * K4), 0);
	assert_range(e, BASE, 16 * K4, TDX_PAGE_ACCEPTED, false);
	assert_int_equal(e->m.violations, 0);
}

/* A VMM that answers "retry" from the start for ever: each MapGPA ends after
 * TDX_MAP_GPA_MAX_STALLS rounds; the rollback stalls too, so the range leaks. */
static void test_map_gpa_without_progress_ends(void **state)
{
	struct env *e = *state;

	e->m.faults.map_stall_every = 1;
	assert_int_equal(tdx_to_shared(&e->t, BASE, 4 * K4), TDX_ERR_LEAKED);
	assert_int_equal(e->m.n_map, 2 * TDX_MAP_GPA_MAX_STALLS);
	assert_int_equal(e->t.stats.leaked_pages, 4);
	assert_int_equal(e->m.violations, 0);
}

/* Stalls that end the conversion, then a VMM that answers the rollback. */
static void test_stall_then_rollback(void **state)
{
	struct env *e = *state;

	e->m.faults.map_stall_until = TDX_MAP_GPA_MAX_STALLS;
	assert_int_equal(tdx_to_shared(&e->t, BASE, 4 * K4), TDX_ERR_IO);
	assert_int_equal(e->t.stats.rolled_back, 1);
	assert_int_equal(e->t.stats.leaked_pages, 0);
	assert_range(e, BASE, 4 * K4, TDX_PAGE_ACCEPTED, false);
	assert_int_equal(e->m.violations, 0);
}

static void test_resume_address_outside_range(void **state)
{
	struct env *e = *state;

	/* Call 1 converts half and says "retry"; call 2 names an address past the
	 * range: the conversion fails there and rolls back. */
	e->m.faults.map_partial_at = 1;
	e->m.faults.map_bad_resume_every = 2;
	assert_int_equal(tdx_to_shared(&e->t, BASE, 8 * K4), TDX_ERR_IO);
	assert_int_equal(e->t.stats.rolled_back, 1);
	assert_range(e, BASE, 8 * K4, TDX_PAGE_ACCEPTED, false);
	assert_int_equal(e->m.violations, 0);
	/* Every answer out of range: nothing trusted, the range leaks. */
	e->m.faults.map_bad_resume_every = 1;
	assert_int_equal(tdx_to_shared(&e->t, BASE + M2, 4 * K4), TDX_ERR_LEAKED);
	assert_int_equal(e->t.stats.leaked_pages, 4);
}

static void test_mid_range_failure_rolls_back_whole_range(void **state)
{
	struct env *e = *state;

	/* Half the range becomes shared, then MapGPA fails: the half that was
	 * converted is made private and accepted again, the rest is found
	 * already accepted (fine in a rollback), all mapped private. */
	e->m.faults.map_partial_at = 1;
	e->m.faults.map_fail_at = 2;
	assert_int_equal(tdx_to_shared(&e->t, BASE, 8 * K4), TDX_ERR_IO);
	assert_int_equal(e->t.stats.rolled_back, 1);
	assert_int_equal(e->t.stats.leaked_pages, 0);
	assert_range(e, BASE, 8 * K4, TDX_PAGE_ACCEPTED, false);
	assert_int_equal(e->t.stats.accepted_4k, 4);
	assert_int_equal(e->m.violations, 0);

	/* To private, failing half way through the accepts: back to shared. */
	assert_int_equal(tdx_to_shared(&e->t, BASE + M2, 8 * K4), 0);
	e->m.faults.accept_error_every = 5;
	e->m.n_accept = 0;
	assert_int_equal(tdx_to_private(&e->t, BASE + M2, 8 * K4), TDX_ERR_IO);
	assert_range(e, BASE + M2, 8 * K4, TDX_PAGE_SHARED, true);
	assert_int_equal(e->m.violations, 0);
}

static void test_accept_busy_is_retried(void **state)
{
	struct env *e = *state;

	e->m.faults.accept_busy_every = 2;
	assert_int_equal(tdx_to_shared(&e->t, BASE, 4 * K4), 0);
	assert_int_equal(tdx_to_private(&e->t, BASE, 4 * K4), 0);
	assert_true(e->t.stats.busy_retries >= 2);
	assert_range(e, BASE, 4 * K4, TDX_PAGE_ACCEPTED, false);

	/* Busy for ever: a bounded number of tries, then an error. */
	e->m.faults.accept_busy_every = 1;
	assert_int_equal(tdx_to_shared(&e->t, BASE, K4), 0);
	assert_int_equal(tdx_to_private(&e->t, BASE, K4), TDX_ERR_IO);
	assert_range(e, BASE, K4, TDX_PAGE_SHARED, true);
}

static void test_already_accepted_during_conversion_is_a_lie(void **state)
{
	struct env *e = *state;

	assert_int_equal(tdx_to_shared(&e->t, BASE, 4 * K4), 0);
	e->m.faults.map_keep_accepted_every = 1;
	assert_int_equal(tdx_to_private(&e->t, BASE, 4 * K4), TDX_ERR_IO);
	assert_int_equal(e->t.stats.rolled_back, 1);
	assert_range(e, BASE, 4 * K4, TDX_PAGE_SHARED, true);
	/* Unaccepted memory at boot, partly accepted by the firmware: fine there. */
	tdx_model_set_pages(&e->m, BASE + M2, M2, TDX_PAGE_PENDING);
	tdx_model_set_pages(&e->m, BASE + M2, K4, TDX_PAGE_ACCEPTED);
	assert_int_equal(tdx_accept_unaccepted(&e->t, BASE + M2, M2), 0);
	assert_range(e, BASE + M2, M2, TDX_PAGE_ACCEPTED, false);
	assert_int_equal(e->m.violations, 0);
}

static void test_unrecoverable_failure_leaks(void **state)
{
	struct env *e = *state;

	assert_int_equal(tdx_to_shared(&e->t, BASE, 4 * K4), 0);
	e->m.faults.map_error_every = 1; /* the conversion and its rollback fail */
	assert_int_equal(tdx_to_private(&e->t, BASE, 4 * K4), TDX_ERR_LEAKED);
	assert_int_equal(e->t.stats.leaked_pages, 4);
	assert_int_equal(e->t.stats.failed, 1);
	/* The mappings were never made private: still no rule broken. */
	assert_int_equal(e->m.violations, 0);
}

static void test_page_table_failure_changes_nothing(void **state)
{
	struct env *e = *state;

	e->pte_fail = true;
	assert_int_equal(tdx_to_shared(&e->t, BASE, 4 * K4), TDX_ERR_IO);
	assert_int_equal(e->m.n_map, 0);
	assert_range(e, BASE, 4 * K4, TDX_PAGE_ACCEPTED, false);
}

/* ------------------------------------------------------------ the model's rules */

/* The protocol in the wrong order is caught: the model is not a rubber stamp. */
static void test_model_catches_wrong_order(void **state)
{
	struct env *e = *state;

	/* MapGPA to shared while the guest still maps the page private (R4). */
	assert_int_equal(tdx_vmcall(&e->t, TDVMCALL_MAP_GPA, BASE | e->t.shared_bit, K4, 0, 0,
				    NULL),
			 TDVMCALL_SUCCESS);
	assert_int_equal(e->m.violations, 1);
	assert_non_null(strstr(e->m.last_rule, "R4"));
	/* Mapping a page private before it was accepted (R5). */
	tdx_model_note_ptes(&e->m, BASE + K4, K4, true);
	assert_int_equal(tdx_vmcall(&e->t, TDVMCALL_MAP_GPA, (BASE + K4) | e->t.shared_bit, K4, 0,
				    0, NULL),
			 TDVMCALL_SUCCESS);
	assert_int_equal(tdx_vmcall(&e->t, TDVMCALL_MAP_GPA, BASE + K4, K4, 0, 0, NULL),
			 TDVMCALL_SUCCESS);
	tdx_model_note_ptes(&e->m, BASE + K4, K4, false);
	tdx_model_note_flush(&e->m, BASE + K4, K4);
	assert_int_equal(e->m.violations, 2);
	assert_non_null(strstr(e->m.last_rule, "R5"));
	/* Misaligned MapGPA is refused (R3). */
	assert_true(tdx_vmcall(&e->t, TDVMCALL_MAP_GPA, BASE + 8, K4, 0, 0, NULL) ==
		    TDVMCALL_INVALID_OPERAND);
}

/* ------------------------------------------------------------ R7, per-CPU TLBs */

/* Two CPUs, per-CPU TLBs on. */
static struct tdx_model_tlb *env_two_cpus(struct env *e)
{
	struct tdx_model_tlb *tlb = calloc(NPAGES, sizeof(*tlb));

	e->m.tlb = tlb;
	e->m.num_vcpus = 2;
	e->m.cpu = env_cpu;
	e->m.cpu_ctx = e;
	return tlb;
}

/*
 * R7: CPU 1 has reached page P (its TLB holds the private translation); CPU 0
 * makes P shared the kernel's way (its own flush, then the generation). With
 * Linux's order required, the MapGPA itself is refused: CPU 1 still held a
 * stale translation. Without it (the platform half only), the MapGPA is
 * counted, and CPU 1's access before it syncs is refused; after its sync
 * (mmu_tlb_sync()) the access is correct. Both directions. Linux's own
 * flush, on every CPU before the hypercall, passes both halves.
 */
static void test_rule_r7_stale_tlb_on_another_cpu(void **state)
{
	struct env *e = *state;
	struct tdx_model_tlb *tlb = env_two_cpus(e);
	const uint64_t p = BASE + 5 * K4, q = BASE + 9 * K4;

	/* Linux's order required: the conversion itself is caught. */
	e->m.tlb_linux_order = true;
	e->cur = 1;
	tdx_model_note_access(&e->m, p, 8);
	e->cur = 0;
	assert_int_equal(tdx_to_shared(&e->t, p, K4), 0);
	assert_int_equal(e->m.violations, 1);
	assert_non_null(strstr(e->m.last_rule, "R7 (Linux's order"));
	assert_non_null(strstr(e->m.last_rule, "cpa_flush()"));
	assert_int_equal(e->m.n_stale_at_map, 1);

	/* The platform half: the stale translation is only wrong when used. */
	e->m.tlb_linux_order = false;
	e->cur = 1;
	env_tlb_sync(e);
	tdx_model_note_access(&e->m, q, 8);
	e->cur = 0;
	assert_int_equal(tdx_to_shared(&e->t, q, K4), 0);
	assert_int_equal(e->m.violations, 1);
	assert_int_equal(e->m.n_stale_at_map, 2);
	tdx_model_note_access(&e->m, q, 8); /* CPU 0 flushed: fine */
	assert_int_equal(e->m.violations, 1);
	e->cur = 1;
	tdx_model_note_access(&e->m, q, 8);
	assert_int_equal(e->m.violations, 2);
	assert_non_null(strstr(e->m.last_rule, "R7: a CPU reached a converted page through a "
					       "stale translation"));
	env_tlb_sync(e);
	tdx_model_note_access(&e->m, q, 8);
	assert_int_equal(e->m.violations, 2);
	/* Back to private: CPU 1 keeps the shared translation until it syncs,
	 * and a write through it would hand the host a private page's data. */
	e->cur = 0;
	assert_int_equal(tdx_to_private(&e->t, q, K4), 0);
	e->cur = 1;
	tdx_model_note_access(&e->m, q, 8);
	assert_int_equal(e->m.violations, 3);
	env_tlb_sync(e);
	tdx_model_note_access(&e->m, q, 8);
	assert_int_equal(e->m.violations, 3);

	/* Linux's flush (cpa_flush() on every CPU) passes both halves. */
	e->m.tlb_linux_order = true;
	e->flush_every_cpu = true;
	tdx_model_note_access(&e->m, p + K4, 8);
	e->cur = 0;
	assert_int_equal(tdx_to_shared(&e->t, p + K4, K4), 0);
	e->cur = 1;
	tdx_model_note_access(&e->m, p + K4, 8);
	assert_int_equal(e->m.violations, 3);
	assert_int_equal(e->m.n_stale_at_map, 2);
	free(tlb);
}

/*
 * The kernel's scheme with two CPUs: each converts pages (tdx.c, flushing only
 * itself and advancing the generation) and touches pages the other converted,
 * after mmu_tlb_sync() as the kernel's DMA lock and work hand-off make it
 * (kernel/dma_port_kernel.c kd_lock(), smp.c ap_wait_for_work()). The MapGPAs
 * happen while the other CPU holds stale translations (counted), and no access
 * ever goes through one: the platform half of R7 holds.
 */
static void test_two_cpus_generation_scheme(void **state)
{
	struct env *e = *state;
	struct tdx_model_tlb *tlb = env_two_cpus(e);

	for (unsigned int round = 0; round < 8; round++) {
		uint64_t a = BASE + round * 2 * K4, b = a + K4;

		/* Both CPUs have used both pages as private memory. */
		for (e->cur = 0; e->cur < 2; e->cur++) {
			env_tlb_sync(e);
			tdx_model_note_access(&e->m, a, 2 * K4);
		}
		/* CPU 0 converts a, CPU 1 converts b, each under the (modelled)
		 * lock: sync, convert. */
		e->cur = 0;
		env_tlb_sync(e);
		assert_int_equal(tdx_to_shared(&e->t, a, K4), 0);
		e->cur = 1;
		env_tlb_sync(e);
		assert_int_equal(tdx_to_shared(&e->t, b, K4), 0);
		/* Each uses the other's shared page, after its sync. */
		for (e->cur = 0; e->cur < 2; e->cur++) {
			env_tlb_sync(e);
			tdx_model_note_access(&e->m, a, 2 * K4);
		}
		/* And back. */
		e->cur = round & 1;
		env_tlb_sync(e);
		assert_int_equal(tdx_to_private(&e->t, a, 2 * K4), 0);
		e->cur ^= 1;
		env_tlb_sync(e);
		tdx_model_note_access(&e->m, a, 2 * K4);
	}
	assert_int_equal(e->m.violations, 0);
	assert_true(e->m.n_stale_at_map > 0); /* the generation scheme, not Linux's */
	free(tlb);
}

/* ------------------------------------------------------------ VMCALL, #VE */

static void test_vmcall_and_ve_info(void **state)
{
	struct env *e = *state;
	struct tdx_ve_info ve;
	uint64_t out = 0;

	e->m.vmcall_r11 = 0xab;
	assert_true(tdx_vmcall(&e->t, TDVMCALL_IO, 1, 0, 0x3f8, 0, &out) == TDVMCALL_SUCCESS);
	assert_int_equal(out, 0xab);
	assert_int_equal(e->m.last_fn, TDVMCALL_IO);
	assert_int_equal(e->m.last_r12, 1);
	assert_int_equal(e->m.last_r14, 0x3f8);

	e->m.ve.exit_reason = 48;
	e->m.ve.gpa = 0xfeb00000;
	e->m.ve.instr_len = 3;
	assert_int_equal(tdx_ve_info_get(&e->t, &ve), 0);
	assert_int_equal(ve.exit_reason, 48);
	assert_true(ve.gpa == 0xfeb00000);

	tdx_report_fatal(&e->t, "sluice: #VE on private memory");
	assert_int_equal(e->m.fatal_reports, 1);
	assert_memory_equal(&e->m.last_r14, "sluice: ", 8);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shared_bit_for_gpaw_48_and_52),
		T(test_refusals),
		cmocka_unit_test(test_info_failure_refused),
		T(test_round_trip_4k_and_2m),
		T(test_unaligned_range_mixes_sizes),
		T(test_bad_arguments),
		T(test_2m_falls_back_to_4k),
		T(test_partial_map_gpa_with_progress),
		T(test_map_gpa_without_progress_ends),
		T(test_stall_then_rollback),
		T(test_resume_address_outside_range),
		T(test_mid_range_failure_rolls_back_whole_range),
		T(test_accept_busy_is_retried),
		T(test_already_accepted_during_conversion_is_a_lie),
		T(test_unrecoverable_failure_leaks),
		T(test_page_table_failure_changes_nothing),
		T(test_model_catches_wrong_order),
		T(test_rule_r7_stale_tlb_on_another_cpu),
		T(test_two_cpus_generation_scheme),
		T(test_vmcall_and_ve_info),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
