#!/usr/bin/env bash
# A fault in the kernel prints the exception report (vector, error code, RIP, CR2,
# registers, stack trace) and exits with code 3, never hangs.
. "$(dirname "$0")/lib.sh"

check_fault() {
	local kind=$1 vector=$2
	shift 2
	boot_kernel "fault_$kind" 3 --args "fault=$kind"
	expect "$BOOT_LOG" \
		"^fault: triggering '$kind'" \
		"^\*\*\* EXCEPTION $vector " \
		'^error_code=0x[0-9a-f]{16} rip=0x[0-9a-f]{16} \(image\+0x[0-9a-f]{16}\)$' \
		'^cr2=0x[0-9a-f]{16} cr3=0x[0-9a-f]{16}' \
		'^rax=0x' '^r12=0x' \
		'^stack trace' \
		'^sluice: exiting with status 3 \(exception\)$' "$@"
}

check_fault pf 14 '#PF page fault' '^cr2=0x00007f0000000000 ' \
	'^#PF error code: P=0 W/R=0 U/S=0 RSVD=0 I/D=0 .* -> read of a non-present page$'
check_fault gp 13 '#GP general protection'
check_fault ud 6 '#UD invalid opcode'
check_fault div 0 '#DE divide error'

# The faulting RIP must resolve to the function that faulted.
rip=$(sed -n 's/.*rip=0x[0-9a-f]* (image+0x\([0-9a-f]*\)).*/\1/p' "$E2E_LOGDIR/e2e-fault_pf.serial")
func=$(addr2line -f -e "$E2E_TOP/build/sluice.so" "0x$rip" | head -1)
case "$func" in fault_trigger | fault_on_cpu | deliberate_fault) ;; *)
	e2e_fail "fault RIP image+0x$rip resolves to '$func', not fault_trigger" ;;
esac
echo "fault RIP resolves to $func"
