# tests/paging.mk - host test of the x86_64 page-table code (arch/x86_64/mm/paging.c).
# Included by the top Makefile, which builds each HOST_TESTS entry from its _SRCS
# with CMocka, plainly and under ASan/UBSan.
HOST_TESTS += test_paging
test_paging_SRCS := tests/test_paging.c tests/fake_pt.c arch/x86_64/mm/paging.c
# The TDX guest protocol against the model of the TDX module and the VMM.
HOST_TESTS += test_tdx
test_tdx_SRCS := tests/test_tdx.c arch/x86_64/cc/tdx.c arch/x86_64/cc/tdx_model.c
# The TD's paravirtual I/O backend against the same model.
HOST_TESTS += test_pvio_tdx
test_pvio_tdx_SRCS := tests/test_pvio_tdx.c arch/x86_64/cc/pvio_tdx.c arch/x86_64/cc/tdx.c \
	arch/x86_64/cc/tdx_model.c $(PVIO_HOST_SRCS)
