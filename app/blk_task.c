/* SPDX-License-Identifier: MIT */
/*
 * blk_task.c - the block task (blk=...): the disk read in every selected DMA
 * configuration, then the write pass (one CPU, or every CPU at once), each
 * configuration on its own DMA layer, with the driver's counters after each.
 */
#include "app/task_runners.h"

#include <inttypes.h>
#include <stdio.h>

#include "arch/x86_64/smp/smp.h"
#include "bench/bench_common.h"
#include "app/blk_check.h"
#include "app/blk_smp_check.h"
#include "kernel/virtio_probe.h"
#include "drivers/virtio/virtio_blk.h"

/* Index of "smp" in options_blk_names: the write pass runs on every CPU at once. */
#define BLK_TASK_SMP 2

struct virtio_device *blk_find_device(void)
{
	struct virtio_pci *vps;
	int n = virtio_probed(&vps);

	for (int i = 0; i < n; i++)
		if (vps[i].vdev.device_type == VIRTIO_ID_BLOCK)
			return &vps[i].vdev;
	return NULL;
}

int run_blk_tasks(struct kernel_dma *kd, const struct kernel_options *opts,
		  unsigned int *device_faults)
{
	struct virtio_pci *vps;
	struct virtio_device *vdev = NULL;
	struct kdma_config cfgs[KDMA_MAX_CONFIGS];
	int n = virtio_probed(&vps), failures = 0, ncfg;

	for (int i = 0; i < n && !vdev; i++)
		if (vps[i].vdev.device_type == VIRTIO_ID_BLOCK)
			vdev = &vps[i].vdev;
	if (!vdev) {
		printf("blk: no usable virtio-blk device; block task skipped\n");
		return 0;
	}
	/* Every configuration reads the untouched disk first (so all print the same
	 * cksum), then each writes its mode's region. */
	ncfg = kernel_dma_configs(kd, opts->modes, cfgs);
	for (int pass = 0; pass < 2; pass++) {
		for (int c = 0; c < ncfg; c++) {
			const struct kdma_config *cfg = &cfgs[c];
			const char *name = kernel_dma_config_name(cfg);
			struct virtio_blk blk;
			struct virtio_blk_stats st;

			if (bench_blk_open(&blk, vdev, kd, cfg, VIRTIO_BLK_MAX_QUEUES, "blk:")) {
				failures++;
				continue;
			}
			/* More CPUs than queues: they share queues under each queue's lock. */
			virtio_blk_share_queues(&blk, blk.nqueues < smp_cpu_count());
			if (pass == 0)
				printf("blk: mode=%s %s: %" PRIu64 " sectors (%" PRIu64
				       " MiB), block %u, %u queue%s of %u, seg_max %u, "
				       "size_max %u, flush %s, features 0x%" PRIx64 "\n",
				       name, vdev->name, blk.capacity, blk.capacity >> 11,
				       blk.blk_size, blk.nqueues, blk.nqueues == 1 ? "" : "s",
				       blk.queue_size, blk.seg_max, blk.size_max,
				       blk.has_flush ? "yes" : "no", vdev->features);
			if (pass == 0)
				failures += blk_check_read(&blk, kd, cfg,
							   (unsigned int)opts->iodepth,
							   (size_t)opts->bs);
			else if (opts->blk == BLK_TASK_SMP)
				failures += blk_smp_check(&blk, kd, cfg,
							  (unsigned int)opts->iodepth,
							  (size_t)opts->bs);
			else
				failures += blk_check_write(&blk, kd, cfg,
							    (unsigned int)opts->iodepth,
							    (size_t)opts->bs);
			virtio_blk_stats_get(&blk, &st);
			printf("blk: mode=%s %" PRIu64 " requests, %" PRIu64 " errors, %" PRIu64
			       " busy retries, %" PRIu64 " bad lengths, %" PRIu64
			       " bad status bytes, %" PRIu64 " abandoned, %" PRIu64
			       " bad used entries\n",
			       name, st.completed, st.errors, st.busy, st.bad_len, st.bad_status,
			       st.abandoned, st.bad_used);
			/* A device that lied in its answers, even where each lie was caught
			 * (entry skipped, request failed), is at fault: the data of requests
			 * it completed validly is still only as good as its word. */
			if (virtio_blk_protocol_errors(&st)) {
				failures++;
				printf("blk: mode=%s the device broke the virtio protocol: %" PRIu64
				       " bad used entries, %" PRIu64 " bad lengths, %" PRIu64
				       " bad status bytes\n",
				       name, st.bad_used, st.bad_len, st.bad_status);
			}
			/* Stopped before removal: a deadline passed or a queue broke. */
			if (blk.stopped || virtio_blk_protocol_errors(&st))
				(*device_faults)++;
			if (virtio_blk_remove(&blk)) {
				printf("blk: mode=%s %s did not reset: %" PRIu64 " bytes, %" PRIu64
				       " mappings quarantined, never reused\n",
				       name, vdev->name, blk.quarantined_bytes,
				       blk.quarantined_mappings);
				(*device_faults)++;
			}
		}
	}
	return failures;
}
