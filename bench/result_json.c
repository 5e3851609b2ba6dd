/* SPDX-License-Identifier: MIT */
/*
 * result_json.c - the opening of every benchmark result line (see result_json.h).
 */
#include "bench/result_json.h"

#include <stdio.h>

static const char *bench_accel = "unknown";
static const char *bench_cc = "emulated";

void bench_json_set_accel(const char *name)
{
	bench_accel = name ? name : "unknown";
}

void bench_json_set_cc(const char *name)
{
	bench_cc = name ? name : "emulated";
}

const char *bench_json_cc(void)
{
	return bench_cc;
}

void bench_json_begin(const char *suite)
{
	printf("{\"suite\":\"%s\",\"accel\":\"%s\",\"cc\":\"%s\"", suite, bench_accel,
	       bench_cc);
}
