# x86_64 architecture code built into the kernel.
KERNEL_SRCS += \
	arch/x86_64/acpi.c \
	arch/x86_64/cc_glue.c \
	arch/x86_64/cc_sim_snp.c \
	arch/x86_64/cc_sim_tdx.c \
	arch/x86_64/cc_snp.c \
	arch/x86_64/cc_tdx.c \
	arch/x86_64/ap_trampoline.S \
	arch/x86_64/cpu.c \
	arch/x86_64/gdt.c \
	arch/x86_64/ghcb.c \
	arch/x86_64/idt.c \
	arch/x86_64/ipi_entry.S \
	arch/x86_64/kmap.c \
	arch/x86_64/lapic.c \
	arch/x86_64/mem_range.c \
	arch/x86_64/memops.c \
	arch/x86_64/mmu.c \
	arch/x86_64/paging.c \
	arch/x86_64/pvio.c \
	arch/x86_64/pvio_native.c \
	arch/x86_64/pvio_snp.c \
	arch/x86_64/pvio_tdx.c \
	arch/x86_64/qemu_exit.c \
	arch/x86_64/serial.c \
	arch/x86_64/sim_tdvf.c \
	arch/x86_64/smp.c \
	arch/x86_64/snp.c \
	arch/x86_64/snp_boot.c \
	arch/x86_64/snp_model.c \
	arch/x86_64/stack_switch.S \
	arch/x86_64/tdx.c \
	arch/x86_64/tdx_model.c \
	arch/x86_64/tee_insn.c \
	arch/x86_64/trap.c \
	arch/x86_64/trap_entry.S \
	arch/x86_64/tsc.c

# The paravirtual I/O layer's selection and native backend: host programs that
# link a driver (its register accessors go through pvio) link these too.
PVIO_HOST_SRCS := arch/x86_64/pvio.c arch/x86_64/pvio_native.c
