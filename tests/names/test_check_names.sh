#!/usr/bin/env bash
# test_check_names.sh - tests/names/check_names.py passes on the tree and fails,
# naming the file and the line, on a copy of the tree with one planted copy of
# a list: a policy name as a C string, a bounce configuration, a suite where a
# result line begins, a script's mode literal, a hand-typed set of policies in
# an e2e script, an error code defined as a number or returned as one, an
# #ifdef of a policy macro only a selective library build defines, a policy
# file with no list line, and make disagreeing with the list. A comment
# naming a policy, a boot's own modes= choice and a line marked "names: chosen"
# leave it passing.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
check="$top/tests/names/check_names.py"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() {
	echo "FAIL: $*"
	exit 1
}

python3 "$check" --root "$top" >"$tmp/tree.out" 2>&1 ||
	{ cat "$tmp/tree.out"; fail "the tree does not pass the check"; }
cat "$tmp/tree.out"

# The tree as it is (tracked and new files, no build/), copied once; each case
# restores the one file it changed.
mkdir "$tmp/t"
(cd "$top" && git ls-files -z -c -o --exclude-standard |
	while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
	tar --null -T - -cf -) | tar -xf - -C "$tmp/t"

# plant FILE TEXT: append TEXT as new last line(s) of FILE in the copy (a new file
# if there is none); prints the line number of its first line.
plant() {
	local f="$tmp/t/$1"
	[ -e "$f" ] && cp "$f" "$f.orig"
	echo $(($( [ -e "$f" ] && wc -l <"$f" || echo 0) + 1))
	printf '%s\n' "$2" >>"$f"
}
unplant() {
	local f="$tmp/t/$1"
	if [ -e "$f.orig" ]; then mv "$f.orig" "$f"; else rm -f "$f"; fi
}

# Only the make case needs make's view of the list (a make run costs seconds).
make_opt=--no-make

# refused FILE TEXT WHY [WHERE]: the check fails and names FILE:LINE (or WHERE).
refused() {
	local file=$1 text=$2 why=$3 where=${4:-} line
	line=$(plant "$file" "$text")
	[ -n "$where" ] || where="$file:$line:"
	if python3 "$check" --root "$tmp/t" $make_opt >"$tmp/out" 2>&1; then
		unplant "$file"
		fail "$why: passed"
	fi
	grep -qF -- "$where" "$tmp/out" || { cat "$tmp/out"; unplant "$file"; fail "$why: $where not named"; }
	echo "refused ($why): $(grep -F -- "$where" "$tmp/out" | head -1)"
	unplant "$file"
}

# passed FILE TEXT WHY: the check still passes.
passed() {
	local file=$1 text=$2 why=$3
	plant "$file" "$text" >/dev/null
	python3 "$check" --root "$tmp/t" --no-make >"$tmp/out" 2>&1 || { cat "$tmp/out"; unplant "$file"; fail "$why: refused"; }
	echo "passed ($why)"
	unplant "$file"
}

refused boot/main.c 'static const char *const planted = "lifo";' "a policy name in C"
refused bench/tasks.c 'static const char *const planted = "bounce/sluice";' "a bounce configuration in C"
refused drivers/virtio/virtio_net.c 'static const char *const planted = "arena";' "a mode in C"
refused bench/net_bench.c 'static void planted(void) { bench_json_begin("net"); }' \
	"a suite where a result line begins"
refused scripts/plot.py 'PLANTED = "bounce"' "a mode literal in a product script"
refused tests/e2e/planted.sh 'for p in linux bitmap lifo sluice; do echo $p; done' \
	"the policies typed out"
refused drivers/virtio/virtio_blk.c '#define ERR_PLANTED (-22)' "an error code as a number"
refused arch/x86_64/mm/paging.h '	PLANTED_ERR_BUSY = -16,' "an enum error code as a number"
refused boot/options.c 'static int planted(void) { return -22; }' "a returned error number"
refused dma/map.c '#ifdef SLUICE_DMA_WITH_SLUICE' "a policy test false in the default build"
refused dma/bounce_planted.c '/* a policy with no list line */' "a policy file not in the list" \
	"dma/bounce_planted.c: no policy 'planted' in the list"
make_opt=
refused dma/build.mk 'DMA_POLICIES_ALL := linux sluice' "make disagreeing with the list" \
	"dma/build.mk: DMA_POLICIES_ALL is 'linux sluice'"
passed boot/main.c '/* lifo and sluice, in a comment */' "a policy named in a comment"
passed tests/e2e/planted.sh 'boot_kernel x 0 --args "modes=direct,bounce,arena policies=linux,bitmap,lifo,sluice"' \
	"a boot's own choice"
passed tests/e2e/planted.sh 'for m in direct bounce/linux arena; do :; done # names: chosen' \
	"a line marked as what a boot chose"
echo "test_check_names: every planted copy refused"
