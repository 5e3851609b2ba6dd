/* SPDX-License-Identifier: MIT */
/*
 * test_pci_setup.c - the kernel's PCI bring-up (boot/pci_setup.c) and the virtio
 * probe that follows it (boot/virtio_probe.c over drivers/virtio/virtio_pci.c), on
 * the host, with a hostile host's placement of BARs.
 *
 * The platform below pci_setup() is replaced at link time: acpi_mcfg() gives an
 * ECAM window, pci_ecam_ops_init() / pci_port_ops_init() hand out a simulated
 * configuration space, and mmu_map_mmio() / mmu_range_is_shared() model the
 * kernel's identity map (RAM is mapped write-back and private, so mapping a
 * device window over it gives PT_ERR_EXIST). "Physical" addresses are host
 * addresses: "private RAM" is a host buffer the fake memory map lists as usable,
 * and device registers are host buffers in a hole of that map, so a driver that
 * probes a BAR over private RAM really writes into that buffer, and the test sees
 * it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "arch/x86_64/acpi.h"
#include "arch/x86_64/mmu.h"
#include "arch/x86_64/paging.h"
#include "boot/pci_setup.h"
#include "boot/virtio_probe.h"

#define KIB 1024u
#define BAR_SIZE (16 * KIB)
#define NFUNCS 4
#define ECAM_BASE 0xb0000000ull
#define ECAM_SIZE (256ull << 20)
#define RAM_PATTERN 0xa5

/* ------------------------------------------------------- configuration space */

struct fake_fn {
	bool present;
	uint8_t dev;
	uint8_t cfg[256];
	uint64_t bar_size[PCI_NUM_BARS]; /* for a 64-bit BAR, in its low slot */
};

static struct fake_fn fns[NFUNCS];

static uint32_t cfg_rd32(const uint8_t *cfg, unsigned int off)
{
	uint32_t v;

	memcpy(&v, cfg + off, 4);
	return v;
}

static void cfg_wr32(uint8_t *cfg, unsigned int off, uint32_t v)
{
	memcpy(cfg + off, &v, 4);
}

static struct fake_fn *fake_find(uint8_t bus, uint8_t dev, uint8_t fn)
{
	for (unsigned int i = 0; i < NFUNCS; i++)
		if (fns[i].present && bus == 0 && fn == 0 && fns[i].dev == dev)
			return &fns[i];
	return NULL;
}

static uint32_t fake_read32(void *ctx, uint8_t bus, uint8_t dev, uint8_t fn, uint16_t off)
{
	struct fake_fn *f = fake_find(bus, dev, fn);

	(void)ctx;
	if (!f || off >= 256)
		return 0xffffffffu;
	return cfg_rd32(f->cfg, off);
}

/* BARs answer the sizing write with their size mask, as hardware does. */
static void fake_write32(void *ctx, uint8_t bus, uint8_t dev, uint8_t fn, uint16_t off,
			 uint32_t val)
{
	struct fake_fn *f = fake_find(bus, dev, fn);

	(void)ctx;
	if (!f || off >= 256)
		return;
	if (off >= PCI_BAR0 && off < PCI_BAR0 + 4 * PCI_NUM_BARS) {
		unsigned int i = (off - PCI_BAR0) / 4;

		if (f->bar_size[i]) {
			uint32_t flags = cfg_rd32(f->cfg, off) & 0xfu;
			uint32_t mask = (uint32_t)~(f->bar_size[i] - 1);

			cfg_wr32(f->cfg, off, (mask & val & ~0xfu) | flags);
		} else if (i > 0 && f->bar_size[i - 1]) {
			cfg_wr32(f->cfg, off, (uint32_t)(~(f->bar_size[i - 1] - 1) >> 32) & val);
		}
		return;
	}
	if (off == PCI_COMMAND) {
		/* Only the command half is writable here; status is the device's. */
		cfg_wr32(f->cfg, off, (cfg_rd32(f->cfg, off) & 0xffff0000u) | (val & 0xffffu));
		return;
	}
	cfg_wr32(f->cfg, off, val);
}

static void fake_bar64(struct fake_fn *f, unsigned int i, uint64_t base, uint64_t size)
{
	f->bar_size[i] = size;
	cfg_wr32(f->cfg, PCI_BAR0 + 4 * i, (uint32_t)base | 0x4 /* 64-bit */);
	cfg_wr32(f->cfg, PCI_BAR0 + 4 * i + 4, (uint32_t)(base >> 32));
}

static void fake_vcap(struct fake_fn *f, uint8_t at, uint8_t next, uint8_t type, uint8_t bar,
		      uint32_t off, uint32_t len)
{
	f->cfg[at] = PCI_CAP_ID_VENDOR;
	f->cfg[at + 1] = next;
	f->cfg[at + 2] = type == VIRTIO_PCI_CAP_NOTIFY_CFG ? 20 : 16;
	f->cfg[at + 3] = type;
	f->cfg[at + 4] = bar;
	cfg_wr32(f->cfg, at + 8, off);
	cfg_wr32(f->cfg, at + 12, len);
	if (type == VIRTIO_PCI_CAP_NOTIFY_CFG)
		cfg_wr32(f->cfg, at + 16, 4);
}

/* A modern virtio function whose four structures are in BAR4 at @regs, memory
 * decoding on as the firmware left it. */
static struct fake_fn *fake_virtio(uint8_t dev, uint16_t device_id, uint64_t regs)
{
	struct fake_fn *f = &fns[dev - 2];

	memset(f, 0, sizeof(*f));
	f->present = true;
	f->dev = dev;
	cfg_wr32(f->cfg, 0, VIRTIO_PCI_VENDOR | ((uint32_t)device_id << 16));
	cfg_wr32(f->cfg, PCI_CLASS_REVISION, (0x010000u << 8) | 1);
	cfg_wr32(f->cfg, PCI_COMMAND, PCI_COMMAND_MEMORY | (PCI_STATUS_CAP_LIST << 16));
	fake_bar64(f, 4, regs, BAR_SIZE);
	f->cfg[PCI_CAP_PTR] = 0x40;
	fake_vcap(f, 0x40, 0x54, VIRTIO_PCI_CAP_COMMON_CFG, 4, 0x0000, 0x38);
	fake_vcap(f, 0x54, 0x68, VIRTIO_PCI_CAP_NOTIFY_CFG, 4, 0x3000, 0x1000);
	fake_vcap(f, 0x68, 0x78, VIRTIO_PCI_CAP_ISR_CFG, 4, 0x1000, 0x1000);
	fake_vcap(f, 0x78, 0x00, VIRTIO_PCI_CAP_DEVICE_CFG, 4, 0x2000, 0x100);
	return f;
}

static uint16_t fake_command(const struct fake_fn *f)
{
	return (uint16_t)cfg_rd32(f->cfg, PCI_COMMAND);
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
	cfg_wr32(r, 0x04, 0x3); /* device_feature: bits 0-1 and 32-33 */
	r[0x12] = 1;		/* num_queues */
}

/* ------------------------------------------------- the platform, link-time */

static bool mcfg_present;
static uint64_t mcfg_base;
static uint8_t mcfg_end_bus;
static unsigned int ecam_inits, port_inits;
static uint64_t ecam_base_given;

struct map_call {
	uint64_t pa, len;
	bool ok;
};

static struct map_call maps[64];
static unsigned int nmaps;
static uint64_t fail_map_at;	/* mmu_map_mmio() of this address returns fail_map_rc */
static int fail_map_rc;
static uint64_t private_map_at; /* mapped, but mmu_range_is_shared() says no */

bool acpi_mcfg(uint64_t rsdp, struct acpi_mcfg_window *out)
{
	(void)rsdp;
	if (!mcfg_present)
		return false;
	memset(out, 0, sizeof(*out));
	out->base = mcfg_base;
	out->end_bus = mcfg_end_bus;
	return true;
}

void pci_ecam_ops_init(struct pci_config_ops *ops, uint64_t ecam_base)
{
	ecam_inits++;
	ecam_base_given = ecam_base;
	ops->ctx = NULL;
	ops->read32 = fake_read32;
	ops->write32 = fake_write32;
}

void pci_port_ops_init(struct pci_config_ops *ops)
{
	port_inits++;
	ops->ctx = NULL;
	ops->read32 = fake_read32;
	ops->write32 = fake_write32;
}

static bool overlaps(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
	return a < b + blen && b < a + alen;
}

/* The identity map holds RAM write-back and private: mapping device memory
 * over it is "mapped differently", as pt_map_range() says in the kernel. */
int mmu_map_mmio(uint64_t pa, uint64_t len)
{
	assert_true(nmaps < sizeof(maps) / sizeof(maps[0]));
	maps[nmaps] = (struct map_call){ pa, len, false };
	nmaps++;
	if (fail_map_at && pa == fail_map_at)
		return fail_map_rc;
	for (unsigned int i = 0; i < bi.nranges; i++)
		if (bi.ranges[i].kind != MEM_MMIO && bi.ranges[i].cacheable &&
		    overlaps(pa, len, bi.ranges[i].base, bi.ranges[i].size))
			return PT_ERR_EXIST;
	maps[nmaps - 1].ok = true;
	return 0;
}

bool mmu_range_is_shared(uint64_t va, uint64_t len)
{
	if (private_map_at && va == private_map_at)
		return false;
	for (unsigned int i = 0; i < nmaps; i++)
		if (maps[i].ok && va >= maps[i].pa && va + len <= maps[i].pa + maps[i].len)
			return true;
	return false;
}

static bool mapped(uint64_t pa)
{
	for (unsigned int i = 0; i < nmaps; i++)
		if (maps[i].pa == pa)
			return true;
	return false;
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
	memset(fns, 0, sizeof(fns));
	memset(&bi, 0, sizeof(bi));
	for (unsigned int i = 0; i < 3; i++) {
		fill_regs(regs[i]);
		fake_virtio(2 + i, i == 0 ? 0x1042 : 0x1041, addr(regs[i]));
	}
	memset(private_ram, RAM_PATTERN, sizeof(private_ram));
	bi.ranges[0] = (struct mem_range){ 0x100000, (1u << 30) - 0x100000, MEM_USABLE, true };
	bi.ranges[1] = (struct mem_range){ ECAM_BASE, ECAM_SIZE, MEM_RESERVED, false };
	bi.ranges[2] = (struct mem_range){ addr(private_ram), sizeof(private_ram), MEM_USABLE,
					   true };
	bi.nranges = 3;
	for (unsigned int i = 0; i < 3; i++)
		assert_true(addr(regs[i]) >= 0x100000000ull);
	assert_true(addr(private_ram) >= 0x100000000ull);
	mcfg_present = true;
	mcfg_base = ECAM_BASE;
	mcfg_end_bus = 255;
	ecam_inits = port_inits = 0;
	nmaps = 0;
	fail_map_at = 0;
	fail_map_rc = 0;
	private_map_at = 0;
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
	assert_int_equal(fake_command(&fns[dev - 2]) & (PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER),
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
	assert_int_equal(ecam_inits, 1);
	assert_int_equal(port_inits, 0);
	assert_int_equal(ecam_base_given, ECAM_BASE);
	/* The ECAM window and each BAR were mapped, and found shared. */
	assert_true(mapped(ECAM_BASE));
	for (unsigned int i = 0; i < 3; i++) {
		const struct pci_device *d = pci_fn(2 + i);

		assert_false(d->refused);
		assert_true(d->bars[4].accepted);
		assert_false(d->bars[1].accepted); /* not implemented */
		assert_true(mapped(addr(regs[i])));
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
	assert_false(mapped(addr(private_ram) + BAR_SIZE));
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
	fns[1].bar_size[4] = 32 * KIB;
	assert_int_equal(boot_pci(), 2);
	assert_never_probed(3);
	assert_output("pci: 00:03.0 BAR4 at ");
	assert_output("refused: overlaps RAM");
}

/* PT_ERR_EXIST means "mapped differently": memory. It never counts as success. */
static void test_map_exists_refuses(void **state)
{
	(void)state;
	fail_map_at = addr(regs[1]);
	fail_map_rc = PT_ERR_EXIST;
	assert_int_equal(boot_pci(), 2);
	assert_never_probed(3);
	assert_output("refused: is already mapped as memory (-17); the function will not be used");
}

/* A BAR whose mapping fails is never probed (it used to be, and faulted). */
static void test_map_failure_refuses(void **state)
{
	(void)state;
	fail_map_at = addr(regs[2]);
	fail_map_rc = PT_ERR_NOMEM;
	assert_int_equal(boot_pci(), 2);
	assert_never_probed(4);
	assert_output("pci: 00:04.0 BAR4 at ");
	assert_output("refused: cannot be mapped (-12)");
}

static void test_private_mapping_refuses(void **state)
{
	(void)state;
	private_map_at = addr(regs[0]);
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
	fake_bar64(&fns[0], 0, addr(regs[0]), BAR_SIZE);
	fns[0].cfg[0x40 + 4] = 0;
	fns[0].cfg[0x54 + 4] = 0;
	fns[0].cfg[0x68 + 4] = 0;
	fns[0].cfg[0x78 + 4] = 0;
	assert_int_equal(boot_pci(), 2);
	assert_true(mapped(addr(regs[0])));
	assert_never_probed(2);
	assert_output("pci: 00:02.0 BAR4 at ");
}

/* The ECAM window: used when it is reserved, uncached address space that maps;
 * otherwise the ports are, and the line says why. */
static void test_ecam_window_decisions(void **state)
{
	(void)state;
	fail_map_at = ECAM_BASE;
	fail_map_rc = PT_ERR_EXIST;
	assert_int_equal(boot_pci(), 3);
	assert_int_equal(ecam_inits, 0);
	assert_int_equal(port_inits, 1);
	assert_output("pci: ECAM window at 0xb0000000 (0x10000000 bytes) refused: is already "
		      "mapped as memory (-17); using ports");
	assert_output("pci: 3 functions through ports 0xCF8/0xCFC");

	/* An MCFG window over RAM is refused before it is mapped. */
	setup(state);
	mcfg_base = 0x200000;
	mcfg_end_bus = 0;
	assert_int_equal(boot_pci(), 3);
	assert_int_equal(ecam_inits, 0);
	assert_int_equal(port_inits, 1);
	assert_false(mapped(0x200000));
	assert_output("pci: ECAM window at 0x200000 (0x100000 bytes) refused: overlaps RAM");

	/* No MCFG: the ports, and no complaint. */
	setup(state);
	mcfg_present = false;
	assert_int_equal(boot_pci(), 3);
	assert_int_equal(port_inits, 1);
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
