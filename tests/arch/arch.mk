# tests/arch/arch.mk - host tests of arch/x86_64/'s platform-free parts. Included by the
# top Makefile, which builds each HOST_TESTS entry from its _SRCS with CMocka, plainly
# and under ASan/UBSan.
# The page-table code (arch/x86_64/mm/paging.c).
HOST_TESTS += test_paging
test_paging_SRCS := tests/arch/test_paging.c tests/fakes/fake_pt.c arch/x86_64/mm/paging.c
# The TDX guest protocol against the model of the TDX module and the VMM.
HOST_TESTS += test_tdx
test_tdx_SRCS := tests/arch/test_tdx.c arch/x86_64/cc/tdx.c arch/x86_64/cc/tdx_model.c
# The TD's paravirtual I/O backend against the same model.
HOST_TESTS += test_pvio_tdx
test_pvio_tdx_SRCS := tests/arch/test_pvio_tdx.c arch/x86_64/cc/pvio_tdx.c arch/x86_64/cc/tdx.c \
	arch/x86_64/cc/tdx_model.c $(PVIO_HOST_SRCS)
# The the kernel map's W^X policy (arch/x86_64/mm/kmap.c over
# arch/x86_64/mm/paging.c): NX on all but the text, read-only text, conversions and the
# start-up page switch that never make a page writable and executable.
HOST_TESTS += test_kmap
test_kmap_SRCS := tests/arch/test_kmap.c tests/fakes/fake_pt.c arch/x86_64/mm/kmap.c arch/x86_64/mm/paging.c
# The AMD SEV-SNP guest protocol (arch/x86_64/cc/snp.c, ghcb.c) and its paravirtual
# I/O backend (pvio_snp.c) against the model of the RMP and the hypervisor
# (snp_model.c).
SNP_HOST_SRCS := arch/x86_64/cc/snp.c arch/x86_64/cc/ghcb.c arch/x86_64/cc/snp_model.c
HOST_TESTS += test_snp
test_snp_SRCS := tests/arch/test_snp.c tests/fakes/snp_env.c $(SNP_HOST_SRCS)
# The SNP guest's paravirtual I/O backend against the same model.
HOST_TESTS += test_pvio_snp
test_pvio_snp_SRCS := tests/arch/test_pvio_snp.c tests/fakes/snp_env.c arch/x86_64/cc/pvio_snp.c \
	$(SNP_HOST_SRCS) $(PVIO_HOST_SRCS)
# What the guest checks at kernel entry: the CC blob, the firmware's GHCB, VMPL0,
# and the GHCB set-up in the boot's steps.
HOST_TESTS += test_snp_boot
test_snp_boot_SRCS := tests/arch/test_snp_boot.c tests/fakes/snp_env.c arch/x86_64/cc/snp_boot.c \
	arch/x86_64/cc/pvio_snp.c arch/x86_64/mm/mem_range.c $(SNP_HOST_SRCS) $(PVIO_HOST_SRCS)
# ACPI tables (FADT, MCFG, MADT) and the simulated TDVF's, CPU and CC detection.
HOST_TESTS += test_acpi test_cpu
test_acpi_SRCS := tests/arch/test_acpi.c arch/x86_64/fw/acpi.c arch/x86_64/cc/sim_tdvf.c \
	arch/x86_64/mm/mem_range.c
test_cpu_SRCS := tests/arch/test_cpu.c arch/x86_64/cpu/cpu.c $(PVIO_HOST_SRCS)
# The bounce copies and clears, and the start-up choice between them by timing.
HOST_TESTS += test_memops
test_memops_SRCS := tests/arch/test_memops.c arch/x86_64/cpu/memops.c arch/x86_64/cpu/cpu.c \
	$(PVIO_HOST_SRCS)
# The CC platforms' one interface (arch/x86_64/cc/cc.h):
# the list, the ops of every platform, the cc= option built from the list, the
# choice at kernel entry. The platforms' files are linked as in the kernel; the
# kernel services they call are faked (tests/fakes/cc_kernel_fakes.c).
CC_PLATFORM_HOST_SRCS := arch/x86_64/cc/cc.c arch/x86_64/cc/cc_emulated.c \
	arch/x86_64/cc/cc_tdx.c arch/x86_64/cc/cc_snp.c arch/x86_64/cc/cc_sim_tdx.c \
	arch/x86_64/cc/cc_sim_snp.c arch/x86_64/cc/sim_ap_firmware.c arch/x86_64/cc/tdx.c \
	arch/x86_64/cc/tdx_model.c arch/x86_64/cc/snp.c arch/x86_64/cc/snp_model.c \
	arch/x86_64/cc/ghcb.c arch/x86_64/cc/pvio_snp.c arch/x86_64/cc/pvio_tdx.c \
	arch/x86_64/cc/snp_boot.c arch/x86_64/cc/tee_insn.c arch/x86_64/mm/mem_range.c
HOST_TESTS += test_cc_platforms
test_cc_platforms_SRCS := tests/arch/test_cc_platforms.c tests/fakes/cc_kernel_fakes.c boot/options.c \
	boot/options_trust.c $(CC_PLATFORM_HOST_SRCS) $(PVIO_HOST_SRCS)
