# tests/portable.mk - the DMA library built the ways firmware builds it (dma/README.md,
# "Portable builds").
#
#   make check-portable   every build below and its checks, then the library's host
#                         tests against three of the archives; part of `make test`
#   make portable-size    text+data of each build's archive, per object; writes dma/README.md's tables
#
# Library builds: build/portable/<cfg>/libsluice-dma.a, from dma/*.c with the
# flags of `make lib` (-Werror with the project's WARN) and the compiler and
# target flags of <cfg>:
#   x86_64-gcc, x86_64-clang     -m64 -mno-red-zone
#   x86_64-gcc-gro               the same with -mgeneral-regs-only (no SSE/x87)
#   i386-gcc, i386-clang         -m32
#   aarch64-gcc, aarch64-clang   Debian's cross gcc / clang --target, with
#                                -mno-outline-atomics (see below)
#   aarch64-gcc-gro              the cross gcc with -mgeneral-regs-only (no FP/SIMD)
# Every archive passes scripts/check-lib-symbols.sh (nothing undefined but mem*,
# nothing global outside sluice_dma_*), the -gro ones scripts/check-general-regs.sh
# (no FP/SIMD register in the disassembly). -mno-outline-atomics: by default
# gcc 10+ turns aarch64 atomics into calls to libgcc's __aarch64_cas8_relax & co.,
# which a firmware link does not have; inline LL/SC works on every ARMv8.
#
# Host tests (PORT_TESTS, the library's own: bounce pools, mapping, bad
# arguments, arena) are compiled from their test sources only and linked against
# an archive above instead of compiling dma/*.c again:
#   build/portable/test-x86_64-gro/   x86_64-gcc-gro's archive
#   build/portable/test-i386/         i386-gcc's archive, gcc -m32, Debian's i386 CMocka
#   build/portable/test-aarch64/      aarch64-gcc-gro's archive, the cross gcc,
#                                     Debian's arm64 CMocka, run under qemu-aarch64
# The i386 and aarch64 tests run through `scripts/probe.sh exec ARCH`, which runs them
# as the machine allows: i386 natively where the kernel has IA32 emulation, else
# under qemu-i386; aarch64 under qemu-aarch64 (with the cross toolchain's loader and
# libc, see scripts/probe.sh); with no way, each is reported as not run, with why.
#
# What this machine can build is probed too (scripts/probe.sh gcc-i386, gcc-aarch64,
# clang): a configuration whose compiler does not work is not built, and its checks
# are reported as not run. The probes run when the lists below are first expanded,
# i.e. in the sub-make of `make check-portable` / `make check`, after scripts/deps.sh.

PORT_DIR := $(BUILD)/portable
PORT_LIB_CFLAGS := -std=gnu11 -O2 -g $(WARN) -ffreestanding -nostdlib -fno-stack-protector \
	-fpic -I. -I$(DMA_INC)
AARCH64 := aarch64-linux-gnu

PORT_CONFIGS := x86_64-gcc x86_64-clang x86_64-gcc-gro i386-gcc i386-clang aarch64-gcc \
	aarch64-clang aarch64-gcc-gro
PORT_CC_x86_64-gcc      := gcc -m64 -mno-red-zone
PORT_CC_x86_64-clang    := clang -m64 -mno-red-zone
PORT_CC_x86_64-gcc-gro  := gcc -m64 -mno-red-zone -mgeneral-regs-only
PORT_CC_i386-gcc        := gcc -m32
PORT_CC_i386-clang      := clang -m32
PORT_CC_aarch64-gcc     := $(AARCH64)-gcc -mno-outline-atomics
PORT_CC_aarch64-clang   := clang --target=$(AARCH64) -mno-outline-atomics
PORT_CC_aarch64-gcc-gro := $(AARCH64)-gcc -mno-outline-atomics -mgeneral-regs-only
# binutils of each build's target (host binutils know no aarch64 objects)
PORT_BIN_x86_64 :=
PORT_BIN_i386 :=
PORT_BIN_aarch64 := $(AARCH64)-
port_arch = $(firstword $(subst -, ,$(1)))
# The capability each configuration's compiler needs (scripts/probe.sh).
PORT_CAP_x86_64-gcc := gcc
PORT_CAP_x86_64-clang := clang
PORT_CAP_x86_64-gcc-gro := gcc
PORT_CAP_i386-gcc := gcc-i386
PORT_CAP_i386-clang := clang
PORT_CAP_aarch64-gcc := gcc-aarch64
PORT_CAP_aarch64-clang := clang
PORT_CAP_aarch64-gcc-gro := gcc-aarch64
port_cap = $(PORT_CAP_$(1))
# 1 when capability $(1) works here (gcc, the host compiler, always does); each
# probe runs once per make and its verdict is cached in build/probes/.
port_cap_ok = $(if $(filter gcc,$(1)),1,$(if $(PORT_OK_$(1)),$(PORT_OK_$(1)),$\
	$(eval PORT_OK_$(1) := $(shell scripts/probe.sh $(1) >/dev/null && echo 1 || echo 0))$\
	$(PORT_OK_$(1))))
port_ok = $(filter 1,$(call port_cap_ok,$(call port_cap,$(1))))
# run CMD as a check of configuration $(1): reported as not run where its compiler
# does not work
port_check = "$(if $(filter gcc,$(call port_cap,$(1))),,scripts/probe.sh run $(call port_cap,$(1)) -- )$(2)"
port_bin = $(PORT_BIN_$(call port_arch,$(1)))
port_lib = $(PORT_DIR)/$(1)/libsluice-dma.a

# deps.sh is cheap when everything is there; the order-only prerequisite runs it
# once per make, before the first compiler call.
.PHONY: deps-portable
deps-portable:
	@scripts/deps.sh portable

define port_lib_rules
$(PORT_DIR)/$(1)/%.c.o: %.c | deps-portable
	@mkdir -p $$(dir $$@)
	@echo "  CC [$(1)] $$<"
	$$(Q)$$(PORT_CC_$(1)) $$(PORT_LIB_CFLAGS) -MMD -MP -c $$< -o $$@
$(call port_lib,$(1)): $(patsubst %,$(PORT_DIR)/$(1)/%.o,$(DMA_SRCS))
	@rm -f $$@
	@echo "  AR      $$@"
	$$(Q)$(call port_bin,$(1))ar rcs $$@ $$^
endef
$(foreach c,$(PORT_CONFIGS),$(eval $(call port_lib_rules,$(c))))
PORT_LIBS = $(foreach c,$(PORT_CONFIGS),$(if $(call port_ok,$(c)),$(call port_lib,$(c))))

# ---------------------------------------------------------------- host tests
PORT_TESTS := test_bounce test_map test_bad_args test_arena
# name, compiler, archive's configuration
PORT_TEST_CC_x86_64-gro := $(CC)
PORT_TEST_LIB_x86_64-gro := x86_64-gcc-gro
PORT_TEST_CC_i386 := gcc -m32
PORT_TEST_LIB_i386 := i386-gcc
PORT_TEST_CC_aarch64 := $(AARCH64)-gcc
PORT_TEST_LIB_aarch64 := aarch64-gcc-gro
PORT_TEST_SETS := x86_64-gro i386 aarch64
PORT_TEST_ARCH_x86_64-gro := x86_64
PORT_TEST_ARCH_i386 := i386
PORT_TEST_ARCH_aarch64 := aarch64

define port_test_rules
$(PORT_DIR)/test-$(1)/$(2): $(filter-out dma/%,$($(2)_SRCS)) \
		$(call port_lib,$(PORT_TEST_LIB_$(1))) $(ALL_HEADERS) | deps-portable
	@mkdir -p $$(dir $$@)
	@echo "  HOSTCC  $$@"
	$$(Q)$$(PORT_TEST_CC_$(1)) $$(HOST_CFLAGS) -o $$@ $(filter-out dma/%,$($(2)_SRCS)) \
		$(call port_lib,$(PORT_TEST_LIB_$(1))) $$(HOST_LIBS) $$($(2)_LDFLAGS)
endef
$(foreach s,$(PORT_TEST_SETS),$(foreach t,$(PORT_TESTS),$(eval $(call port_test_rules,$(s),$(t)))))
PORT_TEST_BINS = $(foreach s,$(PORT_TEST_SETS),$(if $(call port_ok,$(PORT_TEST_LIB_$(s))),$\
	$(patsubst %,$(PORT_DIR)/test-$(s)/%,$(PORT_TESTS))))

# ---------------------------------------------------------------- the checks
# Commands for scripts/run-tests.sh, as LIB_CHECKS: each archive's symbols, the
# -gro archives' registers, then the tests (the aarch64 ones through qemu-user).
PORTABLE_TARGETS = $(PORT_LIBS) $(PORT_TEST_BINS)
PORTABLE_CHECKS := \
	$(foreach c,$(PORT_CONFIGS),$(call port_check,$(c),$\
		$(if $(call port_bin,$(c)),NM=$(call port_bin,$(c))nm )$\
		scripts/check-lib-symbols.sh $(call port_lib,$(c)))) \
	$(foreach c,$(filter %-gro,$(PORT_CONFIGS)),$(call port_check,$(c),$\
		$(if $(call port_bin,$(c)),OBJDUMP=$(call port_bin,$(c))objdump )$\
		scripts/check-general-regs.sh $(call port_arch,$(c)) $(call port_lib,$(c)))) \
	$(foreach s,$(PORT_TEST_SETS),$(foreach t,$(PORT_TESTS),$\
		$(call port_check,$(PORT_TEST_LIB_$(s)),$\
		$(if $(filter x86_64,$(PORT_TEST_ARCH_$(s))),,scripts/probe.sh exec $\
		$(PORT_TEST_ARCH_$(s)) )$(PORT_DIR)/test-$(s)/$(t))))

.PHONY: check-portable portable-size
.PHONY: portable-build
# The builds this machine can make. The probes run when this list is expanded, so
# only in a sub-make started after scripts/deps.sh (PORTABLE_PROBED=1): a probe made
# before the install would see no cross compiler.
ifdef PORTABLE_PROBED
portable-build: $(PORTABLE_TARGETS) $(PORT_DIR)/size.md $(PORT_DIR)/size-policies.md
endif
check-portable: deps-portable
	@$(MAKE) --no-print-directory -j$(JOBS) PORTABLE_PROBED=1 portable-build
	@scripts/run-tests.sh -j $(JOBS) portable $(PORTABLE_CHECKS)

# make portable-size also writes the size tables of the library's manual, dma/README.md
# (between the "portable-size" and "policy-size" markers) from build/portable/size.md
# and size-policies.md; make check fails when the manual's tables are not what the
# archives give (PORT_SIZE_CHECK), so a change
# that moves the figures runs make portable-size. The check needs every build
# (not run where one of the compilers does not work).
SIZE_TABLE_DOC := dma/README.md
portable-size: deps-portable
	@$(MAKE) --no-print-directory -j$(JOBS) PORTABLE_PROBED=1 portable-size-report
	@scripts/readme-table.sh update $(SIZE_TABLE_DOC) portable-size $(PORT_DIR)/size.md
	@scripts/readme-table.sh update $(SIZE_TABLE_DOC) policy-size $(PORT_DIR)/size-policies.md
.PHONY: portable-size-report
ifdef PORTABLE_PROBED
portable-size-report: $(PORT_LIBS) $(PORT_DIR)/size.md $(PORT_DIR)/size-policies.md
$(PORT_DIR)/size.md: $(PORT_LIBS) scripts/size-table.sh
	@scripts/size-table.sh $(foreach c,$(PORT_CONFIGS),$(if $(call port_ok,$(c)),$\
		$(c)=$(call port_lib,$(c)))) > $@.tmp && mv $@.tmp $@
endif
portable-size-report:
	@scripts/lib-size.sh $(foreach c,$(PORT_CONFIGS),$(if $(call port_ok,$(c)),$\
		$(c)=$(call port_lib,$(c))))
# dma/README.md's "Policies and size" table: the x86_64 gcc library with each set of bounce
# policies (scripts/lib-size-policies.sh builds each in build/size/<set>).
POLICY_SIZE_SETS := "$(DMA_POLICIES_ALL)" sluice linux "sluice linux"
$(PORT_DIR)/size-policies.md: $(DMA_SRCS) $(wildcard dma/*.h $(DMA_INC)/sluice/*.h) \
		scripts/lib-size-policies.sh
	@mkdir -p $(dir $@)
	@scripts/lib-size-policies.sh --markdown $(POLICY_SIZE_SETS) > $@.tmp && mv $@.tmp $@
PORT_SIZE_CHECK := "scripts/readme-table.sh check $(SIZE_TABLE_DOC) policy-size $\
	$(PORT_DIR)/size-policies.md" "scripts/probe.sh run gcc-i386 -- scripts/probe.sh run gcc-aarch64 -- $\
	scripts/probe.sh run clang -- scripts/readme-table.sh check $(SIZE_TABLE_DOC) portable-size $\
	$(PORT_DIR)/size.md"
