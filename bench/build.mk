# Benchmarks that run inside the kernel.
KERNEL_SRCS += bench/result_json.c bench/bench_common.c
KERNEL_SRCS += bench/blk_bench.c bench/rounds.c bench/dma_stages.c
KERNEL_SRCS += bench/convert_bench.c
KERNEL_SRCS += bench/iotlb.c
KERNEL_SRCS += bench/net_bench.c
KERNEL_SRCS += bench/blk_mq_bench.c
KERNEL_SRCS += bench/alloc_smp_bench.c
