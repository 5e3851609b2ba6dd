/* SPDX-License-Identifier: MIT */
/*
 * dma_errors.h - error codes of the Sluice DMA layer.
 *
 * A freestanding build has no errno, so every function returns 0 or one of these
 * negative codes. The values mirror Linux/POSIX errno numbers so that a log line
 * reads the same on every platform.
 */
#ifndef SLUICE_DMA_ERRORS_H
#define SLUICE_DMA_ERRORS_H

#ifdef __cplusplus
extern "C" {
#endif

/**
 * enum sluice_dma_err - negative return codes.
 * @SLUICE_DMA_OK: success.
 * @SLUICE_DMA_ERR_PERM: the operation is not allowed in this state (e.g. sync on a
 *	direction the mapping does not have).
 * @SLUICE_DMA_ERR_NOENT: the address is not a live mapping / allocation.
 * @SLUICE_DMA_ERR_IO: the platform failed a conversion.
 * @SLUICE_DMA_ERR_NOMEM: the pool or arena is full (a runtime condition, counted).
 * @SLUICE_DMA_ERR_FAULT: an address lies outside memory the layer controls.
 * @SLUICE_DMA_ERR_BUSY: the object is still in use.
 * @SLUICE_DMA_ERR_INVAL: an argument is invalid (zero length, bad mask, ...).
 * @SLUICE_DMA_ERR_RANGE: a length or address exceeds the tag's limits.
 * @SLUICE_DMA_ERR_NOSYS: the operation needs an optional port op the platform did
 *	not provide (set_access for sluice_dma_set_access(), cycles for
 *	profiling), or an optional in-place region callback (alloc for large
 *	coherent memory), or a bounce policy this build of the library left out
 *	(make lib SLUICE_DMA_POLICIES=...).
 *
 * Every function that returns an int returns 0 or one of these; dma/README.md
 * ("What the API offers firmware", Errors) and dma/PORTING.md say which are
 * run-time conditions (NOMEM, IO) and which are the caller's mistakes (INVAL,
 * NOENT, PERM, RANGE).
 */
enum sluice_dma_err {
	SLUICE_DMA_OK = 0,
	SLUICE_DMA_ERR_PERM = -1,
	SLUICE_DMA_ERR_NOENT = -2,
	SLUICE_DMA_ERR_IO = -5,
	SLUICE_DMA_ERR_NOMEM = -12,
	SLUICE_DMA_ERR_FAULT = -14,
	SLUICE_DMA_ERR_BUSY = -16,
	SLUICE_DMA_ERR_INVAL = -22,
	SLUICE_DMA_ERR_RANGE = -34,
	SLUICE_DMA_ERR_NOSYS = -38,
};

/**
 * sluice_dma_strerror() - a short English description of an error code.
 * @err: 0 or a SLUICE_DMA_ERR_* value (either sign is accepted: firmware that
 *	negates errno-style codes gets the same text).
 *
 * For log lines; the text is not part of the API and may change. Callable
 * from any context (it touches no state).
 *
 * Return: a static string; "unknown error" for a value that is no code.
 */
const char *sluice_dma_strerror(int err);

#ifdef __cplusplus
}
#endif

#endif /* SLUICE_DMA_ERRORS_H */
