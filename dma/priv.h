/* SPDX-License-Identifier: MIT */
/*
 * priv.h - what every file of dma/ shares, whatever object it implements
 * (the layer, the bounce pools, the arena): the marker of library-internal
 * symbols and the only three libc functions the library calls. Not a public
 * header.
 *
 * Naming rule of the library (see dma/README.md, "The library on its own"): the public
 * API is sluice_dma_* / struct sluice_dma_* / SLUICE_DMA_* in
 * dma/include/sluice/. A function or object that one file of dma/ defines
 * and another uses is named sluice_dma_priv_* and declared with
 * SLUICE_DMA_PRIV (hidden visibility): it stays in the library's namespace in
 * a static archive, and a shared object built from the library does not
 * export it. Everything else private is static to its file, or a static
 * inline helper or macro of an internal header, which no embedder's
 * translation unit ever sees (hence their short dma_ / DMA_ names). The
 * internal prefix is sluice_dma_priv_, not sluice_dma__: the public headers
 * are also compiled as C++, where any identifier containing "__" is reserved.
 */
#ifndef SLUICE_DMA_PRIV_H
#define SLUICE_DMA_PRIV_H

#include <stddef.h>

/* Declares a symbol shared between the library's files but not part of its API. */
#define SLUICE_DMA_PRIV __attribute__((visibility("hidden")))

/* The size every per-CPU structure is padded to, so that CPUs never share a line. */
#define DMA_CACHELINE 64

/* The library needs nothing from libc but these three. */
void *memcpy(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);

#endif /* SLUICE_DMA_PRIV_H */
