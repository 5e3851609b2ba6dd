/* SPDX-License-Identifier: MIT */
/*
 * fuzz_virtio_pci_caps.c - virtio-pci capability parsing and the modern
 * transport's register accesses (drivers/virtio/virtio_pci.c over
 * drivers/pci/pci.c) against a lying configuration space.
 *
 * The adversary controls all 256 bytes of the function's configuration space
 * (IDs, status, the capability list: pointers, loops, lengths, types, BAR
 * indices, offsets, lengths, the notify multiplier), what each BAR reads back
 * after the all-ones sizing write (so any size, I/O or memory, 32 or 64 bit),
 * and every byte of the BARs' memory (common configuration: queue counts,
 * sizes, notify offsets, the generation counter; device configuration). The
 * input also picks the driver's calls: queue set-up, notify, config reads.
 *
 * Checked: enumeration and parsing end (a bounded number of configuration
 * reads); every BAR sized decodes a power of two that does not wrap; parsing
 * returns 0 or -22 with a terminated reason; every region it accepts lies inside
 * a memory BAR that was sized, meets its minimum length, and was announced by a
 * vendor capability of that type lying whole in the 256 bytes of configuration
 * space;
 * then, with each BAR backed by exactly its size of host memory (so ASan sees
 * any access outside it), probing succeeds, queue set-up either fails or puts
 * the notify address inside the notify structure, config reads succeed only
 * inside the device configuration, and no access leaves a BAR. Every memory BAR
 * is accepted as pci_setup() would accept it, except, when the mode byte's bit 2
 * is set, BAR (mode >> 3) % 6, which the platform refused: no accepted region may
 * lie in it.

 *
 * Found so far (fixed, replayed from tests/fuzz/regressions/): a capability
 * loop through vendor capabilities hung the parser; misaligned region offsets
 * were accepted and then read with misaligned MMIO accesses; a capability at
 * 0xf4 had its length read from past the configuration space (all ones) and,
 * with a BAR whose sizing mask had a hole (a size of 2^64 - 64), a region of
 * 4 GiB was accepted.
 */
#include "tests/fuzz/fuzz_common.h"

#include <stdlib.h>
#include <string.h>

#include "drivers/pci/pci.h"
#include "drivers/virtio/virtio_pci.h"

/* Largest BAR backed by memory in the MMIO phase; larger ones end the input. */
#define VPF_MAX_BAR 65536u
/* Far more configuration reads than a correct walk needs (48 capabilities). */
#define VPF_MAX_CFG_READS 20000u
#define VPF_MAX_OPS 64u

/**
 * struct vpf - one configuration space.
 * @cfg: the function's 256 bytes.
 * @size_mask: what each BAR reads after all ones were written to it.
 * @sizing: BAR i holds all ones right now (the next read gives @size_mask).
 * @reads: configuration reads so far.
 */
struct vpf {
	uint8_t cfg[256];
	uint32_t size_mask[PCI_NUM_BARS];
	bool sizing[PCI_NUM_BARS];
	unsigned long reads;
};

static struct vpf vpf;

static uint32_t vpf_rd32(const uint8_t *cfg, unsigned int off)
{
	uint32_t v;

	memcpy(&v, cfg + off, 4);
	return v;
}

static uint32_t vpf_read32(void *ctx, uint8_t bus, uint8_t dev, uint8_t fn, uint16_t off)
{
	struct vpf *s = ctx;

	s->reads++;
	FUZZ_CHECK(s->reads < VPF_MAX_CFG_READS); /* a capability walk that never ends */
	FUZZ_CHECK(!(off & 3) && off < 4096);
	if (bus || dev || fn || off >= 256)
		return 0xffffffffu;
	if (off >= PCI_BAR0 && off < PCI_BAR0 + 4 * PCI_NUM_BARS && s->sizing[(off - PCI_BAR0) / 4])
		return s->size_mask[(off - PCI_BAR0) / 4];
	return vpf_rd32(s->cfg, off);
}

static void vpf_write32(void *ctx, uint8_t bus, uint8_t dev, uint8_t fn, uint16_t off, uint32_t val)
{
	struct vpf *s = ctx;

	FUZZ_CHECK(!(off & 3) && off < 4096);
	if (bus || dev || fn || off >= 256)
		return;
	if (off >= PCI_BAR0 && off < PCI_BAR0 + 4 * PCI_NUM_BARS) {
		unsigned int i = (off - PCI_BAR0) / 4;

		s->sizing[i] = val == 0xffffffffu;
		if (!s->sizing[i])
			memcpy(s->cfg + off, &val, 4);
		return;
	}
	/* Only the command register is writable; status stays what the host says. */
	if (off == PCI_COMMAND)
		memcpy(s->cfg + off, &val, 2);
}

/* The region was announced by a vendor capability of @type in configuration
 * space (a walk of our own, any position with those bytes will do). */
static bool vpf_announced(const struct vpf *s, const struct virtio_pci_region *r, uint8_t type)
{
	for (unsigned int p = 0x40; p + 16 <= 256; p += 4)
		if (s->cfg[p] == PCI_CAP_ID_VENDOR && s->cfg[p + 3] == type &&
		    s->cfg[p + 2] >= 16 && s->cfg[p + 4] == r->bar &&
		    vpf_rd32(s->cfg, p + 8) == r->offset && vpf_rd32(s->cfg, p + 12) == r->length)
			return true;
	return false;
}

static void vpf_check_region(const struct vpf *s, const struct pci_device *d,
			     const struct virtio_pci_region *r, uint32_t min_len, uint8_t type)
{
	const struct pci_bar *bar;

	FUZZ_CHECK(r->bar < PCI_NUM_BARS);
	bar = &d->bars[r->bar];
	FUZZ_CHECK(!bar->is_io && bar->size && bar->base && bar->accepted);
	FUZZ_CHECK(r->length >= min_len && (uint64_t)r->offset + r->length <= bar->size);
	FUZZ_CHECK(vpf_announced(s, r, type));
}

/* Exercise the transport with BARs backed by exactly their size of memory. */
static void vpf_mmio(struct fuzz_in *in, struct pci_device *d, const struct virtio_pci_caps *c)
{
	uint8_t *mem[PCI_NUM_BARS] = { NULL };
	struct virtio_pci *vp = calloc(1, sizeof(*vp));
	struct virtio_device *vdev = &vp->vdev;
	char why[128];
	int rc;

	FUZZ_CHECK(vp != NULL);
	for (unsigned int i = 0; i < PCI_NUM_BARS; i++) {
		if (d->bars[i].is_io || !d->bars[i].size)
			continue;
		if (d->bars[i].size > VPF_MAX_BAR)
			goto out;
		mem[i] = malloc(d->bars[i].size);
		FUZZ_CHECK(mem[i] != NULL);
		fuzz_bytes(in, mem[i], d->bars[i].size);
		d->bars[i].base = (uint64_t)(uintptr_t)mem[i];
	}
	d->vendor_id = VIRTIO_PCI_VENDOR;
	d->device_id = VIRTIO_PCI_MODERN_BASE + VIRTIO_ID_BLOCK;
	why[0] = '\0';
	rc = virtio_pci_probe(vp, d, fuzz_u8(in) & 1, why, sizeof(why));
	/* The layout was accepted once; the same layout must be accepted again. */
	FUZZ_CHECK(rc == 0);
	for (unsigned int ops = 0; fuzz_more(in) && ops < VPF_MAX_OPS; ops++) {
		switch (fuzz_u8(in) % 6) {
		case 0:
			FUZZ_CHECK(vdev->ops->num_queues(vdev) <= VIRTIO_PCI_MAX_QUEUES);
			break;
		case 1:
			(void)vdev->ops->queue_max_size(vdev, fuzz_u16(in));
			break;
		case 2: {
			/* One read per statement: argument order is unspecified, and gcc
			 * (the regression test) and clang (libFuzzer) must agree. */
			uint16_t q = fuzz_below(in, VIRTIO_PCI_MAX_QUEUES + 2);
			uint16_t qsize = fuzz_u16(in);
			uint64_t desc = fuzz_u64(in);
			uint64_t driver = fuzz_u64(in);
			uint64_t device = fuzz_u64(in);

			rc = vdev->ops->queue_setup(vdev, q, qsize, desc, driver, device);
			FUZZ_CHECK(rc == 0 || rc == -22 || rc == -34);
			if (rc == 0) {
				uintptr_t n = (uintptr_t)vp->queue_notify[q];
				uintptr_t lo = (uintptr_t)vp->notify;

				FUZZ_CHECK(q < VIRTIO_PCI_MAX_QUEUES);
				FUZZ_CHECK(n >= lo && n + 2 <= lo + c->notify.length);
			}
			break;
		}
		case 3:
			vdev->ops->queue_notify(vdev, fuzz_u16(in) % (VIRTIO_PCI_MAX_QUEUES + 2));
			break;
		case 4: {
			uint8_t buf[64];
			uint32_t off = fuzz_u8(in) & 1 ? fuzz_u32(in) : fuzz_u8(in);
			uint32_t len = fuzz_below(in, sizeof(buf) + 1);

			rc = vdev->ops->config_read(vdev, off, buf, len);
			FUZZ_CHECK(rc == 0 || rc == -34 || rc == -5);
			if (rc == 0)
				FUZZ_CHECK((uint64_t)off + len <= c->device.length);
			break;
		}
		default:
			switch (fuzz_u8(in) & 3) {
			case 0:
				(void)vdev->ops->reset(vdev);
				break;
			case 1:
				vdev->ops->set_status(vdev, fuzz_u8(in));
				(void)vdev->ops->get_status(vdev);
				break;
			case 2:
				(void)vdev->ops->get_features(vdev);
				break;
			default:
				vdev->ops->set_features(vdev, fuzz_u64(in));
				break;
			}
			break;
		}
	}
out:
	for (unsigned int i = 0; i < PCI_NUM_BARS; i++)
		free(mem[i]);
	free(vp);
}

int fuzz_virtio_pci_caps_one(const uint8_t *data, size_t size)
{
	struct fuzz_in in = fuzz_in_start(data, size);
	struct vpf *s = &vpf;
	const struct pci_config_ops ops = { s, vpf_read32, vpf_write32 };
	struct virtio_pci_caps caps;
	struct pci_device devs[2];
	char why[96];
	uint8_t mode;
	int n, rc;

	memset(s, 0, sizeof(*s));
	mode = fuzz_u8(&in);
	fuzz_bytes(&in, s->cfg, sizeof(s->cfg));
	for (unsigned int i = 0; i < PCI_NUM_BARS; i++)
		s->size_mask[i] = fuzz_u32(&in);
	/* Mostly a function that exists with a capability list: the interesting
	 * part is what follows. */
	if (!(mode & 1)) {
		s->cfg[0] = 0xf4;
		s->cfg[1] = 0x1a;
		s->cfg[PCI_STATUS] |= PCI_STATUS_CAP_LIST;
		s->cfg[PCI_HEADER_TYPE] &= 0x80;
	}
	n = pci_enumerate(&ops, 0, 0, devs, 2);
	FUZZ_CHECK(n >= 0 && n <= 1);
	if (n == 0)
		return 0;
	FUZZ_CHECK(devs[0].bus == 0 && devs[0].dev == 0 && devs[0].fn == 0);
	/* A sized BAR decodes a power of two that does not wrap the address space:
	 * else every range checked against it would fit. */
	for (unsigned int i = 0; i < PCI_NUM_BARS; i++) {
		const struct pci_bar *b = &devs[0].bars[i];

		FUZZ_CHECK(!b->size ||
			   (!(b->size & (b->size - 1)) && b->base + (b->size - 1) >= b->base));
	}
	/* What pci_setup() leaves: memory BARs accepted, or one of them refused. */
	for (unsigned int i = 0; i < PCI_NUM_BARS; i++)
		devs[0].bars[i].accepted = !devs[0].bars[i].is_io && devs[0].bars[i].size &&
					   !((mode & 4) && i == (unsigned int)(mode >> 3) % 6);
	s->reads = 0;
	memset(why, 'x', sizeof(why));
	rc = virtio_pci_parse_caps(&devs[0], &caps, why, sizeof(why));
	FUZZ_CHECK(rc == 0 || rc == -22);
	if (rc) {
		FUZZ_CHECK(memchr(why, '\0', sizeof(why)) != NULL);
		return 0;
	}
	vpf_check_region(s, &devs[0], &caps.common, 0x38, VIRTIO_PCI_CAP_COMMON_CFG);
	vpf_check_region(s, &devs[0], &caps.notify, 2, VIRTIO_PCI_CAP_NOTIFY_CFG);
	vpf_check_region(s, &devs[0], &caps.isr, 1, VIRTIO_PCI_CAP_ISR_CFG);
	if (caps.device.length)
		vpf_check_region(s, &devs[0], &caps.device, 0, VIRTIO_PCI_CAP_DEVICE_CFG);
	if (mode & 2)
		vpf_mmio(&in, &devs[0], &caps);
	return 0;
}
