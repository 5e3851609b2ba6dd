# Host tests of the boot stage's and arch/'s platform-free parts.
HOST_TESTS += test_options test_acpi test_cpu
test_options_SRCS := tests/test_options.c boot/options.c boot/options_trust.c
test_acpi_SRCS := tests/test_acpi.c arch/x86_64/fw/acpi.c arch/x86_64/cc/sim_tdvf.c \
	arch/x86_64/mm/mem_range.c
test_cpu_SRCS := tests/test_cpu.c arch/x86_64/cpu/cpu.c $(PVIO_HOST_SRCS)
