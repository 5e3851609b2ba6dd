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
#include "tests/fakes/fake_virtio.h"

/* A device offering exactly @offered, its status left over from the firmware. */
static void fake_init(struct fake_virtio *d, uint64_t offered, bool confidential)
{
	fake_virtio_init(d, VIRTIO_ID_BLOCK, 0, 1);
	d->offered = offered;
	d->vdev.confidential = confidential;
	d->status = 0x42;
}

#define F(bit) VIRTIO_FEATURE(bit)

static void test_handshake_order_and_subset(void **state)
{
	struct fake_virtio d;
	char why[128] = "";

	(void)state;
	fake_init(&d,
		  F(VIRTIO_F_VERSION_1) | F(VIRTIO_F_ACCESS_PLATFORM) | F(VIRTIO_F_RING_EVENT_IDX) |
			  F(5) | F(9),
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
	/* Features were written only between DRIVER and FEATURES_OK. */
	assert_int_equal(d.bad_feature_writes, 0);
}

static void test_access_platform_required_only_when_confidential(void **state)
{
	struct fake_virtio d;
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
	struct fake_virtio d;
	char why[200] = "";

	(void)state;
	fake_init(&d, F(VIRTIO_F_ACCESS_PLATFORM) | F(VIRTIO_F_RING_INDIRECT_DESC), false);
	assert_int_equal(virtio_negotiate(&d.vdev, 0, why, sizeof(why)), -95);
	assert_non_null(strstr(why, "VIRTIO_F_VERSION_1"));
	assert_int_equal(d.status, 0);
}

static void test_features_ok_refused_and_stuck_reset(void **state)
{
	struct fake_virtio d;
	char why[200] = "";

	(void)state;
	fake_init(&d, F(VIRTIO_F_VERSION_1) | F(VIRTIO_F_ACCESS_PLATFORM), true);
	d.refuse_features_ok = true;
	assert_int_equal(virtio_negotiate(&d.vdev, 0, why, sizeof(why)), -5);
	assert_non_null(strstr(why, "FEATURES_OK"));
	assert_int_equal(d.vdev.features, 0);
	assert_int_equal(d.status, 0);

	fake_init(&d, F(VIRTIO_F_VERSION_1), false);
	d.reset_fails = true;
	assert_int_equal(virtio_negotiate(&d.vdev, 0, why, sizeof(why)), -5);
	assert_non_null(strstr(why, "reset"));
	assert_int_equal(d.nstatus, 0); /* nothing written after a failed reset */
}

static void test_driver_ok_reports_device_failure(void **state)
{
	struct fake_virtio d;
	char why[64];

	(void)state;
	fake_init(&d, F(VIRTIO_F_VERSION_1), false);
	assert_int_equal(virtio_negotiate(&d.vdev, 0, why, sizeof(why)), 0);
	d.driver_ok_adds = VIRTIO_STATUS_NEEDS_RESET;
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
