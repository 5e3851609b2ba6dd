/* SPDX-License-Identifier: MIT */
/*
 * port.h - calling the port ops (<sluice/dma_port.h>): the one place the
 * library decides what a missing optional op means. The layer (bounce.h) and
 * the arena (arena_priv.h) call the platform only through these, so both
 * objects follow the same rules. Not a public header.
 *
 * Each object keeps its own copy of the ops table (the one ops-lifetime rule
 * of dma_port.h): these helpers take a pointer to that copy.
 */
#ifndef SLUICE_DMA_PORT_PRIV_H
#define SLUICE_DMA_PORT_PRIV_H

#include <stdint.h>

#include <sluice/dma_port.h>

#include "dma/priv.h"

/*
 * The port's inline ops (SLUICE_DMA_PORT_INLINE, dma_port.h): its header, named
 * by the build; each op below runs the inline body when the table holds the
 * function the header names, and calls through the table otherwise.
 */
#ifdef SLUICE_DMA_PORT_INLINE
#include SLUICE_DMA_PORT_INLINE
#endif

/*
 * The one cpu_id rule (dma_port.h): no op means CPU 0, an index >= @ncpus is
 * folded to id % @ncpus. Folding, not trapping: every per-CPU structure is
 * locked, so two CPUs that share an index stay correct (they only share a
 * cache and its counters), and a port whose CPU numbering has holes still
 * works. The exception is a port that promises exclusive indices
 * (SLUICE_DMA_PORT_CPU_EXCLUSIVE): its per-CPU structures are used without
 * their locks, so it must report indices below @ncpus, and the fold only
 * keeps a wrong one in bounds. @ncpus >= 1 (init refuses 0).
 */
static inline unsigned int dma_port_cpu_fold(unsigned int id, unsigned int ncpus)
{
	return id < ncpus ? id : id % ncpus;
}

/* The port's CPU index (inline when the table holds the inline op), folded. */
static inline unsigned int dma_port_cpu(const struct sluice_dma_port_ops *ops, unsigned int ncpus)
{
	unsigned int id;

#ifdef SLUICE_DMA_INLINE_CPU_ID_FN
	if (ops->cpu_id == SLUICE_DMA_INLINE_CPU_ID_FN)
		id = SLUICE_DMA_INLINE_CPU_ID(ops->ctx);
	else
#endif
		id = ops->cpu_id ? ops->cpu_id(ops->ctx) : 0;
	return dma_port_cpu_fold(id, ncpus);
}

/* Lock storage starts zeroed; lock_init may be left out when zero is enough. */
static inline void dma_port_lock_init(const struct sluice_dma_port_ops *ops,
				      struct sluice_dma_port_lock *l)
{
	memset(l, 0, sizeof(*l));
	if (ops->lock_init)
		ops->lock_init(ops->ctx, l);
}

/*
 * The ops may leave locking out on single-threaded platforms (both or neither).
 * The save word the port's lock returns (interrupt flags, a TPL, ...) is kept in
 * the lock's own storage: only the holder writes it, after acquiring, and reads
 * it back before releasing, so no caller has to carry it and nested holds (always
 * released in reverse order) each restore what their own lock saved.
 */
static inline void dma_port_lock(const struct sluice_dma_port_ops *ops,
				 struct sluice_dma_port_lock *l)
{
	if (ops->lock)
		l->saved = ops->lock(ops->ctx, l);
}

static inline void dma_port_unlock(const struct sluice_dma_port_ops *ops,
				   struct sluice_dma_port_lock *l)
{
	if (ops->unlock)
		ops->unlock(ops->ctx, l, l->saved);
}

/* A lock the library will never take again (lock_destroy is optional). */
static inline void dma_port_lock_destroy(const struct sluice_dma_port_ops *ops,
					 struct sluice_dma_port_lock *l)
{
	if (ops->lock_destroy)
		ops->lock_destroy(ops->ctx, l);
}

/* Statistics only: without a cycles op every figure reads 0. */
static inline uint64_t dma_port_cycles(const struct sluice_dma_port_ops *ops)
{
	return ops->cycles ? ops->cycles(ops->ctx) : 0;
}

/*
 * Cache maintenance for a non-coherent platform; nothing when the port has
 * no cache_maint op (a coherent platform says so by leaving it out).
 */
static inline void dma_port_cache(const struct sluice_dma_port_ops *ops, void *vaddr, size_t len,
				  enum sluice_dma_cache_op op)
{
	if (ops->cache_maint && len)
		ops->cache_maint(ops->ctx, vaddr, len, op);
}

/*
 * The bounce copy: the port's copy op, chosen once at start-up for its machine
 * (e.g. `rep movsb` with ERMS/FSRM), else the library's memcpy.
 */
static inline __attribute__((always_inline)) void
dma_port_copy(const struct sluice_dma_port_ops *ops, void *dst, const void *src, size_t len)
{
#ifdef SLUICE_DMA_INLINE_COPY_FN
	if (ops->copy == SLUICE_DMA_INLINE_COPY_FN) {
		SLUICE_DMA_INLINE_COPY(ops->ctx, dst, src, len);
		return;
	}
#endif
	if (ops->copy)
		ops->copy(ops->ctx, dst, src, len);
	else
		memcpy(dst, src, len);
}

/*
 * Clearing memory a device may see (bounce slots, coherent memory, arena
 * blocks): the port's zero op, chosen once for its CPU (e.g. `rep stosb` with
 * ERMS, or non-temporal stores), else the library's memset.
 */
static inline __attribute__((always_inline)) void
dma_port_zero(const struct sluice_dma_port_ops *ops, void *dst, size_t len)
{
#ifdef SLUICE_DMA_INLINE_ZERO_FN
	if (ops->zero == SLUICE_DMA_INLINE_ZERO_FN) {
		SLUICE_DMA_INLINE_ZERO(ops->ctx, dst, len);
		return;
	}
#endif
	if (ops->zero)
		ops->zero(ops->ctx, dst, len);
	else
		memset(dst, 0, len);
}

/*
 * A spin-wait hint to the CPU (x86 pause, Arm yield): lets a sibling hyper-
 * thread run and saves power while a waiter polls; no platform call.
 */
static inline void dma_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__) || defined(__arm__)
	__asm__ __volatile__("yield" ::: "memory");
#else
	__asm__ __volatile__("" ::: "memory");
#endif
}

#endif /* SLUICE_DMA_PORT_PRIV_H */
