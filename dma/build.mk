# Sources of the DMA library (freestanding; also built as build/libsluice-dma.a).
# What every object of the library shares: the one log/trap path, the error strings, the version.
DMA_COMMON_SRCS := dma/log.c dma/strerror.c dma/version.c
# The 2 MB shared arena (it needs nothing from the layer: test_arena builds it alone).
DMA_ARENA_SRCS := dma/arena.c dma/arena_fast.c dma/arena_buddy.c dma/arena_region.c dma/arena_stats.c dma/arena_check.c
# The bounce policies: one line X(UPPER, lower) each in <sluice/dma_policies.h>, the
# one list (scripts/names.py reads the same lines; tests/names/check_names.py checks
# that make sees what it sees). Each policy is dma/bounce_<lower>.c.
DMA_POLICY_PAIRS := $(shell sed -n 's/^[[:space:]]*X(\([A-Z0-9_]*\),[[:space:]]*\([a-z0-9_]*\)).*/\2:\1/p' \
	dma/include/sluice/dma_policies.h)
DMA_POLICIES_ALL := $(foreach p,$(DMA_POLICY_PAIRS),$(firstword $(subst :, ,$(p))))
DMA_SRCS := $(DMA_COMMON_SRCS) dma/bits.c dma/bounce.c $(patsubst %,dma/bounce_%.c,$(DMA_POLICIES_ALL)) \
	dma/map.c dma/map_fast.c dma/stats.c $(DMA_ARENA_SRCS)

# make lib SLUICE_DMA_POLICIES="sluice linux": only the bounce policies named go
# into build/libsluice-dma.a (the others' files are left out, and a pool add
# asking for one of them returns SLUICE_DMA_ERR_NOSYS with a log line). The
# default is every policy; the kernel image and the host tests always build
# every one from DMA_SRCS. scripts/lib-size.sh reports the archive's size per set.
SLUICE_DMA_POLICIES ?= $(DMA_POLICIES_ALL)
ifneq ($(filter-out $(DMA_POLICIES_ALL),$(SLUICE_DMA_POLICIES)),)
$(error SLUICE_DMA_POLICIES: unknown policy '$(filter-out $(DMA_POLICIES_ALL),$(SLUICE_DMA_POLICIES))' (known: $(DMA_POLICIES_ALL)))
endif
ifeq ($(strip $(SLUICE_DMA_POLICIES)),)
$(error SLUICE_DMA_POLICIES is empty: name at least one of $(DMA_POLICIES_ALL))
endif
DMA_POLICIES_OUT := $(filter-out $(SLUICE_DMA_POLICIES),$(DMA_POLICIES_ALL))
# The bit runs (dma/bits.c) go in when a policy kept calls them.
DMA_BITS_USERS := $(shell grep -l sluice_dma_priv_bits_ \
	$(patsubst %,dma/bounce_%.c,$(SLUICE_DMA_POLICIES)) /dev/null)
DMA_LIB_OUT := $(patsubst %,dma/bounce_%.c,$(DMA_POLICIES_OUT)) $(if $(DMA_BITS_USERS),,dma/bits.c)
DMA_LIB_SRCS := $(filter-out $(DMA_LIB_OUT),$(DMA_SRCS))
dma_policy_macro = SLUICE_DMA_WITH_$(word 2,$(subst :, ,$(filter $(1):%,$(DMA_POLICY_PAIRS))))
DMA_LIB_CFLAGS := $(if $(DMA_POLICIES_OUT),-DSLUICE_DMA_POLICIES_SELECTED \
	$(foreach p,$(sort $(SLUICE_DMA_POLICIES)),-D$(call dma_policy_macro,$(p))))
# Rebuild the library's objects when the set changes (the file changes only then).
DMA_LIB_STAMP := $(BUILD)/lib/policies
$(DMA_LIB_STAMP): FORCE
	@mkdir -p $(dir $@)
	@echo '$(sort $(SLUICE_DMA_POLICIES))' | cmp -s - $@ || echo '$(sort $(SLUICE_DMA_POLICIES))' > $@
