/* SPDX-License-Identifier: MIT */
/*
 * acpi.c - RSDP -> XSDT/RSDT -> table lookup, and the FADT's PM timer.
 *
 * Plain C over memory, so the host tests run it on tables they build.
 */
#include "arch/x86_64/fw/acpi.h"

#include <string.h>

struct acpi_rsdp {
	char signature[8];
	uint8_t checksum;
	char oem_id[6];
	uint8_t revision;
	uint32_t rsdt_address;
	/* revision >= 2 */
	uint32_t length;
	uint64_t xsdt_address;
	uint8_t extended_checksum;
	uint8_t reserved[3];
} __attribute__((packed));
_Static_assert(sizeof(struct acpi_rsdp) == 36, "ACPI RSDP layout");

/* FADT field offsets (ACPI 6.x, table 5.9). */
#define FADT_PM_TMR_BLK 76
#define FADT_PM_TMR_LEN 91
#define FADT_FLAGS 112
#define FADT_X_PM_TMR_BLK 208
#define FADT_FLAG_TMR_VAL_EXT (1u << 8)
#define GAS_SPACE_IO 1

/* A table longer than this is treated as corrupt rather than summed. */
#define ACPI_MAX_TABLE_LEN (1u << 20)

bool acpi_checksum_ok(const void *p, uint32_t len)
{
	const uint8_t *b = p;
	uint8_t sum = 0;

	for (uint32_t i = 0; i < len; i++)
		sum += b[i];
	return sum == 0;
}

static const struct acpi_sdt_header *acpi_table_at(uint64_t addr)
{
	const struct acpi_sdt_header *h = (const void *)(uintptr_t)addr;
	uint32_t len;

	if (!addr)
		return NULL;
	len = h->length;
	if (len < sizeof(*h) || len > ACPI_MAX_TABLE_LEN || !acpi_checksum_ok(h, len))
		return NULL;
	return h;
}

const struct acpi_sdt_header *acpi_find_table(uint64_t rsdp_addr, const char *signature)
{
	const struct acpi_rsdp *rsdp = (const void *)(uintptr_t)rsdp_addr;
	const struct acpi_sdt_header *root;
	unsigned int entry_size, count;

	if (!rsdp || memcmp(rsdp->signature, "RSD PTR ", 8) || !acpi_checksum_ok(rsdp, 20))
		return NULL;
	if (rsdp->revision >= 2 && rsdp->length >= sizeof(*rsdp) &&
	    acpi_checksum_ok(rsdp, rsdp->length) && rsdp->xsdt_address) {
		root = acpi_table_at(rsdp->xsdt_address);
		entry_size = 8;
		if (root && memcmp(root->signature, "XSDT", 4))
			root = NULL;
	} else {
		root = acpi_table_at(rsdp->rsdt_address);
		entry_size = 4;
		if (root && memcmp(root->signature, "RSDT", 4))
			root = NULL;
	}
	if (!root)
		return NULL;
	count = (root->length - sizeof(*root)) / entry_size;
	for (unsigned int i = 0; i < count; i++) {
		const uint8_t *entry = (const uint8_t *)(root + 1) + i * entry_size;
		uint64_t addr = 0;
		const struct acpi_sdt_header *t;

		memcpy(&addr, entry, entry_size); /* entries are unaligned in the XSDT */
		t = acpi_table_at(addr);
		if (t && !memcmp(t->signature, signature, 4))
			return t;
	}
	return NULL;
}

bool acpi_pm_timer(uint64_t rsdp, struct acpi_pm_timer *out)
{
	const struct acpi_sdt_header *fadt = acpi_find_table(rsdp, "FACP");
	const uint8_t *raw = (const uint8_t *)fadt;
	uint32_t port32 = 0, flags = 0;

	out->port = 0;
	out->is_32bit = false;
	if (!fadt || fadt->length < FADT_FLAGS + 4)
		return false;
	memcpy(&flags, raw + FADT_FLAGS, 4);
	/* Prefer the 64-bit generic address when it names an I/O port. */
	if (fadt->length >= FADT_X_PM_TMR_BLK + 12 && raw[FADT_X_PM_TMR_BLK] == GAS_SPACE_IO) {
		uint64_t addr;

		memcpy(&addr, raw + FADT_X_PM_TMR_BLK + 4, 8);
		if (addr && addr <= 0xffff)
			port32 = (uint32_t)addr;
	}
	if (!port32)
		memcpy(&port32, raw + FADT_PM_TMR_BLK, 4);
	if (!port32 || port32 > 0xffff || raw[FADT_PM_TMR_LEN] < 4)
		return false;
	out->port = (uint16_t)port32;
	out->is_32bit = flags & FADT_FLAG_TMR_VAL_EXT;
	return true;
}

/* MCFG: the header, 8 reserved bytes, then 16-byte allocation entries. */
#define MCFG_ENTRIES_OFFSET 44
#define MCFG_ENTRY_SIZE 16

bool acpi_mcfg(uint64_t rsdp, struct acpi_mcfg_window *out)
{
	const struct acpi_sdt_header *mcfg = acpi_find_table(rsdp, "MCFG");
	const uint8_t *raw = (const uint8_t *)mcfg;

	if (!mcfg || mcfg->length < MCFG_ENTRIES_OFFSET + MCFG_ENTRY_SIZE)
		return false;
	for (uint32_t off = MCFG_ENTRIES_OFFSET; off + MCFG_ENTRY_SIZE <= mcfg->length;
	     off += MCFG_ENTRY_SIZE) {
		struct acpi_mcfg_window w;

		memcpy(&w.base, raw + off, 8);
		memcpy(&w.segment, raw + off + 8, 2);
		w.start_bus = raw[off + 10];
		w.end_bus = raw[off + 11];
		if (w.segment != 0)
			continue;
		if (!w.base || (w.base & ((1u << 20) - 1)) || w.start_bus > w.end_bus)
			return false;
		*out = w;
		return true;
	}
	return false;
}

/* MADT: the header, the 32-bit local APIC address, flags, then variable entries
 * each starting with (type, length). */
#define MADT_LAPIC_ADDR 36
#define MADT_FLAGS 40
#define MADT_ENTRIES_OFFSET 44
#define MADT_FLAG_PCAT_COMPAT 1u
#define MADT_TYPE_LAPIC 0
#define MADT_TYPE_LAPIC_OVERRIDE 5
#define MADT_TYPE_X2APIC 9
#define MADT_TYPE_MP_WAKEUP 0x10
#define MADT_MP_WAKEUP_V0_LEN 16
#define MADT_MP_WAKEUP_V1_LEN 24
#define MADT_CPU_ENABLED 1u
#define MADT_CPU_ONLINE_CAPABLE 2u

static void madt_add_cpu(struct acpi_cpus *out, uint32_t apic_id, uint32_t flags)
{
	if (!(flags & (MADT_CPU_ENABLED | MADT_CPU_ONLINE_CAPABLE))) {
		out->skipped++;
		return;
	}
	for (unsigned int i = 0; i < out->count; i++)
		if (out->apic_id[i] == apic_id)
			return; /* firmware may list a CPU as both xAPIC and x2APIC */
	if (out->count == ACPI_MAX_CPUS) {
		out->skipped++;
		return;
	}
	out->apic_id[out->count++] = apic_id;
}

/*
 * The Multiprocessor Wakeup structure (type 0x10): the mailbox address is at
 * the same place in every version (ACPI 6.4 version 0: 16 bytes; ACPI 6.6
 * version 1, which current TDVF writes, EDK2 OvmfPkg/TdxDxe/TdxAcpiTable.c:
 * 24 bytes, a reset vector added). As Linux acpi_parse_mp_wake()
 * (arch/x86/kernel/acpi/madt_wakeup.c): the mailbox whatever the version once
 * the entry holds the version-0 fields, the reset vector from version 1 with
 * 24 bytes; only the first entry counts (acpi_table_parse_madt(..., 1)), a
 * later one is counted, not used.
 */
static void madt_wakeup(struct acpi_cpus *out, const uint8_t *e, uint8_t len)
{
	if (len < MADT_MP_WAKEUP_V0_LEN)
		return;
	if (out->wakeup_entries++)
		return;
	memcpy(&out->wakeup_version, e + 2, 2);
	memcpy(&out->wakeup_mailbox, e + 8, 8);
	if (out->wakeup_version >= 1 && len >= MADT_MP_WAKEUP_V1_LEN)
		memcpy(&out->wakeup_reset_vector, e + 16, 8);
}

bool acpi_madt_cpus(uint64_t rsdp, struct acpi_cpus *out)
{
	return acpi_madt_parse(acpi_find_table(rsdp, "APIC"), out);
}

bool acpi_madt_parse(const struct acpi_sdt_header *madt, struct acpi_cpus *out)
{
	const uint8_t *raw = (const uint8_t *)madt;
	uint32_t lapic32 = 0, flags = 0;

	memset(out, 0, sizeof(*out));
	if (!madt || madt->length < MADT_ENTRIES_OFFSET)
		return false;
	memcpy(&lapic32, raw + MADT_LAPIC_ADDR, 4);
	memcpy(&flags, raw + MADT_FLAGS, 4);
	out->lapic_base = lapic32;
	out->pcat_compat = flags & MADT_FLAG_PCAT_COMPAT;
	for (uint32_t off = MADT_ENTRIES_OFFSET; off + 2 <= madt->length;) {
		uint8_t type = raw[off], len = raw[off + 1];
		uint32_t id = 0, cpu_flags = 0;

		if (len < 2 || off + len > madt->length)
			break;
		if (type == MADT_TYPE_LAPIC && len >= 8) {
			id = raw[off + 3];
			memcpy(&cpu_flags, raw + off + 4, 4);
			madt_add_cpu(out, id, cpu_flags);
		} else if (type == MADT_TYPE_X2APIC && len >= 16) {
			memcpy(&id, raw + off + 4, 4);
			memcpy(&cpu_flags, raw + off + 8, 4);
			madt_add_cpu(out, id, cpu_flags);
		} else if (type == MADT_TYPE_LAPIC_OVERRIDE && len >= 12) {
			memcpy(&out->lapic_base, raw + off + 4, 8);
		} else if (type == MADT_TYPE_MP_WAKEUP) {
			madt_wakeup(out, raw + off, len);
		}
		off += len;
	}
	return true;
}
