/* SPDX-License-Identifier: MIT */
/*
 * test_acpi.c - ACPI table lookup and the FADT PM timer on tables built in memory.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "arch/x86_64/fw/acpi.h"
#include "arch/x86_64/mm/mem_range.h"
#include "arch/x86_64/cc/sim_tdvf.h"

/* One buffer per table; identity "physical" addresses are host pointers. */
struct fake_acpi {
	uint8_t rsdp[36];
	uint8_t xsdt[36 + 8 * 4];
	uint8_t rsdt[36 + 4 * 4];
	uint8_t fadt[276];
	uint8_t mcfg[60];
};

static void fix_checksum(uint8_t *t, uint32_t len, uint32_t at)
{
	uint8_t sum = 0;

	t[at] = 0;
	for (uint32_t i = 0; i < len; i++)
		sum += t[i];
	t[at] = (uint8_t)-sum;
}

static void make_header(uint8_t *t, const char *sig, uint32_t len)
{
	memset(t, 0, len);
	memcpy(t, sig, 4);
	memcpy(t + 4, &len, 4);
	t[8] = 2;
	memcpy(t + 10, "SLUICE", 6);
}

static void seal(uint8_t *t)
{
	uint32_t len;

	memcpy(&len, t + 4, 4);
	fix_checksum(t, len, 9);
}

/* Builds RSDP rev 2 -> XSDT {FADT, MCFG}; FADT with PM timer at @port. */
static struct fake_acpi *build(uint32_t port, uint32_t flags, int use_gas)
{
	static struct fake_acpi a;
	uint64_t p;
	uint32_t p32, len = 36 + 8 * 2;

	memset(&a, 0, sizeof(a));
	make_header(a.fadt, "FACP", sizeof(a.fadt));
	if (use_gas) {
		uint64_t gas_addr = port;

		a.fadt[208] = 1; /* system I/O space */
		memcpy(a.fadt + 212, &gas_addr, 8);
	} else {
		memcpy(a.fadt + 76, &port, 4);
	}
	a.fadt[91] = 4;
	memcpy(a.fadt + 112, &flags, 4);
	seal(a.fadt);
	make_header(a.mcfg, "MCFG", sizeof(a.mcfg));
	{
		/* one allocation: segment 0, buses 0..255 at 0xb0000000 */
		uint64_t base = 0xb0000000u;

		memcpy(a.mcfg + 44, &base, 8);
		a.mcfg[54] = 0;
		a.mcfg[55] = 255;
	}
	seal(a.mcfg);

	make_header(a.xsdt, "XSDT", len);
	p = (uint64_t)(uintptr_t)a.mcfg;
	memcpy(a.xsdt + 36, &p, 8);
	p = (uint64_t)(uintptr_t)a.fadt;
	memcpy(a.xsdt + 44, &p, 8);
	seal(a.xsdt);

	make_header(a.rsdt, "RSDT", 36 + 4);
	p32 = (uint32_t)(uintptr_t)a.fadt; /* only meaningful if the heap is low; see rev-0 test */
	memcpy(a.rsdt + 36, &p32, 4);
	seal(a.rsdt);

	memcpy(a.rsdp, "RSD PTR ", 8);
	memcpy(a.rsdp + 9, "SLUICE", 6);
	a.rsdp[15] = 2;
	len = 36;
	memcpy(a.rsdp + 20, &len, 4);
	p = (uint64_t)(uintptr_t)a.xsdt;
	memcpy(a.rsdp + 24, &p, 8);
	fix_checksum(a.rsdp, 20, 8);
	fix_checksum(a.rsdp, 36, 32);
	return &a;
}

static uint64_t addr(const void *p)
{
	return (uint64_t)(uintptr_t)p;
}

static void test_finds_tables_through_xsdt(void **state)
{
	struct fake_acpi *a = build(0x608, 0, 0);

	(void)state;
	assert_ptr_equal(acpi_find_table(addr(a->rsdp), "FACP"), (const void *)a->fadt);
	assert_ptr_equal(acpi_find_table(addr(a->rsdp), "MCFG"), (const void *)a->mcfg);
	assert_null(acpi_find_table(addr(a->rsdp), "APIC"));
	assert_null(acpi_find_table(0, "FACP"));
}

static void test_pm_timer_port_and_width(void **state)
{
	struct acpi_pm_timer pm;
	struct fake_acpi *a = build(0x608, 0, 0);

	(void)state;
	assert_true(acpi_pm_timer(addr(a->rsdp), &pm));
	assert_int_equal(pm.port, 0x608);
	assert_false(pm.is_32bit);

	a = build(0xb008, 1u << 8, 0);
	assert_true(acpi_pm_timer(addr(a->rsdp), &pm));
	assert_int_equal(pm.port, 0xb008);
	assert_true(pm.is_32bit);

	/* The 64-bit generic address wins when it names an I/O port. */
	a = build(0x1808, 0, 1);
	assert_true(acpi_pm_timer(addr(a->rsdp), &pm));
	assert_int_equal(pm.port, 0x1808);
}

static void test_no_pm_timer(void **state)
{
	struct acpi_pm_timer pm;
	struct fake_acpi *a = build(0, 0, 0);

	(void)state;
	assert_false(acpi_pm_timer(addr(a->rsdp), &pm));
	assert_int_equal(pm.port, 0);
	/* A port beyond the 16-bit I/O space is not a port. */
	a = build(0x12345, 0, 0);
	assert_false(acpi_pm_timer(addr(a->rsdp), &pm));
	assert_false(acpi_pm_timer(0, &pm));
}

static void test_corrupt_tables_are_ignored(void **state)
{
	struct acpi_pm_timer pm;
	struct fake_acpi *a = build(0x608, 0, 0);

	(void)state;
	a->fadt[40] ^= 1; /* checksum now wrong */
	assert_null(acpi_find_table(addr(a->rsdp), "FACP"));
	assert_false(acpi_pm_timer(addr(a->rsdp), &pm));
	assert_non_null(acpi_find_table(addr(a->rsdp), "MCFG"));

	a = build(0x608, 0, 0);
	a->rsdp[0] = 'X';
	assert_null(acpi_find_table(addr(a->rsdp), "FACP"));

	a = build(0x608, 0, 0);
	a->xsdt[20] ^= 0xff;
	assert_null(acpi_find_table(addr(a->rsdp), "FACP"));

	/* A length that claims more than a table can hold is refused unsummed. */
	a = build(0x608, 0, 0);
	{
		uint32_t huge = 0x7fffffff;

		memcpy(a->mcfg + 4, &huge, 4);
	}
	assert_null(acpi_find_table(addr(a->rsdp), "MCFG"));
	assert_non_null(acpi_find_table(addr(a->rsdp), "FACP"));
}

static void test_mcfg_window(void **state)
{
	struct acpi_mcfg_window w;
	struct fake_acpi *a = build(0x608, 0, 0);

	(void)state;
	assert_true(acpi_mcfg(addr(a->rsdp), &w));
	assert_int_equal(w.base, 0xb0000000u);
	assert_int_equal(w.segment, 0);
	assert_int_equal(w.start_bus, 0);
	assert_int_equal(w.end_bus, 255);

	/* A base that is not 1 MiB aligned is not an ECAM window. */
	a->mcfg[44] = 0x10;
	seal(a->mcfg);
	assert_false(acpi_mcfg(addr(a->rsdp), &w));

	/* start_bus > end_bus is nonsense from the host. */
	a = build(0x608, 0, 0);
	a->mcfg[54] = 9;
	a->mcfg[55] = 3;
	seal(a->mcfg);
	assert_false(acpi_mcfg(addr(a->rsdp), &w));

	/* Only other segments: none for segment 0. */
	a = build(0x608, 0, 0);
	a->mcfg[52] = 1;
	seal(a->mcfg);
	assert_false(acpi_mcfg(addr(a->rsdp), &w));
}

/* A MADT with the entries given, hooked into the XSDT built by build(). */
static void add_madt(struct fake_acpi *a, uint8_t *madt, const uint8_t *entries, uint32_t elen)
{
	uint32_t len = 44 + elen, xlen = 36 + 8 * 3, lapic = 0xfee00000u, flags = 1;
	uint64_t p = addr(madt);

	make_header(madt, "APIC", len);
	memcpy(madt + 36, &lapic, 4);
	memcpy(madt + 40, &flags, 4);
	memcpy(madt + 44, entries, elen);
	seal(madt);
	memcpy(a->xsdt + 4, &xlen, 4);
	memcpy(a->xsdt + 52, &p, 8);
	seal(a->xsdt);
}

static void test_madt_cpus(void **state)
{
	static uint8_t madt[256];
	/* BSP id 0, AP id 1, a disabled id 2, an online-capable id 3, an IOAPIC
	 * (type 1, ignored), an x2APIC id 300, a duplicate of id 1 as x2APIC. */
	static const uint8_t entries[] = {
		0,    8,    0, 0, 1,  0, 0, 0,	0, 8, 1,    1, 1, 0, 0,	 0, 0, 8, 2,
		2,    0,    0, 0, 0,  0, 8, 3,	3, 2, 0,    0, 0, 1, 12, 0, 0, 0, 0,
		0xc0, 0xfe, 0, 0, 0,  0, 9, 16, 0, 0, 0x2c, 1, 0, 0, 1,	 0, 0, 0, 4,
		0,    0,    0, 9, 16, 0, 0, 1,	0, 0, 0,    1, 0, 0, 0,	 5, 0, 0, 0,
	};
	struct fake_acpi *a = build(0x608, 0, 0);
	struct acpi_cpus cpus;

	(void)state;
	add_madt(a, madt, entries, sizeof(entries));
	assert_true(acpi_madt_cpus(addr(a->rsdp), &cpus));
	assert_int_equal(cpus.lapic_base, 0xfee00000u);
	assert_true(cpus.pcat_compat);
	assert_int_equal(cpus.count, 4);
	assert_int_equal(cpus.apic_id[0], 0);
	assert_int_equal(cpus.apic_id[1], 1);
	assert_int_equal(cpus.apic_id[2], 3);
	assert_int_equal(cpus.apic_id[3], 300);
	assert_int_equal(cpus.skipped, 1);
	assert_int_equal(cpus.wakeup_mailbox, 0);
}

/* A TD's MADT: the Multiprocessor Wakeup structure gives the mailbox whatever
 * its version (Linux acpi_parse_mp_wake()); version 1 (ACPI 6.6, what TDVF's
 * TdxAcpiTable.c writes) adds the reset vector; an entry shorter than the
 * version-0 fields gives nothing; the first entry wins. */
static void test_madt_wakeup_mailbox(void **state)
{
	static uint8_t madt[256];
	static const uint8_t v0[] = {
		0, 8, 0, 0, 1,	  0,	0,    0,    0x10, 16, 0, 0,
		0, 0, 0, 0, 0x00, 0xf0, 0x7f, 0x3f, 0,	  0,  0, 0,
	};
	static const uint8_t tdvf_v1[] = {
		0x10, 24, 1, 0, 0,    0,    0,	  0,	0x00, 0xf0, 0x7f, 0x3f,
		0,    0,  0, 0, 0x00, 0x10, 0x80, 0x3f, 0,    0,    0,	  0,
	};
	/* A version-1 number in a version-0 sized entry: the mailbox, no reset vector. */
	static const uint8_t v1_short[] = {
		0x10, 16, 1, 0, 0, 0, 0, 0, 0x00, 0xe0, 0x7f, 0x3f, 0, 0, 0, 0,
	};
	static const uint8_t truncated[] = {
		0x10, 12, 0, 0, 0, 0, 0, 0, 0x00, 0xe0, 0x7f, 0x3f,
	};
	static const uint8_t two[] = {
		0x10, 16, 0, 0, 0, 0, 0, 0, 0x00, 0xd0, 0x7f, 0x3f, 0, 0, 0, 0,
		0x10, 16, 0, 0, 0, 0, 0, 0, 0x00, 0xc0, 0x7f, 0x3f, 0, 0, 0, 0,
	};
	struct fake_acpi *a = build(0x608, 0, 0);
	struct acpi_cpus cpus;

	(void)state;
	add_madt(a, madt, v0, sizeof(v0));
	assert_true(acpi_madt_cpus(addr(a->rsdp), &cpus));
	assert_int_equal(cpus.wakeup_mailbox, 0x3f7ff000);
	assert_int_equal(cpus.wakeup_version, 0);
	assert_int_equal(cpus.count, 1);
	add_madt(a, madt, tdvf_v1, sizeof(tdvf_v1));
	assert_true(acpi_madt_cpus(addr(a->rsdp), &cpus));
	assert_int_equal(cpus.wakeup_mailbox, 0x3f7ff000);
	assert_int_equal(cpus.wakeup_version, 1);
	assert_int_equal(cpus.wakeup_reset_vector, 0x3f801000);
	add_madt(a, madt, v1_short, sizeof(v1_short));
	assert_true(acpi_madt_cpus(addr(a->rsdp), &cpus));
	assert_int_equal(cpus.wakeup_mailbox, 0x3f7fe000);
	assert_int_equal(cpus.wakeup_reset_vector, 0);
	add_madt(a, madt, truncated, sizeof(truncated));
	assert_true(acpi_madt_cpus(addr(a->rsdp), &cpus));
	assert_int_equal(cpus.wakeup_mailbox, 0);
	add_madt(a, madt, two, sizeof(two));
	assert_true(acpi_madt_cpus(addr(a->rsdp), &cpus));
	assert_int_equal(cpus.wakeup_mailbox, 0x3f7fd000);
	assert_int_equal(cpus.wakeup_entries, 2);
}

/* The simulated TDVF's MADT: QEMU's with a version-1 wakeup structure appended,
 * checksum valid, the CPUs unchanged, the mailbox found (as a real TD's). */
static void test_sim_tdvf_madt_is_version_1(void **state)
{
	static uint8_t madt[256], out[256];
	static const uint8_t cpus2[] = { 0, 8, 0, 0, 1, 0, 0, 0, 0, 8, 1, 1, 1, 0, 0, 0 };
	struct fake_acpi *a = build(0x608, 0, 0);
	const struct acpi_sdt_header *h;
	struct acpi_cpus cpus;
	size_t n;

	(void)state;
	add_madt(a, madt, cpus2, sizeof(cpus2));
	h = acpi_find_table(addr(a->rsdp), "APIC");
	assert_non_null(h);
	assert_int_equal(sim_tdvf_build_madt(h, out, h->length + 23, 0x7f000, 0x80000), 0);
	n = sim_tdvf_build_madt(h, out, sizeof(out), 0x7f000, 0x80000);
	assert_int_equal(n, h->length + 24);
	assert_true(acpi_checksum_ok(out, (uint32_t)n));
	assert_true(acpi_madt_parse((const struct acpi_sdt_header *)out, &cpus));
	assert_int_equal(cpus.count, 2);
	assert_int_equal(cpus.wakeup_version, 1);
	assert_int_equal(cpus.wakeup_mailbox, 0x7f000);
	assert_int_equal(cpus.wakeup_reset_vector, 0x80000);
	assert_false(acpi_madt_parse(NULL, &cpus));
}

/* The wakeup mailbox is used only in a page the firmware reserved (TDVF:
 * EfiACPIMemoryNVS): not in RAM the kernel uses, not unaligned, not MMIO, not
 * straddling the end of a range. */
static void test_mailbox_must_be_firmware_memory(void **state)
{
	static const struct mem_range map[] = {
		{ 0x0, 0x7f000, MEM_USABLE, true },
		{ 0x7f000, 0x2000, MEM_ACPI, true },
		{ 0x81000, 0x1000, MEM_KERNEL, true },
		{ 0x82000, 0x1000, MEM_RESERVED, true },
		{ 0xfee00000, 0x1000, MEM_RESERVED, false },
		{ 0xfef00000, 0x1000, MEM_MMIO, false },
	};
	unsigned int n = sizeof(map) / sizeof(map[0]);

	(void)state;
	assert_true(mem_range_firmware_page(map, n, 0x7f000));
	assert_true(mem_range_firmware_page(map, n, 0x80000));
	assert_true(mem_range_firmware_page(map, n, 0x82000));
	assert_false(mem_range_firmware_page(map, n, 0x1000));	   /* the kernel's RAM */
	assert_false(mem_range_firmware_page(map, n, 0x81000));	   /* the kernel's own */
	assert_false(mem_range_firmware_page(map, n, 0x7f800));	   /* not aligned */
	assert_false(mem_range_firmware_page(map, n, 0xfee00000)); /* uncached */
	assert_false(mem_range_firmware_page(map, n, 0xfef00000)); /* MMIO */
	assert_false(mem_range_firmware_page(map, n, 0x90000000)); /* outside the map */
	assert_false(mem_range_firmware_page(map, n, 0));
}

static void test_madt_override_and_truncated_entries(void **state)
{
	static uint8_t madt[256];
	/* An override to a 64-bit base, one CPU, then an entry claiming 40 bytes
	 * that the table does not hold, then a CPU that must not be read. */
	static const uint8_t entries[] = {
		5, 12, 0, 0, 0, 0, 0, 0xfe, 1, 0, 0, 0, 0, 8,
		0, 7,  1, 0, 0, 0, 0, 40,   1, 8, 1, 0, 0, 0,
	};
	struct fake_acpi *a = build(0x608, 0, 0);
	struct acpi_cpus cpus;

	(void)state;
	add_madt(a, madt, entries, sizeof(entries));
	assert_true(acpi_madt_cpus(addr(a->rsdp), &cpus));
	assert_int_equal(cpus.lapic_base, 0x1fe000000ull);
	assert_int_equal(cpus.count, 1);
	assert_int_equal(cpus.apic_id[0], 7);

	/* A zero-length entry must end the walk, not loop forever. */
	{
		static const uint8_t looping[] = { 0, 8, 0, 4, 1, 0, 0, 0, 0, 0, 0, 0 };

		add_madt(a, madt, looping, sizeof(looping));
		assert_true(acpi_madt_cpus(addr(a->rsdp), &cpus));
		assert_int_equal(cpus.count, 1);
		assert_int_equal(cpus.apic_id[0], 4);
	}
}

static void test_no_madt(void **state)
{
	struct fake_acpi *a = build(0x608, 0, 0);
	struct acpi_cpus cpus;

	(void)state;
	assert_false(acpi_madt_cpus(addr(a->rsdp), &cpus));
	assert_int_equal(cpus.count, 0);
	assert_false(acpi_madt_cpus(0, &cpus));
}

static void test_checksum(void **state)
{
	uint8_t b[4] = { 1, 2, 3, (uint8_t)-6 };

	(void)state;
	assert_true(acpi_checksum_ok(b, 4));
	b[0] = 2;
	assert_false(acpi_checksum_ok(b, 4));
	assert_true(acpi_checksum_ok(b, 0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_finds_tables_through_xsdt),
		cmocka_unit_test(test_pm_timer_port_and_width),
		cmocka_unit_test(test_no_pm_timer),
		cmocka_unit_test(test_corrupt_tables_are_ignored),
		cmocka_unit_test(test_mcfg_window),
		cmocka_unit_test(test_checksum),
		cmocka_unit_test(test_madt_cpus),
		cmocka_unit_test(test_madt_wakeup_mailbox),
		cmocka_unit_test(test_sim_tdvf_madt_is_version_1),
		cmocka_unit_test(test_mailbox_must_be_firmware_memory),
		cmocka_unit_test(test_madt_override_and_truncated_entries),
		cmocka_unit_test(test_no_madt),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
