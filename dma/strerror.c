/* SPDX-License-Identifier: MIT */
/*
 * strerror.c - text of the library's error codes (see <sluice/dma_errors.h>).
 * A table, not a formatter: firmware logs it as is, from any context.
 */
#include <sluice/dma_errors.h>

const char *sluice_dma_strerror(int err)
{
	/* Either sign: some firmware negates errno-style codes before logging. */
	switch (err < 0 ? -err : err) {
	case 0:
		return "success";
	case -SLUICE_DMA_ERR_PERM:
		return "not allowed in this state";
	case -SLUICE_DMA_ERR_NOENT:
		return "no such mapping or allocation";
	case -SLUICE_DMA_ERR_IO:
		return "the platform failed a conversion or access change";
	case -SLUICE_DMA_ERR_NOMEM:
		return "no room in the bounce pools or arena";
	case -SLUICE_DMA_ERR_FAULT:
		return "address outside memory the library controls, or a failed self-check";
	case -SLUICE_DMA_ERR_BUSY:
		return "still in use";
	case -SLUICE_DMA_ERR_INVAL:
		return "invalid argument";
	case -SLUICE_DMA_ERR_RANGE:
		return "beyond the device's or the layer's limits";
	case -SLUICE_DMA_ERR_NOSYS:
		return "not provided by the port or by this build of the library";
	default:
		return "unknown error";
	}
}
