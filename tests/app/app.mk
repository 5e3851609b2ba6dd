# tests/app/app.mk - host tests of the application's helpers (app/): cksum.
HOST_TESTS += test_cksum
test_cksum_SRCS := tests/app/test_cksum.c app/cksum.c
