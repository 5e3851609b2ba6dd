# The UEFI stage (the only GNU-EFI user), the kernel main, options, newlib glue.
KERNEL_SRCS += \
	boot/efi_entry.c \
	boot/main.c \
	boot/options.c \
	boot/syscalls.c
KERNEL_SRCS += boot/memmap.c
KERNEL_SRCS += boot/pci_setup.c boot/pci_window.c
KERNEL_SRCS += boot/virtio_probe.c
KERNEL_SRCS += boot/dma_setup.c boot/dma_port_kernel.c boot/dma_selftest.c boot/dma_report.c
KERNEL_SRCS += boot/cc_setup.c
