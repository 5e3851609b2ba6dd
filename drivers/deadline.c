/* SPDX-License-Identifier: MIT */
/*
 * deadline.c - deadlines of device waits (see deadline.h).
 */
#include "drivers/deadline.h"

#include <stddef.h>

/* Without a clock a deadline counts its checks: this many per millisecond. */
#define CHECKS_PER_MS 1000u

static uint64_t (*clock_now)(void *ctx);
static void *clock_ctx;
static uint64_t clock_ticks_per_ms = CHECKS_PER_MS;
static uint32_t timeout_ms = DEVICE_TIMEOUT_MS_DEFAULT;

void deadline_set_clock(uint64_t (*now)(void *ctx), void *ctx, uint64_t ticks_per_ms)
{
	clock_now = ticks_per_ms ? now : NULL;
	clock_ctx = ctx;
	clock_ticks_per_ms = clock_now ? ticks_per_ms : CHECKS_PER_MS;
}

void deadline_set_timeout_ms(uint32_t ms)
{
	timeout_ms = ms ? ms : DEVICE_TIMEOUT_MS_DEFAULT;
}

uint32_t deadline_timeout_ms(void)
{
	return timeout_ms;
}

static uint64_t deadline_now(struct deadline *d)
{
	return clock_now ? clock_now(clock_ctx) : d->checks;
}

void deadline_start(struct deadline *d, uint32_t ms)
{
	uint64_t ticks = (uint64_t)(ms ? ms : timeout_ms) * clock_ticks_per_ms;

	d->checks = 0;
	d->end = deadline_now(d) + ticks;
}

bool deadline_passed(struct deadline *d)
{
	d->checks++;
	return deadline_now(d) >= d->end;
}
