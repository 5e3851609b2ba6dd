#!/usr/bin/env bash
# probe.sh - what this machine can do, found by trying it once, cached in build/probes/.
#
#   scripts/probe.sh CAP                 one line "probe: CAP: VERDICT (how it was found)";
#                                        exit 0 when CAP is usable, 1 when it is not
#   scripts/probe.sh --all               that line for every capability below (make probes)
#   scripts/probe.sh --value CAP         VERDICT alone ("none" when not usable)
#   scripts/probe.sh run CAP -- CMD...   CMD when CAP is usable; otherwise one line
#                                        "not run: CAP: REASON" and exit 77
#   scripts/probe.sh exec ARCH BIN ARG...
#                                        run a Linux binary of ARCH (x86_64, i386, aarch64)
#                                        the way the probe found (natively or under
#                                        qemu-user); with no way, "not run: ..." and exit 77
#
# Capabilities (VERDICT when usable; "none" otherwise):
#   i386-run       native | qemu-i386   an i386 program of gcc -m32 runs (needs the host
#                                       kernel's IA32 emulation, else qemu-user)
#   aarch64-run    qemu-aarch64         an aarch64 program of the cross gcc runs under qemu-user
#   gcc-i386       yes                  gcc -m32 compiles and links a CMocka program
#   gcc-aarch64    yes                  aarch64-linux-gnu-gcc does the same (arm64 CMocka)
#   clang          yes                  clang compiles freestanding C for x86_64, i386, aarch64
#   sanitizers     yes                  gcc -fsanitize=address,undefined: a program links and runs
#   valgrind       yes                  valgrind runs a program to its end with no error
#   strace         yes                  strace -f can trace a program (ptrace allowed)
#   libfuzzer      yes                  clang -fsanitize=fuzzer links a target that then runs
#   tap            yes                  a multiqueue tap device on a Linux bridge can be made
#                                       (root, /dev/net/tun, ip; run-qemu.sh --net-tap)
# The accelerator (KVM or TCG) has its own probe, scripts/qemu-accel.sh; --all shows it too.
#
# A verdict is kept in build/probes/CAP.verdict with a key made of the host kernel
# (uname -r), the tools it tried (path, size, time) and the overrides below; when the
# key changes the probe runs again. Delete build/probes/ to probe everything again.
#
# Environment:
#   SLUICE_NATIVE_I386=no   treat native i386 execution as failed without trying it (the
#                           machine then looks like one whose kernel has no IA32
#                           emulation; tests/probe/test_probe.sh uses it)
#   SLUICE_PROBE_DIR        the cache folder (default build/probes)
#   SLUICE_ACCEL_CACHE      passed on to scripts/qemu-accel.sh
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cache_dir=${SLUICE_PROBE_DIR:-$top/build/probes}
AARCH64=aarch64-linux-gnu
CAPS=(i386-run aarch64-run gcc-i386 gcc-aarch64 clang sanitizers valgrind strace libfuzzer tap)

usage() {
	sed -n '2,16p' "$0" >&2
	exit 2
}

show_path() {
	case "$1" in
	"$top"/*) echo "${1#"$top"/}" ;;
	*) echo "$1" ;;
	esac
}

# tool_id NAME...: what the key records of each tool: its path, size and time, or
# "NAME=missing".
tool_id() {
	local t p
	for t in "$@"; do
		p=$(command -v "$t" 2>/dev/null) || { printf '%s=missing ' "$t"; continue; }
		printf '%s=%s ' "$t" "$(stat -L -c '%n:%s:%Y' "$p")"
	done
}

# The tools each probe tries, and the overrides that change its answer.
cap_key() {
	local k="kernel=$(uname -r) arch=$(uname -m) "
	case "$1" in
	i386-run) k+="$(tool_id gcc qemu-i386) native=${SLUICE_NATIVE_I386:-try}" ;;
	aarch64-run) k+="$(tool_id $AARCH64-gcc qemu-aarch64)" ;;
	gcc-i386) k+="$(tool_id gcc)" ;;
	gcc-aarch64) k+="$(tool_id $AARCH64-gcc)" ;;
	clang) k+="$(tool_id clang)" ;;
	sanitizers) k+="$(tool_id gcc)" ;;
	valgrind) k+="$(tool_id gcc valgrind)" ;;
	strace) k+="$(tool_id strace)" ;;
	libfuzzer) k+="$(tool_id clang)" ;;
	tap) k+="$(tool_id ip) uid=$(id -u)" ;;
	esac
	echo "$k"
}

# ---------------------------------------------------------------- the tries
# Each try_CAP runs in the probe's scratch folder $work, prints "VERDICT<TAB>REASON"
# and returns 0 when usable. A REASON says what was tried and, on failure, the first
# line the tool printed.
PROBE_C='#include <stdio.h>
int main(void) { puts("sluice-probe-ok"); return 0; }'
PROBE_CMOCKA='#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
static void t(void **s) { (void)s; assert_true(1); }
int main(void) { const struct CMUnitTest ts[] = { cmocka_unit_test(t) };
	return cmocka_run_group_tests(ts, NULL, NULL); }'

first_line() { grep -v '^[[:space:]]*$' "$1" | head -1 | cut -c1-160; }

# compile OUT LIBS CC...: the probe program, source on stdin, linked with LIBS (may be
# empty); on failure the reason.
compile() {
	local out=$1 libs=$2
	shift 2
	# shellcheck disable=SC2086 # LIBS is a list of words
	if "$@" -x c - -o "$out" $libs >"$work/cc.log" 2>&1; then
		return 0
	fi
	echo "'$* $libs' failed: $(grep -m1 -E 'error|undefined|cannot|not found' "$work/cc.log" ||
		first_line "$work/cc.log")" | cut -c1-200
	return 1
}

# runs_ok CMD...: the probe program prints its line and exits 0.
runs_ok() {
	timeout 60 "$@" >"$work/run.log" 2>&1 && grep -q sluice-probe-ok "$work/run.log"
}

try_i386-run() {
	local why native_why
	why=$(echo "$PROBE_C" | compile "$work/p32" "" gcc -m32) ||
		{ printf 'none\tno i386 program to try: %s\n' "$why"; return 1; }
	if [ "${SLUICE_NATIVE_I386:-}" = no ]; then
		native_why="SLUICE_NATIVE_I386=no"
	# Through bash, not timeout's execvp, which hands a binary the kernel refuses
	# (ENOEXEC) to /bin/sh; bash names the real error.
	elif runs_ok bash -c 'exec "$0"' "$work/p32"; then
		printf 'native\tan i386 program ran natively\n'
		return 0
	else
		native_why="native execution failed: $(first_line "$work/run.log" |
			sed -e "s|$work/||g" -e 's|.*: \(cannot execute\)|\1|')"
	fi
	if ! command -v qemu-i386 >/dev/null; then
		printf 'none\t%s; no qemu-i386 (qemu-user)\n' "$native_why"
		return 1
	fi
	if runs_ok qemu-i386 "$work/p32"; then
		printf 'qemu-i386\t%s; ran under qemu-i386\n' "$native_why"
		return 0
	fi
	printf 'none\t%s; qemu-i386 failed: %s\n' "$native_why" "$(first_line "$work/run.log")"
	return 1
}

try_aarch64-run() {
	local why
	why=$(echo "$PROBE_C" | compile "$work/pa64" "" $AARCH64-gcc) ||
		{ printf 'none\tno aarch64 program to try: %s\n' "$why"; return 1; }
	command -v qemu-aarch64 >/dev/null ||
		{ printf 'none\tno qemu-aarch64 (qemu-user)\n'; return 1; }
	if runs_ok qemu-aarch64 -L /usr/$AARCH64 "$work/pa64"; then
		printf 'qemu-aarch64\tran under qemu-aarch64\n'
		return 0
	fi
	printf 'none\tqemu-aarch64 failed: %s\n' "$(first_line "$work/run.log")"
	return 1
}

try_gcc-i386() {
	local why
	why=$(echo "$PROBE_CMOCKA" | compile "$work/c32" -lcmocka gcc -m32) ||
		{ printf 'none\t%s\n' "$why"; return 1; }
	printf 'yes\tgcc -m32 links a CMocka program\n'
}

try_gcc-aarch64() {
	local why
	why=$(echo "$PROBE_CMOCKA" | compile "$work/ca64" -lcmocka $AARCH64-gcc) ||
		{ printf 'none\t%s\n' "$why"; return 1; }
	printf 'yes\t%s-gcc links a CMocka program\n' $AARCH64
}

try_clang() {
	local why t
	for t in x86_64-linux-gnu i686-linux-gnu $AARCH64; do
		why=$(echo 'int f(int x) { return x + 1; }' |
			compile "$work/clang.o" "" clang --target=$t -ffreestanding -c) ||
			{ printf 'none\t%s\n' "$why"; return 1; }
	done
	printf 'yes\tclang compiles for x86_64, i386 and aarch64\n'
}

try_sanitizers() {
	local why
	why=$(echo "$PROBE_C" | compile "$work/san" "" gcc -fsanitize=address,undefined) ||
		{ printf 'none\t%s\n' "$why"; return 1; }
	runs_ok "$work/san" ||
		{ printf 'none\tan ASan+UBSan program does not run: %s\n' \
			"$(first_line "$work/run.log")"; return 1; }
	printf 'yes\tan ASan+UBSan program of gcc ran\n'
}

try_valgrind() {
	local why
	command -v valgrind >/dev/null || { printf 'none\tno valgrind\n'; return 1; }
	why=$(echo "$PROBE_C" | compile "$work/vg" "" gcc -g) || { printf 'none\t%s\n' "$why"; return 1; }
	runs_ok valgrind -q --error-exitcode=1 "$work/vg" ||
		{ printf 'none\tvalgrind failed: %s\n' "$(first_line "$work/run.log")"; return 1; }
	printf 'yes\tvalgrind ran a program cleanly\n'
}

try_strace() {
	command -v strace >/dev/null || { printf 'none\tno strace\n'; return 1; }
	timeout 30 strace -f -qq -o /dev/null true >"$work/run.log" 2>&1 ||
		{ printf 'none\tstrace cannot trace: %s\n' "$(first_line "$work/run.log")"; return 1; }
	printf 'yes\tstrace traced a program\n'
}

try_libfuzzer() {
	local why
	why=$(printf '%s\n' '#include <stddef.h>' '#include <stdint.h>' \
		'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }' |
		compile "$work/fz" "" clang -fsanitize=fuzzer) || { printf 'none\t%s\n' "$why"; return 1; }
	timeout 60 "$work/fz" -runs=10 >"$work/run.log" 2>&1 ||
		{ printf 'none\ta libFuzzer target does not run: %s\n' \
			"$(first_line "$work/run.log")"; return 1; }
	printf 'yes\tclang -fsanitize=fuzzer built a target that ran\n'
}

# What run-qemu.sh --net-tap does, on a small scale: a bridge and a multiqueue tap
# on it, removed again at once.
try_tap() {
	local br="slp$$br" tap="slp$$t" rc=0
	command -v ip >/dev/null || { printf 'none\tno ip (iproute2)\n'; return 1; }
	{ ip link add "$br" type bridge && ip tuntap add dev "$tap" mode tap multi_queue &&
		ip link set "$tap" master "$br"; } >"$work/run.log" 2>&1 || rc=1
	ip link del "$tap" 2>/dev/null
	ip link del "$br" 2>/dev/null
	[ $rc -eq 0 ] ||
		{ printf 'none\tcannot make a multiqueue tap on a bridge: %s\n' \
			"$(first_line "$work/run.log")"; return 1; }
	printf 'yes\ta multiqueue tap on a bridge was made and removed\n'
}

# ---------------------------------------------------------------- cache
# verdict CAP: sets VERDICT and REASON, from the cache or by probing (one probe per
# capability at a time: parallel tests share the verdict).
verdict() {
	local cap=$1 key file out
	case " ${CAPS[*]} " in
	*" $cap "*) ;;
	*) echo "probe: unknown capability '$cap' (one of: ${CAPS[*]})" >&2; exit 2 ;;
	esac
	key=$(cap_key "$cap")
	file="$cache_dir/$cap.verdict"
	mkdir -p "$cache_dir"
	exec 9>"$file.lock"
	flock 9
	if [ -f "$file" ] && [ "$(sed -n 1p "$file")" = "$key" ]; then
		VERDICT=$(sed -n 2p "$file")
		REASON="$(sed -n 3p "$file"); cached in $(show_path "$file")"
	else
		work=$(mktemp -d)
		out=$(cd "$work" && "try_$cap")
		rm -rf "$work"
		VERDICT=${out%%$'\t'*}
		REASON=${out#*$'\t'}
		[ -n "$VERDICT" ] || { VERDICT=none; REASON="the probe printed nothing"; }
		printf '%s\n%s\n%s\n' "$key" "$VERDICT" "$REASON" >"$file"
	fi
	exec 9>&-
}

line() { echo "probe: $1: $VERDICT ($REASON)"; }

# ---------------------------------------------------------------- verbs
[ $# -ge 1 ] || usage
case "$1" in
--all)
	for cap in "${CAPS[@]}"; do
		verdict "$cap"
		line "$cap"
	done
	accel=$("$top/scripts/qemu-accel.sh") || exit 1
	echo "probe: accelerator: ${accel%%$'\t'*} (${accel#*$'\t'})"
	;;
--value)
	[ $# -eq 2 ] || usage
	verdict "$2"
	echo "$VERDICT"
	;;
run)
	[ $# -ge 4 ] && [ "$3" = "--" ] || usage
	verdict "$2"
	if [ "$VERDICT" = none ]; then
		echo "not run: $2: $REASON"
		exit 77
	fi
	shift 3
	# through env, so that CMD may start with VAR=value words
	exec env "$@"
	;;
exec)
	[ $# -ge 3 ] || usage
	arch=$2
	bin=$3
	shift 3
	case "$arch" in
	x86_64) exec "$bin" "$@" ;;
	i386 | aarch64) verdict "$arch-run" ;;
	*) echo "probe: exec: unknown architecture '$arch'" >&2; exit 2 ;;
	esac
	echo "probe: $arch-run: $VERDICT"
	case "$VERDICT" in
	native) exec "$bin" "$@" ;;
	qemu-i386) exec qemu-i386 "$bin" "$@" ;;
	# The cross toolchain's loader and libc first: the libc of libc6:arm64 (pulled in
	# by libcmocka0:arm64) is another build, whose first pthread_create hangs.
	qemu-aarch64) exec qemu-aarch64 -L /usr/$AARCH64 \
		-E LD_LIBRARY_PATH=/usr/$AARCH64/lib:/usr/lib/$AARCH64 "$bin" "$@" ;;
	*)
		echo "not run: $arch-run: $REASON"
		exit 77
		;;
	esac
	;;
-*) usage ;;
*)
	[ $# -eq 1 ] || usage
	verdict "$1"
	line "$1"
	[ "$VERDICT" != none ]
	;;
esac
