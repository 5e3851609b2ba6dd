#!/usr/bin/env bash
# run-qemu.sh - boot build/sluice.efi in QEMU with OVMF and return the kernel's status.
#
#   scripts/run-qemu.sh [--args "key=value ..."] [--timeout SECONDS] [--log FILE]
#                       [--smp N] [--mem MIB] [--disk FILE] [--blk-queues N]
#                       [--blk-queue-size N] [--blkdebug RULES] [--net-tap]
#                       [--vhost-user-blk SOCKET] [--efi FILE] [--esp-file FILE]...
#                       [--cc-host=tdx|snp] [-- extra qemu args]
#
# --efi FILE: the UEFI application the firmware boots (default build/sluice.efi),
# e.g. build/iommu-test.efi for the firmware tests; it finds its options in
# sluice.cfg as the kernel does. --esp-file FILE (repeatable): also put FILE in
# the root of the boot volume (e.g. build/sluice-iommu.efi, which that
# application loads).
#
# --cc-host=tdx|snp (or SLUICE_CC_HOST=tdx|snp): boot as a real TD or SEV-SNP
# guest on a host that can run one (scripts/cc-host.sh checks QEMU, KVM and the
# firmware first and says what is missing; the command line follows QEMU's
# docs/system/i386/tdx.rst and amd-memory-encryption.rst). KVM is then required.
#
# --smp N: processors QEMU gives the guest; default: the kernel option cpus=N when
# --args has one (N > 0), else 2. --blk-queues N: virtio-blk request queues;
# default: one per processor (the kernel gives each CPU its own).
# --net-tap: connect the two NICs through two multiqueue tap devices on a Linux
# bridge (created for the run, removed after; root only) instead of QEMU's hub,
# so that each NIC offers one queue pair per CPU (virtio-net mq=on). The taps and
# the bridge carry no IP (IPv6 off), so only the kernel's own frames cross.
# --blkdebug RULES puts QEMU's blkdebug driver with that rules file in front of the
# disk, to make the device fail chosen requests (fault-injection tests).
# --vhost-user-blk SOCKET: the disk is a vhost-user-blk-pci device whose queues a
# back-end process listening on SOCKET serves (tests/vhost_user_blk.py; --disk is
# then unused): QEMU connects as the client, and guest RAM goes on a shared memfd
# so that the back-end can map it. The device offers what the back-end offers
# (VERSION_1 and ACCESS_PLATFORM included), with iommu_platform=on and no legacy
# interface, like the default virtio-blk-pci.
#
# SLUICE_CC=PLATFORM (environment): the kernel option cc=PLATFORM for every boot
# whose --args does not name one (`make e2e-cc` runs the e2e suite so, e.g. on the
# simulated TD).
#
# Exit status: the kernel's own exit code (0 = pass), read from isa-debug-exit:
# QEMU exits with ((0x10 + code) << 1) | 1, so 33 means pass and 33 + 2n means code n
# (arch/x86_64/cpu/qemu_exit.h). 124: killed at the timeout. 125: QEMU ended without the
# kernel's code (triple fault, QEMU error, firmware never started the image).
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build="$top/build"
# The boot volume (esp/) and the firmware's variable store of a run: build/ unless
# SLUICE_RUN_DIR names another folder (tests that run beside a boot use their own).
run_dir=${SLUICE_RUN_DIR:-$build}
args=""
timeout=${SLUICE_TIMEOUT:-300}
log="$build/serial.log"
smp=""
mem=1024
disk="$build/disk0.img"
blk_queues=""
blk_queue_size=256
blkdebug=""
net_tap=0
vhost_user_blk=""
image="$build/sluice.efi"
esp_files=()
cc_host=${SLUICE_CC_HOST:-}
extra=()

while [ $# -gt 0 ]; do
	case "$1" in
	--args) args=$2; shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
	--log) log=$2; shift 2 ;;
	--smp) smp=$2; shift 2 ;;
	--mem) mem=$2; shift 2 ;;
	--disk) disk=$2; shift 2 ;;
	--blk-queues) blk_queues=$2; shift 2 ;;
	--blk-queue-size) blk_queue_size=$2; shift 2 ;;
	--blkdebug) blkdebug=$2; shift 2 ;;
	--net-tap) net_tap=1; shift ;;
	--vhost-user-blk) vhost_user_blk=$2; shift 2 ;;
	--efi) image=$2; shift 2 ;;
	--esp-file) esp_files+=("$2"); shift 2 ;;
	--cc-host=*) cc_host=${1#--cc-host=}; shift ;;
	--cc-host) cc_host=$2; shift 2 ;;
	--) shift; extra=("$@"); break ;;
	*) echo "run-qemu: unknown argument '$1'" >&2; exit 2 ;;
	esac
done

# SLUICE_CC before anything starts: its values come from the one list of CC
# platforms (arch/x86_64/cc/cc.h, read by scripts/cc-platforms.py).
if [ -n "${SLUICE_CC:-}" ]; then
	cc_values=$(printf 'auto\n'; "$top/scripts/cc-platforms.py" --option) ||
		{ echo "run-qemu: the CC platform list cannot be read" >&2; exit 2; }
	printf '%s\n' "$cc_values" | grep -qxF -- "$SLUICE_CC" || {
		echo "run-qemu: SLUICE_CC=$SLUICE_CC is not a cc= value ($(printf '%s' "$cc_values" |
			paste -sd ' '))" >&2
		exit 2
	}
fi

if [ -z "$smp" ]; then
	smp=2
	for word in $args; do
		case "$word" in
		cpus=[1-9]*) smp=${word#cpus=} ;;
		esac
	done
fi
[ -n "$blk_queues" ] || blk_queues=$smp

[ -n "$cc_host" ] && [ -n "$vhost_user_blk" ] && {
	echo "run-qemu: --cc-host and --vhost-user-blk cannot be combined (guest RAM is the confidential guest's memfd)" >&2
	exit 2
}
# A confidential host: its checks first (nothing else is tried when they fail),
# then its QEMU arguments in place of the plain VM's firmware and machine.
cc_args=()
if [ -n "$cc_host" ]; then
	cc_out=$("$top/scripts/cc-host.sh" "$cc_host" "$mem") || {
		echo "$cc_out" >&2
		exit 2
	}
	mapfile -t cc_args <<<"$cc_out"
fi

# The accelerator is chosen by trying it (scripts/qemu-accel.sh): a /dev/kvm that
# opens may still fail on the firmware's first instructions. SLUICE_ACCEL=auto|kvm|tcg.
# A confidential guest runs under KVM only: cc-host.sh gave its -accel.
if [ -n "$cc_host" ]; then
	choice=$'kvm\t'"$cc_host host (scripts/cc-host.sh)"
else
	choice=$("$top/scripts/qemu-accel.sh")
fi
rc=$?
[ "$rc" -eq 0 ] || { echo "run-qemu: no accelerator (see above)" >&2; exit 2; }
accel_name=${choice%%$'\t'*}
accel_reason=${choice#*$'\t'}
case "$accel_name" in
kvm)
	accel=(-accel kvm -cpu "${SLUICE_KVM_CPU:-host}")
	accel_label="KVM"
	[ -n "$cc_host" ] && accel=()
	;;
*)
	accel=(-accel tcg)
	accel_label="TCG"
	;;
esac
echo "run-qemu: accelerator $accel_label ($accel_reason)"

[ -f "$image" ] || { echo "run-qemu: $image is missing; run make first" >&2; exit 2; }
code=/usr/share/OVMF/OVMF_CODE_4M.fd
vars_template=/usr/share/OVMF/OVMF_VARS_4M.fd
[ -f "$code" ] || { echo "run-qemu: $code is missing; install ovmf (scripts/deps.sh)" >&2; exit 2; }

# A private copy of the ESP per run directory: the firmware boots the default
# removable-media path, and sluice.cfg carries the options (always rewritten, so
# options of an earlier run never linger).
esp="$run_dir/esp"
mkdir -p "$esp/EFI/BOOT"
cp "$image" "$esp/EFI/BOOT/BOOTX64.EFI"
# Extra files of an earlier run never linger either.
rm -f "$esp"/*.efi
for f in ${esp_files[@]+"${esp_files[@]}"}; do
	[ -f "$f" ] || { echo "run-qemu: --esp-file: $f is missing" >&2; exit 2; }
	cp "$f" "$esp/"
done
# accel= goes first, so that an accel= in --args (a test's) wins; the kernel names
# it in its report and in every benchmark JSON line (TCG and KVM figures never mix).
# SLUICE_CC goes first for the same reason: a test that names its platform keeps it.
cc_default=${SLUICE_CC:+cc=$SLUICE_CC }
printf '%s\n' "accel=$accel_name ${cc_default}${args}" >"$esp/sluice.cfg"
vars="$run_dir/OVMF_VARS_4M.fd"
[ -f "$vars" ] || cp "$vars_template" "$vars"
if [ -z "$vhost_user_blk" ] && [ ! -f "$disk" ]; then
	mkdir -p "$(dirname "$disk")"
	truncate -s 64M "$disk"
fi
mkdir -p "$(dirname "$log")"

# The two NICs: on QEMU's hub (one queue pair each), or on multiqueue taps.
net_args=(-netdev hubport,id=n0,hubid=0 -netdev hubport,id=n1,hubid=0)
nic_opts=""
if [ "$net_tap" -eq 1 ]; then
	tag="sl$$"
	bridge="${tag}br"
	taps=("${tag}a" "${tag}b")
	net_cleanup() {
		for t in "${taps[@]}"; do ip link del "$t" 2>/dev/null; done
		ip link del "$bridge" 2>/dev/null
	}
	trap net_cleanup EXIT
	net_setup() {
		ip link add "$bridge" type bridge || return 1
		sysctl -qw "net.ipv6.conf.$bridge.disable_ipv6=1" 2>/dev/null
		for t in "${taps[@]}"; do
			ip tuntap add dev "$t" mode tap multi_queue || return 1
			sysctl -qw "net.ipv6.conf.$t.disable_ipv6=1" 2>/dev/null
			ip link set "$t" master "$bridge" || return 1
			ip link set "$t" up || return 1
		done
		ip link set "$bridge" up
	}
	if ! net_setup; then
		echo "run-qemu: --net-tap: cannot create tap devices and a bridge (needs root, ip, /dev/net/tun)" >&2
		exit 2
	fi
	net_args=(-netdev "tap,id=n0,ifname=${taps[0]},script=no,downscript=no,queues=$smp"
		-netdev "tap,id=n1,ifname=${taps[1]},script=no,downscript=no,queues=$smp")
	nic_opts=",mq=on,vectors=$((2 * smp + 2))"
fi

# The data disk: QEMU's own virtio-blk, or a vhost-user-blk device served by another
# process, which then needs guest RAM in memory it can map (a shared memfd).
machine=q35
blk_args=(-drive file="${blkdebug:+blkdebug:$blkdebug:}$disk",format=raw,if=none,id=d0
	-device virtio-blk-pci,drive=d0,disable-legacy=on,iommu_platform=on,num-queues="$blk_queues",queue-size="$blk_queue_size")
if [ -n "$vhost_user_blk" ]; then
	[ -S "$vhost_user_blk" ] || { echo "run-qemu: --vhost-user-blk: $vhost_user_blk is not a listening socket" >&2; exit 2; }
	machine=q35,memory-backend=mem
	blk_args=(-object memory-backend-memfd,id=mem,size="${mem}M",share=on
		-chardev socket,id=vub0,path="$vhost_user_blk"
		-device vhost-user-blk-pci,chardev=vub0,disable-legacy=on,iommu_platform=on,num-queues="$blk_queues",queue-size="$blk_queue_size")
fi

echo "run-qemu: options '${args}', ${smp} CPU(s), ${blk_queues} blk queue(s)${vhost_user_blk:+ (vhost-user-blk on $vhost_user_blk)}, timeout ${timeout}s, serial log $log"
# The firmware and the machine: OVMF in flash for a plain VM; for a confidential
# guest cc-host.sh's arguments (-accel, -cpu, the guest object, -machine with
# confidential-guest-support, -bios with TDVF or an SNP OVMF).
fw_args=(-machine "$machine"
	-drive if=pflash,format=raw,readonly=on,file="$code"
	-drive if=pflash,format=raw,file="$vars")
[ -n "$cc_host" ] && fw_args=("${cc_args[@]}")
timeout -k 5 "$timeout" qemu-system-x86_64 "${accel[@]}" \
	"${fw_args[@]}" -m "$mem" -smp "$smp" -display none -no-reboot -monitor none \
	-serial stdio \
	-drive file=fat:rw:"$esp",format=raw,if=none,id=esp -device ide-hd,drive=esp,bootindex=0 \
	"${blk_args[@]}" \
	"${net_args[@]}" \
	-device virtio-net-pci,netdev=n0,disable-legacy=on,iommu_platform=on,romfile="$nic_opts" \
	-device virtio-net-pci,netdev=n1,disable-legacy=on,iommu_platform=on,romfile="$nic_opts" \
	-device isa-debug-exit,iobase=0xf4,iosize=0x04 \
	"${extra[@]}" </dev/null | tee "$log"
status=${PIPESTATUS[0]}

if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
	echo "run-qemu: TIMEOUT: QEMU killed after ${timeout}s without the kernel exiting" \
		"(accelerator $accel_label)" >&2
	exit 124
fi
if [ "$status" -ge 33 ] && [ $((status % 2)) -eq 1 ]; then
	kcode=$(((status - 33) / 2))
	echo "run-qemu: kernel exit code $kcode (QEMU status $status, accelerator $accel_label)"
	exit "$kcode"
fi
echo "run-qemu: QEMU ended with status $status without the kernel's exit code" \
	"(triple fault, QEMU error, or the image never ran; accelerator $accel_label)" >&2
# Not retried under TCG: that could hide a kernel bug. Say how to tell them apart.
[ "$accel_name" = kvm ] && echo "run-qemu: this run used KVM; SLUICE_ACCEL=tcg reruns it" \
	"under TCG to tell a KVM fault from a kernel fault" >&2
exit 125
