#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check-doc-paths.py - every path of this repository that a document names exists.

    check-doc-paths.py [--root DIR] [--readme-max N]

The documents: README.md, CONTRIBUTING.md, dma/README.md, dma/PORTING.md and every
docs/**/*.md. In each, outside fenced and indented code blocks and HTML comments, two
things name paths:

  - a link, [text](target): a relative target is resolved from the document's own
    folder and must exist; a "#anchor" (alone, or after a Markdown file) must be a
    heading of that file, by GitHub's rule (lower case; punctuation but "-" and "_"
    dropped; spaces to "-"; "-1", "-2" for repeats). http(s): and mailto: targets
    are not checked.
  - an inline code span, `...`: each of its words that names a repository path is
    read from the top of the tree. A word names one when its first component is an
    entry at the top of the tree (a folder such as dma/ or tests/, or a top-level
    file such as Makefile) and it has a "/" or is that top-level file itself.

Not checked, by rule:
  - build outputs: anything under build/ (made by the build, absent from a clone);
  - upstream references: a word whose first component is no entry of this tree
    (OvmfPkg/..., MdePkg/..., Documentation/..., /usr/share/..., tianocore/edk2)
    is another project's path; the few upstream prefixes that begin like one of
    ours (Linux's arch/x86/ and kernel/dma/) are listed in UPSTREAM below;
  - bare file names without a folder (`smp.c`): they name a file in the folder the
    sentence is about;
  - placeholders: a word with <...>, $, or a PLACEHOLDERS word as one of its parts
    (`tests/e2e/NAME.sh`, `docs/results/YYYY-MM-DD-<what>.md`). A glob
    (`tests/test_*.c`) must match at least one path.

README.md must also stay a front door: at most --readme-max lines (default 300).
Exit 0 when every path and anchor exists, 1 otherwise (each named as FILE:LINE and
the path), 2 on a usage error. tests/docs/test_check_doc_paths.sh proves it refuses
a planted bad path, a bad anchor and a README over the limit.
"""
import argparse
import glob
import os
import re
import sys

DOCS = ("README.md", "CONTRIBUTING.md", "dma/README.md", "dma/PORTING.md", "docs/**/*.md")
BUILD_OUTPUTS = ("build",)
# Upstream path prefixes whose first component is also a folder of this tree: Linux's
# arch/x86/ (ours is arch/x86_64/) and kernel/dma/.
UPSTREAM = ("arch/x86/", "kernel/dma/")
# Words that stand for a name the reader chooses.
PLACEHOLDERS = {"NAME", "FILE", "TARGET", "COMPILER", "ARCH", "BIN", "CAP", "YYYY", "MM",
                "DD", "IMG", "SOCKET", "SUITE", "BIT", "N"}

LINK_RE = re.compile(r"\[(?:[^\]`]|`[^`]*`)*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
CODE_RE = re.compile(r"(`+)(.+?)\1")
FENCE_RE = re.compile(r"^\s*(```|~~~)")


def slug(heading):
    """GitHub's anchor for a heading's text."""
    text = heading.strip().lower().replace("`", "")
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def prose_lines(path):
    """(line number, text) of the lines outside code blocks and HTML comments."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    fence = comment = False
    prev_blank = prev_code = True
    for no, line in enumerate(lines, 1):
        if FENCE_RE.match(line):
            fence = not fence
            continue
        indented = line.startswith("    ") and (prev_blank or prev_code)
        prev_code, prev_blank = indented, not line.strip()
        if fence or indented:
            continue
        text, rest = "", line
        while rest:
            if comment:
                end = rest.find("-->")
                comment, rest = end < 0, rest[end + 3:] if end >= 0 else ""
            else:
                start = rest.find("<!--")
                if start < 0:
                    text, rest = text + rest, ""
                else:
                    text, comment, rest = text + rest[:start], True, rest[start + 4:]
        yield no, text


def anchors(path):
    """The anchors of a Markdown file's headings."""
    seen, out = {}, set()
    for _no, line in prose_lines(path):
        m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if m:
            s = slug(m.group(1))
            n = seen.get(s, 0)
            seen[s] = n + 1
            out.add(s if n == 0 else f"{s}-{n}")
    return out


def top_entries(root):
    return {e for e in os.listdir(root) if not e.startswith(".")} - set(BUILD_OUTPUTS)


def is_placeholder(word):
    if re.search(r"[<>$]", word):
        return True
    return any(part in PLACEHOLDERS for part in re.split(r"[^A-Za-z]+", word))


def code_words(span):
    """The words of a code span that could be paths, without trailing punctuation."""
    for word in span.split():
        word = word.strip("\"'(),;:")
        word = re.sub(r":\d+$", "", word)  # FILE:LINE
        if word and "://" not in word and not word.startswith("-"):
            yield word


def path_exists(root, rel):
    full = os.path.join(root, rel)
    if any(c in rel for c in "*?["):
        return bool(glob.glob(full))
    return os.path.exists(full)


def check_code_word(root, tops, word):
    """None if fine or not a repository path, else the problem."""
    if is_placeholder(word) or word.startswith("/"):
        return None
    first = word.split("/")[0]
    if first in BUILD_OUTPUTS or first not in tops or word.startswith(UPSTREAM):
        return None
    if "/" not in word and not os.path.isfile(os.path.join(root, word)):
        return None
    if not path_exists(root, word.split("#")[0]):
        return f"`{word}`: no such path in the tree"
    return None


def check_link(root, doc, target, cache):
    if re.match(r"^[a-z]+:", target):
        return None
    path, _, anchor = target.partition("#")
    full = os.path.normpath(os.path.join(os.path.dirname(doc), path)) if path else doc
    if os.path.relpath(full, root).split(os.sep)[0] == "..":
        return f"({target}): outside the tree"
    if path and not os.path.exists(full):
        return f"({target}): no such path"
    if anchor and full.endswith(".md"):
        if full not in cache:
            cache[full] = anchors(full)
        if anchor not in cache[full]:
            return f"({target}): no heading '#{anchor}' in {os.path.relpath(full, root)}"
    return None


def check(root, readme_max):
    root = os.path.abspath(root)
    tops = top_entries(root)
    docs = sorted({p for pat in DOCS for p in glob.glob(os.path.join(root, pat),
                                                        recursive=True)})
    problems, cache, paths = [], {}, 0
    for doc in docs:
        rel = os.path.relpath(doc, root)
        for no, line in prose_lines(doc):
            for m in LINK_RE.finditer(line):
                paths += 1
                p = check_link(root, doc, m.group(1), cache)
                if p:
                    problems.append(f"{rel}:{no}: link {p}")
            for m in CODE_RE.finditer(LINK_RE.sub(lambda x: x.group(0).split("](")[0], line)):
                for word in code_words(m.group(2)):
                    paths += 1
                    p = check_code_word(root, tops, word)
                    if p:
                        problems.append(f"{rel}:{no}: {p}")
    readme = os.path.join(root, "README.md")
    if os.path.exists(readme):
        with open(readme, encoding="utf-8") as f:
            n = f.read().count("\n")
        if n > readme_max:
            problems.append(f"README.md: {n} lines, more than {readme_max}: the README is the "
                            "front door; move the detail into docs/ and link it")
    return docs, paths, problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=os.path.join(os.path.dirname(__file__), ".."))
    ap.add_argument("--readme-max", type=int, default=300)
    opts = ap.parse_args()
    docs, paths, problems = check(opts.root, opts.readme_max)
    for p in problems:
        print(f"check-doc-paths: {p}")
    if problems:
        print(f"check-doc-paths: {len(problems)} problems in {len(docs)} documents")
        return 1
    print(f"check-doc-paths: {len(docs)} documents, {paths} links and code words: every "
          "repository path and anchor exists")
    return 0


if __name__ == "__main__":
    sys.exit(main())
