#!/usr/bin/env bash
# test_check_doc_paths.sh - the documents' path check (scripts/check-doc-paths.py)
# passes on the fixture tree tests/docs/fixture/ (every kind of path it must leave
# alone: build outputs, upstream paths, placeholders, bare names, code blocks,
# comments, web links), and fails, naming the file and the line, on a copy with one
# planted bad path at a time: a code span naming a missing file (in the README, in
# docs/, in CONTRIBUTING.md), a glob that matches nothing, a link to a missing file,
# a link to a missing heading (in another file and in the same one), a link out of
# the tree; and on a README longer than the limit.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
check="$top/scripts/check-doc-paths.py"
fixture="$top/tests/docs/fixture"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

fresh() {
	rm -rf "$tmp/t"
	cp -r "$fixture" "$tmp/t"
}

fresh
python3 "$check" --root "$tmp/t" >"$tmp/out" 2>&1 ||
	{ cat "$tmp/out"; fail "the fixture does not pass the check"; }
echo "passes (the fixture): $(cat "$tmp/out")"

# refused FILE TEXT EXPECT WHY: with TEXT appended to FILE of a fresh copy, the check
# fails and names FILE:LINE with EXPECT, and nothing else.
refused() {
	local file=$1 text=$2 expect=$3 why=$4 line rc
	fresh
	printf '%s\n' "$text" >>"$tmp/t/$file"
	line=$(wc -l <"$tmp/t/$file" | tr -d ' ')
	python3 "$check" --root "$tmp/t" >"$tmp/out" 2>&1
	rc=$?
	[ "$rc" -eq 1 ] || { cat "$tmp/out"; fail "$why: the check returned $rc, expected 1"; }
	grep -qF "check-doc-paths: $file:$line: $expect" "$tmp/out" ||
		{ cat "$tmp/out"; fail "$why: the check did not name $file:$line ($expect)"; }
	[ "$(grep -c "^check-doc-paths: [^ ]*:[0-9]*: " "$tmp/out")" -eq 1 ] ||
		{ cat "$tmp/out"; fail "$why: the check blamed more than the planted line"; }
	echo "refused ($why): $(grep -F "$file:$line" "$tmp/out")"
}

refused README.md 'See `dma/missing.txt`.' '`dma/missing.txt`: no such path' \
	"a missing file in the README"
refused docs/GUIDE.md 'Run `scripts/gone.txt --now`.' '`scripts/gone.txt`: no such path' \
	"a missing file in docs/"
refused CONTRIBUTING.md 'Tests go in `tests/none/`.' '`tests/none/`: no such path' \
	"a missing folder in CONTRIBUTING.md"
refused README.md 'Every `dma/*.none` file.' '`dma/*.none`: no such path' \
	"a glob that matches nothing"
refused README.md 'Read [the manual](docs/MANUAL.md).' 'link (docs/MANUAL.md): no such path' \
	"a link to a missing file"
refused docs/GUIDE.md 'See [the third part](GUIDE.md#third-part).' \
	"link (GUIDE.md#third-part): no heading '#third-part'" "a link to a missing heading"
refused README.md 'See [above](#nowhere).' "link (#nowhere): no heading '#nowhere'" \
	"a missing heading of the same file"
refused README.md 'See [out](../../etc/passwd).' 'link (../../etc/passwd): outside the tree' \
	"a link out of the tree"

fresh
python3 "$check" --root "$tmp/t" --readme-max 10 >"$tmp/out" 2>&1
[ $? -eq 1 ] && grep -q '^check-doc-paths: README.md: [0-9]* lines, more than 10' "$tmp/out" ||
	{ cat "$tmp/out"; fail "a README over the limit was not refused"; }
echo "refused (a README over the limit): $(grep 'README.md: ' "$tmp/out")"
echo "PASS: the check passes the fixture and refuses every planted bad path"
