/* SPDX-License-Identifier: MIT */
/*
 * ghcb.h - the Guest-Hypervisor Communication Block of an AMD SEV-ES/SNP guest:
 * the page layout, its valid bitmap, the GHCB MSR protocol (request and
 * response encodings), the Page State Change descriptor, and one VMGEXIT
 * through the page.
 *
 * Facts used, by source (read for facts; no code copied):
 * - AMD "SEV-ES Guest-Hypervisor Communication Block Standardization",
 *   publication 56421 (the GHCB specification), version 2: "GHCB MSR protocol"
 *   (GHCBData[11:0] = GHCBInfo; registration request 0x012 / response 0x013
 *   with the GFN in GHCBData[63:12]; SNP Page State Change request 0x014 with
 *   the operation in [55:52] and the GFN in [51:12], response 0x015 with the
 *   error code in [63:32]; termination request 0x100 with the reason code set
 *   in [15:12] and the reason code in [23:16]); "GHCB layout" (save area
 *   offsets, valid bitmap at 0x3F0 with one bit per quadword of the save
 *   area, shared buffer at 0x800, protocol version at 0xFFA, usage at 0xFFC);
 *   "Non-Automatic Exit (NAE) events" (exit codes below, SW_EXITINFO1[31:0]:
 *   0 success, 1 exception to inject, 2 error code in SW_EXITINFO2); "SNP Page
 *   State Change" (header cur_entry/end_entry, 253 entries in the shared
 *   buffer, the hypervisor may return before processing every entry);
 * - Linux arch/x86/include/asm/sev-common.h (the same MSR-protocol encodings,
 *   struct psc_hdr / psc_entry bit layout, VMGEXIT_PSC_MAX_ENTRY = 253,
 *   termination reason set 0 codes) and arch/x86/include/asm/svm.h
 *   (struct ghcb_save_area, GHCB_SHARED_BUF_SIZE = 2032, the exit codes);
 * - EDK2 MdePkg/Include/Register/Amd/Ghcb.h and
 *   OvmfPkg/Library/BaseMemEncryptSevLib/X64/SnpPageStateChangeInternal.c.
 */
#ifndef SLUICE_ARCH_GHCB_H
#define SLUICE_ARCH_GHCB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arch/x86_64/cc/tee_insn.h"

/* MSRs (AMD APM vol. 2, "SEV_STATUS MSR"; GHCB spec "GHCB MSR"). */
#define MSR_SEV_ES_GHCB 0xC0010130u
#define MSR_SEV_STATUS 0xC0010131u

/* ------------------------------------------------------------ MSR protocol */

#define GHCB_MSR_INFO_MASK UINT64_C(0xfff)
#define GHCB_MSR_INFO(v) ((v)&GHCB_MSR_INFO_MASK)
#define GHCB_MSR_REG_GPA_REQ UINT64_C(0x012)
#define GHCB_MSR_REG_GPA_RESP UINT64_C(0x013)
#define GHCB_MSR_PSC_REQ UINT64_C(0x014)
#define GHCB_MSR_PSC_RESP UINT64_C(0x015)
#define GHCB_MSR_TERM_REQ UINT64_C(0x100)
/* CPUID: request 0x004 with the function in [63:32] and the register (0 EAX,
 * 1 EBX, 2 ECX, 3 EDX) in [31:30]; response 0x005 with the value in [63:32].
 * Sub-leaf 0 only (GHCB spec "CPUID Request"; Linux GHCB_CPUID_REQ(),
 * __sev_cpuid_hv(); KVM sev_handle_vmgexit_msr_protocol()). */
#define GHCB_MSR_CPUID_REQ UINT64_C(0x004)
#define GHCB_MSR_CPUID_RESP UINT64_C(0x005)
/* SEV information (protocol version negotiation): request 0x002, response
 * 0x001 with the hypervisor's maximum version in [63:48], its minimum in
 * [47:32] and the C-bit position in [31:24]; hypervisor features: request
 * 0x080, response 0x081 with the feature bitmap in [63:12] (GHCB spec "SEV
 * Information", "Hypervisor Feature Support"; Linux sev-common.h). */
#define GHCB_MSR_SEV_INFO_RESP UINT64_C(0x001)
#define GHCB_MSR_SEV_INFO_REQ UINT64_C(0x002)
#define GHCB_MSR_HV_FT_REQ UINT64_C(0x080)
#define GHCB_MSR_HV_FT_RESP UINT64_C(0x081)
#define GHCB_HV_FT_SNP (UINT64_C(1) << 0)
#define GHCB_HV_FT_SNP_AP_CREATION (UINT64_C(1) << 1)

/* Page State Change operations (GHCB spec, PSC entry / MSR request [55:52]). */
#define SNP_PSC_OP_PRIVATE 1
#define SNP_PSC_OP_SHARED 2

/* Termination reason code set 0 ("general"), GHCB spec "Termination Request". */
#define GHCB_TERM_SET_GENERAL 0
#define GHCB_TERM_GENERAL 0
#define GHCB_TERM_PROTOCOL_UNSUPPORTED 1
#define GHCB_TERM_SNP_UNSUPPORTED 2
/* Reason code set 1 is the guest's own; Sluice's codes there. */
#define GHCB_TERM_SET_SLUICE 1
#define GHCB_TERM_SLUICE_REGISTER 0 /* GHCB registration failed */
#define GHCB_TERM_SLUICE_PSC 1	    /* a page state change failed */
#define GHCB_TERM_SLUICE_PVALIDATE 2
#define GHCB_TERM_SLUICE_FATAL 3 /* pvio_fatal(): the kernel stopped */
/* 4..9 at boot: snp_boot.h. */
#define GHCB_TERM_SLUICE_CPUID 10    /* a CPUID page entry missing or inconsistent */
#define GHCB_TERM_SLUICE_CPUID_HV 11 /* the hypervisor's CPUID (MSR protocol) failed */

#define GHCB_GFN_MASK ((UINT64_C(1) << 40) - 1) /* GFN in GHCBData[51:12] */

/**
 * ghcb_msr_reg_req() - the GHCB GPA registration request for the page at GFN
 *	@gfn: GHCBData[63:12] = GFN, [11:0] = 0x012.
 * @gfn: guest frame number of the GHCB page.
 * Return: the MSR value.
 */
static inline uint64_t ghcb_msr_reg_req(uint64_t gfn)
{
	return ((gfn & ((UINT64_C(1) << 52) - 1)) << 12) | GHCB_MSR_REG_GPA_REQ;
}

/**
 * ghcb_msr_reg_resp_ok() - whether @v is a registration response that
 *	accepted @gfn (GHCBInfo 0x013 and the same GFN in [63:12]; a hypervisor
 *	refusing answers with all ones there).
 * @v: the MSR value after the VMGEXIT.
 * @gfn: what was asked.
 */
static inline bool ghcb_msr_reg_resp_ok(uint64_t v, uint64_t gfn)
{
	return GHCB_MSR_INFO(v) == GHCB_MSR_REG_GPA_RESP && (v >> 12) == gfn;
}

/**
 * ghcb_msr_psc_req() - the MSR-protocol Page State Change request for one
 *	4 KiB page.
 * @gfn: its guest frame number (40 bits).
 * @op: SNP_PSC_OP_PRIVATE or SNP_PSC_OP_SHARED.
 * Return: the MSR value.
 */
static inline uint64_t ghcb_msr_psc_req(uint64_t gfn, unsigned int op)
{
	return ((uint64_t)(op & 0xf) << 52) | ((gfn & GHCB_GFN_MASK) << 12) | GHCB_MSR_PSC_REQ;
}

/**
 * ghcb_msr_psc_resp_error() - the error of a Page State Change response.
 * @v: the MSR value after the VMGEXIT.
 * Return: 0 for success; GHCBData[63:32] (non-zero) for a refusal;
 *	UINT64_MAX if @v is no PSC response at all.
 */
static inline uint64_t ghcb_msr_psc_resp_error(uint64_t v)
{
	if (GHCB_MSR_INFO(v) != GHCB_MSR_PSC_RESP)
		return UINT64_MAX;
	return v >> 32;
}

/**
 * ghcb_msr_cpuid_req() - the MSR-protocol CPUID request for one register of
 *	a leaf's sub-leaf 0.
 * @leaf: the function (EAX).
 * @reg: 0 EAX, 1 EBX, 2 ECX, 3 EDX.
 * Return: the MSR value.
 */
static inline uint64_t ghcb_msr_cpuid_req(uint32_t leaf, unsigned int reg)
{
	return ((uint64_t)leaf << 32) | ((uint64_t)(reg & 3) << 30) | GHCB_MSR_CPUID_REQ;
}

/**
 * ghcb_msr_term_req() - the termination request.
 * @set: reason code set (GHCBData[15:12]).
 * @code: reason code (GHCBData[23:16]).
 * Return: the MSR value.
 */
static inline uint64_t ghcb_msr_term_req(unsigned int set, unsigned int code)
{
	return ((uint64_t)(code & 0xff) << 16) | ((uint64_t)(set & 0xf) << 12) | GHCB_MSR_TERM_REQ;
}

/* ------------------------------------------------------------ the page */

#define GHCB_SHARED_BUF_SIZE 2032
#define GHCB_PROTOCOL_VERSION 2 /* the version that defines the SNP events */
#define GHCB_USAGE_STANDARD 0

/**
 * struct ghcb - the GHCB page (4 KiB, shared with the hypervisor). Only the
 *	save-area fields this kernel uses are named; the rest is reserved space
 *	whose offsets are kept by the padding and checked below.
 * @cpl: current privilege level (0x0CB).
 * @xss: IA32_XSS (0x140), for CPUID leaf 0xD.
 * @rax: RAX (0x1F8).
 * @rcx: RCX (0x308).
 * @rdx: RDX (0x310).
 * @rbx: RBX (0x318).
 * @sw_exit_code: the NAE event (0x390).
 * @sw_exit_info_1: its first parameter; on return, [31:0] is the status (0x398).
 * @sw_exit_info_2: its second parameter; on return, the error (0x3A0).
 * @sw_scratch: GPA of a buffer, inside @shared_buffer here (0x3A8).
 * @xcr0: XCR0 (0x3E8).
 * @valid_bitmap: bit n says the quadword at offset 8 * n is valid (0x3F0).
 * @x87_state_gpa: (0x400).
 * @shared_buffer: data too large for the save area (0x800).
 * @protocol_version: the GHCB protocol version in use (0xFFA).
 * @ghcb_usage: 0: the standard layout (0xFFC).
 */
struct ghcb {
	uint8_t rsvd_000[0x0cb];
	uint8_t cpl;
	uint8_t rsvd_0cc[0x140 - 0x0cc];
	uint64_t xss;
	uint8_t rsvd_148[0x1f8 - 0x148];
	uint64_t rax;
	uint8_t rsvd_200[0x308 - 0x200];
	uint64_t rcx;
	uint64_t rdx;
	uint64_t rbx;
	uint8_t rsvd_320[0x390 - 0x320];
	uint64_t sw_exit_code;
	uint64_t sw_exit_info_1;
	uint64_t sw_exit_info_2;
	uint64_t sw_scratch;
	uint8_t rsvd_3b0[0x3e8 - 0x3b0];
	uint64_t xcr0;
	uint8_t valid_bitmap[16];
	uint64_t x87_state_gpa;
	uint8_t rsvd_408[0x800 - 0x408];
	uint8_t shared_buffer[GHCB_SHARED_BUF_SIZE];
	uint8_t rsvd_ff0[10];
	uint16_t protocol_version;
	uint32_t ghcb_usage;
} __attribute__((packed, aligned(4096)));

/* Offsets from the GHCB specification's layout table (and Linux svm.h). */
_Static_assert(offsetof(struct ghcb, cpl) == 0x0cb, "GHCB CPL");
_Static_assert(offsetof(struct ghcb, xss) == 0x140, "GHCB XSS");
_Static_assert(offsetof(struct ghcb, rax) == 0x1f8, "GHCB RAX");
_Static_assert(offsetof(struct ghcb, rcx) == 0x308, "GHCB RCX");
_Static_assert(offsetof(struct ghcb, rdx) == 0x310, "GHCB RDX");
_Static_assert(offsetof(struct ghcb, rbx) == 0x318, "GHCB RBX");
_Static_assert(offsetof(struct ghcb, sw_exit_code) == 0x390, "GHCB SW_EXITCODE");
_Static_assert(offsetof(struct ghcb, sw_exit_info_1) == 0x398, "GHCB SW_EXITINFO1");
_Static_assert(offsetof(struct ghcb, sw_exit_info_2) == 0x3a0, "GHCB SW_EXITINFO2");
_Static_assert(offsetof(struct ghcb, sw_scratch) == 0x3a8, "GHCB SW_SCRATCH");
_Static_assert(offsetof(struct ghcb, xcr0) == 0x3e8, "GHCB XCR0");
_Static_assert(offsetof(struct ghcb, valid_bitmap) == 0x3f0, "GHCB valid bitmap");
_Static_assert(offsetof(struct ghcb, x87_state_gpa) == 0x400, "GHCB x87 state GPA");
_Static_assert(offsetof(struct ghcb, shared_buffer) == 0x800, "GHCB shared buffer");
_Static_assert(offsetof(struct ghcb, protocol_version) == 0xffa, "GHCB protocol version");
_Static_assert(offsetof(struct ghcb, ghcb_usage) == 0xffc, "GHCB usage");
_Static_assert(sizeof(struct ghcb) == 4096, "the GHCB is one page");

/* NAE events: SW_EXITCODE values (GHCB spec "NAE events"; Linux svm.h). */
#define SVM_EXIT_CPUID UINT64_C(0x72)
#define SVM_EXIT_RDTSC UINT64_C(0x6e)
#define SVM_EXIT_HLT UINT64_C(0x78) /* not a NAE event: KVM refuses it (snp_model.h R9) */
#define SVM_EXIT_IOIO UINT64_C(0x7b)
#define SVM_EXIT_MSR UINT64_C(0x7c)
#define SVM_VMGEXIT_MMIO_READ UINT64_C(0x80000001)
#define SVM_VMGEXIT_MMIO_WRITE UINT64_C(0x80000002)
#define SVM_VMGEXIT_PSC UINT64_C(0x80000010)
#define SVM_VMGEXIT_AP_CREATION UINT64_C(0x80000013)
/* AP Creation: SW_EXITINFO1[15:0] (GHCB spec; Linux SVM_VMGEXIT_AP_CREATE). */
#define SNP_AP_CREATE_ON_INIT 0
#define SNP_AP_CREATE 1
#define SNP_AP_DESTROY 2

/* SW_EXITINFO1[31:0] on return. */
#define GHCB_RESULT_OK 0
#define GHCB_RESULT_EXCEPTION 1
#define GHCB_RESULT_ERROR 2
/* SW_EXITINFO2 with GHCB_RESULT_ERROR (GHCB spec; Linux sev-common.h). */
#define GHCB_ERR_NOT_REGISTERED 1
#define GHCB_ERR_INVALID_USAGE 2
#define GHCB_ERR_INVALID_SCRATCH_AREA 3
#define GHCB_ERR_MISSING_INPUT 4
#define GHCB_ERR_INVALID_INPUT 5
#define GHCB_ERR_INVALID_EVENT 6

/* Offsets of the fields, for the valid bitmap. */
#define GHCB_OFF(field) offsetof(struct ghcb, field)

/**
 * ghcb_set_valid() - mark the save-area quadword at @off valid.
 * @g: the GHCB.
 * @off: byte offset of the field (GHCB_OFF(...)), below 0x400.
 */
static inline void ghcb_set_valid(struct ghcb *g, size_t off)
{
	size_t bit = off / 8;

	g->valid_bitmap[bit / 8] |= (uint8_t)(1u << (bit % 8));
}

/**
 * ghcb_is_valid() - whether the quadword at @off is marked valid.
 * @g: the GHCB.
 * @off: byte offset of the field.
 */
static inline bool ghcb_is_valid(const struct ghcb *g, size_t off)
{
	size_t bit = off / 8;

	return (g->valid_bitmap[bit / 8] >> (bit % 8)) & 1;
}

/* Set a save-area field and mark it valid, in one step so none is forgotten. */
#define GHCB_SET(g, field, v)                         \
	do {                                          \
		(g)->field = (v);                     \
		ghcb_set_valid((g), GHCB_OFF(field)); \
	} while (0)

/**
 * ghcb_invalidate() - start a new request: clear the valid bitmap and the
 *	exit fields, so nothing from the last request (or the hypervisor's last
 *	answer) is taken as input of this one.
 * @g: the GHCB.
 */
void ghcb_invalidate(struct ghcb *g);

/* ------------------------------------------------------------ Page State Change */

#define SNP_PSC_MAX_ENTRIES 253 /* what fits in the shared buffer */

/**
 * struct snp_psc_hdr - header of the Page State Change descriptor.
 * @cur_entry: first entry still to process; the hypervisor advances it.
 * @end_entry: last entry (inclusive).
 * @reserved: must stay zero.
 */
struct snp_psc_hdr {
	uint16_t cur_entry;
	uint16_t end_entry;
	uint32_t reserved;
} __attribute__((packed));

/**
 * struct snp_psc_desc - the descriptor in the GHCB shared buffer.
 * @hdr: the header.
 * @entries: [11:0] cur_page (4 KiB pages of a 2 MiB entry done so far),
 *	[51:12] GFN, [55:52] operation (SNP_PSC_OP_*), [56] page size (1: 2 MiB),
 *	[63:57] reserved.
 */
struct snp_psc_desc {
	struct snp_psc_hdr hdr;
	uint64_t entries[SNP_PSC_MAX_ENTRIES];
} __attribute__((packed));

_Static_assert(sizeof(struct snp_psc_desc) == GHCB_SHARED_BUF_SIZE,
	       "253 PSC entries and the header fill the shared buffer");

#define SNP_PSC_ENTRY_2M (UINT64_C(1) << 56)

/**
 * snp_psc_entry() - encode one PSC entry.
 * @gfn: guest frame number.
 * @op: SNP_PSC_OP_*.
 * @size_2m: a 2 MiB entry (@gfn 512-aligned).
 * Return: the entry.
 */
static inline uint64_t snp_psc_entry(uint64_t gfn, unsigned int op, bool size_2m)
{
	return ((gfn & GHCB_GFN_MASK) << 12) | ((uint64_t)(op & 0xf) << 52) |
	       (size_2m ? SNP_PSC_ENTRY_2M : 0);
}

static inline uint64_t snp_psc_entry_gfn(uint64_t e)
{
	return (e >> 12) & GHCB_GFN_MASK;
}

static inline unsigned int snp_psc_entry_op(uint64_t e)
{
	return (unsigned int)((e >> 52) & 0xf);
}

static inline bool snp_psc_entry_2m(uint64_t e)
{
	return (e & SNP_PSC_ENTRY_2M) != 0;
}

#define SNP_PSC_CUR_PAGE_MASK UINT64_C(0xfff)

static inline unsigned int snp_psc_entry_cur_page(uint64_t e)
{
	return (unsigned int)(e & SNP_PSC_CUR_PAGE_MASK);
}

/* ------------------------------------------------------------ calls */

/**
 * ghcb_msr_call() - one MSR-protocol exchange: write @req to the GHCB MSR,
 *	VMGEXIT, read the answer back.
 * @insn: the TEE instructions.
 * @req: the request.
 * Return: the GHCB MSR after the exit (the response).
 */
uint64_t ghcb_msr_call(const struct tee_insn_ops *insn, uint64_t req);

/**
 * ghcb_msr_cpuid() - one register of the hypervisor's CPUID leaf @leaf
 *	(sub-leaf 0) through the MSR protocol (Linux __sev_cpuid_hv()): needs no
 *	GHCB page.
 * @insn: the instructions.
 * @leaf: the function.
 * @reg: 0 EAX, 1 EBX, 2 ECX, 3 EDX.
 * @out: the value.
 * Return: 0, or -5 if the answer is not a CPUID response (as Linux, which
 *	then terminates with GHCB_TERM_CPUID_HV).
 */
int ghcb_msr_cpuid(const struct tee_insn_ops *insn, uint32_t leaf, unsigned int reg, uint32_t *out);

/**
 * ghcb_register() - register the GHCB page at @gpa with the hypervisor (MSR
 *	protocol 0x012/0x013). Required by SNP before the page is used (GHCB
 *	spec, "GHCB GPA Registration"); the page must already be shared.
 * @insn: the TEE instructions.
 * @gpa: the page's guest physical address (4 KiB aligned).
 * Return: 0, or -5 (EIO) if the hypervisor did not confirm this GFN.
 */
int ghcb_register(const struct tee_insn_ops *insn, uint64_t gpa);

/**
 * ghcb_call() - one NAE event through the GHCB page: the caller has
 *	invalidated the page (ghcb_invalidate()) and set its inputs; this sets
 *	the protocol version, usage, exit code and information, points the GHCB
 *	MSR at the page (the MSR protocol may have been used since) and exits.
 * @insn: the TEE instructions.
 * @g: the page (the guest's mapping of it, shared).
 * @gpa: its guest physical address, as registered.
 * @exit_code: SW_EXITCODE.
 * @info1: SW_EXITINFO1.
 * @info2: SW_EXITINFO2.
 * Return: 0 when SW_EXITINFO1[31:0] says success; GHCB_RESULT_EXCEPTION or
 *	GHCB_RESULT_ERROR (the details in SW_EXITINFO2), or any other value the
 *	hypervisor put there (treated as an error by every caller).
 */
uint32_t ghcb_call(const struct tee_insn_ops *insn, struct ghcb *g, uint64_t gpa,
		   uint64_t exit_code, uint64_t info1, uint64_t info2);

#endif /* SLUICE_ARCH_GHCB_H */
