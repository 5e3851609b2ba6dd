/* SPDX-License-Identifier: MIT */
/*
 * fuzz_common.c - the input reader's hash, the invariant trap and the DMA layer
 * the fuzz targets share (see fuzz_common.h).
 */
#include "tests/fuzz/fuzz_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drivers/deadline.h"
#include "tests/fakes/fake_virtio.h"

/* Configurations cached: every policy, 1..FUZZ_MAX_CPUS CPUs, both scrub modes,
 * no second pool or a second pool of any policy. */
#define FUZZ_MAX_CPUS 4
#define FUZZ_POOL_SLOTS (FUZZ_POOL_BYTES / SLUICE_DMA_IO_TLB_SIZE)
#define FUZZ_DIRTY_WORDS (FUZZ_POOL_SLOTS / 64)
/* Host garbage at each end of every slot of a pool added during an input. */
#define FUZZ_GARBAGE_EDGE 16u
/* One input in this many checks that pool memory nobody wrote reads zero. */
#define FUZZ_ZERO_SAMPLE 32u

/* Pool memory is static and 1 MiB aligned: a fresh allocation per input would
 * cost more than the input itself. */
static unsigned char fuzz_pool_mem[FUZZ_MAX_POOLS][FUZZ_POOL_BYTES]
	__attribute__((aligned(FUZZ_POOL_BYTES)));
/* Slots of each pool written since the last fuzz_dma_begin(): zeroed by the next. */
static uint64_t fuzz_dirty[FUZZ_MAX_POOLS][FUZZ_DIRTY_WORDS];

/**
 * struct fuzz_dma_snap - one configuration's state right after its set-up.
 * @npools: pools set up (1 or 2).
 * @meta: each pool's metadata storage, malloc'd to its exact size (ASan
 *	sees an overrun), used by this configuration only.
 * @meta_len: its size.
 * @meta_copy: its contents after the set-up.
 * @dl: the layer after the set-up.
 * @ncpus: the mock's CPU count.
 * @nshared: the mock's shared ranges ...
 * @shared: ... (one per pool).
 * @to_shared_calls: the mock's conversion counters.
 * @to_private_calls: ditto.
 * @log_lines: log lines during the set-up.
 */
struct fuzz_dma_snap {
	unsigned int npools;
	void *meta[FUZZ_MAX_POOLS];
	size_t meta_len[FUZZ_MAX_POOLS];
	void *meta_copy[FUZZ_MAX_POOLS];
	struct sluice_dma_layer dl;
	unsigned int ncpus;
	unsigned int nshared;
	struct {
		uintptr_t start, end;
	} shared[FUZZ_MAX_POOLS];
	unsigned long to_shared_calls, to_private_calls, log_lines;
};

static struct fuzz_dma fuzz_live;
static struct fuzz_dma_snap
	*fuzz_snaps[SLUICE_DMA_POLICY_COUNT][FUZZ_MAX_CPUS][2][SLUICE_DMA_POLICY_COUNT + 1];
/* Metadata of pools added during an input, per policy and CPU count. */
static void *fuzz_grow_meta[SLUICE_DMA_POLICY_COUNT][FUZZ_MAX_CPUS];
static struct fuzz_in fuzz_cur;

static char fuzz_last_log[256];
static int fuzz_verbose = -1;

/* 128 KiB of the fill pattern: any 64 KiB window of it is a contiguous copy. */
static uint8_t fuzz_pattern[2 * 65536];
static const uint8_t fuzz_zeros[65536];

struct fuzz_in fuzz_in_start(const uint8_t *data, size_t size)
{
	struct fuzz_in in = { data, size, 0, 0x51u ^ size };
	size_t i = 0;

	/* Eight bytes a step: the hash must cost nothing next to the input. */
	for (; i + 8 <= size; i += 8) {
		uint64_t w;

		memcpy(&w, data + i, 8);
		in.hash = (in.hash ^ w) * 0x100000001b3ull;
		in.hash ^= in.hash >> 29;
	}
	for (; i < size; i++)
		in.hash = (in.hash ^ data[i]) * 0x100000001b3ull;
	return in;
}

void fuzz_bytes(struct fuzz_in *in, void *dst, size_t len)
{
	size_t n = in->size - in->pos < len ? in->size - in->pos : len;

	memcpy(dst, in->data + in->pos, n);
	memset((uint8_t *)dst + n, 0, len - n);
	in->pos += n;
}

/* The pattern starting at offset @off, 64 KiB of it readable from there. */
static const uint8_t *fuzz_pattern_at(size_t off)
{
	if (!fuzz_pattern[1])
		for (size_t k = 0; k < sizeof(fuzz_pattern); k++)
			fuzz_pattern[k] = (uint8_t)(k * 7 + (k >> 8) + 1);
	return fuzz_pattern + off % 65536;
}

void fuzz_fill(void *p, size_t len, uint8_t seed)
{
	size_t off = (size_t)seed * 257u, done = 0;

	while (done < len) {
		size_t n = len - done < 65536 ? len - done : 65536;

		memcpy((uint8_t *)p + done, fuzz_pattern_at(off + done), n);
		done += n;
	}
}

bool fuzz_fill_matches(const void *p, size_t len, uint8_t seed)
{
	size_t off = (size_t)seed * 257u, done = 0;

	while (done < len) {
		size_t n = len - done < 65536 ? len - done : 65536;

		if (memcmp((const uint8_t *)p + done, fuzz_pattern_at(off + done), n))
			return false;
		done += n;
	}
	return true;
}

bool fuzz_is_zero(const void *p, size_t len)
{
	for (size_t done = 0; done < len;) {
		size_t n = len - done < sizeof(fuzz_zeros) ? len - done : sizeof(fuzz_zeros);

		if (memcmp((const uint8_t *)p + done, fuzz_zeros, n))
			return false;
		done += n;
	}
	return true;
}

void fuzz_fail(const char *file, int line, const char *what)
{
	fprintf(stderr, "fuzz: invariant broken at %s:%d: %s\n", file, line, what);
	if (fuzz_last_log[0])
		fprintf(stderr, "fuzz: last log line: %s\n", fuzz_last_log);
	__builtin_trap();
}

bool fuzz_ignored(const char *what)
{
	const char *list = getenv("SLUICE_FUZZ_IGNORE");
	size_t n = strlen(what);

	for (const char *p = list; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (!strncmp(p, what, n) && (p[n] == ',' || p[n] == '\0'))
			return true;
	return false;
}

const char *fuzz_dma_log_last(void)
{
	return fuzz_last_log;
}

/* Errors are expected by the thousand (a hostile device is logged): keep the
 * last line for a failure report, print only with SLUICE_VERBOSE set. */
static void fuzz_log(void *ctx, enum sluice_dma_log_level level, const char *msg)
{
	struct mock_port *mp = ctx;

	mp->log_lines++;
	snprintf(fuzz_last_log, sizeof(fuzz_last_log), "%s", msg);
	if (fuzz_verbose < 0)
		fuzz_verbose = getenv("SLUICE_VERBOSE") != NULL;
	if (fuzz_verbose)
		fprintf(stderr, "dma(%d): %s\n", (int)level, msg);
}

unsigned char *fuzz_dma_pool_mem(unsigned int i)
{
	return fuzz_pool_mem[i];
}

/* ------------------------------------------------------------------ dirty slots */

void fuzz_dma_dirty(const void *p, size_t len)
{
	uintptr_t a = (uintptr_t)p;

	for (unsigned int i = 0; i < FUZZ_MAX_POOLS; i++) {
		uintptr_t base = (uintptr_t)fuzz_pool_mem[i], last;
		unsigned long s, e;

		if (a < base || a - base >= FUZZ_POOL_BYTES)
			continue;
		last = len && len - 1 < base + FUZZ_POOL_BYTES - a ? a + len - 1 :
								     base + FUZZ_POOL_BYTES - 1;
		s = (a - base) >> SLUICE_DMA_IO_TLB_SHIFT;
		e = (last - base) >> SLUICE_DMA_IO_TLB_SHIFT;
		/* Word at a time: a 1 MiB coherent allocation is one call. */
		while (s <= e) {
			unsigned long bit = s % 64, n = e - s + 1 < 64 - bit ? e - s + 1 : 64 - bit;

			fuzz_dirty[i][s / 64] |= (n == 64 ? ~0ull : ((1ull << n) - 1)) << bit;
			s += n;
		}
		return;
	}
}

/* Zero every slot of pool @i written since the last call. */
static void fuzz_pool_clean(unsigned int i)
{
	for (unsigned int w = 0; w < FUZZ_DIRTY_WORDS; w++) {
		uint64_t bits = fuzz_dirty[i][w];

		while (bits) {
			unsigned int lo = (unsigned int)__builtin_ctzll(bits), n;
			uint64_t rest = bits >> lo;

			/* The run of set bits from @lo (zeros shift in above it). */
			n = ~rest ? (unsigned int)__builtin_ctzll(~rest) : 64;
			memset(fuzz_pool_mem[i] + ((size_t)w * 64 + lo) * SLUICE_DMA_IO_TLB_SIZE, 0,
			       (size_t)n * SLUICE_DMA_IO_TLB_SIZE);
			bits &= n == 64 ? 0 : ~(((1ull << n) - 1) << lo);
		}
		fuzz_dirty[i][w] = 0;
	}
}

/* Whether every slot of pool @i nobody wrote reads zero (the sampled check). */
static bool fuzz_pool_clean_is_zero(unsigned int i)
{
	for (unsigned int s = 0; s < FUZZ_POOL_SLOTS;) {
		unsigned int e = s;

		if (fuzz_dirty[i][s / 64] >> (s % 64) & 1) {
			s++;
			continue;
		}
		while (e < FUZZ_POOL_SLOTS && !(fuzz_dirty[i][e / 64] >> (e % 64) & 1))
			e++;
		if (!fuzz_is_zero(fuzz_pool_mem[i] + (size_t)s * SLUICE_DMA_IO_TLB_SIZE,
				  (size_t)(e - s) * SLUICE_DMA_IO_TLB_SIZE))
			return false;
		s = e;
	}
	return true;
}

/* The layer's own writes to pool memory all land in ranges these two return:
 * ld --wrap sends the product's calls through here (tests/fuzz/fuzz.mk). */
int __real_sluice_dma_map(struct sluice_dma_layer *dl, const struct sluice_dma_tag *tag, void *buf,
			  size_t len, enum sluice_dma_dir dir, uint64_t *dma_addr);
int __real_sluice_dma_map_attrs(struct sluice_dma_layer *dl, const struct sluice_dma_tag *tag,
				void *buf, size_t *len, enum sluice_dma_dir dir, unsigned int attrs,
				uint64_t *dma_addr);
void *__real_sluice_dma_alloc_coherent(struct sluice_dma_layer *dl,
				       const struct sluice_dma_tag *tag, size_t size,
				       uint64_t *dma_addr);
int __wrap_sluice_dma_map_attrs(struct sluice_dma_layer *dl, const struct sluice_dma_tag *tag,
				void *buf, size_t *len, enum sluice_dma_dir dir, unsigned int attrs,
				uint64_t *dma_addr);
int __wrap_sluice_dma_map(struct sluice_dma_layer *dl, const struct sluice_dma_tag *tag, void *buf,
			  size_t len, enum sluice_dma_dir dir, uint64_t *dma_addr);
void *__wrap_sluice_dma_alloc_coherent(struct sluice_dma_layer *dl,
				       const struct sluice_dma_tag *tag, size_t size,
				       uint64_t *dma_addr);

int __wrap_sluice_dma_map(struct sluice_dma_layer *dl, const struct sluice_dma_tag *tag, void *buf,
			  size_t len, enum sluice_dma_dir dir, uint64_t *dma_addr)
{
	int rc = __real_sluice_dma_map(dl, tag, buf, len, dir, dma_addr);

	if (!rc)
		fuzz_dma_dirty((const void *)(uintptr_t)*dma_addr, len);
	return rc;
}

/* virtio_blk maps its segments with attributes (SLUICE_DMA_ATTR_UNMAP_WRITTEN). */
int __wrap_sluice_dma_map_attrs(struct sluice_dma_layer *dl, const struct sluice_dma_tag *tag,
				void *buf, size_t *len, enum sluice_dma_dir dir, unsigned int attrs,
				uint64_t *dma_addr)
{
	int rc = __real_sluice_dma_map_attrs(dl, tag, buf, len, dir, attrs, dma_addr);

	if (!rc)
		fuzz_dma_dirty((const void *)(uintptr_t)*dma_addr, *len);
	return rc;
}

void *__wrap_sluice_dma_alloc_coherent(struct sluice_dma_layer *dl,
				       const struct sluice_dma_tag *tag, size_t size,
				       uint64_t *dma_addr)
{
	void *va = __real_sluice_dma_alloc_coherent(dl, tag, size, dma_addr);

	if (va)
		fuzz_dma_dirty(va, size);
	return va;
}

/* ------------------------------------------------------------------ the layer */

/* The real set-up of one configuration, on garbage, and its snapshot. */
static struct fuzz_dma_snap *fuzz_dma_build(enum sluice_dma_bounce_policy policy,
					    unsigned int ncpus, enum sluice_dma_scrub scrub,
					    int second)
{
	struct fuzz_dma_snap *snap = calloc(1, sizeof(*snap));
	struct fuzz_dma *fd = &fuzz_live;
	struct mock_port *mp = &fd->mp;

	FUZZ_CHECK(snap != NULL);
	mock_port_init(mp, ncpus);
	mp->ops.log = fuzz_log;
	FUZZ_CHECK(sluice_dma_layer_init(&fd->dl, &mp->ops, ncpus, scrub) == 0);
	/* As the kernel runs: a driver's bad unmap or free is a crash, a finding. */
	FUZZ_CHECK(sluice_dma_layer_set_strict(&fd->dl, true) == 0);
	snap->npools = second == FUZZ_DMA_ONE_POOL ? 1 : 2;
	for (unsigned int i = 0; i < snap->npools; i++) {
		enum sluice_dma_bounce_policy pol = i ? (enum sluice_dma_bounce_policy)second :
							policy;

		snap->meta_len[i] = sluice_dma_bounce_meta_size(pol, FUZZ_POOL_BYTES, ncpus);
		snap->meta[i] = malloc(snap->meta_len[i]);
		snap->meta_copy[i] = malloc(snap->meta_len[i]);
		FUZZ_CHECK(snap->meta[i] && snap->meta_copy[i]);
		/* Garbage the host left in the pages: the layer must scrub it. */
		memset(fuzz_pool_mem[i], 0xa5, FUZZ_POOL_BYTES);
		FUZZ_CHECK(sluice_dma_bounce_pool_add(&fd->dl, pol, fuzz_pool_mem[i],
						      FUZZ_POOL_BYTES, snap->meta[i],
						      snap->meta_len[i]) == 0);
		FUZZ_CHECK(fuzz_is_zero(fuzz_pool_mem[i], FUZZ_POOL_BYTES));
	}
	/* After the last add: it links its pool into the previous one's metadata. */
	for (unsigned int i = 0; i < snap->npools; i++)
		memcpy(snap->meta_copy[i], snap->meta[i], snap->meta_len[i]);
	memcpy(&snap->dl, &fd->dl, sizeof(fd->dl));
	snap->ncpus = mp->ncpus;
	FUZZ_CHECK(mp->nshared <= FUZZ_MAX_POOLS);
	snap->nshared = mp->nshared;
	memcpy(snap->shared, mp->shared, mp->nshared * sizeof(mp->shared[0]));
	snap->to_shared_calls = mp->to_shared_calls;
	snap->to_private_calls = mp->to_private_calls;
	snap->log_lines = mp->log_lines;
	return snap;
}

struct fuzz_dma *fuzz_dma_begin(const struct fuzz_in *in, enum sluice_dma_bounce_policy policy,
				unsigned int ncpus, enum sluice_dma_scrub scrub, int second)
{
	struct fuzz_dma *fd = &fuzz_live;
	struct mock_port *mp = &fd->mp;
	struct fuzz_dma_snap **slot, *snap;

	FUZZ_CHECK(policy < SLUICE_DMA_POLICY_COUNT && ncpus >= 1 && ncpus <= FUZZ_MAX_CPUS &&
		   (scrub == SLUICE_DMA_SCRUB_COPY || scrub == SLUICE_DMA_SCRUB_ZERO) &&
		   second >= FUZZ_DMA_ONE_POOL && second < SLUICE_DMA_POLICY_COUNT);
	fuzz_cur = *in;
	fuzz_last_log[0] = '\0';
	/* Whatever the previous input wrote goes back to the zeros the set-up left. */
	for (unsigned int i = 0; i < FUZZ_MAX_POOLS; i++)
		fuzz_pool_clean(i);
	slot = &fuzz_snaps[policy][ncpus - 1][scrub][second + 1];
	if (!*slot) {
		*slot = fuzz_dma_build(policy, ncpus, scrub, second);
	} else {
		snap = *slot;
		memcpy(&fd->dl, &snap->dl, sizeof(fd->dl));
		for (unsigned int i = 0; i < snap->npools; i++)
			memcpy(snap->meta[i], snap->meta_copy[i], snap->meta_len[i]);
		mp->ncpus = snap->ncpus;
		mp->nshared = snap->nshared;
		memcpy(mp->shared, snap->shared, snap->nshared * sizeof(mp->shared[0]));
		mp->to_shared_calls = snap->to_shared_calls;
		mp->to_private_calls = snap->to_private_calls;
		mp->fail_to_shared_after = -1;
		mp->fail_to_private_after = -1;
		mp->log_lines = snap->log_lines;
	}
	fd->npools = (*slot)->npools;
	fd->shared_left = 0;
	fd->deep = fuzz_sampled(in, 0xdee9, FUZZ_DEEP_SAMPLE);
	mock_port_set_cpu(0);
	return fd;
}

int fuzz_dma_add_pool(struct fuzz_dma *fd, enum sluice_dma_bounce_policy policy)
{
	unsigned int n = fd->npools, ncpus = fd->dl.ncpus;
	size_t meta_len;
	unsigned char *mem;
	void **meta;
	int err;

	if (n >= FUZZ_MAX_POOLS)
		return SLUICE_DMA_ERR_NOMEM;
	FUZZ_CHECK(policy < SLUICE_DMA_POLICY_COUNT && ncpus >= 1 && ncpus <= FUZZ_MAX_CPUS);
	meta_len = sluice_dma_bounce_meta_size(policy, FUZZ_POOL_BYTES, ncpus);
	meta = &fuzz_grow_meta[policy][ncpus - 1];
	if (!*meta)
		*meta = malloc(meta_len);
	FUZZ_CHECK(*meta != NULL);
	/* What malloc would have left, whatever the previous input did with it. */
	memset(*meta, 0xbe, meta_len);
	/*
	 * Garbage the host left in the pages, at both ends of every slot (all of
	 * it would cost a megabyte per input): the layer must scrub it.
	 */
	mem = fuzz_pool_mem[n];
	for (size_t s = 0; s < FUZZ_POOL_BYTES; s += SLUICE_DMA_IO_TLB_SIZE) {
		memset(mem + s, 0xa5, FUZZ_GARBAGE_EDGE);
		memset(mem + s + SLUICE_DMA_IO_TLB_SIZE - FUZZ_GARBAGE_EDGE, 0xa5,
		       FUZZ_GARBAGE_EDGE);
	}
	err = sluice_dma_bounce_pool_add(&fd->dl, policy, mem, FUZZ_POOL_BYTES, *meta, meta_len);
	for (size_t s = 0; s < FUZZ_POOL_BYTES; s += SLUICE_DMA_IO_TLB_SIZE) {
		/* Scrubbed by the layer; or refused, and back to zero for the next input. */
		if (!err)
			FUZZ_CHECK(
				fuzz_is_zero(mem + s, FUZZ_GARBAGE_EDGE) &&
				fuzz_is_zero(mem + s + SLUICE_DMA_IO_TLB_SIZE - FUZZ_GARBAGE_EDGE,
					     FUZZ_GARBAGE_EDGE));
		memset(mem + s, 0, FUZZ_GARBAGE_EDGE);
		memset(mem + s + SLUICE_DMA_IO_TLB_SIZE - FUZZ_GARBAGE_EDGE, 0, FUZZ_GARBAGE_EDGE);
	}
	if (err)
		return err;
	fd->npools++;
	return 0;
}

void fuzz_dma_end(struct fuzz_dma *fd)
{
	if (fd->deep)
		FUZZ_CHECK(sluice_dma_layer_check(&fd->dl) == 0);
	FUZZ_CHECK(sluice_dma_layer_destroy(&fd->dl) == 0);
	FUZZ_CHECK(mock_port_shared_bytes(&fd->mp) == fd->shared_left);
	if (fuzz_sampled(&fuzz_cur, 0x2e60, FUZZ_ZERO_SAMPLE))
		for (unsigned int i = 0; i < FUZZ_MAX_POOLS; i++)
			FUZZ_CHECK(fuzz_pool_clean_is_zero(i));
	mock_port_set_cpu(0);
}

/* ------------------------------------------------------------------ deadlines */

static uint64_t fuzz_ticks;
static void (*fuzz_tick)(void *ctx);
static void *fuzz_tick_ctx;

static uint64_t fuzz_clock_now(void *ctx)
{
	(void)ctx;
	if (fuzz_tick)
		fuzz_tick(fuzz_tick_ctx);
	return ++fuzz_ticks;
}

void fuzz_clock_start(unsigned int budget, void (*tick)(void *ctx), void *ctx)
{
	fuzz_ticks = 0;
	fuzz_tick = tick;
	fuzz_tick_ctx = ctx;
	deadline_set_clock(fuzz_clock_now, NULL, 1);
	deadline_set_timeout_ms(budget);
}

uint64_t fuzz_clock_ticks(void)
{
	return fuzz_ticks;
}

/* ------------------------------------------------------------------ quarantine */

/* The sanitizers' allocator hooks; absent (NULL) in a build without one. */
int __sanitizer_install_malloc_and_free_hooks(void (*malloc_hook)(const volatile void *, size_t),
					      void (*free_hook)(const volatile void *))
	__attribute__((weak));

static long fuzz_free_calls = -1;

static void fuzz_free_hook(const volatile void *p)
{
	if (p)
		fuzz_free_calls++;
}

long fuzz_frees(void)
{
	static bool tried;

	if (!tried) {
		tried = true;
		if (__sanitizer_install_malloc_and_free_hooks &&
		    __sanitizer_install_malloc_and_free_hooks(NULL, fuzz_free_hook))
			fuzz_free_calls = 0;
	}
	return fuzz_free_calls;
}

void fuzz_quarantine_mark(struct fuzz_quarantine *q, const struct fuzz_dma *fd)
{
	struct sluice_dma_bounce_stats st;

	FUZZ_CHECK(sluice_dma_bounce_stats_get(&fd->dl, -1, &st) == 0);
	q->unmaps = st.unmaps;
	q->frees = fuzz_frees();
	quarantine_totals_get(&q->ledger);
}

void fuzz_quarantine_check(const struct fuzz_quarantine *q, const struct fuzz_dma *fd,
			   uint64_t bytes, uint64_t mappings)
{
	struct quarantine_totals now;
	struct sluice_dma_bounce_stats st;

	/* Nothing the device was given went back to the pools or the heap. */
	FUZZ_CHECK(sluice_dma_bounce_stats_get(&fd->dl, -1, &st) == 0);
	FUZZ_CHECK(st.unmaps == q->unmaps);
	FUZZ_CHECK(fuzz_frees() == q->frees);
	/* Counted once, with what the driver says it kept. */
	quarantine_totals_get(&now);
	FUZZ_CHECK(now.devices == q->ledger.devices + 1);
	FUZZ_CHECK(now.bytes == q->ledger.bytes + bytes);
	FUZZ_CHECK(now.mappings == q->ledger.mappings + mappings);
}

void fuzz_quarantine_none(const struct fuzz_quarantine *q)
{
	struct quarantine_totals now;

	quarantine_totals_get(&now);
	FUZZ_CHECK(now.devices == q->ledger.devices && now.bytes == q->ledger.bytes &&
		   now.mappings == q->ledger.mappings);
}

/* New mappings of fuzz_quarantine_reuse(): 16 of 64 KiB and 16 pages of
 * coherent memory, as much as a 1 MiB pool has once its rings are out. */
#define FUZZ_REUSE_MAPS 16u
#define FUZZ_REUSE_BYTES (64u * 1024u)

static uint8_t fuzz_reuse_buf[FUZZ_REUSE_MAPS][FUZZ_REUSE_BYTES];

static bool fuzz_overlaps(uint64_t a, uint64_t len, const struct fuzz_range *held, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		if (a < held[i].addr + held[i].len && held[i].addr < a + len)
			return true;
	return false;
}

static void fuzz_late_writes(const struct fuzz_range *held, unsigned int n, uint8_t v)
{
	for (unsigned int i = 0; i < n; i++)
		memset((void *)(uintptr_t)held[i].addr, v, held[i].len);
}

void fuzz_quarantine_reuse(struct fuzz_dma *fd, const struct fuzz_range *held, unsigned int n)
{
	const struct sluice_dma_tag tag = SLUICE_DMA_TAG_DEFAULT;
	uint64_t map[FUZZ_REUSE_MAPS], coh_dma[FUZZ_REUSE_MAPS];
	void *coh[FUZZ_REUSE_MAPS];
	unsigned int nmap = 0, ncoh = 0;

	fuzz_late_writes(held, n, 0xee);
	for (; nmap < FUZZ_REUSE_MAPS; nmap++) {
		fuzz_fill(fuzz_reuse_buf[nmap], FUZZ_REUSE_BYTES, (uint8_t)nmap);
		if (sluice_dma_map(&fd->dl, &tag, fuzz_reuse_buf[nmap], FUZZ_REUSE_BYTES,
				   SLUICE_DMA_TO_DEVICE, &map[nmap]))
			break;
		FUZZ_CHECK(!fuzz_overlaps(map[nmap], FUZZ_REUSE_BYTES, held, n));
	}
	for (; ncoh < FUZZ_REUSE_MAPS; ncoh++) {
		coh[ncoh] = sluice_dma_alloc_coherent(&fd->dl, &tag, SLUICE_DMA_PAGE_SIZE,
						      &coh_dma[ncoh]);
		if (!coh[ncoh])
			break;
		FUZZ_CHECK(!fuzz_overlaps(coh_dma[ncoh], SLUICE_DMA_PAGE_SIZE, held, n));
	}
	/* The device writes what it holds again: nothing new changes. */
	fuzz_late_writes(held, n, 0x11);
	for (unsigned int i = 0; i < nmap; i++) {
		FUZZ_CHECK(fuzz_fill_matches((const void *)(uintptr_t)map[i], FUZZ_REUSE_BYTES,
					     (uint8_t)i));
		sluice_dma_unmap(&fd->dl, map[i], FUZZ_REUSE_BYTES, SLUICE_DMA_TO_DEVICE);
	}
	for (unsigned int i = 0; i < ncoh; i++) {
		FUZZ_CHECK(fuzz_is_zero(coh[i], SLUICE_DMA_PAGE_SIZE));
		sluice_dma_free_coherent(&fd->dl, coh[i], SLUICE_DMA_PAGE_SIZE);
	}
}

struct fuzz_dma *fuzz_virtio_begin(struct fake_virtio *dev, const struct fuzz_in *in, uint16_t type,
				   uint16_t num_queues, const char *name, void *ctx, uint8_t mode,
				   int second)
{
	fake_virtio_init(dev, type, 0, num_queues);
	dev->vdev.confidential = mode & 1;
	snprintf(dev->vdev.name, sizeof(dev->vdev.name), "%s", name);
	dev->ctx = ctx;
	return fuzz_dma_begin(
		in, (enum sluice_dma_bounce_policy)(((mode >> 1) & 3) % SLUICE_DMA_POLICY_COUNT), 1,
		(mode & 8) ? SLUICE_DMA_SCRUB_ZERO : SLUICE_DMA_SCRUB_COPY, second);
}
