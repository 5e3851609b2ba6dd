/* SPDX-License-Identifier: MIT */
/*
 * paging.h - Sluice's own 4-level x86_64 page tables (build, walk, split, and
 * the per-page "shared" attribute of confidential guests).
 *
 * This is plain data-structure code: it never loads CR3, never runs invlpg and
 * owns no memory. The platform hands it table pages and a TLB flush through
 * &struct pt_ops, so the same file runs in the kernel and in a host test where
 * "physical memory" is heap memory. It is not a general VM system: there is no
 * unmap, no merging of split pages back into 2 MB pages, no locking (callers
 * serialise), and table pages must be reachable at virtual == physical address
 * (the kernel identity-maps RAM; the host test uses heap pointers).
 *
 * Permissions are the caller's choice, but an address space can be given a
 * policy (pt_set_policy()) that every later change is checked against: no leaf
 * both writable and executable (W^X), no shared leaf executable. The library
 * then refuses, with nothing changed, any mapping, conversion or protection
 * change that would break it, and pt_check() verifies it over the whole tree.
 */
#ifndef SLUICE_ARCH_X86_64_PAGING_H
#define SLUICE_ARCH_X86_64_PAGING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "arch/kernel_errno.h"

/**
 * enum pt_err - negative return codes (values mirror errno).
 * @PT_OK: success.
 * @PT_ERR_NOENT: an address of the range is not mapped.
 * @PT_ERR_NOMEM: &pt_ops.alloc_table returned NULL; nothing was changed.
 * @PT_ERR_EXIST: the range is already mapped differently; nothing was changed.
 * @PT_ERR_INVAL: an argument is invalid (alignment, zero length, bad flags,
 *	non-canonical address, address beyond what an entry can hold), or
 *	pt_check() found an inconsistent table.
 */
enum pt_err {
	PT_OK = 0,
	PT_ERR_NOENT = KERR_NOENT,
	PT_ERR_NOMEM = KERR_NOMEM,
	PT_ERR_EXIST = KERR_EXIST,
	PT_ERR_INVAL = KERR_INVAL,
};

/* Entry bits, as the hardware defines them (Intel SDM vol. 3 tables 4-14..4-20). */
#define PT_PRESENT (1ULL << 0)
#define PT_WRITE (1ULL << 1)
#define PT_USER (1ULL << 2)
#define PT_PWT (1ULL << 3)
#define PT_PCD (1ULL << 4)
#define PT_ACCESSED (1ULL << 5)
#define PT_DIRTY (1ULL << 6)
#define PT_HUGE (1ULL << 7)   /* PS: leaf in a PDPTE (1 GiB) or PDE (2 MB) */
#define PT_PAT_4K (1ULL << 7) /* same bit, but PAT in a 4 KiB PTE */
#define PT_GLOBAL (1ULL << 8)
#define PT_PAT_LARGE (1ULL << 12)	   /* PAT in a 2 MB / 1 GiB leaf */
#define PT_NX (1ULL << 63)		   /* reserved (#PF) unless EFER.NXE is set */
#define PT_ADDR_MASK 0x000ffffffffff000ULL /* bits 12..51 */

/*
 * Bits the hardware ignores in every entry; the shared/private encoding may
 * live here. Bit 11 is avoided because HLAT gives it a meaning.
 */
#define PT_SW_SHARED (1ULL << 9)		   /* the emulated model's shared bit */
#define PT_SW_BITS ((7ULL << 9) | (0x7fULL << 52)) /* 9..11, 52..58 */

/*
 * Attribute words passed to pt_map_range() and returned by pt_translate().
 * They use the entry bits above (W, U, PWT, PCD, A, D, G, NX, and P on
 * output) plus two pseudo-bits that never reach an entry as such: the PAT bit
 * moves with the page size, and "shared" is encoded through the masks given to
 * pt_init(). Bits 12 and 13 are address bits in an entry, so they cannot be
 * mistaken for a real attribute.
 */
#define PT_ATTR_PAT (1ULL << 12)
#define PT_ATTR_SHARED (1ULL << 13)
#define PT_ATTR_MAP_ALLOWED                                                                       \
	(PT_PRESENT | PT_WRITE | PT_USER | PT_PWT | PT_PCD | PT_ACCESSED | PT_DIRTY | PT_GLOBAL | \
	 PT_NX | PT_ATTR_PAT | PT_ATTR_SHARED)
/*
 * Permission bits pt_set_prot() sets: writable, and non-executable. Bit 63 is
 * XD only with IA32_EFER.NXE = 1; otherwise it is reserved and a leaf with it
 * set faults with RSVD=1 (SDM vol. 3 2.2.1, 4.5 tables 4-19/4-20, 4.6.1). A
 * leaf with neither bit is read-only and executable.
 */
#define PT_PROT_MASK (PT_WRITE | PT_NX)

/*
 * Policies for pt_set_policy(). Both need NX: without EFER.NXE every page is
 * executable and neither can hold.
 * PT_POLICY_WX: no leaf is writable and executable at once, so code can only
 *	run from pages nothing can write (supervisor writes honour R/W only
 *	with CR0.WP = 1: SDM vol. 3 4.6.1).
 * PT_POLICY_SHARED_NX: no shared leaf is executable: bytes the host can write
 *	are never fetched as instructions.
 */
#define PT_POLICY_WX (1u << 0)
#define PT_POLICY_SHARED_NX (1u << 1)
#define PT_POLICY_ALL (PT_POLICY_WX | PT_POLICY_SHARED_NX)

/* Device memory: uncached and never encrypted. */
#define PT_ATTR_MMIO (PT_WRITE | PT_PCD | PT_PWT | PT_NX | PT_ATTR_SHARED)

#define PT_SIZE_4K 0x1000ULL
#define PT_SIZE_2M 0x200000ULL
#define PT_SIZE_1G 0x40000000ULL
#define PT_ENTRIES 512

_Static_assert(PT_HUGE == PT_PAT_4K, "PS and the 4 KiB PAT bit share bit 7");
_Static_assert((PT_ATTR_MAP_ALLOWED & PT_ADDR_MASK) == (PT_ATTR_PAT | PT_ATTR_SHARED),
	       "only the pseudo-bits may sit in the address field");
_Static_assert((PT_SW_BITS & (PT_ADDR_MASK | PT_NX | 0x1ffULL)) == 0,
	       "software bits overlap hardware bits");
_Static_assert(PT_ENTRIES * sizeof(uint64_t) == PT_SIZE_4K, "a table is one page");
_Static_assert(PT_SIZE_2M == PT_ENTRIES * PT_SIZE_4K && PT_SIZE_1G == PT_ENTRIES * PT_SIZE_2M,
	       "9 bits of index per level");

/**
 * struct pt_ops - what the platform provides to the page-table code.
 * @ctx: opaque pointer handed back as the first argument of every callback.
 * @alloc_table: return one zeroed, 4 KiB-aligned 4 KiB page whose address is
 *	also its physical address (and fits below the lowest mask bit), or NULL
 *	when out of memory. The library never frees a page it was given: pages
 *	obtained for an operation that then fails are kept in a spare list and
 *	used first by later operations (see &page_table.tables_spare).
 * @flush_page: invalidate the TLB entries of the page containing @va (invlpg).
 *	Called after the entry was changed; must not fail.
 */
struct pt_ops {
	void *ctx;
	void *(*alloc_table)(void *ctx);
	void (*flush_page)(void *ctx, uint64_t va);
};

/**
 * struct page_table - one address space. Fields are read-only for callers.
 * @pml4: the top-level table. CR3 gets its address | @shared_clear_mask
 *	(SEV: the C-bit in CR3 makes the PML4 itself read as private).
 * @ops: the platform callbacks given to pt_init().
 * @shared_set_mask: entry bits that are set in shared leaves and clear in
 *	private ones (emulated: PT_SW_SHARED; TDX: the GPA shared bit).
 * @shared_clear_mask: entry bits that are clear in shared leaves and set in
 *	private ones, and set in every table pointer (SEV: the C-bit).
 * @tables_allocated: pages obtained from &pt_ops.alloc_table, the PML4 included.
 * @tables_spare: of those, pages held in reserve and not part of the tree.
 * @splits: large leaves replaced by a table (pt_split_2m(), pt_set_shared()).
 * @pages_made_shared: 4 KiB pages converted private -> shared.
 * @pages_made_private: 4 KiB pages converted shared -> private.
 * @flushes: calls of &pt_ops.flush_page.
 * @protections: leaves whose permissions pt_set_prot() changed.
 * @policy: PT_POLICY_* bits in force (see pt_set_policy()).
 * @_frame_mask: private: address bits that name a frame (PT_ADDR_MASK minus masks).
 * @_pa_limit: private: first physical address an entry cannot hold.
 * @_spare: private: list of spare pages, linked through their first word.
 */
struct page_table {
	uint64_t *pml4;
	struct pt_ops ops;
	uint64_t shared_set_mask;
	uint64_t shared_clear_mask;
	uint64_t tables_allocated;
	uint64_t tables_spare;
	uint64_t splits;
	uint64_t pages_made_shared;
	uint64_t pages_made_private;
	uint64_t flushes;
	uint64_t protections;
	unsigned int policy;
	uint64_t _frame_mask;
	uint64_t _pa_limit;
	void *_spare;
};

/**
 * pt_init() - set up an empty address space.
 * @pt: the object to fill.
 * @ops: platform callbacks (copied); @alloc_table and @flush_page are required.
 * @shared_set_mask: see &page_table.shared_set_mask (0 if the model has none).
 * @shared_clear_mask: see &page_table.shared_clear_mask (0 if none).
 *
 * The masks must not overlap, not both be zero, and lie in PT_SW_BITS or the
 * address field. Emulated: (PT_SW_SHARED, 0); TDX: (1ULL << (GPAW - 1), 0);
 * SEV: (0, 1ULL << cbit).
 *
 * Return: 0, PT_ERR_INVAL for bad masks or ops, PT_ERR_NOMEM if the PML4
 * could not be allocated.
 */
int pt_init(struct page_table *pt, const struct pt_ops *ops, uint64_t shared_set_mask,
	    uint64_t shared_clear_mask);

/**
 * pt_map_range() - map [@va, @va + @len) to [@pa, @pa + @len).
 * @pt: the address space.
 * @va: virtual start, 4 KiB aligned, canonical.
 * @pa: physical start, 4 KiB aligned, below the lowest address-field mask bit.
 * @len: bytes, a non-zero multiple of 4 KiB; the range must not wrap.
 * @flags: PT_ATTR_MAP_ALLOWED bits: W, U, PWT, PCD, A, D, G, NX, PT_ATTR_PAT,
 *	and PT_ATTR_SHARED to map shared (device memory, PT_ATTR_MMIO); without
 *	it the pages are private (SEV: the C-bit is set).
 *
 * Uses a 2 MB page wherever va, pa and the remaining length allow it, 4 KiB
 * pages at the edges. Pages already mapped identically (same frame and
 * attributes, A/D ignored, whatever the page size) are accepted and left as
 * they are. No flush is issued: only not-present entries are written.
 *
 * Return: 0; PT_ERR_INVAL for bad arguments or @flags the policy forbids
 * (writable without PT_NX under PT_POLICY_WX, shared without PT_NX under
 * PT_POLICY_SHARED_NX); PT_ERR_EXIST if any page is mapped differently;
 * PT_ERR_NOMEM if a table could not be allocated. On error nothing was changed.
 */
int pt_map_range(struct page_table *pt, uint64_t va, uint64_t pa, uint64_t len, uint64_t flags);

/**
 * pt_translate() - walk the tables for one address.
 * @pt: the address space.
 * @va: any canonical address.
 * @pa: if not NULL, receives the physical address of @va (mask bits removed).
 * @page_size: if not NULL, receives the leaf size: 4 KiB, 2 MB or 1 GiB.
 * @flags: if not NULL, receives the leaf's attributes in the pt_map_range()
 *	vocabulary: PT_PRESENT, W, U, PWT, PCD, A, D, G, NX, PT_ATTR_PAT,
 *	PT_ATTR_SHARED (set when the leaf is shared).
 *
 * Return: 0, PT_ERR_NOENT if @va is not mapped, PT_ERR_INVAL if non-canonical.
 */
int pt_translate(const struct page_table *pt, uint64_t va, uint64_t *pa, uint64_t *page_size,
		 uint64_t *flags);

/**
 * pt_split_2m() - replace the 2 MB leaf containing @va by 512 4 KiB entries.
 * @pt: the address space.
 * @va: any address inside the leaf.
 *
 * The new entries carry the same translation, attributes and shared state
 * (the PAT bit moves from bit 12 to bit 7). The old leaf is flushed once.
 *
 * Return: 0 (also when @va is already mapped by a 4 KiB page); PT_ERR_NOENT
 * if not mapped; PT_ERR_INVAL if non-canonical or inside a 1 GiB leaf;
 * PT_ERR_NOMEM with the mapping unchanged.
 */
int pt_split_2m(struct page_table *pt, uint64_t va);

/**
 * pt_set_shared() - convert every 4 KiB page of a range to shared or private.
 * @pt: the address space.
 * @va: start, 4 KiB aligned.
 * @len: bytes, a non-zero multiple of 4 KiB.
 * @shared: true for shared, false for private.
 *
 * A large leaf wholly inside the range is changed in place, without a split:
 * one entry write and one flush per 2 MB. A large leaf the range covers only
 * in part is split first (if it is not already in the wanted state). Every
 * changed leaf is flushed exactly once; pages already in the wanted state are
 * neither written nor flushed. The tables splits need are obtained before
 * anything is written, so the call is all-or-nothing.
 *
 * Split pages keep every attribute of the leaf they came from (W, NX, PAT...);
 * only the encoding of the converted pages changes.
 *
 * Return: 0; PT_ERR_INVAL for bad arguments, or if PT_POLICY_SHARED_NX is in
 * force and a page of the range is executable; PT_ERR_NOENT if a page of the
 * range is not mapped; PT_ERR_NOMEM. On error no page was changed.
 */
int pt_set_shared(struct page_table *pt, uint64_t va, uint64_t len, bool shared);

/**
 * pt_set_prot() - set the permissions of every 4 KiB page of a range.
 * @pt: the address space.
 * @va: start, 4 KiB aligned.
 * @len: bytes, a non-zero multiple of 4 KiB.
 * @prot: PT_PROT_MASK bits the pages get: PT_WRITE for writable, PT_NX for
 *	non-executable; the other bits of each leaf (frame, encoding, caching)
 *	are kept.
 *
 * Splits, flushes and all-or-nothing as pt_set_shared(): a large leaf wholly
 * inside the range is changed in place, one partly covered is split first,
 * every changed leaf is flushed once, pages already as asked are untouched.
 * Only this CPU's TLB is flushed (through &pt_ops.flush_page): a caller that
 * takes a permission away from pages other CPUs may have cached must flush
 * theirs too.
 *
 * Return: 0; PT_ERR_INVAL for bad arguments, bits outside PT_PROT_MASK, or
 * a result the policy forbids (writable and executable; shared and
 * executable); PT_ERR_NOENT if a page is not mapped; PT_ERR_NOMEM. On error no
 * page was changed.
 */
int pt_set_prot(struct page_table *pt, uint64_t va, uint64_t len, uint64_t prot);

/**
 * pt_set_policy() - put PT_POLICY_* rules in force for every later change.
 * @pt: the address space.
 * @policy: PT_POLICY_* bits (0 lifts them).
 *
 * The tree must already obey them: the call walks every leaf first.
 *
 * Return: 0; PT_ERR_INVAL for unknown bits or if a present leaf breaks the
 * policy (the policy in force is then unchanged).
 */
int pt_set_policy(struct page_table *pt, unsigned int policy);

/**
 * typedef pt_leaf_fn - callback of pt_for_each_leaf().
 * @ctx: the caller's pointer.
 * @va: first address the leaf maps (canonical).
 * @size: 4 KiB, 2 MB or 1 GiB.
 * @flags: the leaf's attributes, as pt_translate() returns them.
 *
 * Return: 0 to go on; anything else stops the walk and is returned.
 */
typedef int (*pt_leaf_fn)(void *ctx, uint64_t va, uint64_t size, uint64_t flags);

/**
 * pt_for_each_leaf() - call @fn for every present leaf, in address order.
 * @pt: the address space (not changed; @fn must not change it either).
 * @fn: the callback.
 * @ctx: handed to @fn.
 *
 * Return: 0, or the first non-zero value @fn returned.
 */
int pt_for_each_leaf(const struct page_table *pt, pt_leaf_fn fn, void *ctx);

/**
 * pt_is_shared() - whether the page containing @va is mapped shared.
 * @pt: the address space.
 * @va: any address.
 *
 * Return: true if mapped and shared; false if private, unmapped or invalid.
 */
bool pt_is_shared(const struct page_table *pt, uint64_t va);

/**
 * pt_range_is_shared() - whether every page of a range is mapped shared.
 * @pt: the address space.
 * @va: start (need not be aligned).
 * @len: bytes (need not be aligned); 0 gives false.
 *
 * This is the DMA invariant check: every byte a device may touch is shared.
 *
 * Return: true if every page touching [@va, @va + @len) is mapped shared.
 */
bool pt_range_is_shared(const struct page_table *pt, uint64_t va, uint64_t len);

/**
 * pt_check() - walk the whole tree and check its invariants.
 * @pt: the address space.
 *
 * Checks: every present table pointer has the private encoding and points at
 * an aligned table; no reserved bit is set (PS in a PML4E, bits 13..20 of a
 * 2 MB leaf, 13..29 of a 1 GiB leaf, frame bits at or beyond the limit); every
 * leaf is exactly shared or exactly private; every leaf obeys the policy in
 * force (pt_set_policy()); tables reached plus spare tables
 * equal tables allocated (so no table is reachable twice); every split used
 * a table and was followed by a flush.
 *
 * Return: 0 if consistent, PT_ERR_INVAL otherwise.
 */
int pt_check(const struct page_table *pt);

#endif /* SLUICE_ARCH_X86_64_PAGING_H */
