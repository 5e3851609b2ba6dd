/* SPDX-License-Identifier: MIT */
/*
 * fuzz_common.h - what every Sluice fuzz target shares: a reader that turns the
 * fuzzer's bytes into decisions, an invariant check that traps (so libFuzzer
 * reports a crash even where no sanitizer would notice), deterministic sampling
 * of costly checks, and a DMA layer on the mock porting ops that is built once
 * per process and configuration and restored, byte for byte, before every input.
 *
 * Not a test framework: each target is one function, fuzz_<target>_one(), that
 * libFuzzer calls through fuzz_main.c and the regression test calls directly.
 *
 * Speed: libFuzzer runs millions of inputs per target, most of them a few
 * hundred bytes long, so what an input costs before its first operation decides
 * the rate. Nothing here rebuilds per input what a snapshot can restore: the
 * layer, its pool metadata and the mock's record of shared pages are copied
 * back from the state the real set-up produced, and pool memory is zeroed only
 * where the previous input wrote (see fuzz_dma_begin()).
 */
#ifndef SLUICE_TESTS_FUZZ_COMMON_H
#define SLUICE_TESTS_FUZZ_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sluice/dma.h>
#include "drivers/quarantine.h"
#include "tests/fakes/mock_port.h"

/**
 * struct fuzz_in - the fuzzer's input, consumed front to back.
 * @data: the bytes.
 * @size: their number.
 * @pos: next byte to consume; past the end every read returns zero, so a
 *	short input is a valid (boring) one rather than an error.
 * @hash: a hash of all the bytes (fuzz_in_start()), for fuzz_sampled().
 */
struct fuzz_in {
	const uint8_t *data;
	size_t size;
	size_t pos;
	uint64_t hash;
};

/**
 * fuzz_in_start() - a reader over @data, with its hash computed.
 * @data: the input.
 * @size: its length.
 * Return: the reader, positioned at the first byte.
 */
struct fuzz_in fuzz_in_start(const uint8_t *data, size_t size);

/**
 * fuzz_sampled() - whether this input runs a check that is too costly for all.
 * @in: the input.
 * @salt: tells the samples of different checks apart (any constant).
 * @one_in: the sample rate, a power of two.
 *
 * Deterministic: the same input always gets the same answer, so a crash found
 * by a sampled check replays from its file alone. The hash spreads the answer
 * over inputs that differ in any byte, so a bug that many inputs reach (as any
 * bug the fuzzer can find does) meets the check within a few times @one_in
 * executions.
 * Return: true for about one input in @one_in.
 */
static inline bool fuzz_sampled(const struct fuzz_in *in, uint64_t salt, unsigned int one_in)
{
	uint64_t h = (in->hash ^ salt) * 0x9e3779b97f4a7c15ull;

	return ((h >> 40) & (one_in - 1)) == 0;
}

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

/**
 * fuzz_bytes() - the next @len bytes of the input, as @len fuzz_u8() calls
 *	would give them (zeros past the end), in one copy.
 * @in: the input.
 * @dst: where they go.
 * @len: how many.
 */
void fuzz_bytes(struct fuzz_in *in, void *dst, size_t len);

/* A value in [0, n); n must not be 0. */
static inline uint32_t fuzz_below(struct fuzz_in *in, uint32_t n)
{
	return (n <= 256 ? fuzz_u8(in) : fuzz_u32(in)) % n;
}

/**
 * fuzz_fill() - write the harness's byte pattern: byte i is @seed + 7 i + (i >> 8).
 * @p: where.
 * @len: bytes.
 * @seed: the pattern's start.
 *
 * From a precomputed table, with memcpy: a byte loop in the harness, which is
 * instrumented like the code under test, would cost more than the driver call
 * it feeds. The pattern repeats every 64 KiB.
 */
void fuzz_fill(void *p, size_t len, uint8_t seed);

/**
 * fuzz_fill_matches() - whether @len bytes at @p still hold fuzz_fill(@seed).
 * @p: the bytes.
 * @len: their number.
 * @seed: the pattern's start.
 */
bool fuzz_fill_matches(const void *p, size_t len, uint8_t seed);

/**
 * fuzz_is_zero() - whether @len bytes at @p are all zero (memcmp, not a loop).
 * @p: the bytes.
 * @len: their number.
 */
bool fuzz_is_zero(const void *p, size_t len);

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
#define FUZZ_CHECK(cond)                                      \
	do {                                                  \
		if (__builtin_expect(!(cond), 0))             \
			fuzz_fail(__FILE__, __LINE__, #cond); \
	} while (0)

/* Bytes of each bounce pool a target may add (the largest pool any policy needs
 * for a 256-entry queue with indirect tables). */
#define FUZZ_POOL_BYTES (1u << 20)
#define FUZZ_MAX_POOLS 2
/* No second pool at set-up (fuzz_dma_begin()'s @second). */
#define FUZZ_DMA_ONE_POOL (-1)

/**
 * struct fuzz_dma - a DMA layer on mock ops, as a target sees it.
 * @mp: the mock porting ops (records what is shared).
 * @dl: the layer.
 * @npools: pools added.
 * @shared_left: bytes the target knows stay shared after teardown (memory
 *	leaked on purpose after a failed conversion back); 0 normally.
 * @deep: this input runs the layer's full self-check, sluice_dma_layer_check(), where
 *	the target would (FUZZ_DEEP_SAMPLE).
 *
 * There is one, at a fixed address, for the whole process: a target gets it
 * from fuzz_dma_begin() and hands it back with fuzz_dma_end().
 */
struct fuzz_dma {
	struct mock_port mp;
	struct sluice_dma_layer dl;
	unsigned int npools;
	size_t shared_left;
	bool deep;
};

/*
 * One input in this many runs sluice_dma_layer_check(). It walks every slot of every
 * pool through the policy (a few hundred instrumented calls), more than a short
 * input costs otherwise. What it finds - slots neither free nor mapped, counters
 * that disagree, overlapping records - stays in the layer until the input ends,
 * and the inputs that reach a bug are many (the fuzzer mutates around each one
 * it keeps), so a sampled check meets them within a few times this many runs.
 * Every input still ends with sluice_dma_layer_destroy(), which refuses a layer with
 * any slot in use, and with the mock's count of shared bytes.
 */
#define FUZZ_DEEP_SAMPLE 8u

/**
 * fuzz_dma_begin() - a layer in exactly the state sluice_dma_layer_init() and
 *	sluice_dma_bounce_pool_add() leave it in, for this input.
 * @in: the input (its hash decides the sampled checks of fuzz_dma_end()).
 * @policy: the first pool's policy.
 * @ncpus: CPUs the layer sees.
 * @scrub: its stale-data strategy.
 * @second: the policy of a second pool added right after the first, or
 *	FUZZ_DMA_ONE_POOL.
 *
 * The first input of each configuration runs the real set-up on pool memory
 * the host left garbage in (and checks that the layer scrubbed it), then keeps
 * a snapshot of every byte of state it produced: the layer, the pools'
 * metadata, the mock's shared ranges. Later inputs of that configuration get
 * the snapshot copied back, and the pool slots the previous input wrote
 * zeroed, so each input starts from the same bytes wherever it comes in the
 * run: a crash replays from its file alone.
 * Return: the layer (never NULL: a failed set-up traps).
 */
struct fuzz_dma *fuzz_dma_begin(const struct fuzz_in *in, enum sluice_dma_bounce_policy policy,
				unsigned int ncpus, enum sluice_dma_scrub scrub, int second);

/**
 * fuzz_dma_add_pool() - grow the layer by one more pool of FUZZ_POOL_BYTES, now.
 * @fd: the layer.
 * @policy: the new pool's policy.
 *
 * The real sluice_dma_bounce_pool_add(), on memory with host garbage in every slot's
 * first and last bytes (checked scrubbed when the add succeeds).
 * Return: 0, SLUICE_DMA_ERR_NOMEM when FUZZ_MAX_POOLS are in use, or the layer's code.
 */
int fuzz_dma_add_pool(struct fuzz_dma *fd, enum sluice_dma_bounce_policy policy);

/**
 * fuzz_dma_pool_mem() - the memory behind pool @i.
 * @i: pool index, below FUZZ_MAX_POOLS.
 * Return: its first byte (FUZZ_POOL_BYTES, 1 MiB aligned).
 */
unsigned char *fuzz_dma_pool_mem(unsigned int i);

/**
 * fuzz_dma_dirty() - note that the harness wrote pool memory itself.
 * @p: first byte written (anything outside the pools is ignored).
 * @len: bytes written.
 *
 * The layer's own writes (mappings, coherent memory) are noted by wrappers of
 * sluice_dma_map() and sluice_dma_alloc_coherent() (ld --wrap); a target calls this only for
 * host writes outside any mapping (scribbles over free slots).
 */
void fuzz_dma_dirty(const void *p, size_t len);

/**
 * fuzz_dma_end() - self-check, destroy, and check that nothing stays shared.
 * @fd: the layer; no mapping may be live.
 *
 * Traps (a finding) when the self-check fails (run when @fd->deep), the layer
 * refuses to go, or a converted page other than @fd->shared_left bytes was not
 * converted back.
 * On a sample of inputs (fuzz_sampled()) it also checks that every pool slot
 * the layer never handed out and the host never wrote still reads zero: the
 * layer writes nothing outside the ranges it returns.
 */
void fuzz_dma_end(struct fuzz_dma *fd);

struct fake_virtio;

/**
 * fuzz_virtio_begin() - a fake virtio device (tests/fakes/fake_virtio.h) and the DMA
 *	layer under it, both from a driver target's mode byte: bit 0 confidential,
 *	bits 1-2 the first pool's policy, bit 3 scrub=zero (else copy); one CPU.
 * @dev: the device, reset first (fake_virtio_init(), no extra features).
 * @in: the input.
 * @type: VIRTIO_ID_*.
 * @num_queues: the queue count the device reports.
 * @name: the device's name in the driver's messages.
 * @ctx: handed to the device's hooks (@dev->ctx).
 * @mode: the mode byte.
 * @second: a second pool's policy, or FUZZ_DMA_ONE_POOL.
 *
 * Return: the layer, as fuzz_dma_begin().
 */
struct fuzz_dma *fuzz_virtio_begin(struct fake_virtio *dev, const struct fuzz_in *in, uint16_t type,
				   uint16_t num_queues, const char *name, void *ctx, uint8_t mode,
				   int second);

/**
 * fuzz_dma_log_last() - the last line the layer logged (for failure messages).
 * Return: a static string.
 */
const char *fuzz_dma_log_last(void);

/**
 * fuzz_clock_start() - a deadline clock (drivers/deadline.h) that counts the
 *	driver's polls, for this input.
 * @budget: polls a device wait lasts (the device deadline).
 * @tick: if set, called at every clock read, before the time is read: the
 *	device acting while the driver waits (it may answer, or not).
 * @ctx: handed to @tick.
 *
 * One tick per read at one tick per millisecond, and a budget of @budget
 * milliseconds: a wait on a device that never answers ends after @budget
 * polls, not after the ten seconds (ten million checks) of the default.
 */
void fuzz_clock_start(unsigned int budget, void (*tick)(void *ctx), void *ctx);

/**
 * fuzz_clock_ticks() - clock reads since fuzz_clock_start().
 */
uint64_t fuzz_clock_ticks(void);

/**
 * fuzz_frees() - free() calls with a non-NULL pointer since the process
 *	started, counted through the sanitizer's allocator hooks.
 * Return: the count, or -1 in a build without a sanitizer allocator (the
 *	plain regression test), where frees cannot be seen.
 */
long fuzz_frees(void);

/**
 * struct fuzz_quarantine - what a driver held when its device was asked to
 *	reset, to check what it does when the reset fails.
 * @unmaps: DMA unmaps and coherent frees until then (all pools).
 * @frees: fuzz_frees() until then.
 * @ledger: the quarantine ledger (drivers/quarantine.h) until then.
 */
struct fuzz_quarantine {
	uint64_t unmaps;
	long frees;
	struct quarantine_totals ledger;
};

/**
 * fuzz_quarantine_mark() - note the state before a reset that may fail.
 * @q: storage.
 * @fd: the DMA layer.
 */
void fuzz_quarantine_mark(struct fuzz_quarantine *q, const struct fuzz_dma *fd);

/**
 * fuzz_quarantine_check() - the quarantine contract since fuzz_quarantine_mark():
 *	nothing unmapped, nothing freed, one device more in the ledger with
 *	exactly @bytes and @mappings.
 * @q: the mark.
 * @fd: the DMA layer.
 * @bytes: bytes the driver says it left to the device (its quarantined_bytes),
 *	already checked against the harness's own count.
 * @mappings: mappings it says it left (quarantined_mappings).
 */
void fuzz_quarantine_check(const struct fuzz_quarantine *q, const struct fuzz_dma *fd,
			   uint64_t bytes, uint64_t mappings);

/**
 * fuzz_quarantine_none() - nothing happened since fuzz_quarantine_mark() but
 *	what a completed reset allows: the ledger is unchanged.
 * @q: the mark.
 */
void fuzz_quarantine_none(const struct fuzz_quarantine *q);

/**
 * struct fuzz_range - a range of device addresses (host addresses here).
 * @addr: its first byte.
 * @len: its length.
 */
struct fuzz_range {
	uint64_t addr;
	uint64_t len;
};

/**
 * fuzz_quarantine_reuse() - what a quarantined device still holds is never
 *	handed out again: the device writes all of it (late), then the layer is
 *	asked for new mappings and coherent memory until it is full or has
 *	given a megabyte; none may overlap @held, and none may change when the
 *	device writes @held again. The new ones are released again.
 * @fd: the DMA layer.
 * @held: what the device was given and kept (rings, slots, buffers).
 * @n: their number.
 */
void fuzz_quarantine_reuse(struct fuzz_dma *fd, const struct fuzz_range *held, unsigned int n);

/* The targets: each returns 0 (libFuzzer's "keep going") or traps. */
int fuzz_virtqueue_used_one(const uint8_t *data, size_t size);
int fuzz_virtio_pci_caps_one(const uint8_t *data, size_t size);
int fuzz_virtio_blk_completion_one(const uint8_t *data, size_t size);
int fuzz_virtio_net_rx_one(const uint8_t *data, size_t size);
int fuzz_virtio_net_mq_one(const uint8_t *data, size_t size);
int fuzz_virtio_reset_one(const uint8_t *data, size_t size);
int fuzz_dma_ops_one(const uint8_t *data, size_t size);
int fuzz_pci_setup_one(const uint8_t *data, size_t size);

#endif /* SLUICE_TESTS_FUZZ_COMMON_H */
