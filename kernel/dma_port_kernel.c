/* SPDX-License-Identifier: MIT */
/*
 * dma_port_kernel.c - the kernel's port of the DMA library: the porting ops
 * (<sluice/dma_port.h>) the kernel's layers and arena run on. It is the
 * reference port dma/PORTING.md describes, on a real platform; examples/port/
 * is the same walk-through for an imaginary one.
 *
 * Conversions are the emulated model of arch/x86_64/mm/mmu.c (or, in a TD or an
 * SEV-SNP guest, the platform's, behind mmu_set_shared()): a page-table
 * "shared" bit, TLB invalidation and one trapping I/O write per call. Device
 * addresses are the identity (the kernel identity-maps RAM and QEMU's devices
 * see guest physical addresses). Locks are the kernel's spinlocks, counted per
 * CPU; only CPU 0 prints.
 */
#include "kernel/dma_setup.h"
#include "kernel/dma_port_inline.h"

#include <stdio.h>

#include "arch/x86_64/cpu/cpu.h"
#include "arch/x86_64/mm/mmu.h"
#include "arch/x86_64/smp/spinlock.h"

_Static_assert(sizeof(struct spinlock) <= SLUICE_DMA_PORT_LOCK_SIZE,
	       "a spinlock fits the lock slot");

static int kd_set_shared(void *ctx, void *vaddr, size_t len)
{
	(void)ctx;
	return mmu_set_shared((uint64_t)(uintptr_t)vaddr, len, true) ? SLUICE_DMA_ERR_IO : 0;
}

static int kd_set_private(void *ctx, void *vaddr, size_t len)
{
	struct kernel_dma *kd = ctx;

	/* Fault injection: the hypervisor refuses this page-state change. */
	if (kd->fail_private &&
	    __atomic_add_fetch(&kd->private_calls, 1, __ATOMIC_RELAXED) % kd->fail_private == 0)
		return SLUICE_DMA_ERR_IO;
	return mmu_set_shared((uint64_t)(uintptr_t)vaddr, len, false) ? SLUICE_DMA_ERR_IO : 0;
}

static uint64_t kd_virt_to_dma(void *ctx, const void *vaddr)
{
	(void)ctx;
	return (uint64_t)(uintptr_t)vaddr;
}

static void *kd_dma_to_virt(void *ctx, uint64_t dma_addr)
{
	(void)ctx;
	return (void *)(uintptr_t)dma_addr;
}

/* Named by kernel/dma_port_inline.h: the library runs the same body inline. */
unsigned int kernel_dma_cpu_id(void *ctx)
{
	return SLUICE_DMA_INLINE_CPU_ID(ctx);
}

static void kd_lock_init(void *ctx, void *lock)
{
	(void)ctx;
	((struct spinlock *)lock)->locked = 0;
}

/* Waiting is what contention costs, so it is measured: one failed try starts
 * the clock (the uncontended path adds a single atomic exchange). */
static uint64_t kd_lock(void *ctx, void *lock)
{
	struct kernel_dma *kd = ctx;
	struct kdma_cpu_stats *st = &kd->cpu[smp_cpu_id()];

	st->acquires++;
	if (!spin_trylock(lock)) {
		uint64_t t0 = rdtsc();

		spin_lock(lock);
		st->contended++;
		st->wait_cycles += rdtsc() - t0;
	}
	/* Memory the layer hands out under this lock may have been converted by
	 * another CPU: this CPU's TLB must not hold its old mapping (mmu.h). The
	 * library hands memory to a CPU only under a lock taken on it after the
	 * conversion, lock-free per-CPU caches included (dma_port.h, @lock), so
	 * this sync covers every allocation. Not covered by it: a CPU that unmaps
	 * or syncs a mapping another CPU made copies through its own translation
	 * before any lock. In this kernel that copy only ever reads a bounce
	 * pool, and pools are added once at set-up (kernel_dma_init()), before
	 * any AP runs work, and each AP syncs before it does; arena mappings
	 * are in place and copy nothing. */
	mmu_tlb_sync();
	/* Nothing to save: the kernel's DMA paths never run in an interrupt
	 * handler, so these spinlocks leave the interrupt flag as it is. */
	return 0;
}

static void kd_unlock(void *ctx, void *lock, uint64_t saved)
{
	(void)ctx, (void)saved;
	spin_unlock(lock);
}

static uint64_t kd_cycles(void *ctx)
{
	(void)ctx;
	return rdtsc();
}

static void kd_log(void *ctx, enum sluice_dma_log_level level, const char *msg)
{
	static const char *const prefix[] = { "dma: error: ", "dma: warning: ", "dma: " };
	struct kernel_dma *kd = ctx;
	unsigned int cpu = smp_cpu_id();

	if (cpu != 0) {
		/* Only CPU 0 may print: keep the message for kernel_dma_report(). */
		struct kdma_cpu_stats *st = &kd->cpu[cpu];
		size_t i = 0;

		st->log_dropped++;
		for (; msg[i] && i + 1 < sizeof(st->last_log); i++)
			st->last_log[i] = msg[i];
		st->last_log[i] = '\0';
		return;
	}
	printf("%s%s\n", prefix[level <= SLUICE_DMA_LOG_INFO ? level : SLUICE_DMA_LOG_INFO], msg);
}

struct sluice_dma_port_ops kernel_dma_port_ops(struct kernel_dma *kd)
{
	return (struct sluice_dma_port_ops){
		.ctx = kd,
		.set_shared = kd_set_shared,
		.set_private = kd_set_private,
		.virt_to_dma = kd_virt_to_dma,
		.dma_to_virt = kd_dma_to_virt,
		.cpu_id = kernel_dma_cpu_id,
		.lock_init = kd_lock_init,
		.lock = kd_lock,
		.unlock = kd_unlock,
		.cycles = kd_cycles,
		.log = kd_log,
		/*
		 * The kernel never preempts and maps no buffer from an interrupt
		 * handler, and smp_cpu_id() is unique per CPU: the sluice policy's
		 * per-CPU slot caches may run without locks.
		 */
		.flags = SLUICE_DMA_PORT_CPU_EXCLUSIVE,
	};
}
