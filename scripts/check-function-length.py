#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check-function-length.py - no C function of the tree is longer than a
screenful or two.

Every .c and .h file of the tree is read: the kernel and the library, and also
tests/, examples/ and scripts/ (a test is read and changed as often as the code
it tests, so the same limit holds); only build/ (generated) and hidden folders
are skipped. In Linux style a function's body opens with a "{"
alone at column 0 and closes with a "}" at column 0, while a struct, union,
enum or initialiser opens at the end of its first line; so a scan for those two
braces finds every function body, with no C parser. A function's length is the
lines from its opening brace to its closing one, both included.

    check-function-length.py [--root DIR] [--max N] [--self-test]

--root: the tree to check (default: the one this script is in).
--max: the longest a function may be (default 100).
--self-test: check the scan on planted sources in a temporary folder instead.
Exit status 0 when no function is longer, 1 otherwise (each one named as
FILE:LINE NAME LENGTH), 2 on a usage error or a failed self-test.
"""
import argparse
import os
import re
import sys
import tempfile

# Folders at the top of the tree that hold no source of ours.
SKIP = ("build",)
SOURCE_EXT = (".c", ".h")
NAME_RE = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*\(")


def function_name(lines, brace):
    """The name before the first "(" of the declaration that ends above @brace."""
    start = brace - 1
    # The declaration runs up from the brace to the line after a blank line,
    # a comment's end, a preprocessor line or another top-level "}" / ";".
    while start > 0:
        prev = lines[start - 1].rstrip()
        if (not prev or prev.endswith("*/") or prev.startswith("#") or prev.startswith("}")
                or prev.endswith(";")):
            break
        start -= 1
    decl = " ".join(line.strip() for line in lines[start:brace])
    match = NAME_RE.search(decl)
    return match.group(1) if match else "?"


def long_functions(path, limit):
    """(line, name, length) of each function of @path longer than @limit lines."""
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.read().split("\n")
    found = []
    open_at = None
    for i, line in enumerate(lines):
        if line.startswith("{"):
            open_at = i
        elif line.startswith("}") and open_at is not None:
            length = i - open_at + 1
            if length > limit:
                found.append((open_at + 1, function_name(lines, open_at), length))
            open_at = None
    return found


def check(root, limit, out=sys.stdout):
    """Writes each function longer than @limit to @out; returns how many there are."""
    count = 0
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".")
                             and not (dirpath == root and d in SKIP))
        for name in sorted(filenames):
            if not name.endswith(SOURCE_EXT):
                continue
            path = os.path.join(dirpath, name)
            for line, func, length in long_functions(path, limit):
                print("%s:%d %s() is %d lines long (at most %d)"
                      % (os.path.relpath(path, root), line, func, length, limit), file=out)
                count += 1
    return count


def self_test():
    """The scan finds a planted long function, by name, and nothing else; it reads
    drivers/ and tests/ alike, and skips build/."""
    body = "".join("\tx += %d;\n" % i for i in range(101))
    source = (
        "/* a comment */\n"
        "static const int table[] = {\n" + "".join("\t%d,\n" % i for i in range(150)) + "};\n\n"
        "static int short_one(int x)\n{\n\treturn x;\n}\n\n"
        "static int\nlong_one(int x,\n\t int y)\n{\n" + body + "\treturn x + y;\n}\n\n"
        "int exactly_max(int x)\n{\n" + "".join("\tx++;\n" for _ in range(97)) + "\treturn x;\n}\n"
    )
    with tempfile.TemporaryDirectory() as tmp:
        for folder in ("drivers", "tests", "build"):
            os.makedirs(os.path.join(tmp, folder))
        for folder in ("drivers", "tests", "build"):
            with open(os.path.join(tmp, folder, "planted.c"), "w") as f:
                f.write(source)
        found = long_functions(os.path.join(tmp, "drivers", "planted.c"), 100)
        names = [name for _, name, _ in found]
        if names != ["long_one"] or found[0][2] != 104:
            print("self-test: expected long_one (104 lines) alone, found %r" % (found,))
            return 2
        with open(os.devnull, "w") as devnull:
            counted = check(tmp, 100, devnull)
        if counted != 2:
            print("self-test: drivers/ and tests/ must be checked, build/ must not "
                  "(found %d)" % counted)
            return 2
    print("self-test: ok")
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    default_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser.add_argument("--root", default=default_root)
    parser.add_argument("--max", type=int, default=100)
    parser.add_argument("--self-test", action="store_true")
    args = parser.parse_args()
    if args.self_test:
        return self_test()
    count = check(args.root, args.max)
    if count:
        print("check-function-length: %d function(s) longer than %d lines: split them"
              % (count, args.max))
        return 1
    print("check-function-length: no function longer than %d lines" % args.max)
    return 0


if __name__ == "__main__":
    sys.exit(main())
