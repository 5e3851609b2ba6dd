/* SPDX-License-Identifier: MIT */
/*
 * tsc.h - the time-stamp counter as the kernel's clock.
 */
#ifndef SLUICE_ARCH_TSC_H
#define SLUICE_ARCH_TSC_H

#include <stdint.h>

/**
 * enum tsc_reference - the fixed-rate timer the TSC was calibrated against.
 * @TSC_REF_NONE: not calibrated yet.
 * @TSC_REF_ACPI_PM: the ACPI PM timer (3.579545 MHz).
 * @TSC_REF_PIT: PIT channel 2 (1.193182 MHz), when ACPI gives no PM timer.
 */
enum tsc_reference {
	TSC_REF_NONE,
	TSC_REF_ACPI_PM,
	TSC_REF_PIT,
};

/**
 * tsc_calibrate() - measure the TSC frequency.
 * @pm_timer_port: I/O port of the ACPI PM timer, or 0 to use the PIT.
 * @pm_timer_32bit: true if the PM timer counts 32 bits (FADT flag TMR_VAL_EXT).
 *
 * Takes the median of three 20 ms windows.
 * Return: the frequency in Hz, also kept for now_ns().
 */
uint64_t tsc_calibrate(uint16_t pm_timer_port, int pm_timer_32bit);

/**
 * tsc_hz() - the calibrated frequency (0 before tsc_calibrate()).
 */
uint64_t tsc_hz(void);

/**
 * tsc_reference() - what the TSC was calibrated against.
 */
enum tsc_reference tsc_reference(void);

/**
 * tsc_to_ns() - convert a TSC delta to nanoseconds.
 * @cycles: the delta.
 */
uint64_t tsc_to_ns(uint64_t cycles);

/**
 * now_ns() - nanoseconds since the TSC was reset (monotonic on one CPU).
 */
uint64_t now_ns(void);

#endif /* SLUICE_ARCH_TSC_H */
