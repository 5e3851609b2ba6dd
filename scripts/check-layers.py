#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check-layers.py - every #include of the kernel's sources points down.

The floors (docs/ARCHITECTURE.md, "Floors"), lowest first:

    0  arch/  dma/     side by side, neither includes the other (dma/ is the
                       platform-free library; its public headers are
                       dma/include/sluice/*.h, included as <sluice/...>)
    1  drivers/  firmware/  side by side, neither includes the other (firmware/:
                       UEFI drivers built on dma/, e.g. the IoMmu driver)
    2  boot/           the UEFI stage: entry, memory map, options, hand-over
    3  kernel/         kernel_main() and the kernel's services (DMA service, PCI,
                       probe, CC bring-up, libc glue, the task table interface)
    4  bench/          the in-kernel benchmarks
    5  app/            the application: task table, runners, checks, faults

A file may include files of its own floor and of lower floors, never of a higher
one, never anything under tests/ or examples/. Every .c, .h and .S file under
arch/ dma/ drivers/ firmware/ boot/ kernel/ bench/ app/ is read, except bench/host/
(the host benchmark: a host program, built on the library and the tests' host
port, not part of the kernel, like tests/ and examples/, which are not checked).
Quoted includes are resolved from the top of the tree (the kernel builds with
-I.), then from the including file's folder; <sluice/...> names dma/; other
angle includes are the C library's and are skipped.

    check-layers.py [--root DIR] [--graph]

--root: the tree to check (default: the one this script is in).
--graph: also print which floor includes which, with counts.
Exit status 0 when every include points down, 1 otherwise (each offending line
named as FILE:LINE), 2 on a usage error.
"""
import argparse
import os
import re
import sys

FLOORS = {"arch": 0, "dma": 0, "drivers": 1, "firmware": 1, "boot": 2, "kernel": 3, "bench": 4,
          "app": 5}
# Host programs under a floor's folder: not kernel sources, not checked.
HOST_ONLY = (os.path.join("bench", "host"),)
# Folders side by side on one floor that must not include each other.
APART = {("arch", "dma"), ("dma", "arch"), ("drivers", "firmware"), ("firmware", "drivers")}
SOURCE_EXT = (".c", ".h", ".S")
INCLUDE_RE = re.compile(r'^\s*#\s*include\s*([<"])([^">]+)[">]')


def top_folder(root, path):
    """The top-level folder of a path relative to @root ('' if at the top)."""
    rel = os.path.relpath(path, root)
    parts = rel.split(os.sep)
    return parts[0] if len(parts) > 1 else ""


def resolve(root, src, kind, name):
    """The top-level folder an include names, or None (a C-library header)."""
    if kind == "<":
        if name.startswith("sluice/"):
            return "dma"
        return None
    for base in (root, os.path.dirname(src)):
        cand = os.path.normpath(os.path.join(base, name))
        if os.path.exists(cand):
            return top_folder(root, cand)
    # Not found: judge it by its first path component, as the compiler's -I.
    # would find it once the file exists.
    first = name.split("/")[0]
    return first if "/" in name else top_folder(root, src)


def sources(root):
    for folder in sorted(FLOORS):
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, folder)):
            dirnames[:] = sorted(d for d in dirnames
                                 if os.path.relpath(os.path.join(dirpath, d), root) not in HOST_ONLY)
            for f in sorted(filenames):
                if f.endswith(SOURCE_EXT):
                    yield os.path.join(dirpath, f)


def check(root):
    """Return (offences, edges, nfiles, nincludes)."""
    offences, edges = [], {}
    nfiles = nincludes = 0
    for src in sources(root):
        nfiles += 1
        here = top_folder(root, src)
        rel = os.path.relpath(src, root)
        with open(src, encoding="utf-8", errors="replace") as fh:
            for lineno, line in enumerate(fh, 1):
                m = INCLUDE_RE.match(line)
                if not m:
                    continue
                target = resolve(root, src, m.group(1), m.group(2))
                if target is None:
                    continue
                nincludes += 1
                inc = m.group(1) + m.group(2) + (">" if m.group(1) == "<" else '"')
                if target != here:
                    edges[(here, target)] = edges.get((here, target), 0) + 1
                if target not in FLOORS:
                    offences.append(f"{rel}:{lineno}: includes {inc} from {target or 'the top'}/, "
                                    f"which is not a floor of the kernel (only arch/ dma/ "
                                    f"drivers/ firmware/ boot/ kernel/ bench/ app/ are)")
                elif (here, target) in APART:
                    offences.append(f"{rel}:{lineno}: includes {inc}: {here}/ and {target}/ "
                                    f"share a floor and must not include each other")
                elif FLOORS[target] > FLOORS[here]:
                    offences.append(f"{rel}:{lineno}: includes {inc}: {target}/ (floor "
                                    f"{FLOORS[target]}) is above {here}/ (floor {FLOORS[here]})")
    return offences, edges, nfiles, nincludes


def main():
    ap = argparse.ArgumentParser(description="every #include of the kernel points down")
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap.add_argument("--graph", action="store_true")
    args = ap.parse_args()
    root = os.path.abspath(args.root)
    if not all(os.path.isdir(os.path.join(root, f)) for f in FLOORS):
        print(f"check-layers: {root} lacks one of {', '.join(sorted(FLOORS))}", file=sys.stderr)
        return 2
    offences, edges, nfiles, nincludes = check(root)
    if args.graph:
        order = sorted(FLOORS, key=lambda f: (-FLOORS[f], f))
        for a in order:
            outs = [f"{b}/ ({edges[(a, b)]})" for b in order if (a, b) in edges]
            print(f"  {a + '/':9} -> {', '.join(outs) if outs else '(nothing outside itself)'}")
    for o in offences:
        print(f"check-layers: {o}")
    if offences:
        print(f"check-layers: {len(offences)} include{'s' if len(offences) != 1 else ''} "
              f"point up or across (docs/ARCHITECTURE.md, \"Floors\")")
        return 1
    print(f"check-layers: {nfiles} files, {nincludes} project includes; every one points to "
          f"its own floor or a lower one")
    return 0


if __name__ == "__main__":
    sys.exit(main())
