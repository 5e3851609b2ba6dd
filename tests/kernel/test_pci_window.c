/* SPDX-License-Identifier: MIT */
/*
 * test_pci_window.c - the placement check of PCI windows (kernel/pci_window.c) and the
 * classification of UEFI memory types it relies on (boot/memmap.c), on the memory
 * map OVMF gives QEMU q35 (1 GiB, as the kernel prints it at boot) plus RAM above
 * 4 GiB.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "boot/memmap.h"
#include "kernel/pci_window.h"

#define KIB (UINT64_C(1) << 10)
#define MIB (UINT64_C(1) << 20)
#define GIB (UINT64_C(1) << 30)

static struct boot_info bi;
static struct pci_space space;
static char why[256];

static void add_range(uint64_t base, uint64_t end, enum mem_kind kind, bool cacheable)
{
	struct mem_range *m = &bi.ranges[bi.nranges++];

	m->base = base;
	m->size = end - base;
	m->kind = kind;
	m->cacheable = cacheable;
}

/*
 * The map of a real boot (kernel report, 1 GiB q35): RAM to 1 GiB with ACPI and
 * firmware ranges in it, the ECAM window as uncached reserved, the flash as MMIO.
 * The PCI windows (0xc0000000.., 0xe000000000..) are absent, as OVMF leaves them.
 */
static int setup_ovmf_map(void **state)
{
	(void)state;
	memset(&bi, 0, sizeof(bi));
	add_range(0x0, 0x9f000, MEM_USABLE, true);
	add_range(0x9f000, 0xa0000, MEM_KERNEL, true);
	add_range(0x100000, 0x806000, MEM_USABLE, true);
	add_range(0x806000, 0x808000, MEM_ACPI, true);
	add_range(0x808000, 0x810000, MEM_USABLE, true);
	add_range(0x810000, 0x900000, MEM_ACPI, true);
	add_range(0x900000, 0x2fa00000, MEM_USABLE, true);
	add_range(0x2fa00000, 0x37a00000, MEM_KERNEL, true);
	add_range(0x37a00000, 0x3f6ec000, MEM_USABLE, true);
	add_range(0x3f6ec000, 0x3f76c000, MEM_RESERVED, true);
	add_range(0x3f76c000, 0x3f7fe000, MEM_ACPI, true);
	add_range(0x3f7fe000, 0x3feec000, MEM_USABLE, true);
	add_range(0x3feec000, 0x3ff70000, MEM_RESERVED, true);
	add_range(0x3ff70000, 0x40000000, MEM_ACPI, true);
	add_range(0xb0000000, 0xc0000000, MEM_RESERVED, false);
	add_range(0xffc00000, 0x100000000, MEM_MMIO, false);
	add_range(0x100000000, 0x140000000, MEM_USABLE, true);
	/* Regions placed in holes of the map on purpose: the named check must catch
	 * them even when the map does not (a firmware that lost a range). */
	bi.image_base = 0x50000000;
	bi.image_size = 0x9e123; /* not a page multiple: its last page is the image's */
	bi.heap = (struct mem_region){ 0x51000000, 64 * MIB };
	bi.dma = (struct mem_region){ 0x2fa00000, 128 * MIB };
	bi.pagetables = (struct mem_region){ 0x56000000, 8 * MIB };
	bi.stack = (struct mem_region){ 0x57000000, 1 * MIB };
	bi.trampoline = (struct mem_region){ 0x9f000, 4 * KIB };
	bi.cpus.lapic_base = 0xfee00000;
	pci_space_init(&space, &bi, 40);
	return 0;
}

static int bar(uint64_t base, uint64_t size)
{
	memset(why, 'x', sizeof(why));
	why[sizeof(why) - 1] = '\0';
	return pci_window_check(&space, base, size, 0, why, sizeof(why));
}

static void assert_refused(uint64_t base, uint64_t size, const char *reason)
{
	assert_int_equal(bar(base, size), -22);
	if (!strstr(why, reason))
		fail_msg("BAR 0x%llx/0x%llx: reason \"%s\" does not say \"%s\"",
			 (unsigned long long)base, (unsigned long long)size, why, reason);
}

static void test_space_from_boot_info(void **state)
{
	(void)state;
	assert_ptr_equal(space.ranges, bi.ranges);
	assert_int_equal(space.nranges, 17);
	assert_int_equal(space.nbusy, 7);
	assert_string_equal(space.busy[0].name, "the kernel image");
	assert_int_equal(space.busy[6].base, 0xfee00000);
	assert_int_equal(space.pa_limit, UINT64_C(1) << 40);
	/* An unknown width sets no limit; a zero-sized region is not listed. */
	bi.trampoline.size = 0;
	pci_space_init(&space, &bi, 0);
	assert_int_equal(space.pa_limit, 0);
	assert_int_equal(space.nbusy, 6);
}

static void test_bar_over_conventional_memory(void **state)
{
	(void)state;
	assert_refused(0x1000000, 16 * KIB,
		       "overlaps RAM (memory map: usable 0x0000900000-0x002fa00000)");
	assert_refused(0x0, 4 * KIB, "overlaps RAM");
	/* One page in RAM is enough: from the legacy hole into RAM at 1 MiB. */
	assert_refused(0xff000, 0x1001, "usable 0x0000100000-0x0000806000");
	assert_refused(0x120000000, 64 * KIB, "usable 0x0100000000-0x0140000000");
}

static void test_bar_over_acpi_and_reserved(void **state)
{
	(void)state;
	assert_refused(0x806000, 4 * KIB, "overlaps ACPI tables or NVS (memory map: acpi");
	assert_refused(0x3f780000, 16 * KIB, "ACPI tables or NVS");
	assert_refused(0x3feec000, 16 * KIB, "firmware-reserved memory (memory map: reserved");
	/* The ECAM window is reserved address space: no BAR may sit in it. */
	assert_refused(0xb0100000, 16 * KIB, "firmware-reserved address space");
}

static void test_bar_straddling_the_end_of_ram(void **state)
{
	(void)state;
	/* Last RAM page below 4 GiB and the first page after it. */
	assert_refused(0x3ffff000, 8 * KIB, "memory map: acpi 0x003ff70000-0x0040000000");
	/* Touching the end is fine: the first byte after RAM is a hole. */
	assert_int_equal(bar(0x40000000, 8 * KIB), 0);
	/* From the flash (MMIO) into RAM above 4 GiB. */
	assert_refused(0xfffff000, 8 * KIB, "usable 0x0100000000-0x0140000000");
	/* Its last byte is the first byte of that RAM. */
	assert_refused(0xfff00000, 1 * MIB + 1, "usable 0x0100000000-0x0140000000");
	/* A BAR of 16 bytes maps its whole page: a page shared with the image is
	 * the image's, even past the image's last byte. */
	assert_refused(0x5009e800, 16, "the kernel image 0x0050000000-0x005009e123");
	assert_int_equal(bar(0x5009f000, 16), 0);
	/* One shared byte at either end of the BAR's page is an overlap. */
	space.busy[0].size = 0x9e001; /* the image's last byte starts a page */
	assert_refused(0x5009e800, 16, "the kernel image 0x0050000000-0x005009e001");
	space.busy[5] = (struct pci_busy_region){ 0x58000fff, 1, "a byte" };
	assert_refused(0x58000000, 16, "a byte 0x0058000fff-0x0058001000");
	assert_int_equal(bar(0x58001000, 16), 0);
}

static void test_bar_in_mmio_and_holes(void **state)
{
	(void)state;
	/* Where OVMF put the BARs of the real boot. */
	assert_int_equal(bar(0xc0000000, 16 * MIB), 0);
	assert_int_equal(bar(0xc1013000, 4 * KIB), 0);
	assert_int_equal(bar(0xe000000000, 16 * KIB), 0);
	/* Inside the flash, an EfiMemoryMappedIO range, and across its start. */
	assert_int_equal(bar(0xffc00000, 4 * KIB), 0);
	assert_int_equal(bar(0xffbff000, 8 * KIB), 0);
	/* Between two RAM ranges below 1 MiB (the legacy VGA/ROM hole). */
	assert_int_equal(bar(0xa0000, 64 * KIB), 0);
	/* Up to the last address the CPU can reach. */
	assert_int_equal(bar((UINT64_C(1) << 40) - 4 * KIB, 4 * KIB), 0);
}

static void test_bar_over_kernel_regions(void **state)
{
	(void)state;
	assert_refused(0x51000000 + 32 * MIB, 16 * KIB, "the heap");
	assert_refused(0x30000000, 16 * KIB, "the DMA region 0x002fa00000-0x0037a00000");
	assert_refused(0x56000000, 4 * KIB, "the page-table pool");
	assert_refused(0x570ff000, 16 * KIB, "the kernel stack");
	assert_refused(0x9f000, 4 * KIB, "the AP start-up page");
	assert_refused(0xfee00000, 4 * KIB, "the local APIC");
	/* A large BAR that swallows a region whole. */
	assert_refused(0x40000000, 1 * GIB, "the kernel image");
}

static void test_bar_that_wraps_or_is_empty(void **state)
{
	(void)state;
	assert_refused(0x0, 0, "size 0");
	assert_refused(0xc1013000, 0, "size 0");
	assert_refused(UINT64_MAX - 0xfff, 0x2000, "wraps past 2^64");
	assert_refused(0xfffffffffffff000, 0x1000, "wraps past 2^64");
	assert_refused(0x8000000000000000, 0x8000000000000000, "wraps past 2^64");
	assert_refused(0x1000, UINT64_MAX, "wraps past 2^64");
	/* With no address limit, the check itself still refuses the wrap. */
	pci_space_init(&space, &bi, 0);
	assert_refused(UINT64_MAX - 0xf, 0x20, "wraps past 2^64");
	/* The last page below 2^64 does not wrap; nothing else refuses it here. */
	assert_int_equal(bar(0xffffffffffffe000, 0x1000), 0);
}

static void test_bar_beyond_physical_addresses(void **state)
{
	(void)state;
	assert_refused(UINT64_C(1) << 40, 4 * KIB, "physical address space");
	assert_refused((UINT64_C(1) << 40) - 4 * KIB, 8 * KIB, "0x10000000000");
	assert_refused(0xffffffffffffe000, 0x1000, "physical address space");
}

static void test_ecam_window(void **state)
{
	char w[160];

	(void)state;
	/* As OVMF lists it: uncached reserved memory. */
	assert_int_equal(
		pci_window_check(&space, 0xb0000000, 256 * MIB, PCI_WINDOW_ECAM, w, sizeof(w)), 0);
	/* Cacheable reserved memory is memory, not configuration space. */
	assert_int_equal(
		pci_window_check(&space, 0x3f6ec000, 1 * MIB, PCI_WINDOW_ECAM, w, sizeof(w)), -22);
	assert_non_null(strstr(w, "firmware-reserved memory"));
	/* RAM stays refused. */
	assert_int_equal(pci_window_check(&space, 0x30000000, 256 * MIB, PCI_WINDOW_ECAM, w,
					  sizeof(w)),
			 -22);
	assert_int_equal(
		pci_window_check(&space, 0xb0000000, 2 * GIB, PCI_WINDOW_ECAM, w, sizeof(w)), -22);
	assert_non_null(strstr(w, "the local APIC"));
}

/* A short buffer gets a terminated, truncated reason. */
static void test_reason_truncated(void **state)
{
	char w[12];

	(void)state;
	memset(w, 'x', sizeof(w));
	assert_int_equal(pci_window_check(&space, 0x1000000, 4 * KIB, 0, w, sizeof(w)), -22);
	assert_int_equal(strlen(w), sizeof(w) - 1);
}

/*
 * UEFI 2.10 section 7.2: after ExitBootServices only the two MMIO types describe
 * device space. Every other defined type, and any type this code does not know,
 * keeps BARs away.
 */
static void test_efi_memory_types(void **state)
{
	static const struct {
		uint32_t type;
		enum mem_kind kind;
	} cases[] = {
		{ UEFI_MT_RESERVED, MEM_RESERVED },
		{ UEFI_MT_LOADER_CODE, MEM_KERNEL },
		{ UEFI_MT_LOADER_DATA, MEM_KERNEL },
		{ UEFI_MT_BOOT_SERVICES_CODE, MEM_USABLE },
		{ UEFI_MT_BOOT_SERVICES_DATA, MEM_USABLE },
		{ UEFI_MT_RUNTIME_SERVICES_CODE, MEM_RESERVED },
		{ UEFI_MT_RUNTIME_SERVICES_DATA, MEM_RESERVED },
		{ UEFI_MT_CONVENTIONAL, MEM_USABLE },
		{ UEFI_MT_UNUSABLE, MEM_RESERVED },
		{ UEFI_MT_ACPI_RECLAIM, MEM_ACPI },
		{ UEFI_MT_ACPI_NVS, MEM_ACPI },
		{ UEFI_MT_MMIO, MEM_MMIO },
		{ UEFI_MT_MMIO_PORT_SPACE, MEM_MMIO },
		{ UEFI_MT_PAL_CODE, MEM_RESERVED },
		{ UEFI_MT_PERSISTENT, MEM_RESERVED },
		{ UEFI_MT_UNACCEPTED, MEM_RESERVED },
		{ 16, MEM_RESERVED },	      /* EfiMaxMemoryType and later types */
		{ 0x70000000, MEM_RESERVED }, /* OEM */
		{ 0x80000000, MEM_RESERVED }, /* OS loader */
		{ 0xffffffff, MEM_RESERVED },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		bool device = cases[i].type == UEFI_MT_MMIO ||
			      cases[i].type == UEFI_MT_MMIO_PORT_SPACE;
		int rc;

		assert_int_equal(mem_kind_from_efi_type(cases[i].type), cases[i].kind);
		/* A map of one range of this type, uncached as MMIO is: a BAR inside. */
		memset(&bi, 0, sizeof(bi));
		add_range(0xc0000000, 0xc1000000, mem_kind_from_efi_type(cases[i].type), false);
		pci_space_init(&space, &bi, 40);
		rc = pci_window_check(&space, 0xc0001000, 4 * KIB, 0, why, sizeof(why));
		if (rc != (device ? 0 : -22))
			fail_msg("EFI memory type 0x%x: check returned %d", cases[i].type, rc);
	}
	assert_string_equal(mem_kind_name(MEM_MMIO), "mmio");
	assert_string_equal(mem_kind_name(MEM_ACPI), "acpi");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_space_from_boot_info, setup_ovmf_map),
		cmocka_unit_test_setup(test_bar_over_conventional_memory, setup_ovmf_map),
		cmocka_unit_test_setup(test_bar_over_acpi_and_reserved, setup_ovmf_map),
		cmocka_unit_test_setup(test_bar_straddling_the_end_of_ram, setup_ovmf_map),
		cmocka_unit_test_setup(test_bar_in_mmio_and_holes, setup_ovmf_map),
		cmocka_unit_test_setup(test_bar_over_kernel_regions, setup_ovmf_map),
		cmocka_unit_test_setup(test_bar_that_wraps_or_is_empty, setup_ovmf_map),
		cmocka_unit_test_setup(test_bar_beyond_physical_addresses, setup_ovmf_map),
		cmocka_unit_test_setup(test_ecam_window, setup_ovmf_map),
		cmocka_unit_test_setup(test_reason_truncated, setup_ovmf_map),
		cmocka_unit_test(test_efi_memory_types),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
