# Sources of the DMA library (freestanding; also built as build/libsluice-dma.a).
DMA_SRCS :=
