/* SPDX-License-Identifier: MIT */
/*
 * dma_modes.h - the one list of the kernel's DMA modes, the ways I/O buffers
 * reach a device. enum kernel_dma_mode, the modes= option, the boot report,
 * kernel_dma_mode_name() and the scripts (scripts/names.py) read it.
 *
 * direct: no confidential computing: buffers are used in place (the plain-VM
 *	baseline). The layer's in-place hook owns all memory.
 * bounce: every buffer bounces through a pool (Linux swiotlb=force), once per
 *	bounce policy (<sluice/dma_policies.h>).
 * arena:  buffers come from the 2 MB shared arena and map in place.
 */
#ifndef SLUICE_BOOT_DMA_MODES_H
#define SLUICE_BOOT_DMA_MODES_H

/*
 * KERNEL_DMA_MODES(X) - X(UPPER, lower) per mode, in the order of enum
 * kernel_dma_mode (KDMA_<UPPER>) and of the bits of modes=. One line each:
 * scripts read them as text.
 */
/* clang-format off */
#define KERNEL_DMA_MODES(X) \
	X(DIRECT, direct) \
	X(BOUNCE, bounce) \
	X(ARENA, arena) \
	/* end of the list: a new line goes above */
/* clang-format on */

/**
 * enum kernel_dma_mode - one KDMA_<UPPER> per line of KERNEL_DMA_MODES().
 * @KDMA_NMODES: number of modes.
 */
enum kernel_dma_mode {
#define KDMA_MODE_ENUM_(upper, lower) KDMA_##upper,
	KERNEL_DMA_MODES(KDMA_MODE_ENUM_)
#undef KDMA_MODE_ENUM_
		KDMA_NMODES
};

#endif /* SLUICE_BOOT_DMA_MODES_H */
