#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""cc-platforms.py - the CC platforms, read from their one list.

The list is the X-macro CC_PLATFORMS(X) in arch/x86_64/cc/cc.h, one line per
platform: X(ID, symbol, "name", HOW), HOW being OPTION (chosen by cc=name) or
HARDWARE (found by CPUID before ExitBootServices). Scripts and make targets
read the names here instead of typing them.

    cc-platforms.py [--root DIR] [--option | --simulated | --hardware | --table]

(no flag) every name, one a line, in list order; --option the names cc=
accepts after "auto"; --simulated the simulated platforms (OPTION platforms
whose name starts with "sim-": the ones `make e2e-cc` boots); --hardware the
ones found by the hardware; --table ID, symbol, name and HOW, tab-separated.
Exit status 0, or 1 when the list cannot be read.
"""
import argparse
import os
import re
import sys

LIST_START = re.compile(r"^#define\s+CC_PLATFORMS\(X\)")
ENTRY = re.compile(r'X\(\s*([A-Z0-9_]+)\s*,\s*([a-z0-9_]+)\s*,\s*"([^"]+)"\s*,\s*(OPTION|HARDWARE)\s*\)')


def read_list(root):
    """[(ID, symbol, name, HOW)] in list order, from cc.h."""
    path = os.path.join(root, "arch", "x86_64", "cc", "cc.h")
    entries, inside = [], False
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            if not inside:
                inside = bool(LIST_START.match(line))
                continue
            m = ENTRY.search(line)
            if m:
                entries.append(m.groups())
            if not line.rstrip().endswith("\\"):
                break
    return entries


def main():
    ap = argparse.ArgumentParser(description="the CC platforms of arch/x86_64/cc/cc.h")
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--option", action="store_true")
    g.add_argument("--simulated", action="store_true")
    g.add_argument("--hardware", action="store_true")
    g.add_argument("--table", action="store_true")
    args = ap.parse_args()
    try:
        entries = read_list(args.root)
    except OSError as e:
        print(f"cc-platforms: {e}", file=sys.stderr)
        return 1
    if not entries:
        print("cc-platforms: no CC_PLATFORMS(X) list in arch/x86_64/cc/cc.h", file=sys.stderr)
        return 1
    for pid, sym, name, how in entries:
        if args.table:
            print(f"{pid}\t{sym}\t{name}\t{how}")
        elif args.option and how != "OPTION":
            continue
        elif args.hardware and how != "HARDWARE":
            continue
        elif args.simulated and not (how == "OPTION" and name.startswith("sim-")):
            continue
        else:
            print(name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
