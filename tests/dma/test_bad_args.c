/* SPDX-License-Identifier: MIT */
/*
 * test_bad_args.c - every exported function of the DMA library (dma/include/sluice/dma.h,
 * dma/include/sluice/arena.h, and the pool internals of dma/bounce.h) called with each kind of
 * bad argument, from one table of rows per API area: bad_args_layer.c (the layer and its
 * queries), bad_args_pool.c (bounce pools), bad_args_map.c (tags, map, attributes,
 * scatter-gather), bad_args_unmap.c, bad_args_sync.c, bad_args_coherent.c, bad_args_bounce.c
 * (dma/bounce.h) and bad_args_arena.c; what they share is in bad_args.h. This file sets up
 * the live state, runs each row and checks that it changed nothing.
 *
 * A row is one call. It either must return a given value (an error code, NULL,
 * 0 / false) and change nothing - checked in the process against a live layer
 * with bounce mappings in every direction, coherent memory, an arena block
 * mapped in place, and the bytes a device wrote - or it must trap (SIGILL)
 * after logging a line that names the address or argument, checked in a forked
 * child whose stderr is captured. A row with no text only has to trap: the
 * layer or arena it was given is NULL or was never initialised, so there is no
 * log op to print through. The rules are in the comment at the top of
 * dma/include/sluice/dma.h.
 *
 * Rows that touch the bounce pools run once per policy; arena rows run once.
 */
#include "tests/dma/bad_args.h"

/* The areas, each a table of rows (bad_args_<area>.c). */
static const struct {
	const struct row *rows;
	const size_t *n;
} areas[] = {
	{ bad_args_layer_rows, &bad_args_layer_nrows },
	{ bad_args_pool_rows, &bad_args_pool_nrows },
	{ bad_args_map_rows, &bad_args_map_nrows },
	{ bad_args_unmap_rows, &bad_args_unmap_nrows },
	{ bad_args_sync_rows, &bad_args_sync_nrows },
	{ bad_args_coherent_rows, &bad_args_coherent_nrows },
	{ bad_args_bounce_rows, &bad_args_bounce_nrows },
	{ bad_args_arena_rows, &bad_args_arena_nrows },
};
#define NAREAS (sizeof(areas) / sizeof(areas[0]))
/* More than the rows of all areas together (main() checks). */
#define MAX_ROWS 512

/* ------------------------------------------------------------------ fixture */

/**
 * struct tcase - one row under one policy.
 * @row: the row.
 * @policy: the bounce pool's policy.
 * @b: the fixture while the case runs.
 */
struct tcase {
	const struct row *row;
	enum sluice_dma_bounce_policy policy;
	struct bx *b;
};

static bool all_bytes(const unsigned char *p, size_t len, unsigned char v)
{
	for (size_t i = 0; i < len; i++)
		if (p[i] != v)
			return false;
	return true;
}

static int setup(void **state)
{
	struct tcase *tc = *state;
	struct bx *b = calloc(1, sizeof(*b));
	struct sluice_dma_arena_config cfg;
	size_t ml;

	assert_non_null(b);
	tc->b = b;
	b->f = fx_new(tc->policy, 2, 1 * MIB, SLUICE_DMA_SCRUB_COPY);
	assert_non_null(b->f);
	/* The arena shares the layer's mock: one record of everything converted. */
	b->region = fx_aligned(CHUNK, 2 * CHUNK);
	ml = sluice_dma_arena_meta_size(2 * CHUNK, 2);
	b->ameta = malloc(ml);
	assert_non_null(b->region);
	assert_non_null(b->ameta);
	cfg = (struct sluice_dma_arena_config){ .base = b->region,
						.len = 2 * CHUNK,
						.max_shared = 0,
						.ncpus = 2,
						.meta = b->ameta,
						.meta_len = ml };
	assert_int_equal(sluice_dma_arena_init(&b->arena, &b->f->mp.ops, &cfg), 0);
	sluice_dma_arena_region(&b->hook, &b->arena);
	sluice_dma_layer_set_inplace(&b->f->dl, &b->hook);

	b->buf = malloc(64 * KIB);
	assert_non_null(b->buf);
	memset(b->buf, CPU_BYTE, 64 * KIB);
	assert_int_equal(sluice_dma_map(&b->f->dl, &deftag, b->buf, MAP_LEN, SLUICE_DMA_TO_DEVICE,
					&b->d_to),
			 0);
	assert_int_equal(sluice_dma_map(&b->f->dl, &deftag, b->buf + 4 * KIB, MAP_LEN,
					SLUICE_DMA_FROM_DEVICE, &b->d_from),
			 0);
	assert_int_equal(sluice_dma_map(&b->f->dl, &deftag, b->buf + 8 * KIB, MAP_LEN,
					SLUICE_DMA_BIDIRECTIONAL, &b->d_bidi),
			 0);
	/* The device answers: nothing of it may reach the buffer on a bad call. */
	memset(fx_dev(b->d_from), DEV_BYTE, MAP_LEN);
	memset(fx_dev(b->d_bidi), DEV_BYTE, MAP_LEN);
	b->coh = sluice_dma_alloc_coherent(&b->f->dl, &deftag, 4096, &b->coh_dma);
	assert_non_null(b->coh);
	b->blk = sluice_dma_arena_alloc(&b->arena, 8 * KIB);
	assert_non_null(b->blk);
	assert_int_equal(sluice_dma_map(&b->f->dl, &deftag, b->blk, 4 * KIB, SLUICE_DMA_FROM_DEVICE,
					&b->d_inplace),
			 0);
	assert_int_equal(b->d_inplace, (uintptr_t)b->blk);

	assert_int_equal(sluice_dma_bounce_stats_get(&b->f->dl, -1, &b->st), 0);
	sluice_dma_arena_stats_get(&b->arena, &b->ast);
	return 0;
}

static int teardown(void **state)
{
	struct tcase *tc = *state;
	struct bx *b = tc->b;
	int err;

	sluice_dma_unmap(&b->f->dl, b->d_inplace, 4 * KIB, SLUICE_DMA_FROM_DEVICE);
	sluice_dma_arena_free(&b->arena, b->blk);
	sluice_dma_free_coherent(&b->f->dl, b->coh, 4096);
	sluice_dma_unmap(&b->f->dl, b->d_to, MAP_LEN, SLUICE_DMA_TO_DEVICE);
	sluice_dma_unmap(&b->f->dl, b->d_from, MAP_LEN, SLUICE_DMA_FROM_DEVICE);
	sluice_dma_unmap(&b->f->dl, b->d_bidi, MAP_LEN, SLUICE_DMA_BIDIRECTIONAL);
	err = sluice_dma_arena_check(&b->arena, SLUICE_DMA_ARENA_CHECK_SCRUB);
	if (!err)
		err = sluice_dma_arena_destroy(&b->arena);
	sluice_dma_layer_set_inplace(&b->f->dl, NULL);
	if (fx_free(b->f))
		err = -1;
	free(b->buf);
	free(b->ameta);
	free(b->region);
	free(b);
	tc->b = NULL;
	return err;
}

/* After a refused call: every structure intact, nothing mapped, copied or freed. */
static void check_untouched(struct bx *b)
{
	struct sluice_dma_bounce_stats st;
	struct sluice_dma_arena_stats ast;

	assert_int_equal(sluice_dma_layer_check(&b->f->dl), 0);
	assert_int_equal(sluice_dma_arena_check(&b->arena, SLUICE_DMA_ARENA_CHECK_SCRUB), 0);
	assert_int_equal(sluice_dma_bounce_pool_count(&b->f->dl), 1);
	assert_int_equal(sluice_dma_bounce_stats_get(&b->f->dl, -1, &st), 0);
	assert_int_equal(st.mappings, b->st.mappings);
	assert_int_equal(st.unmaps, b->st.unmaps);
	assert_int_equal(st.bytes_to_device, b->st.bytes_to_device);
	assert_int_equal(st.bytes_from_device, b->st.bytes_from_device);
	assert_int_equal(st.conversions, b->st.conversions);
	sluice_dma_arena_stats_get(&b->arena, &ast);
	assert_int_equal(ast.blocks_live, b->ast.blocks_live);
	assert_int_equal(ast.allocs, b->ast.allocs);
	assert_int_equal(ast.frees, b->ast.frees);
	assert_int_equal(ast.chunks_shared, b->ast.chunks_shared);
	/* No copy in either direction, and the hook is still the arena's. */
	assert_true(all_bytes(b->buf, 64 * KIB, CPU_BYTE));
	assert_true(all_bytes(fx_dev(b->d_to), MAP_LEN, CPU_BYTE));
	assert_true(all_bytes(fx_dev(b->d_from), MAP_LEN, DEV_BYTE));
	assert_true(all_bytes(fx_dev(b->d_bidi), MAP_LEN, DEV_BYTE));
	assert_true(sluice_dma_addr_is_shared(&b->f->dl, b->d_inplace, 4 * KIB));
	assert_true(mock_port_is_shared(&b->f->mp, b->f->mem[0], b->f->bytes[0]));
}

/*
 * Run the row in a child, its stderr captured in @out; a strict child has its
 * layer and arena set to trap on a bad handle. Returns the wait status.
 */
/* What run_child() runs in the child. */
struct row_call {
	const struct row *r;
	struct bx *b;
	bool strict;
};

static int row_call_run(void *ctx)
{
	const struct row_call *c = ctx;

	if (c->strict) {
		sluice_dma_layer_set_strict(&c->b->f->dl, true);
		c->b->arena.flags |= SLUICE_DMA_ARENA_STRICT;
	}
	/* An error code as the exit status: 0 .. 255 holds -ret. */
	return (int)(-c->r->run(c->b) & 0xff);
}

static int run_child(const struct row *r, struct bx *b, bool strict, char *out, size_t outlen)
{
	struct row_call call = { r, b, strict };
	int status = mock_run_child(row_call_run, &call, out, outlen);

	assert_int_not_equal(status, -1);
	return status;
}

/* The log line names the row's text and address. */
static void expect_text(const struct row *r, struct bx *b, const char *out)
{
	char want[32];

	if (r->text && !strstr(out, r->text))
		fail_msg("%s: the message lacks \"%s\": %s", r->name, r->text, out);
	if (r->addr) {
		snprintf(want, sizeof(want), "0x%llx", (unsigned long long)r->addr(b));
		if (!strstr(out, want))
			fail_msg("%s: the message does not name %s: %s", r->name, want, out);
	}
}

/*
 * Run the row in a child: it must die of the trap (MOCK_TRAP_SIGNAL: SIGILL from
 * ud2 on x86), not of a fault, after logging a line with the row's text and address.
 */
static void expect_trap(const struct row *r, struct bx *b, bool strict)
{
	char out[4096];
	int status = run_child(r, b, strict, out, sizeof(out));

	if (!WIFSIGNALED(status) || WTERMSIG(status) != MOCK_TRAP_SIGNAL)
		fail_msg("%s: no trap (status 0x%x), output: %s", r->name, status, out);
	expect_text(r, b, out);
}

/*
 * A bad handle: refused with the row's code and a log line naming it, then
 * (in a child) the same call on a strict layer traps after the same line. A
 * row that does not mutate also runs in this process, so that
 * check_untouched() proves the refusal changed nothing.
 */
static void expect_refusal(const struct row *r, struct bx *b)
{
	char out[4096];
	int status;

	expect_trap(r, b, true);
	status = run_child(r, b, false, out, sizeof(out));
	if (!WIFEXITED(status) || WEXITSTATUS(status) != (int)(-r->ret & 0xff))
		fail_msg("%s: status 0x%x, expected exit %ld, output: %s", r->name, status, -r->ret,
			 out);
	expect_text(r, b, out);
	if (!r->mutates) {
		long got = r->run(b);

		if (got != r->ret)
			fail_msg("%s: returned %ld, expected %ld", r->name, got, r->ret);
		expect_text(r, b, b->f->mp.last_log);
	}
}

static void test_row(void **state)
{
	struct tcase *tc = *state;
	const struct row *r = tc->row;

	if (r->expect == TRAP) {
		expect_trap(r, tc->b, false);
	} else if (r->expect == REFUSE) {
		expect_refusal(r, tc->b);
	} else {
		long got = r->run(tc->b);

		if (got != r->ret)
			fail_msg("%s: returned %ld, expected %ld", r->name, got, r->ret);
	}
	/* A trap happens in the child; the parent's state must be intact either way. */
	check_untouched(tc->b);
}

int main(void)
{
	static struct tcase cases[MAX_ROWS * SLUICE_DMA_POLICY_COUNT];
	static struct CMUnitTest tests[MAX_ROWS * SLUICE_DMA_POLICY_COUNT];
	static char names[MAX_ROWS * SLUICE_DMA_POLICY_COUNT][80];
	size_t n = 0, nrows = 0;

	for (size_t a = 0; a < NAREAS; a++)
		nrows += *areas[a].n;
	if (nrows > MAX_ROWS) {
		fprintf(stderr, "test_bad_args: %zu rows, raise MAX_ROWS\n", nrows);
		return 1;
	}
	for (size_t a = 0; a < NAREAS; a++) {
		for (size_t i = 0; i < *areas[a].n; i++) {
			const struct row *r = &areas[a].rows[i];
			unsigned int npol = r->pools ? SLUICE_DMA_POLICY_COUNT : 1;

			for (unsigned int p = 0; p < npol; p++) {
				cases[n] = (struct tcase){ r, fx_policies[p], NULL };
				if (r->pools)
					snprintf(names[n], sizeof(names[n]), "%s/%s", r->name,
						 sluice_dma_bounce_policy_name(fx_policies[p]));
				else
					snprintf(names[n], sizeof(names[n]), "%s", r->name);
				tests[n] = (struct CMUnitTest){ .name = names[n],
								.test_func = test_row,
								.setup_func = setup,
								.teardown_func = teardown,
								.initial_state = &cases[n] };
				n++;
			}
		}
	}
	return _cmocka_run_group_tests("bad_args", tests, n, NULL, NULL);
}
