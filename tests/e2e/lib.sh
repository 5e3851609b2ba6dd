# lib.sh - helpers for the QEMU end-to-end tests (sourced, not run).
#
# boot_kernel NAME EXPECTED_STATUS [run-qemu.sh arguments...]
#	boots the image, keeps the serial log in build/test/e2e-NAME.serial, and fails
#	unless scripts/run-qemu.sh returned EXPECTED_STATUS.
# expect LOG REGEX...	fails unless every extended regex matches a line of LOG.
# reject LOG REGEX	fails if REGEX matches a line of LOG.
set -uo pipefail

E2E_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
E2E_LOGDIR="$E2E_TOP/build/test"
mkdir -p "$E2E_LOGDIR"

e2e_fail() {
	echo "FAIL: $*" >&2
	exit 1
}

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
