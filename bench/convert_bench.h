/* SPDX-License-Identifier: MIT */
/*
 * convert_bench.h - what converting memory between private and shared costs in
 * the emulated model (suite "convert").
 */
#ifndef SLUICE_BENCH_CONVERT_BENCH_H
#define SLUICE_BENCH_CONVERT_BENCH_H

/**
 * convert_bench_run() - time conversions of 4 KiB pages (the first one in a 2 MiB
 *	page pays for the split) and of whole 2 MiB pages, to shared and back, and
 *	print JSON lines of suite "convert".
 * @repeats: conversions timed per case.
 * Return: 0, or -1 if no scratch memory or a conversion failed.
 */
int convert_bench_run(unsigned int repeats);

#endif /* SLUICE_BENCH_CONVERT_BENCH_H */
