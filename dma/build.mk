# Sources of the DMA library (freestanding; also built as build/libsluice-dma.a).
# What every object of the library shares: the one log/trap path, the error strings, the version.
DMA_COMMON_SRCS := dma/log.c dma/strerror.c dma/version.c
# The 2 MB shared arena (it needs nothing from the layer: tests/arena.mk builds it alone).
DMA_ARENA_SRCS := dma/arena.c dma/arena_buddy.c dma/arena_stats.c dma/arena_check.c
DMA_SRCS := $(DMA_COMMON_SRCS) dma/bits.c dma/bounce.c dma/bounce_linux.c dma/bounce_bitmap.c \
	dma/bounce_lifo.c dma/bounce_sluice.c dma/map.c dma/stats.c $(DMA_ARENA_SRCS)
