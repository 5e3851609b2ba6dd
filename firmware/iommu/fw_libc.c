/* SPDX-License-Identifier: MIT */
/*
 * fw_libc.c - the one C library function the DMA library needs that GNU-EFI's
 * libefi does not provide (it has memcpy and memset). The firmware images link
 * no newlib.
 */
#include <stddef.h>

int memcmp(const void *a, const void *b, size_t n);

int memcmp(const void *a, const void *b, size_t n)
{
	const unsigned char *x = a, *y = b;

	for (size_t i = 0; i < n; i++)
		if (x[i] != y[i])
			return x[i] < y[i] ? -1 : 1;
	return 0;
}
