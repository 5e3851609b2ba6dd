/* SPDX-License-Identifier: MIT */
/*
 * percpu.h - the calling CPU's dense index and its per-CPU area: a leaf header.
 *
 * Every room of arch/x86_64 needs "which CPU am I" (the exception report in
 * cpu/, the per-CPU TLB generation in mm/, the per-CPU GHCB in cc/), and only
 * smp/ starts CPUs. Asking smp.h for it made mm/ and smp/ include each other.
 * This header includes nothing of the project (scripts/check-layers.py checks
 * that: it is a leaf), so any room may include it; percpu.c implements it on
 * the GS base, and smp.c installs each CPU's area.
 */
#ifndef SLUICE_ARCH_SMP_PERCPU_H
#define SLUICE_ARCH_SMP_PERCPU_H

#include <stdint.h>

/**
 * struct percpu_head - the first bytes of every CPU's own area; GS base points
 *	at it once percpu_install() ran on that CPU.
 * @self: the area's own address (read as %gs:0, so that code can find the
 *	area without reading the GS base MSR).
 * @index: the CPU's dense index, 0 for the bootstrap CPU (read as %gs:8).
 */
struct percpu_head {
	struct percpu_head *self;
	unsigned int index;
};

/* Where percpu_cpu_id() reads the index (the asm in percpu.c depends on it). */
#define PERCPU_INDEX_OFFSET 8

/**
 * percpu_install() - make @head this CPU's area: sets @head->self and the GS
 *	base. The first call (on the bootstrap CPU, right after its GDT) turns
 *	percpu_cpu_id() from "0, nothing installed yet" to reading %gs.
 * @head: the area, @head->index already set; lives for ever.
 */
void percpu_install(struct percpu_head *head);

/**
 * percpu_cpu_id() - the calling CPU's dense index; 0 before the bootstrap
 *	CPU's percpu_install() (only the bootstrap CPU runs then).
 */
unsigned int percpu_cpu_id(void);

#endif /* SLUICE_ARCH_SMP_PERCPU_H */
