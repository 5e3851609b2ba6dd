# x86_64 architecture code built into the kernel.
KERNEL_SRCS += \
	arch/x86_64/acpi.c \
	arch/x86_64/ap_trampoline.S \
	arch/x86_64/cpu.c \
	arch/x86_64/gdt.c \
	arch/x86_64/idt.c \
	arch/x86_64/ipi_entry.S \
	arch/x86_64/kmap.c \
	arch/x86_64/lapic.c \
	arch/x86_64/mmu.c \
	arch/x86_64/paging.c \
	arch/x86_64/qemu_exit.c \
	arch/x86_64/serial.c \
	arch/x86_64/smp.c \
	arch/x86_64/stack_switch.S \
	arch/x86_64/trap.c \
	arch/x86_64/trap_entry.S \
	arch/x86_64/tsc.c
