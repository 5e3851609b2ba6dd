/* SPDX-License-Identifier: MIT */
/*
 * arith.h - 64-bit helpers that compile to plain instructions on every target
 * the library is built for (dma/README.md, "Portable builds"). Internal to dma/.
 *
 * On a 32-bit target (i386) a 64-bit division or __builtin_ctzll becomes a
 * call into libgcc (__udivdi3, __udivmoddi4, __ctzdi2), and a 64-bit __atomic
 * load one into libatomic (__atomic_load_8) when the compiler has no lock-free
 * way to do it (gcc -m32 -mgeneral-regs-only; clang -m32 on a 4-byte-aligned
 * field). Firmware often links neither, and the library promises to need
 * nothing but memcpy, memset and memcmp (scripts/check-lib-symbols.sh checks
 * every portable build for it). These helpers keep to 32-bit operations there.
 */
#ifndef SLUICE_DMA_ARITH_H
#define SLUICE_DMA_ARITH_H

#include <stdint.h>

/* Count of trailing zero bits of @w, which must not be 0. */
static inline unsigned int dma_ctz64(uint64_t w)
{
#if UINTPTR_MAX >= UINT64_MAX
	return (unsigned int)__builtin_ctzll(w);
#else
	return (uint32_t)w ? (unsigned int)__builtin_ctz((uint32_t)w) :
			     32u + (unsigned int)__builtin_ctz((uint32_t)(w >> 32));
#endif
}

/*
 * *v /= d and return the remainder, for 2 <= d <= 16 (number formatting):
 * long division in 16-bit digits, so that no step divides more than 32 bits.
 */
static inline unsigned int dma_divmod_small(uint64_t *v, unsigned int d)
{
#if UINTPTR_MAX >= UINT64_MAX
	unsigned int r = (unsigned int)(*v % d);

	*v /= d;
	return r;
#else
	uint64_t q = 0;
	uint32_t r = 0;

	for (int s = 48; s >= 0; s -= 16) {
		uint32_t cur = r << 16 | (uint32_t)(*v >> s & 0xffffu);

		q |= (uint64_t)(cur / d) << s;
		r = cur % d;
	}
	*v = q;
	return r;
#endif
}

/*
 * @n / @d for any non-zero 32-bit @d, without a libgcc call on 32-bit targets:
 * shift and subtract, 64 steps there, so for set-up paths only.
 */
static inline uint64_t dma_div64(uint64_t n, uint32_t d)
{
#if UINTPTR_MAX >= UINT64_MAX
	return n / d;
#else
	uint64_t q = 0, r = 0;

	for (int i = 63; i >= 0; i--) {
		r = r << 1 | (n >> i & 1);
		if (r >= d) {
			r -= d;
			q |= (uint64_t)1 << i;
		}
	}
	return q;
#endif
}

/*
 * A relaxed read of a 64-bit counter that another CPU may be writing, where a
 * stale or, on a 32-bit target, torn value does no harm: a sampling choice,
 * or a statistic read while its owner counts on (arena_stats.c).
 */
static inline uint64_t dma_peek_u64(const uint64_t *p)
{
#if UINTPTR_MAX >= UINT64_MAX
	return __atomic_load_n(p, __ATOMIC_RELAXED);
#else
	return *(const volatile uint64_t *)p;
#endif
}

#endif /* SLUICE_DMA_ARITH_H */
