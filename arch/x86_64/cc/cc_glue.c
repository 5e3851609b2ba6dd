/* SPDX-License-Identifier: MIT */
/*
 * cc_glue.c - the wiring a confidential guest shares with the others (see cc_glue.h).
 */
#include "arch/x86_64/cc/cc_glue.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "arch/x86_64/cpu/qemu_exit.h"

void cc_glue_init(struct cc_glue *g, const struct tee_insn_ops *insn,
		  const struct cc_observer *observer, const char *platform)
{
	g->insn = insn;
	g->observer = observer;
	g->platform = platform;
}

int cc_glue_set_pte_shared(void *ctx, uint64_t gpa, uint64_t len, bool shared)
{
	const struct cc_glue *g = ctx;
	int rc = mmu_pte_set_shared(gpa, len, shared);

	if (!rc && g->observer && g->observer->ptes)
		g->observer->ptes(g->observer->ctx, gpa, len, shared);
	return rc;
}

void cc_glue_flush_tlb(void *ctx, uint64_t gpa, uint64_t len)
{
	const struct cc_glue *g = ctx;

	mmu_tlb_shootdown(gpa, len);
	if (g->observer && g->observer->flush)
		g->observer->flush(g->observer->ctx, gpa, len);
}

void cc_glue_flush_cache(void *ctx, uint64_t gpa, uint64_t len)
{
	const struct cc_glue *g = ctx;

	if (g->insn->flush_cache)
		g->insn->flush_cache(g->insn->ctx, gpa, len);
}

static int cc_glue_convert(void *ctx, uint64_t va, uint64_t len, bool shared)
{
	struct cc_glue *g = ctx;
	int rc;

	spin_lock(&g->lock);
	rc = g->convert(g->proto, va, len, shared);
	spin_unlock(&g->lock);
	return rc;
}

void cc_glue_install(struct cc_glue *g, const char *protocol,
		     int (*convert)(void *proto, uint64_t va, uint64_t len, bool shared),
		     void *proto)
{
	g->convert = convert;
	g->proto = proto;
	snprintf(g->backend_name, sizeof(g->backend_name), "%s (%s)", protocol, g->platform);
	g->backend = (struct mmu_cc_backend){ g->backend_name, cc_glue_convert, g };
	mmu_set_cc_backend(&g->backend);
}

void cc_glue_stats_get(struct cc_glue *g, void *out, const void *stats, size_t size)
{
	spin_lock(&g->lock);
	memcpy(out, stats, size);
	spin_unlock(&g->lock);
}

void cc_glue_conversions_print(uint64_t to_shared, uint64_t to_private, uint64_t failed,
			       uint64_t rolled_back, uint64_t leaked_pages, const char *extra)
{
	printf("conversions %" PRIu64 " to shared, %" PRIu64 " to private, %" PRIu64
	       " failed (%" PRIu64 " rolled back, %" PRIu64 " pages leaked)%s%s\n",
	       to_shared, to_private, failed, rolled_back, leaked_pages, extra ? ", " : "",
	       extra ? extra : "");
}

void cc_glue_model_violation(const char *model, const char *guest, const char *rule, uint64_t gpa)
{
	printf("%s: VIOLATION at GPA 0x%" PRIx64 ": %s\n", model, gpa, rule);
	printf("sluice: %s; exit %d\n", guest, SLUICE_EXIT_FAIL);
	qemu_exit(SLUICE_EXIT_FAIL);
}
