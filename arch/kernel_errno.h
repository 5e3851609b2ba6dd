/* SPDX-License-Identifier: MIT */
/*
 * kernel_errno.h - the one list of the kernel's error codes (arch/, drivers/,
 * boot/, bench/ and their tests): 0 or one of these negative values. They are
 * Linux/POSIX errno numbers, as the DMA library's (<sluice/dma_errors.h>, its
 * own list: the library is built apart), so a log line reads the same on
 * both sides. It lies at the lowest floor (docs/ARCHITECTURE.md, "Floors") so
 * that every floor of the kernel can include it; it includes nothing.
 *
 * A module that names its codes (TDX_ERR_INVAL, PT_ERR_NOMEM, ...) defines
 * them as these, never as numbers: tests/names/check_names.py refuses an
 * errno value typed anywhere else. scripts/names.py reads the list.
 */
#ifndef SLUICE_ARCH_KERNEL_ERRNO_H
#define SLUICE_ARCH_KERNEL_ERRNO_H

/*
 * KERNEL_ERRORS(X) - X(NAME, value, "text") per code, one line each: the
 * enum below (KERR_<NAME> = value) and kernel_strerror() read it.
 */
/* clang-format off */
#define KERNEL_ERRORS(X) \
	X(PERM, -1, "not allowed in this state or platform") \
	X(NOENT, -2, "no such entry") \
	X(IO, -5, "the device, the host or the platform refused") \
	X(NOMEM, -12, "out of memory") \
	X(BUSY, -16, "busy: try again") \
	X(EXIST, -17, "already there") \
	X(INVAL, -22, "invalid argument") \
	X(NOSPC, -28, "no room left") \
	X(ROFS, -30, "read-only device") \
	X(RANGE, -34, "out of range") \
	X(NOTSUP, -95, "not supported") \
	X(TIMEDOUT, -110, "the device did not answer in time") \
	X(HWPOISON, -133, "failed and could not be rolled back") \
	/* end of the list: a new line goes above */
/* clang-format on */

/**
 * enum kernel_err - one KERR_<NAME> per line of KERNEL_ERRORS().
 */
enum kernel_err {
	KERR_OK = 0,
#define KERR_ENUM_(name, value, text) KERR_##name = (value),
	KERNEL_ERRORS(KERR_ENUM_)
#undef KERR_ENUM_
};

/**
 * kernel_strerror() - the text of a kernel error code, for log lines.
 * @err: 0 or a KERR_* value.
 *
 * Return: a static string; "unknown error" for a value that is no code.
 */
static inline const char *kernel_strerror(int err)
{
	switch (err) {
	case KERR_OK:
		return "success";
#define KERR_TEXT_(name, value, text) \
	case KERR_##name:             \
		return text;
		KERNEL_ERRORS(KERR_TEXT_)
#undef KERR_TEXT_
	default:
		return "unknown error";
	}
}

#endif /* SLUICE_ARCH_KERNEL_ERRNO_H */
