/* SPDX-License-Identifier: MIT */
/*
 * test_cc_platforms.c - the one list of CC platforms (arch/x86_64/cc/cc.h) and
 * the ops behind it, on the host: every platform of the list is linked with
 * every mandatory op, under its list name and index; names are unique; the
 * cc= option accepts exactly "auto" and the platforms chosen by option, and
 * refuses the rest; the choice at kernel entry (cc_platform_choose()) puts
 * hardware first and refuses an option value out of range.
 *
 * The platforms' files are linked as the kernel links them, with the kernel
 * services they call faked in tests/fakes/cc_kernel_fakes.c (none is called here:
 * the test reads the tables and calls the pure choice).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "arch/x86_64/cc/cc.h"
#include "boot/options.h"

/* The list as the X-macro spells it, to compare the table against. */
#define LIST_NAME(id, sym, name, how) name,
static const char *const list_names[] = { CC_PLATFORMS(LIST_NAME) };
#undef LIST_NAME
#define LIST_BY_OPTION(id, sym, name, how) (sizeof(#how) == sizeof("OPTION")),
static const bool list_by_option[] = { CC_PLATFORMS(LIST_BY_OPTION) };
#undef LIST_BY_OPTION

static void test_every_platform_has_every_mandatory_op(void **state)
{
	(void)state;
	assert_int_equal(sizeof(list_names) / sizeof(list_names[0]), CC_PLATFORM_COUNT);
	for (unsigned int i = 0; i < CC_PLATFORM_COUNT; i++) {
		const struct cc_platform_ops *p = cc_platforms[i];

		assert_non_null(p);
		assert_non_null(p->name);
		assert_string_equal(p->name, list_names[i]);
		assert_int_equal(p->id, i);
		assert_non_null(p->early);
		assert_non_null(p->pt_encoding);
		assert_non_null(p->after_mmu);
		assert_non_null(p->start);
		assert_non_null(p->ap_setup);
		assert_non_null(p->stats);
		assert_non_null(p->report);
		/* A protocol of its own and a conversion go together. */
		assert_int_equal(p->protocol != NULL, p->convert != NULL);
		/* Chosen by option exactly when no hardware selects it. */
		assert_int_equal(p->hardware == CC_NONE, list_by_option[i]);
	}
}

static void test_names_and_hardware_modes_are_unique(void **state)
{
	(void)state;
	for (unsigned int i = 0; i < CC_PLATFORM_COUNT; i++)
		for (unsigned int j = i + 1; j < CC_PLATFORM_COUNT; j++) {
			assert_string_not_equal(cc_platforms[i]->name, cc_platforms[j]->name);
			if (cc_platforms[i]->hardware != CC_NONE)
				assert_int_not_equal(cc_platforms[i]->hardware,
						     cc_platforms[j]->hardware);
		}
	for (unsigned int i = 0; i < CC_PLATFORM_COUNT; i++)
		assert_ptr_equal(cc_platform_find(list_names[i]), cc_platforms[i]);
	assert_null(cc_platform_find("auto"));
	assert_null(cc_platform_find("sim_tdx"));
	assert_null(cc_platform_find(""));
	assert_null(cc_platform_find(NULL));
}

/* The option table is "auto", then the OPTION platforms in list order. */
static void test_option_table_is_the_list(void **state)
{
	unsigned int n = 1;

	(void)state;
	assert_string_equal(options_cc_names[0], "auto");
	for (unsigned int i = 0; i < CC_PLATFORM_COUNT; i++) {
		if (cc_platforms[i]->hardware != CC_NONE)
			continue;
		assert_non_null(options_cc_names[n]);
		assert_string_equal(options_cc_names[n], cc_platforms[i]->name);
		n++;
	}
	assert_null(options_cc_names[n]);
	assert_int_equal(n, CC_OPT_COUNT);
}

/* cc=NAME parses for exactly those names, and picks that platform. */
static void test_option_parser_accepts_exactly_the_list(void **state)
{
	struct kernel_options o;
	char text[64], err[200];

	(void)state;
	for (unsigned int i = 0; i < CC_PLATFORM_COUNT; i++) {
		int rc;

		snprintf(text, sizeof(text), "cc=%s", cc_platforms[i]->name);
		rc = options_parse(text, &o, err, sizeof(err));
		if (cc_platforms[i]->hardware != CC_NONE) {
			/* Found by the hardware, never asked for. */
			assert_int_not_equal(rc, 0);
			continue;
		}
		assert_int_equal(rc, 0);
		assert_ptr_equal(cc_platform_choose(CC_NONE, (unsigned int)o.cc), cc_platforms[i]);
	}
	assert_int_equal(options_parse("cc=auto", &o, err, sizeof(err)), 0);
	assert_int_equal(o.cc, CC_OPT_AUTO);
	assert_int_not_equal(options_parse("cc=sim_tdx", &o, err, sizeof(err)), 0);
	assert_int_not_equal(options_parse("cc=SIM-SNP", &o, err, sizeof(err)), 0);
	assert_int_not_equal(options_parse("cc=", &o, err, sizeof(err)), 0);
}

static void test_choice_puts_hardware_first(void **state)
{
	(void)state;
	assert_ptr_equal(cc_platform_choose(CC_NONE, CC_OPT_AUTO), &cc_platform_emulated);
	assert_ptr_equal(cc_platform_choose(CC_NONE, CC_OPT_SIM_TDX), &cc_platform_sim_tdx);
	assert_ptr_equal(cc_platform_choose(CC_NONE, CC_OPT_SIM_SNP), &cc_platform_sim_snp);
	assert_ptr_equal(cc_platform_choose(CC_NONE, CC_OPT_EMULATED), &cc_platform_emulated);
	/* A TD or SNP guest is one whatever cc= says (its early op refuses). */
	for (unsigned int opt = 0; opt < CC_OPT_COUNT; opt++) {
		assert_ptr_equal(cc_platform_choose(CC_TDX, opt), &cc_platform_tdx);
		assert_ptr_equal(cc_platform_choose(CC_SEV_SNP, opt), &cc_platform_snp);
		/* SEV or SEV-ES without SNP: no simulation on top of it. */
		assert_ptr_equal(cc_platform_choose(CC_SEV_ES, opt), &cc_platform_emulated);
	}
}

/* A value out of the option's range (a corrupted hand-off) is refused by the
 * pure choice, and the kept choice falls back to the emulated platform. */
static void test_choice_refuses_an_option_out_of_range(void **state)
{
	(void)state;
	assert_null(cc_platform_choose(CC_NONE, CC_OPT_COUNT));
	assert_null(cc_platform_choose(CC_TDX, 1000));
	assert_ptr_equal(cc_platform_select(CC_NONE, CC_OPT_COUNT + 7), &cc_platform_emulated);
	assert_ptr_equal(cc_platform(), &cc_platform_emulated);
	assert_ptr_equal(cc_platform_select(CC_NONE, CC_OPT_SIM_SNP), &cc_platform_sim_snp);
	assert_ptr_equal(cc_platform(), &cc_platform_sim_snp);
}

/* Only the platforms that can inject them have the fault hooks fault= asks. */
static void test_fault_hooks(void **state)
{
	(void)state;
	assert_non_null(cc_platform_sim_tdx.stage_ve);
	assert_non_null(cc_platform_sim_snp.raise_vc);
	assert_non_null(cc_platform_sim_tdx.arm_faults);
	assert_non_null(cc_platform_sim_snp.arm_faults);
	for (unsigned int i = 0; i < CC_PLATFORM_COUNT; i++)
		if (cc_platforms[i]->hardware != CC_NONE || i == CC_PLATFORM_EMULATED) {
			assert_null(cc_platforms[i]->stage_ve);
			assert_null(cc_platforms[i]->raise_vc);
			assert_null(cc_platforms[i]->arm_faults);
		}
}

/* --list [--option|--hardware]: the compiled table's names, one a line, for
 * tests/cc_platforms/test_cc_platforms_script.sh to compare the script with. */
static int list(int argc, char **argv)
{
	bool option = argc > 2 && !strcmp(argv[2], "--option");
	bool hardware = argc > 2 && !strcmp(argv[2], "--hardware");

	for (unsigned int i = 0; i < CC_PLATFORM_COUNT; i++) {
		if ((option && cc_platforms[i]->hardware != CC_NONE) ||
		    (hardware && cc_platforms[i]->hardware == CC_NONE))
			continue;
		printf("%s\n", cc_platforms[i]->name);
	}
	return 0;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_platform_has_every_mandatory_op),
		cmocka_unit_test(test_names_and_hardware_modes_are_unique),
		cmocka_unit_test(test_option_table_is_the_list),
		cmocka_unit_test(test_option_parser_accepts_exactly_the_list),
		cmocka_unit_test(test_choice_puts_hardware_first),
		cmocka_unit_test(test_choice_refuses_an_option_out_of_range),
		cmocka_unit_test(test_fault_hooks),
	};

	if (argc > 1 && !strcmp(argv[1], "--list"))
		return list(argc, argv);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
