/* SPDX-License-Identifier: MIT */
/*
 * blk_check.h - the block data-integrity task: read the whole disk with many
 * requests in flight and print its POSIX cksum, then write a deterministic
 * pattern, in scattered order, to a region of the disk that belongs to the mode.
 * tests/e2e/blk_data.sh checks both against the disk image on the host.
 */
#ifndef SLUICE_BENCH_BLK_CHECK_H
#define SLUICE_BENCH_BLK_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "kernel/dma_setup.h"
#include "drivers/virtio/virtio_blk.h"

/**
 * blk_pattern_byte() - the byte the pattern puts at disk offset @offset for mode
 *	@mode (scripts/blk_pattern.py computes the same).
 * @offset: byte offset on the disk.
 * @mode: mode index.
 */
static inline uint8_t blk_pattern_byte(uint64_t offset, unsigned int mode)
{
	uint64_t sector = offset >> 9;
	uint32_t mix = (uint32_t)(sector * 2654435761u);

	return (uint8_t)((mix >> 16) ^ (offset & 0x1ff) ^ (0x11u * (mode + 1)));
}

/**
 * blk_check_region() - the sectors mode @mode writes: the last quarter of the
 *	disk split in three, rounded down to whole requests of @bs bytes.
 * @capacity: disk size in sectors.
 * @bs: request size in bytes.
 * @mode: mode index (0..2).
 * @first: set to the first sector.
 * @count: set to the number of sectors (0 if the disk is too small).
 */
void blk_check_region(uint64_t capacity, size_t bs, unsigned int mode, uint64_t *first,
		      uint64_t *count);

/**
 * blk_check_read() - read the whole disk and print its cksum.
 * @blk: an initialised device on the mode's DMA layer.
 * @kd: the DMA instance (buffers are allocated as the mode uses them).
 * @cfg: the mode (and policy), for buffers and messages.
 * @iodepth: requests in flight.
 * @bs: bytes per request.
 * Return: 0, or the number of failed requests (each reported).
 */
int blk_check_read(struct virtio_blk *blk, struct kernel_dma *kd, const struct kdma_config *cfg,
		   unsigned int iodepth, size_t bs);

/**
 * blk_check_write() - write the mode's pattern region in scattered order, flush.
 * @blk: an initialised device on the mode's DMA layer.
 * @kd: the DMA instance.
 * @cfg: the mode (chooses the region and the pattern) and policy.
 * @iodepth: requests in flight.
 * @bs: bytes per request.
 * Return: 0, or the number of failed requests (each reported).
 */
int blk_check_write(struct virtio_blk *blk, struct kernel_dma *kd, const struct kdma_config *cfg,
		    unsigned int iodepth, size_t bs);

#endif /* SLUICE_BENCH_BLK_CHECK_H */
