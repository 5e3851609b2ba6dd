#!/usr/bin/env bash
# test_cc_host.sh - scripts/run-qemu.sh --cc-host=tdx|snp (scripts/cc-host.sh)
# against a stub qemu-system-x86_64 (tests/cc_host/) first on PATH and a fake
# /sys/module, KVM device and firmware: the command lines a TDX and an SEV-SNP
# host need, exactly as QEMU's docs give them, and a clear refusal naming every
# missing piece (old QEMU, no guest object, no KVM support, no firmware) with no
# QEMU started. Finally, on this machine as it is, the check refuses or passes
# (it never starts QEMU half-configured).
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
# A boot volume of its own: an e2e boot may run beside this test (make test).
export SLUICE_RUN_DIR="$tmp/run"
trap 'rm -rf "$tmp"' EXIT
fails=0
[ -f "$top/build/sluice.efi" ] || { echo "test_cc_host: build/sluice.efi missing; make image" >&2; exit 1; }

fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }

# host KIND: a fake host able to run KIND (tdx or snp).
host() {
	rm -rf "$tmp/sys" "$tmp/fw" && mkdir -p "$tmp/sys/kvm_intel/parameters" \
		"$tmp/sys/kvm_amd/parameters" "$tmp/fw"
	: >"$tmp/kvm"
	: >"$tmp/fw/tdvf.fd"
	: >"$tmp/fw/snp.fd"
	echo Y >"$tmp/sys/kvm_intel/parameters/tdx"
	echo Y >"$tmp/sys/kvm_amd/parameters/sev_snp"
}

# run NAME [env...] -- [run-qemu args...]: output in $tmp/NAME.out, status in $rc.
run() {
	local name=$1
	shift
	local envs=()
	while [ "$1" != "--" ]; do envs+=("$1"); shift; done
	shift
	: >"$tmp/calls"
	env PATH="$top/tests/cc_host:$PATH" STUB_CALLS="$tmp/calls" SLUICE_KVM_DEV="$tmp/kvm" \
		SLUICE_SYS_MODULE="$tmp/sys" SLUICE_TDVF="$tmp/fw/tdvf.fd" \
		SLUICE_SNP_OVMF="$tmp/fw/snp.fd" STUB_OBJECTS="tdx-guest sev-snp-guest" \
		"${envs[@]}" "$top/scripts/run-qemu.sh" --timeout 30 --log "$tmp/$name.serial" \
		--disk "$tmp/disk.img" --args "blk=none" "$@" >"$tmp/$name.out" 2>&1
	rc=$?
}
has() { grep -qF -- "$2" "$tmp/$1.out" || { fail "$1: no '$2' in output:"; sed 's/^/    | /' "$tmp/$1.out"; }; }
call_has() { grep -qF -- "$2" "$tmp/calls" || { fail "$1: QEMU not called with '$2':"; sed 's/^/    | /' "$tmp/calls"; }; }
call_lacks() { ! grep -qF -- "$2" "$tmp/calls" || fail "$1: QEMU called with '$2'"; }
no_boot() { [ ! -s "$tmp/calls" ] || { fail "$1: QEMU was started:"; sed 's/^/    | /' "$tmp/calls"; }; }

# 1. A TDX host: QEMU's tdx.rst command line, TDVF as -bios, no OVMF flash.
host
run tdx -- --cc-host=tdx
[ "$rc" -eq 0 ] && ok "tdx: booted (stub)" || fail "tdx: exit $rc"
call_has tdx "-accel kvm -cpu host -object tdx-guest,id=tdx0 -machine q35,kernel-irqchip=split,confidential-guest-support=tdx0 -bios $tmp/fw/tdvf.fd -m 1024 -smp 2"
call_lacks tdx "if=pflash"
call_lacks tdx "-accel tcg"
call_has tdx "-device isa-debug-exit,iobase=0xf4,iosize=0x04"
grep -qx "accel=kvm blk=none" "$SLUICE_RUN_DIR/esp/sluice.cfg" || fail "tdx: sluice.cfg: $(cat "$SLUICE_RUN_DIR/esp/sluice.cfg")"

# 2. An SNP host: a memfd RAM backend, sev-snp-guest with the host's C-bit, the
#    SNP OVMF as -bios; the same through SLUICE_CC_HOST.
host
run snp SLUICE_SNP_CBITPOS=51 SLUICE_CC_HOST=snp -- --mem 2048
[ "$rc" -eq 0 ] && ok "snp: booted (stub)" || fail "snp: exit $rc"
call_has snp "-accel kvm -cpu host -object memory-backend-memfd,id=ram0,size=2048M,share=true,prealloc=false -object sev-snp-guest,id=sev0,cbitpos=51,reduced-phys-bits=1 -machine q35,confidential-guest-support=sev0,memory-backend=ram0 -bios $tmp/fw/snp.fd -m 2048"
call_lacks snp "if=pflash"

# 3. Refusals, every missing piece named, QEMU never started.
host
run oldqemu STUB_VERSION=9.2.0 STUB_OBJECTS=sev-snp-guest -- --cc-host=tdx
[ "$rc" -eq 2 ] || fail "oldqemu: exit $rc"
has oldqemu "run-qemu: --cc-host=tdx: this host cannot run a TD:"
has oldqemu "QEMU 9.2.0 is older than 10.1, the first with 'tdx-guest'"
has oldqemu "this QEMU has no 'tdx-guest' object"
no_boot oldqemu

host
echo N >"$tmp/sys/kvm_intel/parameters/tdx"
rm "$tmp/fw/tdvf.fd" "$tmp/kvm"
run nokvm -- --cc-host=tdx
[ "$rc" -eq 2 ] || fail "nokvm: exit $rc"
has nokvm "no KVM device $tmp/kvm"
has nokvm "KVM without TDX: $tmp/sys/kvm_intel/parameters/tdx is 'N', not Y"
has nokvm "no TDVF firmware at $tmp/fw/tdvf.fd (set SLUICE_TDVF)"
no_boot nokvm

host
rm -r "$tmp/sys/kvm_amd"
run nosnp SLUICE_SNP_CBITPOS=51 -- --cc-host=snp
[ "$rc" -eq 2 ] || fail "nosnp: exit $rc"
has nosnp "KVM without SEV-SNP: $tmp/sys/kvm_amd/parameters/sev_snp does not exist"
no_boot nosnp

run bad -- --cc-host=sev
[ "$rc" -eq 2 ] || fail "bad: exit $rc"
has bad "--cc-host must be tdx or snp, not 'sev'"
no_boot bad

run vhost -- --cc-host=tdx --vhost-user-blk "$tmp/sock"
[ "$rc" -eq 2 ] || fail "vhost: exit $rc"
has vhost "--cc-host and --vhost-user-blk cannot be combined"

# 4. This machine as it is (real QEMU, /dev/kvm, /sys/module): the check either
#    refuses with its list or passes; it never boots half-configured.
for kind in tdx snp; do
	out=$("$top/scripts/cc-host.sh" "$kind" 1024 2>&1)
	if [ $? -eq 0 ]; then
		echo "note: this host can run --cc-host=$kind"
	elif printf '%s\n' "$out" | grep -q "^run-qemu: --cc-host=$kind: this host cannot run"; then
		ok "here: --cc-host=$kind refused: $(printf '%s\n' "$out" | sed -n 2p | sed 's/^run-qemu: *//')"
	else
		fail "here: --cc-host=$kind: neither a command line nor a clear refusal: $out"
	fi
done

[ "$fails" -eq 0 ] && echo "test_cc_host: all passed" || echo "test_cc_host: $fails failed"
[ "$fails" -eq 0 ]
