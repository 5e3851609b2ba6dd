#!/usr/bin/env bash
# check-tree.sh snapshot|compare FILE - no test writes into the source tree.
#
#   scripts/check-tree.sh snapshot build/tree-before.txt   before the tests
#   scripts/check-tree.sh compare build/tree-before.txt    after them: fails, naming
#                                                          each file, if any file
#                                                          outside build/ appeared or
#                                                          changed
#
# What is compared is git's view of the work tree (git status, untracked and ignored
# files listed one by one) plus a checksum of every file it lists, minus build/: so a
# file a test creates, deletes or rewrites is seen even where the work tree was
# already dirty before the run. Outside a git checkout there is nothing to compare
# against; the script says so and passes.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
verb=${1:-}
file=${2:-}
[ -n "$file" ] && { [ "$verb" = snapshot ] || [ "$verb" = compare ]; } || {
	echo "usage: check-tree.sh snapshot|compare FILE" >&2
	exit 2
}

state() {
	git -C "$top" status --porcelain=v1 -z --untracked-files=all --ignored |
		tr '\0' '\n' | grep -v '^...build/' | sort |
		while IFS= read -r entry; do
			path=${entry:3}
			if [ -f "$top/$path" ]; then
				echo "$entry $(cksum <"$top/$path" | cut -d' ' -f1)"
			else
				echo "$entry"
			fi
		done
}

if ! git -C "$top" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	echo "check-tree: not a git checkout; the source tree is not compared"
	exit 0
fi
case "$verb" in
snapshot)
	mkdir -p "$(dirname "$file")"
	state >"$file"
	;;
compare)
	[ -f "$file" ] || { echo "check-tree: no snapshot $file" >&2; exit 2; }
	if ! diff <(cat "$file") <(state) >"$file.diff"; then
		echo "check-tree: FAIL: the tests changed the source tree (outside build/):"
		sed -n 's/^> /  now:    /p; s/^< /  before: /p' "$file.diff"
		echo "check-tree: a test must write only under build/ or a temporary folder"
		exit 1
	fi
	echo "check-tree: no file outside build/ was created or changed by the tests"
	;;
esac
