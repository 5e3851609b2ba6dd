/* SPDX-License-Identifier: MIT */
/*
 * test_hostile_device.c - the control path of the virtio drivers against a device
 * that lies (tests/fakes/fake_virtio.c): every wait ends at its deadline, a broken queue
 * is an error and not "nothing yet", a device that does not reset keeps what it
 * holds (quarantined, counted, never reused), the control queue never lands on a
 * data queue, and a register that changes between reads is read once.
 *
 * Deadlines run on a clock that advances one tick per read, at 1000 ticks per
 * millisecond, with a 5 ms budget: a wait that would never end ends after about
 * 5000 polls. An alarm fails the whole program if a wait does not end at all.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "drivers/deadline.h"
#include "drivers/quarantine.h"
#include "drivers/virtio/virtio_blk.h"
#include "drivers/virtio/virtio_net.h"
#include "tests/fakes/fake_virtio.h"
#include "tests/fakes/test_bounce_fixture.h"

#define TICKS_PER_MS 1000u
#define BUDGET_MS 5u

/* virtio-net and virtio-blk feature bits and configuration offsets (virtio 1.2,
 * 5.1.3-5.1.4 and 5.2.3-5.2.4). */
#define NET_F_CTRL_VQ 17
#define NET_F_MQ 22
#define NET_CFG_MAX_PAIRS 8
#define BLK_F_MQ 12
#define BLK_CFG_NUM_QUEUES 34

static uint64_t ticks;

/* A DMA layer with one bounce pool, and the deadline clock, for every test. */
static int setup(void **state)
{
	struct fx *f = fx_new(SLUICE_DMA_POLICY_SLUICE, 1, 1 << 20, SLUICE_DMA_SCRUB_ZERO);

	if (!f)
		return -1;
	ticks = 0;
	deadline_set_clock(fake_virtio_clock_ticks, &ticks, TICKS_PER_MS);
	deadline_set_timeout_ms(BUDGET_MS);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	deadline_set_clock(NULL, NULL, 0);
	deadline_set_timeout_ms(0);
	return fx_free(*state);
}

static void *buf_alloc(void *ctx, size_t size)
{
	(void)ctx;
	return calloc(1, size);
}

static void buf_free(void *ctx, void *p)
{
	(void)ctx;
	free(p);
}

static const struct virtio_net_buffers net_bufs = { buf_alloc, buf_free, NULL };

static void blk_device(struct fake_virtio *dev, uint64_t features, uint16_t num_queues)
{
	uint64_t capacity = 2048;

	fake_virtio_init(dev, VIRTIO_ID_BLOCK, features, num_queues);
	memcpy(dev->cfg, &capacity, sizeof(capacity));
}

/* ------------------------------------------------------------ deadlines */

static void test_deadline_without_clock_counts_checks(void **state)
{
	struct deadline d;
	unsigned int n = 0;

	(void)state;
	deadline_set_clock(NULL, NULL, 0);
	deadline_start(&d, 2);
	while (!deadline_passed(&d))
		n++;
	assert_int_equal(n, 2 * 1000 - 1);
	deadline_set_clock(fake_virtio_clock_ticks, &ticks, TICKS_PER_MS);
	ticks = 0;
	deadline_start(&d, 0); /* the budget: 5 ms = 5000 ticks */
	for (n = 0; !deadline_passed(&d); n++)
		;
	/* One read to start, then reads until the budget is used up. */
	assert_int_equal(ticks, 1 + BUDGET_MS * TICKS_PER_MS);
	assert_int_equal(n, BUDGET_MS * TICKS_PER_MS - 1);
}

/* A request the device never completes: virtio_blk_rw() ends at its deadline,
 * resets the device and takes the request back; nothing stays mapped. */
static void test_blk_rw_ends_at_deadline(void **state)
{
	struct fx *f = *state;
	struct fake_virtio dev;
	struct virtio_blk blk;
	struct virtio_blk_stats st;
	struct sluice_dma_bounce_stats bs0, bs1;
	char why[160];
	uint8_t *buf = calloc(1, 4096);
	unsigned int resets;

	blk_device(&dev, 0, 1);
	assert_int_equal(virtio_blk_init(&blk, &dev.vdev, &f->dl, 1, 0, why, sizeof(why)), 0);
	resets = dev.resets;
	sluice_dma_bounce_stats_get(&f->dl, -1, &bs0);
	ticks = 0;
	assert_int_equal(virtio_blk_rw(&blk, VIRTIO_BLK_OP_READ, 0, buf, 4096), -110);
	/* Ended at the budget, not long after. */
	assert_true(ticks >= BUDGET_MS * TICKS_PER_MS);
	assert_true(ticks < 2 * BUDGET_MS * TICKS_PER_MS);
	assert_int_equal(dev.resets, resets + 1);
	assert_true(blk.stopped);
	assert_false(blk.quarantined);
	virtio_blk_stats_get(&blk, &st);
	assert_int_equal(st.abandoned, 1);
	/* The request's bounce slot came back: only rings and slots stay mapped. */
	sluice_dma_bounce_stats_get(&f->dl, -1, &bs1);
	assert_int_equal(bs1.mappings - bs1.unmaps, bs0.mappings - bs0.unmaps);
	assert_int_equal(bs1.mappings, bs0.mappings + 1);
	/* Stopped means stopped: nothing more is accepted. */
	assert_int_equal(virtio_blk_submit(&blk, 0, VIRTIO_BLK_OP_READ, 0, buf, 4096, buf), -5);
	assert_int_equal(virtio_blk_remove(&blk), 0);
	free(buf);
}

/* On a kick: take the chain and claim nine completions for it. */
static void jump_used_idx(struct fake_virtio *dev, uint16_t qi)
{
	struct fake_chain ch;

	if (fake_virtio_pop(dev, qi, &ch) == 1)
		fake_virtio_set_idx(dev, qi, 9);
}

/* A used index that jumps breaks the queue: poll says so (-5) rather than "no
 * completion yet", and virtio_blk_rw() gives up at once and stops the device. */
static void test_blk_broken_queue_is_an_error(void **state)
{
	struct fx *f = *state;
	struct fake_virtio dev;
	struct virtio_blk blk;
	struct virtio_blk_completion c;
	struct virtio_blk_stats st;
	char why[160];
	uint8_t *buf = calloc(1, 4096);
	int cookie;

	blk_device(&dev, 0, 1);
	assert_int_equal(virtio_blk_init(&blk, &dev.vdev, &f->dl, 1, 0, why, sizeof(why)), 0);
	dev.on_notify = jump_used_idx;
	ticks = 0;
	assert_int_equal(virtio_blk_rw(&blk, VIRTIO_BLK_OP_READ, 8, buf, 4096), -5);
	assert_true(ticks < TICKS_PER_MS); /* no wait for the deadline */
	assert_true(blk.stopped);
	virtio_blk_stats_get(&blk, &st);
	assert_int_equal(st.abandoned, 1);
	assert_int_equal(virtio_blk_poll(&blk, 0, &c, 1), -5);
	assert_int_equal(virtio_blk_remove(&blk), 0);

	/* The same seen through poll by a caller of its own. */
	blk_device(&dev, 0, 1);
	assert_int_equal(virtio_blk_init(&blk, &dev.vdev, &f->dl, 1, 0, why, sizeof(why)), 0);
	assert_int_equal(virtio_blk_submit(&blk, 0, VIRTIO_BLK_OP_READ, 0, buf, 4096, &cookie), 0);
	dev.on_notify = jump_used_idx;
	virtio_blk_kick(&blk, 0);
	assert_int_equal(virtio_blk_poll(&blk, 0, &c, 1), -5);
	assert_int_equal(virtio_blk_poll(&blk, 0, &c, 1), -5);
	assert_false(blk.stopped); /* the caller decides; remove stops and frees */
	assert_int_equal(virtio_blk_remove(&blk), 0);
	free(buf);
}

/* The device answers a read (sector, @fill) through its slot and sets the status. */
static void blk_fill(const struct fake_chain *ch, uint8_t fill)
{
	memset((void *)(uintptr_t)ch->addr[1], fill, ch->len[1]);
	*(uint8_t *)(uintptr_t)ch->addr[ch->n - 1] = 0; /* VIRTIO_BLK_S_OK */
}

/* Used entries that name no request in flight (an id beyond the queue, a replay)
 * are skipped and a length beyond the buffers fails its request, as before; they
 * are also counted where the caller sees them (bad_used, bad_len) and add up to
 * the protocol errors that make the device a faulty one. The requests the device
 * completed properly keep their data. */
static void test_blk_protocol_errors_counted(void **state)
{
	struct fx *f = *state;
	struct fake_virtio dev;
	struct virtio_blk blk;
	struct virtio_blk_completion c[4];
	struct virtio_blk_stats st;
	struct fake_chain ch1, ch2;
	char why[160];
	uint8_t *buf1 = calloc(1, 4096), *buf2 = calloc(1, 4096);
	int cookie1, cookie2;

	blk_device(&dev, 0, 1);
	assert_int_equal(virtio_blk_init(&blk, &dev.vdev, &f->dl, 1, 0, why, sizeof(why)), 0);
	/* An honest completion counts nothing. */
	assert_int_equal(virtio_blk_submit(&blk, 0, VIRTIO_BLK_OP_READ, 0, buf1, 4096, &cookie1),
			 0);
	virtio_blk_kick(&blk, 0);
	assert_true(fake_virtio_pop(&dev, 0, &ch1));
	blk_fill(&ch1, 0x22);
	fake_virtio_push(&dev, 0, ch1.head, 4097);
	assert_int_equal(virtio_blk_poll(&blk, 0, c, 4), 1);
	assert_int_equal(c[0].status, 0);
	virtio_blk_stats_get(&blk, &st);
	assert_int_equal(virtio_blk_protocol_errors(&st), 0);

	assert_int_equal(virtio_blk_submit(&blk, 0, VIRTIO_BLK_OP_READ, 0, buf1, 4096, &cookie1),
			 0);
	assert_int_equal(virtio_blk_submit(&blk, 0, VIRTIO_BLK_OP_READ, 8, buf2, 4096, &cookie2),
			 0);
	virtio_blk_kick(&blk, 0);
	assert_true(fake_virtio_pop(&dev, 0, &ch1));
	assert_true(fake_virtio_pop(&dev, 0, &ch2));
	/* An id beyond the queue (64 entries) in place of a completion. */
	fake_virtio_push(&dev, 0, 64 + 7, 4097);
	assert_int_equal(virtio_blk_poll(&blk, 0, c, 4), 0);
	/* The first request, then its id again in the same used->idx update. */
	blk_fill(&ch1, 0x11);
	fake_virtio_push(&dev, 0, ch1.head, 4097);
	fake_virtio_push(&dev, 0, ch1.head, 4097);
	assert_int_equal(virtio_blk_poll(&blk, 0, c, 4), 1);
	assert_ptr_equal(c[0].cookie, &cookie1);
	assert_int_equal(c[0].status, 0);
	for (size_t i = 0; i < 4096; i++)
		assert_int_equal(buf1[i], 0x11);
	/* The second with a used length 4096 bytes beyond its buffers: failed, its
	 * data (written, but not vouched for) not copied. */
	blk_fill(&ch2, 0x33);
	fake_virtio_push(&dev, 0, ch2.head, 4097 + 4096);
	assert_int_equal(virtio_blk_poll(&blk, 0, c, 4), 1);
	assert_ptr_equal(c[0].cookie, &cookie2);
	assert_int_equal(c[0].status, -34);
	for (size_t i = 0; i < 4096; i++)
		assert_int_equal(buf2[i], 0);

	virtio_blk_stats_get(&blk, &st);
	assert_int_equal(st.bad_used, 2);
	assert_int_equal(st.bad_len, 1);
	assert_int_equal(st.bad_status, 0);
	assert_int_equal(virtio_blk_protocol_errors(&st), 3);
	assert_int_equal(st.completed, 3);
	assert_false(blk.stopped); /* each lie was caught: the caller decides */
	assert_int_equal(virtio_blk_remove(&blk), 0);
	free(buf1);
	free(buf2);
}

/* scrub=written (blk.read_attrs = SLUICE_DMA_ATTR_UNMAP_WRITTEN): a read's slots
 * are not zeroed at map, yet what the buffer gets is what the device wrote for a
 * completion the driver validated, and nothing for one it refused. */
static void test_blk_reads_unmap_written(void **state)
{
	struct fx *f = *state;
	struct fake_virtio dev;
	struct virtio_blk blk;
	struct virtio_blk_completion c[2];
	struct sluice_dma_bounce_stats s0, s1;
	struct fake_chain ch;
	char why[160];
	uint8_t *buf = malloc(4096);
	int cookie;

	blk_device(&dev, 0, 1);
	assert_int_equal(virtio_blk_init(&blk, &dev.vdev, &f->dl, 1, 0, why, sizeof(why)), 0);
	blk.read_attrs = SLUICE_DMA_ATTR_UNMAP_WRITTEN;
	memset(buf, 0x5e, 4096);
	assert_int_equal(sluice_dma_bounce_stats_get(&f->dl, -1, &s0), 0);
	assert_int_equal(virtio_blk_submit(&blk, 0, VIRTIO_BLK_OP_READ, 0, buf, 4096, &cookie), 0);
	assert_int_equal(sluice_dma_bounce_stats_get(&f->dl, -1, &s1), 0);
	/* The data's 4 KiB were not zeroed (header and status live in the queue's slots). */
	assert_int_equal(s1.bytes_scrubbed - s0.bytes_scrubbed, 0);
	virtio_blk_kick(&blk, 0);
	assert_true(fake_virtio_pop(&dev, 0, &ch));
	blk_fill(&ch, 0x44);
	fake_virtio_push(&dev, 0, ch.head, 4097);
	assert_int_equal(virtio_blk_poll(&blk, 0, c, 2), 1);
	assert_int_equal(c[0].status, 0);
	for (size_t i = 0; i < 4096; i++)
		assert_int_equal(buf[i], 0x44);
	/* A used length beyond the buffers: refused, not one byte copied back. */
	memset(buf, 0x5e, 4096);
	assert_int_equal(virtio_blk_submit(&blk, 0, VIRTIO_BLK_OP_READ, 8, buf, 4096, &cookie), 0);
	virtio_blk_kick(&blk, 0);
	assert_true(fake_virtio_pop(&dev, 0, &ch));
	blk_fill(&ch, 0x55);
	fake_virtio_push(&dev, 0, ch.head, 4097 + 4096);
	assert_int_equal(virtio_blk_poll(&blk, 0, c, 2), 1);
	assert_int_equal(c[0].status, -34);
	for (size_t i = 0; i < 4096; i++)
		assert_int_equal(buf[i], 0x5e);
	/* Writes are mapped as before: the buffer goes in. */
	assert_int_equal(virtio_blk_submit(&blk, 0, VIRTIO_BLK_OP_WRITE, 8, buf, 4096, &cookie), 0);
	virtio_blk_kick(&blk, 0);
	assert_true(fake_virtio_pop(&dev, 0, &ch));
	assert_int_equal(memcmp((void *)(uintptr_t)ch.addr[1], buf, 4096), 0);
	*(uint8_t *)(uintptr_t)ch.addr[ch.n - 1] = 0;
	fake_virtio_push(&dev, 0, ch.head, 1);
	assert_int_equal(virtio_blk_poll(&blk, 0, c, 2), 1);
	assert_int_equal(c[0].status, 0);
	assert_int_equal(virtio_blk_remove(&blk), 0);
	free(buf);
}

/* A device that does not reset keeps its rings, slots and the bounce slot of the
 * request in flight: nothing is freed, a new mapping never gets that slot, and
 * the bytes are counted here and in the quarantine ledger. */
static void test_blk_reset_failure_quarantines(void **state)
{
	struct fx *f = *state;
	struct fake_virtio dev;
	struct virtio_blk blk;
	struct fake_chain ch;
	struct quarantine_totals q0, q1;
	struct sluice_dma_bounce_stats bs0, bs1;
	char why[160];
	uint8_t *buf = calloc(1, 4096), *other = calloc(1, 4096);
	uint64_t held, again;
	int cookie;

	blk_device(&dev, 0, 1);
	assert_int_equal(virtio_blk_init(&blk, &dev.vdev, &f->dl, 1, 0, why, sizeof(why)), 0);
	assert_int_equal(virtio_blk_submit(&blk, 0, VIRTIO_BLK_OP_READ, 0, buf, 4096, &cookie), 0);
	virtio_blk_kick(&blk, 0);
	assert_int_equal(fake_virtio_pop(&dev, 0, &ch), 1);
	assert_int_equal(ch.n, 3);
	held = ch.addr[1]; /* the data buffer the device was given */
	quarantine_totals_get(&q0);
	sluice_dma_bounce_stats_get(&f->dl, -1, &bs0);

	dev.reset_fails = true;
	assert_int_equal(virtio_blk_remove(&blk), -5);
	assert_true(blk.quarantined);
	assert_int_equal(blk.quarantined_mappings, 1);
	assert_true(blk.quarantined_bytes >= 4096 + 64 * 32);
	quarantine_totals_get(&q1);
	assert_int_equal(q1.devices, q0.devices + 1);
	assert_int_equal(q1.bytes - q0.bytes, blk.quarantined_bytes);
	assert_int_equal(q1.mappings - q0.mappings, 1);
	/* Nothing was unmapped or freed ... */
	sluice_dma_bounce_stats_get(&f->dl, -1, &bs1);
	assert_int_equal(bs1.unmaps, bs0.unmaps);
	/* ... so a late write by the device lands in its own slot only, and the
	 * next mapping gets another one. */
	memset((void *)(uintptr_t)held, 0xee, 4096);
	assert_int_equal(sluice_dma_map(&f->dl, &SLUICE_DMA_TAG_DEFAULT, other, 4096,
					SLUICE_DMA_FROM_DEVICE, &again),
			 0);
	assert_true(again != held);
	sluice_dma_unmap(&f->dl, again, 4096, SLUICE_DMA_FROM_DEVICE);
	for (size_t i = 0; i < 4096; i++)
		assert_int_equal(other[i], 0);
	/* Removing again changes nothing and counts nothing twice. */
	assert_int_equal(virtio_blk_remove(&blk), -5);
	quarantine_totals_get(&q0);
	assert_int_equal(q0.devices, q1.devices);
	/* The fixture's teardown must not see the quarantined mappings as a leak
	 * of the layer: let the device go for the test's end. */
	dev.reset_fails = false;
	blk.stopped = false;
	blk.quarantined = false;
	assert_int_equal(virtio_blk_remove(&blk), 0);
	free(buf);
	free(other);
}

/* An initialisation that fails after the rings were given to the device (it
 * refuses DRIVER_OK) releases them only if the device resets. */
static void test_blk_failed_init_releases_only_after_reset(void **state)
{
	struct fx *f = *state;
	struct fake_virtio dev;
	struct virtio_blk blk;
	struct sluice_dma_bounce_stats bs0, bs1;
	char why[160];

	blk_device(&dev, 0, 1);
	dev.driver_ok_adds = VIRTIO_STATUS_FAILED;
	sluice_dma_bounce_stats_get(&f->dl, -1, &bs0);
	assert_int_equal(virtio_blk_init(&blk, &dev.vdev, &f->dl, 1, 0, why, sizeof(why)), -5);
	sluice_dma_bounce_stats_get(&f->dl, -1, &bs1);
	assert_true(bs1.mappings > bs0.mappings); /* rings and slots were allocated ... */
	assert_int_equal(bs1.mappings - bs1.unmaps, bs0.mappings - bs0.unmaps); /* ... and freed */
	assert_false(blk.quarantined);

	/* The same with a device that does not reset: nothing comes back. */
	blk_device(&dev, 0, 1);
	dev.driver_ok_adds = VIRTIO_STATUS_FAILED;
	dev.reset_fails_after_init = true;
	assert_int_equal(virtio_blk_init(&blk, &dev.vdev, &f->dl, 1, 0, why, sizeof(why)), -5);
	assert_true(blk.quarantined);
	assert_true(blk.quarantined_bytes > 0);
	sluice_dma_bounce_stats_get(&f->dl, -1, &bs1);
	assert_true(bs1.mappings - bs1.unmaps > bs0.mappings - bs0.unmaps);
	/* Let go for the fixture's leak check. */
	dev.reset_fails = false;
	blk.stopped = false;
	blk.quarantined = false;
	assert_int_equal(virtio_blk_remove(&blk), 0);
}

/* num_queues that reads 8, then 1: the driver uses what it read once. */
static void test_blk_num_queues_read_once(void **state)
{
	struct fx *f = *state;
	struct fake_virtio dev;
	struct virtio_blk blk;
	char why[160];
	uint16_t cfg_queues = 8;

	blk_device(&dev, VIRTIO_FEATURE(BLK_F_MQ), 1);
	memcpy(dev.cfg + BLK_CFG_NUM_QUEUES, &cfg_queues, 2);
	dev.num_queues_alt = 8; /* 1, then 8, then 1 ... */
	assert_int_equal(virtio_blk_init(&blk, &dev.vdev, &f->dl, 8, 0, why, sizeof(why)), 0);
	assert_int_equal(blk.nqueues, 1);
	for (unsigned int q = 1; q < FAKE_VIRTIO_MAX_QUEUES; q++)
		assert_int_equal(dev.setups[q], 0);
	assert_int_equal(virtio_blk_remove(&blk), 0);
}

/* ------------------------------------------------------------ virtio-net */

/* A NIC offering multiqueue and the control queue: @pairs in max_virtqueue_pairs,
 * @num_queues queues in the common configuration. */
static void mq_net_device(struct fake_virtio *dev, unsigned int pairs, uint16_t num_queues)
{
	uint16_t max = (uint16_t)pairs;

	fake_virtio_init(dev, VIRTIO_ID_NET,
			 VIRTIO_FEATURE(NET_F_MQ) | VIRTIO_FEATURE(NET_F_CTRL_VQ), num_queues);
	memcpy(dev->cfg + NET_CFG_MAX_PAIRS, &max, 2);
}

/* max_virtqueue_pairs = 0x8000 would put the control queue at 2 * 0x8000, which a
 * 16-bit index wraps to 0: receive queue 0. The device is refused instead. */
static void test_net_ctrl_queue_index_never_wraps(void **state)
{
	struct fx *f = *state;
	struct fake_virtio dev;
	struct virtio_net net;
	char why[160];
	unsigned int pairs = 0x8000;

	mq_net_device(&dev, pairs, 5);
	assert_int_not_equal(
		virtio_net_init_mq(&net, &dev.vdev, &f->dl, &net_bufs, 8, 2, why, sizeof(why)), 0);
	assert_non_null(strstr(why, "need 65537 queues, the device has 5"));
	for (unsigned int q = 0; q < FAKE_VIRTIO_MAX_QUEUES; q++)
		assert_true(dev.setups[q] <= 1);
}

/* Pairs beyond what num_queues holds: refused too. */
static void test_net_pairs_bounded_by_num_queues(void **state)
{
	struct fx *f = *state;
	struct fake_virtio dev;
	struct virtio_net net;
	char why[160];
	unsigned int pairs = 4;

	mq_net_device(&dev, pairs, 5);
	assert_int_not_equal(
		virtio_net_init_mq(&net, &dev.vdev, &f->dl, &net_bufs, 8, 2, why, sizeof(why)), 0);
	assert_non_null(strstr(why, "4 queue pairs and a control queue need 9 queues"));
}

/* A control command the device never answers: the wait ends at its deadline,
 * the device stays on one pair, and removal (which resets it) frees all. */
static void test_net_ctrl_command_unanswered(void **state)
{
	struct fx *f = *state;
	struct fake_virtio dev;
	struct virtio_net net;
	char why[160];
	unsigned int pairs = 2;

	mq_net_device(&dev, pairs, 5);
	ticks = 0;
	assert_int_equal(
		virtio_net_init_mq(&net, &dev.vdev, &f->dl, &net_bufs, 8, 2, why, sizeof(why)), 0);
	assert_int_equal(dev.setups[4], 1); /* the control queue at 2N = 4 */
	assert_int_equal(net.npairs, 1);
	assert_int_equal(net.ctrl_timeouts, 1);
	assert_true(ticks >= BUDGET_MS * TICKS_PER_MS && ticks < 2 * BUDGET_MS * TICKS_PER_MS);
	assert_int_equal(virtio_net_remove(&net), 0);
}

/* The queue size register reads 64, then 8: every queue is set up with at most
 * the smallest value read. */
static void test_net_queue_size_read_once(void **state)
{
	struct fx *f = *state;
	struct fake_virtio dev;
	struct virtio_net net;
	char why[160];

	fake_virtio_init(&dev, VIRTIO_ID_NET, 0, 2);
	dev.max_size_alt = 8;
	assert_int_equal(
		virtio_net_init_mq(&net, &dev.vdev, &f->dl, &net_bufs, 0, 1, why, sizeof(why)), 0);
	assert_true(net.queue_size <= 8);
	assert_true(fake_virtio_queue(&dev, 0)->size <= 8 && fake_virtio_queue(&dev, 1)->size <= 8);
	assert_int_equal(virtio_net_remove(&net), 0);
}

/* A NIC that does not reset at removal keeps every ring and posted buffer. */
static void test_net_reset_failure_quarantines(void **state)
{
	struct fx *f = *state;
	struct fake_virtio dev;
	struct virtio_net net;
	struct sluice_dma_bounce_stats bs0, bs1;
	char why[160];

	fake_virtio_init(&dev, VIRTIO_ID_NET, 0, 2);
	assert_int_equal(
		virtio_net_init_mq(&net, &dev.vdev, &f->dl, &net_bufs, 8, 1, why, sizeof(why)), 0);
	sluice_dma_bounce_stats_get(&f->dl, -1, &bs0);
	dev.reset_fails = true;
	assert_int_equal(virtio_net_remove(&net), -5);
	assert_true(net.quarantined);
	assert_int_equal(net.quarantined_mappings, 8); /* the posted receive buffers */
	sluice_dma_bounce_stats_get(&f->dl, -1, &bs1);
	assert_int_equal(bs1.unmaps, bs0.unmaps);
	assert_int_equal(virtio_net_remove(&net), -5);
	/* Let go for the fixture's leak check. */
	dev.reset_fails = false;
	net.quarantined = false;
	assert_int_equal(virtio_net_remove(&net), 0);
}

static void on_alarm(int sig)
{
	(void)sig;
	static const char msg[] = "test_hostile_device: a wait never ended (alarm)\n";

	(void)!write(2, msg, sizeof(msg) - 1);
	_exit(1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_deadline_without_clock_counts_checks, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_blk_rw_ends_at_deadline, setup, teardown),
		cmocka_unit_test_setup_teardown(test_blk_broken_queue_is_an_error, setup, teardown),
		cmocka_unit_test_setup_teardown(test_blk_protocol_errors_counted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_blk_reads_unmap_written, setup, teardown),
		cmocka_unit_test_setup_teardown(test_blk_reset_failure_quarantines, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_blk_failed_init_releases_only_after_reset,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_blk_num_queues_read_once, setup, teardown),
		cmocka_unit_test_setup_teardown(test_net_ctrl_queue_index_never_wraps, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_net_pairs_bounded_by_num_queues, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_net_ctrl_command_unanswered, setup, teardown),
		cmocka_unit_test_setup_teardown(test_net_queue_size_read_once, setup, teardown),
		cmocka_unit_test_setup_teardown(test_net_reset_failure_quarantines, setup,
						teardown),
	};

	signal(SIGALRM, on_alarm);
	alarm(60);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
