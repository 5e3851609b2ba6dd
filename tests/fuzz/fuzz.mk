# tests/fuzz/fuzz.mk - libFuzzer targets (clang, ASan+UBSan) of the code a hostile host
# talks to: the virtqueue's used ring, virtio-pci capabilities, virtio-blk
# completions, virtio-net receive and transmit on one queue pair, virtio-net
# multiqueue and its control queue, devices whose reset fails (blk and net), the
# DMA API against a reference model, and the placement of BARs and the ECAM window
# (memory map, pci_window_check, pci_setup) against a reference of G21.
#
#   make fuzz [FUZZ_SECONDS=60] [FUZZ_JOBS=N]
#                                 build, then run every target for FUZZ_SECONDS on a
#                                 scratch copy of its seed corpus (tests/fuzz/corpus/),
#                                 FUZZ_JOBS targets at a time (default: every CPU; a
#                                 target is one process on one core)
#   make fuzz-build               build only (build/fuzz/<target>)
#
# Each target's logic is fuzz_<target>_one() in tests/fuzz/<target>.c; fuzz_main.c
# is the libFuzzer wrapper, so the regression test (test_fuzz_regressions, below)
# links the same code without libFuzzer. The harness library: fuzz_common.c (input
# reader, sampling, the DMA layer built once per configuration and restored for
# every input), fuzz_net.c (the network device and its model, and the data-path
# steps the net targets share), fuzz_blk.c (the checks of a block driver whose
# device did not reset), tests/fakes/fake_virtio.c
# (the device behind every virtio target, also used by test_hostile_device),
# tests/fakes/fake_pci.c (configuration space, MCFG and the identity map below
# pci_setup(), also used by test_pci_setup). <target>_FUZZ_HELPERS are support
# files of one target, <target>_FUZZ_LDFLAGS its extra link flags.
#
# Speed is part of the design: a target runs about ten million inputs an hour on
# one core (docs/TESTING.md, "Fuzzing"). Nothing that lives for the process is rebuilt per
# input (pools, transports, static buffers); costly self-checks run on a sample of
# inputs chosen by a hash of the input (fuzz_sampled()), so a crash replays from
# its file alone; run.sh caps fuzz_dma_ops's inputs at 1 KiB (see there).
#
# A crash leaves its input in build/fuzz/artifacts/<target>/; replay it with
# build/fuzz/<target> FILE. Once minimised, it goes to tests/fuzz/pending/<target>/
# while the product bug is open, and to tests/fuzz/regressions/<target>/ (replayed
# by `make test`) with the fix. SLUICE_FUZZ_IGNORE=name,... skips the inputs of
# known open bugs (names in each target's header comment) to look past them.
# Seeds are written by tests/fuzz/gen_seeds.py.
FUZZ_TARGETS := fuzz_virtqueue_used fuzz_virtio_pci_caps fuzz_virtio_blk_completion \
	fuzz_virtio_net_rx fuzz_virtio_net_mq fuzz_virtio_reset fuzz_dma_ops fuzz_pci_setup
FUZZ_SECONDS ?= 60
FUZZ_JOBS ?= $(shell nproc 2>/dev/null || echo 1)
FUZZ_CC := clang
# Every file gets coverage counters and the sanitizers. Comparison tracing
# (trace-cmp), which lets libFuzzer solve the code's comparisons with input
# values, costs a callback per comparison: only the code a target is about
# (<target>_FUZZ_SRCS) gets it. The harness, the mock ops and, in the driver
# targets, the DMA layer underneath are support, built without it: traced, their
# loops and self-checks would cost more than the code under test.
FUZZ_BASE_CFLAGS := -g -O1 -std=gnu11 -I. -Idma/include -DSLUICE_HOST $(WARN) -fno-sanitize-recover=all
FUZZ_CFLAGS := $(FUZZ_BASE_CFLAGS) -fsanitize=fuzzer-no-link,address,undefined
FUZZ_SUPPORT_CFLAGS := $(FUZZ_CFLAGS) -fno-sanitize-coverage=trace-cmp
# The harness notes every pool range the layer hands out (fuzz_common.c), so that
# the next input zeroes only what this one wrote: the product's calls go through
# its wrappers.
FUZZ_LDFLAGS_WRAP := -Wl,--wrap=sluice_dma_map -Wl,--wrap=sluice_dma_map_attrs \
	-Wl,--wrap=sluice_dma_alloc_coherent
FUZZ_LDFLAGS := -fsanitize=fuzzer,address,undefined $(FUZZ_LDFLAGS_WRAP)
FUZZ_COMMON_SRCS := tests/fuzz/fuzz_common.c tests/fakes/mock_port.c tests/fakes/fake_virtio.c $(DMA_SRCS) \
	$(DRIVER_SUPPORT_SRCS) $(PVIO_HOST_SRCS)
fuzz_virtqueue_used_FUZZ_SRCS := drivers/virtio/virtqueue.c
fuzz_virtio_pci_caps_FUZZ_SRCS := drivers/pci/pci.c drivers/virtio/virtio_pci.c
fuzz_virtio_blk_completion_FUZZ_SRCS := drivers/virtio/virtio_blk.c drivers/virtio/virtio.c \
	drivers/virtio/virtqueue.c
fuzz_virtio_blk_completion_FUZZ_HELPERS := tests/fuzz/fuzz_blk.c
fuzz_virtio_net_rx_FUZZ_SRCS := drivers/virtio/virtio_net.c drivers/virtio/virtio.c \
	drivers/virtio/virtqueue.c
fuzz_virtio_net_rx_FUZZ_HELPERS := tests/fuzz/fuzz_net.c
fuzz_virtio_net_mq_FUZZ_SRCS := $(fuzz_virtio_net_rx_FUZZ_SRCS)
fuzz_virtio_net_mq_FUZZ_HELPERS := tests/fuzz/fuzz_net.c
fuzz_virtio_reset_FUZZ_SRCS := drivers/virtio/virtio_blk.c drivers/virtio/virtio_net.c \
	drivers/virtio/virtio.c drivers/virtio/virtqueue.c
fuzz_virtio_reset_FUZZ_HELPERS := tests/fuzz/fuzz_net.c tests/fuzz/fuzz_blk.c
fuzz_dma_ops_FUZZ_SRCS := $(DMA_SRCS)
# <target>_FUZZ_CFLAGS: extra compile flags of every object of the target. The DMA
# target runs the port's inline ops (MOCK_PORT_INLINE, Makefile), so that the map's
# and unmap's leaf paths (dma/map_fast.c) are fuzzed too (fuzz_dma_ops.c's dof_begin()).
fuzz_dma_ops_FUZZ_CFLAGS = $(MOCK_PORT_INLINE)
fuzz_pci_setup_FUZZ_SRCS := kernel/pci_setup.c kernel/pci_window.c boot/memmap.c \
	arch/x86_64/mm/mem_range.c drivers/pci/pci.c
fuzz_pci_setup_FUZZ_HELPERS := tests/fakes/fake_pci.c
# <target>_FUZZ_LDFLAGS: extra link flags. This target reads the product's refusal
# lines and scans only the buses its functions are on (see fuzz_pci_setup.c).
FUZZ_PCI_SETUP_WRAP := -Wl,--wrap=printf -Wl,--wrap=pci_enumerate
fuzz_pci_setup_FUZZ_LDFLAGS := $(FUZZ_PCI_SETUP_WRAP)
# The top Makefile defines ALL_HEADERS after including this file.
FUZZ_HEADERS := $(wildcard */*.h */*/*.h */*/*/*.h)
FUZZ_BINS := $(patsubst %,$(BUILD)/fuzz/%,$(FUZZ_TARGETS))

# One object per source and target: build/fuzz/obj/<target>/{test,support}/.
define fuzz_prog
$(1)_TEST_OBJS := $$(patsubst %.c,$(BUILD)/fuzz/obj/$(1)/test/%.o,$$($(1)_FUZZ_SRCS))
$(1)_SUPPORT_OBJS := $$(patsubst %.c,$(BUILD)/fuzz/obj/$(1)/support/%.o,tests/fuzz/fuzz_main.c \
	tests/fuzz/$(1).c $$(filter-out $$($(1)_FUZZ_SRCS),$$(FUZZ_COMMON_SRCS) \
	$$($(1)_FUZZ_HELPERS)))
$(BUILD)/fuzz/obj/$(1)/test/%.o: %.c $$(FUZZ_HEADERS) tests/fuzz/fuzz.mk
	@mkdir -p $$(dir $$@)
	@echo "  FUZZCC  $$@"
	$$(Q)$$(FUZZ_CC) $$(FUZZ_CFLAGS) $$($(1)_FUZZ_CFLAGS) -c -o $$@ $$<
$(BUILD)/fuzz/obj/$(1)/support/%.o: %.c $$(FUZZ_HEADERS) tests/fuzz/fuzz.mk
	@mkdir -p $$(dir $$@)
	@echo "  FUZZCC  $$@"
	$$(Q)$$(FUZZ_CC) $$(FUZZ_SUPPORT_CFLAGS) $$($(1)_FUZZ_CFLAGS) -DFUZZ_ONE=$(1)_one -c -o $$@ $$<
$(BUILD)/fuzz/$(1): $$($(1)_TEST_OBJS) $$($(1)_SUPPORT_OBJS)
	@echo "  FUZZLD  $$@"
	$$(Q)$$(FUZZ_CC) -o $$@ $$^ $$(FUZZ_LDFLAGS) $$($(1)_FUZZ_LDFLAGS)
endef
$(foreach t,$(FUZZ_TARGETS),$(eval $(call fuzz_prog,$(t))))

.PHONY: fuzz fuzz-build fuzz-clean fuzz-probe
# libFuzzer is tried first (scripts/probe.sh libfuzzer): where clang cannot build a
# fuzzer that runs, make fuzz stops with the probe's reason before compiling anything.
fuzz-probe: deps-test
	@scripts/probe.sh libfuzzer || { echo "fuzz: libFuzzer does not work on this machine" \
		"(see the probe line above)" >&2; exit 1; }
fuzz-build: deps-test fuzz-probe $(FUZZ_BINS)

# The corpus is copied to build/fuzz/run/: libFuzzer adds what it finds to its
# first corpus directory, and the repository keeps only the hand-made seeds.
fuzz: fuzz-build
	@FUZZ_JOBS=$(FUZZ_JOBS) tests/fuzz/run.sh $(FUZZ_SECONDS) $(BUILD)/fuzz $(FUZZ_TARGETS)

fuzz-clean:
	rm -rf $(BUILD)/fuzz

# Host test that replays the fuzz targets' seed corpora and crash reproducers
# (tests/fuzz/corpus/, tests/fuzz/regressions/) through the targets' own code,
# plainly and under ASan+UBSan, with gcc and no libFuzzer; see above.
HOST_TESTS += test_fuzz_regressions
test_fuzz_regressions_SRCS := tests/fuzz/test_fuzz_regressions.c tests/fuzz/fuzz_common.c \
	tests/fuzz/fuzz_net.c tests/fuzz/fuzz_blk.c tests/fuzz/fuzz_virtqueue_used.c tests/fuzz/fuzz_virtio_pci_caps.c \
	tests/fuzz/fuzz_virtio_blk_completion.c tests/fuzz/fuzz_virtio_net_rx.c \
	tests/fuzz/fuzz_virtio_net_mq.c tests/fuzz/fuzz_virtio_reset.c tests/fuzz/fuzz_dma_ops.c \
	tests/fuzz/fuzz_pci_setup.c tests/fakes/fake_pci.c kernel/pci_setup.c kernel/pci_window.c boot/memmap.c \
	arch/x86_64/mm/mem_range.c tests/fakes/mock_port.c tests/fakes/fake_virtio.c $(DMA_SRCS) \
	drivers/virtio/virtqueue.c \
	drivers/pci/pci.c drivers/virtio/virtio.c drivers/virtio/virtio_pci.c \
	drivers/virtio/virtio_blk.c drivers/virtio/virtio_net.c $(DRIVER_SUPPORT_SRCS) $(PVIO_HOST_SRCS)
# The harness's wrappers of the layer's allocating calls (tests/fuzz/fuzz_common.c),
# and fuzz_pci_setup's of printf and pci_enumerate (they pass through for the others).
test_fuzz_regressions_LDFLAGS := $(FUZZ_LDFLAGS_WRAP) $(FUZZ_PCI_SETUP_WRAP)
# Replayed inputs are read at run time; the binaries depend on the sources only.
