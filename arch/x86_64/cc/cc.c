/* SPDX-License-Identifier: MIT */
/*
 * cc.c - the list of CC platforms and the choice among them (see cc.h).
 */
#include "arch/x86_64/cc/cc.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "arch/x86_64/cpu/qemu_exit.h"

#define CC_PLATFORM_PTR(id, sym, name, how) [CC_PLATFORM_##id] = &cc_platform_##sym,
const struct cc_platform_ops *const cc_platforms[CC_PLATFORM_COUNT] = { CC_PLATFORMS(
	CC_PLATFORM_PTR) };
#undef CC_PLATFORM_PTR

/* The OPTION platforms in list order: cc=<value> picks option_platforms[value - 1]. */
#define CC_OPTION_PTR_OPTION(sym) &cc_platform_##sym,
#define CC_OPTION_PTR_HARDWARE(sym)
#define CC_OPTION_PTR(id, sym, name, how) CC_OPTION_PTR_##how(sym)
static const struct cc_platform_ops *const option_platforms[] = { CC_PLATFORMS(CC_OPTION_PTR) };
#undef CC_OPTION_PTR
_Static_assert(sizeof(option_platforms) / sizeof(option_platforms[0]) == CC_OPT_COUNT - 1,
	       "one cc= value per OPTION platform, after auto");

static const struct cc_platform_ops *chosen;

const struct cc_platform_ops *cc_platform_find(const char *name)
{
	for (unsigned int i = 0; name && i < CC_PLATFORM_COUNT; i++)
		if (!strcmp(cc_platforms[i]->name, name))
			return cc_platforms[i];
	return NULL;
}

const struct cc_platform_ops *cc_platform_choose(enum cc_mode at_boot, unsigned int option)
{
	if (option >= CC_OPT_COUNT)
		return NULL;
	if (at_boot != CC_NONE) {
		for (unsigned int i = 0; i < CC_PLATFORM_COUNT; i++)
			if (cc_platforms[i]->hardware == at_boot)
				return cc_platforms[i];
		/* SEV or SEV-ES without SNP: no platform of the list runs there;
		 * the simulations assume a plain VM (their firmware pieces are
		 * only built on one), so the emulated model. */
		return option_platforms[0];
	}
	return option == CC_OPT_AUTO ? option_platforms[0] : option_platforms[option - 1];
}

const struct cc_platform_ops *cc_platform_select(enum cc_mode at_boot, unsigned int option)
{
	const struct cc_platform_ops *p = cc_platform_choose(at_boot, option);

	chosen = p ? p : option_platforms[0];
	return chosen;
}

const struct cc_platform_ops *cc_platform(void)
{
	return chosen ? chosen : option_platforms[0];
}

void cc_conversions_print(const struct cc_stats *s, const char *extra)
{
	printf("conversions %" PRIu64 " to shared, %" PRIu64 " to private, %" PRIu64
	       " failed (%" PRIu64 " rolled back, %" PRIu64 " pages leaked)%s%s\n",
	       s->to_shared, s->to_private, s->failed, s->rolled_back, s->leaked_pages,
	       extra ? ", " : "", extra ? extra : "");
}

void cc_model_violation(const char *model, const char *guest, const char *rule, uint64_t gpa)
{
	printf("%s: VIOLATION at GPA 0x%" PRIx64 ": %s\n", model, gpa, rule);
	printf("sluice: %s; exit %d\n", guest, SLUICE_EXIT_FAIL);
	qemu_exit(SLUICE_EXIT_FAIL);
}
