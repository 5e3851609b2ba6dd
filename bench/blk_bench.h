/* SPDX-License-Identifier: MIT */
/*
 * blk_bench.h - fio-like block benchmark: a workload (rw, bs, iodepth) runs for a
 * fixed time after a warm-up, in every DMA configuration of one boot; results
 * are printed as JSON lines of the benchmark contract (suite "blk").
 */
#ifndef SLUICE_BENCH_BLK_BENCH_H
#define SLUICE_BENCH_BLK_BENCH_H

#include <stdbool.h>
#include <stdint.h>

#include "bench/result_json.h"
#include "kernel/dma_setup.h"
#include "dma/stage.h"
#include "drivers/virtio/virtio_blk.h"

/**
 * struct blk_workload - one fio-style job.
 * @rw: "read", "write", "randread" or "randwrite".
 * @bs: bytes per request.
 * @iodepth: requests in flight.
 */
struct blk_workload {
	const char *rw;
	uint32_t bs;
	uint32_t iodepth;
};

/**
 * struct blk_result - what one run of a workload measured.
 * @ios: requests completed in the measured window.
 * @errors: requests that failed.
 * @seconds: length of the window.
 * @iops: @ios / @seconds.
 * @bw_mbps: megabytes (10^6) per second.
 * @lat_mean_us: mean submit-to-completion latency.
 * @lat_p50_us: median latency.
 * @lat_p99_us: 99th percentile.
 * @cycles_map: per I/O, cycles in the DMA layer's map and unmap calls other than
 *	copying: slot allocation and release, bookkeeping (unmap included despite
 *	the name, which the output contract keeps).
 * @cycles_copy: per I/O, cycles in bounce copies and scrubs.
 * @cycles_convert: per I/O, cycles in private/shared conversions.
 * @cycles_driver: per I/O, the rest of submit and completion handling.
 * @cycles_device: per I/O, cycles spent waiting for the device.
 * @io: @iops again, and per I/O every cycle of the DMA layer's map and unmap calls
 *	(@cycles_map + @cycles_copy; a conversion made inside those calls included) and
 *	every guest cycle of the window (the window / @ios).
 * @conversions: private/shared conversions performed during the window.
 * @bounced_bytes: bytes copied through bounce slots during the window.
 * @iotlb_granule: translation size of the IOTLB model (4 KiB, or 2 MiB for the arena).
 * @iotlb_lookups: lookups in the IOTLB model during the window.
 * @iotlb_misses: of those, misses.
 * @stages: the kernel has dma/stage.h's markers (`make image-stages`) and @stage is
 *	filled.
 * @stage: per stage of dma/stage.h, the cycles per I/O the markers charged it, each
 *	marker's own cost taken off.
 */
struct blk_result {
	uint64_t ios, errors;
	double seconds, iops, bw_mbps;
	double lat_mean_us, lat_p50_us, lat_p99_us;
	double cycles_map, cycles_copy, cycles_convert, cycles_driver, cycles_device;
	struct bench_io io;
	uint64_t conversions;
	uint64_t bounced_bytes;
	uint64_t iotlb_granule, iotlb_lookups, iotlb_misses;
	bool stages;
	double stage[DMA_STAGE_COUNT];
};

/**
 * struct blk_bench_iotlb - geometry of the IOTLB model.
 * @entries: entries (default 64).
 * @ways: ways per set, 0 for fully associative.
 */
struct blk_bench_iotlb {
	unsigned int entries, ways;
};

/**
 * blk_bench_run() - run one workload on an initialised device.
 * @blk: the device (on the configuration's DMA layer).
 * @kd: the DMA instance (buffers come from the configuration's allocator).
 * @cfg: the configuration.
 * @w: the workload.
 * @warmup_ms: run this long before measuring.
 * @run_ms: measure this long.
 * @iotlb: IOTLB model geometry (fed during the measured window).
 * @out: the result.
 * Return: 0, or -1 if the workload could not run (message printed).
 */
int blk_bench_run(struct virtio_blk *blk, struct kernel_dma *kd, const struct kdma_config *cfg,
		  const struct blk_workload *w, unsigned int warmup_ms, unsigned int run_ms,
		  const struct blk_bench_iotlb *iotlb, struct blk_result *out);

/**
 * blk_bench_suite() - run the block workloads in every configuration, in three
 *	rounds that each run every configuration in turn for a third of the time,
 *	and print a human line per run and, at the end, one JSON line per workload
 *	and configuration: its median round, with ratios that are medians of each
 *	round's own; with one request queue, then again with all of them when the
 *	device offers several (QEMU num-queues).
 * @kd: the DMA instance.
 * @vdev: the virtio-blk device.
 * @modes: modes to run (bounce runs once per policy set up).
 * @full: the full matrix (rw x bs 4K/64K x iodepth 1/32/256) or the
 *	short set of four workloads.
 * @warmup_ms: warm-up per workload and configuration, split over the rounds.
 * @run_ms: measured time per workload and configuration, split over the rounds.
 * @iotlb: IOTLB model geometry; its JSON lines (suite "iotlb") follow the blk ones.
 * Return: the number of runs that failed.
 */
int blk_bench_suite(struct kernel_dma *kd, struct virtio_device *vdev, uint64_t modes, bool full,
		    unsigned int warmup_ms, unsigned int run_ms,
		    const struct blk_bench_iotlb *iotlb);

#endif /* SLUICE_BENCH_BLK_BENCH_H */
