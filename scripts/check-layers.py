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
one, never anything under tests/ or examples/.

Inside arch/x86_64 the same rule holds between rooms (docs/ARCHITECTURE.md,
"Rooms of arch/"), lowest first:

    cpu/  <  fw/  <  mm/  <  smp/  <  cc/

A file may include its own room and lower rooms, except that a leaf header
(LEAVES below: the per-CPU index, the spinlock, the paravirtual I/O seam) may
be included from any room, and a leaf includes no project header itself (only
the C library's), so that including it never pulls a higher room in. Every .c, .h
and .S file under arch/ dma/ drivers/ firmware/ boot/ kernel/ bench/ app/ is read,
except bench/host/ (the host benchmark: a host program, built on the library and
the tests' host port, not part of the kernel, like tests/ and examples/, which are
not checked).
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
# The rooms of arch/x86_64, lowest first, and the leaf headers any room may include.
ARCH_DIR = "arch/x86_64"
ROOMS = {"cpu": 0, "fw": 1, "mm": 2, "smp": 3, "cc": 4}
LEAVES = {"arch/x86_64/smp/percpu.h", "arch/x86_64/smp/spinlock.h", "arch/x86_64/cc/pvio.h"}
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


def resolve_rel(root, src, kind, name):
    """The path (relative to @root) a quoted include names, if it exists; else None."""
    if kind == "<":
        return None
    for base in (root, os.path.dirname(src)):
        cand = os.path.normpath(os.path.join(base, name))
        if os.path.exists(cand):
            return os.path.relpath(cand, root)
    return None


def room_of(rel):
    """The arch/x86_64 room of a relative path, or None outside the rooms."""
    parts = rel.split(os.sep)
    if len(parts) > 3 and "/".join(parts[:2]) == ARCH_DIR:
        return parts[2]
    return None


def room_offence(rel, lineno, inc, target_rel):
    """The offence of one include between arch/x86_64 files, or None."""
    here_room = room_of(rel)
    if here_room is None:
        return None
    if rel in LEAVES:
        return (f"{rel}:{lineno}: includes {inc}: {rel} is a leaf header and includes "
                f"nothing of the project")
    there_room = room_of(target_rel) if target_rel else None
    if target_rel in LEAVES or there_room is None or there_room == here_room:
        return None
    for r in (here_room, there_room):
        if r not in ROOMS:
            return (f"{rel}:{lineno}: includes {inc}: {ARCH_DIR}/{r}/ is not a room of "
                    f"{ARCH_DIR} (only {', '.join(ROOMS)} are)")
    if ROOMS[there_room] > ROOMS[here_room]:
        return (f"{rel}:{lineno}: includes {inc}: room {there_room}/ (room {ROOMS[there_room]}) "
                f"is above {here_room}/ (room {ROOMS[here_room]}) in {ARCH_DIR}")
    return None


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
                elif here == "arch" and target == "arch":
                    o = room_offence(rel, lineno, inc,
                                     resolve_rel(root, src, m.group(1), m.group(2)))
                    if o:
                        offences.append(o)
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
