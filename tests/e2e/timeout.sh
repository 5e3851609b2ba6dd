#!/usr/bin/env bash
# The run script kills QEMU at its timeout with a clear message and status 124.
. "$(dirname "$0")/lib.sh"

out="$E2E_LOGDIR/e2e-timeout.out"
"$E2E_TOP/scripts/run-qemu.sh" --timeout 1 --log "$E2E_LOGDIR/e2e-timeout.serial" >"$out" 2>&1
rc=$?
[ "$rc" -eq 124 ] || e2e_fail "run-qemu.sh returned $rc after its timeout, expected 124"
expect "$out" '^run-qemu: TIMEOUT: QEMU killed after 1s'
echo "timeout reported"
