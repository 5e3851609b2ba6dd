# The lists of names (scripts/names.py): what the C code builds from them says the
# same on both sides (kernel and library error codes, texts, policy names).
# tests/names/check_names.py (make check) checks that nothing else types them, and
# tests/names/add_policy.sh that a policy is added in three files.
HOST_TESTS += test_names
test_names_SRCS := tests/names/test_names.c $(DMA_SRCS)
# make check runs these (the Makefile's CHECK_CMDS): the check, its planted
# copies, and the three-file proof of adding a policy (scratch copy, ~1 min).
NAMES_CHECKS := tests/names/check_names.py tests/names/test_check_names.sh \
	tests/names/add_policy.sh
