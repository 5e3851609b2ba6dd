/* SPDX-License-Identifier: MIT */
/*
 * iommu_app.c - iommu-test.efi, the UEFI application of tests/e2e/firmware_iommu.sh
 * and `make bench-firmware`: OVMF's own virtio-blk driver (VirtioBlkDxe over
 * Virtio10Dxe) reads a disk through EFI_BLOCK_IO_PROTOCOL and a file through
 * OVMF's FAT driver (EFI_SIMPLE_FILE_SYSTEM_PROTOCOL), first with the root
 * bridge's identity mapping (no IoMmu protocol: OVMF's IoMmuDxe installed the
 * "absent" placeholder), then over build/sluice-iommu.efi in each
 * configuration: bounce pools of each policy, and AllocateBuffer from the arena.
 * Between configurations the virtio-blk controller is disconnected and
 * connected again, so that VirtioBlkDxe starts afresh on the new layer. In each
 * configuration (first round only) the two virtio-net controllers are started
 * afresh too (VirtioNetDxe alone, not the network stack above it), and 64
 * frames of 60..1514 bytes go from one to the other through
 * EFI_SIMPLE_NETWORK_PROTOCOL, each compared byte for byte.
 *
 * Options (sluice.cfg on the boot volume, written by scripts/run-qemu.sh):
 *   mode=test    the above, then an unload that must be refused (the disk is
 *                still connected), then ExitBootServices and the driver's
 *                statistics read after it (printed on COM1 directly);
 *   mode=unload  one configuration, then disconnect and unload the driver,
 *                check that the protocol is gone, and leave QEMU at once (no
 *                DMA after the unload: see firmware/iommu/iommu_driver.c);
 *   reps=N       rounds (default 1): each reads the disk whole in every
 *                configuration in turn (the identity runs first, N times:
 *                once installed, the protocol serves the root bridge for good);
 *   bs=BYTES     BlockIo request size (default 65536);
 *   file=NAME    the file on the disk's FAT volume (default DATA.BIN);
 *   accel=NAME   the accelerator, for the benchmark lines.
 * Exit (isa-debug-exit): 0 when every check passed, 1 otherwise.
 */
#include <efi.h>
#include <efilib.h>

#include <stdbool.h>

#include "firmware/iommu/sluice_iommu.h"

#include <sluice/dma.h>

#define VIRTIO_VENDOR 0x1af4
#define VIRTIO_BLK_MODERN 0x1042
#define FILE_CHUNK (1u << 20)
#define COM1 0x3f8
#define QEMU_EXIT_PORT 0xf4

static EFI_GUID control_guid = SLUICE_IOMMU_CONTROL_GUID;
static EFI_GUID iommu_guid = { 0x4e939de9,
			       0xd948,
			       0x4b0f,
			       { 0x88, 0xed, 0xe6, 0xe1, 0xce, 0x51, 0x7c, 0x1e } };

struct app_cfg {
	char mode[16];
	char accel[16];
	CHAR16 file[64];
	UINTN reps;
	UINTN bs;
};

/* One configuration's results. */
struct run {
	const char *name; /* "identity", "linux", ... */
	const char *mode; /* benchmark mode: direct, bounce */
	const char *policy;
	const char *buffers;
	uint32_t disk_crc, file_crc;
	uint64_t disk_bytes, file_bytes;
	uint64_t cycles, ios, errors;
	uint64_t passes;
	uint64_t disk_bounced;
	uint64_t net_sent, net_got, net_bad;
	struct sluice_iommu_stats st;
};

static EFI_HANDLE self;
static EFI_HANDLE nics[2]; /* the two virtio-net controllers, when there are two */
static bool have_net;
static uint64_t tsc_hz;
static int failures;

/* ------------------------------------------------------------ small helpers */

static inline void outb(uint16_t port, uint8_t v)
{
	__asm__ volatile("outb %0, %1" : : "a"(v), "Nd"(port));
}

static inline uint8_t inb(uint16_t port)
{
	uint8_t v;

	__asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

/* After ExitBootServices ConOut is gone: COM1 by hand (OVMF left it set up). */
static void serial_puts(const char *s)
{
	for (; *s; s++) {
		if (*s == '\n')
			serial_puts("\r");
		while (!(inb(COM1 + 5) & 0x20))
			;
		outb(COM1, (uint8_t)*s);
	}
}

static void qemu_exit(int code)
{
	outb(QEMU_EXIT_PORT, (uint8_t)(0x10 + code));
	for (;;)
		__asm__ volatile("hlt");
}

static void fail(const char *what)
{
	failures++;
	Print(L"fw: FAIL: %a\n", what);
}

/* A tiny formatter (no C library here): append to a bounded buffer. */
struct sbuf {
	char b[768];
	UINTN n;
};

static void put_s(struct sbuf *s, const char *t)
{
	while (*t && s->n + 1 < sizeof(s->b))
		s->b[s->n++] = *t++;
	s->b[s->n] = 0;
}

static void put_u(struct sbuf *s, uint64_t v)
{
	char t[24];
	int i = 23;

	t[i] = 0;
	do
		t[--i] = (char)('0' + v % 10);
	while ((v /= 10) && i);
	put_s(s, t + i);
}

/* v / 1000 with three decimals. */
static void put_milli(struct sbuf *s, uint64_t v)
{
	put_u(s, v / 1000);
	put_s(s, ".");
	put_u(s, v / 100 % 10);
	put_u(s, v / 10 % 10);
	put_u(s, v % 10);
}

/* POSIX cksum: CRC-32 (polynomial 0x04C11DB7, MSB first) of the data and its length. */
static uint32_t crc_table[256];

static void crc_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i << 24;

		for (int k = 0; k < 8; k++)
			c = c & 0x80000000u ? (c << 1) ^ 0x04C11DB7u : c << 1;
		crc_table[i] = c;
	}
}

static uint32_t crc_update(uint32_t crc, const uint8_t *p, UINTN n)
{
	while (n--)
		crc = (crc << 8) ^ crc_table[(crc >> 24) ^ *p++];
	return crc;
}

static uint32_t crc_final(uint32_t crc, uint64_t len)
{
	for (; len; len >>= 8)
		crc = (crc << 8) ^ crc_table[(crc >> 24) ^ (len & 0xff)];
	return ~crc;
}

/* ------------------------------------------------------------ options */

static EFI_FILE_HANDLE open_root(EFI_HANDLE device)
{
	EFI_GUID fs_guid = SIMPLE_FILE_SYSTEM_PROTOCOL;
	EFI_FILE_IO_INTERFACE *fs = NULL;
	EFI_FILE_HANDLE root = NULL;

	if (EFI_ERROR(uefi_call_wrapper(BS->HandleProtocol, 3, device, &fs_guid, (void **)&fs)))
		return NULL;
	if (EFI_ERROR(uefi_call_wrapper(fs->OpenVolume, 2, fs, &root)))
		return NULL;
	return root;
}

/* Copy the value of "key=" from the words of @text into @out (ASCII). */
static void cfg_word(const char *text, const char *key, char *out, UINTN max)
{
	UINTN klen = 0;

	while (key[klen])
		klen++;
	for (const char *p = text; *p; p++) {
		UINTN i = 0, k;

		if (p != text && p[-1] != ' ' && p[-1] != '\n')
			continue;
		for (k = 0; k < klen && p[k] == key[k]; k++)
			;
		if (k != klen || p[k] != '=')
			continue;
		for (p += k + 1; *p && *p != ' ' && *p != '\n' && *p != '\r' && i + 1 < max; p++)
			out[i++] = *p;
		out[i] = 0;
		return;
	}
}

static UINTN to_uint(const char *s, UINTN dflt)
{
	UINTN v = 0;

	if (!*s)
		return dflt;
	for (; *s >= '0' && *s <= '9'; s++)
		v = v * 10 + (UINTN)(*s - '0');
	return v ? v : dflt;
}

static void read_cfg(EFI_HANDLE device, struct app_cfg *cfg)
{
	static char text[1024];
	EFI_FILE_HANDLE root = open_root(device), f;
	UINTN len = sizeof(text) - 1;
	char file[64] = "", num[24] = "";

	SetMem(cfg, sizeof(*cfg), 0);
	if (root && !EFI_ERROR(uefi_call_wrapper(root->Open, 5, root, &f, L"sluice.cfg",
						 EFI_FILE_MODE_READ, 0))) {
		if (EFI_ERROR(uefi_call_wrapper(f->Read, 3, f, &len, text)))
			len = 0;
		uefi_call_wrapper(f->Close, 1, f);
	} else {
		len = 0;
	}
	text[len] = 0;
	cfg_word(text, "mode", cfg->mode, sizeof(cfg->mode));
	cfg_word(text, "accel", cfg->accel, sizeof(cfg->accel));
	cfg_word(text, "file", file, sizeof(file));
	cfg_word(text, "reps", num, sizeof(num));
	cfg->reps = to_uint(num, 1);
	num[0] = 0;
	cfg_word(text, "bs", num, sizeof(num));
	cfg->bs = to_uint(num, 65536);
	if (!cfg->mode[0])
		CopyMem(cfg->mode, "test", 5);
	if (!cfg->accel[0])
		CopyMem(cfg->accel, "unknown", 8);
	if (!file[0])
		CopyMem(file, "DATA.BIN", 9);
	for (UINTN i = 0; i < 63 && file[i]; i++)
		cfg->file[i] = (CHAR16)file[i];
}

/* ------------------------------------------------------------ the disk */

/* The virtio-blk controller's handle (VirtioBlkDxe puts BlockIo on it). */
static EFI_HANDLE find_virtio_blk(void)
{
	EFI_GUID pci_guid = EFI_PCI_IO_PROTOCOL_GUID;
	EFI_HANDLE *handles = NULL, found = NULL;
	UINTN n = 0;

	if (EFI_ERROR(uefi_call_wrapper(BS->LocateHandleBuffer, 5, ByProtocol, &pci_guid, NULL, &n,
					&handles)))
		return NULL;
	for (UINTN i = 0; i < n && !found; i++) {
		EFI_PCI_IO_PROTOCOL *pci = NULL;
		UINT32 id = 0;

		if (EFI_ERROR(uefi_call_wrapper(BS->HandleProtocol, 3, handles[i], &pci_guid,
						(void **)&pci)))
			continue;
		if (EFI_ERROR(uefi_call_wrapper(pci->Pci.Read, 5, pci, EfiPciIoWidthUint32, 0, 1,
						&id)))
			continue;
		if ((id & 0xffff) == VIRTIO_VENDOR && id >> 16 == VIRTIO_BLK_MODERN)
			found = handles[i];
	}
	uefi_call_wrapper(BS->FreePool, 1, handles);
	return found;
}

/* Stop every driver on the controller (FAT, DiskIo, VirtioBlkDxe, Virtio10Dxe). */
static EFI_STATUS disconnect(EFI_HANDLE blk)
{
	return uefi_call_wrapper(BS->DisconnectController, 3, blk, NULL, NULL);
}

static EFI_STATUS connect(EFI_HANDLE blk)
{
	return uefi_call_wrapper(BS->ConnectController, 4, blk, NULL, NULL, TRUE);
}

/* One pass over the whole disk through BlockIo; only the reads are timed. */
static void read_disk(EFI_HANDLE blk, const struct app_cfg *cfg, struct run *r)
{
	EFI_GUID bio_guid = BLOCK_IO_PROTOCOL;
	EFI_BLOCK_IO *bio = NULL;
	EFI_PHYSICAL_ADDRESS buf;
	uint32_t crc = 0;
	uint64_t bytes;

	if (EFI_ERROR(uefi_call_wrapper(BS->HandleProtocol, 3, blk, &bio_guid, (void **)&bio)) ||
	    !bio->Media->MediaPresent || cfg->bs % bio->Media->BlockSize) {
		fail("no BlockIo on the virtio-blk controller");
		return;
	}
	if (EFI_ERROR(uefi_call_wrapper(BS->AllocatePages, 4, AllocateAnyPages, EfiBootServicesData,
					EFI_SIZE_TO_PAGES(cfg->bs), &buf))) {
		fail("no buffer");
		return;
	}
	bytes = (bio->Media->LastBlock + 1) * bio->Media->BlockSize;
	r->disk_bytes = bytes;
	for (uint64_t off = 0; off < bytes; off += cfg->bs) {
		UINTN len = bytes - off < cfg->bs ? (UINTN)(bytes - off) : cfg->bs;
		uint64_t t0 = rdtsc();
		EFI_STATUS st = uefi_call_wrapper(bio->ReadBlocks, 5, bio, bio->Media->MediaId,
						  off / bio->Media->BlockSize, len,
						  (void *)(UINTN)buf);

		r->cycles += rdtsc() - t0;
		r->ios++;
		if (EFI_ERROR(st))
			r->errors++;
		crc = crc_update(crc, (const uint8_t *)(UINTN)buf, len);
	}
	/* Every pass must read the same bytes. */
	crc = crc_final(crc, bytes);
	if (r->passes && crc != r->disk_crc)
		r->errors++;
	r->disk_crc = crc;
	uefi_call_wrapper(BS->FreePages, 2, buf, EFI_SIZE_TO_PAGES(cfg->bs));
}

/* The file through OVMF's FAT driver, in 1 MiB reads (each one BlockIo request
 * when the file is contiguous: longer than a bounce pool run). */
static void read_file(EFI_HANDLE blk, const struct app_cfg *cfg, struct run *r)
{
	EFI_FILE_HANDLE root = open_root(blk), f;
	EFI_PHYSICAL_ADDRESS buf;
	uint32_t crc = 0;
	UINTN len;

	if (!root || EFI_ERROR(uefi_call_wrapper(root->Open, 5, root, &f, (CHAR16 *)cfg->file,
						 EFI_FILE_MODE_READ, 0))) {
		fail("cannot open the file on the virtio-blk FAT volume");
		return;
	}
	if (EFI_ERROR(uefi_call_wrapper(BS->AllocatePages, 4, AllocateAnyPages, EfiBootServicesData,
					EFI_SIZE_TO_PAGES(FILE_CHUNK), &buf))) {
		fail("no buffer");
		return;
	}
	do {
		len = FILE_CHUNK;
		if (EFI_ERROR(uefi_call_wrapper(f->Read, 3, f, &len, (void *)(UINTN)buf))) {
			fail("file read failed");
			break;
		}
		crc = crc_update(crc, (const uint8_t *)(UINTN)buf, len);
		r->file_bytes += len;
	} while (len);
	r->file_crc = crc_final(crc, r->file_bytes);
	uefi_call_wrapper(f->Close, 1, f);
	uefi_call_wrapper(root->Close, 1, root);
	uefi_call_wrapper(BS->FreePages, 2, buf, EFI_SIZE_TO_PAGES(FILE_CHUNK));
}

/* ------------------------------------------------------------ the network */

#define VIRTIO_NET_MODERN 0x1041
#define NET_FRAMES 64
#define ETH_HDR 14
#define NET_ETHERTYPE 0x88b5 /* IEEE local experimental */

/* The two virtio-net controllers, in PCI handle order. */
static UINTN find_virtio_net(EFI_HANDLE out[2])
{
	EFI_GUID pci_guid = EFI_PCI_IO_PROTOCOL_GUID;
	EFI_HANDLE *handles = NULL;
	UINTN n = 0, found = 0;

	if (EFI_ERROR(uefi_call_wrapper(BS->LocateHandleBuffer, 5, ByProtocol, &pci_guid, NULL, &n,
					&handles)))
		return 0;
	for (UINTN i = 0; i < n && found < 2; i++) {
		EFI_PCI_IO_PROTOCOL *pci = NULL;
		UINT32 id = 0;

		if (EFI_ERROR(uefi_call_wrapper(BS->HandleProtocol, 3, handles[i], &pci_guid,
						(void **)&pci)) ||
		    EFI_ERROR(uefi_call_wrapper(pci->Pci.Read, 5, pci, EfiPciIoWidthUint32, 0, 1,
						&id)))
			continue;
		if ((id & 0xffff) == VIRTIO_VENDOR && id >> 16 == VIRTIO_NET_MODERN)
			out[found++] = handles[i];
	}
	uefi_call_wrapper(BS->FreePool, 1, handles);
	return found;
}

/* VirtioNetDxe's SNP sits on a child whose device path extends the controller's. */
static EFI_SIMPLE_NETWORK *snp_of(EFI_HANDLE nic)
{
	EFI_GUID snp_guid = EFI_SIMPLE_NETWORK_PROTOCOL_GUID;
	EFI_DEVICE_PATH *parent = DevicePathFromHandle(nic);
	EFI_SIMPLE_NETWORK *found = NULL;
	EFI_HANDLE *handles = NULL;
	UINTN n = 0, plen;

	if (!parent || EFI_ERROR(uefi_call_wrapper(BS->LocateHandleBuffer, 5, ByProtocol, &snp_guid,
						   NULL, &n, &handles)))
		return NULL;
	plen = DevicePathSize(parent) - sizeof(EFI_DEVICE_PATH); /* without the end node */
	for (UINTN i = 0; i < n && !found; i++) {
		EFI_DEVICE_PATH *child = DevicePathFromHandle(handles[i]);

		if (child && DevicePathSize(child) > plen + sizeof(EFI_DEVICE_PATH) &&
		    !CompareMem(child, parent, plen))
			uefi_call_wrapper(BS->HandleProtocol, 3, handles[i], &snp_guid,
					  (void **)&found);
	}
	uefi_call_wrapper(BS->FreePool, 1, handles);
	return found;
}

/* Start both NICs afresh (VirtioNetDxe only: not the network stack above it). */
static bool net_up(EFI_HANDLE nic[2], EFI_SIMPLE_NETWORK *snp[2])
{
	for (int i = 0; i < 2; i++) {
		disconnect(nic[i]);
		if (EFI_ERROR(
			    uefi_call_wrapper(BS->ConnectController, 4, nic[i], NULL, NULL, FALSE)))
			return false;
		snp[i] = snp_of(nic[i]);
		if (!snp[i] || EFI_ERROR(uefi_call_wrapper(snp[i]->Start, 1, snp[i])) ||
		    EFI_ERROR(uefi_call_wrapper(snp[i]->Initialize, 3, snp[i], 0, 0)))
			return false;
	}
	return true;
}

static void frame_fill(uint8_t *f, UINTN len, UINTN seq, const EFI_MAC_ADDRESS *dst,
		       const EFI_MAC_ADDRESS *src)
{
	CopyMem(f, (void *)dst, 6);
	CopyMem(f + 6, (void *)src, 6);
	f[12] = NET_ETHERTYPE >> 8;
	f[13] = NET_ETHERTYPE & 0xff;
	f[14] = (uint8_t)seq;
	for (UINTN i = 15; i < len; i++)
		f[i] = (uint8_t)(seq * 31 + i * 7);
}

/* Wait for NIC0 to hand the frame back (its Map ends there). */
static bool tx_done(EFI_SIMPLE_NETWORK *snp, void *frame)
{
	for (int tries = 0; tries < 20000; tries++) {
		void *done = NULL;

		if (!EFI_ERROR(uefi_call_wrapper(snp->GetStatus, 3, snp, NULL, &done)) &&
		    done == frame)
			return true;
		uefi_call_wrapper(BS->Stall, 1, 10);
	}
	return false;
}

/* Receive one of our frames on NIC1 (others, if any, are skipped). */
static UINTN rx_one(EFI_SIMPLE_NETWORK *snp, uint8_t *buf, UINTN max)
{
	for (int tries = 0; tries < 20000; tries++) {
		UINTN len = max;
		EFI_STATUS st =
			uefi_call_wrapper(snp->Receive, 7, snp, NULL, &len, buf, NULL, NULL, NULL);

		if (!EFI_ERROR(st) && len >= ETH_HDR + 1 && buf[12] == NET_ETHERTYPE >> 8 &&
		    buf[13] == (NET_ETHERTYPE & 0xff))
			return len;
		if (st == EFI_NOT_READY)
			uefi_call_wrapper(BS->Stall, 1, 10);
	}
	return 0;
}

/* NET_FRAMES frames of 60..1514 bytes from NIC0 to NIC1, each checked. */
static void net_check(EFI_HANDLE nic[2], struct run *r)
{
	static uint8_t tx[1514], rx[1600], want[1514];
	EFI_SIMPLE_NETWORK *snp[2];
	UINTN got = 0, bad = 0;

	if (!net_up(nic, snp)) {
		fail("virtio-net did not start");
		return;
	}
	for (UINTN seq = 0; seq < NET_FRAMES; seq++) {
		UINTN len = 60 + seq * (1514 - 60) / (NET_FRAMES - 1), n;

		frame_fill(tx, len, seq, &snp[1]->Mode->CurrentAddress,
			   &snp[0]->Mode->CurrentAddress);
		CopyMem(want, tx, len);
		if (EFI_ERROR(uefi_call_wrapper(snp[0]->Transmit, 7, snp[0], 0, len, tx, NULL, NULL,
						NULL)) ||
		    !tx_done(snp[0], tx)) {
			bad++;
			continue;
		}
		n = rx_one(snp[1], rx, sizeof(rx));
		if (!n)
			continue;
		got++;
		if (n != len || CompareMem(rx, want, len))
			bad++;
	}
	for (int i = 0; i < 2; i++) {
		uefi_call_wrapper(snp[i]->Shutdown, 1, snp[i]);
		uefi_call_wrapper(snp[i]->Stop, 1, snp[i]);
		disconnect(nic[i]);
	}
	r->net_sent = NET_FRAMES;
	r->net_got = got;
	r->net_bad = bad;
	Print(L"fw: config=%a net: sent %d frames of 60..1514 bytes, received %ld, %ld bad, "
	      L"%ld lost\n",
	      r->name, NET_FRAMES, (UINT64)got, (UINT64)bad, (UINT64)(NET_FRAMES - got));
}

/* ------------------------------------------------------------ configurations */

static void print_stats_line(const char *prefix, const struct sluice_iommu_stats *s)
{
	Print(L"fw: %a stats: maps=%ld map_failed=%ld common=%ld long=%ld unmaps=%ld "
	      L"unmap_invalid=%ld foreign_unmaps=%ld allocs=%ld alloc_failed=%ld frees=%ld "
	      L"free_invalid=%ld foreign_frees=%ld\n",
	      prefix, s->maps, s->map_failed, s->common_maps, s->long_maps, s->unmaps,
	      s->unmap_invalid, s->foreign_unmaps, s->allocs, s->alloc_failed, s->frees,
	      s->free_invalid, s->foreign_frees);
	Print(L"fw: %a bounced: to_device=%ld from_device=%ld unshared=%ld live_maps=%ld "
	      L"live_bufs=%ld pages_shared=%ld conversions=%ld refused=%ld\n",
	      prefix, s->bytes_to_device, s->bytes_from_device, s->unshared_handouts, s->live_maps,
	      s->live_bufs, s->pages_shared, s->conversions, s->conversions_refused);
}

/* One configuration: reconnect, read the disk and the file, take the figures. */
static void run_one(EFI_HANDLE blk, struct sluice_iommu_control *ctl, const struct app_cfg *cfg,
		    struct run *r, uint32_t policy, bool arena)
{
	EFI_STATUS st = disconnect(blk);

	if (EFI_ERROR(st))
		Print(L"fw: %a: disconnect: %r\n", r->name, st);
	if (ctl) {
		st = (EFI_STATUS)ctl->configure(ctl, policy, arena);
		if (EFI_ERROR(st)) {
			Print(L"fw: %a: configure: %r\n", r->name, st);
			fail("configure refused");
		}
	}
	st = connect(blk);
	if (EFI_ERROR(st)) {
		Print(L"fw: %a: connect: %r\n", r->name, st);
		fail("virtio-blk did not start again");
		return;
	}
	read_disk(blk, cfg, r);
	/* What the disk reads alone bounced (counters restart at configure). */
	if (ctl) {
		ctl->get_stats(ctl, &r->st);
		r->disk_bounced += r->st.bytes_to_device + r->st.bytes_from_device;
	}
	r->file_bytes = 0;
	read_file(blk, cfg, r);
	if (have_net && !r->passes)
		net_check(nics, r);
	r->passes++;
	Print(L"fw: config=%a disk cksum %ld %ld, %ld reads of %ld bytes, %ld errors; "
	      L"file %s cksum %ld %ld\n",
	      r->name, (UINT64)r->disk_crc, r->disk_bytes, r->ios, (UINT64)cfg->bs, r->errors,
	      cfg->file, (UINT64)r->file_crc, r->file_bytes);
	if (ctl) {
		ctl->get_stats(ctl, &r->st);
		print_stats_line(r->name, &r->st);
	}
}

/* The benchmark line (docs/BENCHMARKS.md, "The benchmark output contract"). */
static void bench_line(const struct app_cfg *cfg, const struct run *r, const struct run *base)
{
	uint64_t ns = tsc_hz ? r->cycles * 1000000ull / (tsc_hz / 1000) : 0;
	uint64_t miops = ns ? r->ios * 1000000000000ull / ns : 0; /* I/O per s x 1000 */
	uint64_t base_ns = tsc_hz ? base->cycles * 1000000ull / (tsc_hz / 1000) : 0;
	uint64_t base_miops = base_ns ? base->ios * 1000000000000ull / base_ns : 0;
	struct sbuf s = { .n = 0 };

	put_s(&s, "{\"suite\":\"fwblk\",\"accel\":\"");
	put_s(&s, cfg->accel);
	put_s(&s, "\",\"cc\":\"emulated\",\"mode\":\"");
	put_s(&s, r->mode);
	put_s(&s, "\",\"policy\":");
	put_s(&s, r->policy ? "\"" : "null");
	if (r->policy) {
		put_s(&s, r->policy);
		put_s(&s, "\"");
	}
	put_s(&s, ",\"buffers\":\"");
	put_s(&s, r->buffers);
	put_s(&s, "\",\"rw\":\"read\",\"bs\":");
	put_u(&s, cfg->bs);
	put_s(&s, ",\"iodepth\":1,\"threads\":1,\"copy\":");
	put_s(&s, r->policy ? "true" : "false");
	put_s(&s, ",\"ios\":");
	put_u(&s, r->ios);
	put_s(&s, ",\"errors\":");
	put_u(&s, r->errors);
	put_s(&s, ",\"seconds\":");
	put_milli(&s, ns / 1000000);
	put_s(&s, ",\"iops\":");
	put_milli(&s, miops);
	put_s(&s, ",\"bw_mbps\":");
	put_milli(&s, miops * cfg->bs / 1000000);
	put_s(&s, ",\"bounced_bytes\":");
	put_u(&s, r->disk_bounced);
	put_s(&s, ",\"ratio_direct\":");
	put_milli(&s, base_miops ? miops * 1000 / base_miops : 0);
	put_s(&s, "}");
	Print(L"%a\n", s.b);
}

/* A configuration must read what the identity mapping read, and bounce it. */
static void check_run(const struct run *r, const struct run *base)
{
	if (r->disk_crc != base->disk_crc || r->disk_bytes != base->disk_bytes || r->errors)
		fail("disk checksum differs from the identity mapping's");
	if (r->file_crc != base->file_crc || r->file_bytes != base->file_bytes || !r->file_bytes)
		fail("file checksum differs from the identity mapping's");
	if (have_net && (r->net_got != r->net_sent || r->net_bad))
		fail("frames lost or damaged");
	if (r->st.map_failed || r->st.unshared_handouts || r->st.unmap_invalid ||
	    r->st.free_invalid || r->st.alloc_failed)
		fail("the driver counted a failure");
	if (!r->st.maps || r->st.bytes_from_device < r->disk_bytes + r->file_bytes)
		fail("the reads did not bounce through the driver");
}

/* ------------------------------------------------------------ the driver */

static EFI_HANDLE load_driver(EFI_HANDLE device)
{
	EFI_DEVICE_PATH *path = FileDevicePath(device, L"\\sluice-iommu.efi");
	EFI_HANDLE h = NULL;
	EFI_STATUS st;

	if (!path)
		return NULL;
	st = uefi_call_wrapper(BS->LoadImage, 6, FALSE, self, path, NULL, 0, &h);
	if (!EFI_ERROR(st))
		st = uefi_call_wrapper(BS->StartImage, 3, h, NULL, NULL);
	Print(L"fw: sluice-iommu.efi loaded and started: %r\n", st);
	return EFI_ERROR(st) ? NULL : h;
}

static struct sluice_iommu_control *control(void)
{
	struct sluice_iommu_control *ctl = NULL;

	if (EFI_ERROR(uefi_call_wrapper(BS->LocateProtocol, 3, &control_guid, NULL, (void **)&ctl)))
		return NULL;
	return ctl;
}

/* ExitBootServices with a fresh map key, retried as the specification asks. */
static EFI_STATUS exit_boot_services(void)
{
	static UINT8 map[64 * 1024];
	UINTN size, key, desc_size;
	UINT32 desc_ver;
	EFI_STATUS st = EFI_INVALID_PARAMETER;

	for (int i = 0; i < 8 && EFI_ERROR(st); i++) {
		size = sizeof(map);
		st = uefi_call_wrapper(BS->GetMemoryMap, 5, &size, (EFI_MEMORY_DESCRIPTOR *)map,
				       &key, &desc_size, &desc_ver);
		if (EFI_ERROR(st))
			return st;
		st = uefi_call_wrapper(BS->ExitBootServices, 2, self, key);
	}
	return st;
}

/* The statistics after ExitBootServices, from memory only, on COM1. */
static void after_exit_boot(struct sluice_iommu_control *ctl)
{
	struct sluice_iommu_stats s;
	struct sbuf b = { .n = 0 };

	ctl->get_stats(ctl, &s);
	put_s(&b, "fw: after ExitBootServices: teardown ran=");
	put_u(&b, s.exit_boot);
	put_s(&b, " unmapped=");
	put_u(&b, s.exit_boot_unmapped);
	put_s(&b, " live_after=");
	put_u(&b, s.live_after_exit_boot);
	put_s(&b, " live_bufs=");
	put_u(&b, s.live_bufs);
	put_s(&b, " maps=");
	put_u(&b, s.maps);
	put_s(&b, " bytes_from_device=");
	put_u(&b, s.bytes_from_device);
	put_s(&b, "\n");
	serial_puts(b.b);
	if (!s.exit_boot || s.live_after_exit_boot || s.live_maps)
		failures++;
	serial_puts(failures ? "fw: FAILED\n" : "fw: all checks passed\n");
}

/* ------------------------------------------------------------ main */

static const struct {
	const char *name, *mode, *policy, *buffers;
	uint32_t policy_id;
	bool arena;
} configs[] = {
/* Every policy of <sluice/dma_policies.h> with its pool... */
#define FW_POLICY_RUN_(upper, lower) \
	{ "bounce/" #lower, "bounce", #lower, "pool", SLUICE_DMA_POLICY_##upper, false },
	SLUICE_DMA_POLICIES(FW_POLICY_RUN_)
#undef FW_POLICY_RUN_
	/* ...and ours with the arena's in-place buffers. */
	{ "bounce/sluice+arena", "bounce", "sluice", "arena", SLUICE_DMA_POLICY_SLUICE, true },
};
#define NCONFIGS (sizeof(configs) / sizeof(configs[0]))

/* mode=unload: one configuration, then the unload, then out at once. */
static void unload_mode(EFI_HANDLE blk, EFI_HANDLE drv, const struct app_cfg *cfg,
			const struct run *base)
{
	struct run r = { .name = configs[SLUICE_DMA_POLICY_LINUX].name, .buffers = "pool" };
	EFI_STATUS st;
	VOID *p = NULL;

	run_one(blk, control(), cfg, &r, SLUICE_DMA_POLICY_LINUX, false);
	check_run(&r, base);
	st = uefi_call_wrapper(BS->UnloadImage, 1, drv);
	Print(L"fw: unload while the disk is connected: %r\n", st);
	if (st != EFI_ACCESS_DENIED || !control())
		fail("unload was not refused while buffers are live");
	disconnect(blk);
	st = uefi_call_wrapper(BS->UnloadImage, 1, drv);
	Print(L"fw: unload after disconnecting the disk: %r\n", st);
	if (EFI_ERROR(st))
		fail("unload failed");
	if (!EFI_ERROR(uefi_call_wrapper(BS->LocateProtocol, 3, &iommu_guid, NULL, &p)) ||
	    control())
		fail("a protocol is still installed after the unload");
	Print(L"fw: %a\n", failures ? "FAILED" : "all checks passed");
	qemu_exit(failures ? 1 : 0);
}

static void test_mode(EFI_HANDLE blk, EFI_HANDLE drv, const struct app_cfg *cfg,
		      const struct run *base)
{
	static struct run runs[NCONFIGS];
	struct sluice_iommu_control *ctl = control();
	EFI_STATUS st;

	if (!ctl) {
		fail("no control protocol");
		return;
	}
	for (UINTN i = 0; i < NCONFIGS; i++)
		runs[i] = (struct run){ .name = configs[i].name,
					.mode = configs[i].mode,
					.policy = configs[i].policy,
					.buffers = configs[i].buffers };
	/* Round after round, so that a slower moment of the host hits every one. */
	for (UINTN round = 0; round < cfg->reps; round++) {
		for (UINTN i = 0; i < NCONFIGS; i++) {
			run_one(blk, ctl, cfg, &runs[i], configs[i].policy_id, configs[i].arena);
			check_run(&runs[i], base);
		}
	}
	/* VirtioBlkDxe's ring from the identity run came back through us. */
	if (!runs[0].st.foreign_unmaps || !runs[0].st.foreign_frees)
		fail("the root bridge's earlier mapping and buffer did not come back to us");
	bench_line(cfg, base, base);
	for (UINTN i = 0; i < NCONFIGS; i++)
		bench_line(cfg, &runs[i], base);
	/* The ring and its buffers are live: the driver must refuse to go. */
	st = uefi_call_wrapper(BS->UnloadImage, 1, drv);
	Print(L"fw: unload while the disk is connected: %r\n", st);
	if (st != EFI_ACCESS_DENIED)
		fail("unload was not refused while buffers are live");
	if (control() != ctl)
		fail("a refused unload took the protocols away");
	ctl->print_stats(ctl);
	Print(L"fw: exiting boot services\n");
	st = exit_boot_services();
	if (EFI_ERROR(st)) {
		Print(L"fw: ExitBootServices failed: %r\n", st);
		qemu_exit(1);
	}
	after_exit_boot(ctl);
}

/* GNU-EFI's crt0 relocates the image and calls this with the System V convention. */
EFI_STATUS efi_main(EFI_HANDLE image, EFI_SYSTEM_TABLE *systab)
{
	EFI_GUID li_guid = LOADED_IMAGE_PROTOCOL;
	struct run base = { .name = "identity", .mode = "direct", .buffers = "pool" };
	EFI_LOADED_IMAGE *li = NULL;
	struct app_cfg cfg;
	EFI_HANDLE blk, drv;
	uint64_t t0;

	InitializeLib(image, systab);
	self = image;
	crc_init();
	uefi_call_wrapper(BS->SetWatchdogTimer, 4, 0, 0, 0, NULL);
	uefi_call_wrapper(BS->HandleProtocol, 3, image, &li_guid, (void **)&li);
	read_cfg(li->DeviceHandle, &cfg);
	t0 = rdtsc();
	uefi_call_wrapper(BS->Stall, 1, 100000);
	tsc_hz = (rdtsc() - t0) * 10;
	Print(L"fw: iommu-test mode=%a reps=%ld bs=%ld file=%s tsc=%ld MHz\n", cfg.mode,
	      (UINT64)cfg.reps, (UINT64)cfg.bs, cfg.file, tsc_hz / 1000000);
	blk = find_virtio_blk();
	if (!blk) {
		fail("no virtio-blk (1af4:1042) controller");
		qemu_exit(1);
	}
	have_net = find_virtio_net(nics) == 2;
	/* The root bridge's identity mapping: no IoMmu protocol yet. */
	for (UINTN i = 0; i < cfg.reps; i++)
		run_one(blk, NULL, &cfg, &base, 0, false);
	if (base.errors || !base.file_bytes)
		fail("the identity run failed");
	drv = load_driver(li->DeviceHandle);
	if (!drv) {
		fail("the driver did not start");
		qemu_exit(1);
	}
	if (cfg.mode[0] == 'u')
		unload_mode(blk, drv, &cfg, &base);
	test_mode(blk, drv, &cfg, &base);
	qemu_exit(failures ? 1 : 0);
	return EFI_SUCCESS;
}
