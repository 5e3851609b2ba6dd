/* SPDX-License-Identifier: MIT */
/*
 * port.h - an example port of the Sluice DMA library (dma/PORTING.md walks
 * through it): a freestanding platform with a bus address that is not the
 * CPU address, a page-granular bitmap of what is shared with the host, and
 * a page-granular device access map (read-only pages).
 *
 * "Memory" is one static array standing for the firmware's RAM; a real port
 * replaces the bitmap updates with its hypercalls or page-table changes.
 */
#ifndef EXAMPLE_PORT_H
#define EXAMPLE_PORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sluice/dma_port.h>

#define PORT_PAGE 4096u
#define PORT_MEM_BYTES (6u << 20) /* 6 MiB of "RAM" */
#define PORT_PAGES (PORT_MEM_BYTES / PORT_PAGE)
#define PORT_BUS_BASE 0x80000000ull /* RAM as devices see it */

/**
 * struct port - the platform state behind the ops.
 * @ops: the table handed to the library (ctx = this struct).
 * @shared: one bit per page, set while the page is shared with the host.
 * @readonly: one bit per page, set while devices may only read it.
 * @conversions: set_shared + set_private calls.
 * @cache_calls: cache_maint calls (a coherent platform needs none; counted to
 *	show where the library would clean and invalidate).
 * @log: the last log line.
 * @log_lines: lines logged.
 * @irq_mask: the platform's interrupt mask (1: masked), set while a lock is
 *	held; each lock op returns the mask it found as the save word and each
 *	unlock restores it.
 * @locks_held: locks held now.
 * @locks_live: lock_init calls minus lock_destroy calls.
 */
struct port {
	struct sluice_dma_port_ops ops;
	uint64_t shared[PORT_PAGES / 64];
	uint64_t readonly[PORT_PAGES / 64];
	unsigned long conversions;
	unsigned long cache_calls;
	char log[160];
	unsigned long log_lines;
	uint64_t irq_mask;
	unsigned int locks_held;
	int locks_live;
};

/* The RAM the port hands out (2 MiB aligned, for the arena). */
extern unsigned char port_mem[PORT_MEM_BYTES];

void port_init(struct port *p);
uint64_t port_bus_addr(const void *vaddr);
void *port_cpu_addr(uint64_t bus);
/* What a device's DMA engine checks: every page shared (and writable to write). */
bool port_device_may_access(const struct port *p, uint64_t bus, size_t len, bool write);
size_t port_shared_bytes(const struct port *p);

#endif /* EXAMPLE_PORT_H */
