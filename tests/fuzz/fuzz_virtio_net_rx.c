/* SPDX-License-Identifier: MIT */
/*
 * fuzz_virtio_net_rx.c - the virtio-net driver (drivers/virtio/virtio_net.c)
 * over its two virtqueues and the DMA layer, against a malicious network
 * device behind the fake transport (tests/fakes/fake_virtio.h); the device model and
 * the checks are shared with the other net targets (tests/fuzz/fuzz_net.c).
 *
 * The adversary controls the offered features (offloads and MRG_RXBUF
 * included, which the driver must not accept), the configuration (MAC, link
 * status, reads that fail), both queues' maximum sizes (up to 65535), FEATURES_OK
 * and DRIVER_OK refused, resets that fail (any of them, by call), and for
 * every receive completion: the virtio_net_hdr (flags, gso_type, hdr_len,
 * gso_size, csum_start, csum_offset, num_buffers, all arbitrary), the frame
 * bytes, the used entry's id (the buffer's head, another one, out of range, a
 * replay) and its length (exact, shorter than a
 * header plus the minimal Ethernet frame, longer than the buffer, anything);
 * for transmit completions the id and length; used->idx jumps; and, through
 * the host build's read hook, changes to every used-ring field right after the
 * queue read it. The input also picks the driver's calls: receive into
 * buffers of any size, send frames of valid and invalid lengths (and no
 * frame), reclaim, link status; the bounce policy, scrub mode, confidential
 * mode, and whether frame buffers come from private memory (they bounce) or
 * from a shared region registered as the layer's in-place hook (like the
 * arena: mapped in place, the device writes the buffer itself).
 *
 * Checked: init succeeds exactly when the device is usable, accepts no
 * feature but VERSION_1, ACCESS_PLATFORM, MAC and STATUS, and reads the MAC;
 * every descriptor the device finds is one buffer (no chain, no indirect
 * table) in shared memory - pool or in-place region, never private memory -
 * of VIRTIO_NET_BUF_SIZE device-writable bytes for receive, and for transmit
 * an all-zero header then exactly the frame sent; a head is never handed out
 * while in flight. A frame is delivered exactly when the completion the queue
 * read names a buffer in flight, its length lies between header + 14 and the
 * posted VIRTIO_NET_BUF_SIZE, the header asks for no offload and the frame
 * fits the caller's buffer; it is then byte for byte what the device wrote,
 * of that length, and not one byte of the caller's buffer past it is
 * written. Counters equal the model's (frames, bytes, bad lengths, bad
 * headers, drops, transmit completions and busy sends); every buffer is
 * either posted or waiting to be, every transmit slot either free or in
 * flight; virtq_check() and the DMA layer's self-check pass (every eighth step
 * on a sampled input, FUZZ_DEEP_SAMPLE, and at the end); ASan catches any read
 * past a buffer (every buffer, private or in place, is followed by poisoned
 * memory); when a reset fails, the quarantine contract (fuzz_net.h); after
 * remove every buffer is freed once and nothing is mapped or shared.
 *
 * Not asserted: num_buffers. Without MRG_RXBUF the device must set it to 1,
 * but the driver never reads it, so a lie about it changes nothing.
 */
#include "tests/fuzz/fuzz_net.h"

#include <string.h>

#define VNF_CFG_BYTES 16u
#define VNF_MAX_OPS 500u

/* Queue sizes the device reports, per queue (receive, transmit). */
static uint16_t vnf_max_size[2];

static uint16_t vnf_read_max_size(struct fake_virtio *f, uint16_t index)
{
	(void)f;
	return index < 2 ? vnf_max_size[index] : 0;
}

/* What the driver programs: one of the two queues, a size it may use, shared rings. */
static int vnf_setup(struct fake_virtio *f, const struct fake_queue *fq)
{
	struct fnet *s = f->ctx;

	FUZZ_CHECK(fq->index < 2);
	FUZZ_CHECK(fq->size && fq->size <= vnf_max_size[fq->index] &&
		   !(fq->size & (fq->size - 1)) && fq->size <= FNET_MAX_QSIZE);
	FUZZ_CHECK(mock_port_is_shared(&s->fd->mp, fq->desc, VIRTQ_DESC_TABLE_SIZE(fq->size)));
	FUZZ_CHECK(mock_port_is_shared(&s->fd->mp, fq->avail, VIRTQ_AVAIL_SIZE(fq->size)));
	FUZZ_CHECK(mock_port_is_shared(&s->fd->mp, fq->used, VIRTQ_USED_SIZE(fq->size)));
	return 0;
}

/* Features, configuration, queue sizes and failing resets; returns whether init
 * must work. */
static bool vnf_configure(struct fnet *s, uint8_t mode, unsigned int *max_queue)
{
	struct fuzz_in *in = s->in;
	struct fake_virtio *f = &s->dev;
	uint8_t dev = fuzz_u8(in);
	unsigned int size;

	f->vdev.device_type = dev & 1 ? VIRTIO_ID_BLOCK : VIRTIO_ID_NET;
	f->refuse_features_ok = dev & 2;
	if (!(dev & 4))
		f->offered |= VIRTIO_FEATURE(VIRTIO_F_VERSION_1);
	if (!(dev & 8))
		f->offered |= VIRTIO_FEATURE(VIRTIO_F_ACCESS_PLATFORM);
	if (dev & 0x10)
		f->offered |= VIRTIO_FEATURE(FNET_F_MAC);
	if (dev & 0x20)
		f->offered |= VIRTIO_FEATURE(FNET_F_STATUS);
	if (dev & 0x40)
		f->offered |= VIRTIO_FEATURE(FNET_F_CSUM) | VIRTIO_FEATURE(FNET_F_GUEST_CSUM) |
			      VIRTIO_FEATURE(FNET_F_GUEST_TSO4) | VIRTIO_FEATURE(FNET_F_MRG_RXBUF) |
			      VIRTIO_FEATURE(VIRTIO_F_RING_EVENT_IDX) |
			      VIRTIO_FEATURE(VIRTIO_F_RING_INDIRECT_DESC);
	/* Resets that fail, by call: bit 0 the negotiation's, bit 1 the next. */
	if (dev & 0x80)
		f->reset_script = fuzz_u8(in);
	fuzz_bytes(in, f->cfg, VNF_CFG_BYTES);
	for (unsigned int i = 0; i < 2; i++) {
		uint8_t b = fuzz_u8(in);

		vnf_max_size[i] = b == 0xff ? fuzz_u16(in) : b % 65;
	}
	*max_queue = fuzz_u8(in);
	size = vnf_max_size[0] < vnf_max_size[1] ? vnf_max_size[0] : vnf_max_size[1];
	if (*max_queue && size > *max_queue)
		size = *max_queue;
	while (size & (size - 1))
		size &= size - 1;
	return !(dev & 1) && !(dev & 4) && !((mode & 1) && (dev & 8)) && !(dev & 2) &&
	       !((dev & 0x10) && f->cfg_fails) && size && size <= FNET_MAX_QSIZE &&
	       !f->refuse_driver_ok && !(f->reset_script & 1);
}

/* One step: a data-path step (fnet_data_op()), or this target's own: 6 toggles
 * the device's used-ring changes (bit 7 set) or flips the link, 7 moves an index
 * where it must not go. */
static void vnf_op(struct fnet *s, uint8_t op)
{
	if (fnet_data_op(s, op & 7, 0))
		return;
	if ((op & 7) == 7)
		fnet_hostile_idx(s, 0, (op >> 3) & 1);
	else if (op & 0x80)
		s->mutate = !s->mutate;
	else
		fnet_link(s);
}

int fuzz_virtio_net_rx_one(const uint8_t *data, size_t size)
{
	struct fuzz_in in = fuzz_in_start(data, size);
	struct fnet *s = &fnet;
	struct virtio_net_buffers bufs;
	struct fuzz_quarantine mark;
	unsigned int max_queue;
	uint8_t mode;
	char why[160];
	bool usable;
	int rc;

	mode = fuzz_u8(&in);
	fnet_begin(s, &in, mode, FUZZ_DMA_ONE_POOL);
	s->dev.read_max_size = vnf_read_max_size;
	s->dev.on_setup = vnf_setup;
	bufs = fnet_buffers(s);
	usable = vnf_configure(s, mode, &max_queue);
	why[0] = '\0';
	fuzz_quarantine_mark(&mark, s->fd);
	rc = virtio_net_init(&s->net, &s->dev.vdev, &s->fd->dl, &bufs, max_queue, why, sizeof(why));
	FUZZ_CHECK(!rc == usable);
	if (rc) {
		FUZZ_CHECK(why[0] && memchr(why, '\0', sizeof(why)) != NULL);
		fnet_init_failed(s, &mark);
		return 0;
	}
	FUZZ_CHECK(s->dev.status & VIRTIO_STATUS_DRIVER_OK);
	FUZZ_CHECK(s->net.npairs == 1 && s->net.pairs_allocated == 1);
	if (s->dev.accepted & VIRTIO_FEATURE(FNET_F_MAC))
		FUZZ_CHECK(!memcmp(s->net.mac, s->dev.cfg, 6));
	FUZZ_CHECK(s->net.has_status == !!(s->dev.accepted & VIRTIO_FEATURE(FNET_F_STATUS)));
	fnet_attach(s);
	fnet_check(s, s->fd->deep);

	for (unsigned int ops = 0; fuzz_more(&in) && ops < VNF_MAX_OPS; ops++) {
		vnf_op(s, fuzz_u8(&in));
		fnet_take_all(s, 1);
		fnet_check(s, s->fd->deep && ops % 8 == 7);
	}
	fnet_check(s, s->fd->deep);
	fnet_end(s);
	return 0;
}
