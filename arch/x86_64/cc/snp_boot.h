/* SPDX-License-Identifier: MIT */
/*
 * snp_boot.h - what an SEV-SNP guest checks of what the firmware hands it,
 * before it relies on any of it: the confidential-computing blob of the EFI
 * configuration table (the SNP CPUID page and the secrets page). (The GHCB
 * the firmware registered for the bootstrap CPU is not checked: it is never
 * used, as in Linux.) Plain C, no I/O: the kernel
 * (kernel/cc_setup.c) and the host tests (tests/arch/test_snp_boot.c) run the same
 * checks.
 *
 * Facts used (read for facts; no code copied):
 * - the blob's layout and GUID: EDK2 MdePkg/Include/Guid/ConfidentialComputingSevSnpBlob.h
 *   (tianocore/edk2; CONFIDENTIAL_COMPUTING_SNP_BLOB_LOCATION, packed, 40 bytes)
 *   and Linux arch/x86/include/asm/sev.h (struct cc_blob_sev_info,
 *   CC_BLOB_SEV_HDR_MAGIC 0x45444d41 "AMDE");
 * - who installs it: EDK2 OvmfPkg/AmdSevDxe/AmdSevDxe.c
 *   (AllocateConfidentialComputingBlob(): version 1, EfiACPIReclaimMemory,
 *   the secrets page and CPUID page at PcdOvmfSnpSecretsBase/PcdOvmfCpuidBase;
 *   InstallConfigurationTable() only in an SNP guest);
 * - how a guest uses it: Linux arch/x86/boot/compressed/sev.c find_cc_blob()
 *   (the EFI configuration table, magic checked, termination otherwise) and
 *   setup_cpuid_table() in arch/x86/kernel/sev-shared.c (a CPUID page shorter
 *   than 4 KiB, or a count of 0 or above SNP_CPUID_COUNT_MAX: terminate);
 */
#ifndef SLUICE_ARCH_SNP_BOOT_H
#define SLUICE_ARCH_SNP_BOOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arch/x86_64/cc/snp_cc_blob.h"

#define SNP_SECRETS_PAGE_BYTES 4096u

/* Sluice's reason codes (set GHCB_TERM_SET_SLUICE) of an end at boot. */
#define GHCB_TERM_SLUICE_OPTION 4 /* cc=emulated, sim-tdx or sim-snp in an SNP guest */
/* 5 is no longer used (it refused a firmware GHCB; that GHCB is never used). */
#define GHCB_TERM_SLUICE_NO_CC_BLOB 6  /* no CC blob in the EFI configuration table */
#define GHCB_TERM_SLUICE_BAD_CC_BLOB 7 /* a CC blob or CPUID page that fails a check */
#define GHCB_TERM_SLUICE_NOT_VMPL0 8   /* running below VMPL0 */
#define GHCB_TERM_SLUICE_GHCB_SETUP 9  /* our own GHCB pages could not be made shared */

/**
 * snp_cc_blob_header_ok() - the checks of the blob alone: magic, version, the
 *	secrets and CPUID pages' addresses (4 KiB aligned, non-zero, no
 *	wrap-around) and lengths (at least a page each, at most 1 MiB). The
 *	UEFI stage runs it before it reads the CPUID page the blob names.
 * @b: the blob as read.
 * @why: on failure, the reason (may be NULL).
 * @why_len: its size.
 * Return: true if the header passes.
 */
bool snp_cc_blob_header_ok(const struct snp_cc_blob *b, char *why, size_t why_len);

/**
 * snp_cc_blob_check() - the whole check of what the UEFI stage recorded: the
 *	blob was found, its header passes, and the CPUID page copied from it has
 *	a count of at least 1 and at most SNP_CPUID_COUNT_MAX whose entries fit
 *	in both the blob's @cpuid_len and the bytes copied.
 * @found: the configuration table had the blob.
 * @b: the blob as read.
 * @cpuid: the CPUID page as copied before ExitBootServices.
 * @copied: bytes of it copied (0: not read).
 * @term_code: receives the GHCB_TERM_SLUICE_* reason on failure.
 * @why: on failure, the reason, one line.
 * @why_len: its size.
 * Return: 0, or -1 (refuse to run: terminate with @term_code).
 */
int snp_cc_blob_check(bool found, const struct snp_cc_blob *b, const void *cpuid, size_t copied,
		      unsigned int *term_code, char *why, size_t why_len);

#endif /* SLUICE_ARCH_SNP_BOOT_H */
