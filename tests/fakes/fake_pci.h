/* SPDX-License-Identifier: MIT */
/*
 * fake_pci.h - the platform below pci_setup() (kernel/pci_setup.c), replaced at link
 * time for the host: a simulated configuration space of up to four functions, an
 * MCFG table, and the kernel's identity map as far as device windows go.
 *
 * Link tests/fakes/fake_pci.c instead of arch/x86_64/fw/acpi.c, drivers/pci/pci_access.c
 * and arch/x86_64/mm/mmu.c: it defines acpi_mcfg(), pci_ecam_ops_init(),
 * pci_port_ops_init(), mmu_map_mmio() and mmu_range_is_shared(), all driven by
 * the one &fake_pci. Used by tests/kernel/test_pci_setup.c (hand-made layouts) and the
 * fuzz target tests/fuzz/fuzz_pci_setup.c (layouts the fuzzer makes up, lies
 * included).
 */
#ifndef SLUICE_TESTS_FAKE_PCI_H
#define SLUICE_TESTS_FAKE_PCI_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/x86_64/fw/acpi.h"
#include "boot/boot_info.h"
#include "drivers/pci/pci.h"

#define FAKE_PCI_FNS 4
/* More than pci_setup() can make: the ECAM window and six BARs of each of
 * PCI_MAX_DEVICES functions. */
#define FAKE_PCI_MAX_MAPS (1 + PCI_MAX_DEVICES * PCI_NUM_BARS)

/**
 * struct fake_pci_fn - one function's configuration space.
 * @present: it answers.
 * @any_fn: it answers at every function number of @bus:@dev (one configuration
 *	space seen as up to eight functions when its header says multi-function).
 * @bus: bus number.
 * @dev: device number.
 * @fn: function number (unless @any_fn).
 * @cfg: the 256 bytes; writes land here, except as below.
 * @sizing_answer: what BAR i reads back after all ones were written to it: [0]
 *	the first time, [1] every later time (a host may change its answer). For
 *	a 64-bit BAR the upper half's answer is in the next slot.
 * @sizing: BAR i holds all ones right now (the next read gives the answer).
 * @sizings: all-ones writes BAR i received (saturating).
 *
 * Writes to the command register change its low half only (status is the
 * device's); any other write but all ones to a BAR is stored as written.
 */
struct fake_pci_fn {
	bool present;
	bool any_fn;
	uint8_t bus, dev, fn;
	uint8_t cfg[256];
	uint32_t sizing_answer[PCI_NUM_BARS][2];
	bool sizing[PCI_NUM_BARS];
	uint8_t sizings[PCI_NUM_BARS];
};

/**
 * struct fake_pci_map - one mmu_map_mmio() call.
 * @pa: its address.
 * @len: its length.
 * @rc: what the fake returned.
 * @cfg_reads: configuration reads made before it (0: before enumeration).
 */
struct fake_pci_map {
	uint64_t pa, len;
	int rc;
	unsigned long cfg_reads;
};

/**
 * struct fake_pci - the fake platform.
 * @fns: the functions.
 * @mcfg_present: acpi_mcfg() finds a table.
 * @mcfg: what it returns then.
 * @ecam_inits: pci_ecam_ops_init() calls.
 * @port_inits: pci_port_ops_init() calls.
 * @ecam_base_given: the base pci_ecam_ops_init() got.
 * @bi: the memory map mmu_map_mmio() models: mapping device memory over a
 *	cacheable range of a kind other than %MEM_MMIO gives PT_ERR_EXIST (the
 *	identity map holds RAM write-back and private). NULL: no map.
 * @maps: the calls of mmu_map_mmio(), in order (only the first
 *	%FAKE_PCI_MAX_MAPS are kept).
 * @nmaps: their number.
 * @fail_map_at: mmu_map_mmio() of this address (0: none) returns @fail_map_rc.
 * @fail_map_call: the call with this index + 1 (0: none) returns @fail_map_rc.
 * @fail_map_rc: that code.
 * @private_map_at: a mapping at this address (0: none) is not shared.
 * @private_map_call: the mapping made by the call with this index + 1 (0: none)
 *	is not shared.
 * @cfg_reads: configuration reads so far.
 */
struct fake_pci {
	struct fake_pci_fn fns[FAKE_PCI_FNS];
	bool mcfg_present;
	struct acpi_mcfg_window mcfg;
	unsigned int ecam_inits, port_inits;
	uint64_t ecam_base_given;
	const struct boot_info *bi;
	struct fake_pci_map maps[FAKE_PCI_MAX_MAPS];
	unsigned int nmaps;
	uint64_t fail_map_at;
	unsigned int fail_map_call;
	int fail_map_rc;
	uint64_t private_map_at;
	unsigned int private_map_call;
	unsigned long cfg_reads;
};

extern struct fake_pci fake_pci;

/**
 * fake_pci_reset() - no function, no MCFG, no map, no failure, nothing recorded.
 * (The record of mappings is not zeroed, only its count.)
 */
void fake_pci_reset(void);

uint32_t fake_pci_cfg_rd32(const uint8_t *cfg, unsigned int off);
void fake_pci_cfg_wr32(uint8_t *cfg, unsigned int off, uint32_t v);

/**
 * fake_pci_bar32() - an honest 32-bit memory BAR.
 * @f: the function.
 * @i: BAR index.
 * @base: its address (low 4 bits are the flags: 0, non-prefetchable).
 * @size: a power of two, at least 16.
 */
void fake_pci_bar32(struct fake_pci_fn *f, unsigned int i, uint32_t base, uint64_t size);

/**
 * fake_pci_bar64() - an honest 64-bit memory BAR in slots @i and @i + 1.
 * @f: the function.
 * @i: BAR index (below 5).
 * @base: its address.
 * @size: a power of two, at least 16.
 */
void fake_pci_bar64(struct fake_pci_fn *f, unsigned int i, uint64_t base, uint64_t size);

/**
 * fake_pci_find() - the function answering at @bus:@dev.@fn, or NULL.
 */
struct fake_pci_fn *fake_pci_find(uint8_t bus, uint8_t dev, uint8_t fn);

/**
 * fake_pci_command() - the command register of @f as it is now.
 */
uint16_t fake_pci_command(const struct fake_pci_fn *f);

/**
 * fake_pci_mapped() - whether mmu_map_mmio() was called at @pa.
 */
bool fake_pci_mapped(uint64_t pa);

#endif /* SLUICE_TESTS_FAKE_PCI_H */
