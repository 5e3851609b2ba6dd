#!/bin/sh
# readme-table.sh update|check FILE NAME TABLE - the generated block NAME of FILE
# (dma/README.md), the lines between "<!-- NAME:begin -->" and "<!-- NAME:end -->":
#   update  replace them with the contents of TABLE (make portable-size does);
#   check   fail, with a diff, when they differ from TABLE (make check does, so a
#           change that moves the figures must run make portable-size).
set -eu

if [ $# -ne 4 ] || { [ "$1" != update ] && [ "$1" != check ]; }; then
	echo "usage: $0 update|check FILE NAME TABLE" >&2
	exit 2
fi
mode=$1 file=$2 name=$3 table=$4
begin="<!-- $name:begin -->"
end="<!-- $name:end -->"
if [ "$(grep -cxF "$begin" "$file")" != 1 ] || [ "$(grep -cxF "$end" "$file")" != 1 ]; then
	echo "readme-table: $file: needs exactly one '$begin' and one '$end' line" >&2
	exit 2
fi
tmp=$(mktemp)
trap 'rm -f "$tmp" "$tmp.new"' EXIT
awk -v b="$begin" -v e="$end" '$0 == b { on = 1; next } $0 == e { on = 0 } on' "$file" >"$tmp"
if [ "$mode" = check ]; then
	if ! diff -u "$tmp" "$table"; then
		echo "readme-table: $file: the $name block is not what the build gives;" \
			"run make portable-size" >&2
		exit 1
	fi
	echo "readme-table: $file: the $name block matches the build"
	exit 0
fi
awk -v b="$begin" -v e="$end" -v t="$table" '
	$0 == b { print; while ((getline l < t) > 0) print l; skip = 1; next }
	$0 == e { skip = 0 }
	!skip' "$file" >"$tmp.new"
cat "$tmp.new" >"$file"
echo "readme-table: $file: $name block updated"
