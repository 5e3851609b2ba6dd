/* SPDX-License-Identifier: MIT */
/*
 * snp_boot.c - the SEV-SNP guest's checks of what the firmware hands it (see
 * snp_boot.h).
 */
#include "arch/x86_64/cc/snp_boot.h"

#include <stdio.h>
#include <string.h>

#include "arch/x86_64/cc/ghcb.h"
#include "arch/x86_64/cc/pvio_snp.h"
#include "arch/x86_64/mm/mem_range.h"

#define SNP_BOOT_MAX_PAGE_LEN (UINT32_C(1) << 20)

static void say(char *why, size_t why_len, const char *fmt, unsigned long long a,
		unsigned long long b)
{
	if (why && why_len)
		snprintf(why, why_len, fmt, a, b);
}

static bool page_ok(uint64_t phys, uint32_t len)
{
	return phys && !(phys & 0xfff) && len >= 4096 && len <= SNP_BOOT_MAX_PAGE_LEN &&
	       phys + len > phys;
}

bool snp_cc_blob_header_ok(const struct snp_cc_blob *b, char *why, size_t why_len)
{
	if (b->magic != SNP_CC_BLOB_MAGIC) {
		say(why, why_len, "snp: CC blob magic 0x%llx, not 0x%llx (\"AMDE\")", b->magic,
		    SNP_CC_BLOB_MAGIC);
		return false;
	}
	/* The version is not checked: Linux (arch/x86/boot/compressed/sev.c,
	 * find_cc_blob()) checks the magic only, and a later version keeps the
	 * fields read here where they are. */
	if (!page_ok(b->cpuid_phys, b->cpuid_len)) {
		say(why, why_len, "snp: CC blob: CPUID page at 0x%llx, %llu bytes: not a page",
		    b->cpuid_phys, b->cpuid_len);
		return false;
	}
	if (!page_ok(b->secrets_phys, b->secrets_len)) {
		say(why, why_len, "snp: CC blob: secrets page at 0x%llx, %llu bytes: not a page",
		    b->secrets_phys, b->secrets_len);
		return false;
	}
	return true;
}

int snp_cc_blob_check(bool found, const struct snp_cc_blob *b, const void *cpuid, size_t copied,
		      unsigned int *term_code, char *why, size_t why_len)
{
	const struct snp_cpuid_page *p = cpuid;
	size_t room = copied < b->cpuid_len ? copied : b->cpuid_len;
	uint32_t count;

	*term_code = GHCB_TERM_SLUICE_BAD_CC_BLOB;
	if (!found) {
		*term_code = GHCB_TERM_SLUICE_NO_CC_BLOB;
		say(why, why_len,
		    "snp: no CC blob (GUID 067b1f5f-cf26-44c5-8554-93d777912d42) in the EFI "
		    "configuration table: no CPUID page to trust",
		    0, 0);
		return -1;
	}
	if (!snp_cc_blob_header_ok(b, why, why_len))
		return -1;
	if (!cpuid || room < offsetof(struct snp_cpuid_page, fn)) {
		say(why, why_len, "snp: CC blob: the CPUID page was not read (%llu bytes)", room,
		    0);
		return -1;
	}
	memcpy(&count, &p->count, sizeof(count));
	if (!count || count > SNP_CPUID_COUNT_MAX ||
	    offsetof(struct snp_cpuid_page, fn) + (size_t)count * sizeof(struct snp_cpuid_fn) >
		    room) {
		say(why, why_len,
		    "snp: CC blob: CPUID page count %llu outside 1..%llu or past the page", count,
		    SNP_CPUID_COUNT_MAX);
		return -1;
	}
	*term_code = 0;
	return 0;
}
