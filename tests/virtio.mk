# Host tests of the virtio split virtqueue (drivers/virtio/virtqueue.c) against a
# simulated, sometimes hostile, device.
HOST_TESTS += test_virtqueue
test_virtqueue_SRCS := tests/test_virtqueue.c tests/mock_port.c drivers/virtio/virtqueue.c $(DMA_SRCS)
# The drivers' control path against a device that lies (tests/fake_virtio.c):
# deadlines, broken queues, failed resets (quarantine), queue index bounds,
# registers read once.
HOST_TESTS += test_hostile_device
test_hostile_device_SRCS := tests/test_hostile_device.c tests/fake_virtio.c tests/mock_port.c \
	drivers/virtio/virtio.c drivers/virtio/virtqueue.c drivers/virtio/virtio_blk.c \
	drivers/virtio/virtio_net.c $(DRIVER_SUPPORT_SRCS) $(DMA_SRCS)
