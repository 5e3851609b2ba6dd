/* SPDX-License-Identifier: MIT */
/*
 * bench_json.h - one JSON line of the host benchmarks, built in a buffer that
 * grows: no value, however long, can cut a line (a fixed buffer once cut
 * `"scrub_cycles_arena":5515.}` mid-number). Non-finite numbers are written as
 * null, which JSON has, instead of printf's "inf" / "nan", which it has not.
 */
#ifndef SLUICE_TESTS_BENCH_JSON_H
#define SLUICE_TESTS_BENCH_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* What every number of a line is replaced with (-W), to prove that the widest
 * value a run can produce still makes a line that parses. */
enum bench_json_widest {
	BENCH_JSON_REAL = 0, /* the measured values */
	BENCH_JSON_MAX,	     /* -DBL_MAX (309 digits with %.1f), ULONG_MAX */
	BENCH_JSON_NAN,	     /* NaN: written as null */
	BENCH_JSON_INF,	     /* -inf: written as null */
};

struct bench_json {
	char *s;
	size_t len, cap;
	bool oom; /* an allocation failed: the line is dropped, never cut */
};

extern enum bench_json_widest bench_json_widest;

void bench_json_init(struct bench_json *j);
void bench_json_free(struct bench_json *j);
/* Appends printf-formatted text (keys, punctuation, fixed strings). */
void bench_json_raw(struct bench_json *j, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Appends ,"key":"value" (the value escaped). */
void bench_json_str(struct bench_json *j, const char *key, const char *value);
/* Appends ,"key":value with @prec decimals, or null when not finite. */
void bench_json_num(struct bench_json *j, const char *key, double v, int prec);
/* Appends ,"key":value. */
void bench_json_ulong(struct bench_json *j, const char *key, unsigned long v);
/* Appends ,"key":true|false. */
void bench_json_bool(struct bench_json *j, const char *key, bool v);
/* Appends @more's text (may be NULL). */
void bench_json_cat(struct bench_json *j, const struct bench_json *more);
/* Writes the line with its newline; false (and nothing written) when it could not
 * be built. */
bool bench_json_emit(const struct bench_json *j, FILE *out);
/* -W's argument: real, max, nan, inf. False when unknown. */
bool bench_json_set_widest(const char *name);

#endif
