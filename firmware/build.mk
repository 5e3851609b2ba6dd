# The firmware drivers: UEFI boot-services drivers built with GNU-EFI from the DMA
# library (its own objects, compiled for the UEFI ABI) and GNU-EFI's libefi, without
# newlib. build/sluice-iommu.efi installs EDKII_IOMMU_PROTOCOL (firmware/iommu/).
FW_IOMMU_SRCS := firmware/iommu/iommu_driver.c firmware/iommu/iommu_thunks.c \
	firmware/iommu/iommu_setup.c firmware/iommu/iommu_port.c firmware/iommu/edk2_iommu.c \
	firmware/iommu/fw_libc.c
# Test applications of the firmware e2e tests (tests/e2e/firmware_iommu.sh).
FW_APP_SRCS := tests/firmware/iommu_app.c

FW_CFLAGS := -std=gnu11 -O2 -g $(WARN) -ffreestanding -fno-stack-protector -fno-stack-check \
	-mno-red-zone -fpic -fshort-wchar -fno-strict-aliasing -I. -I$(DMA_INC) $(EFI_CFLAGS)
FW_LIBS := $(EFI_LIB)/libefi.a $(EFI_LIB)/libgnuefi.a $(LIBGCC)

fw_objs = $(patsubst %,$(BUILD)/firmware/%.o,$(1))
FW_IOMMU_OBJS := $(call fw_objs,$(FW_IOMMU_SRCS) $(DMA_SRCS))
FW_APP_OBJS := $(call fw_objs,$(FW_APP_SRCS) firmware/iommu/fw_libc.c)

$(BUILD)/firmware/%.c.o: %.c
	@mkdir -p $(dir $@)
	@echo "  CC [fw] $<"
	$(Q)$(CC) $(FW_CFLAGS) -MMD -MP -c $< -o $@

# As the kernel image: linked at 0 with the same script, relocated by GNU-EFI's crt0.
$(BUILD)/firmware/%.so: $(LINKER_SCRIPT)
	@echo "  LD      $@"
	$(Q)$(LD) -nostdlib -znocombreloc -shared -Bsymbolic --no-undefined -z noexecstack \
		-T $(LINKER_SCRIPT) -o $@ $(EFI_CRT0) $(filter %.o,$^) \
		--start-group $(FW_LIBS) --end-group
$(BUILD)/firmware/sluice-iommu.so: $(FW_IOMMU_OBJS)
$(BUILD)/firmware/iommu-test.so: $(FW_APP_OBJS)

FW_OBJCOPY_SECTIONS := -j .text -j .sdata -j .data -j .dynamic -j .dynsym -j .rel -j .rela \
	-j .rel.* -j .rela.* -j .reloc
# A boot-services driver (PE subsystem 11) and an application (10).
$(BUILD)/sluice-iommu.efi: $(BUILD)/firmware/sluice-iommu.so
	@echo "  OBJCOPY $@"
	$(Q)$(OBJCOPY) $(FW_OBJCOPY_SECTIONS) --target efi-bsdrv-x86_64 --subsystem=11 $< $@
$(BUILD)/iommu-test.efi: $(BUILD)/firmware/iommu-test.so
	@echo "  OBJCOPY $@"
	$(Q)$(OBJCOPY) $(FW_OBJCOPY_SECTIONS) --target efi-app-x86_64 --subsystem=10 $< $@

FIRMWARE_IMAGES := $(BUILD)/sluice-iommu.efi $(BUILD)/iommu-test.efi
