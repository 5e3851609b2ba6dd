/* SPDX-License-Identifier: MIT */
/*
 * sim_tdvf.h - the part of TDVF (the TD's firmware) the simulated TD plays
 * before the kernel reads the MADT: the Multiprocessor Wakeup structure.
 *
 * What TDVF does, and so what this builds (EDK2 OvmfPkg/TdxDxe/TdxAcpiTable.c,
 * AlterAcpiTable() and RelocateMailbox()): the mailbox is a 4 KiB page of
 * EfiACPIMemoryNVS, followed by the relocated AP loop; the MADT is replaced by
 * a copy of QEMU's with one EFI_ACPI_6_6_MULTIPROCESSOR_WAKEUP_STRUCTURE
 * appended (24 bytes, MailBoxVersion 1, MailBoxAddress, ResetVector; layout in
 * MdePkg/Include/IndustryStandard/Acpi66.h).
 */
#ifndef SLUICE_ARCH_SIM_TDVF_H
#define SLUICE_ARCH_SIM_TDVF_H

#include <stddef.h>
#include <stdint.h>

#include "arch/x86_64/fw/acpi.h"

/* The size of the version-1 wakeup structure TDVF appends. */
#define SIM_TDVF_WAKEUP_LEN 24u

/**
 * sim_tdvf_build_madt() - copy @madt into @out with a version-1 Multiprocessor
 *	Wakeup structure appended, the length and checksum fixed, as TDVF does.
 * @madt: the MADT QEMU built (checksum verified by the caller's lookup).
 * @out: where the new table goes.
 * @cap: bytes at @out.
 * @mailbox: the mailbox's physical address.
 * @reset_vector: the relocated AP loop's address (ResetVector).
 * Return: the new table's length, or 0 if it does not fit in @cap.
 */
size_t sim_tdvf_build_madt(const struct acpi_sdt_header *madt, uint8_t *out, size_t cap,
			   uint64_t mailbox, uint64_t reset_vector);

#endif /* SLUICE_ARCH_SIM_TDVF_H */
