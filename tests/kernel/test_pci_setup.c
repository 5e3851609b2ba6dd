/* SPDX-License-Identifier: MIT */
/*
 * test_pci_setup.c - the kernel's PCI bring-up (kernel/pci_setup.c) and the virtio
 * probe that follows it (kernel/virtio_probe.c over drivers/virtio/virtio_pci.c), on
 * the host, with a hostile host's placement of BARs.
 *
 * The platform below pci_setup() is replaced at link time (tests/fakes/fake_pci.c, shared
 * with the fuzz target fuzz_pci_setup): acpi_mcfg() gives an ECAM window,
 * pci_ecam_ops_init() / pci_port_ops_init() hand out a simulated configuration
 * space, and mmu_map_mmio() / mmu_range_is_shared() model the kernel's
 * identity map (RAM is mapped write-back and private, so mapping a device
 * window over it gives PT_ERR_EXIST). "Physical" addresses are host addresses:
 * "private RAM" is a host buffer the fake memory map lists as usable, and
 * device registers are host buffers in a hole of that map, so a driver that
 * probes a BAR over private RAM really writes into that buffer, and the test
 * sees it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "arch/x86_64/fw/acpi.h"
#include "arch/x86_64/mm/mmu.h"
#include "arch/x86_64/mm/paging.h"
#include "kernel/pci_setup.h"
#include "kernel/virtio_probe.h"
#include "tests/fakes/fake_pci.h"
#include "tests/fakes/fake_vcap.h"

#define KIB 1024u
#define BAR_SIZE (16 * KIB)
#define ECAM_BASE 0xb0000000ull
#define ECAM_SIZE (256ull << 20)
#define RAM_PATTERN 0xa5

/* ------------------------------------------------------- configuration space */

/* A notify capability's multiplier is 4 here. */
static void fake_vcap(struct fake_pci_fn *f, uint8_t at, uint8_t next, uint8_t type, uint8_t bar,
		      uint32_t off, uint32_t len)
{
	fake_vcap_write(f->cfg, at, next, type, bar, off, len, 4);
}

/* A modern virtio function whose four structures are in BAR4 at @regs, memory
 * decoding on as the firmware left it. */
static struct fake_pci_fn *fake_virtio(uint8_t dev, uint16_t device_id, uint64_t regs)
{
	struct fake_pci_fn *f = &fake_pci.fns[dev - 2];

	memset(f, 0, sizeof(*f));
	f->present = true;
	f->dev = dev;
	fake_pci_cfg_wr32(f->cfg, 0, VIRTIO_PCI_VENDOR | ((uint32_t)device_id << 16));
	fake_pci_cfg_wr32(f->cfg, PCI_CLASS_REVISION, (0x010000u << 8) | 1);
	fake_pci_cfg_wr32(f->cfg, PCI_COMMAND, PCI_COMMAND_MEMORY | (PCI_STATUS_CAP_LIST << 16));
	fake_pci_bar64(f, 4, regs, BAR_SIZE);
	f->cfg[PCI_CAP_PTR] = 0x40;
	fake_vcap(f, 0x40, 0x54, VIRTIO_PCI_CAP_COMMON_CFG, 4, 0x0000, 0x38);
	fake_vcap(f, 0x54, 0x68, VIRTIO_PCI_CAP_NOTIFY_CFG, 4, 0x3000, 0x1000);
	fake_vcap(f, 0x68, 0x78, VIRTIO_PCI_CAP_ISR_CFG, 4, 0x1000, 0x1000);
	fake_vcap(f, 0x78, 0x00, VIRTIO_PCI_CAP_DEVICE_CFG, 4, 0x2000, 0x100);
	return f;
}

/* --------------------------------------------------------- memory and MMIO */

/* RAM the guest owns: the fake memory map lists it as usable. 48 KiB on a 64 KiB
 * boundary, so a naturally aligned 32 KiB BAR can straddle its end. */
static uint8_t private_ram[48 * KIB] __attribute__((aligned(64 * KIB)));
/* Device registers, one BAR each, in a hole of the map. A plain memory common
 * configuration that offers VERSION_1 and ACCESS_PLATFORM (the feature word reads
 * the same for both halves) and keeps the status written: the handshake passes. */
static uint8_t regs[3][BAR_SIZE] __attribute__((aligned(BAR_SIZE)));

static struct boot_info bi;

static uint64_t addr(const void *p)
{
	return (uint64_t)(uintptr_t)p;
}

static void fill_regs(uint8_t *r)
{
	memset(r, 0, BAR_SIZE);
	fake_pci_cfg_wr32(r, 0x04, 0x3); /* device_feature: bits 0-1 and 32-33 */
	r[0x12] = 1;			 /* num_queues */
}

/* --------------------------------------------------------------- harness */

static char *out;
static size_t out_len;

/* Fresh platform: three good virtio functions at 00:02 (blk), 00:03 and 00:04 (net),
 * a memory map with private RAM, the ECAM window as uncached reserved memory, and
 * RAM below 1 GiB (host buffers lie far above it). */
static int setup(void **state)
{
	(void)state;
	fake_pci_reset();
	memset(&bi, 0, sizeof(bi));
	for (unsigned int i = 0; i < 3; i++) {
		fill_regs(regs[i]);
		fake_virtio(2 + i, i == 0 ? 0x1042 : 0x1041, addr(regs[i]));
	}
	memset(private_ram, RAM_PATTERN, sizeof(private_ram));
	bi.ranges[0] = (struct mem_range){ 0x100000, (1u << 30) - 0x100000, MEM_USABLE, true };
	bi.ranges[1] = (struct mem_range){ ECAM_BASE, ECAM_SIZE, MEM_RESERVED, false };
	bi.ranges[2] =
		(struct mem_range){ addr(private_ram), sizeof(private_ram), MEM_USABLE, true };
	bi.nranges = 3;
	for (unsigned int i = 0; i < 3; i++)
		assert_true(addr(regs[i]) >= 0x100000000ull);
	assert_true(addr(private_ram) >= 0x100000000ull);
	fake_pci.bi = &bi;
	fake_pci.mcfg_present = true;
	fake_pci.mcfg.base = ECAM_BASE;
	fake_pci.mcfg.end_bus = 255;
	return 0;
}

static void capture_start(void)
{
	fflush(stdout);
	free(out);
	out = NULL;
	stdout = open_memstream(&out, &out_len);
	assert_non_null(stdout);
}

static void capture_end(FILE *saved)
{
	fclose(stdout);
	stdout = saved;
}

/* pci_setup(), pci_report() and virtio_probe_all() as kernel_main() runs them;
 * their output is left in @out. Return: the devices that passed the probe. */
static int boot_pci(void)
{
	FILE *saved = stdout;
	int n;

	capture_start();
	assert_int_equal(pci_setup(&bi, 48), 3);
	pci_report();
	n = virtio_probe_all(true);
	capture_end(saved);
	return n;
}

static void assert_output(const char *text)
{
	if (!strstr(out, text))
		fail_msg("no \"%s\" in the output:\n%s", text, out);
}

static const struct pci_device *pci_fn(uint8_t dev)
{
	const struct pci_device *d;
	int n = pci_devices(&d);

	for (int i = 0; i < n; i++)
		if (d[i].dev == dev)
			return &d[i];
	fail();
	return NULL;
}

static bool probed(uint8_t dev)
{
	struct virtio_pci *vps;
	int n = virtio_probed(&vps);

	for (int i = 0; i < n; i++)
		if (vps[i].pci->dev == dev)
			return true;
	return false;
}

/* The function was refused and never driven: not probed, no BAR accepted,
 * decoding and bus mastering off, and the private RAM untouched. */
static void assert_never_probed(uint8_t dev)
{
	const struct pci_device *d = pci_fn(dev);

	/* What the attack does first: the driver's register writes land in RAM. */
	for (size_t i = 0; i < sizeof(private_ram); i++)
		if (private_ram[i] != RAM_PATTERN)
			fail_msg("private RAM byte 0x%zx became 0x%02x", i, private_ram[i]);
	if (probed(dev))
		fail_msg("00:%02x.0 was probed", dev);
	assert_int_equal(fake_pci_command(&fake_pci.fns[dev - 2]) &
				 (PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER),
			 0);
	assert_true(d->refused);
	for (unsigned int b = 0; b < PCI_NUM_BARS; b++)
		assert_false(d->bars[b].accepted);
}

/* ------------------------------------------------------------------ tests */

static void test_good_layout_probes_every_device(void **state)
{
	(void)state;
	assert_int_equal(boot_pci(), 3);
	assert_int_equal(fake_pci.ecam_inits, 1);
	assert_int_equal(fake_pci.port_inits, 0);
	assert_int_equal(fake_pci.ecam_base_given, ECAM_BASE);
	/* The ECAM window and each BAR were mapped, and found shared. */
	assert_true(fake_pci_mapped(ECAM_BASE));
	for (unsigned int i = 0; i < 3; i++) {
		const struct pci_device *d = pci_fn(2 + i);

		assert_false(d->refused);
		assert_true(d->bars[4].accepted);
		assert_false(d->bars[1].accepted); /* not implemented */
		assert_true(fake_pci_mapped(addr(regs[i])));
		assert_true(probed(2 + i));
	}
	assert_output("pci: 3 functions through ECAM");
	assert_output("pci: 3 memory BARs outside RAM, mapped uncached and shared; 0 functions "
		      "refused");
	assert_null(strstr(out, "refused:"));
	assert_null(strstr(out, "(refused)"));
}

/* The finding: a virtio BAR the host points at guest RAM. */
static void test_bar_over_private_ram_never_probed(void **state)
{
	char line[256];

	(void)state;
	/* A valid-looking device in the middle of private RAM. */
	fake_virtio(2, 0x1042, addr(private_ram) + BAR_SIZE);
	assert_int_equal(boot_pci(), 2);
	assert_never_probed(2);
	/* Refused before anything was mapped. */
	assert_false(fake_pci_mapped(addr(private_ram) + BAR_SIZE));
	snprintf(line, sizeof(line),
		 "pci: 00:02.0 BAR4 at 0x%llx (0x4000 bytes) refused: overlaps RAM (memory map: "
		 "usable 0x%010llx-0x%010llx); the function will not be used\n",
		 (unsigned long long)addr(private_ram) + BAR_SIZE,
		 (unsigned long long)addr(private_ram),
		 (unsigned long long)addr(private_ram) + sizeof(private_ram));
	assert_output(line);
	assert_output("virtio-blk (modern) BAR4=");
	assert_output("/64-bit (refused)\n");
	assert_output("2 memory BARs outside RAM, mapped uncached and shared; 1 function refused");
	/* The other devices are unaffected. */
	assert_true(probed(3));
	assert_true(probed(4));
}

/* A 32 KiB BAR that straddles the end of private RAM into a hole. */
static void test_bar_straddling_private_ram_never_probed(void **state)
{
	(void)state;
	fake_virtio(3, 0x1041, addr(private_ram) + 32 * KIB);
	fake_pci_bar64(&fake_pci.fns[1], 4, addr(private_ram) + 32 * KIB, 32 * KIB);
	assert_int_equal(boot_pci(), 2);
	assert_never_probed(3);
	assert_output("pci: 00:03.0 BAR4 at ");
	assert_output("refused: overlaps RAM");
}

/* PT_ERR_EXIST means "mapped differently": memory. It never counts as success. */
static void test_map_exists_refuses(void **state)
{
	(void)state;
	fake_pci.fail_map_at = addr(regs[1]);
	fake_pci.fail_map_rc = PT_ERR_EXIST;
	assert_int_equal(boot_pci(), 2);
	assert_never_probed(3);
	assert_output("refused: is already mapped as memory (-17); the function will not be used");
}

/* A BAR whose mapping fails is never probed (it used to be, and faulted). */
static void test_map_failure_refuses(void **state)
{
	(void)state;
	fake_pci.fail_map_at = addr(regs[2]);
	fake_pci.fail_map_rc = PT_ERR_NOMEM;
	assert_int_equal(boot_pci(), 2);
	assert_never_probed(4);
	assert_output("pci: 00:04.0 BAR4 at ");
	assert_output("refused: cannot be mapped (-12)");
}

static void test_private_mapping_refuses(void **state)
{
	(void)state;
	fake_pci.private_map_at = addr(regs[0]);
	assert_int_equal(boot_pci(), 2);
	assert_never_probed(2);
	assert_output("refused: is mapped, but not shared");
}

static void test_unassigned_bar_refuses(void **state)
{
	(void)state;
	fake_virtio(4, 0x1041, 0);
	assert_int_equal(boot_pci(), 2);
	assert_never_probed(4);
	assert_output("pci: 00:04.0 BAR4 at 0x0 (0x4000 bytes) refused: is unassigned");
}

/* One bad BAR refuses the whole function, also the BARs accepted before it. */
static void test_one_bad_bar_refuses_the_function(void **state)
{
	(void)state;
	/* BAR0 fine (in a hole), BAR4 over private RAM; the capabilities use BAR0. */
	fake_virtio(2, 0x1042, addr(private_ram));
	fake_pci_bar64(&fake_pci.fns[0], 0, addr(regs[0]), BAR_SIZE);
	fake_pci.fns[0].cfg[0x40 + 4] = 0;
	fake_pci.fns[0].cfg[0x54 + 4] = 0;
	fake_pci.fns[0].cfg[0x68 + 4] = 0;
	fake_pci.fns[0].cfg[0x78 + 4] = 0;
	assert_int_equal(boot_pci(), 2);
	assert_true(fake_pci_mapped(addr(regs[0])));
	assert_never_probed(2);
	assert_output("pci: 00:02.0 BAR4 at ");
}

/* The ECAM window: used when it is reserved, uncached address space that maps;
 * otherwise the ports are, and the line says why. */
static void test_ecam_window_decisions(void **state)
{
	(void)state;
	fake_pci.fail_map_at = ECAM_BASE;
	fake_pci.fail_map_rc = PT_ERR_EXIST;
	assert_int_equal(boot_pci(), 3);
	assert_int_equal(fake_pci.ecam_inits, 0);
	assert_int_equal(fake_pci.port_inits, 1);
	assert_output("pci: ECAM window at 0xb0000000 (0x10000000 bytes) refused: is already "
		      "mapped as memory (-17); using ports");
	assert_output("pci: 3 functions through ports 0xCF8/0xCFC");

	/* An MCFG window over RAM is refused before it is mapped. */
	setup(state);
	fake_pci.mcfg.base = 0x200000;
	fake_pci.mcfg.end_bus = 0;
	assert_int_equal(boot_pci(), 3);
	assert_int_equal(fake_pci.ecam_inits, 0);
	assert_int_equal(fake_pci.port_inits, 1);
	assert_false(fake_pci_mapped(0x200000));
	assert_output("pci: ECAM window at 0x200000 (0x100000 bytes) refused: overlaps RAM");

	/* No MCFG: the ports, and no complaint. */
	setup(state);
	fake_pci.mcfg_present = false;
	assert_int_equal(boot_pci(), 3);
	assert_int_equal(fake_pci.port_inits, 1);
	assert_null(strstr(out, "ECAM"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_good_layout_probes_every_device, setup),
		cmocka_unit_test_setup(test_bar_over_private_ram_never_probed, setup),
		cmocka_unit_test_setup(test_bar_straddling_private_ram_never_probed, setup),
		cmocka_unit_test_setup(test_map_exists_refuses, setup),
		cmocka_unit_test_setup(test_map_failure_refuses, setup),
		cmocka_unit_test_setup(test_private_mapping_refuses, setup),
		cmocka_unit_test_setup(test_unassigned_bar_refuses, setup),
		cmocka_unit_test_setup(test_one_bad_bar_refuses_the_function, setup),
		cmocka_unit_test_setup(test_ecam_window_decisions, setup),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);

	free(out);
	return rc;
}
