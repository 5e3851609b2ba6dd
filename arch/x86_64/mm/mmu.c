/* SPDX-License-Identifier: MIT */
/*
 * mmu.c - the kernel page tables on the hardware: table pool, CR3, invlpg, EFER.NXE
 * and CR0.WP, and the emulated private/shared conversion with its costs. What is
 * mapped, and with which permissions (W^X), is decided in kmap.c.
 */
#include "arch/x86_64/mm/mmu.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "arch/x86_64/mm/kmap.h"
#include "arch/x86_64/mm/paging.h"
#include "arch/x86_64/mm/tlb_gen.h"
#include "arch/x86_64/smp/percpu.h"
#include "arch/x86_64/smp/spinlock.h"

#define FOUR_GIB (4ull << 30)
#define MSR_EFER 0xC0000080u
#define EFER_NXE (1ull << 11) /* XD bit usable in paging entries (SDM vol. 3 2.2.1) */
#define CR0_WP (1ull << 16)   /* supervisor writes honour R/W (SDM vol. 3 2.5, 4.6.1) */
/* QEMU's port-0x80 dummy device: a write is a real VM exit under KVM. */
#define CONVERSION_TRAP_PORT 0x80

struct mmu_pool {
	uint8_t *next;
	uint8_t *end;
	uint64_t used, total;
};

static struct page_table kernel_pt;
/* Conversions come from any CPU (bounce-pool growth, arena chunks): one lock
 * serialises the page-table walk, the table pool and the statistics. Other CPUs'
 * TLBs follow through the generation below (mmu_tlb_shootdown()). */
static struct spinlock mmu_lock;
/* Advanced by every conversion; each CPU's copy says which it has flushed for. */
static uint64_t tlb_generation;
static struct {
	uint64_t seen;
	uint64_t syncs;
} __attribute__((aligned(64))) tlb_cpu[SMP_MAX_CPUS];
static const char *encoding_name = "software bit 9";
static uint64_t cr3_mask;
static struct mmu_pool pt_pool;
static struct mmu_stats stats;
static bool mmu_ready;
static bool nx_usable;
static const struct mmu_cc_backend *cc_backend;
/* The memory map as kmap.c sees it, the layout built from it, and what was mapped at boot. */
static struct kmap_range kranges[MEM_MAX_RANGES];
static struct kmap_layout layout;
static struct kmap_summary summary;

/*
 * The image's text, from the link script (linker/sluice-efi.lds): [_text,
 * _text_page_end) is page aligned and holds nothing but .text. Hidden, so the
 * compiler takes their addresses RIP-relative, already relocated, without a GOT.
 */
extern const char _text[] __attribute__((visibility("hidden")));
extern const char _text_page_end[] __attribute__((visibility("hidden")));

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

/* Device memory: uncached, never encrypted, never executable. */
static uint64_t mmu_mmio_attr(void)
{
	return nx_usable ? PT_ATTR_MMIO : (PT_ATTR_MMIO & ~PT_NX);
}

/*
 * With NX the tables about to be loaded must hold exactly the policy: the text
 * and nothing else executable, nothing writable and executable, nothing shared
 * and executable. Without NX, at least the text must be read-only.
 */
static int mmu_verify_wx(void)
{
	uint64_t flags;

	if (pt_translate(&kernel_pt, layout.text_start, NULL, NULL, &flags) || (flags & PT_WRITE))
		return PT_ERR_INVAL;
	if (!nx_usable)
		return 0;
	if (summary.bytes_wx || summary.bytes_shared_exec ||
	    summary.bytes_exec != layout.text_end - layout.text_start ||
	    summary.exec_lo != layout.text_start || summary.exec_hi != layout.text_end)
		return PT_ERR_INVAL;
	return 0;
}

int mmu_init(const struct mmu_memory *mem, const struct cpu_info *cpu,
	     const struct mmu_encoding *enc)
{
	struct pt_ops ops = { .ctx = &pt_pool,
			      .alloc_table = mmu_alloc_table,
			      .flush_page = mmu_flush_page };
	uint64_t text_start = (uint64_t)(uintptr_t)_text;
	uint64_t text_end = (uint64_t)(uintptr_t)_text_page_end;
	int rc;

	pt_pool.next = (uint8_t *)mem->pagetables.base;
	pt_pool.end = pt_pool.next + mem->pagetables.size;
	pt_pool.total = mem->pagetables.size / 4096;

	/* The text must be where the firmware says the image is. */
	if (text_start < mem->image_base || text_end > mem->image_base + mem->image_size)
		return PT_ERR_INVAL;
	/*
	 * EFER.NXE before any entry with bit 63 can be walked: without it the bit
	 * is reserved and every access through such an entry faults (SDM vol. 3
	 * 4.5). Application processors copy EFER from here (smp.c) and set it in
	 * the trampoline before they turn paging on.
	 */
	nx_usable = cpu->has_nx;
	if (nx_usable)
		wrmsr(MSR_EFER, rdmsr(MSR_EFER) | EFER_NXE);

	if (mem->nranges > MEM_MAX_RANGES)
		return PT_ERR_INVAL;
	for (unsigned int i = 0; i < mem->nranges; i++) {
		const struct mem_range *m = &mem->ranges[i];

		kranges[i] = (struct kmap_range){ m->base, m->size,
						  m->kind == MEM_MMIO || !m->cacheable };
	}
	layout = (struct kmap_layout){
		.ranges = kranges,
		.nranges = mem->nranges,
		/* Holes below 4 GiB hold the PCI window, LAPIC, IOAPIC, flash. */
		.hole_limit = FOUR_GIB,
		.text_start = text_start,
		.text_end = text_end,
		.switch_start = mem->trampoline.base,
		.switch_end = mem->trampoline.base + mem->trampoline.size,
		.nx = nx_usable,
	};
	if (enc) {
		rc = pt_init(&kernel_pt, &ops, enc->shared_set_mask, enc->shared_clear_mask);
		encoding_name = enc->name;
	} else {
		rc = pt_init(&kernel_pt, &ops, PT_SW_SHARED, 0);
	}
	if (rc)
		return rc;
	rc = kmap_build(&kernel_pt, &layout);
	if (rc)
		return rc;
	rc = pt_check(&kernel_pt);
	if (rc)
		return rc;
	rc = kmap_summarize(&kernel_pt, &summary);
	if (rc)
		return rc;
	rc = mmu_verify_wx();
	if (rc)
		return rc;
	/* Under SEV the table pointer in CR3 carries the C-bit like every table
	 * pointer (AMD APM vol. 2 15.34.5); a TD's CR3 has no shared bit. */
	cr3_mask = kernel_pt.shared_clear_mask;
	write_cr3((uint64_t)kernel_pt.pml4 | cr3_mask);
	/*
	 * Only now, on our own tables: with WP clear a supervisor write ignores
	 * R/W and the read-only text would be writable (SDM vol. 3 4.6.1).
	 * Application processors load this CR0 in the trampoline.
	 */
	write_cr0(read_cr0() | CR0_WP);
	mmu_ready = true;
	return 0;
}

int mmu_set_trampoline_exec(bool exec)
{
	int rc;

	if (!mmu_ready || layout.switch_start == layout.switch_end)
		return PT_ERR_INVAL;
	spin_lock(&mmu_lock);
	rc = kmap_set_exec(&kernel_pt, &layout, layout.switch_start,
			   layout.switch_end - layout.switch_start, exec);
	spin_unlock(&mmu_lock);
	return rc;
}

int mmu_map_mmio(uint64_t pa, uint64_t len)
{
	uint64_t start = pa & ~4095ull, end = (pa + len + 4095) & ~4095ull;

	int rc;

	spin_lock(&mmu_lock);
	rc = pt_map_range(&kernel_pt, start, start, end - start, mmu_mmio_attr());
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

void mmu_tlb_shootdown(uint64_t va, uint64_t len)
{
	(void)va;
	(void)len;
	/* Release: a CPU that sees the new generation also sees the new entries. */
	__atomic_add_fetch(&tlb_generation, 1, __ATOMIC_RELEASE);
}

void mmu_tlb_sync(void)
{
	unsigned int cpu = percpu_cpu_id();
	uint64_t gen = __atomic_load_n(&tlb_generation, __ATOMIC_ACQUIRE);

	if (!mmu_ready || !tlb_gen_needs_sync(tlb_cpu[cpu].seen, gen))
		return;
	write_cr3(read_cr3());
	tlb_cpu[cpu].seen = gen;
	tlb_cpu[cpu].syncs++;
}

/* Counts a conversion started at @t0, whatever its outcome; mmu_lock held. */
static void mmu_count_locked(int rc, bool shared, uint64_t t0)
{
	if (rc) {
		stats.failed_calls++;
	} else if (shared) {
		stats.to_shared_calls++;
		stats.to_shared_cycles += rdtsc() - t0;
	} else {
		stats.to_private_calls++;
		stats.to_private_cycles += rdtsc() - t0;
	}
}

/* Counts a conversion done by a backend (which runs without mmu_lock). */
static int mmu_count(int rc, bool shared, uint64_t t0)
{
	spin_lock(&mmu_lock);
	mmu_count_locked(rc, shared, t0);
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
	if (!rc)
		mmu_tlb_shootdown(va, len);
	/* The trapping access stands for the hypercall (MapGPA / page state change). */
	outb(CONVERSION_TRAP_PORT, 0);
	mmu_count_locked(rc, shared, t0);
	spin_unlock(&mmu_lock);
	return rc;
}

bool mmu_is_shared(uint64_t va)
{
	return mmu_ready && pt_is_shared(&kernel_pt, va);
}

bool mmu_range_is_shared(uint64_t va, uint64_t len)
{
	return mmu_ready && pt_range_is_shared(&kernel_pt, va, len);
}

void mmu_stats_get(struct mmu_stats *out)
{
	*out = stats;
	out->pages_made_shared = kernel_pt.pages_made_shared;
	out->pages_made_private = kernel_pt.pages_made_private;
	out->splits = kernel_pt.splits;
	out->flushes = kernel_pt.flushes;
	out->tables_used = pt_pool.used;
	out->tables_total = pt_pool.total;
	out->shootdowns = __atomic_load_n(&tlb_generation, __ATOMIC_RELAXED);
	out->tlb_syncs = 0;
	for (unsigned int i = 0; i < SMP_MAX_CPUS; i++)
		out->tlb_syncs += tlb_cpu[i].syncs;
}

void mmu_report(void)
{
	printf("mmu: own page tables loaded (CR3 0x%" PRIx64 "): identity map, %" PRIu64
	       " MiB in 2 MiB pages, %" PRIu64 " KiB in 4 KiB pages, %" PRIu64 "/%" PRIu64
	       " table pages, NX %s, page 0 unmapped\n",
	       read_cr3(), summary.bytes_2m >> 20, summary.bytes_4k >> 10, pt_pool.used,
	       pt_pool.total, nx_usable ? "on" : "unsupported");
	if (nx_usable)
		printf("mmu: W^X: text 0x%010" PRIx64 " - 0x%010" PRIx64 " read-only (%" PRIu64
		       " KiB, the only executable memory), everything else non-executable; "
		       "CR0.WP on, EFER.NXE on\n",
		       layout.text_start, layout.text_end,
		       (layout.text_end - layout.text_start) >> 10);
	else
		printf("mmu: W^X: text 0x%010" PRIx64 " - 0x%010" PRIx64 " read-only, CR0.WP on; "
		       "this CPU has no NX, so everything else stays executable\n",
		       layout.text_start, layout.text_end);
	if (layout.switch_start != layout.switch_end)
		printf("mmu: W^X: AP start-up page 0x%" PRIx64 " writable and non-executable, "
		       "read-only and executable only while an application processor starts\n",
		       layout.switch_start);
	if (cc_backend)
		printf("mmu: shared attribute = %s; a conversion = the %s protocol "
		       "(its page-table half: PTE update + invlpg, other CPUs' TLBs by "
		       "generation)%s\n",
		       encoding_name, cc_backend->name,
		       nx_usable ? "; a shared page is never executable" : "");
	else
		printf("mmu: shared attribute = software bit 9 (emulated confidential computing); "
		       "a conversion = PTE update + invlpg + one trapping port write%s\n",
		       nx_usable ? "; a shared page is never executable" : "");
}
