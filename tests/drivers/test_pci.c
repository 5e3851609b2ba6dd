/* SPDX-License-Identifier: MIT */
/*
 * test_pci.c - enumeration, BAR sizing and capability walking (drivers/pci/pci.c)
 * against a simulated configuration space, including a hostile one.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "arch/x86_64/cc/pvio.h"
#include "drivers/deadline.h"
#include "drivers/pci/pci.h"
#include "drivers/virtio/virtio_pci.h"
#include "tests/fakes/fake_vcap.h"

#define FAKE_FUNCS 8

struct fake_fn {
	bool present;
	uint8_t bus, dev, fn;
	uint8_t cfg[256];
	uint64_t bar_size[PCI_NUM_BARS];    /* 0: not implemented; for 64-bit, in the low slot */
	unsigned int writes_while_decoding; /* BAR writes with decoding on: a bug */
};

struct fake_bus {
	struct fake_fn fns[FAKE_FUNCS];
	unsigned int reads;
};

static struct fake_fn *fake_find(struct fake_bus *b, uint8_t bus, uint8_t dev, uint8_t fn)
{
	for (unsigned int i = 0; i < FAKE_FUNCS; i++)
		if (b->fns[i].present && b->fns[i].bus == bus && b->fns[i].dev == dev &&
		    b->fns[i].fn == fn)
			return &b->fns[i];
	return NULL;
}

static uint32_t rd32(const uint8_t *cfg, uint16_t off)
{
	uint32_t v;

	memcpy(&v, cfg + off, 4);
	return v;
}

static void wr32(uint8_t *cfg, uint16_t off, uint32_t v)
{
	memcpy(cfg + off, &v, 4);
}

static uint32_t fake_read32(void *ctx, uint8_t bus, uint8_t dev, uint8_t fn, uint16_t off)
{
	struct fake_bus *b = ctx;
	struct fake_fn *f = fake_find(b, bus, dev, fn);

	b->reads++;
	assert_int_equal(off & 3, 0);
	if (!f || off >= 256)
		return 0xffffffffu;
	return rd32(f->cfg, off);
}

static void fake_write32(void *ctx, uint8_t bus, uint8_t dev, uint8_t fn, uint16_t off,
			 uint32_t val)
{
	struct fake_bus *b = ctx;
	struct fake_fn *f = fake_find(b, bus, dev, fn);

	if (!f || off >= 256)
		return;
	if (off >= PCI_BAR0 && off < PCI_BAR0 + 24) {
		unsigned int i = (off - PCI_BAR0) / 4;
		uint32_t old = rd32(f->cfg, off);
		uint16_t cmd = (uint16_t)rd32(f->cfg, PCI_COMMAND);

		if (cmd & (PCI_COMMAND_MEMORY | PCI_COMMAND_IO))
			f->writes_while_decoding++;
		if (f->bar_size[i]) {
			/* Low half (or a 32-bit BAR): size bits read back as zero. */
			uint64_t mask = ~(f->bar_size[i] - 1);
			uint32_t flags = old & ((old & 1) ? 0x3u : 0xfu);

			wr32(f->cfg, off,
			     ((uint32_t)mask & val & ~((old & 1) ? 0x3u : 0xfu)) | flags);
		} else if (i > 0 && f->bar_size[i - 1] && ((rd32(f->cfg, off - 4) >> 1) & 3) == 2) {
			/* Upper half of a 64-bit BAR. */
			uint64_t mask = ~(f->bar_size[i - 1] - 1);

			wr32(f->cfg, off, (uint32_t)(mask >> 32) & val);
		}
		return;
	}
	if (off == PCI_COMMAND) {
		/* Status is write-one-to-clear: a write of 1s would clear it. */
		uint32_t keep_status = rd32(f->cfg, off) & ~(val & 0xffff0000u) & 0xffff0000u;

		wr32(f->cfg, off, keep_status | (val & 0xffff));
		return;
	}
	wr32(f->cfg, off, val);
}

static struct fake_fn *fake_add(struct fake_bus *b, uint8_t bus, uint8_t dev, uint8_t fn,
				uint16_t vendor, uint16_t device, uint32_t class_code)
{
	for (unsigned int i = 0; i < FAKE_FUNCS; i++) {
		struct fake_fn *f = &b->fns[i];

		if (f->present)
			continue;
		memset(f, 0, sizeof(*f));
		f->present = true;
		f->bus = bus;
		f->dev = dev;
		f->fn = fn;
		wr32(f->cfg, 0, vendor | ((uint32_t)device << 16));
		wr32(f->cfg, 8, (class_code << 8) | 1);
		wr32(f->cfg, PCI_COMMAND, PCI_COMMAND_MEMORY | (PCI_STATUS_CAP_LIST << 16));
		return f;
	}
	fail();
	return NULL;
}

static void fake_bar32(struct fake_fn *f, unsigned int i, uint32_t base, uint64_t size, bool io)
{
	f->bar_size[i] = size;
	wr32(f->cfg, PCI_BAR0 + 4 * i, base | (io ? 1 : 0));
}

static void fake_bar64(struct fake_fn *f, unsigned int i, uint64_t base, uint64_t size)
{
	f->bar_size[i] = size;
	wr32(f->cfg, PCI_BAR0 + 4 * i, (uint32_t)base | 0x4 /* 64-bit */ | 0x8 /* prefetch */);
	wr32(f->cfg, PCI_BAR0 + 4 * i + 4, (uint32_t)(base >> 32));
}

static struct pci_config_ops fake_ops(struct fake_bus *b)
{
	struct pci_config_ops ops = { b, fake_read32, fake_write32 };

	return ops;
}

static void test_enumerate_and_size_bars(void **state)
{
	static struct fake_bus b;
	struct pci_config_ops ops = fake_ops(&b);
	struct pci_device devs[8];
	struct fake_fn *blk, *net;
	int n;

	(void)state;
	memset(&b, 0, sizeof(b));
	fake_add(&b, 0, 0, 0, 0x8086, 0x29c0, 0x060000);
	blk = fake_add(&b, 0, 2, 0, 0x1af4, 0x1042, 0x010000);
	fake_bar32(blk, 1, 0xc0001000, 0x1000, false);
	fake_bar64(blk, 4, 0x800000000ull, 0x4000);
	net = fake_add(&b, 0, 3, 0, 0x1af4, 0x1041, 0x020000);
	fake_bar32(net, 0, 0x6000, 0x20, true);
	fake_bar64(net, 2, 0x380000000000ull, 0x100000000ull); /* 4 GiB BAR above 4 GiB */

	n = pci_enumerate(&ops, 0, 255, devs, 8);
	assert_int_equal(n, 3);
	assert_int_equal(devs[1].vendor_id, 0x1af4);
	assert_int_equal(devs[1].device_id, 0x1042);
	assert_int_equal(devs[1].class_code, 0x010000);
	assert_int_equal(devs[1].dev, 2);
	assert_false(devs[1].bars[0].size);
	assert_int_equal(devs[1].bars[1].base, 0xc0001000);
	assert_int_equal(devs[1].bars[1].size, 0x1000);
	assert_false(devs[1].bars[1].is_64bit);
	assert_true(devs[1].bars[4].is_64bit);
	assert_true(devs[1].bars[4].prefetchable);
	assert_int_equal(devs[1].bars[4].base, 0x800000000ull);
	assert_int_equal(devs[1].bars[4].size, 0x4000);
	assert_false(devs[1].bars[5].size); /* the upper half is not a BAR of its own */

	assert_true(devs[2].bars[0].is_io);
	assert_int_equal(devs[2].bars[0].base, 0x6000);
	assert_int_equal(devs[2].bars[0].size, 0x20);
	assert_int_equal(devs[2].bars[2].base, 0x380000000000ull);
	assert_int_equal(devs[2].bars[2].size, 0x100000000ull);

	/* Sizing restored every BAR and never wrote one with decoding on. */
	assert_int_equal(rd32(blk->cfg, PCI_BAR0 + 16), 0x0000000c);
	assert_int_equal(rd32(blk->cfg, PCI_BAR0 + 20), 0x8);
	assert_int_equal(blk->writes_while_decoding, 0);
	assert_int_equal(net->writes_while_decoding, 0);
	assert_int_equal(rd32(blk->cfg, PCI_COMMAND) & 0xffff, PCI_COMMAND_MEMORY);
	/* Sizing did not clear the write-one-to-clear status bits. */
	assert_true(rd32(blk->cfg, PCI_COMMAND) >> 16 & PCI_STATUS_CAP_LIST);
}

static void test_multifunction_and_capacity(void **state)
{
	static struct fake_bus b;
	struct pci_config_ops ops = fake_ops(&b);
	struct pci_device devs[8];
	struct fake_fn *f0;

	(void)state;
	memset(&b, 0, sizeof(b));
	f0 = fake_add(&b, 0, 31, 0, 0x8086, 0x2918, 0x060100);
	fake_add(&b, 0, 31, 2, 0x8086, 0x2922, 0x010601);
	fake_add(&b, 0, 31, 3, 0x8086, 0x2930, 0x0c0500);
	/* Without the multi-function bit, functions 1..7 are not scanned. */
	assert_int_equal(pci_enumerate(&ops, 0, 0, devs, 8), 1);
	f0->cfg[PCI_HEADER_TYPE] = 0x80;
	assert_int_equal(pci_enumerate(&ops, 0, 0, devs, 8), 3);
	assert_int_equal(devs[2].fn, 3);
	assert_int_equal(devs[0].header_type, 0);
	/* A short array gets the first functions only. */
	assert_int_equal(pci_enumerate(&ops, 0, 0, devs, 2), 2);
	/* Bus range limits the scan. */
	assert_int_equal(pci_enumerate(&ops, 1, 255, devs, 8), 0);
}

/* A bus with one function, device @dev of vendor 0x1af4 (virtio). */
static struct fake_fn *fake_one(struct fake_bus *b, uint8_t dev, uint16_t device_id,
				uint32_t class_code)
{
	memset(b, 0, sizeof(*b));
	return fake_add(b, 0, dev, 0, 0x1af4, device_id, class_code);
}

/* Enumerate the one function of @b into @d. */
static void enumerate_one(struct fake_bus *b, struct pci_device *d)
{
	/* Static: @d keeps a pointer to it for later accesses. */
	static struct pci_config_ops ops;

	ops = fake_ops(b);
	assert_int_equal(pci_enumerate(&ops, 0, 0, d, 1), 1);
}

static void test_capabilities(void **state)
{
	static struct fake_bus b;
	struct pci_device d;
	struct fake_fn *f;

	(void)state;
	f = fake_one(&b, 4, 0x1042, 0x010000);
	/* 0x40 vendor -> 0x50 MSI-X -> 0x60 vendor -> end */
	f->cfg[PCI_CAP_PTR] = 0x40;
	f->cfg[0x40] = PCI_CAP_ID_VENDOR;
	f->cfg[0x41] = 0x50;
	f->cfg[0x50] = 0x11;
	f->cfg[0x51] = 0x62; /* low bits are reserved and ignored */
	f->cfg[0x60] = PCI_CAP_ID_VENDOR;
	f->cfg[0x61] = 0;
	enumerate_one(&b, &d);
	assert_int_equal(pci_find_capability(&d, PCI_CAP_ID_VENDOR, 0), 0x40);
	assert_int_equal(pci_find_capability(&d, PCI_CAP_ID_VENDOR, 0x40), 0x60);
	assert_int_equal(pci_find_capability(&d, PCI_CAP_ID_VENDOR, 0x60), 0);
	assert_int_equal(pci_find_capability(&d, 0x11, 0), 0x50);
	assert_int_equal(pci_find_capability(&d, 0x05, 0), 0);

	/* No capability list announced: none is found even if the pointer is set. */
	wr32(f->cfg, PCI_COMMAND, PCI_COMMAND_MEMORY);
	assert_int_equal(pci_find_capability(&d, PCI_CAP_ID_VENDOR, 0), 0);
}

static void test_hostile_capability_lists_end(void **state)
{
	static struct fake_bus b;
	struct pci_device d;
	struct fake_fn *f;
	unsigned int before;

	(void)state;
	f = fake_one(&b, 4, 0x1042, 0x010000);
	enumerate_one(&b, &d);
	/* A loop: 0x40 -> 0x80 -> 0x40 ... */
	f->cfg[PCI_CAP_PTR] = 0x40;
	f->cfg[0x40] = 0x10;
	f->cfg[0x41] = 0x80;
	f->cfg[0x80] = 0x10;
	f->cfg[0x81] = 0x40;
	before = b.reads;
	assert_int_equal(pci_find_capability(&d, PCI_CAP_ID_VENDOR, 0), 0);
	assert_true(b.reads - before <= 2 * 48 + 4);
	/* A pointer into the standard header is refused. */
	f->cfg[PCI_CAP_PTR] = 0x10;
	assert_int_equal(pci_find_capability(&d, 0x00, 0), 0);
	/* A self-loop. */
	f->cfg[PCI_CAP_PTR] = 0xfc;
	f->cfg[0xfc] = 0x10;
	f->cfg[0xfd] = 0xfc;
	assert_int_equal(pci_find_capability(&d, PCI_CAP_ID_VENDOR, 0), 0);
}

static void test_enable_and_write16(void **state)
{
	static struct fake_bus b;
	struct pci_device d;
	struct fake_fn *f;

	(void)state;
	f = fake_one(&b, 5, 0x1041, 0x020000);
	fake_bar32(f, 0, 0x6000, 0x20, true);
	enumerate_one(&b, &d);
	pci_enable(&d);
	assert_int_equal(pci_read16(&d, PCI_COMMAND), PCI_COMMAND_IO | PCI_COMMAND_MEMORY |
							      PCI_COMMAND_MASTER |
							      PCI_COMMAND_INTX_DISABLE);
	assert_true(pci_read16(&d, PCI_STATUS) & PCI_STATUS_CAP_LIST);
	assert_int_equal(pci_read8(&d, 0x01), 0x1a);
	pci_write16(&d, 0x3c, 0x1234);
	assert_int_equal(pci_read16(&d, 0x3c), 0x1234);
	pci_write16(&d, 0x3e, 0xabcd);
	assert_int_equal(pci_read32(&d, 0x3c), 0xabcd1234);
}

/* A virtio vendor capability at @at: type, BAR, offset, length (+ multiplier). */
static void fake_vcap(struct fake_fn *f, uint8_t at, uint8_t next, uint8_t type, uint8_t bar,
		      uint32_t off, uint32_t len, uint32_t mult)
{
	fake_vcap_write(f->cfg, at, next, type, bar, off, len, mult);
}

/* A modern virtio-blk function with common/notify/isr/device in BAR4 (16 KiB). */
static struct fake_fn *fake_virtio(struct fake_bus *b, uint32_t common_off, uint32_t mult)
{
	struct fake_fn *f = fake_add(b, 0, 2, 0, 0x1af4, 0x1042, 0x010000);

	fake_bar64(f, 4, 0xe000000000ull, 0x4000);
	f->cfg[PCI_CAP_PTR] = 0x40;
	fake_vcap(f, 0x40, 0x54, VIRTIO_PCI_CAP_COMMON_CFG, 4, common_off, 0x38, 0);
	fake_vcap(f, 0x54, 0x68, VIRTIO_PCI_CAP_NOTIFY_CFG, 4, 0x3000, 0x1000, mult);
	fake_vcap(f, 0x68, 0x78, VIRTIO_PCI_CAP_ISR_CFG, 4, 0x1000, 0x1000, 0);
	fake_vcap(f, 0x78, 0x00, VIRTIO_PCI_CAP_DEVICE_CFG, 4, 0x2000, 0x1000, 0);
	return f;
}

/* What pci_setup() does for a function whose BARs passed the placement check. */
static void accept_bars(struct pci_device *d)
{
	for (unsigned int i = 0; i < PCI_NUM_BARS; i++)
		d->bars[i].accepted = !d->bars[i].is_io && d->bars[i].size;
}

/* Enumerate the one function of @b, accept its memory BARs, parse its caps. */
static int parse_one(struct fake_bus *b, struct pci_device *d, struct virtio_pci_caps *caps,
		     char *why, size_t why_len)
{
	enumerate_one(b, d);
	accept_bars(d);
	memset(why, 0, why_len);
	return virtio_pci_parse_caps(d, caps, why, why_len);
}

/**
 * struct vcase - one parse of a virtio function's capabilities.
 * @b: the bus, holding the function.
 * @d: the function as enumerated.
 * @caps: what the parse found.
 * @why: its reason on failure.
 */
struct vcase {
	struct fake_bus b;
	struct pci_device d;
	struct virtio_pci_caps caps;
	char why[160];
};

/* A fresh bus with fake_virtio(@common_off, @mult) on it, parsed. */
static int parse_virtio(struct vcase *v, uint32_t common_off, uint32_t mult)
{
	memset(&v->b, 0, sizeof(v->b));
	fake_virtio(&v->b, common_off, mult);
	return parse_one(&v->b, &v->d, &v->caps, v->why, sizeof(v->why));
}

static void test_virtio_caps_valid_and_misaligned(void **state)
{
	static struct vcase v;

	(void)state;
	assert_int_equal(parse_virtio(&v, 0x0000, 4), 0);
	assert_int_equal(v.caps.common.bar, 4);
	assert_int_equal(v.caps.notify.offset, 0x3000);
	assert_int_equal(v.caps.notify_off_multiplier, 4);
	assert_int_equal(v.caps.device.length, 0x1000);

	/* A common configuration at an odd offset would be read misaligned. */
	assert_int_equal(parse_virtio(&v, 0x0002, 4), -22);
	assert_non_null(strstr(v.why, "not 4-byte aligned"));

	/* So would a notify address with an odd multiplier. */
	assert_int_equal(parse_virtio(&v, 0x0000, 3), -22);
	assert_non_null(strstr(v.why, "notify_off_multiplier"));

	/* A region past the end of its BAR. */
	assert_int_equal(parse_virtio(&v, 0x3ff0, 4), -22);
}

static void test_virtio_caps_loop_ends(void **state)
{
	static struct fake_bus b;
	struct virtio_pci_caps caps;
	struct pci_device d;
	struct fake_fn *f;
	char why[160];

	(void)state;
	memset(&b, 0, sizeof(b));
	f = fake_virtio(&b, 0x0000, 4);
	/* The device configuration capability points back at the first one. */
	f->cfg[0x79] = 0x40;
	/* Terminates (the walk is bounded) and still finds the four structures. */
	assert_int_equal(parse_one(&b, &d, &caps, why, sizeof(why)), 0);
	/* A vendor capability pointing at itself, and nothing else. */
	memset(&b, 0, sizeof(b));
	f = fake_add(&b, 0, 2, 0, 0x1af4, 0x1042, 0x010000);
	f->cfg[PCI_CAP_PTR] = 0x40;
	fake_vcap(f, 0x40, 0x40, VIRTIO_PCI_CAP_ISR_CFG, 4, 0, 4, 0);
	assert_int_equal(parse_one(&b, &d, &caps, why, sizeof(why)), -22);
	assert_non_null(strstr(why, "missing virtio capability"));
}

/* Only a BAR the platform accepted may hold a structure: a BAR left unaccepted
 * (placed over RAM, or never checked) refuses the device, whatever its layout. */
static void test_virtio_caps_need_accepted_bar(void **state)
{
	static struct vcase v;
	struct pci_device *d = &v.d;

	(void)state;
	assert_int_equal(parse_virtio(&v, 0x0000, 4), 0);
	d->bars[4].accepted = false;
	assert_int_equal(virtio_pci_parse_caps(d, &v.caps, v.why, sizeof(v.why)), -22);
	assert_string_equal(v.why, "common capability uses BAR4 at 0xe000000000, which the "
				   "platform did not accept");

	/* Only the device configuration sits in an unaccepted BAR. */
	memset(&v.b, 0, sizeof(v.b));
	fake_bar64(fake_virtio(&v.b, 0x0000, 4), 0, 0xe000100000ull, 0x1000);
	v.b.fns[0].cfg[0x78 + 4] = 0;
	wr32(v.b.fns[0].cfg, 0x78 + 8, 0);
	assert_int_equal(parse_one(&v.b, d, &v.caps, v.why, sizeof(v.why)), 0);
	assert_int_equal(v.caps.device.bar, 0);
	d->bars[0].accepted = false;
	assert_int_equal(virtio_pci_parse_caps(d, &v.caps, v.why, sizeof(v.why)), -22);
	assert_non_null(strstr(v.why, "device capability uses BAR0"));

	/* A device pci_setup() refused has no accepted BAR left. */
	d->refused = true;
	for (unsigned int i = 0; i < PCI_NUM_BARS; i++)
		d->bars[i].accepted = false;
	assert_int_equal(virtio_pci_parse_caps(d, &v.caps, v.why, sizeof(v.why)), -22);
	assert_non_null(strstr(v.why, "did not accept"));
}

/* Every structure must lie wholly inside its BAR, in a BAR that exists and is a
 * memory BAR: each capability is moved out of bounds in turn. */
static void test_virtio_caps_regions_inside_bar(void **state)
{
	static const struct {
		uint8_t at;	   /* the capability */
		uint32_t off, len; /* its new region in the 16 KiB BAR4 */
		int bar;	   /* its new BAR, or -1 to keep BAR4 */
		const char *reason;
	} cases[] = {
		{ 0x40, 0x3fd0, 0x38, -1, "common capability [0x3fd0, +0x38) does not fit BAR4" },
		{ 0x40, 0x0000, 0x30, -1, "or is shorter than 0x38" },
		{ 0x54, 0x3000, 0x1004, -1, "notify capability [0x3000, +0x1004) does not fit" },
		{ 0x54, 0x4000, 0x2, -1, "notify capability [0x4000, +0x2)" },
		{ 0x68, 0x4000, 0x1, -1, "isr capability [0x4000, +0x1)" },
		{ 0x68, 0x1000, 0x0, -1, "isr capability [0x1000, +0x0)" },
		{ 0x78, 0x2000, 0x2001, -1, "device capability [0x2000, +0x2001)" },
		/* 32-bit offset + length that wrap: compared in 64 bits. */
		{ 0x78, 0xfffff000, 0x2000, -1, "device capability [0xfffff000, +0x2000)" },
		{ 0x40, 0x0000, 0x38, 6, "common capability names BAR6" },
		{ 0x54, 0x3000, 0x1000, 0xff, "notify capability names BAR255" },
		/* BAR5 is the upper half of the 64-bit BAR4: not a BAR of its own. */
		{ 0x68, 0x1000, 0x1000, 5, "isr capability uses BAR5, which is not a memory BAR" },
		{ 0x78, 0x0000, 0x10, 0, "device capability uses BAR0, which is not a memory BAR" },
	};
	static struct fake_bus b;
	struct virtio_pci_caps caps;
	struct pci_device d;
	char why[200];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fake_fn *f;

		memset(&b, 0, sizeof(b));
		f = fake_virtio(&b, 0x0000, 4);
		fake_bar32(f, 0, 0x6000, 0x20, true); /* an I/O BAR */
		wr32(f->cfg, cases[i].at + 8, cases[i].off);
		wr32(f->cfg, cases[i].at + 12, cases[i].len);
		if (cases[i].bar >= 0)
			f->cfg[cases[i].at + 4] = (uint8_t)cases[i].bar;
		assert_int_equal(parse_one(&b, &d, &caps, why, sizeof(why)), -22);
		if (!strstr(why, cases[i].reason))
			fail_msg("case %zu: \"%s\" does not say \"%s\"", i, why, cases[i].reason);
	}
	/* Exactly filling the BAR is fine. */
	memset(&b, 0, sizeof(b));
	wr32(fake_virtio(&b, 0x0000, 4)->cfg, 0x78 + 12, 0x2000);
	assert_int_equal(parse_one(&b, &d, &caps, why, sizeof(why)), 0);
	assert_int_equal(caps.device.offset + caps.device.length, 0x4000);
}

/*
 * The registers of a virtio-pci device that lies, reached through a paravirtual
 * I/O backend of the test's own (the transport's every register access goes
 * through arch/x86_64/cc/pvio.h): BAR4 of fake_virtio() is this array. Writes of 0
 * to device_status can be ignored (a device that never resets), and num_queues
 * can change under the driver.
 */
#define REG_BAR4 0xe000000000ull
#define REG_COMMON 0x0
#define REG_NUM_QUEUES (REG_COMMON + 0x12)
#define REG_STATUS (REG_COMMON + 0x14)
static uint8_t reg_bar4[0x4000];
static bool reg_status_stuck;
static unsigned int reg_num_queue_reads;

static uint64_t reg_read(void *ctx, uint64_t pa, unsigned int size)
{
	uint64_t v = 0;

	(void)ctx;
	assert_true(pa >= REG_BAR4 && pa + size <= REG_BAR4 + sizeof(reg_bar4));
	if (pa - REG_BAR4 == REG_NUM_QUEUES)
		reg_num_queue_reads++;
	memcpy(&v, reg_bar4 + (pa - REG_BAR4), size);
	return v;
}

static void reg_write(void *ctx, uint64_t pa, unsigned int size, uint64_t v)
{
	(void)ctx;
	assert_true(pa >= REG_BAR4 && pa + size <= REG_BAR4 + sizeof(reg_bar4));
	if (pa - REG_BAR4 == REG_STATUS && !v && reg_status_stuck)
		return;
	memcpy(reg_bar4 + (pa - REG_BAR4), &v, size);
}

static uint64_t reg_ticks;

static uint64_t reg_clock(void *ctx)
{
	(void)ctx;
	return ++reg_ticks;
}

static void test_virtio_pci_registers_that_lie(void **state)
{
	static struct fake_bus b;
	static struct pci_device d;
	static struct virtio_pci vp;
	struct pci_config_ops ops = fake_ops(&b);
	struct pvio_ops regs = pvio_native;
	uint16_t nq = 3, many = 200;
	char why[160];

	(void)state;
	memset(&b, 0, sizeof(b));
	memset(reg_bar4, 0, sizeof(reg_bar4));
	fake_virtio(&b, REG_COMMON, 4);
	assert_int_equal(pci_enumerate(&ops, 0, 0, &d, 1), 1);
	accept_bars(&d);
	regs.mmio_read = reg_read;
	regs.mmio_write = reg_write;
	pvio_select(&regs);
	deadline_set_clock(reg_clock, NULL, 1000);
	deadline_set_timeout_ms(5);

	memcpy(reg_bar4 + REG_NUM_QUEUES, &nq, 2);
	assert_int_equal(virtio_pci_probe(&vp, &d, true, why, sizeof(why)), 0);
	/* num_queues is read once at probe: the device raising it later changes
	 * nothing until the next negotiation, and an index past it has no queue. */
	memcpy(reg_bar4 + REG_NUM_QUEUES, &many, 2);
	reg_num_queue_reads = 0;
	assert_int_equal(vp.vdev.ops->num_queues(&vp.vdev), 3);
	assert_int_equal(vp.vdev.ops->queue_max_size(&vp.vdev, 3), 0);
	assert_int_equal(reg_num_queue_reads, 0);
	/* Read again, once, when FEATURES_OK is set; bounded by what we support. */
	vp.vdev.ops->set_status(&vp.vdev, VIRTIO_STATUS_FEATURES_OK);
	assert_int_equal(reg_num_queue_reads, 1);
	assert_int_equal(vp.vdev.ops->num_queues(&vp.vdev), VIRTIO_PCI_MAX_QUEUES);
	vp.vdev.ops->set_status(&vp.vdev, VIRTIO_STATUS_FEATURES_OK | VIRTIO_STATUS_DRIVER_OK);
	assert_int_equal(reg_num_queue_reads, 1);

	/* A device whose status never reads 0: the reset gives up at its deadline. */
	reg_status_stuck = true;
	reg_ticks = 0;
	assert_int_equal(vp.vdev.ops->reset(&vp.vdev), -5);
	assert_true(reg_ticks >= 5 * 1000 && reg_ticks < 2 * 5 * 1000);
	reg_status_stuck = false;
	assert_int_equal(vp.vdev.ops->reset(&vp.vdev), 0);

	pvio_select(&pvio_native);
	deadline_set_clock(NULL, NULL, 0);
	deadline_set_timeout_ms(0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_enumerate_and_size_bars),
		cmocka_unit_test(test_multifunction_and_capacity),
		cmocka_unit_test(test_capabilities),
		cmocka_unit_test(test_hostile_capability_lists_end),
		cmocka_unit_test(test_enable_and_write16),
		cmocka_unit_test(test_virtio_caps_valid_and_misaligned),
		cmocka_unit_test(test_virtio_caps_loop_ends),
		cmocka_unit_test(test_virtio_caps_need_accepted_bar),
		cmocka_unit_test(test_virtio_caps_regions_inside_bar),
		cmocka_unit_test(test_virtio_pci_registers_that_lie),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
