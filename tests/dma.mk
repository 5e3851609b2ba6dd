# Host tests and benches of the DMA mapping layer and bounce pools (dma/).
HOST_TESTS += test_bounce test_map
test_bounce_SRCS := tests/test_bounce.c tests/mock_port.c $(DMA_SRCS)
test_map_SRCS := tests/test_map.c tests/mock_port.c $(DMA_SRCS)
# Every exported function of dma/ with each kind of bad argument, from one table.
HOST_TESTS += test_bad_args
test_bad_args_SRCS := tests/test_bad_args.c tests/mock_port.c $(DMA_SRCS)
# Promises of dma.h and arena.h for every kind of handle: foreign and interior
# handles, coherent memory of any alignment, RANGE, teardown of every kind.
HOST_TESTS += test_promises
test_promises_SRCS := tests/test_promises.c tests/mock_port.c $(DMA_SRCS)
# What firmware stacks expect: scatter-gather, partial and read-only maps, cache
# maintenance, large coherent memory, teardown, the error model (dma/README.md,
# "What the API offers firmware").
HOST_TESTS += test_features
test_features_SRCS := tests/test_features.c tests/mock_port.c $(DMA_SRCS)
# The sluice policy's per-CPU caches without locks (SLUICE_DMA_PORT_CPU_EXCLUSIVE).
# The linux policy's slot choices against an independent model of upstream swiotlb.
HOST_TESTS += test_linux_trace
test_linux_trace_SRCS := tests/test_linux_trace.c tests/mock_port.c $(DMA_SRCS)
HOST_TESTS += test_sluice_cache
test_sluice_cache_SRCS := tests/test_sluice_cache.c tests/mock_port.c $(DMA_SRCS)
# The stage markers of dma/stage.h, each on the path where the breakdown says
# (counts per stage of one map + unmap; a dropped marker fails it).
HOST_TESTS += test_stages
test_stages_SRCS := tests/test_stages.c bench/host/bench_stages.c tests/mock_port.c $(DMA_SRCS)
test_stages_CFLAGS := -DSLUICE_DMA_STAGES
