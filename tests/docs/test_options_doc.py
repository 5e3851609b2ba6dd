#!/usr/bin/env python3
"""test_options_doc.py - docs/OPTIONS.md against the kernel's option table.

The kernel parses its options from one table, option_table[] in options.c (boot/ or
kernel/: the file that defines the table), and refuses the options that weaken a
guarantee from an unmeasured source through weakenings[] in options_trust.c, next to
it. docs/OPTIONS.md documents them in one Markdown table whose rows start
"| `key=PLACEHOLDER` | values | default | meaning | from sluice.cfg ... |". This test
fails, naming the key, when:

  - an option of the code has no row, or a row names an option the code lacks;
  - the placeholder does not match the option's type (SIZE for OPT_SIZE, N for
    OPT_UINT, LIST for OPT_LIST; a choice takes any other word);
  - a value of a choice or list option is not in its row's values cell as `value`
    (the values: the strings of its NULL-terminated names array). An array built
    from one of the X-macro lists (bounce policies, DMA modes, bench suites: the one
    list of each, read through scripts/names.py) is documented by naming the list's
    header in the cell instead, so that adding a member touches no document; every
    `value` the cell then shows as an example must still be a member (a renamed or
    removed one fails), and a cell that names no header must show every member;
  - the first "a..b" range of a size or number option's values cell is not the
    table's bounds (sizes with K/M/G suffixes);
  - the last cell starts with "measured only" for an option that is not in
    weakenings[], or does not for one that is.

Then it proves it can fail: each kind of drift is planted in a copy of the document
(a row removed, a row added, a value dropped, a list member renamed, a range changed,
a trust cell flipped either way) and must be reported. Run by make check; exits 1 on any problem.
"""
import glob
import importlib.util
import os
import re
import sys
import tempfile

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
DOC = os.path.join(TOP, "docs", "OPTIONS.md")
sys.dont_write_bytecode = True  # nothing written beside the scripts, in the tree
sys.path.insert(0, os.path.join(TOP, "scripts"))
import names  # noqa: E402  the one list of each set of names (X-macros)

MACROS = {"MIB": 1 << 20, "TWO_MIB": 2 << 20}
ROW_RE = re.compile(r"^\| `([a-z_]+)=([A-Z]+)` \|")
ENTRY_RE = re.compile(r'\{\s*"([a-z_]+)",\s*OPT_([A-Z]+),\s*offsetof\([^)]*\),\s*([^,]+),'
                      r"\s*([^,]+),\s*([^,]+),\s*([A-Za-z_0-9]+)")
NAMES_RE = re.compile(r"const char \*const (\w+)\[\] = \{([^}]*)\}")
SIZE_RE = re.compile(r"(\d+)\s*([KMG]?)\s*\.\.\s*(\d+)\s*([KMG]?)")
PLACEHOLDER = {"SIZE": "SIZE", "UINT": "N", "LIST": "LIST"}


def option_sources(top=TOP):
    """(options.c, options_trust.c): the file defining option_table[] and its neighbour."""
    for path in sorted(glob.glob(os.path.join(top, "*", "options.c"))):
        with open(path) as f:
            if "option_table[] = {" in f.read():
                return path, os.path.join(os.path.dirname(path), "options_trust.c")
    raise SystemExit(f"test_options_doc: no */options.c defines option_table[] under {top}")


def c_value(expr):
    """A bound of the table (a number, MIB, 256 * 1024, ...) as an int."""
    words = [str(MACROS.get(w, w)) for w in re.split(r"(\W)", expr.strip())]
    text = "".join(words).replace("UINT64_C", "")
    if not re.fullmatch(r"[0-9 *+()]+", text):
        raise ValueError(f"cannot read the bound '{expr.strip()}'")
    return eval(text)  # digits, spaces, * + ( ) only: checked above


def cc_platforms():
    """scripts/cc-platforms.py as a module (its name has a hyphen)."""
    spec = importlib.util.spec_from_file_location(
        "cc_platforms", os.path.join(TOP, "scripts", "cc-platforms.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def choice_values(body):
    """(names, header or None) of one choices array: its strings, then the members of
    the X-macro list it expands (SLUICE_DMA_POLICIES(...), ...) as scripts/names.py
    reads them, with that list's header relative to the top of the tree."""
    values, header = re.findall(r'"([^"]*)"', body), None
    for macro in re.findall(r"\b([A-Z][A-Z0-9_]*)\(", body):
        if macro == "CC_PLATFORMS":  # its own list and reader: scripts/cc-platforms.py
            values += [name for _, _, name, how in cc_platforms().read_list(TOP)
                       if how == "OPTION"]
            header = "arch/x86_64/cc/cc.h"
            continue
        sets = [s for s, (m, _) in names.SETS.items() if m == macro]
        if not sets:
            raise ValueError(f"choices built from {macro}(), which scripts/names.py does not know")
        values += [lower for _, lower in names.entries(sets[0], TOP)]
        header = os.path.relpath(names.header(sets[0], TOP), TOP)
    return values, header


def code_options(options_c):
    """{key: (type, min, max, [choices] or None, list header or None)} from option_table[]."""
    with open(options_c) as f:
        text = f.read()
    arrays = {m.group(1): choice_values(m.group(2)) for m in NAMES_RE.finditer(text)}
    start = text.index("option_table[] = {")
    table = text[start:text.index("\n};", start)]
    opts = {}
    for m in ENTRY_RE.finditer(table):
        key, typ, lo, hi, _align, choices = m.groups()
        if choices == "NULL":
            opts[key] = (typ, c_value(lo), c_value(hi), None, None)
        elif not arrays.get(choices, ([], None))[0]:
            raise ValueError(f"option '{key}': no values read from its array {choices}")
        else:
            opts[key] = (typ, None, None) + arrays[choices]
    return opts


def code_weakenings(trust_c):
    """The keys of weakenings[]: options only a measured source may weaken."""
    with open(trust_c) as f:
        text = f.read()
    start = text.index("weakenings[] = {")
    return set(re.findall(r'\{\s*"([a-z_]+)",', text[start:text.index("\n};", start)]))


def doc_rows(doc):
    """{key: (placeholder, [cells])} from the option table of docs/OPTIONS.md."""
    rows = {}
    with open(doc) as f:
        for line in f:
            m = ROW_RE.match(line)
            if m:
                cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
                rows[m.group(1)] = (m.group(2), cells)
    return rows


def size_of(num, suffix):
    return int(num) << {"": 0, "K": 10, "M": 20, "G": 30}[suffix]


def problems(opts, weak, rows):
    out = []
    for key in sorted(set(opts) - set(rows)):
        out.append(f"option '{key}' is in the code's option_table[] but not in docs/OPTIONS.md")
    for key in sorted(set(rows) - set(opts)):
        out.append(f"docs/OPTIONS.md documents '{key}', which option_table[] does not have")
    for key in sorted(set(opts) & set(rows)):
        typ, lo, hi, choices, header = opts[key]
        ph, cells = rows[key]
        if len(cells) != 5:
            out.append(f"'{key}': its row has {len(cells)} cells, not 5")
            continue
        want = PLACEHOLDER.get(typ)
        if (want and ph != want) or (not want and ph in PLACEHOLDER.values()):
            out.append(f"'{key}': placeholder {ph} does not fit its type OPT_{typ}")
        values = cells[1]
        if header and f"`{header}`" in values:
            for word in re.findall(r"`([^`]*)`", values):
                if "/" not in word and word not in choices and word != "all":
                    out.append(f"'{key}': `{word}` is not a member of {header}")
        else:
            for c in choices or []:
                if f"`{c}`" not in values:
                    out.append(f"'{key}': value `{c}` is not in its row's values"
                               + (f" (or name its list, `{header}`)" if header else ""))
        if choices is None:
            m = SIZE_RE.search(values)
            if not m:
                out.append(f"'{key}': no a..b range in its row's values")
            elif (size_of(m.group(1), m.group(2)), size_of(m.group(3), m.group(4))) != (lo, hi):
                out.append(f"'{key}': range {m.group(0)} in the doc, {lo}..{hi} in the code")
        measured = cells[4].startswith("measured only")
        if measured != (key in weak):
            out.append(f"'{key}': the trust cell says '{cells[4]}' but the option is "
                       f"{'' if key in weak else 'not '}in weakenings[]")
    return out


def check(doc, opts, weak):
    return problems(opts, weak, doc_rows(doc))


def planted(doc_text, opts, weak):
    """Each kind of drift planted in a copy of the doc must be reported."""
    failures = []
    lines = doc_text.split("\n")
    row_of = {ROW_RE.match(l).group(1): i for i, l in enumerate(lines) if ROW_RE.match(l)}
    choice_key = next(k for k, v in sorted(opts.items()) if v[3] and not v[4])
    list_key = next(k for k, v in sorted(opts.items()) if v[4])
    uint_key = next(k for k, v in sorted(opts.items()) if v[0] == "UINT")
    weak_key = sorted(weak)[0]
    plain_key = next(k for k in sorted(opts) if k not in weak)

    def mutate(name, expect, fn):
        copy = list(lines)
        fn(copy)
        with tempfile.NamedTemporaryFile("w", suffix=".md", delete=False) as f:
            f.write("\n".join(copy))
        try:
            found = check(f.name, opts, weak)
        finally:
            os.unlink(f.name)
        if not any(expect in p for p in found):
            failures.append(f"planted {name}: not reported (got {found})")

    mutate("a missing option", f"'{plain_key}' is in the code",
           lambda c: c.pop(row_of[plain_key]))
    mutate("an option the code lacks", "'no_such_option', which",
           lambda c: c.insert(row_of[plain_key], "| `no_such_option=N` | 0..1 | 0 | x | yes |"))
    value = opts[choice_key][3][-1]
    mutate("a dropped value", f"value `{value}` is not",
           lambda c: c.__setitem__(row_of[choice_key],
                                   c[row_of[choice_key]].replace(f"`{value}`", "`x`")))
    member = opts[list_key][3][-1]
    mutate("a member the list does not have", f"'{list_key}': `no_such_member` is not a member",
           lambda c: c.__setitem__(row_of[list_key],
                                   c[row_of[list_key]].replace(f"`{member}`",
                                                               "`no_such_member`", 1)))
    lo, hi = opts[uint_key][1], opts[uint_key][2]
    mutate("a wrong range", f"'{uint_key}': range",
           lambda c: c.__setitem__(row_of[uint_key],
                                   c[row_of[uint_key]].replace(f"{lo}..{hi}", f"{lo}..{hi + 1}", 1)))
    mutate("a weakening marked trusted", f"'{weak_key}': the trust cell",
           lambda c: c.__setitem__(row_of[weak_key],
                                   re.sub(r"\| [^|]* \|$", "| yes |", c[row_of[weak_key]])))
    mutate("a trusted option marked measured", f"'{plain_key}': the trust cell",
           lambda c: c.__setitem__(row_of[plain_key],
                                   re.sub(r"\| yes \|$", "| measured only: x |",
                                          c[row_of[plain_key]])))
    return failures


def main():
    options_c, trust_c = option_sources()
    opts, weak = code_options(options_c), code_weakenings(trust_c)
    if len(opts) < 10 or not weak:
        print(f"FAIL: read {len(opts)} options and {len(weak)} weakenings from "
              f"{os.path.relpath(options_c, TOP)}: the parser no longer fits the code")
        return 1
    found = check(DOC, opts, weak)
    for p in found:
        print(f"FAIL: {p}")
    with open(DOC) as f:
        failures = planted(f.read(), opts, weak)
    for p in failures:
        print(f"FAIL: {p}")
    if found or failures:
        return 1
    print(f"ok: docs/OPTIONS.md documents the {len(opts)} options of "
          f"{os.path.relpath(options_c, TOP)} ({len(weak)} measured only), and 7 planted "
          f"drifts are reported")
    return 0


if __name__ == "__main__":
    sys.exit(main())
