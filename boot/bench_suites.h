/* SPDX-License-Identifier: MIT */
/*
 * bench_suites.h - the one list of the benchmark suites the bench= option
 * runs. The option parser, the task table (app/tasks.c), the "suite" field
 * of the JSON lines and the scripts (scripts/names.py) read it.
 *
 * none:    runs nothing (the default).
 * blk:     block I/O on one CPU over the workload matrix (with the IOTLB model).
 * convert: private/shared conversions.
 * net:     network frames from NIC 0 to NIC 1.
 * mq:      block I/O from every CPU at once ("suite":"blk", "threads" > 1).
 * alloc:   map/unmap on one and on every CPU.
 */
#ifndef SLUICE_BOOT_BENCH_SUITES_H
#define SLUICE_BOOT_BENCH_SUITES_H

/*
 * BENCH_SUITES(X) - X(UPPER, lower) per suite, in the order of enum
 * bench_suite (BENCH_SUITE_<UPPER>) and of the bits of bench=. One line each:
 * scripts read them as text.
 */
/* clang-format off */
#define BENCH_SUITES(X) \
	X(NONE, none) \
	X(BLK, blk) \
	X(CONVERT, convert) \
	X(NET, net) \
	X(MQ, mq) \
	X(ALLOC, alloc) \
	/* end of the list: a new line goes above */
/* clang-format on */

/**
 * enum bench_suite - one BENCH_SUITE_<UPPER> per line of BENCH_SUITES().
 * @BENCH_SUITE_COUNT: number of suites.
 */
enum bench_suite {
#define BENCH_SUITE_ENUM_(upper, lower) BENCH_SUITE_##upper,
	BENCH_SUITES(BENCH_SUITE_ENUM_)
#undef BENCH_SUITE_ENUM_
		BENCH_SUITE_COUNT
};

#endif /* SLUICE_BOOT_BENCH_SUITES_H */
