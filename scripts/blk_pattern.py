#!/usr/bin/env python3
"""blk_pattern.py - host side of the block data-integrity test.

  blk_pattern.py make IMAGE BYTES SEED        write BYTES of seeded random data
  blk_pattern.py verify ORIG IMAGE BS MODES [ANY]
                                              check that IMAGE equals ORIG except
                                              the pattern region of each mode in
                                              MODES (comma-separated indices), which
                                              must hold the kernel's pattern, and of
                                              each mode in ANY, which may hold
                                              anything (a write pass a device fault
                                              cut short)

The region and pattern definitions mirror app/blk_check.[ch]: the last quarter of
the disk split in three, rounded down to whole requests of BS bytes; byte at disk
offset o of mode m: ((u32(sector * 2654435761) >> 16) ^ (o & 0x1ff) ^ 0x11*(m+1)) & 0xff.
"""
import random
import sys

SECTOR = 512


def region(capacity, bs, mode):
    per_req = bs // SECTOR
    size = capacity // 4 // 3
    size -= size % per_req
    first = capacity - capacity // 4 + mode * size
    return first, size


def pattern_sector(sector, mode, rows):
    k = (((sector * 2654435761) & 0xFFFFFFFF) >> 16) ^ (0x11 * (mode + 1))
    return rows[k & 0xFF]


def main(argv):
    if len(argv) == 5 and argv[1] == "make":
        data = random.Random(int(argv[4])).randbytes(int(argv[3]))
        with open(argv[2], "wb") as f:
            f.write(data)
        return 0
    if len(argv) in (6, 7) and argv[1] == "verify":
        orig = open(argv[2], "rb").read()
        image = open(argv[3], "rb").read()
        bs = int(argv[4])
        modes = [int(m) for m in argv[5].split(",") if m]
        anything = [int(m) for m in argv[6].split(",") if m] if len(argv) == 7 else []
        if len(orig) != len(image):
            print(f"size changed: {len(orig)} -> {len(image)}")
            return 1
        capacity = len(image) // SECTOR
        # rows[k][j] = k ^ (j & 0x1ff), low byte: the low 9 bits of the offset.
        rows = [bytes((k ^ j) & 0xFF for j in range(SECTOR)) for k in range(256)]
        expected = bytearray(orig)
        for m in modes:
            first, count = region(capacity, bs, m)
            for s in range(first, first + count):
                expected[s * SECTOR:(s + 1) * SECTOR] = pattern_sector(s, m, rows)
            print(f"mode {m}: sectors {first}..{first + count - 1} expected to hold the pattern")
        for m in anything:
            first, count = region(capacity, bs, m)
            expected[first * SECTOR:(first + count) * SECTOR] = \
                image[first * SECTOR:(first + count) * SECTOR]
            print(f"mode {m}: sectors {first}..{first + count - 1} not checked")
        if bytes(expected) != image:
            bad = next(i for i in range(len(image)) if image[i] != expected[i])
            print(f"MISMATCH at byte {bad} (sector {bad // SECTOR}): "
                  f"image {image[bad]:#04x}, expected {expected[bad]:#04x}")
            return 1
        print(f"image verified: {len(image)} bytes, {len(modes)} pattern regions"
              f"{f', {len(anything)} not checked' if anything else ''}, rest unchanged")
        return 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
