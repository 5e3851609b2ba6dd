/* SPDX-License-Identifier: MIT */
/*
 * net_task.c - the network task (frames=N, net=...) and the network benchmark
 * (bench=net): two virtio-net devices on one hub, NIC 0 sending to NIC 1, in
 * every selected DMA configuration, each on its own DMA layer.
 */
#include "app/task_runners.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "arch/x86_64/smp/smp.h"
#include "bench/net_bench.h"
#include "bench/rounds.h"
#include "app/net_check.h"
#include "app/net_smp_check.h"
#include "kernel/virtio_probe.h"
#include "drivers/virtio/virtio_net.h"

/* Index of "smp" in options_net_names: every CPU sends and receives at once. */
#define NET_TASK_SMP 1

struct net_buf_ctx {
	struct kernel_dma *kd;
	enum kernel_dma_mode mode;
};

static void *net_buf_alloc(void *ctx, size_t size)
{
	struct net_buf_ctx *c = ctx;

	return kernel_dma_buf_alloc(c->kd, c->mode, size);
}

static void net_buf_free(void *ctx, void *ptr)
{
	struct net_buf_ctx *c = ctx;

	kernel_dma_buf_free(c->kd, c->mode, ptr);
}

/* Ring size for a configuration: posted receive buffers hold bounce slots for as
 * long as they wait for a frame, so in bounce mode each NIC's ring gets at most
 * 1/8 of the pool (transmit and the other NIC still find slots); in arena mode
 * each buffer is one 4 KiB block and both NICs' rings may take half the arena. */
static unsigned int net_ring_size(struct kernel_dma *kd, const struct kdma_config *cfg)
{
	unsigned int qsize;

	if (cfg->mode == KDMA_BOUNCE) {
		struct sluice_dma_bounce_stats bs;

		sluice_dma_bounce_stats_get(kernel_dma_layer(kd, cfg), -1, &bs);
		qsize = (unsigned int)(bs.nslabs / 8);
	} else if (cfg->mode == KDMA_ARENA) {
		qsize = (unsigned int)(kd->arena_bytes / 2 / (4 * 4096));
	} else {
		return 0; /* what the device offers */
	}
	while (qsize & (qsize - 1))
		qsize &= qsize - 1;
	return qsize < 2 ? 2 : qsize;
}

/* Both NICs on a configuration's layer, receiver first (with a small bounce pool
 * it gets its buffers before the sender's idle receive ring takes the slots),
 * each with up to @pairs queue pairs (locked when fewer than the CPUs). */
static int net_pair_init(struct kernel_dma *kd, const struct kdma_config *cfg,
			 struct virtio_device *nic[2], struct virtio_net net[2],
			 struct net_buf_ctx *bctx, unsigned int qsize, unsigned int pairs,
			 int *links_up)
{
	struct virtio_net_buffers bufs = { net_buf_alloc, net_buf_free, bctx };
	char why[192];
	int rc;

	*links_up = 0;
	for (int k = 1; k >= 0; k--) {
		nic[k]->confidential = cfg->mode != KDMA_DIRECT;
		rc = virtio_net_init_mq(&net[k], nic[k], kernel_dma_layer(kd, cfg), &bufs, qsize,
					pairs, why, sizeof(why));
		if (rc) {
			printf("net: mode=%s: %s\n", kernel_dma_config_name(cfg), why);
			if (k == 0)
				virtio_net_remove(&net[1]);
			return rc;
		}
		virtio_net_share_pairs(&net[k], net[k].npairs < smp_cpu_count() && pairs > 1);
		*links_up += virtio_net_link_up(&net[k]);
	}
	return 0;
}

/* The two NICs the network task and benchmark use; 0 if fewer than two. */
static int net_find_pair(struct virtio_device *nic[2])
{
	struct virtio_pci *vps;
	int n = virtio_probed(&vps), found = 0;

	for (int i = 0; i < n && found < 2; i++)
		if (vps[i].vdev.device_type == VIRTIO_ID_NET)
			nic[found++] = &vps[i].vdev;
	return found;
}

/* The network benchmark's runs: per round, frame size and configuration. */
static struct net_result net_res[BENCH_ROUNDS][2][KDMA_MAX_CONFIGS];
static bool net_ok[BENCH_ROUNDS][2][KDMA_MAX_CONFIGS];

/* Round @round of configuration @c: both frame sizes, on a NIC pair set up for it. */
static int net_bench_round(struct kernel_dma *kd, const struct kernel_options *opts,
			   struct virtio_device **nic, const struct kdma_config *cfg, int round,
			   int c, const unsigned int *sizes)
{
	static struct virtio_net net[2];
	struct net_buf_ctx bctx = { kd, cfg->mode };
	unsigned int slice = (unsigned int)opts->bench_ms / BENCH_ROUNDS;
	int up, failures = 0;

	if (net_pair_init(kd, cfg, nic, net, &bctx, net_ring_size(kd, cfg), 1, &up))
		return 1;
	for (int s = 0; s < 2; s++) {
		struct net_result *r = &net_res[round][s][c];

		net_ok[round][s][c] =
			!net_bench_run(&net[0], &net[1], sizes[s], slice / 5, slice ? slice : 1, r);
		if (!net_ok[round][s][c])
			failures++;
		printf("bench: net mode=%s %u-byte frames round %d/%d: %.0f frames/s, "
		       "%.3f Gbit/s, %" PRIu64 " lost; DMA %.0f\n",
		       kernel_dma_config_name(cfg), sizes[s], round + 1, BENCH_ROUNDS, r->fps,
		       r->gbps, r->lost, r->io.cycles_dma);
	}
	virtio_net_remove(&net[0]);
	virtio_net_remove(&net[1]);
	return failures;
}

/* Of the rounds of frame size @s in configuration @c that ran, the median round
 * by DMA cycles (bench/rounds.h), or NULL; *@ran: how many ran. */
static const struct net_result *net_median_round(int s, int c, unsigned int *ran)
{
	struct bench_round_figs figs[BENCH_ROUNDS];
	int m;

	*ran = 0;
	for (int r = 0; r < BENCH_ROUNDS; r++) {
		figs[r].ok = net_ok[r][s][c];
		figs[r].dma = net_res[r][s][c].io.cycles_dma;
		figs[r].copy = net_res[r][s][c].cycles_copy;
		*ran += figs[r].ok;
	}
	m = bench_rounds_median_round(figs);
	return m < 0 ? NULL : &net_res[m][s][c];
}

int run_net_bench(struct kernel_dma *kd, const struct kernel_options *opts)
{
	static const unsigned int sizes[] = { 64, 1514 };
	struct virtio_device *nic[2];
	struct kdma_config cfgs[KDMA_MAX_CONFIGS];
	int ncfg, failures = 0;

	if (net_find_pair(nic) < 2) {
		printf("bench: net needs two virtio-net devices\n");
		return 1;
	}
	ncfg = kernel_dma_configs(kd, opts->modes, cfgs);
	memset(net_ok, 0, sizeof(net_ok));
	/* Every configuration in turn, three times: lines that ran close together. */
	for (int r = 0; r < BENCH_ROUNDS; r++)
		for (int c = 0; c < ncfg; c++)
			failures += net_bench_round(kd, opts, nic, &cfgs[c], r, c, sizes);
	for (int s = 0; s < 2; s++) {
		const struct net_result *med[KDMA_MAX_CONFIGS], *direct = NULL, *base_linux = NULL;
		unsigned int ran[KDMA_MAX_CONFIGS];

		for (int c = 0; c < ncfg; c++) {
			med[c] = net_median_round(s, c, &ran[c]);
			if (cfgs[c].mode == KDMA_DIRECT)
				direct = med[c];
			if (cfgs[c].mode == KDMA_BOUNCE &&
			    cfgs[c].policy == SLUICE_DMA_POLICY_LINUX)
				base_linux = med[c];
		}
		for (int c = 0; c < ncfg; c++)
			if (med[c])
				net_bench_print(&cfgs[c], sizes[s], ran[c], med[c], direct,
						base_linux);
	}
	return failures;
}

int run_net_tasks(struct kernel_dma *kd, const struct kernel_options *opts,
		  unsigned int *device_faults)
{
	struct virtio_device *nic[2] = { NULL, NULL };
	struct kdma_config cfgs[KDMA_MAX_CONFIGS];
	int found = net_find_pair(nic), failures = 0, ncfg;

	if (found < 2) {
		printf("net: %d usable virtio-net device%s, 2 needed; network task skipped\n",
		       found, found == 1 ? "" : "s");
		return 0;
	}
	ncfg = kernel_dma_configs(kd, opts->modes, cfgs);
	for (int c = 0; c < ncfg; c++) {
		const struct kdma_config *cfg = &cfgs[c];
		const char *name = kernel_dma_config_name(cfg);
		static struct virtio_net net[2];
		struct virtio_net_stats rx_st, tx_st;
		struct net_buf_ctx bctx = { kd, cfg->mode };
		int rc = 0, up = 0;
		bool smp = opts->net == NET_TASK_SMP;
		unsigned int pairs = smp ? smp_cpu_count() : 1, qsize = net_ring_size(kd, cfg);

		if (pairs > VIRTIO_NET_MAX_PAIRS)
			pairs = VIRTIO_NET_MAX_PAIRS;
		/* The pool's share for posted receive buffers is split among the pairs. */
		if (qsize && pairs > 1)
			qsize = qsize / pairs < 2 ? 2 : qsize / pairs;
		rc = net_pair_init(kd, cfg, nic, net, &bctx, qsize, pairs, &up);
		if (rc) {
			failures++;
			continue;
		}
		printf("net: mode=%s %s mac %02x:%02x:%02x:%02x:%02x:%02x -> %s mac "
		       "%02x:%02x:%02x:%02x:%02x:%02x, queues of %u, %u+%u queue pair%s, links up "
		       "%d/2\n",
		       name, nic[0]->name, net[0].mac[0], net[0].mac[1], net[0].mac[2],
		       net[0].mac[3], net[0].mac[4], net[0].mac[5], nic[1]->name, net[1].mac[0],
		       net[1].mac[1], net[1].mac[2], net[1].mac[3], net[1].mac[4], net[1].mac[5],
		       net[0].queue_size, net[0].npairs, net[1].npairs,
		       net[0].npairs + net[1].npairs == 2 ? "" : "s", up);
		if (smp)
			failures +=
				net_smp_check(&net[0], &net[1], cfg, (unsigned int)opts->frames);
		else
			failures +=
				net_check_run(&net[0], &net[1], cfg, (unsigned int)opts->frames);
		virtio_net_stats_get(&net[1], &rx_st);
		virtio_net_stats_get(&net[0], &tx_st);
		printf("net: mode=%s rx: %" PRIu64 " bad lengths, %" PRIu64 " bad headers, %" PRIu64
		       " dropped; tx busy %" PRIu64 "\n",
		       name, rx_st.rx_bad_len, rx_st.rx_bad_hdr, rx_st.rx_dropped, tx_st.tx_busy);
		for (int k = 0; k < 2; k++) {
			if (!virtio_net_remove(&net[k]))
				continue;
			printf("net: mode=%s %s did not reset: %" PRIu64 " bytes, %" PRIu64
			       " mappings quarantined, never reused\n",
			       name, nic[k]->name, net[k].quarantined_bytes,
			       net[k].quarantined_mappings);
			(*device_faults)++;
			failures++;
		}
	}
	return failures;
}
