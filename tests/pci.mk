# Host tests of PCI enumeration and capability walking.
HOST_TESTS += test_pci
test_pci_SRCS := tests/test_pci.c drivers/pci/pci.c drivers/virtio/virtio_pci.c \
	$(DRIVER_SUPPORT_SRCS) $(PVIO_HOST_SRCS)
HOST_TESTS += test_virtio
test_virtio_SRCS := tests/test_virtio.c tests/fake_virtio.c drivers/virtio/virtio.c
