/* SPDX-License-Identifier: MIT */
/*
 * dma_setup.h - the kernel's instance of the DMA layer: porting ops over the
 * emulated private/shared page-table model (dma_port_kernel.c), one bounce pool
 * per policy and the 2 MB arena carved from the region reserved at boot
 * (dma_setup.c), the self-test (dma_selftest.c) and the report (dma_report.c).
 */
#ifndef SLUICE_BOOT_DMA_SETUP_H
#define SLUICE_BOOT_DMA_SETUP_H

#include "arch/x86_64/cpu/cpu.h"
#include "arch/x86_64/cpu/memops.h"
#include "arch/x86_64/smp/smp.h"
#include "boot/boot_info.h"
#include "boot/dma_modes.h"
#include <sluice/arena.h>
#include <sluice/dma.h>

/* Coherent memory (rings, headers) of the direct and arena layers. */
#define KDMA_COHERENT_POOL_BYTES (UINT64_C(1) << 20)

/**
 * struct kdma_config - one way of running I/O: a mode and, for bounce, the
 *	pool policy.
 * @mode: the mode.
 * @policy: the bounce policy (meaningful for KDMA_BOUNCE only).
 */
struct kdma_config {
	enum kernel_dma_mode mode;
	enum sluice_dma_bounce_policy policy;
};

#define KDMA_MAX_CONFIGS (2 + SLUICE_DMA_POLICY_COUNT)

/**
 * struct kdma_cpu_stats - one CPU's lock statistics for the DMA layers' locks
 * (kept per CPU so that counting does not itself contend).
 * @acquires: lock acquisitions.
 * @contended: acquisitions that found the lock taken.
 * @wait_cycles: TSC cycles spent waiting in those.
 * @log_dropped: DMA-layer messages an application processor could not print
 *	(only CPU 0 may use stdio); the last one is kept in @last_log.
 * @last_log: see @log_dropped.
 */
struct kdma_cpu_stats {
	uint64_t acquires;
	uint64_t contended;
	uint64_t wait_cycles;
	uint64_t log_dropped;
	char last_log[96];
} __attribute__((aligned(64)));

/**
 * struct kernel_dma - the layers and the arena the drivers use.
 * @direct: the direct mode's layer (small pool for coherent memory, in-place
 *	hook owning all memory).
 * @bounce: one layer per bounce policy, each with its own pool of pool= bytes.
 * @arena_layer: the arena mode's layer (small pool for coherent memory, the
 *	arena as in-place region).
 * @arena: the 2 MB shared arena.
 * @ops: the kernel's porting ops.
 * @policies: bit mask of the policies whose layer is set up.
 * @pool_base: start of each policy's pool (0 when not set up).
 * @pool_bytes: the size of each.
 * @arena_base: start of the arena region.
 * @arena_bytes: its size.
 * @fail_private: every Nth conversion back to private fails (fault injection; 0 never).
 * @private_calls: conversions back to private attempted so far.
 * @ncpus: CPUs the layers were built for (per-CPU caches and areas).
 * @max_areas: most areas per bounce pool (option areas=; 0: one per CPU).
 * @read_attrs: SLUICE_DMA_ATTR_* the block driver maps a read's data with:
 *	SLUICE_DMA_ATTR_UNMAP_WRITTEN under scrub=written, else 0.
 * @copy_name: the bounce copy installed (struct memops' name).
 * @zero_name: the clear installed (struct memops' zero_name).
 * @memops_timing: what memops_choose() measured of each candidate at start-up.
 * @erms: the CPU reports ERMS; @fsrm: and FSRM.
 * @cpu: per-CPU lock statistics, indexed by smp_cpu_id().
 */
struct kernel_dma {
	struct sluice_dma_layer direct;
	struct sluice_dma_layer bounce[SLUICE_DMA_POLICY_COUNT];
	struct sluice_dma_layer arena_layer;
	struct sluice_dma_arena arena;
	struct sluice_dma_port_ops ops;
	uint64_t policies;
	uint64_t pool_base[SLUICE_DMA_POLICY_COUNT];
	uint64_t pool_bytes;
	uint64_t arena_base, arena_bytes;
	uint64_t fail_private;
	uint64_t private_calls;
	unsigned int ncpus;
	unsigned int max_areas;
	unsigned int read_attrs;
	const char *copy_name;
	const char *zero_name;
	struct memops_timing memops_timing;
	bool erms, fsrm;
	struct kdma_cpu_stats cpu[SMP_MAX_CPUS];
};

/**
 * kernel_dma_policy_json() - a configuration's "policy" value for a benchmark
 *	JSON line: the quoted policy name in bounce mode, else null.
 * @cfg: the configuration.
 */
const char *kernel_dma_policy_json(const struct kdma_config *cfg);

/**
 * kernel_dma_areas() - the areas (locks) a configuration's bounce pool is split
 *	into, for benchmark output.
 * @kd: the DMA set-up.
 * @cfg: the configuration.
 * Return: the count, or 0 for a configuration without a bounce pool.
 */
unsigned int kernel_dma_areas(struct kernel_dma *kd, const struct kdma_config *cfg);

/**
 * kernel_dma_lock_stats_get() - sum of every CPU's lock statistics.
 * @kd: the DMA set-up.
 * @out: filled in (@log_dropped summed, @last_log empty).
 */
void kernel_dma_lock_stats_get(const struct kernel_dma *kd, struct kdma_cpu_stats *out);

/**
 * kernel_dma_lock_stats_reset() - zero every CPU's lock statistics.
 * @kd: the DMA set-up.
 */
void kernel_dma_lock_stats_reset(struct kernel_dma *kd);

/**
 * kernel_dma_arena_release() - convert the arena's idle chunks back to private
 *	(the lazy release of the DMA_PMD design: Luigi Rizzo's RFC "DMA_PMD:
 *	PMD_SIZE-backed IO buffer pools", LKML) and print what happened, leaks
 *	included.
 * @kd: the instance.
 * @label: what the release follows, for the message.
 */
void kernel_dma_arena_release(struct kernel_dma *kd, const char *label);

/**
 * kernel_dma_layer() - the layer of a configuration.
 * @kd: the instance.
 * @cfg: mode and policy (the policy must be set up).
 */
struct sluice_dma_layer *kernel_dma_layer(struct kernel_dma *kd, const struct kdma_config *cfg);

/**
 * kernel_dma_configs() - the configurations to run, in report order: direct,
 *	bounce with each policy set up, arena (each only if in @modes).
 * @kd: the instance.
 * @modes: bit mask of enum kernel_dma_mode.
 * @out: at least KDMA_MAX_CONFIGS entries.
 * Return: the number written.
 */
int kernel_dma_configs(const struct kernel_dma *kd, uint64_t modes, struct kdma_config *out);

/**
 * kernel_dma_config_name() - "direct", "bounce/linux", ..., "arena".
 * @cfg: the configuration.
 */
const char *kernel_dma_config_name(const struct kdma_config *cfg);

/**
 * kernel_dma_mode_name() - "direct", "bounce" or "arena".
 * @mode: the mode.
 */
const char *kernel_dma_mode_name(enum kernel_dma_mode mode);

/**
 * kernel_dma_buf_alloc() - an I/O buffer as the mode uses them: private heap
 *	memory for direct and bounce, an arena block for arena.
 * @kd: the instance.
 * @mode: the mode.
 * @size: bytes (the arena rounds up to a power of two).
 * Return: a 4 KiB-aligned buffer, or NULL.
 */
void *kernel_dma_buf_alloc(struct kernel_dma *kd, enum kernel_dma_mode mode, size_t size);

/**
 * kernel_dma_buf_free() - release a buffer from kernel_dma_buf_alloc().
 * @kd: the instance.
 * @mode: the mode it was allocated for.
 * @buf: the buffer (NULL is ignored).
 */
void kernel_dma_buf_free(struct kernel_dma *kd, enum kernel_dma_mode mode, void *buf);

/**
 * kernel_dma_port_ops() - the kernel's port of the DMA library
 *	(dma_port_kernel.c, the reference port of dma/PORTING.md): conversions
 *	through mmu_set_shared(), identity device addresses, spinlocks counted in
 *	@kd's per-CPU statistics, messages printed by CPU 0 only.
 * @kd: the instance, the ops' context (fault injection, statistics).
 * Return: the ops, with @kd as their context.
 */
struct sluice_dma_port_ops kernel_dma_port_ops(struct kernel_dma *kd);

/**
 * kernel_dma_init() - set up the layer on the DMA region and check it works.
 * @bi: the boot hand-off (region, options).
 * @cpu: the identified boot CPU: its ERMS makes `rep movsb` the preferred
 *	bounce copy; the one installed is the fastest on this machine
 *	(memops.h: memops_choose()).
 * Return: the instance, or NULL after printing why.
 */
struct kernel_dma *kernel_dma_init(const struct boot_info *bi, const struct cpu_info *cpu);

/**
 * kernel_dma_report() - print the layer's configuration and statistics.
 * @kd: the instance.
 */
void kernel_dma_report(struct kernel_dma *kd);

/**
 * kernel_dma_selftest() - map, sync and unmap buffers in every direction through
 *	the bounce pool and the arena, checking data and the shared invariant.
 * @kd: the instance.
 * Return: 0, or -1 after printing what failed.
 */
int kernel_dma_selftest(struct kernel_dma *kd);

#endif /* SLUICE_BOOT_DMA_SETUP_H */
