/* SPDX-License-Identifier: MIT */
/*
 * fake_virtio.c - a scriptable virtio device for host tests (see fake_virtio.h).
 */
#include "tests/fake_virtio.h"

#include <string.h>

static struct fake_virtio *fv(struct virtio_device *v)
{
	return (struct fake_virtio *)v->transport;
}

static int fake_reset(struct virtio_device *v)
{
	struct fake_virtio *f = fv(v);

	f->resets++;
	if (f->reset_fails)
		return -5;
	f->status = 0;
	memset(f->q, 0, sizeof(f->q));
	return 0;
}

static uint8_t fake_get_status(struct virtio_device *v)
{
	return fv(v)->status;
}

static void fake_set_status(struct virtio_device *v, uint8_t s)
{
	struct fake_virtio *f = fv(v);

	if (f->nstatus < sizeof(f->status_log))
		f->status_log[f->nstatus++] = s;
	if (s == 0 && f->reset_fails)
		return; /* a device that does not reset keeps its status */
	if ((s & VIRTIO_STATUS_FEATURES_OK) && f->reset_fails_after_init)
		f->reset_fails = true;
	if ((s & VIRTIO_STATUS_FEATURES_OK) && f->refuse_features_ok)
		s &= (uint8_t)~VIRTIO_STATUS_FEATURES_OK;
	if (s & VIRTIO_STATUS_DRIVER_OK)
		s |= f->driver_ok_adds;
	f->status = s;
}

static uint64_t fake_get_features(struct virtio_device *v)
{
	return fv(v)->offered;
}

static void fake_set_features(struct virtio_device *v, uint64_t features)
{
	struct fake_virtio *f = fv(v);

	if (!(f->status & VIRTIO_STATUS_DRIVER) || (f->status & VIRTIO_STATUS_FEATURES_OK))
		f->bad_feature_writes++;
	f->accepted = features;
}

/* A register read: every second one returns @alt when it is set. */
static uint16_t fake_reg(struct fake_virtio *f, uint16_t value, uint16_t alt)
{
	return alt && (f->reg_reads++ & 1) ? alt : value;
}

static uint16_t fake_num_queues(struct virtio_device *v)
{
	return fake_reg(fv(v), fv(v)->num_queues, fv(v)->num_queues_alt);
}

static uint16_t fake_queue_max_size(struct virtio_device *v, uint16_t index)
{
	return index < fv(v)->num_queues ? fake_reg(fv(v), fv(v)->max_size, fv(v)->max_size_alt) :
					   0;
}

static int fake_queue_setup(struct virtio_device *v, uint16_t index, uint16_t size,
			    uint64_t desc, uint64_t driver, uint64_t device)
{
	struct fake_virtio *f = fv(v);

	if (index >= f->num_queues || index >= FAKE_VIRTIO_MAX_QUEUES)
		return -22;
	f->setups[index]++;
	f->q[index].size = size;
	f->q[index].desc = (struct virtq_desc *)(uintptr_t)desc;
	f->q[index].avail = (struct virtq_avail *)(uintptr_t)driver;
	f->q[index].used = (struct virtq_used *)(uintptr_t)device;
	f->q[index].next_avail = 0;
	return 0;
}

static void fake_queue_notify(struct virtio_device *v, uint16_t index)
{
	if (index >= FAKE_VIRTIO_MAX_QUEUES)
		return;
	fv(v)->notifies[index]++;
	if (fv(v)->on_notify)
		fv(v)->on_notify(fv(v), index);
}

static int fake_config_read(struct virtio_device *v, uint32_t offset, void *buf, uint32_t len)
{
	struct fake_virtio *f = fv(v);

	if (offset > FAKE_VIRTIO_CFG_BYTES || len > FAKE_VIRTIO_CFG_BYTES - offset)
		return -34;
	memcpy(buf, f->cfg + offset, len);
	if (offset < FAKE_VIRTIO_CFG_BYTES)
		f->cfg_reads[offset]++;
	if (f->cfg_change)
		f->cfg_change(f, offset);
	return 0;
}

static const struct virtio_transport_ops fake_ops = {
	.reset = fake_reset,
	.get_status = fake_get_status,
	.set_status = fake_set_status,
	.get_features = fake_get_features,
	.set_features = fake_set_features,
	.num_queues = fake_num_queues,
	.queue_max_size = fake_queue_max_size,
	.queue_setup = fake_queue_setup,
	.queue_notify = fake_queue_notify,
	.config_read = fake_config_read,
};

void fake_virtio_init(struct fake_virtio *f, uint16_t type, uint64_t features,
		      uint16_t num_queues)
{
	memset(f, 0, sizeof(*f));
	f->vdev.ops = &fake_ops;
	f->vdev.transport = f;
	f->vdev.device_type = type;
	f->vdev.confidential = true;
	strcpy(f->vdev.name, "fake");
	f->offered = VIRTIO_FEATURE(VIRTIO_F_VERSION_1) |
		     VIRTIO_FEATURE(VIRTIO_F_ACCESS_PLATFORM) | features;
	f->num_queues = num_queues;
	f->max_size = 64;
}

bool fake_virtio_pop(struct fake_virtio *f, uint16_t qi, struct fake_chain *c)
{
	uint16_t size = f->q[qi].size, d;

	if (!size || f->q[qi].next_avail == __atomic_load_n(&f->q[qi].avail->idx, __ATOMIC_ACQUIRE))
		return false;
	c->head = f->q[qi].avail->ring[f->q[qi].next_avail % size];
	f->q[qi].next_avail++;
	c->n = 0;
	for (d = c->head; c->n < FAKE_VIRTIO_MAX_SEGS; d = f->q[qi].desc[d].next) {
		const struct virtq_desc *desc = &f->q[qi].desc[d % size];

		c->addr[c->n] = desc->addr;
		c->len[c->n] = desc->len;
		c->write[c->n] = desc->flags & VIRTQ_DESC_F_WRITE;
		c->n++;
		if (!(desc->flags & VIRTQ_DESC_F_NEXT))
			break;
	}
	return true;
}

void fake_virtio_push(struct fake_virtio *f, uint16_t qi, uint32_t id, uint32_t len)
{
	struct virtq_used *used = f->q[qi].used;
	uint16_t idx = used->idx;

	used->ring[idx % f->q[qi].size].id = id;
	used->ring[idx % f->q[qi].size].len = len;
	__atomic_store_n(&used->idx, (uint16_t)(idx + 1), __ATOMIC_RELEASE);
}

void fake_virtio_set_idx(struct fake_virtio *f, uint16_t qi, uint16_t idx)
{
	__atomic_store_n(&f->q[qi].used->idx, idx, __ATOMIC_RELEASE);
}

uint64_t fake_virtio_clock_ticks(void *ctx)
{
	uint64_t *t = ctx;

	return ++*t;
}
