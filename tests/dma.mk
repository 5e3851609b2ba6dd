# Host tests and benches of the DMA mapping layer and bounce pools (dma/).
HOST_TESTS += test_bounce test_map
test_bounce_SRCS := tests/test_bounce.c tests/mock_port.c $(DMA_SRCS)
test_map_SRCS := tests/test_map.c tests/mock_port.c $(DMA_SRCS)
HOST_BENCHES += bench_alloc
bench_alloc_SRCS := tests/bench_alloc.c tests/mock_port.c $(DMA_SRCS)
