# tests/bench/bench.mk - host tests of the benchmarks' helpers (bench/): the IOTLB model.
HOST_TESTS += test_iotlb
test_iotlb_SRCS := tests/bench/test_iotlb.c bench/iotlb.c
