# x86_64 architecture code built into the kernel, one list per room (docs/ARCHITECTURE.md):
# cpu/ CPU basics, mm/ memory management, smp/ application processors, fw/ firmware
# tables, cc/ the confidential-computing platforms.

ARCH_CPU_SRCS := \
	arch/x86_64/cpu/cpu.c \
	arch/x86_64/cpu/gdt.c \
	arch/x86_64/cpu/idt.c \
	arch/x86_64/cpu/memops.c \
	arch/x86_64/cpu/panic.c \
	arch/x86_64/cpu/qemu_exit.c \
	arch/x86_64/cpu/serial.c \
	arch/x86_64/cpu/stack_switch.S \
	arch/x86_64/cpu/trap.c \
	arch/x86_64/cpu/trap_entry.S \
	arch/x86_64/cpu/tsc.c

ARCH_MM_SRCS := \
	arch/x86_64/mm/kmap.c \
	arch/x86_64/mm/mem_range.c \
	arch/x86_64/mm/mmu.c \
	arch/x86_64/mm/paging.c

ARCH_SMP_SRCS := \
	arch/x86_64/smp/ap_trampoline.S \
	arch/x86_64/smp/ipi_entry.S \
	arch/x86_64/smp/lapic.c \
	arch/x86_64/smp/percpu.c \
	arch/x86_64/smp/smp.c

ARCH_FW_SRCS := \
	arch/x86_64/fw/acpi.c

ARCH_CC_SRCS := \
	arch/x86_64/cc/cc_glue.c \
	arch/x86_64/cc/cc_sim_snp.c \
	arch/x86_64/cc/cc_sim_tdx.c \
	arch/x86_64/cc/cc_snp.c \
	arch/x86_64/cc/cc_tdx.c \
	arch/x86_64/cc/ghcb.c \
	arch/x86_64/cc/pvio.c \
	arch/x86_64/cc/pvio_native.c \
	arch/x86_64/cc/pvio_snp.c \
	arch/x86_64/cc/pvio_tdx.c \
	arch/x86_64/cc/sim_tdvf.c \
	arch/x86_64/cc/snp.c \
	arch/x86_64/cc/snp_boot.c \
	arch/x86_64/cc/snp_model.c \
	arch/x86_64/cc/tdx.c \
	arch/x86_64/cc/tdx_model.c \
	arch/x86_64/cc/tee_insn.c

KERNEL_SRCS += $(ARCH_CPU_SRCS) $(ARCH_MM_SRCS) $(ARCH_SMP_SRCS) $(ARCH_FW_SRCS) $(ARCH_CC_SRCS)

# The paravirtual I/O layer's selection and native backend: host programs that
# link a driver (its register accessors go through pvio) link these too.
PVIO_HOST_SRCS := arch/x86_64/cc/pvio.c arch/x86_64/cc/pvio_native.c
