/* SPDX-License-Identifier: MIT */
/*
 * fuzz_blk.h - what the virtio-blk fuzz targets (fuzz_virtio_blk_completion,
 * fuzz_virtio_reset) check of a driver whose device did not reset, over the fake
 * transport of tests/fakes/fake_virtio.h.
 */
#ifndef SLUICE_TESTS_FUZZ_BLK_H
#define SLUICE_TESTS_FUZZ_BLK_H

#include "drivers/virtio/virtio_blk.h"
#include "tests/fakes/fake_virtio.h"

/**
 * fblk_check_stopped() - a driver that quarantined its device is stopped for
 *	good: it accepts no request, polls nothing, and a second removal fails
 *	(-5) and changes nothing (the caller checks the quarantine around it).
 * @blk: the driver.
 * @buf: a 512-byte buffer for the refused request.
 * @cookie: its cookie (not NULL: a NULL cookie is refused for another reason).
 */
void fblk_check_stopped(struct virtio_blk *blk, void *buf, void *cookie);

/**
 * fblk_release() - the device lets go at last: every reset succeeds, and a
 *	removal of the same storage releases it normally and resets the device.
 * @blk: the driver, quarantined and stopped.
 * @dev: its device.
 */
void fblk_release(struct virtio_blk *blk, struct fake_virtio *dev);

#endif
