/* SPDX-License-Identifier: MIT */
/*
 * net_smp_check.c - every CPU sends and receives at once (see the header).
 *
 * Frame numbers are (sender CPU << 24) | n. The shared state is one bitmap and
 * one received-counter per sender, both updated with atomics by whichever CPU
 * receives the frame; CPU 0 allocates them before and prints after. Each CPU
 * stops when every frame of every sender has arrived, or when nothing has
 * arrived anywhere for a long time (then the missing ones are lost).
 */
#include "app/net_smp_check.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch/x86_64/cpu/cpu.h"
#include "arch/x86_64/smp/smp.h"
#include "arch/x86_64/cpu/tsc.h"
#include "app/net_check.h"
#include "drivers/deadline.h"

#define NET_SMP_MAX_FRAMES 65536u
/* Frames a sender may have in flight: together they stay below what the
 * receive rings hold, or a NIC without buffers drops. */
#define NET_SMP_WINDOW 16u
/* Polls with no frame arriving anywhere before giving up on the rest. */

struct net_smp_cpu {
	uint64_t sent, received, bad, foreign, duplicates, busy;
	bool timed_out; /* the device deadline passed without progress */
	int rc;
} __attribute__((aligned(64)));

struct net_smp_run {
	struct virtio_net *tx, *rx;
	unsigned int ncpus, frames;
	uint64_t *seen[SMP_MAX_CPUS];	/* per sender: bit n = frame n arrived */
	uint64_t arrived[SMP_MAX_CPUS]; /* per sender, any receiver */
	uint64_t total;			/* all senders */
	struct net_smp_cpu cpu[SMP_MAX_CPUS];
};

/* Check one received frame and account for it under its sender. */
static void net_smp_account(struct net_smp_run *run, struct net_smp_cpu *me, const uint8_t *f,
			    size_t len)
{
	uint32_t seq, sender, n;
	const char *why;
	uint64_t bit;

	if (len < 18) {
		me->foreign++;
		return;
	}
	/* The number is read once; the frame is then checked against it. */
	memcpy(&seq, f + 14, 4);
	why = net_check_verify(f, len, run->tx, run->rx, seq);
	if (why && !strcmp(why, "not a test frame")) {
		me->foreign++; /* e.g. the host's own traffic on a bridge: not ours */
		return;
	}
	sender = seq >> 24;
	n = seq & 0xffffff;
	if (why || sender >= run->ncpus || n >= run->frames) {
		me->bad++;
		return;
	}
	bit = UINT64_C(1) << (n % 64);
	if (__atomic_fetch_or(&run->seen[sender][n / 64], bit, __ATOMIC_RELAXED) & bit) {
		me->duplicates++;
		return;
	}
	me->received++;
	__atomic_add_fetch(&run->arrived[sender], 1, __ATOMIC_RELEASE);
	__atomic_add_fetch(&run->total, 1, __ATOMIC_RELEASE);
}

static void net_smp_job(void *arg, unsigned int cpu)
{
	static uint8_t out[SMP_MAX_CPUS][VIRTIO_NET_MAX_FRAME];
	static uint8_t in[SMP_MAX_CPUS][VIRTIO_NET_BUF_SIZE];
	struct net_smp_run *run = arg;
	struct net_smp_cpu *me = &run->cpu[cpu];
	unsigned int txp = cpu % run->tx->npairs, rxp = cpu % run->rx->npairs;
	uint64_t want = (uint64_t)run->ncpus * run->frames, last_total = 0;
	struct deadline d;

	/* Restarted only when a test frame arrives (on any CPU): foreign frames, however
	 * many, do not keep the wait alive. */
	deadline_start(&d, 0);
	while (__atomic_load_n(&run->total, __ATOMIC_ACQUIRE) < want) {
		uint64_t total = __atomic_load_n(&run->total, __ATOMIC_ACQUIRE);

		if (total != last_total) {
			last_total = total;
			deadline_start(&d, 0);
		} else if (deadline_passed(&d)) {
			me->timed_out = true;
			return; /* nothing arrives any more: the rest is lost */
		}
		size_t len;

		/* Send while our window has room (counted by every receiver). */
		while (me->sent < run->frames &&
		       me->sent < __atomic_load_n(&run->arrived[cpu], __ATOMIC_ACQUIRE) +
					  NET_SMP_WINDOW) {
			uint32_t seq = (uint32_t)(cpu << 24 | me->sent);
			int rc;

			len = net_check_build(out[cpu], run->tx, run->rx, seq);
			rc = virtio_net_send_on(run->tx, txp, out[cpu], len);
			if (rc == -16) {
				me->busy++;
				virtio_net_tx_reclaim_on(run->tx, txp);
				break;
			}
			if (rc) {
				me->rc = rc;
				return;
			}
			me->sent++;
		}
		if (virtio_net_recv_on(run->rx, rxp, in[cpu], sizeof(in[cpu]), &len) == 1) {
			net_smp_account(run, me, in[cpu], len);
			continue;
		}
		virtio_net_tx_reclaim_on(run->tx, txp);
	}
	/* Every frame arrived; let the device finish with our transmit slots, at
	 * most the device deadline. */
	deadline_start(&d, 0);
	while (virtio_net_tx_pending(run->tx, txp) && !deadline_passed(&d))
		virtio_net_tx_reclaim_on(run->tx, txp);
	if (virtio_net_tx_pending(run->tx, txp))
		me->timed_out = true;
}

int net_smp_check(struct virtio_net *tx, struct virtio_net *rx, const struct kdma_config *cfg,
		  unsigned int frames)
{
	static struct net_smp_run run;
	const char *name = kernel_dma_config_name(cfg);
	uint64_t received = 0, bad = 0, dups = 0, foreign = 0, t0, t1;
	unsigned int ncpus = smp_cpu_count();
	int failures = 0;

	memset(&run, 0, sizeof(run));
	if (!frames || frames > NET_SMP_MAX_FRAMES) {
		printf("net-smp: mode=%s %u frames per CPU (1..%u)\n", name, frames,
		       NET_SMP_MAX_FRAMES);
		return 1;
	}
	run.tx = tx;
	run.rx = rx;
	run.ncpus = ncpus;
	run.frames = frames;
	for (unsigned int c = 0; c < ncpus; c++) {
		run.seen[c] = calloc((frames + 63) / 64, sizeof(uint64_t));
		if (!run.seen[c]) {
			printf("net-smp: mode=%s no memory\n", name);
			failures = 1;
			goto out;
		}
	}
	t0 = rdtsc();
	smp_run(ncpus, net_smp_job, &run);
	t1 = rdtsc();
	for (unsigned int c = 0; c < ncpus; c++) {
		const struct net_smp_cpu *me = &run.cpu[c];

		printf("net-smp: mode=%s cpu %u sent %" PRIu64
		       " frames on tx pair %u, received %" PRIu64 " on rx pair %u (%" PRIu64
		       " bad, %" PRIu64 " duplicates, %" PRIu64 " foreign), tx busy %" PRIu64
		       "%s\n",
		       name, c, me->sent, c % tx->npairs, me->received, c % rx->npairs, me->bad,
		       me->duplicates, me->foreign, me->busy,
		       me->rc	     ? ", send failed" :
		       me->timed_out ? ", device deadline passed" :
				       "");
		received += me->received;
		bad += me->bad;
		dups += me->duplicates;
		foreign += me->foreign;
		failures += me->rc != 0;
	}
	failures += (int)(bad + dups + ((uint64_t)ncpus * frames - received));
	printf("net-smp: mode=%s %u CPUs at once, %u+%u queue pair%s: %" PRIu64 " of %" PRIu64
	       " frames arrived intact, %" PRIu64 " bad, %" PRIu64 " duplicates, %" PRIu64
	       " lost, %.3f s: %s\n",
	       name, ncpus, tx->npairs, rx->npairs, tx->npairs + rx->npairs == 2 ? "" : "s",
	       received, (uint64_t)ncpus * frames, bad, dups, (uint64_t)ncpus * frames - received,
	       tsc_to_ns(t1 - t0) / 1e9, failures ? "FAILED" : "all correct");
	(void)foreign;
out:
	for (unsigned int c = 0; c < ncpus; c++)
		free(run.seen[c]);
	return failures;
}
