#!/bin/sh
# check-general-regs.sh ARCH LIB - the archive LIB, built with -mgeneral-regs-only,
# must use no floating-point or vector register: on x86_64 no %xmm/%ymm/%zmm, x87
# (%st) or MMX (%mm) operand; on aarch64 no b/h/s/d/q/v register. Firmware that
# does not save those registers on entry (EDK2 on aarch64, most TEE firmware)
# builds with that flag; the disassembly shows that the compiler kept to it.
# OBJDUMP: the target's objdump (aarch64-linux-gnu-objdump for a cross build).
set -eu

if [ $# -ne 2 ]; then
	echo "usage: $0 x86_64|aarch64 LIB" >&2
	exit 2
fi
arch=$1
lib=$2
OBJDUMP=${OBJDUMP:-objdump}
case $arch in
x86_64 | i386) re='%([xyz]mm[0-9]+|st(\([0-7]\))?|mm[0-7])([^0-9]|$)' ;;
# A register name standing alone (the address and <symbol> names are cut off
# below, so that hex digits and function names are never read as registers).
aarch64) re='(^|[^[:alnum:]_.#])[bhsdqv][0-9]{1,2}([^[:alnum:]_]|$)' ;;
*)
	echo "check-general-regs: unknown architecture $arch" >&2
	exit 2
	;;
esac

dis=$($OBJDUMP -d --no-show-raw-insn "$lib")
ninsn=$(printf '%s\n' "$dis" | awk -F'\t' 'NF >= 2' | wc -l)
bad=$(printf '%s\n' "$dis" | awk -F'\t' 'NF >= 2 { $1 = ""; print }' |
	sed -e 's|[[:xdigit:]]* <[^>]*>||g' -e 's|//.*||' -e 's|#.*||' |
	grep -E "$re" || true)
if [ "$ninsn" -eq 0 ]; then
	echo "check-general-regs: $lib: no instruction disassembled" >&2
	exit 1
fi
if [ -n "$bad" ]; then
	echo "check-general-regs: $lib uses FP/SIMD registers:" >&2
	printf '%s\n' "$bad" | head -20 >&2
	exit 1
fi
echo "check-general-regs: $lib: OK ($ninsn instructions, general registers only)"
