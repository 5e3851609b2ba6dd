/* SPDX-License-Identifier: MIT */
/*
 * efi_entry.c - the UEFI stage: everything Sluice asks of the firmware, in order.
 *
 * 1. read the options file (sluice.cfg on the boot volume);
 * 2. find the ACPI RSDP in the configuration table;
 * 3. reserve the heap, the DMA region, the page-table pool, the kernel stack and a
 *    page below 1 MiB for starting the other processors; list them from the MADT;
 *    in an SEV-SNP guest (and under cc=sim-snp, whose simulated firmware installs
 *    one first), copy the CC blob of the configuration table and the CPUID page
 *    it names;
 * 4. get the memory map (with headroom) and call ExitBootServices, retrying as the
 *    spec requires when the map changed under us;
 * 5. switch to the kernel stack and enter kernel_main(). The firmware is never
 *    called again.
 * This is the only file that includes GNU-EFI headers.
 */
#include <efi.h>
#include <efilib.h>
#include <string.h>

#include "arch/x86_64/cc/cc_sim_snp.h"
#include "arch/x86_64/cpu/cpu.h"
#include "arch/x86_64/cc/snp_boot.h"
#include "arch/x86_64/cpu/qemu_exit.h"
#include "arch/x86_64/cpu/serial.h"
#include "arch/x86_64/cc/sim_tdvf.h"
#include "boot/boot_info.h"
#include "boot/memmap.h"

#define EFI_PAGE 4096ull
#define TWO_MIB (2ull << 20)
#define LOW_4G 0xFFFFFFFFull
/* Descriptors of headroom: allocating the map buffer itself can split a range. */
#define MAP_HEADROOM_DESCS 32
#define EBS_MAX_ATTEMPTS 8

extern void arch_call_on_stack(void (*fn)(struct boot_info *), struct boot_info *arg,
			       uint64_t stack_top);

static struct boot_info boot_info;
/* The firmware's tables, valid until ExitBootServices. GNU-EFI's libefi is not
 * linked (its memcpy/memset clash with newlib's), so the few helpers it would
 * give are written here against the raw protocols. */
static EFI_SYSTEM_TABLE *efi_st;
static EFI_BOOT_SERVICES *efi_bs;

/* Before ExitBootServices a failure can still be reported and QEMU left cleanly. */
__attribute__((noreturn)) static void boot_fail(const char *what, EFI_STATUS status)
{
	serial_puts("sluice: boot failed: ");
	serial_puts(what);
	serial_puts(" (EFI status ");
	serial_put_hex(status);
	serial_puts(")\n");
	qemu_exit(SLUICE_EXIT_BOOT);
}

/* The root directory of the volume the image was loaded from, or NULL. */
static EFI_FILE_HANDLE boot_open_root(EFI_HANDLE device)
{
	EFI_GUID fs_guid = SIMPLE_FILE_SYSTEM_PROTOCOL;
	EFI_FILE_IO_INTERFACE *fs = NULL;
	EFI_FILE_HANDLE root = NULL;

	if (EFI_ERROR(uefi_call_wrapper(efi_bs->HandleProtocol, 3, device, &fs_guid, (void **)&fs)))
		return NULL;
	if (EFI_ERROR(uefi_call_wrapper(fs->OpenVolume, 2, fs, &root)))
		return NULL;
	return root;
}

/*
 * Options built into the image (make image BUILTIN_OPTIONS="..."): measured
 * with it, so the only source that may weaken a guarantee in a confidential
 * guest (boot/options_trust.c).
 */
#ifndef SLUICE_BUILTIN_OPTIONS
#define SLUICE_BUILTIN_OPTIONS ""
#endif
static struct kernel_options boot_trusted_options;
static uint64_t boot_builtin_set, boot_cfg_set;

static void __attribute__((noreturn)) boot_bad_options(const char *what, const char *err)
{
	serial_puts("sluice: ");
	serial_puts(what);
	serial_puts(err);
	serial_puts("\nsluice: valid options:\n");
	serial_puts(options_usage());
	qemu_exit(SLUICE_EXIT_BAD_OPTION);
}

static void boot_read_options(EFI_HANDLE image, struct boot_info *bi)
{
	EFI_GUID loaded_image_guid = LOADED_IMAGE_PROTOCOL;
	static char text[OPTIONS_MAX_TEXT];
	EFI_LOADED_IMAGE *li = NULL;
	EFI_FILE_HANDLE root, file;
	EFI_STATUS st;
	UINTN len = sizeof(text) - 1;
	char err[512]; /* the unknown-key message lists every option */

	bi->options_source = "defaults";
	st = uefi_call_wrapper(efi_bs->HandleProtocol, 3, image, &loaded_image_guid, (void **)&li);
	if (EFI_ERROR(st))
		boot_fail("no loaded-image protocol", st);
	bi->image_base = (uint64_t)li->ImageBase;
	bi->image_size = li->ImageSize;

	root = boot_open_root(li->DeviceHandle);
	if (root) {
		st = uefi_call_wrapper(root->Open, 5, root, &file, L"sluice.cfg",
				       EFI_FILE_MODE_READ, 0);
		if (!EFI_ERROR(st)) {
			st = uefi_call_wrapper(file->Read, 3, file, &len, text);
			if (EFI_ERROR(st))
				boot_fail("cannot read sluice.cfg", st);
			if (len >= sizeof(text) - 1) {
				serial_puts("sluice: sluice.cfg is too long\n");
				qemu_exit(SLUICE_EXIT_BAD_OPTION);
			}
			text[len] = '\0';
			uefi_call_wrapper(file->Close, 1, file);
			bi->options_source = "sluice.cfg";
		}
		uefi_call_wrapper(root->Close, 1, root);
	}
	memcpy(bi->options_text, text, sizeof(bi->options_text));
	/* The measured options first (built into the image), then the host's file. */
	options_defaults(&boot_trusted_options);
	if (options_parse_over(SLUICE_BUILTIN_OPTIONS, &boot_trusted_options, &boot_builtin_set,
			       err, sizeof(err)))
		boot_bad_options("built-in options: ", err);
	if (SLUICE_BUILTIN_OPTIONS[0])
		bi->options_source = text[0] ? "built-in options and sluice.cfg" :
					       "built-in options";
	bi->options = boot_trusted_options;
	if (options_parse_over(text, &bi->options, &boot_cfg_set, err, sizeof(err)) ||
	    options_validate(&bi->options, err, sizeof(err)))
		boot_bad_options("", err);
}

/*
 * In a confidential guest (a real TD or SEV-SNP guest, or cc=sim-tdx /
 * cc=sim-snp) the host's sluice.cfg may not weaken a guarantee beyond what
 * the measured options chose (boot/options_trust.c): refuse to boot, saying
 * which option and why.
 */
static void boot_check_option_trust(struct boot_info *bi)
{
	const char *guest = bi->cc_at_boot == CC_TDX	     ? "TD" :
			    bi->cc_at_boot == CC_SEV_SNP     ? "SEV-SNP guest" :
			    bi->options.cc == CC_OPT_SIM_TDX ? "sim-tdx" :
			    bi->options.cc == CC_OPT_SIM_SNP ? "sim-snp" :
							       NULL;
	char err[400];

	if (!guest)
		return;
	if (options_trust_check(&boot_trusted_options, &bi->options, boot_builtin_set, boot_cfg_set,
				guest, err, sizeof(err))) {
		serial_puts("sluice: ");
		serial_puts(err);
		serial_puts("\n");
		qemu_exit(SLUICE_EXIT_BAD_OPTION);
	}
}

static uint64_t boot_find_rsdp(void)
{
	EFI_GUID acpi20 = ACPI_20_TABLE_GUID, acpi10 = ACPI_TABLE_GUID;
	uint64_t rsdp10 = 0;

	for (UINTN i = 0; i < efi_st->NumberOfTableEntries; i++) {
		EFI_CONFIGURATION_TABLE *t = &efi_st->ConfigurationTable[i];

		if (!memcmp(&t->VendorGuid, &acpi20, sizeof(acpi20)))
			return (uint64_t)t->VendorTable;
		if (!memcmp(&t->VendorGuid, &acpi10, sizeof(acpi10)))
			rsdp10 = (uint64_t)t->VendorTable;
	}
	return rsdp10;
}

/*
 * The SEV-SNP confidential-computing blob (snp_cc_blob.h): copied, and the
 * CPUID page it names copied too if the blob's header passes (an address the
 * header check refused is never read). In OVMF the blob is EfiACPIReclaimMemory
 * and the CPUID page reserved memory, so both would outlast ExitBootServices;
 * the copies in boot_info are the kernel's own memory all the same, private
 * and validated like the rest of the image. Every check that decides whether
 * the guest runs is the kernel's (snp_cc_blob_check(), kernel/cc_setup.c).
 */
static void boot_find_cc_blob(struct boot_info *bi)
{
	EFI_GUID guid = SNP_CC_BLOB_GUID_INIT;

	for (UINTN i = 0; i < efi_st->NumberOfTableEntries; i++) {
		EFI_CONFIGURATION_TABLE *t = &efi_st->ConfigurationTable[i];
		uint32_t n;

		if (memcmp(&t->VendorGuid, &guid, sizeof(guid)) || !t->VendorTable)
			continue;
		bi->cc_blob_found = true;
		bi->cc_blob_addr = (uint64_t)t->VendorTable;
		memcpy(&bi->cc_blob, t->VendorTable, sizeof(bi->cc_blob));
		if (!snp_cc_blob_header_ok(&bi->cc_blob, NULL, 0))
			return;
		n = bi->cc_blob.cpuid_len < sizeof(bi->cc_cpuid) ? bi->cc_blob.cpuid_len :
								   sizeof(bi->cc_cpuid);
		memcpy(bi->cc_cpuid, (const void *)bi->cc_blob.cpuid_phys, n);
		bi->cc_cpuid_copied = n;
		return;
	}
}

/*
 * cc=sim-snp: this stage plays the part of the guest's firmware (EDK2
 * OvmfPkg/PlatformPei/AmdSev.c and OvmfPkg/AmdSevDxe/AmdSevDxe.c) before the
 * kernel looks: a reserved page for the bootstrap CPU's GHCB (the model makes it
 * shared and registers it at kernel entry, cc_sim_snp_firmware()), a reserved
 * CPUID page and secrets page, and the CC blob naming them in
 * EfiACPIReclaimMemory, installed in the configuration table under its GUID.
 * snp_fault=no_cc_blob installs none, snp_fault=bad_cc_blob one whose CPUID
 * count overflows the page. Only where no real confidential guest was found.
 */
static void boot_sim_snp_firmware(struct boot_info *bi)
{
	EFI_GUID guid = SNP_CC_BLOB_GUID_INIT;
	EFI_PHYSICAL_ADDRESS pages = LOW_4G;
	struct snp_cc_blob *blob = NULL;
	struct snp_cpuid_page *cpuid;
	EFI_STATUS st;

	st = uefi_call_wrapper(efi_bs->AllocatePages, 4, AllocateMaxAddress, EfiReservedMemoryType,
			       3, &pages);
	if (EFI_ERROR(st))
		boot_fail("sim-snp: the firmware's pages", st);
	memset((void *)pages, 0, 3 * EFI_PAGE);
	bi->sim_snp_fw_ghcb = pages;
	cpuid = (struct snp_cpuid_page *)(pages + EFI_PAGE);
	cc_sim_snp_build_cpuid_page(cpuid);
	if (bi->options.snp_fault & (UINT64_C(1) << SNP_FAULT_BAD_CC_BLOB))
		cpuid->count = SNP_CPUID_COUNT_MAX + 1;
	if (bi->options.snp_fault & (UINT64_C(1) << SNP_FAULT_NO_CC_BLOB))
		return;
	st = uefi_call_wrapper(efi_bs->AllocatePool, 3, EfiACPIReclaimMemory, sizeof(*blob),
			       (void **)&blob);
	if (EFI_ERROR(st))
		boot_fail("sim-snp: the CC blob", st);
	*blob = (struct snp_cc_blob){ .magic = SNP_CC_BLOB_MAGIC,
				      .version = SNP_CC_BLOB_VERSION,
				      .secrets_phys = pages + 2 * EFI_PAGE,
				      .secrets_len = EFI_PAGE,
				      .cpuid_phys = pages + EFI_PAGE,
				      .cpuid_len = EFI_PAGE };
	st = uefi_call_wrapper(efi_bs->InstallConfigurationTable, 2, &guid, blob);
	if (EFI_ERROR(st))
		boot_fail("sim-snp: installing the CC blob", st);
}

/*
 * cc=sim-tdx: this stage plays the part of TDVF before the kernel reads the
 * MADT (EDK2 OvmfPkg/TdxDxe/TdxAcpiTable.c): two pages of EfiACPIMemoryNVS,
 * the mailbox (command noop, APIC ID invalid) and the page of the relocated AP
 * loop, and QEMU's MADT with the version-1 Multiprocessor Wakeup structure
 * appended (sim_tdvf_build_madt()), which the CPU list is read from. Only
 * where no real confidential guest was found.
 */
static void boot_sim_td_firmware(struct boot_info *bi)
{
	const struct acpi_sdt_header *madt = acpi_find_table(bi->acpi_rsdp, "APIC");
	EFI_PHYSICAL_ADDRESS pages = LOW_4G;
	struct acpi_wakeup_mailbox *mb;
	uint8_t *table = NULL;
	size_t cap, len;
	EFI_STATUS st;

	if (!madt)
		return; /* no MADT, no CPUs to start: as TDVF, nothing to alter */
	st = uefi_call_wrapper(efi_bs->AllocatePages, 4, AllocateMaxAddress, EfiACPIMemoryNVS, 2,
			       &pages);
	if (EFI_ERROR(st))
		boot_fail("sim-tdx: the mailbox pages", st);
	memset((void *)pages, 0, 2 * EFI_PAGE);
	mb = (struct acpi_wakeup_mailbox *)pages;
	mb->apic_id = 0xffffffffu;
	cap = madt->length + SIM_TDVF_WAKEUP_LEN;
	st = uefi_call_wrapper(efi_bs->AllocatePool, 3, EfiACPIReclaimMemory, cap, (void **)&table);
	if (EFI_ERROR(st))
		boot_fail("sim-tdx: the MADT", st);
	len = sim_tdvf_build_madt(madt, table, cap, pages, pages + EFI_PAGE);
	if (!len || !acpi_madt_parse((const struct acpi_sdt_header *)table, &bi->cpus))
		boot_fail("sim-tdx: building the MADT", EFI_BAD_BUFFER_SIZE);
}

/* Pages of EfiLoaderData below 4 GiB (for devices with 32-bit DMA), aligned to @align. */
static void boot_reserve(struct mem_region *r, uint64_t bytes, uint64_t align, const char *what)
{
	uint64_t pages = bytes / EFI_PAGE, slack = (align - EFI_PAGE) / EFI_PAGE;
	EFI_PHYSICAL_ADDRESS addr = LOW_4G, aligned;
	EFI_STATUS st;

	st = uefi_call_wrapper(efi_bs->AllocatePages, 4, AllocateMaxAddress, EfiLoaderData,
			       pages + slack, &addr);
	if (EFI_ERROR(st))
		boot_fail(what, st);
	aligned = (addr + align - 1) & ~(align - 1);
	/* Give back the slack on either side of the aligned region. */
	if (aligned > addr)
		uefi_call_wrapper(efi_bs->FreePages, 2, addr, (aligned - addr) / EFI_PAGE);
	if (addr + (pages + slack) * EFI_PAGE > aligned + bytes)
		uefi_call_wrapper(efi_bs->FreePages, 2, aligned + bytes,
				  (addr + (pages + slack) * EFI_PAGE - aligned - bytes) / EFI_PAGE);
	r->base = aligned;
	r->size = bytes;
}

/* A start-up IPI can only name a page below 1 MiB; the trampoline lives in one
 * below the legacy video/ROM hole. Without one the kernel runs on one CPU. */
#define TRAMPOLINE_MAX_ADDR 0x9FFFFull

static void boot_reserve_trampoline(struct mem_region *r)
{
	EFI_PHYSICAL_ADDRESS addr = TRAMPOLINE_MAX_ADDR;

	r->base = 0;
	r->size = 0;
	if (EFI_ERROR(uefi_call_wrapper(efi_bs->AllocatePages, 4, AllocateMaxAddress, EfiLoaderData,
					1, &addr)))
		return;
	r->base = addr;
	r->size = EFI_PAGE;
}

/* memmap.h names the UEFI memory types itself (it is built without GNU-EFI). */
_Static_assert(UEFI_MT_RESERVED == EfiReservedMemoryType && UEFI_MT_LOADER_CODE == EfiLoaderCode &&
		       UEFI_MT_LOADER_DATA == EfiLoaderData &&
		       UEFI_MT_BOOT_SERVICES_CODE == EfiBootServicesCode &&
		       UEFI_MT_BOOT_SERVICES_DATA == EfiBootServicesData &&
		       UEFI_MT_RUNTIME_SERVICES_CODE == EfiRuntimeServicesCode &&
		       UEFI_MT_RUNTIME_SERVICES_DATA == EfiRuntimeServicesData &&
		       UEFI_MT_CONVENTIONAL == EfiConventionalMemory &&
		       UEFI_MT_UNUSABLE == EfiUnusableMemory &&
		       UEFI_MT_ACPI_RECLAIM == EfiACPIReclaimMemory &&
		       UEFI_MT_ACPI_NVS == EfiACPIMemoryNVS && UEFI_MT_MMIO == EfiMemoryMappedIO &&
		       UEFI_MT_MMIO_PORT_SPACE == EfiMemoryMappedIOPortSpace &&
		       UEFI_MT_PAL_CODE == EfiPalCode,
	       "boot/memmap.h disagrees with GNU-EFI on EFI_MEMORY_TYPE values");

/* Runs after ExitBootServices: no firmware calls, no allocation. */
static void boot_copy_map(struct boot_info *bi, const uint8_t *map, UINTN map_size, UINTN desc_size)
{
	unsigned int n = 0;

	for (UINTN off = 0; off + desc_size <= map_size && n < BOOT_MAX_RANGES; off += desc_size) {
		const EFI_MEMORY_DESCRIPTOR *d = (const void *)(map + off);
		struct mem_range r = { d->PhysicalStart, d->NumberOfPages * EFI_PAGE,
				       mem_kind_from_efi_type(d->Type),
				       (d->Attribute & EFI_MEMORY_WB) != 0 };
		unsigned int i = n;

		if (!r.size)
			continue;
		if (d->Type == UEFI_MT_UNACCEPTED) {
			bi->unaccepted_bytes += r.size;
			bi->unaccepted_ranges++;
		}
		/* Insertion sort by base: the firmware's map is usually sorted already. */
		while (i > 0 && bi->ranges[i - 1].base > r.base) {
			bi->ranges[i] = bi->ranges[i - 1];
			i--;
		}
		bi->ranges[i] = r;
		n++;
	}
	/* Merge neighbours of one kind so the report and the page-table build stay short. */
	unsigned int out = 0;

	for (unsigned int i = 0; i < n; i++) {
		if (out && bi->ranges[out - 1].kind == bi->ranges[i].kind &&
		    bi->ranges[out - 1].cacheable == bi->ranges[i].cacheable &&
		    bi->ranges[out - 1].base + bi->ranges[out - 1].size == bi->ranges[i].base)
			bi->ranges[out - 1].size += bi->ranges[i].size;
		else
			bi->ranges[out++] = bi->ranges[i];
	}
	bi->nranges = out;
}

static void boot_exit_firmware(EFI_HANDLE image, struct boot_info *bi)
{
	UINTN map_size = 0, buf_size, key, desc_size;
	UINT32 desc_version;
	uint8_t *map = NULL;
	EFI_STATUS st;

	st = uefi_call_wrapper(efi_bs->GetMemoryMap, 5, &map_size, NULL, &key, &desc_size,
			       &desc_version);
	if (st != EFI_BUFFER_TOO_SMALL)
		boot_fail("GetMemoryMap size probe", st);
	buf_size = map_size + MAP_HEADROOM_DESCS * desc_size;
	st = uefi_call_wrapper(efi_bs->AllocatePool, 3, EfiLoaderData, buf_size, (void **)&map);
	if (EFI_ERROR(st))
		boot_fail("allocating the memory-map buffer", st);

	for (unsigned int attempt = 1; attempt <= EBS_MAX_ATTEMPTS; attempt++) {
		map_size = buf_size;
		st = uefi_call_wrapper(efi_bs->GetMemoryMap, 5, &map_size,
				       (EFI_MEMORY_DESCRIPTOR *)map, &key, &desc_size,
				       &desc_version);
		if (EFI_ERROR(st))
			boot_fail("GetMemoryMap", st);
		st = uefi_call_wrapper(efi_bs->ExitBootServices, 2, image, key);
		if (!EFI_ERROR(st)) {
			bi->tsc_exit_boot_services = rdtsc();
			bi->ebs_attempts = attempt;
			boot_copy_map(bi, map, map_size, desc_size);
			return;
		}
		/* EFI_INVALID_PARAMETER: the map changed since GetMemoryMap; only
		 * GetMemoryMap and ExitBootServices may be called now, so retry with
		 * the buffer we have (hence the headroom). */
		if (st != EFI_INVALID_PARAMETER)
			break;
	}
	boot_fail("ExitBootServices", st);
}

EFI_STATUS efi_main(EFI_HANDLE image, EFI_SYSTEM_TABLE *system_table)
{
	struct boot_info *bi = &boot_info;
	uint64_t tsc_entry = rdtsc();

	efi_st = system_table;
	efi_bs = system_table->BootServices;
	serial_init();
	serial_puts("\nsluice: UEFI stage\n");
	bi->tsc_entry = tsc_entry;
	/* The 5-minute watchdog would reset a long run before ExitBootServices. */
	uefi_call_wrapper(efi_bs->SetWatchdogTimer, 4, 0, 0, 0, NULL);

	boot_read_options(image, bi);
	bi->acpi_rsdp = boot_find_rsdp();
	boot_reserve(&bi->heap, bi->options.heap_bytes, EFI_PAGE, "reserving the heap");
	boot_reserve(&bi->dma, bi->options.dma_bytes, TWO_MIB, "reserving the DMA region");
	boot_reserve(&bi->pagetables, BOOT_PAGETABLE_BYTES, EFI_PAGE,
		     "reserving the page-table pool");
	boot_reserve(&bi->stack, BOOT_STACK_BYTES, EFI_PAGE, "reserving the kernel stack");

	boot_reserve_trampoline(&bi->trampoline);
	acpi_madt_cpus(bi->acpi_rsdp, &bi->cpus);
	/* Before ExitBootServices: in a TD the firmware still handles the #VE a CPUID
	 * leaf may raise, in an SEV-SNP guest the #VC of CPUID and of the SEV_STATUS
	 * read; after it, nothing would. The C-bit position and SEV_STATUS are kept
	 * for the page tables and the SNP guest's checks (cc_setup.c). */
	{
		struct cpu_info early;

		cpu_detect(&early);
		bi->cc_at_boot = early.cc;
		bi->c_bit_at_boot = early.c_bit;
		bi->sev_status_at_boot = early.sev_status;
	}
	boot_check_option_trust(bi);
	if (bi->options.cc == CC_OPT_SIM_SNP && bi->cc_at_boot == CC_NONE)
		boot_sim_snp_firmware(bi);
	if (bi->options.cc == CC_OPT_SIM_TDX && bi->cc_at_boot == CC_NONE)
		boot_sim_td_firmware(bi);
	if (bi->cc_at_boot == CC_SEV_SNP || bi->options.cc == CC_OPT_SIM_SNP)
		boot_find_cc_blob(bi);

	boot_exit_firmware(image, bi);
	arch_call_on_stack(kernel_main, bi, bi->stack.base + bi->stack.size);
	return EFI_LOAD_ERROR; /* not reached */
}
