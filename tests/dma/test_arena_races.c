/* SPDX-License-Identifier: MIT */
/*
 * test_arena_races.c - host tests of what the arena's free promises when CPUs
 * race it (dma/arena.c: arena_free_check(); dma/arena_priv.h: arena_claim(),
 * which arena.c's frees and arena_fast.c's common one all make).
 *
 * - Two frees of one block at the same moment: exactly one wins.
 * - A free against an in-place map of the block on another CPU: never both
 *   (Dekker's pattern between the claim and the region's get).
 * - A free refused because the block is mapped changes nothing another CPU
 *   could see: that CPU's maps and unmaps of the block all go through.
 *
 * Races are run many times over real threads; no loop asserts while another
 * thread still runs (a failed assertion would leave it spinning), each counts,
 * and the counts are checked after the join. Each test passes every time on
 * correct code; a weakened claim fails it with high probability. No test
 * asserts on a time.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include <sluice/arena.h>
#include <sluice/dma.h>
#include "dma/arena_priv.h" /* ARENA_FAST, ARENA_FAST_PATH */
#include "tests/fakes/mock_port.h"

#define CHUNK SLUICE_DMA_ARENA_CHUNK_SIZE
#define NCPUS 3

struct race_fx {
	struct mock_port mp;
	struct sluice_dma_arena arena;
	struct sluice_dma_inplace_region region;
	unsigned char *mem;
	void *meta;
};

/* Refusals are the point here: keep the log quiet. */
static void quiet_log(void *ctx, enum sluice_dma_log_level level, const char *msg)
{
	(void)ctx;
	(void)level;
	(void)msg;
}

static int race_setup(void **state, bool exclusive, bool fast)
{
	struct race_fx *fx = calloc(1, sizeof(*fx));
	size_t ml = sluice_dma_arena_meta_size(2 * CHUNK, NCPUS);
	struct sluice_dma_arena_config cfg;

	if (!fx)
		return -1;
	/* Its conversions take a lock of the mock's own: threads may convert at once. */
	mock_port_init(&fx->mp, NCPUS);
	fx->mp.ops.log = quiet_log;
	if (exclusive)
		fx->mp.ops.flags = SLUICE_DMA_PORT_CPU_EXCLUSIVE;
	/* The inline `rep stosb`: the frees then race through arena_fast.c. */
	if (fast)
		fx->mp.ops.zero = mock_port_zero_chosen;
	fx->mem = aligned_alloc(CHUNK, 2 * CHUNK);
	fx->meta = malloc(ml);
	if (!fx->mem || !fx->meta)
		return -1;
	memset(fx->mem, 0x5a, 2 * CHUNK);
	cfg = (struct sluice_dma_arena_config){
		.base = fx->mem,
		.len = 2 * CHUNK,
		.max_shared = 2,
		.ncpus = NCPUS,
		.meta = fx->meta,
		.meta_len = ml,
		.flags = exclusive ? SLUICE_DMA_ARENA_OWNED_CACHES : 0,
	};
	if (sluice_dma_arena_init(&fx->arena, &fx->mp.ops, &cfg))
		return -1;
	sluice_dma_arena_region(&fx->region, &fx->arena);
#ifdef ARENA_FAST_PATH
	/* The fast setup's frees do race through arena_fast.c. */
	if (fast && !(fx->arena.flags & ARENA_FAST))
		return -1;
#endif
	mock_port_set_cpu(0);
	*state = fx;
	return 0;
}

static int setup_locked(void **state)
{
	return race_setup(state, false, false);
}

static int setup_exclusive(void **state)
{
	return race_setup(state, true, false);
}

static int setup_fast(void **state)
{
	return race_setup(state, true, true);
}

static int race_teardown(void **state)
{
	struct race_fx *fx = *state;

	mock_port_set_cpu(0);
	assert_int_equal(sluice_dma_arena_check(&fx->arena, SLUICE_DMA_ARENA_CHECK_SCRUB), 0);
	assert_int_equal(sluice_dma_arena_destroy(&fx->arena), 0);
	free(fx->mem);
	free(fx->meta);
	free(fx);
	return 0;
}

/* Spin a while, so that racers leave together, then let the others run. */
static void spin_until(const unsigned int *v, unsigned int want)
{
	for (unsigned int spins = 0; __atomic_load_n(v, __ATOMIC_ACQUIRE) != want;)
		if (++spins % 4096 == 0)
			sched_yield();
}

/* ------------------------------------------------------------ two frees */

/*
 * Rounds of two racing frees: at 20 000 a claim made a plain store was caught in
 * about half the runs of the fast setup; at 60 000, in 6 of 6.
 */
#define FREE_ROUNDS 60000

struct free_racer {
	struct race_fx *fx;
	unsigned int cpu;
	unsigned int wins, odd;
	pthread_t thread;
};

static void *volatile race_block;
static unsigned int race_round;
static pthread_barrier_t race_barrier;

static void *free_racer_main(void *arg)
{
	struct free_racer *r = arg;

	mock_port_set_cpu(r->cpu);
	for (unsigned int i = 1; i <= FREE_ROUNDS; i++) {
		int rc;

		spin_until(&race_round, i);
		rc = sluice_dma_arena_free(&r->fx->arena, race_block);
		r->wins += rc == 0;
		r->odd += rc != 0 && rc != SLUICE_DMA_ERR_NOENT;
		pthread_barrier_wait(&race_barrier);
	}
	return NULL;
}

/*
 * Two CPUs free the same live block at the same moment, round after round; a
 * third allocates each round's block. Exactly one free wins a round, the other
 * is NOENT, so no block is ever cached twice.
 */
static void test_racing_frees_one_wins(void **state)
{
	struct race_fx *fx = *state;
	struct free_racer r[2];
	unsigned int rounds_bad = 0, nulls = 0;

	assert_int_equal(pthread_barrier_init(&race_barrier, NULL, 3), 0);
	__atomic_store_n(&race_round, 0, __ATOMIC_RELEASE);
	for (unsigned int i = 0; i < 2; i++) {
		r[i] = (struct free_racer){ .fx = fx, .cpu = i };
		assert_int_equal(pthread_create(&r[i].thread, NULL, free_racer_main, &r[i]), 0);
	}
	mock_port_set_cpu(2);
	for (unsigned int i = 1; i <= FREE_ROUNDS; i++) {
		unsigned int before = r[0].wins + r[1].wins;

		race_block = sluice_dma_arena_alloc(&fx->arena, 4096);
		nulls += !race_block;
		__atomic_store_n(&race_round, i, __ATOMIC_RELEASE);
		pthread_barrier_wait(&race_barrier);
		/* The racers counted before the barrier. */
		rounds_bad += r[0].wins + r[1].wins != before + 1;
	}
	for (unsigned int i = 0; i < 2; i++)
		assert_int_equal(pthread_join(r[i].thread, NULL), 0);
	pthread_barrier_destroy(&race_barrier);
	assert_int_equal(nulls, 0);
	assert_int_equal(r[0].odd + r[1].odd, 0);
	assert_int_equal(rounds_bad, 0);
	assert_int_equal(r[0].wins + r[1].wins, FREE_ROUNDS);
}

/* ------------------------------------------------ a free against a map */

#define MAP_ROUNDS 200000
/* At least this many of CPU 1's maps must overlap CPU 0's frees ... */
#define MAP_MIN_GETS 1000
/* ... and at least this many of CPU 0's frees must win between them ... */
#define MAP_MIN_FREES 100
/* ... within this many tries: a free that can never win fails, not hangs. */
#define MAP_MAX_ROUNDS (100ul * MAP_ROUNDS)

struct map_race {
	struct race_fx *fx;
	void *blk;
	unsigned int started, held, stop;
	unsigned long frees, both, gets, misuse;
};

/* CPU 1: map the current block in place, hold it a moment, unmap it. */
static void *mapper_main(void *arg)
{
	struct map_race *m = arg;
	const struct sluice_dma_inplace_region *rg = &m->fx->region;

	mock_port_set_cpu(1);
	__atomic_store_n(&m->started, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&m->stop, __ATOMIC_ACQUIRE)) {
		void *p = __atomic_load_n(&m->blk, __ATOMIC_ACQUIRE);

		if (!rg->get(rg->ctx, p, 4096, SLUICE_DMA_FROM_DEVICE))
			continue;
		/* Read by CPU 0 while this runs: how long to keep freeing. */
		__atomic_store_n(&m->gets, m->gets + 1, __ATOMIC_RELAXED);
		__atomic_store_n(&m->held, 1, __ATOMIC_SEQ_CST);
		for (volatile int k = 0; k < 200; k++)
			;
		__atomic_store_n(&m->held, 0, __ATOMIC_SEQ_CST);
		/* The block cannot have gone while mapped: the unmap must find it. */
		m->misuse += !rg->put(rg->ctx, p, 4096, SLUICE_DMA_FROM_DEVICE);
		/*
		 * Now and then a pause with nothing mapped, so that CPU 0's frees
		 * win too, however the two threads happen to run (back to back,
		 * the gap between an unmap and the next map can miss every free).
		 */
		if (!(m->gets & 63))
			for (volatile int k = 0; k < 2000; k++)
				;
	}
	return NULL;
}

/*
 * CPU 0 frees a block while CPU 1 maps it in place, over and over. A free that
 * wins while CPU 1 holds a mapping its get counted would hand a block a device
 * may still write to the next user; the claim's ordering against the get's
 * count forbids it. A free that loses is BUSY and changes nothing, so CPU 1's
 * unmap always finds its mapping.
 */
static void test_free_against_inplace_map(void **state)
{
	struct race_fx *fx = *state;
	struct map_race m = { .fx = fx };
	pthread_t t;
	unsigned long odd = 0;

	mock_port_set_cpu(0);
	__atomic_store_n(&m.blk, sluice_dma_arena_alloc(&fx->arena, 4096), __ATOMIC_RELEASE);
	assert_non_null(m.blk);
	assert_int_equal(pthread_create(&t, NULL, mapper_main, &m), 0);
	/* Free only while the mapper runs, and until both have won often enough. */
	spin_until(&m.started, 1);
	for (unsigned long i = 0; (i < MAP_ROUNDS || m.frees < MAP_MIN_FREES ||
				   __atomic_load_n(&m.gets, __ATOMIC_RELAXED) < MAP_MIN_GETS) &&
				  i < MAP_MAX_ROUNDS && m.blk;
	     i++) {
		int rc = sluice_dma_arena_free(&fx->arena, m.blk);

		if (rc == SLUICE_DMA_ERR_BUSY)
			continue;
		if (rc) {
			odd++;
			continue;
		}
		m.frees++;
		/* Freed: a mapping counted before the claim would still be held. */
		for (volatile int k = 0; k < 100; k++)
			;
		m.both += __atomic_load_n(&m.held, __ATOMIC_SEQ_CST);
		__atomic_store_n(&m.blk, sluice_dma_arena_alloc(&fx->arena, 4096),
				 __ATOMIC_RELEASE);
	}
	__atomic_store_n(&m.stop, 1, __ATOMIC_RELEASE);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_non_null(m.blk);
	assert_int_equal(odd, 0);
	assert_int_equal(m.both, 0);
	assert_int_equal(m.misuse, 0);
	assert_true(m.frees >= MAP_MIN_FREES);
	assert_true(m.gets >= MAP_MIN_GETS);
	assert_int_equal(sluice_dma_arena_free(&fx->arena, m.blk), 0);
}

/* -------------------------------------- a refused free changes nothing */

#define REFUSED_ROUNDS 100000
/* At least this many refusals must overlap CPU 0's maps, however the threads run. */
#define REFUSED_MIN 1000

struct refuser {
	struct race_fx *fx;
	void *blk;
	unsigned int started, stop;
	unsigned long refused, odd;
};

static void *refuser_main(void *arg)
{
	struct refuser *f = arg;

	mock_port_set_cpu(1);
	__atomic_store_n(&f->started, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&f->stop, __ATOMIC_ACQUIRE)) {
		int rc = sluice_dma_arena_free(&f->fx->arena, f->blk);

		/* Read by CPU 0 while this runs: how long to keep mapping. */
		__atomic_store_n(&f->refused, f->refused + (rc == SLUICE_DMA_ERR_BUSY),
				 __ATOMIC_RELAXED);
		f->odd += rc != SLUICE_DMA_ERR_BUSY;
	}
	return NULL;
}

/*
 * A block stays mapped in place (its first page) while CPU 1 keeps trying to
 * free it, a caller's bug the free refuses. Meanwhile CPU 0 maps and unmaps
 * the block's second page: every map and unmap goes through, because a
 * refused free never made the block look freed, not even for a moment.
 */
static void test_refused_free_changes_nothing(void **state)
{
	struct race_fx *fx = *state;
	const struct sluice_dma_inplace_region *rg = &fx->region;
	struct refuser f = { .fx = fx };
	unsigned long failed = 0;
	unsigned char *p;
	pthread_t t;

	mock_port_set_cpu(0);
	p = sluice_dma_arena_alloc(&fx->arena, 8192);
	assert_non_null(p);
	memset(p, 0xa7, 8192);
	f.blk = p;
	assert_true(rg->get(rg->ctx, p, 4096, SLUICE_DMA_TO_DEVICE));
	assert_int_equal(pthread_create(&t, NULL, refuser_main, &f), 0);
	/*
	 * On a loaded machine the refuser may not run at once: map only while it
	 * does, and until it has been refused often enough, or the race is not run.
	 */
	spin_until(&f.started, 1);
	for (unsigned long i = 0;
	     (i < REFUSED_ROUNDS || __atomic_load_n(&f.refused, __ATOMIC_RELAXED) < REFUSED_MIN) &&
	     i < 100ul * REFUSED_ROUNDS; /* a refuser that never runs fails, not hangs */
	     i++) {
		failed += !rg->get(rg->ctx, p + 4096, 4096, SLUICE_DMA_FROM_DEVICE);
		failed += !rg->put(rg->ctx, p + 4096, 4096, SLUICE_DMA_FROM_DEVICE);
	}
	__atomic_store_n(&f.stop, 1, __ATOMIC_RELEASE);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(failed, 0);
	assert_int_equal(f.odd, 0);
	assert_true(f.refused >= REFUSED_MIN);
	/* Nor were its bytes touched: no scrub before the refusal. */
	for (unsigned int i = 0; i < 8192; i++)
		if (p[i] != 0xa7)
			fail_msg("byte %u of a block whose free was refused changed", i);
	assert_int_equal(sluice_dma_arena_block_size(&fx->arena, p), 8192);
	assert_true(rg->put(rg->ctx, p, 4096, SLUICE_DMA_TO_DEVICE));
	assert_int_equal(sluice_dma_arena_free(&fx->arena, p), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_racing_frees_one_wins, setup_locked,
						race_teardown),
		cmocka_unit_test_setup_teardown(test_racing_frees_one_wins, setup_exclusive,
						race_teardown),
		cmocka_unit_test_setup_teardown(test_racing_frees_one_wins, setup_fast,
						race_teardown),
		cmocka_unit_test_setup_teardown(test_free_against_inplace_map, setup_locked,
						race_teardown),
		cmocka_unit_test_setup_teardown(test_free_against_inplace_map, setup_exclusive,
						race_teardown),
		cmocka_unit_test_setup_teardown(test_free_against_inplace_map, setup_fast,
						race_teardown),
		cmocka_unit_test_setup_teardown(test_refused_free_changes_nothing, setup_locked,
						race_teardown),
		cmocka_unit_test_setup_teardown(test_refused_free_changes_nothing, setup_exclusive,
						race_teardown),
		cmocka_unit_test_setup_teardown(test_refused_free_changes_nothing, setup_fast,
						race_teardown),
	};

	return cmocka_run_group_tests_name("arena_races", tests, NULL, NULL);
}
