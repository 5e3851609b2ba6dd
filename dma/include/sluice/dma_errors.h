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

/*
 * SLUICE_DMA_ERRORS(X) - the one list of the error codes: X(NAME, value,
 * "text") per code, one line each, in no particular order. The enum below
 * (SLUICE_DMA_ERR_<NAME> = value) and sluice_dma_strerror() (the text) read
 * it, and so do the scripts (scripts/names.py). A code once released keeps
 * its value.
 */
/* clang-format off */
#define SLUICE_DMA_ERRORS(X) \
	X(PERM, -1, "not allowed in this state") \
	X(NOENT, -2, "no such mapping or allocation") \
	X(IO, -5, "the platform failed a conversion or access change") \
	X(NOMEM, -12, "no room in the bounce pools or arena") \
	X(FAULT, -14, "address outside memory the library controls, or a failed self-check") \
	X(BUSY, -16, "still in use") \
	X(INVAL, -22, "invalid argument") \
	X(RANGE, -34, "beyond the device's or the layer's limits") \
	X(NOSYS, -38, "not provided by the port or by this build of the library") \
	/* end of the list: a new line goes above */
/* clang-format on */

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
#define SLUICE_DMA_ERR_ENUM_(name, value, text) SLUICE_DMA_ERR_##name = (value),
	SLUICE_DMA_ERRORS(SLUICE_DMA_ERR_ENUM_)
#undef SLUICE_DMA_ERR_ENUM_
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
