# The UEFI stage (the only GNU-EFI user): the entry, the memory map, the options it
# reads and trusts before it reserves memory, and the hand-over (boot_info.h).
KERNEL_SRCS += \
	boot/efi_entry.c \
	boot/options.c \
	boot/options_trust.c
KERNEL_SRCS += boot/memmap.c

# Options built into the image (make image BUILTIN_OPTIONS="scrub=copy ..."): measured
# with it, they are the only source that may weaken a guarantee in a confidential
# guest (boot/options_trust.c); sluice.cfg on the boot volume is the host's.
BUILTIN_OPTIONS ?=
$(BUILD)/builtin_options: FORCE
	@mkdir -p $(BUILD); echo '$(BUILTIN_OPTIONS)' | cmp -s - $@ || echo '$(BUILTIN_OPTIONS)' > $@
$(BUILD)/kernel/boot/efi_entry.c.o: $(BUILD)/builtin_options
$(BUILD)/kernel/boot/efi_entry.c.o: KERNEL_CFLAGS += -DSLUICE_BUILTIN_OPTIONS='"$(BUILTIN_OPTIONS)"'
