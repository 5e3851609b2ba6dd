#!/usr/bin/python3
"""check-cc-insn.py - the instruction audit of a confidential guest's kernel.

  check-cc-insn.py IMAGE.so [--list]

Disassembles IMAGE (objdump -d) and fails, naming the function, if an instruction
that a TD or an SEV-SNP guest traps on (or that only the TEE layer may execute)
appears outside the functions allowed to hold it:

  port I/O (in, out, ins, outs), cpuid, rdmsr, wrmsr, hlt, wbinvd, invd,
  vmcall, vmmcall (and vmgexit = rep vmmcall), tdcall, pvalidate, rmpadjust,
  clflush, clflushopt

Allowed: the native paravirtual I/O backend (arch/x86_64/cc/pvio_native.c), the
TEE-instruction door (arch/x86_64/cc/tee_insn.c: TDCALL, VMGEXIT, PVALIDATE, the
GHCB MSR, RMPADJUST) and the assembly entry stubs that run before C code can (the
application processors' trampoline and entry). In a TD every other occurrence
would be a #VE, in an SEV-SNP guest a #VC, that this kernel does not handle
(arch/x86_64/cc/pvio.h); PVALIDATE, RMPADJUST and VMGEXIT elsewhere would bypass the
protocol code the model checks (arch/x86_64/cc/snp.c).

--list prints every occurrence with its function, allowed or not.
Exit status: 0 clean, 1 an instruction outside the allowed functions, 2 usage or
objdump failure.
"""
import re
import subprocess
import sys

AUDITED = {
    "in", "out", "insb", "insw", "insl", "insd", "outsb", "outsw", "outsl", "outsd",
    "cpuid", "rdmsr", "wrmsr", "hlt", "wbinvd", "invd", "vmcall", "vmmcall", "vmgexit",
    "tdcall", "pvalidate", "rmpadjust", "clflush", "clflushopt",
}
PREFIXES = {"rep", "repz", "repe", "repnz", "repne", "lock", "data16", "addr32", "cs", "ds"}
# Functions (symbols in the disassembly) allowed to hold them, by the file they
# come from. Keep this list short: each entry is a place a TD would #VE.
ALLOWED = {
    # arch/x86_64/cc/pvio_native.c: the native backend, the instructions themselves.
    "native_io_in", "native_io_out", "native_cpuid", "native_rdmsr", "native_wrmsr",
    "native_halt", "native_fatal",
    # arch/x86_64/cc/tee_insn.c: the only TDCALL, VMGEXIT, PVALIDATE, GHCB MSR accesses
    # (the GHCB MSR is never intercepted, so its RDMSR/WRMSR cannot #VC) and the
    # cache flush of a conversion.
    "tee_tdcall_native", "tee_tdcall_sti_native", "tee_flush_cache_native",
    "tee_vmgexit_native", "tee_pvalidate_native",
    "tee_rd_ghcb_msr_native", "tee_wr_ghcb_msr_native", "tee_rmpadjust_native",
    # arch/x86_64/smp/ap_trampoline.S: real and protected mode, before any C code.
    "ap_trampoline_protected", "ap_trampoline", "ap_trampoline_long", "ap_entry",
    # the same trampoline's 64-bit entry for an AP woken through the ACPI wakeup mailbox.
    "ap_mailbox_entry",
}

FUNC_RE = re.compile(r"^[0-9a-f]+ <([^>]+)>:$")
INSN_RE = re.compile(r"^\s*[0-9a-f]+:\t(.*)$")


def mnemonic_of(text):
    """The instruction's mnemonic, prefixes skipped; "rep vmmcall" is VMGEXIT."""
    words = text.split()
    rep = False
    while words and words[0] in PREFIXES:
        rep = rep or words[0].startswith("rep")
        words = words[1:]
    if not words:
        return ""
    return "vmgexit" if words[0] == "vmmcall" and rep else words[0]


def audit(image):
    """[(function, mnemonic, line)] of every audited instruction in @image."""
    try:
        out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", image],
                             capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        print(f"check-cc-insn: objdump -d {image} failed: {e}", file=sys.stderr)
        sys.exit(2)
    found = []
    func = "?"
    for line in out.splitlines():
        m = FUNC_RE.match(line)
        if m:
            func = m.group(1)
            continue
        m = INSN_RE.match(line)
        if m and mnemonic_of(m.group(1)) in AUDITED:
            found.append((func, mnemonic_of(m.group(1)), line.strip()))
    return found


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("--")]
    if len(args) != 1:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    found = audit(args[0])
    bad = [(f, m, l) for f, m, l in found if f not in ALLOWED]
    if "--list" in argv:
        for f, m, l in found:
            print(f"{'ok ' if f in ALLOWED else 'BAD'} {f}: {m}  ({l})")
    if not found:
        print(f"check-cc-insn: {args[0]}: no audited instruction at all: is this the image?",
              file=sys.stderr)
        return 2
    if bad:
        for func in sorted({f for f, _, _ in bad}):
            insns = sorted({m for f, m, _ in bad if f == func})
            print(f"check-cc-insn: {func} executes {', '.join(insns)}: only the native "
                  "paravirtual I/O backend (arch/x86_64/cc/pvio_native.c), the TEE-instruction "
                  "door (arch/x86_64/cc/tee_insn.c) and the entry stubs may; go through "
                  "arch/x86_64/cc/pvio.h or arch/x86_64/cc/tee_insn.h")
        return 1
    funcs = sorted({f for f, _, _ in found})
    print(f"check-cc-insn: {args[0]}: {len(found)} audited instructions, all in "
          f"{len(funcs)} allowed functions ({', '.join(funcs)})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
