# tests/cc.mk - host tests of the CC platforms' one interface (arch/x86_64/cc/cc.h):
# the list, the ops of every platform, the cc= option built from the list, the
# choice at kernel entry. The platforms' files are linked as in the kernel; the
# kernel services they call are faked (tests/cc_kernel_fakes.c).
CC_PLATFORM_HOST_SRCS := arch/x86_64/cc/cc.c arch/x86_64/cc/cc_emulated.c \
	arch/x86_64/cc/cc_tdx.c arch/x86_64/cc/cc_snp.c arch/x86_64/cc/cc_sim_tdx.c \
	arch/x86_64/cc/cc_sim_snp.c arch/x86_64/cc/sim_ap_firmware.c arch/x86_64/cc/tdx.c \
	arch/x86_64/cc/tdx_model.c arch/x86_64/cc/snp.c arch/x86_64/cc/snp_model.c \
	arch/x86_64/cc/ghcb.c arch/x86_64/cc/pvio_snp.c arch/x86_64/cc/pvio_tdx.c \
	arch/x86_64/cc/snp_boot.c arch/x86_64/cc/tee_insn.c arch/x86_64/mm/mem_range.c
HOST_TESTS += test_cc_platforms
test_cc_platforms_SRCS := tests/test_cc_platforms.c tests/cc_kernel_fakes.c boot/options.c \
	boot/options_trust.c $(CC_PLATFORM_HOST_SRCS) $(PVIO_HOST_SRCS)
