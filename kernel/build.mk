# The kernel's entry and services: kernel_main(), the newlib glue, PCI placement, the
# virtio probe, the kernel's DMA service and its port, the CC bring-up, and the task
# table interface (tasks.h) the application fills.
KERNEL_SRCS += \
	kernel/main.c \
	kernel/syscalls.c
KERNEL_SRCS += kernel/pci_setup.c kernel/pci_window.c
KERNEL_SRCS += kernel/virtio_probe.c
KERNEL_SRCS += kernel/dma_setup.c kernel/dma_port_kernel.c kernel/dma_selftest.c kernel/dma_report.c
KERNEL_SRCS += kernel/cc_setup.c
