# tests/bench/bench.mk - host tests of the benchmarks' helpers (bench/): the IOTLB model,
# the block benchmark's rounds.
HOST_TESTS += test_iotlb
test_iotlb_SRCS := tests/bench/test_iotlb.c bench/iotlb.c
HOST_TESTS += test_rounds
test_rounds_SRCS := tests/bench/test_rounds.c bench/rounds.c
