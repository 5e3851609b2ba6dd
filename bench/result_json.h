/* SPDX-License-Identifier: MIT */
/*
 * result_json.h - the opening of every benchmark result line.
 *
 * Every JSON line a suite prints starts with its suite name and the accelerator
 * the figures were taken under ("accel":"tcg" or "kvm", as scripts/run-qemu.sh
 * chose it and passed it in the accel= option; "unknown" when booted another way).
 * scripts/bench.py refuses to put figures of two accelerators in one table.
 */
#ifndef SLUICE_BENCH_RESULT_JSON_H
#define SLUICE_BENCH_RESULT_JSON_H

/**
 * bench_json_set_accel() - name the accelerator for every later result line.
 * @name: "tcg", "kvm" or "unknown"; a string that lives as long as the kernel.
 */
void bench_json_set_accel(const char *name);

/**
 * bench_json_set_cc() - name the confidential-computing platform for every later
 *	result line ("emulated", "sim-tdx", ...).
 * @name: a string that lives as long as the kernel.
 */
void bench_json_set_cc(const char *name);

/**
 * bench_json_cc() - the platform named by bench_json_set_cc() ("emulated" before).
 */
const char *bench_json_cc(void);

/**
 * bench_json_begin() - print `{"suite":"<suite>","accel":"<accel>","cc":"<cc>"` with
 *	no newline.
 * @suite: the suite's name; the caller prints the remaining keys and the closing brace.
 */
void bench_json_begin(const char *suite);

#endif
