/* SPDX-License-Identifier: MIT */
/*
 * boot_info.h - what the UEFI stage hands to the kernel proper.
 *
 * Filled by boot/efi_entry.c before and just after ExitBootServices, in memory
 * the kernel owns; nothing in it points into firmware-owned memory except the
 * ACPI tables, which the firmware leaves in place for the OS.
 */
#ifndef SLUICE_BOOT_BOOT_INFO_H
#define SLUICE_BOOT_BOOT_INFO_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/x86_64/fw/acpi.h"
#include "arch/x86_64/mm/mem_range.h"
#include "arch/x86_64/cc/snp_cc_blob.h"
#include "boot/options.h"

#define BOOT_MAX_RANGES MEM_MAX_RANGES
#define BOOT_PAGETABLE_BYTES (8u << 20)
#define BOOT_STACK_BYTES (1u << 20)

/**
 * struct boot_info - the hand-off from the UEFI stage.
 * @image_base: where the firmware loaded the image.
 * @image_size: its size in bytes.
 * @tsc_entry: TSC at efi_main entry.
 * @tsc_exit_boot_services: TSC right after ExitBootServices succeeded.
 * @ebs_attempts: ExitBootServices calls it took (1 unless the map changed).
 * @acpi_rsdp: physical address of the ACPI RSDP, or 0.
 * @heap: newlib heap.
 * @dma: memory for the DMA layer (2 MiB aligned, multiple of 2 MiB).
 * @pagetables: pool of 4 KiB pages for the kernel's own page tables.
 * @stack: the kernel stack the kernel runs on after ExitBootServices.
 * @trampoline: one 4 KiB page below 640 KiB for the application processors'
 *	real-mode start code (size 0 if the firmware had none to give).
 * @cpus: the processors listed by the ACPI MADT, read before ExitBootServices.
 * @ranges: the memory map, sorted by base, adjacent equal kinds merged.
 * @nranges: entries used in @ranges.
 * @options: the parsed options.
 * @options_text: the option text as read (for the report).
 * @options_source: where the options came from ("sluice.cfg" or "defaults").
 * @cc_at_boot: the confidential-computing mode (enum cc_mode) CPUID showed before
 *	ExitBootServices, while the firmware still handled a TD's #VE.
 * @c_bit_at_boot: the C-bit position CPUID 0x8000001F gave then (SEV guests).
 * @sev_status_at_boot: SEV_STATUS read then (SEV guests), else 0.
 * @unaccepted_bytes: memory the firmware left unaccepted (EfiUnacceptedMemoryType,
 *	UEFI 2.9): the kernel never uses it (mapped as reserved) and reports it.
 * @unaccepted_ranges: the number of such ranges.
 * @cc_blob_found: the EFI configuration table held the SEV-SNP CC blob (looked
 *	for in an SEV-SNP guest and under cc=sim-snp only).
 * @cc_blob_addr: where it was.
 * @cc_blob: a copy of it, taken before ExitBootServices.
 * @cc_cpuid_copied: bytes of the CPUID page it names copied into @cc_cpuid
 *	(0 when its header failed snp_cc_blob_header_ok(): nothing was read).
 * @cc_cpuid: the copy of the SNP CPUID page, in the kernel's own memory.
 * @sim_snp_fw_ghcb: cc=sim-snp only: the page the simulated firmware set aside
 *	as the bootstrap CPU's GHCB (the model registers it before kernel_main
 *	reads the GHCB MSR); 0 otherwise.
 */
struct boot_info {
	uint64_t image_base;
	uint64_t image_size;
	uint64_t tsc_entry;
	uint64_t tsc_exit_boot_services;
	unsigned int ebs_attempts;
	uint64_t acpi_rsdp;
	struct mem_region heap;
	struct mem_region dma;
	struct mem_region pagetables;
	struct mem_region stack;
	struct mem_region trampoline;
	struct acpi_cpus cpus;
	struct mem_range ranges[BOOT_MAX_RANGES];
	unsigned int nranges;
	struct kernel_options options;
	char options_text[OPTIONS_MAX_TEXT];
	const char *options_source;
	int cc_at_boot;
	unsigned int c_bit_at_boot;
	uint64_t sev_status_at_boot;
	uint64_t unaccepted_bytes;
	unsigned int unaccepted_ranges;
	bool cc_blob_found;
	uint64_t cc_blob_addr;
	struct snp_cc_blob cc_blob;
	uint32_t cc_cpuid_copied;
	uint8_t cc_cpuid[SNP_CPUID_PAGE_BYTES];
	uint64_t sim_snp_fw_ghcb;
};

/**
 * kernel_main() - the kernel proper, entered on its own stack after
 * ExitBootServices. Never returns: it exits QEMU with its status.
 * @bi: the hand-off.
 */
__attribute__((noreturn)) void kernel_main(struct boot_info *bi);

#endif /* SLUICE_BOOT_BOOT_INFO_H */
