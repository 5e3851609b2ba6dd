/* SPDX-License-Identifier: MIT */
/*
 * options.c - table-driven parser of the kernel's key=value options.
 *
 * Adding an option is one row in option_table plus a field in struct
 * kernel_options. Any unknown key or bad value is an error with a message that
 * lists the valid ones: a typo must never silently fall back to a default.
 */
#include "boot/options.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define MIB (UINT64_C(1) << 20)
#define TWO_MIB (2 * MIB)

enum option_type {
	OPT_SIZE,
	OPT_CHOICE,
};

struct option_def {
	const char *key;
	enum option_type type;
	size_t offset; /* of the field in struct kernel_options */
	uint64_t min, max; /* OPT_SIZE bounds, inclusive */
	uint64_t align; /* OPT_SIZE: rounded up to this */
	const char *const *choices; /* OPT_CHOICE: NULL-terminated, index = value */
	const char *help;
};

static const char *const fault_choices[] = { "none", "pf", "gp", "ud", "div", NULL };

static const struct option_def option_table[] = {
	{ "heap", OPT_SIZE, offsetof(struct kernel_options, heap_bytes), 1 * MIB, 512 * MIB,
	  4096, NULL, "heap for the kernel (newlib malloc); default 64M" },
	{ "dma", OPT_SIZE, offsetof(struct kernel_options, dma_bytes), 4 * MIB, 512 * MIB,
	  TWO_MIB, NULL, "memory reserved for the DMA layer, rounded up to 2M; default 64M" },
	{ "fault", OPT_CHOICE, offsetof(struct kernel_options, fault), 0, 0, 0, fault_choices,
	  "deliberate fault after the boot report: none|pf|gp|ud|div; default none" },
};

#define OPTION_COUNT (sizeof(option_table) / sizeof(option_table[0]))

void options_defaults(struct kernel_options *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->heap_bytes = 64 * MIB;
	opts->dma_bytes = 64 * MIB;
	opts->fault = FAULT_NONE;
}

const char *options_fault_name(enum fault_kind fault)
{
	if ((unsigned int)fault < sizeof(fault_choices) / sizeof(fault_choices[0]) - 1)
		return fault_choices[fault];
	return "?";
}

const char *options_usage(void)
{
	static char usage[1024];

	if (!usage[0]) {
		size_t used = 0;

		for (size_t i = 0; i < OPTION_COUNT && used < sizeof(usage); i++)
			used += (size_t)snprintf(usage + used, sizeof(usage) - used, "  %s=%s  %s\n",
						 option_table[i].key,
						 option_table[i].type == OPT_SIZE ? "SIZE" : "VALUE",
						 option_table[i].help);
	}
	return usage;
}

static void options_valid_keys(char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < OPTION_COUNT && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? ", " : "",
					 option_table[i].key);
}

/* SIZE: decimal digits with an optional K, M or G suffix (powers of 1024). */
static bool options_parse_size(const char *s, size_t n, uint64_t *out)
{
	uint64_t v = 0, mult = 1;
	size_t i = 0;

	if (!n)
		return false;
	for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
		if (v > (UINT64_MAX - 9) / 10)
			return false;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	if (i == 0)
		return false;
	if (i < n) {
		switch (s[i]) {
		case 'k': case 'K':
			mult = 1024;
			break;
		case 'm': case 'M':
			mult = MIB;
			break;
		case 'g': case 'G':
			mult = 1024 * MIB;
			break;
		default:
			return false;
		}
		if (++i != n)
			return false;
	}
	if (v > UINT64_MAX / mult)
		return false;
	*out = v * mult;
	return true;
}

static int options_apply(const char *word, size_t len, struct kernel_options *opts, char *err,
			 size_t err_len)
{
	const char *eq = memchr(word, '=', len);
	size_t klen = eq ? (size_t)(eq - word) : len;
	const char *val = eq ? eq + 1 : NULL;
	size_t vlen = eq ? len - klen - 1 : 0;
	char keys[256];

	for (size_t i = 0; i < OPTION_COUNT; i++) {
		const struct option_def *d = &option_table[i];
		char *field = (char *)opts + d->offset;

		if (strlen(d->key) != klen || memcmp(d->key, word, klen))
			continue;
		if (!eq) {
			snprintf(err, err_len, "option '%.*s' needs a value (%s)", (int)len, word,
				 d->help);
			return -22;
		}
		if (d->type == OPT_SIZE) {
			uint64_t v;

			if (!options_parse_size(val, vlen, &v) || v < d->min || v > d->max) {
				snprintf(err, err_len,
					 "bad value in '%.*s': %s=SIZE must lie in %lluK..%lluK (K, M, G suffixes)",
					 (int)len, word, d->key, (unsigned long long)(d->min / 1024),
					 (unsigned long long)(d->max / 1024));
				return -22;
			}
			v = (v + d->align - 1) / d->align * d->align;
			memcpy(field, &v, sizeof(v));
			return 0;
		}
		for (unsigned int c = 0; d->choices[c]; c++) {
			if (strlen(d->choices[c]) == vlen && !memcmp(d->choices[c], val, vlen)) {
				int value = (int)c;

				memcpy(field, &value, sizeof(value));
				return 0;
			}
		}
		snprintf(err, err_len, "bad value in '%.*s'; valid: %s", (int)len, word, d->help);
		return -22;
	}
	options_valid_keys(keys, sizeof(keys));
	snprintf(err, err_len, "unknown option '%.*s'; valid options: %s", (int)len, word, keys);
	return -22;
}

int options_parse(const char *text, struct kernel_options *opts, char *err, size_t err_len)
{
	const char *p = text;

	_Static_assert(sizeof(enum fault_kind) == sizeof(int), "OPT_CHOICE fields are int-sized");
	options_defaults(opts);
	if (err_len)
		err[0] = '\0';
	while (p && *p) {
		const char *start;
		int rc;

		while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
			p++;
		if (*p == '#') {
			while (*p && *p != '\n')
				p++;
			continue;
		}
		if (!*p)
			break;
		start = p;
		while (*p && *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r' && *p != '#')
			p++;
		rc = options_apply(start, (size_t)(p - start), opts, err, err_len);
		if (rc)
			return rc;
	}
	return 0;
}
