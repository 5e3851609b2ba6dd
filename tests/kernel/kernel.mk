# tests/kernel/kernel.mk - host tests of the kernel's PCI bring-up (kernel/): where a device window may lie
# (kernel/pci_window.c, with the UEFI memory-type classification of boot/memmap.c),
# and pci_setup()'s decisions with the virtio probe over a fake configuration
# space and fake page tables (tests/kernel/test_pci_setup.c over tests/fakes/fake_pci.c).
HOST_TESTS += test_pci_window
test_pci_window_SRCS := tests/kernel/test_pci_window.c kernel/pci_window.c boot/memmap.c \
	arch/x86_64/mm/mem_range.c
HOST_TESTS += test_pci_setup
test_pci_setup_SRCS := tests/kernel/test_pci_setup.c tests/fakes/fake_pci.c kernel/pci_setup.c kernel/pci_window.c boot/memmap.c \
	arch/x86_64/mm/mem_range.c \
	kernel/virtio_probe.c drivers/pci/pci.c drivers/virtio/virtio_pci.c drivers/virtio/virtio.c \
	$(DRIVER_SUPPORT_SRCS) $(PVIO_HOST_SRCS)
