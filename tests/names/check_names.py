#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_names.py - every set of names has one list, and nothing else types it.

The sets (scripts/names.py): bounce policies, DMA modes, bench suites, the
kernel's error codes, the library's error codes. The check fails, naming
FILE:LINE, on:

  1. C (every .c/.h of the product, tests/ and examples/): a string literal
     that is a policy name ("lifo"), a bounce configuration ("bounce/lifo") or
     a DMA mode, or a suite named literally where a result line begins
     (bench_json_begin("blk")), outside the list headers and the ALLOWED
     places below. C code stringifies the list (#lower) instead.
  2. Product scripts (scripts/*.py but names.py): a string literal that is a
     policy or a mode. They read scripts/names.py.
  3. Anywhere but the list headers and Markdown (C, Python, shell, make): a
     line that types out a whole set, every policy (or every mode) as words in
     the list's order: the copy that a new member would leave behind. A
     boot's own choice, modes=direct,bounce,arena, is an input, not a copy,
     and so is a line marked "names: chosen" (what that boot chose). The
     check reads lines: a set typed over several lines is not seen.
  4. An errno-style value defined outside the error lists: `#define X (-22)`
     or `X = -22,` (any negative number) in C, or `return -22;`. The kernel's
     codes are KERNEL_ERRORS (kernel_errno.h), the library's SLUICE_DMA_ERRORS
     (<sluice/dma_errors.h>).
  5. `#ifdef SLUICE_DMA_WITH_<UPPER>` (or `defined(...)`): defined only in a
     `make lib SLUICE_DMA_POLICIES=` build, so false in the default one;
     DMA_POLICY_WITH(UPPER) of dma/bounce.c is the test that holds in both.
  6. make and the list disagree: dma/build.mk's DMA_POLICIES_ALL is not the
     list, or a dma/bounce_*.c is not a listed policy, or a listed policy has
     no file.

    check_names.py [--root DIR] [--no-make]

Exit status 0 when clean, 1 with offences (one line each), 2 on a usage error
or a missing list. tests/names/test_check_names.sh plants each kind of offence
in a copy of the tree and sees it refused.
"""
import argparse
import io
import os
import re
import subprocess
import sys
import tokenize

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "scripts"))
import names  # noqa: E402

C_DIRS = ("arch", "boot", "kernel", "app", "bench", "dma", "drivers", "firmware", "tests",
          "examples")
SCAN_DIRS = C_DIRS + ("scripts", "linker")
TOP_FILES = ("Makefile",)
C_EXT = (".c", ".h")
TEXT_EXT = (".c", ".h", ".py", ".sh", ".mk", ".S")

# (path, literal) -> why a literal may stay where it is.
ALLOWED = {
    # The IoMmu test app's extra run is the sluice policy over arena buffers by
    # design (its only policy with runs as long as an area): one row, not a list.
    ("tests/firmware/iommu_app.c", "sluice"): "the sluice+arena run",
    # The arena's statistics print prefix and the test of it: a word in a
    # message, not the arena mode.
    ("dma/arena_stats.c", "arena"): "log prefix",
    ("tests/dma/test_arena.c", "arena"): "test group and log prefix",
    # bench_alloc's JSON lines name the host benchmark's own cells: direct
    # memcpy, bounce per policy (from the list), arena; its cell kinds are
    # the JSON contract of scripts/bench.py.
    ("bench/host/bench_alloc.c", "direct"): "JSON cell of the host benchmark",
    ("bench/host/bench_alloc.c", "bounce"): "JSON cell of the host benchmark",
    ("bench/host/bench_alloc.c", "arena"): "JSON cell of the host benchmark",
    ("tests/firmware/iommu_app.c", "direct"): "the identity run's mode",
    ("tests/firmware/iommu_app.c", "bounce"): "the bounce runs' mode",
    ("tests/firmware/iommu_app.c", "arena"): "the sluice+arena run's buffers",
    # cmocka group names.
    ("tests/dma/test_bounce.c", "bounce"): "test group name",
}
# Files whose literals are test data or expectations about one name (a C test
# that asserts what the parser gives for "lifo" must type "lifo").
ALLOWED_FILES = {
    "tests/boot/test_options.c": "the parser's expectations, word by word",
    "tests/names/check_names.py": "this check",
    "tests/names/test_check_names.sh": "it plants copies on purpose",
    "scripts/names.py": "the reader of the lists (its help names them)",
    "tests/test_bench_tools.py": "synthetic results of fixed cells: test data of bench.py",
}
# SLUICE_DMA_WITH_<UPPER> is defined only in a `make lib SLUICE_DMA_POLICIES=`
# build: an #ifdef of it is false in the default build, the kernel's and the
# tests' (a fast path compiled out in silence). DMA_POLICY_WITH() (dma/bounce.c)
# is 1 there.
WITH_IFDEF_RE = re.compile(r'^\s*#\s*(?:ifn?def\s+|(?:el)?if\b.*\bdefined\s*\(?\s*)SLUICE_DMA_WITH_')
SUITE_CALL_RE = re.compile(r'bench_json_begin\(\s*"(\w+)"')
OPTION_VALUE_RE = re.compile(r"\b(?:modes|policies)=[\w,/]+")
STRING_RE = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
# An error code typed as a number: a #define or an enum value whose name says
# error (ERR, or an errno word) and whose value is an errno one.
ERRNO_VALUES = r"(1|2|5|12|14|16|17|22|28|30|34|38|95|110|133)"
ERRNO_NAME = r"\w*(?:ERR|BUSY|INVAL|NOMEM|NOSPC|TIMEDOUT|NOTSUP|RANGE|PERM|NOENT)\w*"
ERRNO_DEF_RE = re.compile(
    r'^\s*#\s*define\s+(%s)\s+\(?\s*-\s*%s\s*\)?\s*(?:/\*.*)?$|'
    r'^\s*(%s)\s*=\s*-\s*%s\s*,' % (ERRNO_NAME, ERRNO_VALUES, ERRNO_NAME, ERRNO_VALUES))
RETURN_ERRNO_RE = re.compile(r'\breturn\s+\(?-\s*(5|12|16|17|22|28|30|34|95|110|133)\s*\)?\s*;')


C_TOKEN_RE = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)


def strip_c_comments(text):
    """@text with comments blanked (newlines kept), strings and chars intact."""
    def blank(m):
        t = m.group(0)
        return re.sub(r"[^\n]", " ", t) if t[0] == "/" else t
    return C_TOKEN_RE.sub(blank, text)


def walk(root):
    for top in TOP_FILES:
        if os.path.exists(os.path.join(root, top)):
            yield top
    for d in SCAN_DIRS:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, d)):
            dirnames[:] = sorted(x for x in dirnames if x not in ("__pycache__",))
            for f in sorted(filenames):
                if f.endswith(TEXT_EXT):
                    yield os.path.relpath(os.path.join(dirpath, f), root)


class Sets:
    def __init__(self, root):
        self.root = root
        self.policies = names.policies(root)
        self.modes = names.modes(root)
        self.suites = names.suites(root)
        self.headers = {os.path.relpath(names.header(s, root), root)
                        for s in ("policies", "modes", "suites")}
        self.err_headers = set()
        for s in ("kerrors", "dmaerrors"):
            try:
                self.err_headers.add(os.path.relpath(names.header(s, root), root))
            except names.NamesError:
                pass
        bounce = names.mode("BOUNCE", root)
        self.c_words = {}
        for p in self.policies:
            self.c_words[p] = "policy"
            self.c_words["%s/%s" % (bounce, p)] = "bounce configuration"
        for m in self.modes:
            self.c_words.setdefault(m, "DMA mode")
        # Suite names are also option keys and device names ("blk"): only
        # a suite named where a result line begins is checked.
        self.suite_words = {s for s in self.suites if s != "none"}
        self.script_words = {p: "policy" for p in self.policies}
        self.script_words.update({m: "DMA mode" for m in self.modes})
        self.typed_sets = [("policies", self.policies), ("modes", self.modes)]


def typed_set(line, words):
    """Whether @line holds every one of @words as a word, in their order."""
    pos = 0
    for w in words:
        m = re.compile(r"(?<![A-Za-z0-9_])%s(?![A-Za-z0-9_])" % re.escape(w)).search(line, pos)
        if not m:
            return False
        pos = m.end()
    return len(words) > 1


def check_c(rel, text, sets, out):
    code = strip_c_comments(text)
    lines = code.split("\n")
    is_err_header = rel in sets.err_headers
    for no, line in enumerate(lines, 1):
        if rel not in sets.headers and rel not in ALLOWED_FILES:
            for m in STRING_RE.finditer(line):
                lit = m.group(1)
                kind = sets.c_words.get(lit)
                if kind and (rel, lit) not in ALLOWED and \
                        (rel, lit.split("/")[-1]) not in ALLOWED:
                    out.append('%s:%d: "%s" is a %s: take it from its list (scripts/names.py '
                               'names the header)' % (rel, no, lit, kind))
            if WITH_IFDEF_RE.match(line):
                out.append("%s:%d: #ifdef SLUICE_DMA_WITH_...: false in the default build; "
                           "use DMA_POLICY_WITH() (dma/bounce.c)" % (rel, no))
            for m in SUITE_CALL_RE.finditer(line):
                if m.group(1) in sets.suite_words:
                    out.append('%s:%d: "%s" is a bench suite: take it from its list '
                               '(options_bench_names[BENCH_SUITE_...])' % (rel, no, m.group(1)))
        if not is_err_header and not rel.startswith("tests/"):
            m = ERRNO_DEF_RE.match(line)
            if m:
                name = m.group(1) or m.group(3)
                out.append("%s:%d: %s defines an error code (-%s): use the error list "
                           "(kernel_errno.h or <sluice/dma_errors.h>)"
                           % (rel, no, name, m.group(2) or m.group(4)))
            m = RETURN_ERRNO_RE.search(line)
            if m:
                out.append("%s:%d: return -%s: name it from the error list"
                           % (rel, no, m.group(1)))
        elif not is_err_header:
            m = ERRNO_DEF_RE.match(line)
            if m:
                name = m.group(1) or m.group(3)
                out.append("%s:%d: %s defines an error code (-%s): use the error list"
                           % (rel, no, name, m.group(2) or m.group(4)))


def check_py_literals(rel, text, sets, out):
    try:
        toks = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError) as e:
        out.append("%s: cannot tokenize: %s" % (rel, e))
        return
    for t in toks:
        if t.type != tokenize.STRING:
            continue
        m = re.fullmatch(r"[rRbBuU]?(['\"])(.*)\1", t.string, re.S)
        if m and m.group(2) in sets.script_words:
            out.append('%s:%d: "%s" is a %s: read it through scripts/names.py'
                       % (rel, t.start[0], m.group(2), sets.script_words[m.group(2)]))


def check_typed_sets(rel, text, sets, out):
    if rel in sets.headers or rel in ALLOWED_FILES:
        return
    if rel.endswith(C_EXT):
        text = strip_c_comments(text)
    for no, line in enumerate(text.split("\n"), 1):
        # A boot's own choice (modes=direct,bounce,arena) is an input, not the
        # set; so is a line that says it expects what a boot chose.
        line = OPTION_VALUE_RE.sub(" ", line)
        if "names: chosen" in line:
            continue
        for what, words in sets.typed_sets:
            if typed_set(line, words):
                out.append("%s:%d: the %s typed out (%s): read the list instead"
                           % (rel, no, what, " ".join(words)))


def check_make(root, sets, out, use_make):
    files = sorted(f[len("bounce_"):-2] for f in os.listdir(os.path.join(root, "dma"))
                   if f.startswith("bounce_") and f.endswith(".c"))
    for f in files:
        if f not in sets.policies:
            out.append("dma/bounce_%s.c: no policy '%s' in the list" % (f, f))
    for p in sets.policies:
        if p not in files:
            out.append("%s: policy '%s' has no dma/bounce_%s.c"
                       % (os.path.relpath(names.header("policies", root), root), p, p))
    if not use_make:
        return
    env = dict(os.environ, MAKEFLAGS="", MFLAGS="")
    r = subprocess.run(["make", "-s", "--no-print-directory", "-C", root,
                        "print-DMA_POLICIES_ALL"], capture_output=True, text=True, env=env)
    got = tuple(r.stdout.split())
    if r.returncode or got != sets.policies:
        out.append("dma/build.mk: DMA_POLICIES_ALL is '%s', the list '%s'%s"
                   % (" ".join(got), " ".join(sets.policies),
                      (" (make: %s)" % r.stderr.strip()) if r.returncode else ""))


def check(root, use_make=True):
    sets = Sets(root)
    out = []
    for rel in walk(root):
        with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
            text = f.read()
        if rel.endswith(C_EXT):
            check_c(rel, text, sets, out)
        if rel.startswith("scripts/") and rel.endswith(".py") and rel != "scripts/names.py":
            check_py_literals(rel, text, sets, out)
        check_typed_sets(rel, text, sets, out)
    check_make(root, sets, out, use_make)
    return sets, out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=names.ROOT)
    ap.add_argument("--no-make", action="store_true", help="skip the make cross-check")
    args = ap.parse_args(argv)
    try:
        sets, out = check(args.root, not args.no_make)
    except names.NamesError as e:
        print("check_names: %s" % e, file=sys.stderr)
        return 2
    for line in out:
        print(line)
    if out:
        print("check_names: %d offence(s)" % len(out), file=sys.stderr)
        return 1
    print("check_names: one list each: %d policies (%s), %d modes, %d suites; no copies"
          % (len(sets.policies), ",".join(sets.policies), len(sets.modes), len(sets.suites)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
