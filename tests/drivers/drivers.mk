# tests/drivers/drivers.mk - host tests of the drivers (drivers/).
# PCI enumeration and capability walking.
HOST_TESTS += test_pci
test_pci_SRCS := tests/drivers/test_pci.c drivers/pci/pci.c drivers/virtio/virtio_pci.c \
	$(DRIVER_SUPPORT_SRCS) $(PVIO_HOST_SRCS)
HOST_TESTS += test_virtio
test_virtio_SRCS := tests/drivers/test_virtio.c tests/fakes/fake_virtio.c drivers/virtio/virtio.c
# Host tests of the virtio split virtqueue (drivers/virtio/virtqueue.c) against a
# simulated, sometimes hostile, device.
HOST_TESTS += test_virtqueue
test_virtqueue_SRCS := tests/drivers/test_virtqueue.c tests/fakes/mock_port.c drivers/virtio/virtqueue.c $(DMA_SRCS)
# The drivers' control path against a device that lies (tests/fakes/fake_virtio.c):
# deadlines, broken queues, failed resets (quarantine), queue index bounds,
# registers read once.
HOST_TESTS += test_hostile_device
test_hostile_device_SRCS := tests/drivers/test_hostile_device.c tests/fakes/fake_virtio.c tests/fakes/mock_port.c \
	drivers/virtio/virtio.c drivers/virtio/virtqueue.c drivers/virtio/virtio_blk.c \
	drivers/virtio/virtio_net.c $(DRIVER_SUPPORT_SRCS) $(DMA_SRCS)
