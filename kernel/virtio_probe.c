/* SPDX-License-Identifier: MIT */
/*
 * virtio_probe.c - find the modern virtio functions, run the transport and feature
 * handshake on each, and report what they offer. The drivers (blk, net) bind to
 * the devices this finds.
 */
#include "kernel/virtio_probe.h"

#include <inttypes.h>
#include <stdio.h>

#include "kernel/pci_setup.h"

static struct virtio_pci vdevs[VIRTIO_PROBE_MAX];
static int nvdevs;

static void virtio_probe_report(struct virtio_pci *vp)
{
	struct virtio_device *vdev = &vp->vdev;

	printf("virtio: %s offers 0x%016" PRIx64 " (VERSION_1 %s, ACCESS_PLATFORM %s, "
	       "INDIRECT %s, EVENT_IDX %s), %u queue%s\n",
	       vdev->name, vdev->offered,
	       vdev->offered & VIRTIO_FEATURE(VIRTIO_F_VERSION_1) ? "yes" : "no",
	       vdev->offered & VIRTIO_FEATURE(VIRTIO_F_ACCESS_PLATFORM) ? "yes" : "no",
	       vdev->offered & VIRTIO_FEATURE(VIRTIO_F_RING_INDIRECT_DESC) ? "yes" : "no",
	       vdev->offered & VIRTIO_FEATURE(VIRTIO_F_RING_EVENT_IDX) ? "yes" : "no",
	       vdev->ops->num_queues(vdev), vdev->ops->num_queues(vdev) == 1 ? "" : "s");
}

int virtio_probe_all(bool confidential)
{
	const struct pci_device *pci;
	int n = pci_devices(&pci);

	nvdevs = 0;
	for (int i = 0; i < n && nvdevs < VIRTIO_PROBE_MAX; i++) {
		struct virtio_pci *vp = &vdevs[nvdevs];
		char why[192];
		int rc;

		/* pci_setup() refused one of its BARs and said why: its registers may
		 * lie over private memory, so it is never touched. */
		if (pci[i].refused)
			continue;
		if (!virtio_pci_device_type(&pci[i])) {
			if (pci[i].vendor_id == VIRTIO_PCI_VENDOR)
				printf("virtio: %02x:%02x.%x %04x:%04x refused: a "
				       "legacy/transitional device; Sluice drives modern "
				       "devices only (disable-legacy=on)\n",
				       pci[i].bus, pci[i].dev, pci[i].fn, pci[i].vendor_id,
				       pci[i].device_id);
			continue;
		}
		rc = virtio_pci_probe(vp, &pci[i], confidential, why, sizeof(why));
		if (rc) {
			printf("virtio: %02x:%02x.%x refused: %s\n", pci[i].bus, pci[i].dev,
			       pci[i].fn, why);
			continue;
		}
		rc = virtio_negotiate(&vp->vdev, 0, why, sizeof(why));
		virtio_probe_report(vp);
		if (rc) {
			printf("virtio: %s\n", why);
			continue;
		}
		/* Nothing drives it yet: leave it reset until a driver binds. A
		 * device that does not reset is not given to any driver. */
		if (vp->vdev.ops->reset(&vp->vdev)) {
			printf("virtio: %s refused: the device did not complete its reset\n",
			       vp->vdev.name);
			continue;
		}
		nvdevs++;
	}
	return nvdevs;
}

int virtio_probed(struct virtio_pci **out)
{
	*out = vdevs;
	return nvdevs;
}
