#!/usr/bin/env bash
# tests/names/add_policy.sh - adding a bounce policy touches three files: the
# policy's own, one line of its list and its test. Shown, not claimed: in a
# scratch copy of the tree (a git repository of its own), add the fixture
# policy `first` (tests/names/policy/) as the contributor guide says
# ("Adding a bounce policy"):
#   1. dma/bounce_first.c            its file
#   2. dma/include/sluice/dma_policies.h   the line X(FIRST, first)
#   3. tests/dma/test_policy_first.c its test
# count what git sees changed (must be those 3, the list by one added line),
# then build and run in the copy: its test, the generic tests that run every
# policy of the list (test_bounce, test_map, test_features), the option parser
# (policies= and its default take the new one), a library of that policy alone
# (make lib SLUICE_DMA_POLICIES=first, its symbols) and tests/names/check_names.py.
# The policy is never shipped: the real tree stays as it is.
#
#   add_policy.sh [-k]     -k keeps the scratch copy (its path is printed)
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
fix="$top/tests/names/policy"
keep=0
[ "${1:-}" = -k ] && keep=1
tmp=$(mktemp -d /tmp/sluice-add-policy.XXXXXX)
if [ $keep -eq 0 ]; then trap 'rm -rf "$tmp"' EXIT; else echo "add_policy: scratch copy in $tmp/t"; fi
fail() {
	echo "add_policy: FAIL: $*" >&2
	exit 1
}
t0=$(date +%s)

# The tree as it is now, committed or not (tracked and new files; build/ and other
# ignored files stay out).
mkdir "$tmp/t"
(cd "$top" && git ls-files -z -c -o --exclude-standard |
	while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
	tar --null -T - -cf -) | tar -xf - -C "$tmp/t"
cd "$tmp/t"
git init -q
git add -A
git -c user.name=add-policy -c user.email=add-policy@localhost commit -qm "the tree" ||
	fail "cannot commit the scratch copy"

# 1. Its file.
cp "$fix/bounce_first.c" dma/bounce_first.c
# 2. One line in its list, above the end marker.
list=dma/include/sluice/dma_policies.h
python3 - "$list" <<'PY' || fail "no end marker in $list"
import sys
path = sys.argv[1]
text = open(path).read()
marker = "\t/* end of the list: a new line goes above */\n"
if text.count(marker) != 1:
    sys.exit(1)
open(path, "w").write(text.replace(marker, "\tX(FIRST, first) \\\n" + marker))
PY
# 3. Its test.
cp "$fix/test_policy_first.c" tests/dma/test_policy_first.c

git add -A
echo "add_policy: files touched:"
git status --porcelain | sed 's/^/  /'
touched=$(git status --porcelain | wc -l)
[ "$touched" -eq 3 ] || fail "adding a policy touched $touched files, not 3"
[ "$(git diff --cached --numstat -- "$list" | cut -f1-2)" = "$(printf '1\t0')" ] ||
	fail "$list: not one added line: $(git diff --cached --numstat -- "$list")"
[ "$(scripts/names.py policies)" = "$(cd "$top" && scripts/names.py policies) first" ] ||
	fail "scripts/names.py does not see the new policy last"

# Build and run what reads the list. A make of its own (called from make check it
# would inherit a jobserver without its descriptors).
export MAKEFLAGS= MFLAGS=
tests="test_policy_first test_bounce test_map test_features test_options"
make -s -j"${JOBS:-2}" $(printf 'build/host/%s ' $tests) >"$tmp/build.log" 2>&1 ||
	{ cat "$tmp/build.log"; fail "the scratch copy does not build"; }
[ "$(make -s print-POLICY_TESTS)" = test_policy_first ] || fail "tests/dma/dma.mk missed the test"
for t in $tests; do
	"build/host/$t" >"$tmp/$t.log" 2>&1 || { tail -30 "$tmp/$t.log"; fail "$t failed"; }
	echo "add_policy: $t: $(grep -E '^\[  PASSED  \]' "$tmp/$t.log" | tail -1)"
done
# The generic tests ran it: their test names carry the policy's name.
grep -q 'first' "$tmp/test_bounce.log" || fail "test_bounce did not run the new policy"
grep -q 'first' "$tmp/test_map.log" || fail "test_map did not run the new policy"
make -s lib BUILD="$tmp/t/build/lib-first" SLUICE_DMA_POLICIES=first >"$tmp/lib.log" 2>&1 ||
	{ cat "$tmp/lib.log"; fail "make lib SLUICE_DMA_POLICIES=first"; }
ar t build/lib-first/libsluice-dma.a | grep -qx 'bounce_first.c.o' || fail "no bounce_first in the library"
! ar t build/lib-first/libsluice-dma.a | grep -q 'bounce_linux' || fail "linux left in a first-only library"
scripts/check-lib-symbols.sh build/lib-first/libsluice-dma.a >/dev/null ||
	fail "the first-only library's symbols"
python3 tests/names/check_names.py >"$tmp/names.log" 2>&1 ||
	{ cat "$tmp/names.log"; fail "check_names.py on the scratch copy"; }
echo "add_policy: a policy added by touching $touched files (its file, one list line, its test);" \
	"built and tested in $(($(date +%s) - t0)) s"
