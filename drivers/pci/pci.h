/* SPDX-License-Identifier: MIT */
/*
 * pci.h - PCI configuration access, enumeration, BARs and capabilities.
 *
 * Configuration space is reached through PCIe ECAM (from the ACPI MCFG table) or,
 * when there is no MCFG, the legacy 0xCF8/0xCFC ports. Both are behind one small
 * ops table so the enumeration and capability code runs on the host against a
 * simulated configuration space. Everything read from configuration space comes
 * from the host in a confidential guest: capability walks are bounded and every
 * pointer and length is checked before use.
 */
#ifndef SLUICE_DRIVERS_PCI_H
#define SLUICE_DRIVERS_PCI_H

#include <stdbool.h>
#include <stdint.h>

#define PCI_MAX_DEVICES 64
#define PCI_NUM_BARS 6

#define PCI_VENDOR_ID 0x00
#define PCI_DEVICE_ID 0x02
#define PCI_COMMAND 0x04
#define PCI_STATUS 0x06
#define PCI_CLASS_REVISION 0x08
#define PCI_HEADER_TYPE 0x0E
#define PCI_BAR0 0x10
#define PCI_SUBSYSTEM_ID 0x2E
#define PCI_CAP_PTR 0x34

#define PCI_COMMAND_IO (1u << 0)
#define PCI_COMMAND_MEMORY (1u << 1)
#define PCI_COMMAND_MASTER (1u << 2)
#define PCI_COMMAND_INTX_DISABLE (1u << 10)
#define PCI_STATUS_CAP_LIST (1u << 4)

#define PCI_CAP_ID_VENDOR 0x09

/**
 * struct pci_config_ops - raw access to configuration space.
 * @ctx: handed back to the callbacks.
 * @read32: read the aligned dword at @off (0..4092) of bus/dev/fn; all ones if absent.
 * @write32: write it.
 */
struct pci_config_ops {
	void *ctx;
	uint32_t (*read32)(void *ctx, uint8_t bus, uint8_t dev, uint8_t fn, uint16_t off);
	void (*write32)(void *ctx, uint8_t bus, uint8_t dev, uint8_t fn, uint16_t off,
			uint32_t val);
};

/**
 * struct pci_bar - one decoded base address register.
 * @base: bus address (identity-mapped: also the CPU address); 0 if unassigned.
 * @size: bytes decoded; 0 if the BAR is not implemented.
 * @is_io: an I/O-port BAR.
 * @is_64bit: a 64-bit memory BAR (it used the next BAR slot too).
 * @prefetchable: a prefetchable memory BAR.
 * @accepted: the platform checked that this memory BAR lies outside RAM and every
 *	region the kernel owns, and mapped it (uncached, shared). The host chooses BAR
 *	addresses, so a driver touches no other BAR. pci_enumerate() leaves it false.
 */
struct pci_bar {
	uint64_t base;
	uint64_t size;
	bool is_io;
	bool is_64bit;
	bool prefetchable;
	bool accepted;
};

/**
 * struct pci_device - a function found by pci_enumerate().
 * @bus: bus number.
 * @dev: device number.
 * @fn: function number.
 * @vendor_id: vendor.
 * @device_id: device.
 * @class_code: base class, subclass and programming interface (24 bits).
 * @revision: revision ID.
 * @header_type: header type without the multi-function bit.
 * @bars: the six BARs (type-0 headers only).
 * @ops: the configuration access used to find it.
 * @refused: the platform refused one of its memory BARs (it said why); no driver
 *	may bind, and none of its BARs is accepted. pci_enumerate() leaves it false.
 */
struct pci_device {
	uint8_t bus, dev, fn;
	uint16_t vendor_id, device_id;
	uint32_t class_code;
	uint8_t revision;
	uint8_t header_type;
	struct pci_bar bars[PCI_NUM_BARS];
	const struct pci_config_ops *ops;
	bool refused;
};

uint32_t pci_read32(const struct pci_device *d, uint16_t off);
uint16_t pci_read16(const struct pci_device *d, uint16_t off);
uint8_t pci_read8(const struct pci_device *d, uint16_t off);
void pci_write32(const struct pci_device *d, uint16_t off, uint32_t val);
void pci_write16(const struct pci_device *d, uint16_t off, uint16_t val);

/**
 * pci_enumerate() - find every function on buses [@first_bus, @last_bus] and size
 *	its BARs.
 * @ops: configuration access.
 * @first_bus: first bus to scan (MCFG start bus, else 0).
 * @last_bus: last bus to scan.
 * @out: array receiving the functions.
 * @max: its capacity.
 *
 * BARs are sized with decoding switched off for the moment of the sizing
 * writes, then restored (the firmware assigned them; Sluice keeps its choice).
 * Return: number of functions found (at most @max; the rest are ignored).
 */
int pci_enumerate(const struct pci_config_ops *ops, unsigned int first_bus, unsigned int last_bus,
		  struct pci_device *out, int max);

/**
 * pci_enable() - turn on memory (and I/O) decoding and bus mastering, INTx off.
 * @d: the function.
 */
void pci_enable(const struct pci_device *d);

/**
 * pci_find_capability() - walk the capability list.
 * @d: the function.
 * @cap_id: capability ID to look for.
 * @after: 0 to start at the head, else the offset of a capability already found
 *	(to find the next one with the same ID).
 * Return: the capability's offset in configuration space, or 0 if none. The
 * walk visits at most 48 entries and rejects pointers below 0x40 or not dword
 * aligned, so a looping or corrupt list ends.
 */
uint8_t pci_find_capability(const struct pci_device *d, uint8_t cap_id, uint8_t after);

/**
 * pci_ecam_ops_init() - configuration access through a memory-mapped ECAM window.
 * @ops: filled in.
 * @ecam_base: address of bus 0's configuration space (MCFG base + start_bus << 20
 *	is NOT applied: pass the MCFG base address as is).
 * Return: nothing; the window must be identity-mapped uncached.
 */
void pci_ecam_ops_init(struct pci_config_ops *ops, uint64_t ecam_base);

/**
 * pci_port_ops_init() - configuration access through ports 0xCF8/0xCFC (offsets
 *	below 256 only).
 * @ops: filled in.
 */
void pci_port_ops_init(struct pci_config_ops *ops);

#endif /* SLUICE_DRIVERS_PCI_H */
