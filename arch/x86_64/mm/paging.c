/* SPDX-License-Identifier: MIT */
/*
 * paging.c - build and change 4-level x86_64 page tables.
 *
 * Plain C with no globals and no instructions of its own: table pages and TLB
 * flushes come through &struct pt_ops, so this file is linked into the kernel
 * and into the host test unchanged. It does not load CR3, does not decide what
 * to map (arch code walks the UEFI memory map and calls pt_map_range()) and
 * does not talk to a hypervisor (the conversion port does MapGPA / PSC and then
 * calls pt_set_shared() for the PTE side). It does enforce a permission policy
 * once the caller sets one (pt_set_policy()): W^X and no executable shared page.
 *
 * Levels are numbered like the SDM walks them: 4 = PML4, 3 = PDPT (1 GiB
 * leaves), 2 = PD (2 MB leaves), 1 = PT (4 KiB leaves).
 */
#include "arch/x86_64/mm/paging.h"

/* Table pointers: permissions are decided by the leaves alone. */
#define PT_TABLE_BITS (PT_PRESENT | PT_WRITE | PT_USER)
/* Attribute bits a leaf keeps, in 4 KiB layout (PAT at bit 7). */
#define PT_LEAF_ATTRS                                                                             \
	(PT_PRESENT | PT_WRITE | PT_USER | PT_PWT | PT_PCD | PT_ACCESSED | PT_DIRTY | PT_PAT_4K | \
	 PT_GLOBAL | PT_NX)

_Static_assert(sizeof(uint64_t) == 8 && sizeof(void *) == 8, "LP64 only");
_Static_assert((PT_LEAF_ATTRS & PT_ADDR_MASK) == 0, "attributes outside the frame");

static inline unsigned int pt_shift(int level)
{
	return 12 + 9 * (unsigned int)(level - 1);
}

static inline uint64_t pt_level_size(int level)
{
	return 1ULL << pt_shift(level);
}

static inline unsigned int pt_index(uint64_t va, int level)
{
	return (unsigned int)(va >> pt_shift(level)) & (PT_ENTRIES - 1);
}

static inline bool pt_is_leaf(uint64_t e, int level)
{
	return level == 1 || (level <= 3 && (e & PT_HUGE));
}

/*
 * Entries are read and written with single 64-bit atomic accesses: the CPU
 * walks these tables concurrently and sets A/D bits, so a torn or reordered
 * store (e.g. the PDE written before the new table is filled) would be seen.
 * Trap: a read-modify-write of a live leaf can lose a D bit the CPU sets in
 * between; callers convert pages nobody is writing to.
 */
static inline uint64_t pte_read(const uint64_t *e)
{
	return __atomic_load_n(e, __ATOMIC_RELAXED);
}

static inline void pte_write(uint64_t *e, uint64_t v)
{
	__atomic_store_n(e, v, __ATOMIC_RELEASE);
}

static inline bool pt_canonical(uint64_t va)
{
	uint64_t top = va >> 47;

	return top == 0 || top == 0x1ffff;
}

/* Physical address of a table page: identity (see paging.h). */
static inline uint64_t pt_table_pa(const uint64_t *table)
{
	return (uint64_t)(uintptr_t)table;
}

static inline uint64_t *pt_next_table(const struct page_table *pt, uint64_t e)
{
	return (uint64_t *)(uintptr_t)(e & pt->_frame_mask);
}

/* Frame bits of a leaf at @level: large leaves keep PAT and reserved bits low. */
static inline uint64_t pt_leaf_frame(const struct page_table *pt, uint64_t e, int level)
{
	return e & pt->_frame_mask & ~(pt_level_size(level) - 1);
}

/* Leaf attributes in 4 KiB layout, without frame and encoding bits. */
static uint64_t pt_leaf_attrs(uint64_t e, int level)
{
	uint64_t a = e & (PT_LEAF_ATTRS & ~PT_PAT_4K);

	if (level == 1)
		a |= e & PT_PAT_4K;
	else if (e & PT_PAT_LARGE)
		a |= PT_PAT_4K;
	return a;
}

static inline uint64_t pt_encoding(const struct page_table *pt, bool shared)
{
	return shared ? pt->shared_set_mask : pt->shared_clear_mask;
}

static inline bool pt_entry_shared(const struct page_table *pt, uint64_t e)
{
	return (e & pt->shared_set_mask) == pt->shared_set_mask && (e & pt->shared_clear_mask) == 0;
}

static inline bool pt_entry_private(const struct page_table *pt, uint64_t e)
{
	return (e & pt->shared_set_mask) == 0 &&
	       (e & pt->shared_clear_mask) == pt->shared_clear_mask;
}

/*
 * Whether leaf (or 4 KiB-layout attribute word) @e obeys the policy in force:
 * an executable leaf (no NX) may be neither writable (PT_POLICY_WX) nor shared
 * (PT_POLICY_SHARED_NX).
 */
static bool pt_leaf_allowed(const struct page_table *pt, uint64_t e)
{
	if (e & PT_NX)
		return true;
	if ((pt->policy & PT_POLICY_WX) && (e & PT_WRITE))
		return false;
	return !((pt->policy & PT_POLICY_SHARED_NX) && pt_entry_shared(pt, e));
}

/* Build a leaf for @level from 4 KiB-layout attributes @attrs (encoding included). */
static uint64_t pt_make_leaf(uint64_t attrs, uint64_t frame, int level)
{
	uint64_t e = attrs & ~PT_PAT_4K;

	if (level == 1)
		return e | (attrs & PT_PAT_4K) | frame;
	/* Trap: bit 7 is PS here; the PAT bit lives at bit 12 of large leaves. */
	if (attrs & PT_PAT_4K)
		e |= PT_PAT_LARGE;
	return e | PT_HUGE | frame;
}

/*
 * Walk to the leaf mapping @va. Returns a pointer to it and its level, or
 * NULL with *level set to the level of the first non-present entry.
 */
static uint64_t *pt_walk(const struct page_table *pt, uint64_t va, int *level)
{
	uint64_t *table = pt->pml4;

	for (int l = 4; l >= 1; l--) {
		uint64_t *e = &table[pt_index(va, l)];
		uint64_t v = pte_read(e);

		*level = l;
		if (!(v & PT_PRESENT))
			return NULL;
		if (pt_is_leaf(v, l))
			return e;
		table = pt_next_table(pt, v);
	}
	return NULL; /* not reached: level 1 entries are leaves */
}

/* Range checks shared by the entry points; @va and @len 4 KiB granular. */
static bool pt_range_ok(uint64_t va, uint64_t len)
{
	uint64_t last = va + len - 1;

	if (len == 0 || (va | len) & (PT_SIZE_4K - 1))
		return false;
	/*
	 * Wrapping past 2^64 is refused; ending exactly at 2^64 is fine: the
	 * walkers compute ends modulo 2^64 and compare inclusive last bytes.
	 */
	if (last < va)
		return false;
	/* Both ends canonical and in the same half: no hole inside. */
	return pt_canonical(va) && pt_canonical(last) && (va >> 47) == (last >> 47);
}

/* ---- spare tables ------------------------------------------------------ */

/*
 * Make sure @n tables are in the spare list. Tables obtained before a failure
 * stay there for the next caller: the library has no way to free them, and
 * keeping them is what makes the NOMEM paths change nothing in the tree.
 */
static int pt_reserve(struct page_table *pt, uint64_t n)
{
	while (pt->tables_spare < n) {
		void *p = pt->ops.alloc_table(pt->ops.ctx);
		uint64_t pa = (uint64_t)(uintptr_t)p;

		if (!p)
			return PT_ERR_NOMEM;
		/*
		 * A page the entries cannot name would corrupt the tree later.
		 * It is dropped, not counted: the callback broke its contract.
		 */
		if ((pa & (PT_SIZE_4K - 1)) || pa >= pt->_pa_limit)
			return PT_ERR_INVAL;
		/* Link through word 0 as an integer: the page is used as uint64_t[]. */
		((uint64_t *)p)[0] = (uint64_t)(uintptr_t)pt->_spare;
		pt->_spare = p;
		pt->tables_spare++;
		pt->tables_allocated++;
	}
	return PT_OK;
}

/* Pop a reserved table. Spare pages are zero except for the link word. */
static uint64_t *pt_take_spare(struct page_table *pt)
{
	uint64_t *t = pt->_spare;

	pt->_spare = (void *)(uintptr_t)t[0];
	t[0] = 0;
	pt->tables_spare--;
	return t;
}

static uint64_t pt_table_entry(const struct page_table *pt, const uint64_t *table)
{
	/* Tables are private memory; SEV walks need their C-bit set too. */
	return pt_table_pa(table) | pt->shared_clear_mask | PT_TABLE_BITS;
}

/* ---- init -------------------------------------------------------------- */

int pt_init(struct page_table *pt, const struct pt_ops *ops, uint64_t shared_set_mask,
	    uint64_t shared_clear_mask)
{
	uint64_t masks = shared_set_mask | shared_clear_mask;
	uint64_t addr_masks = masks & PT_ADDR_MASK;
	int err;

	if (!pt || !ops || !ops->alloc_table || !ops->flush_page)
		return PT_ERR_INVAL;
	if (!masks || (shared_set_mask & shared_clear_mask) ||
	    (masks & ~(PT_SW_BITS | PT_ADDR_MASK)))
		return PT_ERR_INVAL;

	*pt = (struct page_table){
		.ops = *ops,
		.shared_set_mask = shared_set_mask,
		.shared_clear_mask = shared_clear_mask,
		._frame_mask = PT_ADDR_MASK & ~masks,
		._pa_limit = 1ULL << 52,
	};
	/* Frames must stay below the lowest mask bit living in the address field. */
	if (addr_masks)
		pt->_pa_limit = addr_masks & -addr_masks;
	/* Below bit 30 a mask would hit PAT/reserved bits of large leaves. */
	if (pt->_pa_limit < PT_SIZE_1G)
		return PT_ERR_INVAL;

	err = pt_reserve(pt, 1);
	if (err)
		return err;
	pt->pml4 = pt_take_spare(pt);
	return PT_OK;
}

/* ---- map --------------------------------------------------------------- */

struct pt_map_req {
	uint64_t va; /* start of the whole request */
	uint64_t pa;
	uint64_t attrs; /* 4 KiB-layout leaf attributes with encoding */
	bool dry;	/* count tables and detect conflicts, write nothing */
	uint64_t need;	/* dry: tables the real pass will take */
};

/*
 * Whether the existing leaf @e at @level, whose range starts at @base, maps
 * every page of [@s, @s + n) exactly as @r asks (A/D ignored: the CPU sets them).
 */
static bool pt_leaf_matches(const struct page_table *pt, const struct pt_map_req *r, uint64_t e,
			    int level, uint64_t base, uint64_t s)
{
	uint64_t ad = PT_ACCESSED | PT_DIRTY;
	uint64_t enc = pt->shared_set_mask | pt->shared_clear_mask;

	if (pt_leaf_frame(pt, e, level) + (s - base) != r->pa + (s - r->va))
		return false;
	if ((pt_leaf_attrs(e, level) & ~ad) != (r->attrs & PT_LEAF_ATTRS & ~ad))
		return false;
	return (e & enc) == (r->attrs & enc);
}

/*
 * Map [@va, @end) below @table (NULL in a dry run means a table that the real
 * run will have allocated, i.e. all entries empty). Ranges are half-open and
 * @end is 0 for a range ending at 2^64, so only @end - 1 is ever compared.
 */
static int pt_map_level(struct page_table *pt, struct pt_map_req *r, uint64_t *table, int level,
			uint64_t va, uint64_t end)
{
	uint64_t size = pt_level_size(level);
	uint64_t base = va & ~(size - 1);

	/* The range lies inside this table, so the loop ends before index 512. */
	for (unsigned int i = pt_index(va, level);; i++, base += size) {
		uint64_t ent_last = base + size - 1;
		uint64_t s = va > base ? va : base;
		uint64_t e_ = ent_last < end - 1 ? ent_last + 1 : end;
		uint64_t spa = r->pa + (s - r->va);
		uint64_t e = table ? pte_read(&table[i]) : 0;
		uint64_t *child;
		int err;

		if (e & PT_PRESENT) {
			if (pt_is_leaf(e, level)) {
				if (!pt_leaf_matches(pt, r, e, level, base, s))
					return PT_ERR_EXIST;
				goto next;
			}
			err = pt_map_level(pt, r, pt_next_table(pt, e), level - 1, s, e_);
			if (err)
				return err;
			goto next;
		}
		/* Empty entry: a leaf if size and alignment allow (no 1 GiB leaves). */
		if (level == 1 ||
		    (level == 2 && s == base && e_ - s == size && !(spa & (size - 1)))) {
			if (!r->dry)
				pte_write(&table[i], pt_make_leaf(r->attrs, spa, level));
			goto next;
		}
		if (r->dry) {
			r->need++;
			child = NULL;
		} else {
			child = pt_take_spare(pt);
		}
		err = pt_map_level(pt, r, child, level - 1, s, e_);
		if (err)
			return err;
		if (!r->dry)
			pte_write(&table[i], pt_table_entry(pt, child));
next:
		if (e_ == end)
			break;
	}
	return PT_OK;
}

int pt_map_range(struct page_table *pt, uint64_t va, uint64_t pa, uint64_t len, uint64_t flags)
{
	struct pt_map_req r = { .va = va, .pa = pa, .dry = true };
	int err;

	if (!pt_range_ok(va, len) || (pa & (PT_SIZE_4K - 1)) || (flags & ~PT_ATTR_MAP_ALLOWED))
		return PT_ERR_INVAL;
	if (pa + len < pa || pa + len > pt->_pa_limit)
		return PT_ERR_INVAL;

	r.attrs = PT_PRESENT | (flags & PT_LEAF_ATTRS & ~PT_PAT_4K) |
		  pt_encoding(pt, flags & PT_ATTR_SHARED);
	if (flags & PT_ATTR_PAT)
		r.attrs |= PT_PAT_4K;
	if (!pt_leaf_allowed(pt, r.attrs))
		return PT_ERR_INVAL;

	/* Dry run first: conflicts and allocation failures must change nothing. */
	err = pt_map_level(pt, &r, pt->pml4, 4, va, va + len);
	if (err)
		return err;
	err = pt_reserve(pt, r.need);
	if (err)
		return err;
	r.dry = false;
	return pt_map_level(pt, &r, pt->pml4, 4, va, va + len);
}

/* ---- walk -------------------------------------------------------------- */

int pt_translate(const struct page_table *pt, uint64_t va, uint64_t *pa, uint64_t *page_size,
		 uint64_t *flags)
{
	uint64_t *e;
	uint64_t v, size;
	int level;

	if (!pt_canonical(va))
		return PT_ERR_INVAL;
	e = pt_walk(pt, va, &level);
	if (!e)
		return PT_ERR_NOENT;
	v = pte_read(e);
	size = pt_level_size(level);
	if (pa)
		*pa = pt_leaf_frame(pt, v, level) | (va & (size - 1));
	if (page_size)
		*page_size = size;
	if (flags) {
		uint64_t a = pt_leaf_attrs(v, level);

		*flags = (a & ~PT_PAT_4K) | (a & PT_PAT_4K ? PT_ATTR_PAT : 0) |
			 (pt_entry_shared(pt, v) ? PT_ATTR_SHARED : 0);
	}
	return PT_OK;
}

bool pt_is_shared(const struct page_table *pt, uint64_t va)
{
	uint64_t *e;
	int level;

	if (!pt_canonical(va))
		return false;
	e = pt_walk(pt, va, &level);
	return e && pt_entry_shared(pt, pte_read(e));
}

bool pt_range_is_shared(const struct page_table *pt, uint64_t va, uint64_t len)
{
	uint64_t start = va & ~(PT_SIZE_4K - 1);
	uint64_t last = va + len - 1;

	if (len == 0 || last < va || !pt_canonical(start) || !pt_canonical(last) ||
	    (start >> 47) != (last >> 47))
		return false;
	for (uint64_t cur = start;;) {
		uint64_t *e;
		uint64_t size;
		int level;

		e = pt_walk(pt, cur, &level);
		if (!e || !pt_entry_shared(pt, pte_read(e)))
			return false;
		size = pt_level_size(level);
		/* Trap: compare against last, not cur + size, which may wrap to 0. */
		if (last - (cur & ~(size - 1)) < size)
			return true;
		cur = (cur & ~(size - 1)) + size;
	}
}

/* ---- split ------------------------------------------------------------- */

/*
 * Replace the large leaf @e at @level (2 or 3) by a table of 512 leaves one
 * level down, from the spare list (the caller reserved it). No flush: the
 * caller decides (see pt_set_shared()).
 */
static void pt_split_leaf(struct page_table *pt, uint64_t *e, int level)
{
	uint64_t v = pte_read(e);
	uint64_t frame = pt_leaf_frame(pt, v, level);
	uint64_t child_size = pt_level_size(level - 1);
	uint64_t keep = v & ~(pt->_frame_mask & ~(pt_level_size(level) - 1));
	uint64_t *t = pt_take_spare(pt);

	/* Same attributes and encoding; for 2 MB -> 4 KiB, PAT moves 12 -> 7. */
	if (level == 2) {
		keep &= ~(PT_HUGE | PT_PAT_LARGE);
		if (v & PT_PAT_LARGE)
			keep |= PT_PAT_4K;
	}
	for (unsigned int i = 0; i < PT_ENTRIES; i++)
		t[i] = keep | (frame + i * child_size);
	/* The release store orders the 512 entries before the pointer to them. */
	pte_write(e, pt_table_entry(pt, t));
	pt->splits++;
}

static void pt_flush(struct page_table *pt, uint64_t va)
{
	pt->ops.flush_page(pt->ops.ctx, va);
	pt->flushes++;
}

int pt_split_2m(struct page_table *pt, uint64_t va)
{
	uint64_t *e;
	int level, err;

	if (!pt_canonical(va))
		return PT_ERR_INVAL;
	e = pt_walk(pt, va, &level);
	if (!e)
		return PT_ERR_NOENT;
	if (level == 1)
		return PT_OK;
	if (level != 2)
		return PT_ERR_INVAL;
	err = pt_reserve(pt, 1);
	if (err)
		return err;
	pt_split_leaf(pt, e, 2);
	/*
	 * invlpg of any address in a large page drops that page's TLB entries
	 * (SDM 4.10.4.1), so one flush retires the 2 MB translation.
	 */
	pt_flush(pt, va & ~(PT_SIZE_2M - 1));
	return PT_OK;
}

/* ---- shared / private -------------------------------------------------- */

/*
 * Splits needed so that [s, s + n) can be converted inside a leaf of @level
 * starting at @base, when the leaf is not already in the wanted state: none
 * if the range covers it, else one plus those of the (at most two) partially
 * covered children.
 */
static uint64_t pt_splits_needed(int level, uint64_t base, uint64_t s, uint64_t n)
{
	uint64_t csize, head, tail, count;

	if (s == base && n == pt_level_size(level))
		return 0;
	if (level == 2)
		return 1; /* children are 4 KiB pages */
	csize = pt_level_size(level - 1);
	head = s & ~(csize - 1);
	tail = (s + n - 1) & ~(csize - 1);
	if (head == tail)
		return 1 + pt_splits_needed(level - 1, head, s, n);
	count = 1 + pt_splits_needed(level - 1, head, s, head + csize - s);
	return count + pt_splits_needed(level - 1, tail, tail, s + n - tail);
}

/*
 * A rewrite of the leaves of a range: each becomes (old & ~clear) | set.
 * @counter: what pt_change_range() counts changed pages in (NULL: nothing);
 * @protection: count changed leaves in &page_table.protections.
 */
struct pt_change {
	uint64_t clear;
	uint64_t set;
	uint64_t *counter;
	bool protection;
};

/*
 * One pass over the range. Planning (@apply false): check every page is
 * mapped, that no rewritten leaf would break the policy, and count splits.
 * Applying: split and rewrite; cannot fail.
 */
static int pt_change_range(struct page_table *pt, uint64_t va, uint64_t len,
			   const struct pt_change *c, bool apply, uint64_t *splits)
{
	uint64_t cur = va, left = len;

	while (left) {
		uint64_t *e;
		uint64_t v, nv, size, base, n;
		int level;

		e = pt_walk(pt, cur, &level);
		if (!e)
			return PT_ERR_NOENT;
		v = pte_read(e);
		nv = (v & ~c->clear) | c->set;
		size = pt_level_size(level);
		base = cur & ~(size - 1);
		n = base + size - cur;
		if (n > left)
			n = left;
		if (nv == v)
			goto next;
		if (!apply) {
			/* Split children inherit v, so checking nv here covers them. */
			if (!pt_leaf_allowed(pt, nv))
				return PT_ERR_INVAL;
			*splits += pt_splits_needed(level, base, cur, n);
			goto next;
		}
		if (cur != base || n != size) {
			pt_split_leaf(pt, e, level);
			continue; /* walk again into the new, smaller leaves */
		}
		pte_write(e, nv);
		/*
		 * One invlpg per changed leaf. It also retires the large TLB
		 * entry of any leaf split above on the way here, since that
		 * entry covered this address (SDM 4.10.4.1); until then the
		 * split entries matched it exactly, which the SDM allows.
		 */
		pt_flush(pt, base);
		if (c->counter)
			*c->counter += size / PT_SIZE_4K;
		if (c->protection)
			pt->protections++;
next:
		cur += n;
		left -= n;
	}
	return PT_OK;
}

/* Plan, reserve the tables the splits need, apply: all or nothing. */
static int pt_change(struct page_table *pt, uint64_t va, uint64_t len, const struct pt_change *c)
{
	uint64_t splits = 0;
	int err;

	if (!pt_range_ok(va, len))
		return PT_ERR_INVAL;
	err = pt_change_range(pt, va, len, c, false, &splits);
	if (err)
		return err;
	/* All tables first: a failure after the first write could not be undone cleanly. */
	err = pt_reserve(pt, splits);
	if (err)
		return err;
	return pt_change_range(pt, va, len, c, true, NULL);
}

int pt_set_shared(struct page_table *pt, uint64_t va, uint64_t len, bool shared)
{
	struct pt_change c = {
		.clear = pt->shared_set_mask | pt->shared_clear_mask,
		.set = pt_encoding(pt, shared),
		.counter = shared ? &pt->pages_made_shared : &pt->pages_made_private,
	};

	return pt_change(pt, va, len, &c);
}

int pt_set_prot(struct page_table *pt, uint64_t va, uint64_t len, uint64_t prot)
{
	struct pt_change c = { .clear = PT_PROT_MASK, .set = prot, .protection = true };

	if (prot & ~PT_PROT_MASK)
		return PT_ERR_INVAL;
	return pt_change(pt, va, len, &c);
}

/* ---- policy and leaf walk ---------------------------------------------- */

/* Calls @fn for the leaves below @table, which maps from @base. */
static int pt_leaves_below(const struct page_table *pt, const uint64_t *table, int level,
			   uint64_t base, pt_leaf_fn fn, void *ctx)
{
	for (unsigned int i = 0; i < PT_ENTRIES; i++) {
		uint64_t e = pte_read(&table[i]);
		uint64_t va = base + (uint64_t)i * pt_level_size(level);
		int err;

		if (!(e & PT_PRESENT))
			continue;
		/* Index 256 and up of the PML4 is the upper half: sign-extend bit 47. */
		if (level == 4 && i >= PT_ENTRIES / 2)
			va |= 0xffff000000000000ULL;
		if (pt_is_leaf(e, level)) {
			uint64_t a = pt_leaf_attrs(e, level);
			uint64_t flags = (a & ~PT_PAT_4K) | (a & PT_PAT_4K ? PT_ATTR_PAT : 0) |
					 (pt_entry_shared(pt, e) ? PT_ATTR_SHARED : 0);

			err = fn(ctx, va, pt_level_size(level), flags);
		} else {
			err = pt_leaves_below(pt, pt_next_table(pt, e), level - 1, va, fn, ctx);
		}
		if (err)
			return err;
	}
	return PT_OK;
}

int pt_for_each_leaf(const struct page_table *pt, pt_leaf_fn fn, void *ctx)
{
	if (!pt || !pt->pml4 || !fn)
		return PT_ERR_INVAL;
	return pt_leaves_below(pt, pt->pml4, 4, 0, fn, ctx);
}

struct pt_policy_scan {
	const struct page_table *pt;
	unsigned int policy;
};

/* A leaf against a policy that is not in force yet (pt_leaf_allowed() reads pt->policy). */
static int pt_policy_leaf(void *ctx, uint64_t va, uint64_t size, uint64_t flags)
{
	const struct pt_policy_scan *s = ctx;

	(void)va;
	(void)size;
	if (flags & PT_NX)
		return 0;
	if ((s->policy & PT_POLICY_WX) && (flags & PT_WRITE))
		return PT_ERR_INVAL;
	if ((s->policy & PT_POLICY_SHARED_NX) && (flags & PT_ATTR_SHARED))
		return PT_ERR_INVAL;
	return 0;
}

int pt_set_policy(struct page_table *pt, unsigned int policy)
{
	struct pt_policy_scan s = { pt, policy };
	int err;

	if (!pt || !pt->pml4 || (policy & ~PT_POLICY_ALL))
		return PT_ERR_INVAL;
	err = pt_for_each_leaf(pt, pt_policy_leaf, &s);
	if (err)
		return err;
	pt->policy = policy;
	return PT_OK;
}

/* ---- self-check -------------------------------------------------------- */

static int pt_check_table(const struct page_table *pt, const uint64_t *table, int level,
			  uint64_t *tables)
{
	(*tables)++;
	for (unsigned int i = 0; i < PT_ENTRIES; i++) {
		uint64_t e = pte_read(&table[i]);
		uint64_t frame;

		if (!(e & PT_PRESENT))
			continue;
		if (level == 4 && (e & PT_HUGE))
			return PT_ERR_INVAL; /* PS is reserved in a PML4E */
		if (pt_is_leaf(e, level)) {
			uint64_t size = pt_level_size(level);
			uint64_t low = e & pt->_frame_mask & (size - 1);

			if (level > 1 && (low & ~PT_PAT_LARGE))
				return PT_ERR_INVAL; /* reserved bits of a large leaf */
			frame = pt_leaf_frame(pt, e, level);
			if (frame + size > pt->_pa_limit)
				return PT_ERR_INVAL;
			if (pt_entry_shared(pt, e) == pt_entry_private(pt, e))
				return PT_ERR_INVAL; /* mixed encoding */
			if (!pt_leaf_allowed(pt, e))
				return PT_ERR_INVAL; /* against the policy (W^X, shared NX) */
			continue;
		}
		/* Table pointer: private encoding, within reach. */
		if (!pt_entry_private(pt, e))
			return PT_ERR_INVAL;
		frame = e & pt->_frame_mask;
		if (!frame || frame >= pt->_pa_limit)
			return PT_ERR_INVAL;
		if (*tables > pt->tables_allocated)
			return PT_ERR_INVAL; /* a cycle or a shared table */
		if (pt_check_table(pt, pt_next_table(pt, e), level - 1, tables))
			return PT_ERR_INVAL;
	}
	return PT_OK;
}

int pt_check(const struct page_table *pt)
{
	uint64_t tables = 0, spare = 0;
	int err;

	if (!pt || !pt->pml4 || (pt_table_pa(pt->pml4) & (PT_SIZE_4K - 1)))
		return PT_ERR_INVAL;
	for (const uint64_t *p = pt->_spare; p; p = (const uint64_t *)(uintptr_t)p[0])
		if (++spare > pt->tables_spare)
			return PT_ERR_INVAL;
	if (spare != pt->tables_spare)
		return PT_ERR_INVAL;
	err = pt_check_table(pt, pt->pml4, 4, &tables);
	if (err)
		return err;
	if (tables + spare != pt->tables_allocated)
		return PT_ERR_INVAL;
	/* Each split consumed a table other than the PML4 and was flushed. */
	if (pt->splits >= pt->tables_allocated || (pt->splits && !pt->flushes))
		return PT_ERR_INVAL;
	return PT_OK;
}
