#!/usr/bin/env bash
# cc-host.sh - the QEMU arguments of a real confidential guest, after checking that
# this host can run one; used by scripts/run-qemu.sh --cc-host=tdx|snp.
#
#   scripts/cc-host.sh tdx|snp MEM_MIB
#
# On success: the arguments, one per line (-accel, -cpu, the guest object,
# -machine with confidential-guest-support, -bios with the firmware). On failure:
# every missing piece on stderr-ready lines (stdout) and exit 1.
#
# What is checked, and where the syntax comes from:
#   tdx  QEMU's docs/system/i386/tdx.rst (QEMU 10.1 and later): -object tdx-guest,
#        -machine q35,kernel-irqchip=split,confidential-guest-support=..., the TD's
#        firmware (TDVF, an OVMF built with TDX support) as -bios; KVM with TDX
#        (Linux 6.16 and later: kvm_intel's "tdx" parameter Y).
#   snp  QEMU's docs/system/i386/amd-memory-encryption.rst (QEMU 9.1 and later):
#        -object sev-snp-guest,cbitpos=...,reduced-phys-bits=1, guest RAM from a
#        memfd backend, confidential-guest-support=..., an OVMF with SEV-SNP
#        support as -bios; KVM with SEV-SNP (Linux 6.11 and later: kvm_amd's
#        "sev_snp" parameter Y). The C-bit position is the host's CPUID
#        0x8000001F EBX[5:0] (read from /dev/cpu/0/cpuid) or SLUICE_SNP_CBITPOS.
#
# Test seams (tests/cc_host/test_cc_host.sh): SLUICE_KVM_DEV (default /dev/kvm),
# SLUICE_SYS_MODULE (default /sys/module), SLUICE_TDVF and SLUICE_SNP_OVMF (the
# firmware; defaults below), and the qemu-system-x86_64 first on PATH.
set -uo pipefail

kind=${1:-}
mem=${2:-1024}
kvm_dev=${SLUICE_KVM_DEV:-/dev/kvm}
sysmod=${SLUICE_SYS_MODULE:-/sys/module}
missing=()

# version_at_least HAVE WANT: dotted versions compared field by field.
version_at_least() {
	local IFS=.
	local -a h=($1) w=($2)
	for i in 0 1 2; do
		local a=${h[i]:-0} b=${w[i]:-0}
		[ "$a" -gt "$b" ] && return 0
		[ "$a" -lt "$b" ] && return 1
	done
	return 0
}

check_qemu() { # WANT_VERSION OBJECT
	local ver objects
	if ! command -v qemu-system-x86_64 >/dev/null; then
		missing+=("qemu-system-x86_64 is not installed")
		return
	fi
	ver=$(qemu-system-x86_64 --version 2>/dev/null | sed -n 's/^QEMU emulator version \([0-9.]*\).*/\1/p')
	if [ -z "$ver" ] || ! version_at_least "$ver" "$1"; then
		missing+=("QEMU ${ver:-of unknown version} is older than $1, the first with '$2'")
	fi
	# Read the whole list first: grep -q stopping early would fail the pipe.
	objects=$(qemu-system-x86_64 -object help 2>/dev/null)
	if ! printf '%s\n' "$objects" | grep -qw -- "$2"; then
		missing+=("this QEMU has no '$2' object (qemu-system-x86_64 -object help)")
	fi
}

check_kvm() { # MODULE PARAMETER WHAT
	[ -c "$kvm_dev" ] || [ -f "$kvm_dev" ] || missing+=("no KVM device $kvm_dev")
	local p="$sysmod/$1/parameters/$2"
	if [ ! -r "$p" ]; then
		missing+=("KVM without $3: $p does not exist (module $1 not loaded, or too old)")
	elif ! grep -qx '[Y1]' "$p"; then
		missing+=("KVM without $3: $p is '$(cat "$p")', not Y")
	fi
}

check_fw() { # PATH WHAT
	[ -f "$1" ] || missing+=("no $2 at $1 (set ${3})")
}

snp_cbitpos() {
	if [ -n "${SLUICE_SNP_CBITPOS:-}" ]; then
		echo "$SLUICE_SNP_CBITPOS"
		return
	fi
	python3 - <<'PY' 2>/dev/null
import os, struct
fd = os.open("/dev/cpu/0/cpuid", os.O_RDONLY)
eax, ebx, ecx, edx = struct.unpack("<4I", os.pread(fd, 16, 0x8000001F))
print(ebx & 0x3F)
PY
}

case "$kind" in
tdx)
	fw=${SLUICE_TDVF:-/usr/share/ovmf/OVMF.inteltdx.fd}
	check_qemu 10.1 tdx-guest
	check_kvm kvm_intel tdx "TDX"
	check_fw "$fw" "TDVF firmware" SLUICE_TDVF
	args=(-accel kvm -cpu host -object tdx-guest,id=tdx0
		-machine q35,kernel-irqchip=split,confidential-guest-support=tdx0
		-bios "$fw")
	what="a TD"
	;;
snp)
	fw=${SLUICE_SNP_OVMF:-/usr/share/ovmf/OVMF.amdsev.fd}
	check_qemu 9.1 sev-snp-guest
	check_kvm kvm_amd sev_snp "SEV-SNP"
	check_fw "$fw" "SEV-SNP OVMF firmware" SLUICE_SNP_OVMF
	cbit=$(snp_cbitpos)
	[ -n "$cbit" ] || missing+=("the host's C-bit position is unknown (no /dev/cpu/0/cpuid; set SLUICE_SNP_CBITPOS)")
	args=(-accel kvm -cpu host
		-object "memory-backend-memfd,id=ram0,size=${mem}M,share=true,prealloc=false"
		-object "sev-snp-guest,id=sev0,cbitpos=${cbit:-0},reduced-phys-bits=1"
		-machine q35,confidential-guest-support=sev0,memory-backend=ram0
		-bios "$fw")
	what="an SEV-SNP guest"
	;;
*)
	echo "run-qemu: --cc-host must be tdx or snp, not '$kind'"
	exit 1
	;;
esac

if [ "${#missing[@]}" -gt 0 ]; then
	echo "run-qemu: --cc-host=$kind: this host cannot run $what:"
	for m in "${missing[@]}"; do
		echo "run-qemu:   - $m"
	done
	exit 1
fi
printf '%s\n' "${args[@]}"
