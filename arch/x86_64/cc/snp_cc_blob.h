/* SPDX-License-Identifier: MIT */
/*
 * snp_cc_blob.h - the layout of the SEV-SNP confidential-computing blob the
 * firmware puts in the EFI configuration table (EDK2
 * MdePkg/Include/Guid/ConfidentialComputingSevSnpBlob.h,
 * CONFIDENTIAL_COMPUTING_SNP_BLOB_LOCATION; Linux arch/x86/include/asm/sev.h,
 * struct cc_blob_sev_info). Its own header so that boot/boot_info.h can hold a
 * copy; the checks are in snp_boot.h.
 */
#ifndef SLUICE_ARCH_SNP_CC_BLOB_H
#define SLUICE_ARCH_SNP_CC_BLOB_H

#include <stdint.h>

/* The EFI configuration table's GUID of the blob, 067b1f5f-cf26-44c5-8554-93d777912d42
 * (EFI_GUID field order: Data1, Data2, Data3, Data4[8]). */
#define SNP_CC_BLOB_GUID_INIT                                          \
	{                                                              \
		0x067b1f5f, 0xcf26, 0x44c5,                            \
		{                                                      \
			0x85, 0x54, 0x93, 0xd7, 0x77, 0x91, 0x2d, 0x42 \
		}                                                      \
	}
#define SNP_CC_BLOB_MAGIC UINT32_C(0x45444d41) /* "AMDE" */
#define SNP_CC_BLOB_VERSION 1
/* What the UEFI stage copies of the CPUID page (one page, as the firmware's). */
#define SNP_CPUID_PAGE_BYTES 4096u

/**
 * struct snp_cc_blob - the confidential-computing blob.
 * @magic: SNP_CC_BLOB_MAGIC.
 * @version: SNP_CC_BLOB_VERSION.
 * @reserved: zero.
 * @secrets_phys: GPA of the SNP secrets page.
 * @secrets_len: its length in bytes.
 * @rsvd1: zero.
 * @cpuid_phys: GPA of the SNP CPUID page.
 * @cpuid_len: its length in bytes.
 * @rsvd2: zero.
 */
struct snp_cc_blob {
	uint32_t magic;
	uint16_t version;
	uint16_t reserved;
	uint64_t secrets_phys;
	uint32_t secrets_len;
	uint32_t rsvd1;
	uint64_t cpuid_phys;
	uint32_t cpuid_len;
	uint32_t rsvd2;
} __attribute__((packed));

_Static_assert(sizeof(struct snp_cc_blob) == 40, "the CC blob is 40 bytes");

#endif /* SLUICE_ARCH_SNP_CC_BLOB_H */
