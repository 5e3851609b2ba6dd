/* SPDX-License-Identifier: MIT */
/*
 * sim_tdvf.c - the simulated TD firmware's MADT (see sim_tdvf.h).
 */
#include "arch/x86_64/cc/sim_tdvf.h"

#include <string.h>

#define MADT_TYPE_MP_WAKEUP 0x10
#define SDT_CHECKSUM_OFFSET 9

size_t sim_tdvf_build_madt(const struct acpi_sdt_header *madt, uint8_t *out, size_t cap,
			   uint64_t mailbox, uint64_t reset_vector)
{
	uint32_t len = madt->length, new_len = len + SIM_TDVF_WAKEUP_LEN;
	uint16_t version = 1;
	uint8_t *e = out + len, sum = 0;

	if (new_len > cap || new_len < len)
		return 0;
	memcpy(out, madt, len);
	memset(e, 0, SIM_TDVF_WAKEUP_LEN);
	e[0] = MADT_TYPE_MP_WAKEUP;
	e[1] = SIM_TDVF_WAKEUP_LEN;
	memcpy(e + 2, &version, 2);
	memcpy(e + 8, &mailbox, 8);
	memcpy(e + 16, &reset_vector, 8);
	memcpy(out + 4, &new_len, 4);
	out[SDT_CHECKSUM_OFFSET] = 0;
	for (uint32_t i = 0; i < new_len; i++)
		sum += out[i];
	out[SDT_CHECKSUM_OFFSET] = (uint8_t)(0 - sum);
	return new_len;
}
