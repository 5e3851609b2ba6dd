/* SPDX-License-Identifier: MIT */
/*
 * dma_port.h - porting interface of the Sluice DMA layer.
 *
 * FOR IMPLEMENTERS ONLY. Code that maps buffers includes "dma/include/sluice/dma.h"; this header
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

/**
 * struct sluice_dma_port_ops - what the platform provides to the DMA layer.
 * @ctx: opaque pointer handed back as the first argument of every callback.
 * @set_shared: make [@vaddr, @vaddr + @len) shared with the host (decrypted,
 *	reachable by devices). @vaddr and @len are multiples of 4096. Called with
 *	no library lock held; may be slow (hypercalls, TLB shootdown). Return 0 on
 *	success or a negative DMA_ERR_* code; on failure no page of the range may
 *	be left shared.
 * @set_private: make the range private again. Same preconditions. On failure
 *	the library treats the range as still shared: it leaks it, counts it and
 *	never hands it out again (the host may still be able to see it).
 * @virt_to_dma: the device (bus) address of CPU address @vaddr, which lies in
 *	memory the library was given. Must not fail.
 * @dma_to_virt: the inverse of @virt_to_dma for addresses the library handed
 *	out; may be NULL if the mapping is the identity.
 * @cpu_id: index of the calling CPU, 0 <= id < the ncpus given at init. Must be
 *	cheap: it is called on every map.
 * @lock_init: prepare the lock storage @lock (SLUICE_DMA_PORT_LOCK_SIZE bytes,
 *	8-byte aligned, inside a library object). May be NULL when @lock and
 *	@unlock need no initialisation beyond zeroed memory.
 * @lock: acquire the lock at @lock. Must not sleep if called from an I/O path.
 *	May be NULL on single-threaded platforms (then @unlock must be NULL too).
 * @unlock: release the lock at @lock.
 * @cycles: a monotonic cycle counter (TSC or equivalent), used for the
 *	statistics only; may be NULL (then cycle figures read zero).
 * @log: print one message line (no trailing newline) at @level; may be NULL.
 */
struct sluice_dma_port_ops {
	void *ctx;
	int (*set_shared)(void *ctx, void *vaddr, size_t len);
	int (*set_private)(void *ctx, void *vaddr, size_t len);
	uint64_t (*virt_to_dma)(void *ctx, const void *vaddr);
	void *(*dma_to_virt)(void *ctx, uint64_t dma_addr);
	unsigned int (*cpu_id)(void *ctx);
	void (*lock_init)(void *ctx, void *lock);
	void (*lock)(void *ctx, void *lock);
	void (*unlock)(void *ctx, void *lock);
	uint64_t (*cycles)(void *ctx);
	void (*log)(void *ctx, enum sluice_dma_log_level level, const char *msg);
};

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
 * @word: the storage; the platform interprets it.
 */
struct sluice_dma_port_lock {
	SLUICE_DMA_ALIGNAS(8) unsigned char word[SLUICE_DMA_PORT_LOCK_SIZE];
};

#ifdef __cplusplus
}
#endif

#endif /* SLUICE_DMA_PORT_H */
