# Host test of the 2 MB shared arena (dma/arena.c); built and run by `make test`.
HOST_TESTS += test_arena
test_arena_SRCS := tests/test_arena.c tests/mock_port.c $(DMA_ARENA_SRCS) $(DMA_COMMON_SRCS)
# The build rule lists sources only; rebuild when the headers change too.
$(BUILD)/host/test_arena $(BUILD)/host-san/test_arena: dma/include/sluice/arena.h \
	dma/include/sluice/dma_port.h dma/include/sluice/dma_errors.h tests/mock_port.h
