/* SPDX-License-Identifier: MIT */
/*
 * mmu.c - the kernel page tables on the hardware: table pool, CR3, invlpg, and the
 * emulated private/shared conversion with its costs.
 */
#include "arch/x86_64/mmu.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "arch/x86_64/paging.h"
#include "arch/x86_64/spinlock.h"

#define FOUR_GIB (4ull << 30)
#define TWO_MIB (2ull << 20)
#define MSR_EFER 0xC0000080u
#define EFER_NXE (1ull << 11)
/* QEMU's port-0x80 dummy device: a write is a real VM exit under KVM. */
#define CONVERSION_TRAP_PORT 0x80

struct mmu_pool {
	uint8_t *next;
	uint8_t *end;
	uint64_t used, total;
};

static struct page_table kernel_pt;
/* Conversions come from any CPU (bounce-pool growth, arena chunks): one lock
 * serialises the page-table walk, the table pool and the statistics. Emulated
 * conversions change only a software bit, so other CPUs' TLB entries stay valid
 * and no shootdown is needed; a real TDX/SNP port must add one. */
static struct spinlock mmu_lock;
static struct mmu_pool pt_pool;
static struct mmu_stats stats;
static bool mmu_ready;
static bool nx_usable;
static uint64_t bytes_2m, bytes_4k;
static const struct mmu_cc_backend *cc_backend;

static void *mmu_alloc_table(void *ctx)
{
	struct mmu_pool *pool = ctx;
	void *page;

	if (pool->next + 4096 > pool->end)
		return NULL;
	page = pool->next;
	pool->next += 4096;
	pool->used++;
	memset(page, 0, 4096);
	return page;
}

static void mmu_flush_page(void *ctx, uint64_t va)
{
	(void)ctx;
	invlpg(va);
}

/* Device memory is uncached and never executable; all RAM stays executable (the
 * image runs from loader memory) and write-back. */
static uint64_t mmu_attr(bool device)
{
	if (device)
		return nx_usable ? PT_ATTR_MMIO : (PT_ATTR_MMIO & ~PT_NX);
	return PT_WRITE;
}

static int mmu_map(uint64_t start, uint64_t end, uint64_t attr)
{
	uint64_t big_start, big_end;

	if (start < 4096)
		start = 4096; /* page 0 stays unmapped: NULL dereferences fault */
	if (end <= start)
		return 0;
	/* What pt_map_range() will cover with 2 MiB leaves (identity: va == pa). */
	big_start = (start + TWO_MIB - 1) & ~(TWO_MIB - 1);
	big_end = end & ~(TWO_MIB - 1);
	if (big_end > big_start) {
		bytes_2m += big_end - big_start;
		bytes_4k += (big_start - start) + (end - big_end);
	} else {
		bytes_4k += end - start;
	}
	return pt_map_range(&kernel_pt, start, start, end - start, attr);
}

int mmu_init(const struct boot_info *bi, const struct cpu_info *cpu)
{
	struct pt_ops ops = { .ctx = &pt_pool, .alloc_table = mmu_alloc_table,
			      .flush_page = mmu_flush_page };
	uint32_t r[4];
	uint64_t pos = 0;
	int rc;

	(void)cpu;
	pt_pool.next = (uint8_t *)bi->pagetables.base;
	pt_pool.end = pt_pool.next + bi->pagetables.size;
	pt_pool.total = bi->pagetables.size / 4096;

	cpuid(0x80000000u, 0, r);
	if (r[0] >= 0x80000001u) {
		cpuid(0x80000001u, 0, r);
		nx_usable = r[3] & (1u << 20);
	}
	if (nx_usable)
		wrmsr(MSR_EFER, rdmsr(MSR_EFER) | EFER_NXE);

	rc = pt_init(&kernel_pt, &ops, PT_SW_SHARED, 0);
	if (rc)
		return rc;
	for (unsigned int i = 0; i < bi->nranges; i++) {
		const struct mem_range *m = &bi->ranges[i];

		/* Holes below 4 GiB hold the PCI window, LAPIC, IOAPIC, flash. */
		if (m->base > pos && pos < FOUR_GIB) {
			uint64_t hole_end = m->base < FOUR_GIB ? m->base : FOUR_GIB;

			rc = mmu_map(pos, hole_end, mmu_attr(true));
			if (rc)
				return rc;
		}
		rc = mmu_map(m->base, m->base + m->size, mmu_attr(m->kind == MEM_MMIO || !m->cacheable));
		if (rc)
			return rc;
		pos = m->base + m->size;
	}
	if (pos < FOUR_GIB) {
		rc = mmu_map(pos, FOUR_GIB, mmu_attr(true));
		if (rc)
			return rc;
	}
	rc = pt_check(&kernel_pt);
	if (rc)
		return rc;
	write_cr3((uint64_t)kernel_pt.pml4);
	mmu_ready = true;
	return 0;
}

int mmu_map_mmio(uint64_t pa, uint64_t len)
{
	uint64_t start = pa & ~4095ull, end = (pa + len + 4095) & ~4095ull;

	int rc;

	spin_lock(&mmu_lock);
	rc = pt_map_range(&kernel_pt, start, start, end - start, mmu_attr(true));
	spin_unlock(&mmu_lock);
	return rc;
}

void mmu_set_cc_backend(const struct mmu_cc_backend *backend)
{
	cc_backend = backend;
}

int mmu_pte_set_shared(uint64_t va, uint64_t len, bool shared)
{
	int rc;

	if (!mmu_ready)
		return PT_ERR_INVAL;
	spin_lock(&mmu_lock);
	rc = pt_set_shared(&kernel_pt, va, len, shared);
	spin_unlock(&mmu_lock);
	return rc;
}

/* Counts a conversion done by a backend, whatever its outcome. */
static int mmu_count(int rc, bool shared, uint64_t t0)
{
	spin_lock(&mmu_lock);
	if (rc) {
		stats.failed_calls++;
	} else if (shared) {
		stats.to_shared_calls++;
		stats.to_shared_cycles += rdtsc() - t0;
	} else {
		stats.to_private_calls++;
		stats.to_private_cycles += rdtsc() - t0;
	}
	spin_unlock(&mmu_lock);
	return rc;
}

int mmu_set_shared(uint64_t va, uint64_t len, bool shared)
{
	uint64_t t0 = rdtsc();
	int rc;

	if (!mmu_ready)
		return PT_ERR_INVAL;
	if (cc_backend)
		return mmu_count(cc_backend->convert(cc_backend->ctx, va, len, shared), shared, t0);
	spin_lock(&mmu_lock);
	rc = pt_set_shared(&kernel_pt, va, len, shared);
	/* The trapping access stands for the hypercall (MapGPA / page state change). */
	outb(CONVERSION_TRAP_PORT, 0);
	if (rc) {
		stats.failed_calls++;
		spin_unlock(&mmu_lock);
		return rc;
	}
	if (shared) {
		stats.to_shared_calls++;
		stats.to_shared_cycles += rdtsc() - t0;
	} else {
		stats.to_private_calls++;
		stats.to_private_cycles += rdtsc() - t0;
	}
	spin_unlock(&mmu_lock);
	return 0;
}

bool mmu_is_shared(uint64_t va)
{
	return mmu_ready && pt_is_shared(&kernel_pt, va);
}

bool mmu_range_is_shared(uint64_t va, uint64_t len)
{
	return mmu_ready && pt_range_is_shared(&kernel_pt, va, len);
}

void mmu_get_stats(struct mmu_stats *out)
{
	*out = stats;
	out->pages_made_shared = kernel_pt.pages_made_shared;
	out->pages_made_private = kernel_pt.pages_made_private;
	out->splits = kernel_pt.splits;
	out->flushes = kernel_pt.flushes;
	out->tables_used = pt_pool.used;
	out->tables_total = pt_pool.total;
}

void mmu_report(void)
{
	printf("mmu: own page tables loaded (CR3 0x%" PRIx64 "): identity map, %" PRIu64
	       " MiB in 2 MiB pages, %" PRIu64 " KiB in 4 KiB pages, %" PRIu64 "/%" PRIu64
	       " table pages, NX %s, page 0 unmapped\n",
	       read_cr3(), bytes_2m >> 20, bytes_4k >> 10, pt_pool.used, pt_pool.total,
	       nx_usable ? "on" : "unsupported");
	if (cc_backend)
		printf("mmu: shared attribute = software bit 9; a conversion = the %s protocol "
		       "(its page-table half: PTE update + invlpg)\n",
		       cc_backend->name);
	else
		printf("mmu: shared attribute = software bit 9 (emulated confidential computing); a "
		       "conversion = PTE update + invlpg + one trapping port write\n");
}
