/* SPDX-License-Identifier: MIT */
/*
 * net_bench.c - closed-loop frame blaster: keep as many frames in flight as half
 * the receiver's ring (more would only be queued, then dropped, by QEMU's hub),
 * count what arrives per second.
 */
#include "bench/net_bench.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "arch/x86_64/cpu/cpu.h"
#include "arch/x86_64/cpu/tsc.h"
#include "bench/bench_common.h"
#include "bench/result_json.h"
#include "boot/bench_suites.h"
#include "boot/options.h"

#define NET_BENCH_ETHERTYPE 0x88B6

/* DMA-layer counters of both NICs at one moment: cycles in their DMA calls, copies. */
struct net_dma_snap {
	uint64_t dma, copy;
};

static void net_dma_snap(struct virtio_net *tx, struct virtio_net *rx, struct net_dma_snap *out)
{
	struct virtio_net_stats st;

	virtio_net_stats_get(tx, &st);
	out->dma = st.cycles_dma;
	virtio_net_stats_get(rx, &st);
	out->dma += st.cycles_dma;
	out->copy = sluice_dma_layer_copy_cycles(tx->dl);
	if (rx->dl != tx->dl)
		out->copy += sluice_dma_layer_copy_cycles(rx->dl);
}

/* Time the DMA calls of both NICs (driver) and their bounce copies (layer), or stop. */
static void net_dma_profile(struct virtio_net *tx, struct virtio_net *rx, bool on)
{
	tx->profile = on;
	rx->profile = on;
	sluice_dma_layer_set_profile(tx->dl, on);
	sluice_dma_layer_set_profile(rx->dl, on);
}

/* The per-frame DMA figures of a window of @wall cycles that started with @s0. */
static void net_dma_results(struct virtio_net *tx, struct virtio_net *rx, uint64_t wall,
			    const struct net_dma_snap *s0, struct net_result *out)
{
	struct net_dma_snap s1;

	if (!out->frames)
		return;
	net_dma_snap(tx, rx, &s1);
	out->io.cycles_dma = (double)(s1.dma - s0->dma) / out->frames;
	out->cycles_copy = (double)(s1.copy - s0->copy) / out->frames;
	out->io.cycles_io = (double)wall / out->frames;
}

int net_bench_run(struct virtio_net *tx, struct virtio_net *rx, unsigned int size,
		  unsigned int warmup_ms, unsigned int run_ms, struct net_result *out)
{
	static uint8_t frame[VIRTIO_NET_MAX_FRAME], in[VIRTIO_NET_BUF_SIZE];
	struct bench_window win;
	struct net_dma_snap s0 = { 0, 0 };
	uint32_t sent = 0, next = 0, window = rx->queue_size / 2 ? rx->queue_size / 2 : 1;
	uint64_t frames = 0, lost = 0, stall = 0, wall;

	bench_window_start(&win, warmup_ms, run_ms);
	memset(out, 0, sizeof(*out));
	net_dma_profile(tx, rx, true);
	memcpy(frame, rx->mac, 6);
	memcpy(frame + 6, tx->mac, 6);
	frame[12] = NET_BENCH_ETHERTYPE >> 8;
	frame[13] = NET_BENCH_ETHERTYPE & 0xff;
	memset(frame + 18, 0x3c, size - 18);
	for (;;) {
		enum bench_phase phase = bench_window_tick(&win, rdtsc());
		size_t len;

		if (phase == BENCH_BEGIN) {
			frames = lost = 0;
			net_dma_snap(tx, rx, &s0);
		} else if (phase == BENCH_DONE && bench_window_over(&win, rdtsc(), frames, window))
			break;
		while (sent - next < window) {
			memcpy(frame + 14, &sent, 4);
			if (virtio_net_send(tx, frame, size))
				break;
			sent++;
		}
		if (virtio_net_recv(rx, in, sizeof(in), &len) == 1) {
			uint32_t seq;

			memcpy(&seq, in + 14, 4);
			if (len != size || seq < next || seq >= sent)
				continue; /* not one of ours: not counted */
			lost += seq - next;
			next = seq + 1;
			frames++;
			stall = 0;
			continue;
		}
		virtio_net_tx_reclaim(tx);
		/* Nothing for a long while: whatever is in flight is lost. */
		if (++stall > 2000000u) {
			lost += sent - next;
			next = sent;
			stall = 0;
		}
	}
	out->frames = frames;
	out->lost = lost;
	wall = rdtsc() - win.t_measure;
	net_dma_results(tx, rx, wall, &s0, out);
	net_dma_profile(tx, rx, false);
	out->seconds = tsc_to_ns(wall) / 1e9;
	out->fps = out->seconds > 0 ? frames / out->seconds : 0;
	out->gbps = out->fps * size * 8 / 1e9;
	out->io.rate = out->fps;
	/* Drain so the next run starts with empty rings. */
	for (unsigned long spins = 0; spins < 200000; spins++) {
		size_t len;

		virtio_net_tx_reclaim(tx);
		if (virtio_net_recv(rx, in, sizeof(in), &len) == 1)
			spins = 0;
		if (!virtio_net_tx_pending(tx, 0) && next == sent)
			break;
	}
	return frames ? 0 : -1;
}

void net_bench_print(const struct kdma_config *cfg, unsigned int size, unsigned int rounds,
		     const struct net_result *r, const struct net_result *direct,
		     const struct net_result *base_linux)
{
	const char *policy = kernel_dma_policy_json(cfg);

	bench_json_begin(options_bench_names[BENCH_SUITE_NET]);
	printf(",\"mode\":\"%s\",\"policy\":%s,\"size\":%u,\"threads\":1,"
	       "\"copy\":%s,\"fps\":%.1f,\"gbps\":%.4f,\"frames\":%" PRIu64 ",\"lost\":%" PRIu64
	       ",\"seconds\":%.3f,\"cycles_copy\":%.0f,\"rounds\":%u",
	       kernel_dma_mode_name(cfg->mode), policy, size,
	       cfg->mode == KDMA_BOUNCE ? "true" : "false", r->fps, r->gbps, r->frames, r->lost,
	       r->seconds, r->cycles_copy, rounds);
	bench_json_io_end(&r->io, direct ? &direct->io : NULL, base_linux ? &base_linux->io : NULL);
}
