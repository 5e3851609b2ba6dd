/* SPDX-License-Identifier: MIT */
/*
 * cc_kernel_fakes.c - the kernel services the CC platforms' files call (mm/,
 * smp/, the exception reporter, the console, the exit port), for host tests
 * that link those files to read their ops tables. None is meant to be called:
 * each fails the test if it is.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "arch/x86_64/cpu/descriptors.h"
#include "arch/x86_64/cpu/qemu_exit.h"
#include "arch/x86_64/cpu/serial.h"
#include "arch/x86_64/cpu/tsc.h"
#include "arch/x86_64/mm/mmu.h"
#include "arch/x86_64/smp/percpu.h"
#include "arch/x86_64/smp/smp.h"

#define NOT_HERE(what) fail_msg("%s called in a host test of the CC platform tables", what)

int mmu_pte_set_shared(uint64_t va, uint64_t len, bool shared)
{
	(void)va, (void)len, (void)shared;
	NOT_HERE("mmu_pte_set_shared");
	return -1;
}

void mmu_tlb_shootdown(uint64_t va, uint64_t len)
{
	(void)va, (void)len;
	NOT_HERE("mmu_tlb_shootdown");
}

int mmu_pt_set_shared(void *ctx, uint64_t gpa, uint64_t len, bool shared)
{
	(void)ctx, (void)gpa, (void)len, (void)shared;
	NOT_HERE("mmu_pt_set_shared");
	return -1;
}

void mmu_pt_flush_tlb(void *ctx, uint64_t gpa, uint64_t len)
{
	(void)ctx, (void)gpa, (void)len;
	NOT_HERE("mmu_pt_flush_tlb");
}

void mmu_stats_get(struct mmu_stats *out)
{
	(void)out;
	NOT_HERE("mmu_stats_get");
}

bool mmu_is_shared(uint64_t va)
{
	(void)va;
	NOT_HERE("mmu_is_shared");
	return false;
}

unsigned int percpu_cpu_id(void)
{
	return 0;
}

void smp_mailbox_only(void)
{
	NOT_HERE("smp_mailbox_only");
}

void smp_set_ap_ops(const struct smp_ap_ops *ops)
{
	(void)ops;
	NOT_HERE("smp_set_ap_ops");
}

void smp_disable_aps(const char *why)
{
	(void)why;
	NOT_HERE("smp_disable_aps");
}

void smp_set_ap_firmware(const struct smp_ap_firmware *fw)
{
	(void)fw;
	NOT_HERE("smp_set_ap_firmware");
}

void trap_set_ve_reporter(void (*fn)(uint64_t rip))
{
	(void)fn;
	NOT_HERE("trap_set_ve_reporter");
}

void trap_set_vc_reporter(void (*fn)(uint64_t rip, uint64_t code))
{
	(void)fn;
	NOT_HERE("trap_set_vc_reporter");
}

uint64_t gdt_vc_stack_top(unsigned int cpu)
{
	(void)cpu;
	NOT_HERE("gdt_vc_stack_top");
	return 0;
}

void serial_puts(const char *s)
{
	(void)s;
	NOT_HERE("serial_puts");
}

uint64_t now_ns(void)
{
	NOT_HERE("now_ns");
	return 0;
}

void qemu_exit(int code)
{
	(void)code;
	NOT_HERE("qemu_exit");
	for (;;)
		;
}

const void *idt_stub(unsigned int vector)
{
	(void)vector;
	NOT_HERE("idt_stub");
	return NULL;
}
