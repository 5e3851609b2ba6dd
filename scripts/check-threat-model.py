#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check-threat-model.py - every name in THREAT_MODEL.md's inventory of inputs
from outside the trusted computing base exists.

The inventory is the table whose rows start "| I<n> |" (input, who writes it,
the check that guards it, the test that shows the check refusing a bad value).
A name that drifts (a test renamed, a file moved) would leave a row claiming a
refusal nothing shows any more, so for each row:

 - check column: every `path/file.c` (any backticked token with a "/" and a
   source suffix) exists, and every `name()` is a function defined in the
   nearest path named before it in the cell, or, if none is, in some C file
   of the kernel or library (arch/ boot/ dma/ drivers/ firmware/);
 - test column: at least one test is named; every `file.c: t1, t2` names a
   file found under tests/ (at any depth: tests move into folders) that
   defines each t<i>; a `file.c` alone exists; every `name.sh` exists under
   tests/, and every scenario named with it (`name.sh: a, b` or bare
   backticked words after it) occurs in that script; every `fuzz_<x>`
   target has a source under tests/.

    check-threat-model.py [--root DIR] [--self-test]

--root: the tree to check (default: the one this script is in).
--self-test: check the checker on a planted tree in a temporary folder.
Exit status 0 when every name exists, 1 otherwise (each missing name on its
own line, with its row), 2 on a usage error or a failed self-test.
"""
import argparse
import os
import re
import sys
import tempfile

SOURCE_FOLDERS = ("arch", "boot", "dma", "drivers", "firmware")
ROW_RE = re.compile(r"^\|\s*(I\d+)\s*\|")
TICK_RE = re.compile(r"`([^`]*)`")
IDENT_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
SCENARIO_RE = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_,.=-]*$")


def files_under(root, folders, suffixes):
    """Relative paths of the files under @folders of @root ending in @suffixes."""
    out = []
    for folder in folders:
        for dirpath, _dirs, names in os.walk(os.path.join(root, folder)):
            for name in names:
                if name.endswith(suffixes):
                    out.append(os.path.relpath(os.path.join(dirpath, name), root))
    return sorted(out)


def read(root, rel):
    with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
        return f.read()


def defines(text, func):
    """Whether C source @text defines function @func (its name at a line's
    start, as GNU style puts it under its type, or after a type and any
    attributes on the same line, then "(", and a body, not a ";", after the
    ")")."""
    pattern = re.compile(r"^(?:[A-Za-z_][^;{}\n]*?\b)?%s\s*\([^;{]*?\)\s*\{" % re.escape(func),
                         re.M | re.S)
    return pattern.search(text) is not None


class Tree:
    """The files of the checked tree, read once."""

    def __init__(self, root):
        self.root = root
        self.tests = files_under(root, ("tests",), (".c", ".sh", ".mk", ".py"))
        self.sources = files_under(root, SOURCE_FOLDERS, (".c",))
        self.cache = {}

    def text(self, rel):
        if rel not in self.cache:
            self.cache[rel] = read(self.root, rel)
        return self.cache[rel]

    def test_file(self, name):
        """The path of test file @name (a basename) under tests/, or None."""
        hits = [p for p in self.tests if os.path.basename(p) == name]
        return hits[0] if hits else None

    def defined_anywhere(self, func):
        return any(defines(self.text(p), func) for p in self.sources)


def split_cells(line):
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    return cells


def check_check_cell(tree, row, cell, errors):
    path = None
    named = 0
    for tok in TICK_RE.findall(cell):
        if "/" in tok and tok.endswith((".c", ".h", ".S", ".sh", ".py")):
            named += 1
            if not os.path.isfile(os.path.join(tree.root, tok)):
                errors.append("%s: check file %s does not exist" % (row, tok))
                path = None
            else:
                path = tok
        elif tok.endswith("()") and IDENT_RE.match(tok[:-2]):
            named += 1
            func = tok[:-2]
            if path:
                if not defines(tree.text(path), func):
                    errors.append("%s: %s is not defined in %s" % (row, tok, path))
            elif not tree.defined_anywhere(func):
                errors.append("%s: %s is defined nowhere in %s" %
                              (row, tok, "/ ".join(SOURCE_FOLDERS) + "/"))
    if not named:
        errors.append("%s: the check names no file and no function" % row)


def check_tests_cell(tree, row, cell, errors):
    tests = 0
    script = None
    for tok in TICK_RE.findall(cell):
        head, _, tail = tok.partition(":")
        head = head.strip()
        names = [n.strip() for n in tail.split(",") if n.strip()]
        if head.endswith(".c"):
            script = None
            rel = tree.test_file(head)
            if not rel:
                errors.append("%s: test file %s is not under tests/" % (row, head))
                continue
            tests += 1
            for name in names:
                if not defines(tree.text(rel), name):
                    errors.append("%s: %s does not define %s" % (row, rel, name))
        elif head.endswith(".sh"):
            rel = tree.test_file(head)
            script = rel
            if not rel:
                errors.append("%s: script %s is not under tests/" % (row, head))
                continue
            tests += 1
            for name in names:
                if name not in tree.text(rel):
                    errors.append("%s: %s has no scenario %s" % (row, rel, name))
        elif tok.startswith("fuzz_") and IDENT_RE.match(tok):
            script = None
            if not tree.test_file(tok + ".c"):
                errors.append("%s: fuzz target %s has no source under tests/" % (row, tok))
                continue
            tests += 1
        elif script and SCENARIO_RE.match(tok):
            # A scenario of the script named just before: it must occur in it.
            if tok not in tree.text(script):
                errors.append("%s: %s has no scenario %s" % (row, script, tok))
    if not tests:
        errors.append("%s: no test is named" % row)


def check(root):
    """The list of problems of @root's THREAT_MODEL.md inventory."""
    errors = []
    try:
        text = read(root, "THREAT_MODEL.md")
    except OSError as e:
        return ["THREAT_MODEL.md: %s" % e]
    tree = Tree(root)
    rows = 0
    for line in text.split("\n"):
        m = ROW_RE.match(line)
        if not m:
            continue
        rows += 1
        cells = split_cells(line)
        if len(cells) != 4:
            errors.append("%s: %d cells, not 4 (input, source, check, test)" %
                          (m.group(1), len(cells)))
            continue
        check_check_cell(tree, m.group(1), cells[2], errors)
        check_tests_cell(tree, m.group(1), cells[3], errors)
    if not rows:
        errors.append("THREAT_MODEL.md: no inventory rows (| I<n> | ...)")
    return errors


def plant(root, files):
    for rel, body in files.items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(body)


def self_test():
    """A planted tree: a good row passes, each kind of drift is reported."""
    good = ("| I1 | the config | `boot/opt.c`: `opt_check()`, `opt_apply()`, `opt_fast()` | "
            "`test_opt.c: test_refused`; e2e `hostile.sh: scrub-copy` (`sim-tdx`); "
            "`fuzz_opt` |\n")
    files = {
        "boot/opt.c": ("int opt_check(const char *s)\n{\n\treturn !s;\n}\n"
                       "static inline __attribute__((always_inline)) int\n"
                       "opt_apply(void)\n{\n\treturn 0;\n}\n"
                       "static inline __attribute__((always_inline)) int opt_fast(int a,\n"
                       "\t\t\t\t\t\t\t int b)\n{\n\treturn a + b;\n}\n"),
        "tests/unit/test_opt.c": "static void test_refused(void **state)\n{\n}\n",
        "tests/e2e/hostile.sh": "run scrub-copy under sim-tdx\n",
        "tests/fuzz/fuzz_opt.c": "int main(void)\n{\n\treturn 0;\n}\n",
    }
    bad_rows = {
        "missing test": good.replace("test_refused", "test_renamed"),
        "missing file": good.replace("test_opt.c", "test_gone.c"),
        "missing function": good.replace("opt_check()", "opt_gone()"),
        "missing path": good.replace("boot/opt.c", "boot/gone.c"),
        "missing scenario": good.replace("scrub-copy", "scrub-zero"),
        "missing bare scenario": good.replace("`sim-tdx`", "`sim-snp`"),
        "missing script": good.replace("hostile.sh", "gone.sh"),
        "missing fuzz target": good.replace("fuzz_opt", "fuzz_gone"),
        "no test": "| I1 | the config | `boot/opt.c`: `opt_check()` | none |\n",
        "a declaration only": good.replace("opt_check()", "opt_decl()"),
        "a GNU-style name missing": good.replace("opt_apply()", "opt_applied()"),
        "a name after attributes missing": good.replace("opt_fast()", "opt_faster()"),
    }
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        plant(tmp, dict(files, **{"THREAT_MODEL.md": good,
                                  "boot/decl.h": "int opt_decl(void);\n"}))
        errs = check(tmp)
        if errs:
            print("self-test: a good row was refused: %s" % errs, file=sys.stderr)
            ok = False
        for what, row in bad_rows.items():
            plant(tmp, {"THREAT_MODEL.md": row})
            if not check(tmp):
                print("self-test: %s was not reported" % what, file=sys.stderr)
                ok = False
    if ok:
        print("check-threat-model: self-test passed (%d kinds of drift reported)" %
              len(bad_rows))
    return 0 if ok else 2


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap.add_argument("--self-test", action="store_true")
    args = ap.parse_args()
    if args.self_test:
        return self_test()
    errors = check(args.root)
    for e in errors:
        print("THREAT_MODEL.md inventory: %s" % e, file=sys.stderr)
    if errors:
        return 1
    print("check-threat-model: every check and test named in the inventory exists")
    return 0


if __name__ == "__main__":
    sys.exit(main())
