/* SPDX-License-Identifier: MIT */
/*
 * dma_port.h - porting interface of the Sluice DMA layer.
 *
 * FOR IMPLEMENTERS ONLY. Code that maps buffers includes <sluice/dma.h>; this header
 * is for whoever embeds the library on a new platform (the Sluice kernel, a host
 * test harness, TEE firmware). The library reaches the platform through exactly
 * these callbacks and nothing else; it allocates no memory of its own and calls
 * nothing from libc but memcpy, memset and memcmp.
 */
#ifndef SLUICE_DMA_PORT_H
#define SLUICE_DMA_PORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sluice/dma_errors.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * enum sluice_dma_log_level - severity passed to &struct sluice_dma_port_ops.log.
 * @SLUICE_DMA_LOG_ERR: something failed and the caller gets an error.
 * @SLUICE_DMA_LOG_WARN: something unexpected that the library recovered from.
 * @SLUICE_DMA_LOG_INFO: configuration and statistics reports.
 */
enum sluice_dma_log_level {
	SLUICE_DMA_LOG_ERR = 0,
	SLUICE_DMA_LOG_WARN = 1,
	SLUICE_DMA_LOG_INFO = 2,
};

/* Device access rights for &struct sluice_dma_port_ops.set_access (EDK2's values). */
#define SLUICE_DMA_ACCESS_READ 0x1u  /* the device may read the range */
#define SLUICE_DMA_ACCESS_WRITE 0x2u /* the device may write the range */

/**
 * enum sluice_dma_cache_op - cache maintenance asked of
 *	&struct sluice_dma_port_ops.cache_maint (Linux's arch_sync_dma_for_device()
 *	and arch_sync_dma_for_cpu() split the same way).
 * @SLUICE_DMA_CACHE_CLEAN: write dirty lines of the range back to memory,
 *	before the device accesses it (the CPU filled or zeroed it).
 * @SLUICE_DMA_CACHE_INVALIDATE: discard the range's lines, after the device
 *	wrote it and before the CPU reads it (stale lines would hide the data).
 */
enum sluice_dma_cache_op {
	SLUICE_DMA_CACHE_CLEAN = 1,
	SLUICE_DMA_CACHE_INVALIDATE = 2,
};

/**
 * struct sluice_dma_port_ops - what the platform provides to the DMA layer.
 *	dma/PORTING.md is the full contract of each op (when it is called,
 *	from which context, what it may not do, what a failure means).
 * @ctx: opaque pointer handed back as the first argument of every callback.
 * @set_shared: make [@vaddr, @vaddr + @len) shared with the host (decrypted,
 *	reachable by devices). @vaddr and @len are multiples of 4096. Called with
 *	no library lock held; may be slow (hypercalls, TLB shootdown). Return 0 on
 *	success or a negative SLUICE_DMA_ERR_* code; on failure no page of the
 *	range may be left shared.
 * @set_private: make the range private again. Same preconditions. On failure
 *	the library treats the range as still shared: it leaks it, counts it and
 *	never hands it out again (the host may still be able to see it).
 * @virt_to_dma: the device (bus) address of CPU address @vaddr, which lies in
 *	memory the library was given. Must not fail. A pool's memory must be
 *	contiguous in bus space: the library computes slot addresses as the
 *	pool's bus address plus an offset.
 * @dma_to_virt: the inverse of @virt_to_dma for addresses the library handed
 *	out; may be NULL if the mapping is the identity.
 * @cpu_id: index of the calling CPU, 0 <= id < the ncpus given at init. Must be
 *	cheap: it is called on every map. The one rule, for the layer and the
 *	arena alike: an index >= ncpus is folded to id % ncpus, never refused
 *	or trapped on (correct, as all per-CPU state is locked, but the CPUs
 *	then share a cache and its counters). May be NULL: every caller is CPU 0.
 * @lock_init: prepare the lock storage @lock (SLUICE_DMA_PORT_LOCK_SIZE bytes,
 *	8-byte aligned, inside a library object). May be NULL when @lock and
 *	@unlock need no initialisation beyond zeroed memory.
 * @lock: acquire the lock at @lock and return a save word: whatever the caller's
 *	state was that taking the lock changed and releasing it must put back
 *	(the interrupt flag, a TPL, a Zephyr k_spinlock_key_t, an Arm DAIF mask),
 *	or 0 if there is none. The library keeps the word, untouched, and hands it
 *	to the matching @unlock. Must not sleep if called from an I/O path.
 *	May be NULL on single-threaded platforms (then @unlock must be NULL too).
 *	Nesting: the library releases locks in the reverse order it took them,
 *	always, so restoring each save word at @unlock restores the state each
 *	@lock found. It holds at most two locks at once on every path but the
 *	arena's self-check (sluice_dma_arena_check(), a quiescent-time call), which
 *	holds every CPU cache lock of the arena and then the arena's own lock
 *	(ncpus + 1). It never takes a lock it already holds (no recursion).
 *	It is also where a CPU catches up with conversions made on other CPUs
 *	(a platform whose TLBs may keep a stale translation after set_shared
 *	syncs them here, as the Sluice kernel's mmu_tlb_sync() does): memory
 *	reaches a CPU only through a section under a lock taken on that CPU
 *	after the memory's conversion, the lock-free per-CPU caches of
 *	SLUICE_DMA_PORT_CPU_EXCLUSIVE included (they are filled under a lock).
 * @unlock: release the lock at @lock, then restore the caller's state from
 *	@saved, the word @lock returned when this hold began.
 * @cycles: a monotonic cycle counter (TSC or equivalent), used for the
 *	statistics only; may be NULL (then cycle figures read zero and
 *	profiling is refused with SLUICE_DMA_ERR_NOSYS).
 * @log: print one message line (no trailing newline) at @level; may be NULL.
 * @set_access: optional (NULL: the platform cannot restrict a device's
 *	access, and read-only mappings are advisory). Restrict or restore the
 *	device's access to [@dma_addr, @dma_addr + @len), whole 4 KiB pages the
 *	mapping owns alone, to @access (SLUICE_DMA_ACCESS_* bits; 0 = none).
 *	Called outside every library lock, at map (to narrow) and at unmap or
 *	free (to restore READ | WRITE, the state the library hands pages out
 *	in). Return 0 or a negative code; a failure to narrow fails the map; a
 *	failure to restore is logged and the pages are handed out again as
 *	they are (the port's contract is that restoring never fails).
 * @cache_maint: optional (NULL: DMA is cache coherent, as on x86). Clean or
 *	invalidate the CPU caches for [@vaddr, @vaddr + @len), memory a device
 *	reads or writes (bounce slots, or an in-place buffer). Called outside
 *	every library lock: CLEAN after the CPU wrote a range and before the
 *	device may read it (map, sync_for_device, coherent allocation, pool
 *	add), INVALIDATE after the device wrote it and before the CPU reads it
 *	(sync_for_cpu, unmap). Must not fail. The library never assumes
 *	coherence when the op is set, and never calls it when it is not.
 * @copy: optional (NULL: the library's memcpy). Copy @len bytes between a
 *	caller's buffer and bounce slots (map, sync, unmap); the ranges never
 *	overlap. The port picks the fastest correct copy for its CPU once, at
 *	start-up (e.g. `rep movsb` where x86 reports ERMS/FSRM), so that the
 *	library stays free of platform code. Called outside every library lock,
 *	on every bounce; must not fail.
 * @zero: optional (NULL: the library's memset). Clear @len bytes of bounce
 *	slots (the from-device scrub under SLUICE_DMA_SCRUB_ZERO, coherent
 *	memory) and of arena blocks (the arena's scrub, in the arena's own copy
 *	of the table). Same rules as @copy. A zero with non-temporal stores
 *	(x86 movnti / movntdq) must end with a store fence (sfence): those
 *	stores are weakly ordered and sit in write-combining buffers that
 *	neither a lock release nor a device's DMA read is guaranteed to see,
 *	and the library hands the memory out right after the call.
 * @flags: SLUICE_DMA_PORT_* promises the port makes (0: none). Read on every
 *	call; change it only while the layer is idle.
 * @lock_destroy: optional (NULL: locks hold no resources). Release whatever
 *	@lock_init set up for @lock; the library never takes @lock again. Called
 *	once per initialised lock, with no library lock held: a pool's locks when
 *	sluice_dma_layer_destroy() releases the pool (it returned 0 or
 *	SLUICE_DMA_ERR_IO), the layer's own lock then too (a pool added later
 *	initialises it again), the arena's locks when sluice_dma_arena_destroy()
 *	returned 0 or SLUICE_DMA_ERR_IO (the arena is then uninitialised).
 * @fatal: optional (NULL: the library only traps). A programmer error the
 *	library cannot return as an error (a void function given no layer, a bad
 *	handle on a strict layer or arena): called with the line also logged,
 *	"BUG: <what> (<file>:<line>)", before the library traps. The port prints
 *	it where a human sees it (the firmware's console) and stops the machine
 *	(CpuDeadLoop(), panic()); if it returns, the library traps with
 *	__builtin_trap() (x86 ud2, Arm brk). May be called with library locks held.
 *
 * Lifetime, the one rule for every object that takes a table (the layer,
 * sluice_dma_layer_init(); the arena, sluice_dma_arena_init()): the object
 * keeps its own copy of the table, so the table itself need not outlive the
 * init call and changing it afterwards changes nothing; @ctx, and whatever it
 * points to, must stay valid until the object is destroyed
 * (sluice_dma_layer_destroy(), sluice_dma_arena_destroy()). A copy, not a
 * pointer: the function pointers then live inside the object, which the
 * library refuses to place in memory it makes shared, so the host can never
 * rewrite them.
 *
 * Fields after @log were added in API 0.2, @copy, @zero and @flags in 0.4,
 * @lock_destroy and @fatal in 0.7; a table written for an older release with designated
 * initialisers leaves them NULL / 0, which keeps that release's behaviour. API
 * 0.7 changed @lock to return the save word and @unlock to take it back.
 */
struct sluice_dma_port_ops {
	void *ctx;
	int (*set_shared)(void *ctx, void *vaddr, size_t len);
	int (*set_private)(void *ctx, void *vaddr, size_t len);
	uint64_t (*virt_to_dma)(void *ctx, const void *vaddr);
	void *(*dma_to_virt)(void *ctx, uint64_t dma_addr);
	unsigned int (*cpu_id)(void *ctx);
	void (*lock_init)(void *ctx, void *lock);
	uint64_t (*lock)(void *ctx, void *lock);
	void (*unlock)(void *ctx, void *lock, uint64_t saved);
	uint64_t (*cycles)(void *ctx);
	void (*log)(void *ctx, enum sluice_dma_log_level level, const char *msg);
	int (*set_access)(void *ctx, uint64_t dma_addr, size_t len, unsigned int access);
	void (*cache_maint)(void *ctx, void *vaddr, size_t len, enum sluice_dma_cache_op op);
	void (*copy)(void *ctx, void *dst, const void *src, size_t len);
	void (*zero)(void *ctx, void *dst, size_t len);
	uint32_t flags;
	void (*lock_destroy)(void *ctx, void *lock);
	void (*fatal)(void *ctx, const char *msg);
};

/*
 * SLUICE_DMA_PORT_CPU_EXCLUSIVE - a promise about @cpu_id: no two callers that
 * run at the same time get the same index, and a library call is never
 * interrupted by another library call on the same CPU (no preemption, no map
 * from an interrupt handler that can fire inside a map). The per-CPU slot
 * caches of the `sluice` policy are then touched by their CPU without any lock
 * or atomic read-modify-write; without the promise they are locked, and CPUs
 * that share an index stay correct. The pools' per-CPU statistics likewise:
 * a plain load and store under the promise, an atomic add without it (API
 * 0.6; before, an index shared by running callers could lose updates).
 * With the promise, a request that fails may leave slots in other CPUs'
 * caches (at most an eighth of the pool): those CPUs are asked to return
 * them and do at their next call (see dma/PORTING.md). Slots still enter a
 * cache only under a lock taken on its CPU (a refill, the CPU's remote list)
 * or as a mapping that CPU held: the port's @lock, if it
 * syncs the CPU's TLB, covers the lock-free hits too. An arena configured
 * with SLUICE_DMA_ARENA_OWNED_CACHES (which requires this promise) uses its
 * per-CPU caches the same way: their owner without a lock, other CPUs by a
 * request the owner honours at its next call; a block enters such a cache
 * only by a free on that CPU.
 */
#define SLUICE_DMA_PORT_CPU_EXCLUSIVE 0x1u

/*
 * SLUICE_DMA_PORT_INLINE - a build option, for a port that compiles the
 * library's sources into its own image (dma/PORTING.md, "Inline ops"): the
 * name of a header of the port's, given when the library is compiled
 * (-DSLUICE_DMA_PORT_INLINE='"myport_inline.h"'), that shows the library the
 * bodies of the port's @cpu_id, @copy and @zero so that the map path runs
 * them inline instead of calling through the table. For each op it may
 * define a pair:
 *
 *	SLUICE_DMA_INLINE_CPU_ID_FN		the function the port puts in @cpu_id
 *	SLUICE_DMA_INLINE_CPU_ID(ctx)		that function's result, inline
 *	SLUICE_DMA_INLINE_COPY_FN		the function the port puts in @copy
 *	SLUICE_DMA_INLINE_COPY(ctx, dst, src, len)	its work, inline
 *	SLUICE_DMA_INLINE_ZERO_FN		the function the port puts in @zero
 *	SLUICE_DMA_INLINE_ZERO(ctx, dst, len)	its work, inline
 *
 * The table stays the truth: the library runs the inline body only when the
 * object's copy of the table holds that very function, and calls through the
 * table otherwise, so a table naming another function (or NULL) behaves as it
 * always did. The port keeps one definition of each body (the out-of-line
 * function runs the same inline code), so the two ways give one answer. Not
 * an ABI: a library built with it references the named functions and belongs
 * to that port; the installed library (pkg-config, CMake) is built without.
 */

/*
 * SLUICE_DMA_ALIGNAS() - alignment of a struct member in C11 and C++11 alike
 * (the keywords differ: _Alignas in C, alignas in C++).
 */
#ifdef __cplusplus
#define SLUICE_DMA_ALIGNAS(n) alignas(n)
#else
#define SLUICE_DMA_ALIGNAS(n) _Alignas(n)
#endif

/* Bytes of lock storage the library reserves inside each object it locks. */
#define SLUICE_DMA_PORT_LOCK_SIZE 8

/**
 * struct sluice_dma_port_lock - opaque, aligned storage for one platform lock.
 * @word: the storage; the platform interprets it (the ops get its address).
 * @saved: the library's: the save word @lock returned to the current holder,
 *	kept for its @unlock (written and read only while the lock is held).
 */
struct sluice_dma_port_lock {
	SLUICE_DMA_ALIGNAS(8) unsigned char word[SLUICE_DMA_PORT_LOCK_SIZE];
	uint64_t saved;
};

#ifdef __cplusplus
}
#endif

#endif /* SLUICE_DMA_PORT_H */
