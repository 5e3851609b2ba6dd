# The UEFI stage (the only GNU-EFI user), the kernel main, options, newlib glue.
KERNEL_SRCS += \
	boot/efi_entry.c \
	boot/main.c \
	boot/options.c \
	boot/options_trust.c \
	boot/syscalls.c
KERNEL_SRCS += boot/memmap.c
KERNEL_SRCS += boot/pci_setup.c boot/pci_window.c
KERNEL_SRCS += boot/virtio_probe.c
KERNEL_SRCS += boot/dma_setup.c boot/dma_port_kernel.c boot/dma_selftest.c boot/dma_report.c
KERNEL_SRCS += boot/cc_setup.c

# Options built into the image (make image BUILTIN_OPTIONS="scrub=copy ..."): measured
# with it, they are the only source that may weaken a guarantee in a confidential
# guest (boot/options_trust.c); sluice.cfg on the boot volume is the host's.
BUILTIN_OPTIONS ?=
$(BUILD)/builtin_options: FORCE
	@mkdir -p $(BUILD); echo '$(BUILTIN_OPTIONS)' | cmp -s - $@ || echo '$(BUILTIN_OPTIONS)' > $@
$(BUILD)/kernel/boot/efi_entry.c.o: $(BUILD)/builtin_options
$(BUILD)/kernel/boot/efi_entry.c.o: KERNEL_CFLAGS += -DSLUICE_BUILTIN_OPTIONS='"$(BUILTIN_OPTIONS)"'
