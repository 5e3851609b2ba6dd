/* SPDX-License-Identifier: MIT */
/*
 * fuzz_main.c - the libFuzzer entry point of one target. Built once per target
 * with -DFUZZ_ONE=fuzz_<target>_one (tests/fuzz/fuzz.mk); the target's code lives in
 * tests/fuzz/fuzz_<target>.c so that the regression test links it without
 * libFuzzer.
 */
#include "tests/fuzz/fuzz_common.h"

#ifndef FUZZ_ONE
#error "build with -DFUZZ_ONE=fuzz_<target>_one"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return FUZZ_ONE(data, size);
}
