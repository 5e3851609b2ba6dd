/* SPDX-License-Identifier: MIT */
/*
 * dma_setup.c - the kernel's DMA layers on the region reserved at boot: one
 * bounce pool per policy, the two small coherent pools, the 2 MiB arena; the
 * configurations the tasks run in, and their I/O buffers.
 *
 * The porting ops the layers run on are in dma_port_kernel.c, the self-test in
 * dma_selftest.c, the report and the figures for benchmark output in
 * dma_report.c. The layer's metadata is private kernel heap; only the pools and
 * the arena chunks it converts are shared.
 */
#include "kernel/dma_setup.h"

#include "arch/x86_64/cpu/memops.h"

#include <inttypes.h>
#include <stdio.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

#define TWO_MIB (UINT64_C(2) << 20)

static struct kernel_dma kernel_dma;

/* Direct mode: no confidential computing, every buffer is device-reachable. */
static bool kd_identity_owns(void *ctx, const void *vaddr, size_t len)
{
	(void)ctx, (void)vaddr, (void)len;
	return true;
}

static const struct sluice_dma_inplace_region identity_region = { .owns = kd_identity_owns };

const char *kernel_dma_mode_name(enum kernel_dma_mode mode)
{
	static const char *const names[KDMA_NMODES] = {
#define KDMA_MODE_NAME_(upper, lower) [KDMA_##upper] = #lower,
		KERNEL_DMA_MODES(KDMA_MODE_NAME_)
#undef KDMA_MODE_NAME_
	};

	return (unsigned int)mode < KDMA_NMODES ? names[mode] : "?";
}

/* A layer with one pool of @bytes at @base; metadata from the kernel heap. */
static int kd_layer_init(struct kernel_dma *kd, struct sluice_dma_layer *dl,
			 enum sluice_dma_bounce_policy policy, enum sluice_dma_scrub scrub,
			 uint64_t base, uint64_t bytes)
{
	size_t meta_len;
	void *meta;
	int rc;

	rc = sluice_dma_layer_init(dl, &kd->ops, kd->ncpus, scrub);
	if (!rc)
		rc = sluice_dma_layer_set_max_areas(dl, kd->max_areas);
	/* A driver that unmaps or frees a bad handle is a kernel bug: stop there. */
	if (!rc)
		rc = sluice_dma_layer_set_strict(dl, true);
	if (rc)
		return rc;
	meta_len = sluice_dma_bounce_meta_size(policy, bytes, kd->ncpus);
	meta = meta_len ? malloc(meta_len) : NULL;
	if (!meta)
		return SLUICE_DMA_ERR_NOMEM;
	rc = sluice_dma_bounce_pool_add(dl, policy, (void *)(uintptr_t)base, bytes, meta, meta_len);
	if (rc)
		free(meta);
	return rc;
}

struct kernel_dma *kernel_dma_init(const struct boot_info *bi, const struct cpu_info *cpu)
{
	struct kernel_dma *kd = &kernel_dma;
	/* scrub=written is a zero-scrub layer whose block reads skip the zero. */
	enum sluice_dma_scrub scrub = bi->options.scrub ? SLUICE_DMA_SCRUB_ZERO :
							  SLUICE_DMA_SCRUB_COPY;
	static struct sluice_dma_inplace_region arena_region;
	struct sluice_dma_arena_config acfg;
	uint64_t next, direct_pool, arena_pool;
	size_t arena_meta_len;
	void *arena_meta;
	struct memops mo;
	int rc, p;

	memset(kd, 0, sizeof(*kd));
	kd->policies = bi->options.policies;
	kd->fail_private = bi->options.fail_private;
	kd->ncpus = smp_cpu_count();
	kd->max_areas = (unsigned int)bi->options.areas;
	kd->read_attrs =
		bi->options.scrub == OPTIONS_SCRUB_WRITTEN ? SLUICE_DMA_ATTR_UNMAP_WRITTEN : 0;
	kd->ops = kernel_dma_port_ops(kd);
	/* The bounce copy for this machine, timed and chosen before any layer takes
	 * its copy of the ops (a layer copies them at init: dma_port.h). */
	memops_choose(cpu, &mo, &kd->memops_timing);
	kd->ops.copy = mo.copy;
	kd->ops.zero = mo.zero;
	kd->copy_name = mo.name;
	kd->zero_name = mo.zero_name;
	kd->erms = cpu->has_erms;
	kd->fsrm = cpu->has_fsrm;
	/* Layout: one bounce pool per policy, the two small coherent pools, then the
	 * arena from the next 2 MiB boundary to the end (options guarantee at least
	 * one chunk). */
	kd->pool_bytes = bi->options.pool_bytes;
	next = bi->dma.base;
	for (p = 0; p < SLUICE_DMA_POLICY_COUNT; p++) {
		if (!(kd->policies & (UINT64_C(1) << p)))
			continue;
		kd->pool_base[p] = next;
		next += kd->pool_bytes;
		rc = kd_layer_init(kd, &kd->bounce[p], (enum sluice_dma_bounce_policy)p, scrub,
				   kd->pool_base[p], kd->pool_bytes);
		if (rc)
			goto fail_pool;
	}
	direct_pool = next;
	arena_pool = direct_pool + KDMA_COHERENT_POOL_BYTES;
	kd->arena_base = (arena_pool + KDMA_COHERENT_POOL_BYTES + TWO_MIB - 1) & ~(TWO_MIB - 1);
	kd->arena_bytes = bi->dma.base + bi->dma.size - kd->arena_base;

	/* The small pools only serve coherent allocations: the policy matters little. */
	rc = kd_layer_init(kd, &kd->direct, SLUICE_DMA_POLICY_SLUICE, scrub, direct_pool,
			   KDMA_COHERENT_POOL_BYTES);
	if (rc)
		goto fail_coherent;
	sluice_dma_layer_set_inplace(&kd->direct, &identity_region);
	rc = kd_layer_init(kd, &kd->arena_layer, SLUICE_DMA_POLICY_SLUICE, scrub, arena_pool,
			   KDMA_COHERENT_POOL_BYTES);
	if (rc)
		goto fail_coherent;

	arena_meta_len = sluice_dma_arena_meta_size(kd->arena_bytes, kd->ncpus);
	arena_meta = malloc(arena_meta_len);
	if (!arena_meta) {
		rc = SLUICE_DMA_ERR_NOMEM;
		goto fail_arena;
	}
	acfg = (struct sluice_dma_arena_config){
		.base = (void *)(uintptr_t)kd->arena_base,
		.len = kd->arena_bytes,
		.max_shared = 0,
		.ncpus = kd->ncpus,
		.meta = arena_meta,
		.meta_len = arena_meta_len,
	};
	rc = sluice_dma_arena_init(&kd->arena, &kd->ops, &acfg);
	if (rc)
		goto fail_arena;
	/*
	 * The full hook: blocks mapped in place are counted, so a block freed
	 * while mapped is refused (kernel_dma_buf_free()), and coherent memory
	 * beyond the small pool's runs comes from the arena.
	 */
	sluice_dma_arena_region(&arena_region, &kd->arena);
	sluice_dma_layer_set_inplace(&kd->arena_layer, &arena_region);
	return kd;

fail_arena:
	printf("dma: arena of %" PRIu64 " KiB at 0x%" PRIx64 " failed (%d)\n",
	       kd->arena_bytes >> 10, kd->arena_base, rc);
	return NULL;
fail_coherent:
	printf("dma: coherent pool at 0x%" PRIx64 " failed (%d)\n", direct_pool, rc);
	return NULL;
fail_pool:
	printf("dma: bounce pool of %" PRIu64 " KiB at 0x%" PRIx64 " (policy %s) failed (%d)\n",
	       kd->pool_bytes >> 10, kd->pool_base[p],
	       sluice_dma_bounce_policy_name((enum sluice_dma_bounce_policy)p), rc);
	return NULL;
}

struct sluice_dma_layer *kernel_dma_layer(struct kernel_dma *kd, const struct kdma_config *cfg)
{
	switch (cfg->mode) {
	case KDMA_DIRECT:
		return &kd->direct;
	case KDMA_ARENA:
		return &kd->arena_layer;
	default:
		return &kd->bounce[cfg->policy];
	}
}

int kernel_dma_configs(const struct kernel_dma *kd, uint64_t modes, struct kdma_config *out)
{
	int n = 0;

	if (modes & (UINT64_C(1) << KDMA_DIRECT))
		out[n++] = (struct kdma_config){ KDMA_DIRECT, SLUICE_DMA_POLICY_LINUX };
	if (modes & (UINT64_C(1) << KDMA_BOUNCE))
		for (int p = 0; p < SLUICE_DMA_POLICY_COUNT; p++)
			if (kd->policies & (UINT64_C(1) << p))
				out[n++] = (struct kdma_config){ KDMA_BOUNCE,
								 (enum sluice_dma_bounce_policy)p };
	if (modes & (UINT64_C(1) << KDMA_ARENA))
		out[n++] = (struct kdma_config){ KDMA_ARENA, SLUICE_DMA_POLICY_LINUX };
	return n;
}

const char *kernel_dma_config_name(const struct kdma_config *cfg)
{
	/* "bounce/<policy>": stringified here, `linux` being a GNU C macro. */
	static const char *const bounce_names[SLUICE_DMA_POLICY_COUNT] = {
#define KDMA_BOUNCE_NAME_(upper, lower) [SLUICE_DMA_POLICY_##upper] = "bounce/" #lower,
		SLUICE_DMA_POLICIES(KDMA_BOUNCE_NAME_)
#undef KDMA_BOUNCE_NAME_
	};

	if (cfg->mode == KDMA_BOUNCE)
		return (unsigned int)cfg->policy < SLUICE_DMA_POLICY_COUNT ?
			       bounce_names[cfg->policy] :
			       "?";
	return kernel_dma_mode_name(cfg->mode);
}

void *kernel_dma_buf_alloc(struct kernel_dma *kd, enum kernel_dma_mode mode, size_t size)
{
	if (mode == KDMA_ARENA)
		return sluice_dma_arena_alloc(&kd->arena, size);
	return memalign(4096, size);
}

void kernel_dma_buf_free(struct kernel_dma *kd, enum kernel_dma_mode mode, void *buf)
{
	if (!buf)
		return;
	if (mode == KDMA_ARENA) {
		int rc = sluice_dma_arena_free(&kd->arena, buf);

		/*
		 * A block still mapped in place (BUSY) is left allocated, which is
		 * safe (the arena logged it); anything else is a bad pointer, a
		 * kernel bug that used to trap in the arena and still does here.
		 */
		if (rc && rc != SLUICE_DMA_ERR_BUSY)
			__builtin_trap();
	} else {
		free(buf);
	}
}
