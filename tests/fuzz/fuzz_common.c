/* SPDX-License-Identifier: MIT */
/*
 * fuzz_common.c - the invariant trap and the DMA layer the fuzz targets share
 * (see fuzz_common.h).
 */
#include "tests/fuzz/fuzz_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Pool memory is static: a fresh 1 MiB-aligned allocation per input would cost
 * more than the input itself. Every input starts by converting and zeroing it. */
static unsigned char fuzz_pool_mem[FUZZ_MAX_POOLS][FUZZ_POOL_BYTES]
	__attribute__((aligned(FUZZ_POOL_BYTES)));

static char fuzz_last_log[256];

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
static void fuzz_log(void *ctx, enum dma_log_level level, const char *msg)
{
	struct mock_port *mp = ctx;

	mp->log_lines++;
	snprintf(fuzz_last_log, sizeof(fuzz_last_log), "%s", msg);
	if (getenv("SLUICE_VERBOSE"))
		fprintf(stderr, "dma(%d): %s\n", (int)level, msg);
}

unsigned char *fuzz_dma_pool_mem(unsigned int i)
{
	return fuzz_pool_mem[i];
}

int fuzz_dma_add_pool(struct fuzz_dma *fd, enum dma_bounce_policy policy)
{
	size_t meta_len = dma_bounce_meta_size(policy, FUZZ_POOL_BYTES, fd->dl.ncpus);
	void *meta;
	int err;

	if (fd->npools >= FUZZ_MAX_POOLS)
		return DMA_ERR_NOMEM;
	meta = malloc(meta_len);
	if (!meta)
		return DMA_ERR_NOMEM;
	/* Garbage the host left in the pages: the layer must scrub it. A fixed
	 * pattern, not the previous input's leftovers, so that a crash replays. */
	memset(fuzz_pool_mem[fd->npools], 0xa5, FUZZ_POOL_BYTES);
	err = dma_bounce_pool_add(&fd->dl, policy, fuzz_pool_mem[fd->npools], FUZZ_POOL_BYTES, meta,
				  meta_len);
	if (err) {
		free(meta);
		return err;
	}
	fd->meta[fd->npools++] = meta;
	return 0;
}

int fuzz_dma_init(struct fuzz_dma *fd, enum dma_bounce_policy policy, unsigned int ncpus,
		  enum dma_scrub scrub)
{
	int err;

	fuzz_last_log[0] = '\0';
	mock_port_init(&fd->mp, ncpus);
	fd->mp.ops.log = fuzz_log;
	fd->npools = 0;
	fd->shared_left = 0;
	err = dma_layer_init(&fd->dl, &fd->mp.ops, ncpus, scrub);
	if (err)
		return err;
	return fuzz_dma_add_pool(fd, policy);
}

void fuzz_dma_fini(struct fuzz_dma *fd)
{
	FUZZ_CHECK(dma_layer_check(&fd->dl) == 0);
	FUZZ_CHECK(dma_layer_destroy(&fd->dl) == 0);
	FUZZ_CHECK(mock_port_shared_bytes(&fd->mp) == fd->shared_left);
	for (unsigned int i = 0; i < fd->npools; i++)
		free(fd->meta[i]);
	fd->npools = 0;
	mock_port_set_cpu(0);
}
