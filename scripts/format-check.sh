#!/usr/bin/env bash
# format-check.sh - check the C lines changed against a base with clang-format
# and the repository's .clang-format; the rest of the tree is left as it is.
#
#   scripts/format-check.sh [BASE]     BASE: a commit; default below
#   FORMAT_BASE=REV                    the same, from the environment (make format-check)
#   FORMAT_FIX=1                       rewrite the changed lines instead of failing
#
# The base is `git merge-base HEAD origin/main` when that remote branch exists,
# else FORMAT_BASE, else HEAD~1. Only lines changed between the base and the
# working tree (committed or not) of *.c and *.h files are looked at, through
# git-clang-format: a statement that touches a changed line is checked whole.
# Exit 0: nothing to change; 1: the diff clang-format wants is printed; 2: no
# clang-format or no base.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2

gcf=""
for c in git-clang-format git-clang-format-14 git-clang-format-15 git-clang-format-16; do
	if command -v "$c" >/dev/null 2>&1; then
		gcf=$c
		break
	fi
done
cf=""
for c in clang-format clang-format-14 clang-format-15 clang-format-16; do
	if command -v "$c" >/dev/null 2>&1; then
		cf=$c
		break
	fi
done
if [ -z "$gcf" ] || [ -z "$cf" ]; then
	echo "format-check: needs clang-format and git-clang-format (apt-get install clang-format)" >&2
	exit 2
fi

base=${1:-}
if [ -z "$base" ] && git rev-parse -q --verify origin/main >/dev/null; then
	base=$(git merge-base HEAD origin/main)
fi
[ -n "$base" ] || base=${FORMAT_BASE:-HEAD~1}
if ! git rev-parse -q --verify "$base^{commit}" >/dev/null; then
	echo "format-check: no base commit '$base'" >&2
	exit 2
fi

if [ "${FORMAT_FIX:-0}" = 1 ]; then
	"$gcf" --binary "$cf" -f "$base" -- '*.c' '*.h'
	exit 0
fi
out=$("$gcf" --binary "$cf" --diff "$base" -- '*.c' '*.h')
case "$out" in
"" | "no modified files to format" | "clang-format did not modify any files")
	echo "format-check: the C lines changed since $(git rev-parse --short "$base") are formatted"
	exit 0
	;;
esac
printf '%s\n' "$out"
echo "format-check: the lines above differ from .clang-format (FORMAT_FIX=1 rewrites them)" >&2
exit 1
