/* SPDX-License-Identifier: MIT */
/*
 * test_options.c - the kernel option parser (boot/options.c) on the host.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "boot/bench_suites.h"
#include "boot/dma_modes.h"
#include "boot/options.h"

#include <sluice/dma_policies.h>
#include <sluice/dma.h>

#define MIB (UINT64_C(1) << 20)
/* Every choice of a list of @n (the default of policies= and modes=). */
#define ALL_OF(n) ((UINT64_C(1) << (n)) - 1)
#define BIT(i) (UINT64_C(1) << (i))

static void test_defaults_for_empty_text(void **state)
{
	struct kernel_options o;
	char err[512];

	(void)state;
	assert_int_equal(options_parse("", &o, err, sizeof(err)), 0);
	assert_int_equal(o.heap_bytes, 64 * MIB);
	assert_int_equal(o.dma_bytes, 128 * MIB);
	assert_int_equal(o.fault, FAULT_NONE);
	assert_int_equal(o.pool_bytes, 16 * MIB);
	assert_int_equal(o.policies, ALL_OF(SLUICE_DMA_POLICY_COUNT));
	assert_string_equal(options_scrub_names[o.scrub], "zero");
	assert_int_equal(options_parse("  \n# only a comment\n", &o, err, sizeof(err)), 0);
	assert_int_equal(o.heap_bytes, 64 * MIB);
}

static void test_sizes_and_suffixes(void **state)
{
	struct kernel_options o;
	char err[512];

	(void)state;
	assert_int_equal(options_parse("heap=2048K dma=512M", &o, err, sizeof(err)), 0);
	assert_int_equal(o.heap_bytes, 2 * MIB);
	assert_int_equal(o.dma_bytes, 512 * MIB);
	assert_int_not_equal(options_parse("dma=1G", &o, err, sizeof(err)), 0); /* over 512M */
	/* (one pool of 1M: dma=8M holds it whatever the number of policies) */
	assert_int_equal(options_parse("heap=16m\tdma=8M pool=1M policies=lifo\r\n", &o, err,
				       sizeof(err)),
			 0);
	assert_int_equal(o.heap_bytes, 16 * MIB);
	assert_int_equal(o.dma_bytes, 8 * MIB);
	/* Plain bytes, rounded up to the option's alignment. */
	assert_int_equal(options_parse("heap=1048577", &o, err, sizeof(err)), 0);
	assert_int_equal(o.heap_bytes, MIB + 4096);
	/* The DMA region is whole 2 MiB pages. */
	assert_int_equal(options_parse("dma=5M pool=256K", &o, err, sizeof(err)), 0);
	assert_int_equal(o.dma_bytes, 6 * MIB);
}

static void test_later_words_win_and_comments_end_words(void **state)
{
	struct kernel_options o;
	char err[512];

	(void)state;
	assert_int_equal(
		options_parse("heap=8M heap=4M#comment dma=4M\nfault=ud", &o, err, sizeof(err)), 0);
	assert_int_equal(o.heap_bytes, 4 * MIB);
	assert_int_equal(o.dma_bytes, 128 * MIB); /* dma=4M was inside the comment */
	assert_int_equal(o.fault, FAULT_UD);
}

static void test_fault_choices(void **state)
{
	static const struct {
		const char *text;
		enum fault_kind kind;
	} cases[] = {
		{ "fault=none", FAULT_NONE },
		{ "fault=pf", FAULT_PAGE },
		{ "fault=gp", FAULT_GP },
		{ "fault=ud", FAULT_UD },
		{ "fault=div", FAULT_DIVIDE },
		{ "fault=write_text", FAULT_WRITE_TEXT },
		{ "fault=exec_shared", FAULT_EXEC_SHARED },
		{ "fault=exec_data", FAULT_EXEC_DATA },
		{ "fault=exec_stack", FAULT_EXEC_STACK },
		{ "fault=ve", FAULT_VE },
		{ "fault=vc", FAULT_VC },
	};
	struct kernel_options o;
	char err[512];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(options_parse(cases[i].text, &o, err, sizeof(err)), 0);
		assert_int_equal(o.fault, cases[i].kind);
		assert_string_equal(options_fault_name(o.fault), cases[i].text + strlen("fault="));
	}
}

static void test_unknown_key_lists_valid_ones(void **state)
{
	struct kernel_options o;
	char err[512];

	(void)state;
	assert_int_equal(options_parse("heap=8M bogus=1", &o, err, sizeof(err)), -22);
	assert_string_equal(
		err,
		"unknown option 'bogus=1'; valid options: heap, dma, fault, pool, "
		"policies, scrub, modes, blk, iodepth, bs, net, frames, bench, bench_set, "
		"bench_ms, iotlb_entries, iotlb_ways, fail_private, areas, cpus, fault_cpu, "
		"device_timeout_ms, cc, tdx_fault, tdx_fault_every, snp_fault, snp_fault_every, "
		"accel");
	assert_int_equal(options_parse("heapx=1M", &o, err, sizeof(err)), -22);
	assert_non_null(strstr(err, "unknown option 'heapx=1M'"));
	assert_int_equal(options_parse("hea=1M", &o, err, sizeof(err)), -22);
}

static void test_bad_values_name_the_word(void **state)
{
	static const char *const bad[] = {
		"heap=",
		"heap=M",
		"heap=12Q",
		"heap=1MB",
		"heap=-1",
		"heap=0",
		"heap=512K",
		"dma=1M",
		"dma=513M",
		"heap=99999999999999999999",
		"heap=18014398509481984G",
		"fault=segv",
		"fault=",
		"fault=exec",
		"fault=write_text,",
		"heap",
		"fault",
		"policies=fifo",
		"scrub=never",
		"pool=100K",
		"modes=",
		"modes=direct,",
		"modes=bounce,fast",
		"modes=,arena",
		"iodepth=0",
		"iodepth=1025",
		"iodepth=4K",
		"iodepth=x",
		"bs=256",
		"bs=2M",
		"blk=maybe",
		"iotlb_entries=0",
		"iotlb_ways=5000",
		"bench=fio",
		"cpus=17",
		"cpus=x",
		"fault_cpu=16",
		"areas=3",
		"areas=128",
		"accel=hvf",
		"accel=",
		"device_timeout_ms=5",
		"device_timeout_ms=600001",
		"cc=sim-sev",
		"cc=snp",
		"snp_fault=lie",
		"snp_fault=cf,",
		"snp_fault_every=0",
		"snp_fault_every=1000001",
	};
	struct kernel_options o;
	char err[512];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		assert_int_equal(options_parse(bad[i], &o, err, sizeof(err)), -22);
		/* The message quotes the offending word so the user can find it. */
		assert_non_null(strstr(err, bad[i]));
	}
}

static void test_dma_split_options(void **state)
{
	struct kernel_options o;
	char err[512];

	(void)state;
	for (int i = 0; options_policy_names[i]; i++) {
		char text[64];

		snprintf(text, sizeof(text), "policies=%s", options_policy_names[i]);
		assert_int_equal(options_parse(text, &o, err, sizeof(err)), 0);
		assert_int_equal(o.policies, 1u << i);
	}
	assert_int_equal(options_parse("policies=sluice,linux", &o, err, sizeof(err)), 0);
	assert_int_equal(o.policies, BIT(SLUICE_DMA_POLICY_SLUICE) | BIT(SLUICE_DMA_POLICY_LINUX));
	assert_int_equal(options_parse("scrub=copy", &o, err, sizeof(err)), 0);
	assert_int_equal(o.scrub, 0);
	assert_int_equal(options_parse("scrub=written", &o, err, sizeof(err)), 0);
	assert_int_equal(o.scrub, OPTIONS_SCRUB_WRITTEN);
	{
		/* A pool of 15M per policy and the 4M the rest needs, in whole 2M. */
		char text[64];
		int dma = (15 * SLUICE_DMA_POLICY_COUNT + 4 + 1) / 2 * 2;

		snprintf(text, sizeof(text), "dma=%dM pool=15M", dma);
		assert_int_equal(options_parse(text, &o, err, sizeof(err)), 0);
		assert_int_equal(o.pool_bytes, 15 * MIB);
	}
	assert_int_equal(options_parse("dma=64M pool=60M policies=lifo", &o, err, sizeof(err)), 0);
	/* The pools (one per policy) must leave 2 MiB of coherent pools and one 2 MiB
	 * arena chunk, whatever the order of the words. */
	{
		/* Every policy's pool of 16M fill dma= exactly: no room left. */
		char text[64], want[64];

		snprintf(text, sizeof(text), "dma=%dM pool=16M", 16 * SLUICE_DMA_POLICY_COUNT);
		snprintf(want, sizeof(want), "%d pools of pool=16384K leave less than 4M",
			 SLUICE_DMA_POLICY_COUNT);
		assert_int_equal(options_parse(text, &o, err, sizeof(err)), -22);
		assert_non_null(strstr(err, want));
		snprintf(text, sizeof(text), "pool=16M dma=%dM", 16 * SLUICE_DMA_POLICY_COUNT);
		assert_int_equal(options_parse(text, &o, err, sizeof(err)), -22);
		snprintf(text, sizeof(text), "pool=16M dma=%dM", 16 * SLUICE_DMA_POLICY_COUNT + 4);
		assert_int_equal(options_parse(text, &o, err, sizeof(err)), 0);
	}
	assert_int_equal(options_parse("dma=64M pool=61M policies=lifo", &o, err, sizeof(err)),
			 -22);
	assert_int_equal(options_parse("dma=8M", &o, err, sizeof(err)), -22);
}

static void test_io_options(void **state)
{
	struct kernel_options o;
	char err[512];

	(void)state;
	assert_int_equal(options_parse("", &o, err, sizeof(err)), 0);
	assert_int_equal(o.modes, ALL_OF(KDMA_NMODES));
	assert_int_equal(o.iodepth, 32);
	assert_int_equal(o.bs, 64 * 1024);
	assert_int_equal(o.frames, 1000);
	assert_string_equal(options_blk_names[o.blk], "check");
	assert_int_equal(options_parse("frames=0", &o, err, sizeof(err)), 0);
	assert_int_equal(o.frames, 0);
	assert_int_not_equal(options_parse("frames=-1", &o, err, sizeof(err)), 0);
	assert_int_equal(options_parse("modes=arena,direct iodepth=256 bs=4K blk=none", &o, err,
				       sizeof(err)),
			 0);
	assert_int_equal(o.modes, BIT(KDMA_ARENA) | BIT(KDMA_DIRECT));
	assert_int_equal(o.iodepth, 256);
	assert_int_equal(o.bs, 4096);
	assert_int_equal(o.blk, 0);
	assert_int_equal(options_parse("modes=bounce bs=1000", &o, err, sizeof(err)), 0);
	assert_int_equal(o.modes, BIT(KDMA_BOUNCE));
	assert_int_equal(o.bs, 1024); /* rounded up to a whole sector */
	assert_int_equal(options_parse("modes=all", &o, err, sizeof(err)), 0);
	assert_int_equal(o.modes, ALL_OF(KDMA_NMODES));
	assert_int_equal(options_parse("bench=blk,convert iotlb_entries=32 iotlb_ways=4", &o, err,
				       sizeof(err)),
			 0);
	assert_int_equal(o.bench, BIT(BENCH_SUITE_BLK) | BIT(BENCH_SUITE_CONVERT));
	assert_int_equal(o.iotlb_entries, 32);
	assert_int_equal(o.iotlb_ways, 4);
	assert_int_equal(options_parse("cpus=2 fault_cpu=1", &o, err, sizeof(err)), 0);
	assert_int_equal(o.cpus, 2);
	assert_int_equal(o.fault_cpu, 1);
	assert_int_equal(options_parse("device_timeout_ms=250", &o, err, sizeof(err)), 0);
	assert_int_equal(o.device_timeout_ms, 250);
	/* The accelerator label: unknown unless the runner names it. */
	options_defaults(&o);
	assert_string_equal(options_accel_names[o.accel], "unknown");
	assert_int_equal(options_parse("accel=tcg", &o, err, sizeof(err)), 0);
	assert_string_equal(options_accel_names[o.accel], "tcg");
	assert_int_equal(options_parse("accel=kvm", &o, err, sizeof(err)), 0);
	assert_string_equal(options_accel_names[o.accel], "kvm");
	/* Ways must divide the entries, whatever the order of the words. */
	assert_int_equal(options_parse("iotlb_ways=5 iotlb_entries=32", &o, err, sizeof(err)), -22);
	assert_non_null(strstr(err, "iotlb_ways=5 must divide iotlb_entries=32"));
}

/* The platform and the faults of the simulated guests: cc=, tdx_fault=,
 * snp_fault= and their every= counts. */
static void test_cc_options(void **state)
{
	struct kernel_options o;
	char err[512];

	(void)state;
	options_defaults(&o);
	assert_int_equal(o.cc, CC_OPT_AUTO);
	assert_int_equal(o.snp_fault, 1); /* none */
	assert_int_equal(o.snp_fault_every, 5);
	assert_int_equal(options_parse("cc=sim-snp", &o, err, sizeof(err)), 0);
	assert_int_equal(o.cc, CC_OPT_SIM_SNP);
	assert_string_equal(options_cc_names[o.cc], "sim-snp");
	assert_int_equal(options_parse("cc=sim-tdx", &o, err, sizeof(err)), 0);
	assert_int_equal(o.cc, CC_OPT_SIM_TDX);
	assert_int_equal(options_parse("cc=sim-snp snp_fault=early_return,size_mismatch "
				       "snp_fault_every=3",
				       &o, err, sizeof(err)),
			 0);
	assert_int_equal(o.snp_fault, (UINT64_C(1) << SNP_FAULT_EARLY_RETURN) |
					      (UINT64_C(1) << SNP_FAULT_SIZE_MISMATCH));
	assert_int_equal(o.snp_fault_every, 3);
	assert_int_equal(options_parse("snp_fault=psc_error", &o, err, sizeof(err)), 0);
	assert_int_equal(o.snp_fault, UINT64_C(1) << SNP_FAULT_PSC_ERROR);
	assert_int_equal(options_parse("snp_fault=cf,ap_silent", &o, err, sizeof(err)), 0);
	assert_int_equal(o.snp_fault,
			 (UINT64_C(1) << SNP_FAULT_CF) | (UINT64_C(1) << SNP_FAULT_AP_SILENT));
	assert_string_equal(options_snp_fault_names[SNP_FAULT_AP_SILENT], "ap_silent");
	assert_int_equal(options_parse("snp_fault_every=1", &o, err, sizeof(err)), 0);
	assert_int_equal(o.snp_fault_every, 1);
	assert_int_equal(options_parse("tdx_fault=busy tdx_fault_every=2", &o, err, sizeof(err)),
			 0);
	assert_int_equal(o.tdx_fault, UINT64_C(1) << 6);
	assert_int_equal(o.tdx_fault_every, 2);
	assert_int_equal(options_parse("snp_fault=busy", &o, err, sizeof(err)), -22);
	assert_non_null(strstr(err, "snp_fault=busy"));
}

static void test_small_error_buffer_is_safe(void **state)
{
	struct kernel_options o;
	char err[8];

	(void)state;
	memset(err, 'x', sizeof(err));
	assert_int_equal(options_parse("bogus=1", &o, err, sizeof(err)), -22);
	assert_int_equal(strlen(err), sizeof(err) - 1);
}

static void test_usage_lists_every_option(void **state)
{
	const char *u = options_usage();

	(void)state;
	assert_non_null(strstr(u, "heap=SIZE"));
	assert_non_null(strstr(u, "dma=SIZE"));
	assert_non_null(strstr(u, "fault=VALUE"));
	assert_non_null(strstr(u, "none|pf|gp|ud|div"));
	assert_non_null(strstr(u, "write_text|exec_shared|exec_data|exec_stack"));
	assert_non_null(strstr(u, "iodepth=N"));
	assert_non_null(strstr(u, "modes=LIST"));
	/* The last rows too: the text is never cut short. */
	assert_non_null(strstr(u, "fault_cpu=N"));
	assert_non_null(strstr(u, "accel=VALUE"));
	assert_non_null(strstr(u, "unknown|tcg|kvm"));
}

/*
 * The trust split: the built-in (measured) options over the defaults, then
 * sluice.cfg over them, as boot/efi_entry.c does; in a confidential guest a
 * weakening value from sluice.cfg is refused with a line saying why.
 */
static int trust_boot(const char *builtin, const char *cfg, struct kernel_options *opts, char *err,
		      size_t err_len)
{
	struct kernel_options trusted;
	uint64_t bset = 0, cset = 0;

	options_defaults(&trusted);
	assert_int_equal(options_parse_over(builtin, &trusted, &bset, err, err_len), 0);
	*opts = trusted;
	assert_int_equal(options_parse_over(cfg, opts, &cset, err, err_len), 0);
	assert_int_equal(options_validate(opts, err, err_len), 0);
	return options_trust_check(&trusted, opts, bset, cset, "sim-tdx", err, err_len);
}

static void test_trust_weakening_refused(void **state)
{
	static const char *const hostile[] = {
		"scrub=copy", "device_timeout_ms=600000",   "modes=direct",
		"modes=all",  "frames=10 scrub=copy bs=4K", "scrub=written",
	};
	struct kernel_options o;
	char err[400];

	(void)state;
	for (size_t i = 0; i < sizeof(hostile) / sizeof(hostile[0]); i++) {
		assert_int_equal(trust_boot("", hostile[i], &o, err, sizeof(err)), -1);
		assert_non_null(strstr(err, "from sluice.cfg refused: it weakens a guarantee"));
		assert_non_null(strstr(err, "(sim-tdx)"));
	}
	assert_int_equal(trust_boot("", "scrub=copy", &o, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "'scrub=copy'"));
	assert_non_null(strstr(err, "show the device bytes it was not given"));
	/* Written is weaker than zero and stronger than copy. */
	assert_int_equal(trust_boot("scrub=written", "scrub=copy", &o, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "'scrub=copy'"));
	assert_int_equal(trust_boot("", "modes=direct,arena", &o, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "'modes=direct,arena'"));
}

static void test_trust_tuning_and_measured_allowed(void **state)
{
	struct kernel_options o;
	char err[400];

	(void)state;
	/* Tuning, stronger values, and the trusted value restated are the host's to pick. */
	assert_int_equal(trust_boot("",
				    "heap=32M frames=10 policies=lifo modes=bounce,arena "
				    "scrub=zero device_timeout_ms=2000 tdx_fault=busy",
				    &o, err, sizeof(err)),
			 0);
	assert_int_equal(o.device_timeout_ms, 2000);
	/* The default loses direct in a confidential guest. */
	assert_int_equal(trust_boot("", "", &o, err, sizeof(err)), 0);
	assert_int_equal(o.modes, ALL_OF(KDMA_NMODES) & ~BIT(KDMA_DIRECT));
	/* What the measured image says holds, and sluice.cfg may restate it. */
	assert_int_equal(trust_boot("scrub=copy modes=all device_timeout_ms=60000",
				    "scrub=copy modes=direct device_timeout_ms=60000", &o, err,
				    sizeof(err)),
			 0);
	assert_int_equal(o.scrub, 0);
	assert_int_equal(o.modes, BIT(KDMA_DIRECT));
	assert_int_equal(trust_boot("scrub=copy", "scrub=written", &o, err, sizeof(err)), 0);
	assert_int_equal(o.scrub, OPTIONS_SCRUB_WRITTEN);
	assert_int_equal(trust_boot("scrub=written", "scrub=zero", &o, err, sizeof(err)), 0);
	assert_int_equal(trust_boot("device_timeout_ms=60000", "device_timeout_ms=60001", &o, err,
				    sizeof(err)),
			 -1);
}

/* Each list of names is the one in its header, and is written without stray commas. */
static void test_lists_from_their_headers(void **state)
{
	static const char *const policies[] = {
#define TO_POLICY_(upper, lower) #lower,
		SLUICE_DMA_POLICIES(TO_POLICY_)
#undef TO_POLICY_
	};
	struct kernel_options o;
	char err[512], buf[256], tiny[8];
	const char *u = options_usage();
	size_t n;

	(void)state;
	for (int i = 0; i < SLUICE_DMA_POLICY_COUNT; i++) {
		char word[40];

		assert_string_equal(options_policy_names[i], policies[i]);
		/* The help of policies= names it (" name" and then ' ' or ';'). */
		snprintf(word, sizeof(word), " %s", policies[i]);
		assert_non_null(strstr(u, word));
	}
	assert_null(options_policy_names[SLUICE_DMA_POLICY_COUNT]);
	assert_null(options_mode_names[KDMA_NMODES]);
	assert_null(options_bench_names[BENCH_SUITE_COUNT]);
	assert_string_equal(options_mode_names[KDMA_BOUNCE], "bounce");
	assert_string_equal(options_bench_names[BENCH_SUITE_NONE], "none");

	/* As the boot report prints them: no separator first or last. */
	assert_int_equal(options_parse("", &o, err, sizeof(err)), 0);
	n = options_list_format(buf, sizeof(buf), options_policy_names, o.policies);
	assert_int_equal(n, strlen(buf));
	assert_true(buf[0] != ',' && buf[n - 1] != ',' && !strstr(buf, ",,"));
	for (int i = 0; i < SLUICE_DMA_POLICY_COUNT; i++)
		assert_non_null(strstr(buf, policies[i]));
	assert_int_equal(options_parse("policies=lifo,linux", &o, err, sizeof(err)), 0);
	options_list_format(buf, sizeof(buf), options_policy_names, o.policies);
	assert_string_equal(buf, "linux,lifo"); /* the list's order, not the option's */
	assert_int_equal(options_parse("policies=lifo", &o, err, sizeof(err)), 0);
	options_list_format(buf, sizeof(buf), options_policy_names, o.policies);
	assert_string_equal(buf, "lifo");
	options_list_format(buf, sizeof(buf), options_mode_names,
			    BIT(KDMA_BOUNCE) | BIT(KDMA_ARENA));
	assert_string_equal(buf, "bounce,arena");
	assert_int_equal(options_list_format(buf, sizeof(buf), options_mode_names, 0), 0);
	assert_string_equal(buf, "");
	/* Bits beyond the names are ignored, a short buffer is cut and terminated. */
	options_list_format(buf, sizeof(buf), options_mode_names, ~UINT64_C(0));
	assert_string_equal(buf, "direct,bounce,arena");
	assert_int_equal(options_list_format(tiny, sizeof(tiny), options_mode_names, ~UINT64_C(0)),
			 sizeof(tiny) - 1);
	assert_string_equal(tiny, "direct,");
	assert_int_equal(options_list_format(tiny, 0, options_mode_names, 1), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults_for_empty_text),
		cmocka_unit_test(test_sizes_and_suffixes),
		cmocka_unit_test(test_later_words_win_and_comments_end_words),
		cmocka_unit_test(test_fault_choices),
		cmocka_unit_test(test_unknown_key_lists_valid_ones),
		cmocka_unit_test(test_bad_values_name_the_word),
		cmocka_unit_test(test_dma_split_options),
		cmocka_unit_test(test_io_options),
		cmocka_unit_test(test_cc_options),
		cmocka_unit_test(test_small_error_buffer_is_safe),
		cmocka_unit_test(test_usage_lists_every_option),
		cmocka_unit_test(test_trust_weakening_refused),
		cmocka_unit_test(test_trust_tuning_and_measured_allowed),
		cmocka_unit_test(test_lists_from_their_headers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
