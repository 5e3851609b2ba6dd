/* SPDX-License-Identifier: MIT */
/*
 * test_virtio.c - the generic virtio handshake (drivers/virtio/virtio.c) against a
 * simulated transport: order of status writes, required features, refusals.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "drivers/virtio/virtio.h"

struct fake_dev {
	struct virtio_device vdev; /* first: the ops cast back */
	uint8_t status;
	uint64_t offered, accepted;
	bool refuse_features_ok;
	bool stuck_reset;
	bool needs_reset_after_ok;
	uint8_t status_log[16];
	unsigned int nstatus;
	unsigned int resets;
};

static struct fake_dev *fd(struct virtio_device *v)
{
	return (struct fake_dev *)v;
}

static int fake_reset(struct virtio_device *v)
{
	fd(v)->resets++;
	if (fd(v)->stuck_reset)
		return -5;
	fd(v)->status = 0;
	return 0;
}

static uint8_t fake_get_status(struct virtio_device *v)
{
	return fd(v)->status;
}

static void fake_set_status(struct virtio_device *v, uint8_t s)
{
	struct fake_dev *d = fd(v);

	if (d->nstatus < sizeof(d->status_log))
		d->status_log[d->nstatus++] = s;
	if ((s & VIRTIO_STATUS_FEATURES_OK) && d->refuse_features_ok)
		s &= ~VIRTIO_STATUS_FEATURES_OK;
	if ((s & VIRTIO_STATUS_DRIVER_OK) && d->needs_reset_after_ok)
		s |= VIRTIO_STATUS_NEEDS_RESET;
	d->status = s;
}

static uint64_t fake_get_features(struct virtio_device *v)
{
	return fd(v)->offered;
}

static void fake_set_features(struct virtio_device *v, uint64_t f)
{
	/* Features may only be written between DRIVER and FEATURES_OK. */
	assert_true(fd(v)->status & VIRTIO_STATUS_DRIVER);
	assert_false(fd(v)->status & VIRTIO_STATUS_FEATURES_OK);
	fd(v)->accepted = f;
}

static const struct virtio_transport_ops fake_ops = {
	.reset = fake_reset,
	.get_status = fake_get_status,
	.set_status = fake_set_status,
	.get_features = fake_get_features,
	.set_features = fake_set_features,
};

static void fake_init(struct fake_dev *d, uint64_t offered, bool confidential)
{
	memset(d, 0, sizeof(*d));
	d->vdev.ops = &fake_ops;
	d->vdev.confidential = confidential;
	strcpy(d->vdev.name, "fake");
	d->offered = offered;
	d->status = 0x42; /* left over from the firmware */
}

#define F(bit) VIRTIO_FEATURE(bit)

static void test_handshake_order_and_subset(void **state)
{
	struct fake_dev d;
	char why[128] = "";

	(void)state;
	fake_init(&d, F(VIRTIO_F_VERSION_1) | F(VIRTIO_F_ACCESS_PLATFORM) |
			      F(VIRTIO_F_RING_EVENT_IDX) | F(5) | F(9),
		  true);
	assert_int_equal(virtio_negotiate(&d.vdev, F(VIRTIO_F_RING_EVENT_IDX) | F(5) | F(40), why,
					  sizeof(why)),
			 0);
	assert_int_equal(d.resets, 1);
	assert_int_equal(d.nstatus, 3);
	assert_int_equal(d.status_log[0], VIRTIO_STATUS_ACKNOWLEDGE);
	assert_int_equal(d.status_log[1], VIRTIO_STATUS_ACKNOWLEDGE | VIRTIO_STATUS_DRIVER);
	assert_int_equal(d.status_log[2], VIRTIO_STATUS_ACKNOWLEDGE | VIRTIO_STATUS_DRIVER |
						  VIRTIO_STATUS_FEATURES_OK);
	/* Only what was offered AND wanted (or required); never bit 9 nor bit 40. */
	assert_int_equal(d.accepted, F(VIRTIO_F_VERSION_1) | F(VIRTIO_F_ACCESS_PLATFORM) |
					     F(VIRTIO_F_RING_EVENT_IDX) | F(5));
	assert_int_equal(d.vdev.features, d.accepted);
	assert_true(virtio_has_feature(&d.vdev, VIRTIO_F_RING_EVENT_IDX));
	assert_false(virtio_has_feature(&d.vdev, 9));
	assert_int_equal(virtio_driver_ok(&d.vdev), 0);
	assert_true(d.status & VIRTIO_STATUS_DRIVER_OK);
}

static void test_access_platform_required_only_when_confidential(void **state)
{
	struct fake_dev d;
	char why[200] = "";

	(void)state;
	fake_init(&d, F(VIRTIO_F_VERSION_1), true);
	assert_int_equal(virtio_negotiate(&d.vdev, 0, why, sizeof(why)), -95);
	assert_non_null(strstr(why, "VIRTIO_F_ACCESS_PLATFORM"));
	assert_non_null(strstr(why, "fake"));
	/* Refused devices are left failed and reset. */
	assert_int_equal(d.resets, 2);
	assert_int_equal(d.status, 0);
	assert_int_equal(d.vdev.features, 0);

	fake_init(&d, F(VIRTIO_F_VERSION_1), false);
	assert_int_equal(virtio_negotiate(&d.vdev, 0, why, sizeof(why)), 0);
	assert_int_equal(d.accepted, F(VIRTIO_F_VERSION_1));

	/* Offered ACCESS_PLATFORM is always accepted: Sluice always uses the DMA layer. */
	fake_init(&d, F(VIRTIO_F_VERSION_1) | F(VIRTIO_F_ACCESS_PLATFORM), false);
	assert_int_equal(virtio_negotiate(&d.vdev, 0, why, sizeof(why)), 0);
	assert_true(virtio_has_feature(&d.vdev, VIRTIO_F_ACCESS_PLATFORM));
}

static void test_legacy_only_device_refused(void **state)
{
	struct fake_dev d;
	char why[200] = "";

	(void)state;
	fake_init(&d, F(VIRTIO_F_ACCESS_PLATFORM) | F(VIRTIO_F_RING_INDIRECT_DESC), false);
	assert_int_equal(virtio_negotiate(&d.vdev, 0, why, sizeof(why)), -95);
	assert_non_null(strstr(why, "VIRTIO_F_VERSION_1"));
	assert_int_equal(d.status, 0);
}

static void test_features_ok_refused_and_stuck_reset(void **state)
{
	struct fake_dev d;
	char why[200] = "";

	(void)state;
	fake_init(&d, F(VIRTIO_F_VERSION_1) | F(VIRTIO_F_ACCESS_PLATFORM), true);
	d.refuse_features_ok = true;
	assert_int_equal(virtio_negotiate(&d.vdev, 0, why, sizeof(why)), -5);
	assert_non_null(strstr(why, "FEATURES_OK"));
	assert_int_equal(d.vdev.features, 0);
	assert_int_equal(d.status, 0);

	fake_init(&d, F(VIRTIO_F_VERSION_1), false);
	d.stuck_reset = true;
	assert_int_equal(virtio_negotiate(&d.vdev, 0, why, sizeof(why)), -5);
	assert_non_null(strstr(why, "reset"));
	assert_int_equal(d.nstatus, 0); /* nothing written after a failed reset */
}

static void test_driver_ok_reports_device_failure(void **state)
{
	struct fake_dev d;
	char why[64];

	(void)state;
	fake_init(&d, F(VIRTIO_F_VERSION_1), false);
	assert_int_equal(virtio_negotiate(&d.vdev, 0, why, sizeof(why)), 0);
	d.needs_reset_after_ok = true;
	assert_int_equal(virtio_driver_ok(&d.vdev), -5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_handshake_order_and_subset),
		cmocka_unit_test(test_access_platform_required_only_when_confidential),
		cmocka_unit_test(test_legacy_only_device_refused),
		cmocka_unit_test(test_features_ok_refused_and_stuck_reset),
		cmocka_unit_test(test_driver_ok_reports_device_failure),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
