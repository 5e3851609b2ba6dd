#!/usr/bin/env bash
# W^X in the running kernel: the boot report states the layout, and writing the
# kernel's text or running code from shared memory, the image's data or a stack
# (CPU 0's and an application processor's) is a page fault whose error code
# names the cause (W/R=1 on the read-only text, I/D=1 on non-executable pages),
# reported with status 3. Without W^X each of these runs, returns and the kernel
# exits 1 ("no exception happened").
. "$(dirname "$0")/lib.sh"

hex='0x[0-9a-f]+'
wx_line='^mmu: W\^X: text 0x[0-9a-f]{10} - 0x[0-9a-f]{10} read-only \([0-9]+ KiB, the only '
wx_line+='executable memory\), everything else non-executable; CR0\.WP on, EFER\.NXE on$'

# check_wx NAME CPU CAUSE_REGEX [kernel options...]: boot, expect a #PF on CPU
# with that cause, CR2 = the address the fault line names (when it names one).
# Leaves CR2 (hex digits, no leading zeros) in $cr2.
check_wx() {
	local name=$1 cpu=$2 cause=$3 addr
	shift 3
	boot_kernel "wx_$name" 3 --smp 2 --args "blk=none frames=0 $*"
	expect "$BOOT_LOG" \
		"$wx_line" \
		"^\*\*\* EXCEPTION 14 #PF page fault on cpu $cpu\$" \
		"^#PF error code: P=1 $cause" \
		'^sluice: exiting with status 3 \(exception\)$'
	reject "$BOOT_LOG" '^fault: no exception happened'
	cr2=$(sed -n 's/^cr2=0x0*\([0-9a-f]*\) .*/\1/p' "$BOOT_LOG")
	addr=$(grep -E '^fault: ' "$BOOT_LOG" | grep -oE '0x[0-9a-f]+' | head -1 | sed 's/^0x//')
	if [ -n "$addr" ] && [ "$cr2" != "$addr" ]; then
		e2e_fail "$name: cr2=0x$cr2, but the fault was at 0x$addr"
	fi
	echo "$name: #PF at 0x$cr2 on cpu $cpu"
}

fetch='W/R=0 U/S=0 RSVD=0 I/D=1 .* -> instruction fetch from a non-executable page$'
write='W/R=1 U/S=0 RSVD=0 I/D=0 .* -> write to a read-only page$'

check_wx write_text 0 "$write" fault=write_text
# CR2 lies in the text the boot report names, in fault_trigger itself.
text=$(sed -n 's/^mmu: W^X: text 0x\([0-9a-f]*\) - 0x\([0-9a-f]*\) .*/\1 \2/p' "$BOOT_LOG")
image=$(sed -n 's/^  image  0x\([0-9a-f]*\) .*/\1/p' "$BOOT_LOG")
read -r lo hi <<<"$text"
[ -n "$lo" ] && [ -n "$image" ] || e2e_fail "no text range or image base in the boot report"
if ((0x$cr2 < 0x$lo || 0x$cr2 >= 0x$hi)); then
	e2e_fail "write_text: cr2=0x$cr2 outside the text 0x$lo-0x$hi"
fi
offset=$(printf '0x%x' $((0x$cr2 - 0x$image)))
func=$(addr2line -f -e "$E2E_TOP/build/sluice.so" "$offset" | head -1)
[ "$func" = fault_trigger ] || e2e_fail "write_text: cr2 resolves to '$func', not fault_trigger"
echo "write_text: cr2 is fault_trigger's first byte, in the read-only text"

# A ret the "host" wrote into a shared arena block: the fetch faults, RIP = CR2.
check_wx exec_shared 0 "$fetch" fault=exec_shared
expect "$BOOT_LOG" "^fault: shared arena block $hex holds a ret; calling it\$" \
	"^error_code=0x0000000000000011 rip=0x0*$cr2\$"
check_wx exec_shared_ap 1 "$fetch" fault=exec_shared fault_cpu=1

# The image's own data is outside the text: not executable either.
check_wx exec_data 0 "$fetch" fault=exec_data
if ((0x$cr2 >= 0x$lo && 0x$cr2 < 0x$hi)); then
	e2e_fail "exec_data: cr2=0x$cr2 inside the text 0x$lo-0x$hi"
fi

# Stacks: CPU 0's (the boot stack) and CPU 1's (from the heap); CPU 1 also
# proves the trampoline gave the AP EFER.NXE.
check_wx exec_stack 0 "$fetch" fault=exec_stack
check_wx exec_stack_ap 1 "$fetch" fault=exec_stack fault_cpu=1
