# tests/snp.mk - host tests of the AMD SEV-SNP guest protocol (arch/x86_64/cc/snp.c,
# ghcb.c) and its paravirtual I/O backend (pvio_snp.c) against the model of the
# RMP and the hypervisor (snp_model.c). Included by the top Makefile, which builds
# each HOST_TESTS entry plainly and under ASan/UBSan.
SNP_HOST_SRCS := arch/x86_64/cc/snp.c arch/x86_64/cc/ghcb.c arch/x86_64/cc/snp_model.c
HOST_TESTS += test_snp
test_snp_SRCS := tests/test_snp.c tests/snp_env.c $(SNP_HOST_SRCS)
# The SNP guest's paravirtual I/O backend against the same model.
HOST_TESTS += test_pvio_snp
test_pvio_snp_SRCS := tests/test_pvio_snp.c tests/snp_env.c arch/x86_64/cc/pvio_snp.c \
	$(SNP_HOST_SRCS) $(PVIO_HOST_SRCS)
# What the guest checks at kernel entry: the CC blob, the firmware's GHCB, VMPL0,
# and the GHCB set-up in the boot's steps.
HOST_TESTS += test_snp_boot
test_snp_boot_SRCS := tests/test_snp_boot.c tests/snp_env.c arch/x86_64/cc/snp_boot.c \
	arch/x86_64/cc/pvio_snp.c arch/x86_64/mm/mem_range.c $(SNP_HOST_SRCS) $(PVIO_HOST_SRCS)
