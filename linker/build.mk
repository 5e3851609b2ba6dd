# Link script of the UEFI image (see sluice-efi.lds for the layout rules).
LINKER_SCRIPT := linker/sluice-efi.lds
