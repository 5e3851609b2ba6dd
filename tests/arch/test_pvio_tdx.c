/* SPDX-License-Identifier: MIT */
/*
 * test_pvio_tdx.c - the TD's paravirtual I/O backend (arch/x86_64/cc/pvio_tdx.c)
 * against the model of the TDX module (arch/x86_64/cc/tdx_model.c): each operation
 * becomes the TDG.VP.VMCALL sub-function and registers the GHCI names, MMIO goes
 * to the shared GPA, CPUID leaves outside the hypervisor range and the
 * module-virtualised MSRs never reach the VMM, and a failing VMM reads as a
 * device that does not answer.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "arch/x86_64/cc/pvio_tdx.h"
#include "arch/x86_64/cc/tdx_model.h"

struct env {
	struct tdx_model m;
	uint8_t state[16], pte[16];
	struct tee_insn_ops insn;
	struct tdx td;
	struct pvio_tdx p;
};

static int env_set_pte(void *ctx, uint64_t gpa, uint64_t len, bool shared)
{
	(void)ctx, (void)gpa, (void)len, (void)shared;
	return 0;
}

static void env_flush(void *ctx, uint64_t gpa, uint64_t len)
{
	(void)ctx, (void)gpa, (void)len;
}

static int setup(void **state)
{
	struct env *e = calloc(1, sizeof(*e));
	const struct cc_pt_ops pt = { env_set_pte, env_flush, NULL, e, NULL };

	tdx_model_init(&e->m, 0x100000, 16, e->state, e->pte);
	tdx_model_insn(&e->m, &e->insn);
	assert_int_equal(tdx_init(&e->td, &e->insn, &pt, NULL, 0), 0);
	pvio_tdx_init(&e->p, &e->td);
	*state = e;
	return 0;
}

static void answering_vmm(void *ctx, struct tdcall_regs *r);

static int teardown(void **state)
{
	free(*state);
	return 0;
}

static void assert_call(struct env *e, uint64_t fn, uint64_t r12, uint64_t r13, uint64_t r14,
			uint64_t r15)
{
	assert_int_equal(e->m.last_fn, fn);
	assert_true(e->m.last_r12 == r12 && e->m.last_r13 == r13);
	assert_true(e->m.last_r14 == r14 && e->m.last_r15 == r15);
}

static void test_port_io(void **state)
{
	struct env *e = *state;
	const struct pvio_ops *o = &e->p.ops;

	e->m.vmcall_r11 = 0xabcd1234;
	assert_int_equal(o->io_in(o->ctx, 0x3fd, 1), 0x34); /* only the asked width */
	assert_call(e, TDVMCALL_IO, 1, 0, 0x3fd, 0);
	assert_int_equal(o->io_in(o->ctx, 0x608, 4), 0xabcd1234);
	o->io_out(o->ctx, 0x3f8, 1, 0x141);
	assert_call(e, TDVMCALL_IO, 1, 1, 0x3f8, 0x41);
	o->io_out(o->ctx, 0xcf8, 4, 0x80001000);
	assert_call(e, TDVMCALL_IO, 4, 1, 0xcf8, 0x80001000);
}

static void test_mmio_uses_the_shared_gpa(void **state)
{
	struct env *e = *state;
	const struct pvio_ops *o = &e->p.ops;
	uint64_t shared = UINT64_C(1) << 47;

	e->m.vmcall_r11 = 0x1122334455667788ull;
	assert_int_equal(o->mmio_read(o->ctx, 0xfe000010, 2), 0x7788);
	assert_call(e, TDVMCALL_MMIO, 2, 0, 0xfe000010 | shared, 0);
	assert_true(o->mmio_read(o->ctx, 0xfe000018, 8) == 0x1122334455667788ull);
	o->mmio_write(o->ctx, 0xfe000014, 4, 0xffffffff00000005ull);
	assert_call(e, TDVMCALL_MMIO, 4, 1, 0xfe000014 | shared, 5);
}

static void test_cpuid_routing(void **state)
{
	struct env *e = *state;
	const struct pvio_ops *o = &e->p.ops;
	uint32_t r[4];
	unsigned long calls = e->m.n_vmcall;

	memcpy(e->m.cpuid, (uint32_t[4]){ 0x40000001, 0x4b4d564b, 0x564b4d56, 0x4d }, 16);
	o->cpuid(o->ctx, 0x40000000, 0, r);
	assert_int_equal(e->m.n_vmcall, calls + 1);
	assert_call(e, TDVMCALL_CPUID, 0x40000000, 0, 0, 0);
	assert_int_equal(r[1], 0x4b4d564b);
	/* Leaf 0 is the TDX module's to answer: the VMM is not asked. */
	o->cpuid(o->ctx, 0, 0, r);
	assert_int_equal(e->m.n_vmcall, calls + 1);
	assert_true(r[0] >= 1);
}

static void test_msr_routing(void **state)
{
	struct env *e = *state;
	const struct pvio_ops *o = &e->p.ops;

	e->m.vmcall_r11 = 0xfee00900;
	assert_int_equal(o->rdmsr(o->ctx, 0x1b), 0xfee00900);
	assert_call(e, TDVMCALL_RDMSR, 0x1b, 0, 0, 0);
	o->wrmsr(o->ctx, 0x830, 0x4000);
	assert_call(e, TDVMCALL_WRMSR, 0x830, 0x4000, 0, 0);
	assert_int_equal(e->p.errors, 0);
	assert_int_equal(e->m.n_msr_refused, 0);
}

/* The native instructions of the test: recorded, never executed. */
static unsigned int native_wrmsrs, native_rdmsrs;
static uint32_t native_last_msr;

static uint64_t recording_rdmsr(void *ctx, uint32_t msr)
{
	(void)ctx;
	native_rdmsrs++;
	native_last_msr = msr;
	return 0x10;
}

static void recording_wrmsr(void *ctx, uint32_t msr, uint64_t v)
{
	(void)ctx, (void)v;
	native_wrmsrs++;
	native_last_msr = msr;
}

/* What the TD's CPU virtualises is the native instruction, never a VMCALL: the
 * x2APIC EOI of the wake-up IPI's handler above all (through the VMM, KVM
 * refuses it and the vector stays in service), TPR, PPR, ISR/TMR/IRR, EFER. A
 * write to IA32_APIC_BASE, which KVM refuses, is not sent. */
static void test_virtualised_msrs_are_native(void **state)
{
	static const uint32_t native[] = { 0x80b, 0x808, 0x80a, 0x810,
					   0x817, 0x818, 0x827, 0xc0000080u };
	struct env *e = *state;
	struct pvio_ops rec = pvio_native;
	const struct pvio_ops *o = &e->p.ops;
	unsigned long calls = e->m.n_vmcall;

	rec.rdmsr = recording_rdmsr;
	rec.wrmsr = recording_wrmsr;
	e->p.native = &rec;
	native_wrmsrs = native_rdmsrs = 0;
	for (unsigned int i = 0; i < sizeof(native) / sizeof(native[0]); i++) {
		o->wrmsr(o->ctx, native[i], 0);
		assert_int_equal(native_last_msr, native[i]);
		assert_int_equal(o->rdmsr(o->ctx, native[i]), 0x10);
	}
	assert_int_equal(native_wrmsrs, 8);
	assert_int_equal(native_rdmsrs, 8);
	assert_int_equal(e->m.n_vmcall, calls);
	o->wrmsr(o->ctx, 0x1b, 0xfee00c00);
	assert_int_equal(e->m.n_vmcall, calls);
	assert_int_equal(e->p.errors, 1);
	assert_int_equal(e->m.n_msr_refused, 0);
}

/* The model answers MSR VMCALLs as KVM does (tdx_has_emulated_msr(),
 * tdx_is_read_only_msr()): the EOI and APIC_BASE writes sent through
 * TDVMCALL are refused with TDVMCALL_INVALID_OPERAND, the APIC_BASE read and
 * the ICR write are answered; an ISR word asked of the VMM is also a project
 * rule's violation. */
static void test_model_refuses_what_kvm_refuses(void **state)
{
	struct env *e = *state;
	uint64_t v = 0;

	assert_true(tdx_vmcall(&e->td, TDVMCALL_WRMSR, 0x80b, 0, 0, 0, NULL) ==
		    TDVMCALL_INVALID_OPERAND);
	assert_true(tdx_vmcall(&e->td, TDVMCALL_WRMSR, 0x1b, 0xfee00c00, 0, 0, NULL) ==
		    TDVMCALL_INVALID_OPERAND);
	assert_true(tdx_vmcall(&e->td, TDVMCALL_RDMSR, 0x808, 0, 0, 0, &v) ==
		    TDVMCALL_INVALID_OPERAND);
	assert_true(tdx_vmcall(&e->td, TDVMCALL_RDMSR, 0x12345678, 0, 0, 0, &v) ==
		    TDVMCALL_INVALID_OPERAND);
	assert_int_equal(e->m.n_msr_refused, 4);
	assert_int_equal(e->m.violations, 0);
	assert_true(tdx_vmcall(&e->td, TDVMCALL_RDMSR, 0x1b, 0, 0, 0, &v) == TDVMCALL_SUCCESS);
	assert_true(tdx_vmcall(&e->td, TDVMCALL_WRMSR, 0x830, 0x4000, 0, 0, NULL) ==
		    TDVMCALL_SUCCESS);
	assert_true(tdx_vmcall(&e->td, TDVMCALL_WRMSR, 0x80f, 0x1ff, 0, 0, NULL) ==
		    TDVMCALL_SUCCESS);
	assert_int_equal(e->m.n_msr_refused, 4);
	/* KVM would answer ISR word 1 from its own copy; the model flags it. */
	assert_true(tdx_vmcall(&e->td, TDVMCALL_RDMSR, 0x811, 0, 0, 0, &v) == TDVMCALL_SUCCESS);
	assert_int_equal(e->m.violations, 1);
	/* The same answers with the simulated TD's VMM plugged in. */
	e->m.vmm = answering_vmm;
	assert_true(tdx_vmcall(&e->td, TDVMCALL_WRMSR, 0x80b, 0, 0, 0, NULL) ==
		    TDVMCALL_INVALID_OPERAND);
	assert_int_equal(e->m.n_msr_refused, 5);
}

static void test_halt_says_whether_interrupts_are_blocked(void **state)
{
	struct env *e = *state;

	e->p.ops.halt(e->p.ops.ctx, false);
	assert_call(e, TDVMCALL_HLT, 1, 0, 0, 0);
	e->p.ops.halt(e->p.ops.ctx, true);
	assert_call(e, TDVMCALL_HLT, 0, 0, 0, 0);
}

static unsigned int sti_calls;

/* The model's TDCALL, counted: stands for "STI; TDCALL" of the real layer. */
static uint64_t counting_tdcall_sti(void *ctx, struct tdcall_regs *r)
{
	sti_calls++;
	return ((struct env *)ctx)->insn.tdcall(&((struct env *)ctx)->m, r);
}

/* The idle wait issues STI with its TDCALL (no lost wake-up); the final halt
 * of a fatal error keeps interrupts off and uses the plain TDCALL. */
static void test_idle_halt_issues_sti_with_the_tdcall(void **state)
{
	struct env *e = *state;
	struct tee_insn_ops with_sti = e->insn;

	with_sti.tdcall_sti = counting_tdcall_sti;
	with_sti.ctx = e;
	with_sti.tdcall = NULL;
	e->td.insn = &with_sti;
	sti_calls = 0;
	e->p.ops.halt(e->p.ops.ctx, true);
	assert_int_equal(sti_calls, 1);
	assert_call(e, TDVMCALL_HLT, 0, 0, 0, 0);
	with_sti.tdcall = e->insn.tdcall;
	with_sti.ctx = e->insn.ctx;
	e->p.ops.halt(e->p.ops.ctx, false);
	assert_int_equal(sti_calls, 1);
	assert_call(e, TDVMCALL_HLT, 1, 0, 0, 0);
}

static unsigned int vmm_calls;
static uint64_t vmm_last_fn;

static void answering_vmm(void *ctx, struct tdcall_regs *r)
{
	(void)ctx;
	vmm_calls++;
	vmm_last_fn = r->r11;
	r->r10 = TDVMCALL_SUCCESS;
	r->r11 = 0x5a;
}

/* With a VMM plugged into the model (the kernel's simulated TD), every request
 * but MapGPA goes to it, and MapGPA stays the model's. */
static void test_model_vmm_gets_every_request_but_map_gpa(void **state)
{
	struct env *e = *state;
	const struct pvio_ops *o = &e->p.ops;

	vmm_calls = 0;
	e->m.vmm = answering_vmm;
	assert_int_equal(o->io_in(o->ctx, 0x3fd, 1), 0x5a);
	assert_true(vmm_last_fn == TDVMCALL_IO);
	o->wrmsr(o->ctx, 0x830, 1);
	assert_true(vmm_last_fn == TDVMCALL_WRMSR);
	assert_int_equal(vmm_calls, 2);
	assert_int_equal(e->m.n_vmm_calls, 2);
	assert_int_equal(e->m.n_vmcall, 0);
	assert_int_equal(tdx_vmcall(&e->td, TDVMCALL_MAP_GPA, 0x100000, 4096, 0, 0, NULL),
			 TDVMCALL_SUCCESS);
	assert_int_equal(vmm_calls, 2);
	assert_int_equal(e->m.n_map, 1);
}

static uint64_t refusing_tdcall(void *ctx, struct tdcall_regs *r)
{
	(void)ctx;
	if (r->rax == TDG_VP_VMCALL) {
		r->r10 = TDVMCALL_INVALID_OPERAND;
		return r->rax = TDX_SUCCESS;
	}
	return r->rax = TDX_OPERAND_INVALID;
}

static void test_failing_vmm_reads_all_ones(void **state)
{
	struct env *e = *state;
	const struct tee_insn_ops refusing = { .tdcall = refusing_tdcall };
	const struct pvio_ops *o = &e->p.ops;

	e->td.insn = &refusing;
	assert_int_equal(o->io_in(o->ctx, 0x3fd, 1), 0xff);
	assert_true(o->mmio_read(o->ctx, 0xfe000000, 4) == 0xffffffff);
	assert_int_equal(e->p.errors, 2);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_port_io),
		T(test_mmio_uses_the_shared_gpa),
		T(test_cpuid_routing),
		T(test_virtualised_msrs_are_native),
		T(test_model_refuses_what_kvm_refuses),
		T(test_msr_routing),
		T(test_halt_says_whether_interrupts_are_blocked),
		T(test_failing_vmm_reads_all_ones),
		T(test_idle_halt_issues_sti_with_the_tdcall),
		T(test_model_vmm_gets_every_request_but_map_gpa),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
