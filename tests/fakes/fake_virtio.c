/* SPDX-License-Identifier: MIT */
/*
 * fake_virtio.c - a scriptable virtio device for host tests and fuzz targets
 * (see fake_virtio.h).
 */
#include "tests/fakes/fake_virtio.h"

#include "arch/kernel_errno.h"

#include <string.h>

#include "drivers/virtio/virtio_ring.h"

static struct fake_virtio *fv(struct virtio_device *v)
{
	return (struct fake_virtio *)v->transport;
}

static int fake_reset(struct virtio_device *v)
{
	struct fake_virtio *f = fv(v);
	unsigned int k = f->resets++;

	bool fails = f->reset_fails || (k < 32 && (f->reset_script >> k & 1));

	if (f->on_reset)
		f->on_reset(f, !fails);
	if (fails) {
		f->failed_resets++;
		f->failed_holding += f->nq != 0;
		return KERR_IO;
	}
	f->status = 0;
	f->nq = 0; /* a reset device forgets its queues */
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
	if ((s & VIRTIO_STATUS_DRIVER_OK) && f->refuse_driver_ok)
		s |= VIRTIO_STATUS_FAILED;
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
	if (f->on_features)
		f->on_features(f, features);
}

/* A register read: every second one returns @alt when it is set. */
static uint16_t fake_reg(struct fake_virtio *f, uint16_t value, uint16_t alt)
{
	return alt && (f->reg_reads++ & 1) ? alt : value;
}

static uint16_t fake_num_queues(struct virtio_device *v)
{
	struct fake_virtio *f = fv(v);

	if (f->read_num_queues)
		return f->read_num_queues(f);
	return fake_reg(f, f->num_queues, f->num_queues_alt);
}

static uint16_t fake_queue_max_size(struct virtio_device *v, uint16_t index)
{
	struct fake_virtio *f = fv(v);

	if (f->read_max_size)
		return f->read_max_size(f, index);
	return index < f->num_queues ? fake_reg(f, f->max_size, f->max_size_alt) : 0;
}

struct fake_queue *fake_virtio_queue(struct fake_virtio *f, uint16_t index)
{
	for (unsigned int i = 0; i < f->nq; i++)
		if (f->q[i].index == index)
			return &f->q[i];
	return NULL;
}

static int fake_queue_setup(struct virtio_device *v, uint16_t index, uint16_t size, uint64_t desc,
			    uint64_t driver, uint64_t device)
{
	struct fake_virtio *f = fv(v);
	struct fake_queue *q;

	if (index >= f->num_queues)
		return KERR_INVAL;
	q = fake_virtio_queue(f, index);
	if (!q) {
		if (f->nq >= FAKE_VIRTIO_MAX_QUEUES)
			return KERR_NOSPC;
		q = &f->q[f->nq++];
	}
	if (index < FAKE_VIRTIO_MAX_QUEUES)
		f->setups[index]++;
	q->index = index;
	q->size = size;
	q->desc = (struct virtq_desc *)(uintptr_t)desc;
	q->avail = (struct virtq_avail *)(uintptr_t)driver;
	q->used = (struct virtq_used *)(uintptr_t)device;
	q->next_avail = 0;
	q->used_idx = 0;
	return f->on_setup ? f->on_setup(f, q) : 0;
}

static void fake_queue_notify(struct virtio_device *v, uint16_t index)
{
	struct fake_virtio *f = fv(v);

	if (index < FAKE_VIRTIO_MAX_QUEUES)
		f->notifies[index]++;
	if (f->on_notify)
		f->on_notify(f, index);
}

static int fake_config_read(struct virtio_device *v, uint32_t offset, void *buf, uint32_t len)
{
	struct fake_virtio *f = fv(v);

	if (f->cfg_fails)
		return KERR_IO;
	if (offset > FAKE_VIRTIO_CFG_BYTES || len > FAKE_VIRTIO_CFG_BYTES - offset)
		return KERR_RANGE;
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

void fake_virtio_init(struct fake_virtio *f, uint16_t type, uint64_t features, uint16_t num_queues)
{
	memset(f, 0, sizeof(*f));
	f->vdev.ops = &fake_ops;
	f->vdev.transport = f;
	f->vdev.device_type = type;
	f->vdev.confidential = true;
	strcpy(f->vdev.name, "fake");
	f->offered = VIRTIO_FEATURE(VIRTIO_F_VERSION_1) | VIRTIO_FEATURE(VIRTIO_F_ACCESS_PLATFORM) |
		     features;
	f->num_queues = num_queues;
	f->max_size = 64;
}

void fake_virtio_let_go(struct fake_virtio *f)
{
	f->reset_fails = false;
	f->reset_fails_after_init = false;
	f->reset_script = 0;
}

int fake_virtio_pop(struct fake_virtio *f, uint16_t qi, struct fake_chain *c)
{
	struct fake_queue *q = fake_virtio_queue(f, qi);
	const struct virtq_desc *table, *d;
	unsigned int limit, i;

	if (!q || !q->size || q->next_avail == __atomic_load_n(&q->avail->idx, __ATOMIC_ACQUIRE))
		return 0;
	c->head = q->avail->ring[q->next_avail % q->size];
	q->next_avail++;
	c->n = 0;
	c->indirect = false;
	if (c->head >= q->size)
		return -1;
	table = q->desc;
	limit = q->size;
	i = c->head;
	d = &table[i];
	if (d->flags & VIRTQ_DESC_F_INDIRECT) {
		/* virtio 1.2, 2.7.5.3: a table of whole descriptors, no NEXT beside it. */
		if ((d->flags & VIRTQ_DESC_F_NEXT) || !d->len || d->len % sizeof(*d))
			return -1;
		c->indirect = true;
		c->table = d->addr;
		c->table_len = d->len;
		table = (const struct virtq_desc *)(uintptr_t)d->addr;
		limit = d->len / sizeof(*d);
		i = 0;
	}
	for (;;) {
		if (i >= limit || c->n >= FAKE_VIRTIO_MAX_SEGS)
			return -1;
		d = &table[i];
		if (d->flags & VIRTQ_DESC_F_INDIRECT)
			return -1;
		c->addr[c->n] = d->addr;
		c->len[c->n] = d->len;
		c->write[c->n] = d->flags & VIRTQ_DESC_F_WRITE;
		c->n++;
		if (!(d->flags & VIRTQ_DESC_F_NEXT))
			return 1;
		i = d->next;
	}
}

unsigned int fake_virtio_avail_pending(struct fake_virtio *f, uint16_t qi)
{
	struct fake_queue *q = fake_virtio_queue(f, qi);

	if (!q || !q->size)
		return 0;
	return (uint16_t)(__atomic_load_n(&q->avail->idx, __ATOMIC_ACQUIRE) - q->next_avail);
}

void fake_virtio_push(struct fake_virtio *f, uint16_t qi, uint32_t id, uint32_t len)
{
	struct fake_queue *q = fake_virtio_queue(f, qi);

	if (!q || !q->size)
		return;
	q->used->ring[q->used_idx % q->size].id = id;
	q->used->ring[q->used_idx % q->size].len = len;
	q->used_idx++;
	__atomic_store_n(&q->used->idx, q->used_idx, __ATOMIC_RELEASE);
}

void fake_virtio_set_idx(struct fake_virtio *f, uint16_t qi, uint16_t idx)
{
	struct fake_queue *q = fake_virtio_queue(f, qi);

	if (!q)
		return;
	q->used_idx = idx;
	__atomic_store_n(&q->used->idx, idx, __ATOMIC_RELEASE);
}

uint64_t fake_virtio_clock_ticks(void *ctx)
{
	uint64_t *t = ctx;

	return ++*t;
}
