# Device drivers (virtio transport, virtio-blk, virtio-net) built into the kernel.
KERNEL_SRCS += drivers/virtio/virtqueue.c
KERNEL_SRCS += drivers/pci/pci.c
KERNEL_SRCS += drivers/pci/pci_access.c
KERNEL_SRCS += drivers/virtio/virtio.c
KERNEL_SRCS += drivers/virtio/virtio_pci.c
KERNEL_SRCS += drivers/virtio/virtio_blk.c
KERNEL_SRCS += drivers/virtio/virtio_net.c
