# Workloads and benchmarks that run inside the kernel.
KERNEL_SRCS += bench/cksum.c
KERNEL_SRCS += bench/result_json.c bench/bench_common.c
KERNEL_SRCS += bench/blk_check.c
KERNEL_SRCS += bench/net_check.c
KERNEL_SRCS += bench/blk_bench.c bench/dma_stages.c
KERNEL_SRCS += bench/convert_bench.c
KERNEL_SRCS += bench/iotlb.c
KERNEL_SRCS += bench/net_bench.c
KERNEL_SRCS += bench/blk_mq_bench.c
KERNEL_SRCS += bench/alloc_smp_bench.c
KERNEL_SRCS += bench/blk_smp_check.c
KERNEL_SRCS += bench/net_smp_check.c
# The task table the kernel's entry walks (boot/tasks.h) and the runners behind it.
KERNEL_SRCS += bench/tasks.c bench/blk_task.c bench/net_task.c bench/faults.c
