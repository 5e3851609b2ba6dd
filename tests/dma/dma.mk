# tests/dma/dma.mk - host tests of the DMA library (dma/): the mapping layer, the bounce
# pools and their policies, the arena.
HOST_TESTS += test_bounce test_map
test_bounce_SRCS := tests/dma/test_bounce.c tests/fakes/mock_port.c $(DMA_SRCS)
test_map_SRCS := tests/dma/test_map.c tests/fakes/mock_port.c $(DMA_SRCS)
# test_map, test_sluice_cache, test_stages and test_arena run the port's inline ops
# (MOCK_PORT_INLINE, Makefile), as every bench_alloc build but bench_alloc_calls does;
# the others call through the table.
test_map_CFLAGS := $(MOCK_PORT_INLINE)
# Every exported function of dma/ with each kind of bad argument, from one table.
HOST_TESTS += test_bad_args
test_bad_args_SRCS := tests/dma/test_bad_args.c $(sort $(wildcard tests/dma/bad_args_*.c)) \
	tests/fakes/mock_port.c $(DMA_SRCS)
# Promises of dma.h and arena.h for every kind of handle: foreign and interior
# handles, coherent memory of any alignment, RANGE, teardown of every kind.
HOST_TESTS += test_promises
test_promises_SRCS := tests/dma/test_promises.c tests/fakes/mock_port.c $(DMA_SRCS)
# What firmware stacks expect: scatter-gather, partial and read-only maps, cache
# maintenance, large coherent memory, teardown, the error model (dma/README.md,
# "What the API offers firmware").
HOST_TESTS += test_features
test_features_SRCS := tests/dma/test_features.c tests/fakes/mock_port.c $(DMA_SRCS)
# The sluice policy's per-CPU caches without locks (SLUICE_DMA_PORT_CPU_EXCLUSIVE).
# The linux policy's slot choices against an independent model of upstream swiotlb.
HOST_TESTS += test_linux_trace
test_linux_trace_SRCS := tests/dma/test_linux_trace.c tests/fakes/mock_port.c $(DMA_SRCS)
# The common map and unmap's leaf paths (dma/map_fast.c) against map.c's, call by call.
HOST_TESTS += test_map_leaf
test_map_leaf_SRCS := tests/dma/test_map_leaf.c bench/host/bench_stages.c tests/fakes/mock_port.c \
	$(DMA_SRCS)
test_map_leaf_CFLAGS := -DSLUICE_DMA_STAGES $(MOCK_PORT_INLINE)
HOST_TESTS += test_sluice_cache
test_sluice_cache_SRCS := tests/dma/test_sluice_cache.c tests/fakes/mock_port.c $(DMA_SRCS)
test_sluice_cache_CFLAGS := $(MOCK_PORT_INLINE)
# The stage markers of dma/stage.h, each on the path where the breakdown says
# (counts per stage of one map + unmap; a dropped marker fails it).
HOST_TESTS += test_stages
test_stages_SRCS := tests/dma/test_stages.c bench/host/bench_stages.c tests/fakes/mock_port.c $(DMA_SRCS)
test_stages_CFLAGS := -DSLUICE_DMA_STAGES $(MOCK_PORT_INLINE)
# A port's inline ops (SLUICE_DMA_PORT_INLINE): run inline exactly when the table names
# them, through the table otherwise (a library built with a probe header that counts).
HOST_TESTS += test_port_inline
test_port_inline_SRCS := tests/dma/test_port_inline.c tests/fakes/mock_port.c $(DMA_SRCS)
test_port_inline_CFLAGS := -DSLUICE_DMA_PORT_INLINE='"tests/dma/port_inline_probe.h"'
# Host test of the 2 MB shared arena (dma/arena.c); built and run by `make test`.
HOST_TESTS += test_arena
test_arena_SRCS := tests/dma/test_arena.c tests/fakes/mock_port.c $(DMA_ARENA_SRCS) $(DMA_COMMON_SRCS)
test_arena_CFLAGS := $(MOCK_PORT_INLINE)
# What the arena's free promises when CPUs race it, over real threads.
HOST_TESTS += test_arena_races
test_arena_races_SRCS := tests/dma/test_arena_races.c tests/fakes/mock_port.c $(DMA_ARENA_SRCS) \
	$(DMA_COMMON_SRCS)
test_arena_races_CFLAGS := $(MOCK_PORT_INLINE)
# The build rule lists sources only; rebuild when the headers change too.
$(BUILD)/host/test_arena $(BUILD)/host-san/test_arena $(BUILD)/host/test_arena_races \
$(BUILD)/host-san/test_arena_races: dma/include/sluice/arena.h \
	dma/include/sluice/dma_port.h dma/include/sluice/dma_errors.h tests/fakes/mock_port.h
# A bounce policy's own test: tests/dma/test_policy_<name>.c, found here by its name,
# so that adding a policy touches no make fragment (tests/names/add_policy.sh).
# It links the whole library, as the generic tests do; those (test_bounce,
# test_map, test_bad_args, test_features) run every policy of the list already.
POLICY_TESTS := $(patsubst tests/dma/%.c,%,$(wildcard tests/dma/test_policy_*.c))
HOST_TESTS += $(POLICY_TESTS)
$(foreach t,$(POLICY_TESTS),$(eval $(t)_SRCS := tests/dma/$(t).c tests/fakes/mock_port.c $$(DMA_SRCS)))
