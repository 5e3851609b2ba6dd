/* SPDX-License-Identifier: MIT */
/*
 * version.c - the run-time version query (see <sluice/dma_version.h>).
 */
#include <sluice/dma_version.h>

uint32_t sluice_dma_version(void)
{
	return SLUICE_DMA_VERSION;
}
