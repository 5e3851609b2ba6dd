# Host tests of the virtio split virtqueue (drivers/virtio/virtqueue.c) against a
# simulated, sometimes hostile, device.
HOST_TESTS += test_virtqueue
test_virtqueue_SRCS := tests/test_virtqueue.c tests/mock_port.c drivers/virtio/virtqueue.c $(DMA_SRCS)
