#!/usr/bin/env bash
# test_accel.sh - the accelerator choice of scripts/run-qemu.sh (scripts/qemu-accel.sh),
# against a stub qemu-system-x86_64 (tests/accel/) first on PATH that fails the way
# QEMU fails on a machine whose /dev/kvm does not work. No real KVM or QEMU needed.
#
# Checks: auto falls back to TCG and says why (abort, KVM internal error, silence), the
# verdict is cached and reused and re-probed when QEMU changes, kvm fails clearly,
# tcg never probes nor touches the KVM device, a working KVM is taken and a run that
# dies under it is not retried and names the accelerator, no device means no probe.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
stub_dir="$top/tests/accel"
tmp=$(mktemp -d)
# A boot volume of its own: an e2e boot may run beside this test (make test).
export SLUICE_RUN_DIR="$tmp/run"
trap 'rm -rf "$tmp"' EXIT
fails=0
export PATH="$stub_dir:$PATH"
export STUB_CALLS="$tmp/calls"
export SLUICE_ACCEL_CACHE="$tmp/cache/kvm-probe.verdict"
export SLUICE_KVM_DEV="$tmp/kvm"     # a stand-in device node: exists, read-write
export SLUICE_KVM_PROBE_SECONDS=2
: >"$SLUICE_KVM_DEV"
[ -f "$top/build/sluice.efi" ] || { echo "test_accel: build/sluice.efi missing; make image" >&2; exit 1; }

fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }

# run NAME [env...]: run-qemu.sh with the stub; output in $tmp/NAME.out, status in $rc.
run() {
	local name=$1
	shift
	: >"$STUB_CALLS"
	env "$@" "$top/scripts/run-qemu.sh" --timeout 30 --log "$tmp/$name.serial" \
		--disk "$tmp/disk.img" --args "blk=none" >"$tmp/$name.out" 2>&1
	rc=$?
}
has() { grep -qF -- "$2" "$tmp/$1.out" || { fail "$1: no '$2' in output:"; sed 's/^/    | /' "$tmp/$1.out"; }; }
kvm_probes() { grep -c -- '-accel kvm' "$STUB_CALLS" | grep -v isa-debug-exit || true; }
probes() { grep -- '-accel kvm' "$STUB_CALLS" | grep -vc isa-debug-exit; }
boots() { grep -c -- 'isa-debug-exit' "$STUB_CALLS"; }
reset_cache() { rm -rf "$tmp/cache"; }

# 1. auto, QEMU aborts setting MSR 0x10a: TCG, with the reason and the probe log.
reset_cache
run abort STUB_KVM=abort
[ "$rc" -eq 0 ] && ok "abort: run-qemu exit 0 under TCG" || fail "abort: exit $rc"
has abort "run-qemu: accelerator TCG (KVM present but unusable: QEMU aborted (signal 6): 'error: failed to set MSR 0x10a to 0x69'; probe log $tmp/cache/kvm-probe.log)"
has abort "stub kernel: booted under tcg"
[ "$(probes)" -eq 1 ] && [ "$(boots)" -eq 1 ] || fail "abort: $(probes) probes, $(boots) boots"
grep -q "failed to set MSR" "$tmp/cache/kvm-probe.log" || fail "abort: probe log lacks QEMU's error"
grep -qx "accel=tcg blk=none" "$SLUICE_RUN_DIR/esp/sluice.cfg" || fail "abort: sluice.cfg: $(cat "$SLUICE_RUN_DIR/esp/sluice.cfg")"

# 2. The verdict is reused: no second probe.
run cached STUB_KVM=works
has cached "accelerator TCG (KVM present but unusable: QEMU aborted"
has cached "cached in $tmp/cache/kvm-probe.verdict"
[ "$(probes)" -eq 0 ] && ok "cache: no probe on the second boot" || fail "cache: probed again"

# 3. ... until QEMU changes: a new version is probed again.
run newqemu STUB_KVM=works STUB_VERSION=8.0.0
[ "$(probes)" -eq 1 ] && ok "cache: a new QEMU version is probed" || fail "newqemu: $(probes) probes"
has newqemu "run-qemu: accelerator KVM (probe: the firmware ran under KVM"

# 4. KVM internal error with QEMU still alive: TCG, reason quoted, QEMU killed.
reset_cache
start=$(date +%s)
run internal STUB_KVM=internal
has internal "accelerator TCG (KVM present but unusable: QEMU reported 'KVM internal error. Suberror: 1'"
[ $(($(date +%s) - start)) -lt 10 ] && ok "internal: decided without waiting out the probe" ||
	fail "internal: took $(($(date +%s) - start)) s"
pgrep -f "$stub_dir/qemu-system" >/dev/null && fail "internal: the probe left QEMU running"

# 5. Silent firmware: TCG after the probe's time.
reset_cache
run silent STUB_KVM=silent
has silent "accelerator TCG (KVM present but unusable: the firmware printed nothing in 2 s under KVM"
[ "$rc" -eq 0 ] && ok "silent: TCG after 2 s" || fail "silent: exit $rc"

# 6. SLUICE_ACCEL=kvm with a broken KVM: a clear failure, nothing booted.
reset_cache
run forced SLUICE_ACCEL=kvm STUB_KVM=abort
[ "$rc" -eq 2 ] && ok "kvm forced: exit 2" || fail "kvm forced: exit $rc"
has forced "qemu-accel: SLUICE_ACCEL=kvm but KVM cannot be used: KVM present but unusable: QEMU aborted"
[ "$(boots)" -eq 0 ] || fail "kvm forced: the kernel was booted anyway"

# 7. SLUICE_ACCEL=tcg: no probe, the KVM device never opened or even looked at.
reset_cache
# Traced with strace where the machine lets a process trace another (scripts/probe.sh
# strace); elsewhere the run is checked untraced and the trace check is reported
# as not run.
: >"$STUB_CALLS"
tcg_run=("$top/scripts/run-qemu.sh" --timeout 30 --log "$tmp/tcg.serial" --disk "$tmp/disk.img")
if "$top/scripts/probe.sh" strace >"$tmp/strace-probe"; then
	SLUICE_ACCEL=tcg STUB_KVM=works strace -f -qq -e trace=%file -o "$tmp/strace" \
		"${tcg_run[@]}" >"$tmp/tcg.out" 2>&1
	rc=$?
	grep -F "$SLUICE_KVM_DEV" "$tmp/strace" | grep -v execve >/dev/null &&
		fail "tcg: the KVM device was touched: $(grep -F "$SLUICE_KVM_DEV" "$tmp/strace" | head -2)"
	grep -q '"/dev/kvm"' "$tmp/strace" && fail "tcg: /dev/kvm was touched"
else
	SLUICE_ACCEL=tcg STUB_KVM=works "${tcg_run[@]}" >"$tmp/tcg.out" 2>&1
	rc=$?
	echo "not run: the check that tcg never touches the KVM device (strace): $(sed \
		's/^probe: strace: //' "$tmp/strace-probe")"
fi
has tcg "run-qemu: accelerator TCG (SLUICE_ACCEL=tcg)"
[ "$(probes)" -eq 0 ] && [ ! -e "$SLUICE_ACCEL_CACHE" ] && ok "tcg: no probe, no cache" ||
	fail "tcg: probed"

# 8. A working KVM is taken, with the CPU model the probe used...
reset_cache
run works STUB_KVM=works
has works "run-qemu: accelerator KVM (probe: the firmware ran under KVM (serial output after"
grep -- 'isa-debug-exit' "$STUB_CALLS" | grep -q -- '-accel kvm -cpu host' || fail "works: boot not under kvm -cpu host"
grep -qx "accel=kvm blk=none" "$SLUICE_RUN_DIR/esp/sluice.cfg" || fail "works: sluice.cfg: $(cat "$SLUICE_RUN_DIR/esp/sluice.cfg")"
# ... and a run that dies under it is not retried; its last lines name KVM.
run dies STUB_KVM=works STUB_BOOT_STATUS=1
[ "$rc" -eq 125 ] && ok "dies: 125 under KVM" || fail "dies: exit $rc"
[ "$(boots)" -eq 1 ] && ok "dies: not retried" || fail "dies: $(boots) boots"
tail -2 "$tmp/dies.out" | grep -q "accelerator KVM" || fail "dies: last lines do not name KVM"
has dies "SLUICE_ACCEL=tcg reruns it under TCG"

# 9. No KVM device: TCG, no probe (nothing changes on such machines).
reset_cache
run nodev SLUICE_KVM_DEV="$tmp/no-such-device" STUB_KVM=works
has nodev "run-qemu: accelerator TCG (no $tmp/no-such-device)"
[ "$(probes)" -eq 0 ] || fail "nodev: probed"

# 10. A wrong SLUICE_ACCEL is refused.
run badvalue SLUICE_ACCEL=fast
[ "$rc" -eq 2 ] || fail "badvalue: exit $rc"
has badvalue "SLUICE_ACCEL='fast' is not one of auto, kvm, tcg"

echo
if [ "$fails" -ne 0 ]; then
	echo "test_accel: $fails check(s) failed"
	exit 1
fi
echo "test_accel: all checks passed"
