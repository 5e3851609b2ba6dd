#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""names.py - the sets of names, read from the one header that lists each.

Every set the C code, the option parser and the boot report share is an
X-macro in one header, one line `X(UPPER, lower)` per member (or, for error
codes, `X(NAME, value, "text")`). The scripts read those lines here, never a
copy of their own:

    policies  the bounce policies      SLUICE_DMA_POLICIES  dma/include/sluice/dma_policies.h
    modes     the kernel's DMA modes   KERNEL_DMA_MODES     <kernel>/dma_modes.h
    suites    the bench= suites        BENCH_SUITES         <kernel>/bench_suites.h
    kerrors   the kernel's error codes KERNEL_ERRORS        <kernel>/kernel_errno.h
    dmaerrors the library's error codes SLUICE_DMA_ERRORS   dma/include/sluice/dma_errors.h

(<kernel> is kernel/, or boot/ in a tree from before that floor.)

As a module: names.policies() -> ("linux", "bitmap", ...), names.policy("LINUX")
-> "linux", and the same for modes, suites; names.errors("kerrors") ->
[(NAME, value, text)]. As a command:

    names.py SET [--sep SEP] [--upper] [--root DIR]

prints the set's lower names (or UPPER ones) joined by SEP (default a space),
e.g. `scripts/names.py policies --sep ,` -> linux,bitmap,lifo,sluice; the
error sets print their values. SET "configs" prints every configuration a
default boot runs: direct bounce/linux ... bounce/sluice arena.
Exit status 2 when the header or its list is missing.
"""
import argparse
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# set -> (macro, header candidates from the top of the tree, first found wins)
SETS = {
    "policies": ("SLUICE_DMA_POLICIES", ("dma/include/sluice/dma_policies.h",)),
    "modes": ("KERNEL_DMA_MODES", ("kernel/dma_modes.h", "boot/dma_modes.h")),
    "suites": ("BENCH_SUITES", ("kernel/bench_suites.h", "boot/bench_suites.h")),
    "kerrors": ("KERNEL_ERRORS", ("kernel/kernel_errno.h", "boot/kernel_errno.h",
                                  "arch/kernel_errno.h")),
    "dmaerrors": ("SLUICE_DMA_ERRORS", ("dma/include/sluice/dma_errors.h",)),
}
# One member: X(UPPER, lower) or X(NAME, -22, "text"), alone on its line.
PAIR_RE = re.compile(r'^\s*X\(\s*([A-Z][A-Z0-9_]*)\s*,\s*([a-z][a-z0-9_]*)\s*\)')
ERR_RE = re.compile(r'^\s*X\(\s*([A-Z][A-Z0-9_]*)\s*,\s*(-?[0-9]+)\s*,\s*"([^"]*)"\s*\)')


class NamesError(Exception):
    """A header or its list is missing or malformed."""


def header(name, root=ROOT):
    """Path of the header that holds set @name."""
    macro, candidates = SETS[name]
    for rel in candidates:
        path = os.path.join(root, rel)
        if os.path.exists(path):
            return path
    raise NamesError("%s: none of %s exists" % (name, ", ".join(candidates)))


def _lines(name, root):
    """The continuation lines of the set's #define, as written."""
    macro = SETS[name][0]
    path = header(name, root)
    with open(path, encoding="utf-8") as f:
        text = f.read().splitlines()
    start = re.compile(r'^\s*#\s*define\s+%s\(X\)' % macro)
    for i, line in enumerate(text):
        if start.match(line):
            out = []
            while line.rstrip().endswith("\\"):
                i += 1
                line = text[i]
                out.append(line)
            return path, out
    raise NamesError("%s: no '#define %s(X)' in %s" % (name, macro, path))


def entries(name, root=ROOT):
    """[(UPPER, lower)] of set @name, in the list's order."""
    path, lines = _lines(name, root)
    out = []
    for line in lines:
        m = PAIR_RE.match(line)
        if m:
            out.append((m.group(1), m.group(2)))
    if not out:
        raise NamesError("%s: empty list in %s" % (name, path))
    return out


def errors(name, root=ROOT):
    """[(NAME, value, text)] of an error-code set (kerrors, dmaerrors)."""
    path, lines = _lines(name, root)
    out = [(m.group(1), int(m.group(2)), m.group(3))
           for m in (ERR_RE.match(line) for line in lines) if m]
    if not out:
        raise NamesError("%s: empty list in %s" % (name, path))
    return out


def _lower(name, root=ROOT):
    return tuple(lower for _, lower in entries(name, root))


def _one(name, upper, root=ROOT):
    for u, lower in entries(name, root):
        if u == upper:
            return lower
    raise NamesError("%s: no member %s" % (name, upper))


def policies(root=ROOT):
    """The bounce policies' names, in enum order."""
    return _lower("policies", root)


def modes(root=ROOT):
    """The kernel's DMA modes, in enum order."""
    return _lower("modes", root)


def suites(root=ROOT):
    """The bench= suites, in enum order ("none" first)."""
    return _lower("suites", root)


def policy(upper, root=ROOT):
    """The name of policy @upper ("LINUX" -> "linux")."""
    return _one("policies", upper, root)


def mode(upper, root=ROOT):
    """The name of mode @upper ("BOUNCE" -> "bounce")."""
    return _one("modes", upper, root)


def suite(upper, root=ROOT):
    """The name of suite @upper ("BLK" -> "blk")."""
    return _one("suites", upper, root)


def configs(root=ROOT):
    """Every configuration a boot runs with every mode and policy, in the
    kernel's order (kernel_dma_configs()): each mode, the bounce mode once per
    policy as "bounce/<policy>" (kernel_dma_config_name())."""
    bounce = mode("BOUNCE", root)
    out = []
    for m in modes(root):
        out += ["%s/%s" % (m, p) for p in policies(root)] if m == bounce else [m]
    return tuple(out)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("set", choices=sorted(SETS) + ["configs"])
    ap.add_argument("--sep", default=" ")
    ap.add_argument("--upper", action="store_true", help="the UPPER names")
    ap.add_argument("--root", default=ROOT)
    args = ap.parse_args(argv)
    try:
        if args.set == "configs":
            words = configs(args.root)
        elif SETS[args.set][0].endswith("ERRORS"):
            words = [n if args.upper else str(v) for n, v, _ in errors(args.set, args.root)]
        else:
            words = [u if args.upper else lower for u, lower in entries(args.set, args.root)]
    except NamesError as e:
        print("names.py: %s" % e, file=sys.stderr)
        return 2
    print(args.sep.join(words))
    return 0


if __name__ == "__main__":
    sys.exit(main())
