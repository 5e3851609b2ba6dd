# tests/paging.mk - host test of the x86_64 page-table code (arch/x86_64/paging.c).
# Included by the top Makefile, which builds each HOST_TESTS entry from its _SRCS
# with CMocka, plainly and under ASan/UBSan.
HOST_TESTS += test_paging
test_paging_SRCS := tests/test_paging.c arch/x86_64/paging.c
