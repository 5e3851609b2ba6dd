/* SPDX-License-Identifier: MIT */
/*
 * bench_common.c - helpers the in-kernel benchmarks and checks share.
 */
#include "bench/bench_common.h"

#include <stdio.h>

int bench_blk_open(struct virtio_blk *blk, struct virtio_device *vdev, struct kernel_dma *kd,
		   const struct kdma_config *cfg, unsigned int max_queues, const char *who)
{
	char why[192];
	int rc;

	vdev->confidential = cfg->mode != KDMA_DIRECT;
	rc = virtio_blk_init(blk, vdev, kernel_dma_layer(kd, cfg), max_queues, 0, why, sizeof(why));
	if (rc)
		printf("%s mode=%s: %s\n", who, kernel_dma_config_name(cfg), why);
	else
		blk->read_attrs = kd->read_attrs;
	return rc;
}
