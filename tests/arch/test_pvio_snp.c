/* SPDX-License-Identifier: MIT */
/*
 * test_pvio_snp.c - the SEV-SNP paravirtual I/O backend (arch/x86_64/cc/pvio_snp.c)
 * against the model of the hypervisor (arch/x86_64/cc/snp_model.c): each operation
 * becomes the NAE event and GHCB fields the GHCB specification names, MMIO data
 * travels through the shared buffer, CPUID is answered from the CPUID page and
 * never asks the hypervisor, answers not marked valid are not trusted, and a
 * failing hypervisor reads as a device that does not answer. No exit breaks a
 * model rule (the GHCB is registered and shared).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "arch/x86_64/cc/pvio_snp.h"
#include "arch/x86_64/cc/snp_model.h"
#include "tests/fakes/snp_env.h"

#define BASE UINT64_C(0x100000)
#define NPAGES 16u
#define GHCB_GPA (BASE + 4 * 4096)

struct env {
	struct snp_guest g;
	uint8_t page[NPAGES];
	struct ghcb *ghcb;
	struct snp_cpuid_page cpuid;
	struct pvio_snp p;
};

static int setup(void **state)
{
	struct env *e = calloc(1, sizeof(*e));
	const struct cc_pt_ops pt = { snp_env_note_ptes, snp_env_note_flush, NULL, &e->g.m, NULL };

	snp_env_start(&e->g, e->page, BASE, NPAGES, &pt, SNP_ENV_SEV_STATUS, snp_env_cpuid_c51,
		      NULL, 0);
	e->ghcb = aligned_alloc(4096, sizeof(struct ghcb));
	assert_int_equal(snp_ghcb_setup(&e->g.s, e->ghcb, GHCB_GPA), 0);
	e->cpuid.count = 3;
	e->cpuid.fn[0] = (struct snp_cpuid_fn){ .eax_in = 0, .eax = 0x10, .ebx = 0x68747541 };
	e->cpuid.fn[1] = (struct snp_cpuid_fn){ .eax_in = 7, .ecx_in = 0, .ebx = 0x219c91a9 };
	e->cpuid.fn[2] = (struct snp_cpuid_fn){ .eax_in = 7, .ecx_in = 1, .eax = 0x30 };
	pvio_snp_init(&e->p, &e->g.s, &e->cpuid);
	*state = e;
	return 0;
}

static int teardown(void **state)
{
	struct env *e = *state;

	assert_int_equal(e->g.m.violations, 0);
	free(e->ghcb);
	free(e);
	return 0;
}

static void test_port_io(void **state)
{
	struct env *e = *state;
	const struct pvio_ops *o = &e->p.ops;

	e->g.m.io_value = 0xabcd1234;
	assert_int_equal(o->io_in(o->ctx, 0x3fd, 1), 0x34);
	assert_true(e->g.m.last_exit_code == SVM_EXIT_IOIO);
	/* Port in [31:16], IN, 8-bit data, 64-bit address size. */
	assert_true(e->g.m.last_info1 == ((UINT64_C(0x3fd) << 16) | (1u << 9) | (1u << 4) | 1));
	assert_int_equal(o->io_in(o->ctx, 0x608, 4), 0xabcd1234);
	o->io_out(o->ctx, 0x3f8, 1, 0x141);
	assert_true(e->g.m.last_info1 == ((UINT64_C(0x3f8) << 16) | (1u << 9) | (1u << 4)));
	assert_true(e->g.m.last_rax == 0x41);
	o->io_out(o->ctx, 0xcf8, 4, 0x80001000);
	assert_true(e->g.m.last_rax == 0x80001000);
	assert_true(e->g.m.last_info1 == ((UINT64_C(0xcf8) << 16) | (1u << 9) | (1u << 6)));
}

static void test_mmio_through_the_shared_buffer(void **state)
{
	struct env *e = *state;
	const struct pvio_ops *o = &e->p.ops;

	e->g.m.mmio_value = 0x1122334455667788ull;
	assert_int_equal(o->mmio_read(o->ctx, 0xfe000010, 2), 0x7788);
	assert_true(e->g.m.last_exit_code == SVM_VMGEXIT_MMIO_READ);
	assert_true(e->g.m.last_info1 == 0xfe000010 && e->g.m.last_info2 == 2);
	assert_true(o->mmio_read(o->ctx, 0xfe000018, 8) == 0x1122334455667788ull);
	o->mmio_write(o->ctx, 0xfe000014, 4, 0xffffffff00000005ull);
	assert_true(e->g.m.last_exit_code == SVM_VMGEXIT_MMIO_WRITE);
	assert_true(e->g.m.last_info1 == 0xfe000014 && e->g.m.last_info2 == 4);
	assert_true(e->g.m.last_mmio == 5);
}

static void test_msr(void **state)
{
	struct env *e = *state;
	const struct pvio_ops *o = &e->p.ops;

	e->g.m.msr_value = 0x12345678fee00900ull;
	assert_true(o->rdmsr(o->ctx, 0x1b) == 0x12345678fee00900ull);
	assert_true(e->g.m.last_exit_code == SVM_EXIT_MSR && e->g.m.last_info1 == 0);
	assert_true(e->g.m.last_rcx == 0x1b);
	o->wrmsr(o->ctx, 0x830, 0x100004000ull);
	assert_true(e->g.m.last_info1 == 1 && e->g.m.last_rcx == 0x830);
	assert_true(e->g.m.last_rax == 0x4000 && e->g.m.last_rdx == 1);
}

static void test_cpuid_from_the_page(void **state)
{
	struct env *e = *state;
	const struct pvio_ops *o = &e->p.ops;
	unsigned long exits = e->g.m.n_exit;
	uint32_t r[4];

	o->cpuid(o->ctx, 0, 0, r);
	assert_int_equal(r[0], 0x10);
	assert_int_equal(r[1], 0x68747541);
	/* Sub-leaves of an indexed leaf are told apart. */
	o->cpuid(o->ctx, 7, 1, r);
	assert_int_equal(r[0], 0x30);
	o->cpuid(o->ctx, 7, 0, r);
	assert_int_equal(r[1], 0x219c91a9);
	/* Leaf 0 is not indexed: ECX does not matter. */
	o->cpuid(o->ctx, 0, 5, r);
	assert_int_equal(r[0], 0x10);
	/* A missing leaf: zeros, counted. */
	o->cpuid(o->ctx, 0x80000008, 0, r);
	assert_true(r[0] == 0 && r[1] == 0 && r[2] == 0 && r[3] == 0);
	assert_int_equal(e->p.cpuid_misses, 1);
	/* A count beyond the page's capacity reads no further than the page. */
	e->cpuid.count = 1000;
	o->cpuid(o->ctx, 0x80000008, 0, r);
	assert_int_equal(e->p.cpuid_misses, 2);
	/* Never asked of the hypervisor. */
	assert_int_equal(e->g.m.n_exit, exits);
}

static uint64_t fake_cr4;

static uint64_t read_fake_cr4(void)
{
	return fake_cr4;
}

/* The lookup as Linux's: the indexed leaves 0x12, 0x1d, 0x1e, 0x24 told apart
 * by ECX; leaf 0xD sub-leaf 0 taken from the entry for the base XSAVE area
 * (XCR0 1 or 3, XSS 0), not one computed for more features; OSXSAVE and OSPKE
 * from this CPU's CR4. */
static void test_cpuid_lookup_as_linux(void **state)
{
	struct env *e = *state;
	const struct pvio_ops *o = &e->p.ops;
	uint32_t r[4];

	e->cpuid.count = 8;
	e->cpuid.fn[3] = (struct snp_cpuid_fn){ .eax_in = 0x1d, .ecx_in = 0, .eax = 1 };
	e->cpuid.fn[4] = (struct snp_cpuid_fn){ .eax_in = 0x1d, .ecx_in = 1, .eax = 0x1d1 };
	e->cpuid.fn[5] =
		(struct snp_cpuid_fn){ .eax_in = 0xd, .ecx_in = 0, .xcr0_in = 0xe7, .ebx = 0x988 };
	e->cpuid.fn[6] =
		(struct snp_cpuid_fn){ .eax_in = 0xd, .ecx_in = 0, .xcr0_in = 3, .ebx = 0x240 };
	e->cpuid.fn[7] = (struct snp_cpuid_fn){ .eax_in = 1, .ecx = 0x80000000u | (1u << 27) };
	o->cpuid(o->ctx, 0x1d, 1, r);
	assert_int_equal(r[0], 0x1d1);
	o->cpuid(o->ctx, 0xd, 0, r);
	assert_int_equal(r[1], 0x240);
	e->p.read_cr4 = read_fake_cr4;
	fake_cr4 = 0;
	o->cpuid(o->ctx, 1, 0, r);
	assert_true(r[2] == 0x80000000u); /* OSXSAVE off: CR4.OSXSAVE clear */
	fake_cr4 = UINT64_C(1) << 18;
	o->cpuid(o->ctx, 1, 0, r);
	assert_true(r[2] == (0x80000000u | (1u << 27)));
	fake_cr4 = UINT64_C(1) << 22;
	o->cpuid(o->ctx, 7, 0, r);
	assert_true(r[2] & (1u << 4));
}

/* The simulated hypervisor's CPUID for the running vCPU (its APIC IDs). */
static void hv_cpuid_vcpu5(void *ctx, uint32_t leaf, uint32_t sub, uint32_t r[4])
{
	(void)ctx;
	assert_int_equal(sub, 0); /* the MSR protocol has no sub-leaf */
	r[0] = r[1] = r[2] = r[3] = 0;
	if (leaf == 1) {
		r[1] = 0x05000000u | 0x00123456u;
		r[3] = 1u << 9;
	} else if (leaf == 0xb) {
		r[3] = 5;
	} else if (leaf == 0x8000001e) {
		r[0] = 10;
		r[1] = 0xab02;
		r[2] = 0xcd03;
	}
}

/* Post-processing as Linux snp_cpuid_postprocess(): the APIC IDs of leaves 1,
 * 0xB (any sub-leaf) and 0x8000001E are the running vCPU's, asked of the
 * hypervisor through the MSR protocol (no GHCB exit); the rest of each leaf
 * is the page's. A leaf the page omits inside its declared range is
 * post-processed from zeros; outside every range it stays zeros, unasked. */
static void test_cpuid_apic_ids_from_the_hypervisor(void **state)
{
	struct env *e = *state;
	const struct pvio_ops *o = &e->p.ops;
	unsigned long exits = e->g.m.n_exit;
	uint32_t r[4];

	e->g.m.hv_cpuid = hv_cpuid_vcpu5;
	e->cpuid.count = 6;
	e->cpuid.fn[3] = (struct snp_cpuid_fn){ .eax_in = 1,
						.ebx = 0xaa000800u,
						.edx = 0x178bfbffu & ~(1u << 9) };
	e->cpuid.fn[4] =
		(struct snp_cpuid_fn){ .eax_in = 0xb, .ecx_in = 1, .ecx = 0x201, .edx = 0x77 };
	e->cpuid.fn[5] = (struct snp_cpuid_fn){
		.eax_in = 0x8000001e, .eax = 0x99, .ebx = 0xff55, .ecx = 0xff66
	};
	o->cpuid(o->ctx, 1, 0, r);
	assert_true(r[1] == 0x05000800u); /* APIC ID 5; the rest of EBX the page's */
	assert_true(r[3] == 0x178bfbffu); /* APIC enabled, as the hypervisor says */
	assert_int_equal(e->g.m.last_cpuid_leaf, 1);
	o->cpuid(o->ctx, 0xb, 1, r);
	assert_true(r[2] == 0x201 && r[3] == 5);
	o->cpuid(o->ctx, 0x8000001e, 0, r);
	assert_true(r[0] == 10 && r[1] == 0xff02 && r[2] == 0xff03);
	/* 0xB sub-leaf 0 is not in the page but leaf 0 says 0x10 leaves: zeros,
	 * then the running vCPU's x2APIC ID. */
	o->cpuid(o->ctx, 0xb, 0, r);
	assert_true(r[0] == 0 && r[1] == 0 && r[2] == 0 && r[3] == 5);
	/* Outside every range the page declares: zeros, nothing asked. */
	{
		unsigned long asked = e->g.m.n_msr_cpuid;

		o->cpuid(o->ctx, 0x8000001e + 0x10000000u, 0, r);
		assert_true(r[0] == 0 && r[3] == 0);
		assert_int_equal(e->g.m.n_msr_cpuid, asked);
	}
	assert_int_equal(e->g.m.n_exit, exits); /* never a GHCB exit */
	assert_true(e->p.cpuid_hv_requests > 0);
	assert_int_equal(e->p.cpuid_refused, 0);
	assert_int_equal(e->g.m.terminated, 0);
}

static uint64_t fake_xcr0, fake_xss;
static unsigned int xss_reads;

static uint64_t read_fake_xcr0(void)
{
	return fake_xcr0;
}

static uint64_t read_fake_xss(void)
{
	xss_reads++;
	return fake_xss;
}

/* Leaf 0xD sub-leaves 0 and 1: the base entry (XCR0 1, XSS 0) found, and its
 * XSAVE size (EBX) recomputed from the page's component entries for this
 * CPU's XCR0 (and XSS for sub-leaf 1, compacted), as Linux
 * snp_cpuid_calc_xsave_size(): not the page's EBX, and a duplicate entry of a
 * component counts once (the first). */
static void test_cpuid_xsave_size_recomputed(void **state)
{
	struct env *e = *state;
	const struct pvio_ops *o = &e->p.ops;
	uint32_t r[4];

	e->cpuid.count = 9;
	e->cpuid.fn[3] =
		(struct snp_cpuid_fn){ .eax_in = 0xd, .ecx_in = 0, .xcr0_in = 1, .ebx = 0x9999 };
	e->cpuid.fn[4] = (struct snp_cpuid_fn){ .eax_in = 0xd,
						.ecx_in = 1,
						.xcr0_in = 1,
						.eax = (1u << 1) | (1u << 3),
						.ebx = 0x9999 };
	e->cpuid.fn[5] =
		(struct snp_cpuid_fn){ .eax_in = 0xd, .ecx_in = 2, .eax = 256, .ebx = 576 };
	e->cpuid.fn[6] =
		(struct snp_cpuid_fn){ .eax_in = 0xd, .ecx_in = 2, .eax = 9999, .ebx = 9999 };
	e->cpuid.fn[7] = (struct snp_cpuid_fn){ .eax_in = 0xd, .ecx_in = 9, .eax = 8, .ebx = 2688 };
	e->cpuid.fn[8] = (struct snp_cpuid_fn){ .eax_in = 0xd, .ecx_in = 11, .eax = 16 };
	e->p.read_cr4 = read_fake_cr4;
	e->p.read_xcr0 = read_fake_xcr0;
	e->p.read_xss = read_fake_xss;
	/* No OSXSAVE: XCR0 is taken as 1 (XGETBV would fault). */
	fake_cr4 = 0;
	fake_xcr0 = 7;
	o->cpuid(o->ctx, 0xd, 0, r);
	assert_int_equal(r[1], 0x240);
	fake_cr4 = UINT64_C(1) << 18;
	o->cpuid(o->ctx, 0xd, 0, r);
	assert_int_equal(r[1], 576 + 256); /* x87, SSE, AVX: the end of AVX's area */
	fake_xcr0 = 0x207;
	o->cpuid(o->ctx, 0xd, 0, r);
	assert_int_equal(r[1], 2688 + 8); /* and PKRU */
	/* Sub-leaf 1, compacted, with XSS (XSAVES in its EAX). */
	fake_xcr0 = 7;
	fake_xss = 1u << 11;
	xss_reads = 0;
	o->cpuid(o->ctx, 0xd, 1, r);
	assert_int_equal(r[1], 0x240 + 256 + 16);
	assert_int_equal(xss_reads, 1);
	assert_int_equal(e->g.m.terminated, 0);
}

/* A hostile or inconsistent CPUID page ends the guest with Sluice's reason
 * GHCB_TERM_SLUICE_CPUID, as Linux terminates when snp_cpuid() fails: XCR0
 * enables a component the page has no entry for; sub-leaf 1 without XSAVEC or
 * XSAVES; component sizes that overflow 32 bits. A hypervisor that does not
 * answer the MSR-protocol CPUID ends it with GHCB_TERM_SLUICE_CPUID_HV (Linux:
 * GHCB_TERM_CPUID_HV). The caller gets zeros. */
static void test_cpuid_hostile_page_refused(void **state)
{
	struct env *e = *state;
	const struct pvio_ops *o = &e->p.ops;
	uint32_t r[4];

	e->cpuid.count = 5;
	e->cpuid.fn[3] =
		(struct snp_cpuid_fn){ .eax_in = 0xd, .ecx_in = 0, .xcr0_in = 3, .ebx = 0x240 };
	e->cpuid.fn[4] = (struct snp_cpuid_fn){ .eax_in = 0xd,
						.ecx_in = 1,
						.xcr0_in = 1,
						.eax = 1u << 0 /* XSAVEOPT only */ };
	e->p.read_cr4 = read_fake_cr4;
	e->p.read_xcr0 = read_fake_xcr0;
	e->p.read_xss = read_fake_xss;
	fake_cr4 = UINT64_C(1) << 18;
	fake_xcr0 = 7; /* AVX enabled, no 0xD.2 entry */
	o->cpuid(o->ctx, 0xd, 0, r);
	assert_true(r[0] == 0 && r[1] == 0 && r[2] == 0 && r[3] == 0);
	assert_int_equal(e->g.m.terminated, 1);
	assert_int_equal(e->g.m.term_set, GHCB_TERM_SET_SLUICE);
	assert_int_equal(e->g.m.term_code, GHCB_TERM_SLUICE_CPUID);
	fake_xcr0 = 3;
	o->cpuid(o->ctx, 0xd, 0, r);
	assert_int_equal(r[1], 0x240); /* consistent: answered */
	o->cpuid(o->ctx, 0xd, 1, r);
	assert_int_equal(e->g.m.terminated, 2);
	assert_int_equal(e->g.m.term_code, GHCB_TERM_SLUICE_CPUID);
	/* Sizes past 4 GiB. */
	e->cpuid.count = 5;
	e->cpuid.fn[4] = (struct snp_cpuid_fn){
		.eax_in = 0xd, .ecx_in = 2, .eax = 0xffffff00u, .ebx = 0x200
	};
	fake_xcr0 = 7;
	o->cpuid(o->ctx, 0xd, 0, r);
	assert_int_equal(e->g.m.terminated, 3);
	assert_int_equal(r[1], 0);
	/* The hypervisor's MSR-protocol CPUID answers with another code. */
	e->cpuid.fn[4] = (struct snp_cpuid_fn){ .eax_in = 1, .ebx = 0x800 };
	e->g.m.faults.cpuid_bad_resp = true;
	o->cpuid(o->ctx, 1, 0, r);
	assert_int_equal(e->g.m.terminated, 4);
	assert_int_equal(e->g.m.term_code, GHCB_TERM_SLUICE_CPUID_HV);
	assert_int_equal(e->p.cpuid_refused, 4);
}

static unsigned int native_halts;
static bool native_halt_irqs;

static void recording_halt(void *ctx, bool irqs)
{
	(void)ctx;
	native_halts++;
	native_halt_irqs = irqs;
}

/* The idle wait is the native "sti; hlt" (an automatic exit): never a GHCB
 * exit, which KVM refuses (test_model_refuses_hlt_as_kvm). */
static void test_halt_is_native(void **state)
{
	struct env *e = *state;
	struct pvio_ops rec = pvio_native;
	unsigned long exits = e->g.m.n_exit;

	rec.halt = recording_halt;
	e->p.native = &rec;
	native_halts = 0;
	e->p.ops.halt(e->p.ops.ctx, true);
	assert_int_equal(native_halts, 1);
	assert_true(native_halt_irqs);
	e->p.ops.halt(e->p.ops.ctx, false);
	assert_int_equal(native_halts, 2);
	assert_false(native_halt_irqs);
	assert_int_equal(e->g.m.n_exit, exits);
	assert_int_equal(e->g.m.n_refused, 0);
}

/* R9: HLT sent as a GHCB exit is answered as KVM's sev_es_validate_vmgexit()
 * answers it: SW_EXITINFO1 = 2, GHCB_ERR_INVALID_EVENT; nothing is executed. */
static void test_model_refuses_hlt_as_kvm(void **state)
{
	struct env *e = *state;
	unsigned long exits = e->g.m.n_exit;

	ghcb_invalidate(e->ghcb);
	assert_int_equal(ghcb_call(&e->g.insn, e->ghcb, GHCB_GPA, SVM_EXIT_HLT, 0, 0),
			 GHCB_RESULT_ERROR);
	assert_true(e->ghcb->sw_exit_info_2 == GHCB_ERR_INVALID_EVENT);
	assert_int_equal(e->g.m.n_refused, 1);
	assert_true(e->g.m.last_refused_code == SVM_EXIT_HLT);
	assert_int_equal(e->g.m.n_exit, exits);
}

/* R9: the inputs KVM requires: an OUT without RAX, a WRMSR without RDX, an
 * exit whose SW_EXITINFO2 is not marked valid are GHCB_ERR_MISSING_INPUT; an IN
 * needs no RAX; GHCB usage 1 is GHCB_ERR_INVALID_USAGE. */
static void test_model_wants_kvm_inputs(void **state)
{
	struct env *e = *state;
	struct ghcb *g = e->ghcb;
	const struct tee_insn_ops *insn = &e->g.insn;
	uint64_t out = (UINT64_C(0x3f8) << 16) | (1u << 4), in = out | 1;

	ghcb_invalidate(g);
	assert_int_equal(ghcb_call(insn, g, GHCB_GPA, SVM_EXIT_IOIO, out, 0), GHCB_RESULT_ERROR);
	assert_true(g->sw_exit_info_2 == GHCB_ERR_MISSING_INPUT);
	ghcb_invalidate(g);
	assert_int_equal(ghcb_call(insn, g, GHCB_GPA, SVM_EXIT_IOIO, in, 0), GHCB_RESULT_OK);
	ghcb_invalidate(g);
	GHCB_SET(g, rcx, 0x830);
	GHCB_SET(g, rax, 1);
	assert_int_equal(ghcb_call(insn, g, GHCB_GPA, SVM_EXIT_MSR, 1, 0), GHCB_RESULT_ERROR);
	assert_true(g->sw_exit_info_2 == GHCB_ERR_MISSING_INPUT);
	ghcb_invalidate(g);
	GHCB_SET(g, rcx, 0x830);
	g->protocol_version = GHCB_PROTOCOL_VERSION;
	GHCB_SET(g, sw_exit_code, SVM_EXIT_MSR);
	GHCB_SET(g, sw_exit_info_1, 0);
	g->sw_exit_info_2 = 0; /* not marked valid */
	insn->wr_ghcb_msr(insn->ctx, GHCB_GPA);
	insn->vmgexit(insn->ctx, g);
	assert_true(g->sw_exit_info_1 == GHCB_RESULT_ERROR);
	assert_true(g->sw_exit_info_2 == GHCB_ERR_MISSING_INPUT);
	ghcb_invalidate(g);
	GHCB_SET(g, rcx, 0x830);
	g->ghcb_usage = 1;
	GHCB_SET(g, sw_exit_code, SVM_EXIT_MSR);
	GHCB_SET(g, sw_exit_info_1, 0);
	GHCB_SET(g, sw_exit_info_2, 0);
	insn->wr_ghcb_msr(insn->ctx, GHCB_GPA);
	insn->vmgexit(insn->ctx, g);
	assert_true(g->sw_exit_info_2 == GHCB_ERR_INVALID_USAGE);
	g->ghcb_usage = 0;
	assert_int_equal(e->g.m.n_refused, 4);
}

static void test_failing_hypervisor_reads_all_ones(void **state)
{
	struct env *e = *state;
	const struct pvio_ops *o = &e->p.ops;

	e->g.m.faults.exit_error = true;
	assert_int_equal(o->io_in(o->ctx, 0x3fd, 1), 0xff);
	assert_true(o->mmio_read(o->ctx, 0xfe000000, 4) == 0xffffffff);
	assert_true(o->rdmsr(o->ctx, 0x1b) == 0);
	assert_int_equal(e->p.errors, 3);
	/* No GHCB at all: the same, without an exit. */
	e->g.m.faults.exit_error = false;
	e->g.s.slot.ghcb = NULL;
	assert_int_equal(o->io_in(o->ctx, 0x3fd, 2), 0xffff);
	assert_int_equal(e->p.errors, 4);
}

/* The simulated guest's hypervisor hook: answers for every non-PSC exit. */
static unsigned int vmm_calls;

static void test_vmm(void *ctx, struct ghcb *g)
{
	bool in = g->sw_exit_info_1 & 1;

	(void)ctx;
	vmm_calls++;
	g->sw_exit_info_1 = GHCB_RESULT_OK;
	if (g->sw_exit_code == SVM_EXIT_IOIO && in)
		GHCB_SET(g, rax, 0x5a);
}

/* Each exit goes through the calling CPU's GHCB; a CPU without one gets the
 * all-ones answer and an error, never another CPU's page. An interrupt
 * handler's exchange nested in a HLT leaves the HLT's page as it was. */
static void test_per_cpu_ghcb_and_vmm_hook(void **state)
{
	struct env *e = *state;
	const struct pvio_ops *o = &e->p.ops;
	/* Static: the guest and the model keep pointers to it past the test. */
	static struct snp_env_cpus cpus;

	snp_env_two_cpus(&cpus, &e->g.s, &e->g.m);
	cpus.slots[0] = e->g.s.slot;
	e->g.m.vmm = test_vmm;
	vmm_calls = 0;
	assert_int_equal(o->io_in(o->ctx, 0x3fd, 1), 0x5a);
	assert_int_equal(vmm_calls, 1);
	cpus.cur = 1;
	assert_int_equal(o->io_in(o->ctx, 0x3fd, 1), 0xff);
	assert_int_equal(e->p.errors, 1);
	assert_int_equal(vmm_calls, 1);
	/* CPU 1 registers its own page (a shared one of the window). */
	{
		struct ghcb *g1 = aligned_alloc(4096, sizeof(struct ghcb));

		assert_int_equal(snp_ghcb_setup(&e->g.s, g1, GHCB_GPA + 4096), 0);
		assert_ptr_equal(cpus.slots[1].ghcb, g1);
		assert_int_equal(o->io_in(o->ctx, 0x3fd, 1), 0x5a);
		assert_int_equal(vmm_calls, 2);
		assert_true(e->g.m.ghcb_msr[1] == GHCB_GPA + 4096);
		assert_true(e->g.m.ghcb_msr[0] == GHCB_GPA);
		free(g1);
	}
	/* No rule broken: teardown checks it, as after every test here. */
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_port_io),
		T(test_mmio_through_the_shared_buffer),
		T(test_msr),
		T(test_cpuid_from_the_page),
		T(test_cpuid_lookup_as_linux),
		T(test_cpuid_apic_ids_from_the_hypervisor),
		T(test_cpuid_xsave_size_recomputed),
		T(test_cpuid_hostile_page_refused),
		T(test_halt_is_native),
		T(test_model_refuses_hlt_as_kvm),
		T(test_model_wants_kvm_inputs),
		T(test_failing_hypervisor_reads_all_ones),
		T(test_per_cpu_ghcb_and_vmm_hook),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
