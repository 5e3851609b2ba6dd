/* SPDX-License-Identifier: MIT */
/*
 * options.c - table-driven parser of the kernel's key=value options.
 *
 * Adding an option is one row in option_table plus a field in struct
 * kernel_options. Any unknown key or bad value is an error with a message that
 * lists the valid ones: a typo must never silently fall back to a default.
 */
#include "boot/options.h"

#include "boot/bench_suites.h"

#include "arch/kernel_errno.h"
#include "boot/dma_modes.h"

#include <sluice/dma.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define MIB (UINT64_C(1) << 20)
#define TWO_MIB (2 * MIB)

enum option_type {
	OPT_SIZE,   /* bytes with K/M/G suffix, bounded, rounded up to align */
	OPT_UINT,   /* a plain number, bounded */
	OPT_CHOICE, /* one of choices; stored as its index (int) */
	OPT_LIST,   /* comma-separated choices or "all"; stored as a bit mask (uint64_t) */
};

struct option_def {
	const char *key;
	enum option_type type;
	size_t offset;		    /* of the field in struct kernel_options */
	uint64_t min, max;	    /* OPT_SIZE bounds, inclusive */
	uint64_t align;		    /* OPT_SIZE: rounded up to this */
	const char *const *choices; /* OPT_CHOICE: NULL-terminated, index = value */
	const char *help;
};

/* The choice tables, in the order of their enums, wrapped by hand. */
/* clang-format off */
static const char *const fault_choices[] = { "none", "pf", "gp", "ud", "div",
					     "write_text", "exec_shared", "exec_data",
					     "exec_stack", "ve", "vc", NULL };
const char *const options_scrub_names[] = { "copy", "zero", "written", NULL };
const char *const options_blk_names[] = { "none", "check", "smp", NULL };
const char *const options_net_names[] = { "check", "smp", NULL };
const char *const options_bench_set_names[] = { "short", "full", NULL };
const char *const options_accel_names[] = { "unknown", "tcg", "kvm", NULL };
/* From the one list of CC platforms (arch/x86_64/cc/cc.h). */
const char *const options_cc_names[] = { "auto", CC_PLATFORMS(CC_OPTION_NAME) NULL };
_Static_assert(sizeof(options_cc_names) / sizeof(options_cc_names[0]) == CC_OPT_COUNT + 1,
	       "cc= takes auto and each OPTION platform");
const char *const options_tdx_fault_names[] = { "none", "partial", "stall", "bad_resume",
						 "map_error", "keep_accepted", "busy",
						 "accept_error", "4k", "ap_silent", "ap_late",
						 NULL };
const char *const options_snp_fault_names[] = { "none", "early_return", "psc_error",
						 "size_mismatch", "cf", "ap_silent", "vmpl1",
						 "no_cc_blob", "bad_cc_blob", NULL };
/* clang-format on */

/*
 * The lists of names kept elsewhere, each the one list of its kind: the bounce
 * policies (<sluice/dma_policies.h>), the DMA modes (boot/dma_modes.h) and the
 * benchmark suites (boot/bench_suites.h). OPT_NAME stringifies its argument
 * directly: the policy `linux` is also a predefined macro of GNU C.
 * OPT_WORDS_ lists them in the help texts, " a b c".
 */
#define OPT_NAME_(upper, lower) #lower,
#define OPT_WORD_(upper, lower) " " #lower
const char *const options_policy_names[] = { SLUICE_DMA_POLICIES(OPT_NAME_) NULL };
const char *const options_mode_names[] = { KERNEL_DMA_MODES(OPT_NAME_) NULL };
const char *const options_bench_names[] = { BENCH_SUITES(OPT_NAME_) NULL };
_Static_assert(sizeof(options_policy_names) / sizeof(options_policy_names[0]) ==
		       SLUICE_DMA_POLICY_COUNT + 1,
	       "a bit of policies= per enum sluice_dma_bounce_policy value");
_Static_assert(SLUICE_DMA_POLICY_COUNT <= 64 && KDMA_NMODES <= 64 && BENCH_SUITE_COUNT <= 64,
	       "OPT_LIST masks are 64 bits");

/* A mask with the low @n bits set (every choice of a list of @n). */
#define OPT_ALL(n) ((n) >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << (n)) - 1)

static const struct option_def option_table[] = {
	{ "heap", OPT_SIZE, offsetof(struct kernel_options, heap_bytes), 1 * MIB, 512 * MIB, 4096,
	  NULL, "heap for the kernel (newlib malloc); default 64M" },
	{ "dma", OPT_SIZE, offsetof(struct kernel_options, dma_bytes), 4 * MIB, 512 * MIB, TWO_MIB,
	  NULL, "memory reserved for the DMA layer, rounded up to 2M; default 128M" },
	{ "fault", OPT_CHOICE, offsetof(struct kernel_options, fault), 0, 0, 0, fault_choices,
	  "deliberate fault after the boot report: none|pf|gp|ud|div, or a W^X violation: "
	  "write_text|exec_shared|exec_data|exec_stack, a #VE: ve, or a #VC: vc; default none" },
	{ "pool", OPT_SIZE, offsetof(struct kernel_options, pool_bytes), 256 * 1024, 508 * MIB,
	  4096, NULL, "each bounce pool (one per policy) taken from the DMA region; default 16M" },
	{ "policies", OPT_LIST, offsetof(struct kernel_options, policies), 0, 0, 0,
	  options_policy_names,
	  "bounce pool policies, comma-separated, of:" SLUICE_DMA_POLICIES(
		  OPT_WORD_) "; or all; default all" },
	{ "scrub", OPT_CHOICE, offsetof(struct kernel_options, scrub), 0, 0, 0, options_scrub_names,
	  "stale-data guard of from-device bounces: zero (no private byte reaches shared "
	  "memory), written (zero, but block reads, whose driver names what the device "
	  "wrote, keep what their slots held) or copy (as Linux since CVE-2022-0854: "
	  "discloses the buffer's old bytes); default zero" },
	{ "modes", OPT_LIST, offsetof(struct kernel_options, modes), 0, 0, 0, options_mode_names,
	  "DMA modes to run, comma-separated, of:" KERNEL_DMA_MODES(
		  OPT_WORD_) "; or all; default all" },
	{ "blk", OPT_CHOICE, offsetof(struct kernel_options, blk), 0, 0, 0, options_blk_names,
	  "block task: none, check (read all + cksum, write a pattern per mode), or smp (the same "
	  "read; the pattern written and read back by every CPU at once); default check" },
	{ "iodepth", OPT_UINT, offsetof(struct kernel_options, iodepth), 1, 1024, 1, NULL,
	  "block requests in flight, 1..1024; default 32" },
	{ "bs", OPT_SIZE, offsetof(struct kernel_options, bs), 512, 1024 * 1024, 512, NULL,
	  "bytes per block request, 512..1M, rounded up to 512; default 64K" },
	{ "net", OPT_CHOICE, offsetof(struct kernel_options, net), 0, 0, 0, options_net_names,
	  "network task: check (CPU 0 sends, in order) or smp (every CPU sends and receives at "
	  "once, one queue pair each when the NICs offer multiqueue; frames= per CPU); "
	  "default check" },
	{ "frames", OPT_UINT, offsetof(struct kernel_options, frames), 0, 10000000, 1, NULL,
	  "frames the network task sends from NIC 0 to NIC 1 (0: skip it); default 1000" },
	{ "bench", OPT_LIST, offsetof(struct kernel_options, bench), 0, 0, 0, options_bench_names,
	  "benchmark suites: none, or any of blk,convert,net,mq (block I/O on 1 and all CPUs),"
	  "alloc (map/unmap on 1 and all CPUs); default none" },
	{ "bench_set", OPT_CHOICE, offsetof(struct kernel_options, bench_set), 0, 0, 0,
	  options_bench_set_names,
	  "workloads: short (4) or full (24, the whole matrix); default short" },
	{ "bench_ms", OPT_UINT, offsetof(struct kernel_options, bench_ms), 10, 60000, 1, NULL,
	  "measured milliseconds per benchmark run (plus 20% warm-up), 10..60000; default 300" },
	{ "iotlb_entries", OPT_UINT, offsetof(struct kernel_options, iotlb_entries), 1, 4096, 1,
	  NULL, "entries of the IOTLB model, 1..4096; default 64" },
	{ "iotlb_ways", OPT_UINT, offsetof(struct kernel_options, iotlb_ways), 0, 4096, 1, NULL,
	  "ways per set of the IOTLB model, 0 = fully associative; default 0" },
	{ "fail_private", OPT_UINT, offsetof(struct kernel_options, fail_private), 0, 1000000, 1,
	  NULL,
	  "fault injection: every Nth conversion back to private fails (0: never); default 0" },
	{ "areas", OPT_UINT, offsetof(struct kernel_options, areas), 0, 64, 1, NULL,
	  "areas (locks) per bounce pool, a power of two up to 64; 0 = one per CPU (Linux >= 6.3), "
	  "1 = one lock for the pool (Linux before 6.3); default 0" },
	{ "cpus", OPT_UINT, offsetof(struct kernel_options, cpus), 0, 16, 1, NULL,
	  "CPUs to use, 1..16, 0 = every CPU the firmware lists (QEMU -smp); default 0" },
	{ "fault_cpu", OPT_UINT, offsetof(struct kernel_options, fault_cpu), 0, 15, 1, NULL,
	  "CPU that triggers the fault= exception, 0..15; default 0" },
	{ "device_timeout_ms", OPT_UINT, offsetof(struct kernel_options, device_timeout_ms), 10,
	  600000, 1, NULL,
	  "deadline of every wait on a device (reset, command, request, frame), ms; "
	  "default 10000" },
	{ "cc", OPT_CHOICE, offsetof(struct kernel_options, cc), 0, 0, 0, options_cc_names,
	  "confidential-computing platform: auto (the TDX protocol in a real TD, else "
	  "emulated), emulated (a PTE bit and a trapping write), sim-tdx (the TDX protocol "
	  "against a model of the TDX module), sim-snp (the SEV-SNP protocol against a "
	  "model of the RMP and the hypervisor); default auto" },
	{ "tdx_fault", OPT_LIST, offsetof(struct kernel_options, tdx_fault), 0, 0, 0,
	  options_tdx_fault_names,
	  "sim-tdx faults: partial,stall,bad_resume,map_error,keep_accepted,busy,accept_error,"
	  "4k,ap_silent,ap_late; default none" },
	{ "tdx_fault_every", OPT_UINT, offsetof(struct kernel_options, tdx_fault_every), 1, 1000000,
	  1, NULL, "every Nth call of a faulted kind fails, 1..1000000; default 5" },
	{ "snp_fault", OPT_LIST, offsetof(struct kernel_options, snp_fault), 0, 0, 0,
	  options_snp_fault_names,
	  "sim-snp faults: early_return,psc_error,size_mismatch,cf,ap_silent,vmpl1,no_cc_blob,"
	  "bad_cc_blob; default none" },
	{ "snp_fault_every", OPT_UINT, offsetof(struct kernel_options, snp_fault_every), 1, 1000000,
	  1, NULL,
	  "every Nth call of a faulted kind fails (sim-snp), 1..1000000; "
	  "default 5" },
	{ "accel", OPT_CHOICE, offsetof(struct kernel_options, accel), 0, 0, 0, options_accel_names,
	  "the host's accelerator, a label on the report and every result: unknown|tcg|kvm; "
	  "run-qemu.sh sets it; default unknown" },
};

#define OPTION_COUNT (sizeof(option_table) / sizeof(option_table[0]))

void options_defaults(struct kernel_options *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->heap_bytes = 64 * MIB;
	opts->dma_bytes = 128 * MIB;
	opts->fault = FAULT_NONE;
	opts->pool_bytes = 16 * MIB;
	opts->policies = OPT_ALL(SLUICE_DMA_POLICY_COUNT);
	opts->scrub = 1; /* zero: nothing private is copied into shared memory */
	opts->modes = OPT_ALL(KDMA_NMODES);
	opts->blk = 1; /* check */
	opts->iodepth = 32;
	opts->bs = 64 * 1024;
	opts->frames = 1000;
	opts->bench = UINT64_C(1) << BENCH_SUITE_NONE;
	opts->bench_set = 0;
	opts->bench_ms = 300;
	opts->iotlb_entries = 64;
	opts->iotlb_ways = 0;
	opts->device_timeout_ms = 10000;
	opts->tdx_fault = 1; /* none */
	opts->tdx_fault_every = 5;
	opts->snp_fault = 1; /* none */
	opts->snp_fault_every = 5;
}

const char *options_fault_name(enum fault_kind fault)
{
	if ((unsigned int)fault < sizeof(fault_choices) / sizeof(fault_choices[0]) - 1)
		return fault_choices[fault];
	return "?";
}

size_t options_list_format(char *buf, size_t len, const char *const *names, uint64_t mask)
{
	size_t used = 0;

	if (!len)
		return 0;
	buf[0] = '\0';
	for (unsigned int i = 0; names[i] && i < 64; i++) {
		int n;

		if (!(mask & (UINT64_C(1) << i)))
			continue;
		n = snprintf(buf + used, len - used, "%s%s", used ? "," : "", names[i]);
		if (n < 0 || (size_t)n >= len - used)
			return len - 1; /* truncated: the text ends where the buffer does */
		used += (size_t)n;
	}
	return used;
}

const char *options_usage(void)
{
	/* Every option's line must fit: the test checks that the last one is there. */
	static char usage[8192];

	if (!usage[0]) {
		size_t used = 0;

		for (size_t i = 0; i < OPTION_COUNT && used < sizeof(usage); i++)
			used += (size_t)snprintf(usage + used, sizeof(usage) - used,
						 "  %s=%s  %s\n", option_table[i].key,
						 option_table[i].type == OPT_SIZE ? "SIZE" :
						 option_table[i].type == OPT_UINT ? "N" :
						 option_table[i].type == OPT_LIST ? "LIST" :
										    "VALUE",
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
		case 'k':
		case 'K':
			mult = 1024;
			break;
		case 'm':
		case 'M':
			mult = MIB;
			break;
		case 'g':
		case 'G':
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

/* LIST: "all" or comma-separated choices, each at most once. */
static int options_apply_list(const struct option_def *d, const char *word, size_t len,
			      const char *val, size_t vlen, char *field, char *err, size_t err_len)
{
	uint64_t mask = 0;
	size_t pos = 0;

	if (vlen == 3 && !memcmp(val, "all", 3)) {
		for (unsigned int c = 0; d->choices[c]; c++)
			mask |= UINT64_C(1) << c;
		memcpy(field, &mask, sizeof(mask));
		return 0;
	}
	while (pos <= vlen) {
		const char *item = val + pos;
		const char *comma = memchr(item, ',', vlen - pos);
		size_t ilen = comma ? (size_t)(comma - item) : vlen - pos;
		bool found = false;

		for (unsigned int c = 0; d->choices[c]; c++) {
			if (strlen(d->choices[c]) == ilen && !memcmp(d->choices[c], item, ilen)) {
				mask |= UINT64_C(1) << c;
				found = true;
			}
		}
		if (!found) {
			snprintf(err, err_len, "bad value in '%.*s'; valid: %s", (int)len, word,
				 d->help);
			return KERR_INVAL;
		}
		pos += ilen + 1;
	}
	memcpy(field, &mask, sizeof(mask));
	return 0;
}

static int options_apply(const char *word, size_t len, struct kernel_options *opts, uint64_t *set,
			 char *err, size_t err_len)
{
	const char *eq = memchr(word, '=', len);
	size_t klen = eq ? (size_t)(eq - word) : len;
	const char *val = eq ? eq + 1 : NULL;
	size_t vlen = eq ? len - klen - 1 : 0;
	char keys[400];

	for (size_t i = 0; i < OPTION_COUNT; i++) {
		const struct option_def *d = &option_table[i];
		char *field = (char *)opts + d->offset;

		if (strlen(d->key) != klen || memcmp(d->key, word, klen))
			continue;
		*set |= UINT64_C(1) << i;
		if (!eq) {
			snprintf(err, err_len, "option '%.*s' needs a value (%s)", (int)len, word,
				 d->help);
			return KERR_INVAL;
		}
		if (d->type == OPT_SIZE) {
			uint64_t v;

			if (!options_parse_size(val, vlen, &v) || v < d->min || v > d->max) {
				snprintf(err, err_len,
					 "bad value in '%.*s': %s=SIZE must lie in %lluK..%lluK "
					 "(K, M, G suffixes)",
					 (int)len, word, d->key,
					 (unsigned long long)(d->min / 1024),
					 (unsigned long long)(d->max / 1024));
				return KERR_INVAL;
			}
			v = (v + d->align - 1) / d->align * d->align;
			memcpy(field, &v, sizeof(v));
			return 0;
		}
		if (d->type == OPT_UINT) {
			uint64_t v;

			/* A size parser without suffixes is a number parser. */
			if (!options_parse_size(val, vlen, &v) ||
			    (vlen && (val[vlen - 1] < '0' || val[vlen - 1] > '9')) || v < d->min ||
			    v > d->max) {
				snprintf(err, err_len,
					 "bad value in '%.*s': %s=N must lie in %llu..%llu",
					 (int)len, word, d->key, (unsigned long long)d->min,
					 (unsigned long long)d->max);
				return KERR_INVAL;
			}
			memcpy(field, &v, sizeof(v));
			return 0;
		}
		if (d->type == OPT_LIST)
			return options_apply_list(d, word, len, val, vlen, field, err, err_len);
		for (unsigned int c = 0; d->choices[c]; c++) {
			if (strlen(d->choices[c]) == vlen && !memcmp(d->choices[c], val, vlen)) {
				int value = (int)c;

				memcpy(field, &value, sizeof(value));
				return 0;
			}
		}
		snprintf(err, err_len, "bad value in '%.*s'; valid: %s", (int)len, word, d->help);
		return KERR_INVAL;
	}
	options_valid_keys(keys, sizeof(keys));
	snprintf(err, err_len, "unknown option '%.*s'; valid options: %s", (int)len, word, keys);
	return KERR_INVAL;
}

uint64_t options_key_bit(const char *key)
{
	_Static_assert(OPTION_COUNT <= 64, "option masks are 64 bits");
	for (size_t i = 0; i < OPTION_COUNT; i++)
		if (!strcmp(option_table[i].key, key))
			return UINT64_C(1) << i;
	return 0;
}

int options_parse_over(const char *text, struct kernel_options *opts, uint64_t *set, char *err,
		       size_t err_len)
{
	const char *p = text;
	uint64_t local = 0;

	_Static_assert(sizeof(enum fault_kind) == sizeof(int), "OPT_CHOICE fields are int-sized");
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
		rc = options_apply(start, (size_t)(p - start), opts, set ? set : &local, err,
				   err_len);
		if (rc)
			return rc;
	}
	return 0;
}

int options_validate(const struct kernel_options *opts, char *err, size_t err_len)
{
	if (opts->areas & (opts->areas - 1)) {
		snprintf(err, err_len, "areas=%llu is not a power of two",
			 (unsigned long long)opts->areas);
		return KERR_INVAL;
	}
	if (opts->iotlb_ways &&
	    (opts->iotlb_ways > opts->iotlb_entries || opts->iotlb_entries % opts->iotlb_ways)) {
		snprintf(err, err_len, "iotlb_ways=%llu must divide iotlb_entries=%llu",
			 (unsigned long long)opts->iotlb_ways,
			 (unsigned long long)opts->iotlb_entries);
		return KERR_INVAL;
	}
	/* What the pools leave holds the two 1 MiB coherent pools of the direct and
	 * arena modes and at least one 2 MiB arena chunk. */
	if ((uint64_t)__builtin_popcountll(opts->policies) * opts->pool_bytes + 2 * TWO_MIB >
	    opts->dma_bytes) {
		snprintf(err, err_len,
			 "%d pools of pool=%lluK leave less than 4M of dma=%lluK for the coherent "
			 "pools and the arena; raise dma= or lower pool= or policies=",
			 __builtin_popcountll(opts->policies),
			 (unsigned long long)(opts->pool_bytes / 1024),
			 (unsigned long long)(opts->dma_bytes / 1024));
		return KERR_INVAL;
	}
	return 0;
}

int options_parse(const char *text, struct kernel_options *opts, char *err, size_t err_len)
{
	int rc;

	options_defaults(opts);
	rc = options_parse_over(text, opts, NULL, err, err_len);
	return rc ? rc : options_validate(opts, err, err_len);
}
