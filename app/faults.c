/* SPDX-License-Identifier: MIT */
/*
 * faults.c - the deliberate faults (fault=..., fault_cpu=N): raise the exception
 * the options name on the CPU they name, to prove the exception report, W^X and
 * the #VE / #VC guards. Every path ends the kernel: the exception report exits
 * with status 3; a fault that did not trap exits with status 1.
 */
#include "app/task_runners.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch/x86_64/cc/cc_sim_snp.h"
#include "arch/x86_64/cc/cc_sim_tdx.h"
#include "arch/x86_64/mm/mmu.h"
#include "arch/x86_64/cpu/qemu_exit.h"
#include "arch/x86_64/smp/smp.h"
#include "kernel/cc_setup.h"

/* A `ret` in the image's data section (initialised, so .data and not .bss). */
static uint8_t fault_ret_in_data[16] = { 0xc3 };

/* Call @code as a function: a `ret` there returns at once, if it may run at all. */
static void fault_call(const volatile void *code)
{
	void (*fn)(void) = (void (*)(void))(uintptr_t)code;

	fn();
}

struct fault_request {
	enum fault_kind fault;
	unsigned int cpu;
	const volatile void *code; /* FAULT_EXEC_SHARED: a shared page holding a ret */
};

/* Raise the exception @req asks for on the calling CPU (no printing: this may
 * run on an application processor). Returns only if nothing trapped. */
static void fault_trigger(const struct fault_request *req)
{
	volatile uint64_t sink;

	switch (req->fault) {
	case FAULT_NONE:
		return;
	case FAULT_PAGE:
		/* Canonical, but far above any RAM the kernel maps. */
		sink = *(volatile uint64_t *)0x00007f0000000000ull;
		break;
	case FAULT_GP:
		sink = *(volatile uint64_t *)0xdead000000000000ull;
		break;
	case FAULT_UD:
		__asm__ volatile("ud2");
		break;
	case FAULT_DIVIDE:
		/* In assembly: the compiler may turn a C division by a known divisor
		 * into something that does not trap. */
		__asm__ volatile("xorl %%ecx, %%ecx\n\tmovl $1, %%eax\n\txorl %%edx, %%edx\n\t"
				 "divl %%ecx"
				 :
				 :
				 : "eax", "ecx", "edx");
		break;
	case FAULT_WRITE_TEXT: {
		/* This function's first byte, written back unchanged: where text is
		 * writable the run goes on (and fails as "no exception"). */
		volatile uint8_t *text = (volatile uint8_t *)(uintptr_t)&fault_trigger;

		*text = *text;
		break;
	}
	case FAULT_EXEC_SHARED:
		fault_call(req->code);
		break;
	case FAULT_EXEC_DATA:
		fault_call(fault_ret_in_data);
		break;
	case FAULT_EXEC_STACK: {
		volatile uint8_t code[16] = { 0xc3 };

		fault_call(code);
		break;
	}
	case FAULT_VE:
		/* Vector 20 by software: the path a #VE takes, IST2 and guard included. */
		__asm__ volatile("int $20");
		break;
	case FAULT_VC:
		/* The simulated hardware's #VC for an I/O instruction (exit code
		 * 0x7b): vector 29 with its error code, on IST3 (cc_sim_snp.c). */
		cc_sim_snp_raise_vc(0x7b);
		break;
	}
	(void)sink;
}

static void fault_on_cpu(void *arg, unsigned int cpu)
{
	const struct fault_request *req = arg;

	if (cpu == req->cpu)
		fault_trigger(req);
}

void deliberate_fault(struct kernel_dma *kd, enum fault_kind fault, unsigned int cpu)
{
	struct fault_request req = { fault, cpu, NULL };

	if (cpu >= smp_cpu_count()) {
		printf("fault: fault_cpu=%u but only %u CPU%s online\n", cpu, smp_cpu_count(),
		       smp_cpu_count() == 1 ? " is" : "s are");
		exit(SLUICE_EXIT_FAIL);
	}
	if (fault == FAULT_EXEC_SHARED) {
		/* An arena block is memory the host can write: put there what it could. */
		uint8_t *block = kernel_dma_buf_alloc(kd, KDMA_ARENA, 4096);

		if (!block || !mmu_is_shared((uint64_t)(uintptr_t)block)) {
			printf("fault: no shared arena block to run from\n");
			exit(SLUICE_EXIT_FAIL);
		}
		block[0] = 0xc3;
		req.code = block;
		printf("fault: shared arena block 0x%" PRIx64 " holds a ret; calling it\n",
		       (uint64_t)(uintptr_t)block);
	} else if (fault == FAULT_VE) {
		/* What a TD's module would report for a stray port write: an I/O
		 * instruction (exit reason 30), 1 byte out to port 0x3f8. */
		bool sim = !strcmp(cc_setup_name(), "sim-tdx");

		if (sim)
			cc_sim_tdx_stage_ve(30, (UINT64_C(0x3f8) << 16), 0);
		printf("fault: raising #VE (vector 20)%s\n",
		       sim ? "; the simulated TD reports an I/O instruction" : "");
	} else if (fault == FAULT_VC) {
		/* Only the simulated SNP guest can deliver one: INT 29 pushes no
		 * error code, and a #VC without its exit code is not a #VC. */
		if (strcmp(cc_setup_name(), "sim-snp")) {
			printf("fault: fault=vc needs cc=sim-snp\n");
			exit(SLUICE_EXIT_FAIL);
		}
		printf("fault: raising #VC (vector 29) for an I/O instruction (exit code 0x7b)\n");
	} else if (fault == FAULT_EXEC_DATA) {
		printf("fault: image data 0x%" PRIx64 " holds a ret; calling it\n",
		       (uint64_t)(uintptr_t)fault_ret_in_data);
	} else if (fault == FAULT_WRITE_TEXT) {
		printf("fault: writing the first byte of fault_trigger at 0x%" PRIx64 "\n",
		       (uint64_t)(uintptr_t)&fault_trigger);
	}
	printf("fault: triggering '%s' on cpu %u as the options asked\n", options_fault_name(fault),
	       cpu);
	fflush(stdout);
	smp_run(cpu + 1, fault_on_cpu, &req);
	printf("fault: no exception happened\n");
	exit(SLUICE_EXIT_FAIL);
}
