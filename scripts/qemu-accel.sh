#!/usr/bin/env bash
# qemu-accel.sh - choose QEMU's accelerator by trying it, and say why.
#
#   scripts/qemu-accel.sh
#
# Prints one line, "ACCEL<TAB>REASON", where ACCEL is kvm or tcg, and exits 0; or,
# when SLUICE_ACCEL=kvm and KVM does not work, prints the reason on stderr and
# exits 3. scripts/run-qemu.sh calls it before every boot.
#
# Why a probe: a /dev/kvm that opens is no proof that KVM works. On a microVM
# without nested virtualisation QEMU may abort while setting the vCPU's MSRs
# ("failed to set MSR 0x10a"), or start and then stop on the firmware's first x87
# instruction ("KVM internal error"). So KVM is accepted only if the real firmware
# (OVMF), under -accel kvm with the CPU model the kernel gets, prints on the serial
# port within the probe's time and QEMU reports no KVM error.
#
# The verdict is cached in build/kvm-probe.verdict, keyed on the QEMU version, the
# host kernel (uname -r), the CPU model and the firmware file, so the probe costs a
# few seconds once. Delete that file to probe again.
#
# Environment:
#   SLUICE_ACCEL               auto (default): KVM if the probe passes, else TCG;
#                              kvm: KVM or a clear failure; tcg: TCG, /dev/kvm untouched
#   SLUICE_KVM_PROBE_SECONDS   how long the firmware has to print under KVM (default 10)
#   SLUICE_KVM_DEV             the KVM device (default /dev/kvm; tests point it elsewhere)
#   SLUICE_ACCEL_CACHE         the verdict file (default build/kvm-probe.verdict); the
#                              probe's log is written beside it as kvm-probe.log
#   QEMU                       the QEMU binary (default qemu-system-x86_64 on PATH)
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
mode=${SLUICE_ACCEL:-auto}
probe_seconds=${SLUICE_KVM_PROBE_SECONDS:-10}
kvm_dev=${SLUICE_KVM_DEV:-/dev/kvm}
cache=${SLUICE_ACCEL_CACHE:-$top/build/kvm-probe.verdict}
probe_log="$(dirname "$cache")/kvm-probe.log"
qemu=${QEMU:-qemu-system-x86_64}
# The CPU model the kernel is booted with under KVM (scripts/run-qemu.sh uses this too).
kvm_cpu=${SLUICE_KVM_CPU:-host}
fw_code=/usr/share/OVMF/OVMF_CODE_4M.fd
fw_vars=/usr/share/OVMF/OVMF_VARS_4M.fd

# Paths in messages are relative to the repository when they lie inside it.
show_path() {
	case "$1" in
	"$top"/*) echo "${1#"$top"/}" ;;
	*) echo "$1" ;;
	esac
}

verdict() {
	printf '%s\t%s\n' "$1" "$2"
	exit 0
}

case "$mode" in
auto | kvm | tcg) ;;
*)
	echo "qemu-accel: SLUICE_ACCEL='$mode' is not one of auto, kvm, tcg" >&2
	exit 2
	;;
esac

[ "$mode" = tcg ] && verdict tcg "SLUICE_ACCEL=tcg"

unusable() { # REASON: KVM cannot be used
	if [ "$mode" = kvm ]; then
		echo "qemu-accel: SLUICE_ACCEL=kvm but KVM cannot be used: $1" >&2
		echo "qemu-accel: use SLUICE_ACCEL=auto (or tcg) to run under TCG instead" >&2
		exit 3
	fi
	verdict tcg "$1"
}

if [ ! -e "$kvm_dev" ]; then
	unusable "no $kvm_dev"
fi
if [ ! -r "$kvm_dev" ] || [ ! -w "$kvm_dev" ]; then
	unusable "$kvm_dev is not readable and writable by $(id -un)"
fi
if ! command -v "$qemu" >/dev/null 2>&1; then
	echo "qemu-accel: $qemu not found; install qemu-system-x86 (scripts/deps.sh)" >&2
	exit 2
fi
[ -f "$fw_code" ] && [ -f "$fw_vars" ] ||
	{ echo "qemu-accel: $fw_code is missing; install ovmf (scripts/deps.sh)" >&2; exit 2; }

qemu_version=$("$qemu" --version 2>/dev/null | head -1)
key="qemu=$qemu_version|kernel=$(uname -r)|cpu=$kvm_cpu|fw=$fw_code $(stat -c '%s %Y' "$fw_code")"

mkdir -p "$(dirname "$cache")"
# One probe at a time: parallel boots (bench.py, a second shell) share the verdict.
exec 9>"$cache.lock"
flock 9

if [ -f "$cache" ] && [ "$(sed -n 1p "$cache")" = "$key" ]; then
	cached_accel=$(sed -n 2p "$cache")
	cached_reason=$(sed -n 3p "$cache")
	case "$cached_accel" in
	kvm) verdict kvm "$cached_reason; cached in $(show_path "$cache")" ;;
	tcg) unusable "$cached_reason; cached in $(show_path "$cache")" ;;
	esac
fi

# ---------------------------------------------------------------- the probe
# The firmware alone, no disks or NICs: OVMF prints its boot manager's lines on the
# serial port within a second or two under a working KVM (about 5 s under TCG).
tmp=$(mktemp -d)
# bash reports a background job killed by a signal ("Aborted") on stderr; the
# reason below says it better, so the probe's stderr is muted and restored after.
exec 8>&2 2>/dev/null
cp "$fw_vars" "$tmp/vars.fd"
: >"$tmp/serial"
"$qemu" -accel kvm -cpu "$kvm_cpu" -machine q35 -m 256 -smp 1 -display none \
	-no-reboot -monitor none -nodefaults -net none \
	-serial "file:$tmp/serial" \
	-drive "if=pflash,format=raw,readonly=on,file=$fw_code" \
	-drive "if=pflash,format=raw,file=$tmp/vars.fd" </dev/null >"$probe_log" 2>&1 &
pid=$!
start=$(date +%s%N)
result=""
while :; do
	elapsed_ms=$((($(date +%s%N) - start) / 1000000))
	if grep -qiE 'KVM internal error|kvm.*(error|fail)|failed to (set|get) MSR' "$probe_log"; then
		result="error"
		# An abort follows its message at once: give QEMU a moment to end, so
		# the reason can say whether it died or hangs.
		for _ in 1 2 3 4 5; do
			kill -0 "$pid" 2>/dev/null || { result="exited"; break; }
			sleep 0.1
		done
		break
	fi
	if [ -s "$tmp/serial" ]; then
		result="ran"
		break
	fi
	if ! kill -0 "$pid" 2>/dev/null; then
		result="exited"
		break
	fi
	if [ "$elapsed_ms" -ge $((probe_seconds * 1000)) ]; then
		result="silent"
		break
	fi
	sleep 0.1
done
kill -9 "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
status=$?
exec 2>&8 8>&-
{
	echo "--- probe: $qemu -accel kvm -cpu $kvm_cpu, firmware $fw_code"
	echo "--- result: $result after ${elapsed_ms} ms (QEMU status $status)"
	echo "--- serial port (first 400 bytes):"
	head -c 400 "$tmp/serial" | tr -d '\033'
	echo
} >>"$probe_log"
rm -rf "$tmp"

# The first line QEMU wrote about the failure, without its program-name prefix.
first_error=$(grep -m1 -iE 'error|fail|abort|assert' "$probe_log" | sed -e "s|^[^ ]*qemu-system[^:]*: ||")
[ -n "$first_error" ] || first_error=$(sed -n 1p "$probe_log")
secs=$(awk -v ms="$elapsed_ms" 'BEGIN { printf "%.1f", ms / 1000 }')
case "$result" in
ran)
	accel=kvm
	reason="probe: the firmware ran under KVM (serial output after ${secs} s)"
	;;
error)
	accel=tcg
	reason="KVM present but unusable: QEMU reported '$first_error'"
	;;
exited)
	accel=tcg
	if [ "$status" -ge 128 ]; then
		how="QEMU aborted (signal $((status - 128)))"
	else
		how="QEMU exited with status $status"
	fi
	reason="KVM present but unusable: $how${first_error:+: '$first_error'}"
	;;
silent)
	accel=tcg
	reason="KVM present but unusable: the firmware printed nothing in ${probe_seconds} s under KVM"
	;;
esac
reason="$reason; probe log $(show_path "$probe_log")"
printf '%s\n%s\n%s\n' "$key" "$accel" "$reason" >"$cache"
[ "$accel" = kvm ] && verdict kvm "$reason"
unusable "$reason"
