/* SPDX-License-Identifier: MIT */
/*
 * pvio_snp.h - the paravirtual I/O backend of an SEV-SNP guest: every operation
 * that would raise #VC is asked of the hypervisor through the GHCB page
 * (arch/x86_64/cc/ghcb.h) as the NAE event the GHCB specification (56421) names:
 * IOIO (0x7B), MMIO read/write (0x80000001/2, data in the shared buffer), MSR
 * (0x7C), HLT (0x78); the end of the guest is a termination request of the MSR
 * protocol (0x100). CPUID is not asked of the hypervisor at all: it is answered
 * from the SNP CPUID page, which the firmware (the AMD secure processor) has
 * checked against the hardware's real values (SEV-SNP firmware ABI, 56860,
 * "CPUID Reporting"; Linux arch/x86/coco/sev/ snp_cpuid()).
 */
#ifndef SLUICE_ARCH_PVIO_SNP_H
#define SLUICE_ARCH_PVIO_SNP_H

#include "arch/x86_64/cc/pvio.h"
#include "arch/x86_64/cc/snp.h"

#define SNP_CPUID_COUNT_MAX 64

/**
 * struct snp_cpuid_fn - one entry of the SNP CPUID page.
 * @eax_in: the leaf.
 * @ecx_in: the sub-leaf (meaningful for indexed leaves only).
 * @xcr0_in: XCR0 the entry was computed for (leaf 0xD).
 * @xss_in: IA32_XSS likewise.
 * @eax: result, and @ebx, @ecx, @edx.
 * @reserved: zero.
 */
struct snp_cpuid_fn {
	uint32_t eax_in, ecx_in;
	uint64_t xcr0_in, xss_in;
	uint32_t eax, ebx, ecx, edx;
	uint64_t reserved;
} __attribute__((packed));

/**
 * struct snp_cpuid_page - the SNP CPUID page (Linux struct snp_cpuid_table in
 *	arch/x86/include/asm/sev.h; EDK2 SEV_SNP_CPUID_INFO), found through the CC
 *	blob in the EFI configuration table.
 * @count: valid entries in @fn (at most SNP_CPUID_COUNT_MAX).
 * @reserved1: zero, and @reserved2.
 * @fn: the entries.
 */
struct snp_cpuid_page {
	uint32_t count;
	uint32_t reserved1;
	uint64_t reserved2;
	struct snp_cpuid_fn fn[SNP_CPUID_COUNT_MAX];
} __attribute__((packed));

_Static_assert(sizeof(struct snp_cpuid_fn) == 48, "CPUID page entry");
_Static_assert(sizeof(struct snp_cpuid_page) == 16 + 64 * 48, "CPUID page fits in a page");

/**
 * struct pvio_snp - the backend's state.
 * @ops: the ops table to pvio_select().
 * @snp: the guest (its registered GHCB carries every exit).
 * @cpuid: the SNP CPUID page (from the CC blob), or NULL: every leaf misses.
 * @errors: exits the hypervisor failed, or a missing GHCB (a read then returns
 *	all ones, as a port or register nobody answers does).
 * @cpuid_misses: leaves not in the CPUID page (answered with zeros).
 * @native: the instructions that are automatic exits or no exit at all (HLT,
 *	the GHCB MSR): &pvio_native, a recording double in host tests.
 * @read_cr4: this CPU's CR4, for pvio_snp_cpuid_postprocess() (the native
 *	read; a double in host tests, which run in user mode).
 * @read_xcr0: this CPU's XCR0 (XGETBV), asked only with CR4.OSXSAVE set.
 * @read_xss: this CPU's IA32_XSS, asked only for leaf 0xD.1 with XSAVES.
 * @cpuid_refused: CPUIDs the post-processing refused (the guest was told to
 *	terminate).
 * @cpuid_hv_requests: MSR-protocol CPUID requests of the post-processing.
 * @no_ghcb: requests that needed a GHCB while this CPU had none registered
 *	(refused, and counted in @errors too): at boot, before the kernel's
 *	first GHCB exists, none is expected (cc_snp.c reports the count).
 */
struct pvio_snp {
	struct pvio_ops ops;
	struct snp *snp;
	const struct snp_cpuid_page *cpuid;
	unsigned long errors, cpuid_misses;
	const struct pvio_ops *native;
	uint64_t (*read_cr4)(void);
	uint64_t (*read_xcr0)(void);
	uint64_t (*read_xss)(void);
	unsigned long cpuid_refused, cpuid_hv_requests;
	unsigned long no_ghcb;
};

/**
 * struct snp_cpuid_cpu - what the CPUID post-processing reads of the running
 *	CPU, and asks of the hypervisor.
 * @cr4: its CR4 (OSXSAVE, PKE).
 * @read_xcr0: its XCR0; called only with CR4.OSXSAVE set.
 * @read_xss: its IA32_XSS; called only for leaf 0xD.1 when XSAVES is there.
 * @hv_cpuid: one register (0 EAX .. 3 EDX) of the hypervisor's leaf, sub-leaf
 *	0, for the running vCPU (the MSR protocol, ghcb_msr_cpuid()); 0 or an
 *	error.
 * @ctx: handed to each.
 */
struct snp_cpuid_cpu {
	uint64_t cr4;
	uint64_t (*read_xcr0)(void *ctx);
	uint64_t (*read_xss)(void *ctx);
	int (*hv_cpuid)(void *ctx, uint32_t leaf, unsigned int reg, uint32_t *out);
	void *ctx;
};

/**
 * pvio_snp_init() - fill @p for the guest @s.
 * @p: caller storage (lives as long as the kernel).
 * @s: an initialised guest with a registered GHCB (snp_ghcb_setup()).
 * @cpuid: the SNP CPUID page, or NULL.
 */
void pvio_snp_init(struct pvio_snp *p, struct snp *s, const struct snp_cpuid_page *cpuid);

/**
 * pvio_snp_cpuid_postprocess() - what the CPUID page cannot hold, for the
 *	running CPU, as Linux snp_cpuid_postprocess() (torvalds/linux
 *	arch/x86/kernel/sev-shared.c; arch/x86/boot/startup/sev-shared.c in
 *	later trees): leaf 0x1 the initial APIC ID (EBX[31:24]) and APIC-enabled
 *	bit (EDX[9]) from the hypervisor, OSXSAVE (ECX[27]) from CR4; leaf 0x7
 *	OSPKE (ECX[4], sub-leaf 0) from CR4; leaf 0xB the x2APIC ID (EDX) from
 *	the hypervisor; leaf 0xD sub-leaves 0/1 the XSAVE size (EBX) recomputed
 *	from the page's component entries for this CPU's XCR0 (and IA32_XSS for
 *	sub-leaf 1, compacted); leaf 0x8000001E the extended APIC ID (EAX) and
 *	the compute-unit and node IDs (EBX[7:0], ECX[7:0]) from the hypervisor.
 *	The hypervisor is asked through the MSR protocol (sub-leaf 0), as Linux
 *	does before it has a GHCB; leaves 0x4 and 0x8000001D are taken from the
 *	page as they are, as in Linux.
 * @page: the CPUID page (for leaf 0xD's component entries).
 * @leaf: EAX.
 * @sub: ECX.
 * @cpu: the running CPU.
 * @r: the page's answer (or zeros), changed in place.
 * Return: 0, or the reason code to terminate with (set GHCB_TERM_SET_SLUICE):
 *	GHCB_TERM_SLUICE_CPUID when the page cannot give leaf 0xD for this
 *	CPU's features (a component entry missing, sizes that overflow, a
 *	sub-leaf 1 without XSAVEC/XSAVES), GHCB_TERM_SLUICE_CPUID_HV when the
 *	hypervisor does not answer.
 */
int pvio_snp_cpuid_postprocess(const struct snp_cpuid_page *page, uint32_t leaf, uint32_t sub,
			       const struct snp_cpuid_cpu *cpu, uint32_t r[4]);

/**
 * pvio_snp_cpuid() - CPUID in an SNP guest, as Linux snp_cpuid(): the page's
 *	entry post-processed; a leaf not in the page is zeros, post-processed
 *	only inside a range the page declares (its leaves 0, 0x40000000 and
 *	0x80000000 give the tops).
 * @page: the CPUID page, or NULL (every leaf zeros).
 * @leaf: EAX.
 * @sub: ECX.
 * @cpu: the running CPU.
 * @r: EAX..EDX out.
 * @missed: set when the page has no entry for the leaf.
 * Return: as pvio_snp_cpuid_postprocess().
 */
int pvio_snp_cpuid(const struct snp_cpuid_page *page, uint32_t leaf, uint32_t sub,
		   const struct snp_cpuid_cpu *cpu, uint32_t r[4], bool *missed);

/**
 * pvio_snp_cpuid_lookup() - a leaf from the CPUID page, as Linux
 *	snp_cpuid_get_validated_func() (arch/x86/coco/sev/) finds it: ECX is
 *	compared for the indexed leaves of cpuid_function_is_indexed() (and
 *	AMD's 0x80000020/0x80000026); for leaf 0xD sub-leaves 0 and 1 only the
 *	entry computed for the base XSAVE area (xcr0_in 1 or 3, xss_in 0) is used.
 * @page: the page.
 * @leaf: EAX.
 * @sub: ECX, compared only for leaves that take a sub-leaf.
 * @r: EAX..EDX out.
 * Return: true if found; false (and @r zeroed) otherwise.
 */
bool pvio_snp_cpuid_lookup(const struct snp_cpuid_page *page, uint32_t leaf, uint32_t sub,
			   uint32_t r[4]);

#endif /* SLUICE_ARCH_PVIO_SNP_H */
