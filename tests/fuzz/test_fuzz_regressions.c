/* SPDX-License-Identifier: MIT */
/*
 * test_fuzz_regressions.c - replays, through the fuzz targets' own entry
 * functions (tests/fuzz/fuzz_<target>.c, linked here without libFuzzer), every
 * seed in tests/fuzz/corpus/<target>/ and every crash reproducer in
 * tests/fuzz/regressions/<target>/. A broken invariant traps, so a reproducer
 * whose bug comes back fails `make test`.
 *
 * Reproducers of bugs not fixed yet live in tests/fuzz/pending/<target>/ and are
 * not replayed; moving one to regressions/ is the last step of the fix.
 * The files are found under tests/fuzz of the current directory (make runs
 * tests from the top), else under $SLUICE_FUZZ_DIR, else next to the binary
 * (build/host/../../tests/fuzz).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tests/fuzz/fuzz_common.h"

/**
 * struct replay - one target and where its inputs are.
 * @name: the target, as in tests/fuzz/corpus/<name>.
 * @one: its entry function.
 */
struct replay {
	const char *name;
	int (*one)(const uint8_t *data, size_t size);
};

static char fuzz_dir[1024];

static bool is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

/* Run every regular file of @dir through @one; return how many ran. */
static unsigned int replay_dir(const char *dir, int (*one)(const uint8_t *, size_t))
{
	struct dirent **names = NULL;
	unsigned int ran = 0;
	int n = scandir(dir, &names, NULL, alphasort);

	/* A missing folder is an empty one: git keeps no empty directories. */
	for (int i = 0; i < n; i++) {
		char path[PATH_MAX + 512];
		struct stat st;
		uint8_t *data;
		FILE *f;

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
		free(names[i]);
		if (stat(path, &st) || !S_ISREG(st.st_mode))
			continue;
		f = fopen(path, "rb");
		assert_non_null(f);
		data = malloc(st.st_size ? (size_t)st.st_size : 1);
		assert_non_null(data);
		assert_int_equal(fread(data, 1, (size_t)st.st_size, f), (size_t)st.st_size);
		fclose(f);
		/* Named first: if the input traps, the log says which one. */
		print_message("replay %s (%lld bytes)\n", path, (long long)st.st_size);
		assert_int_equal(one(data, (size_t)st.st_size), 0);
		free(data);
		ran++;
	}
	free(names);
	return ran;
}

static void test_replay(void **state)
{
	const struct replay *r = *state;
	char dir[PATH_MAX];

	snprintf(dir, sizeof(dir), "%s/corpus/%s", fuzz_dir, r->name);
	/* The seeds are committed: finding none means the path is wrong. */
	assert_true(replay_dir(dir, r->one) > 0);
	snprintf(dir, sizeof(dir), "%s/regressions/%s", fuzz_dir, r->name);
	replay_dir(dir, r->one);
}

static const struct replay replays[] = {
	{ "fuzz_virtqueue_used", fuzz_virtqueue_used_one },
	{ "fuzz_virtio_pci_caps", fuzz_virtio_pci_caps_one },
	{ "fuzz_virtio_blk_completion", fuzz_virtio_blk_completion_one },
	{ "fuzz_virtio_net_rx", fuzz_virtio_net_rx_one },
	{ "fuzz_virtio_net_mq", fuzz_virtio_net_mq_one },
	{ "fuzz_virtio_reset", fuzz_virtio_reset_one },
	{ "fuzz_dma_ops", fuzz_dma_ops_one },
	{ "fuzz_pci_setup", fuzz_pci_setup_one },
};

static void find_fuzz_dir(const char *argv0)
{
	const char *env = getenv("SLUICE_FUZZ_DIR");
	const char *slash = strrchr(argv0, '/');

	if (env && *env) {
		snprintf(fuzz_dir, sizeof(fuzz_dir), "%s", env);
		return;
	}
	snprintf(fuzz_dir, sizeof(fuzz_dir), "tests/fuzz");
	if (is_dir(fuzz_dir) || !slash)
		return;
	snprintf(fuzz_dir, sizeof(fuzz_dir), "%.*s/../../tests/fuzz", (int)(slash - argv0), argv0);
}

int main(int argc, char **argv)
{
	struct CMUnitTest tests[sizeof(replays) / sizeof(replays[0])];

	(void)argc;
	find_fuzz_dir(argv[0]);
	for (size_t i = 0; i < sizeof(replays) / sizeof(replays[0]); i++) {
		tests[i] = (struct CMUnitTest)cmocka_unit_test(test_replay);
		tests[i].name = replays[i].name;
		tests[i].initial_state = (void *)&replays[i];
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
