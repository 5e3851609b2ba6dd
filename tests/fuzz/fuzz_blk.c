/* SPDX-License-Identifier: MIT */
/*
 * fuzz_blk.c - checks of a virtio-blk driver whose device did not reset; see
 * fuzz_blk.h.
 */
#include "tests/fuzz/fuzz_blk.h"

#include "tests/fuzz/fuzz_common.h"

void fblk_check_stopped(struct virtio_blk *blk, void *buf, void *cookie)
{
	struct virtio_blk_completion c;

	if (blk->nqueues) {
		FUZZ_CHECK(virtio_blk_submit(blk, 0, VIRTIO_BLK_OP_READ, 0, buf, 512, cookie) ==
			   -5);
		FUZZ_CHECK(virtio_blk_poll(blk, 0, &c, 1) == -5);
	}
	FUZZ_CHECK(virtio_blk_remove(blk) == -5);
}

void fblk_release(struct virtio_blk *blk, struct fake_virtio *dev)
{
	fake_virtio_let_go(dev);
	blk->stopped = false;
	blk->quarantined = false;
	FUZZ_CHECK(virtio_blk_remove(blk) == 0);
	FUZZ_CHECK(dev->status == 0);
}
