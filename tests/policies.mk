# A bounce policy's own test: tests/test_policy_<name>.c, found here by its name,
# so that adding a policy touches no make fragment (tests/names/add_policy.sh).
# It links the whole library, as the generic tests do; those (test_bounce,
# test_map, test_bad_args, test_features) run every policy of the list already.
POLICY_TESTS := $(patsubst tests/%.c,%,$(wildcard tests/test_policy_*.c))
HOST_TESTS += $(POLICY_TESTS)
$(foreach t,$(POLICY_TESTS),$(eval $(t)_SRCS := tests/$(t).c tests/mock_port.c $$(DMA_SRCS)))
