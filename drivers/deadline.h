/* SPDX-License-Identifier: MIT */
/*
 * deadline.h - every wait on a device ends: a deadline in clock ticks.
 *
 * A hostile or broken device may never complete a request, never finish a reset,
 * never answer a command. Drivers and the tasks above them therefore never spin on
 * shared memory without a deadline from here. The kernel installs the TSC as the
 * clock at boot (with its measured rate) and sets the budget from the option
 * device_timeout_ms=; host tests install a clock that advances by one tick per
 * read, so a test counts time in polls and never waits for real.
 *
 * Without a clock, a deadline counts its own checks (1000 per millisecond), so it
 * is bounded even in code that never installed one.
 */
#ifndef SLUICE_DRIVERS_DEADLINE_H
#define SLUICE_DRIVERS_DEADLINE_H

#include <stdbool.h>
#include <stdint.h>
#include "arch/kernel_errno.h"

/* The budget of a device wait when nobody set one (device_timeout_ms=). */
#define DEVICE_TIMEOUT_MS_DEFAULT 10000u

/* Errno-style code of a wait that ran out (ETIMEDOUT). */
#define DEVICE_ERR_TIMEDOUT KERR_TIMEDOUT

/**
 * struct deadline - the end of one wait.
 * @end: the clock reading at which it has passed.
 * @checks: checks so far (the clock when none is installed).
 */
struct deadline {
	uint64_t end;
	uint64_t checks;
};

/**
 * deadline_set_clock() - install the clock of every later deadline.
 * @now: returns the current tick count (monotonic); NULL: count checks instead.
 * @ctx: handed to @now.
 * @ticks_per_ms: its rate; must not be 0 when @now is set.
 *
 * Called once at boot, before any device is driven; not thread-safe.
 */
void deadline_set_clock(uint64_t (*now)(void *ctx), void *ctx, uint64_t ticks_per_ms);

/**
 * deadline_set_timeout_ms() - the budget of a device wait from now on.
 * @ms: milliseconds, at least 1 (0 restores the default).
 */
void deadline_set_timeout_ms(uint32_t ms);

/**
 * deadline_timeout_ms() - the budget of a device wait.
 */
uint32_t deadline_timeout_ms(void);

/**
 * deadline_start() - start a wait of @ms milliseconds (0: the device budget).
 * @d: the deadline.
 * @ms: its length.
 */
void deadline_start(struct deadline *d, uint32_t ms);

/**
 * deadline_passed() - whether the wait is over; call once per poll.
 * @d: a started deadline.
 */
bool deadline_passed(struct deadline *d);

#endif /* SLUICE_DRIVERS_DEADLINE_H */
