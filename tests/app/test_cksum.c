/* SPDX-License-Identifier: MIT */
/*
 * test_cksum.c - app/cksum.c must agree with the host's `cksum` tool.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "app/cksum.h"

static uint32_t cksum_of(const void *p, size_t len)
{
	struct cksum c;

	cksum_init(&c);
	cksum_update(&c, p, len);
	return cksum_final(&c);
}

static void test_known_values(void **state)
{
	(void)state;
	/* POSIX: the empty input and "123456789" (check value of CRC-32/CKSUM). */
	assert_int_equal(cksum_of("", 0), 4294967295u);
	assert_int_equal(cksum_of("123456789", 9), 930766865u);
}

static void test_matches_host_tool_in_pieces(void **state)
{
	uint8_t *buf = malloc(100000);
	char cmd[320], line[128], path[256];
	struct cksum c;
	FILE *f;
	unsigned long want;
	int fd;

	(void)state;
	srand(7);
	for (size_t i = 0; i < 100000; i++)
		buf[i] = (uint8_t)rand();
	/* A private temporary file: a test never writes into the source tree. */
	snprintf(path, sizeof(path), "%s/sluice-cksum-XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(buf, 1, 100000, f), 100000);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "cksum '%s'", path);
	f = popen(cmd, "r");
	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f));
	pclose(f);
	unlink(path);
	want = strtoul(line, NULL, 10);
	/* Fed in uneven pieces, as a block reader does. */
	cksum_init(&c);
	for (size_t off = 0; off < 100000;) {
		size_t n = 1 + (off * 31) % 4099;

		if (n > 100000 - off)
			n = 100000 - off;
		cksum_update(&c, buf + off, n);
		off += n;
	}
	assert_int_equal(cksum_final(&c), want);
	assert_int_equal(c.length, 100000);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_known_values),
		cmocka_unit_test(test_matches_host_tool_in_pieces),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
