/* SPDX-License-Identifier: MIT */
/*
 * pvio.c - which paravirtual I/O backend is in use (see pvio.h).
 */
#include "arch/x86_64/cc/pvio.h"

const struct pvio_ops *pvio = &pvio_native;

void pvio_select(const struct pvio_ops *ops)
{
	pvio = ops;
}

void pvio_stop(void)
{
	for (;;)
		pvio_halt(false);
}
