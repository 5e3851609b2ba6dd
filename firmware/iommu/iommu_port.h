/* SPDX-License-Identifier: MIT */
/*
 * iommu_port.h - the DMA library's port inside the sluice-iommu UEFI driver.
 *
 * The driver runs in a plain (non-confidential) OVMF guest, so the conversions
 * are emulated, as the kernel's emulated confidential platform does them: every
 * range the library makes shared is recorded page-exactly (all or nothing), a
 * range converted twice or converted back with other bounds is refused and
 * counted, and the driver asks iommu_port_is_shared() before it hands a device
 * address to a device. In a TD or an SEV-SNP guest these two ops would call the
 * firmware's own conversion code (OvmfPkg/Library/BaseMemEncryptTdxLib,
 * BaseMemEncryptSevLib in tianocore/edk2); nothing else of the port changes.
 * Bus addresses are the identity (OVMF's root bridge uses no translation).
 * Locks: UEFI runs the driver on the boot CPU only, so a lock is the TPL. With
 * @raise_tpl set, the library's lock raises the TPL to TPL_NOTIFY and returns
 * the TPL it found as its save word; unlock restores that TPL (gBS->RaiseTPL /
 * RestoreTPL, what EDK2 code does around its own critical sections). The driver
 * also holds TPL_NOTIFY around each whole protocol call, for its own state.
 *
 * This file is free of UEFI headers so that tests/firmware/test_iommu_port.c runs it
 * on the host.
 */
#ifndef SLUICE_FIRMWARE_IOMMU_PORT_H
#define SLUICE_FIRMWARE_IOMMU_PORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sluice/dma_port.h>

/* Shared ranges tracked at once: pools (one per layer) and arena chunks. */
#define IOMMU_PORT_MAX_RANGES 64

/**
 * struct iommu_port - the emulated platform behind the ops.
 * @range: the shared ranges, [start, end) in bytes, unsorted.
 * @nranges: entries used.
 * @pages_shared: 4 KiB pages shared now.
 * @to_shared: successful set_shared calls.
 * @to_private: successful set_private calls.
 * @refused: conversions refused (overlap, unknown range, table full).
 * @log: where library messages go (the driver prints them); may be NULL.
 * @log_ctx: first argument of @log.
 * @raise_tpl: optional: raise the TPL to TPL_NOTIFY, return the previous TPL
 *	(with @restore_tpl, the port's lock and unlock ops).
 * @restore_tpl: go back to TPL @old.
 * @tpl_ctx: first argument of @raise_tpl and @restore_tpl.
 * @lock_holds: library locks taken.
 */
struct iommu_port {
	struct {
		uint64_t start, end;
	} range[IOMMU_PORT_MAX_RANGES];
	unsigned int nranges;
	uint64_t pages_shared;
	uint64_t to_shared;
	uint64_t to_private;
	uint64_t refused;
	void (*log)(void *log_ctx, enum sluice_dma_log_level level, const char *msg);
	void *log_ctx;
	uint64_t (*raise_tpl)(void *tpl_ctx);
	void (*restore_tpl)(void *tpl_ctx, uint64_t old);
	void *tpl_ctx;
	uint64_t lock_holds;
};

/**
 * iommu_port_ops() - the ops table for a layer or an arena on @port.
 * @port: zeroed state (its @log may be set).
 * Return: the table (ctx = @port): set_shared, set_private, virt_to_dma,
 * dma_to_virt, cycles (the TSC), log, copy and zero (rep movsb / rep stosb on
 * x86-64), flags SLUICE_DMA_PORT_CPU_EXCLUSIVE (one CPU, no nesting); lock and
 * unlock when @port->raise_tpl and @port->restore_tpl are set.
 */
struct sluice_dma_port_ops iommu_port_ops(struct iommu_port *port);

/**
 * iommu_port_is_shared() - whether every byte of [@addr, @addr + @len) lies in
 *	one range the library made shared.
 * @port: the port.
 * @addr: device (= CPU) address.
 * @len: bytes (> 0).
 * Return: true if the whole range is shared.
 */
bool iommu_port_is_shared(const struct iommu_port *port, uint64_t addr, uint64_t len);

#endif /* SLUICE_FIRMWARE_IOMMU_PORT_H */
