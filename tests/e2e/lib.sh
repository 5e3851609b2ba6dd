# lib.sh - helpers for the QEMU end-to-end tests (sourced, not run).
#
# boot_kernel NAME EXPECTED_STATUS [run-qemu.sh arguments...]
#	boots the image, keeps the serial log in build/test/e2e-NAME.serial, and fails
#	unless scripts/run-qemu.sh returned EXPECTED_STATUS.
# expect LOG REGEX...	fails unless every extended regex matches a line of LOG.
# reject LOG REGEX	fails if REGEX matches a line of LOG.
# cc_data_boot NAME CC SEED
#	boots cc=CC (bs=16K) with a seeded 16 MiB disk image (scripts/blk_pattern.py)
#	as boot_kernel NAME, and expects in every DMA mode but direct (a confidential
#	guest leaves it out) the whole image read with the host's cksum, the mode's
#	pattern region written and 1000 frames delivered.
# cc_data_verify NAME CC	checks that image byte for byte on the host.
set -uo pipefail

E2E_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
E2E_LOGDIR="$E2E_TOP/build/test"
mkdir -p "$E2E_LOGDIR"

e2e_fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# The sets of names, from their one list each (scripts/names.py): the bounce
# policies, every configuration a default boot runs in its order (each mode,
# bounce once per policy as bounce/<policy>), and the bounce ones among them.
E2E_POLICIES=$(python3 "$E2E_TOP/scripts/names.py" policies) || e2e_fail "scripts/names.py policies"
E2E_CONFIGS=$(python3 "$E2E_TOP/scripts/names.py" configs) || e2e_fail "scripts/names.py configs"
E2E_BOUNCE_CONFIGS=$(for c in $E2E_CONFIGS; do case $c in */*) echo "$c" ;; esac; done)

boot_kernel() {
	local name=$1 want=$2 log rc
	shift 2
	log="$E2E_LOGDIR/e2e-$name.serial"
	"$E2E_TOP/scripts/run-qemu.sh" --timeout "${SLUICE_E2E_TIMEOUT:-240}" --log "$log" "$@" \
		>"$log.out" 2>&1
	rc=$?
	# Strip the firmware's terminal escapes so patterns see plain lines.
	sed -i -e 's/\x1b\[[0-9;=?]*[a-zA-Z]//g' -e 's/\r$//' "$log"
	if [ "$rc" -ne "$want" ]; then
		cat "$log.out" >&2
		e2e_fail "$name: run-qemu.sh returned $rc, expected $want"
	fi
	echo "$name: status $rc as expected"
	BOOT_LOG=$log
}

expect() {
	local log=$1 re
	shift
	for re in "$@"; do
		grep -Eq -- "$re" "$log" || { tail -40 "$log" >&2; e2e_fail "no line matching /$re/ in $log"; }
	done
}

reject() {
	grep -Eq -- "$2" "$1" && e2e_fail "unexpected line matching /$2/ in $1"
	return 0
}

cc_data_boot() {
	local name=$1 cc=$2 seed=$3 want mode
	local orig="$E2E_LOGDIR/$cc-orig.img" disk="$E2E_LOGDIR/$cc-disk.img"
	local bytes=$((16 * 1024 * 1024))
	python3 "$E2E_TOP/scripts/blk_pattern.py" make "$orig" "$bytes" "$seed" ||
		e2e_fail "cannot create the image"
	want=$(cksum <"$orig" | awk '{print $1}')
	cp "$orig" "$disk"
	boot_kernel "$name" 0 --disk "$disk" --args "cc=$cc bs=16K"
	# A confidential guest runs no direct mode unless the image asks for it
	# (boot/options_trust.c): devices would get private memory in place.
	reject "$BOOT_LOG" 'mode=direct'
	for mode in $E2E_CONFIGS; do
		[ "$mode" = direct ] && continue
		expect "$BOOT_LOG" \
			"^blk: mode=$mode read $bytes bytes bs=16384 iodepth=32: cksum $want $bytes, 0 errors" \
			"^blk: mode=$mode wrote pattern to sectors [0-9]+\.\.[0-9]+ \([0-9]+ requests, scattered, flushed\), 0 errors" \
			"^net: mode=$mode sent 1000 frames .* received 1000 in order, 0 bad, 0 lost"
	done
}

cc_data_verify() {
	local name=$1 cc=$2
	python3 "$E2E_TOP/scripts/blk_pattern.py" verify "$E2E_LOGDIR/$cc-orig.img" \
		"$E2E_LOGDIR/$cc-disk.img" 16384 1,2 || e2e_fail "$name: image check failed"
}
