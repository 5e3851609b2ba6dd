/* SPDX-License-Identifier: MIT */
/*
 * dma_setup.c - the DMA layer's porting ops in the kernel, and its set-up.
 *
 * Conversions are the emulated model of arch/x86_64/mmu.c: a page-table "shared"
 * bit, TLB invalidation and one trapping I/O write per call. Device addresses are
 * the identity (the kernel identity-maps RAM and QEMU's devices see guest
 * physical addresses). The layer's metadata is private kernel heap; only the pool
 * and the arena chunks it converts are shared.
 */
#include "boot/dma_setup.h"

#include <inttypes.h>
#include <stdio.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

#include "arch/x86_64/cpu.h"
#include "arch/x86_64/memops.h"
#include "arch/x86_64/mmu.h"
#include "arch/x86_64/spinlock.h"
#include "arch/x86_64/tsc.h"

#define TWO_MIB (UINT64_C(2) << 20)

_Static_assert(sizeof(struct spinlock) <= SLUICE_DMA_PORT_LOCK_SIZE,
	       "a spinlock fits the lock slot");
_Static_assert(SLUICE_DMA_POLICY_COUNT == 4, "options_policy_names lists every policy");

static struct kernel_dma kernel_dma;

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

static unsigned int kd_cpu_id(void *ctx)
{
	(void)ctx;
	return smp_cpu_id();
}

static void kd_lock_init(void *ctx, void *lock)
{
	(void)ctx;
	((struct spinlock *)lock)->locked = 0;
}

/* Waiting is what contention costs, so it is measured: one failed try starts
 * the clock (the uncontended path adds a single atomic exchange). */
static void kd_lock(void *ctx, void *lock)
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
	 * another CPU: this CPU's TLB must not hold its old mapping (mmu.h). */
	mmu_tlb_sync();
}

static void kd_unlock(void *ctx, void *lock)
{
	(void)ctx;
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

/* Direct mode: no confidential computing, every buffer is device-reachable. */
static bool kd_identity_owns(void *ctx, const void *vaddr, size_t len)
{
	(void)ctx, (void)vaddr, (void)len;
	return true;
}

static const struct sluice_dma_inplace_region identity_region = { .owns = kd_identity_owns };

const char *kernel_dma_mode_name(enum kernel_dma_mode mode)
{
	static const char *const names[KDMA_NMODES] = { "direct", "bounce", "arena" };

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

struct kernel_dma *kernel_dma_init(const struct boot_info *bi)
{
	struct kernel_dma *kd = &kernel_dma;
	enum sluice_dma_scrub scrub = (enum sluice_dma_scrub)bi->options.scrub;
	static struct sluice_dma_inplace_region arena_region;
	struct sluice_dma_arena_config acfg;
	uint64_t next, direct_pool, arena_pool;
	size_t arena_meta_len;
	void *arena_meta;
	int rc, p;

	memset(kd, 0, sizeof(*kd));
	kd->policies = bi->options.policies;
	kd->fail_private = bi->options.fail_private;
	kd->ncpus = smp_cpu_count();
	kd->max_areas = (unsigned int)bi->options.areas;
	kd->ops = (struct sluice_dma_port_ops){
		.ctx = kd,
		.set_shared = kd_set_shared,
		.set_private = kd_set_private,
		.virt_to_dma = kd_virt_to_dma,
		.dma_to_virt = kd_dma_to_virt,
		.cpu_id = kd_cpu_id,
		.lock_init = kd_lock_init,
		.lock = kd_lock,
		.unlock = kd_unlock,
		.cycles = kd_cycles,
		.log = kd_log,
		/*
		 * The kernel never preempts and maps no buffer from an interrupt
		 * handler, and smp_cpu_id() is unique per CPU: the sluice policy's
		 * magazines may run without locks.
		 */
		.flags = SLUICE_DMA_PORT_CPU_EXCLUSIVE,
	};
	kd->copy_name = "libc";
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
	static const char *const bounce_names[SLUICE_DMA_POLICY_COUNT] = {
		"bounce/linux", "bounce/bitmap", "bounce/lifo", "bounce/sluice"
	};

	if (cfg->mode == KDMA_BOUNCE)
		return (unsigned int)cfg->policy < SLUICE_DMA_POLICY_COUNT
			       ? bounce_names[cfg->policy]
			       : "?";
	return kernel_dma_mode_name(cfg->mode);
}

void kernel_dma_arena_release(struct kernel_dma *kd, const char *label)
{
	struct sluice_dma_arena_stats st;
	unsigned int released = sluice_dma_arena_reclaim(&kd->arena, 0);

	sluice_dma_arena_get_stats(&kd->arena, &st);
	printf("dma: arena after %s: %u idle chunks released to private, %u shared now, %u "
	       "leaked (conversion back failed %" PRIu64 " times), %" PRIu64 " conversions to "
	       "shared so far\n",
	       label, released, st.chunks_shared, st.chunks_leaked, st.to_private_failed,
	       st.to_shared);
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

void kernel_dma_use_cpu(struct kernel_dma *kd, const struct cpu_info *cpu)
{
	struct memops mo;

	memops_choose(cpu, &mo);
	/* Every layer points at kd->ops and is idle here: the ops may change. */
	kd->ops.copy = mo.copy;
	kd->ops.zero = mo.zero;
	kd->copy_name = mo.name;
	kd->erms = cpu->has_erms;
	kd->fsrm = cpu->has_fsrm;
}

void kernel_dma_report(struct kernel_dma *kd)
{
	struct sluice_dma_arena_stats as;
	struct mmu_stats ms;

	for (int p = 0; p < SLUICE_DMA_POLICY_COUNT; p++) {
		struct sluice_dma_bounce_stats bs;

		if (!(kd->policies & (UINT64_C(1) << p)))
			continue;
		sluice_dma_bounce_stats_get(&kd->bounce[p], -1, &bs);
		printf("dma: bounce pool 0x%010" PRIx64 " %" PRIu64 " KiB, %" PRIu64
		       " slots of 2 KiB in %" PRIu64 " area%s, policy %s, scrub %s, largest mapping "
		       "%zu KiB\n",
		       kd->pool_base[p], kd->pool_bytes >> 10, bs.nslabs, bs.nareas,
		       bs.nareas == 1 ? "" : "s",
		       sluice_dma_bounce_policy_name((enum sluice_dma_bounce_policy)p),
		       kd->bounce[p].scrub == SLUICE_DMA_SCRUB_COPY ? "copy" : "zero",
		       sluice_dma_max_mapping_size(&kd->bounce[p], &SLUICE_DMA_TAG_DEFAULT) >> 10);
	}
	sluice_dma_arena_get_stats(&kd->arena, &as);
	mmu_get_stats(&ms);
	printf("dma: coherent pools of the direct and arena modes: 2 x %" PRIu64 " KiB\n",
	       KDMA_COHERENT_POOL_BYTES >> 10);
	printf("dma: arena 0x%010" PRIx64 " %" PRIu64 " KiB = %" PRIu64
	       " chunks of 2 MiB, %" PRIu64 " shared now, converted lazily\n",
	       kd->arena_base, kd->arena_bytes >> 10, (uint64_t)as.nchunks,
	       (uint64_t)as.chunks_shared);
	printf("dma: conversions so far: %" PRIu64 " to shared (%" PRIu64 " cycles), %" PRIu64
	       " to private (%" PRIu64 " cycles), %" PRIu64 " 2 MiB splits\n",
	       ms.to_shared_calls, ms.to_shared_cycles, ms.to_private_calls, ms.to_private_cycles,
	       ms.splits);
	printf("dma: bounce copy %s (ERMS %s, FSRM %s); per-CPU slot caches %s\n",
	       !strcmp(kd->copy_name, "movsb") ? "rep movsb / rep stosb" : "newlib memcpy / memset",
	       kd->erms ? "yes" : "no", kd->fsrm ? "yes" : "no",
	       (kd->ops.flags & SLUICE_DMA_PORT_CPU_EXCLUSIVE) ? "without locks (exclusive CPUs)"
							       : "locked");
	printf("dma: built for %u CPU%s (per-CPU caches and areas)\n", kd->ncpus,
	       kd->ncpus == 1 ? "" : "s");
	for (unsigned int c = 1; c < SMP_MAX_CPUS; c++)
		if (kd->cpu[c].log_dropped)
			printf("dma: cpu %u had %" PRIu64 " message%s it could not print; last: %s\n", c,
			       kd->cpu[c].log_dropped, kd->cpu[c].log_dropped == 1 ? "" : "s",
			       kd->cpu[c].last_log);
}

#define SELFTEST_REPEATS 64

static int selftest_fail(const char *what, uint64_t addr)
{
	printf("dma: selftest FAILED: %s (address 0x%" PRIx64 ")\n", what, addr);
	return -1;
}

/* The device's view: the bytes at a device address (identity mapping). */
static uint8_t *device_view(uint64_t dma_addr)
{
	return (uint8_t *)(uintptr_t)dma_addr;
}

int kernel_dma_selftest(struct kernel_dma *kd)
{
	int first = __builtin_ctzll(kd->policies);
	struct sluice_dma_layer *bl = &kd->bounce[first];
	const struct sluice_dma_tag tag = SLUICE_DMA_TAG_DEFAULT;
	const size_t len = 6000; /* 3 slots, not a multiple of anything */
	uint8_t *buf = malloc(len), *other = malloc(len), *block, *ring;
	uint64_t addr, ring_addr, t0, map_cycles, unmap_cycles;
	int rc;

	if (!buf || !other)
		return selftest_fail("no heap for test buffers", 0);
	for (size_t i = 0; i < len; i++)
		buf[i] = (uint8_t)(i * 7 + 1);

	/* To device: the device sees a copy, in shared memory, not the private buffer. */
	t0 = rdtsc();
	rc = sluice_dma_map(bl, &tag, buf, len, SLUICE_DMA_TO_DEVICE, &addr);
	map_cycles = rdtsc() - t0;
	if (rc)
		return selftest_fail("map to-device", (uintptr_t)buf);
	if (addr == (uintptr_t)buf || !sluice_dma_addr_is_shared(bl, addr, len) ||
	    !mmu_range_is_shared(addr, len))
		return selftest_fail("to-device mapping is not in converted shared memory", addr);
	if (memcmp(device_view(addr), buf, len))
		return selftest_fail("device does not see the buffer's bytes", addr);
	if (mmu_range_is_shared((uintptr_t)buf, len))
		return selftest_fail("the private buffer became shared", (uintptr_t)buf);
	t0 = rdtsc();
	sluice_dma_unmap(bl, addr, len, SLUICE_DMA_TO_DEVICE);
	unmap_cycles = rdtsc() - t0;

	/* From device: what the device writes reaches the buffer at sync and unmap,
	 * and the slots it is given hold nothing of the previous mapping. */
	memset(other, 0x5a, len);
	rc = sluice_dma_map(bl, &tag, other, len, SLUICE_DMA_FROM_DEVICE, &addr);
	if (rc)
		return selftest_fail("map from-device", (uintptr_t)other);
	/* scrub=copy shows the device the buffer's own bytes (as Linux does since
	 * CVE-2022-0854), scrub=zero shows zeros: never the earlier mapping's. */
	for (size_t i = 0; i < len; i++)
		if (device_view(addr)[i] != (bl->scrub == SLUICE_DMA_SCRUB_COPY ? 0x5a : 0))
			return selftest_fail("the device sees bytes that are not this mapping's",
					     addr + i);
	memset(device_view(addr), 0xc3, 100);
	if (sluice_dma_sync_for_cpu(bl, addr, 0, 100, SLUICE_DMA_FROM_DEVICE) || other[0] != 0xc3 ||
	    other[99] != 0xc3 || other[100] != 0x5a)
		return selftest_fail("sync_for_cpu did not copy exactly the synced range", addr);
	device_view(addr)[len - 1] = 0x11;
	sluice_dma_unmap(bl, addr, len, SLUICE_DMA_FROM_DEVICE);
	if (other[len - 1] != 0x11)
		return selftest_fail("unmap did not copy the device's bytes back", addr);

	/* The arena: shared memory mapped in place, no copy. */
	block = sluice_dma_arena_alloc(&kd->arena, 8192);
	if (!block)
		return selftest_fail("arena alloc", 0);
	if (!mmu_range_is_shared((uintptr_t)block, 8192))
		return selftest_fail("arena block is not shared in the page tables", (uintptr_t)block);
	rc = sluice_dma_map(&kd->arena_layer, &tag, block, 8192, SLUICE_DMA_BIDIRECTIONAL, &addr);
	if (rc || addr != (uintptr_t)block)
		return selftest_fail("arena block did not map in place", (uintptr_t)block);
	sluice_dma_unmap(&kd->arena_layer, addr, 8192, SLUICE_DMA_BIDIRECTIONAL);
	/* The arena layer bounces what is not arena memory. */
	rc = sluice_dma_map(&kd->arena_layer, &tag, buf, 64, SLUICE_DMA_TO_DEVICE, &addr);
	if (rc || addr == (uintptr_t)buf || !mmu_range_is_shared(addr, 64))
		return selftest_fail("arena layer did not bounce a private buffer", (uintptr_t)buf);
	sluice_dma_unmap(&kd->arena_layer, addr, 64, SLUICE_DMA_TO_DEVICE);
	/* The direct layer maps everything in place (a plain VM). */
	rc = sluice_dma_map(&kd->direct, &tag, buf, len, SLUICE_DMA_TO_DEVICE, &addr);
	if (rc || addr != (uintptr_t)buf)
		return selftest_fail("direct layer did not map in place", (uintptr_t)buf);
	sluice_dma_unmap(&kd->direct, addr, len, SLUICE_DMA_TO_DEVICE);
	sluice_dma_arena_free(&kd->arena, block);

	/* Coherent memory for rings: shared and zeroed. */
	ring = sluice_dma_alloc_coherent(bl, &tag, 4096, &ring_addr);
	if (!ring)
		return selftest_fail("coherent alloc", 0);
	for (size_t i = 0; i < 4096; i++)
		if (ring[i])
			return selftest_fail("coherent memory not zeroed", ring_addr + i);
	if (!mmu_range_is_shared(ring_addr, 4096))
		return selftest_fail("coherent memory is not shared", ring_addr);
	sluice_dma_free_coherent(bl, ring, 4096);

	for (int p = 0; p < SLUICE_DMA_POLICY_COUNT; p++)
		if ((kd->policies & (UINT64_C(1) << p)) && sluice_dma_layer_check(&kd->bounce[p]))
			return selftest_fail("bounce layer self-check", (uint64_t)p);
	if (sluice_dma_layer_check(&kd->direct) || sluice_dma_layer_check(&kd->arena_layer))
		return selftest_fail("layer self-check", 0);

	/* Warm figures: the first call also pays for cold caches (and, under TCG,
	 * for translating the code), so time a run of repeats. */
	map_cycles = unmap_cycles = 0;
	for (int i = 0; i < SELFTEST_REPEATS; i++) {
		t0 = rdtsc();
		rc = sluice_dma_map(bl, &tag, buf, len, SLUICE_DMA_TO_DEVICE, &addr);
		map_cycles += rdtsc() - t0;
		if (rc)
			return selftest_fail("repeated map", (uintptr_t)buf);
		t0 = rdtsc();
		sluice_dma_unmap(bl, addr, len, SLUICE_DMA_TO_DEVICE);
		unmap_cycles += rdtsc() - t0;
	}
	free(buf);
	free(other);
	printf("dma: selftest passed (bounce to/from device, sync, stale-data guard, arena in "
	       "place, coherent); 6000-byte to-device map %" PRIu64 " cycles, unmap %" PRIu64
	       " cycles (mean of %d, copy included)\n",
	       map_cycles / SELFTEST_REPEATS, unmap_cycles / SELFTEST_REPEATS, SELFTEST_REPEATS);
	return 0;
}

const char *kernel_dma_policy_json(const struct kdma_config *cfg)
{
	/* In the order of enum sluice_dma_bounce_policy (checked at the top of this file). */
	static const char *const quoted[SLUICE_DMA_POLICY_COUNT] = { "\"linux\"", "\"bitmap\"",
							      "\"lifo\"", "\"sluice\"" };

	if (cfg->mode != KDMA_BOUNCE || (unsigned int)cfg->policy >= SLUICE_DMA_POLICY_COUNT)
		return "null";
	return quoted[cfg->policy];
}

unsigned int kernel_dma_areas(struct kernel_dma *kd, const struct kdma_config *cfg)
{
	struct sluice_dma_bounce_stats bs;

	if (cfg->mode != KDMA_BOUNCE ||
	    sluice_dma_bounce_stats_get(kernel_dma_layer(kd, cfg), -1, &bs))
		return 0;
	return (unsigned int)bs.nareas;
}

void kernel_dma_lock_stats(const struct kernel_dma *kd, struct kdma_cpu_stats *out)
{
	memset(out, 0, sizeof(*out));
	for (unsigned int i = 0; i < SMP_MAX_CPUS; i++) {
		out->acquires += kd->cpu[i].acquires;
		out->contended += kd->cpu[i].contended;
		out->wait_cycles += kd->cpu[i].wait_cycles;
		out->log_dropped += kd->cpu[i].log_dropped;
	}
}

void kernel_dma_lock_stats_reset(struct kernel_dma *kd)
{
	for (unsigned int i = 0; i < SMP_MAX_CPUS; i++) {
		kd->cpu[i].acquires = 0;
		kd->cpu[i].contended = 0;
		kd->cpu[i].wait_cycles = 0;
	}
}
