/* SPDX-License-Identifier: MIT */
/*
 * cksum.c - POSIX cksum, table driven (one table lookup per byte).
 */
#include "app/cksum.h"

static uint32_t cksum_table[256];

static void cksum_make_table(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i << 24;

		for (int k = 0; k < 8; k++)
			c = (c & 0x80000000u) ? (c << 1) ^ 0x04C11DB7u : c << 1;
		cksum_table[i] = c;
	}
}

void cksum_init(struct cksum *c)
{
	if (!cksum_table[1])
		cksum_make_table();
	c->crc = 0;
	c->length = 0;
}

static uint32_t cksum_byte(uint32_t crc, uint8_t b)
{
	return (crc << 8) ^ cksum_table[(crc >> 24) ^ b];
}

void cksum_update(struct cksum *c, const void *data, size_t len)
{
	const uint8_t *p = data;
	uint32_t crc = c->crc;

	for (size_t i = 0; i < len; i++)
		crc = cksum_byte(crc, p[i]);
	c->crc = crc;
	c->length += len;
}

uint32_t cksum_final(const struct cksum *c)
{
	uint32_t crc = c->crc;

	/* The length goes in least significant byte first, without leading zeros. */
	for (uint64_t n = c->length; n; n >>= 8)
		crc = cksum_byte(crc, (uint8_t)n);
	return ~crc;
}
