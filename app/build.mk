# The application: the task table the kernel's entry walks (kernel/tasks.h), the
# runners behind it, the correctness checks and the deliberate faults.
KERNEL_SRCS += app/cksum.c
KERNEL_SRCS += app/blk_check.c
KERNEL_SRCS += app/net_check.c
KERNEL_SRCS += app/blk_smp_check.c
KERNEL_SRCS += app/net_smp_check.c
KERNEL_SRCS += app/tasks.c app/blk_task.c app/net_task.c app/faults.c
