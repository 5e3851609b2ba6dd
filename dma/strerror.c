/* SPDX-License-Identifier: MIT */
/*
 * strerror.c - text of the library's error codes (see <sluice/dma_errors.h>).
 * A table, not a formatter: firmware logs it as is, from any context. The
 * texts are those of the list, SLUICE_DMA_ERRORS().
 */
#include <sluice/dma_errors.h>

const char *sluice_dma_strerror(int err)
{
	/* Either sign: some firmware negates errno-style codes before logging. */
	switch (err < 0 ? -err : err) {
	case 0:
		return "success";
#define DMA_ERR_TEXT(name, value, text) \
	case -(value):                  \
		return text;
		SLUICE_DMA_ERRORS(DMA_ERR_TEXT)
#undef DMA_ERR_TEXT
	default:
		return "unknown error";
	}
}
