/* SPDX-License-Identifier: MIT */
/*
 * cc_glue.h - what a confidential guest (cc_tdx.c, cc_snp.c) wires into the
 * kernel the same way whatever its protocol: the page-table half of a
 * conversion (the kernel's mappings, the TLB shootdown, the cache flush of the
 * instruction layer) with an optional observer (the simulated platforms'
 * models), the protocol behind mmu_set_shared() under one lock, and the
 * platform's names for the boot report.
 *
 * The protocols themselves (tdx.c, snp.c) take the page-table half as
 * callbacks; the glue functions below are those callbacks, with the glue as
 * their context.
 */
#ifndef SLUICE_ARCH_CC_GLUE_H
#define SLUICE_ARCH_CC_GLUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arch/x86_64/mm/mmu.h"
#include "arch/x86_64/smp/spinlock.h"
#include "arch/x86_64/cc/tee_insn.h"

/**
 * struct cc_observer - told about each page-table step of a conversion, after
 *	the kernel did it (a simulated platform's model checks its rules there).
 * @ptes: the mappings of [@gpa, @gpa + @len) now say @shared.
 * @flush: every CPU's TLB has been told to drop the range.
 * @ctx: handed to each.
 */
struct cc_observer {
	void (*ptes)(void *ctx, uint64_t gpa, uint64_t len, bool shared);
	void (*flush)(void *ctx, uint64_t gpa, uint64_t len);
	void *ctx;
};

/**
 * struct cc_glue - one confidential guest's wiring; static storage, filled by
 *	cc_glue_init() and cc_glue_install().
 * @insn: the platform's instructions (their cache flush serves conversions).
 * @observer: NULL on real hardware.
 * @platform: "tdx", "sim-snp", ...: for reports and the benchmark JSON.
 * @convert: the protocol's conversion of [@va, @va + @len), run under @lock.
 * @proto: the protocol's state, handed to @convert.
 * @lock: the protocol's counters and the model behind it are one state: one
 *	conversion at a time, from whichever CPU; a platform may take it for
 *	other exchanges with that state.
 * @backend: what mmu_set_shared() calls.
 * @backend_name: its name, "TDX (sim-tdx)".
 * @encoding_name: the name of the page tables' shared encoding.
 */
struct cc_glue {
	const struct tee_insn_ops *insn;
	const struct cc_observer *observer;
	const char *platform;
	int (*convert)(void *proto, uint64_t va, uint64_t len, bool shared);
	void *proto;
	struct spinlock lock;
	struct mmu_cc_backend backend;
	char backend_name[32];
	char encoding_name[64];
};

/**
 * cc_glue_init() - set up @g before the protocol's first conversion.
 * @g: the platform's glue.
 * @insn: kept by pointer.
 * @observer: kept by pointer; NULL on real hardware.
 * @platform: kept by pointer.
 */
void cc_glue_init(struct cc_glue *g, const struct tee_insn_ops *insn,
		  const struct cc_observer *observer, const char *platform);

/**
 * cc_glue_set_pte_shared() - the page-table half of a conversion: this CPU's
 *	entries (and its TLB, page by page), then the observer if there is one.
 * @ctx: the glue.
 * @gpa: the range's start (identity-mapped).
 * @len: its length.
 * @shared: what its mappings are to say.
 * Return: 0 or mmu_pte_set_shared()'s error (the observer is not told then).
 */
int cc_glue_set_pte_shared(void *ctx, uint64_t gpa, uint64_t len, bool shared);

/**
 * cc_glue_flush_tlb() - every other CPU drops its translations of the range
 *	before it next reaches converted memory (mmu_tlb_shootdown()); then the
 *	observer is told. Only then may the protocol's hypercall follow.
 * @ctx: the glue.
 * @gpa: the range's start.
 * @len: its length.
 */
void cc_glue_flush_tlb(void *ctx, uint64_t gpa, uint64_t len);

/**
 * cc_glue_flush_cache() - the instruction layer's cache flush of the range, if
 *	it has one.
 * @ctx: the glue.
 * @gpa: the range's start.
 * @len: its length.
 */
void cc_glue_flush_cache(void *ctx, uint64_t gpa, uint64_t len);

/**
 * cc_glue_install() - route every later mmu_set_shared() through @convert,
 *	under the glue's lock.
 * @g: the platform's glue, after cc_glue_init().
 * @protocol: the protocol's name for the backend ("TDX", "SNP").
 * @convert: the protocol's conversion.
 * @proto: its state.
 */
void cc_glue_install(struct cc_glue *g, const char *protocol,
		     int (*convert)(void *proto, uint64_t va, uint64_t len, bool shared),
		     void *proto);

/**
 * cc_glue_stats_get() - a copy of the protocol's counters, consistent with one
 *	another (taken under the glue's lock).
 * @g: the platform's glue.
 * @out: filled in.
 * @stats: the protocol's counters.
 * @size: their size.
 */
void cc_glue_stats_get(struct cc_glue *g, void *out, const void *stats, size_t size);

/**
 * cc_glue_conversions_print() - the end of a platform's report line: the
 *	conversions' outcomes, then @extra after a comma, and the newline.
 * @to_shared: conversions to shared completed.
 * @to_private: conversions to private completed.
 * @failed: conversions that failed.
 * @rolled_back: of those, ranges brought back to their state before the call.
 * @leaked_pages: 4 KiB pages of failed conversions in no known state.
 * @extra: the simulated platform's model, or NULL.
 */
void cc_glue_conversions_print(uint64_t to_shared, uint64_t to_private, uint64_t failed,
			       uint64_t rolled_back, uint64_t leaked_pages, const char *extra);

/**
 * cc_glue_model_violation() - a simulated platform's model caught the kernel
 *	breaking a rule: said, and the kernel ends with SLUICE_EXIT_FAIL.
 * @model: the model's name ("tdx-model").
 * @guest: what it simulates ("the TDX protocol broke a rule of the simulated TD").
 * @rule: the rule.
 * @gpa: where.
 */
__attribute__((noreturn)) void cc_glue_model_violation(const char *model, const char *guest,
						       const char *rule, uint64_t gpa);

#endif /* SLUICE_ARCH_CC_GLUE_H */
