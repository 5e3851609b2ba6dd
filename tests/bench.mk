# Host tests of the workload helpers in bench/.
HOST_TESTS += test_cksum
test_cksum_SRCS := tests/test_cksum.c bench/cksum.c
