/* SPDX-License-Identifier: MIT */
/*
 * fake_pci.c - the platform below pci_setup() for host tests and fuzzing (see
 * fake_pci.h).
 */
#include "tests/fakes/fake_pci.h"

#include <string.h>

#include "arch/x86_64/mm/mmu.h"
#include "arch/x86_64/mm/paging.h"

struct fake_pci fake_pci;

void fake_pci_reset(void)
{
	memset(fake_pci.fns, 0, sizeof(fake_pci.fns));
	fake_pci.mcfg_present = false;
	memset(&fake_pci.mcfg, 0, sizeof(fake_pci.mcfg));
	fake_pci.ecam_inits = fake_pci.port_inits = 0;
	fake_pci.ecam_base_given = 0;
	fake_pci.bi = NULL;
	fake_pci.nmaps = 0;
	fake_pci.fail_map_at = 0;
	fake_pci.fail_map_call = 0;
	fake_pci.fail_map_rc = 0;
	fake_pci.private_map_at = 0;
	fake_pci.private_map_call = 0;
	fake_pci.cfg_reads = 0;
}

uint32_t fake_pci_cfg_rd32(const uint8_t *cfg, unsigned int off)
{
	uint32_t v;

	memcpy(&v, cfg + off, 4);
	return v;
}

void fake_pci_cfg_wr32(uint8_t *cfg, unsigned int off, uint32_t v)
{
	memcpy(cfg + off, &v, 4);
}

void fake_pci_bar32(struct fake_pci_fn *f, unsigned int i, uint32_t base, uint64_t size)
{
	uint32_t answer = ((uint32_t) ~(size - 1) & ~0xfu) | (base & 0xfu);

	fake_pci_cfg_wr32(f->cfg, PCI_BAR0 + 4 * i, base);
	f->sizing_answer[i][0] = f->sizing_answer[i][1] = answer;
}

void fake_pci_bar64(struct fake_pci_fn *f, unsigned int i, uint64_t base, uint64_t size)
{
	uint64_t mask = ~(size - 1);

	fake_pci_cfg_wr32(f->cfg, PCI_BAR0 + 4 * i, ((uint32_t)base & ~0xfu) | 0x4 /* 64-bit */);
	fake_pci_cfg_wr32(f->cfg, PCI_BAR0 + 4 * i + 4, (uint32_t)(base >> 32));
	f->sizing_answer[i][0] = f->sizing_answer[i][1] = ((uint32_t)mask & ~0xfu) | 0x4;
	f->sizing_answer[i + 1][0] = f->sizing_answer[i + 1][1] = (uint32_t)(mask >> 32);
}

struct fake_pci_fn *fake_pci_find(uint8_t bus, uint8_t dev, uint8_t fn)
{
	for (unsigned int i = 0; i < FAKE_PCI_FNS; i++) {
		struct fake_pci_fn *f = &fake_pci.fns[i];

		if (f->present && f->bus == bus && f->dev == dev && (f->any_fn || f->fn == fn))
			return f;
	}
	return NULL;
}

uint16_t fake_pci_command(const struct fake_pci_fn *f)
{
	return (uint16_t)fake_pci_cfg_rd32(f->cfg, PCI_COMMAND);
}

bool fake_pci_mapped(uint64_t pa)
{
	for (unsigned int i = 0; i < fake_pci.nmaps && i < FAKE_PCI_MAX_MAPS; i++)
		if (fake_pci.maps[i].pa == pa)
			return true;
	return false;
}

/* ------------------------------------------------------- configuration space */

static bool fake_pci_is_bar(uint16_t off, unsigned int *i)
{
	if (off < PCI_BAR0 || off >= PCI_BAR0 + 4 * PCI_NUM_BARS)
		return false;
	*i = (off - PCI_BAR0) / 4u;
	return true;
}

static uint32_t fake_pci_read32(void *ctx, uint8_t bus, uint8_t dev, uint8_t fn, uint16_t off)
{
	struct fake_pci_fn *f = fake_pci_find(bus, dev, fn);
	unsigned int i;

	(void)ctx;
	fake_pci.cfg_reads++;
	if (!f || off >= 256)
		return 0xffffffffu;
	if (fake_pci_is_bar(off, &i) && f->sizing[i])
		return f->sizing_answer[i][f->sizings[i] > 1];
	return fake_pci_cfg_rd32(f->cfg, off);
}

static void fake_pci_write32(void *ctx, uint8_t bus, uint8_t dev, uint8_t fn, uint16_t off,
			     uint32_t val)
{
	struct fake_pci_fn *f = fake_pci_find(bus, dev, fn);
	unsigned int i;

	(void)ctx;
	if (!f || off >= 256)
		return;
	if (fake_pci_is_bar(off, &i)) {
		f->sizing[i] = val == 0xffffffffu;
		if (f->sizing[i]) {
			if (f->sizings[i] < UINT8_MAX)
				f->sizings[i]++;
		} else {
			fake_pci_cfg_wr32(f->cfg, off, val);
		}
		return;
	}
	if (off == PCI_COMMAND) {
		/* Only the command half is writable here; status is the device's. */
		fake_pci_cfg_wr32(f->cfg, off,
				  (fake_pci_cfg_rd32(f->cfg, off) & 0xffff0000u) | (val & 0xffffu));
		return;
	}
	fake_pci_cfg_wr32(f->cfg, off, val);
}

/* ------------------------------------------------- the platform, link-time */

bool acpi_mcfg(uint64_t rsdp, struct acpi_mcfg_window *out)
{
	(void)rsdp;
	if (!fake_pci.mcfg_present)
		return false;
	*out = fake_pci.mcfg;
	return true;
}

void pci_ecam_ops_init(struct pci_config_ops *ops, uint64_t ecam_base)
{
	fake_pci.ecam_inits++;
	fake_pci.ecam_base_given = ecam_base;
	ops->ctx = NULL;
	ops->read32 = fake_pci_read32;
	ops->write32 = fake_pci_write32;
}

void pci_port_ops_init(struct pci_config_ops *ops)
{
	fake_pci.port_inits++;
	ops->ctx = NULL;
	ops->read32 = fake_pci_read32;
	ops->write32 = fake_pci_write32;
}

/* [@a, @a + @alen) meets [@b, @b + @blen), both ending at 2^64 at the latest. */
static bool fake_pci_overlaps(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
	if (!alen || !blen)
		return false;
	return a <= b ? b - a < alen : a - b < blen;
}

/* The identity map holds RAM write-back and private: mapping device memory
 * over it is "mapped differently", as pt_map_range() says in the kernel. */
int mmu_map_mmio(uint64_t pa, uint64_t len)
{
	unsigned int call = fake_pci.nmaps++;
	int rc = 0;

	if ((fake_pci.fail_map_at && pa == fake_pci.fail_map_at) ||
	    (fake_pci.fail_map_call && call + 1 == fake_pci.fail_map_call)) {
		rc = fake_pci.fail_map_rc;
	} else if (fake_pci.bi) {
		for (unsigned int i = 0; i < fake_pci.bi->nranges; i++) {
			const struct mem_range *r = &fake_pci.bi->ranges[i];

			if (r->kind != MEM_MMIO && r->cacheable &&
			    fake_pci_overlaps(pa, len, r->base, r->size)) {
				rc = PT_ERR_EXIST;
				break;
			}
		}
	}
	if (call < FAKE_PCI_MAX_MAPS)
		fake_pci.maps[call] = (struct fake_pci_map){ pa, len, rc, fake_pci.cfg_reads };
	return rc;
}

bool mmu_range_is_shared(uint64_t va, uint64_t len)
{
	if (!len || (fake_pci.private_map_at && va == fake_pci.private_map_at))
		return false;
	for (unsigned int i = 0; i < fake_pci.nmaps && i < FAKE_PCI_MAX_MAPS; i++) {
		const struct fake_pci_map *m = &fake_pci.maps[i];

		if (!m->rc && va >= m->pa && va - m->pa <= m->len && len <= m->len - (va - m->pa))
			return i + 1 != fake_pci.private_map_call;
	}
	return false;
}
