/* SPDX-License-Identifier: MIT */
/*
 * tlb_gen.h - the TLB generation rule, one definition for the kernel
 * (arch/x86_64/mm/mmu.c: mmu_tlb_shootdown(), mmu_tlb_sync()) and for the
 * models that check it (arch/x86_64/cc/tdx_model.c R7, snp_model.c R10).
 *
 * A conversion changes the mappings of a range, flushes the converting CPU's
 * TLB entries of it page by page, and then publishes generation G + 1 (the
 * change belongs to that generation). Every other CPU remembers the last
 * generation it synced to, a whole-TLB drop (CR3 reload) made when it saw a
 * newer one. A CPU that synced to S no longer holds any translation changed
 * in a generation C <= S; it may still hold translations changed in a later
 * generation. Hardware keeps no TLB coherent with the page tables (Intel SDM
 * vol. 3 4.10.4-4.10.5, AMD APM vol. 2 5.5.2), so until it syncs that CPU
 * can use the old mapping, and it may have filled it speculatively at any
 * time before the change.
 *
 * Linux does not defer: __set_memory_enc_pgtable() (torvalds/linux
 * arch/x86/mm/pat/set_memory.c) calls cpa_flush(), which flushes the range on
 * every CPU with on_each_cpu() before the hypercall and again after the entry
 * change, so no CPU holds a stale translation when the host converts a page.
 * Sluice's APs run their work with interrupts off, so that synchronous IPI
 * could wait for a whole benchmark, or for ever on a CPU spinning for the
 * lock the converting CPU holds; the generation replaces it with "no CPU
 * reaches converted memory before it syncs" (mmu.h, mmu_tlb_shootdown()).
 * The models hold the kernel to that (tests/arch/test_tdx.c
 * test_rule_r7_stale_tlb_on_another_cpu, tests/arch/test_snp.c
 * test_rule_r10_stale_tlb_on_another_cpu).
 *
 * Leaf header: no includes beyond the freestanding ones, no state.
 */
#ifndef SLUICE_ARCH_MM_TLB_GEN_H
#define SLUICE_ARCH_MM_TLB_GEN_H

#include <stdbool.h>
#include <stdint.h>

/**
 * tlb_gen_needs_sync() - whether a CPU that synced to @seen must drop its TLB
 *	before it reaches memory a conversion may have changed.
 * @seen: the generation of the CPU's last sync.
 * @now: the current generation.
 */
static inline bool tlb_gen_needs_sync(uint64_t seen, uint64_t now)
{
	return seen != now;
}

/**
 * tlb_gen_change_seen() - whether a CPU that synced to @seen has dropped every
 *	translation a change of generation @changed made stale.
 * @seen: the generation of the CPU's last sync.
 * @changed: the generation the change was published with.
 */
static inline bool tlb_gen_change_seen(uint64_t seen, uint64_t changed)
{
	return seen >= changed;
}

#endif /* SLUICE_ARCH_MM_TLB_GEN_H */
