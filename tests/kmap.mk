# tests/kmap.mk - host test of the kernel map's W^X policy (arch/x86_64/mm/kmap.c over
# arch/x86_64/mm/paging.c): NX on all but the text, read-only text, conversions and the
# start-up page switch that never make a page writable and executable.
HOST_TESTS += test_kmap
test_kmap_SRCS := tests/test_kmap.c tests/fake_pt.c arch/x86_64/mm/kmap.c arch/x86_64/mm/paging.c
