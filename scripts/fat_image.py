#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""fat_image.py - a FAT16 disk image (no partition table) with one file, for the
firmware e2e test: OVMF's FAT driver mounts the whole disk and serves the file.

    fat_image.py IMAGE MIB FILE_NAME FILE_KIB SEED

The file (an 8.3 name, e.g. DATA.BIN) holds seeded random bytes and sits in
contiguous clusters right after the root directory; every free cluster holds
seeded random bytes too, so that a whole-disk checksum covers data everywhere.
Prints "<cksum of the file> <its bytes>" as POSIX `cksum` would. Written here
because the machine has neither mtools nor dosfstools; the layout follows
Microsoft's FAT specification (BPB fields, FAT16 cluster-count range 4085..65524).
"""
import random
import struct
import sys

SECTOR = 512
SEC_PER_CLUS = 4
RSVD = 1
NFATS = 2
ROOT_ENTRIES = 512


def layout(total):
    root_secs = ROOT_ENTRIES * 32 // SECTOR
    fatsz = 1
    while True:
        data = total - RSVD - root_secs - NFATS * fatsz
        clusters = data // SEC_PER_CLUS
        need = (2 * (clusters + 2) + SECTOR - 1) // SECTOR
        if need <= fatsz:
            break
        fatsz = need
    if not 4085 <= clusters < 65525:
        raise SystemExit(f"fat_image: {clusters} clusters is not FAT16; pick another size")
    return root_secs, fatsz, clusters


def boot_sector(total, fatsz, seed):
    bs = bytearray(SECTOR)
    bs[0:3] = b"\xeb\x3c\x90"
    bs[3:11] = b"SLUICE  "
    struct.pack_into("<HBHBHHBHHHII", bs, 11, SECTOR, SEC_PER_CLUS, RSVD, NFATS, ROOT_ENTRIES,
                     total if total < 0x10000 else 0, 0xF8, fatsz, 32, 64, 0,
                     total if total >= 0x10000 else 0)
    struct.pack_into("<BBBI11s8s", bs, 36, 0x80, 0, 0x29, seed & 0xFFFFFFFF, b"SLUICEDATA ",
                     b"FAT16   ")
    bs[510:512] = b"\x55\xaa"
    return bs


def dir_entry(name, cluster, size):
    base, _, ext = name.upper().partition(".")
    short = base.ljust(8)[:8] + ext.ljust(3)[:3]
    # 2026-01-01 00:00 as FAT date and time.
    date = ((2026 - 1980) << 9) | (1 << 5) | 1
    return struct.pack("<11sBBBHHHHHHHI", short.encode(), 0x20, 0, 0, 0, date, date, 0, 0,
                       date, cluster, size)


def cksum(data):
    crc = 0
    for b in data:
        crc = CRC_TABLE[(crc >> 24) ^ b] ^ ((crc << 8) & 0xFFFFFFFF)
    n = len(data)
    while n:
        crc = CRC_TABLE[(crc >> 24) ^ (n & 0xFF)] ^ ((crc << 8) & 0xFFFFFFFF)
        n >>= 8
    return ~crc & 0xFFFFFFFF


def _crc_table():
    table = []
    for i in range(256):
        c = i << 24
        for _ in range(8):
            c = ((c << 1) ^ 0x04C11DB7) if c & 0x80000000 else (c << 1)
        table.append(c & 0xFFFFFFFF)
    return table


CRC_TABLE = _crc_table()


def main(argv):
    if len(argv) != 6:
        print(__doc__, file=sys.stderr)
        return 2
    path, mib, name, file_kib, seed = argv[1], int(argv[2]), argv[3], int(argv[4]), int(argv[5])
    total = mib * 1024 * 1024 // SECTOR
    root_secs, fatsz, clusters = layout(total)
    rnd = random.Random(seed)
    content = rnd.randbytes(file_kib * 1024)
    clus_bytes = SEC_PER_CLUS * SECTOR
    nclus = (len(content) + clus_bytes - 1) // clus_bytes
    if nclus + 2 > clusters:
        raise SystemExit("fat_image: the file does not fit")
    fat = bytearray(fatsz * SECTOR)
    struct.pack_into("<HH", fat, 0, 0xFFF8, 0xFFFF)
    for i in range(nclus):
        nxt = 0xFFFF if i == nclus - 1 else 3 + i
        struct.pack_into("<H", fat, 2 * (2 + i), nxt)
    root = bytearray(root_secs * SECTOR)
    root[0:32] = dir_entry(name, 2 if nclus else 0, len(content))
    data_start = (RSVD + NFATS * fatsz + root_secs) * SECTOR
    image = bytearray(rnd.randbytes(total * SECTOR))
    image[0:SECTOR] = boot_sector(total, fatsz, seed)
    for i in range(NFATS):
        off = (RSVD + i * fatsz) * SECTOR
        image[off:off + len(fat)] = fat
    off = (RSVD + NFATS * fatsz) * SECTOR
    image[off:off + len(root)] = root
    image[data_start:data_start + len(content)] = content
    with open(path, "wb") as f:
        f.write(image)
    print(cksum(content), len(content))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
