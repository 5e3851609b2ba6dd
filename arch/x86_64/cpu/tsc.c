/* SPDX-License-Identifier: MIT */
/*
 * tsc.c - TSC calibration against the ACPI PM timer or the PIT.
 *
 * Under TCG the TSC follows QEMU's virtual clock and port reads are slow, so each
 * window is measured from the first reference tick seen to the last: the cost of a
 * port read shifts both ends equally.
 */
#include "arch/x86_64/cpu/tsc.h"

#include "arch/x86_64/cpu/cpu.h"

#define PM_TIMER_HZ 3579545ull
#define PIT_HZ 1193182ull
#define CALIBRATE_MS 20
#define CALIBRATE_ROUNDS 3

#define PIT_CH2_DATA 0x42
#define PIT_CMD 0x43
#define PIT_GATE_PORT 0x61

static uint64_t tsc_freq_hz;
static enum tsc_reference tsc_ref;

static uint64_t tsc_measure_pm(uint16_t port, uint32_t mask)
{
	uint64_t ticks_wanted = PM_TIMER_HZ * CALIBRATE_MS / 1000;
	uint32_t start, now, prev;
	uint64_t elapsed = 0, tsc_start, tsc_end;

	/* Align to a tick edge so the window starts on a fresh count. */
	prev = inl(port) & mask;
	do {
		start = inl(port) & mask;
	} while (start == prev);
	tsc_start = rdtsc();
	prev = start;
	while (elapsed < ticks_wanted) {
		now = inl(port) & mask;
		elapsed += (now - prev) & mask; /* the counter wraps at 24 or 32 bits */
		prev = now;
	}
	tsc_end = rdtsc();
	return (tsc_end - tsc_start) * PM_TIMER_HZ / elapsed;
}

static uint64_t tsc_measure_pit(void)
{
	uint64_t count = PIT_HZ * CALIBRATE_MS / 1000;
	uint64_t tsc_start, tsc_end;
	uint8_t gate = inb(PIT_GATE_PORT);

	/* Channel 2 gate on, speaker off; mode 0 (interrupt on terminal count). */
	outb(PIT_GATE_PORT, (gate & ~0x02) | 0x01);
	outb(PIT_CMD, 0xB0);
	outb(PIT_CH2_DATA, count & 0xff);
	outb(PIT_CH2_DATA, count >> 8);
	/* Reloading the gate restarts the count. */
	gate = inb(PIT_GATE_PORT);
	outb(PIT_GATE_PORT, gate & ~0x01);
	outb(PIT_GATE_PORT, gate | 0x01);
	tsc_start = rdtsc();
	while (!(inb(PIT_GATE_PORT) & 0x20))
		cpu_relax();
	tsc_end = rdtsc();
	return (tsc_end - tsc_start) * PIT_HZ / count;
}

uint64_t tsc_calibrate(uint16_t pm_timer_port, int pm_timer_32bit)
{
	uint64_t hz[CALIBRATE_ROUNDS], tmp;

	for (int round = 0; round < CALIBRATE_ROUNDS; round++)
		hz[round] = pm_timer_port ?
				    tsc_measure_pm(pm_timer_port,
						   pm_timer_32bit ? 0xffffffffu : 0xffffffu) :
				    tsc_measure_pit();
	/* The median of three: one disturbed window (an SMI, a host hiccup that
	 * stalls one clock but not the other) cannot skew the result. */
	for (int i = 0; i < CALIBRATE_ROUNDS; i++)
		for (int j = i + 1; j < CALIBRATE_ROUNDS; j++)
			if (hz[j] < hz[i]) {
				tmp = hz[i];
				hz[i] = hz[j];
				hz[j] = tmp;
			}
	tsc_freq_hz = hz[CALIBRATE_ROUNDS / 2];
	tsc_ref = pm_timer_port ? TSC_REF_ACPI_PM : TSC_REF_PIT;
	return tsc_freq_hz;
}

uint64_t tsc_hz(void)
{
	return tsc_freq_hz;
}

enum tsc_reference tsc_reference(void)
{
	return tsc_ref;
}

uint64_t tsc_to_ns(uint64_t cycles)
{
	if (!tsc_freq_hz)
		return 0;
	return (uint64_t)((unsigned __int128)cycles * 1000000000u / tsc_freq_hz);
}

uint64_t now_ns(void)
{
	return tsc_to_ns(rdtsc());
}
