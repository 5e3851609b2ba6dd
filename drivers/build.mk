# Device drivers (virtio transport, virtio-blk, virtio-net) built into the kernel.
KERNEL_SRCS +=
