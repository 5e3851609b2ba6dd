/* SPDX-License-Identifier: MIT */
/*
 * dma_policies.h - the one list of bounce policies: how a bounce pool finds
 * free slots. Everything that names a policy reads this list: the enum of
 * <sluice/dma.h>, the library's name and dispatch tables (dma/bounce.c), its
 * build (dma/build.mk: which files, `make lib SLUICE_DMA_POLICIES=...`), the
 * kernel's policies= option and boot report, the tests and the scripts
 * (scripts/names.py).
 *
 * It is public because the enum is: a caller names a policy by its enum value,
 * and the value is the policy's position here. Append a new policy at the end:
 * the released values (linux 0, bitmap 1, lifo 2, sluice 3) never change.
 * Adding one is this line, its file dma/bounce_<lower>.c (defining
 * sluice_dma_priv_bounce_<lower>_ops) and its test (the contributor guide,
 * "Adding a bounce policy"); tests/names/add_policy.sh proves that count.
 *
 * The policies, in order:
 * linux:  upstream Linux swiotlb: per-slot free counters in 128-slot segments,
 *	next-fit index per area, per-area locks.
 * bitmap: as patch 1 of Chao Gao's swiotlb RFC v2 (LKML, 2022, "swiotlb: use
 *	bitmap to track free slots"): one bit per slot, same search order.
 * lifo:   as patches 1 and 2 of that series ("swiotlb: Allocate memory in a
 *	cache-friendly way"): bitmap plus a per-area LIFO free list.
 * sluice: ours: per-CPU caches of 1- and 2-slot runs and of a few recently
 *	freed longer runs, in front of per-area bitmaps scanned a word at a
 *	time; mappings up to an area.
 */
#ifndef SLUICE_DMA_POLICIES_H
#define SLUICE_DMA_POLICIES_H

/**
 * SLUICE_DMA_POLICIES() - call @X(UPPER, lower) once per bounce policy, in
 *	the order of enum sluice_dma_bounce_policy.
 * @X: a macro of two arguments: UPPER names the enum value
 *	(SLUICE_DMA_POLICY_##UPPER), lower is the policy's name (stringify it
 *	with #lower) and its file (dma/bounce_<lower>.c).
 *
 * @X must stringify or paste lower directly, never hand it on to another
 * macro: in GNU C mode `linux` is itself a predefined macro (it expands to 1).
 * One line per policy, X(UPPER, lower) and nothing else on it: make and the
 * scripts read these lines as text.
 */
/* clang-format off */
#define SLUICE_DMA_POLICIES(X) \
	X(LINUX, linux) \
	X(BITMAP, bitmap) \
	X(LIFO, lifo) \
	X(SLUICE, sluice) \
	/* end of the list: a new line goes above */
/* clang-format on */

#endif /* SLUICE_DMA_POLICIES_H */
