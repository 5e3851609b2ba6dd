/* SPDX-License-Identifier: MIT */
/*
 * virtio_pci.c - modern virtio PCI transport: capability parsing, the common
 * configuration registers, queue set-up and notification.
 */
#include "drivers/virtio/virtio_pci.h"

#include "arch/kernel_errno.h"

#include "arch/x86_64/cc/pvio.h"
#include "drivers/deadline.h"

#include <stdio.h>
#include <string.h>

/* Common configuration layout (virtio 1.2, 4.1.4.3). */
#define VPCI_DEVICE_FEATURE_SELECT 0x00
#define VPCI_DEVICE_FEATURE 0x04
#define VPCI_DRIVER_FEATURE_SELECT 0x08
#define VPCI_DRIVER_FEATURE 0x0c
#define VPCI_NUM_QUEUES 0x12
#define VPCI_DEVICE_STATUS 0x14
#define VPCI_CONFIG_GENERATION 0x15
#define VPCI_QUEUE_SELECT 0x16
#define VPCI_QUEUE_SIZE 0x18
#define VPCI_QUEUE_ENABLE 0x1c
#define VPCI_QUEUE_NOTIFY_OFF 0x1e
#define VPCI_QUEUE_DESC 0x20
#define VPCI_QUEUE_DRIVER 0x28
#define VPCI_QUEUE_DEVICE 0x30
#define VPCI_COMMON_MIN_LEN 0x38

/* Vendor capability layout (virtio 1.2, 4.1.4). */
#define VCAP_LEN 2
#define VCAP_CFG_TYPE 3
#define VCAP_BAR 4
#define VCAP_OFFSET 8
#define VCAP_LENGTH 12
#define VCAP_NOTIFY_MULT 16
#define VCAP_MIN_LEN 16
#define VCAP_NOTIFY_MIN_LEN 20

/* Capabilities in 256 bytes of configuration space above the header, at most. */
#define VPCI_MAX_VENDOR_CAPS 48
/* Bytes of the standard configuration space, where capabilities live. */
#define VPCI_CFG_SPACE 256u
#define VPCI_GENERATION_RETRIES 16

static struct virtio_pci *to_vp(struct virtio_device *vdev)
{
	return (struct virtio_pci *)vdev; /* vdev is the first member */
}

/* Register access through the paravirtual I/O layer: in a TD each access is a
 * request to the VMM, natively the access itself (arch/x86_64/cc/pvio.h). */
static uint8_t rd8(uint64_t base, uint32_t off)
{
	return mmio_read8(base + off);
}

static uint16_t rd16(uint64_t base, uint32_t off)
{
	return mmio_read16(base + off);
}

static uint32_t rd32(uint64_t base, uint32_t off)
{
	return mmio_read32(base + off);
}

static void wr8(uint64_t base, uint32_t off, uint8_t v)
{
	mmio_write8(base + off, v);
}

static void wr16(uint64_t base, uint32_t off, uint16_t v)
{
	mmio_write16(base + off, v);
}

static void wr32(uint64_t base, uint32_t off, uint32_t v)
{
	mmio_write32(base + off, v);
}

/* 64-bit fields may be written as two 32-bit halves, low first (4.1.3.1). */
static void wr64(uint64_t base, uint32_t off, uint64_t v)
{
	wr32(base, off, (uint32_t)v);
	wr32(base, off + 4, (uint32_t)(v >> 32));
}

static int vpci_check_region(const struct pci_device *pci, const struct virtio_pci_region *r,
			     uint32_t min_len, uint32_t align, const char *what, char *why,
			     size_t why_len)
{
	const struct pci_bar *bar;

	/* Registers are read with their natural width: a misaligned structure
	 * would make every access a misaligned MMIO access (Linux refuses too). */
	if (r->offset & (align - 1)) {
		snprintf(why, why_len, "%s capability offset 0x%x is not %u-byte aligned", what,
			 r->offset, align);
		return KERR_INVAL;
	}

	if (r->bar >= PCI_NUM_BARS) {
		snprintf(why, why_len, "%s capability names BAR%u", what, r->bar);
		return KERR_INVAL;
	}
	bar = &pci->bars[r->bar];
	if (bar->is_io || !bar->size || !bar->base) {
		snprintf(why, why_len, "%s capability uses BAR%u, which is not a memory BAR", what,
			 r->bar);
		return KERR_INVAL;
	}
	/* The host chose the BAR's address: only one the platform checked lies outside
	 * RAM and mapped shared may be touched, or register accesses hit private memory. */
	if (!bar->accepted) {
		snprintf(why, why_len,
			 "%s capability uses BAR%u at 0x%llx, which the platform did "
			 "not accept",
			 what, r->bar, (unsigned long long)bar->base);
		return KERR_INVAL;
	}
	/* 64-bit sums: offset + length cannot wrap. */
	if (r->length < min_len || (uint64_t)r->offset + r->length > bar->size) {
		snprintf(why, why_len,
			 "%s capability [0x%x, +0x%x) does not fit BAR%u of 0x%llx bytes (or is "
			 "shorter than 0x%x)",
			 what, r->offset, r->length, r->bar, (unsigned long long)bar->size,
			 min_len);
		return KERR_INVAL;
	}
	return 0;
}

int virtio_pci_parse_caps(const struct pci_device *pci, struct virtio_pci_caps *caps, char *why,
			  size_t why_len)
{
	bool have[VIRTIO_PCI_CAP_PCI_CFG + 1] = { false };
	unsigned int seen = 0;
	uint8_t cap = 0;
	int rc;

	memset(caps, 0, sizeof(*caps));
	/* Each lookup is bounded, but a list that loops through vendor capabilities
	 * would bring this loop back forever: it gets the same bound. */
	while ((cap = pci_find_capability(pci, PCI_CAP_ID_VENDOR, cap)) != 0 &&
	       seen++ < VPCI_MAX_VENDOR_CAPS) {
		uint8_t cap_len = pci_read8(pci, cap + VCAP_LEN);
		uint8_t type = pci_read8(pci, cap + VCAP_CFG_TYPE);
		struct virtio_pci_region r;

		/* A capability lies in the 256 bytes of the standard configuration
		 * space; one that runs past them would have its offset or length
		 * read from whatever follows (all ones, or PCIe extended space). */
		if (cap_len < VCAP_MIN_LEN || (unsigned int)cap + cap_len > VPCI_CFG_SPACE ||
		    type > VIRTIO_PCI_CAP_PCI_CFG || have[type])
			continue; /* the first capability of each type is the one to use */
		r.bar = pci_read8(pci, cap + VCAP_BAR);
		r.offset = pci_read32(pci, cap + VCAP_OFFSET);
		r.length = pci_read32(pci, cap + VCAP_LENGTH);
		switch (type) {
		case VIRTIO_PCI_CAP_COMMON_CFG:
			caps->common = r;
			break;
		case VIRTIO_PCI_CAP_NOTIFY_CFG:
			if (cap_len < VCAP_NOTIFY_MIN_LEN)
				continue;
			caps->notify = r;
			caps->notify_off_multiplier = pci_read32(pci, cap + VCAP_NOTIFY_MULT);
			break;
		case VIRTIO_PCI_CAP_ISR_CFG:
			caps->isr = r;
			break;
		case VIRTIO_PCI_CAP_DEVICE_CFG:
			caps->device = r;
			break;
		default:
			continue;
		}
		have[type] = true;
	}
	if (!have[VIRTIO_PCI_CAP_COMMON_CFG] || !have[VIRTIO_PCI_CAP_NOTIFY_CFG] ||
	    !have[VIRTIO_PCI_CAP_ISR_CFG]) {
		snprintf(why, why_len, "missing virtio capability (common %d, notify %d, isr %d)",
			 have[VIRTIO_PCI_CAP_COMMON_CFG], have[VIRTIO_PCI_CAP_NOTIFY_CFG],
			 have[VIRTIO_PCI_CAP_ISR_CFG]);
		return KERR_INVAL;
	}
	rc = vpci_check_region(pci, &caps->common, VPCI_COMMON_MIN_LEN, 4, "common", why, why_len);
	if (!rc)
		rc = vpci_check_region(pci, &caps->notify, 2, 2, "notify", why, why_len);
	if (!rc && (caps->notify_off_multiplier & 1)) {
		snprintf(why, why_len,
			 "odd notify_off_multiplier %u: notify addresses would be "
			 "misaligned",
			 caps->notify_off_multiplier);
		rc = KERR_INVAL;
	}
	if (!rc)
		rc = vpci_check_region(pci, &caps->isr, 1, 1, "isr", why, why_len);
	if (!rc && have[VIRTIO_PCI_CAP_DEVICE_CFG])
		rc = vpci_check_region(pci, &caps->device, 0, 4, "device", why, why_len);
	return rc;
}

static uint64_t vpci_map(const struct pci_device *pci, const struct virtio_pci_region *r)
{
	return pci->bars[r->bar].base + r->offset;
}

static int vpci_reset(struct virtio_device *vdev)
{
	struct virtio_pci *vp = to_vp(vdev);

	struct deadline d;

	wr8(vp->common, VPCI_DEVICE_STATUS, 0);
	vp->features_ok_latched = false;
	/* The reset is complete when the device reads 0 back (4.1.4.3.2); a device
	 * that never does gets the device deadline, not our patience. */
	deadline_start(&d, 0);
	do {
		if (rd8(vp->common, VPCI_DEVICE_STATUS) == 0)
			return 0;
	} while (!deadline_passed(&d));
	return KERR_IO;
}

static uint8_t vpci_get_status(struct virtio_device *vdev)
{
	return rd8(to_vp(vdev)->common, VPCI_DEVICE_STATUS);
}

/* num_queues, bounded; read only where vpci_latch_num_queues() is called. */
static void vpci_latch_num_queues(struct virtio_pci *vp)
{
	uint16_t n = rd16(vp->common, VPCI_NUM_QUEUES);

	vp->num_queues = n > VIRTIO_PCI_MAX_QUEUES ? VIRTIO_PCI_MAX_QUEUES : n;
}

static void vpci_set_status(struct virtio_device *vdev, uint8_t status)
{
	struct virtio_pci *vp = to_vp(vdev);

	wr8(vp->common, VPCI_DEVICE_STATUS, status);
	/*
	 * The queue count may depend on the features: QEMU's virtio-net adds the
	 * queues of VIRTIO_NET_F_MQ when the features are set. So it is read again,
	 * once, when FEATURES_OK is set, and that value holds until the next
	 * negotiation; Linux likewise counts queues only after FEATURES_OK
	 * (drivers/virtio/virtio_pci_modern_dev.c, vp_modern_get_num_queues()).
	 */
	if ((status & VIRTIO_STATUS_FEATURES_OK) && !vp->features_ok_latched) {
		vpci_latch_num_queues(vp);
		vp->features_ok_latched = true;
	} else if (!status) {
		vp->features_ok_latched = false;
	}
}

static uint64_t vpci_get_features(struct virtio_device *vdev)
{
	struct virtio_pci *vp = to_vp(vdev);
	uint64_t lo, hi;

	wr32(vp->common, VPCI_DEVICE_FEATURE_SELECT, 0);
	lo = rd32(vp->common, VPCI_DEVICE_FEATURE);
	wr32(vp->common, VPCI_DEVICE_FEATURE_SELECT, 1);
	hi = rd32(vp->common, VPCI_DEVICE_FEATURE);
	return (hi << 32) | lo;
}

static void vpci_set_features(struct virtio_device *vdev, uint64_t features)
{
	struct virtio_pci *vp = to_vp(vdev);

	wr32(vp->common, VPCI_DRIVER_FEATURE_SELECT, 0);
	wr32(vp->common, VPCI_DRIVER_FEATURE, (uint32_t)features);
	wr32(vp->common, VPCI_DRIVER_FEATURE_SELECT, 1);
	wr32(vp->common, VPCI_DRIVER_FEATURE, (uint32_t)(features >> 32));
}

/* Read once per negotiation (vpci_set_status()): a device that changes
 * num_queues between reads must not make one bound check pass and the next use
 * go past it. */
static uint16_t vpci_num_queues(struct virtio_device *vdev)
{
	return to_vp(vdev)->num_queues;
}

static uint16_t vpci_queue_max_size(struct virtio_device *vdev, uint16_t index)
{
	struct virtio_pci *vp = to_vp(vdev);

	if (index >= vpci_num_queues(vdev))
		return 0;
	wr16(vp->common, VPCI_QUEUE_SELECT, index);
	return rd16(vp->common, VPCI_QUEUE_SIZE);
}

static int vpci_queue_setup(struct virtio_device *vdev, uint16_t index, uint16_t size,
			    uint64_t desc, uint64_t driver, uint64_t device)
{
	struct virtio_pci *vp = to_vp(vdev);
	uint16_t max, notify_off;
	uint64_t notify_at;

	if (index >= vpci_num_queues(vdev))
		return KERR_INVAL;
	wr16(vp->common, VPCI_QUEUE_SELECT, index);
	max = rd16(vp->common, VPCI_QUEUE_SIZE);
	if (!size || size > max || (size & (size - 1)))
		return KERR_INVAL;
	/* queue_notify_off comes from the host: the address it yields must stay
	 * inside the notify structure, or a notify would write elsewhere. */
	notify_off = rd16(vp->common, VPCI_QUEUE_NOTIFY_OFF);
	notify_at = (uint64_t)notify_off * vp->caps.notify_off_multiplier;
	if (notify_at + 2 > vp->caps.notify.length)
		return KERR_RANGE;
	wr16(vp->common, VPCI_QUEUE_SIZE, size);
	wr64(vp->common, VPCI_QUEUE_DESC, desc);
	wr64(vp->common, VPCI_QUEUE_DRIVER, driver);
	wr64(vp->common, VPCI_QUEUE_DEVICE, device);
	vp->queue_notify[index] = vp->notify + notify_at;
	wr16(vp->common, VPCI_QUEUE_ENABLE, 1);
	return 0;
}

static void vpci_queue_notify(struct virtio_device *vdev, uint16_t index)
{
	struct virtio_pci *vp = to_vp(vdev);

	if (index < VIRTIO_PCI_MAX_QUEUES && vp->queue_notify[index])
		mmio_write16(vp->queue_notify[index], index);
}

static int vpci_config_read(struct virtio_device *vdev, uint32_t offset, void *buf, uint32_t len)
{
	struct virtio_pci *vp = to_vp(vdev);
	uint8_t *out = buf;

	if ((uint64_t)offset + len > vp->caps.device.length || !vp->device_cfg)
		return KERR_RANGE;
	/* A multi-byte field may change while read: retry until the generation
	 * counter is the same before and after (4.1.4.3.1). */
	for (unsigned int tries = 0; tries < VPCI_GENERATION_RETRIES; tries++) {
		uint8_t gen = rd8(vp->common, VPCI_CONFIG_GENERATION);
		uint32_t i = 0;

		while (i < len) {
			if (!((offset + i) & 3) && len - i >= 4) {
				uint32_t v = rd32(vp->device_cfg, offset + i);

				memcpy(out + i, &v, 4);
				i += 4;
			} else if (!((offset + i) & 1) && len - i >= 2) {
				uint16_t v = rd16(vp->device_cfg, offset + i);

				memcpy(out + i, &v, 2);
				i += 2;
			} else {
				out[i] = rd8(vp->device_cfg, offset + i);
				i++;
			}
		}
		if (rd8(vp->common, VPCI_CONFIG_GENERATION) == gen)
			return 0;
	}
	return KERR_IO;
}

static const struct virtio_transport_ops virtio_pci_ops = {
	.reset = vpci_reset,
	.get_status = vpci_get_status,
	.set_status = vpci_set_status,
	.get_features = vpci_get_features,
	.set_features = vpci_set_features,
	.num_queues = vpci_num_queues,
	.queue_max_size = vpci_queue_max_size,
	.queue_setup = vpci_queue_setup,
	.queue_notify = vpci_queue_notify,
	.config_read = vpci_config_read,
};

uint16_t virtio_pci_device_type(const struct pci_device *pci)
{
	if (pci->vendor_id != VIRTIO_PCI_VENDOR || pci->device_id < VIRTIO_PCI_MODERN_BASE ||
	    pci->device_id > VIRTIO_PCI_MODERN_BASE + 0x3f)
		return 0;
	return pci->device_id - VIRTIO_PCI_MODERN_BASE;
}

int virtio_pci_probe(struct virtio_pci *vp, const struct pci_device *pci, bool confidential,
		     char *why, size_t why_len)
{
	int rc;

	memset(vp, 0, sizeof(*vp));
	vp->pci = pci;
	vp->vdev.ops = &virtio_pci_ops;
	vp->vdev.transport = vp;
	vp->vdev.confidential = confidential;
	vp->vdev.device_type = virtio_pci_device_type(pci);
	snprintf(vp->vdev.name, sizeof(vp->vdev.name), "virtio-%s@%02x:%02x.%x",
		 vp->vdev.device_type == VIRTIO_ID_BLOCK ? "blk" :
		 vp->vdev.device_type == VIRTIO_ID_NET	 ? "net" :
							   "dev",
		 pci->bus, pci->dev, pci->fn);
	if (!vp->vdev.device_type) {
		snprintf(why, why_len, "%04x:%04x is not a modern virtio device", pci->vendor_id,
			 pci->device_id);
		return KERR_INVAL;
	}
	rc = virtio_pci_parse_caps(pci, &vp->caps, why, why_len);
	if (rc)
		return rc;
	vp->common = vpci_map(pci, &vp->caps.common);
	vp->notify = vpci_map(pci, &vp->caps.notify);
	if (vp->caps.device.length)
		vp->device_cfg = vpci_map(pci, &vp->caps.device);
	vpci_latch_num_queues(vp);
	pci_enable(pci);
	return 0;
}
