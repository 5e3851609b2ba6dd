# Host test that replays the fuzz targets' seed corpora and crash reproducers
# (tests/fuzz/corpus/, tests/fuzz/regressions/) through the targets' own code,
# plainly and under ASan+UBSan, with gcc and no libFuzzer; see tests/fuzz.mk.
HOST_TESTS += test_fuzz_regressions
test_fuzz_regressions_SRCS := tests/test_fuzz_regressions.c tests/fuzz/fuzz_common.c \
	tests/fuzz/fuzz_net.c tests/fuzz/fuzz_blk.c tests/fuzz/fuzz_virtqueue_used.c tests/fuzz/fuzz_virtio_pci_caps.c \
	tests/fuzz/fuzz_virtio_blk_completion.c tests/fuzz/fuzz_virtio_net_rx.c \
	tests/fuzz/fuzz_virtio_net_mq.c tests/fuzz/fuzz_virtio_reset.c tests/fuzz/fuzz_dma_ops.c \
	tests/fuzz/fuzz_pci_setup.c tests/fake_pci.c kernel/pci_setup.c kernel/pci_window.c boot/memmap.c \
	arch/x86_64/mm/mem_range.c tests/mock_port.c tests/fake_virtio.c $(DMA_SRCS) \
	drivers/virtio/virtqueue.c \
	drivers/pci/pci.c drivers/virtio/virtio.c drivers/virtio/virtio_pci.c \
	drivers/virtio/virtio_blk.c drivers/virtio/virtio_net.c $(DRIVER_SUPPORT_SRCS) $(PVIO_HOST_SRCS)
# The harness's wrappers of the layer's allocating calls (tests/fuzz/fuzz_common.c),
# and fuzz_pci_setup's of printf and pci_enumerate (they pass through for the others).
test_fuzz_regressions_LDFLAGS := $(FUZZ_LDFLAGS_WRAP) $(FUZZ_PCI_SETUP_WRAP)
# Replayed inputs are read at run time; the binaries depend on the sources only.
