# Device drivers (virtio transport, virtio-blk, virtio-net) built into the kernel.
# Deadlines of device waits and the quarantine ledger: every driver needs them,
# and so does every host test that links a driver.
DRIVER_SUPPORT_SRCS := drivers/deadline.c drivers/quarantine.c
KERNEL_SRCS += $(DRIVER_SUPPORT_SRCS)
KERNEL_SRCS += drivers/virtio/virtqueue.c
KERNEL_SRCS += drivers/pci/pci.c
KERNEL_SRCS += drivers/pci/pci_access.c
KERNEL_SRCS += drivers/virtio/virtio.c
KERNEL_SRCS += drivers/virtio/virtio_pci.c
KERNEL_SRCS += drivers/virtio/virtio_blk.c
KERNEL_SRCS += drivers/virtio/virtio_net.c
