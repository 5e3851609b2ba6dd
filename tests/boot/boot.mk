# tests/boot/boot.mk - host tests of the UEFI stage's platform-free parts (boot/): the
# option parser and the trust split of the options.
HOST_TESTS += test_options
test_options_SRCS := tests/boot/test_options.c boot/options.c boot/options_trust.c
