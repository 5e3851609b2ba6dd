# Host tests of the workload helpers in bench/.
HOST_TESTS += test_cksum
test_cksum_SRCS := tests/test_cksum.c app/cksum.c
HOST_TESTS += test_iotlb
test_iotlb_SRCS := tests/test_iotlb.c bench/iotlb.c
