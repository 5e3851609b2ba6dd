/* SPDX-License-Identifier: MIT */
/*
 * snp_env.h - the pieces every host test of the SEV-SNP guest sets up the same
 * way: the guest protocol (arch/x86_64/cc/snp.c) started over the model of the RMP
 * and the hypervisor (arch/x86_64/cc/snp_model.c), page-table callbacks that only
 * tell the model, and two simulated CPUs with a GHCB slot each.
 *
 * Used by tests/arch/test_snp.c, tests/arch/test_pvio_snp.c and tests/arch/test_snp_boot.c.
 */
#ifndef SLUICE_TESTS_SNP_ENV_H
#define SLUICE_TESTS_SNP_ENV_H

#include <stddef.h>
#include <stdint.h>

#include "arch/x86_64/cc/snp.h"
#include "arch/x86_64/cc/snp_model.h"

/* SEV_STATUS of an SNP guest: SEV, SEV-ES and SNP active. */
#define SNP_ENV_SEV_STATUS (SEV_STATUS_SEV | SEV_STATUS_SEV_ES | SEV_STATUS_SNP)

/* CPUID Fn8000_001F of an SNP guest whose C-bit is bit 51 (AMD APM vol. 3). */
extern const uint32_t snp_env_cpuid_c51[4];

/**
 * struct snp_guest - a guest on the model.
 * @m: the model of the RMP and the hypervisor.
 * @insn: the model's instructions (VMGEXIT, PVALIDATE, RMPADJUST, MSRs).
 * @s: the guest protocol over them.
 */
struct snp_guest {
	struct snp_model m;
	struct tee_insn_ops insn;
	struct snp s;
};

/**
 * snp_env_start() - model @npages pages from @base, then snp_init() over it.
 * @g: the guest.
 * @page: @npages bytes of the model's page state.
 * @base: first modelled guest-physical address.
 * @npages: pages modelled.
 * @pt: the guest's page-table callbacks.
 * @sev_status: SEV_STATUS as the guest reads it.
 * @cpuid: CPUID Fn8000_001F (eax, ebx, ecx, edx).
 * @why: snp_init()'s reason buffer (may be NULL).
 * @why_len: its size.
 *
 * The start must succeed: a failed snp_init() fails the test.
 */
void snp_env_start(struct snp_guest *g, uint8_t *page, uint64_t base, unsigned int npages,
		   const struct cc_pt_ops *pt, uint64_t sev_status, const uint32_t cpuid[4],
		   char *why, size_t why_len);

/**
 * snp_env_note_ptes() - set_pte callback that only tells the model (the
 *	&struct snp_model is the callback context, or its first member).
 * @ctx: the model.
 * @gpa: start of the range.
 * @len: its length.
 * @shared: the entries now say shared (C-bit clear).
 *
 * Return: 0.
 */
int snp_env_note_ptes(void *ctx, uint64_t gpa, uint64_t len, bool shared);

/**
 * snp_env_note_flush() - flush_tlb callback that only tells the model.
 * @ctx: the model (as above).
 * @gpa: start of the range.
 * @len: its length.
 */
void snp_env_note_flush(void *ctx, uint64_t gpa, uint64_t len);

/**
 * struct snp_env_cpus - two simulated CPUs of one guest.
 * @cur: the CPU that runs now; a test switches it.
 * @slots: each CPU's GHCB slot.
 */
struct snp_env_cpus {
	unsigned int cur;
	struct snp_ghcb_slot slots[2];
};

/**
 * snp_env_two_cpus() - from now on @s takes the calling CPU's GHCB slot from @c
 *	and the model asks @c which CPU calls; CPU 0 runs.
 * @c: the CPUs (zeroed by the call).
 * @s: the guest.
 * @m: the model.
 */
void snp_env_two_cpus(struct snp_env_cpus *c, struct snp *s, struct snp_model *m);

#endif
