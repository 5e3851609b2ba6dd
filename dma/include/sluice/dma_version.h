/* SPDX-License-Identifier: MIT */
/*
 * sluice/dma_version.h - version of the Sluice DMA library's API.
 *
 * The macros are the version of the headers a program was compiled against;
 * sluice_dma_version() is the version of the library it was linked with. A
 * program that wants to be sure the two agree compares them at start-up:
 * the ABI (struct layouts, metadata sizes) holds within one major.minor, so
 * sluice_dma_version() >> 8 must equal SLUICE_DMA_VERSION >> 8. dma/README.md,
 * "Versions and compatibility", says what each part of the number promises.
 */
#ifndef SLUICE_DMA_VERSION_H
#define SLUICE_DMA_VERSION_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SLUICE_DMA_VERSION_MAJOR 0
#define SLUICE_DMA_VERSION_MINOR 10
#define SLUICE_DMA_VERSION_PATCH 0

/**
 * SLUICE_DMA_VERSION_ENCODE() - one comparable number for a version.
 * @major: major version (0 .. 255).
 * @minor: minor version (0 .. 255).
 * @patch: patch level (0 .. 255).
 */
#define SLUICE_DMA_VERSION_ENCODE(major, minor, patch) \
	(((uint32_t)(major) << 16) | ((uint32_t)(minor) << 8) | (uint32_t)(patch))

/* The version of these headers, encoded; compare with sluice_dma_version(). */
#define SLUICE_DMA_VERSION                                                            \
	SLUICE_DMA_VERSION_ENCODE(SLUICE_DMA_VERSION_MAJOR, SLUICE_DMA_VERSION_MINOR, \
				  SLUICE_DMA_VERSION_PATCH)

/**
 * sluice_dma_version() - the version of the library linked into the program.
 *
 * A static library is linked with whatever headers the build found; this is
 * how a program (or a port's start-up check) learns whether those were the
 * library's own. Callable at any time, from any context.
 *
 * Return: SLUICE_DMA_VERSION as the library was compiled.
 */
uint32_t sluice_dma_version(void);

#ifdef __cplusplus
}
#endif

#endif /* SLUICE_DMA_VERSION_H */
