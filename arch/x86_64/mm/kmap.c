/* SPDX-License-Identifier: MIT */
/*
 * kmap.c - the kernel identity map's W^X policy (see kmap.h).
 *
 * Why W^X here: in a confidential guest the host writes shared memory at any
 * time, and before this policy every page, shared ones included, was
 * executable: one stray jump into a bounce slot or arena block ran the host's
 * bytes. Now only the text, which is read-only (CR0.WP makes supervisor
 * writes honour R/W: SDM vol. 3 4.6.1), can be fetched from.
 */
#include "arch/x86_64/mm/kmap.h"

static uint64_t kmap_ram_attr(const struct kmap_layout *l)
{
	return PT_WRITE | (l->nx ? PT_NX : 0);
}

static uint64_t kmap_device_attr(const struct kmap_layout *l)
{
	return l->nx ? PT_ATTR_MMIO : (PT_ATTR_MMIO & ~PT_NX);
}

static bool kmap_aligned(uint64_t v)
{
	return !(v & (PT_SIZE_4K - 1));
}

/* Map [@start, @end) identity with @attr; page 0 is never mapped. */
static int kmap_map(struct page_table *pt, uint64_t start, uint64_t end, uint64_t attr)
{
	if (start < PT_SIZE_4K)
		start = PT_SIZE_4K;
	if (end <= start)
		return PT_OK;
	return pt_map_range(pt, start, start, end - start, attr);
}

/* A RAM range: writable and non-executable, except where it holds text. */
static int kmap_map_ram(struct page_table *pt, const struct kmap_layout *l, uint64_t start,
			uint64_t end)
{
	uint64_t ts = l->text_start, te = l->text_end;
	int err;

	if (end <= ts || start >= te)
		return kmap_map(pt, start, end, kmap_ram_attr(l));
	/* Pieces before, inside and after the text; 2 MB leaves stay where they fit. */
	err = kmap_map(pt, start, ts > start ? ts : start, kmap_ram_attr(l));
	if (!err)
		err = kmap_map(pt, ts > start ? ts : start, te < end ? te : end, 0);
	if (!err)
		err = kmap_map(pt, te < end ? te : end, end, kmap_ram_attr(l));
	return err;
}

/* Bytes of [@start, @end) that lie in RAM ranges of @l (ranges are disjoint). */
static uint64_t kmap_ram_bytes(const struct kmap_layout *l, uint64_t start, uint64_t end)
{
	uint64_t n = 0;

	for (unsigned int i = 0; i < l->nranges; i++) {
		const struct kmap_range *r = &l->ranges[i];
		uint64_t s = r->base > start ? r->base : start;
		uint64_t e = r->base + r->size < end ? r->base + r->size : end;

		if (!r->device && e > s)
			n += e - s;
	}
	return n;
}

static bool kmap_layout_ok(const struct kmap_layout *l)
{
	uint64_t prev_end = 0;

	if (!l->nranges || !l->ranges)
		return false;
	for (unsigned int i = 0; i < l->nranges; i++) {
		const struct kmap_range *r = &l->ranges[i];

		if (!r->size || !kmap_aligned(r->base) || !kmap_aligned(r->size) ||
		    r->base + r->size < r->base || r->base < prev_end)
			return false;
		prev_end = r->base + r->size;
	}
	if (!kmap_aligned(l->text_start) || !kmap_aligned(l->text_end) ||
	    l->text_start >= l->text_end || l->text_start < PT_SIZE_4K ||
	    kmap_ram_bytes(l, l->text_start, l->text_end) != l->text_end - l->text_start)
		return false;
	if (l->switch_start == l->switch_end)
		return true;
	return kmap_aligned(l->switch_start) && kmap_aligned(l->switch_end) &&
	       l->switch_start < l->switch_end && l->switch_start >= PT_SIZE_4K &&
	       kmap_ram_bytes(l, l->switch_start, l->switch_end) ==
		       l->switch_end - l->switch_start &&
	       (l->switch_end <= l->text_start || l->switch_start >= l->text_end);
}

int kmap_build(struct page_table *pt, const struct kmap_layout *l)
{
	uint64_t pos = 0;
	int err;

	if (!pt || !l || !kmap_layout_ok(l))
		return PT_ERR_INVAL;
	for (unsigned int i = 0; i < l->nranges; i++) {
		const struct kmap_range *r = &l->ranges[i];

		if (r->base > pos && pos < l->hole_limit) {
			err = kmap_map(pt, pos, r->base < l->hole_limit ? r->base : l->hole_limit,
				       kmap_device_attr(l));
			if (err)
				return err;
		}
		if (r->device)
			err = kmap_map(pt, r->base, r->base + r->size, kmap_device_attr(l));
		else
			err = kmap_map_ram(pt, l, r->base, r->base + r->size);
		if (err)
			return err;
		pos = r->base + r->size;
	}
	if (pos < l->hole_limit) {
		err = kmap_map(pt, pos, l->hole_limit, kmap_device_attr(l));
		if (err)
			return err;
	}
	/* From here on paging.c refuses any change that would break W^X. */
	return l->nx ? pt_set_policy(pt, PT_POLICY_WX | PT_POLICY_SHARED_NX) : PT_OK;
}

int kmap_set_exec(struct page_table *pt, const struct kmap_layout *l, uint64_t va, uint64_t len,
		  bool exec)
{
	if (!pt || !l || !len || va + len < va || va < l->switch_start || va + len > l->switch_end)
		return PT_ERR_INVAL;
	return pt_set_prot(pt, va, len, exec ? 0 : kmap_ram_attr(l));
}

static int kmap_count_leaf(void *ctx, uint64_t va, uint64_t size, uint64_t flags)
{
	struct kmap_summary *s = ctx;

	if (size == PT_SIZE_4K)
		s->bytes_4k += size;
	else if (size == PT_SIZE_2M)
		s->bytes_2m += size;
	else
		s->bytes_1g += size;
	if (flags & PT_NX)
		return 0;
	/* Leaves come in address order: the first executable one is the lowest. */
	if (!s->bytes_exec)
		s->exec_lo = va;
	s->exec_hi = va + size;
	s->bytes_exec += size;
	if (flags & PT_WRITE)
		s->bytes_wx += size;
	if (flags & PT_ATTR_SHARED)
		s->bytes_shared_exec += size;
	return 0;
}

int kmap_summarize(const struct page_table *pt, struct kmap_summary *s)
{
	if (!s)
		return PT_ERR_INVAL;
	*s = (struct kmap_summary){ 0 };
	return pt_for_each_leaf(pt, kmap_count_leaf, s);
}
