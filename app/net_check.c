/* SPDX-License-Identifier: MIT */
/*
 * net_check.c - sized, numbered, patterned frames from one NIC to the other.
 *
 * Each frame carries its sequence number and length after the Ethernet header and
 * a pattern derived from both, so the receiver can tell a lost, reordered,
 * truncated or corrupted frame apart. The sender keeps a bounded window ahead of
 * the receiver so neither ring overflows.
 */
#include "app/net_check.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "arch/x86_64/cpu/cpu.h"
#include "arch/x86_64/cpu/tsc.h"
#include "drivers/deadline.h"

/* Frames in flight at most: never more than the receiver has buffers for, or
 * QEMU's hub queues and then drops them (a NIC without receive buffers drops). */
#define NET_CHECK_WINDOW 32
/* Messages about bad frames, at most, before only counting. */
#define NET_CHECK_MAX_REPORTS 10

static const uint16_t frame_sizes[] = { 60, 61, 64, 128, 255, 512, 1000, 1400, 1500, 1514 };
#define NSIZES (sizeof(frame_sizes) / sizeof(frame_sizes[0]))

static uint8_t net_pattern(uint32_t seq, size_t j)
{
	return (uint8_t)(seq * 7u + j * 13u + 0x5a);
}

size_t net_check_build(uint8_t *f, const struct virtio_net *tx, const struct virtio_net *rx,
		       uint32_t seq)
{
	size_t len = frame_sizes[seq % NSIZES];

	memcpy(f, rx->mac, 6);
	memcpy(f + 6, tx->mac, 6);
	f[12] = NET_CHECK_ETHERTYPE >> 8;
	f[13] = NET_CHECK_ETHERTYPE & 0xff;
	memcpy(f + 14, &seq, 4);
	f[18] = (uint8_t)len;
	f[19] = (uint8_t)(len >> 8);
	for (size_t j = 20; j < len; j++)
		f[j] = net_pattern(seq, j);
	return len;
}

const char *net_check_verify(const uint8_t *f, size_t len, const struct virtio_net *tx,
			     const struct virtio_net *rx, uint32_t seq)
{
	uint32_t got;

	if (len < 20 || memcmp(f, rx->mac, 6) || memcmp(f + 6, tx->mac, 6) ||
	    f[12] != (NET_CHECK_ETHERTYPE >> 8) || f[13] != (NET_CHECK_ETHERTYPE & 0xff))
		return "not a test frame";
	memcpy(&got, f + 14, 4);
	if (got != seq)
		return "out of sequence";
	if (len != frame_sizes[seq % NSIZES] || len != (size_t)(f[18] | f[19] << 8))
		return "wrong length";
	for (size_t j = 20; j < len; j++)
		if (f[j] != net_pattern(seq, j))
			return "corrupted payload";
	return NULL;
}

int net_check_run(struct virtio_net *tx, struct virtio_net *rx, const struct kdma_config *cfg,
		  unsigned int frames)
{
	const char *mname = kernel_dma_config_name(cfg);
	static uint8_t out[VIRTIO_NET_MAX_FRAME], in[VIRTIO_NET_BUF_SIZE];
	uint32_t sent = 0, received = 0, expected = 0;
	unsigned int bad = 0, foreign = 0, lost = 0, window = NET_CHECK_WINDOW;
	uint64_t bytes = 0, t0, t1;
	struct deadline d;

	if (window > rx->queue_size / 2)
		window = rx->queue_size / 2 ? rx->queue_size / 2 : 1;

	t0 = rdtsc();
	/* Restarted only by our own frames: a stream of foreign frames (anything
	 * else on the link, or a host that floods) must not keep the wait alive. */
	deadline_start(&d, 0);
	while (received < frames) {
		size_t len;
		int rc;

		if (deadline_passed(&d)) {
			printf("net: mode=%s frame %u never arrived within %u ms (%u sent, "
			       "%u foreign frames meanwhile)\n",
			       mname, received, deadline_timeout_ms(), sent, foreign);
			return (int)(frames - received) + (int)bad;
		}

		while (sent < frames && sent - received < window) {
			len = net_check_build(out, tx, rx, sent);
			rc = virtio_net_send(tx, out, len);
			if (rc == -16) {
				virtio_net_tx_reclaim(tx);
				break;
			}
			if (rc) {
				printf("net: mode=%s send of frame %u failed (%d)\n", mname, sent,
				       rc);
				return (int)(frames - received);
			}
			sent++;
		}
		if (virtio_net_recv(rx, in, sizeof(in), &len) == 1) {
			const char *why = net_check_verify(in, len, tx, rx, expected);
			uint32_t seq;

			if (why && !strcmp(why, "not a test frame")) {
				foreign++; /* e.g. something else on the hub: not ours to judge */
				continue;
			}
			memcpy(&seq, in + 14, 4);
			if (why && !strcmp(why, "out of sequence") && seq > expected &&
			    seq < sent) {
				/* Frames were lost in between: count them, resynchronise. */
				lost += seq - expected;
				received += seq - expected;
				expected = seq;
				why = net_check_verify(in, len, tx, rx, expected);
			}
			if (why) {
				if (bad < NET_CHECK_MAX_REPORTS)
					printf("net: mode=%s frame %u (%zu bytes): %s\n", mname,
					       expected, len, why);
				bad++;
			}
			bytes += len;
			received++;
			expected++;
			deadline_start(&d, 0);
			continue;
		}
		virtio_net_tx_reclaim(tx);
	}
	t1 = rdtsc();
	/* The sender's last frames: their buffers stay mapped until the device
	 * gives them back, at most the device deadline. */
	deadline_start(&d, 0);
	while (virtio_net_tx_pending(tx, 0) && virtio_net_tx_reclaim(tx) >= 0 &&
	       virtio_net_tx_pending(tx, 0)) {
		if (deadline_passed(&d)) {
			printf("net: mode=%s %u sent frames never given back within %u ms\n", mname,
			       virtio_net_tx_pending(tx, 0), deadline_timeout_ms());
			bad++;
			break;
		}
		cpu_relax();
	}
	printf("net: mode=%s sent %u frames (%" PRIu64 " bytes, sizes %u..%u) and received %u "
	       "in order, %u bad, %u lost, %u foreign, window %u, %.3f s, %.0f frames/s\n",
	       mname, sent, bytes, frame_sizes[0], frame_sizes[NSIZES - 1], received - lost, bad,
	       lost, foreign, window, tsc_to_ns(t1 - t0) / 1e9,
	       (received - lost) / (tsc_to_ns(t1 - t0) / 1e9));
	return (int)(bad + lost);
}
