# Host tests of the boot stage's platform-free parts.
HOST_TESTS += test_options test_acpi
test_options_SRCS := tests/test_options.c boot/options.c
test_acpi_SRCS := tests/test_acpi.c arch/x86_64/acpi.c
