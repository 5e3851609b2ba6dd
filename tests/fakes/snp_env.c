/* SPDX-License-Identifier: MIT */
/*
 * snp_env.c - the SEV-SNP host tests' shared set-up; see snp_env.h.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "tests/fakes/snp_env.h"

/* eax: SME, SEV, SEV-ES, SNP (bits 0, 1, 3, 4); ebx: the C-bit position, 51. */
const uint32_t snp_env_cpuid_c51[4] = { 0x1b, 0x33, 0, 0 };

void snp_env_start(struct snp_guest *g, uint8_t *page, uint64_t base, unsigned int npages,
		   const struct cc_pt_ops *pt, uint64_t sev_status, const uint32_t cpuid[4],
		   char *why, size_t why_len)
{
	snp_model_init(&g->m, base, npages, page);
	snp_model_insn(&g->m, &g->insn);
	assert_int_equal(snp_init(&g->s, &g->insn, pt, sev_status, cpuid, why, why_len), 0);
}

int snp_env_note_ptes(void *ctx, uint64_t gpa, uint64_t len, bool shared)
{
	snp_model_note_ptes(ctx, gpa, len, !shared);
	return 0;
}

void snp_env_note_flush(void *ctx, uint64_t gpa, uint64_t len)
{
	snp_model_note_flush(ctx, gpa, len);
}

static struct snp_ghcb_slot *snp_env_cpu_slot(void *ctx)
{
	struct snp_env_cpus *c = ctx;

	return &c->slots[c->cur];
}

static unsigned int snp_env_cpu(void *ctx)
{
	return ((struct snp_env_cpus *)ctx)->cur;
}

void snp_env_two_cpus(struct snp_env_cpus *c, struct snp *s, struct snp_model *m)
{
	memset(c, 0, sizeof(*c));
	s->cpu_slot = snp_env_cpu_slot;
	s->cpu_slot_ctx = c;
	m->cpu = snp_env_cpu;
	m->cpu_ctx = c;
}
