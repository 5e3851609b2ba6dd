# The host benchmark of the DMA allocator (suite "alloc"), built on the library and the
# tests' host port (tests/fakes/mock_port.c, tests/fakes/test_bounce_fixture.h).
HOST_BENCHES += bench_alloc
bench_alloc_CFLAGS := $(MOCK_PORT_INLINE)
bench_alloc_SRCS := bench/host/bench_alloc.c bench/host/bench_json.c bench/host/bench_stages.c tests/fakes/mock_port.c \
	arch/x86_64/cpu/memops.c $(DMA_SRCS)

# Every timed build below reads the port's CPU index as a deployed port does
# (tests/fakes/mock_port_inline.h, MOCK_PORT_DEPLOYED: without the tests' check
# that the index is one the port was told of; the layer folds any index
# anyway). The test builds of bench_alloc keep the check.
BENCH_PORT := -DMOCK_PORT_DEPLOYED

# make bench-host [BENCH_ARGS="..."]: the allocator benchmark (suite "alloc").
# A benchmark, not a test: it measures and prints and never fails on a time.
# Built apart from the -O1 test build, with -O2 as the kernel and the library
# are, so that the figures are those of optimised code. JSON lines go to
# $(BUILD)/bench/alloc.json, the readable table to the console and, with the command,
# to $(BUILD)/bench/host.txt (make bench puts it into REPORT.md).
# BENCH_ARGS: see `build/bench/bench_alloc -h` (e.g. "-s 4096 -r 9").
BENCH_ARGS ?=
BENCH_ALLOC_BIN := $(BUILD)/bench/bench_alloc
$(BENCH_ALLOC_BIN): $(bench_alloc_SRCS) $(wildcard dma/*.h dma/include/sluice/*.h tests/fakes/*.h bench/host/*.h)
	@mkdir -p $(dir $@)
	@echo "  HOSTCC  $@ (-O2)"
	$(Q)$(CC) $(HOST_CFLAGS) -O2 $(BENCH_PORT) $(MOCK_PORT_INLINE) -o $@ $(bench_alloc_SRCS) $(HOST_LIBS)

.PHONY: bench-host
bench-host: $(BENCH_ALLOC_BIN)
	$(Q)mkdir -p $(BUILD)/bench; rc=$(BUILD)/bench/host.rc; \
	{ echo "command: make bench-host BENCH_ARGS=\"$(BENCH_ARGS)\" (rev" \
		"$$(git rev-parse --short HEAD 2>/dev/null), $$(date -u '+%Y-%m-%d %H:%M UTC')," \
		"$$(nproc) CPUs, load average $$(cut -d' ' -f1-3 /proc/loadavg))"; \
		$(BENCH_ALLOC_BIN) -o $(BUILD)/bench/alloc.json $(BENCH_ARGS); echo $$? >$$rc; } \
		| tee $(BUILD)/bench/host.txt; status=$$(cat $$rc); rm -f $$rc; exit $$status
	@echo "  JSON    $(BUILD)/bench/alloc.json"
	@echo "  TEXT    $(BUILD)/bench/host.txt (make bench puts it into REPORT.md)"

# make bench-breakdown [BENCH_ARGS="..."]: the cost breakdown (bench_alloc -K) of one
# 4 KiB map+unmap with copy, stage by stage, from the stage build: the same sources
# with -DSLUICE_DMA_STAGES, which turns dma/stage.h's markers on (every other build,
# the library's and the kernel's included, has none). JSON lines go to
# $(BUILD)/bench/breakdown.json, the table to the console and $(BUILD)/bench/breakdown.txt.
BENCH_STAGES_BIN := $(BUILD)/bench/bench_alloc_stages
$(BENCH_STAGES_BIN): $(bench_alloc_SRCS) $(wildcard dma/*.h dma/include/sluice/*.h tests/fakes/*.h bench/host/*.h)
	@mkdir -p $(dir $@)
	@echo "  HOSTCC  $@ (-O2, stage markers)"
	$(Q)$(CC) $(HOST_CFLAGS) -O2 $(BENCH_PORT) $(MOCK_PORT_INLINE) -DSLUICE_DMA_STAGES -o $@ $(bench_alloc_SRCS) $(HOST_LIBS)

.PHONY: bench-breakdown
bench-breakdown: $(BENCH_STAGES_BIN)
	$(Q)mkdir -p $(BUILD)/bench; rc=$(BUILD)/bench/breakdown.rc; \
	{ echo "command: make bench-breakdown BENCH_ARGS=\"$(BENCH_ARGS)\" (rev" \
		"$$(git rev-parse --short HEAD 2>/dev/null), $$(date -u '+%Y-%m-%d %H:%M UTC')," \
		"$$(nproc) CPUs, load average $$(cut -d' ' -f1-3 /proc/loadavg))"; \
		$(BENCH_STAGES_BIN) -K -o $(BUILD)/bench/breakdown.json $(BENCH_ARGS); \
		echo $$? >$$rc; } | tee $(BUILD)/bench/breakdown.txt; status=$$(cat $$rc); \
		rm -f $$rc; exit $$status

# The same stage build with the per-CPU statistics turned off
# (-DSLUICE_DMA_BENCH_NO_STATS, dma/bounce.h): `-K` of it against bench_alloc_stages's
# is what the exact statistics cost. A measurement, never a configuration to ship.
BENCH_NOSTATS_BIN := $(BUILD)/bench/bench_alloc_nostats
$(BENCH_NOSTATS_BIN): $(bench_alloc_SRCS) $(wildcard dma/*.h dma/include/sluice/*.h tests/fakes/*.h bench/host/*.h)
	@mkdir -p $(dir $@)
	@echo "  HOSTCC  $@ (-O2, stage markers, no statistics)"
	$(Q)$(CC) $(HOST_CFLAGS) -O2 $(BENCH_PORT) $(MOCK_PORT_INLINE) -DSLUICE_DMA_STAGES -DSLUICE_DMA_BENCH_NO_STATS -o $@ \
		$(bench_alloc_SRCS) $(HOST_LIBS)

# The benchmark with the arena's free claiming its block by a plain store instead
# of a compare-and-swap (-DSLUICE_DMA_BENCH_NO_CAS, dma/arena.c): its arena cells
# against bench_alloc's are what the double-free guarantee between racing CPUs
# costs. One thread only (-t 1); a measurement, never a configuration to ship.
BENCH_NOCAS_BIN := $(BUILD)/bench/bench_alloc_nocas
$(BENCH_NOCAS_BIN): $(bench_alloc_SRCS) $(wildcard dma/*.h dma/include/sluice/*.h tests/fakes/*.h bench/host/*.h)
	@mkdir -p $(dir $@)
	@echo "  HOSTCC  $@ (-O2, arena claim without compare-and-swap)"
	$(Q)$(CC) $(HOST_CFLAGS) -O2 $(BENCH_PORT) $(MOCK_PORT_INLINE) -DSLUICE_DMA_BENCH_NO_CAS -o $@ $(bench_alloc_SRCS) $(HOST_LIBS)

# The benchmark with the bounce path's checks passing unconditionally
# (-DSLUICE_DMA_BENCH_NO_CHECKS, DMA_CHECKED() in dma/log.h: the bad-argument
# and tag refusals at map, the unmap's record checks, the internal asserts):
# against bench_alloc's, what those refusals cost. And the bare layer, every
# guarantee a flag can turn off turned off (no checks, no statistics, the
# arena's claim a plain store): what is left is the mechanism itself. Both are
# measurements of valid calls on one thread, never configurations to ship.
BENCH_NOCHECKS_BIN := $(BUILD)/bench/bench_alloc_nochecks
$(BENCH_NOCHECKS_BIN): $(bench_alloc_SRCS) $(wildcard dma/*.h dma/include/sluice/*.h tests/fakes/*.h bench/host/*.h)
	@mkdir -p $(dir $@)
	@echo "  HOSTCC  $@ (-O2, checks off)"
	$(Q)$(CC) $(HOST_CFLAGS) -O2 $(BENCH_PORT) $(MOCK_PORT_INLINE) -DSLUICE_DMA_BENCH_NO_CHECKS -o $@ $(bench_alloc_SRCS) $(HOST_LIBS)

BENCH_PLAIN_NOSTATS_BIN := $(BUILD)/bench/bench_alloc_nostats_plain
$(BENCH_PLAIN_NOSTATS_BIN): $(bench_alloc_SRCS) $(wildcard dma/*.h dma/include/sluice/*.h tests/fakes/*.h bench/host/*.h)
	@mkdir -p $(dir $@)
	@echo "  HOSTCC  $@ (-O2, statistics off, no stage markers)"
	$(Q)$(CC) $(HOST_CFLAGS) -O2 $(BENCH_PORT) $(MOCK_PORT_INLINE) -DSLUICE_DMA_BENCH_NO_STATS -o $@ $(bench_alloc_SRCS) $(HOST_LIBS)

BENCH_BARE_BIN := $(BUILD)/bench/bench_alloc_bare
$(BENCH_BARE_BIN): $(bench_alloc_SRCS) $(wildcard dma/*.h dma/include/sluice/*.h tests/fakes/*.h bench/host/*.h)
	@mkdir -p $(dir $@)
	@echo "  HOSTCC  $@ (-O2, checks, statistics and the arena's compare-and-swap off)"
	$(Q)$(CC) $(HOST_CFLAGS) -O2 $(BENCH_PORT) $(MOCK_PORT_INLINE) -DSLUICE_DMA_BENCH_NO_CHECKS -DSLUICE_DMA_BENCH_NO_STATS \
		-DSLUICE_DMA_BENCH_NO_CAS -o $@ $(bench_alloc_SRCS) $(HOST_LIBS)

# The benchmark with the port's ops called through the table, as a port without
# SLUICE_DMA_PORT_INLINE runs them (no MOCK_PORT_INLINE): against bench_alloc's,
# what running the CPU index, the copy and the zero inline saves.
BENCH_CALLS_BIN := $(BUILD)/bench/bench_alloc_calls
$(BENCH_CALLS_BIN): $(bench_alloc_SRCS) $(wildcard dma/*.h dma/include/sluice/*.h tests/fakes/*.h bench/host/*.h)
	@mkdir -p $(dir $@)
	@echo "  HOSTCC  $@ (-O2, the port's ops called through the table)"
	$(Q)$(CC) $(HOST_CFLAGS) -O2 $(BENCH_PORT) -o $@ $(bench_alloc_SRCS) $(HOST_LIBS)

# make bench-guarantees [GUARANTEE_RUNS=5]: what each guarantee of the bounce path
# and the arena costs, by turning it off in a bench-only build
# (bench/host/bench_guarantees.py): instructions (callgrind, exact) and times
# (the 4 KiB cells of bench_alloc, every build run in turn, medians of the runs)
# of the default build, without the statistics, without the checks, without the
# arena's compare-and-swap, and bare; and with the port's ops called through the
# table (what running them inline saves). Table to the console and
# $(BUILD)/bench/guarantees.txt, JSON lines to $(BUILD)/bench/guarantees.json.
# GUARANTEE_COPY (default movsb): the copy every build installs (bench_alloc -C).
GUARANTEE_RUNS ?= 5
GUARANTEE_COPY ?= movsb
BENCH_VARIANT_BINS := $(BENCH_ALLOC_BIN) $(BENCH_PLAIN_NOSTATS_BIN) $(BENCH_NOCHECKS_BIN) \
	$(BENCH_NOCAS_BIN) $(BENCH_BARE_BIN) $(BENCH_CALLS_BIN)
.PHONY: bench-guarantees
bench-guarantees: $(BENCH_VARIANT_BINS)
	$(Q)mkdir -p $(BUILD)/bench; rc=$(BUILD)/bench/guarantees.rc; \
	{ echo "command: make bench-guarantees GUARANTEE_RUNS=$(GUARANTEE_RUNS)" \
		"GUARANTEE_COPY=$(GUARANTEE_COPY) (rev" \
		"$$(git rev-parse --short HEAD 2>/dev/null), $$(date -u '+%Y-%m-%d %H:%M UTC')," \
		"$$(nproc) CPUs, load average $$(cut -d' ' -f1-3 /proc/loadavg))"; \
		GUARANTEE_COPY=$(GUARANTEE_COPY) bench/host/bench_guarantees.py $(GUARANTEE_RUNS) $(BUILD)/bench/guarantees.json \
		$(BENCH_VARIANT_BINS); echo $$? >$$rc; } | tee $(BUILD)/bench/guarantees.txt; \
		status=$$(cat $$rc); rm -f $$rc; exit $$status

# make bench-floor: the least a 4 KiB bounce can do around its copy, hand-written
# (bench/host/bench_floor.c: no guarantee, one request shape), against the copy
# alone with the same footprint; and the least the arena's 4 KiB free+alloc can
# do around its scrub (bench/host/bench_floor_arena.c), with a plain claim, the
# compare-and-swap claim and a plain claim followed by an unrelated locked add.
# x86-64 (rep movsb, rep stosb). A measurement, never a test.
BENCH_FLOOR_BIN := $(BUILD)/bench/bench_floor
BENCH_FLOOR_ARENA_BIN := $(BUILD)/bench/bench_floor_arena
# Each from its one file (an explicit rule each: a pattern's stem cannot be empty);
# the arena's floor takes the port's AVX2 clear from arch/x86_64/cpu/memops.h.
$(BENCH_FLOOR_BIN): bench/host/bench_floor.c
$(BENCH_FLOOR_ARENA_BIN): bench/host/bench_floor_arena.c arch/x86_64/cpu/memops.h arch/x86_64/cpu/cpu.h
$(BENCH_FLOOR_BIN) $(BENCH_FLOOR_ARENA_BIN):
	@mkdir -p $(dir $@)
	@echo "  HOSTCC  $@ (-O2)"
	$(Q)$(CC) -std=gnu11 -O2 $(WARN) -I. -o $@ $<

.PHONY: bench-floor
bench-floor: $(BENCH_FLOOR_BIN) $(BENCH_FLOOR_ARENA_BIN)
	$(Q)$(BENCH_FLOOR_BIN)
	$(Q)$(BENCH_FLOOR_ARENA_BIN)

# make bench-insns: instructions per call of sluice_dma_map / sluice_dma_unmap
# (4 KiB, sluice) and of the arena's free / alloc, with and without the copy or
# scrub, counted by valgrind's callgrind in bench_alloc's -I mode
# (bench/host/bench_insns.sh). Counts repeat exactly on a loaded machine; times do not.
.PHONY: bench-insns
bench-insns: $(BENCH_ALLOC_BIN)
	$(Q)bench/host/bench_insns.sh $(BENCH_ALLOC_BIN)
