/* SPDX-License-Identifier: MIT */
/*
 * net_bench.h - network benchmark (suite "net"): frames per second and Gbit/s
 * from one NIC to the other, at a fixed frame size.
 */
#ifndef SLUICE_BENCH_NET_BENCH_H
#define SLUICE_BENCH_NET_BENCH_H

#include <stdint.h>

#include "bench/result_json.h"
#include "kernel/dma_setup.h"
#include "drivers/virtio/virtio_net.h"

/**
 * struct net_result - what one run measured.
 * @frames: frames received in the window.
 * @lost: frames that never arrived (sequence gaps).
 * @seconds: length of the window.
 * @fps: frames per second.
 * @gbps: payload bits per second / 10^9 (frame bytes without virtio header).
 * @cycles_copy: per frame, the part of @io.cycles_dma spent in bounce copies and scrubs.
 * @io: @fps again; per frame received, the cycles in the DMA layer's map, sync and
 *	unmap calls of both NICs (the sender's map and unmap, the receiver's sync, unmap
 *	and re-map; bounce copies included), as the block benchmark counts them; and
 *	every guest cycle of the window (the window / @frames).
 */
struct net_result {
	uint64_t frames, lost;
	double seconds, fps, gbps;
	double cycles_copy;
	struct bench_io io;
};

/**
 * net_bench_run() - send @size-byte frames from @tx to @rx as fast as the
 *	receiver's ring allows for @run_ms after @warmup_ms.
 * @tx: sender.
 * @rx: receiver.
 * @size: frame size (VIRTIO_NET_MIN_FRAME..VIRTIO_NET_MAX_FRAME).
 * @warmup_ms: warm-up.
 * @run_ms: measured time.
 * @out: result.
 * Return: 0, or -1 if nothing arrived.
 */
int net_bench_run(struct virtio_net *tx, struct virtio_net *rx, unsigned int size,
		  unsigned int warmup_ms, unsigned int run_ms, struct net_result *out);

/**
 * net_bench_print() - one JSON line of the contract.
 * @cfg: configuration.
 * @size: frame size.
 * @rounds: the rounds this configuration ran the size (bench/rounds.h).
 * @r: result: its round of the median DMA cycles.
 * @direct: the same size in mode direct in this boot, its median round (NULL: unknown).
 * @base_linux: the same in bounce/linux (NULL: unknown).
 */
void net_bench_print(const struct kdma_config *cfg, unsigned int size, unsigned int rounds,
		     const struct net_result *r, const struct net_result *direct,
		     const struct net_result *base_linux);

#endif /* SLUICE_BENCH_NET_BENCH_H */
