/* SPDX-License-Identifier: MIT */
/*
 * iommu_port.c - the sluice-iommu driver's port: emulated conversions recorded
 * page-exactly, identity bus addresses (see iommu_port.h).
 */
#include "firmware/iommu/iommu_port.h"

#define PAGE 4096u

static bool overlaps(const struct iommu_port *p, uint64_t start, uint64_t end)
{
	for (unsigned int i = 0; i < p->nranges; i++)
		if (start < p->range[i].end && p->range[i].start < end)
			return true;
	return false;
}

/* All or nothing: a range is recorded whole or not at all. */
static int ip_set_shared(void *ctx, void *vaddr, size_t len)
{
	struct iommu_port *p = ctx;
	uint64_t start = (uint64_t)(uintptr_t)vaddr;

	if (!len || (start | len) % PAGE || start + len < start ||
	    overlaps(p, start, start + len) || p->nranges == IOMMU_PORT_MAX_RANGES) {
		p->refused++;
		return SLUICE_DMA_ERR_IO;
	}
	p->range[p->nranges].start = start;
	p->range[p->nranges].end = start + len;
	p->nranges++;
	p->pages_shared += len / PAGE;
	p->to_shared++;
	return 0;
}

/* The library converts back exactly the ranges it converted (PORTING.md). */
static int ip_set_private(void *ctx, void *vaddr, size_t len)
{
	struct iommu_port *p = ctx;
	uint64_t start = (uint64_t)(uintptr_t)vaddr;

	for (unsigned int i = 0; i < p->nranges; i++) {
		if (p->range[i].start != start || p->range[i].end != start + len)
			continue;
		p->range[i] = p->range[--p->nranges];
		p->pages_shared -= len / PAGE;
		p->to_private++;
		return 0;
	}
	p->refused++;
	return SLUICE_DMA_ERR_IO;
}

bool iommu_port_is_shared(const struct iommu_port *p, uint64_t addr, uint64_t len)
{
	if (!len || addr + len < addr)
		return false;
	for (unsigned int i = 0; i < p->nranges; i++)
		if (addr >= p->range[i].start && addr + len <= p->range[i].end)
			return true;
	return false;
}

static uint64_t ip_virt_to_dma(void *ctx, const void *vaddr)
{
	(void)ctx;
	return (uint64_t)(uintptr_t)vaddr;
}

static void *ip_dma_to_virt(void *ctx, uint64_t dma)
{
	(void)ctx;
	return (void *)(uintptr_t)dma;
}

static void ip_log(void *ctx, enum sluice_dma_log_level level, const char *msg)
{
	struct iommu_port *p = ctx;

	if (p->log)
		p->log(p->log_ctx, level, msg);
}

#if defined(__x86_64__)
static uint64_t ip_cycles(void *ctx)
{
	uint32_t lo, hi;

	(void)ctx;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

/* GNU-EFI's libefi memcpy copies byte by byte; the bounce copy is the cost we
 * measure, so it uses the string instructions, as the kernel's port does. */
static void ip_copy(void *ctx, void *dst, const void *src, size_t len)
{
	(void)ctx;
	__asm__ volatile("rep movsb" : "+D"(dst), "+S"(src), "+c"(len) : : "memory");
}

static void ip_zero(void *ctx, void *dst, size_t len)
{
	(void)ctx;
	__asm__ volatile("rep stosb" : "+D"(dst), "+c"(len) : "a"(0) : "memory");
}
#endif

static struct sluice_dma_port_ops iommu_port_ops_base(struct iommu_port *port)
{
	return (struct sluice_dma_port_ops)
	{
		.ctx = port, .set_shared = ip_set_shared, .set_private = ip_set_private,
		.virt_to_dma = ip_virt_to_dma, .dma_to_virt = ip_dma_to_virt, .log = ip_log,
#if defined(__x86_64__)
		.cycles = ip_cycles, .copy = ip_copy, .zero = ip_zero,
#endif
		/* One CPU, and the driver raises the TPL to TPL_NOTIFY around every
		 * library call, so no call interrupts another. */
			.flags = SLUICE_DMA_PORT_CPU_EXCLUSIVE,
	};
}

/* The lock is the TPL (one CPU): the save word is the TPL it replaced. */
static uint64_t ip_lock(void *ctx, void *lock)
{
	struct iommu_port *p = ctx;

	(void)lock;
	p->lock_holds++;
	return p->raise_tpl(p->tpl_ctx);
}

static void ip_unlock(void *ctx, void *lock, uint64_t saved)
{
	struct iommu_port *p = ctx;

	(void)lock;
	p->restore_tpl(p->tpl_ctx, saved);
}

struct sluice_dma_port_ops iommu_port_ops(struct iommu_port *port)
{
	struct sluice_dma_port_ops ops = iommu_port_ops_base(port);

	if (port->raise_tpl && port->restore_tpl) {
		ops.lock = ip_lock;
		ops.unlock = ip_unlock;
	}
	return ops;
}
