/* SPDX-License-Identifier: MIT */
/*
 * bench_json.c - JSON lines that always parse (see bench_json.h).
 */
#include "bench/host/bench_json.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

enum bench_json_widest bench_json_widest = BENCH_JSON_REAL;

void bench_json_init(struct bench_json *j)
{
	j->s = NULL;
	j->len = j->cap = 0;
	j->oom = false;
}

void bench_json_free(struct bench_json *j)
{
	free(j->s);
	bench_json_init(j);
}

/* Room for @more bytes and the terminator. */
static bool reserve(struct bench_json *j, size_t more)
{
	size_t cap = j->cap ? j->cap : 256;
	char *s;

	if (j->oom)
		return false;
	while (cap < j->len + more + 1)
		cap *= 2;
	if (cap == j->cap)
		return true;
	s = realloc(j->s, cap);
	if (!s) {
		j->oom = true;
		return false;
	}
	j->s = s;
	j->cap = cap;
	return true;
}

static void vappend(struct bench_json *j, const char *fmt, va_list ap)
{
	va_list again;
	int n;

	va_copy(again, ap);
	n = vsnprintf(NULL, 0, fmt, ap);
	if (n < 0 || !reserve(j, (size_t)n)) {
		j->oom = true;
		va_end(again);
		return;
	}
	vsnprintf(j->s + j->len, (size_t)n + 1, fmt, again);
	va_end(again);
	j->len += (size_t)n;
}

void bench_json_raw(struct bench_json *j, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vappend(j, fmt, ap);
	va_end(ap);
}

void bench_json_str(struct bench_json *j, const char *key, const char *value)
{
	bench_json_raw(j, ",\"%s\":\"", key);
	for (const char *p = value; *p; p++) {
		unsigned char c = (unsigned char)*p;

		if (c == '"' || c == '\\')
			bench_json_raw(j, "\\%c", c);
		else if (c < 0x20)
			bench_json_raw(j, "\\u%04x", c);
		else
			bench_json_raw(j, "%c", c);
	}
	bench_json_raw(j, "\"");
}

void bench_json_num(struct bench_json *j, const char *key, double v, int prec)
{
	if (bench_json_widest == BENCH_JSON_MAX)
		v = -DBL_MAX;
	else if (bench_json_widest == BENCH_JSON_NAN)
		v = NAN;
	else if (bench_json_widest == BENCH_JSON_INF)
		v = -INFINITY;
	if (!isfinite(v))
		bench_json_raw(j, ",\"%s\":null", key);
	else
		bench_json_raw(j, ",\"%s\":%.*f", key, prec, v);
}

void bench_json_ulong(struct bench_json *j, const char *key, unsigned long v)
{
	if (bench_json_widest != BENCH_JSON_REAL)
		v = ULONG_MAX;
	bench_json_raw(j, ",\"%s\":%lu", key, v);
}

void bench_json_bool(struct bench_json *j, const char *key, bool v)
{
	bench_json_raw(j, ",\"%s\":%s", key, v ? "true" : "false");
}

void bench_json_cat(struct bench_json *j, const struct bench_json *more)
{
	if (!more || !more->len)
		return;
	if (more->oom)
		j->oom = true;
	else
		bench_json_raw(j, "%s", more->s);
}

bool bench_json_emit(const struct bench_json *j, FILE *out)
{
	if (j->oom || !j->s)
		return false;
	fprintf(out, "%s\n", j->s);
	fflush(out);
	return true;
}

bool bench_json_set_widest(const char *name)
{
	static const char *const names[] = { "real", "max", "nan", "inf" };

	for (unsigned int i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, names[i])) {
			bench_json_widest = (enum bench_json_widest)i;
			return true;
		}
	return false;
}
