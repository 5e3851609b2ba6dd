/* SPDX-License-Identifier: MIT */
/*
 * options_trust.c - which options the host may choose in a confidential guest.
 *
 * The options come from two places. sluice.cfg on the boot volume is written
 * by whoever prepares the disk - the host - and nothing authenticates or
 * measures it: the firmware measures the images it loads, not the files an
 * application reads (tianocore/edk2 SecurityPkg/Library/DxeTpm2MeasureBootLib/
 * DxeTpm2MeasureBootLib.c hooks LoadImage() and measures each PE image; in a
 * TD, TDVF's OvmfPkg/IntelTdx/TdTcg2Dxe extends that into RTMR[1] through
 * EFI_CC_MEASUREMENT_PROTOCOL). Options built into the image
 * (`make image BUILTIN_OPTIONS="..."`, compiled into boot/efi_entry.c) are
 * part of the image, so they are measured with it in a TD; in an SEV-SNP
 * guest only as far as the launch measurement or an SVSM vTPM covers the
 * image. Nothing here extends a measurement register itself: built-in is the
 * only measured source.
 *
 * In a confidential guest (a real TD or SNP guest, or cc=sim-tdx / sim-snp,
 * which follow the same rule so that the e2e tests show it) an option from
 * sluice.cfg may tune a benchmark (sizes, policies, tasks, depths, the
 * models' fault injection, which plays a hostile host anyway) but may not
 * weaken a guarantee beyond what the measured sources chose:
 *  - scrub=copy: from-device bounces copy the private buffer into shared
 *    memory before the device writes (a disclosure, as Linux before its
 *    CVE-2022-0854 fix had it the other way round); scrub=written (weaker
 *    than zero, stronger than copy): a block read's slots keep what earlier
 *    mappings left there, bytes the guest had put in shared memory, which the
 *    device then sees again;
 *  - device_timeout_ms longer than the trusted value: every wait on a device
 *    must end at its deadline, and a longer one lets a stalled device hold
 *    the guest longer;
 *  - modes with direct: direct mode hands devices the buffers in place, in
 *    private memory. In a confidential guest the default modes leave it out
 *    unless the built-in options name it.
 * The layer's strict handle checks have no option (the kernel always sets
 * them), and cc= cannot leave a real TD or SNP guest (kernel/cc_setup.c).
 */
#include "boot/options.h"

#include "boot/dma_modes.h"

#include <stdbool.h>
#include <stdio.h>

#define MODE_DIRECT (UINT64_C(1) << KDMA_DIRECT)

/**
 * struct weakening - one option that can weaken a guarantee.
 * @key: the option.
 * @weaker: whether @o is weaker than @trusted for it.
 * @value: @o's value as the option would be written.
 * @why: the guarantee it weakens.
 */
struct weakening {
	const char *key;
	bool (*weaker)(const struct kernel_options *trusted, const struct kernel_options *o);
	void (*value)(const struct kernel_options *o, char *buf, size_t len);
	const char *why;
};

/* How much each scrub= keeps from a device: copy < written < zero. */
static int scrub_rank(int scrub)
{
	return scrub == OPTIONS_SCRUB_WRITTEN ? 1 : scrub == 0 ? 0 : 2;
}

static bool scrub_weaker(const struct kernel_options *t, const struct kernel_options *o)
{
	return scrub_rank(o->scrub) < scrub_rank(t->scrub);
}

static void scrub_value(const struct kernel_options *o, char *buf, size_t len)
{
	snprintf(buf, len, "scrub=%s", options_scrub_names[o->scrub]);
}

static bool timeout_weaker(const struct kernel_options *t, const struct kernel_options *o)
{
	return o->device_timeout_ms > t->device_timeout_ms;
}

static void timeout_value(const struct kernel_options *o, char *buf, size_t len)
{
	snprintf(buf, len, "device_timeout_ms=%llu", (unsigned long long)o->device_timeout_ms);
}

static bool direct_weaker(const struct kernel_options *t, const struct kernel_options *o)
{
	return (o->modes & MODE_DIRECT) && !(t->modes & MODE_DIRECT);
}

static void modes_value(const struct kernel_options *o, char *buf, size_t len)
{
	size_t used = (size_t)snprintf(buf, len, "modes=");

	if (used < len)
		options_list_format(buf + used, len - used, options_mode_names, o->modes);
}

static const struct weakening weakenings[] = {
	{ "scrub", scrub_weaker, scrub_value,
	  "from-device bounces would show the device bytes it was not given" },
	{ "device_timeout_ms", timeout_weaker, timeout_value,
	  "a wait on a device would outlast the trusted deadline" },
	{ "modes", direct_weaker, modes_value,
	  "direct mode hands devices private memory in place" },
};

int options_trust_check(const struct kernel_options *trusted, struct kernel_options *opts,
			uint64_t builtin_set, uint64_t cfg_set, const char *guest, char *err,
			size_t err_len)
{
	struct kernel_options t = *trusted;

	/* The default runs no direct mode here; only the image may ask for it. */
	if (!(builtin_set & options_key_bit("modes"))) {
		t.modes &= ~MODE_DIRECT;
		if (!(cfg_set & options_key_bit("modes")))
			opts->modes &= ~MODE_DIRECT;
	}
	for (size_t i = 0; i < sizeof(weakenings) / sizeof(weakenings[0]); i++) {
		const struct weakening *w = &weakenings[i];
		char value[64];

		if (!(cfg_set & options_key_bit(w->key)) || !w->weaker(&t, opts))
			continue;
		w->value(opts, value, sizeof(value));
		snprintf(err, err_len,
			 "option '%s' from sluice.cfg refused: it weakens a guarantee (%s), and in "
			 "a confidential guest (%s) only options built into the measured image "
			 "may (make image BUILTIN_OPTIONS=\"...\")",
			 value, w->why, guest);
		return -1;
	}
	return 0;
}
