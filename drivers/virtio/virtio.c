/* SPDX-License-Identifier: MIT */
/*
 * virtio.c - the generic device initialisation handshake over a transport.
 */
#include "drivers/virtio/virtio.h"

#include "arch/kernel_errno.h"

#include <stdio.h>

static void virtio_say(char *why, size_t why_len, const char *msg, const char *name)
{
	if (why && why_len)
		snprintf(why, why_len, "%s: %s", name, msg);
}

int virtio_fail(struct virtio_device *vdev)
{
	vdev->ops->set_status(vdev, vdev->ops->get_status(vdev) | VIRTIO_STATUS_FAILED);
	return vdev->ops->reset(vdev);
}

int virtio_negotiate(struct virtio_device *vdev, uint64_t wanted, char *why, size_t why_len)
{
	const struct virtio_transport_ops *ops = vdev->ops;
	uint64_t required = VIRTIO_FEATURE(VIRTIO_F_VERSION_1);
	uint64_t accept;
	uint8_t status;

	vdev->features = 0;
	if (ops->reset(vdev)) {
		virtio_say(why, why_len, "device did not complete the reset", vdev->name);
		return KERR_IO;
	}
	ops->set_status(vdev, VIRTIO_STATUS_ACKNOWLEDGE);
	ops->set_status(vdev, VIRTIO_STATUS_ACKNOWLEDGE | VIRTIO_STATUS_DRIVER);

	vdev->offered = ops->get_features(vdev);
	if (vdev->confidential)
		required |= VIRTIO_FEATURE(VIRTIO_F_ACCESS_PLATFORM);
	if ((vdev->offered & required) != required) {
		if (!(vdev->offered & VIRTIO_FEATURE(VIRTIO_F_VERSION_1)))
			virtio_say(why, why_len,
				   "device does not offer VIRTIO_F_VERSION_1 (legacy-only devices "
				   "are not supported; start it with disable-legacy=on)",
				   vdev->name);
		else
			virtio_say(why, why_len,
				   "device does not offer VIRTIO_F_ACCESS_PLATFORM, required in a "
				   "confidential guest (start it with iommu_platform=on)",
				   vdev->name);
		virtio_fail(vdev);
		return KERR_NOTSUP;
	}
	accept = vdev->offered & (required | wanted | VIRTIO_FEATURE(VIRTIO_F_ACCESS_PLATFORM));
	ops->set_features(vdev, accept);
	ops->set_status(vdev, VIRTIO_STATUS_ACKNOWLEDGE | VIRTIO_STATUS_DRIVER |
				      VIRTIO_STATUS_FEATURES_OK);
	/* The device may refuse the subset: it must still show FEATURES_OK. */
	status = ops->get_status(vdev);
	if (!(status & VIRTIO_STATUS_FEATURES_OK)) {
		virtio_say(why, why_len,
			   "device refused the negotiated features (FEATURES_OK "
			   "not kept)",
			   vdev->name);
		virtio_fail(vdev);
		return KERR_IO;
	}
	vdev->features = accept;
	return 0;
}

int virtio_driver_ok(struct virtio_device *vdev)
{
	uint8_t status;

	vdev->ops->set_status(vdev, VIRTIO_STATUS_ACKNOWLEDGE | VIRTIO_STATUS_DRIVER |
					    VIRTIO_STATUS_FEATURES_OK | VIRTIO_STATUS_DRIVER_OK);
	status = vdev->ops->get_status(vdev);
	if (status & (VIRTIO_STATUS_NEEDS_RESET | VIRTIO_STATUS_FAILED))
		return KERR_IO;
	return 0;
}
