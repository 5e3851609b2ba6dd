/* SPDX-License-Identifier: MIT */
/*
 * percpu.c - the per-CPU area on the GS base (see percpu.h).
 */
#include "arch/x86_64/smp/percpu.h"

#include <stdbool.h>
#include <stddef.h>

#include "arch/x86_64/cpu/cpu.h"

#define MSR_GS_BASE 0xC0000101u

_Static_assert(offsetof(struct percpu_head, self) == 0, "percpu_head.self is read as %gs:0");
_Static_assert(offsetof(struct percpu_head, index) == PERCPU_INDEX_OFFSET,
	       "percpu_cpu_id() reads %gs:8");

/* Set once, by the bootstrap CPU's install, before any AP exists. */
static bool gs_ready;

void percpu_install(struct percpu_head *head)
{
	head->self = head;
	wrmsr(MSR_GS_BASE, (uint64_t)(uintptr_t)head);
	gs_ready = true;
}

unsigned int percpu_cpu_id(void)
{
	unsigned int id;

	if (!gs_ready)
		return 0;
	__asm__ volatile("movl %%gs:%c1, %0" : "=r"(id) : "i"(PERCPU_INDEX_OFFSET));
	return id;
}
