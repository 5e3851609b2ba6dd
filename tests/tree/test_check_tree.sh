#!/usr/bin/env bash
# test_check_tree.sh - scripts/check-tree.sh, the "no test writes into the source tree"
# check of make check / make test, on a scratch git repository: it passes when only
# build/ changed, and fails, naming the file, when a test leaves a new file, a new
# ignored file, a rewritten tracked file or a deleted one; a tree dirty before the
# run is not held against the tests.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }

repo="$tmp/repo"
mkdir -p "$repo/scripts" "$repo/tests"
cp "$top/scripts/check-tree.sh" "$repo/scripts/"
printf 'build/\n*.o\n' >"$repo/.gitignore"
echo "int x;" >"$repo/tests/a.c"
echo "data" >"$repo/kept.txt"
git -C "$repo" init -q
git -C "$repo" add -A
git -C "$repo" -c user.email=t@t -c user.name=t commit -qm init
check="$repo/scripts/check-tree.sh"
snap="$repo/build/test/before.txt"

# expect_compare NAME STATUS [TEXT]: compare after a change; status and message.
expect_compare() {
	"$check" compare "$snap" >"$tmp/$1.out" 2>&1
	local rc=$?
	if [ "$rc" -ne "$2" ]; then
		fail "$1: exit $rc, expected $2"
		sed 's/^/    | /' "$tmp/$1.out"
	elif [ -n "${3:-}" ] && ! grep -qF -- "$3" "$tmp/$1.out"; then
		fail "$1: no '$3' in the message"
		sed 's/^/    | /' "$tmp/$1.out"
	else
		ok "$1"
	fi
}

# A dirty tree before the run is the baseline, not a failure.
echo "local edit" >>"$repo/kept.txt"
echo "mine" >"$repo/notes.txt"
"$check" snapshot "$snap" || fail "snapshot failed"
mkdir -p "$repo/build/x" && echo out >"$repo/build/x/log"
expect_compare only-build 0 "no file outside build/"

echo 100 >"$repo/cksum-input.bin"
expect_compare new-file 1 "now:    ?? cksum-input.bin"
rm "$repo/cksum-input.bin"
expect_compare removed-again 0

echo obj >"$repo/tests/a.o" # ignored by .gitignore, still written by a test
expect_compare ignored-file 1 "tests/a.o"
rm "$repo/tests/a.o"

echo "int y;" >>"$repo/tests/a.c"
expect_compare rewritten 1 "tests/a.c"
git -C "$repo" checkout -q tests/a.c

echo "more" >>"$repo/kept.txt" # already modified before: its contents are compared
expect_compare dirty-rewritten 1 "kept.txt"
sed -i '$d' "$repo/kept.txt"
expect_compare dirty-restored 0

rm "$repo/tests/a.c"
expect_compare deleted 1 "tests/a.c"

if [ $fails -eq 0 ]; then
	echo "test_check_tree: all checks passed"
	exit 0
fi
echo "test_check_tree: $fails check(s) failed"
exit 1
