/* SPDX-License-Identifier: MIT */
/*
 * fuzz_pci_setup.c - where a hostile host may place device windows: the memory
 * map's classification (boot/memmap.c), the placement check (kernel/pci_window.c)
 * and the kernel's PCI bring-up (kernel/pci_setup.c, sizing BARs through
 * drivers/pci/pci.c) on the fake platform of tests/fakes/fake_pci.c.
 *
 * The adversary controls the UEFI memory map (up to eight ranges with any base,
 * size, EFI memory type and write-back attribute, overlapping or not, in any
 * order), the regions the kernel reserved at boot and the local APIC, the CPU's
 * physical address width, the MCFG ECAM window (as acpi_mcfg() would give it:
 * 1 MiB aligned, start bus <= end bus), and up to four functions: bus, device,
 * function, whether one configuration space answers at every function number,
 * header type, command register, and each BAR's value and its answer to the
 * sizing write (honest 32- and 64-bit memory and I/O BARs, or any raw value and
 * answer: masks with holes, BARs at 0, over RAM, straddling it), with a second
 * answer for every later sizing. It also picks which mmu_map_mmio() call fails
 * (PT_ERR_EXIST or PT_ERR_NOMEM) or comes out private, and a list of windows
 * given to pci_window_check() directly.
 *
 * Checked against a reference formulation of G21 (ref_window_ok(): 128-bit page
 * rounding, interval overlap as endpoint containment, its own classification
 * of the EFI types and its own list of busy regions):
 * (1) pci_space_init() describes the map, the busy regions and the address
 *     limit; mem_kind_from_efi_type() classifies as UEFI 2.10 table 7.7 says;
 *     pci_window_check() accepts a window iff the reference does, returns 0 or
 *     -22, and leaves a terminated reason in any buffer size;
 * (2) after pci_setup(): every accepted BAR is a sized memory BAR (a power of
 *     two that does not wrap) the reference accepts, mapped by a call that
 *     succeeded and came out shared; a function not refused has every sized
 *     memory BAR accepted; a refused one has none accepted and memory decoding
 *     and bus mastering off; every mmu_map_mmio() call passes the reference
 *     (so none covers a page of RAM, also checked on its own); one refusal
 *     line per refused function, each with a terminated, printable reason
 *     (printf is wrapped: -Wl,--wrap=printf);
 * (3) the ECAM window is used iff MCFG gave one that the reference accepts
 *     with PCI_WINDOW_ECAM and whose mapping succeeded shared; only its buses
 *     are scanned then (pci_enumerate() is wrapped: -Wl,--wrap=pci_enumerate,
 *     see __wrap_pci_enumerate()); else the ports are, on all 256 buses.
 *
 * Built with -DPSF_TRACE (outside the make files), the product's lines and
 * pci_report() go to stderr: how a seed's layout came out.
 *
 * Found so far: nothing. A mutant of pci_window_check() that let a window start
 * in the last page of a range was caught within 0.3 s from an empty corpus.
 */
#include "tests/fuzz/fuzz_common.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "arch/x86_64/mm/mmu.h"
#include "arch/x86_64/mm/paging.h"
#include "boot/memmap.h"
#include "kernel/pci_setup.h"
#include "kernel/pci_window.h"
#include "tests/fakes/fake_pci.h"

#define PSF_MAX_RANGES 8u
#define PSF_MAX_ANCHORS 32u
#define PSF_MAX_PROBES 16u
#define PSF_PAGE 4096u
#define PSF_WB 1u /* EFI_MEMORY_WB */

typedef unsigned __int128 psf_u128;

/* The reference's view of the memory map: the EFI types as given. */
struct psf_range {
	uint64_t base, size;
	uint32_t type;
	bool wb;
};

struct psf_region {
	uint64_t base, size;
};

/**
 * struct psf - one input.
 * @bi: the boot hand-off pci_setup() gets (static: it is large).
 * @ranges: the map as the input gave it.
 * @nranges: its entries.
 * @busy: the regions no window may meet, listed by the reference.
 * @nbusy: their number.
 * @limit: first unreachable address (2^64 for none).
 * @anchors: addresses seen so far, for addresses near them.
 * @nanchors: their number.
 * @capture: pci_setup() is running: printf prints its refusal lines, and
 *	pci_enumerate() is its scan.
 * @bus_used: the buses a function of the fake answers on (a bitmap).
 * @enumerations: pci_enumerate() calls by pci_setup().
 * @enum_first: the first bus it was asked to scan.
 * @enum_last: the last.
 * @bar_lines: lines refusing a function.
 * @ecam_lines: lines refusing the ECAM window.
 */
struct psf {
	struct boot_info bi;
	struct psf_range ranges[PSF_MAX_RANGES];
	unsigned int nranges;
	struct psf_region busy[8];
	unsigned int nbusy;
	psf_u128 limit;
	uint64_t anchors[PSF_MAX_ANCHORS];
	unsigned int nanchors;
	bool capture;
	uint64_t bus_used[4];
	unsigned int enumerations, enum_first, enum_last;
	unsigned int bar_lines, ecam_lines;
};

static struct psf psf;

/* ------------------------------------------------------------ the reference */

/* UEFI 2.10, table 7.7 (memory type usage after ExitBootServices). */
static enum mem_kind ref_kind(uint32_t type)
{
	static const enum mem_kind kinds[] = {
		[UEFI_MT_RESERVED] = MEM_RESERVED,
		[UEFI_MT_LOADER_CODE] = MEM_KERNEL,
		[UEFI_MT_LOADER_DATA] = MEM_KERNEL,
		[UEFI_MT_BOOT_SERVICES_CODE] = MEM_USABLE,
		[UEFI_MT_BOOT_SERVICES_DATA] = MEM_USABLE,
		[UEFI_MT_RUNTIME_SERVICES_CODE] = MEM_RESERVED,
		[UEFI_MT_RUNTIME_SERVICES_DATA] = MEM_RESERVED,
		[UEFI_MT_CONVENTIONAL] = MEM_USABLE,
		[UEFI_MT_UNUSABLE] = MEM_RESERVED,
		[UEFI_MT_ACPI_RECLAIM] = MEM_ACPI,
		[UEFI_MT_ACPI_NVS] = MEM_ACPI,
		[UEFI_MT_MMIO] = MEM_MMIO,
		[UEFI_MT_MMIO_PORT_SPACE] = MEM_MMIO,
		[UEFI_MT_PAL_CODE] = MEM_RESERVED,
		[UEFI_MT_PERSISTENT] = MEM_RESERVED,
		[UEFI_MT_UNACCEPTED] = MEM_RESERVED,
	};

	return type < sizeof(kinds) / sizeof(kinds[0]) ? kinds[type] : MEM_RESERVED;
}

/* @x lies in [@start, @start + @len), a range that stops at 2^64. */
static bool ref_contains(uint64_t start, uint64_t len, uint64_t x)
{
	return len && x >= start && x - start < len;
}

/* A region meets the window [@first, @end) when it starts inside it or
 * contains its start. */
static bool ref_meets(uint64_t base, uint64_t size, uint64_t first, psf_u128 end)
{
	return size && ((base >= first && base < end) || ref_contains(base, size, first));
}

/* Whether a window may lie at [@base, @base + @size) (G21). */
static bool ref_window_ok(uint64_t base, uint64_t size, bool ecam)
{
	uint64_t first = base - base % PSF_PAGE;
	psf_u128 end = ((psf_u128)base + size + PSF_PAGE - 1) / PSF_PAGE * PSF_PAGE;

	if (!size || end > UINT64_MAX || end > psf.limit)
		return false;
	for (unsigned int i = 0; i < psf.nranges; i++) {
		const struct psf_range *r = &psf.ranges[i];
		enum mem_kind k = ref_kind(r->type);

		if (k == MEM_MMIO || (ecam && k == MEM_RESERVED && !r->wb))
			continue;
		if (ref_meets(r->base, r->size, first, end))
			return false;
	}
	for (unsigned int i = 0; i < psf.nbusy; i++)
		if (ref_meets(psf.busy[i].base, psf.busy[i].size, first, end))
			return false;
	return true;
}

/* Whether the pages of [@pa, @pa + @len) hold a byte the map calls RAM. */
static bool ref_touches_ram(uint64_t pa, uint64_t len)
{
	uint64_t first = pa - pa % PSF_PAGE;
	psf_u128 end = ((psf_u128)pa + len + PSF_PAGE - 1) / PSF_PAGE * PSF_PAGE;

	for (unsigned int i = 0; i < psf.nranges; i++) {
		enum mem_kind k = ref_kind(psf.ranges[i].type);

		if ((k == MEM_USABLE || k == MEM_KERNEL) &&
		    ref_meets(psf.ranges[i].base, psf.ranges[i].size, first, end))
			return true;
	}
	return false;
}

/* ------------------------------------------------------------ the printf tap */

int __wrap_printf(const char *fmt, ...);

static bool psf_ends_with(const char *s, size_t n, const char *suffix)
{
	size_t k = strlen(suffix);

	return n >= k && !memcmp(s + n - k, suffix, k);
}

/* The product's lines: a refusal names its reason, terminated and printable. */
int __wrap_printf(const char *fmt, ...)
{
	static char line[1024];
	const char *why;
	va_list ap;
	int n;

	va_start(ap, fmt);
	if (!psf.capture) {
		n = vprintf(fmt, ap);
		va_end(ap);
		return n;
	}
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
#ifdef PSF_TRACE
	fputs(line, stderr);
#endif
	FUZZ_CHECK(n >= 0 && (size_t)n < sizeof(line));
	why = strstr(line, " refused: ");
	if (!why)
		return n;
	why += strlen(" refused: ");
	FUZZ_CHECK(!strstr(why, " refused: "));
	if (psf_ends_with(line, (size_t)n, "; the function will not be used\n"))
		psf.bar_lines++;
	else if (psf_ends_with(line, (size_t)n, "; using ports\n"))
		psf.ecam_lines++;
	else
		FUZZ_CHECK(false); /* a refusal line with no known ending */
	/* Everything up to the ending is the reason: text, no stray bytes. */
	for (const char *p = why; *p != '\n'; p++)
		FUZZ_CHECK(*p >= 0x20 && *p < 0x7f);
	return n;
}

/* ------------------------------------------------------------ the scan tap */

int __real_pci_enumerate(const struct pci_config_ops *ops, unsigned int first_bus,
			 unsigned int last_bus, struct pci_device *out, int max);
int __wrap_pci_enumerate(const struct pci_config_ops *ops, unsigned int first_bus,
			 unsigned int last_bus, struct pci_device *out, int max);

/*
 * pci_setup()'s scan, bus by bus: the real pci_enumerate() on each bus of the
 * range where a function of the fake answers, the results concatenated. The
 * scan goes bus after bus, so this finds, sizes and writes exactly what one call
 * over the range would: on the other buses every read gives all ones and
 * nothing is written. It saves the 8 192 empty probes of a port scan (256
 * buses), which would cost 0.6 ms an input under ASan and the comparison
 * tracing.
 */
int __wrap_pci_enumerate(const struct pci_config_ops *ops, unsigned int first_bus,
			 unsigned int last_bus, struct pci_device *out, int max)
{
	int n = 0;

	if (!psf.capture)
		return __real_pci_enumerate(ops, first_bus, last_bus, out, max);
	psf.enumerations++;
	psf.enum_first = first_bus;
	psf.enum_last = last_bus;
	for (unsigned int bus = first_bus; bus <= last_bus && bus <= 255; bus++)
		if (psf.bus_used[bus / 64] >> (bus % 64) & 1)
			n += __real_pci_enumerate(ops, bus, bus, out + n, max - n);
	return n;
}

/* -------------------------------------------------------------- the input */

static void psf_anchor(uint64_t a)
{
	if (psf.nanchors < PSF_MAX_ANCHORS)
		psf.anchors[psf.nanchors++] = a;
}

/* An address: raw, in pages, near one seen before, in the top of the space. */
static uint64_t psf_addr(struct fuzz_in *in)
{
	uint8_t tag = fuzz_u8(in);
	uint64_t a;

	switch (tag & 7) {
	case 0:
		return fuzz_u64(in);
	case 1:
		return (uint64_t)fuzz_u32(in) << 12;
	case 2:
	case 3:
		a = psf.nanchors ? psf.anchors[(tag >> 3) % psf.nanchors] : 0;
		return a + (uint64_t)(int64_t)(int16_t)fuzz_u16(in) * PSF_PAGE + (tag & 1) * 16;
	case 4:
		return fuzz_u32(in);
	case 5:
		return (uint64_t)fuzz_u16(in) << 20;
	case 6:
		return UINT64_MAX - fuzz_u16(in);
	default:
		a = (uint64_t)fuzz_u8(in) << 32;
		return a | (uint64_t)fuzz_u16(in) << 12;
	}
}

static uint64_t psf_size(struct fuzz_in *in)
{
	uint8_t tag = fuzz_u8(in);

	switch (tag & 3) {
	case 0:
		return fuzz_u64(in);
	case 1:
		return 1ull << (tag >> 2);
	case 2:
		return (uint64_t)fuzz_u16(in) << 12;
	default:
		return fuzz_u32(in);
	}
}

static void psf_region(struct fuzz_in *in, struct mem_region *r)
{
	r->base = psf_addr(in);
	r->size = psf_size(in);
	psf_anchor(r->base);
}

static void psf_read_map(struct fuzz_in *in)
{
	struct boot_info *bi = &psf.bi;

	psf.nranges = fuzz_below(in, PSF_MAX_RANGES + 1);
	for (unsigned int i = 0; i < psf.nranges; i++) {
		struct psf_range *r = &psf.ranges[i];
		uint8_t t = fuzz_u8(in);

		r->base = psf_addr(in);
		r->size = psf_size(in);
		r->type = t & 0x80 ? fuzz_u32(in) : t & 0x1f;
		r->wb = t & 0x40;
		psf_anchor(r->base);
		psf_anchor(r->base + r->size);
		bi->ranges[i] = (struct mem_range){ r->base, r->size,
						    mem_kind_from_efi_type(r->type), r->wb };
		/* (1) memmap.c's classification. */
		FUZZ_CHECK(bi->ranges[i].kind == ref_kind(r->type));
		FUZZ_CHECK(mem_kind_name(bi->ranges[i].kind)[0] != '?');
	}
	bi->nranges = psf.nranges;
}

static void psf_read_busy(struct fuzz_in *in)
{
	struct boot_info *bi = &psf.bi;
	struct mem_region *regions[] = { &bi->heap, &bi->dma, &bi->pagetables, &bi->stack,
					 &bi->trampoline };
	uint8_t which = fuzz_u8(in);
	struct mem_region image = { 0, 0 };

	if (which & 1) {
		psf_region(in, &image);
		bi->image_base = image.base;
		bi->image_size = image.size;
	}
	for (unsigned int i = 0; i < 5; i++)
		if (which & (2u << i))
			psf_region(in, regions[i]);
	if (which & 0x40) {
		bi->cpus.lapic_base = psf_addr(in);
		psf_anchor(bi->cpus.lapic_base);
	}
	/* The reference's own list of what the kernel owns. */
	psf.nbusy = 0;
	if (image.size)
		psf.busy[psf.nbusy++] = (struct psf_region){ image.base, image.size };
	for (unsigned int i = 0; i < 5; i++)
		if (regions[i]->size)
			psf.busy[psf.nbusy++] =
				(struct psf_region){ regions[i]->base, regions[i]->size };
	if (bi->cpus.lapic_base)
		psf.busy[psf.nbusy++] = (struct psf_region){ bi->cpus.lapic_base, PSF_PAGE };
}

/* One BAR slot (two for a 64-bit one); returns the slots used. */
static unsigned int psf_read_bar(struct fuzz_in *in, struct fake_pci_fn *f, unsigned int i)
{
	uint8_t mode = fuzz_u8(in);
	unsigned int used = 1;
	uint64_t base;

	switch (mode & 3) {
	case 0: /* not implemented, or an I/O BAR */
		if (mode & 8) {
			uint32_t size = 4u << (fuzz_u8(in) % 7);

			fake_pci_cfg_wr32(f->cfg, PCI_BAR0 + 4 * i,
					  (fuzz_u16(in) & ~(size - 1)) | 1);
			f->sizing_answer[i][0] = ~(size - 1) | 1;
		}
		break;
	case 1: /* 32-bit memory */
		base = psf_addr(in);
		fake_pci_bar32(f, i, ((uint32_t)base & ~0xfu) | (mode & 0x10 ? 8 : 0),
			       1ull << (4 + fuzz_u8(in) % 28));
		break;
	case 2: /* 64-bit memory (as 32-bit in slot 5: the product reads it so) */
		if (i + 1 < PCI_NUM_BARS) {
			base = psf_addr(in);
			fake_pci_bar64(f, i, base, 1ull << (4 + fuzz_u8(in) % 60));
			used = 2;
		}
		break;
	default: /* anything: a value and its sizing answer */
		fake_pci_cfg_wr32(f->cfg, PCI_BAR0 + 4 * i, fuzz_u32(in));
		f->sizing_answer[i][0] = fuzz_u32(in);
		break;
	}
	psf_anchor(fake_pci_cfg_rd32(f->cfg, PCI_BAR0 + 4 * i) & ~0xfu);
	for (unsigned int k = 0; k < used; k++)
		f->sizing_answer[i + k][1] = f->sizing_answer[i + k][0];
	/* A later sizing gets another answer. */
	if (mode & 4)
		f->sizing_answer[i + used - 1][1] = fuzz_u32(in);
	return used;
}

static void psf_read_fns(struct fuzz_in *in)
{
	unsigned int n = fuzz_below(in, FAKE_PCI_FNS + 1);

	for (unsigned int j = 0; j < n; j++) {
		struct fake_pci_fn *f = &fake_pci.fns[j];
		uint8_t devfn, flags;

		f->present = true;
		f->bus = fuzz_u8(in);
		psf.bus_used[f->bus / 64] |= 1ull << (f->bus % 64);
		devfn = fuzz_u8(in);
		f->dev = devfn >> 3;
		f->fn = devfn & 7;
		flags = fuzz_u8(in);
		f->any_fn = flags & 1;
		f->cfg[PCI_HEADER_TYPE] = (flags & 2 ? 0x80 : 0) | (flags & 4 ? 1 : 0);
		fake_pci_cfg_wr32(f->cfg, PCI_VENDOR_ID, 0x1af4u | (0x1041u + j) << 16);
		if (flags & 8) /* a vendor ID of the input's, maybe "absent" */
			fake_pci_cfg_wr32(f->cfg, PCI_VENDOR_ID, fuzz_u16(in));
		fake_pci_cfg_wr32(f->cfg, PCI_COMMAND, fuzz_u16(in));
		for (unsigned int i = 0; i < PCI_NUM_BARS;)
			i += psf_read_bar(in, f, i);
	}
}

/* ------------------------------------------------------------------ checks */

/* (1) pci_space_init() and pci_window_check() on windows of the input's. */
static void psf_check_space(struct fuzz_in *in, unsigned int bits)
{
	struct pci_space s;

	pci_space_init(&s, &psf.bi, bits);
	FUZZ_CHECK(s.ranges == psf.bi.ranges && s.nranges == psf.nranges);
	FUZZ_CHECK(s.pa_limit == (psf.limit > UINT64_MAX ? 0 : (uint64_t)psf.limit));
	FUZZ_CHECK(s.nbusy == psf.nbusy);
	for (unsigned int i = 0; i < psf.nbusy; i++) {
		bool found = false;

		for (unsigned int j = 0; j < s.nbusy; j++)
			found |= s.busy[j].base == psf.busy[i].base &&
				 s.busy[j].size == psf.busy[i].size && s.busy[j].name;
		FUZZ_CHECK(found);
	}
	for (unsigned int p = fuzz_below(in, PSF_MAX_PROBES + 1); p; p--) {
		uint8_t flags = fuzz_u8(in);
		uint64_t base = psf_addr(in), size = psf_size(in);
		size_t why_len = 1 + flags % 192;
		char why[192];
		int rc;

		memset(why, 0xaa, sizeof(why));
		rc = pci_window_check(&s, base, size, flags & 0x80 ? PCI_WINDOW_ECAM : 0, why,
				      why_len);
		FUZZ_CHECK(rc == 0 || rc == -22);
		FUZZ_CHECK((rc == 0) == ref_window_ok(base, size, flags & 0x80));
		if (rc)
			FUZZ_CHECK(memchr(why, 0, why_len) != NULL);
	}
}

static const struct fake_pci_map *psf_map_of(uint64_t pa, uint64_t len)
{
	for (unsigned int i = 0; i < fake_pci.nmaps; i++)
		if (fake_pci.maps[i].pa == pa && fake_pci.maps[i].len == len &&
		    !fake_pci.maps[i].rc)
			return &fake_pci.maps[i];
	return NULL;
}

/* (2) and (3): what pci_setup() did. */
static void psf_check_setup(int found)
{
	const struct acpi_mcfg_window *m = &fake_pci.mcfg;
	uint64_t window = ((uint64_t)m->end_bus + 1) << 20;
	const struct pci_device *devs;
	unsigned int refused = 0;
	bool ecam_expected;
	int n = pci_devices(&devs);

	FUZZ_CHECK(n == found && n >= 0 && n <= PCI_MAX_DEVICES);
	FUZZ_CHECK(fake_pci.nmaps <= FAKE_PCI_MAX_MAPS);
	/* Every mapping passed the rule of its window; none touches RAM. */
	for (unsigned int i = 0; i < fake_pci.nmaps; i++) {
		const struct fake_pci_map *c = &fake_pci.maps[i];
		bool ecam_call = c->cfg_reads == 0;

		if (ecam_call)
			FUZZ_CHECK(i == 0 && fake_pci.mcfg_present && c->pa == m->base &&
				   c->len == window);
		FUZZ_CHECK(ref_window_ok(c->pa, c->len, ecam_call));
		FUZZ_CHECK(!ref_touches_ram(c->pa, c->len));
	}
	/* (3) ECAM iff its window passes, maps, and comes out shared. */
	ecam_expected = fake_pci.mcfg_present && ref_window_ok(m->base, window, true) &&
			fake_pci.nmaps && fake_pci.maps[0].cfg_reads == 0 && !fake_pci.maps[0].rc &&
			mmu_range_is_shared(m->base, window);
	FUZZ_CHECK(fake_pci.ecam_inits + fake_pci.port_inits == 1);
	FUZZ_CHECK(fake_pci.ecam_inits == (ecam_expected ? 1u : 0u));
	FUZZ_CHECK(psf.enumerations == 1);
	if (ecam_expected)
		FUZZ_CHECK(fake_pci.ecam_base_given == m->base && psf.enum_first == m->start_bus &&
			   psf.enum_last == m->end_bus);
	else
		FUZZ_CHECK(psf.enum_first == 0 && psf.enum_last == 255);
	FUZZ_CHECK(psf.ecam_lines == (fake_pci.mcfg_present && !ecam_expected ? 1u : 0u));
	/* (2) every function. */
	for (int k = 0; k < n; k++) {
		const struct pci_device *d = &devs[k];
		const struct fake_pci_fn *f = fake_pci_find(d->bus, d->dev, d->fn);

		FUZZ_CHECK(f != NULL);
		if (ecam_expected)
			FUZZ_CHECK(d->bus >= m->start_bus && d->bus <= m->end_bus);
		refused += d->refused;
		for (unsigned int b = 0; b < PCI_NUM_BARS; b++) {
			const struct pci_bar *bar = &d->bars[b];

			if (!bar->is_io && bar->size) {
				FUZZ_CHECK(!(bar->size & (bar->size - 1)));
				FUZZ_CHECK(bar->base + (bar->size - 1) >= bar->base);
				/* Accepted, or the function refused: nothing in between. */
				FUZZ_CHECK(bar->accepted != d->refused);
			}
			if (!bar->accepted)
				continue;
			FUZZ_CHECK(!bar->is_io && bar->size && bar->base);
			FUZZ_CHECK(ref_window_ok(bar->base, bar->size, false));
			FUZZ_CHECK(psf_map_of(bar->base, bar->size) != NULL);
			FUZZ_CHECK(mmu_range_is_shared(bar->base, bar->size));
		}
		if (d->refused)
			FUZZ_CHECK(
				!(fake_pci_command(f) & (PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER)));
	}
	FUZZ_CHECK(psf.bar_lines == refused);
}

int fuzz_pci_setup_one(const uint8_t *data, size_t size)
{
	struct fuzz_in in = fuzz_in_start(data, size);
	struct boot_info *bi = &psf.bi;
	uint8_t flags, call;
	unsigned int bits;
	int found;

	fake_pci_reset();
	memset(bi, 0, offsetof(struct boot_info, ranges));
	bi->nranges = 0;
	psf.nanchors = 0;
	psf.capture = false;
	memset(psf.bus_used, 0, sizeof(psf.bus_used));
	psf.enumerations = 0;
	psf.bar_lines = psf.ecam_lines = 0;

	flags = fuzz_u8(&in);
	call = fuzz_u8(&in);
	bits = fuzz_u8(&in);
	psf.limit = bits >= 12 && bits < 64 ? (psf_u128)1 << bits : (psf_u128)1 << 64;
	psf_read_map(&in);
	psf_read_busy(&in);
	if (flags & 1) {
		uint8_t a = fuzz_u8(&in), b = fuzz_u8(&in);

		fake_pci.mcfg_present = true;
		fake_pci.mcfg.base = psf_addr(&in) & ~0xfffffull;
		fake_pci.mcfg.start_bus = a < b ? a : b;
		fake_pci.mcfg.end_bus = a < b ? b : a;
		psf_anchor(fake_pci.mcfg.base);
	}
	/* The identity map: RAM mapped write-back (PT_ERR_EXIST), or not modelled. */
	if (flags & 2)
		fake_pci.bi = bi;
	switch ((flags >> 2) & 3) {
	case 1:
		fake_pci.fail_map_call = call;
		fake_pci.fail_map_rc = PT_ERR_EXIST;
		break;
	case 2:
		fake_pci.fail_map_call = call;
		fake_pci.fail_map_rc = PT_ERR_NOMEM;
		break;
	case 3:
		fake_pci.private_map_call = call;
		break;
	}
	psf_read_fns(&in);
	psf_check_space(&in, bits);

	psf.capture = true;
	found = pci_setup(bi, bits);
#ifdef PSF_TRACE
	pci_report();
#endif
	psf.capture = false;
	psf_check_setup(found);
	return 0;
}
