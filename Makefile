# Sluice - top-level Makefile.
#
#   make run   [ARGS="key=value ..."]   build the UEFI image and boot it in QEMU; with no
#                                       ARGS: the checks and the short benchmark suite
#   make test                           make check, then the QEMU end-to-end tests
#   make check                          the fast tier: host tests (plain and ASan+UBSan),
#                                       library checks, portable builds, static checks,
#                                       JOBS at a time (default: all cores); no QEMU boot
#   make probes                         what this machine can do, one line each
#   make bench [ARGS="key=value ..."]   the benchmark suite, 3 boots, build/bench/results.json
#   make plot                           PNG charts of build/bench/results.json
#   make bench-host                     the DMA allocator benchmark on the host
#   make bench-breakdown                its cost breakdown of a 4 KiB map+unmap, stage by
#                                       stage (bench_alloc -K of the stage build)
#   make bench-insns                    instructions per map, unmap, arena free and alloc
#                                       (valgrind's callgrind; repeatable under load)
#   make bench-guarantees               what each guarantee of the bounce path and the arena
#                                       costs, turned off in bench-only builds
#   make bench-floor                    a hand-written 4 KiB bounce with no guarantee against
#                                       its copy alone, and a hand-written arena free+alloc
#                                       against its scrub: the floors on this machine
#   make image-stages                   a bench-only kernel, build/stages/sluice.efi, with
#                                       the same stage markers in its blk lines
#   make bench-firmware                 BlockIo reads inside OVMF over the IoMmu
#                                       driver vs identity, build/bench/firmware.json
#   make lib [LIB_TARGET=..]            build/libsluice-dma.a, the standalone DMA library
#                                       (LIB_TARGET=x86_64|i386|aarch64: build/lib/<target>-gcc/)
#   make check-lib                      its symbol, header and install/pkg-config checks
#   make check-portable                 the library for x86_64, i386 and aarch64 with gcc
#                                       and clang, -mgeneral-regs-only; host tests on
#                                       i386 and aarch64 (qemu-user) (tests/portable.mk)
#   make portable-size                  text+data of each of those builds, into dma/README.md
#   make install [PREFIX=.. DESTDIR=..] install the library's headers, .a and .pc
#                [LIB_TARGET=..]        (for that target)
#   make check-layers                   every #include points down (docs/ARCHITECTURE.md)
#   make check-function-length          no C function of the tree over 100 lines
#   make check-threat-model             every check and test THREAT_MODEL.md's inventory names exists
#   make format-check                   every C file against .clang-format (in make test)
#   make check-docs                     every path the documents name exists, and
#                                       docs/OPTIONS.md matches the option table
#
# Every folder lists its sources in a small fragment (build.mk) included below, so
# adding a file is a one-line change there. Packages are installed on demand by
# scripts/deps.sh; newlib is built once into build/newlib.

BUILD      := build
# make V=1 shows every command.
ifeq ($(V),1)
Q :=
else
Q := @
endif
VERSION    := $(shell cat VERSION 2>/dev/null || echo 0.0.0)
GIT_REV    := $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)

# ---------------------------------------------------------------- toolchains
CC         := gcc
LD         := ld.bfd
OBJCOPY    := objcopy
AR         := ar

NEWLIB     := $(BUILD)/newlib
EFI_INC    := /usr/include/efi
EFI_LIB    := /usr/lib
EFI_CRT0   := $(EFI_LIB)/crt0-efi-x86_64.o
LIBGCC     := $(shell $(CC) -print-libgcc-file-name)

# The DMA library's public headers (<sluice/dma.h>, ...): the only include path an
# embedder of the library needs; the kernel and the tests use it the same way.
DMA_INC    := dma/include

WARN       := -Wall -Wextra -Werror -Wno-unused-parameter
# Kernel code: a position-independent UEFI image with no red zone (exceptions push
# onto the current stack), no stack protector (no TLS), frame pointers kept so the
# exception handler can print a stack trace.
KERNEL_CFLAGS := -std=gnu11 -O2 -g $(WARN) -ffreestanding -fno-stack-protector \
	-fno-stack-check -mno-red-zone -fpic -fshort-wchar -fno-omit-frame-pointer \
	-fno-strict-aliasing -I. -I$(DMA_INC) -isystem $(NEWLIB)/include \
	-DSLUICE_VERSION='"$(VERSION)"' -DSLUICE_GIT_REV='"$(GIT_REV)"' $(KERNEL_EXTRA_CFLAGS)
# Only boot/efi_*.c sees GNU-EFI; its ABI wrapper macros need these.
EFI_CFLAGS := -isystem $(EFI_INC) -isystem $(EFI_INC)/x86_64 -DGNU_EFI_USE_MS_ABI \
	-DEFI_FUNCTION_WRAPPER -maccumulate-outgoing-args
KERNEL_ASFLAGS := -g -fpic -I.

HOST_CFLAGS := -std=gnu11 -O1 -g $(WARN) -I. -I$(DMA_INC) -DSLUICE_HOST
HOST_LIBS   := -lcmocka -lpthread -lm
SAN_FLAGS   := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
# The host port's inline ops (tests/fakes/mock_port_inline.h; SLUICE_DMA_PORT_INLINE in
# <sluice/dma_port.h>): the tests that name this in their <name>_CFLAGS, and every
# bench_alloc build but bench_alloc_calls, run the port's CPU index, copy and zero
# inline; the other tests call through the table.
MOCK_PORT_INLINE := -DSLUICE_DMA_PORT_INLINE='"tests/fakes/mock_port_inline.h"'

# ---------------------------------------------------------------- fragments
KERNEL_SRCS :=
HOST_TESTS  :=
HOST_BENCHES :=
DMA_SRCS    :=
include arch/x86_64/build.mk
include boot/build.mk
include kernel/build.mk
include dma/build.mk
include drivers/build.mk
include linker/build.mk
include bench/build.mk
include bench/host/host.mk
include app/build.mk
include firmware/build.mk
# One fragment per folder of tests/ (tests/<folder>/<folder>.mk), then tests/portable.mk,
# which builds some of their programs for other targets.
include $(sort $(wildcard tests/*/*.mk))
include $(sort $(wildcard tests/*.mk))

KERNEL_SRCS += $(DMA_SRCS)
KERNEL_OBJS := $(patsubst %,$(BUILD)/kernel/%.o,$(KERNEL_SRCS))

.PHONY: all deps deps-test newlib image firmware run test check probes host-tests lib check-lib \
	smoke e2e-cc clean help
all: image

help:
	@sed -n '3,/^#$$/{/^#$$/!p}' Makefile

deps:
	@scripts/deps.sh build
deps-test:
	@scripts/deps.sh test

# newlib is built once and reused while build/newlib/.built exists.
$(NEWLIB)/.built: scripts/build-newlib.sh | deps
	@scripts/build-newlib.sh $(NEWLIB)
newlib: $(NEWLIB)/.built

# ---------------------------------------------------------------- kernel image
$(BUILD)/kernel/boot/efi_%.c.o: boot/efi_%.c $(NEWLIB)/.built
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(KERNEL_CFLAGS) $(EFI_CFLAGS) -MMD -MP -c $< -o $@
# The library's sources run the kernel port's CPU index, copy and scrub inline
# (kernel/dma_port_inline.h; SLUICE_DMA_PORT_INLINE in <sluice/dma_port.h>).
$(BUILD)/kernel/dma/%.c.o: KERNEL_CFLAGS += \
	-DSLUICE_DMA_PORT_INLINE='"kernel/dma_port_inline.h"'
$(BUILD)/kernel/%.c.o: %.c $(NEWLIB)/.built
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(KERNEL_CFLAGS) -MMD -MP -c $< -o $@
$(BUILD)/kernel/%.S.o: %.S
	@mkdir -p $(dir $@)
	@echo "  AS      $<"
	$(Q)$(CC) $(KERNEL_ASFLAGS) -MMD -MP -c $< -o $@

# --no-undefined: a missing symbol must fail the link; with -shared it would
# otherwise become an import that GNU-EFI's self-relocation never resolves.
$(BUILD)/sluice.so: $(KERNEL_OBJS) $(LINKER_SCRIPT) $(NEWLIB)/.built
	@echo "  LD      $@"
	$(Q)$(LD) -nostdlib -znocombreloc -shared -Bsymbolic --no-undefined -z noexecstack \
		-T $(LINKER_SCRIPT) -o $@ $(EFI_CRT0) $(KERNEL_OBJS) \
		--start-group $(NEWLIB)/lib/libc.a $(NEWLIB)/lib/libm.a \
		$(EFI_LIB)/libgnuefi.a $(LIBGCC) --end-group

$(BUILD)/sluice.efi: $(BUILD)/sluice.so
	@echo "  OBJCOPY $@"
	$(Q)$(OBJCOPY) -j .text -j .sdata -j .data -j .dynamic -j .dynsym -j .rel \
		-j .rela -j .rel.* -j .rela.* -j .reloc --target efi-app-x86_64 \
		--subsystem=10 $< $@

# The boot banner names the git revision: rebuild main.c when it changes.
$(BUILD)/gitrev: FORCE
	@mkdir -p $(BUILD); echo '$(VERSION) $(GIT_REV)' | cmp -s - $@ || echo '$(VERSION) $(GIT_REV)' > $@
$(BUILD)/kernel/kernel/main.c.o: $(BUILD)/gitrev
FORCE:

image: deps $(BUILD)/sluice.efi $(FIRMWARE_IMAGES)
# The firmware images alone (no newlib needed): the IoMmu driver and its test app.
firmware: $(FIRMWARE_IMAGES)

# make image-stages: a bench-only kernel, build/stages/sluice.efi, with dma/stage.h's
# markers on (-DSLUICE_DMA_STAGES): its blk lines carry the stage totals per I/O
# ("cycles_stage_*"). Boot it with scripts/run-qemu.sh --efi build/stages/sluice.efi.
# The default image never has the markers.
STAGES_BUILD := $(BUILD)/stages
.PHONY: image-stages
image-stages: deps $(NEWLIB)/.built
	$(Q)mkdir -p $(STAGES_BUILD) && ln -sfn $(abspath $(NEWLIB)) $(STAGES_BUILD)/newlib
	$(Q)$(MAKE) --no-print-directory BUILD=$(STAGES_BUILD) \
		KERNEL_EXTRA_CFLAGS=-DSLUICE_DMA_STAGES $(STAGES_BUILD)/sluice.efi

# With no ARGS, the main job on 2 CPUs: boot report, block and network checks in
# every DMA configuration, then the short benchmark suite (with the 1- and 2-CPU
# runs) and its summary and scaling tables. ARGS may hold cpus=N (QEMU -smp N).
# The exit status is the kernel's.
RUN_DEFAULT_ARGS := bench=blk,net,convert,mq,alloc
run: image
	@scripts/run-qemu.sh --args "$(if $(ARGS),$(ARGS),$(RUN_DEFAULT_ARGS))"; rc=$$?; \
	if [ $$rc -eq 0 ] && grep -q '^{"suite"' $(BUILD)/serial.log; then \
		scripts/bench.py summarize $(BUILD)/serial.log 2>/dev/null; \
		if grep -q '"threads":[2-9]' $(BUILD)/serial.log; then echo; \
		scripts/bench.py scaling $(BUILD)/serial.log 2>/dev/null; fi; fi; exit $$rc

# ---------------------------------------------------------------- benchmarks
# The full suite (the full block matrix with 1 and 2 queues, network, IOTLB
# model, conversions, the 1- and N-CPU block and allocator runs) in every
# configuration, repeated on 2 CPUs (ARGS cpus=N for more); ARGS are appended, so
# they override these (later words win) or narrow the run. Then the charts and
# build/bench/REPORT.md (tables, command, revision, machine, load; make bench-host's
# build/bench/host.txt when there is one), also after a failed boot (the report says
# so); the status is then still the failure's.
BENCH_DEFAULT_ARGS := blk=none frames=0 bench=blk,net,convert,mq,alloc bench_set=full \
	bench_ms=300
BENCH_REPEATS ?= 3
# After each boot, one more with Linux's from-device scrub (scrub=copy) against the
# default (zero), for the summary's scrub table; BENCH_SCRUB_ARGS= skips it.
BENCH_SCRUB_ARGS ?= scrub=copy modes=bounce policies=linux,sluice bench=blk bench_set=short
.PHONY: bench plot
bench: image
	@scripts/deps.sh bench
	@rm -f $(BUILD)/bench/*.png $(BUILD)/bench/REPORT.md
	@scripts/bench.py run --repeats $(BENCH_REPEATS) \
		--args "$(BENCH_DEFAULT_ARGS) $(ARGS)" \
		$(if $(strip $(BENCH_SCRUB_ARGS)),--variant "$(BENCH_SCRUB_ARGS)") \
		--command 'make bench BENCH_REPEATS=$(BENCH_REPEATS) ARGS="$(ARGS)"' \
		--out $(BUILD)/bench/results.json; rc=$$?; \
	[ -s $(BUILD)/bench/results.json ] || exit $$rc; \
	echo; scripts/bench.py scaling $(BUILD)/bench/results.json || true; \
	scripts/bench.py check $(BUILD)/bench/results.json || \
		echo "bench: some configurations are missing (see above)"; \
	scripts/plot.py $(BUILD)/bench/results.json $(BUILD)/bench/ || \
		echo "bench: no charts (see above)"; \
	scripts/bench.py report $(BUILD)/bench/results.json --out $(BUILD)/bench/REPORT.md; \
	exit $$rc

# The firmware bounce cost: one boot of OVMF with build/iommu-test.efi reading a 16 MiB
# disk through OVMF's VirtioBlkDxe FW_BENCH_REPS times with the root bridge's identity
# mapping, then over sluice-iommu.efi with each policy and with the arena
# (tests/firmware/iommu_app.c); the fwblk JSON lines go to build/bench/firmware.json.
FW_BENCH_REPS ?= 5
.PHONY: bench-firmware
bench-firmware: firmware
	@mkdir -p $(BUILD)/bench
	@scripts/fat_image.py $(BUILD)/bench/fw-disk.img 16 DATA.BIN 4096 20261204 >/dev/null
	@scripts/run-qemu.sh --efi $(BUILD)/iommu-test.efi --esp-file $(BUILD)/sluice-iommu.efi \
		--disk $(BUILD)/bench/fw-disk.img --log $(BUILD)/bench/firmware.serial \
		--args "mode=test reps=$(FW_BENCH_REPS) $(ARGS)" >/dev/null; rc=$$?; \
	grep -ao '{"suite":"fwblk".*}' $(BUILD)/bench/firmware.serial > $(BUILD)/bench/firmware.json; \
	cat $(BUILD)/bench/firmware.json; \
	scripts/bench.py contract $(BUILD)/bench/firmware.json >/dev/null || rc=1; \
	grep -aq '^fw: all checks passed' $(BUILD)/bench/firmware.serial || rc=1; exit $$rc

plot:
	@scripts/deps.sh bench
	@scripts/plot.py $(BUILD)/bench/results.json $(BUILD)/bench/

# ---------------------------------------------------------------- DMA library
# make lib / make install for a target: LIB_TARGET=x86_64 (the default), i386 or
# aarch64 is the one variable to set (dma/README.md; dma/PORTING.md).
# Optional: LIB_COMPILER=clang (default gcc), CROSS_COMPILE=prefix of the target's gcc
# and binutils (aarch64 default: aarch64-linux-gnu- unless the host is aarch64),
# LIB_CC=a compiler command of your own. Per target:
#   x86_64   -m64 -mno-red-zone (an interrupt may push onto the current stack)
#   i386     -m32 (no red zone in the i386 ABI)
#   aarch64  -mno-outline-atomics: gcc 10+ and clang otherwise call libgcc's
#            __aarch64_ldadd8_relax & co., which a firmware link does not have
# Each target and compiler builds in its own folder, build/lib/<target>-<compiler>/,
# and archives with the target's ar; the default build's archive is also
# build/libsluice-dma.a, as before. Nothing here installs packages: building the
# library needs only its compiler (scripts/deps.sh lib TARGET COMPILER says which).
LIB_TARGET ?= x86_64
LIB_COMPILER ?= gcc
LIB_TARGETS := x86_64 i386 aarch64
ifeq ($(filter $(LIB_TARGETS),$(LIB_TARGET)),)
$(error LIB_TARGET: unknown target '$(LIB_TARGET)' (known: $(LIB_TARGETS)))
endif
ifeq ($(filter gcc clang,$(LIB_COMPILER)),)
$(error LIB_COMPILER: unknown compiler '$(LIB_COMPILER)' (known: gcc clang))
endif
LIB_HOST_ARCH := $(shell uname -m)
ifeq ($(LIB_TARGET)-$(filter aarch64 arm64,$(LIB_HOST_ARCH)),aarch64-)
CROSS_COMPILE ?= aarch64-linux-gnu-
endif
LIB_TRIPLE_x86_64 := x86_64-linux-gnu
LIB_TRIPLE_i386 := i686-linux-gnu
LIB_TRIPLE_aarch64 := aarch64-linux-gnu
LIB_ARCH_FLAGS_x86_64 := -m64 -mno-red-zone
LIB_ARCH_FLAGS_i386 := -m32
LIB_ARCH_FLAGS_aarch64 := -mno-outline-atomics
LIB_CC_gcc := $(CROSS_COMPILE)gcc
LIB_CC_clang := clang --target=$(LIB_TRIPLE_$(LIB_TARGET))
LIB_CC ?= $(LIB_CC_$(LIB_COMPILER))
LIB_AR ?= $(CROSS_COMPILE)ar
LIB_CFLAGS := -std=gnu11 -O2 -g $(WARN) -ffreestanding -nostdlib -fno-stack-protector -fpic \
	$(LIB_ARCH_FLAGS_$(LIB_TARGET)) -I. -I$(DMA_INC)
LIB_BUILD := $(BUILD)/lib/$(LIB_TARGET)-$(LIB_COMPILER)
LIB_ARCHIVE := $(LIB_BUILD)/libsluice-dma.a
LIB_OBJS := $(patsubst %,$(LIB_BUILD)/%.o,$(DMA_LIB_SRCS))
# Rebuild a target's objects when its compiler command or flags change (the file
# changes only then).
LIB_FLAGS_STAMP := $(LIB_BUILD)/flags
LIB_FLAGS_LINE = $(LIB_CC) $(LIB_CFLAGS) $(DMA_LIB_CFLAGS)
$(LIB_FLAGS_STAMP): FORCE
	@mkdir -p $(dir $@)
	@echo '$(LIB_FLAGS_LINE)' | cmp -s - $@ || echo '$(LIB_FLAGS_LINE)' > $@
# The compiler's packages are checked first, unless LIB_CC names a compiler of your own.
LIB_DEPS := $(if $(filter command line environment,$(origin LIB_CC)),,lib-deps)
$(LIB_BUILD)/%.c.o: %.c $(DMA_LIB_STAMP) $(LIB_FLAGS_STAMP) | $(LIB_DEPS)
	@mkdir -p $(dir $@)
	@echo "  CC [lib $(LIB_TARGET)] $<"
	$(Q)$(LIB_CC) $(LIB_CFLAGS) $(DMA_LIB_CFLAGS) -MMD -MP -c $< -o $@
$(LIB_ARCHIVE): $(LIB_OBJS)
	@rm -f $@
	@echo "  AR      $@"
	$(Q)$(LIB_AR) rcs $@ $^
ifeq ($(LIB_TARGET)-$(LIB_COMPILER),x86_64-gcc)
$(BUILD)/libsluice-dma.a: $(LIB_ARCHIVE)
	$(Q)cp $< $@
lib: $(BUILD)/libsluice-dma.a
else
lib: $(LIB_ARCHIVE)
endif
# The packages the library's build needs for LIB_TARGET (a compiler; no QEMU, OVMF or
# newlib): `make lib-deps` checks them, and installs them when run as root.
.PHONY: lib-deps
lib-deps:
	@scripts/deps.sh lib $(LIB_TARGET) $(LIB_COMPILER)

# make install [PREFIX=/usr/local] [DESTDIR=...] [INCLUDEDIR=...] [LIBDIR=...]:
# the public headers (dma/include/sluice/*.h; dma/*.h are internal and stay),
# libsluice-dma.a, sluice-dma.pc and the CMake package (sluice-dmaConfig.cmake and
# sluice-dmaConfigVersion.cmake). The .pc names the final paths (PREFIX,
# not DESTDIR: DESTDIR is a staging root, as in every GNU-style install).
# The library's version is that of its API (dma/include/sluice/dma_version.h),
# not the kernel's VERSION file.
PREFIX     ?= /usr/local
INCLUDEDIR ?= $(PREFIX)/include
LIBDIR     ?= $(PREFIX)/lib
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
# The CMake package (find_package(sluice-dma)): $(LIBDIR)/cmake/sluice-dma/. Its paths
# are relative to the config file's own folder when they lie under PREFIX (so a
# staged or moved install is found through CMAKE_PREFIX_PATH), else absolute.
CMAKEDIR   ?= $(LIBDIR)/cmake/sluice-dma
lib_empty :=
lib_space := $(lib_empty) $(lib_empty)
CMAKE_PREFIX_EXPR = $(if $(filter $(PREFIX)/%,$(CMAKEDIR)),$${CMAKE_CURRENT_LIST_DIR}/$\
	$(subst $(lib_space),/,$(foreach w,$(subst /, ,$(patsubst $(PREFIX)/%,%,$(CMAKEDIR))),..)),$\
	$(PREFIX))
cmake_path = $(if $(filter $(PREFIX)/%,$(1)),$${_sluice_dma_prefix}/$(patsubst $(PREFIX)/%,%,$(1)),$(1))
LIB_SIZEOF_VOID_P_x86_64 := 8
LIB_SIZEOF_VOID_P_i386 := 4
LIB_SIZEOF_VOID_P_aarch64 := 8
DMA_PUBLIC_HEADERS := $(wildcard $(DMA_INC)/sluice/*.h)
DMA_LIB_VERSION = $(shell awk '/define SLUICE_DMA_VERSION_(MAJOR|MINOR|PATCH) / { v = v s $$3; s = "." } \
	END { print v }' $(DMA_INC)/sluice/dma_version.h)
.PHONY: install
install: lib
	@echo "  INSTALL $(DESTDIR)$(PREFIX)"
	$(Q)install -d $(DESTDIR)$(INCLUDEDIR)/sluice $(DESTDIR)$(LIBDIR) $(DESTDIR)$(PKGCONFIGDIR)
	$(Q)install -m 644 $(DMA_PUBLIC_HEADERS) $(DESTDIR)$(INCLUDEDIR)/sluice/
	$(Q)install -m 644 $(LIB_ARCHIVE) $(DESTDIR)$(LIBDIR)/
	$(Q)sed -e 's|@PREFIX@|$(PREFIX)|' \
		-e 's|@INCLUDEDIR@|$(patsubst $(PREFIX)/%,$${prefix}/%,$(INCLUDEDIR))|' \
		-e 's|@LIBDIR@|$(patsubst $(PREFIX)/%,$${prefix}/%,$(LIBDIR))|' \
		-e 's|@VERSION@|$(DMA_LIB_VERSION)|' \
		dma/sluice-dma.pc.in > $(DESTDIR)$(PKGCONFIGDIR)/sluice-dma.pc
	$(Q)chmod 644 $(DESTDIR)$(PKGCONFIGDIR)/sluice-dma.pc
	$(Q)install -d $(DESTDIR)$(CMAKEDIR)
	$(Q)sed -e 's|@CMAKE_PREFIX_EXPR@|$(CMAKE_PREFIX_EXPR)|' -e 's|@CMAKE_INCLUDEDIR@|$(call cmake_path,$(INCLUDEDIR))|' \
		-e 's|@CMAKE_LIBDIR@|$(call cmake_path,$(LIBDIR))|' -e 's|@LIB_TARGET@|$(LIB_TARGET)|' \
		dma/sluice-dmaConfig.cmake.in > $(DESTDIR)$(CMAKEDIR)/sluice-dmaConfig.cmake
	$(Q)sed -e 's|@VERSION@|$(DMA_LIB_VERSION)|' -e 's|@LIB_TARGET@|$(LIB_TARGET)|' \
		-e 's|@VERSION_MAJOR@|$(word 1,$(subst ., ,$(DMA_LIB_VERSION)))|' \
		-e 's|@VERSION_MINOR@|$(word 2,$(subst ., ,$(DMA_LIB_VERSION)))|' \
		-e 's|@SIZEOF_VOID_P@|$(LIB_SIZEOF_VOID_P_$(LIB_TARGET))|' \
		dma/sluice-dmaConfigVersion.cmake.in > $(DESTDIR)$(CMAKEDIR)/sluice-dmaConfigVersion.cmake
	$(Q)chmod 644 $(DESTDIR)$(CMAKEDIR)/sluice-dma*.cmake

# The instruction audit: no port I/O, CPUID, MSR, HLT, WBINVD, VMCALL, TDCALL, ...
# outside the native paravirtual I/O backend, the TDCALL door and the entry stubs.
.PHONY: check-cc-insn
check-cc-insn: image
	@scripts/check-cc-insn.py $(BUILD)/sluice.so
# The floors: every #include of arch/ dma/ drivers/ firmware/ boot/ kernel/ bench/ app/ points to its own
# folder's floor or a lower one, and arch/ and dma/ never include each other
# (docs/ARCHITECTURE.md, "Floors"). tests/layers/test_check_layers.sh proves the
# check refuses a planted upward include.
.PHONY: check-layers
check-layers:
	@scripts/check-layers.py
# No C function of the tree (tests/, examples/, scripts/ included) longer than 100 lines: a longer
# one is split into named parts (--self-test checks the scan itself).
.PHONY: check-function-length
check-function-length:
	@scripts/check-function-length.py
# Every file, function, test, e2e scenario and fuzz target named in THREAT_MODEL.md's
# inventory of inputs exists (--self-test: each kind of drift is reported).
.PHONY: check-threat-model
check-threat-model:
	@scripts/check-threat-model.py

# The documents (README.md, CONTRIBUTING.md, dma/README.md, dma/PORTING.md, docs/): every
# repository path they name in a code span or a link, and every anchor, exists; README.md stays
# under 300 lines (scripts/check-doc-paths.py; tests/docs/test_check_doc_paths.sh proves
# it on a fixture with planted bad paths); docs/OPTIONS.md documents exactly the option
# table of the code, with its values, bounds and trust (tests/docs/test_options_doc.py).
DOC_CHECKS := scripts/check-doc-paths.py tests/docs/test_check_doc_paths.sh \
	"/usr/bin/python3 tests/docs/test_options_doc.py"
.PHONY: check-docs check-doc-paths
check-docs:
	@scripts/run-tests.sh docs $(DOC_CHECKS)
check-doc-paths:
	@scripts/check-doc-paths.py

# Every C file against .clang-format (CONTRIBUTING.md, "Before sending a change");
# `FORMAT_FIX=1 scripts/format-check.sh FILE...` rewrites files in place.
.PHONY: format-check
format-check: deps-test
	@scripts/format-check.sh
# The library as an embedder gets it: its symbols (all in sluice_dma_*, nothing
# undefined but mem*), its public headers alone in C11 and C++, an out-of-tree
# program built from `make install` with pkg-config flags only, the same through
# find_package(sluice-dma) and from vendored sources (run-cmake.sh), the example
# port of dma/PORTING.md built the same way (freestanding) and run, and
# `make install` for aarch64 and i386 (tests/lib_install/run.sh), and one struct
# layout per pointer width under LP64, LLP64 and -fshort-enums (tests/abi/run.sh).
# make install LIB_TARGET=aarch64 / i386 into a staging root: the archive's architecture,
# its symbols, the .pc (not run where the target's compiler does not work).
LIB_INSTALL_CHECKS := "tests/lib_install/run.sh aarch64" "tests/lib_install/run.sh i386" \
	"tests/lib_install/run.sh aarch64 clang"
LIB_CHECKS := "scripts/check-lib-symbols.sh $(BUILD)/libsluice-dma.a" \
	"scripts/check-public-headers.sh $(DMA_INC)" tests/consumer/run.sh \
	tests/consumer/run-cmake.sh examples/port/run.sh $(LIB_INSTALL_CHECKS) \
	"scripts/probe.sh run clang -- tests/abi/run.sh"
check-lib: deps-test lib
	@scripts/run-tests.sh lib $(LIB_CHECKS)

# ---------------------------------------------------------------- host tests
# Each tests/<folder>/<folder>.mk adds names to HOST_TESTS and sets <name>_SRCS.
HOST_TEST_BINS := $(patsubst %,$(BUILD)/host/%,$(HOST_TESTS))
SAN_TEST_BINS  := $(patsubst %,$(BUILD)/host-san/%,$(HOST_TESTS))
HOST_BENCH_BINS := $(patsubst %,$(BUILD)/host/%,$(HOST_BENCHES))

# Host programs are one compiler call each; any header change rebuilds them.
# <name>_LDFLAGS, if set, adds linker flags (e.g. -Wl,--wrap=...); <name>_CFLAGS
# compiler flags (e.g. -DSLUICE_DMA_STAGES for test_stages).
ALL_HEADERS := $(wildcard */*.h */*/*.h */*/*/*.h)
define host_prog
$(BUILD)/host/$(1): $$($(1)_SRCS) $$(ALL_HEADERS)
	@mkdir -p $$(dir $$@)
	@echo "  HOSTCC  $$@"
	$$(Q)$$(CC) $$(HOST_CFLAGS) $$($(1)_CFLAGS) -o $$@ $$($(1)_SRCS) $$(HOST_LIBS) \
		$$($(1)_LDFLAGS)
$(BUILD)/host-san/$(1): $$($(1)_SRCS) $$(ALL_HEADERS)
	@mkdir -p $$(dir $$@)
	@echo "  HOSTCC  $$@ (ASan+UBSan)"
	$$(Q)$$(CC) $$(HOST_CFLAGS) $$($(1)_CFLAGS) $$(SAN_FLAGS) -o $$@ $$($(1)_SRCS) \
		$$(HOST_LIBS) $$($(1)_LDFLAGS)
endef
$(foreach t,$(HOST_TESTS) $(HOST_BENCHES),$(eval $(call host_prog,$(t))))

host-tests: deps-test $(HOST_TEST_BINS) $(SAN_TEST_BINS)
	@scripts/run-tests.sh -j $(JOBS) host $(HOST_TEST_BINS) $(SAN_CHECKS)

# ---------------------------------------------------------------- all tests
E2E_TESTS := $(filter-out tests/e2e/lib.sh,$(sort $(wildcard tests/e2e/*.sh)))

# The host benchmark runs once, briefly, under valgrind: it exercises every policy,
# the arena and two threads, so memory errors and leaks anywhere on those paths fail.
VALGRIND_BENCH := scripts/probe.sh run valgrind -- valgrind -q --error-exitcode=1 \
	--leak-check=full --errors-for-leak-kinds=definite $(BUILD)/host/bench_alloc -n 200 \
	-r 1 -s 4096 -t 2 -P 2 -o $(BUILD)/test/bench_alloc_valgrind.json

# The fast tier: every host test (plain, and under ASan+UBSan where the machine runs
# sanitized programs), the library's checks and portable builds, the host benchmark
# under valgrind, every JSON line of a short host benchmark run parsed (with the
# widest values too: tests/test_bench_alloc_json.py), and the static checks (layers,
# format, function length, symbols, headers, instruction audit, capability probes,
# the documents' paths and option table),
# JOBS at a time. No QEMU boot (test_accel.sh and test_cc_host.sh boot a stub QEMU).
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
SAN_CHECKS := $(foreach b,$(SAN_TEST_BINS),"scripts/probe.sh run sanitizers -- $(b)")
CHECK_CMDS := $(HOST_TEST_BINS) $(SAN_CHECKS) $(LIB_CHECKS) $(PORTABLE_CHECKS) $(PORT_SIZE_CHECK) \
	"$(VALGRIND_BENCH)" "/usr/bin/python3 tests/test_bench_tools.py" \
	"/usr/bin/python3 tests/test_bench_alloc_json.py $(BUILD)/host/bench_alloc \
	$(BUILD)/bench/bench_alloc_stages" \
	tests/accel/test_accel.sh tests/cc_host/test_cc_host.sh \
	tests/probe/test_probe.sh tests/tree/test_check_tree.sh tests/run_tests/test_run_tests.sh \
	tests/cc_insn/test_audit.sh scripts/check-layers.py tests/layers/test_check_layers.sh \
	tests/cc_platforms/test_cc_platforms_script.sh \
	scripts/check-function-length.py "scripts/check-function-length.py --self-test" \
	scripts/check-threat-model.py "scripts/check-threat-model.py --self-test" \
	scripts/check-bench-only.py "scripts/check-bench-only.py --self-test" \
	"$(BENCH_NOCHECKS_BIN) -I 2000" "$(BENCH_BARE_BIN) -I 2000" \
	scripts/format-check.sh tests/format/test_format_check.sh $(DOC_CHECKS) $(NAMES_CHECKS)
CHECK_BUILD := image image-stages $(HOST_TEST_BINS) $(SAN_TEST_BINS) $(HOST_BENCH_BINS) $(BENCH_STAGES_BIN) \
	$(BENCH_NOSTATS_BIN) $(BENCH_NOCHECKS_BIN) $(BENCH_BARE_BIN) $(BENCH_FLOOR_BIN) $(BENCH_FLOOR_ARENA_BIN) lib portable-build
# Python's byte-code caches would land beside the scripts, in the source tree.
export PYTHONDONTWRITEBYTECODE := 1

.PHONY: check check-build probes
probes: deps-test
	@scripts/probe.sh --all
# What the tests run, built JOBS at a time, after the install and the probes.
check-build:
	@$(MAKE) --no-print-directory -j$(JOBS) PORTABLE_PROBED=1 $(CHECK_BUILD)

# tests_run LABEL, SERIAL-COMMANDS: the fast tier's commands in JOBS - 1 lanes, the
# serial ones (the QEMU boots) one after the other in a lane of their own beside them
# (with JOBS=1, all one after the other); the source tree must be as it was before
# (scripts/check-tree.sh).
define tests_run
	@mkdir -p $(BUILD)/test
	@scripts/check-tree.sh snapshot $(BUILD)/test/tree-before.txt
	@scripts/run-tests.sh -j $(JOBS) $(1) $(CHECK_CMDS) $(if $(2),--serial $(2)); rc=$$?; \
		scripts/check-tree.sh compare $(BUILD)/test/tree-before.txt || rc=1; exit $$rc
endef

check: probes
	@$(MAKE) --no-print-directory check-build
	$(call tests_run,check,)

test: probes
	@$(MAKE) --no-print-directory check-build
	$(call tests_run,all,$(E2E_TESTS))

smoke: image image-stages
	@scripts/run-tests.sh e2e $(E2E_TESTS)

# The same QEMU tests with every boot on a simulated confidential platform (a
# test that names its own cc= keeps it), one pass per platform: by default every
# simulated platform of the list (scripts/cc-platforms.py --simulated, from
# arch/x86_64/cc/cc.h); make e2e-cc CC_PLATFORM=sim-tdx for one.
# Not part of `make test` (it doubles the QEMU time per platform).
CC_PLATFORM ?= $(shell scripts/cc-platforms.py --simulated)
e2e-cc: image image-stages
	@for p in $(CC_PLATFORM); do \
		echo "e2e-cc: every e2e boot with cc=$$p"; \
		SLUICE_CC=$$p scripts/run-tests.sh e2e $(E2E_TESTS) || exit 1; \
	done

clean:
	rm -rf $(BUILD)/kernel $(BUILD)/host $(BUILD)/host-san $(BUILD)/lib $(BUILD)/portable \
		$(BUILD)/sluice.so $(BUILD)/sluice.efi $(BUILD)/esp $(BUILD)/test $(BUILD)/fuzz \
		$(BUILD)/firmware $(FIRMWARE_IMAGES) $(BUILD)/stages
distclean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)

# make print-VAR: a variable's value as this machine's make sees it (the tests use it).
print-%:
	@echo '$($*)'
