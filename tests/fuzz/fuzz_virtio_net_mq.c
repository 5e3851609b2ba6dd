/* SPDX-License-Identifier: MIT */
/*
 * fuzz_virtio_net_mq.c - virtio-net with several queue pairs and the control
 * queue (drivers/virtio/virtio_net.c, virtio_net_init_mq()) against a malicious
 * network device behind the fake transport (tests/fakes/fake_virtio.h).
 *
 * The adversary controls what multiqueue rests on: whether MQ and CTRL_VQ are
 * offered, max_virtqueue_pairs (0, 1..8, up to 0x8000 and beyond, where 2N
 * wraps a 16-bit queue index onto receive queue 0), num_queues (small, short of
 * 2N + 1, large, and a second read that differs from the first), every queue's
 * maximum size (0, small, large, the control queue's below the four entries a
 * command needs), configuration
 * reads that fail, DRIVER_OK refused, resets that fail; then the answer to the
 * VQ_PAIRS_SET command: when (at the kick, after some polls of the driver's
 * wait, never: the deadline), the acknowledgement byte, the used length (1, 0,
 * 2, anything), the id (the command's head, another, out of range) or a
 * used->idx jump that breaks the control queue; then frames both ways on every
 * pair the driver set up, enabled or not, as fuzz_virtio_net_rx does for one.
 * The input also picks the pairs the driver wants (1..8), the bounce policy,
 * scrub mode, confidential mode and in-place buffers.
 *
 * Checked: init succeeds exactly when the configuration allows it and then uses
 * min(wanted, max_virtqueue_pairs) pairs when the command was acknowledged (the
 * command's head, length 1, VIRTIO_NET_OK) and one pair otherwise; it counts a
 * timeout exactly when no usable answer came in time; the command on the ring
 * is class MQ, VQ_PAIRS_SET, that number of pairs, in shared memory, with a
 * one-byte device-writable acknowledgement; the control queue sits at 2N, below
 * num_queues, never on a data queue; every queue set up exists, has a size no
 * larger than its register said, and each queue's size register is read once;
 * no feature beyond VERSION_1, ACCESS_PLATFORM, MAC, STATUS, MQ and CTRL_VQ is
 * accepted. Then per pair everything fuzz_virtio_net_rx checks (fuzz_net.h):
 * buffers, frames, counters, ownership; a pair beyond those enabled is never
 * read and refuses sends. At removal the quarantine contract when the reset
 * fails: every ring (the control queue's included), buffer and the command
 * buffer kept and counted (fuzz_net.c).
 */
#include "tests/fuzz/fuzz_net.h"

#include <string.h>

#define VNM_MAX_OPS 600u
/* Polls of the driver's wait for the command (the device deadline). */
#define VNM_BUDGET 16u
/* Queue indices whose size registers the model keeps (data queues of up to
 * eight pairs); the control queue has its own, any other index the default. */
#define VNM_REGS (2u * FNET_MAX_PAIRS)

/* How the device answers the command. */
enum vnm_answer_id { VNM_ID_HEAD, VNM_ID_OTHER, VNM_ID_OUT, VNM_ID_BREAK };

/**
 * struct vnm - the multiqueue device's registers and the command's fate.
 * @nq: num_queues, as the first read returns it (the device's true count).
 * @nq_alt: if not 0, every second read of num_queues returns this.
 * @nq_reads: reads of num_queues.
 * @size: each data queue's maximum size (index below VNM_REGS) ...
 * @size_ctrl: ... that of the control queue at @ctrl_index ...
 * @size_other: ... and that of every other index.
 * @ctrl_index: 2N, N the pairs the device says it has (32 bits: 2 * 0x8000
 *	does not fit a queue index).
 * @size_reads: reads of each data queue's size register.
 * @ctrl_reads: reads of the control queue's.
 * @due: clock reads after the kick at which the device answers (0: at the
 *	kick itself; above VNM_BUDGET: never).
 * @ack: the acknowledgement byte written.
 * @len: the used length.
 * @id: which id the used entry carries.
 * @other: the other id (VNM_ID_OTHER, VNM_ID_OUT).
 * @pending: a command is on the ring, not answered yet.
 * @head: its head.
 * @reads: clock reads since its kick.
 * @answered: the device answered it.
 * @kicks: commands the device found.
 * @want: pairs the command asked for.
 */
struct vnm {
	uint16_t nq, nq_alt;
	unsigned int nq_reads;
	uint16_t size[VNM_REGS], size_ctrl, size_other;
	uint32_t ctrl_index;
	unsigned int size_reads[VNM_REGS], ctrl_reads;
	unsigned int due;
	uint8_t ack;
	uint32_t len;
	enum vnm_answer_id id;
	uint32_t other;
	bool pending;
	uint16_t head;
	unsigned int reads;
	bool answered;
	unsigned int kicks;
	uint16_t want;
};

static struct vnm vnm;
/* A frame for a pair that does not exist: refused unread. */
static const uint8_t vnm_frame[60];

static uint16_t vnm_read_num_queues(struct fake_virtio *f)
{
	(void)f;
	return vnm.nq_alt && (vnm.nq_reads++ & 1) ? vnm.nq_alt : vnm.nq;
}

/* The maximum size the device reports for queue @index. */
static uint16_t vnm_reg_size(uint32_t index)
{
	if (index == vnm.ctrl_index)
		return vnm.size_ctrl;
	return index < VNM_REGS ? vnm.size[index] : vnm.size_other;
}

static uint16_t vnm_read_max_size(struct fake_virtio *f, uint16_t index)
{
	(void)f;
	/* Read once (G19): a register read twice could answer differently, and
	 * one value would be checked, another used. */
	if (index == vnm.ctrl_index)
		FUZZ_CHECK(++vnm.ctrl_reads == 1);
	else if (index < VNM_REGS)
		FUZZ_CHECK(++vnm.size_reads[index] == 1);
	return vnm_reg_size(index);
}

static int vnm_setup(struct fake_virtio *f, const struct fake_queue *fq)
{
	struct fnet *s = f->ctx;
	uint16_t max = vnm_reg_size(fq->index);

	FUZZ_CHECK(fq->index < vnm.nq);
	FUZZ_CHECK(fq->size && fq->size <= max && !(fq->size & (fq->size - 1)) &&
		   fq->size <= FNET_MAX_QSIZE);
	FUZZ_CHECK(mock_port_is_shared(&s->fd->mp, fq->desc, VIRTQ_DESC_TABLE_SIZE(fq->size)));
	FUZZ_CHECK(mock_port_is_shared(&s->fd->mp, fq->avail, VIRTQ_AVAIL_SIZE(fq->size)));
	FUZZ_CHECK(mock_port_is_shared(&s->fd->mp, fq->used, VIRTQ_USED_SIZE(fq->size)));
	return 0;
}

/* The device answers the command as the input said. */
static void vnm_answer(struct fnet *s)
{
	struct fake_queue *fq = fake_virtio_queue(&s->dev, (uint16_t)vnm.ctrl_index);
	struct fake_chain fc;
	uint8_t *ack;

	vnm.pending = false;
	vnm.answered = true;
	FUZZ_CHECK(fq != NULL);
	FUZZ_CHECK(fake_virtio_pop(&s->dev, fq->index, &fc) == 1);
	FUZZ_CHECK(fc.head == vnm.head);
	ack = (uint8_t *)(uintptr_t)fc.addr[2];
	*ack = vnm.ack;
	switch (vnm.id) {
	case VNM_ID_HEAD:
		fake_virtio_push(&s->dev, fq->index, fc.head, vnm.len);
		break;
	case VNM_ID_OTHER:
		/* Any other entry: not in flight (the command is the only chain). */
		fake_virtio_push(&s->dev, fq->index,
				 (fc.head + 1 + vnm.other % (fq->size - 1)) % fq->size, vnm.len);
		break;
	case VNM_ID_OUT:
		fake_virtio_push(&s->dev, fq->index, vnm.other, vnm.len);
		break;
	default:
		fake_virtio_set_idx(&s->dev, fq->index, (uint16_t)(fq->used_idx + 2));
		break;
	}
}

/* The device finds the command on the control queue and checks it. */
static void vnm_notify(struct fake_virtio *f, uint16_t index)
{
	struct fnet *s = f->ctx;
	struct fake_queue *fq = fake_virtio_queue(f, index);
	const uint8_t *cmd;
	bool conf = f->vdev.confidential;
	uint16_t pairs;

	FUZZ_CHECK(fq != NULL);
	if (index != vnm.ctrl_index || vnm.pending || vnm.answered ||
	    !fake_virtio_avail_pending(f, index))
		return;
	{
		/* Peek: the chain stays on the ring until the device answers. */
		struct fake_chain fc;
		uint16_t keep = fq->next_avail;

		FUZZ_CHECK(fake_virtio_pop(f, index, &fc) == 1);
		fq->next_avail = keep;
		FUZZ_CHECK(fc.n == 3 && !fc.write[0] && !fc.write[1] && fc.write[2]);
		FUZZ_CHECK(fc.len[0] == 2 && fc.len[1] == 2 && fc.len[2] == 1);
		for (unsigned int k = 0; k < 3; k++)
			FUZZ_CHECK(!conf ||
				   mock_port_is_shared(&s->fd->mp, (void *)(uintptr_t)fc.addr[k],
						       fc.len[k]));
		cmd = (const uint8_t *)(uintptr_t)fc.addr[0];
		FUZZ_CHECK(cmd[0] == 4 && cmd[1] == 0); /* VIRTIO_NET_CTRL_MQ, VQ_PAIRS_SET */
		memcpy(&pairs, (const void *)(uintptr_t)fc.addr[1], 2);
		FUZZ_CHECK(pairs == vnm.want);
		vnm.head = fc.head;
	}
	vnm.kicks++;
	vnm.pending = true;
	vnm.reads = 0;
	if (vnm.due == 0)
		vnm_answer(s);
}

/* Every clock read of the driver's wait: the device may answer now. */
static void vnm_tick(void *ctx)
{
	struct fnet *s = ctx;

	if (vnm.pending && ++vnm.reads == vnm.due)
		vnm_answer(s);
}

/* Registers, features and the answer from the input; returns the pairs the
 * driver wants. */
static unsigned int vnm_configure(struct fnet *s, uint16_t *max_pairs_cfg)
{
	struct fuzz_in *in = s->in;
	struct fake_virtio *f = &s->dev;
	uint8_t dev = fuzz_u8(in), b;
	unsigned int wanted = 1 + (dev >> 5);
	uint16_t d;

	f->offered = VIRTIO_FEATURE(VIRTIO_F_VERSION_1) | VIRTIO_FEATURE(VIRTIO_F_ACCESS_PLATFORM);
	if (dev & 1)
		f->offered |= VIRTIO_FEATURE(FNET_F_CTRL_VQ);
	if (dev & 2)
		f->offered |= VIRTIO_FEATURE(FNET_F_MQ);
	if (dev & 4)
		f->offered |= VIRTIO_FEATURE(FNET_F_MAC);
	if (dev & 8)
		f->offered |= VIRTIO_FEATURE(FNET_F_STATUS);
	if (dev & 0x10)
		f->reset_script = fuzz_u8(in);
	fuzz_bytes(in, f->cfg, 8); /* MAC, status */
	b = fuzz_u8(in);
	*max_pairs_cfg = b < 0xf0 ? b % 9 : fuzz_u16(in);
	memcpy(f->cfg + 8, max_pairs_cfg, 2);
	b = fuzz_u8(in);
	vnm.nq = b < 0xf0 ? b % 20 : fuzz_u16(in);
	b = fuzz_u8(in);
	vnm.nq_alt = b < 0xf0 ? b % 20 : fuzz_u16(in);
	f->num_queues = vnm.nq;
	/* With MQ (the driver asks for it only to use more than one pair) the
	 * control queue sits at 2 * max_virtqueue_pairs, else at 2. */
	vnm.ctrl_index =
		2u * (wanted > 1 && (f->offered & VIRTIO_FEATURE(FNET_F_MQ)) ? *max_pairs_cfg : 1u);
	/* Data queues share a size, one of them may differ, the control queue
	 * has its own. */
	b = fuzz_u8(in);
	d = b == 0xff ? fuzz_u16(in) : b % 65;
	for (unsigned int i = 0; i < VNM_REGS; i++)
		vnm.size[i] = d;
	vnm.size_other = d;
	b = fuzz_u8(in);
	if (b) {
		unsigned int i = b % VNM_REGS;

		b = fuzz_u8(in);
		vnm.size[i] = b == 0xff ? fuzz_u16(in) : b % 65;
	}
	b = fuzz_u8(in);
	vnm.size_ctrl = b == 0xff ? fuzz_u16(in) : b % 17;
	/* The answer to the command. */
	b = fuzz_u8(in);
	vnm.due = b < 0xe0 ? b % 9 : VNM_BUDGET + 1;
	vnm.ack = fuzz_u8(in);
	if (vnm.ack < 0xc0)
		vnm.ack = 0; /* mostly VIRTIO_NET_OK */
	b = fuzz_u8(in);
	switch (b & 7) {
	case 5:
		vnm.len = 0;
		break;
	case 6:
		vnm.len = 2;
		break;
	case 7:
		vnm.len = fuzz_u32(in);
		break;
	default:
		vnm.len = 1;
		break;
	}
	switch ((b >> 3) & 7) {
	case 5:
		vnm.id = VNM_ID_OTHER;
		vnm.other = 1 + fuzz_u8(in) % 7; /* the queue has 8 entries at most */
		break;
	case 6:
		vnm.id = VNM_ID_OUT;
		vnm.other = fuzz_u32(in) | 0x100;
		break;
	case 7:
		vnm.id = VNM_ID_BREAK;
		break;
	default:
		vnm.id = VNM_ID_HEAD;
		break;
	}
	if (wanted > 1)
		s->usable |= VIRTIO_FEATURE(FNET_F_MQ) | VIRTIO_FEATURE(FNET_F_CTRL_VQ);
	return wanted;
}

/* The pow2 floor of @v. */
static unsigned int vnm_pow2(unsigned int v)
{
	while (v & (v - 1))
		v &= v - 1;
	return v;
}

/*
 * What virtio_net_init_mq() must do with this device, computed from the
 * registers as the spec and the driver's documentation say: whether it
 * succeeds (*ok), with how many pairs set up (*alloc) and enabled (*enabled),
 * whether it waits for the command in vain (*timeout).
 */
static void vnm_predict(struct fnet *s, unsigned int wanted, uint16_t max_pairs_cfg,
			unsigned int max_queue, bool *ok, unsigned int *alloc,
			unsigned int *enabled, bool *timeout)
{
	const struct fake_virtio *f = &s->dev;
	bool mq = wanted > 1 && (f->offered & VIRTIO_FEATURE(FNET_F_MQ));
	bool ctrl = wanted > 1 && (f->offered & VIRTIO_FEATURE(FNET_F_CTRL_VQ));
	unsigned int device_pairs = 1, want, size, needed;
	bool acked;

	*ok = false;
	*alloc = *enabled = 0;
	*timeout = false;
	if ((f->reset_script & 1) || ((f->offered & VIRTIO_FEATURE(FNET_F_MAC)) && f->cfg_fails))
		return;
	if (mq) {
		if (f->cfg_fails || max_pairs_cfg < 1 || max_pairs_cfg > 0x8000)
			return;
		device_pairs = max_pairs_cfg;
	}
	needed = 2 * device_pairs + ctrl;
	if (needed > vnm.nq) /* the first read of num_queues */
		return;
	want = wanted < device_pairs ? wanted : device_pairs;
	if (!ctrl)
		want = 1;
	size = 0xffff;
	for (unsigned int q = 0; q < 2 * want; q++)
		if (vnm_reg_size(q) < size)
			size = vnm_reg_size(q);
	if (max_queue && size > max_queue)
		size = max_queue;
	size = vnm_pow2(size);
	if (!size || size > FNET_MAX_QSIZE || 2 * size * want > s->max_bufs)
		return;
	if (want > 1) {
		unsigned int ci = 2 * device_pairs, cs;
		uint16_t nq2 = vnm.nq_alt ? vnm.nq_alt : vnm.nq; /* the second read */

		cs = vnm_reg_size(ci);
		cs = vnm_pow2(cs < 8 ? cs : 8);
		if (ci >= nq2 || cs < 4)
			return;
	}
	if (f->refuse_driver_ok)
		return;
	*ok = true;
	*alloc = want;
	*enabled = 1;
	if (want > 1) {
		if (vnm.due > VNM_BUDGET || vnm.id == VNM_ID_OTHER || vnm.id == VNM_ID_OUT) {
			*timeout = true;
			acked = false;
		} else {
			acked = vnm.id == VNM_ID_HEAD && vnm.len == 1 && vnm.ack == 0;
		}
		if (acked)
			*enabled = want;
	}
}

/*
 * The device from the input, virtio_net_init_mq() on it, and what it set up
 * against vnm_predict(). Returns the pairs set up; 0 when init failed as
 * predicted and the run is over (checked and released).
 */
static unsigned int vnm_init(struct fnet *s, struct fuzz_in *in, uint8_t mode)
{
	struct virtio_net_buffers bufs;
	struct fuzz_quarantine mark;
	unsigned int wanted, max_queue, alloc, enabled;
	uint16_t max_pairs_cfg;
	bool ok, timeout;
	char why[160];
	int rc;

	/* Two pools: eight pairs of 64 buffers and their rings fit. */
	fnet_begin(s, in, mode, (int)(((mode >> 1) + 1) & 3));
	memset(&vnm, 0, sizeof(vnm));
	s->max_bufs = FNET_MAX_BUFS;
	s->dev.read_num_queues = vnm_read_num_queues;
	s->dev.read_max_size = vnm_read_max_size;
	s->dev.on_setup = vnm_setup;
	s->dev.on_notify = vnm_notify;
	bufs = fnet_buffers(s);
	wanted = vnm_configure(s, &max_pairs_cfg);
	/* At most 64 entries: every pair's buffers fit the pools. */
	max_queue = fuzz_u8(in) % 64 + 1;
	fuzz_clock_start(VNM_BUDGET, vnm_tick, s);
	vnm_predict(s, wanted, max_pairs_cfg, max_queue, &ok, &alloc, &enabled, &timeout);
	vnm.want = (uint16_t)alloc;
	why[0] = '\0';
	fuzz_quarantine_mark(&mark, s->fd);
	rc = virtio_net_init_mq(&s->net, &s->dev.vdev, &s->fd->dl, &bufs, max_queue, wanted, why,
				sizeof(why));
	FUZZ_CHECK(!rc == ok);
	if (rc) {
		FUZZ_CHECK(why[0] && memchr(why, '\0', sizeof(why)) != NULL);
		fnet_init_failed(s, &mark);
		return 0;
	}
	FUZZ_CHECK(s->net.pairs_allocated == alloc && s->net.npairs == enabled);
	FUZZ_CHECK(s->net.ctrl_timeouts == timeout);
	FUZZ_CHECK(vnm.kicks == (alloc > 1));
	/* No queue of the device but the 2N + 1 it has; none set up twice. */
	FUZZ_CHECK(s->dev.nq == 2 * alloc + (alloc > 1));
	for (unsigned int i = 0; i < s->dev.nq; i++)
		FUZZ_CHECK(s->dev.q[i].index < 2 * alloc ||
			   (alloc > 1 && s->dev.q[i].index == 2 * s->net.device_pairs));
	return alloc;
}

/*
 * One step, on any pair set up or the one beyond them (from bits 4 to 7): a
 * data-path step (fnet_data_op()) on a pair set up, a send on the pair beyond
 * (refused), or this target's own: 6 toggles the device's used-ring changes
 * (bit 3 set) or flips the link, 7 moves an index where it must not go.
 */
static void vnm_op(struct fnet *s, uint8_t op, unsigned int alloc)
{
	unsigned int p = (op >> 4) % (alloc + 1);
	unsigned int kind = op & 7;

	if (kind == 6 && (op & 8))
		s->mutate = !s->mutate;
	else if (kind == 6)
		fnet_link(s);
	else if (p == alloc && kind == 3)
		FUZZ_CHECK(virtio_net_send_on(&s->net, p, vnm_frame, 60) == -22);
	else if (p < alloc && !fnet_data_op(s, kind, p))
		fnet_hostile_idx(s, p, (op >> 3) & 1);
}

int fuzz_virtio_net_mq_one(const uint8_t *data, size_t size)
{
	struct fuzz_in in = fuzz_in_start(data, size);
	struct fnet *s = &fnet;
	unsigned int alloc;

	alloc = vnm_init(s, &in, fuzz_u8(&in));
	if (!alloc)
		return 0;
	fnet_attach(s);
	fnet_check(s, s->fd->deep);
	for (unsigned int ops = 0; fuzz_more(&in) && ops < VNM_MAX_OPS; ops++) {
		vnm_op(s, fuzz_u8(&in), alloc);
		fnet_take_all(s, alloc);
		fnet_check(s, s->fd->deep && ops % 8 == 7);
	}
	fnet_check(s, s->fd->deep);
	fnet_end(s);
	return 0;
}
