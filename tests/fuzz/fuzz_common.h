/* SPDX-License-Identifier: MIT */
/*
 * fuzz_common.h - what every Sluice fuzz target shares: a reader that turns the
 * fuzzer's bytes into decisions, an invariant check that traps (so libFuzzer
 * reports a crash even where no sanitizer would notice), and a DMA layer on the
 * mock porting ops with pool memory that lives for the whole process.
 *
 * Not a test framework: each target is one function, fuzz_<target>_one(), that
 * libFuzzer calls through fuzz_main.c and the regression test calls directly.
 */
#ifndef SLUICE_TESTS_FUZZ_COMMON_H
#define SLUICE_TESTS_FUZZ_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dma/dma.h"
#include "tests/mock_port.h"

/**
 * struct fuzz_in - the fuzzer's input, consumed front to back.
 * @data: the bytes.
 * @size: their number.
 * @pos: next byte to consume; past the end every read returns zero, so a
 *	short input is a valid (boring) one rather than an error.
 */
struct fuzz_in {
	const uint8_t *data;
	size_t size;
	size_t pos;
};

static inline bool fuzz_more(const struct fuzz_in *in)
{
	return in->pos < in->size;
}

static inline uint8_t fuzz_u8(struct fuzz_in *in)
{
	return in->pos < in->size ? in->data[in->pos++] : 0;
}

static inline uint16_t fuzz_u16(struct fuzz_in *in)
{
	uint16_t lo = fuzz_u8(in);

	return (uint16_t)(lo | (uint16_t)fuzz_u8(in) << 8);
}

static inline uint32_t fuzz_u32(struct fuzz_in *in)
{
	uint32_t lo = fuzz_u16(in);

	return lo | (uint32_t)fuzz_u16(in) << 16;
}

static inline uint64_t fuzz_u64(struct fuzz_in *in)
{
	uint64_t lo = fuzz_u32(in);

	return lo | (uint64_t)fuzz_u32(in) << 32;
}

/* A value in [0, n); n must not be 0. */
static inline uint32_t fuzz_below(struct fuzz_in *in, uint32_t n)
{
	return (n <= 256 ? fuzz_u8(in) : fuzz_u32(in)) % n;
}

/**
 * fuzz_fail() - report a broken invariant and trap.
 * @file: source file of the check.
 * @line: its line.
 * @what: the condition, as text.
 *
 * A trap rather than abort(): libFuzzer and the host test both see a crash,
 * and a debugger stops right at the check.
 */
_Noreturn void fuzz_fail(const char *file, int line, const char *what);

/**
 * fuzz_ignored() - whether a known product bug is to be looked past.
 * @what: the bug's short name, as listed in the target's header comment.
 *
 * SLUICE_FUZZ_IGNORE holds a comma-separated list of names. A target skips
 * the inputs (or the one check) that would hit a named bug, so that a run can
 * find other bugs until it is fixed. Unset, nothing is skipped: a clean run
 * means no known bug is left.
 * Return: true if @what is in the list.
 */
bool fuzz_ignored(const char *what);

/* Check an invariant of the code under test; a failure is a finding. */
#define FUZZ_CHECK(cond)                                                \
	do {                                                            \
		if (__builtin_expect(!(cond), 0))                       \
			fuzz_fail(__FILE__, __LINE__, #cond);           \
	} while (0)

/* Bytes of each bounce pool a target may add (the largest pool any policy needs
 * for a 256-entry queue with indirect tables). */
#define FUZZ_POOL_BYTES (1u << 20)
#define FUZZ_MAX_POOLS 2

/**
 * struct fuzz_dma - a DMA layer on mock ops, rebuilt for every input.
 * @mp: the mock porting ops (records what is shared).
 * @dl: the layer.
 * @npools: pools added.
 * @meta: their metadata (malloc'd, so ASan sees overruns).
 * @shared_left: bytes the target knows stay shared after teardown (memory
 *	leaked on purpose after a failed conversion back); 0 normally.
 */
struct fuzz_dma {
	struct mock_port mp;
	struct dma_layer dl;
	unsigned int npools;
	void *meta[FUZZ_MAX_POOLS];
	size_t shared_left;
};

/**
 * fuzz_dma_init() - a layer with one pool of FUZZ_POOL_BYTES.
 * @fd: storage.
 * @policy: the pool's policy.
 * @ncpus: CPUs the layer sees.
 * @scrub: its stale-data strategy.
 * Return: 0, or a DMA_ERR_* code (a set-up failure is a finding too).
 */
int fuzz_dma_init(struct fuzz_dma *fd, enum dma_bounce_policy policy, unsigned int ncpus,
		  enum dma_scrub scrub);

/**
 * fuzz_dma_add_pool() - grow the layer by one more pool of FUZZ_POOL_BYTES.
 * @fd: the layer.
 * @policy: the new pool's policy.
 * Return: 0, DMA_ERR_NOMEM when FUZZ_MAX_POOLS are in use, or the layer's code.
 */
int fuzz_dma_add_pool(struct fuzz_dma *fd, enum dma_bounce_policy policy);

/**
 * fuzz_dma_pool_mem() - the memory behind pool @i.
 * @i: pool index, below FUZZ_MAX_POOLS.
 * Return: its first byte (FUZZ_POOL_BYTES, 1 MiB aligned).
 */
unsigned char *fuzz_dma_pool_mem(unsigned int i);

/**
 * fuzz_dma_fini() - self-check, destroy, and check that nothing stays shared.
 * @fd: the layer; no mapping may be live.
 *
 * Traps (a finding) when the self-check fails, the layer refuses to go, or a
 * converted page other than @fd->shared_left bytes was not converted back.
 */
void fuzz_dma_fini(struct fuzz_dma *fd);

/**
 * fuzz_dma_log_last() - the last line the layer logged (for failure messages).
 * Return: a static string.
 */
const char *fuzz_dma_log_last(void);

/* The targets: each returns 0 (libFuzzer's "keep going") or traps. */
int fuzz_virtqueue_used_one(const uint8_t *data, size_t size);
int fuzz_virtio_pci_caps_one(const uint8_t *data, size_t size);
int fuzz_virtio_blk_completion_one(const uint8_t *data, size_t size);
int fuzz_virtio_net_rx_one(const uint8_t *data, size_t size);
int fuzz_dma_ops_one(const uint8_t *data, size_t size);

#endif /* SLUICE_TESTS_FUZZ_COMMON_H */
