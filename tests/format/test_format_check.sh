#!/usr/bin/env bash
# test_format_check.sh - the format check (scripts/format-check.sh) accepts a file
# laid out as .clang-format says, and refuses, printing the diff, the same file
# with one function's layout spoiled in each way the style decides: spaces for the
# indentation tab, a brace on the wrong line, a line over 100 columns, a pointer
# star on the type. FORMAT_FIX=1 repairs the spoiled file back to the original.
# A comment line over 100 columns, which clang-format leaves alone, is named.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
check="$top/scripts/format-check.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# A formatted sample: the check passes on it.
cat >"$tmp/good.c" <<'EOF'
#include <stdint.h>

uint64_t sum_widths_below_the_limit(const uint64_t *widths, unsigned int count, uint64_t limit,
				    int flags);

/* A sample in the house style. */
static uint64_t sum_widths(const uint64_t *widths, unsigned int count, uint64_t limit)
{
	uint64_t total = 0;

	for (unsigned int i = 0; i < count; i++) {
		if (widths[i] > limit)
			return 0;
		total += widths[i];
	}
	return total;
}
EOF
"$check" "$tmp/good.c" >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "a formatted file is refused"; }

# refused NAME SED-EXPRESSION: the spoiled copy fails with exit 1 and a diff.
refused() {
	local name=$1 expr=$2 rc
	sed "$expr" "$tmp/good.c" >"$tmp/$name.c"
	cmp -s "$tmp/good.c" "$tmp/$name.c" && fail "$name: the sed expression changed nothing"
	"$check" "$tmp/$name.c" >"$tmp/out" 2>&1
	rc=$?
	[ "$rc" -eq 1 ] || { cat "$tmp/out"; fail "$name: exit $rc, not 1"; }
	grep -q '^@@' "$tmp/out" || { cat "$tmp/out"; fail "$name: no diff printed"; }
	FORMAT_FIX=1 "$check" "$tmp/$name.c" >/dev/null 2>&1 || fail "$name: FORMAT_FIX failed"
	cmp -s "$tmp/good.c" "$tmp/$name.c" || fail "$name: FORMAT_FIX did not restore the file"
	echo "refused and repaired: $name"
}

refused spaces_for_tab 's/^\tuint64_t total/        uint64_t total/'
refused brace_on_own_line 's/^\t\(for .*\) {$/\t\1\n\t{/'
# The prototype joined into one line of 104 columns.
refused over_100_columns '/uint64_t limit,$/{N;s/,\n\t*  */, /}'
refused star_on_type 's/const uint64_t \*widths/const uint64_t* widths/'

# A comment clang-format does not reflow, pushed past 100 columns: named.
sed 's|^/\* A sample in the house style. \*/$|/* A sample in the house style, with a comment that runs on past the hundredth column of its line. */|' \
	"$tmp/good.c" >"$tmp/long_comment.c"
"$check" "$tmp/long_comment.c" >"$tmp/out" 2>&1
rc=$?
[ "$rc" -eq 1 ] || { cat "$tmp/out"; fail "long_comment: exit $rc, not 1"; }
grep -q "long_comment.c:6: 10[0-9] columns" "$tmp/out" || { cat "$tmp/out"; fail "long_comment: line not named"; }
echo "refused: long_comment"

"$check" "$tmp/missing.c" >"$tmp/out" 2>&1
[ $? -eq 2 ] || fail "a missing file is not exit 2"
echo "test_format_check: ok"
