# Sources of the DMA library (freestanding; also built as build/libsluice-dma.a).
DMA_SRCS := dma/bounce.c dma/bounce_linux.c dma/bounce_bitmap.c dma/bounce_lifo.c \
	dma/bounce_sluice.c dma/map.c dma/stats.c dma/arena.c dma/version.c dma/strerror.c
