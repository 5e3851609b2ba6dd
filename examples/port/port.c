/* SPDX-License-Identifier: MIT */
/*
 * port.c - the example port's ops (see port.h and dma/PORTING.md). Freestanding:
 * no libc, no allocation, nothing but the ops the library calls.
 */
#include "port.h"

_Alignas(2 * 1024 * 1024) unsigned char port_mem[PORT_MEM_BYTES];

/* Page index of a CPU address in port_mem, or -1 outside it. */
static long page_of(const void *vaddr)
{
	uintptr_t v = (uintptr_t)vaddr, b = (uintptr_t)port_mem;

	return v >= b && v - b < PORT_MEM_BYTES ? (long)((v - b) / PORT_PAGE) : -1;
}

static bool bit(const uint64_t *map, unsigned long i)
{
	return (map[i / 64] >> (i % 64)) & 1;
}

static void assign(uint64_t *map, unsigned long i, bool on)
{
	if (on)
		map[i / 64] |= (uint64_t)1 << (i % 64);
	else
		map[i / 64] &= ~((uint64_t)1 << (i % 64));
}

/*
 * set_shared / set_private: page-granular, whole range or nothing (the
 * contract: on failure no page of the range may be left shared). A real
 * platform issues its hypercalls here and may take milliseconds; the
 * library holds no lock while it does.
 */
static int convert(void *ctx, void *vaddr, size_t len, bool to_shared)
{
	struct port *p = ctx;
	long first = page_of(vaddr), last = page_of((unsigned char *)vaddr + len - 1);

	if (first < 0 || last < 0 || ((uintptr_t)vaddr | len) % PORT_PAGE)
		return SLUICE_DMA_ERR_INVAL;
	/* Converting what is converted already is a caller bug: refuse it whole. */
	for (long i = first; i <= last; i++)
		if (bit(p->shared, (unsigned long)i) == to_shared)
			return SLUICE_DMA_ERR_INVAL;
	for (long i = first; i <= last; i++)
		assign(p->shared, (unsigned long)i, to_shared);
	p->conversions++;
	return 0;
}

static int port_set_shared(void *ctx, void *vaddr, size_t len)
{
	return convert(ctx, vaddr, len, true);
}

static int port_set_private(void *ctx, void *vaddr, size_t len)
{
	return convert(ctx, vaddr, len, false);
}

/* Non-identity: RAM starts at PORT_BUS_BASE on the bus, and pools are
 * contiguous there because port_mem is. */
uint64_t port_bus_addr(const void *vaddr)
{
	return PORT_BUS_BASE + (uint64_t)((uintptr_t)vaddr - (uintptr_t)port_mem);
}

void *port_cpu_addr(uint64_t bus)
{
	return port_mem + (bus - PORT_BUS_BASE);
}

static uint64_t port_virt_to_dma(void *ctx, const void *vaddr)
{
	(void)ctx;
	return port_bus_addr(vaddr);
}

static void *port_dma_to_virt(void *ctx, uint64_t bus)
{
	(void)ctx;
	return port_cpu_addr(bus);
}

/*
 * One CPU, but locks anyway: a test-and-set spinlock in the library's 8 bytes.
 * The save word is the platform's "interrupt mask" (port_irq_mask), raised while
 * a lock is held and restored from the word at unlock, as an irqsave spinlock
 * keeps the interrupt flag: nested holds each put back what they found.
 */
static uint64_t port_lock(void *ctx, void *lock)
{
	struct port *p = ctx;
	uint64_t saved = p->irq_mask;

	p->irq_mask = 1;
	while (__atomic_test_and_set(lock, __ATOMIC_ACQUIRE))
		;
	p->locks_held++;
	return saved;
}

static void port_unlock(void *ctx, void *lock, uint64_t saved)
{
	struct port *p = ctx;

	p->locks_held--;
	__atomic_clear(lock, __ATOMIC_RELEASE);
	p->irq_mask = saved;
}

/* Nothing to release for a test-and-set word, but count it: main.c checks. */
static void port_lock_init(void *ctx, void *lock)
{
	struct port *p = ctx;

	(void)lock;
	p->locks_live++;
}

static void port_lock_destroy(void *ctx, void *lock)
{
	struct port *p = ctx;

	(void)lock;
	p->locks_live--;
}

static void port_log(void *ctx, enum sluice_dma_log_level level, const char *msg)
{
	struct port *p = ctx;
	size_t i = 0;

	(void)level;
	for (; msg[i] && i + 1 < sizeof(p->log); i++)
		p->log[i] = msg[i];
	p->log[i] = '\0';
	p->log_lines++;
}

/*
 * set_access: the platform's IOMMU (here a bitmap) makes whole pages
 * read-only for devices, or restores them. Access 0 would revoke all
 * access; this platform cannot express that and says so.
 */
static int port_set_access(void *ctx, uint64_t bus, size_t len, unsigned int access)
{
	struct port *p = ctx;
	long first = page_of(port_cpu_addr(bus)), last = page_of(port_cpu_addr(bus + len - 1));

	if (first < 0 || last < 0 || (bus | len) % PORT_PAGE)
		return SLUICE_DMA_ERR_INVAL;
	if (!(access & SLUICE_DMA_ACCESS_READ))
		return SLUICE_DMA_ERR_NOSYS;
	for (long i = first; i <= last; i++)
		assign(p->readonly, (unsigned long)i, !(access & SLUICE_DMA_ACCESS_WRITE));
	return 0;
}

/* A coherent platform: nothing to do. Counted to show when it would run. */
static void port_cache_maint(void *ctx, void *vaddr, size_t len, enum sluice_dma_cache_op op)
{
	struct port *p = ctx;

	(void)vaddr, (void)len, (void)op;
	p->cache_calls++;
}

void port_init(struct port *p)
{
	unsigned char *b = (unsigned char *)p;

	for (size_t i = 0; i < sizeof(*p); i++)
		b[i] = 0;
	p->ops = (struct sluice_dma_port_ops){
		.ctx = p,
		.set_shared = port_set_shared,
		.set_private = port_set_private,
		.virt_to_dma = port_virt_to_dma,
		.dma_to_virt = port_dma_to_virt,
		.cpu_id = 0, /* one CPU: index 0 */
		.lock_init = port_lock_init,
		.lock = port_lock,
		.unlock = port_unlock,
		.lock_destroy = port_lock_destroy,
		.log = port_log,
		.set_access = port_set_access,
		.cache_maint = port_cache_maint,
	};
}

bool port_device_may_access(const struct port *p, uint64_t bus, size_t len, bool write)
{
	long first = page_of(port_cpu_addr(bus)), last = page_of(port_cpu_addr(bus + len - 1));

	if (first < 0 || last < 0)
		return false;
	for (long i = first; i <= last; i++)
		if (!bit(p->shared, (unsigned long)i) ||
		    (write && bit(p->readonly, (unsigned long)i)))
			return false;
	return true;
}

size_t port_shared_bytes(const struct port *p)
{
	size_t n = 0;

	for (unsigned long i = 0; i < PORT_PAGES; i++)
		n += bit(p->shared, i);
	return n * PORT_PAGE;
}
