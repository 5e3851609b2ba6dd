/* SPDX-License-Identifier: MIT */
/*
 * acpi.h - finding ACPI tables from the RSDP (read-only; no AML).
 *
 * The tables sit in ACPI reclaim / NVS memory that the kernel identity-maps and
 * never reuses, so they stay readable after ExitBootServices. Every table is
 * checksum-verified before use; a table with a bad checksum is ignored.
 */
#ifndef SLUICE_ARCH_ACPI_H
#define SLUICE_ARCH_ACPI_H

#include <stdbool.h>
#include <stdint.h>

/**
 * struct acpi_sdt_header - the header every system description table starts with.
 */
struct acpi_sdt_header {
	char signature[4];
	uint32_t length;
	uint8_t revision;
	uint8_t checksum;
	char oem_id[6];
	char oem_table_id[8];
	uint32_t oem_revision;
	uint32_t creator_id;
	uint32_t creator_revision;
} __attribute__((packed));
_Static_assert(sizeof(struct acpi_sdt_header) == 36, "ACPI SDT header layout");

/**
 * struct acpi_pm_timer - the PM timer as described by the FADT.
 * @port: I/O port of PM_TMR_BLK, 0 if there is none.
 * @is_32bit: TMR_VAL_EXT: the counter has 32 bits, else 24.
 */
struct acpi_pm_timer {
	uint16_t port;
	bool is_32bit;
};

/**
 * acpi_checksum_ok() - whether @len bytes at @p sum to 0 modulo 256.
 * @p: start.
 * @len: length.
 */
bool acpi_checksum_ok(const void *p, uint32_t len);

/**
 * acpi_find_table() - find a table by signature through the XSDT (or the RSDT
 * when the RSDP is revision 0).
 * @rsdp: physical (= virtual) address of the RSDP, or 0.
 * @signature: four characters, e.g. "FACP", "MCFG", "APIC".
 * Return: the table, or NULL if absent or corrupt.
 */
const struct acpi_sdt_header *acpi_find_table(uint64_t rsdp, const char *signature);

/**
 * acpi_pm_timer() - read the PM timer's port and width from the FADT.
 * @rsdp: the RSDP address, or 0.
 * @out: filled in; port 0 when there is no usable timer.
 * Return: true if a timer was found.
 */
bool acpi_pm_timer(uint64_t rsdp, struct acpi_pm_timer *out);

/**
 * struct acpi_mcfg_window - one PCIe ECAM window from the MCFG table.
 * @base: physical address of the configuration space of bus 0 of the segment
 *	(as the table gives it, even when @start_bus is not 0).
 * @segment: PCI segment group.
 * @start_bus: first bus decoded.
 * @end_bus: last bus decoded.
 */
struct acpi_mcfg_window {
	uint64_t base;
	uint16_t segment;
	uint8_t start_bus;
	uint8_t end_bus;
};

/**
 * acpi_mcfg() - the ECAM window of PCI segment 0.
 * @rsdp: the RSDP address, or 0.
 * @out: filled in on success.
 * Return: true if MCFG exists and describes segment 0 sanely (base 1 MiB
 * aligned, start_bus <= end_bus).
 */
bool acpi_mcfg(uint64_t rsdp, struct acpi_mcfg_window *out);

#define ACPI_MAX_CPUS 64

/**
 * struct acpi_cpus - the processors the MADT lists, in table order.
 * @lapic_base: physical address of the local APIC registers (xAPIC mode), after
 *	any 64-bit override entry.
 * @apic_id: APIC ID of each usable processor (x2APIC IDs for x2APIC entries).
 * @count: entries in @apic_id.
 * @skipped: processors the table marks neither enabled nor online-capable, or
 *	beyond %ACPI_MAX_CPUS (counted, not started).
 * @pcat_compat: the system also has dual 8259 PICs (MADT flag PCAT_COMPAT).
 * @wakeup_mailbox: physical address of the Multiprocessor Wakeup mailbox (MADT
 *	type 0x10, ACPI 6.4 5.2.12.19 / 6.6: how a TD's firmware, TDVF, lets the OS
 *	start application processors, which receive no INIT or SIPI), 0 when
 *	absent. Taken from the first such entry, whatever its version.
 * @wakeup_version: that entry's MailBoxVersion (TDVF writes 1).
 * @wakeup_reset_vector: its ResetVector (version 1 only), else 0.
 * @wakeup_entries: how many wakeup entries the table has (only the first is
 *	used; more than one is worth a warning).
 */
struct acpi_cpus {
	uint64_t lapic_base;
	uint32_t apic_id[ACPI_MAX_CPUS];
	unsigned int count;
	unsigned int skipped;
	bool pcat_compat;
	uint64_t wakeup_mailbox;
	uint16_t wakeup_version;
	uint64_t wakeup_reset_vector;
	unsigned int wakeup_entries;
};

/**
 * struct acpi_wakeup_mailbox - the Multiprocessor Wakeup mailbox (ACPI 6.4,
 *	5.2.12.19, table 5.44): 4 KiB; the OS owns the first 2 KiB, the firmware the
 *	rest.
 * @command: 0 noop, 1 wakeup; the firmware's AP sets it back to 0 once it has
 *	read the request.
 * @reserved: 0.
 * @apic_id: the processor to wake.
 * @wakeup_vector: where it jumps, in 64-bit mode with interrupts off.
 */
struct acpi_wakeup_mailbox {
	volatile uint16_t command;
	uint16_t reserved;
	volatile uint32_t apic_id;
	volatile uint64_t wakeup_vector;
};
#define ACPI_MAILBOX_WAKEUP 1

/**
 * acpi_madt_cpus() - list the processors from the MADT ("APIC" table).
 * @rsdp: the RSDP address, or 0.
 * @out: filled in (count 0 when there is no MADT).
 *
 * Reads Processor Local APIC (type 0) and Processor Local x2APIC (type 9) entries
 * that are enabled or online-capable, the Local APIC Address Override (type 5)
 * and the Multiprocessor Wakeup structure (type 0x10, any mailbox version).
 * An entry whose length runs past the table or is below its type's size ends the
 * walk: what was read before it is kept. Duplicate APIC IDs are listed once.
 * Return: true if a MADT was found.
 */
bool acpi_madt_cpus(uint64_t rsdp, struct acpi_cpus *out);

/**
 * acpi_madt_parse() - acpi_madt_cpus() on a MADT already found (and its
 *	checksum verified), e.g. the one the simulated TD's firmware built.
 * @madt: the table, or NULL.
 * @out: filled in (count 0 when @madt is NULL).
 * Return: true if @madt was given and holds the fixed fields.
 */
bool acpi_madt_parse(const struct acpi_sdt_header *madt, struct acpi_cpus *out);

#endif /* SLUICE_ARCH_ACPI_H */
