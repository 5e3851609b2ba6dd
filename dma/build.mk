# Sources of the DMA library (freestanding; also built as build/libsluice-dma.a).
# What every object of the library shares: the one log/trap path, the error strings, the version.
DMA_COMMON_SRCS := dma/log.c dma/strerror.c dma/version.c
# The 2 MB shared arena (it needs nothing from the layer: tests/arena.mk builds it alone).
DMA_ARENA_SRCS := dma/arena.c dma/arena_buddy.c dma/arena_region.c dma/arena_stats.c dma/arena_check.c
DMA_SRCS := $(DMA_COMMON_SRCS) dma/bits.c dma/bounce.c dma/bounce_linux.c dma/bounce_bitmap.c \
	dma/bounce_lifo.c dma/bounce_sluice.c dma/map.c dma/stats.c $(DMA_ARENA_SRCS)

# make lib SLUICE_DMA_POLICIES="sluice linux": only the bounce policies named go
# into build/libsluice-dma.a (the others' files are left out, and a pool add
# asking for one of them returns SLUICE_DMA_ERR_NOSYS with a log line). The
# default is all four; the kernel image and the host tests always build all
# four from DMA_SRCS. scripts/lib-size.sh reports the archive's size per set.
DMA_POLICIES_ALL := linux bitmap lifo sluice
SLUICE_DMA_POLICIES ?= $(DMA_POLICIES_ALL)
ifneq ($(filter-out $(DMA_POLICIES_ALL),$(SLUICE_DMA_POLICIES)),)
$(error SLUICE_DMA_POLICIES: unknown policy '$(filter-out $(DMA_POLICIES_ALL),$(SLUICE_DMA_POLICIES))' (known: $(DMA_POLICIES_ALL)))
endif
ifeq ($(strip $(SLUICE_DMA_POLICIES)),)
$(error SLUICE_DMA_POLICIES is empty: name at least one of $(DMA_POLICIES_ALL))
endif
DMA_POLICIES_OUT := $(filter-out $(SLUICE_DMA_POLICIES),$(DMA_POLICIES_ALL))
# The bit runs serve the bitmap, lifo and sluice policies only.
DMA_LIB_OUT := $(patsubst %,dma/bounce_%.c,$(DMA_POLICIES_OUT)) \
	$(if $(filter bitmap lifo sluice,$(SLUICE_DMA_POLICIES)),,dma/bits.c)
DMA_LIB_SRCS := $(filter-out $(DMA_LIB_OUT),$(DMA_SRCS))
dma_policy_macro = SLUICE_DMA_WITH_$(subst linux,LINUX,$(subst bitmap,BITMAP,$(subst lifo,LIFO,$(subst sluice,SLUICE,$(1)))))
DMA_LIB_CFLAGS := $(if $(DMA_POLICIES_OUT),-DSLUICE_DMA_POLICIES_SELECTED \
	$(foreach p,$(sort $(SLUICE_DMA_POLICIES)),-D$(call dma_policy_macro,$(p))))
# Rebuild the library's objects when the set changes (the file changes only then).
DMA_LIB_STAMP := $(BUILD)/lib/policies
$(DMA_LIB_STAMP): FORCE
	@mkdir -p $(dir $@)
	@echo '$(sort $(SLUICE_DMA_POLICIES))' | cmp -s - $@ || echo '$(sort $(SLUICE_DMA_POLICIES))' > $@
