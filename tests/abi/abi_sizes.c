/* SPDX-License-Identifier: MIT */
/*
 * abi_sizes.c - the size of every public struct an embedder allocates or fills,
 * checked at compile time against one figure per pointer width. tests/abi/run.sh
 * compiles it, with the public headers alone, for x86_64 and aarch64 Linux (LP64),
 * x86_64 Windows (LLP64, the data model EDK2 builds with under MSVC and clang:
 * --target=x86_64-pc-windows-msvc) and i386 (ILP32, the System V ABI), each also
 * with -fshort-enums: every compile must agree with the same table. A field whose
 * size follows the data model (unsigned long: 8 bytes under LP64, 4 under LLP64)
 * or the compiler's enum size fails one of them. Nothing here runs.
 */
#include <sluice/arena.h>
#include <sluice/dma.h>

#if UINTPTR_MAX == 0xffffffffffffffffu
#define ABI_BYTES(p64, p32) (p64)
#elif UINTPTR_MAX == 0xffffffffu
#define ABI_BYTES(p64, p32) (p32)
#else
#error "pointers of neither 32 nor 64 bits"
#endif

/* sizeof(struct @type): @p64 bytes with 64-bit pointers, @p32 with 32-bit ones. */
#define ABI_SIZE(type, p64, p32) \
	_Static_assert(sizeof(struct type) == ABI_BYTES(p64, p32), "sizeof(struct " #type ")")

ABI_SIZE(sluice_dma_layer, 272, 160);
ABI_SIZE(sluice_dma_arena, 512, 384);
ABI_SIZE(sluice_dma_port_ops, 144, 72);
ABI_SIZE(sluice_dma_port_lock, 16, 16);
ABI_SIZE(sluice_dma_tag, 40, 36);
ABI_SIZE(sluice_dma_destroy_report, 56, 52);
ABI_SIZE(sluice_dma_mapping_info, 48, 36);
ABI_SIZE(sluice_dma_arena_config, 48, 28);
ABI_SIZE(sluice_dma_arena_stats, 216, 216);
ABI_SIZE(sluice_dma_bounce_stats, 120, 120);
ABI_SIZE(sluice_dma_inplace_region, 80, 40);
ABI_SIZE(sluice_dma_sg, 24, 16);
ABI_SIZE(sluice_dma_sg_limits, 32, 16);
