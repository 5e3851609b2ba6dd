/* SPDX-License-Identifier: MIT */
/*
 * cksum.h - the POSIX cksum checksum (CRC-32, polynomial 0x04C11DB7, MSB first,
 * length appended, complemented), so that a checksum the kernel prints can be
 * compared with `cksum FILE` on the host.
 */
#ifndef SLUICE_BENCH_CKSUM_H
#define SLUICE_BENCH_CKSUM_H

#include <stddef.h>
#include <stdint.h>

/**
 * struct cksum - running state.
 * @crc: CRC register.
 * @length: bytes fed so far.
 */
struct cksum {
	uint32_t crc;
	uint64_t length;
};

/**
 * cksum_init() - start a checksum.
 * @c: the state.
 */
void cksum_init(struct cksum *c);

/**
 * cksum_update() - feed bytes.
 * @c: the state.
 * @data: bytes.
 * @len: how many.
 */
void cksum_update(struct cksum *c, const void *data, size_t len);

/**
 * cksum_final() - the value `cksum` prints for the bytes fed.
 * @c: the state (unchanged).
 * Return: the checksum.
 */
uint32_t cksum_final(const struct cksum *c);

#endif /* SLUICE_BENCH_CKSUM_H */
