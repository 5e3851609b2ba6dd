#!/usr/bin/env bash
# format-check.sh - check C sources against the repository's .clang-format.
#
#   scripts/format-check.sh            every *.c and *.h git knows (tracked, or new
#                                      and not ignored) below the repository's top
#   scripts/format-check.sh FILE...    only these files
#   FORMAT_FIX=1 scripts/format-check.sh [FILE...]   rewrite them instead of failing
#
# The style file is always the repository's top-level .clang-format, whatever
# folder a file is in. The whole tree is held to it (`make format-check`, part of
# `make test`), so a change never has to reformat code it did not touch.
# clang-format does not break string literals or comments, so the 100-column
# limit is also checked on its own: every line, tabs 8 wide, counted in
# characters (not bytes).
# Exit 0: every file is formatted; 1: the diff clang-format wants is printed for
# each file that is not, and every line over 100 columns is named; 2: no
# clang-format, or a file that does not exist.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)

cf=""
for c in clang-format clang-format-14 clang-format-15 clang-format-16; do
	if command -v "$c" >/dev/null 2>&1; then
		cf=$c
		break
	fi
done
if [ -z "$cf" ]; then
	echo "format-check: needs clang-format (scripts/deps.sh test, or apt-get install clang-format)" >&2
	exit 2
fi
# The tree is formatted with clang-format 14 (Debian 12's); another major version
# may lay out a few constructs differently, so say which one ran.
major=$("$cf" --version | sed -n 's/.*version \([0-9][0-9]*\).*/\1/p')
if [ "$major" != 14 ]; then
	echo "format-check: note: clang-format $major; the tree is formatted with 14" >&2
fi

if [ $# -gt 0 ]; then
	files=("$@")
else
	cd "$top" || exit 2
	mapfile -t files < <(git ls-files -co --exclude-standard -- '*.c' '*.h')
fi

style="--style=file:$top/.clang-format"
bad=0
for f in "${files[@]}"; do
	if [ ! -f "$f" ]; then
		echo "format-check: no file $f" >&2
		exit 2
	fi
done
if [ "${FORMAT_FIX:-0}" = 1 ]; then
	"$cf" "$style" -i "${files[@]}"
else
	# One clang-format for every file (a process per file cost a minute and a half on
	# 2 cores); it names the files it would change, and only those are diffed.
	mapfile -t differ < <("$cf" "$style" --dry-run "${files[@]}" 2>&1 |
		sed -n 's/^\(.*\):[0-9]*:[0-9]*: [a-z]*: code should be clang-formatted.*/\1/p' |
		awk '!seen[$0]++')
	for f in "${differ[@]}"; do
		# diff's exit status says whether clang-format would change anything.
		if ! "$cf" "$style" "$f" | diff -u --label "$f" --label "$f (clang-format)" "$f" -; then
			bad=$((bad + 1))
		fi
	done
fi
[ "${FORMAT_FIX:-0}" = 1 ] || python3 - "${files[@]}" <<'EOF' || bad=$((bad + 1))
import sys
long = 0
for name in sys.argv[1:]:
    with open(name, encoding="utf-8", errors="replace") as f:
        for n, line in enumerate(f, 1):
            width = len(line.rstrip("\n").expandtabs(8))
            if width > 100:
                print(f"{name}:{n}: {width} columns (the limit is 100)")
                long += 1
sys.exit(1 if long else 0)
EOF
if [ "$bad" -gt 0 ]; then
	echo "format-check: $bad of ${#files[@]} files differ from .clang-format" \
		"(FORMAT_FIX=1 scripts/format-check.sh FILE... rewrites them)" >&2
	exit 1
fi
echo "format-check: ${#files[@]} files match .clang-format"
